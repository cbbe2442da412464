"""P3 - offloading between two cooperating data centers (and a ring of J centers).

Fricker, Guillemin, Robert, Thompson, "Analysis of an offloading scheme for data centers in
the framework of fog computing", ACM TOMPECS 1(4) 2016 (arXiv 1507.05746).

Data center i has C_i servers, Poisson(lambda_i) arrivals and Exp(mu_i) services. A request
finding its center full is forwarded with probability p_i to the other center (accepted there
if a server is free), and is otherwise rejected. The module reads top-down like the paper:

1. :func:`blocking_exact` / :func:`solve_exact` - the exact finite chain on
   {0..C1} x {0..C2} (Section 2), solved by ADI-preconditioned GMRES on its 5-point stencil.
2. :func:`regime`, :func:`blocking_limit`, :func:`limit_analysis` - the scaling limit
   lambda_i N, c_i N, N -> infinity: cases (A), (B1), (B2) in closed form, and under
   condition (E) pi_c(0,0) from the random walk of idle servers (truncated, with the
   truncation error reported), then beta from pi_c(0,0) (Sections 2.3 and 3).
3. :func:`simulate` - seeded simulation with confidence intervals (independent replications).
4. :func:`simulate_ring`, :func:`ring_limit` - the ring of J centers and the paper's pairwise
   reduction (Section 2.4), which stops applying when three neighbours are congested.
5. Figures (``FIGURES``), claims (``CLAIMS``) and the notebook's plot and widget helpers.

Equations not recovered from the paper (Theorem 3, Section 5) are replaced by the
reconstruction in ``shared/papers.md`` section P3; see the notebook for where the workbench
and that reconstruction are compared.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.kernels.loss_network import simulate_ring_kernel, simulate_two_centers_kernel
from workbench.kernels.markov import (
    adi_shifts,
    grid_chain_stencil,
    idle_walk_qbd,
    stationary_gmres,
)
from workbench.stats import t_half_width
from workbench.validation import (
    ParameterError,
    check_int,
    check_pair,
    check_probability,
    check_real,
    check_seed,
)

__all__ = [
    "blocking_exact",
    "solve_exact",
    "ExactSolution",
    "regime",
    "blocking_limit",
    "limit_analysis",
    "LimitSolution",
    "simulate",
    "simulate_ring",
    "ring_limit",
    "convergence_table",
    "optimal_forwarding",
    "plot_cooperation",
    "plot_exact_limit_simulation",
    "plot_convergence",
    "plot_regime_map",
    "plot_ring",
    "plot_loss_landscape",
    "explore",
    "explore_regimes",
    "explore_ring",
    "FIGURES",
    "CLAIMS",
]

MAX_SERVERS = 5000  # per center; the window actually solved is capped by MAX_STATES
MAX_STATES = 2_500_000
EXAMPLE = {"lam": (1.5, 0.8), "c": (1.0, 1.0), "mu": (1.0, 1.0), "p": (0.6, 0.3)}

# ---------------------------------------------------------------------------------------------
# validation


def _rates(value, name, func):
    a, b = check_pair(value, name, func)
    return (
        check_real(a, name, func, 0.0, None, low_open=True),
        check_real(b, name, func, 0.0, None, low_open=True),
    )


def _probs(value, name, func):
    a, b = check_pair(value, name, func)
    return check_probability(a, name, func), check_probability(b, name, func)


def _servers(value, name, func):
    a, b = check_pair(value, name, func)
    return check_int(a, name, func, 1, MAX_SERVERS), check_int(b, name, func, 1, MAX_SERVERS)


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
    Transitions (Section 2.1; papers.md P3): (l1, l2) -> (l1+1, l2) at lambda1 1{l1<C1} +
    p2 lambda2 1{l2=C2, l1<C1}; symmetric for l2; departures at l_i mu_i. The generator is
    built as a 5-point stencil by a jitted kernel and solved by restarted GMRES
    preconditioned with Peaceman-Rachford ADI sweeps (tridiagonal solves along x and along
    y), starting from the product of the two Erlang distributions (the p = 0 solution).

    References
    ----------
    Fricker et al. (2016), Section 2.1, transition rates and loss probabilities.
    """
    func = "solve_exact"
    lam = _rates(lam, "lam", func)
    mu = _rates(mu, "mu", func)
    servers = _servers(servers, "servers", func)
    p = _probs(p, "p", func)
    tol = check_real(tol, "tol", func, 1e-15, 1e-3)
    tail = check_real(tail, "tail", func, 0.0, 1e-6)
    shifts = check_int(shifts, "shifts", func, 1, 64)
    restart = check_int(restart, "restart", func, 2, 200)
    max_restarts = check_int(max_restarts, "max_restarts", func, 1, 10_000)
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
    func = "blocking_exact"
    lam = _rates(lam, "lam", func)
    mu = _rates(mu, "mu", func)
    servers = _servers(servers, "servers", func)
    p = _probs(p, "p", func)
    return solve_exact(lam, servers, mu, p).beta


# ---------------------------------------------------------------------------------------------
# 2. scaling limit


