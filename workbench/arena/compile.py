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
from workbench.arena.scenario import ROLE_LEVEL, Scenario, ScenarioError, Source, check_clock
from workbench.validation import check_budget, check_runs, refusal

__all__ = ["compile_scenario", "draw_tasks", "sample_sizes", "stream"]

_TIE = 1e-9  # added to each link's weight: among equal-delay paths, the fewest hops


@njit(cache=True)
def _along_paths(pred, w):
    """Sum each link quantity ``w[q]`` (delay, inverse bandwidth, energy per bit) along the
    least-delay paths given by ``pred``: each target after its predecessor (the path's tree
    walked up to a known node, then summed down)."""
    n = pred.shape[0]
    paths = np.full((w.shape[0], n, n), np.inf)
    hops = np.full((n, n), -1, np.int64)
    known = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    for s in range(n):
        known[:] = False
        known[s] = True
        paths[:, s, s] = 0.0
        hops[s, s] = 0
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
                for q in range(w.shape[0]):
                    paths[q, s, t] = paths[q, s, p] + w[q, p, t]
                hops[s, t] = hops[s, p] + 1
    return paths, hops


#: bytes per node pair of compile_scenario: the shortest-path solver's distances and
#: predecessors, the three link-weight tables and the four path tables (9 arrays of 8 bytes)
PAIR_BYTES = 72


def compile_scenario(sc: Scenario) -> Net:
    """The scenario as the engine's arrays.

    Refused before anything is allocated when its node-pair tables
    (:data:`PAIR_BYTES` per pair) exceed :data:`workbench.validation.MEMORY_BUDGET`.

    Parameters
    ----------
    sc : Scenario
        A validated scenario.

    Returns
    -------
    Net
        Its nodes, neighbours by link delay, least-delay paths between every pair (delay,
        transmission, energy per bit, links), each node's home and parent, the cloud.
    """
    n = len(sc.nodes)
    tables = float(n) * n * PAIR_BYTES
    check_budget("compile_scenario", "nodes", f"{n:,} nodes", tables, "all-pairs path tables")
    idx = {node.id: i for i, node in enumerate(sc.nodes)}
    w = np.zeros((3, n, n))  # per link: its delay, inverse bandwidth, energy per bit
    rows, cols, weights = [], [], []
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for link in sc.links:
        a, b = idx[link.a], idx[link.b]
        for x, y in ((a, b), (b, a)):
            rows.append(x)
            cols.append(y)
            weights.append(link.delay + _TIE)
            w[:, x, y] = link.delay, 1.0 / link.bandwidth, link.energy_per_bit
            nbrs[x].append(y)
    graph = csr_matrix((weights, (rows, cols)), shape=(n, n))
    _, pred = shortest_path(graph, method="D", directed=True, return_predecessors=True)
    pred = np.where(pred < 0, -1, pred).astype(np.int64)
    (delay, invbw, epb), hops = _along_paths(pred, w)
    servers = np.array([BIG if s == math.inf else int(s) for s in (x.servers for x in sc.nodes)])
    capacity = np.array([BIG if x.capacity is None else x.capacity for x in sc.nodes])
    level = np.array([ROLE_LEVEL[x.role] for x in sc.nodes], dtype=np.int64)
    clouds = [i for i, x in enumerate(sc.nodes) if x.role == "cloud"]
    cloud = clouds[0] if clouds else -1
    ptr, flat = [0], []
    for k in range(n):
        flat += sorted(set(nbrs[k]), key=lambda b, k=k: (w[0, k, b], b))
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
        mean_size=np.array([w.mean_size for w in sc.workload], dtype=float),
    )


