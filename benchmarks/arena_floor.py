"""The floor under the arena's speed ratio: the SimPy benchmark's ring, simulated by the
smallest numba loop that does its job, with nothing the engine's generality needs.

``bench_arena_simpy.py`` sets the engine against a SimPy twin of a 50-node ring (random
placement over a node and its two neighbours, 1 ms links, 4 servers and 16 places a node).
This script writes that one scenario as a hand-specialised simulator: arrivals read in order,
moves over the equal-delay links in a FIFO ring, departures in a binary heap on ``(time,
seq)``, a FIFO waiting line per node; no policy dispatch, no copies, no cancellation, no
forwarding, no energy or busy-time integration, no hop or transmission accounting. It is
checked request by request against the engine (same node, same finish time for every task,
bit for bit), then timed against the engine and against the SimPy twin on the same tasks.

Whatever the engine does, it does at least this work per task, so the ratio printed for the
floor bounds what any engine written this way (numba, one event loop) can reach here.

Usage: ``python benchmarks/arena_floor.py [n_tasks] [repeats] [n_big]`` (default 100,000
and 7). CPU time per task over ``repeats`` rounds, each round one call of every variant
(the SimPy twin included, same tasks), after one call each that loads the compiled code;
with ``n_big``, also the page faults of one engine call on that many tasks.
"""

from __future__ import annotations

import os
import resource
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)
sys.path.insert(0, os.path.join(_ROOT, "benchmarks"))

import numpy as np  # noqa: E402
from bench_arena_simpy import ring, run_engine, simpy_twin  # noqa: E402
from numba import njit  # noqa: E402

from workbench.arena.compile import compile_scenario, draw_tasks  # noqa: E402
from workbench.kernels.events import (  # noqa: E402
    lane_pop,
    lane_push,
    lane_takes,
    new_lane,
    new_queue,
    queue_before,
    queue_pop,
    queue_push,
)


@njit(cache=True, inline="always")
def _before(t1, s1, t2, s2):
    return t1 < t2 or (t1 == t2 and s1 < s2)


@njit(cache=True, inline="always")
def _heap_push(ht, hs, ha, hn, t, s, a):
    pos = hn
    while pos > 0:
        up = (pos - 1) >> 1
        if _before(t, s, ht[up], hs[up]):
            ht[pos], hs[pos], ha[pos] = ht[up], hs[up], ha[up]
            pos = up
        else:
            break
    ht[pos], hs[pos], ha[pos] = t, s, a
    return hn + 1


@njit(cache=True, inline="always")
def _heap_pop(ht, hs, ha, hn):
    hn -= 1
    if hn == 0:
        return hn
    xt, xs, xa = ht[hn], hs[hn], ha[hn]
    pos = 0
    while True:
        ch = 2 * pos + 1
        if ch >= hn:
            break
        if ch + 1 < hn and _before(ht[ch + 1], hs[ch + 1], ht[ch], hs[ch]):
            ch += 1
        if _before(ht[ch], hs[ch], xt, xs):
            ht[pos], hs[pos], ha[pos] = ht[ch], hs[ch], ha[ch]
            pos = ch
        else:
            break
    ht[pos], hs[pos], ha[pos] = xt, xs, xa
    return hn


