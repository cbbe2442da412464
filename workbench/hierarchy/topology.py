"""Hierarchies of servers (the paper's 3-tier tree, skewed load, Barabási–Albert graphs) and
:class:`P5Params`, the paper's parameter object, whose ``topology`` names or holds one."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import networkx as nx
import numpy as np

from workbench.hierarchy.params import PARAMS
from workbench.params import ParamsModel, takes
from workbench.validation import ParameterError, broadcast, check_array, check_int, refusal

__all__ = [
    "P5Params",
    "Topology",
    "symmetric_tree",
    "skewed_tree",
    "barabasi_albert",
    "from_parents",
]

# servers 3, 4, 5, 6 generate tasks in the ratio 1:2:3:4 (paper, Sec. 5.3.1); the total
# rate is kept at 4 λ so that only the skew changes [choice]
SKEW_WEIGHTS = (0.4, 0.8, 1.2, 1.6)
# each new node of a Barabási–Albert graph attaches to 2 existing nodes [choice]
BA_EDGES_PER_NODE = 2
MAX_SERVERS = 1000


@dataclass(frozen=True, eq=False)
class Topology:
    """A tree of servers rooted at the centre, checked when built and frozen.

    Parameters
    ----------
    name : str
        The hierarchy's name (``"tree"``, ``"ba-3"``, ...).
    parent : ndarray of int
        ``parent[s]`` is the next hop up from ``s``; ``-1`` at the centre (exactly one).
    compute : ndarray of float
        Speed F_s of each server [work units/s].
    bandwidth : ndarray of float
        Bandwidth W of the link from ``s`` up to ``parent[s]`` [Mbit/s] (unused at the centre).
    weight : ndarray of float
        Task generation weight: server ``s`` generates Poisson(λ·weight[s]) tasks per period.
    """

    name: str
    parent: np.ndarray
    compute: np.ndarray
    bandwidth: np.ndarray
    weight: np.ndarray

    def __post_init__(self):
        """Validate the structure: one centre, a tree, positive speeds and bandwidths, weights
        >= 0 with at least one positive (a hand-built Topology is checked like from_parents)."""
        for key, value in _checked_fields("Topology", **self.__dict__).items():
            object.__setattr__(self, key, value)
        # checked once, so frozen: a parent changed afterwards would make a cycle (a hang in
        # the simulator) or an index out of range; build a new Topology instead
        for arr in (self.parent, self.compute, self.bandwidth, self.weight):
            arr.flags.writeable = False

    def checked(self, func: str) -> Topology:
        """This topology checked again where ``func`` uses it: a field replaced since it was
        built (``object.__setattr__`` goes around the frozen dataclass) is refused naming
        ``func``, the field and the value."""
        return Topology(**_checked_fields(func, **self.__dict__))

    @property
    def n(self) -> int:
        return int(self.parent.size)

    @property
    def root(self) -> int:
        return int(np.flatnonzero(self.parent < 0)[0])

    @property
    def depth(self) -> np.ndarray:
        """Each server's number of hops up to the centre."""
        return np.array([len(self.path_up(s)) - 1 for s in range(self.n)])

    @property
    def generators(self) -> np.ndarray:
        return np.flatnonzero(self.weight > 0)

    def path_up(self, s: int) -> list[int]:
        """``[s, parent[s], ..., centre]``."""
        path = [int(s)]
        while self.parent[path[-1]] >= 0:
            path.append(int(self.parent[path[-1]]))
        return path

    def children(self, s: int) -> list[int]:
        return [int(c) for c in np.flatnonzero(self.parent == s)]


def _checked_fields(f: str, name, parent, compute, bandwidth, weight) -> dict:
    """The fields validated (one centre, a tree, positive speeds and bandwidths, weights >= 0
    with one positive), as arrays; errors name ``f``."""
    if not isinstance(name, str):
        raise refusal(f, "name", "a str", name)
    par = _check_parents(parent, f)
    n = par.size
    return {
        "name": name,
        "parent": par,
        # one value for every server, or one each, in the table's range of the speeds and W
        "compute": broadcast(compute, "compute", f, n, low=1e-6, high=1e6),
        "bandwidth": broadcast(bandwidth, "bandwidth", f, n, low=1e-6, high=1e6),
        "weight": _weights(weight, f, n),
    }