def _limit_args(lam, c, mu, p, func):
    return (
        _rates(lam, "lam", func),
        _rates(c, "c", func),
        _rates(mu, "mu", func),
        _probs(p, "p", func),
    )


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
    Fricker et al. (2016), condition (E) and Proposition 2; papers.md P3.
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
    / (lambda1 (1 - p1 p2)), and beta1 = (1 - p1) a + p1 pi00 (papers.md P3). On the (E)
    boundary pi00 = 0 and the (B) closed form holds (beta is continuous across it).

    References
    ----------
    Fricker et al. (2016), Proposition 2 (limit of the loss probabilities), Section 3
    (the blocking probabilities in terms of pi_c(0,0)).
    """
    lam, c, mu, p = _limit_args(lam, c, mu, p, "limit_analysis")
    tol = check_real(tol, "tol", "limit_analysis", 1e-14, 1e-3)
    max_phases = check_int(max_phases, "max_phases", "limit_analysis", 16, 4000)
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
    Fricker et al. (2016), Proposition 2 and Section 3; papers.md P3.
    """
    lam, c, mu, p = _limit_args(lam, c, mu, p, "blocking_limit")
    return limit_analysis(lam, c, mu, p).beta


# ---------------------------------------------------------------------------------------------
# 3. simulation


def _ci(values, level=0.95):
    return float(np.mean(values)), t_half_width(values, level)


def _summary(reps: pd.DataFrame, columns, level) -> pd.DataFrame:
    rows = []
    for col in columns:
        mean, half = _ci(reps[col].to_numpy(), level)
        rows.append(
            {
                "quantity": col,
                "estimate": mean,
                "half_width": half,
                "ci_low": mean - half,
                "ci_high": mean + half,
                "replications": len(reps),
            }
        )
    frame = pd.DataFrame(rows)
    frame.attrs["method"] = (
        f"{len(reps)} independent replications, Student-t {level:.0%} confidence intervals"
    )
    frame.attrs["replications"] = reps
    return frame


def simulate(
    lam, servers, mu, p, *, events=200_000, replications=10, warmup=0.1, seed=0, level=0.95
) -> pd.DataFrame:
    """Simulate the two-center network; blocking probabilities with confidence intervals.

    Parameters
    ----------
    lam, servers, mu, p : pairs
        As in :func:`blocking_exact`.
    events : int
        Events (arrivals and departures) per replication, in [1000, 5e7].
    replications : int
        Independent replications (each starts empty and discards its warm-up), in [2, 1000].
    warmup : float
        Fraction of each replication's events discarded, in [0, 0.9].
    seed : int
        Seed of the ``numpy.random.Generator``: same seed, same numbers.
    level : float
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per quantity (beta1, beta2, loss_rate, mean_busy1, mean_busy2, p_full1,
        p_full2, p_both_full) with ``estimate``, ``half_width``, ``ci_low``, ``ci_high``;
        ``frame.attrs['replications']`` holds the per-replication values, including the
        conservation counts (arrivals = served locally + served remotely + rejected).

    References
    ----------
    Fricker et al. (2016), Section 2.1 (the model simulated).
    """
    func = "simulate"
    lam = _rates(lam, "lam", func)
    mu = _rates(mu, "mu", func)
    servers = _servers(servers, "servers", func)
    p = _probs(p, "p", func)
    events = check_int(events, "events", func, 1000, 50_000_000)
    replications = check_int(replications, "replications", func, 2, 1000)
    warmup = check_real(warmup, "warmup", func, 0.0, 0.9)
    seed = check_seed(seed, func)
    level = check_real(level, "level", func, 0.5, 0.999)
    rng_seeds = np.random.SeedSequence(seed).spawn(replications)
    skip = int(warmup * events)
    rows = []
    for r, ss in enumerate(rng_seeds):
        gen = np.random.default_rng(ss)
        u_event = gen.random(events)
        u_forward = gen.random(events)
        counts, occ, _ = simulate_two_centers_kernel(
            lam[0],
            lam[1],
            mu[0],
            mu[1],
            p[0],
            p[1],
            servers[0],
            servers[1],
            0,
            0,
            u_event,
            u_forward,
            skip,
        )
        a1, a2 = counts[0], counts[6]
        rej1 = counts[3] + counts[4]
        rej2 = counts[9] + counts[10]
        t = occ[0]
        rows.append(
            {
                "replication": r,
                "beta1": rej1 / a1 if a1 else 0.0,
                "beta2": rej2 / a2 if a2 else 0.0,
                "loss_rate": (rej1 + rej2) / t,
                "mean_busy1": occ[1] / t,
                "mean_busy2": occ[2] / t,
                "p_full1": occ[3] / t,
                "p_full2": occ[4] / t,
                "p_both_full": occ[5] / t,
                "arrivals1": int(a1),
                "local1": int(counts[1]),
                "remote1": int(counts[2]),
                "rejected1": int(rej1),
                "arrivals2": int(a2),
                "local2": int(counts[7]),
                "remote2": int(counts[8]),
                "rejected2": int(rej2),
                "time": t,
            }
        )
    reps = pd.DataFrame(rows)
    return _summary(
        reps,
        [
            "beta1",
            "beta2",
            "loss_rate",
            "mean_busy1",
            "mean_busy2",
            "p_full1",
            "p_full2",
            "p_both_full",
        ],
        level,
    )


# ---------------------------------------------------------------------------------------------
# 4. ring of J centers


