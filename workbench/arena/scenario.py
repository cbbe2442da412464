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
      - {source: B, rate: 8.0, size: {dist: hyperexponential, mean: 1.0, scv: 4.0},
         arrivals: {process: mmpp2, peak_ratio: 5, high_share: 0.2, cycle: 10}}
      - {trace: tasks.csv}

Keys (every number has a physical range; the ranges are in brackets)
-------------------------------------------------------------------
nodes[i]
    ``id`` (unique text, 1-100 characters), ``role`` (device, edge, fog, cloud),
    ``servers`` (an integer in [0, 1e6] or ``.inf``; 0: the node only places tasks),
    ``speed`` (work per second, (0, 1e9] or ``.inf``: service takes no time; default 1),
    ``capacity`` (the most tasks the node holds, servers plus waiting room, in
    [servers, 1e9]; absent: unbounded; ``capacity == servers``: a loss node),
    ``power_idle`` and ``power_busy`` (W per server, [0, 1e6], default 0).
links[j]
    ``a``, ``b`` (node ids; a link is two-way, one per pair), ``delay`` (s, [0, 1e5]),
    ``bandwidth`` (bit/s, [1e3, 1e15] or ``.inf``, the default), ``energy_per_bit``
    (J/bit, [0, 1e-3], default 0).
workload[k], a random source
    ``source`` (a node id), ``rate`` (the long-run mean of tasks/s, (0, 1e9]), ``size``
    (the work of a task, mean at most 1e6 and squared coefficient of variation c² at most
    1e4: ``{dist: exponential, mean}``, ``{dist: deterministic, value}``,
    ``{dist: shifted_exponential, shift, rate}``, ``{dist: pareto, scale, alpha}`` with
    alpha > 2 (finite variance; alpha <= 3 has an infinite third moment, see
    :attr:`Scenario.heavy_tails`), ``{dist: weibull, shape, scale}`` with shape in
    [0.05, 1e3], ``{dist: hyperexponential, mean, scv}`` (two exponential phases with
    balanced means, scv >= 1) and ``{dist: lognormal, mean, scv}``: the last two have every
    moment finite at any c²), ``arrivals`` (the arrival process, below; default Poisson),
    ``input_bits`` (sent over every link a task crosses, [0, 1e12], default 0), ``types``
    (optional ``{count, zipf}``: task types drawn with Zipf popularity ``P(k) ∝ k^-zipf``,
    count in [1, 1e6], zipf in [0, 10]), ``deadline`` (optional, s after arrival,
    (0, 1e9]).
workload[k].arrivals
    ``{process: poisson}``; ``{process: mmpp2, peak_ratio, high_share, cycle}``: a
    Markov-modulated Poisson process of two phases whose rates differ by ``peak_ratio``
    ([1, 1e4]), the high phase a share ``high_share`` ((0, 1)) of the time, one high and one
    low sojourn lasting ``cycle`` s on average ((0, 1e6]), the mean rate ``rate``;
    ``{process: batch, mean_batch, batch_law}``: batches at Poisson epochs of rate
    ``rate / mean_batch``, ``mean_batch`` in [1, 1e4] tasks each, ``batch_law`` geometric
    (default) or deterministic (then ``mean_batch`` is an integer); every task of a batch
    arrives at once.