def from_parents(parents, compute, bandwidth=None, weights=None, *, name: str = "user") -> Topology:
    """A user-given tree.

    Parameters
    ----------
    parents : sequence of int
        ``parents[s]`` = next hop up from server ``s``, ``-1`` for the centre (exactly one);
        every server must reach the centre.
    compute : float or sequence of float
        Server speeds F_s > 0 [work units/s].
    bandwidth : float or sequence of float, optional
        Bandwidth of each server's link up [Mbit/s] > 0; None: every link at the table's
        ``bandwidth`` (the paper's wired links).
    weights : sequence of float, optional
        Generation weights >= 0, at least one positive; default 1 on the leaves.
    name : str
        The hierarchy's name.

    Returns
    -------
    Topology
        The checked tree.
    """
    f = "from_parents"
    if bandwidth is None:
        bandwidth = PARAMS["bandwidth"].default
    if weights is None:  # the leaves
        par = _check_parents(parents, f)
        weights = np.array([par.size == 1 or not np.any(par == s) for s in range(par.size)], float)
    return Topology(**_checked_fields(f, name, parents, compute, bandwidth, weights))


def _check_parents(parents, func) -> np.ndarray:
    par = check_array(parents, "parents", func, length=(1, MAX_SERVERS), dtype=int).astype(np.int64)
    n = par.size
    if np.sum(par == -1) != 1 or np.any(par < -1) or np.any(par >= n):
        raise ParameterError(
            f"The 'parents' parameter of {func} must hold exactly one -1 (the centre) and "
            f"otherwise server ids in [0, {n - 1}]. Got {parents!r} instead."
        )
    for s in range(n):
        t, steps = s, 0
        while par[t] >= 0:
            t = par[t]
            steps += 1
            if steps > n:
                raise ParameterError(
                    f"The 'parents' parameter of {func} must describe a tree (every server "
                    f"reaches the centre). Got a cycle through server {s}: {parents!r}."
                )
    return par


def _weights(weights, func, n) -> np.ndarray:
    """``n`` generation weights in [0, 1e6], at least one positive."""
    w = check_array(weights, "weights", func, ndim=None, low=0.0, high=1e6).ravel()
    if w.size != n or not np.any(w > 0):
        raise refusal(func, "weights", f"{n} non-negative numbers, at least one positive", weights)
    return w


class _Hierarchy(ParamsModel):
    def check_relations(self, func: str, fields) -> None:
        """RED's thresholds in order, ``min_th < max_th`` (a function that takes both)."""
        if "min_th" in fields and "max_th" in fields and self.min_th >= self.max_th:
            PARAMS["max_th"].with_(low=self.min_th, low_open=True).check(self.max_th, func)

    def hierarchy(self) -> Topology:
        """The servers: the object's :class:`Topology`, or the named one built with its
        speeds and bandwidth."""
        if isinstance(self.topology, Topology):
            return self.topology
        if self.topology == "tree":
            return symmetric_tree(self)
        if self.topology == "skewed":
            return skewed_tree(self)
        return barabasi_albert(self, int(self.topology.split("-")[1]))


def _check_topology(value, func: str):
    """A named hierarchy (a row of the table) or a :class:`Topology`, checked again where
    ``func`` uses it (a field replaced since it was built is refused)."""
    if isinstance(value, Topology):
        return value.checked(func)
    return PARAMS["topology"].check(value, func)


P5Params = PARAMS.model(
    "P5Params",
    checks={"topology": _check_topology},
    base=_Hierarchy,
    doc="""P5's parameters, one validated object: a field per row of ``PARAMS``.

    The simulation, the figures' studies, the hierarchies' builders and the model functions
    that read rows take it, or its keywords (:func:`workbench.params.takes`);
    ``hierarchy()`` gives its servers.

    Parameters
    ----------
    topology : str or Topology
        A named hierarchy (built with the object's speeds and bandwidth) or the servers
        themselves.
    """,
)

_TREE_PARENTS = (-1, 0, 0, 1, 1, 2, 2)
#: the rows a named hierarchy is built from (the builders' keywords, ``P5Params.hierarchy``)
BUILT_FROM = ("compute_bottom", "compute_middle", "compute_top", "bandwidth")


def _tree(p, name: str, bottom_weights) -> Topology:
    """The paper's tree with the object's speeds and bandwidth; servers 3-6 generate."""
    w = np.zeros(7)
    w[3:] = bottom_weights
    compute = [p.compute_top, p.compute_middle, p.compute_middle] + [p.compute_bottom] * 4
    return from_parents(_TREE_PARENTS, compute, p.bandwidth, w, name=name)


@takes(P5Params, *BUILT_FROM, "weights", positional=True)
def symmetric_tree(p, weights=None) -> Topology:
    """The paper's tree (Fig. 3): centre 0; middle 1, 2; bottom 3, 4 under 1 and 5, 6 under 2.

    Parameters
    ----------
    weights : sequence of 4 float, optional
        Generation weights of the bottom servers 3-6 (>= 0, one positive); default 1 each.

    Returns
    -------
    Topology
        The tree, named ``"tree"``.
    """
    return _tree(p, "tree", 1.0 if weights is None else _weights(weights, "symmetric_tree", 4))