def _ring_args(lam, servers, mu, p, func, servers_name="servers"):
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    n = lam.size
    if n < 3 or n > 64:
        raise ParameterError(
            f"The 'lam' parameter of {func} must be a sequence of 3 to 64 rates (one per "
            f"center of the ring). Got {n} values instead."
        )

    def vec(v, name):
        arr = np.asarray(v, dtype=float)
        arr = np.full(n, float(arr)) if arr.ndim == 0 else arr
        if arr.shape != (n,):
            raise ParameterError(
                f"The '{name}' parameter of {func} must be a scalar or a sequence of {n} "
                f"values. Got {v!r} instead."
            )
        return arr

    lam = np.array([check_real(v, "lam", func, 0.0, None, low_open=True) for v in lam])
    mu = np.array([check_real(v, "mu", func, 0.0, None, low_open=True) for v in vec(mu, "mu")])
    p = np.array([check_real(v, "p", func, 0.0, 0.5) for v in vec(p, "p")])
    if servers_name == "servers":
        caps = np.array(
            [check_int(v, "servers", func, 1, MAX_SERVERS) for v in vec(servers, "servers")],
            dtype=np.int64,
        )
    else:
        caps = np.array(
            [
                check_real(v, servers_name, func, 0.0, None, low_open=True)
                for v in vec(servers, servers_name)
            ]
        )
    return lam, caps, mu, p


