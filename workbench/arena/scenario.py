"""Scenarios as files: nodes, links and a workload, validated by a pydantic schema.

A scenario is a YAML or JSON file (or the same dict)::

    name: two-centers
    nodes:       # role: device | edge | fog | cloud
      - {id: A, role: edge, servers: 10, speed: 1.0, capacity: 10, power_idle: 50, power_busy: 120}
      - {id: B, role: edge, servers: 10, speed: 1.0, capacity: 10}
      - {id: cloud, role: cloud, servers: .inf}
    links:       # delay in s, bandwidth in bit/s, energy in J/bit
      - {a: A, b: B, delay: 0.002, bandwidth: 1.0e8, energy_per_bit: 0.0}
      - {a: A, b: cloud, delay: 0.05}
    workload:    # a task's service time is size / speed
      - {source: A, rate: 15.0, size: {dist: exponential, mean: 1.0}, input_bits: 0}
      - {source: B, rate: 8.0, size: {dist: exponential, mean: 1.0}}

Keys
----
nodes[i]
    ``id`` (unique text), ``role`` (device, edge, fog, cloud), ``servers`` (an integer >= 0
    or ``.inf``; 0: the node only places tasks), ``speed`` (work per second, > 0, default 1;
    ``.inf``: service takes no time), ``capacity`` (the most tasks the node holds, servers
    plus waiting room, >= servers; absent: unbounded; ``capacity == servers``: a loss node),
    ``power_idle`` and ``power_busy`` (W per server, default 0).
links[j]
    ``a``, ``b`` (node ids; a link is two-way), ``delay`` (s, >= 0), ``bandwidth`` (bit/s,
    > 0, default ``.inf``), ``energy_per_bit`` (J/bit, >= 0, default 0).
workload[k]
    ``source`` (a node id), ``rate`` (tasks/s, Poisson, > 0), ``size`` (the work of a task:
    ``{dist: exponential, mean}``, ``{dist: deterministic, value}``,
    ``{dist: shifted_exponential, shift, rate}``, ``{dist: pareto, scale, alpha}`` with
    alpha > 1, ``{dist: weibull, shape, scale}``), ``input_bits`` (sent over every link a
    task crosses, >= 0, default 0), ``types`` (optional ``{count, zipf}``: task types drawn
    with Zipf popularity ``P(k) ∝ k^-zipf``, for caching policies).

Errors name the file, the key path (``nodes[1].servers``), the rule and the value received;
a scenario that fails validation is never half-built.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from workbench.validation import ParameterError

__all__ = ["Scenario", "ScenarioError", "load_scenario", "scenario_from_dict", "SCENARIOS_DIR"]

SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "data" / "scenarios"

ROLES = ("device", "edge", "fog", "cloud")
ROLE_LEVEL = {r: i for i, r in enumerate(ROLES)}


class ScenarioError(ParameterError):
    """A scenario file or dict that does not follow the schema."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


PosReal = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegReal = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Law(_Strict):
    """A size law: ``moment(k)`` is E[S^k] (``inf`` when it diverges)."""

    def moment(self, k: int) -> float:  # pragma: no cover - every law overrides it
        raise NotImplementedError

    @property
    def moments(self) -> tuple[float, float]:
        """(E[S], E[S²])."""
        return self.moment(1), self.moment(2)

    @property
    def cv2(self) -> float:
        """The squared coefficient of variation E[S²] / E[S]² - 1 (0 for a zero mean)."""
        m1, m2 = self.moments
        return m2 / (m1 * m1) - 1.0 if m1 > 0 else 0.0


class Exponential(_Law):
    dist: Literal["exponential"]
    mean: PosReal

    def moment(self, k: int) -> float:
        return math.factorial(k) * self.mean**k


class Deterministic(_Law):
    dist: Literal["deterministic"]
    value: NonNegReal

    def moment(self, k: int) -> float:
        return self.value**k


class ShiftedExponential(_Law):
    dist: Literal["shifted_exponential"]
    shift: NonNegReal
    rate: PosReal

    def moment(self, k: int) -> float:
        m = 1 / self.rate  # E[(s + X)^k] = sum_j C(k, j) s^(k-j) j! m^j
        terms = (
            math.comb(k, j) * self.shift ** (k - j) * math.factorial(j) * m**j for j in range(k + 1)
        )
        return sum(terms)


class Pareto(_Law):
    dist: Literal["pareto"]
    scale: PosReal
    alpha: Annotated[float, Field(gt=1, allow_inf_nan=False)]

    def moment(self, k: int) -> float:
        a, b = self.alpha, self.scale
        return a * b**k / (a - k) if a > k else math.inf


