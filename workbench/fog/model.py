"""The analytic model of fog offloading: one fog node's (n, n') chain, then the network.

One fog node
------------
A single server with an unbounded queue, Poisson Light (λ) and Heavy (λ') arrivals and
exponential processing (μ, μ'). In state (n, n') a Light request leaves at rate Q·μ and a
Heavy one at rate (1−Q)·μ', with Q = q·n / (q·n + (1−q)·n'). The chain is solved on the
triangle n + n' ≤ N, N chosen from a geometric tail bound, and the mass beyond N is
reported (:class:`ChainSolution`). From its law P(n, n'):

- :func:`mean_work` W̄ = Σ (n/μ + n'/μ')·P(n, n');
- :func:`mean_in_system` (E n, E n');
- :func:`accept_probability` P_j = P(W < θ) with W = Erlang(n, μ) + Erlang(n', μ').

What the chain really is. A Light request leaving at rate μ·n/(n+n') means each of the
n + n' requests in the node is served at rate 1/(n+n') of the server: processor sharing,
and for q ≠ 0.5 discriminatory processor sharing. It is not a FIFO queue (with μ ≠ μ'
FIFO is not even Markov on (n, n')). At q = 0.5 it has the product form
P(n, n') = (1−ρ)·C(n+n', n)·ρ₁ⁿ·ρ₂ⁿ' with ρ₁ = λ/μ, ρ₂ = λ'/μ', ρ = ρ₁ + ρ₂: the total count
is geometric (M/M/1-PS, insensitive) and the classes split binomially. W is then a
geometric sum of two-phase hyperexponential works, a phase-type law with a 2×2 generator:
closed forms used by the tests as oracles and by the network model as its fast path.

P(Erlang(n, μ) + Erlang(n', μ') < θ) is evaluated by uniformisation: with μ_hi ≥ μ_lo, an
Exp(μ_lo) time is a geometric number (success probability μ_lo/μ_hi) of Exp(μ_hi) stages, so
the sum is Erlang(M, μ_hi) with M = n_fast + a negative binomial, and
P(W < θ) = Σ_m P(M = m)·P(Poisson(μ_hi θ) ≥ m): a sum of positive terms, exact at μ = μ'
and stable for any n, n'. The paper's route (Laplace transform, partial fractions) has
coefficients ∝ (μ' − μ)^{−(n+n'−k)} of alternating sign; it is kept in
:func:`erlang_sum_cdf_partial_fractions` to show it failing as μ' → μ.

The network
-----------
:func:`analyze` applies the paper's flow equations to a scenario graph (see
:mod:`workbench.fog.scenario`): δ_j0 = I_j, β_j,l+1 = (1−P_j)·δ_jl,
δ_j,l+1 = Σ_{ĵ ∈ nbr(j)} β_ĵ,l+1 / deg(ĵ), C_j = (1−P_j)·δ_j,e_M, v_j = Σ_l δ_jl,
λ_j = P_j·v_j with P_j = P_j(λ_j, λ'_j) solved as a fixed point; each cloud server is m_k
M/G/1 units (Pollaczek–Khinchine); the delay of an IoT node is eq. 2 with the recursion
L_ij(x) of eq. 6.

References
----------
Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading", IEEE
Internet of Things Journal 5(1), 2018: eq. 2 (service delay), eq. 6 (L_ij(x)), Sec. IV-G
(the (n, n') chain, W̄), eq. 18 (P_j), eqs. 22–28 (flows), eqs. 29–31 (cloud, P-K).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy import special, stats

from workbench.fog.params import MAX_CHAIN_STATES, PARAMS, check_count
from workbench.validation import EmptyRunError, ParameterError, UnstableRegimeError

__all__ = [
    "ChainSolution",
    "solve_chain",
    "mean_work",
    "mean_in_system",
    "accept_probability",
    "erlang_sum_cdf",
    "erlang_sum_cdf_partial_fractions",
    "ps_closed_form",
    "NetworkAnalysis",
    "analyze",
    "fog_loads",
    "pollaczek_khinchine",
]


# ------------------------------------------------------------------------ validation


def _check_rates(func, lam_light, lam_heavy, mu_light, mu_heavy, q, tol=None):
    values = dict(
        lam_light=lam_light, lam_heavy=lam_heavy, mu_light=mu_light, mu_heavy=mu_heavy, q=q
    )
    if tol is not None:
        values["tol"] = tol
    v = PARAMS.check(func, **values)
    rho = v["lam_light"] / v["mu_light"] + v["lam_heavy"] / v["mu_heavy"]
    if rho >= 1.0:
        raise UnstableRegimeError(
            f"{func}: the fog node is unstable, ρ = λ/μ + λ'/μ' = {rho:.6g} ≥ 1 "
            f"(λ={v['lam_light']:g}, λ'={v['lam_heavy']:g}, μ={v['mu_light']:g}, "
            f"μ'={v['mu_heavy']:g}); no stationary law exists."
        )
    return v, rho


# ------------------------------------------------------------------------ the chain


@dataclass(frozen=True)
class ChainSolution:
    """The stationary law of the truncated (n, n') chain.

    Attributes
    ----------
    prob : ndarray, shape (N+1, N+1)
        P(n, n') for n + n' ≤ N (zero above the anti-diagonal), normalised to one.
    levels : int
        N, the largest total count kept.
    dropped_mass : float
        Estimated stationary mass of n + n' > N (geometric extrapolation of the last levels).
    rho : float
        ρ = λ/μ + λ'/μ'.
    """

    prob: np.ndarray
    levels: int
    dropped_mass: float
    rho: float

    @property
    def level_mass(self) -> np.ndarray:
        """P(n + n' = k) for k = 0..N."""
        n = self.prob.shape[0]
        i, j = np.indices(self.prob.shape)
        return np.bincount((i + j).ravel(), weights=self.prob.ravel(), minlength=2 * n)[:n]


def _triangle_index(levels):
    """Index of state (n, n') with n + n' ≤ levels in a flat vector (level by level)."""
    n_idx, m_idx = [], []
    for k in range(levels + 1):
        n = np.arange(k, -1, -1)
        n_idx.append(n)
        m_idx.append(k - n)
    return np.concatenate(n_idx), np.concatenate(m_idx)


LEVEL_REDUCTION_MAX = 250
"""Largest truncation level solved by level reduction (O(N⁴) work); sparse LU above."""


def _solve_truncated(lam, lam2, mu, mu2, q, levels):
    """P(n, n') of the chain truncated at n + n' ≤ ``levels`` (arrivals blocked there)."""
    if levels <= LEVEL_REDUCTION_MAX:
        return _solve_levels(lam, lam2, mu, mu2, q, levels)
    return _solve_sparse(lam, lam2, mu, mu2, q, levels)


def _down_block(k, mu, mu2, q):
    """Rates from level k (state i: n = k − i, n' = i) to level k − 1, shape (k+1, k)."""
    i = np.arange(k + 1)
    n, m = k - i, i
    share = q * n / (q * n + (1 - q) * m)  # k ≥ 1: never 0/0
    blk = np.zeros((k + 1, k))
    ok = n > 0
    blk[i[ok], i[ok]] = share[ok] * mu
    ok = m > 0
    blk[i[ok], i[ok] - 1] = (1 - share[ok]) * mu2
    return blk


def _solve_levels(lam, lam2, mu, mu2, q, levels):
    """Linear level reduction: block Gaussian elimination of the level-tridiagonal chain.

    The total count moves by ±1, so the generator is block tridiagonal in the level
    k = n + n'. From the top, π_{k+1} = π_k·R_k with R_k = U_k·S_{k+1}⁻¹ and
    S_k = −D_k − R_k·B_{k+1} (U up, B down, D diagonal blocks): each S_k is a nonsingular
    M-matrix, so no cancellation, and the work is Σ k³ instead of a sparse LU's fill-in.
    """
    up_rate = lam + lam2
    ratios = [None] * levels
    below = None  # B_{k+1}
    for k in range(levels, 0, -1):
        down = _down_block(k, mu, mu2, q)
        s_mat = np.diag(down.sum(axis=1) + (0.0 if k == levels else up_rate))
        if k < levels:
            s_mat -= ratios[k] @ below
        up = np.zeros((k, k + 1))
        i = np.arange(k)
        up[i, i] = lam
        up[i, i + 1] = lam2
        ratios[k - 1] = np.linalg.solve(s_mat.T, up.T).T
        below = down
    prob = np.zeros((levels + 1, levels + 1))
    level = np.ones(1)
    prob[0, 0] = 1.0
    for k in range(levels):
        level = level @ ratios[k]
        i = np.arange(k + 2)
        prob[k + 1 - i, i] = level
    return prob / prob.sum()


def _solve_sparse(lam, lam2, mu, mu2, q, levels):
    """The truncated chain by one sparse LU solve (used above ``LEVEL_REDUCTION_MAX``)."""
    n, m = _triangle_index(levels)
    size = n.size
    index = np.full((levels + 1, levels + 1), -1, dtype=np.int64)
    index[n, m] = np.arange(size)
    rows, cols, vals = [], [], []
    below = (n + m) < levels  # arrivals are blocked on the last level (the truncation)
    for ok, dn, dm, rate in ((below, 1, 0, lam), (below, 0, 1, lam2)):
        if rate > 0:
            s = np.flatnonzero(ok)
            rows.append(s)
            cols.append(index[n[s] + dn, m[s] + dm])
            vals.append(np.full(s.size, rate))
    busy = (n + m) > 0
    share = np.zeros(size)
    share[busy] = q * n[busy] / (q * n[busy] + (1 - q) * m[busy])
    s = np.flatnonzero(n > 0)
    rows.append(s)
    cols.append(index[n[s] - 1, m[s]])
    vals.append(share[s] * mu)
    s = np.flatnonzero(m > 0)
    rows.append(s)
    cols.append(index[n[s], m[s] - 1])
    vals.append((1 - share[s]) * mu2)
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    gen = sp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr()
    out = np.asarray(gen.sum(axis=1)).ravel()
    gen = gen - sp.diags(out)
    # π·G = 0 with Σπ = 1: replace the balance equation of state (0, 0) by the normalisation
    a = gen.T.tolil()
    a[0, :] = np.ones(size)
    rhs = np.zeros(size)
    rhs[0] = 1.0
    pi = spla.spsolve(a.tocsc(), rhs)
    pi = np.clip(pi, 0.0, None)
    pi /= pi.sum()
    prob = np.zeros((levels + 1, levels + 1))
    prob[n, m] = pi
    return prob


def _dropped_estimate(level_mass):
    """Mass beyond the last level, extrapolating the decay of levels away from the boundary."""
    k = level_mass.size - 1
    lo, hi = max(1, k - 12), max(2, k - 4)
    a, b = level_mass[lo], level_mass[hi]
    if a <= 0 or b <= 0:
        return 0.0
    ratio = (b / a) ** (1.0 / (hi - lo))
    ratio = min(ratio, 1.0 - 1e-12)
    return float(b * ratio ** (k - hi + 1) / (1.0 - ratio))


def _more_levels(level_mass, dropped, tol, levels):
    """The next truncation: enough levels for the observed tail decay to reach ``tol``."""
    k = level_mass.size - 1
    lo, hi = max(1, k - 12), max(2, k - 4)
    a, b = level_mass[lo], level_mass[hi]
    if a > 0 and b > 0 and b < a:
        ratio = (b / a) ** (1.0 / (hi - lo))
        extra = math.ceil(math.log(tol / dropped) / math.log(ratio)) + 8
        # at least a quarter more (a bounded number of tries), at most doubling
        return levels + min(max(extra, levels // 4, 8), levels)
    return 2 * levels


def solve_chain(lam_light, lam_heavy, mu_light, mu_heavy, q=0.5, tol=1e-10) -> ChainSolution:
    """Stationary law of the two-class fog-node chain (n, n'), truncated with a tail bound.

    Parameters
    ----------
    lam_light, lam_heavy : float
        Poisson arrival rates λ, λ' [1/s].
    mu_light, mu_heavy : float
        Exponential service rates μ, μ' [1/s].
    q : float, default 0.5
        Fairness: Light departures at rate Q·μ, Q = q·n/(q·n + (1−q)·n').
    tol : float, default 1e-10
        Largest stationary mass the truncation may drop.

    Returns
    -------
    ChainSolution

    Raises
    ------
    UnstableRegimeError
        If ρ = λ/μ + λ'/μ' ≥ 1.
    ParameterError
        If a value is outside its range, or ρ is so close to 1 that the chain would need
        more than ``MAX_CHAIN_STATES`` states to drop less than ``tol``.

    Notes
    -----
    The level N starts from the geometric bound ρ^{N+1} ≤ tol (exact for the total count at
    q = 0.5) and grows, by the tail's observed decay (at most doubling), while the
    extrapolated dropped mass exceeds ``tol``. Up to N = ``LEVEL_REDUCTION_MAX`` the chain
    is solved level by level (block Gaussian elimination), above by a sparse LU.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (transition rates and Q).
    """
    tol = PARAMS["tol"].check(tol, "solve_chain")
    v, rho = _check_rates("solve_chain", lam_light, lam_heavy, mu_light, mu_heavy, q, tol=tol)
    return _chain(
        v["lam_light"],
        v["lam_heavy"],
        v["mu_light"],
        v["mu_heavy"],
        v["q"],
        v["tol"],
        rho,
        "solve_chain",
    )


def _chain(lam, lam2, mu, mu2, q, tol, rho, func):
    if rho <= 0.0:
        prob = np.zeros((2, 2))
        prob[0, 0] = 1.0
        return ChainSolution(prob, 1, 0.0, 0.0)
    levels = max(16, math.ceil(math.log(tol * (1 - rho)) / math.log(rho)) + 8)
    while True:
        n_states = (levels + 1) * (levels + 2) // 2
        if n_states > MAX_CHAIN_STATES:
            raise ParameterError(
                f"{func}: ρ = {rho:.6g} is so close to 1 that the (n, n') chain needs more "
                f"than {MAX_CHAIN_STATES:,} states (N = {levels}) to drop less than "
                f"tol = {tol:g}; raise tol or lower the load (bounded work)."
            )
        prob = _solve_truncated(lam, lam2, mu, mu2, q, levels)
        sol = ChainSolution(prob, levels, 0.0, rho)
        dropped = _dropped_estimate(sol.level_mass)
        if dropped <= tol:
            return ChainSolution(prob, levels, dropped, rho)
        levels = _more_levels(sol.level_mass, dropped, tol, levels)


def mean_work(lam_light, lam_heavy, mu_light, mu_heavy, q=0.5) -> float:
    """Mean waiting time W̄ of a fog node: Σ (n/μ + n'/μ')·P(n, n').

    The paper's W̄_j: the expected processing time of everything in the node, used in eq. 6
    as the time an accepted request spends there.

    W̄ does not depend on q. The server is work-conserving and, given (n, n'), the remaining
    processing of every request in the node is Exp(μ) or Exp(μ') whatever the order (memoryless
    service), so the work in the node evolves as in any M/G/1 queue with this
    hyperexponential service: W̄ = (λ/μ² + λ'/μ'²)/(1 − ρ) (Pollaczek–Khinchine) for every q.
    What q changes is how that work is split into counts: :func:`mean_in_system`.

    Parameters
    ----------
    lam_light, lam_heavy, mu_light, mu_heavy : float
        λ, λ', μ, μ' [1/s].
    q : float, default 0.5
        Fairness parameter of the chain (validated; W̄ does not depend on it).

    Returns
    -------
    float
        W̄ [s].

    Raises
    ------
    UnstableRegimeError
        ρ = λ/μ + λ'/μ' ≥ 1.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (W̄_j).
    """
    v, rho = _check_rates("mean_work", lam_light, lam_heavy, mu_light, mu_heavy, q)
    mu, mu2 = v["mu_light"], v["mu_heavy"]
    return float((v["lam_light"] / mu**2 + v["lam_heavy"] / mu2**2) / (1 - rho))


def mean_in_system(lam_light, lam_heavy, mu_light, mu_heavy, q=0.5) -> tuple[float, float]:
    """Mean numbers of Light and Heavy requests in a fog node, (E n, E n').

    This is what q changes: q near 1 serves Light requests first, so fewer Light and more
    Heavy requests wait (E n falls, E n' rises), while the work E n/μ + E n'/μ' = W̄, the
    acceptance P_j and therefore every delay of the model stay the same. At q = 0.5,
    E n = ρ₁/(1−ρ) and E n' = ρ₂/(1−ρ); otherwise the (n, n') chain is solved numerically.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (the (n, n') chain).
    """
    v, rho = _check_rates("mean_in_system", lam_light, lam_heavy, mu_light, mu_heavy, q)
    sol = _chain(
        v["lam_light"],
        v["lam_heavy"],
        v["mu_light"],
        v["mu_heavy"],
        v["q"],
        1e-12,
        rho,
        "mean_in_system",
    )
    n, m = np.indices(sol.prob.shape)
    return float(np.sum(n * sol.prob)), float(np.sum(m * sol.prob))


# ------------------------------------------------------------ sums of two Erlang laws


def erlang_sum_cdf(theta, n, mu, n2, mu2) -> float:
    """P(Erlang(n, μ) + Erlang(n', μ') < θ), stable for any n, n' and μ ≈ μ'.

    Uniformisation at the faster rate: a sum of positive terms, no cancellation.

    Parameters
    ----------
    theta : float
        θ [s].
    n, n2 : int
        Numbers of exponential phases at rate ``mu`` and ``mu2`` (≥ 0).
    mu, mu2 : float
        Rates [1/s].

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 18–21 (P_j through the Erlang sum).
    """
    func = "erlang_sum_cdf"
    theta = (
        PARAMS["theta"].check(theta, func)
        if not (isinstance(theta, float) and math.isinf(theta) and theta > 0)
        else theta
    )
    n, mu, n2, mu2 = _check_erlang_sum(func, n, mu, n2, mu2)
    return _erlang_sum_cdf(theta, n, mu, n2, mu2, func)


def _check_erlang_sum(func, n, mu, n2, mu2):
    n = check_count(n, "n", func, high=10**9)
    n2 = check_count(n2, "n2", func, high=10**9)
    mu = PARAMS["mu_light"].with_(name="mu").check(mu, func)
    mu2 = PARAMS["mu_heavy"].with_(name="mu2").check(mu2, func)
    return n, mu, n2, mu2


ERLANG_WINDOW_MAX = 5_000_000
"""Most terms :func:`erlang_sum_cdf` sums (about 10 s); more is refused (bounded work)."""


def _erlang_sum_cdf(theta, n, mu, n2, mu2, func):
    """Uniformisation with only the stages that matter: cost independent of θ and of n, n'.

    With μ_hi ≥ μ_lo the sum is Erlang(M, μ_hi), M = n_hi + n_lo + K, K ~ NegBin(n_lo, p =
    μ_lo/μ_hi) extra stages; P(W < θ) = Σ_k P(K = k)·P(Poisson(μ_hi θ) ≥ M). Terms with
    M below μ_hi θ − 12√(μ_hi θ + 1) − 50 have P(Poisson ≥ M) = 1 to 1e-18 (summed at once
    by the negative binomial's cdf), terms above μ_hi θ + 12√(μ_hi θ + 1) + 50 vanish, and
    K beyond its 1 − 1e-17 quantile carries no mass: a window of O(√(μ_hi θ)) terms.
    """
    if math.isinf(theta):
        return 1.0
    if theta <= 0:
        return 0.0
    if mu >= mu2:
        n_hi, mu_hi, n_lo, mu_lo = n, mu, n2, mu2
    else:
        n_hi, mu_hi, n_lo, mu_lo = n2, mu2, n, mu
    x = mu_hi * theta
    base = n_hi + n_lo
    if n_lo == 0 or mu_lo == mu_hi:
        return float(special.gammainc(base, x)) if base > 0 else 1.0
    p = mu_lo / mu_hi
    spread = 12.0 * math.sqrt(x + 1.0) + 50.0
    k_lo = max(0, math.floor(x - spread) - base)
    k_hi = math.ceil(x + spread) - base
    if k_hi < 0:
        return 0.0
    k_top = stats.nbinom.isf(1e-17, n_lo, p)  # K above: no mass
    k_bot = stats.nbinom.ppf(1e-17, n_lo, p)  # K below: no mass
    if math.isfinite(k_top):
        k_hi = int(min(k_hi, k_top))
    if math.isfinite(k_bot):
        k_lo = int(max(k_lo, k_bot))
    if k_hi < k_lo:  # the window and K's support do not meet: P = P(K < k_lo)
        return min(1.0, float(stats.nbinom.cdf(k_lo - 1, n_lo, p))) if k_lo > 0 else 0.0
    width = k_hi - k_lo + 1
    if width > ERLANG_WINDOW_MAX:
        raise ParameterError(
            f"{func}: θ = {theta:g} s with μ = {mu:g}, μ' = {mu2:g}, n = {n}, n2 = {n2} needs "
            f"{width:,} terms (more than {ERLANG_WINDOW_MAX:,}: bounded work); lower θ or n."
        )
    k = np.arange(k_lo, k_hi + 1)
    head = float(stats.nbinom.cdf(k_lo - 1, n_lo, p)) if k_lo > 0 else 0.0
    body = float(np.dot(stats.nbinom.pmf(k, n_lo, p), special.gammainc(base + k, x)))
    return min(1.0, max(0.0, head + body))


def erlang_sum_cdf_partial_fractions(theta, n, mu, n2, mu2) -> float:
    """The paper's route to P(Erlang(n, μ) + Erlang(n', μ') < θ): partial fractions.

    The Laplace transform μⁿ·μ'ⁿ'/((s+μ)ⁿ(s+μ')ⁿ') is split into terms A_k/(s+μ)^k and
    B_k/(s+μ')^k with A_k = (−1)^{n−k}·C(n'+n−k−1, n−k)·(μ'−μ)^{−(n'+n−k)}: huge coefficients
    of alternating sign that cancel. Kept to show the cancellation (it loses every digit as
    μ' → μ and is undefined at μ' = μ, where the sum is one Erlang(n + n', μ) law and that
    exact value is returned); use :func:`erlang_sum_cdf` instead. Inputs are validated as
    in :func:`erlang_sum_cdf`; the sums run over n + n' terms (at most 10⁶ here).

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 19–21.
    """
    func = "erlang_sum_cdf_partial_fractions"
    theta = _check_theta(theta, func)
    n, mu, n2, mu2 = _check_erlang_sum(func, n, mu, n2, mu2)
    if n + n2 > 10**6:
        raise ParameterError(
            f"The 'n' parameter of {func} must keep n + n2 ≤ 1e6 (one term each). "
            f"Got n = {n}, n2 = {n2} instead."
        )
    if math.isinf(theta):
        return 1.0
    if theta <= 0:
        return 0.0
    if n == 0 or n2 == 0 or mu == mu2:
        k, rate = (n2, mu2) if n == 0 else ((n + n2, mu) if mu == mu2 else (n, mu))
        return float(special.gammainc(k, rate * theta)) if k > 0 else 1.0
    total = 0.0
    scale = mu**n * mu2**n2
    for k in range(1, n + 1):
        coef = (-1) ** (n - k) * special.comb(n2 + n - k - 1, n - k) / (mu2 - mu) ** (n2 + n - k)
        total += coef * special.gammainc(k, mu * theta) / mu**k
    for k in range(1, n2 + 1):
        coef = (-1) ** (n2 - k) * special.comb(n + n2 - k - 1, n2 - k) / (mu - mu2) ** (n + n2 - k)
        total += coef * special.gammainc(k, mu2 * theta) / mu2**k
    return float(scale * total)


def accept_probability(theta, lam_light, lam_heavy, mu_light, mu_heavy, q=0.5) -> float:
    """P_j = P(W < θ): the probability that a fog node accepts an arriving request.

    W = Erlang(n, μ) + Erlang(n', μ') with (n, n') drawn from the chain's stationary law
    (arrivals see time averages: PASTA).

    P_j does not depend on q: given (n, n') the remaining processing times are independent
    exponentials whatever the service order (memoryless service), so W is the work in a
    work-conserving single server, whose law is the same for every order. It is computed in
    closed form (a geometric sum of hyperexponential works, a 2×2 matrix exponential: see
    :func:`ps_closed_form`) at every q and every θ up to 1e6 s; the tests check it against
    the numerical chain at q ≠ 0.5 and against simulation.

    Parameters
    ----------
    theta : float
        Threshold θ [s] (``math.inf``: always accept).
    lam_light, lam_heavy, mu_light, mu_heavy : float
        λ, λ', μ, μ' [1/s].
    q : float, default 0.5
        Fairness (validated; P_j does not depend on it).

    Returns
    -------
    float

    Raises
    ------
    UnstableRegimeError
        ρ ≥ 1.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eq. 18 (P_j).
    """
    func = "accept_probability"
    theta = _check_theta(theta, func)
    v, rho = _check_rates(func, lam_light, lam_heavy, mu_light, mu_heavy, q)
    mu, mu2 = v["mu_light"], v["mu_heavy"]
    return float(
        _ps_accept(
            np.array([theta]),
            np.array([v["lam_light"] / mu]),
            np.array([v["lam_heavy"] / mu2]),
            np.array([mu]),
            np.array([mu2]),
        )[0]
    )


def _check_theta(theta, func):
    if isinstance(theta, (int, float, np.floating)) and not isinstance(theta, bool):
        if math.isinf(theta) and theta > 0:
            return math.inf
    return PARAMS["theta"].check(theta, func)


# ------------------------------------------------- closed forms at q = 0.5 (PS chain)


def ps_closed_form(theta, lam_light, lam_heavy, mu_light, mu_heavy) -> dict:
    """Closed forms of the q = 0.5 chain (multi-class M/M/1 processor sharing).

    P(n, n') = (1−ρ)·C(n+n', n)·ρ₁ⁿρ₂ⁿ'; E n = ρ₁/(1−ρ), E n' = ρ₂/(1−ρ);
    W̄ = (ρ₁/μ + ρ₂/μ')/(1−ρ); P(W ≥ θ) = ρ·α·exp((T + ρ·t·α)θ)·1 with α = (ρ₁, ρ₂)/ρ,
    T = diag(−μ, −μ'), t = (μ, μ')ᵀ (a geometric sum of hyperexponential works).

    Returns
    -------
    dict
        ``mean_light``, ``mean_heavy``, ``mean_work``, ``accept`` (P(W < θ)).
    """
    func = "ps_closed_form"
    theta = _check_theta(theta, func)
    v, rho = _check_rates(func, lam_light, lam_heavy, mu_light, mu_heavy, 0.5)
    r1, r2 = v["lam_light"] / v["mu_light"], v["lam_heavy"] / v["mu_heavy"]
    acc = _ps_accept(
        np.array([theta]),
        np.array([r1]),
        np.array([r2]),
        np.array([v["mu_light"]]),
        np.array([v["mu_heavy"]]),
    )[0]
    return {
        "mean_light": r1 / (1 - rho),
        "mean_heavy": r2 / (1 - rho),
        "mean_work": (r1 / v["mu_light"] + r2 / v["mu_heavy"]) / (1 - rho),
        "accept": float(acc),
    }


def _ps_accept(theta, r1, r2, mu, mu2):
    """Vectorised P(W < θ) of the q = 0.5 chain (closed-form 2×2 matrix exponential)."""
    rho = r1 + r2
    out = np.ones_like(rho, dtype=float)
    busy = rho > 0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        a1 = np.where(busy, r1 / np.where(busy, rho, 1), 0.0)
        a2 = 1 - a1
        # A = (T + ρ·t·α)·θ
        t = np.where(np.isinf(theta), 0.0, theta)
        a = (-mu + rho * mu * a1) * t
        b = (rho * mu * a2) * t
        c = (rho * mu2 * a1) * t
        d = (-mu2 + rho * mu2 * a2) * t
        s = 0.5 * (a + d)
        delta = np.sqrt(np.maximum(0.25 * (a - d) ** 2 + b * c, 0.0))
        ep, em = np.exp(s + delta), np.exp(s - delta)
        cosh_part = 0.5 * (ep + em)
        small = delta < 1e-9
        sinh_over = np.where(small, np.exp(s), 0.5 * (ep - em) / np.where(small, 1.0, delta))
        e11 = cosh_part + sinh_over * (a - s)
        e12 = sinh_over * b
        e21 = sinh_over * c
        e22 = cosh_part + sinh_over * (d - s)
        tail = rho * (a1 * (e11 + e12) + a2 * (e21 + e22))
    out = np.where(busy, 1.0 - tail, 1.0)
    out = np.where(np.isinf(theta), 1.0, out)
    out = np.where(theta <= 0, 0.0, out)
    return np.clip(out, 0.0, 1.0)


# --------------------------------------------------------------------- the network


def pollaczek_khinchine(arrival_rate, mean_service, second_moment) -> float:
    """Mean sojourn of an M/G/1 queue: E[S] + Λ·E[S²] / (2(1 − Λ·E[S])).

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 30–31 (cloud processing units).
    """
    func = "pollaczek_khinchine"
    arrival_rate = PARAMS["lam_light"].with_(name="arrival_rate").check(arrival_rate, func)
    mean_service = PARAMS["theta"].with_(name="mean_service", extra=()).check(mean_service, func)
    second_moment = (
        PARAMS["theta"].with_(name="second_moment", high=1e12, extra=()).check(second_moment, func)
    )
    if second_moment < mean_service**2 * (1 - 1e-12):
        raise ParameterError(
            f"The 'second_moment' parameter of {func} must be at least mean_service² "
            f"({mean_service**2:g}): a variance is never negative. Got {second_moment!r} instead."
        )
    load = arrival_rate * mean_service
    if load >= 1:
        raise UnstableRegimeError(
            f"pollaczek_khinchine: the queue is unstable, Λ·E[S] = {load:.6g} ≥ 1."
        )
    return mean_service + arrival_rate * second_moment / (2 * (1 - load))


@dataclass(frozen=True)
class NetworkAnalysis:
    """The analytic model evaluated on one scenario.

    Attributes
    ----------
    mean_delay : float
        Service delay averaged over requests (eq. 2 weighted by each IoT node's rate), [s]:
        what the simulator's per-request mean estimates.
    mean_delay_per_iot : float
        The paper's objective: eq. 2 averaged over IoT nodes with equal weight, [s].
    fog : DataFrame
        One row per fog node: I, I', v, v', λ, λ', ρ, P (acceptance, per class), W̄, best,
        cloud share C, C'.
    cloud : DataFrame
        One row per cloud server: l, l', units, Λ, load, H (mean sojourn) per class.
    iot : DataFrame
        One row per IoT node: rates and delay d (overall, Light, Heavy).
    iterations : int
        Outer iterations of the λ_j fixed point.
    """

    mean_delay: float
    mean_delay_per_iot: float
    fog: pd.DataFrame
    cloud: pd.DataFrame
    iot: pd.DataFrame
    iterations: int
    settings: dict = field(default_factory=dict)


def _accept_vec(theta, lam, lam2, mu, mu2, q=0.5):
    """P(W < θ) per fog node (0 where ρ ≥ 1: such a node would never accept); any q."""
    rho = lam / mu + lam2 / mu2
    out = np.zeros_like(rho)
    ok = rho < 1
    # the same for every q (see accept_probability): the closed form of the q = 0.5 chain
    out[ok] = _ps_accept(theta[ok], lam[ok] / mu[ok], lam2[ok] / mu2[ok], mu[ok], mu2[ok])
    return out


def _mean_work_vec(lam, lam2, mu, mu2, q=0.5):
    rho = lam / mu + lam2 / mu2
    if np.any(rho >= 1):
        j = int(np.argmax(rho))
        raise UnstableRegimeError(
            f"analyze: fog node {j} is unstable, ρ = {rho[j]:.6g} ≥ 1 with the requests it "
            "accepts (no offloading can relieve it under this policy)."
        )
    # the same for every q (see mean_work): the M/G/1 mean work, P-K for hyperexponential
    return (lam / mu**2 + lam2 / mu2**2) / (1 - rho)


def _fixed_point(step, size, max_iterations, name):
    """Iterate P ← step(P) from P = 1 until no entry moves by 1e-10; returns (P, iterations).

    After 20 iterations each step moves only half-way (damping against a 2-cycle).
    """
    p = np.ones(size)
    for iterations in range(1, max_iterations + 1):
        new = step(p)
        change = np.max(np.abs(new - p))
        p = 0.5 * p + 0.5 * new if iterations > 20 else new
        if change < 1e-10:
            return p, iterations
    raise ParameterError(
        f"analyze: the fixed point for {name} did not converge in {max_iterations} "
        f"iterations (last change {change:.3g})."
    )


def _bracketed_root(func, size, tol=1e-13, max_steps=200):
    """Roots in [0, 1] of an increasing vectorised ``func`` (func(0) ≤ 0 ≤ func(1)).

    Regula falsi with the Illinois modification (superlinear, about ten evaluations where
    bisection to the same accuracy takes forty), never leaving the bracket.
    """
    lo, hi = np.zeros(size), np.ones(size)
    f_lo, f_hi = func(lo), func(hi)
    x = np.where(f_hi <= 0, 1.0, np.where(f_lo >= 0, 0.0, 0.5))
    side = np.zeros(size)
    for _ in range(max_steps):
        open_ = (f_lo < 0) & (f_hi > 0) & (hi - lo > tol)
        if not open_.any():
            break
        with np.errstate(invalid="ignore", divide="ignore"):
            x_new = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        x_new = np.where(np.isfinite(x_new) & (x_new > lo) & (x_new < hi), x_new, 0.5 * (lo + hi))
        x = np.where(open_, x_new, x)
        f_x = func(x)
        go_hi = open_ & (f_x > 0)
        go_lo = open_ & (f_x <= 0)
        # Illinois: halve the stale end's value when the same end moves twice in a row
        f_lo = np.where(go_hi & (side == 1), 0.5 * f_lo, f_lo)
        f_hi = np.where(go_lo & (side == -1), 0.5 * f_hi, f_hi)
        hi, f_hi = np.where(go_hi, x, hi), np.where(go_hi, f_x, f_hi)
        lo, f_lo = np.where(go_lo, x, lo), np.where(go_lo, f_x, f_lo)
        side = np.where(go_hi, 1, np.where(go_lo, -1, side))
        exact = open_ & (f_x == 0)
        lo, hi = np.where(exact, x, lo), np.where(exact, x, hi)
    done_lo, done_hi = f_lo >= 0, f_hi <= 0
    return np.where(done_lo, lo, np.where(done_hi, hi, x))


def _threshold_node(v, v2, mu, mu2, q, theta):
    """A fog node that admits only while n/μ + n'/μ' < θ: (P(admit), mean work admitted find).

    Offered Poisson rates v, v'; departures as in the (n, n') chain. The admitting states
    A and the states one admission above them form a closed finite chain, solved exactly.
    """
    if theta <= 0:
        return 0.0, 0.0
    n_max, m_max = math.ceil(theta * mu) + 1, math.ceil(theta * mu2) + 1
    if (n_max + 1) * (m_max + 1) > 2 * MAX_CHAIN_STATES:
        raise ParameterError(
            f"analyze: θ = {theta:g} s admits up to {n_max} Light and {m_max} Heavy requests "
            f"(μ = {mu:g}, μ' = {mu2:g}): more than {MAX_CHAIN_STATES:,} states for the "
            "threshold-admission chain (bounded work); lower θ or use admission='chain'."
        )
    n, m = np.indices((n_max + 1, m_max + 1))
    n, m = n.ravel(), m.ravel()
    admits = n / mu + m / mu2 < theta
    grid = admits.reshape(n_max + 1, m_max + 1)
    above = np.zeros_like(grid)
    above[1:, :] |= grid[:-1, :]
    above[:, 1:] |= grid[:, :-1]
    keep = admits | above.ravel()
    n, m, admits = n[keep], m[keep], admits[keep]
    index = np.full((n_max + 2, m_max + 2), -1)
    index[n, m] = np.arange(n.size)
    busy = n + m > 0
    share = np.zeros(n.size)
    share[busy] = q * n[busy] / (q * n[busy] + (1 - q) * m[busy])
    adm, light, heavy = np.flatnonzero(admits), np.flatnonzero(n > 0), np.flatnonzero(m > 0)
    rows = np.concatenate([adm, adm, light, heavy])
    cols = np.concatenate(
        [
            index[n[adm] + 1, m[adm]],
            index[n[adm], m[adm] + 1],
            index[n[light] - 1, m[light]],
            index[n[heavy], m[heavy] - 1],
        ]
    )
    vals = np.concatenate(
        [np.full(adm.size, v), np.full(adm.size, v2), share[light] * mu, (1 - share[heavy]) * mu2]
    )
    gen = sp.coo_matrix((vals, (rows, cols)), shape=(n.size, n.size)).tocsr()
    gen = gen - sp.diags(np.asarray(gen.sum(axis=1)).ravel())
    # π·G = 0 with Σπ = 1: the balance equation of state (0, 0) replaced by the normalisation
    a = gen.T.tolil()
    a[0, :] = np.ones(n.size)
    rhs = np.zeros(n.size)
    rhs[0] = 1.0
    pi = np.clip(spla.spsolve(a.tocsc(), rhs), 0.0, None)
    pi /= pi.sum()
    accept = float(pi[admits].sum())
    work = float((pi[admits] * (n[admits] / mu + m[admits] / mu2)).sum() / accept)
    return min(accept, 1.0), work


def _threshold_nodes(theta, v, v2, mu, mu2, q):
    """:func:`_threshold_node` per fog node; θ = ∞ accepts everything (work computed apart)."""
    accept, work = np.ones(theta.size), np.zeros(theta.size)
    for j in np.flatnonzero(np.isfinite(theta)):
        accept[j], work[j] = _threshold_node(v[j], v2[j], mu[j], mu2[j], q, theta[j])
    return accept, work


def _flows(accept, inflow, share, e_max):
    """δ_jl for l = 0..e_M, cloud share C_j, for one class. ``share[ĵ, j]`` = 1/deg(ĵ).

    A fog node without a neighbour (a lone fog node) sends its rejects to the cloud at once,
    as eq. 6 (``nxt = via_cloud``) and the simulator do: every offered request is accounted
    for, Σ_j (λ_j + C_j) = Σ_j I_j (flow conservation).
    """
    lone = share.sum(axis=1) == 0
    deltas = [inflow]
    cloud = np.zeros_like(inflow, dtype=float)
    for _ in range(e_max):
        beta = (1 - accept) * deltas[-1]
        cloud = cloud + np.where(lone, beta, 0.0)
        deltas.append(share.T @ np.where(lone, 0.0, beta))
    cloud = cloud + (1 - accept) * deltas[-1]
    return np.array(deltas), cloud


def analyze(
    scenario,
    *,
    theta=0.02,
    e_max=1,
    q=0.5,
    policy="offload",
    neighbour="best",
    own_processing=False,
    max_iterations=500,
    acceptance=None,
    admission="chain",
    cloud_sojourn="pooled",
) -> NetworkAnalysis:
    """The paper's analytic model on a scenario: flows, fixed point, P-K cloud, eq. 2.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled
        A validated scenario (:func:`workbench.fog.scenario.validate`).
    theta : float or array
        θ of every fog node (an array: one per fog node) [s]; ``math.inf``: never offload.
    e_max : int
        Offload limit e_M.
    q : float
        Fairness of the fog chain.
    policy : {"offload", "no_offload", "all_cloud", "light_only"}
        The paper's policy or one of its baselines.
    neighbour : {"best", "uniform"}
        Where eq. 6 sends an offloaded request: the paper's best(j) (smallest W̄ + RTT/2) or
        a uniformly chosen neighbour (what the flow equations assume).
    own_processing : bool, default False
        False: an accepted request spends W̄_j in the node, as eq. 6 states. True (the
        workbench's correction): W̄_j + its own mean processing time 1/μ_c. W̄_j is the
        work an arrival finds, i.e. its queueing wait; eq. 6 omits its own processing.
    acceptance : float array of length n_fog, optional
        P_j of every fog node from an earlier analysis of the same traffic, θ, e_M, q and
        policy (``NetworkAnalysis.fog["accept_light"]``): the fixed point is skipped. It
        depends on no link delay, so one fixed point serves every delay variant
        (``own_processing``, ``neighbour``, the links' delays).
    admission : {"chain", "threshold"}, default "chain"
        "chain": the paper's model, a Poisson stream λ_j = P_j·v_j into the unbounded
        (n, n') chain with P_j = P(W < θ) from its law. "threshold" (the workbench's
        correction): every offered request (v_j, v'_j) meets the node, which admits it only
        in states with n/μ + n'/μ' < θ; the chain is then finite, P_j is the stationary
        mass of the admitting states (PASTA) and W̄_j the mean work an admitted request
        finds. Only the offloading policy differs.
    cloud_sojourn : {"pooled", "per_class"}, default "pooled"
        H̄_k of a cloud server: "pooled" as the paper writes it, H̄_k = Δ̄_k, one mean
        sojourn (P-K wait + the class mixture's E[S]) for both types; "per_class": the P-K
        wait plus the type's own mean processing time (what the simulator measures per type;
        the same mean over all cloud requests).
    max_iterations : int, default 500
        Bound on the fixed-point iterations (1 to 100,000).

    Returns
    -------
    NetworkAnalysis

    Raises
    ------
    UnstableRegimeError
        A fog node (under no_offload / light_only) or a cloud unit with load ≥ 1.
    EmptyRunError
        No IoT node sends any request (every rate 0): there is no delay to average.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 2, 6, 22–31.
    """
    from workbench.fog.scenario import compile_scenario

    func = "analyze"
    net = compile_scenario(scenario)
    nf = net.n_fog
    theta_arr = _theta_per_fog(theta, nf, func)
    e_max = check_count(e_max, "e_max", func, high=PARAMS["e_max"].high)
    q = PARAMS["q"].check(q, func)
    policy = PARAMS["policy"].check(policy, func)
    neighbour = PARAMS["neighbour"].check(neighbour, func)
    own_processing = PARAMS["own_processing"].check(own_processing, func)
    admission = PARAMS["admission"].check(admission, func)
    cloud_sojourn = PARAMS["cloud_sojourn"].check(cloud_sojourn, func)
    max_iterations = check_count(max_iterations, "max_iterations", func, high=100_000)
    if max_iterations < 1:
        raise ParameterError(
            f"The 'max_iterations' parameter of {func} must be an int in the range "
            f"[1, 100000]. Got {max_iterations} instead."
        )
    if not net.iot_rate.sum() > 0:
        raise EmptyRunError(
            f"{func}: no IoT node sends any request (every rate_light and rate_heavy is 0), "
            "so there is no service delay to average. Give some IoT node a positive rate "
            "(with_traffic(load=...) scales existing rates)."
        )
    threshold = admission == "threshold" and policy == "offload"
    if policy != "offload":
        e_max = 0
    mu, mu2 = net.fog_mu[:, 0], net.fog_mu[:, 1]
    inflow = net.fog_inflow  # (n_fog, 2): I_j, I'_j
    share = net.neighbour_share  # (n_fog, n_fog) 1/deg(ĵ) on edges

    def flows_for(p_light, p_heavy):
        d0, c0 = _flows(p_light, inflow[:, 0], share, e_max)
        d1, c1 = _flows(p_heavy, inflow[:, 1], share, e_max)
        return d0, c0, d1, c1

    p_light, p_heavy, iterations = _acceptance(
        net, theta_arr, e_max, q, policy, threshold, max_iterations, acceptance, func
    )
    d0, c0, d1, c1 = flows_for(p_light, p_heavy)
    v0, v1 = d0.sum(axis=0), d1.sum(axis=0)
    lam, lam2 = p_light * v0, p_heavy * v1
    if threshold:
        finite = np.isfinite(theta_arr)
        wbar = np.empty(nf)
        wbar[finite] = _threshold_nodes(
            theta_arr[finite], v0[finite], v1[finite], mu[finite], mu2[finite], q
        )[1]
        keep = ~finite  # θ = ∞: the node keeps everything, the unbounded chain
        wbar[keep] = _mean_work_vec(lam[keep], lam2[keep], mu[keep], mu2[keep], q)
    else:
        wbar = _mean_work_vec(lam, lam2, mu, mu2, q)
    rho = lam / mu + lam2 / mu2
    return _network_delays(
        net, theta, theta_arr, e_max, q, policy, neighbour, own_processing, admission,
        cloud_sojourn, p_light, p_heavy, c0, c1, v0, v1, lam, lam2, rho, wbar, iterations,
    )  # fmt: skip


def _acceptance(net, theta_arr, e_max, q, policy, threshold, max_iterations, acceptance, func):
    """P_j per class of every fog node (the fixed point under offloading), and iterations."""
    nf = net.n_fog
    mu, mu2 = net.fog_mu[:, 0], net.fog_mu[:, 1]
    inflow = net.fog_inflow
    share = net.neighbour_share

    def flows_for(p_light, p_heavy):
        d0, c0 = _flows(p_light, inflow[:, 0], share, e_max)
        d1, c1 = _flows(p_heavy, inflow[:, 1], share, e_max)
        return d0, c0, d1, c1

    iterations = 0
    if policy == "offload" and acceptance is not None:
        try:
            p = np.asarray(acceptance, dtype=float)
        except (TypeError, ValueError):
            p = np.full(nf + 1, np.nan)
        if p.shape != (nf,) or not np.all((p >= 0) & (p <= 1)):
            raise ParameterError(
                f"The 'acceptance' parameter of {func} must be {nf} probabilities in [0, 1] "
                f"(one per fog node). Got {acceptance!r} instead."
            )
        p_light = p_heavy = p
    elif threshold:

        def threshold_step(p):
            d0, _, d1, _ = flows_for(p, p)
            return _threshold_nodes(theta_arr, d0.sum(axis=0), d1.sum(axis=0), mu, mu2, q)[0]

        p, iterations = _fixed_point(threshold_step, nf, max_iterations, "P_j")
        p_light = p_heavy = p
    elif policy == "offload":

        def chain_step(p):
            d0, _, d1, _ = flows_for(p, p)
            v0, v1 = d0.sum(axis=0), d1.sum(axis=0)
            # per node, P = accept(P·v, P·v') with P − accept increasing in P: a root in [0, 1]
            root = _bracketed_root(
                lambda x: x - _accept_vec(theta_arr, x * v0, x * v1, mu, mu2, q), nf
            )
            return np.where(np.isinf(theta_arr), 1.0, root)  # θ = ∞ accepts all

        p, iterations = _fixed_point(chain_step, nf, max_iterations, "λ_j")
        p_light = p_heavy = p
    elif policy == "no_offload":
        p_light = p_heavy = np.ones(nf)
    elif policy == "all_cloud":
        p_light = p_heavy = np.zeros(nf)
    else:
        p_light, p_heavy = np.ones(nf), np.zeros(nf)
    return p_light, p_heavy, iterations


def fog_loads(scenario, *, theta=0.02, e_max=1, q=0.5, policy="offload") -> np.ndarray:
    """ρ_j = λ_j/μ_j + λ'_j/μ'_j of every fog node with the traffic it really keeps.

    Forwarded traffic included: a node with θ = ∞ (or under no_offload / light_only) keeps
    what its neighbours forward to it as well as its own IoT traffic. The neighbours'
    acceptance is the threshold-admission model's (within 2% of the simulator in the
    workbench's agreement table), the chain model's where θ is too large for that finite
    chain. A node with a finite θ admits only while its estimated work is below θ, so its
    ρ_j here is the model's estimate, not a stability bound; the nodes that keep every
    request are the ones whose ρ_j ≥ 1 means a queue without bound.
    """
    from workbench.fog.scenario import compile_scenario

    func = "fog_loads"
    net = compile_scenario(scenario)
    theta_arr = _theta_per_fog(theta, net.n_fog, func)
    e_max = check_count(e_max, "e_max", func, high=PARAMS["e_max"].high)
    q = PARAMS["q"].check(q, func)
    policy = PARAMS["policy"].check(policy, func)
    return _fog_loads(net, theta_arr, e_max, q, policy)


def _fog_loads(net, theta_arr, e_max, q, policy):
    if policy != "offload":
        e_max = 0
    try:
        p0, p1, _ = _acceptance(net, theta_arr, e_max, q, policy, policy == "offload", 500,
                                None, "fog_loads")  # fmt: skip
    except ParameterError:  # θ too large for the threshold chain: the paper's chain model
        p0, p1, _ = _acceptance(net, theta_arr, e_max, q, policy, False, 500, None, "fog_loads")
    inflow, share = net.fog_inflow, net.neighbour_share
    v0 = _flows(p0, inflow[:, 0], share, e_max)[0].sum(axis=0)
    v1 = _flows(p1, inflow[:, 1], share, e_max)[0].sum(axis=0)
    return p0 * v0 / net.fog_mu[:, 0] + p1 * v1 / net.fog_mu[:, 1]


def _network_delays(
    net, theta, theta_arr, e_max, q, policy, neighbour, own_processing, admission,
    cloud_sojourn, p_light, p_heavy, c0, c1, v0, v1, lam, lam2, rho, wbar, iterations,
):  # fmt: skip
    """Cloud servers (P-K), eq. 6 and eq. 2 from the fog nodes' P_j and W̄_j."""
    nf = net.n_fog
    inflow = net.fog_inflow

    # cloud servers: IoT traffic sent straight there plus fog nodes' cloud shares
    nc = net.n_cloud
    l0 = net.cloud_direct[:, 0] + np.bincount(net.fog_cloud, weights=c0, minlength=nc)
    l1 = net.cloud_direct[:, 1] + np.bincount(net.fog_cloud, weights=c1, minlength=nc)
    units = net.cloud_units.astype(float)
    zc = net.cloud_mean  # (n_cloud, 2) mean processing times Z, Z'
    per_unit = (l0 + l1) / units
    tot = np.where(l0 + l1 > 0, l0 + l1, 1.0)
    es = (l0 * zc[:, 0] + l1 * zc[:, 1]) / tot
    es2 = (l0 * 2 * zc[:, 0] ** 2 + l1 * 2 * zc[:, 1] ** 2) / tot
    load = per_unit * es
    if np.any(load >= 1):
        k = int(np.argmax(load))
        raise UnstableRegimeError(
            f"analyze: cloud server {k} is unstable, load per unit Λ·E[S] = {load[k]:.6g} ≥ 1."
        )
    wait_q = per_unit * es2 / (2 * (1 - load))
    if cloud_sojourn == "pooled":  # H̄_k = Δ̄_k: one mean sojourn for both types
        h = np.repeat((es + wait_q)[:, None], 2, axis=1)
    else:  # per type: P-K wait + the type's own mean processing
        h = zc + wait_q[:, None]

    # eq. 6: L(x) per (start fog j, home fog f), per class, without the last hop f -> i
    best = np.array(
        [
            net.nbr_idx[s:e][np.argmin(wbar[net.nbr_idx[s:e]] + net.nbr_prop[s:e])] if e > s else -1
            for s, e in zip(net.nbr_ptr[:-1], net.nbr_ptr[1:], strict=True)
        ]
    )
    out_delay = {}
    for c, p_acc in ((0, p_light), (1, p_heavy)):
        size = net.size_bits[c]
        back = net.ff_prop + size * net.ff_inv  # fog j -> fog f
        to_cloud = net.fc_prop + size * net.fc_inv  # fog j -> its cloud h(j)
        cloud_back = net.cf_prop[net.fog_cloud] + size * net.cf_inv[net.fog_cloud]  # [j, f]
        via_cloud = (to_cloud + h[net.fog_cloud, c])[:, None] + cloud_back
        stay = wbar + (1.0 / net.fog_mu[:, c] if own_processing else 0.0)
        served_here = stay[:, None] + back
        level = p_acc[:, None] * served_here + (1 - p_acc[:, None]) * via_cloud
        for _ in range(e_max):
            hop = net.nbr_prop + size * net.nbr_inv  # per CSR entry
            nxt = np.empty_like(level)
            for j in range(nf):
                s, e = net.nbr_ptr[j], net.nbr_ptr[j + 1]
                if e == s:  # no neighbour: straight to the cloud
                    nxt[j] = via_cloud[j]
                elif neighbour == "best":
                    k = np.flatnonzero(net.nbr_idx[s:e] == best[j])[0] + s
                    nxt[j] = hop[k] + level[best[j]]
                else:
                    nxt[j] = np.mean(hop[s:e, None] + level[net.nbr_idx[s:e]], axis=0)
            level = p_acc[:, None] * served_here + (1 - p_acc[:, None]) * nxt
        out_delay[c] = level  # L_ij(0) for first fog j, home f, minus the last hop

    # eq. 2 per IoT node and class
    f = net.iot_fog
    k = net.fog_cloud[f]
    d = np.zeros((net.n_iot, 2))
    for c in (0, 1):
        size = net.size_bits[c]
        link = net.iot_prop + size * net.iot_inv
        fog_part = link + out_delay[c][f, f] + link
        cloud_part = (
            link
            + net.fc_prop[f]
            + size * net.fc_inv[f]
            + h[k, c]
            + net.cf_prop[k, f]
            + size * net.cf_inv[k, f]
            + link
        )
        d[:, c] = (
            net.iot_p[:, 0] * net.iot_local_mean[:, c]
            + net.iot_p[:, 1] * fog_part
            + net.iot_p[:, 2] * cloud_part
        )
    rates = net.iot_rate
    total = rates.sum(axis=1)
    d_mix = np.where(total > 0, (d * rates).sum(axis=1) / np.where(total > 0, total, 1), 0.0)
    mean_delay = float((d * rates).sum() / rates.sum())
    fog = pd.DataFrame(
        {
            "fog": np.arange(nf),
            "name": net.fog_names,
            "I_light": inflow[:, 0],
            "I_heavy": inflow[:, 1],
            "v_light": v0,
            "v_heavy": v1,
            "lam_light": lam,
            "lam_heavy": lam2,
            "rho": rho,
            "accept_light": p_light,
            "accept_heavy": p_heavy,
            "mean_work": wbar,
            "best": best,
            "cloud_light": c0,
            "cloud_heavy": c1,
            "theta": theta_arr,
        }
    )
    cloud = pd.DataFrame(
        {
            "cloud": np.arange(nc),
            "name": net.cloud_names,
            "l_light": l0,
            "l_heavy": l1,
            "units": net.cloud_units,
            "per_unit_rate": per_unit,
            "load": load,
            "H_light": h[:, 0],
            "H_heavy": h[:, 1],
        }
    )
    iot = pd.DataFrame(
        {
            "iot": np.arange(net.n_iot),
            "name": net.iot_names,
            "fog": f,
            "rate_light": rates[:, 0],
            "rate_heavy": rates[:, 1],
            "delay": d_mix,
            "delay_light": d[:, 0],
            "delay_heavy": d[:, 1],
        }
    )
    active = total > 0
    return NetworkAnalysis(
        mean_delay=mean_delay,
        mean_delay_per_iot=float(d_mix[active].mean()) if active.any() else 0.0,
        fog=fog,
        cloud=cloud,
        iot=iot,
        iterations=iterations,
        settings=dict(
            theta=theta,
            e_max=e_max,
            q=q,
            policy=policy,
            neighbour=neighbour,
            own_processing=own_processing,
            admission=admission,
            cloud_sojourn=cloud_sojourn,
        ),
    )


def _theta_per_fog(theta, n_fog, func):
    """θ as one float per fog node (a number for all, or a sequence of ``n_fog``); inf allowed."""
    items = theta if isinstance(theta, (list, tuple, np.ndarray)) else [theta]
    kinds_ok = all(
        isinstance(t, (int, float, np.integer, np.floating)) and not isinstance(t, (bool, np.bool_))
        for t in np.asarray(items, dtype=object).ravel()
    )
    try:
        if not kinds_ok:
            raise TypeError
        arr = np.atleast_1d(np.asarray(theta, dtype=float))
    except (TypeError, ValueError):
        raise ParameterError(
            f"The 'theta' parameter of {func} must be a number in [0, 1e+06] or inf, or one "
            f"such number per fog node. Got {theta!r} instead."
        ) from None
    if arr.ndim != 1 or arr.size not in (1, n_fog):
        raise ParameterError(
            f"The 'theta' parameter of {func} must be a number or one value per fog node "
            f"({n_fog}). Got {theta!r} instead."
        )
    if arr.size == 1:
        arr = np.full(n_fog, arr[0])
    for t in arr:
        if not (math.isinf(t) and t > 0):
            PARAMS["theta"].check(float(t), func)
    return arr
