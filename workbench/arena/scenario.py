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
    (0, 1e9]), ``size_known`` (true: a user policy and the envs see each task's size
    before placing it; default false).
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
    the trace is refused), ``speedup`` (arrival times divided by it, (0, 1e6], default 1),
    ``size_known`` (as above).
    The file (UTF-8, at most 10^7 rows, ``#`` lines are comments) has the columns ``time``
    (s, non-decreasing, [0, 1e12]), ``source`` (a node id), ``size`` (work, [0, 1e6]) and
    optionally ``type`` (an integer in [0, 1e6], empty: none) and ``deadline`` (s after
    arrival, (0, 1e9], empty: none); every copy of a traced task has its size.

Files are read defensively: UTF-8 only, at most 20 MB and :data:`MAX_DEPTH` brackets deep,
YAML without more than :data:`MAX_ALIASES` aliases or an expansion past
:data:`MAX_EXPANDED` nodes, no key written twice (YAML or JSON); ``true``/``false`` where a
number belongs is refused. Errors name the file, the key path (``nodes[1].servers``), the
rule and the value received; a scenario that fails validation is never half-built. A
scenario is refused at load when a source's node serves nothing and has no serving
neighbour (its tasks' home), when the cloud cannot be reached from a source, when two links
join the same pair, or when its arrival rates are so slow against its shortest time (a mean
service, a link delay, a transmission) that float64 time could not resolve that time over a
run (:func:`check_clock`). The size laws, arrival processes and trace reading are in
:mod:`workbench.arena.workload`; :mod:`workbench.arena.compile` draws the tasks.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import yaml
from pydantic import (
    BeforeValidator,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from workbench.arena.workload import (
    DISTS,
    PROCESSES,
    TRACES_DIR,
    Arrivals,
    Bits,
    PoissonArrivals,
    ScenarioError,
    Size,
    Strict,
    TraceTable,
    inf_text,
    int_field,
    no_bool,
    read_text,
    read_trace,
    real_field,
    resolve_trace,
    short,
)

__all__ = [
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "scenario_from_dict",
    "read_trace",
    "SCENARIOS_DIR",
    "TRACES_DIR",
]

SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "data" / "scenarios"

ROLES = ("device", "edge", "fog", "cloud")
ROLE_LEVEL = {r: i for i, r in enumerate(ROLES)}

#: aliases (``*name``) a YAML scenario may use
MAX_ALIASES = 200
#: the most nodes, links and workload entries of a scenario
_MOST = {"nodes": 100_000, "links": 1_000_000, "workload": 10_000}
#: the deepest nesting of brackets in a scenario file
MAX_DEPTH = 100
#: YAML nodes a scenario may expand to through its aliases
MAX_EXPANDED = 3_000_000
#: bytes of a scenario file
MAX_FILE_BYTES = 20 * 2**20
#: the relative resolution of time a run must keep (float64 time against the shortest time)
CLOCK_RESOLUTION = 1e-6
_EPS = float(np.finfo(float).eps)


# -- nodes, links, sources -----------------------------------------------------------------


class Types(Strict):
    count: int_field(1, 10**6)
    zipf: real_field(0, 10) = 0.8


class Node(Strict):
    id: Annotated[str, Field(min_length=1, max_length=100)]
    role: Literal["device", "edge", "fog", "cloud"]
    servers: Annotated[int | float, BeforeValidator(no_bool), BeforeValidator(inf_text)] = 1
    speed: real_field(0, 1e9, low_open=True, inf=True) = 1.0
    capacity: int_field(0, 10**9) | None = None
    power_idle: real_field(0, 1e6) = 0.0
    power_busy: real_field(0, 1e6) = 0.0

    @field_validator("servers")
    @classmethod
    def _servers_range(cls, v):
        if v == math.inf or (float(v).is_integer() and 0 <= v <= 10**6):
            return v if v == math.inf else int(v)
        raise ValueError("servers must be an integer in [0, 1e6] or .inf")

    @model_validator(mode="after")
    def _capacity(self):
        if self.capacity is not None and self.capacity < self.servers:
            raise ValueError(
                f"capacity ({self.capacity}) must be at least servers ({self.servers}): "
                "capacity counts the servers plus the waiting room"
            )
        return self


class Link(Strict):
    a: Annotated[str, Field(max_length=100)]
    b: Annotated[str, Field(max_length=100)]
    delay: real_field(0, 1e5) = 0.0
    bandwidth: real_field(1e3, 1e15, inf=True) = math.inf
    energy_per_bit: real_field(0, 1e-3) = 0.0


class Source(Strict):
    """A random source: tasks of law ``size`` arriving at ``source`` (module docstring)."""

    source: Annotated[str, Field(max_length=100)]
    rate: real_field(0, 1e9, low_open=True)
    size: Size
    arrivals: Arrivals = PoissonArrivals()
    input_bits: Bits = 0.0
    types: Types | None = None
    deadline: real_field(0, 1e9, low_open=True) | None = None
    size_known: StrictBool = False

    @property
    def mean_size(self) -> float:
        return self.size.moment(1)

    @property
    def nodes(self) -> tuple[str, ...]:
        return (self.source,)


class TraceSource(Strict):
    """Tasks replayed from a CSV file (module docstring)."""

    trace: Annotated[str, Field(min_length=1, max_length=4096)]
    input_bits: Bits = 0.0
    loop: StrictBool = False
    speedup: real_field(0, 1e6, low_open=True) = 1.0
    size_known: StrictBool = False

    @field_validator("trace")
    @classmethod
    def _read(cls, v, info: ValidationInfo):
        base = (info.context or {}).get("base")
        path = resolve_trace(v, base)
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
        super().__init__(f"{path}: must be {rule}; got {short(value)}")


class Scenario(Strict):
    """A validated scenario (frozen): the module docstring's file, as an object.

    Build it with :func:`load_scenario` or :func:`scenario_from_dict`.

    Parameters
    ----------
    name : str
        Its name (at most 200 characters).
    description : str
        Free text (at most 20,000 characters).
    nodes : list of Node
        The nodes (at least one; at most one cloud).
    links : list of Link
        The links between them.
    workload : list of Source or TraceSource
        Where tasks appear: Poisson, MMPP-2 or batch sources, or traces (at least one).
    """

    name: Annotated[str, Field(max_length=200)] = "scenario"
    description: Annotated[str, Field(max_length=20_000)] = ""
    nodes: Annotated[list[Node], Field(min_length=1, max_length=_MOST["nodes"])]
    links: Annotated[list[Link], Field(max_length=_MOST["links"])] = []
    workload: Annotated[list[Entry], Field(min_length=1, max_length=_MOST["workload"])]

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
                            f"a file whose sources are node ids, one of {some} (file "
                            f"{w.trace!r}, row {tb.first_row[node]}, column 'source')",
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
        n = len(self.nodes)
        ends = [(index[link.a], index[link.b]) for link in self.links]
        a, b = np.array(ends, dtype=np.int64).reshape(-1, 2).T
        _, part = connected_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)))
        serves = [node.servers > 0 for node in self.nodes]
        # the nodes that serve or have a serving neighbour (the tasks' home)
        homed = {x for x, y in ends if serves[y]} | {y for x, y in ends if serves[x]}
        for k, w in enumerate(self.workload):
            key = f"workload[{k}].trace" if isinstance(w, TraceSource) else f"workload[{k}].source"
            for node in w.nodes:
                i = index[node]
                if not serves[i] and i not in homed:
                    raise _Located(
                        key,
                        "a node that serves (servers > 0) or has a direct link to a node that "
                        f"serves (its tasks' home); {node!r} serves nothing and has no such link",
                        node,
                    )
                if cloud >= 0 and part[cloud] != part[i]:
                    raise _Located(
                        key,
                        f"a node with a path of links to the cloud {self.nodes[cloud].id!r} "
                        f"(the cloud must be reachable from every source; {node!r} has none)",
                        node,
                    )

    # -- convenience --------------------------------------------------------------------
    def index(self, node_id: str) -> int:
        """A node's position in :attr:`nodes`, its index in the engine's arrays.

        Parameters
        ----------
        node_id : str
            The node's id.

        Returns
        -------
        int
            Its index (``ValueError`` for an unknown id).
        """
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
        inner = (e.get("ctx") or {}).get("error")
        if isinstance(inner, _Located):  # its message names its own key path
            lines.append(str(inner))
        else:
            lines.append(f"{_key_path(e['loc'])}: {e['msg']}; got {short(e.get('input'))}")
    # one line per distinct key path (a union reports each branch)
    uniq = list(dict.fromkeys(lines))
    return f"Invalid scenario {where}:\n  " + "\n  ".join(uniq[:20])