class Weibull(_Law):
    dist: Literal["weibull"]
    shape: PosReal
    scale: PosReal

    def moment(self, k: int) -> float:
        return self.scale**k * math.gamma(1 + k / self.shape)


class Hyperexponential(_Law):
    """Two exponential phases with balanced means (p1/μ1 = p2/μ2): the law of mean ``mean``
    and squared coefficient of variation ``scv`` >= 1 with the fewest parameters; every
    moment finite (Whitt's H2 fit)."""

    dist: Literal["hyperexponential"]
    mean: PosReal
    scv: Annotated[float, Field(ge=1, allow_inf_nan=False)]

    @property
    def phases(self) -> tuple[float, float, float]:
        """(p1, mean of phase 1, mean of phase 2)."""
        p1 = 0.5 * (1 + math.sqrt((self.scv - 1) / (self.scv + 1)))
        return p1, self.mean / (2 * p1), self.mean / (2 * (1 - p1))

    def moment(self, k: int) -> float:
        p1, m1, m2 = self.phases
        return math.factorial(k) * (p1 * m1**k + (1 - p1) * m2**k)


class Lognormal(_Law):
    """exp(N(μ, σ²)) with σ² = ln(1 + scv), μ = ln(mean) - σ²/2: mean ``mean`` and squared
    coefficient of variation ``scv``; every moment finite."""

    dist: Literal["lognormal"]
    mean: PosReal
    scv: PosReal

    def moment(self, k: int) -> float:
        s2 = math.log1p(self.scv)
        return math.exp(k * (math.log(self.mean) - s2 / 2) + k * k * s2 / 2)


Size = Annotated[
    Exponential
    | Deterministic
    | ShiftedExponential
    | Pareto
    | Weibull
    | Hyperexponential
    | Lognormal,
    Field(discriminator="dist"),
]
#: the size distributions and their numeric code in the engine
DISTS = (
    "exponential",
    "deterministic",
    "shifted_exponential",
    "pareto",
    "weibull",
    "hyperexponential",
    "lognormal",
)


class Types(_Strict):
    count: Annotated[int, Field(ge=1, le=10**6)]
    zipf: NonNegReal = 0.8


def _servers(v):
    """YAML's .inf (and "inf") as a float infinity."""
    if isinstance(v, str) and v.strip().lower() in (".inf", "inf", "infinity"):
        return math.inf
    return v


class Node(_Strict):
    id: Annotated[str, Field(min_length=1)]
    role: Literal["device", "edge", "fog", "cloud"]
    servers: int | float = 1
    speed: Annotated[float, Field(gt=0)] = 1.0
    capacity: Annotated[int, Field(ge=0, le=10**9)] | None = None
    power_idle: NonNegReal = 0.0
    power_busy: NonNegReal = 0.0

    _norm = field_validator("servers", "capacity", "speed", mode="before")(_servers)

    @field_validator("servers")
    @classmethod
    def _servers_range(cls, v):
        if v == math.inf or (float(v).is_integer() and 0 <= v <= 10**6):
            return v if v == math.inf else int(v)
        raise ValueError("servers must be an integer in [0, 1e6] or .inf")

    @field_validator("speed")
    @classmethod
    def _speed(cls, v):
        if math.isnan(v):
            raise ValueError("speed must be a positive number or .inf")
        return v

    @model_validator(mode="after")
    def _capacity(self):
        if self.capacity is not None and self.capacity < self.servers:
            raise ValueError(
                f"capacity ({self.capacity}) must be at least servers ({self.servers}): "
                "capacity counts the servers plus the waiting room"
            )
        return self


class Link(_Strict):
    a: str
    b: str
    delay: NonNegReal = 0.0
    bandwidth: Annotated[float, Field(gt=0)] = math.inf
    energy_per_bit: NonNegReal = 0.0


class Source(_Strict):
    source: str
    rate: PosReal
    size: Size
    input_bits: NonNegReal = 0.0
    types: Types | None = None