workload[k], a trace
    ``trace`` (a CSV file: a path relative to the scenario file, else to the current
    folder, else a file of ``data/traces``), ``input_bits`` (as above), ``loop`` (true:
    replayed end to end for as many tasks as a run needs; default false: a run longer than
    the trace is refused), ``speedup`` (arrival times divided by it, (0, 1e6], default 1).
    The file (UTF-8, at most 10^7 rows, ``#`` lines are comments) has the columns ``time``
    (s, non-decreasing, [0, 1e12]), ``source`` (a node id), ``size`` (work, [0, 1e6]) and
    optionally ``type`` (an integer in [0, 1e6], empty: none) and ``deadline`` (s after
    arrival, (0, 1e9], empty: none); every copy of a traced task has its size.

Files are read defensively: UTF-8 only, at most 20 MB, YAML without aliases past
:data:`MAX_ALIASES` and without a key written twice (YAML or JSON); ``true``/``false`` where
a number belongs is refused. Errors name the file, the key path (``nodes[1].servers``), the
rule and the value received; a scenario that fails validation is never half-built. A
scenario is refused at load when a source has no path to a node that serves, when the cloud
cannot be reached from a source, or when its arrival rates are so slow against its shortest
time (a mean service, a link delay) that float64 time could not resolve that time over a
run (:func:`check_clock`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import threading
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from workbench.validation import ParameterError

__all__ = [
    "Scenario", "ScenarioError", "load_scenario", "scenario_from_dict", "read_trace",
    "SCENARIOS_DIR", "TRACES_DIR",
]  # fmt: skip

SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "data" / "scenarios"
TRACES_DIR = Path(__file__).resolve().parents[2] / "data" / "traces"

ROLES = ("device", "edge", "fog", "cloud")
ROLE_LEVEL = {r: i for i, r in enumerate(ROLES)}

#: the largest mean work of a task (work units: seconds at speed 1)
MAX_WORK = 1e6
#: the largest squared coefficient of variation of a size law
MAX_SCV = 1e4
#: aliases (``*name``) a YAML scenario may use
MAX_ALIASES = 100
#: bytes of a scenario file
MAX_FILE_BYTES = 20 * 2**20
#: rows of a trace file
MAX_TRACE_ROWS = 10**7
#: the relative resolution of time a run must keep (float64 time against the shortest time)
CLOCK_RESOLUTION = 1e-6
_EPS = float(np.finfo(float).eps)


class ScenarioError(ParameterError):
    """A scenario file or dict that does not follow the schema."""


def _no_bool(v):
    """``true``/``false`` are not numbers (pydantic would read true as 1)."""
    if isinstance(v, (bool, np.bool_)):
        raise ValueError(f"must be a number, not a boolean ({v!r})")
    return v


def _inf_text(v):
    """YAML's .inf (and "inf") as a float infinity."""
    if isinstance(v, str) and v.strip().lower() in (".inf", "inf", "infinity", "+inf"):
        return math.inf
    return v


def _real(low=None, high=None, *, low_open=False, inf=False):
    """A float in a range (``inf``: also ``.inf``), never a bool or NaN."""
    kw = {}
    if low is not None:
        kw["gt" if low_open else "ge"] = low
    if high is not None and not inf:
        kw["le"] = high
    checks = [BeforeValidator(_no_bool)]
    if inf:
        checks.append(BeforeValidator(_inf_text))
    return Annotated[float, Field(allow_inf_nan=inf, **kw), *checks]


def _int(low, high):
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_no_bool)]


Work = _real(0, MAX_WORK, low_open=True)
Bits = _real(0, 1e12)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- size laws ------------------------------------------------------------------------------


def _exp(x: float) -> float:
    return math.inf if x > 700 else math.exp(x)


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

    @model_validator(mode="after")
    def _moments_in_range(self):
        m1, m2 = self.moments
        if not m1 <= MAX_WORK:
            raise ValueError(f"the mean size must be at most {MAX_WORK:g}; this law's is {m1:.4g}")
        if m1 > 0 and not self.cv2 <= MAX_SCV:
            raise ValueError(
                f"the size's squared coefficient of variation must be at most {MAX_SCV:g} "
                f"(E[S²] finite and representable); this law's is {self.cv2:.4g}"
            )
        return self


class Exponential(_Law):
    dist: Literal["exponential"]
    mean: Work

    def moment(self, k: int) -> float:
        return math.factorial(k) * self.mean**k


class Deterministic(_Law):
    dist: Literal["deterministic"]
    value: _real(0, MAX_WORK)

    def moment(self, k: int) -> float:
        return self.value**k


class ShiftedExponential(_Law):
    dist: Literal["shifted_exponential"]
    shift: _real(0, MAX_WORK)
    rate: _real(1 / MAX_WORK, 1e12)

    def moment(self, k: int) -> float:
        m = 1 / self.rate  # E[(s + X)^k] = sum_j C(k, j) s^(k-j) j! m^j
        terms = (
            math.comb(k, j) * self.shift ** (k - j) * math.factorial(j) * m**j for j in range(k + 1)
        )
        return sum(terms)


class Pareto(_Law):
    """Pareto of scale ``scale`` and tail index ``alpha`` > 2 (finite variance; E[S^k] is
    infinite for k >= alpha)."""

    dist: Literal["pareto"]
    scale: Work
    alpha: _real(2, 1e3, low_open=True)

    def moment(self, k: int) -> float:
        a, b = self.alpha, self.scale
        return a * b**k / (a - k) if a > k else math.inf


