"""Hierarchies of servers: the paper's 3-tier tree, skewed load, Barabási–Albert graphs."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from workbench.hierarchy.params import PARAMS
from workbench.validation import ParameterError, broadcast, check_array, check_int

_F_B = PARAMS["compute_bottom"].default
_F_M = PARAMS["compute_middle"].default
_F_C = PARAMS["compute_top"].default
_W = PARAMS["bandwidth"].default

__all__ = ["Topology", "symmetric_tree", "skewed_tree", "barabasi_albert", "from_parents"]

# servers 3, 4, 5, 6 generate tasks in the ratio 1:2:3:4 (paper, Sec. 5.3.1); the total
# rate is kept at 4 λ so that only the skew changes [choice]
SKEW_WEIGHTS = (0.4, 0.8, 1.2, 1.6)
# each new node of a Barabási–Albert graph attaches to 2 existing nodes [choice]
BA_EDGES_PER_NODE = 2
MAX_SERVERS = 1000


@dataclass(frozen=True, eq=False)
class Topology:
    """A tree of servers rooted at the centre.

    Attributes
    ----------
    name : str
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
        for key, value in _checked_fields(self, "Topology").items():
            object.__setattr__(self, key, value)
        # checked once, so frozen: a parent changed afterwards would make a cycle (a hang in
        # the simulator) or an index out of range; build a new Topology instead
        for arr in (self.parent, self.compute, self.bandwidth, self.weight):
            arr.flags.writeable = False

    def checked(self, func: str) -> Topology:
        """This topology checked again where ``func`` uses it: a field replaced since it was
        built (``object.__setattr__`` goes around the frozen dataclass) is refused naming
        ``func``, the field and the value."""
        return Topology(**_checked_fields(self, func))

    @property
    def n(self) -> int:
        return int(self.parent.size)

    @property
    def root(self) -> int:
        return int(np.flatnonzero(self.parent < 0)[0])

    @property
    def depth(self) -> np.ndarray:
        d = np.zeros(self.n, dtype=int)
        for s in range(self.n):
            t = s
            while self.parent[t] >= 0:
                t = self.parent[t]
                d[s] += 1
        return d

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

    def frame(self):
        return pd.DataFrame(
            {
                "server": np.arange(self.n),
                "parent": self.parent,
                "tier": self.depth,
                "compute": self.compute,
                "bandwidth_up": np.where(self.parent >= 0, self.bandwidth, np.nan),
                "generation_weight": self.weight,
            }
        )


def _checked_fields(t, f: str) -> dict:
    """The fields of ``t`` validated (one centre, a tree, positive speeds and bandwidths,
    weights >= 0 with one positive), as arrays."""
    if not isinstance(t.name, str):
        raise ParameterError(f"The 'name' parameter of {f} must be a str. Got {t.name!r} instead.")
    par = _check_parents(t.parent, f)
    n = par.size
    return {
        "name": str(t.name),
        "parent": par,
        "compute": _per_server(t.compute, "compute", f, n),
        "bandwidth": _per_server(t.bandwidth, "bandwidth", f, n),
        "weight": _weights(t.weight, f, n),
    }


def from_parents(parents, compute, bandwidth=_W, weights=None, *, name: str = "user") -> Topology:
    """A user-given tree.

    Parameters
    ----------
    parents : sequence of int
        ``parents[s]`` = next hop up from server ``s``, ``-1`` for the centre (exactly one);
        every server must reach the centre.
    compute : float or sequence of float
        Server speeds F_s > 0.
    bandwidth : float or sequence of float, default 100
        Bandwidth of each server's link up [Mbit/s] > 0.
    weights : sequence of float, optional
        Generation weights >= 0, at least one positive; default 1 on the leaves.
    """
    func = "from_parents"
    if not isinstance(name, str):
        raise ParameterError(f"The 'name' parameter of {func} must be a str. Got {name!r} instead.")
    par = _check_parents(parents, func)
    n = par.size
    comp = _per_server(compute, "compute", func, n)
    band = _per_server(bandwidth, "bandwidth", func, n)
    if weights is None:
        leaves = np.array([not np.any(par == s) for s in range(n)])
        if n == 1:
            leaves[:] = True
        w = leaves.astype(float)
    else:
        w = _weights(weights, func, n)
    return Topology(name, par, comp, band, w)


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
        raise ParameterError(
            f"The 'weights' parameter of {func} must be {n} non-negative numbers, at least "
            f"one positive. Got {weights!r} instead."
        )
    return w