@takes(P5Params, *BUILT_FROM, positional=True)
def skewed_tree(p) -> Topology:
    """The paper's tree with bottom servers 3-6 generating in the ratio 1:2:3:4.

    Returns
    -------
    Topology
        The tree, named ``"skewed"``, weights ``SKEW_WEIGHTS`` (total 4, as the tree's).
    """
    return _tree(p, "skewed", SKEW_WEIGHTS)


def _ba_hierarchy(seed: int):
    """Parents (BFS order, 0 = centre) of the BFS tree of ``barabasi_albert_graph(7, 2, seed)``."""
    graph = nx.barabasi_albert_graph(7, BA_EDGES_PER_NODE, seed=seed)
    degree = dict(graph.degree())
    centre = min(graph.nodes, key=lambda v: (-degree[v], v))
    edges = list(nx.bfs_edges(graph, centre, sort_neighbors=sorted))  # in discovery order
    new_id = {v: i for i, v in enumerate([centre, *(u for _, u in edges)])}
    return [-1, *(new_id[v] for v, _ in edges)]


def _shape(parents, node=0) -> str:
    """Canonical form of the rooted tree below ``node`` (equal iff isomorphic as rooted trees)."""
    kids = sorted(_shape(parents, c) for c, p in enumerate(parents) if p == node)
    return "(" + "".join(kids) + ")"


@functools.lru_cache(maxsize=1)
def ba_seeds() -> tuple[int, ...]:
    """The graph seeds of BA-1..BA-5: scanning seeds 1, 2, 3, ..., the first five whose
    hierarchies differ in shape (as rooted trees) from every one taken before.

    Seeds 1..5 alone give three shapes (1 and 4 alike, 2 and 3 alike); the paper's Fig. 9
    shows five different networks.
    """
    seeds, shapes = [], set()
    seed = 0
    while len(seeds) < 5:
        seed += 1
        shape = _shape(_ba_hierarchy(seed))
        if shape not in shapes:
            shapes.add(shape)
            seeds.append(seed)
    return tuple(seeds)


@takes(P5Params, "index", *BUILT_FROM, positional=True)
def barabasi_albert(p, index: int) -> Topology:
    """BA-``index`` (1..5): a 7-node Barabási–Albert graph and the hierarchy read from it.

    The graph is ``networkx.barabasi_albert_graph(7, 2, seed=ba_seeds()[index - 1])``: five
    graphs whose hierarchies differ in shape (:func:`ba_seeds` states the rule). Its hierarchy
    is the breadth-first tree from the node of highest degree (lowest id on ties), neighbours
    visited in id order; servers are renumbered in BFS order (0 = centre). Speeds follow the
    tier (centre ``compute_top``, tier 1 ``compute_middle``, deeper ``compute_bottom``) and
    are then scaled so the total equals the symmetric tree's (the paper keeps the total
    compute fixed). The leaves of the BFS tree generate tasks with equal weights summing to
    4, the tree's total [choice]: in the paper the total load moved with the number of
    leaves and was normalised away; here it is held fixed so that only the shape changes
    (and a star of 6 leaves is not simply overloaded).

    Parameters
    ----------
    index : int
        Which of the five graphs, 1..5.

    Returns
    -------
    Topology
        The hierarchy, named ``"ba-<index>"``.
    """
    f = "barabasi_albert"
    index = check_int(index, "index", f, 1, 5)
    compute_bottom, compute_middle, compute_top = p.compute_bottom, p.compute_middle, p.compute_top
    parents = _ba_hierarchy(ba_seeds()[index - 1])
    # BFS order: the centre is server 0, tier 1 its children, every other server deeper
    tiers = [compute_middle if up == 0 else compute_bottom for up in parents[1:]]
    speeds = np.array([compute_top, *tiers])
    total = compute_top + 2 * compute_middle + 4 * compute_bottom
    speeds = speeds * total / speeds.sum()
    if speeds.max() > 1e6:  # the compute rows' range, [1e-6, 1e6]
        raise ParameterError(
            f"The 'compute_bottom' parameter of {f} must keep every rescaled server speed in "
            f"[1e-6, 1e6] (speeds are scaled so their total equals the symmetric tree's, "
            f"compute_top + 2 compute_middle + 4 compute_bottom = {total:g}; BA-{index} would "
            f"give {speeds.max():.4g}). Got compute_bottom={compute_bottom:g}, "
            f"compute_middle={compute_middle:g}, compute_top={compute_top:g} instead."
        )
    leaves = np.array([i not in parents for i in range(7)], dtype=float)
    weights = 4.0 * leaves / leaves.sum()
    return from_parents(parents, speeds, p.bandwidth, weights, name=f"ba-{index}")
