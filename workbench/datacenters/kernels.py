"""The P3 kernels: the idle-server walk as a QBD, and the simulators of the two loss networks.

The generic solvers they rest on (the grid chain's stencil, GMRES with ADI preconditioning,
the QBD rate matrix) are in :mod:`workbench.kernels.markov`.

Scaling limit
-------------
The random walk of idle servers is solved as a level-independent quasi-birth-death process
(``idle_walk_qbd``): exact (matrix-geometric) in its heavy-tailed coordinate, truncated in
the light-tailed one, with :func:`workbench.kernels.markov.qbd_rate_matrix`.

Simulation
----------
Simulation of the P3 loss networks: two cooperating data centers, and a ring of J centers.

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

Kernel outputs with several slots are read through the named index constants below
(``CLASS_STRIDE``, ``ARRIVALS``, ..., ``OCC_TIME``, ...), never by bare position.

All functions take and return plain arrays and scalars (numba ``nopython``).

References
----------
Fricker, Guillemin, Robert, Thompson (2016), Section 2 (the chain), Section 2.4 (the ring)
and Section 3 (the walk); Latouche & Ramaswami (1993), logarithmic reduction for QBD
processes.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from workbench.kernels.markov import qbd_rate_matrix


@njit(cache=True)
def idle_walk_qbd(lam1, lam2, cmu1, cmu2, p1, p2, phases, tol, max_iter):
    """Stationary law of the idle-server walk with n as the (unbounded) level.

    The walk: (m,n)->(m+1,n) at c1 mu1; ->(m-1,n) at lam1 + p2 lam2 1{n=0}
    (m>0); ->(m,n+1) at c2 mu2; ->(m,n-1) at lam2 + p1 lam1 1{m=0} (n>0). For n >= 1 the
    transitions do not depend on n: a level-independent QBD with phases m in {0..phases}
    (m is truncated there, reflecting; its tail is geometric when lam1 > c1 mu1), so
    pi_n = pi_0 R^n exactly in n.

    Returns
    -------
    marginal_m : array (phases+1,)
        P(m = k), summed over all levels.
    p_level0 : float
        P(n = 0).
    pi00 : float
        P(m = 0, n = 0).
    spectral_radius_bound : float
        max row sum of R (< 1 under (E)).
    iterations : int
    g_error : float
    """
    k = phases + 1
    a_up = np.eye(k) * cmu2
    a_down = np.zeros((k, k))
    a_local = np.zeros((k, k))
    b_local = np.zeros((k, k))
    for m in range(k):
        a_down[m, m] = lam2 + (p1 * lam1 if m == 0 else 0.0)
        if m < phases:
            a_local[m, m + 1] = cmu1
            b_local[m, m + 1] = cmu1
        if m > 0:
            a_local[m, m - 1] = lam1
            b_local[m, m - 1] = lam1 + p2 * lam2
    for m in range(k):
        s_a = 0.0
        s_b = 0.0
        for j in range(k):
            s_a += a_local[m, j]
            s_b += b_local[m, j]
        a_local[m, m] = -(s_a + cmu2 + a_down[m, m])
        b_local[m, m] = -(s_b + cmu2)
    r, it, gerr = qbd_rate_matrix(a_up, a_local, a_down, tol, max_iter)
    # level 0: pi_0 (B_local + R A_down) = 0, then pi_n = pi_0 R^n
    c = b_local + r @ a_down
    a = c.T.copy()
    a[k - 1, :] = 1.0
    rhs = np.zeros(k)
    rhs[k - 1] = 1.0
    pi0 = np.linalg.solve(a, rhs)
    for i in range(k):
        if pi0[i] < 0.0:
            pi0[i] = 0.0
    fundamental = np.linalg.inv(np.eye(k) - r)
    marginal = pi0 @ fundamental
    total = marginal.sum()
    marginal /= total
    rho = 0.0
    for i in range(k):
        rho = max(rho, r[i].sum())
    return marginal, pi0.sum() / total, pi0[0] / total, rho, it, gerr


# ---------------------------------------------------------------------------------------------
# simulation of the two-center network and of the ring


# Counters of simulate_two_centers_kernel: class i (0 or 1) uses slots
# CLASS_STRIDE * i + one of the offsets below (the request's fate, counted once per arrival).
ARRIVALS = 0  # requests of this class
SERVED_LOCALLY = 1  # accepted by their own center
SERVED_REMOTELY = 2  # forwarded and accepted by the other center
REJECTED_AT_ONCE = 3  # own center full, not forwarded
REJECTED_FORWARDED = 4  # forwarded, but the other center was full too
CLASS_STRIDE = 6  # slot 5 of each class is unused
TWO_CENTER_COUNTERS = 2 * CLASS_STRIDE
# Time integrals of simulate_two_centers_kernel's occupancy array
OCC_TIME = 0
OCC_BUSY1 = 1
OCC_BUSY2 = 2
OCC_FULL1 = 3
OCC_FULL2 = 4
OCC_BOTH_FULL = 5
TWO_CENTER_OCCUPANCY = 6
# Ring: per-center counter columns use the same fate offsets ARRIVALS..REJECTED_FORWARDED;
# occupancy row 0 holds RING_TIME, rows j + 1 hold [RING_BUSY, RING_FULL] of center j
RING_COUNTERS = 5
RING_TIME = 0
RING_BUSY = 0
RING_FULL = 1


class Centers(NamedTuple):
    """The two centers (class i arrives at center i): rates, forwarding, capacity, start."""

    lam1: float
    lam2: float
    mu1: float
    mu2: float
    p1: float  # probability that a class-1 arrival finding center 1 full is forwarded
    p2: float
    cap1: int
    cap2: int
    busy1: int  # busy servers at the start
    busy2: int


@njit(cache=True)
def simulate_two_centers_kernel(centers, u_event, u_forward, warmup, lost1):
    """Run the two-center network for ``u_event.size`` events; statistics after ``warmup``.

    ``centers``: a :class:`Centers` record.

    ``lost1`` (uint8, at least ``u_event.size`` long) receives, for every class-1 arrival in
    order (warm-up included), 1 if it was lost and 0 if it was served: the output analysis's
    per-arrival series.

    Returns
    -------
    counts : int64 array (12,)
        Slot ``CLASS_STRIDE * i + fate`` (fate: ``ARRIVALS`` ... ``REJECTED_FORWARDED``).
    occupancy : float64 array (6,)
        Time integrals of [1, L1, L2, 1{L1=C1}, 1{L2=C2}, 1{L1=C1, L2=C2}] at
        ``OCC_TIME``, ``OCC_BUSY1``, ..., ``OCC_BOTH_FULL``.
    final : int64 array (2,)
        Final state (L1, L2).
    n_lost1 : int
        Class-1 arrivals written to ``lost1``.
    warm_lost1 : int
        Those of them that arrived during the warm-up (the first ``warmup`` events).
    """
    lam1, lam2, mu1, mu2, p1, p2, cap1, cap2, busy1, busy2 = centers
    counts = np.zeros(TWO_CENTER_COUNTERS, np.int64)
    n1 = 0
    warm1 = 0
    occ = np.zeros(TWO_CENTER_OCCUPANCY)
    l1 = busy1
    l2 = busy2
    for k in range(u_event.shape[0]):
        d1 = l1 * mu1
        d2 = l2 * mu2
        total = lam1 + lam2 + d1 + d2
        record = k >= warmup
        if k == warmup:
            warm1 = n1
        if record:
            h = 1.0 / total
            occ[OCC_TIME] += h
            occ[OCC_BUSY1] += h * l1
            occ[OCC_BUSY2] += h * l2
            if l1 == cap1:
                occ[OCC_FULL1] += h
            if l2 == cap2:
                occ[OCC_FULL2] += h
            if l1 == cap1 and l2 == cap2:
                occ[OCC_BOTH_FULL] += h
        u = u_event[k] * total
        if u < lam1 + lam2:
            first = u < lam1  # class 1 (arriving at center 1), else class 2
            own, other = (l1, l2) if first else (l2, l1)
            if own < (cap1 if first else cap2):
                own += 1
                fate = SERVED_LOCALLY
            elif u_forward[k] < (p1 if first else p2):
                if other < (cap2 if first else cap1):
                    other += 1
                    fate = SERVED_REMOTELY
                else:
                    fate = REJECTED_FORWARDED
            else:
                fate = REJECTED_AT_ONCE
            l1, l2 = (own, other) if first else (other, own)
            base = 0 if first else CLASS_STRIDE  # the class's counters
            if record:
                counts[base + ARRIVALS] += 1
                counts[base + fate] += 1
            if first:  # the detector's series: class 1's fates
                lost1[n1] = fate >= REJECTED_AT_ONCE
                n1 += 1
        elif (u < lam1 + lam2 + d1 and l1 > 0) or l2 == 0:
            l1 -= 1
        else:
            l2 -= 1
    if warmup >= u_event.shape[0]:
        warm1 = n1
    return counts, occ, np.array([l1, l2], np.int64), n1, warm1


@njit(cache=True)
def simulate_ring_kernel(lam, mu, p, cap, busy, u_event, u_forward, warmup, lost):
    """Ring of J centers: a request finding center j full goes to j-1 with probability p[j],
    to j+1 with probability p[j] (indices mod J), and is otherwise rejected; a forwarded
    request finding its target full is rejected (one hop only).

    ``lost`` (uint8, at least ``u_event.size`` long) receives, for every arrival of any
    center in order (warm-up included), 1 if it was lost and 0 if it was served.

    Returns
    -------
    counts : int64 array (J, 5)
        Per class j: [arrivals, served locally, served by a neighbour, rejected at once,
        forwarded but rejected].
    occupancy : float64 array (J + 1, 2)
        Row 0: [total time, 0]; row j + 1: time integrals of [L_j, 1{L_j = C_j}].
    final : int64 array (J,)
    n_lost : int
        Arrivals written to ``lost``.
    warm_lost : int
        Those of them that arrived during the warm-up (the first ``warmup`` events).
    """
    n = lam.shape[0]
    n_arr = 0
    warm = 0
    counts = np.zeros((n, RING_COUNTERS), np.int64)
    occ = np.zeros((n + 1, 2))
    state = busy.copy()
    lam_total = lam.sum()
    for k in range(u_event.shape[0]):
        total = lam_total
        for j in range(n):
            total += state[j] * mu[j]
        record = k >= warmup
        if k == warmup:
            warm = n_arr
        if record:
            h = 1.0 / total
            occ[0, RING_TIME] += h
            for j in range(n):
                occ[j + 1, RING_BUSY] += h * state[j]
                if state[j] == cap[j]:
                    occ[j + 1, RING_FULL] += h
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
                counts[j, ARRIVALS] += 1
            lost[n_arr] = 0
            if state[j] < cap[j]:
                state[j] += 1
                if record:
                    counts[j, SERVED_LOCALLY] += 1
            else:
                v = u_forward[k]
                if v < 2.0 * p[j]:
                    target = (j - 1) % n if v < p[j] else (j + 1) % n
                    if state[target] < cap[target]:
                        state[target] += 1
                        if record:
                            counts[j, SERVED_REMOTELY] += 1
                    else:
                        lost[n_arr] = 1
                        if record:
                            counts[j, REJECTED_FORWARDED] += 1
                else:
                    lost[n_arr] = 1
                    if record:
                        counts[j, REJECTED_AT_ONCE] += 1
            n_arr += 1
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
    if warmup >= u_event.shape[0]:
        warm = n_arr
    return counts, occ, state, n_arr, warm