def simulate_ring(
    lam, servers, mu, p, *, events=400_000, replications=8, warmup=0.1, seed=0, level=0.95
) -> pd.DataFrame:
    """Simulate the ring of J centers; per-center blocking with confidence intervals.

    A request finding center j full is forwarded to center j-1 with probability p_j and to
    j+1 with probability p_j (so p_j <= 1/2), and rejected if its target is full too.

    Parameters
    ----------
    lam : sequence of J >= 3 floats > 0
    servers : int or sequence of J ints in [1, 5000]
    mu : float or sequence of J floats > 0
    p : float or sequence of J floats in [0, 0.5]
    events, replications, warmup, seed, level
        As in :func:`simulate`.

    Returns
    -------
    pandas.DataFrame
        One row per center: ``center``, ``beta``, ``half_width``, ``ci_low``, ``ci_high``,
        ``p_full`` and ``mean_busy``.

    References
    ----------
    Fricker et al. (2016), Section 2.4 (ring of data centers).
    """
    func = "simulate_ring"
    lam, caps, mu, p = _ring_args(lam, servers, mu, p, func)
    events = check_int(events, "events", func, 1000, 50_000_000)
    replications = check_int(replications, "replications", func, 2, 1000)
    warmup = check_real(warmup, "warmup", func, 0.0, 0.9)
    seed = check_seed(seed, func)
    level = check_real(level, "level", func, 0.5, 0.999)
    skip = int(warmup * events)
    n = lam.size
    betas, fulls, busys = [], [], []
    for ss in np.random.SeedSequence(seed).spawn(replications):
        gen = np.random.default_rng(ss)
        counts, occ, _ = simulate_ring_kernel(
            lam, mu, p, caps, np.zeros(n, np.int64), gen.random(events), gen.random(events), skip
        )
        arrivals = np.maximum(counts[:, 0], 1)
        betas.append((counts[:, 3] + counts[:, 4]) / arrivals)
        fulls.append(occ[1:, 1] / occ[0, 0])
        busys.append(occ[1:, 0] / occ[0, 0])
    betas, fulls, busys = np.array(betas), np.array(fulls), np.array(busys)
    rows = []
    for j in range(n):
        mean, half = _ci(betas[:, j], level)
        rows.append(
            {
                "center": j,
                "beta": mean,
                "half_width": half,
                "ci_low": mean - half,
                "ci_high": mean + half,
                "p_full": fulls[:, j].mean(),
                "mean_busy": busys[:, j].mean(),
            }
        )
    frame = pd.DataFrame(rows)
    frame.attrs["method"] = (
        f"{replications} independent replications, Student-t {level:.0%} confidence intervals"
    )
    return frame


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
            sol = limit_analysis((lam[j], lam[k]), (c[j], c[k]), (mu[j], mu[k]), (p[j], p[k]))
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
    """
    func = "convergence_table"
    lam, c, mu, p = _limit_args(lam, c, mu, p, func)
    lim = limit_analysis(lam, c, mu, p)
    rows = []
    from tqdm.auto import tqdm

    for n in tqdm(list(sizes), desc="exact chain vs N", disable=not progress):
        n = check_int(n, "sizes", func, 1, MAX_SERVERS)
        caps = (max(1, round(c[0] * n)), max(1, round(c[1] * n)))
        sol = solve_exact((lam[0] * n, lam[1] * n), caps, mu, p)
        e1, e2 = sol.beta[0] - lim.beta[0], sol.beta[1] - lim.beta[1]
        rows.append(
            {
                "N": n,
                "C1": caps[0],
                "C2": caps[1],
                "beta1": sol.beta[0],
                "beta2": sol.beta[1],
                "limit_beta1": lim.beta[0],
                "limit_beta2": lim.beta[1],
                "error1": e1,
                "error2": e2,
                "N_error1": n * e1,
                "N_error2": n * e2,
                "relative_residual": sol.relative_residual,
                "iterations": sol.iterations,
                "seconds": sol.seconds,
            }
        )
    return pd.DataFrame(rows)


def optimal_forwarding(lam, servers, mu, *, grid=11) -> pd.DataFrame:
    """Exact beta1, beta2 and the loss rate over a grid of (p1, p2) in [0, 1]^2.

    The rows flagged ``min_loss`` minimise lambda1 beta1 + lambda2 beta2; ``fair`` marks the
    grid point with the smallest max(beta1, beta2) (max-min fairness between the classes).
    A step beyond the paper, which fixes p and compares the classes.
    """
    func = "optimal_forwarding"
    lam = _rates(lam, "lam", func)
    mu = _rates(mu, "mu", func)
    servers = _servers(servers, "servers", func)
    grid = check_int(grid, "grid", func, 2, 101)
    values = np.linspace(0.0, 1.0, grid)
    rows = []
    for p1 in values:
        for p2 in values:
            b1, b2 = solve_exact(lam, servers, mu, (p1, p2), tol=1e-10).beta
            rows.append(
                {
                    "p1": p1,
                    "p2": p2,
                    "beta1": b1,
                    "beta2": b2,
                    "loss_rate": lam[0] * b1 + lam[1] * b2,
                    "max_beta": max(b1, b2),
                }
            )
    frame = pd.DataFrame(rows)
    frame["min_loss"] = frame["loss_rate"] == frame["loss_rate"].min()
    frame["fair"] = frame["max_beta"] == frame["max_beta"].min()
    return frame


# ---------------------------------------------------------------------------------------------
# 6. plots (each returns a matplotlib Figure and is what the notebook's sliders redraw)

_REGIME_CODES = {"A": 0, "B1": 1, "B2": 2, "E": 3}
_REGIME_COLORS = ["#d9ead3", "#fce5cd", "#cfe2f3", "#f4cccc"]


def _figure(ncols=1, nrows=1, width=5.2, height=3.6, fast=False, **kw):
    from workbench.plots import figure

    return figure(ncols=ncols, nrows=nrows, width=width, height=height, fast=fast, **kw)


def cooperation_frame(
    lam, servers, mu, p_other=0.3, vary="p1", points=21, limit=True
) -> pd.DataFrame:
    """Exact (and limit) beta1, beta2 and the loss fraction as one forwarding probability varies.

    ``servers`` = (C1, C2) = N (c1, c2) with N = max(C) is used for the limit's scaling.
    """
    func = "cooperation_frame"
    lam = _rates(lam, "lam", func)
    mu = _rates(mu, "mu", func)
    servers = _servers(servers, "servers", func)
    p_other = check_probability(p_other, "p_other", func)
    points = check_int(points, "points", func, 2, 201)
    if vary not in ("p1", "p2"):
        raise ParameterError(
            f"The 'vary' parameter of {func} must be 'p1' or 'p2'. Got {vary!r} instead."
        )
    n = max(servers)
    c = (servers[0] / n, servers[1] / n)
    rows = []
    for q in np.linspace(0.0, 1.0, points):
        p = (q, p_other) if vary == "p1" else (p_other, q)
        b1, b2 = solve_exact(lam, servers, mu, p, tol=1e-10).beta
        rows.append(
            {
                "p_varied": q,
                "model": f"exact (N={n})",
                "beta1": b1,
                "beta2": b2,
                "loss_fraction": (lam[0] * b1 + lam[1] * b2) / (lam[0] + lam[1]),
            }
        )
        if limit:
            l1, l2 = _cached_limit((lam[0] / n, lam[1] / n), c, mu, p)
            rows.append(
                {
                    "p_varied": q,
                    "model": "limit N→∞",
                    "beta1": l1,
                    "beta2": l2,
                    "loss_fraction": (lam[0] * l1 + lam[1] * l2) / (lam[0] + lam[1]),
                }
            )
    frame = pd.DataFrame(rows)
    frame.attrs["vary"] = vary
    return frame


_LIMIT_CACHE: dict = {}


def _cached_limit(lam, c, mu, p, tol=1e-8):
    key = tuple(round(float(v), 10) for v in (*lam, *c, *mu, *p))
    if key not in _LIMIT_CACHE:
        if len(_LIMIT_CACHE) > 4096:
            _LIMIT_CACHE.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _LIMIT_CACHE[key] = limit_analysis(lam, c, mu, p, tol=tol).beta
    return _LIMIT_CACHE[key]


def plot_cooperation(
    frame: pd.DataFrame | None = None,
    *,
    lam=(60.0, 32.0),
    servers=(40, 40),
    mu=(1.0, 1.0),
    p_other=0.3,
    vary="p1",
    points=21,
    fast=False,
):
    """beta1, beta2 and the loss fraction against p1 (or p2): the gain of cooperation and who
    pays for it. Solid: exact chain; dashed: scaling limit."""
    if frame is None:
        frame = cooperation_frame(lam, servers, mu, p_other, vary, points)
    vary = frame.attrs.get("vary", vary)
    fig, ax = _figure(fast=fast, width=6.0)
    colors = {"beta1": "C0", "beta2": "C1", "loss_fraction": "k"}
    labels = {
        "beta1": "β1 (class 1)",
        "beta2": "β2 (class 2)",
        "loss_fraction": "lost fraction of all requests",
    }
    for model, sub in frame.groupby("model", sort=False):
        style = "--" if model.startswith("limit") else "-"
        for col in ("beta1", "beta2", "loss_fraction"):
            ax.plot(
                sub["p_varied"], sub[col], style, color=colors[col], label=f"{labels[col]}, {model}"
            )
    ax.set_xlabel(f"forwarding probability {vary}")
    ax.set_ylabel("blocking probability")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="best")
    ax.set_title(f"Who pays for cooperation ({vary} varies)", fontsize=10)
    return fig


def exact_limit_simulation_frame(quick=True, seed=1) -> pd.DataFrame:
    """The papers.md example at several N: exact chain, simulation (CI) and the limit."""
    ex = EXAMPLE
    lim = limit_analysis(ex["lam"], ex["c"], ex["mu"], ex["p"])
    sizes = (10, 25, 50) if quick else (10, 25, 50, 100)
    rows = []
    for n in sizes:
        lam = (ex["lam"][0] * n, ex["lam"][1] * n)
        caps = (n, n)
        exact = solve_exact(lam, caps, ex["mu"], ex["p"]).beta
        sim = simulate(
            lam,
            caps,
            ex["mu"],
            ex["p"],
            events=100_000 if quick else 1_000_000,
            replications=8 if quick else 20,
            seed=seed,
        ).set_index("quantity")
        for i in (1, 2):
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "exact",
                    "beta": exact[i - 1],
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                }
            )
            s = sim.loc[f"beta{i}"]
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "simulation",
                    "beta": s["estimate"],
                    "ci_low": s["ci_low"],
                    "ci_high": s["ci_high"],
                }
            )
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "limit",
                    "beta": lim.beta[i - 1],
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                }
            )
    return pd.DataFrame(rows)


def _label_sizes(ax, sizes):
    """Log-scaled N axis labelled with the sizes actually computed."""
    sizes = sorted(set(int(n) for n in sizes))
    ax.set_xscale("log")
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.minorticks_off()


def plot_exact_limit_simulation(frame: pd.DataFrame):
    """Exact vs simulation (95% CI) vs limit for each class, against N."""
    from workbench.plots import ci_errorbar

    fig, axes = _figure(ncols=2, width=4.2)
    for ax, i in zip(axes, (1, 2), strict=True):
        sub = frame[frame["class"] == i]
        ex = sub[sub.model == "exact"]
        sim = sub[sub.model == "simulation"]
        lim = sub[sub.model == "limit"]
        ax.plot(ex["N"], ex["beta"], "o-", color="C0", label="exact chain")
        ci_errorbar(
            ax,
            sim["N"] * 1.04,
            sim["beta"],
            sim["ci_low"],
            sim["ci_high"],
            color="C2",
            label="simulation, 95% CI",
        )
        ax.axhline(lim["beta"].iloc[0], ls="--", color="k", label="limit N→∞")
        _label_sizes(ax, ex["N"])
        ax.set_xlabel("N (C_i = N, arrivals λ_i N)")
        ax.set_ylabel(f"β{i}")
        ax.set_title(f"class {i}", fontsize=10)
    axes[0].legend(fontsize=7)
    return fig


def plot_convergence(frame: pd.DataFrame, fast=False):
    """Exact beta_i(N) against the limit, and the error on log-log axes."""
    fig, axes = _figure(ncols=2, width=4.3, fast=fast)
    ax = axes[0]
    for i, color in ((1, "C0"), (2, "C1")):
        ax.plot(frame["N"], frame[f"beta{i}"], "o-", color=color, label=f"β{i} exact")
        ax.axhline(frame[f"limit_beta{i}"].iloc[0], ls="--", color=color, label=f"β{i} limit")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("N")
    ax.set_ylabel("blocking probability")
    ax.legend(fontsize=7)
    ax = axes[1]
    for i, color in ((1, "C0"), (2, "C1")):
        err = frame[f"error{i}"].abs()
        ax.loglog(frame["N"], err, "o-", color=color, label=f"|β{i}(N) − β{i}(∞)|")
    n = frame["N"].to_numpy(dtype=float)
    ref = frame["error2"].abs().iloc[0] * (n[0] / n) ** 0.5
    ax.loglog(n, ref, ":", color="gray", label="∝ N^(-1/2)")
    ax.loglog(n, frame["error2"].abs().iloc[0] * n[0] / n, "-.", color="gray", label="∝ 1/N")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("N")
    ax.set_ylabel("distance to the limit")
    ax.legend(fontsize=7)
    return fig


def regime_frame(p=EXAMPLE["p"], c=(1.0, 1.0), mu=(1.0, 1.0), lam_max=3.0, points=121):
    """Regime of the limit on a (lambda1, lambda2) grid, plus the limit's loss fraction where
    it is in closed form."""
    func = "regime_frame"
    p = _probs(p, "p", func)
    c = _rates(c, "c", func)
    mu = _rates(mu, "mu", func)
    lam_max = check_real(lam_max, "lam_max", func, 0.0, None, low_open=True)
    points = check_int(points, "points", func, 5, 401)
    values = np.linspace(lam_max / points, lam_max, points)
    rows = [
        {"lam1": a, "lam2": b, "regime": _classify((a, b), c, mu, p)}
        for a in values
        for b in values
    ]
    frame = pd.DataFrame(rows)
    frame.attrs.update(p=p, c=c, mu=mu)
    return frame


def plot_regime_map(
    frame: pd.DataFrame | None = None,
    *,
    p=EXAMPLE["p"],
    c=(1.0, 1.0),
    mu=(1.0, 1.0),
    lam_max=3.0,
    points=121,
    mark=EXAMPLE["lam"],
    fast=False,
):
    """Regions (A), (B1), (B2), (E) of the limit in the (lambda1, lambda2) plane."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    if frame is None:
        frame = regime_frame(p, c, mu, lam_max, points)
    p, c, mu = frame.attrs["p"], frame.attrs["c"], frame.attrs["mu"]
    codes = frame["regime"].map(lambda r: _REGIME_CODES.get(r, 3)).to_numpy()
    lam1 = np.unique(frame["lam1"])
    lam2 = np.unique(frame["lam2"])
    grid = codes.reshape(lam1.size, lam2.size).T
    fig, ax = _figure(fast=fast, width=5.0, height=4.2)
    ax.pcolormesh(
        lam1,
        lam2,
        grid,
        cmap=ListedColormap(_REGIME_COLORS),
        vmin=-0.5,
        vmax=3.5,
        shading="nearest",
    )
    k1, k2 = c[0] * mu[0], c[1] * mu[1]
    x = np.linspace(k1, lam1[-1], 50)
    ax.plot(x, k2 - p[0] * (x - k1), "k-", lw=1)  # E / B1 boundary
    y = np.linspace(k2, lam2[-1], 50)
    ax.plot(k1 - p[1] * (y - k2), y, "k-", lw=1)  # E / B2 boundary
    ax.axvline(k1, color="k", lw=0.5, ls=":")
    ax.axhline(k2, color="k", lw=0.5, ls=":")
    if mark is not None:
        ax.plot(*mark, "k*", ms=10)
    ax.set_xlim(lam1[0], lam1[-1])
    ax.set_ylim(lam2[0], lam2[-1])
    ax.set_xlabel("λ1 (per unit N)")
    ax.set_ylabel("λ2 (per unit N)")
    ax.legend(
        handles=[
            Patch(color=col, label=lab)
            for col, lab in zip(
                _REGIME_COLORS,
                [
                    "(A) both underloaded",
                    "(B1) 1 overflows into 2",
                    "(B2) 2 overflows into 1",
                    "(E) both saturated",
                ],
                strict=True,
            )
        ],
        fontsize=7,
        loc="upper right",
    )
    ax.set_title(f"regimes of the limit, p = ({p[0]:.2f}, {p[1]:.2f})", fontsize=10)
    return fig