def scenario_from_dict(d, *, where: str = "(dict)", base=None) -> Scenario:
    """Validate a scenario given as a dict (the parsed YAML/JSON) and build it.

    Parameters
    ----------
    d : dict or Scenario
        The scenario's keys (module docstring); a Scenario is returned as it is.
    where : str
        What the errors call the dict (a file's name when read from one).
    base : path, optional
        The folder relative trace paths start from (None: the current folder).

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    ScenarioError
        A :class:`workbench.ParameterError` naming ``where``, every bad key path, its rule
        and the value received.
    """
    if isinstance(d, Scenario):
        return d
    if not isinstance(d, dict):
        raise ScenarioError(f"Invalid scenario {where}: must be a mapping; got {type(d).__name__}")
    for key, most in _MOST.items():  # before validating what would be refused anyway
        if isinstance(d.get(key), list) and len(d[key]) > most:
            raise ScenarioError(
                f"Invalid scenario {where}:\n  {key}: must have at most {most:,} items; got "
                f"{len(d[key]):,}"
            )
    try:
        return Scenario.model_validate(d, context={"base": base})
    except ValidationError as err:
        raise ScenarioError(_message(err, where)) from None
    except RecursionError:
        raise ScenarioError(f"Invalid scenario {where}: nested too deeply") from None


