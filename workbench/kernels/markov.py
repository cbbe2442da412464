"""Stationary laws of continuous-time Markov chains on a 2-D grid, and of QBD processes.

Grid chains
-----------
A chain on a grid {0..K1} x {0..K2} that only moves to one of the four neighbours (a loss
network of two centers, a random walk in the quarter plane truncated to a box, ...) has a
generator stored as a *5-point stencil*: four arrays of shape (K1+1, K2+1) giving, for every
state (x, y), the rate to (x+1, y) ``right``, to (x-1, y) ``left``, to (x, y+1) ``up`` and to
(x, y-1) ``down``; the diagonal is minus their sum. :func:`grid_chain_stencil` builds the
stencil of two birth-death coordinates coupled on the boundary (an extra rate along one
coordinate when the other is at its top).

Solver: restarted GMRES on the balance equations, preconditioned by alternating-direction
implicit (ADI, Peaceman-Rachford) sweeps. The generator splits exactly as
Q = Q_x + Q_y (moves along x, moves along y); each part is a set of independent birth-death
lines, so ``(s I - Q_x)`` is solved line by line with the tridiagonal (Thomas) algorithm, which
is stable because these matrices are diagonally dominant M-matrices. For a product-form
chain (no coupling) ADI with a geometric cycle of shifts converges in a few cycles whatever
the size; a boundary coupling is a low-rank perturbation that GMRES absorbs.

Quasi-birth-death processes
---------------------------
:func:`qbd_rate_matrix` gives the minimal solution R of a level-independent QBD by
logarithmic reduction (quadratic convergence); the stationary law is then matrix-geometric,
pi_n = pi_0 R^n.

All functions take and return plain arrays and scalars (numba ``nopython``). Used by P3
(:mod:`workbench.datacenters`), whose slow twins in ``tests/naive_datacenters.py`` check them.

References
----------
Saad & Schultz (1986), GMRES; Peaceman & Rachford (1955), ADI; Latouche & Ramaswami (1993),
logarithmic reduction for QBD processes.
"""

import numpy as np
from numba import njit

__all__ = [
    "grid_chain_stencil",
    "stencil_to_coo",
    "stencil_left_multiply",
    "stencil_residual",
    "adi_precondition",
    "adi_shifts",
    "stationary_gmres",
    "qbd_rate_matrix",
]

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
    Iterates until ||pi Q||_1 <= tol * sum_s pi(s) q(s). A cycle of at most ``restart``
    Arnoldi steps ends early when its least-squares residual is at most
    0.1 tol flow / sqrt(n), or on an exact breakdown (the Krylov space is exhausted). The run
    ends converged as soon as the pinned system holds exactly (a zero residual vector, even
    where round-off keeps ||pi Q||_1 above tol * flow), else unconverged after
    ``max_restarts`` cycles: a cap, not a count (a converged run returns at once).

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
# level-independent quasi-birth-death processes


@njit(cache=True)
def qbd_rate_matrix(a_up, a_local, a_down, tol, max_iter):
    """Minimal solution R of A_up + R A_local + R^2 A_down = 0 by logarithmic reduction.

    G (first passage one level down) is computed by Latouche-Ramaswami logarithmic
    reduction (quadratic convergence), then R = A_up (-A_local - A_up G)^{-1}. After k steps
    G is the first passage one level down before 2^(k+1) - 1 levels up, and T (the steps'
    product of the B_up) the passage those levels up before one down. The run stops after
    the first step with error < tol or every entry of T below tol * 1e-3 (no progress left:
    round-off holds error above a tol below it), else after max_iter steps.

    Returns
    -------
    r : array (n, n)
    iterations : int
    error : float
        max_i |1 - (G 1)_i| at exit (G is stochastic for a recurrent level process), the
        G of no step if max_iter = 0.
    """
    n = a_local.shape[0]
    inv = np.linalg.inv(-a_local)
    b0 = inv @ a_up
    b2 = inv @ a_down
    g = b2.copy()
    t = b0.copy()
    eye = np.eye(n)
    error = np.max(np.abs(1.0 - g.sum(axis=1)))
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
