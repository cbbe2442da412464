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
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.datacenters.kernels import (
    adi_shifts,
    grid_chain_stencil,
    idle_walk_qbd,
    stationary_gmres,
)
from workbench.datacenters.params import EXAMPLE, MAX_STATES, PARAMS, check_ring_vector
from workbench.sweep import sweep
from workbench.validation import ParameterError

__all__ = [
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

    Notes
    -----
    Transitions (Section 2.1): (l1, l2) -> (l1+1, l2) at lambda1 1{l1<C1} +
    p2 lambda2 1{l2=C2, l1<C1}; symmetric for l2; departures at l_i mu_i. The generator is
    built as a 5-point stencil by a jitted kernel and solved by restarted GMRES
    preconditioned with Peaceman-Rachford ADI sweeps (tridiagonal solves along x and along
    y), starting from the product of the two Erlang distributions (the p = 0 solution).

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
    (c1, c2), (l1, l2), (m1, m2), (p1, p2) = servers, lam, mu, p
    if tail > 0:
        x0, x1 = _window(c1, l1 / m1, (l1 + p2 * l2) / m1, tail)
        y0, y1 = _window(c2, l2 / m2, (l2 + p1 * l1) / m2, tail)
    else:
        x0, x1, y0, y1 = 0, c1, 0, c2
    n_window = (x1 - x0 + 1) * (y1 - y0 + 1)
    if n_window > MAX_STATES:
        raise ParameterError(
            f"The 'servers' parameter of {func} must give at most {MAX_STATES} states to "
            f"solve (after dropping tails below {tail:g}). Got {servers!r} instead "
            f"({n_window} states)."
        )
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
    right, left, up, down = grid_chain_stencil(up1, down1, extra1, up2, down2, extra2)
    # initial guess: product form with each center fed by one overflow round of the other
    b1 = math.exp(_log_erlang_pmf(c1, l1 / m1)[-1])
    b2 = math.exp(_log_erlang_pmf(c2, l2 / m2)[-1])
    g1 = np.exp(_log_erlang_pmf(c1, (l1 + p2 * l2 * b2) / m1)[x0 : x1 + 1])
    g2 = np.exp(_log_erlang_pmf(c2, (l2 + p1 * l1 * b1) / m2)[y0 : y1 + 1])
    pi0 = np.outer(g1 + 1e-300, g2 + 1e-300)
    high = 2.0 * max((right + left).max(), (up + down).max(), 1e-300)
    low = min(0.5 * min(m1, m2), high / 4)
    pi, res, flow, iters, converged = stationary_gmres(
        right, left, up, down, pi0, adi_shifts(low, high, shifts), tol, restart, max_restarts
    )
    # leakage through the dropped tails counts twice in ||pi Q||_1 (out of one state, into
    # a dropped one)
    leak = 0.0
    if x0 > 0:
        leak += 2.0 * x0 * m1 * pi[0, :].sum()
    if y0 > 0:
        leak += 2.0 * y0 * m2 * pi[:, 0].sum()
    if x1 < c1:
        leak += 2.0 * (l1 + p2 * l2) * pi[-1, :].sum()
    if y1 < c2:
        leak += 2.0 * (l2 + p1 * l1) * pi[:, -1].sum()
    res_full = res + leak
    if not converged:
        warnings.warn(
            f"solve_exact: GMRES stopped after {iters} iterations with relative residual "
            f"{res_full / flow:.2e} > tol={tol:g}",
            RuntimeWarning,
            stacklevel=2,
        )
    pf1 = float(pi[-1, :].sum()) if x1 == c1 else 0.0
    pf2 = float(pi[:, -1].sum()) if y1 == c2 else 0.0
    pboth = float(pi[-1, -1]) if (x1 == c1 and y1 == c2) else 0.0
    beta = ((1 - p1) * pf1 + p1 * pboth, (1 - p2) * pf2 + p2 * pboth)
    busy = (float(pi.sum(axis=1) @ k1), float(pi.sum(axis=0) @ k2))
    accepted = (l1 * (1 - pf1) + p2 * l2 * (pf2 - pboth), l2 * (1 - pf2) + p1 * l1 * (pf1 - pboth))
    sol = ExactSolution(
        beta=(float(beta[0]), float(beta[1])),
        p_full=(pf1, pf2),
        p_both_full=pboth,
        mean_busy=busy,
        accepted=(float(accepted[0]), float(accepted[1])),
        residual=float(res_full),
        relative_residual=float(res_full / flow),
        iterations=int(iters),
        converged=bool(converged),
        n_states=(c1 + 1) * (c2 + 1),
        window=((x0, x1), (y0, y1)),
        seconds=time.perf_counter() - t0,
        grid=(c1, c2),
        distribution=pi,
    )
    return sol


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
    p_saturated: tuple  # P(m = 0), P(n = 0)
    truncation: tuple  # phases kept for m and for n (0: that coordinate is the exact level)
    truncation_error: float
    residual: float  # unused for the QBD method (0); kept for the box solver's results
    iterations: int  # logarithmic-reduction steps


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
    / (lambda1 (1 - p1 p2)), and beta1 = (1 - p1) a + p1 pi00. On the (E)
    boundary pi00 = 0 and the (B) closed form holds (beta is continuous across it).

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
    phases = int(
        min(max(math.ceil(math.log(tol * 1e-2) / math.log(rho_phase)) + 8, 16), max_phases)
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
    pi00 = float(pi00)
    tail = float(marg[phases - phases // 4 :].sum())
    den = 1 - p1 * p2
    if den > 0:
        a = (d1 + p2 * d2 - p2 * pi00 * (l2 + p1 * l1)) / (l1 * den)
        b = (d2 + p1 * d1 - p1 * pi00 * (l1 + p2 * l2)) / (l2 * den)
    else:  # p1 = p2 = 1: the two drift equations coincide; read P(m=0), P(n=0) off the walk
        a, b = a_walk, b_walk
    # the drift relations hold for the untruncated walk: their mismatch measures truncation
    error = max(tail, abs(a - a_walk), abs(b - b_walk), float(g_err))
    if error > max(tol, 1e-8):
        warnings.warn(
            f"limit_analysis: idle-server walk truncated at {phases} phases with error "
            f"estimate {error:.1e} > tol={tol:g} (close to the (E) boundary)",
            RuntimeWarning,
            stacklevel=2,
        )
    beta = ((1 - p1) * a + p1 * pi00, (1 - p2) * b + p2 * pi00)
    box = (phases, 0) if level_n else (0, phases)
    return LimitSolution(
        reg,
        (float(beta[0]), float(beta[1])),
        pi00,
        (float(a), float(b)),
        box,
        float(error),
        0.0,
        int(iterations),
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


def _ring_args(lam, servers, mu, p, func, servers_name="servers"):
    """Checked ring arguments as arrays: a rate per center; servers (or c), mu, p per center
    or one value for all."""
    lam = check_ring_vector(lam, PARAMS["ring_lam"], None, func, name="lam")
    n = len(lam)
    if n < 3 or n > 64:
        raise ParameterError(
            f"The 'lam' parameter of {func} must be a sequence of 3 to 64 rates (one per "
            f"center of the ring). Got {n} values instead."
        )
    caps = check_ring_vector(servers, PARAMS[servers_name].with_(pair=False), n, func)
    mu = check_ring_vector(mu, PARAMS["mu"].with_(pair=False), n, func)
    p = check_ring_vector(p, PARAMS["ring_p"], n, func, name="p")
    caps = np.array(caps, dtype=np.int64 if servers_name == "servers" else float)
    return np.array(lam), caps, np.array(mu), np.array(p)


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
    sizes = check_ring_vector(sizes, PARAMS["sizes"], None, func)
    if not sizes:
        raise ParameterError(
            f"The 'sizes' parameter of {func} must be a non-empty sequence of ints in "
            f"[1, {PARAMS['sizes'].high}]. Got {sizes!r} instead."
        )
    lim = _limit_analysis(lam, c, mu, p)
    fixed = {"lam": lam, "c": c, "mu": mu, "p": p, "limit_beta": lim.beta}
    frame = sweep(_convergence_row, {"N": sizes}, fixed=fixed, n_workers=1, progress=bool(progress))
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
    values = [float(v) for v in np.linspace(0.0, 1.0, args["grid"])]
    frame = sweep(
        _forwarding_row,
        {"p1": values, "p2": values},
        fixed={"lam": args["lam"], "servers": args["servers"], "mu": args["mu"]},
        n_workers=1,
        progress=bool(progress),
    )
    frame = _deterministic(frame)
    frame["min_loss"] = frame["loss_rate"] == frame["loss_rate"].min()
    frame["fair"] = frame["max_beta"] == frame["max_beta"].min()
    return frame