class Weibull(_Law):
    dist: Literal["weibull"]
    shape: _real(0.05, 1e3)
    scale: Work

    def moment(self, k: int) -> float:
        return _exp(k * math.log(self.scale) + math.lgamma(1 + k / self.shape))


class Hyperexponential(_Law):
    """Two exponential phases with balanced means (p1/μ1 = p2/μ2): the law of mean ``mean``
    and squared coefficient of variation ``scv`` >= 1 with the fewest parameters; every
    moment finite (Whitt's H2 fit)."""

    dist: Literal["hyperexponential"]
    mean: Work
    scv: _real(1, MAX_SCV)

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
    mean: Work
    scv: _real(0, MAX_SCV, low_open=True)

    def moment(self, k: int) -> float:
        s2 = math.log1p(self.scv)
        return _exp(k * (math.log(self.mean) - s2 / 2) + k * k * s2 / 2)


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
#: the size distributions
DISTS = (
    "exponential",
    "deterministic",
    "shifted_exponential",
    "pareto",
    "weibull",
    "hyperexponential",
    "lognormal",
)


# -- arrival processes ----------------------------------------------------------------------


class PoissonArrivals(_Strict):
    process: Literal["poisson"] = "poisson"


class MMPP2(_Strict):
    """A Markov-modulated Poisson process of two phases (module docstring): the rates
    ``rate × (peak_ratio, 1) / (high_share × peak_ratio + 1 - high_share)``, the mean
    sojourns ``cycle × (high_share, 1 - high_share)``; it starts in its stationary phase."""

    process: Literal["mmpp2"]
    peak_ratio: _real(1, 1e4)
    high_share: _real(0, 1, low_open=True)
    cycle: _real(0, 1e6, low_open=True)

    @field_validator("high_share")
    @classmethod
    def _share(cls, v):
        if v >= 1:
            raise ValueError("high_share must be below 1 (the low phase takes the rest)")
        return v

    def rates(self, rate: float) -> tuple[float, float]:
        """(high, low) arrival rates for the mean rate ``rate``."""
        low = rate / (self.high_share * self.peak_ratio + 1 - self.high_share)
        return self.peak_ratio * low, low

    @property
    def sojourns(self) -> tuple[float, float]:
        """Mean times in the (high, low) phase."""
        return self.cycle * self.high_share, self.cycle * (1 - self.high_share)


class Batch(_Strict):
    """Batches of tasks at Poisson epochs of rate ``rate / mean_batch``."""

    process: Literal["batch"]
    mean_batch: _real(1, 1e4)
    batch_law: Literal["geometric", "deterministic"] = "geometric"

    @model_validator(mode="after")
    def _whole(self):
        if self.batch_law == "deterministic" and not float(self.mean_batch).is_integer():
            raise ValueError(
                f"mean_batch must be a whole number of tasks for batch_law deterministic; "
                f"got {self.mean_batch!r}"
            )
        return self


Arrivals = Annotated[PoissonArrivals | MMPP2 | Batch, Field(discriminator="process")]
PROCESSES = ("poisson", "mmpp2", "batch")


# -- nodes, links, sources -----------------------------------------------------------------


class Types(_Strict):
    count: _int(1, 10**6)
    zipf: _real(0, 10) = 0.8


def _servers(v):
    _no_bool(v)
    return _inf_text(v)


class Node(_Strict):
    id: Annotated[str, Field(min_length=1, max_length=100)]
    role: Literal["device", "edge", "fog", "cloud"]
    servers: int | float = 1
    speed: _real(0, 1e9, low_open=True, inf=True) = 1.0
    capacity: _int(0, 10**9) | None = None
    power_idle: _real(0, 1e6) = 0.0
    power_busy: _real(0, 1e6) = 0.0

    _norm = field_validator("servers", mode="before")(_servers)

    @field_validator("servers")
    @classmethod
    def _servers_range(cls, v):
        if v == math.inf or (float(v).is_integer() and 0 <= v <= 10**6):
            return v if v == math.inf else int(v)
        raise ValueError("servers must be an integer in [0, 1e6] or .inf")

    @field_validator("speed")
    @classmethod
    def _speed(cls, v):
        if math.isnan(v) or (math.isfinite(v) and v > 1e9):
            raise ValueError("speed must be a number in (0, 1e9] or .inf")
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
    a: Annotated[str, Field(max_length=100)]
    b: Annotated[str, Field(max_length=100)]
    delay: _real(0, 1e5) = 0.0
    bandwidth: _real(1e3, 1e15, inf=True) = math.inf
    energy_per_bit: _real(0, 1e-3) = 0.0

    @field_validator("bandwidth")
    @classmethod
    def _bandwidth(cls, v):
        if math.isnan(v) or (math.isfinite(v) and v > 1e15):
            raise ValueError("bandwidth must be a number in [1e3, 1e15] bit/s or .inf")
        return v


