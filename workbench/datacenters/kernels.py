"""The P3 kernels: the two-center chain's stationary law, the idle-server walk, simulation.

Exact chain
-----------
The chains of P3 (the two-center loss network, and the random walk of idle servers
truncated to a box) live on a grid {0..K1} x {0..K2} and only move to one of the four
neighbours. Such a generator is stored as a *5-point stencil*: four arrays of shape
(K1+1, K2+1) giving, for every state (x, y), the rate to (x+1, y) ``right``, to (x-1, y)
``left``, to (x, y+1) ``up`` and to (x, y-1) ``down``; the diagonal is minus their sum.

Solver: restarted GMRES on the balance equations, preconditioned by alternating-direction
implicit (ADI, Peaceman-Rachford) sweeps. The generator splits exactly as
Q = Q_x + Q_y (moves along x, moves along y); each part is a set of independent birth-death
lines, so ``(s I - Q_x)`` is solved line by line with the tridiagonal (Thomas) algorithm, which
is stable because these matrices are diagonally dominant M-matrices. For the product-form
chain (no coupling) ADI with a geometric cycle of shifts converges in a few cycles whatever
the size; the boundary coupling of P3 is a low-rank perturbation that GMRES absorbs.

Scaling limit
-------------
The random walk of idle servers is solved as a level-independent quasi-birth-death process
(``idle_walk_qbd``): exact (matrix-geometric) in its heavy-tailed coordinate, truncated in
the light-tailed one; ``qbd_rate_matrix`` uses logarithmic reduction.

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

import numpy as np
from numba import njit

# ---------------------------------------------------------------------------------------------
# assembly


@njit(cache=True)
def grid_chain_stencil(up1, down1, extra1, up2, down2, extra2):
    """Stencil of the coupled two-queue chain used by P3.

    Parameters
    ----------
    up1, down1 : float64 arrays of length K1+1
        Rate x -> x+1 (used for x < K1) and x -> x-1 (used for x > 0).
    extra1 : float
        Extra rate x -> x+1 when y = K2 (the overflow from the other coordinate).
    up2, down2 : float64 arrays of length K2+1
        Same along y.
    extra2 : float
        Extra rate y -> y+1 when x = K1.

    Returns
    -------
    right, left, up, down : float64 arrays of shape (K1+1, K2+1)
    """
    k1 = up1.shape[0] - 1
    k2 = up2.shape[0] - 1
    right = np.zeros((k1 + 1, k2 + 1))
    left = np.zeros((k1 + 1, k2 + 1))
    up = np.zeros((k1 + 1, k2 + 1))
    down = np.zeros((k1 + 1, k2 + 1))
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            if x < k1:
                right[x, y] = up1[x] + (extra1 if y == k2 else 0.0)
            if x > 0:
                left[x, y] = down1[x]
            if y < k2:
                up[x, y] = up2[y] + (extra2 if x == k1 else 0.0)
            if y > 0:
                down[x, y] = down2[y]
    return right, left, up, down


@njit(cache=True)
def stencil_to_coo(right, left, up, down):
    """Generator Q in coordinate form (row, col, value); state (x, y) has index x*(K2+1)+y."""
    k1 = right.shape[0] - 1
    k2 = right.shape[1] - 1
    w = k2 + 1
    n = (k1 + 1) * w
    rows = np.empty(5 * n, np.int64)
    cols = np.empty(5 * n, np.int64)
    vals = np.empty(5 * n)
    m = 0
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            i = x * w + y
            out = right[x, y] + left[x, y] + up[x, y] + down[x, y]
            rows[m] = i
            cols[m] = i
            vals[m] = -out
            m += 1
            if x < k1 and right[x, y] != 0.0:
                rows[m] = i
                cols[m] = i + w
                vals[m] = right[x, y]
                m += 1
            if x > 0 and left[x, y] != 0.0:
                rows[m] = i
                cols[m] = i - w
                vals[m] = left[x, y]
                m += 1
            if y < k2 and up[x, y] != 0.0:
                rows[m] = i
                cols[m] = i + 1
                vals[m] = up[x, y]
                m += 1
            if y > 0 and down[x, y] != 0.0:
                rows[m] = i
                cols[m] = i - 1
                vals[m] = down[x, y]
                m += 1
    return rows[:m], cols[:m], vals[:m]


# ---------------------------------------------------------------------------------------------
# products and residuals


@njit(cache=True)
def stencil_left_multiply(v, right, left, up, down, out):
    """out = v Q (the balance-equation residual when v is a distribution)."""
    k1 = v.shape[0] - 1
    k2 = v.shape[1] - 1
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            s = -v[x, y] * (right[x, y] + left[x, y] + up[x, y] + down[x, y])
            if x > 0:
                s += v[x - 1, y] * right[x - 1, y]
            if x < k1:
                s += v[x + 1, y] * left[x + 1, y]
            if y > 0:
                s += v[x, y - 1] * up[x, y - 1]
            if y < k2:
                s += v[x, y + 1] * down[x, y + 1]
            out[x, y] = s


@njit(cache=True)
def stencil_residual(pi, right, left, up, down):
    """Return (||pi Q||_1, sum_s pi(s) q(s)): the residual and the total flow that scales it."""
    k1 = pi.shape[0] - 1
    k2 = pi.shape[1] - 1
    res = 0.0
    flow = 0.0
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            out = right[x, y] + left[x, y] + up[x, y] + down[x, y]
            s = -pi[x, y] * out
            if x > 0:
                s += pi[x - 1, y] * right[x - 1, y]
            if x < k1:
                s += pi[x + 1, y] * left[x + 1, y]
            if y > 0:
                s += pi[x, y - 1] * up[x, y - 1]
            if y < k2:
                s += pi[x, y + 1] * down[x, y + 1]
            res += abs(s)
            flow += abs(pi[x, y]) * out
    return res, flow


# ---------------------------------------------------------------------------------------------
# ADI half steps: (s I - Q_x^T) z_new = (s I + Q_y^T) z - g, and the same with x and y swapped


@njit(cache=True)
def adi_half_step_x(z, g, right, left, up, down, shift, out, cp):
    """Implicit along x, explicit along y; all x-lines are eliminated together (y innermost)."""
    k1 = z.shape[0] - 1
    k2 = z.shape[1] - 1
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            rhs = (shift - up[x, y] - down[x, y]) * z[x, y] - g[x, y]
            if y > 0:
                rhs += z[x, y - 1] * up[x, y - 1]
            if y < k2:
                rhs += z[x, y + 1] * down[x, y + 1]
            diag = shift + right[x, y] + left[x, y]
            c = -left[x + 1, y] if x < k1 else 0.0
            if x > 0:
                a = -right[x - 1, y]
                m = diag - a * cp[x - 1, y]
                cp[x, y] = c / m
                out[x, y] = (rhs - a * out[x - 1, y]) / m
            else:
                cp[x, y] = c / diag
                out[x, y] = rhs / diag
    for x in range(k1 - 1, -1, -1):
        for y in range(k2 + 1):
            out[x, y] -= cp[x, y] * out[x + 1, y]


@njit(cache=True)
def adi_half_step_y(z, g, right, left, up, down, shift, out, cp):
    """Implicit along y, explicit along x; one y-line (contiguous row) at a time."""
    k1 = z.shape[0] - 1
    k2 = z.shape[1] - 1
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            rhs = (shift - right[x, y] - left[x, y]) * z[x, y] - g[x, y]
            if x > 0:
                rhs += z[x - 1, y] * right[x - 1, y]
            if x < k1:
                rhs += z[x + 1, y] * left[x + 1, y]
            diag = shift + up[x, y] + down[x, y]
            c = -down[x, y + 1] if y < k2 else 0.0
            if y > 0:
                a = -up[x, y - 1]
                m = diag - a * cp[x, y - 1]
                cp[x, y] = c / m
                out[x, y] = (rhs - a * out[x, y - 1]) / m
            else:
                cp[x, y] = c / diag
                out[x, y] = rhs / diag
        for y in range(k2 - 1, -1, -1):
            out[x, y] -= cp[x, y] * out[x, y + 1]


@njit(cache=True)
def adi_precondition(g, right, left, up, down, shifts, z, tmp, cp):
    """z ~ solution of z Q = g by one Peaceman-Rachford cycle over ``shifts``, from z = 0.

    A fixed number of sweeps from zero is a fixed linear operator, as GMRES requires.
    """
    z[:, :] = 0.0
    for j in range(shifts.shape[0]):
        adi_half_step_x(z, g, right, left, up, down, shifts[j], tmp, cp)
        adi_half_step_y(tmp, g, right, left, up, down, shifts[j], z, cp)


@njit(cache=True)
def adi_shifts(low, high, count):
    """Geometric shifts between the smallest and largest line eigenvalues, largest first."""
    out = np.empty(count)
    for j in range(count):
        out[j] = low * (high / low) ** ((count - j - 0.5) / count)
    return out


# ---------------------------------------------------------------------------------------------
# GMRES on the balance equations


@njit(cache=True)
def _pinned_apply(v, right, left, up, down, pin, out):
    # (pi Q) with the equation of state `pin` replaced by the normalisation: A' = Q^T + e_pin 1^T
    stencil_left_multiply(v, right, left, up, down, out)
    flat = out.reshape(out.size)
    flat[pin] += v.sum()


@njit(cache=True)
def stationary_gmres(right, left, up, down, pi0, shifts, tol, restart, max_restarts):
    """Stationary distribution of the stencil chain by ADI-preconditioned GMRES(restart).

    Solves pi Q = 0, sum(pi) = 1 as (Q^T + e_s 1^T) pi = e_s, with s the most likely state of
    the initial guess ``pi0`` (Q^T + e_s 1^T is non-singular for an irreducible chain).
    Iterates until ||pi Q||_1 <= tol * sum_s pi(s) q(s).

    Returns
    -------
    pi : array (K1+1, K2+1)
        Non-negative and summing to 1 (round-off negatives are clipped).
    residual : float
        ||pi Q||_1 of the returned (clipped, normalised) pi.
    flow : float
        sum_s pi(s) q(s), the scale of the residual.
    iterations : int
        Number of GMRES (Arnoldi) steps, each costing one ADI cycle.
    converged : bool
    """
    shape = pi0.shape
    n = pi0.size
    x = pi0.copy()
    x /= x.sum()
    pin = np.argmax(x.reshape(n))
    basis = np.zeros((restart + 1, n))
    hess = np.zeros((restart + 1, restart))
    cs = np.zeros(restart)
    sn = np.zeros(restart)
    gvec = np.zeros(restart + 1)
    work = np.empty(shape)
    work2 = np.empty(shape)
    cp = np.empty(shape)
    zvec = np.empty(shape)
    iterations = 0
    converged = False
    res, flow = stencil_residual(x, right, left, up, down)
    if res <= tol * flow:
        converged = True
    for _cycle in range(max_restarts):
        if converged:
            break
        _pinned_apply(x, right, left, up, down, pin, work)
        r = -work.reshape(n)
        r[pin] += 1.0
        beta = np.sqrt(np.sum(r * r))
        if beta == 0.0:
            converged = True
            break
        basis[0, :] = r / beta
        gvec[:] = 0.0
        gvec[0] = beta
        inner_tol = 0.1 * tol * flow / np.sqrt(n)
        k_used = 0
        for k in range(restart):
            adi_precondition(
                basis[k].reshape(shape), right, left, up, down, shifts, zvec, work2, cp
            )
            _pinned_apply(zvec, right, left, up, down, pin, work)
            w = work.reshape(n).copy()
            for i in range(k + 1):  # modified Gram-Schmidt
                h = np.dot(w, basis[i])
                hess[i, k] = h
                w -= h * basis[i]
            hn = np.sqrt(np.dot(w, w))
            hess[k + 1, k] = hn
            if hn > 0.0:
                basis[k + 1, :] = w / hn
            for i in range(k):  # apply previous Givens rotations
                t = cs[i] * hess[i, k] + sn[i] * hess[i + 1, k]
                hess[i + 1, k] = -sn[i] * hess[i, k] + cs[i] * hess[i + 1, k]
                hess[i, k] = t
            den = np.sqrt(hess[k, k] ** 2 + hess[k + 1, k] ** 2)
            cs[k] = hess[k, k] / den
            sn[k] = hess[k + 1, k] / den
            hess[k, k] = den
            hess[k + 1, k] = 0.0
            gvec[k + 1] = -sn[k] * gvec[k]
            gvec[k] = cs[k] * gvec[k]
            iterations += 1
            k_used = k + 1
            if abs(gvec[k + 1]) <= inner_tol or hn == 0.0:
                break
        # back substitution for the least-squares coefficients
        coef = np.zeros(k_used)
        for i in range(k_used - 1, -1, -1):
            s = gvec[i]
            for j in range(i + 1, k_used):
                s -= hess[i, j] * coef[j]
            coef[i] = s / hess[i, i]
        comb = np.zeros(n)
        for i in range(k_used):
            comb += coef[i] * basis[i]
        adi_precondition(comb.reshape(shape), right, left, up, down, shifts, zvec, work2, cp)
        x += zvec
        res, flow = stencil_residual(x, right, left, up, down)
        if res <= tol * flow:
            converged = True
    # clip round-off negatives (|value| ~ 1e-16 of the largest) and renormalise
    flat = x.reshape(n)
    for i in range(n):
        if flat[i] < 0.0:
            flat[i] = 0.0
    x /= x.sum()
    res, flow = stencil_residual(x, right, left, up, down)
    return x, res, flow, iterations, converged


# ---------------------------------------------------------------------------------------------
# level-independent quasi-birth-death processes (the idle-server walk, level = one coordinate)


@njit(cache=True)
def qbd_rate_matrix(a_up, a_local, a_down, tol, max_iter):
    """Minimal solution R of A_up + R A_local + R^2 A_down = 0 by logarithmic reduction.

    G (first passage one level down) is computed by Latouche-Ramaswami logarithmic
    reduction (quadratic convergence), then R = A_up (-A_local - A_up G)^{-1}.

    Returns
    -------
    r : array (n, n)
    iterations : int
    error : float
        max_i |1 - (G 1)_i| at exit (G is stochastic for a recurrent level process).
    """
    n = a_local.shape[0]
    inv = np.linalg.inv(-a_local)
    b0 = inv @ a_up
    b2 = inv @ a_down
    g = b2.copy()
    t = b0.copy()
    eye = np.eye(n)
    error = 1.0
    steps = 0
    for _step in range(max_iter):
        steps += 1
        u = b0 @ b2 + b2 @ b0
        m = np.linalg.inv(eye - u)
        b0n = m @ (b0 @ b0)
        b2n = m @ (b2 @ b2)
        g += t @ b2n
        t = t @ b0n
        b0 = b0n
        b2 = b2n
        error = np.max(np.abs(1.0 - g.sum(axis=1)))
        if error < tol or np.max(np.abs(t)) < tol * 1e-3:
            break
    r = a_up @ np.linalg.inv(-a_local - a_up @ g)
    return r, steps, error


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


@njit(cache=True)
def simulate_two_centers_kernel(
    lam1, lam2, mu1, mu2, p1, p2, cap1, cap2, busy1, busy2, u_event, u_forward, warmup, lost1
):
    """Run the two-center network for ``u_event.size`` events; statistics after ``warmup``.

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
        if u < lam1:
            if record:
                counts[ARRIVALS] += 1
            lost1[n1] = 0
            if l1 < cap1:
                l1 += 1
                if record:
                    counts[SERVED_LOCALLY] += 1
            elif u_forward[k] < p1:
                if l2 < cap2:
                    l2 += 1
                    if record:
                        counts[SERVED_REMOTELY] += 1
                else:
                    lost1[n1] = 1
                    if record:
                        counts[REJECTED_FORWARDED] += 1
            else:
                lost1[n1] = 1
                if record:
                    counts[REJECTED_AT_ONCE] += 1
            n1 += 1
        elif u < lam1 + lam2:
            if record:
                counts[CLASS_STRIDE + ARRIVALS] += 1
            if l2 < cap2:
                l2 += 1
                if record:
                    counts[CLASS_STRIDE + SERVED_LOCALLY] += 1
            elif u_forward[k] < p2:
                if l1 < cap1:
                    l1 += 1
                    if record:
                        counts[CLASS_STRIDE + SERVED_REMOTELY] += 1
                elif record:
                    counts[CLASS_STRIDE + REJECTED_FORWARDED] += 1
            elif record:
                counts[CLASS_STRIDE + REJECTED_AT_ONCE] += 1
        elif (u < lam1 + lam2 + d1 and l1 > 0) or l2 == 0:
            l1 -= 1
        else:
            l2 -= 1
    if warmup >= u_event.shape[0]:
        warm1 = n1
    final = np.empty(2, np.int64)
    final[0] = l1
    final[1] = l2
    return counts, occ, final, n1, warm1


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
