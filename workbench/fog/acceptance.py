"""P_j = P(W < θ): sums of two Erlang laws, and the closed forms of the q = 0.5 chain.

P(Erlang(n, μ) + Erlang(n', μ') < θ) is evaluated by uniformisation: with μ_hi ≥ μ_lo, an
Exp(μ_lo) time is a geometric number (success probability μ_lo/μ_hi) of Exp(μ_hi) stages, so
the sum is Erlang(M, μ_hi) with M = n_fast + a negative binomial, and
P(W < θ) = Σ_m P(M = m)·P(Poisson(μ_hi θ) ≥ m): a sum of positive terms, exact at μ = μ'
and stable for any n, n'. The paper's route (Laplace transform, partial fractions) has
coefficients ∝ (μ' − μ)^{−(n+n'−k)} of alternating sign; it is kept in
:func:`erlang_sum_cdf_partial_fractions` to show it failing as μ' → μ.

At q = 0.5 the chain is multi-class M/M/1 processor sharing: W is a geometric sum of
two-phase hyperexponential works, a phase-type law with a 2×2 generator. Its closed forms
(:func:`ps_closed_form`) are the tests' oracles and the network model's fast path; P_j is
the same for every q (work-conserving server, memoryless service).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 18–21 (P_j through the Erlang sum).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from workbench.fog.chain import NODE, node_load
from workbench.fog.model import P1Params
from workbench.fog.params import PARAMS, check_count
from workbench.params import takes
from workbench.validation import ParameterError

__all__ = [
    "erlang_sum_cdf",
    "erlang_sum_cdf_partial_fractions",
    "accept_probability",
    "ps_closed_form",
]


ERLANG_WINDOW_MAX = 5_000_000
"""Most terms :func:`erlang_sum_cdf` sums (about 10 s); more is refused (bounded work)."""


def erlang_sum_cdf(theta, n, mu, n2, mu2) -> float:
    """P(Erlang(n, μ) + Erlang(n', μ') < θ), stable for any n, n' and μ ≈ μ'.

    Uniformisation at the faster rate, with only the stages that matter: with μ_hi ≥ μ_lo
    the sum is Erlang(M, μ_hi), M = n_hi + n_lo + K, K ~ NegBin(n_lo, p = μ_lo/μ_hi) extra
    stages; P(W < θ) = Σ_k P(K = k)·P(Poisson(μ_hi θ) ≥ M), a sum of positive terms (no
    cancellation). Terms with M below μ_hi θ − 12√(μ_hi θ + 1) − 50 have P(Poisson ≥ M) = 1
    to 1e-18 (summed at once by the negative binomial's cdf), terms above
    μ_hi θ + 12√(μ_hi θ + 1) + 50 vanish, and K beyond its 1 − 1e-17 quantile carries no
    mass: a window of O(√(μ_hi θ)) terms, whatever θ, n and n'.

    Parameters
    ----------
    theta : float
        θ [s] (``math.inf``: 1).
    n, n2 : int
        Numbers of exponential phases at rate ``mu`` and ``mu2`` (≥ 0).
    mu, mu2 : float
        Rates [1/s].

    Returns
    -------
    float
        The probability, in [0, 1].

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 18–21 (P_j through the Erlang sum).
    """
    func = "erlang_sum_cdf"
    theta = PARAMS["theta"].check(theta, func)
    n, mu, n2, mu2 = _check_erlang_sum(func, n, mu, n2, mu2)
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


def _check_erlang_sum(func, n, mu, n2, mu2):
    n = check_count(n, "n", func, high=10**9)
    n2 = check_count(n2, "n2", func, high=10**9)
    mu = PARAMS["mu_light"].with_(name="mu").check(mu, func)
    mu2 = PARAMS["mu_heavy"].with_(name="mu2").check(mu2, func)
    return n, mu, n2, mu2


def erlang_sum_cdf_partial_fractions(theta, n, mu, n2, mu2) -> float:
    """The paper's route to P(Erlang(n, μ) + Erlang(n', μ') < θ): partial fractions.

    The Laplace transform μⁿ·μ'ⁿ'/((s+μ)ⁿ(s+μ')ⁿ') is split into terms A_k/(s+μ)^k and
    B_k/(s+μ')^k with A_k = (−1)^{n−k}·C(n'+n−k−1, n−k)·(μ'−μ)^{−(n'+n−k)}: huge coefficients
    of alternating sign that cancel. Kept to show the cancellation (it loses every digit as
    μ' → μ and is undefined at μ' = μ, where the sum is one Erlang(n + n', μ) law and that
    exact value is returned); use :func:`erlang_sum_cdf` instead.

    Parameters
    ----------
    theta, n, mu, n2, mu2
        As in :func:`erlang_sum_cdf`; n + n' is at most 10⁶ (one term each).

    Returns
    -------
    float
        The probability as the partial fractions give it: outside [0, 1] or NaN where the
        cancellation has eaten every digit.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 19–21.
    """
    func = "erlang_sum_cdf_partial_fractions"
    theta = PARAMS["theta"].check(theta, func)
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
    with np.errstate(all="ignore"):  # overflow is detected below, on the result
        mu, mu2 = np.float64(mu), np.float64(mu2)  # a Python float's ** raises instead
        scale = mu**n * mu2**n2
        for k in range(1, n + 1):
            c = special.comb(n2 + n - k - 1, n - k) / (mu2 - mu) ** (n2 + n - k)
            total += (-1) ** (n - k) * c * special.gammainc(k, mu * theta) / mu**k
        for k in range(1, n2 + 1):
            c = special.comb(n + n2 - k - 1, n2 - k) / (mu - mu2) ** (n + n2 - k)
            total += (-1) ** (n2 - k) * c * special.gammainc(k, mu2 * theta) / mu2**k
        out = float(scale * total)
    if not math.isfinite(out):
        raise ParameterError(
            f"The 'mu2' parameter of {func} leaves the partial fractions outside the float "
            f"range: their coefficients C/(mu2 - mu)^k and the scale mu^n * mu2^n2 overflow "
            f"(|mu2 - mu| = {abs(mu2 - mu):.3g}, n + n2 = {n + n2}). "
            "Use erlang_sum_cdf, which has no such limit."
        )
    if -1e-9 <= out < 0.0 or 1.0 < out <= 1.0 + 1e-9:  # rounding at the ends: 0 or 1
        return min(1.0, max(0.0, out))
    return out  # far outside [0, 1]: the cancellation the docstring shows


@takes(P1Params, "theta", *NODE, "q", positional=True)
def accept_probability(p) -> float:
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
    return _closed_form(p, "accept_probability")["accept"]


# ------------------------------------------------- closed forms at q = 0.5 (PS chain)


@takes(P1Params, "theta", *NODE, positional=True)
def ps_closed_form(p) -> dict:
    """Closed forms of the q = 0.5 chain (multi-class M/M/1 processor sharing).

    P(n, n') = (1−ρ)·C(n+n', n)·ρ₁ⁿρ₂ⁿ'; E n = ρ₁/(1−ρ), E n' = ρ₂/(1−ρ);
    W̄ = (ρ₁/μ + ρ₂/μ')/(1−ρ); P(W ≥ θ) = ρ·α·exp((T + ρ·t·α)θ)·1 with α = (ρ₁, ρ₂)/ρ,
    T = diag(−μ, −μ'), t = (μ, μ')ᵀ (a geometric sum of hyperexponential works).

    Parameters
    ----------
    theta : float
        θ [s] (``math.inf``: always accept).
    lam_light, lam_heavy, mu_light, mu_heavy : float
        λ, λ', μ, μ' [1/s], with ρ < 1.

    Returns
    -------
    dict
        ``mean_light``, ``mean_heavy``, ``mean_work``, ``accept`` (P(W < θ)).
    """
    return _closed_form(p, "ps_closed_form")


def _closed_form(p, func):
    """:func:`ps_closed_form` of ``p``, its errors naming ``func``."""
    rho = node_load(p, func)
    r1, r2 = p.lam_light / p.mu_light, p.lam_heavy / p.mu_heavy
    acc = ps_accept(
        np.array([p.theta]),
        np.array([r1]),
        np.array([r2]),
        np.array([p.mu_light]),
        np.array([p.mu_heavy]),
    )[0]
    return {
        "mean_light": r1 / (1 - rho),
        "mean_heavy": r2 / (1 - rho),
        "mean_work": (r1 / p.mu_light + r2 / p.mu_heavy) / (1 - rho),
        "accept": float(acc),
    }


def ps_accept(theta, r1, r2, mu, mu2):
    """P(W < θ) of the q = 0.5 chain, vectorised (a closed-form 2×2 matrix exponential).

    The kernel of :func:`accept_probability` and of the network model's fixed point: plain
    arrays, no checks (the callers pass values from a validated :class:`P1Params`).

    Parameters
    ----------
    theta, r1, r2, mu, mu2 : numpy.ndarray
        θ [s] (``inf``: always accept), ρ₁ = λ/μ, ρ₂ = λ'/μ' (ρ₁ + ρ₂ < 1), μ, μ' [1/s],
        one entry per node.

    Returns
    -------
    numpy.ndarray
        P(W < θ) per node, in [0, 1].
    """
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
        # s + δ (A's eigenvalue nearer 0) cancels when μθ ≫ μ'θ: it is det A / (s − δ), with
        # det A = ad − bc = μμ'θ²(1 − ρ)
        near = np.where(s - delta < 0, mu * mu2 * t * t * (1 - rho) / (s - delta), s + delta)
        ep, em = np.exp(near), np.exp(s - delta)
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