class Source(_Strict):
    """A random source: tasks of law ``size`` arriving at ``source`` (module docstring)."""

    source: Annotated[str, Field(max_length=100)]
    rate: _real(0, 1e9, low_open=True)
    size: Size
    arrivals: Arrivals = PoissonArrivals()
    input_bits: Bits = 0.0
    types: Types | None = None
    deadline: _real(0, 1e9, low_open=True) | None = None

    @property
    def mean_size(self) -> float:
        return self.size.moment(1)

    @property
    def nodes(self) -> tuple[str, ...]:
        return (self.source,)


class TraceTable(NamedTuple):
    """A trace file's rows (times in the file's seconds)."""

    time: np.ndarray  # float64, non-decreasing
    source: np.ndarray  # int64: index into ``nodes``
    nodes: tuple  # the node ids the file names, in order of first use
    size: np.ndarray  # float64
    kind: np.ndarray  # int64, -1: no type
    deadline: np.ndarray  # float64, inf: none
    first_row: dict  # node id -> the first row (1-based) naming it

    @property
    def period(self) -> float:
        """The span a looped trace repeats with: the last time plus the mean gap."""
        n = len(self.time)
        if n < 2:
            return max(float(self.time[-1]), 1.0) if n else 1.0
        gap = (self.time[-1] - self.time[0]) / (n - 1)
        return float(self.time[-1] + (gap if gap > 0 else 1.0))


class TraceSource(_Strict):
    """Tasks replayed from a CSV file (module docstring)."""

    trace: Annotated[str, Field(min_length=1, max_length=4096)]
    input_bits: Bits = 0.0
    loop: StrictBool = False
    speedup: _real(0, 1e6, low_open=True) = 1.0

    @field_validator("trace")
    @classmethod
    def _read(cls, v, info: ValidationInfo):
        base = (info.context or {}).get("base")
        path = _resolve_trace(v, base)
        read_trace(path)  # refuses a bad file now, with its row and column
        return str(path)

    @property
    def table(self) -> TraceTable:
        return read_trace(self.trace)

    @property
    def rate(self) -> float:
        """Tasks per second (rows over the looped period, sped up)."""
        tb = self.table
        return len(tb.time) / tb.period * self.speedup

    @property
    def mean_size(self) -> float:
        return float(self.table.size.mean())

    @property
    def nodes(self) -> tuple[str, ...]:
        return self.table.nodes


def _entry_kind(v) -> str:
    if isinstance(v, dict):
        return "tag:trace" if "trace" in v else "tag:random"
    return "tag:trace" if isinstance(v, TraceSource) else "tag:random"


Entry = Annotated[
    Annotated[Source, Tag("tag:random")] | Annotated[TraceSource, Tag("tag:trace")],
    Discriminator(_entry_kind),
]


class _Located(ValueError):
    """A cross-reference error with its own key path (raised inside a validator)."""

    def __init__(self, path: str, rule: str, value):
        super().__init__(f"{path}: must be {rule}; got {_short(value)}")
        self.path, self.rule, self.value = path, rule, value


