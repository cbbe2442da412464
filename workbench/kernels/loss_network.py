"""Simulation of the P3 loss networks: two cooperating data centers, and a ring of J centers.

Both models are continuous-time Markov chains, so they are simulated on their jump chain:
the k-th event is chosen with probability rate / total rate using the uniform ``u_event[k]``,
and the time spent in a state is accounted for by its *expected* holding time 1 / q(state)
(conditional Monte Carlo: the same mean as sampling the exponential, smaller variance).
Ratios of event counts (the blocking probabilities) do not depend on time at all.
Forwarding decisions use ``u_forward[k]``. The kernels draw nothing themselves: the public
functions pass uniforms drawn from a seeded ``numpy.random.Generator``, so a run is a pure
function of its seed, and the slow twins in the tests reproduce it exactly.

Events in one state are ordered (arrival 1, arrival 2, ..., departure 1, departure 2, ...) when
``u_event`` is mapped to an event, which makes the mapping deterministic.
"""

import numpy as np
from numba import njit

# indices of the counters returned by simulate_two_centers_kernel, per class i = 0, 1:
# 6 * i + (0 arrivals, 1 served locally, 2 forwarded and served by the other center,
#          3 rejected at once, 4 forwarded but rejected (other center full), 5 spare)
TWO_CENTER_COUNTERS = 12


@njit(cache=True)
def simulate_two_centers_kernel(
    lam1, lam2, mu1, mu2, p1, p2, cap1, cap2, busy1, busy2, u_event, u_forward, warmup
):
    """Run the two-center network for ``u_event.size`` events; statistics after ``warmup``.

    Returns
    -------
    counts : int64 array (12,)
        See ``TWO_CENTER_COUNTERS``.
    occupancy : float64 array (6,)
        Time integrals of [1, L1, L2, 1{L1=C1}, 1{L2=C2}, 1{L1=C1, L2=C2}].
    final : int64 array (2,)
        Final state (L1, L2).
    """
    counts = np.zeros(TWO_CENTER_COUNTERS, np.int64)
    occ = np.zeros(6)
    l1 = busy1
    l2 = busy2
    for k in range(u_event.shape[0]):
        d1 = l1 * mu1
        d2 = l2 * mu2
        total = lam1 + lam2 + d1 + d2
        record = k >= warmup
        if record:
            h = 1.0 / total
            occ[0] += h
            occ[1] += h * l1
            occ[2] += h * l2
            if l1 == cap1:
                occ[3] += h
            if l2 == cap2:
                occ[4] += h
            if l1 == cap1 and l2 == cap2:
                occ[5] += h
        u = u_event[k] * total
        if u < lam1:
            if record:
                counts[0] += 1
            if l1 < cap1:
                l1 += 1
                if record:
                    counts[1] += 1
            elif u_forward[k] < p1:
                if l2 < cap2:
                    l2 += 1
                    if record:
                        counts[2] += 1
                elif record:
                    counts[4] += 1
            elif record:
                counts[3] += 1
        elif u < lam1 + lam2:
            if record:
                counts[6] += 1
            if l2 < cap2:
                l2 += 1
                if record:
                    counts[7] += 1
            elif u_forward[k] < p2:
                if l1 < cap1:
                    l1 += 1
                    if record:
                        counts[8] += 1
                elif record:
                    counts[10] += 1
            elif record:
                counts[9] += 1
        elif (u < lam1 + lam2 + d1 and l1 > 0) or l2 == 0:
            l1 -= 1
        else:
            l2 -= 1
    final = np.empty(2, np.int64)
    final[0] = l1
    final[1] = l2
    return counts, occ, final


@njit(cache=True)
def simulate_ring_kernel(lam, mu, p, cap, busy, u_event, u_forward, warmup):
    """Ring of J centers: a request finding center j full goes to j-1 with probability p[j],
    to j+1 with probability p[j] (indices mod J), and is otherwise rejected; a forwarded
    request finding its target full is rejected (one hop only).

    Returns
    -------
    counts : int64 array (J, 5)
        Per class j: [arrivals, served locally, served by a neighbour, rejected at once,
        forwarded but rejected].
    occupancy : float64 array (J + 1, 2)
        Row 0: [total time, 0]; row j + 1: time integrals of [L_j, 1{L_j = C_j}].
    final : int64 array (J,)
    """
    n = lam.shape[0]
    counts = np.zeros((n, 5), np.int64)
    occ = np.zeros((n + 1, 2))
    state = busy.copy()
    lam_total = lam.sum()
    for k in range(u_event.shape[0]):
        total = lam_total
        for j in range(n):
            total += state[j] * mu[j]
        record = k >= warmup
        if record:
            h = 1.0 / total
            occ[0, 0] += h
            for j in range(n):
                occ[j + 1, 0] += h * state[j]
                if state[j] == cap[j]:
                    occ[j + 1, 1] += h
        u = u_event[k] * total
        event = -1
        acc = 0.0
        for j in range(n):
            acc += lam[j]
            if u < acc:
                event = j
                break
        if event >= 0:
            j = event
            if record:
                counts[j, 0] += 1
            if state[j] < cap[j]:
                state[j] += 1
                if record:
                    counts[j, 1] += 1
            else:
                v = u_forward[k]
                if v < 2.0 * p[j]:
                    target = (j - 1) % n if v < p[j] else (j + 1) % n
                    if state[target] < cap[target]:
                        state[target] += 1
                        if record:
                            counts[j, 2] += 1
                    elif record:
                        counts[j, 4] += 1
                elif record:
                    counts[j, 3] += 1
        else:
            chosen = n - 1
            for j in range(n):
                acc += state[j] * mu[j]
                if u < acc:
                    chosen = j
                    break
            # round-off at the top end: pick the last center that has a busy server
            while state[chosen] == 0 and chosen > 0:
                chosen -= 1
            if state[chosen] > 0:
                state[chosen] -= 1
    return counts, occ, state
