"""Slow, obviously-correct twins of the P3 kernels (paper P3, two cooperating data centers).

Everything here follows the model's text directly: dense generators built state by state,
numpy's least-squares solve, and pure-Python simulation loops that consume the same uniforms
as the jitted kernels.
"""

from __future__ import annotations

import numpy as np


def generator_two_centers(lam, servers, mu, p) -> np.ndarray:
    """Dense generator on {0..C1} x {0..C2}, state (l1, l2) at index l1 * (C2 + 1) + l2."""
    (l1r, l2r), (c1, c2), (m1, m2), (p1, p2) = lam, servers, mu, p
    n = (c1 + 1) * (c2 + 1)
    q = np.zeros((n, n))

    def idx(a, b):
        return a * (c2 + 1) + b

    for a in range(c1 + 1):
        for b in range(c2 + 1):
            i = idx(a, b)
            if a < c1:
                q[i, idx(a + 1, b)] += l1r  # own arrival accepted
                if b == c2:
                    q[i, idx(a + 1, b)] += p2 * l2r  # class 2 forwarded from a full center 2
            if b < c2:
                q[i, idx(a, b + 1)] += l2r
                if a == c1:
                    q[i, idx(a, b + 1)] += p1 * l1r
            if a > 0:
                q[i, idx(a - 1, b)] += a * m1
            if b > 0:
                q[i, idx(a, b - 1)] += b * m2
            q[i, i] = -q[i].sum()
    return q


def generator_idle_walk(lam, c, mu, p, box) -> np.ndarray:
    """Dense generator of the idle-server walk (m, n) truncated to {0..M1} x {0..M2}.

    (m,n)->(m+1,n) at mu1 c1 (m < M1); ->(m-1,n) at lam1 + p2 lam2 1{n=0} (m > 0); and
    symmetrically. Index m * (M2 + 1) + n.
    """
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, c, mu, p
    b1, b2 = box
    n_states = (b1 + 1) * (b2 + 1)
    q = np.zeros((n_states, n_states))
    for m in range(b1 + 1):
        for n in range(b2 + 1):
            i = m * (b2 + 1) + n
            if m < b1:
                q[i, i + (b2 + 1)] += c1 * m1
            if m > 0:
                q[i, i - (b2 + 1)] += l1 + (p2 * l2 if n == 0 else 0.0)
            if n < b2:
                q[i, i + 1] += c2 * m2
            if n > 0:
                q[i, i - 1] += l2 + (p1 * l1 if m == 0 else 0.0)
            q[i, i] = -q[i].sum()
    return q