class Scenario(_Strict):
    """A validated scenario (frozen). Build it with :func:`load_scenario` or
    :func:`scenario_from_dict`."""

    name: str = "scenario"
    description: str = ""
    nodes: Annotated[list[Node], Field(min_length=1)]
    links: list[Link] = []
    workload: Annotated[list[Source], Field(min_length=1)]

    @model_validator(mode="after")
    def _references(self):
        ids = [n.id for n in self.nodes]
        seen = set()
        for i, n in enumerate(ids):
            if n in seen:
                raise _Located(f"nodes[{i}].id", f"duplicate node id {n!r}", n)
            seen.add(n)
        for j, link in enumerate(self.links):
            for end in ("a", "b"):
                v = getattr(link, end)
                if v not in seen:
                    raise _Located(f"links[{j}].{end}", f"an existing node id, one of {ids}", v)
            if link.a == link.b:
                raise _Located(f"links[{j}].b", "a node other than a (no self-links)", link.b)
        for k, w in enumerate(self.workload):
            if w.source not in seen:
                raise _Located(
                    f"workload[{k}].source", f"an existing node id, one of {ids}", w.source
                )
        clouds = [i for i, n in enumerate(self.nodes) if n.role == "cloud"]
        if len(clouds) > 1:
            raise _Located(f"nodes[{clouds[1]}].role", "at most one cloud node", "cloud")
        return self

    # -- convenience --------------------------------------------------------------------
    def index(self, node_id: str) -> int:
        return [n.id for n in self.nodes].index(node_id)

    @property
    def total_rate(self) -> float:
        return sum(w.rate for w in self.workload)

    def scaled(self, factor: float) -> Scenario:
        """The same scenario with every source's rate multiplied by ``factor``."""
        d = self.model_dump()
        for w in d["workload"]:
            w["rate"] *= factor
        return scenario_from_dict(d)

    def with_(self, **changes) -> Scenario:
        """A validated copy with top-level keys replaced (``nodes=[...]``, ...)."""
        return scenario_from_dict({**self.model_dump(), **changes})


class _Located(ValueError):
    """A cross-reference error with its own key path (raised inside a validator)."""

    def __init__(self, path: str, rule: str, value):
        super().__init__(f"{path}: must be {rule}; got {value!r}")
        self.path, self.rule, self.value = path, rule, value


def _key_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in DISTS or part.startswith(("int", "literal", "function-")):
            continue  # a union branch's tag, not a key
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _message(err: ValidationError, where: str) -> str:
    lines = []
    for e in err.errors():
        ctx = e.get("ctx") or {}
        inner = ctx.get("error")
        if isinstance(inner, _Located):
            lines.append(f"{inner.path}: must be {inner.rule}; got {inner.value!r}")
            continue
        path = _key_path(e["loc"])
        got = e.get("input")
        lines.append(f"{path}: {e['msg']}; got {got!r}")
    # one line per distinct key path (a union reports each branch)
    uniq = list(dict.fromkeys(lines))
    return f"Invalid scenario {where}:\n  " + "\n  ".join(uniq)


def scenario_from_dict(d, *, where: str = "(dict)") -> Scenario:
    """Validate a scenario given as a dict (the parsed YAML/JSON) and build it.

    Raises :class:`ScenarioError` (a :class:`workbench.ParameterError`) naming ``where``,
    every bad key path, its rule and the value received.
    """
    if isinstance(d, Scenario):
        return d
    if not isinstance(d, dict):
        raise ScenarioError(f"Invalid scenario {where}: must be a mapping; got {type(d).__name__}")
    try:
        return Scenario.model_validate(d)
    except ValidationError as err:
        raise ScenarioError(_message(err, where)) from None


def load_scenario(path) -> Scenario:
    """Read a scenario from a ``.yaml``/``.yml`` or ``.json`` file, or by the name of a file
    shipped in ``data/scenarios`` (``"p4_redundancy"``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ScenarioError(
            f"load_scenario: 'path' must be a file path or a shipped scenario's name. "
            f"Got {type(path).__name__} instead."
        )
    p = Path(path)
    if not p.exists() and not p.suffix:
        for ext in (".yaml", ".yml", ".json"):
            if (SCENARIOS_DIR / f"{path}{ext}").exists():
                p = SCENARIOS_DIR / f"{path}{ext}"
                break
    if not p.exists():
        shipped = sorted(q.stem for q in SCENARIOS_DIR.glob("*.yaml"))
        raise ScenarioError(f"load_scenario: no file {str(path)!r}; shipped scenarios: {shipped}")
    text = p.read_text()
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - the parser's own message, with the file
        raise ScenarioError(f"Invalid scenario file {str(p)!r}: not readable: {exc}") from None
    return scenario_from_dict(data, where=f"file {str(p)!r}")


def shipped() -> list[str]:
    """The scenario files in ``data/scenarios`` (names for :func:`load_scenario`)."""
    return sorted(q.stem for q in SCENARIOS_DIR.glob("*.yaml"))