def sample_sizes(size, count: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of a scenario's size distribution, each the inverse transform of one uniform.

    Parameters
    ----------
    size : workload law
        A source's ``size`` (:mod:`workbench.arena.workload`).
    count : int
        The draws.
    rng : numpy.random.Generator
        The stream the uniforms come from.

    Returns
    -------
    numpy.ndarray of float
        ``count`` sizes (s of work at speed 1); a hyperexponential's phase and its
        exponential come from the same uniform.
    """
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
    raise refusal("draw_tasks", "rng", "a numpy Generator, a SeedSequence or an int >= 0", rng)


def stream(seed_sequence: np.random.SeedSequence, *path: int) -> np.random.Generator:
    """The generator at a path of children below a seed: :func:`draw_tasks`'s streams.

    Parameters
    ----------
    seed_sequence : numpy.random.SeedSequence
        The root (a replication's seed).
    *path : int
        Child ``path[0]`` of the root, that one's child ``path[1]``, ...

    Returns
    -------
    numpy.random.Generator
        The same stream whatever else is drawn from the root or its other children.
    """
    ss = np.random.SeedSequence(
        seed_sequence.entropy,
        spawn_key=tuple(seed_sequence.spawn_key) + tuple(path),
        pool_size=seed_sequence.pool_size,
    )
    return np.random.default_rng(ss)


#: bytes per task of one replication: its inputs (arrival, node, source, bits, type,
#: deadline) and the engine's per-task state (its loss time too), plus per copy (a size,
#: the copy's state and its places in the event heap and lane) and per policy uniform
TASK_BYTES, COPY_BYTES, UNIFORM_BYTES = 184, 136, 8


#: work steps (see workbench.validation.WORK_BUDGET) per task and copy: the engine's time
#: per task (benchmarks/arena_ns_per_task.py prints it) plus the draws
STEPS_PER_COPY = 35


def check_run(
    sc: Scenario, n: int, copies: int, uniforms: int, func: str = "simulate", replications=None
) -> None:
    """Refuse a run before anything is allocated: one replication of ``n`` tasks over the
    memory budget (:data:`TASK_BYTES` per task and so on) or, given
    ``replications``, the whole run over the work budget (:data:`STEPS_PER_COPY`)."""
    what = f"one replication of {n:,} tasks x {copies} copies and {uniforms} uniforms"
    size = float(n) * (TASK_BYTES + COPY_BYTES * copies + UNIFORM_BYTES * uniforms)
    check_budget(func, "requests", n, size, what)
    if replications is not None:
        check_runs(func, int(replications), n, STEPS_PER_COPY * copies, "tasks")


def _poisson(rng, rate: float, horizon: float) -> np.ndarray:
    """A Poisson process's arrival times in [0, horizon)."""
    count = rng.poisson(rate * horizon)
    return np.sort(rng.random(count) * horizon)


def _mmpp2(rng, rate: float, proc, horizon: float) -> np.ndarray:
    """An MMPP-2's arrival times in [0, horizon): the phase path first (exponential
    sojourns, the first phase drawn from the stationary law), then in each sojourn a
    Poisson count at that phase's rate, placed uniformly."""
    (hi, lo), (m_hi, m_lo) = proc.rates(rate), proc.sojourns
    high = rng.random() < proc.high_share
    starts, ends, rates = [], [], []
    now = 0.0
    while now < horizon:
        chunk = 2 * (int(horizon / proc.cycle) + 8)  # even: the next chunk starts alike
        first = np.arange(chunk) % 2 == (0 if high else 1)  # True: a high sojourn
        length = rng.exponential(1.0, chunk) * np.where(first, m_hi, m_lo)
        edge = now + np.cumsum(length)
        starts.append(edge - length)
        ends.append(np.minimum(edge, horizon))
        rates.append(np.where(first, hi, lo))
        now = float(edge[-1])
    start, end, r = (np.concatenate(x) for x in (starts, ends, rates))
    keep = start < horizon
    start, end, r = start[keep], end[keep], r[keep]
    count = rng.poisson(r * (end - start))
    at = np.repeat(start, count) + rng.random(int(count.sum())) * np.repeat(end - start, count)
    return np.sort(at)


def _batches(rng, rate: float, proc, horizon: float) -> np.ndarray:
    """Batch arrivals in [0, horizon): Poisson epochs of rate ``rate / mean_batch``, each
    with a geometric (on 1, 2, ...) or fixed number of tasks."""
    epochs = _poisson(rng, rate / proc.mean_batch, horizon)
    if proc.batch_law == "deterministic":
        size = np.full(len(epochs), int(proc.mean_batch))
    else:
        size = rng.geometric(1.0 / proc.mean_batch, len(epochs))
    return np.repeat(epochs, size)


def _trace_times(w, k: int, n: int, horizon: float | None, root):
    """A trace's rows replayed: (row index, time) up to ``horizon`` (None: its first ``n``
    rows). A looped trace starts at a random row (stream ``(0, 0, k)``: the same for every
    policy, another in each replication) and repeats with its period."""
    tb = w.table
    rows, period = len(tb.time), tb.period
    start = int(stream(root, WORKLOAD, ARRIVALS, k).integers(rows)) if w.loop else 0
    if horizon is None:
        if n > rows and not w.loop:
            raise ScenarioError(
                f"workload[{k}].trace: a run of {n:,} tasks needs {n:,} rows; the file "
                f"{w.trace!r} has {rows:,} (set loop: true to replay it, or ask for fewer "
                "requests)"
            )
        idx = np.arange(start, start + n)
    else:
        cycles = int(horizon * w.speedup // period) + 2 if w.loop else 1
        idx = np.arange(start, start + rows * cycles) if w.loop else np.arange(rows)
    shift = tb.time[start] if w.loop else 0.0  # a looped replay starts at time 0
    t = (tb.time[idx % rows] + period * (idx // rows) - shift) / w.speedup
    return idx % rows, t


def _arrivals(sc: Scenario, n: int, root):
    """The first ``n`` arrivals of the workload: (time, entry, trace row or -1)."""
    entries = sc.workload
    plain = all(isinstance(w, Source) and w.arrivals.process == "poisson" for w in entries)
    if plain:  # one superposed Poisson process, each arrival's source drawn by its rate
        rates = np.array([w.rate for w in entries])
        total = rates.sum()
        t = np.cumsum(stream(root, WORKLOAD, ARRIVALS).exponential(1.0 / total, n))
        if len(rates) > 1:
            g = stream(root, WORKLOAD, SOURCES)
            entry = g.choice(len(rates), size=n, p=rates / total).astype(np.int64)
        else:
            entry = np.zeros(n, np.int64)
        return t, entry, np.full(n, -1, np.int64)
    if len(entries) == 1 and not isinstance(entries[0], Source):
        row, t = _trace_times(entries[0], 0, n, None, root)
        return t, np.zeros(n, np.int64), row
    # each entry over a common horizon, long enough for n arrivals, then merged
    total = sc.total_rate
    horizon = n / total * 1.1 + 10.0 / total
    for _ in range(60):
        ts, es, rs = [], [], []
        for k, w in enumerate(entries):
            if isinstance(w, Source):
                g = stream(root, WORKLOAD, ARRIVALS, k)
                proc = w.arrivals
                if proc.process == "poisson":
                    tk = _poisson(g, w.rate, horizon)
                elif proc.process == "mmpp2":
                    tk = _mmpp2(g, w.rate, proc, horizon)
                else:
                    tk = _batches(g, w.rate, proc, horizon)
                rk = np.full(len(tk), -1, np.int64)
            else:
                rk, tk = _trace_times(w, k, n, horizon, root)
                keep = tk < horizon
                rk, tk = rk[keep], tk[keep]
            ts.append(tk)
            es.append(np.full(len(tk), k, np.int64))
            rs.append(rk)
        t = np.concatenate(ts)
        if len(t) >= n:
            order = np.argsort(t, kind="stable")[:n]
            t, entry, row = t[order], np.concatenate(es)[order], np.concatenate(rs)[order]
            for k, w in enumerate(entries):
                if not isinstance(w, Source) and not w.loop:
                    end = w.table.time[-1] / w.speedup
                    if t[-1] > end:
                        raise ScenarioError(
                            f"workload[{k}].trace: a run of {n:,} tasks lasts until "
                            f"{t[-1]:.4g} s, past the end of {w.trace!r} at {end:.4g} s (set "
                            "loop: true to replay it, or ask for fewer requests)"
                        )
            return t, entry, row
        horizon *= 1.5
    raise ScenarioError(f"draw_tasks: the workload gave fewer than {n:,} arrivals")


def draw_tasks(sc: Scenario, n: int, copies: int, uniforms: int, rng) -> Tasks:
    """The inputs of one replication: the first ``n`` tasks of the scenario's workload.

    Common random numbers: every draw comes from its own stream below the replication's
    seed ``rng`` (a Generator, a SeedSequence or an int; see :func:`stream`), so two
    policies given the same seed see the same tasks whatever their ``copies`` and
    ``uniforms``: arrival times (stream ``(0, 0)``, or ``(0, 0, k)`` for entry k when the
    workload is not all Poisson) and sources (``(0, 1)``), copy ``j``'s sizes
    (``(0, 2, j)``), task types (``(0, 3)``), and the policy's uniform column ``j``
    (``(1, j)``). A policy with more copies or uniforms sees the same first columns plus
    fresh ones. A trace's rows are the same in every replication (a looped trace starts at
    a random row, the same for every policy).

    An all-Poisson workload is one superposed Poisson process of the sum of the rates, each
    arrival from source k with probability rate_k / total; otherwise each entry runs its
    own process (MMPP-2, batches, a trace) and the first ``n`` arrivals of the merged
    stream are kept (ties: in the order of the entries).

    Refused before allocating when one replication would exceed the memory budget
    (:func:`check_run`), or when its clock could not resolve the scenario's shortest time
    (:func:`workbench.arena.scenario.check_clock`).

    Parameters
    ----------
    sc : Scenario
        The scenario.
    n : int
        Tasks to draw.
    copies : int
        Size columns per task (the most copies the policy makes).
    uniforms : int
        Uniform columns per task for the policy.
    rng : numpy.random.Generator, numpy.random.SeedSequence or int
        The replication's seed.

    Returns
    -------
    Tasks
        The tasks in arrival order.
    """
    check_run(sc, n, copies, uniforms)
    root = _root(rng)
    t, source, row = _arrivals(sc, n, root)
    check_clock(sc, float(t[-1]) if n else 0.0, "simulate")
    pos = {node.id: k for k, node in enumerate(sc.nodes)}  # not sc.index: O(nodes) each
    node_of = [pos[w.source] if isinstance(w, Source) else -1 for w in sc.workload]
    node = np.array(node_of, dtype=np.int64)[source]
    size = np.empty((n, copies))
    bits = np.empty(n)
    kind = np.full(n, -1, np.int64)  # -1: the source has no task types
    deadline = np.full(n, np.inf)
    groups: dict = {}  # random sources with the same task law are drawn together
    for k, w in enumerate(sc.workload):
        if isinstance(w, Source):
            groups.setdefault((w.size, w.input_bits, w.types, w.deadline), []).append(k)
            continue
        mask = source == k
        tb, r = w.table, row[mask]
        node[mask] = np.array([pos[x] for x in tb.nodes], dtype=np.int64)[tb.source[r]]
        size[mask] = tb.size[r][:, None]  # every copy of a traced task has its size
        bits[mask] = w.input_bits
        kind[mask] = tb.kind[r]
        deadline[mask] = tb.deadline[r]
    masks = []
    for members in groups.values():
        if len(members) < len(sc.workload):
            mask = np.isin(source, members)
            masks.append((mask, int(mask.sum())))
        else:  # every source alike (the common case): whole columns, no boolean indexing
            masks.append((slice(None), n))
    for j in range(copies):
        g = stream(root, WORKLOAD, SIZES, j)
        for (law, *_), (mask, m) in zip(groups, masks, strict=True):
            size[mask, j] = sample_sizes(law, m, g)
    g = stream(root, WORKLOAD, TYPES)
    for (_, input_bits, types, due), (mask, m) in zip(groups, masks, strict=True):
        bits[mask] = input_bits
        if due is not None:
            deadline[mask] = due
        if types is not None:
            p = np.arange(1, types.count + 1, dtype=float) ** -types.zipf
            kind[mask] = g.choice(types.count, size=m, p=p / p.sum())
    u = np.empty((n, uniforms))
    for j in range(uniforms):
        u[:, j] = stream(root, POLICY, j).random(n)
    fields = dict(t=t, node=node, source=source, size=size, bits=bits, kind=kind, u=u)
    fields["deadline"] = deadline  # relative, s; inf: none
    return Tasks(**fields)
