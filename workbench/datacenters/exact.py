"""The exact two-center chain of P3 on {0..C1} x {0..C2}, solved to a certified residual.

:func:`solve_exact` / :func:`blocking_exact` / :func:`station_table`: the generator is built
as a 5-point stencil (:func:`workbench.kernels.markov.grid_chain_stencil`) and πQ = 0 is
solved by ADI-preconditioned GMRES, or by sparse LU where GMRES stagnates or the window is
thin. States whose mass is provably negligible (comparison with Erlang systems) are dropped;
the residual over the whole grid certifies the answer.

References
----------
Fricker, Guillemin, Robert, Thompson (2016), Section 2.1 (the chain and the loss
probabilities).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from workbench.datacenters.params import CENTERS, MAX_STATES, P3Params
from workbench.kernels.markov import (
    adi_shifts,
    grid_chain_stencil,
    stationary_gmres,
    stencil_residual,
    stencil_to_coo,
)
from workbench.params import takes
from workbench.validation import ParameterError

__all__ = [
    "UncertifiedSolutionError",
    "ExactSolution",
    "solve_exact",
    "blocking_exact",
    "station_table",
]


#: the solver's settings, after the centers' pairs in :func:`solve_exact`
SOLVER = ("tol", "tail", "shifts", "restart", "max_restarts")


class UncertifiedSolutionError(ParameterError, RuntimeError):
    """The solver could not bring the balance-equation residual below its target.

    Raised instead of returning a distribution nobody can vouch for; the message gives the
    residual reached. A :class:`workbench.validation.ParameterError` too: the library's own
    error, about a setting (solver tolerances, a tail too large) that cannot be honoured.
    """


@dataclass(frozen=True)
class ExactSolution:
    """Stationary solution of the two-center chain (see :func:`solve_exact`).

    Parameters
    ----------
    beta : (float, float)
        Loss probability of each class, β_i = (1 − p_i) P(ℓ_i = C_i) + p_i P(both full).
    p_full : (float, float)
        P(ℓ1 = C1), P(ℓ2 = C2).
    p_both_full : float
        P(ℓ1 = C1, ℓ2 = C2): a forwarded request is lost too.
    mean_busy : (float, float)
        Mean number of busy servers of each center.
    accepted : (float, float)
        Accepted rate at each center (own and forwarded-in requests) [1/s].
    residual : float
        ‖πQ‖₁ over the whole grid, the flow out of the window included.
    relative_residual : float
        ``residual`` / Σ π(s) q(s): the certificate.
    iterations : int
        GMRES iterations (0 for sparse LU).
    converged : bool
        Always True: an uncertified solution raises instead.
    n_states : int
        States of the whole grid, (C1 + 1)(C2 + 1).
    window : ((int, int), (int, int))
        The busy-server ranges solved on; outside them the mass is below ``tail`` by
        stochastic comparison with Erlang systems, and zero here.
    seconds : float
        Solve time.
    distribution : numpy.ndarray
        ``distribution[i, j]`` = P(ℓ1 = window[0][0] + i, ℓ2 = window[1][0] + j).
    grid : (int, int)
        (C1, C2).
    method : str
        ``"ADI-GMRES"``, ``"sparse LU"`` or ``"sparse LU (GMRES stagnated)"``.
    """

    beta: tuple
    p_full: tuple
    p_both_full: float
    mean_busy: tuple
    accepted: tuple
    residual: float
    relative_residual: float
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


@takes(P3Params, *CENTERS, positional=True)
def station_table(par) -> pd.DataFrame:
    """Per center, as a network analyser shows it: utilisation, throughput, mean number, time.

    Takes the two centers' pairs (positional in this order) or one :class:`P3Params`.

    Returns
    -------
    pandas.DataFrame
        One row per center, from the exact chain: utilisation U_i = E[ℓ_i] / C_i,
        throughput X_i (accepted requests per unit time, own and forwarded-in), mean number
        E[ℓ_i], time per request T_i = E[ℓ_i] / X_i (Little's law; a loss system has no
        queue, so T_i = 1/μ_i), P(full) and β_i.

    References
    ----------
    Fricker et al. (2016), Section 2.1 (the chain whose stationary law this reads).
    """
    sol = _solve(par, "station_table")
    rows = []
    for i in (0, 1):
        throughput = sol.accepted[i]
        rows.append(
            {
                "center": i + 1,
                "servers C": par.servers[i],
                "arrival rate λ [1/s]": par.lam[i],
                "utilisation U": sol.mean_busy[i] / par.servers[i],
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


@takes(P3Params, *CENTERS, *SOLVER, positional=True)
def solve_exact(par) -> ExactSolution:
    """Exact stationary solution of the two-center loss network.

    Takes the keywords below (positional in this order) or one :class:`P3Params` alone.

    Parameters
    ----------
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
    return _solve(par, "solve_exact")


def _solve(par, func: str) -> ExactSolution:
    """The exact chain of a validated object; ``func``, the public door, names errors."""
    t0 = time.perf_counter()
    lam, servers, mu, p, tol = par.lam, par.servers, par.mu, par.p, par.tol
    tail, shifts, restart, max_restarts = par.tail, par.shifts, par.restart, par.max_restarts
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
        beta=(clip_unit(beta[0]), clip_unit(beta[1])),
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


def clip_unit(x: float) -> float:
    """A probability computed as a sum of non-negative terms, its last-bit round-off clipped.

    Parameters
    ----------
    x : float
        The computed probability.

    Returns
    -------
    float
        ``x`` clipped to [0, 1].
    """
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
_DIRECT_MAX_STATES = 500_000  # largest window factorised by sparse LU (its fill-in is memory)


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


@takes(P3Params, *CENTERS, positional=True)
def blocking_exact(par) -> tuple:
    """Exact blocking probabilities (beta1, beta2) of the two-center network.

    Takes the two centers' pairs (positional in this order) or one :class:`P3Params`.

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
    return _solve(par, "blocking_exact").beta
