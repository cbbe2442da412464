"""Scenarios: an IoT–fog–cloud network as a networkx graph, generators, files, checks.

A scenario is an undirected :class:`networkx.Graph`:

- every node has ``role`` in {"iot", "fog", "cloud"};
- an IoT node has ``rate_light``, ``rate_heavy`` (Poisson request rates γ, γ' [1/s]),
  ``p_iot``, ``p_cloud`` (p^I, p^C; p^F = 1 − p^I − p^C), ``local_mean_light``,
  ``local_mean_heavy`` (mean local processing times a, a' [s]) and exactly one edge, to its
  fog node f(i);
- a fog node has ``mu_light``, ``mu_heavy`` (service rates μ, μ' [1/s]); fog–fog edges form
  the fog layer (it must be connected) and every fog node has a path to a cloud server;
- a cloud server has ``mu_light``, ``mu_heavy`` (per processing unit) and ``units`` (m_k);
- every edge has ``delay`` (propagation X [s]) and ``rate`` (R [bit/s]);
- the graph has ``size_light`` and ``size_heavy`` (request sizes ς [bytes]; a response
  travels back with the same size, as the transmission terms Y of eq. 2 assume).

A fog node's cloud h(j) is the nearest by propagation delay; an IoT node's cloud is its fog
node's, g(i) = h(f(i)), and requests sent "straight to the cloud" travel i → f(i) → h(f(i)).
Paths are the propagation-shortest paths; a transmission delay is size·Σ 1/R over its hops.

:func:`validate` names the node or edge and the attribute of any defect; :func:`compile_scenario`
turns a valid graph into the arrays the model and the simulator use.

References: Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. II (the graph G = [V; E; w],
w = (X, R)), eq. 2 and eq. 4 (transmission delay per hop).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from workbench.fog.kernels import path_inverse_rates
from workbench.fog.params import PARAMS, RATE_MAX
from workbench.validation import (
    EmptyRunError,
    ParameterError,
    check_array,
    check_int,
    check_real,
    check_work,
    describe,
    refusal,
    reject_unknown,
)

__all__ = [
    "ScenarioError",
    "Compiled",
    "default_scenario",
    "ring_scenario",
    "grid_scenario",
    "geometric_scenario",
    "build_scenario",
    "with_traffic",
    "with_fog_delay",
    "validate",
    "compile_scenario",
    "save_scenario",
    "load_scenario",
]

ROLES = ("iot", "fog", "cloud")
IOT_ATTRS = ("rate_light", "rate_heavy", "p_iot", "p_cloud", "local_mean_light", "local_mean_heavy")
FOG_ATTRS = ("mu_light", "mu_heavy")
CLOUD_ATTRS = ("mu_light", "mu_heavy", "units")
EDGE_ATTRS = ("delay", "rate")
GRAPH_ATTRS = ("size_light", "size_heavy")

# [choice] defaults: three link classes (IoT-fog, fog-fog, fog-cloud) as below, fog processing
# 5 ms (Light) and 30 ms (Heavy), the cloud 20 times faster, requests of 2 KB and 100 KB.
# With these an idle fog node beats the cloud for both types, a busy one does not.
IOT_FOG = {"delay": (1e-3, 2e-3), "rate": (54e6, 54e6)}
FOG_FOG = {"delay": (0.5e-3, 1.2e-3), "rate": (100e6, 100e6)}
FOG_CLOUD = {"delay": (15e-3, 35e-3), "rate": (1e9, 10e9)}
FOG_MU = (200.0, 1 / 0.03)
CLOUD_MU = (4000.0, 20 / 0.03)
CLOUD_UNITS = 8
SIZES = (2_000.0, 100_000.0)
IOT_RATE = 4.0  # requests per second per IoT node, Light + Heavy
MAX_FOG = 10_000  # fog nodes of a generated scenario (the fog-fog path tables are n_fog²)
MAX_IOT = 2_000_000  # IoT nodes of a generated scenario (networkx holds ~2 kB per node)
BUILD_KEYWORDS = (
    "n_cloud",
    "lam_per_iot",
    "light_fraction",
    "p_iot",
    "p_cloud",
    "fog_mu",
    "cloud_mu",
    "cloud_units",
    "sizes",
)


def _check_counts(iot_per_fog, n_fog, func):
    """IoT nodes per fog node: one int or one per fog node, each in [0, MAX_IOT], total bounded."""
    items = iot_per_fog if isinstance(iot_per_fog, (list, tuple, np.ndarray)) else [iot_per_fog]
    counts = [
        check_int(c, "iot_per_fog", func, 0, MAX_IOT)
        for c in np.ravel(np.asarray(items, dtype=object))
    ]
    if len(counts) not in (1, n_fog):
        raise refusal(func, "iot_per_fog", f"one int or one per fog node ({n_fog})", iot_per_fog)
    total = counts[0] * n_fog if len(counts) == 1 else sum(counts)
    if total > MAX_IOT:
        raise ParameterError(
            f"The 'iot_per_fog' parameter of {func} would create {total:,} IoT nodes, more than "
            f"{MAX_IOT:,} (bounded work). Got {describe(iot_per_fog)} instead."
        )
    return counts if len(counts) > 1 else counts * n_fog


def _check_build(func, kw):
    """The keyword arguments a generator passes on to :func:`build_scenario`."""
    reject_unknown(func, kw, BUILD_KEYWORDS)
    out = {}
    if "n_cloud" in kw:
        out["n_cloud"] = check_int(kw["n_cloud"], "n_cloud", func, 1, MAX_FOG)
    if "lam_per_iot" in kw:
        out["lam_per_iot"] = check_real(kw["lam_per_iot"], "lam_per_iot", func, 0.0, RATE_MAX)
    for name in ("light_fraction", "p_iot", "p_cloud"):
        if name in kw:
            out[name] = PARAMS[name].check(kw[name], func)
    for name in ("fog_mu", "cloud_mu", "sizes"):
        if name in kw:
            high = 1e12 if name == "sizes" else RATE_MAX  # a pair (Light, Heavy); not ragged
            pair = check_array(kw[name], name, func, low=1e-6, high=high, length=2)
            out[name] = tuple(float(v) for v in pair)
    if "cloud_units" in kw:
        out["cloud_units"] = check_int(kw["cloud_units"], "cloud_units", func, 1, 1_000_000)
    _check_shares(*(out.get(k, PARAMS[k].default) for k in ("p_iot", "p_cloud")), func)
    return out


def _check_shares(p_iot, p_cloud, func):
    """p^I + p^C ≤ 1: what is left, p^F = 1 − p^I − p^C, goes to the fog."""
    if p_iot + p_cloud > 1 + 1e-12:
        raise ParameterError(
            f"The 'p_cloud' parameter of {func} must keep p^I + p^C ≤ 1. Got "
            f"p^I = {p_iot:g}, p^C = {p_cloud:g} instead."
        )


LOCAL_MEAN = (0.05, 0.5)  # an IoT node is slow: 50 ms Light, 500 ms Heavy


class ScenarioError(ParameterError):
    """A scenario graph or file is malformed; the message names the node/edge and attribute."""


# ------------------------------------------------------------------------ generators


def build_scenario(
    fog_layer: nx.Graph,
    iot_per_fog,
    *,
    n_cloud: int = 1,
    seed: int = 0,
    lam_per_iot: float = IOT_RATE,
    light_fraction: float | None = None,
    p_iot: float | None = None,
    p_cloud: float | None = None,
    fog_mu=FOG_MU,
    cloud_mu=CLOUD_MU,
    cloud_units: int = CLOUD_UNITS,
    sizes=SIZES,
) -> nx.Graph:
    """A scenario from a fog-layer graph: IoT nodes hang off each fog node, clouds on top.

    Parameters
    ----------
    fog_layer : networkx.Graph
        The fog nodes and their links (any topology, connected).
    iot_per_fog : int or sequence of int
        IoT nodes attached to each fog node (in ``fog_layer.nodes`` order).
    n_cloud : int
        Cloud servers; fog node j links to cloud j mod n_cloud.
    seed : int
        Seeds the link delays and rates (drawn from the [choice] ranges).
    lam_per_iot : float
        Requests per second of every IoT node, Light and Heavy together [1/s].
    light_fraction, p_iot, p_cloud : float, optional
        Every IoT node's Light share, p^I and p^C; None: the table's default
        (:data:`workbench.fog.params.PARAMS`).
    fog_mu, cloud_mu : (float, float)
        Processing rates (μ, μ') of every fog node and of a cloud processing unit [1/s].
    cloud_units : int
        Processing units m_k of every cloud server.
    sizes : (float, float)
        Request sizes (ς, ς') of Light and Heavy requests [bytes].

    Returns
    -------
    networkx.Graph
        The scenario (see the module docstring for its attributes).
    """
    func = "build_scenario"
    if not isinstance(fog_layer, nx.Graph) or fog_layer.number_of_nodes() == 0:
        raise refusal(func, "fog_layer", "a networkx.Graph with at least one node", fog_layer)
    if fog_layer.number_of_nodes() > MAX_FOG:
        raise ParameterError(
            f"The 'fog_layer' parameter of {func} must have at most {MAX_FOG:,} nodes. Got "
            f"{fog_layer.number_of_nodes():,} instead."
        )
    rng = np.random.default_rng(PARAMS["seed"].check(seed, func))
    fogs = list(fog_layer.nodes)
    counts = np.asarray(_check_counts(iot_per_fog, len(fogs), func), dtype=np.int64)
    traffic = dict(light_fraction=light_fraction, p_iot=p_iot, p_cloud=p_cloud)
    given = dict(n_cloud=n_cloud, lam_per_iot=lam_per_iot, fog_mu=fog_mu, cloud_mu=cloud_mu)
    given.update(cloud_units=cloud_units, sizes=sizes)
    given.update({k: PARAMS[k].default if v is None else v for k, v in traffic.items()})
    checked = _check_build(func, given)
    n_cloud, rate, light_fraction, p_iot, p_cloud, fog_mu, cloud_mu, cloud_units, sizes = (
        checked[k] for k in BUILD_KEYWORDS
    )
    g = nx.Graph(size_light=float(sizes[0]), size_heavy=float(sizes[1]))

    def draw(kind):
        return {
            "delay": float(rng.uniform(*kind["delay"])),
            "rate": float(rng.uniform(*kind["rate"])),
        }

    names = {f: f"fog{j}" for j, f in enumerate(fogs)}
    for f in fogs:
        g.add_node(names[f], role="fog", mu_light=float(fog_mu[0]), mu_heavy=float(fog_mu[1]))
    for k in range(n_cloud):
        g.add_node(
            f"cloud{k}",
            role="cloud",
            mu_light=float(cloud_mu[0]),
            mu_heavy=float(cloud_mu[1]),
            units=int(cloud_units),
        )
    for a, b in fog_layer.edges:
        g.add_edge(names[a], names[b], **draw(FOG_FOG))
    for j, f in enumerate(fogs):
        g.add_edge(names[f], f"cloud{j % n_cloud}", **draw(FOG_CLOUD))
    # IoT node i hangs off fog node j: counts[j] of them per fog node, in order
    for i, j in enumerate(np.repeat(np.arange(len(fogs)), counts)):
        g.add_node(
            f"iot{i}",
            role="iot",
            rate_light=rate * light_fraction,
            rate_heavy=rate * (1 - light_fraction),
            p_iot=p_iot,
            p_cloud=p_cloud,
            local_mean_light=LOCAL_MEAN[0],
            local_mean_heavy=LOCAL_MEAN[1],
        )
        g.add_edge(f"iot{i}", names[fogs[j]], **draw(IOT_FOG))
    return g


def default_scenario(seed: int = 0, n_fog: int = 10) -> nx.Graph:
    """The workbench's starting scenario [choice].

    ``n_fog`` fog nodes on a connected random geometric layer (radius 0.5 in the unit square,
    re-drawn until connected), 4–24 IoT nodes per fog node sending 4 requests/s each (uneven
    load: fog loads ρ from about 0.14 to 0.86 if every request stays at its first fog node),
    one cloud server with 8 units. Links:
    IoT–fog U[1, 2] ms at 54 Mbit/s, fog–fog U[0.5, 1.2] ms at 100 Mbit/s, fog–cloud
    U[15, 35] ms at U[1, 10] Gbit/s.

    Parameters
    ----------
    seed : int
        Seeds the layer, the IoT counts and the links.
    n_fog : int
        Fog nodes.

    Returns
    -------
    networkx.Graph
        The scenario.
    """
    seed = PARAMS["seed"].check(seed, "default_scenario")
    n_fog = check_int(n_fog, "n_fog", "default_scenario", 1, MAX_FOG)
    rng = np.random.default_rng(seed)
    layer = _connected_geometric(n_fog, 0.5, rng, "default_scenario")
    counts = rng.integers(4, 25, size=n_fog)
    return build_scenario(layer, counts, seed=seed)


def ring_scenario(n_fog: int = 8, iot_per_fog=15, seed: int = 0, **kw) -> nx.Graph:
    """Fog nodes on a ring, each linked to its two neighbours.

    Parameters
    ----------
    n_fog : int
        Fog nodes (one or two: a path).
    iot_per_fog : int or sequence of int
        IoT nodes per fog node.
    seed : int
        Seeds the links.
    **kw
        The other keywords of :func:`build_scenario`.

    Returns
    -------
    networkx.Graph
        The scenario.
    """
    func = "ring_scenario"
    n_fog = check_int(n_fog, "n_fog", func, 1, MAX_FOG)
    _check_counts(iot_per_fog, n_fog, func)
    layer = nx.cycle_graph(n_fog) if n_fog > 2 else nx.path_graph(n_fog)  # no self-loop at 1
    return build_scenario(layer, iot_per_fog, seed=seed, **_check_build(func, kw))


def grid_scenario(rows: int = 3, cols: int = 3, iot_per_fog=15, seed: int = 0, **kw) -> nx.Graph:
    """Fog nodes on a rows × cols grid.

    Parameters
    ----------
    rows, cols : int
        The grid's shape.
    iot_per_fog : int or sequence of int
        IoT nodes per fog node.
    seed : int
        Seeds the links.
    **kw
        The other keywords of :func:`build_scenario`.

    Returns
    -------
    networkx.Graph
        The scenario.
    """
    func = "grid_scenario"
    rows = check_int(rows, "rows", func, 1, MAX_FOG)
    cols = check_int(cols, "cols", func, 1, MAX_FOG // rows)
    _check_counts(iot_per_fog, rows * cols, func)
    kw = _check_build(func, kw)
    layer = nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols))
    return build_scenario(layer, iot_per_fog, seed=seed, **kw)


def geometric_scenario(
    n_fog: int = 25, radius: float = 0.3, iot_per_fog=20, seed: int = 0, **kw
) -> nx.Graph:
    """A random geometric fog layer (unit square, link when closer than ``radius``).

    Parameters
    ----------
    n_fog : int
        Fog nodes.
    radius : float
        Link distance, in (0, 2]; raised by 5% per attempt until the layer is connected.
    iot_per_fog : int, sequence of int or "uneven"
        IoT nodes per fog node; "uneven": 4–24 per fog node drawn from the seed.
    seed : int
        Seeds the positions, the counts and the links.
    **kw
        The other keywords of :func:`build_scenario`.

    Returns
    -------
    networkx.Graph
        The scenario.
    """
    func = "geometric_scenario"
    rng = np.random.default_rng(PARAMS["seed"].check(seed, func))
    n_fog = check_int(n_fog, "n_fog", func, 1, MAX_FOG)
    radius = check_real(radius, "radius", func, 0.0, 2.0, low_open=True)
    uneven = isinstance(iot_per_fog, str) and iot_per_fog == "uneven"
    if not uneven:
        _check_counts(iot_per_fog, n_fog, func)
    kw = _check_build(func, kw)
    layer = _connected_geometric(n_fog, radius, rng, func)
    if uneven:
        iot_per_fog = rng.integers(4, 25, size=n_fog)
    return build_scenario(layer, iot_per_fog, seed=seed, **kw)


def _connected_geometric(n, radius, rng, func, attempts=200):
    check_work(func, "n_fog", n, 840.0 * n * n, "840 steps per fog-node pair: 1000 nodes, 8.4 s")
    for _ in range(attempts):
        pos = rng.uniform(size=(n, 2))
        layer = nx.random_geometric_graph(n, radius, pos={i: tuple(p) for i, p in enumerate(pos)})
        if n == 1 or nx.is_connected(layer):
            return layer
        radius *= 1.05
    raise ScenarioError(f"geometric fog layer: no connected layer of {n} nodes found")


def with_traffic(
    scenario: nx.Graph, *, load=None, light_fraction=None, p_iot=None, p_cloud=None
) -> nx.Graph:
    """A copy with the IoT traffic changed: rates × ``load``, the Light share, p^I, p^C.

    Parameters
    ----------
    scenario : networkx.Graph
        A valid scenario.
    load : float, optional
        Factor on every IoT node's request rates.
    light_fraction : float, optional
        Light share of every IoT node's requests (its total rate kept).
    p_iot, p_cloud : float, optional
        p^I and p^C of every IoT node (p^I + p^C ≤ 1).

    Returns
    -------
    networkx.Graph
        The copy; a keyword left None leaves that attribute as it was.
    """
    func = "with_traffic"
    g = validate(scenario).copy()
    checked = {
        k: PARAMS[k].check(v, func)
        for k, v in dict(
            load=load, light_fraction=light_fraction, p_iot=p_iot, p_cloud=p_cloud
        ).items()
        if v is not None
    }
    for _, d in g.nodes(data=True):
        if d.get("role") != "iot":
            continue
        total = d["rate_light"] + d["rate_heavy"]
        if "light_fraction" in checked:
            b = checked["light_fraction"]
            d["rate_light"], d["rate_heavy"] = total * b, total * (1 - b)
        if "load" in checked:
            d["rate_light"] *= checked["load"]
            d["rate_heavy"] *= checked["load"]
        d.update({k: checked[k] for k in ("p_iot", "p_cloud") if k in checked})
        _check_shares(d["p_iot"], d["p_cloud"], func)
    return g


def with_fog_delay(scenario: nx.Graph, fog_delay) -> nx.Graph:
    """A copy with every fog–fog link's propagation delay set to ``fog_delay``.

    Parameters
    ----------
    scenario : networkx.Graph
        A valid scenario.
    fog_delay : float
        Propagation delay X^FF of every fog–fog link [s].

    Returns
    -------
    networkx.Graph
        The copy.
    """
    delay = PARAMS["fog_delay"].check(fog_delay, "with_fog_delay")
    g = validate(scenario).copy()
    for a, b, d in g.edges(data=True):
        if g.nodes[a].get("role") == "fog" and g.nodes[b].get("role") == "fog":
            d["delay"] = delay
    return g


# ------------------------------------------------------------------------ validation


def _num(value, where, attr, low=0.0, low_open=False, high=math.inf, integer=False):
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok:
        x = float(value)
        ok = math.isfinite(x) and (x > low if low_open else x >= low) and x <= high
        ok = ok and (not integer or x.is_integer())
    if not ok:
        kind = "an integer" if integer else "a finite number"
        rng = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise ScenarioError(
            f"scenario: {where} has {attr} = {value!r}; it must be {kind} in {rng}."
        )


def validate(scenario) -> nx.Graph:
    """Check a scenario graph against the rules of the module docstring.

    Parameters
    ----------
    scenario : networkx.Graph
        The graph to check.

    Returns
    -------
    networkx.Graph
        ``scenario`` itself.

    Raises
    ------
    ScenarioError
        Naming the node or edge and the attribute of the first defect.
    """
    if not isinstance(scenario, nx.Graph):
        raise ScenarioError(f"scenario: expected a networkx.Graph, got {type(scenario).__name__}.")
    if scenario.is_directed() or scenario.is_multigraph():
        raise ScenarioError("scenario: the graph must be undirected and simple (nx.Graph).")
    g = scenario
    for attr in GRAPH_ATTRS:
        if attr not in g.graph:
            raise ScenarioError(f"scenario: the graph misses the attribute '{attr}' (bytes).")
        _num(g.graph[attr], "the graph", attr, low_open=True, high=1e12)
    roles = {}
    for node, d in g.nodes(data=True):
        role = d.get("role")
        if role not in ROLES:
            raise ScenarioError(
                f"scenario: node {node!r} has role = {role!r}; it must be one of {ROLES}."
            )
        roles[node] = role
        need = {"iot": IOT_ATTRS, "fog": FOG_ATTRS, "cloud": CLOUD_ATTRS}[role]
        for attr in need:
            if attr not in d:
                raise ScenarioError(
                    f"scenario: {role} node {node!r} misses the attribute '{attr}'."
                )
        where = f"{role} node {node!r}"
        if role == "iot":
            for attr in ("rate_light", "rate_heavy"):
                _num(d[attr], where, attr, high=1e6)
            for attr in ("p_iot", "p_cloud"):
                _num(d[attr], where, attr, high=1.0)
            if d["p_iot"] + d["p_cloud"] > 1 + 1e-12:
                raise ScenarioError(
                    f"scenario: {where} has p_iot + p_cloud = {d['p_iot'] + d['p_cloud']:g} > 1."
                )
            for attr in ("local_mean_light", "local_mean_heavy"):
                _num(d[attr], where, attr, low_open=True, high=1e6)
        else:
            for attr in ("mu_light", "mu_heavy"):
                _num(d[attr], where, attr, low=1e-6, high=1e6)
            if role == "cloud":
                _num(d["units"], where, "units", low=1, high=1e6, integer=True)
    loops = list(nx.selfloop_edges(g))
    if loops:
        a = loops[0][0]
        raise ScenarioError(
            f"scenario: edge ({a!r}, {a!r}) links {roles[a]} node {a!r} to itself; a fog node "
            "would forward to itself. Remove self-loops (nx.selfloop_edges)."
        )
    for a, b, d in g.edges(data=True):
        where = f"edge ({a!r}, {b!r})"
        for attr in EDGE_ATTRS:
            if attr not in d:
                raise ScenarioError(f"scenario: {where} misses the attribute '{attr}'.")
        _num(d["delay"], where, "delay", high=1e6)
        _num(d["rate"], where, "rate (bit/s)", low_open=True, high=1e15)
        ra, rb = roles[a], roles[b]
        if "iot" in (ra, rb) and {ra, rb} != {"iot", "fog"}:
            raise ScenarioError(
                f"scenario: {where} links an IoT node to a {rb if ra == 'iot' else ra} node; "
                "an IoT node links to exactly one fog node."
            )
        if {ra, rb} == {"cloud"}:
            raise ScenarioError(f"scenario: {where} links two cloud servers (not modelled).")
    fogs = [n for n, r in roles.items() if r == "fog"]
    clouds = [n for n, r in roles.items() if r == "cloud"]
    if not fogs:
        raise ScenarioError("scenario: no fog node (role = 'fog').")
    if not clouds:
        raise ScenarioError("scenario: no cloud server (role = 'cloud').")
    for node, r in roles.items():
        if r == "iot" and g.degree(node) != 1:
            raise ScenarioError(
                f"scenario: IoT node {node!r} has {g.degree(node)} links; it needs exactly one, "
                "to its fog node."
            )
    fog_layer = g.subgraph(fogs)
    if not nx.is_connected(fog_layer):
        parts = [sorted(map(str, c))[:3] for c in nx.connected_components(fog_layer)]
        raise ScenarioError(
            f"scenario: the fog layer is not connected (components starting {parts})."
        )
    if not any(roles[m] == "cloud" for f in fogs for m in g.neighbors(f)):
        raise ScenarioError("scenario: no fog node links to a cloud server.")
    return g


# ------------------------------------------------------------------------ compiled arrays


@dataclass(frozen=True)
class Compiled:
    """A validated scenario as arrays (index order: fog, cloud, IoT nodes as in the graph).

    A ``*_prop`` array holds propagation delays X [s], the matching ``*_inv`` the sums of
    1/R [s/bit] along the same path (a transmission delay is size · Σ 1/R).

    Parameters
    ----------
    fog_names, cloud_names, iot_names : list
        The nodes' names in the graph.
    fog_mu : ndarray, shape (n_fog, 2)
        Processing rates μ, μ' [1/s].
    cloud_mean : ndarray, shape (n_cloud, 2)
        Mean processing times Z, Z' of a processing unit [s].
    cloud_units : ndarray, shape (n_cloud,)
        Processing units m_k.
    size_bits : ndarray, shape (2,)
        Request sizes ς, ς' [bit].
    nbr_ptr, nbr_idx, nbr_prop, nbr_inv : ndarray
        The fog layer's links in CSR form: fog node j's neighbours are
        ``nbr_idx[nbr_ptr[j]:nbr_ptr[j + 1]]``, with the links' delay and 1/R.
    nbr_rev : ndarray
        For each CSR entry, the entry of the reverse direction.
    ff_prop, ff_inv : ndarray, shape (n_fog, n_fog)
        Along the propagation-shortest fog-to-fog paths.
    cf_prop, cf_inv : ndarray, shape (n_cloud, n_fog)
        Along the shortest paths from each cloud server to each fog node.
    fog_cloud : ndarray, shape (n_fog,)
        h(j), the cloud server of fog node j (the nearest).
    fc_prop, fc_inv : ndarray, shape (n_fog,)
        From fog node j to h(j).
    iot_fog : ndarray, shape (n_iot,)
        f(i), the fog node of IoT node i.
    iot_prop, iot_inv : ndarray, shape (n_iot,)
        The link from IoT node i to f(i).
    iot_rate : ndarray, shape (n_iot, 2)
        Request rates γ, γ' [1/s].
    iot_p : ndarray, shape (n_iot, 3)
        p^I, p^F, p^C.
    iot_local_mean : ndarray, shape (n_iot, 2)
        Mean local processing times a, a' [s].
    """

    fog_names: list
    cloud_names: list
    iot_names: list
    fog_mu: np.ndarray
    cloud_mean: np.ndarray
    cloud_units: np.ndarray
    size_bits: np.ndarray
    nbr_ptr: np.ndarray
    nbr_idx: np.ndarray
    nbr_prop: np.ndarray
    nbr_inv: np.ndarray
    nbr_rev: np.ndarray
    ff_prop: np.ndarray
    ff_inv: np.ndarray
    cf_prop: np.ndarray
    cf_inv: np.ndarray
    fog_cloud: np.ndarray
    fc_prop: np.ndarray
    fc_inv: np.ndarray
    iot_fog: np.ndarray
    iot_prop: np.ndarray
    iot_inv: np.ndarray
    iot_rate: np.ndarray
    iot_p: np.ndarray
    iot_local_mean: np.ndarray

    @property
    def n_fog(self):
        return len(self.fog_names)

    @property
    def n_cloud(self):
        return len(self.cloud_names)

    @property
    def n_iot(self):
        return len(self.iot_names)

    @property
    def fog_mean(self):
        """Mean processing times 1/μ, 1/μ' of every fog node [s], shape (n_fog, 2)."""
        return 1.0 / self.fog_mu

    @property
    def unit_ptr(self):
        """Cloud server k's processing units are ``unit_ptr[k]:unit_ptr[k + 1]`` of all units."""
        return np.concatenate([[0], np.cumsum(self.cloud_units)]).astype(np.int64)

    @property
    def neighbour_share(self):
        """share[ĵ, j] = 1/deg(ĵ) for each fog link: the flow equations' routing."""
        degree = np.diff(self.nbr_ptr)
        rows = np.repeat(np.arange(self.n_fog), degree)  # fog node ĵ once per link
        s = np.zeros((self.n_fog, self.n_fog))
        s[rows, self.nbr_idx] = 1.0 / degree[rows]
        return s

    def require_traffic(self, func: str, why: str) -> None:
        """Refuse a scenario in which no IoT node sends any request.

        Parameters
        ----------
        func : str
            The public function named in the error.
        why : str
            What that leaves undefined ("so the run would never generate one").
        """
        if not self.iot_rate.sum() > 0:
            raise EmptyRunError(
                f"{func}: no IoT node sends any request (every rate_light and rate_heavy is 0), "
                f"{why}. Give some IoT node a positive rate (with_traffic(load=...) scales "
                "existing rates)."
            )

    @property
    def fog_inflow(self):
        """(I_j, I'_j): p^F-share of the IoT rates arriving at each fog node first."""
        return self._iot_traffic(self.iot_fog, 1, self.n_fog)

    @property
    def cloud_direct(self):
        """IoT traffic sent straight to each cloud server (p^C share)."""
        return self._iot_traffic(self.fog_cloud[self.iot_fog], 2, self.n_cloud)

    def _iot_traffic(self, target, route, size):
        """Per class, the IoT rates times p[route] summed onto ``target`` (one node each)."""
        out = np.zeros((size, 2))
        for c in (0, 1):
            weights = self.iot_rate[:, c] * self.iot_p[:, route]
            out[:, c] = np.bincount(target, weights=weights, minlength=size)
        return out


def compile_scenario(scenario) -> Compiled:
    """Validate a scenario graph and turn it into arrays.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled
        A scenario graph (a :class:`Compiled` passes through).

    Returns
    -------
    Compiled
        The arrays the model and the simulator read.
    """
    if isinstance(scenario, Compiled):
        return scenario
    g = validate(scenario)
    fogs = [n for n, d in g.nodes(data=True) if d["role"] == "fog"]
    clouds = [n for n, d in g.nodes(data=True) if d["role"] == "cloud"]
    iots = [n for n, d in g.nodes(data=True) if d["role"] == "iot"]
    fi = {n: j for j, n in enumerate(fogs)}
    ci = {n: k for k, n in enumerate(clouds)}
    nf, nc = len(fogs), len(clouds)

    ptr, idx, prop, inv = [0], [], [], []
    for f in fogs:
        nb = [m for m in g.neighbors(f) if m in fi]
        for m in nb:
            idx.append(fi[m])
            prop.append(float(g.edges[f, m]["delay"]))
            inv.append(1.0 / float(g.edges[f, m]["rate"]))
        ptr.append(len(idx))
    ptr, idx = np.array(ptr, dtype=np.int64), np.array(idx, dtype=np.int64)
    prop, inv = np.array(prop, dtype=float), np.array(inv, dtype=float)
    pos = {(j, int(idx[e])): e for j in range(nf) for e in range(ptr[j], ptr[j + 1])}
    rev = np.array([pos[(m, j)] for j, m in pos], dtype=np.int64)  # pos runs in CSR order

    rows = np.repeat(np.arange(nf), np.diff(ptr))
    # tiny offset: a zero-delay link must still count as an edge in the sparse matrix
    adj = csr_matrix((prop + 1e-300, (rows, idx)), shape=(nf, nf))
    ff_prop, pred = dijkstra(adj, directed=True, return_predecessors=True)
    inv_mat = csr_matrix((inv, (rows, idx)), shape=(nf, nf)).toarray()
    ff_inv = path_inverse_rates(ff_prop, pred.astype(np.int64), inv_mat)

    cf_prop = np.full((nc, nf), np.inf)
    cf_inv = np.zeros((nc, nf))
    for c in clouds:
        k = ci[c]
        for f in g.neighbors(c):
            j = fi[f]
            d = g.edges[c, f]
            tot = d["delay"] + ff_prop[j]
            better = tot < cf_prop[k]
            cf_prop[k, better] = tot[better]
            cf_inv[k, better] = 1.0 / d["rate"] + ff_inv[j, better]
    fog_cloud = np.argmin(cf_prop, axis=0)
    if not np.all(np.isfinite(cf_prop[fog_cloud, np.arange(nf)])):
        j = int(np.flatnonzero(~np.isfinite(cf_prop[fog_cloud, np.arange(nf)]))[0])
        raise ScenarioError(f"scenario: fog node {fogs[j]!r} has no path to a cloud server.")
    fc_prop = cf_prop[fog_cloud, np.arange(nf)]
    fc_inv = cf_inv[fog_cloud, np.arange(nf)]

    iot_fog = np.empty(len(iots), dtype=np.int64)
    iot_prop, iot_inv = np.empty(len(iots)), np.empty(len(iots))
    rate = np.empty((len(iots), 2))
    pr = np.empty((len(iots), 3))
    local = np.empty((len(iots), 2))
    for i, n in enumerate(iots):
        d = g.nodes[n]
        (f,) = list(g.neighbors(n))
        iot_fog[i] = fi[f]
        e = g.edges[n, f]
        iot_prop[i], iot_inv[i] = e["delay"], 1.0 / e["rate"]
        rate[i] = d["rate_light"], d["rate_heavy"]
        pr[i] = d["p_iot"], max(0.0, 1.0 - d["p_iot"] - d["p_cloud"]), d["p_cloud"]
        local[i] = d["local_mean_light"], d["local_mean_heavy"]
    return Compiled(
        fog_names=fogs,
        cloud_names=clouds,
        iot_names=iots,
        fog_mu=np.array([[g.nodes[f]["mu_light"], g.nodes[f]["mu_heavy"]] for f in fogs], float),
        cloud_mean=np.array(
            [[1 / g.nodes[c]["mu_light"], 1 / g.nodes[c]["mu_heavy"]] for c in clouds], float
        ),
        cloud_units=np.array([int(g.nodes[c]["units"]) for c in clouds], dtype=np.int64),
        size_bits=8.0 * np.array([g.graph["size_light"], g.graph["size_heavy"]], float),
        nbr_ptr=ptr,
        nbr_idx=idx,
        nbr_prop=prop,
        nbr_inv=inv,
        nbr_rev=rev,
        ff_prop=ff_prop,
        ff_inv=ff_inv,
        cf_prop=cf_prop,
        cf_inv=cf_inv,
        fog_cloud=fog_cloud.astype(np.int64),
        fc_prop=fc_prop,
        fc_inv=fc_inv,
        iot_fog=iot_fog,
        iot_prop=iot_prop,
        iot_inv=iot_inv,
        iot_rate=rate,
        iot_p=pr,
        iot_local_mean=local,
    )


# ------------------------------------------------------------------------ files


def save_scenario(scenario, path) -> Path:
    """Write a scenario as GraphML (``.graphml``) or node-link JSON (``.json``).

    Parameters
    ----------
    scenario : networkx.Graph
        A valid scenario.
    path : str or pathlib.Path
        The file; its suffix chooses the format, its folder must exist.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    g = validate(scenario)
    if not (path := _check_path(path, "save_scenario")).parent.is_dir():
        raise ParameterError(f"save_scenario: the folder {str(path.parent)!r} does not exist.")
    if path.suffix == ".graphml":
        nx.write_graphml(g, path)
    elif path.suffix == ".json":
        path.write_text(json.dumps(nx.node_link_data(g, edges="links"), indent=1))
    else:
        raise ScenarioError(
            f"save_scenario: the file name must end in .graphml or .json. Got {path.name!r}."
        )
    return path


def _check_path(path, func):
    if not isinstance(path, (str, Path)) or str(path) == "":
        raise refusal(
            func, "path", "a file name (str or pathlib.Path) ending in .graphml or .json", path
        )
    return Path(path)


def load_scenario(path) -> nx.Graph:
    """Read a scenario written by :func:`save_scenario` (or by hand) and validate it.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.graphml`` or ``.json`` (node-link) file.

    Returns
    -------
    networkx.Graph
        The validated scenario.
    """
    path = _check_path(path, "load_scenario")
    if path.suffix not in (".graphml", ".json"):
        raise ScenarioError(
            f"load_scenario: the file name must end in .graphml or .json. Got {path.name!r}."
        )
    try:
        if path.suffix == ".graphml":
            g = nx.read_graphml(path)
        else:
            g = nx.node_link_graph(json.loads(path.read_text()), edges="links")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, SyntaxError) as err:
        raise ScenarioError(f"load_scenario: cannot read {str(path)!r}: {err}") from err
    g = nx.Graph(g)
    for _, d in g.nodes(data=True):
        if "units" in d and isinstance(d["units"], float) and d["units"].is_integer():
            d["units"] = int(d["units"])
    return validate(g)
