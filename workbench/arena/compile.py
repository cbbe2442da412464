"""A :class:`~workbench.arena.scenario.Scenario` compiled into the engine's flat arrays, and
the random inputs of one replication drawn from its workload."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path
from scipy.special import ndtri

from workbench.arena.kernels import BIG, Net, Tasks
from workbench.arena.scenario import ROLE_LEVEL, Scenario
from workbench.validation import ParameterError

__all__ = ["compile_scenario", "draw_tasks", "sample_sizes", "stream"]

_TIE = 1e-9  # added to each link's weight: among equal-delay paths, the fewest hops


@njit(cache=True)
def _along_paths(pred, w_delay, w_invbw, w_epb):
    """Sum each link quantity along the least-delay paths given by ``pred``: each target
    after its predecessor (the path's tree walked up to a known node, then summed down)."""
    n = pred.shape[0]
    delay = np.full((n, n), np.inf)
    invbw = np.full((n, n), np.inf)
    epb = np.full((n, n), np.inf)
    hops = np.full((n, n), -1, np.int64)
    known = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    for s in range(n):
        known[:] = False
        known[s] = True
        delay[s, s], invbw[s, s], epb[s, s], hops[s, s] = 0.0, 0.0, 0.0, 0
        for t0 in range(n):
            top = 0
            t = t0
            while not known[t]:
                known[t] = True  # unreachable targets (pred -1) stay at inf
                stack[top] = t
                top += 1
                t = pred[s, t]
                if t < 0:
                    top = 0
                    break
            while top > 0:
                top -= 1
                t = stack[top]
                p = pred[s, t]
                delay[s, t] = delay[s, p] + w_delay[p, t]
                invbw[s, t] = invbw[s, p] + w_invbw[p, t]
                epb[s, t] = epb[s, p] + w_epb[p, t]
                hops[s, t] = hops[s, p] + 1
    return delay, invbw, epb, hops


def compile_scenario(sc: Scenario) -> Net:
    """The scenario as a :class:`~workbench.arena.kernels.Net` (paths: least delay)."""
    n = len(sc.nodes)
    idx = {node.id: i for i, node in enumerate(sc.nodes)}
    w_delay, w_invbw, w_epb = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    rows, cols, weights = [], [], []
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for link in sc.links:
        a, b = idx[link.a], idx[link.b]
        for x, y in ((a, b), (b, a)):
            rows.append(x)
            cols.append(y)
            weights.append(link.delay + _TIE)
            w_delay[x, y] = link.delay
            w_invbw[x, y] = 1.0 / link.bandwidth
            w_epb[x, y] = link.energy_per_bit
            nbrs[x].append(y)
    graph = csr_matrix((weights, (rows, cols)), shape=(n, n))
    _, pred = shortest_path(graph, method="D", directed=True, return_predecessors=True)
    pred = np.where(pred < 0, -1, pred).astype(np.int64)
    delay, invbw, epb, hops = _along_paths(pred, w_delay, w_invbw, w_epb)
    servers = np.array([BIG if s == math.inf else int(s) for s in (x.servers for x in sc.nodes)])
    capacity = np.array([BIG if x.capacity is None else x.capacity for x in sc.nodes])
    level = np.array([ROLE_LEVEL[x.role] for x in sc.nodes], dtype=np.int64)
    clouds = [i for i, x in enumerate(sc.nodes) if x.role == "cloud"]
    cloud = clouds[0] if clouds else -1
    ptr, flat = [0], []
    for k in range(n):
        flat += sorted(set(nbrs[k]), key=lambda b, k=k: (w_delay[k, b], b))
        ptr.append(len(flat))
    home, parent = np.arange(n), np.full(n, -1)
    for k in range(n):
        serving = [b for b in flat[ptr[k] : ptr[k + 1]] if servers[b] > 0]
        if servers[k] == 0 and serving:
            home[k] = min(serving, key=lambda b, k=k: (b == cloud, delay[k, b], b))
        up = [b for b in flat[ptr[k] : ptr[k + 1]] if level[b] > level[k] and servers[b] > 0]
        if up:
            parent[k] = min(up, key=lambda b, k=k: (delay[k, b], b))
    return Net(
        servers=servers.astype(np.int64),
        capacity=np.maximum(capacity, 0).astype(np.int64),
        speed=np.array([x.speed for x in sc.nodes], dtype=float),
        power_idle=np.array([x.power_idle for x in sc.nodes], dtype=float),
        power_busy=np.array([x.power_busy for x in sc.nodes], dtype=float),
        level=level,
        nbr_ptr=np.array(ptr, dtype=np.int64),
        nbr_idx=np.array(flat, dtype=np.int64),
        delay=delay,
        invbw=invbw,
        epb=epb,
        hops=hops,
        home=home.astype(np.int64),
        parent=parent.astype(np.int64),
        cloud=int(cloud),
        mean_size=np.array([w.size.moments[0] for w in sc.workload], dtype=float),
    )


def sample_sizes(size, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` draws of a scenario's size distribution, each the inverse transform of
    one uniform (a hyperexponential's phase and its exponential from the same uniform)."""
    u = rng.random(count)
    d = size.dist
    if d == "exponential":
        return -size.mean * np.log1p(-u)
    if d == "deterministic":
        return np.full(count, float(size.value))
    if d == "shifted_exponential":
        return size.shift - np.log1p(-u) / size.rate
    if d == "pareto":
        return size.scale * (1.0 - u) ** (-1.0 / size.alpha)
    if d == "hyperexponential":
        p1, m1, m2 = size.phases
        first = u < p1
        v = np.where(first, u / p1, (u - p1) / (1.0 - p1))  # uniform again, given the phase
        return -np.where(first, m1, m2) * np.log1p(-v)
    if d == "lognormal":
        s2 = math.log1p(size.scv)
        return np.exp(math.log(size.mean) - s2 / 2 + math.sqrt(s2) * ndtri(u))
    return size.scale * (-np.log1p(-u)) ** (1.0 / size.shape)  # weibull


#: the branches of a replication's seed: the workload's streams and the policy's uniforms
WORKLOAD, POLICY = 0, 1
#: the workload's own streams (children of its branch)
ARRIVALS, SOURCES, SIZES, TYPES = 0, 1, 2, 3


def _root(rng) -> np.random.SeedSequence:
    """The replication's seed: a SeedSequence as given, an int's, or drawn once from a
    Generator (four 32-bit words, whatever else the caller draws from it later)."""
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**32, size=4, dtype=np.uint64).tolist())
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    raise ParameterError(
        "The 'rng' parameter of draw_tasks must be a numpy Generator, a SeedSequence or an "
        f"int >= 0. Got {rng!r} instead."
    )


def stream(root: np.random.SeedSequence, *path: int) -> np.random.Generator:
    """The generator at ``path`` below ``root`` (its child ``path[0]``, that one's child
    ``path[1]``, ...), the same whatever else is drawn: :func:`draw_tasks`'s streams."""
    ss = np.random.SeedSequence(
        root.entropy, spawn_key=tuple(root.spawn_key) + tuple(path), pool_size=root.pool_size
    )
    return np.random.default_rng(ss)


def draw_tasks(sc: Scenario, n: int, copies: int, uniforms: int, rng) -> Tasks:
    """The inputs of one replication: ``n`` tasks of the scenario's workload.

    Common random numbers: every draw comes from its own stream below the replication's
    seed ``rng`` (a Generator, a SeedSequence or an int; see :func:`stream`), so two
    policies given the same seed see the same tasks whatever their ``copies`` and
    ``uniforms``: arrival times (stream ``(0, 0)``) and sources (``(0, 1)``), copy ``j``'s
    sizes (``(0, 2, j)``), task types (``(0, 3)``), and the policy's uniform column ``j``
    (``(1, j)``). A policy with more copies or uniforms sees the same first columns plus
    fresh ones.

    Poisson sources are drawn as one superposed Poisson process of the sum of the rates,
    each arrival from source k with probability rate_k / total.
    """
    root = _root(rng)
    rates = np.array([w.rate for w in sc.workload])
    total = rates.sum()
    t = np.cumsum(stream(root, WORKLOAD, ARRIVALS).exponential(1.0 / total, n))
    if len(rates) > 1:
        source = stream(root, WORKLOAD, SOURCES).choice(len(rates), size=n, p=rates / total)
    else:
        source = np.zeros(n, np.int64)
    source = source.astype(np.int64)
    pos = {node.id: k for k, node in enumerate(sc.nodes)}  # not sc.index: O(nodes) each
    node_of = np.array([pos[w.source] for w in sc.workload], dtype=np.int64)
    size = np.empty((n, copies))
    bits = np.empty(n)
    kind = np.full(n, -1, np.int64)  # -1: the source has no task types
    groups: dict = {}  # sources with the same task law are drawn together
    for k, w in enumerate(sc.workload):
        groups.setdefault((w.size, w.input_bits, w.types), []).append(k)
    masks = []
    for members in groups.values():
        if len(members) < len(rates):
            mask = np.isin(source, members)
            masks.append((mask, int(mask.sum())))
        else:  # every source alike (the common case): whole columns, no boolean indexing
            masks.append((slice(None), n))
    for j in range(copies):
        g = stream(root, WORKLOAD, SIZES, j)
        for (law, _, _), (mask, m) in zip(groups, masks, strict=True):
            size[mask, j] = sample_sizes(law, m, g)
    g = stream(root, WORKLOAD, TYPES)
    for (_, input_bits, types), (mask, m) in zip(groups, masks, strict=True):
        bits[mask] = input_bits
        if types is not None:
            p = np.arange(1, types.count + 1, dtype=float) ** -types.zipf
            kind[mask] = g.choice(types.count, size=m, p=p / p.sum())
    u = np.empty((n, uniforms))
    for j in range(uniforms):
        u[:, j] = stream(root, POLICY, j).random(n)
    return Tasks(t=t, node=node_of[source], source=source, size=size, bits=bits, kind=kind, u=u)