RING_SCENARIOS = {
    "isolated hot spot": (1.6, 0.6, 0.6, 0.6, 0.6, 0.6),
    "two adjacent hot spots": (1.4, 1.2, 0.5, 0.5, 0.5, 0.5),
    "three adjacent hot spots": (1.3, 1.3, 1.3, 0.5, 0.5, 0.5),
}


def ring_frame(scenarios=None, n=40, p=0.25, quick=True, seed=2) -> pd.DataFrame:
    """Ring of J = 6 centers (c = mu = 1): simulation at N against the pairwise reduction."""
    scenarios = RING_SCENARIOS if scenarios is None else scenarios
    rows = []
    for name, lam in scenarios.items():
        lam = np.asarray(lam, dtype=float)
        red = ring_limit(lam, 1.0, 1.0, p)
        sim = simulate_ring(
            lam * n,
            n,
            1.0,
            p,
            events=150_000 if quick else 1_500_000,
            replications=6 if quick else 20,
            seed=seed,
        )
        for j in range(lam.size):
            rows.append(
                {
                    "scenario": name,
                    "center": j,
                    "lam": lam[j],
                    "reduction": red["reduction"][j],
                    "beta_limit": red["beta"][j],
                    "beta_sim": sim["beta"][j],
                    "ci_low": sim["ci_low"][j],
                    "ci_high": sim["ci_high"][j],
                    "N": n,
                }
            )
    return pd.DataFrame(rows)


