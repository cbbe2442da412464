"""The analytic model of P3: the exact two-center chain, its scaling limit, the ring.

1. :func:`solve_exact` / :func:`blocking_exact`: the exact finite chain on
   {0..C1} x {0..C2}, solved by ADI-preconditioned GMRES on its 5-point stencil.
2. :func:`regime`, :func:`limit_analysis`, :func:`blocking_limit`: the scaling limit
   (λ_i N, c_i N, N -> ∞): regimes (A), (B1), (B2) in closed form; under condition (E)
   π_c(0,0) from the random walk of idle servers, then β from π_c(0,0).
3. :func:`ring_limit`: the pairwise reduction of the ring of J centers.
4. Studies over many points, each through :func:`workbench.sweep.sweep`:
   :func:`convergence_table` (exact β against N) and :func:`optimal_forwarding` (β over a
   grid of (p1, p2)).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.datacenters.kernels import idle_walk_qbd
from workbench.datacenters.params import EXAMPLE, MAX_STATES, PARAMS, _check_ring_vector, _ring_args
from workbench.kernels.markov import (
    adi_shifts,
    grid_chain_stencil,
    stationary_gmres,
    stencil_residual,
    stencil_to_coo,
)
from workbench.sweep import sweep
from workbench.validation import ParameterError, check_bool

__all__ = [
    "UncertifiedSolutionError",
    "station_table",
    "blocking_exact",
    "solve_exact",
    "ExactSolution",
    "regime",
    "blocking_limit",
    "limit_analysis",
    "LimitSolution",
    "ring_limit",
    "convergence_table",
    "optimal_forwarding",
]


# ---------------------------------------------------------------------------------------------
# 1. exact chain


class UncertifiedSolutionError(ParameterError, RuntimeError):
    """The solver could not bring the balance-equation residual below its target.

    Raised instead of returning a distribution nobody can vouch for; the message gives the
    residual reached. A :class:`workbench.validation.ParameterError` too: the library's own
    error, about a setting (solver tolerances, a tail too large) that cannot be honoured.
    """


@dataclass(frozen=True)
class ExactSolution:
    """Stationary solution of the two-center chain (see :func:`solve_exact`).

    ``distribution[i, j]`` is P(L1 = window[0][0] + i, L2 = window[1][0] + j); states outside
    the window have probability below ``tail`` by stochastic comparison with Erlang systems
    and are zero here (their effect is in ``residual``).
    """

    beta: tuple
    p_full: tuple  # P(L1 = C1), P(L2 = C2)
    p_both_full: float
    mean_busy: tuple
    accepted: tuple  # accepted rate at center 1 and 2 (own + forwarded-in)
    residual: float  # ||pi Q||_1 over the full state space
    relative_residual: float  # residual / sum_s pi(s) q(s)
    iterations: int
    converged: bool
    n_states: int
    window: tuple
    seconds: float
    distribution: np.ndarray = field(repr=False)

    grid: tuple  # (C1, C2)
    method: str = "ADI-GMRES"

    def full_distribution(self) -> np.ndarray:
        """The distribution on the whole grid {0..C1} x {0..C2} (zeros outside the window)."""
        (x0, x1), (y0, y1) = self.window
        c1, c2 = self.grid
        out = np.zeros((c1 + 1, c2 + 1))
        out[x0 : x1 + 1, y0 : y1 + 1] = self.distribution
        return out

    def to_series(self) -> pd.Series:
        return pd.Series(
            {
                "beta1": self.beta[0],
                "beta2": self.beta[1],
                "p_full1": self.p_full[0],
                "p_full2": self.p_full[1],
                "p_both_full": self.p_both_full,
                "mean_busy1": self.mean_busy[0],
                "mean_busy2": self.mean_busy[1],
                "residual": self.residual,
                "relative_residual": self.relative_residual,
                "iterations": self.iterations,
                "converged": self.converged,
                "n_states": self.n_states,
                "seconds": self.seconds,
            }
        )

    def table(self) -> pd.DataFrame:
        """The solution for reading: one row per quantity, symbol, value and meaning."""
        rows = [
            ("β₁", f"{self.beta[0]:.6f}", "class-1 requests lost"),
            ("β₂", f"{self.beta[1]:.6f}", "class-2 requests lost"),
            ("P(ℓ₁ = C₁)", f"{self.p_full[0]:.6f}", "center 1 full"),
            ("P(ℓ₂ = C₂)", f"{self.p_full[1]:.6f}", "center 2 full"),
            ("P(both full)", f"{self.p_both_full:.6f}", "forwarded requests lost too"),
            ("E[ℓ₁]", f"{self.mean_busy[0]:.4f}", "mean busy servers, center 1"),
            ("E[ℓ₂]", f"{self.mean_busy[1]:.4f}", "mean busy servers, center 2"),
            ("‖πQ‖₁ / Σπq", f"{self.relative_residual:.1e}", "relative residual (certificate)"),
            ("states", f"{self.n_states:,}", f"grid; solved on window {self.window}"),
            ("method", self.method, f"{self.iterations} GMRES iterations"),
            ("time", f"{self.seconds:.3f} s", "solve time (after warm_up, no compilation)"),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value", "meaning"]).set_index("quantity")

    def _repr_html_(self) -> str:
        return self.table().to_html()


def station_table(lam, servers, mu, p) -> pd.DataFrame:
    """Per center, as a network analyser shows it: utilisation, throughput, mean number, time.

    From the exact chain: utilisation U_i = E[ℓ_i] / C_i, throughput X_i = accepted requests
    per unit time (own and forwarded-in), mean number E[ℓ_i], time per request
    T_i = E[ℓ_i] / X_i (Little's law; a loss system has no queue, so T_i = 1/μ_i), plus
    P(full) and β_i.

    References
    ----------
    Fricker et al. (2016), Section 2.1 (the chain whose stationary law this reads).
    """
    args = PARAMS.check("station_table", lam=lam, servers=servers, mu=mu, p=p)
    sol = _solve_exact(**args, func="station_table")
    rows = []
    for i in (0, 1):
        throughput = sol.accepted[i]
        rows.append(
            {
                "center": i + 1,
                "servers C": args["servers"][i],
                "arrival rate λ [1/s]": args["lam"][i],
                "utilisation U": sol.mean_busy[i] / args["servers"][i],
                "throughput X [1/s]": throughput,
                "mean number E[ℓ]": sol.mean_busy[i],
                "time per request T [s]": sol.mean_busy[i] / throughput if throughput else 0.0,
                "P(full)": sol.p_full[i],
                "β (own class lost)": sol.beta[i],
            }
        )
    return pd.DataFrame(rows).set_index("center")


def _log_erlang_pmf(servers: int, load: float) -> np.ndarray:
    k = np.arange(servers + 1)
    logp = k * math.log(load) - np.cumsum(np.log(np.maximum(k, 1)))
    return logp - np.logaddexp.reduce(logp)


def _window(servers: int, load_low: float, load_high: float, tail: float) -> tuple:
    """Smallest [lo, hi] outside which the busy-server count has mass < tail.

    The number of busy servers at a center is stochastically larger than in an Erlang system
    fed by its own arrivals only, and smaller than in one fed by its own arrivals plus all
    requests the other center could forward (monotone coupling of loss systems).
    """
    low = np.exp(_log_erlang_pmf(servers, load_low))
    high = np.exp(_log_erlang_pmf(servers, load_high))
    lower_tail = np.cumsum(low)  # P(L <= k) for the smaller system
    upper_tail = np.cumsum(high[::-1])[::-1]  # P(L >= k) for the larger system
    lo = int(np.searchsorted(lower_tail, tail / 2, side="right"))
    above = np.nonzero(upper_tail >= tail / 2)[0]
    hi = int(above[-1]) if above.size else servers
    lo = max(0, min(lo, hi))
    return lo, hi


def solve_exact(
    lam, servers, mu, p, *, tol=1e-12, tail=1e-40, shifts=8, restart=20, max_restarts=60
) -> ExactSolution:
    """Exact stationary solution of the two-center loss network.

    Parameters
    ----------
    lam, servers, mu, p : pairs
        Arrival rates lambda_i > 0, numbers of servers C_i in [1, 5000], service rates
        mu_i > 0 and forwarding probabilities p_i in [0, 1].
    tol : float
        Stop when ||pi Q||_1 <= tol * sum_s pi(s) q(s) (q(s) the total rate out of s).
    tail : float
        States whose busy-server count is, by stochastic comparison with Erlang systems, in
        a tail of mass < tail are dropped (default 1e-40; 0 keeps the whole grid).
    shifts, restart, max_restarts : int
        ADI shifts per preconditioner cycle, GMRES restart length, number of restarts.

    Returns
    -------
    ExactSolution
        With beta = (beta1, beta2), beta_i = (1 - p_i) P(L_i = C_i) + p_i P(L1 = C1, L2 = C2),
        the residual over the whole grid and the iteration count.

    Raises
    ------
    ParameterError
        For invalid arguments, or a window of more than 2.5 million states (memory bound).
    UncertifiedSolutionError
        When neither GMRES nor the sparse-LU fallback brings ||pi Q||_1 below 10 tol times
        the total flow; no unverified distribution is returned.

    Notes
    -----
    Transitions (Section 2.1): (l1, l2) -> (l1+1, l2) at lambda1 1{l1<C1} +
    p2 lambda2 1{l2=C2, l1<C1}; symmetric for l2; departures at l_i mu_i. The generator is
    built as a 5-point stencil by a jitted kernel and solved by restarted GMRES
    preconditioned with Peaceman-Rachford ADI sweeps (tridiagonal solves along x and along
    y), starting from the product of the two Erlang distributions (the p = 0 solution).
    Thin windows (at most 32 states along one axis: extreme overload of a center), and
    windows where GMRES gains less than a factor 2 per restart, are solved by sparse LU
    instead (up to 500,000 states). When neither center fills up on its own traffic, the
    window first tried ignores forwarding; the full-grid residual decides whether it is
    kept.

    References
    ----------
    Fricker et al. (2016), Section 2.1, transition rates and loss probabilities.
    """
    args = PARAMS.check(
        "solve_exact",
        lam=lam,
        servers=servers,
        mu=mu,
        p=p,
        tol=tol,
        tail=tail,
        shifts=shifts,
        restart=restart,
        max_restarts=max_restarts,
    )
    return _solve_exact(**args, func="solve_exact")


def _solve_exact(
    lam, servers, mu, p, *, tol=1e-12, tail=1e-40, shifts=8, restart=20, max_restarts=60, func
) -> ExactSolution:
    """:func:`solve_exact` on checked arguments; ``func`` names the caller in errors."""
    t0 = time.perf_counter()
    (c1, c2), (l1, l2), (p1, p2) = servers, lam, p
    windows = _windows(lam, servers, mu, p, tail)
    n_window = min((x1 - x0 + 1) * (y1 - y0 + 1) for (x0, x1), (y0, y1) in windows)
    if n_window > MAX_STATES:
        raise ParameterError(
            f"The 'servers' parameter of {func} must give at most {MAX_STATES:,} states to "
            f"solve (memory bound; after dropping tails below {tail:g}). Got {servers!r} "
            f"instead ({n_window:,} states)."
        )
    certify = 10.0 * tol  # clipping round-off negatives may lift the residual a little
    tried = []
    for window in windows:
        (x0, x1), (y0, y1) = window
        if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_STATES:
            continue
        attempt = _solve_window(
            lam, servers, mu, p, window, tol, shifts, restart, max_restarts, certify
        )
        tried.append(attempt)
        if attempt["relative_residual"] <= certify:
            break
    else:
        worst = min(tried, key=lambda t: t["relative_residual"])
        raise UncertifiedSolutionError(
            f"{func}: the stationary distribution of the chain with lam={lam!r}, "
            f"servers={servers!r}, mu={mu!r}, p={p!r} could not be certified: relative "
            f"residual ||pi Q||_1 / sum pi q = {worst['relative_residual']:.1e} > {certify:.0e} "
            f"after {worst['iterations']} GMRES iterations ({worst['method']}, window "
            f"{worst['window']}). No result is returned rather than an unverified one."
        )
    pi, window = attempt["pi"], attempt["window"]
    (x0, x1), (y0, y1) = window
    k1 = np.arange(x0, x1 + 1, dtype=float)
    k2 = np.arange(y0, y1 + 1, dtype=float)
    pf1 = float(pi[-1, :].sum()) if x1 == c1 else 0.0
    pf2 = float(pi[:, -1].sum()) if y1 == c2 else 0.0
    pboth = float(pi[-1, -1]) if (x1 == c1 and y1 == c2) else 0.0
    beta = ((1 - p1) * pf1 + p1 * pboth, (1 - p2) * pf2 + p2 * pboth)
    busy = (float(pi.sum(axis=1) @ k1), float(pi.sum(axis=0) @ k2))
    accepted = (l1 * (1 - pf1) + p2 * l2 * (pf2 - pboth), l2 * (1 - pf2) + p1 * l1 * (pf1 - pboth))
    return ExactSolution(
        beta=(_unit(beta[0]), _unit(beta[1])),
        p_full=(pf1, pf2),
        p_both_full=pboth,
        mean_busy=busy,
        accepted=(float(accepted[0]), float(accepted[1])),
        residual=float(attempt["residual"]),
        relative_residual=float(attempt["relative_residual"]),
        iterations=int(attempt["iterations"]),
        converged=True,
        n_states=(c1 + 1) * (c2 + 1),
        window=window,
        seconds=time.perf_counter() - t0,
        grid=(c1, c2),
        distribution=pi,
        method=attempt["method"],
    )


def _unit(x: float) -> float:
    """A probability computed as a sum of non-negative terms: clip its last-bit round-off."""
    return float(min(max(x, 0.0), 1.0))


def _windows(lam, servers, mu, p, tail) -> list:
    """Windows of the grid to solve on, tightest first.

    The conservative window feeds each center with all the traffic the other could forward
    (:func:`_window`). When neither center fills up on its own traffic, nothing is forwarded
    (up to the dropped tail) and each center is its own Erlang system: that window is much
    smaller and is tried first. Whichever is used, the residual over the *whole* grid,
    including the flow out of the window, certifies the answer.
    """
    (c1, c2), (l1, l2), (m1, m2), (p1, p2) = servers, lam, mu, p
    if tail == 0:
        return [((0, c1), (0, c2))]
    own1 = _window(c1, l1 / m1, l1 / m1, tail)
    own2 = _window(c2, l2 / m2, l2 / m2, tail)
    wide = (
        _window(c1, l1 / m1, (l1 + p2 * l2) / m1, tail),
        _window(c2, l2 / m2, (l2 + p1 * l1) / m2, tail),
    )
    if own1[1] < c1 and own2[1] < c2 and (own1, own2) != wide:
        return [(own1, own2), wide]
    return [wide]


# GMRES gives up when one restart cycle gains less than a factor 2; sparse LU then takes over
# (and solves thin windows, where it costs little, from the start)
_STAGNATION = 0.5
_THIN = 32  # windows with at most this many states along one axis go straight to LU
_DIRECT_MAX_STATES = 500_000  # LU of a 500k-state window: ~3 s and < 1 GB


def _solve_window(lam, servers, mu, p, window, tol, shifts, restart, max_restarts, certify):
    """Stationary law on one window: ADI-GMRES, or sparse LU where GMRES stagnates."""
    (c1, c2), (l1, l2), (m1, m2), (p1, p2) = servers, lam, mu, p
    (x0, x1), (y0, y1) = window
    k1 = np.arange(x0, x1 + 1, dtype=float)
    k2 = np.arange(y0, y1 + 1, dtype=float)
    up1 = np.full(k1.size, l1)
    up2 = np.full(k2.size, l2)
    down1 = k1 * m1
    down2 = k2 * m2
    down1[0] = 0.0  # reflect at the window edge (mass beyond it is below `tail`)
    down2[0] = 0.0
    extra1 = p2 * l2 if y1 == c2 else 0.0
    extra2 = p1 * l1 if x1 == c1 else 0.0
    stencil = grid_chain_stencil(up1, down1, extra1, up2, down2, extra2)
    iterations = 0
    direct_ok = k1.size * k2.size <= _DIRECT_MAX_STATES
    if (
        direct_ok
        and min(k1.size, k2.size) <= _THIN
        and min(k1.size, k2.size) < max(k1.size, k2.size)
    ):
        pi = _direct_stationary(stencil, _product_guess(lam, servers, mu, p, window))
        res, flow = stencil_residual(pi, *stencil)
        method = "sparse LU"
    else:
        pi, res, flow, iterations = _gmres(
            stencil, window, lam, servers, mu, p, tol, shifts, restart, max_restarts
        )
        method = "ADI-GMRES"
        rel = (res + _leak(pi, window, lam, servers, mu, p)) / flow
        if rel > certify and direct_ok:
            pi = _direct_stationary(stencil, _product_guess(lam, servers, mu, p, window))
            res, flow = stencil_residual(pi, *stencil)
            method = "sparse LU (GMRES stagnated)"
    res_full = res + _leak(pi, window, lam, servers, mu, p)
    return {
        "pi": pi,
        "residual": res_full,
        "relative_residual": res_full / flow,
        "iterations": iterations,
        "method": method,
        "window": window,
    }


def _product_guess(lam, servers, mu, p, window) -> np.ndarray:
    """Product form with each center fed by one overflow round of the other."""
    (c1, c2), (l1, l2), (m1, m2), (p1, p2) = servers, lam, mu, p
    (x0, x1), (y0, y1) = window
    b1 = math.exp(_log_erlang_pmf(c1, l1 / m1)[-1])
    b2 = math.exp(_log_erlang_pmf(c2, l2 / m2)[-1])
    g1 = np.exp(_log_erlang_pmf(c1, (l1 + p2 * l2 * b2) / m1)[x0 : x1 + 1])
    g2 = np.exp(_log_erlang_pmf(c2, (l2 + p1 * l1 * b1) / m2)[y0 : y1 + 1])
    return np.outer(g1 + 1e-300, g2 + 1e-300)


def _gmres(stencil, window, lam, servers, mu, p, tol, shifts, restart, max_restarts):
    """ADI-preconditioned GMRES, one restart cycle per kernel call, stopped on stagnation."""
    m1, m2 = mu
    right, left, up, down = stencil
    pi = _product_guess(lam, servers, mu, p, window)
    high = 2.0 * max((right + left).max(), (up + down).max(), 1e-300)
    low = min(0.5 * min(m1, m2), high / 4)
    shift_cycle = adi_shifts(low, high, shifts)
    iterations, previous = 0, math.inf
    for _cycle in range(max_restarts):
        pi, res, flow, its, converged = stationary_gmres(
            right, left, up, down, pi, shift_cycle, tol, restart, 1
        )
        iterations += its
        if converged or res > _STAGNATION * previous * flow:
            break
        previous = res / flow
    return pi, res, flow, iterations


def _leak(pi, window, lam, servers, mu, p) -> float:
    """Flow out of the window into the dropped states, counted twice in ||pi Q||_1 (out of
    one state, into a dropped one); an upper bound where forwarding could add to it."""
    (c1, c2), (l1, l2), (m1, m2), (p1, p2) = servers, lam, mu, p
    (x0, x1), (y0, y1) = window
    leak = 0.0
    if x0 > 0:
        leak += 2.0 * x0 * m1 * pi[0, :].sum()
    if y0 > 0:
        leak += 2.0 * y0 * m2 * pi[:, 0].sum()
    if x1 < c1:
        leak += 2.0 * (l1 + p2 * l2) * pi[-1, :].sum()
    if y1 < c2:
        leak += 2.0 * (l2 + p1 * l1) * pi[:, -1].sum()
    return float(leak)


def _direct_stationary(stencil, guess) -> np.ndarray:
    """pi Q = 0, sum pi = 1 by sparse LU (SuperLU).

    The most likely state of ``guess`` is pinned to 1 and its balance equation dropped (the
    chain is irreducible, so the remaining system is non-singular and keeps the stencil's
    sparsity; pinning a likely state keeps the unknowns of order one); the solution is then
    normalised and round-off negatives are clipped.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    shape = stencil[0].shape
    n = stencil[0].size
    rows, cols, vals = stencil_to_coo(*stencil)
    transposed = sp.csc_matrix((vals, (cols, rows)), shape=(n, n))  # Q^T
    pin = int(np.argmax(guess))
    free = np.delete(np.arange(n), pin)
    reduced = transposed[free][:, free].tocsc()
    x = np.empty(n)
    x[pin] = 1.0
    x[free] = spl.splu(reduced, permc_spec="MMD_AT_PLUS_A").solve(
        -transposed[free, pin].toarray().ravel()
    )
    x = np.maximum(x, 0.0)
    return (x / x.sum()).reshape(shape)


def blocking_exact(lam, servers, mu, p) -> tuple:
    """Exact blocking probabilities (beta1, beta2) of the two-center network.

    Parameters
    ----------
    lam : pair of float
        Arrival rates (lambda1, lambda2) > 0.
    servers : pair of int
        Numbers of servers (C1, C2), each in [1, 5000].
    mu : pair of float
        Service rates (mu1, mu2) > 0.
    p : pair of float
        Forwarding probabilities (p1, p2) in [0, 1].

    Returns
    -------
    (beta1, beta2) : tuple of float
        beta_i = (1 - p_i) P(L_i = C_i) + p_i P(L1 = C1, L2 = C2).

    See Also
    --------
    solve_exact : the same with residual, iterations and the distribution.

    References
    ----------
    Fricker et al. (2016), Section 2.1.
    """
    args = PARAMS.check("blocking_exact", lam=lam, servers=servers, mu=mu, p=p)
    return _solve_exact(**args, func="blocking_exact").beta


# ---------------------------------------------------------------------------------------------
# 2. scaling limit


def _limit_args(lam, c, mu, p, func):
    args = PARAMS.check(func, lam=lam, c=c, mu=mu, p=p)
    return args["lam"], args["c"], args["mu"], args["p"]


BOUNDARY_RTOL = 1e-9


def _classify(lam, c, mu, p):
    d1 = lam[0] - c[0] * mu[0]
    d2 = lam[1] - c[1] * mu[1]
    scale = lam[0] + lam[1] + c[0] * mu[0] + c[1] * mu[1]
    eps = BOUNDARY_RTOL * scale
    e1 = d2 + p[0] * d1  # center 2's net load once center 1 overflows (if d1 > 0)
    e2 = d1 + p[1] * d2
    if d1 > eps and d2 > eps:
        return "E"
    if d1 > eps and d2 <= eps:
        if e1 > eps:
            return "E"
        return "E/B1 boundary" if e1 >= -eps else "B1"
    if d2 > eps and d1 <= eps:
        if e2 > eps:
            return "E"
        return "E/B2 boundary" if e2 >= -eps else "B2"
    return "A"


def regime(lam, c, mu, p) -> str:
    """Regime of the scaling limit: 'A', 'B1', 'B2', 'E' or 'E/B1 boundary', 'E/B2 boundary'.

    (E): lambda1 > c1 mu1 and lambda2 + p1 (lambda1 - c1 mu1) > c2 mu2, or the symmetric
    condition: both centers are saturated with positive probability. (A): both underloaded.
    (B1): center 1 overloaded, center 2 absorbs its overflow. Points within a relative
    1e-9 of the (E) boundary are reported as boundary points.

    References
    ----------
    Fricker et al. (2016), condition (E) and Proposition 2.
    """
    lam, c, mu, p = _limit_args(lam, c, mu, p, "regime")
    return _classify(lam, c, mu, p)


@dataclass(frozen=True)
class LimitSolution:
    """Scaling limit of the two-center network (see :func:`limit_analysis`)."""

    regime: str
    beta: tuple
    pi00: float  # pi_c(0, 0): both centers saturated
    p_saturated: tuple  # P(m = 0), P(n = 0); NaN for p = (1, 1) near critical load (unused)
    truncation: tuple  # phases kept for m and for n (0: that coordinate is the exact level)
    truncation_error: float
    residual: float  # unused for the QBD method (0); kept for the box solver's results
    iterations: int  # logarithmic-reduction steps
    beta_error: float = 0.0  # bound on |beta - exact| implied by truncation_error


def _walk_pi00(lam, c, mu, p, box, tol):
    """Idle-server walk truncated to {0..M1} x {0..M2}; returns (pi, residual, iterations).

    Coordinates x = M1 - m, y = M2 - n, so that the corner (m, n) = (0, 0) is the grid's
    (M1, M2) and the overflow terms sit on the top edges as in the finite chain.
    """
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, c, mu, p
    b1, b2 = box
    up1 = np.full(b1 + 1, l1)  # m -> m - 1 (a server taken)
    down1 = np.full(b1 + 1, c1 * m1)  # m -> m + 1 (a service ends)
    up2 = np.full(b2 + 1, l2)
    down2 = np.full(b2 + 1, c2 * m2)
    right, left, up, down = grid_chain_stencil(up1, down1, p2 * l2, up2, down2, p1 * l1)
    # initial guess: independent geometric idle-server profiles
    r1 = min(c1 * m1 / l1, 0.999) if l1 > 0 else 0.5
    r2 = min(c2 * m2 / l2, 0.999) if l2 > 0 else 0.5
    g1 = r1 ** np.arange(b1, -1, -1.0) + 1e-300
    g2 = r2 ** np.arange(b2, -1, -1.0) + 1e-300
    high = 2.0 * max((right + left).max(), (up + down).max())
    gaps = [(math.sqrt(l1) - math.sqrt(c1 * m1)) ** 2, (math.sqrt(l2) - math.sqrt(c2 * m2)) ** 2]
    low = max(min(gaps), high * 4.0 / max(b1, b2) ** 2 / 100)
    pi, res, flow, it, _ = stationary_gmres(
        right,
        left,
        up,
        down,
        np.outer(g1, g2),
        adi_shifts(min(low, high / 4), high, 8),
        tol,
        20,
        200,
    )
    return pi, res, it


def limit_analysis(lam, c, mu, p, *, tol=1e-10, max_phases=800) -> LimitSolution:
    """Blocking probabilities in the scaling limit, with the regime and pi_c(0,0).

    Parameters
    ----------
    lam, c, mu : pairs of float > 0
        Scaled arrival rates (lambda_i N), capacities (c_i N) and service rates.
    p : pair of float in [0, 1]
    tol : float
        Target for the truncation error. The walk is solved as a quasi-birth-death process
        whose level is the coordinate with the heavier tail (exact, matrix-geometric in that
        coordinate) and whose phase, the other coordinate, is truncated where its geometric
        tail falls below tol.
    max_phases : int
        Largest phase truncation; the reported ``truncation_error`` (tail mass of the
        phase, mismatch of the drift relations) says how good it is.

    Returns
    -------
    LimitSolution

    Notes
    -----
    Under (E), with a = P(m = 0), b = P(n = 0), pi00 = pi_c(0, 0), the walk's mean drifts
    vanish: mu1 c1 = lambda1 (1 - a) + p2 lambda2 (b - pi00) and symmetrically, whence
    a = [(lambda1 - c1 mu1) + p2 (lambda2 - c2 mu2) - p2 pi00 (lambda2 + p1 lambda1)]
    / (lambda1 (1 - p1 p2)), and beta1 = (1 - p1) a + p1 pi00. Where that relation cancels
    large terms (one load dwarfs the other) P(m = 0) is read off the walk instead. On the
    (E) boundary pi00 = 0 and the (B) closed form holds (beta is continuous across it).
    For p = (1, 1), beta1 = beta2 = pi00 = (lambda1 + lambda2 - c1 mu1 - c2 mu2) /
    (lambda1 + lambda2) exactly (every server busy, every lost request counted once).

    Raises
    ------
    UncertifiedSolutionError
        When the truncation error bound on beta exceeds max(tol, 1e-8): close to critical
        load both idle-server counts have heavy tails and the walk cannot be truncated; the
        message says how far off the answer could be.

    References
    ----------
    Fricker et al. (2016), Proposition 2 (limit of the loss probabilities), Section 3
    (the blocking probabilities in terms of pi_c(0,0)).
    """
    func = "limit_analysis"
    lam, c, mu, p = _limit_args(lam, c, mu, p, func)
    tol = PARAMS["limit_tol"].with_(name="tol").check(tol, func)
    max_phases = PARAMS["max_phases"].check(max_phases, func)
    return _limit_analysis(lam, c, mu, p, tol=tol, max_phases=max_phases)


def _limit_analysis(lam, c, mu, p, *, tol=1e-10, max_phases=800) -> LimitSolution:
    """:func:`limit_analysis` on checked arguments."""
    reg = _classify(lam, c, mu, p)
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, c, mu, p
    if reg == "A":
        return LimitSolution(reg, (0.0, 0.0), 0.0, (0.0, 0.0), (0, 0), 0.0, 0.0, 0)
    if reg in ("B1", "E/B1 boundary"):
        a = 1 - c1 * m1 / l1
        return LimitSolution(reg, ((1 - p1) * a, 0.0), 0.0, (a, 0.0), (0, 0), 0.0, 0.0, 0)
    if reg in ("B2", "E/B2 boundary"):
        b = 1 - c2 * m2 / l2
        return LimitSolution(reg, (0.0, (1 - p2) * b), 0.0, (0.0, b), (0, 0), 0.0, 0.0, 0)
    d1, d2 = l1 - c1 * m1, l2 - c2 * m2
    rho1, rho2 = c1 * m1 / l1, c2 * m2 / l2  # interior decay ratios of m and of n
    # the level is the coordinate with the heavier tail; the other is truncated (geometric)
    level_n = d1 > 0 and (d2 <= 0 or rho1 <= rho2)
    rho_phase = rho1 if level_n else rho2
    needed = max(math.ceil(math.log(tol * 1e-2) / math.log(rho_phase)) + 8, 16)
    full_pooling = p1 == 1.0 and p2 == 1.0
    if full_pooling and needed > 200:
        # beta1 = beta2 = pi00 is exact without the walk (see below); the walk would only
        # give P(m = 0) and P(n = 0), and too slowly this close to critical load
        pi00 = (l1 + l2 - c1 * m1 - c2 * m2) / (l1 + l2)
        beta = (_unit(pi00), _unit(pi00))
        return LimitSolution(reg, beta, pi00, (math.nan, math.nan), (0, 0), 0.0, 0.0, 0, 0.0)
    phases = int(min(needed, max_phases))
    # mass beyond the last quarter of the phases decays like rho_phase^k: when even
    # max_phases cannot bring it below the target, fail now instead of after the solve
    predicted_tail = rho_phase ** (0.75 * phases)
    if not full_pooling and predicted_tail > max(tol, 1e-8):
        raise UncertifiedSolutionError(
            f"limit_analysis: the idle-server walk at lam={lam!r}, c={c!r}, mu={mu!r}, "
            f"p={p!r} needs about {needed} phases (the limit is {max_phases}): its tail "
            f"decays like {rho_phase:.6g}^k, so the truncation error would be about "
            f"{predicted_tail:.1e} (> {max(tol, 1e-8):.0e}). This happens within a small "
            "relative distance of critical load, where both idle-server counts have heavy "
            "tails; move away from it or raise max_phases."
        )
    if level_n:
        marg, p_level0, pi00, _, iterations, g_err = idle_walk_qbd(
            l1, l2, c1 * m1, c2 * m2, p1, p2, phases, 1e-14, 200
        )
        a_walk, b_walk = float(marg[0]), float(p_level0)
    else:
        marg, p_level0, pi00, _, iterations, g_err = idle_walk_qbd(
            l2, l1, c2 * m2, c1 * m1, p2, p1, phases, 1e-14, 200
        )
        a_walk, b_walk = float(p_level0), float(marg[0])
    tail = float(marg[phases - phases // 4 :].sum())
    # error of the walk's probabilities: phase truncation (mass near the cut) and the
    # logarithmic reduction's defect, never below round-off
    walk_error = max(tail, float(g_err), 1e-13)
    den = 1 - p1 * p2
    if den > 0:
        pi00 = float(pi00)
        a_drift = (d1 + p2 * d2 - p2 * pi00 * (l2 + p1 * l1)) / (l1 * den)
        b_drift = (d2 + p1 * d1 - p1 * pi00 * (l1 + p2 * l2)) / (l2 * den)
        # P(m = 0) from the drift relation amplifies pi00's error by these factors (large
        # when one center's load dwarfs the other's: the relation then cancels big terms);
        # take whichever of the relation and the walk's own marginal is better conditioned
        gain_a = p2 * (l2 + p1 * l1) / (l1 * den)
        gain_b = p1 * (l1 + p2 * l2) / (l2 * den)
        a, err_a = (a_drift, gain_a * walk_error) if gain_a < 1 else (a_walk, walk_error)
        b, err_b = (b_drift, gain_b * walk_error) if gain_b < 1 else (b_walk, walk_error)
        error = max(walk_error, abs(a_drift - a_walk), abs(b_drift - b_walk))
        beta_error = max((1 - p1) * err_a + p1 * walk_error, (1 - p2) * err_b + p2 * walk_error)
    else:
        # p1 = p2 = 1: beta1 = beta2 = pi00, and all servers are busy in the limit, so
        # lam1 beta1 + lam2 beta2 = lam1 + lam2 - c1 mu1 - c2 mu2 fixes pi00 exactly.
        # P(m = 0) and P(n = 0) are not determined by the drifts: read them off the walk.
        pi00 = (d1 + d2) / (l1 + l2)
        a, b = a_walk, b_walk
        error = walk_error
        beta_error = 0.0
    if beta_error > max(tol, 1e-8):
        raise UncertifiedSolutionError(
            f"limit_analysis: the idle-server walk at lam={lam!r}, c={c!r}, mu={mu!r}, "
            f"p={p!r} could not be solved accurately enough: truncated at {phases} phases, "
            f"error estimate {walk_error:.1e} on its probabilities, i.e. up to "
            f"{beta_error:.1e} on beta "
            f"(> {max(tol, 1e-8):.0e}). This happens within a small relative distance of "
            "critical load, where both idle-server counts have heavy tails."
        )
    beta = (_unit((1 - p1) * a + p1 * pi00), _unit((1 - p2) * b + p2 * pi00))
    box = (phases, 0) if level_n else (0, phases)
    return LimitSolution(
        reg,
        beta,
        pi00,
        (_unit(a), _unit(b)),
        box,
        float(error),
        0.0,
        int(iterations),
        float(beta_error),
    )


def blocking_limit(lam, c, mu, p) -> tuple:
    """Blocking probabilities (beta1, beta2) in the limit lambda_i N, c_i N, N -> infinity.

    Parameters
    ----------
    lam : pair of float
        Scaled arrival rates (lambda1, lambda2) > 0 (the centers receive lambda_i N).
    c : pair of float
        Scaled capacities (c1, c2) > 0 (the centers have c_i N servers).
    mu : pair of float
        Service rates > 0.
    p : pair of float
        Forwarding probabilities in [0, 1].

    Returns
    -------
    (beta1, beta2) : tuple of float
        (A): (0, 0). (B1): ((1 - p1)(1 - c1 mu1 / lambda1), 0). (B2) symmetric. (E): from
        pi_c(0, 0) of the idle-server random walk, see :func:`limit_analysis`.

    References
    ----------
    Fricker et al. (2016), Proposition 2 and Section 3.
    """
    lam, c, mu, p = _limit_args(lam, c, mu, p, "blocking_limit")
    return _limit_analysis(lam, c, mu, p).beta


# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 4. ring of J centers


def ring_limit(lam, c, mu, p) -> pd.DataFrame:
    """Pairwise reduction of the ring in the scaling limit, where it applies.

    A center is *saturated* if its own load exceeds its capacity, or if the overflow it
    receives from saturated neighbours does. Saturated centers form runs around the ring:

    - run of one center j: beta_j = (1 - 2 p_j)(1 - c_j mu_j / lambda_j);
    - run of two (j, j+1): the two-center idle-server walk with (p1, p2) = (p_j, p_{j+1})
      gives pi00, P(m=0), P(n=0); beta_j = (1 - 2 p_j) P(m=0) + p_j pi00, and symmetrically;
      the outer neighbours j-1 and j+2 must absorb the pair's overflow;
    - run of three or more: the reduction does not apply (a walk in N^3 would be needed);
      beta is NaN and ``reduction`` says so.

    Returns
    -------
    pandas.DataFrame
        One row per center: ``center``, ``saturated``, ``reduction`` ('underloaded',
        'isolated', 'pair', 'not applicable (run of k)') and ``beta``.

    References
    ----------
    Fricker et al. (2016), Section 2.4, conditions (E_j) and (5).
    """
    func = "ring_limit"
    lam, c, mu, p = _ring_args(lam, c, mu, p, func, servers_name="c")
    n = lam.size
    cap = c * mu
    sat = lam > cap
    # overflow of isolated saturated centers; grow the saturated set to a fixed point
    for _ in range(n):
        spill = np.where(sat, p * np.maximum(lam - cap, 0.0), 0.0)
        inflow = lam + np.roll(spill, 1) + np.roll(spill, -1)
        new = sat | (inflow > cap)
        if np.array_equal(new, sat):
            break
        sat = new
    reduction = np.array(["underloaded"] * n, dtype=object)
    beta = np.zeros(n)
    if sat.all():
        reduction[:] = f"not applicable (run of {n})"
        beta[:] = np.nan
        return pd.DataFrame(
            {"center": range(n), "saturated": sat, "reduction": reduction, "beta": beta}
        )
    start = int(np.argmin(sat))  # an unsaturated center: runs do not wrap past it
    order = [(start + k) % n for k in range(n)]
    runs, current = [], []
    for j in order:
        if sat[j]:
            current.append(j)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    for run in runs:
        if len(run) == 1:
            j = run[0]
            reduction[j] = "isolated"
            beta[j] = (1 - 2 * p[j]) * (1 - cap[j] / lam[j])
        elif len(run) == 2:
            j, k = run
            sol = _limit_analysis((lam[j], lam[k]), (c[j], c[k]), (mu[j], mu[k]), (p[j], p[k]))
            a, b = sol.p_saturated
            left, right = (j - 1) % n, (k + 1) % n
            ok = (lam[left] + p[j] * lam[j] * a < cap[left]) and (
                lam[right] + p[k] * lam[k] * b < cap[right]
            )
            if sol.regime == "E" and ok:
                reduction[j] = reduction[k] = "pair"
                beta[j] = (1 - 2 * p[j]) * a + p[j] * sol.pi00
                beta[k] = (1 - 2 * p[k]) * b + p[k] * sol.pi00
            else:
                reduction[j] = reduction[k] = "not applicable (run of 3)"
                beta[j] = beta[k] = np.nan
        else:
            for j in run:
                reduction[j] = f"not applicable (run of {len(run)})"
                beta[j] = np.nan
    return pd.DataFrame(
        {"center": range(n), "saturated": sat, "reduction": reduction, "beta": beta}
    )


# ---------------------------------------------------------------------------------------------
# 5. studies: convergence in N, forwarding that minimises the loss


def _convergence_row(N, lam, c, mu, p, limit_beta) -> dict:
    caps = (max(1, round(c[0] * N)), max(1, round(c[1] * N)))
    sol = _solve_exact((lam[0] * N, lam[1] * N), caps, mu, p, func="convergence_table")
    e1, e2 = sol.beta[0] - limit_beta[0], sol.beta[1] - limit_beta[1]
    return {
        "C1": caps[0],
        "C2": caps[1],
        "beta1": sol.beta[0],
        "beta2": sol.beta[1],
        "limit_beta1": limit_beta[0],
        "limit_beta2": limit_beta[1],
        "error1": e1,
        "error2": e2,
        "N_error1": N * e1,
        "N_error2": N * e2,
        "relative_residual": sol.relative_residual,
        "iterations": sol.iterations,
        "seconds": sol.seconds,
    }


def _deterministic(frame: pd.DataFrame) -> pd.DataFrame:
    """A sweep of a deterministic function: drop the (unused) replication and seed columns."""
    return frame.drop(columns=["replication", "seed"])


def convergence_table(
    lam=EXAMPLE["lam"],
    c=EXAMPLE["c"],
    mu=EXAMPLE["mu"],
    p=EXAMPLE["p"],
    sizes=(10, 20, 50, 100, 200, 500, 1000),
    progress=False,
) -> pd.DataFrame:
    """Exact beta at C_i = c_i N, arrivals lambda_i N, for growing N, next to the limit.

    Returns one row per N with ``beta1``, ``beta2``, the limit values, the errors, the
    solver's relative residual and iterations, and N * error (constant if the error is O(1/N)).
    The sizes run through :func:`workbench.sweep.sweep` (``progress`` shows its bar).

    References
    ----------
    Fricker et al. (2016), Proposition 2 (the limit the exact values approach).
    """
    func = "convergence_table"
    lam, c, mu, p = _limit_args(lam, c, mu, p, func)
    sizes = _check_ring_vector(sizes, PARAMS["sizes"], None, func)
    if not sizes:
        raise ParameterError(
            f"The 'sizes' parameter of {func} must be a non-empty sequence of ints in "
            f"[1, {PARAMS['sizes'].high}]. Got {sizes!r} instead."
        )
    lim = _limit_analysis(lam, c, mu, p)
    fixed = {"lam": lam, "c": c, "mu": mu, "p": p, "limit_beta": lim.beta}
    progress = check_bool(progress, "progress", func)
    frame = sweep(_convergence_row, {"N": sizes}, fixed=fixed, n_workers=1, progress=progress)
    return _deterministic(frame)


def _forwarding_row(p1, p2, lam, servers, mu) -> dict:
    b1, b2 = _solve_exact(lam, servers, mu, (p1, p2), tol=1e-10, func="optimal_forwarding").beta
    return {
        "beta1": b1,
        "beta2": b2,
        "loss_rate": lam[0] * b1 + lam[1] * b2,
        "max_beta": max(b1, b2),
    }


def optimal_forwarding(lam, servers, mu, *, grid=11, progress=False) -> pd.DataFrame:
    """Exact beta1, beta2 and the loss rate over a grid of (p1, p2) in [0, 1]^2.

    The rows flagged ``min_loss`` minimise lambda1 beta1 + lambda2 beta2; ``fair`` marks the
    grid point with the smallest max(beta1, beta2) (max-min fairness between the classes).
    A step beyond the paper, which fixes p and compares the classes.
    """
    func = "optimal_forwarding"
    args = PARAMS.check(func, lam=lam, servers=servers, mu=mu, grid=grid)
    progress = check_bool(progress, "progress", func)
    values = [float(v) for v in np.linspace(0.0, 1.0, args["grid"])]
    frame = sweep(
        _forwarding_row,
        {"p1": values, "p2": values},
        fixed={"lam": args["lam"], "servers": args["servers"], "mu": args["mu"]},
        n_workers=1,
        progress=progress,
    )
    frame = _deterministic(frame)
    frame["min_loss"] = frame["loss_rate"] == frame["loss_rate"].min()
    frame["fair"] = frame["max_beta"] == frame["max_beta"].min()
    (l1, l2), (c1, c2), (m1, m2) = args["lam"], args["servers"], args["mu"]
    return frame.assign(lam1=l1, lam2=l2, C1=c1, C2=c2, mu1=m1, mu2=m2)