@njit(cache=True)
def floor_ring(t, node, size, u, servers, capacity, speed, nbr_ptr, nbr_idx, delay):
    """Finish time and serving node of every task (NaN, -1: lost), as the engine numbers
    and orders its events: ties in time leave in scheduling order."""
    n, n_nodes = t.shape[0], servers.shape[0]
    finish = np.full(n, np.nan)
    where = np.full(n, -1, np.int64)
    hcap = servers.sum() + 1  # departures pending: at most one per server
    ht, hs, ha = np.empty(hcap), np.empty(hcap, np.int64), np.empty(hcap, np.int64)
    lmask = 4095  # moves in transit (a ring; this scenario never has more than a few)
    lt, ls = np.empty(lmask + 1), np.empty(lmask + 1, np.int64)
    la, lb = np.empty(lmask + 1, np.int64), np.empty(lmask + 1, np.int64)
    n_in, busy = np.zeros(n_nodes, np.int64), np.zeros(n_nodes, np.int64)
    qhead, qtail = np.full(n_nodes, -1, np.int64), np.full(n_nodes, -1, np.int64)
    qnext = np.empty(n, np.int64)
    cand = np.empty(nbr_idx.shape[0] + 1, np.int64)
    hn, lh, lc, seq, nxt, nxt_seq = 0, 0, 0, 1, 0, 0
    while True:
        src, et, es = 0, 0.0, 0
        if hn > 0:
            src, et, es = 1, ht[0], hs[0]
        if lc > 0 and (src == 0 or _before(lt[lh & lmask], ls[lh & lmask], et, es)):
            src, et, es = 2, lt[lh & lmask], ls[lh & lmask]
        if nxt < n and (src == 0 or _before(t[nxt], nxt_seq, et, es)):
            i, now = nxt, t[nxt]
            nxt, nxt_seq, seq = nxt + 1, seq, seq + 1
            k = node[i]
            c = 1
            cand[0] = k
            for p in range(nbr_ptr[k], nbr_ptr[k + 1]):
                cand[c] = nbr_idx[p]
                c += 1
            b = cand[min(int(u[i, 0] * c), c - 1)]
            if delay[k, b] > 0.0:
                pos = (lh + lc) & lmask
                lt[pos], ls[pos], la[pos], lb[pos] = now + delay[k, b], seq, i, b
                lc, seq = lc + 1, seq + 1
                continue
        elif src == 0:
            break
        elif src == 2:
            now, i, b = et, la[lh & lmask], lb[lh & lmask]
            lh, lc = lh + 1, lc - 1
        else:  # a departure: the node's next waiting task takes the server
            now, i = et, ha[0]
            hn = _heap_pop(ht, hs, ha, hn)
            b = where[i]
            finish[i] = now
            n_in[b] -= 1
            j = qhead[b]
            if j < 0:
                busy[b] -= 1
                continue
            qhead[b] = qnext[j]
            if qnext[j] < 0:
                qtail[b] = -1
            hn = _heap_push(ht, hs, ha, hn, now + size[j, 0] / speed[b], seq, j)
            seq += 1
            continue
        if n_in[b] >= capacity[b]:  # a task reaching node b: lost, served or waiting
            continue
        n_in[b] += 1
        where[i] = b
        if busy[b] < servers[b]:
            busy[b] += 1
            hn = _heap_push(ht, hs, ha, hn, now + size[i, 0] / speed[b], seq, i)
            seq += 1
        else:
            qnext[i] = -1
            if qtail[b] < 0:
                qhead[b] = i
            else:
                qnext[qtail[b]] = i
            qtail[b] = i
    return finish, where


@njit(cache=True)
def floor_ring_calendar(t, node, size, u, servers, capacity, speed, nbr_ptr, nbr_idx, delay):
    """:func:`floor_ring` on the engine's own event queue (``workbench.kernels.events``: the
    calendar queue for departures, a lane ring for moves), its loop compiled without
    reference counting as the engine's is."""
    n, n_nodes = t.shape[0], servers.shape[0]
    finish = np.full(n, np.nan)
    where = np.full(n, -1, np.int64)
    q = new_queue(servers.sum() + 1)  # departures pending: at most one per server
    lane = new_lane(4096)  # moves in transit (a full lane sends a move to the queue)
    la = np.empty(lane.time.shape[0], np.int64)  # the move's target node, by lane place
    n_in, busy = np.zeros(n_nodes, np.int64), np.zeros(n_nodes, np.int64)
    qhead, qtail = np.full(n_nodes, -1, np.int64), np.full(n_nodes, -1, np.int64)
    qnext = np.empty(n, np.int64)
    cand = np.empty(nbr_idx.shape[0] + 1, np.int64)
    _calendar_loop(
        t,
        node,
        size,
        u,
        servers,
        capacity,
        speed,
        nbr_ptr,
        nbr_idx,
        delay,
        finish,
        where,
        q,
        lane,
        la,
        n_in,
        busy,
        qhead,
        qtail,
        qnext,
        cand,
    )
    return finish, where