def plot_ring(frame: pd.DataFrame, fast=False):
    """Per-center blocking in the ring: simulation (95% CI) and the pairwise reduction."""
    from workbench.plots import ci_errorbar

    names = list(dict.fromkeys(frame["scenario"]))
    fig, axes = _figure(ncols=len(names), width=3.6, fast=fast, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        sub = frame[frame.scenario == name]
        ci_errorbar(
            ax,
            sub["center"],
            sub["beta_sim"],
            sub["ci_low"],
            sub["ci_high"],
            color="C2",
            label=f"simulation N={sub['N'].iloc[0]}",
        )
        ok = sub["beta_limit"].notna()
        ax.plot(
            sub["center"][ok], sub["beta_limit"][ok], "kx", ms=8, label="pairwise reduction (N→∞)"
        )
        for _, row in sub[~ok].iterrows():
            ax.annotate(
                "n/a",
                (row["center"], row["beta_sim"]),
                textcoords="offset points",
                xytext=(0, 8),
                ha="center",
                fontsize=7,
                color="C3",
            )
        ax.set_xticks(sub["center"])
        ax.set_xticklabels(
            [f"{j}\nλ={v:g}" for j, v in zip(sub["center"], sub["lam"], strict=True)], fontsize=7
        )
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("β_j")
        ax.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=7)
    return fig