class Scenario(_Strict):
    """A validated scenario (frozen). Build it with :func:`load_scenario` or
    :func:`scenario_from_dict`."""

    name: Annotated[str, Field(max_length=200)] = "scenario"
    description: Annotated[str, Field(max_length=20_000)] = ""
    nodes: Annotated[list[Node], Field(min_length=1, max_length=100_000)]
    links: Annotated[list[Link], Field(max_length=1_000_000)] = []
    workload: Annotated[list[Entry], Field(min_length=1, max_length=10_000)]

    @model_validator(mode="after")
    def _references(self):
        ids = [n.id for n in self.nodes]
        seen: dict[str, int] = {}
        for i, n in enumerate(ids):
            if n in seen:
                raise _Located(f"nodes[{i}].id", f"unique: duplicate node id {n!r}", n)
            seen[n] = i
        some = ids if len(ids) <= 10 else [*ids[:10], "..."]
        pairs: dict = {}
        for j, link in enumerate(self.links):
            for end in ("a", "b"):
                v = getattr(link, end)
                if v not in seen:
                    raise _Located(f"links[{j}].{end}", f"an existing node id, one of {some}", v)
            if link.a == link.b:
                raise _Located(f"links[{j}].b", "a node other than a (no self-links)", link.b)
            pair = frozenset((link.a, link.b))
            if pair in pairs:
                raise _Located(
                    f"links[{j}]",
                    f"the only link between {link.a!r} and {link.b!r} (links[{pairs[pair]}] "
                    "joins them already)",
                    f"{link.a}-{link.b}",
                )
            pairs[pair] = j
        for k, w in enumerate(self.workload):
            if isinstance(w, TraceSource):
                tb = w.table
                for node in tb.nodes:
                    if node not in seen:
                        raise _Located(
                            f"workload[{k}].trace",
                            f"a file whose sources are node ids, one of {some} (row "
                            f"{tb.first_row[node]}, column 'source')",
                            node,
                        )
            elif w.source not in seen:
                raise _Located(
                    f"workload[{k}].source", f"an existing node id, one of {some}", w.source
                )
        clouds = [i for i, n in enumerate(self.nodes) if n.role == "cloud"]
        if len(clouds) > 1:
            raise _Located(f"nodes[{clouds[1]}].role", "at most one cloud node", "cloud")
        self._reachable(seen, clouds[0] if clouds else -1)
        check_clock(self)
        return self

    def _reachable(self, index: dict, cloud: int) -> None:
        """Every source reaches a node that serves, and the cloud (if any)."""
        parent = list(range(len(self.nodes)))

        def root(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for link in self.links:
            parent[root(index[link.a])] = root(index[link.b])
        serving = {root(i) for i, n in enumerate(self.nodes) if n.servers > 0}
        for k, w in enumerate(self.workload):
            key = f"workload[{k}].trace" if isinstance(w, TraceSource) else f"workload[{k}].source"
            for node in w.nodes:
                r = root(index[node])
                if r not in serving:
                    raise _Located(
                        key,
                        "a node that serves (servers > 0) or has a path of links to one; "
                        f"{node!r} serves nothing and reaches no node that does",
                        node,
                    )
                if cloud >= 0 and root(cloud) != r:
                    raise _Located(
                        key,
                        f"a node with a path of links to the cloud {self.nodes[cloud].id!r} "
                        f"(the cloud must be reachable from every source; {node!r} has none)",
                        node,
                    )

    # -- convenience --------------------------------------------------------------------
    def index(self, node_id: str) -> int:
        return [n.id for n in self.nodes].index(node_id)

    @property
    def total_rate(self) -> float:
        return sum(w.rate for w in self.workload)

    @property
    def time_scale(self) -> tuple[float, str]:
        """The shortest positive time of the scenario and what it is: a source's mean
        service at the fastest finite speed, a link's delay or its transmission time
        (``(inf, "")`` when there is none)."""
        speeds = [n.speed for n in self.nodes if n.servers > 0 and math.isfinite(n.speed)]
        fastest = max(speeds) if speeds else math.inf
        best, what = math.inf, ""
        for k, w in enumerate(self.workload):
            t = w.mean_size / fastest if math.isfinite(fastest) else 0.0
            if 0 < t < best:
                best, what = t, f"the mean service of workload[{k}]"
        bits = [(w.input_bits, k) for k, w in enumerate(self.workload) if w.input_bits > 0]
        if bits and self.links:
            (b, k), (bw, j) = min(bits), max((x.bandwidth, j) for j, x in enumerate(self.links))
            if 0 < b / bw < best:
                best, what = b / bw, f"the transmission of workload[{k}] on links[{j}]"
        for j, link in enumerate(self.links):
            if 0 < link.delay < best:
                best, what = link.delay, f"the delay of links[{j}]"
        return best, what

    @property
    def heavy_tails(self) -> list[str]:
        """The sources whose task size has an infinite third moment (a Pareto with
        alpha <= 3): there a plain mean delay's interval does not cover its mean (the
        waiting time's variance is infinite); use a hyperexponential or lognormal law of
        the same mean and c², or refuse the plain mean."""
        return [
            f"workload[{k}].size"
            for k, w in enumerate(self.workload)
            if isinstance(w, Source) and not math.isfinite(w.size.moment(3))
        ]

    def scaled(self, factor: float) -> Scenario:
        """The same scenario with every source's rate multiplied by ``factor`` (a trace is
        sped up by ``factor``)."""
        d = self.model_dump()
        for w in d["workload"]:
            if "trace" in w:
                w["speedup"] *= factor
            else:
                w["rate"] *= factor
        return scenario_from_dict(d)

    def with_(self, **changes) -> Scenario:
        """A validated copy with top-level keys replaced (``nodes=[...]``, ...)."""
        return scenario_from_dict({**self.model_dump(), **changes})


def check_clock(sc: Scenario, horizon: float | None = None, func: str = "") -> None:
    """Refuse a run whose float64 clock cannot resolve the scenario's shortest time.

    At time ``T`` a float64 clock moves in steps of about ``T × 2.2e-16``; a delay of
    ``τ`` is then measured to ``T × 2.2e-16 / τ`` of itself. The run must keep that at most
    :data:`CLOCK_RESOLUTION` (1e-6). ``horizon``: the run's last arrival time (None: the
    shortest run, 100 tasks at the total rate, as checked at load).
    """
    tau, what = sc.time_scale
    if not math.isfinite(tau):
        return
    at_load = horizon is None
    if at_load:
        horizon = 100.0 / sc.total_rate
        where = "workload"
        told = f"100 tasks (the shortest run) take about {horizon:.3g} s"
    else:
        where = f"the 'requests' parameter of {func}" if func else "the run"
        told = f"the run's tasks arrive until {horizon:.3g} s"
    step = horizon * _EPS
    if step <= CLOCK_RESOLUTION * tau:
        return
    rule = (
        f"a workload whose clock resolves its shortest time: {told}, where float64 time moves "
        f"in steps of {step:.2g} s, more than {CLOCK_RESOLUTION:g} of {what} ({tau:.3g} s); "
        f"the total rate is {sc.total_rate:.3g} tasks/s. Express time in a larger unit "
        "(rates up, sizes, delays and bandwidths' inverse down by the same factor)"
    )
    if at_load:
        raise _Located(where, rule, sc.total_rate)
    raise ScenarioError(f"{where}: must give {rule}")


def _short(v, limit: int = 200) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


_SKIP = set(DISTS) | set(PROCESSES)


def _key_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _SKIP or part.startswith(("int", "literal", "function-", "tag:", "float")):
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
            lines.append(f"{inner.path}: must be {inner.rule}; got {_short(inner.value)}")
            continue
        path = _key_path(e["loc"])
        lines.append(f"{path}: {e['msg']}; got {_short(e.get('input'))}")
    # one line per distinct key path (a union reports each branch)
    uniq = list(dict.fromkeys(lines))
    return f"Invalid scenario {where}:\n  " + "\n  ".join(uniq[:20])


def scenario_from_dict(d, *, where: str = "(dict)", base=None) -> Scenario:
    """Validate a scenario given as a dict (the parsed YAML/JSON) and build it.

    ``base``: the folder relative trace paths start from (None: the current folder).
    Raises :class:`ScenarioError` (a :class:`workbench.ParameterError`) naming ``where``,
    every bad key path, its rule and the value received.
    """
    if isinstance(d, Scenario):
        return d
    if not isinstance(d, dict):
        raise ScenarioError(f"Invalid scenario {where}: must be a mapping; got {type(d).__name__}")
    try:
        return Scenario.model_validate(d, context={"base": base})
    except ValidationError as err:
        raise ScenarioError(_message(err, where)) from None
    except RecursionError:
        raise ScenarioError(f"Invalid scenario {where}: nested too deeply") from None


# -- reading files -------------------------------------------------------------------------


class _SafeLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses a key written twice in one mapping and more than
    :data:`MAX_ALIASES` aliases (a "billion laughs" file fails at once)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.YAMLError(
                    f"more than {MAX_ALIASES} aliases (line {mark.line + 1}): a scenario "
                    "needs few, and nested aliases can expand without bound"
                )
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    continue  # the base class reports an unhashable key
                line = key_node.start_mark.line + 1
                if key in first:
                    raise yaml.YAMLError(
                        f"the key {_short(key, 60)} is written twice in one mapping (lines "
                        f"{first[key]} and {line}); the second would silently replace the first"
                    )
                first[key] = line
        return super().construct_mapping(node, deep=deep)


def _json_pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(
                f"the key {_short(k, 60)} is written twice in one object; the second would "
                "silently replace the first"
            )
        out[k] = v
    return out


def _read_text(p: Path, what: str, limit: int) -> str:
    """A UTF-8 file's text, every failure a :class:`ScenarioError` naming the file."""
    name = f"{what} {str(p)!r}"
    try:
        if p.is_dir():
            raise ScenarioError(f"{name}: is a folder, not a file")
        size = p.stat().st_size
        if size > limit:
            raise ScenarioError(f"{name}: is {size:,} bytes, more than the {limit:,} allowed")
        data = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{name}: not readable: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{name}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None


def _parse(text: str, p: Path):
    try:
        if p.suffix.lower() == ".json":
            return json.loads(text, object_pairs_hook=_json_pairs)
        return yaml.load(text, Loader=_SafeLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise ScenarioError(f"Invalid scenario file {str(p)!r}: nested too deeply") from None
    except (ValueError, yaml.YAMLError) as exc:  # the parser's own message, with the file
        raise ScenarioError(
            f"Invalid scenario file {str(p)!r}: not readable: {_short(str(exc), 400)}"
        ) from None


def load_scenario(path) -> Scenario:
    """Read a scenario from a ``.yaml``/``.yml`` or ``.json`` file, or by the name of a file
    shipped in ``data/scenarios`` (``"p4_redundancy"``). Every failure to read or parse is a
    :class:`ScenarioError` naming the file (module docstring)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ScenarioError(
            f"load_scenario: 'path' must be a file path or a shipped scenario's name. "
            f"Got {type(path).__name__} instead."
        )
    if str(path).strip() == "" or "\x00" in str(path):
        raise ScenarioError(f"load_scenario: 'path' must name a file; got {str(path)!r}")
    p = Path(path)
    if not p.exists() and not p.suffix:
        for ext in (".yaml", ".yml", ".json"):
            if (SCENARIOS_DIR / f"{path}{ext}").exists():
                p = SCENARIOS_DIR / f"{path}{ext}"
                break
    if not p.exists():
        raise ScenarioError(f"load_scenario: no file {str(path)!r}; shipped scenarios: {shipped()}")
    data = _parse(_read_text(p, "scenario file", MAX_FILE_BYTES), p)
    return scenario_from_dict(data, where=f"file {str(p)!r}", base=p.resolve().parent)


def shipped() -> list[str]:
    """The scenario files in ``data/scenarios`` (names for :func:`load_scenario`)."""
    return sorted(q.stem for q in SCENARIOS_DIR.glob("*.yaml"))


# -- traces --------------------------------------------------------------------------------

TRACE_COLUMNS = ("time", "source", "size", "type", "deadline")
_TRACES: dict = {}
_TRACES_LOCK = threading.Lock()


def _resolve_trace(v: str, base) -> Path:
    if "\x00" in v or not v.strip():
        raise ValueError(f"must name a CSV file; got {v!r}")
    p = Path(v).expanduser()
    tries = [p] if p.is_absolute() else [Path(base or ".") / p, Path.cwd() / p, TRACES_DIR / p]
    for q in tries:
        if q.is_file():
            return q.resolve()
    for q in tries:
        if q.exists():
            raise ValueError(f"must name a CSV file; {str(q)!r} is a folder")
    raise ValueError(f"must name an existing CSV file; looked for {[str(q) for q in tries]}")


def read_trace(path) -> TraceTable:
    """A trace file's rows, validated (module docstring), kept while the file is unchanged.

    Raises ``ValueError`` naming the file, the row (1-based, after the header), the column,
    the rule and the value."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise ValueError(f"file {str(p)!r} not readable: {exc.strerror or exc}") from None
    key = (str(p), st.st_mtime_ns, st.st_size)
    with _TRACES_LOCK:
        if key in _TRACES:
            return _TRACES[key]
    table = _parse_trace(p)
    with _TRACES_LOCK:
        if len(_TRACES) > 16:
            _TRACES.clear()
        _TRACES[key] = table
    return table


def _parse_trace(p: Path) -> TraceTable:
    try:
        text = _read_text(p, "trace file", 64 * MAX_TRACE_ROWS)
    except ScenarioError as exc:
        raise ValueError(str(exc)) from None
    name = f"file {str(p)!r}"
    lines = (
        line for line in io.StringIO(text) if line.strip() and not line.lstrip().startswith("#")
    )
    reader = csv.reader(lines, strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise ValueError(f"{name}: must have a header row ({', '.join(TRACE_COLUMNS)})") from None
    except csv.Error as exc:
        raise ValueError(f"{name}: not CSV: {exc}") from None
    for h in header:
        if h not in TRACE_COLUMNS:
            raise ValueError(f"{name}: column {h!r} must be one of {list(TRACE_COLUMNS)}")
        if header.count(h) > 1:
            raise ValueError(f"{name}: column {h!r} appears twice")
    for h in ("time", "source", "size"):
        if h not in header:
            raise ValueError(f"{name}: must have the column {h!r} (columns: {header})")
    cols: dict[str, list] = {h: [] for h in header}
    width = len(header)
    try:
        for i, row in enumerate(reader, start=1):
            if len(row) != width:
                raise ValueError(
                    f"{name}, row {i}: must have {width} fields ({header}); got {row!r}"
                )
            if i > MAX_TRACE_ROWS:
                raise ValueError(f"{name}: must have at most {MAX_TRACE_ROWS:,} rows")
            for h, v in zip(header, row, strict=True):
                cols[h].append(v.strip())
    except csv.Error as exc:
        raise ValueError(f"{name}: not CSV: {exc}") from None
    n = len(cols["time"])
    if n == 0:
        raise ValueError(f"{name}: must have at least one row after the header")

    def numbers(col, low, high, *, low_open=False, empty=None):
        raw = cols[col]
        out = np.empty(n)
        for i, v in enumerate(raw):
            if v == "" and empty is not None:
                out[i] = empty
                continue
            try:
                x = float(v)
            except ValueError:
                x = math.nan
            ok = math.isfinite(x) and (x > low if low_open else x >= low) and x <= high
            if not ok:
                left = "(" if low_open else "["
                blank = ", or empty" if empty is not None else ""
                raise ValueError(
                    f"{name}, row {i + 1}, column {col!r}: must be a number in "
                    f"{left}{low:g}, {high:g}]{blank}; got {_short(v, 60)}"
                )
            out[i] = x
        return out

    time = numbers("time", 0.0, 1e12)
    back = np.flatnonzero(np.diff(time) < 0)
    if back.size:
        i = int(back[0]) + 2
        raise ValueError(
            f"{name}, row {i}, column 'time': must not be earlier than the row before "
            f"({time[i - 2]:g}); got {time[i - 1]:g}"
        )
    size = numbers("size", 0.0, MAX_WORK)
    kind = np.full(n, -1, np.int64)
    if "type" in cols:
        kt = numbers("type", 0.0, 1e6, empty=-1.0)
        whole = (kt == np.floor(kt)) | (kt == -1.0)
        if not whole.all():
            i = int(np.flatnonzero(~whole)[0])
            raise ValueError(
                f"{name}, row {i + 1}, column 'type': must be an integer in [0, 1e6], or "
                f"empty; got {cols['type'][i]!r}"
            )
        kind = kt.astype(np.int64)
    deadline = np.full(n, math.inf)
    if "deadline" in cols:
        deadline = numbers("deadline", 0.0, 1e9, low_open=True, empty=math.inf)
    ids: dict[str, int] = {}
    first: dict[str, int] = {}
    source = np.empty(n, np.int64)
    for i, v in enumerate(cols["source"]):
        if v not in ids:
            if not v or len(v) > 100:
                raise ValueError(
                    f"{name}, row {i + 1}, column 'source': must be a node id (1-100 "
                    f"characters); got {_short(v, 60)}"
                )
            ids[v] = len(ids)
            first[v] = i + 1
        source[i] = ids[v]
    for a in (time, size, kind, deadline, source):
        a.setflags(write=False)
    return TraceTable(time, source, tuple(ids), size, kind, deadline, first)