def _per_server(value, name, func, n) -> np.ndarray:
    """One value for every server, or one per server; the table's range of the speeds and
    the bandwidth: [1e-6, 1e6]."""
    return broadcast(value, name, func, n, low=1e-6, high=1e6)


def symmetric_tree(
    compute_bottom=_F_B, compute_middle=_F_M, compute_top=_F_C, bandwidth=_W, weights=None
) -> Topology:
    """The paper's tree (Fig. 3): centre 0; middle 1, 2; bottom 3, 4 under 1 and 5, 6 under 2.

    Only the bottom servers generate tasks (weight 1 each unless ``weights`` for 3-6 given).
    """
    f = "symmetric_tree"
    compute_bottom = PARAMS["compute_bottom"].check(compute_bottom, f)
    compute_middle = PARAMS["compute_middle"].check(compute_middle, f)
    compute_top = PARAMS["compute_top"].check(compute_top, f)
    bandwidth = PARAMS["bandwidth"].check(bandwidth, f)
    w = np.zeros(7)
    w[3:] = 1.0 if weights is None else _weights(weights, f, 4)
    compute = [compute_top, compute_middle, compute_middle] + [compute_bottom] * 4
    topo = from_parents([-1, 0, 0, 1, 1, 2, 2], compute, bandwidth, w, name="tree")
    return topo


def skewed_tree(
    compute_bottom=_F_B, compute_middle=_F_M, compute_top=_F_C, bandwidth=_W
) -> Topology:
    """The paper's tree with bottom servers 3-6 generating in the ratio 1:2:3:4."""
    topo = symmetric_tree(compute_bottom, compute_middle, compute_top, bandwidth, SKEW_WEIGHTS)
    return Topology("skewed", topo.parent, topo.compute, topo.bandwidth, topo.weight)


def _ba_hierarchy(seed: int):
    """Parents (BFS order, 0 = centre) of the BFS tree of ``barabasi_albert_graph(7, 2, seed)``."""
    graph = nx.barabasi_albert_graph(7, BA_EDGES_PER_NODE, seed=seed)
    degree = dict(graph.degree())
    centre = min(graph.nodes, key=lambda v: (-degree[v], v))
    order = [centre]
    parent_of = {centre: -1}
    for v in order:
        for u in sorted(graph.neighbors(v)):
            if u not in parent_of:
                parent_of[u] = v
                order.append(u)
    new_id = {v: i for i, v in enumerate(order)}
    return [-1 if parent_of[v] < 0 else new_id[parent_of[v]] for v in order]


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


def barabasi_albert(
    index: int, compute_bottom=_F_B, compute_middle=_F_M, compute_top=_F_C, bandwidth=_W
) -> Topology:
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
    """
    index = check_int(index, "index", "barabasi_albert", 1, 5)
    f = "barabasi_albert"
    compute_bottom = PARAMS["compute_bottom"].check(compute_bottom, f)
    compute_middle = PARAMS["compute_middle"].check(compute_middle, f)
    compute_top = PARAMS["compute_top"].check(compute_top, f)
    bandwidth = PARAMS["bandwidth"].check(bandwidth, f)
    parents = _ba_hierarchy(ba_seeds()[index - 1])
    depth = np.zeros(7, dtype=int)
    for i in range(1, 7):
        depth[i] = depth[parents[i]] + 1
    speeds = np.where(depth == 0, compute_top, np.where(depth == 1, compute_middle, compute_bottom))
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
    return from_parents(parents, speeds, bandwidth, weights, name=f"ba-{index}")


def named_topology(name: str, **speeds) -> Topology:
    """``"tree"``, ``"skewed"`` or ``"ba-1"``..``"ba-5"`` with the given speeds/bandwidth."""
    if name == "tree":
        return symmetric_tree(**speeds)
    if name == "skewed":
        return skewed_tree(**speeds)
    return barabasi_albert(int(name.split("-")[1]), **speeds)