def plot_loss_landscape(frame: pd.DataFrame, lam=None, fast=False):
    """Loss rate and unfairness over (p1, p2): the step beyond the paper."""
    fig, axes = _figure(ncols=2, width=4.4, fast=fast)
    p1 = np.unique(frame["p1"])
    p2 = np.unique(frame["p2"])
    loss = frame["loss_rate"].to_numpy().reshape(p1.size, p2.size).T
    gap = (frame["beta1"] - frame["beta2"]).to_numpy().reshape(p1.size, p2.size).T
    im = axes[0].pcolormesh(p1, p2, loss, shading="nearest", cmap="viridis")
    fig.colorbar(im, ax=axes[0], label="loss rate λ1β1 + λ2β2")
    best = frame[frame.min_loss].iloc[0]
    axes[0].plot(best.p1, best.p2, "r*", ms=14, label="minimum loss", zorder=5, clip_on=False)
    im2 = axes[1].pcolormesh(
        p1, p2, gap, shading="nearest", cmap="coolwarm", vmin=-abs(gap).max(), vmax=abs(gap).max()
    )
    fig.colorbar(im2, ax=axes[1], label="β1 − β2")
    axes[1].contour(p1, p2, gap, levels=[0.0], colors="k", linewidths=1)
    fair = frame[frame.fair].iloc[0]
    axes[1].plot(fair.p1, fair.p2, "k*", ms=14, label="max-min fair", zorder=5, clip_on=False)
    for ax in axes:
        ax.set_xlabel("p1")
        ax.set_ylabel("p2")
        ax.legend(fontsize=7, loc="lower left", framealpha=0.9)
    axes[0].set_title("total loss", fontsize=10)
    axes[1].set_title("who pays (black line: β1 = β2)", fontsize=10)
    return fig


# ---------------------------------------------------------------------------------------------
# 7. interactive views (the notebook calls these; each is built with interactive_figure)