@njit(cache=True, _nrt=False)
def _calendar_loop(
    t,
    node,
    size,
    u,
    servers,
    capacity,
    speed,
    nbr_ptr,
    nbr_idx,
    delay,
    finish,
    where,
    q,
    lane,
    la,
    n_in,
    busy,
    qhead,
    qtail,
    qnext,
    cand,
):
    n = t.shape[0]
    hn, lh, lc, seq, nxt, nxt_seq = 0, 0, 0, 1, 0, 0
    while True:
        src, et, es = 0, 0.0, 0
        if hn > 0:
            src, et, es = 1, q.time[0], q.seq[0]
        if lc > 0 and (src == 0 or queue_before(lane.time[lh], lane.seq[lh], et, es)):
            src, et, es = 2, lane.time[lh], lane.seq[lh]
        if nxt < n and (src == 0 or queue_before(t[nxt], nxt_seq, et, es)):
            i, now = nxt, t[nxt]
            nxt, nxt_seq, seq = nxt + 1, seq, seq + 1
            k = node[i]
            c = 1
            cand[0] = k
            for p in range(nbr_ptr[k], nbr_ptr[k + 1]):
                cand[c] = nbr_idx[p]
                c += 1
            b = cand[min(int(u[i, 0] * c), c - 1)]
            if delay[k, b] > 0.0:
                if lane_takes(lane, lh, lc, now + delay[k, b]):
                    pos = (lh + lc) & (lane.time.shape[0] - 1)
                    la[pos] = b
                    lc = lane_push(lane, lh, lc, now + delay[k, b], seq, 0, i, 0.0)
                else:  # the move waits in the queue (kind 1), its target as the value
                    hn = queue_push(q, hn, now + delay[k, b], seq, 1, i, float(b))
                seq += 1
                continue
        elif src == 0:
            break
        elif src == 2:
            now, i, b = et, lane.arg[lh], la[lh]
            lh = lane_pop(lane, lh)
            lc -= 1
        elif q.kind[0] == 1:  # a move that did not fit in the lane
            now, i, b = et, q.arg[0], int(q.value[0])
            hn = queue_pop(q, hn)
        else:  # a departure: the node's next waiting task takes the server
            now, i = et, q.arg[0]
            hn = queue_pop(q, hn)
            b = where[i]
            finish[i] = now
            n_in[b] -= 1
            j = qhead[b]
            if j < 0:
                busy[b] -= 1
                continue
            qhead[b] = qnext[j]
            if qnext[j] < 0:
                qtail[b] = -1
            hn = queue_push(q, hn, now + size[j, 0] / speed[b], seq, 0, j, 0.0)
            seq += 1
            continue
        if n_in[b] >= capacity[b]:  # a task reaching node b: lost, served or waiting
            continue
        n_in[b] += 1
        where[i] = b
        if busy[b] < servers[b]:
            busy[b] += 1
            hn = queue_push(q, hn, now + size[i, 0] / speed[b], seq, 0, i, 0.0)
            seq += 1
        else:
            qnext[i] = -1
            if qtail[b] < 0:
                qhead[b] = i
            else:
                qnext[qtail[b]] = i
            qtail[b] = i


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def interleaved_cpu_ns(fs, n, repeats):
    """CPU ns per task of each function, ``repeats`` rounds, one call of each per round
    (after one call each that loads the compiled code): (best, median) per function."""
    for f in fs:
        f()
    ts = np.empty((repeats, len(fs)))
    for r in range(repeats):
        for j, f in enumerate(fs):
            c0 = _cpu()
            f()
            ts[r, j] = (_cpu() - c0) / n * 1e9
    return ts.min(axis=0), np.median(ts, axis=0)


def page_faults(f):
    """Minor page faults of one call (``ru_minflt`` around it)."""
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    f()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    sc = ring(50)
    net = compile_scenario(sc)
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(1))
    args = (
        tk.t,
        tk.node,
        tk.size,
        tk.u,
        net.servers,
        net.capacity,
        net.speed,
        net.nbr_ptr,
        net.nbr_idx,
        net.delay,
    )
    out = run_engine(net, tk)
    same = True
    for floor in (floor_ring, floor_ring_calendar):
        finish, where = floor(*args)
        same &= np.array_equal(where, out[1]) and np.array_equal(finish, out[0], equal_nan=True)
    names = ("floor, binary heap", "floor, calendar queue", "engine (arena)", "SimPy twin")
    fs = [lambda: floor_ring(*args), lambda: floor_ring_calendar(*args)]
    fs += [lambda: run_engine(net, tk), lambda: simpy_twin(net, tk)]
    best, med = interleaved_cpu_ns(fs, n, repeats)
    print(f"50-node ring, {n:,} tasks, CPU ns per task, {repeats} interleaved rounds:")
    print("  variant                  best / median     SimPy / it (best / median)")
    for name, b, m in zip(names[:3], best[:3], med[:3], strict=True):
        print(f"  {name:22} {b:7.1f} / {m:7.1f}   {best[3] / b:6.0f}x / {med[3] / m:4.0f}x")
    print(f"  {names[3]:22} {best[3]:7.0f} / {med[3]:7.0f}")
    print(
        f"  engine / calendar floor: {best[2] / best[1]:.2f} (best), {med[2] / med[1]:.2f} (median)"
    )
    print(f"  both floors identical to the engine, task by task: {same}")
    if len(sys.argv) > 3:  # page faults of one engine call on a larger run
        n_big = int(sys.argv[3])
        tk_big = draw_tasks(sc, n_big, 1, 2, np.random.default_rng(2))
        run_engine(net, tk_big)
        faults = [page_faults(lambda: run_engine(net, tk_big)) for _ in range(3)]
        print(f"  engine, {n_big:,} tasks: {min(faults):,} to {max(faults):,} page faults a call")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