# -- reading files -------------------------------------------------------------------------


class _SafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """yaml's safe loader (libyaml's parser and composer where installed: a large file
    parses in C) that refuses a key written twice in one mapping, more than
    :data:`MAX_ALIASES` aliases, and a document whose aliases would expand it past
    :data:`MAX_EXPANDED` nodes (a "billion laughs" file fails at once, before anything
    walks the expansion)."""

    #: False when the text has no ``*`` at all, so no alias to count (set by :func:`_parse`)
    may_alias = True

    def get_single_node(self):
        node = super().get_single_node()
        if node is None or not self.may_alias:
            return node
        aliases, expanded = _alias_uses(node)
        if aliases > MAX_ALIASES:
            raise yaml.YAMLError(
                f"more than {MAX_ALIASES} aliases ({aliases}): a scenario needs few, and "
                "nested aliases can expand without bound"
            )
        if aliases and expanded > MAX_EXPANDED:
            raise yaml.YAMLError(
                f"its aliases expand it to more than {MAX_EXPANDED:,} nodes (a scenario of "
                f"the largest size has fewer; {aliases} aliases, nested)"
            )
        return node

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
                        f"the key {short(key, 60)} is written twice in one mapping (lines "
                        f"{first[key]} and {line}); the second would silently replace the first"
                    )
                first[key] = line
        return super().construct_mapping(node, deep=deep)


def _alias_uses(root) -> tuple[int, float]:
    """The aliases of a composed YAML document (every use of a node after its first: the
    composer shares an anchored node among its uses) and the number of nodes with every
    alias expanded (shared nodes counted once per use; linear in the distinct nodes, cycles
    counted as infinite)."""
    size: dict[int, float] = {}
    uses = 0
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        kids = []
        if isinstance(node, yaml.SequenceNode):
            kids = node.value
        elif isinstance(node, yaml.MappingNode):
            kids = [x for pair in node.value for x in pair]
        if done:
            size[id(node)] = 1 + sum(size.get(id(k), math.inf) for k in kids)
        elif id(node) not in size:
            size[id(node)] = math.inf  # in progress: a cycle through it is infinite
            uses += len(kids)
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in size)
    return uses - (len(size) - 1), size[id(root)]


def _json_pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(
                f"the key {short(k, 60)} is written twice in one object; the second would "
                "silently replace the first"
            )
        out[k] = v
    return out


def _flow_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in the text (brackets inside strings counted too:
    an upper bound), in numpy: the parser is slow on deep nesting, this is not."""
    b = np.frombuffer(text.encode("utf-8", "replace"), np.uint8)
    step = np.isin(b, (91, 123)).astype(np.int64) - np.isin(b, (93, 125))
    return int(np.cumsum(step).max(initial=0))


def _parse(text: str, p: Path):
    depth = _flow_depth(text)
    if depth > MAX_DEPTH:
        raise ScenarioError(
            f"Invalid scenario file {str(p)!r}: nested {depth} brackets deep, more than the "
            f"{MAX_DEPTH} a scenario needs"
        )
    try:
        if p.suffix.lower() == ".json":
            return json.loads(text, object_pairs_hook=_json_pairs)
        loader = _SafeLoader(text)
        loader.may_alias = "*" in text
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except RecursionError:
        raise ScenarioError(f"Invalid scenario file {str(p)!r}: nested too deeply") from None
    except (ValueError, yaml.YAMLError) as exc:  # the parser's own message, with the file
        raise ScenarioError(
            f"Invalid scenario file {str(p)!r}: not readable: {short(str(exc), 400)}"
        ) from None


def load_scenario(path) -> Scenario:
    """Read a scenario from a ``.yaml``/``.yml`` or ``.json`` file.

    Parameters
    ----------
    path : str or path
        The file, or the name of a file shipped in ``data/scenarios``
        (``"p4_redundancy"``, :func:`shipped`).

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    ScenarioError
        Every failure to read, parse or validate, naming the file (module docstring).
    """
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
    data = _parse(read_text(p, "scenario file", MAX_FILE_BYTES), p)
    return scenario_from_dict(data, where=f"file {str(p)!r}", base=p.resolve().parent)


def shipped() -> list[str]:
    """The scenario files shipped in ``data/scenarios``.

    Returns
    -------
    list of str
        Their names, sorted, for :func:`load_scenario`.
    """
    return sorted(q.stem for q in SCENARIOS_DIR.glob("*.yaml"))