def _explore_plot(lam1, lam2, c1, c2, N, mu1, mu2, p1, p2):
    lam, mu = (lam1 * N, lam2 * N), (mu1, mu2)
    servers = (max(1, round(c1 * N)), max(1, round(c2 * N)))
    fig, axes = _figure(ncols=2, width=4.4, fast=True)
    grid = np.linspace(0.0, 1.0, 11)
    exact = np.array([solve_exact(lam, servers, mu, (q, p2), tol=1e-10).beta for q in grid])
    ax = axes[0]
    ax.plot(grid, exact[:, 0], "o-", color="C0", ms=3, label="β1 exact")
    ax.plot(grid, exact[:, 1], "o-", color="C1", ms=3, label="β2 exact")
    loss = (lam[0] * exact[:, 0] + lam[1] * exact[:, 1]) / (lam[0] + lam[1])
    ax.plot(grid, loss, "k-", label="lost fraction")
    ax.axvline(p1, color="0.5", ls=":")
    ax.set_xlabel(f"p1 (p2 = {p2:.2f})")
    ax.set_ylabel("blocking probability")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    ax.set_title(f"C = {servers}, λ = ({lam[0]:g}, {lam[1]:g})", fontsize=9)
    now = solve_exact(lam, servers, mu, (p1, p2), tol=1e-10).beta
    c = (servers[0] / N, servers[1] / N)
    reg = _classify((lam1, lam2), c, mu, (p1, p2))
    lim = _cached_limit((lam1, lam2), c, mu, (p1, p2), tol=1e-7)
    ax = axes[1]
    x = np.arange(2)
    ax.bar(x - 0.2, now, 0.4, label=f"exact, N={N}", color="C0")
    ax.bar(x + 0.2, lim, 0.4, label="limit N→∞", color="0.6")
    for xi, v in zip(np.r_[x - 0.2, x + 0.2], [*now, *lim], strict=True):
        ax.text(xi, v, f"{v:.3f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels(["β1", "β2"])
    ax.legend(fontsize=7)
    ax.set_title(f"p = ({p1:.2f}, {p2:.2f}); limit regime ({reg})", fontsize=9)
    return fig


def explore():
    """Sliders for lambda_i (per unit N), c_i, N, mu_i, p_i: blocking vs p1 and exact vs limit."""
    from workbench.widgets import interactive_figure

    return interactive_figure(
        _explore_plot,
        title="P3: two cooperating data centers",
        lam1=(0.1, 3.0, 0.05, 1.5),
        lam2=(0.1, 3.0, 0.05, 0.8),
        c1=(0.25, 2.0, 0.05, 1.0),
        c2=(0.25, 2.0, 0.05, 1.0),
        N=(2, 60, 1, 30),
        mu1=(0.25, 3.0, 0.05, 1.0),
        mu2=(0.25, 3.0, 0.05, 1.0),
        p1=(0.0, 1.0, 0.05, 0.6),
        p2=(0.0, 1.0, 0.05, 0.3),
    )


def _regime_plot(p1, p2, c1, c2):
    return plot_regime_map(p=(p1, p2), c=(c1, c2), points=81, fast=True)


def explore_regimes():
    """Sliders for p_i and c_i: the regime map in the (lambda1, lambda2) plane."""
    from workbench.widgets import interactive_figure

    return interactive_figure(
        _regime_plot,
        title="Regimes of the scaling limit",
        p1=(0.0, 1.0, 0.05, 0.6),
        p2=(0.0, 1.0, 0.05, 0.3),
        c1=(0.25, 2.0, 0.05, 1.0),
        c2=(0.25, 2.0, 0.05, 1.0),
    )


def _ring_plot(lam0, lam1, lam2, p, N):
    lam = (lam0, lam1, lam2, 0.5, 0.5, 0.5)
    frame = ring_frame({"ring of 6 (λ3..λ5 = 0.5)": lam}, n=N, p=p, quick=True, seed=3)
    return plot_ring(frame, fast=True)


def explore_ring():
    """Sliders for the loads of three adjacent centers of a ring of six: simulation against
    the pairwise reduction, which gives up when three neighbours are congested."""
    from workbench.widgets import interactive_figure

    return interactive_figure(
        _ring_plot,
        title="Ring of J = 6 centers",
        lam0=(0.2, 2.0, 0.05, 1.4),
        lam1=(0.2, 2.0, 0.05, 1.2),
        lam2=(0.2, 2.0, 0.05, 0.5),
        p=(0.0, 0.5, 0.05, 0.25),
        N=(5, 60, 5, 20),
    )


# ---------------------------------------------------------------------------------------------
# 8. figures and claims for `python -m workbench reproduce p3` / `claims p3`


def _fig_cooperation(quick: bool):
    ex = EXAMPLE
    n = 50 if quick else 200
    frame = cooperation_frame(
        (ex["lam"][0] * n, ex["lam"][1] * n),
        (n, n),
        ex["mu"],
        p_other=ex["p"][1],
        vary="p1",
        points=11 if quick else 41,
    )
    return frame, plot_cooperation(frame)


def _fig_exact_limit_simulation(quick: bool):
    frame = exact_limit_simulation_frame(quick=quick)
    return frame, plot_exact_limit_simulation(frame)


def _fig_convergence(quick: bool):
    sizes = (10, 20, 50, 100, 200) if quick else (10, 20, 50, 100, 200, 500, 1000, 2000)
    frame = convergence_table(sizes=sizes)
    return frame, plot_convergence(frame)


def _fig_regime_map(quick: bool):
    frame = regime_frame(points=61 if quick else 201)
    return frame, plot_regime_map(frame)


def _fig_ring(quick: bool):
    frame = ring_frame(quick=quick)
    return frame, plot_ring(frame)


def _fig_loss_landscape(quick: bool):
    n = 20 if quick else 50
    ex = EXAMPLE
    lam = (ex["lam"][0] * n, ex["lam"][1] * n)
    frame = optimal_forwarding(lam, (n, n), ex["mu"], grid=11 if quick else 21)
    return frame, plot_loss_landscape(frame)


FIGURES = {
    "cooperation": _fig_cooperation,
    "exact_limit_simulation": _fig_exact_limit_simulation,
    "convergence": _fig_convergence,
    "regime_map": _fig_regime_map,
    "ring": _fig_ring,
    "loss_landscape": _fig_loss_landscape,
}


def _example_limit():
    ex = EXAMPLE
    return limit_analysis(ex["lam"], ex["c"], ex["mu"], ex["p"])


def _example_exact(n):
    ex = EXAMPLE
    return solve_exact((ex["lam"][0] * n, ex["lam"][1] * n), (n, n), ex["mu"], ex["p"])


def _loss_identity_gap(quick: bool) -> float:
    ex = EXAMPLE
    lim = _example_limit()
    lam, c, mu = ex["lam"], ex["c"], ex["mu"]
    return (lam[0] * lim.beta[0] + lam[1] * lim.beta[1]) - (
        lam[0] + lam[1] - c[0] * mu[0] - c[1] * mu[1]
    )


def _simulated_beta1(quick: bool) -> float:
    ex = EXAMPLE
    n = 25
    sim = simulate(
        (ex["lam"][0] * n, ex["lam"][1] * n),
        (n, n),
        ex["mu"],
        ex["p"],
        events=200_000 if quick else 2_000_000,
        replications=8,
        seed=11,
    )
    return float(sim.set_index("quantity").loc["beta1", "estimate"])


def _cooperation_gain(quick: bool) -> float:
    ex = EXAMPLE
    n = 200
    lam = (ex["lam"][0] * n, ex["lam"][1] * n)
    on = solve_exact(lam, (n, n), ex["mu"], ex["p"]).beta
    off = solve_exact(lam, (n, n), ex["mu"], (0.0, 0.0)).beta
    return ((lam[0] * off[0] + lam[1] * off[1]) - (lam[0] * on[0] + lam[1] * on[1])) / (
        lam[0] + lam[1]
    )


CLAIMS = {
    "pi00_limit": lambda quick: _example_limit().pi00,
    "beta1_limit": lambda quick: _example_limit().beta[0],
    "beta2_limit": lambda quick: _example_limit().beta[1],
    "beta1_N200": lambda quick: _example_exact(200).beta[0],
    "beta2_N200": lambda quick: _example_exact(200).beta[1],
    "loss_identity_limit": _loss_identity_gap,
    "beta1_sim_N25": _simulated_beta1,
    "beta1_exact_N25": lambda quick: _example_exact(25).beta[0],
    "cooperation_gain_N200": _cooperation_gain,
    "beta1_limit_at_N1000": lambda quick: _example_exact(1000).beta[0],
}