def stationary(q: np.ndarray) -> np.ndarray:
    """pi Q = 0, sum pi = 1 by least squares on the stacked system."""
    n = q.shape[0]
    a = np.vstack([q.T, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(a, b, rcond=None)
    return pi


def blocking_two_centers(lam, servers, mu, p) -> tuple:
    c1, c2 = servers
    pi = stationary(generator_two_centers(lam, servers, mu, p)).reshape(c1 + 1, c2 + 1)
    full1 = pi[c1, :].sum()
    full2 = pi[:, c2].sum()
    both = pi[c1, c2]
    return (1 - p[0]) * full1 + p[0] * both, (1 - p[1]) * full2 + p[1] * both


def erlang_b(servers: int, load: float) -> float:
    """Erlang's B formula from its definition (small servers only)."""
    from math import factorial

    terms = [load**k / factorial(k) for k in range(servers + 1)]
    return terms[-1] / sum(terms)


def simulate_two_centers(
    lam1, lam2, mu1, mu2, p1, p2, cap1, cap2, busy1, busy2, u_event, u_forward, warmup
):
    """Pure-Python twin of ``simulate_two_centers_kernel`` (same draws, same outputs).

    Also returns the class-1 arrivals' fates in order (1 = lost: rejected at once, or
    forwarded to a full center) and how many of them came in the first ``warmup`` events.
    """
    counts = [0] * 12
    lost1 = []
    warm1 = None
    occ = [0.0] * 6
    l1, l2 = busy1, busy2
    for k in range(len(u_event)):
        total = lam1 + lam2 + l1 * mu1 + l2 * mu2
        rec = k >= warmup
        if rec and warm1 is None:
            warm1 = len(lost1)
        if rec:
            h = 1.0 / total
            occ[0] += h
            occ[1] += h * l1
            occ[2] += h * l2
            occ[3] += h * (l1 == cap1)
            occ[4] += h * (l2 == cap2)
            occ[5] += h * (l1 == cap1 and l2 == cap2)
        u = u_event[k] * total
        for cls, lam_c in ((0, lam1), (1, lam2)):
            if u < lam_c:
                own_free = (l1 < cap1) if cls == 0 else (l2 < cap2)
                other_free = (l2 < cap2) if cls == 0 else (l1 < cap1)
                pc = p1 if cls == 0 else p2
                base = 6 * cls
                outcome = None
                if own_free:
                    outcome = 1
                elif u_forward[k] < pc:
                    outcome = 2 if other_free else 4
                else:
                    outcome = 3
                if rec:
                    counts[base] += 1
                    counts[base + outcome] += 1
                if cls == 0:
                    lost1.append(int(outcome in (3, 4)))
                served_at = cls if outcome == 1 else (1 - cls if outcome == 2 else None)
                if served_at == 0:
                    l1 += 1
                elif served_at == 1:
                    l2 += 1
                break
            u -= lam_c
        else:
            if (u < l1 * mu1 and l1 > 0) or l2 == 0:
                l1 -= 1
            else:
                l2 -= 1
    warm1 = len(lost1) if warm1 is None else warm1
    return np.array(counts), np.array(occ), np.array([l1, l2]), np.array(lost1), warm1


def simulate_ring(lam, mu, p, cap, busy, u_event, u_forward, warmup):
    """Pure-Python twin of ``simulate_ring_kernel`` (plus every arrival's fate, 1 = lost,
    and how many arrivals came in the first ``warmup`` events)."""
    n = len(lam)
    lost = []
    warm = None
    counts = np.zeros((n, 5), dtype=np.int64)
    occ = np.zeros((n + 1, 2))
    state = list(busy)
    for k in range(len(u_event)):
        rates = list(lam) + [state[j] * mu[j] for j in range(n)]
        total = sum(rates)
        rec = k >= warmup
        if rec and warm is None:
            warm = len(lost)
        if rec:
            occ[0, 0] += 1.0 / total
            for j in range(n):
                occ[j + 1, 0] += state[j] / total
                occ[j + 1, 1] += (state[j] == cap[j]) / total
        u = u_event[k] * total
        acc = 0.0
        event = len(rates) - 1
        for e, r in enumerate(rates):
            acc += r
            if u < acc:
                event = e
                break
        if event < n:
            j = event
            if rec:
                counts[j, 0] += 1
            served = True
            if state[j] < cap[j]:
                state[j] += 1
                if rec:
                    counts[j, 1] += 1
            elif u_forward[k] < 2 * p[j]:
                target = (j - 1) % n if u_forward[k] < p[j] else (j + 1) % n
                if state[target] < cap[target]:
                    state[target] += 1
                    if rec:
                        counts[j, 2] += 1
                else:
                    served = False
                    if rec:
                        counts[j, 4] += 1
            else:
                served = False
                if rec:
                    counts[j, 3] += 1
            lost.append(int(not served))
        else:
            j = event - n
            while state[j] == 0 and j > 0:
                j -= 1
            if state[j] > 0:
                state[j] -= 1
    warm = len(lost) if warm is None else warm
    return counts, occ, np.array(state), np.array(lost), warm


def idle_walk_dense(lam1, lam2, cmu1, cmu2, p1, p2, phases, levels):
    """The idle-server walk with m in {0..phases} and n cut at ``levels`` (far in its
    geometric tail), solved densely: (P(m = k) for every k, P(n = 0), P(m = 0, n = 0))."""
    q = generator_idle_walk((lam1, lam2), (1, 1), (cmu1, cmu2), (p1, p2), (phases, levels))
    a = q.T.copy()
    a[-1, :] = 1.0  # one balance equation replaced by the normalisation
    rhs = np.zeros(q.shape[0])
    rhs[-1] = 1.0
    pi = np.linalg.solve(a, rhs).reshape(phases + 1, levels + 1)
    return pi.sum(axis=1), pi[:, 0].sum(), pi[0, 0]


def idle_walk_rate_matrix(lam1, lam2, cmu1, cmu2, p1, p2, phases, sweeps=20_000):
    """R of the walk with n as the level, by the plain functional iteration
    R <- -(A0 + R^2 A2) A1^-1, the blocks read off the dense generator at level n = 1
    (A0: to n = 2, A1: within n = 1, A2: to n = 0)."""
    k = phases + 1
    q = generator_idle_walk((lam1, lam2), (1, 1), (cmu1, cmu2), (p1, p2), (phases, 2))
    rows = [m * 3 + 1 for m in range(k)]
    a0 = q[np.ix_(rows, [m * 3 + 2 for m in range(k)])]
    a1 = q[np.ix_(rows, rows)]
    a2 = q[np.ix_(rows, [m * 3 for m in range(k)])]
    inv = np.linalg.inv(a1)
    r = np.zeros((k, k))
    for _ in range(sweeps):
        new = -(a0 + r @ r @ a2) @ inv
        if np.abs(new - r).max() < 1e-16:
            return new
        r = new
    return r


def loss_series(lost, warm: int, limit: int) -> tuple[np.ndarray, int]:
    """The per-arrival loss indicators as the stationarity detector's series, from the
    simulation module's docstring: the indicators themselves when at most ``limit`` long,
    else the means of consecutive blocks of b = ceil(n / (limit / 2)) arrivals (a trailing
    partial block dropped), the warm-up counted in whole blocks (rounded up)."""
    n = len(lost)
    if n <= limit:
        return np.array(lost, dtype=float), warm
    b = int(np.ceil(n / (limit // 2)))
    means = [sum(lost[i * b : (i + 1) * b]) / b for i in range(n // b)]
    return np.array(means), int(np.ceil(warm / b))


def two_center_replication(lam, servers, mu, p, events, warmup, seed_seq, limit):
    """One replication of ``datacenters.simulate`` from its definition: two streams of
    ``events`` uniforms from ``seed_seq`` (the event's, then the forwarding coin's), the chain
    simulated by :func:`simulate_two_centers` from empty, the first ``warmup`` events not
    counted, and every reported quantity from the counts and the time spent in each state.

    Returns the row (name -> value) and the detector's class-1 loss series with its warm-up.
    """
    gen = np.random.default_rng(seed_seq)
    u_event, u_forward = gen.random(events), gen.random(events)
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, servers, mu, p
    counts, occ, _, lost1, warm1 = simulate_two_centers(
        l1, l2, m1, m2, p1, p2, c1, c2, 0, 0, u_event, u_forward, warmup
    )
    time, busy1, busy2, full1, full2, both_full = occ
    row, lost_total = {}, 0
    for k in (1, 2):
        arrivals, local, remote, at_once, forwarded, _ = counts[6 * (k - 1) : 6 * k]
        lost = at_once + forwarded
        lost_total += lost
        # a class without arrivals lost none of them (class 1 then raises EmptyRunError)
        row[f"beta{k}"] = lost / arrivals if arrivals else 0.0
        row[f"arrivals{k}"] = arrivals
        row[f"local{k}"] = local
        row[f"remote{k}"] = remote
        row[f"rejected{k}"] = lost
    row["loss_rate"] = lost_total / time
    row["mean_busy1"], row["mean_busy2"] = busy1 / time, busy2 / time
    row["p_full1"], row["p_full2"], row["p_both_full"] = (
        full1 / time,
        full2 / time,
        both_full / time,
    )
    row["time"] = time
    return row, *loss_series(list(lost1), warm1, limit)


def ring_replication(lam, servers, mu, p, events, warmup, seed_seq, limit):
    """One replication of ``datacenters.simulate_ring`` from its definition (as
    :func:`two_center_replication`, on :func:`simulate_ring`): the fraction of all requests
    lost, and per center j its loss fraction (0 for a center without arrivals), the fraction
    of time it is full and its mean number of busy servers; then the series, its warm-up and
    the arrivals at each center after the warm-up."""
    n = len(lam)
    gen = np.random.default_rng(seed_seq)
    u_event, u_forward = gen.random(events), gen.random(events)
    counts, occ, _, lost, warm = simulate_ring(
        lam, mu, p, servers, np.zeros(n, np.int64), u_event, u_forward, warmup
    )
    time = occ[0, 0]
    arrivals = [int(counts[j, 0]) for j in range(n)]
    rejected = [int(counts[j, 3] + counts[j, 4]) for j in range(n)]
    row = {"beta": sum(rejected) / sum(arrivals)}
    for j in range(n):
        row[f"beta{j}"] = rejected[j] / arrivals[j] if arrivals[j] else 0.0
    for j in range(n):
        row[f"p_full{j}"] = occ[j + 1, 1] / time
    for j in range(n):
        row[f"mean_busy{j}"] = occ[j + 1, 0] / time
    row["arrivals"] = sum(arrivals)
    return row, *loss_series(list(lost), warm, limit), arrivals
