"""One fog node: the two-class (n, n') chain, its mean work and mean counts.

A single server with an unbounded queue, Poisson Light (λ) and Heavy (λ') arrivals and
exponential processing (μ, μ'). In state (n, n') a Light request leaves at rate Q·μ and a
Heavy one at rate (1−Q)·μ', with Q = q·n / (q·n + (1−q)·n'). The chain is solved on the
triangle n + n' ≤ N, N chosen from a geometric tail bound, and the mass beyond N is
reported (:class:`ChainSolution`). From its law P(n, n'):

- :func:`mean_work` W̄ = Σ (n/μ + n'/μ')·P(n, n');
- :func:`mean_in_system` (E n, E n').

The acceptance probability P_j = P(W < θ) is in :mod:`workbench.fog.acceptance`, the
network in :mod:`workbench.fog.network`.

What the chain really is. A Light request leaving at rate μ·n/(n+n') means each of the
n + n' requests in the node is served at rate 1/(n+n') of the server: processor sharing,
and for q ≠ 0.5 discriminatory processor sharing. It is not a FIFO queue (with μ ≠ μ'
FIFO is not even Markov on (n, n')). At q = 0.5 it has the product form
P(n, n') = (1−ρ)·C(n+n', n)·ρ₁ⁿ·ρ₂ⁿ' with ρ₁ = λ/μ, ρ₂ = λ'/μ', ρ = ρ₁ + ρ₂: the total count
is geometric (M/M/1-PS, insensitive) and the classes split binomially.

References
----------
Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading", IEEE
Internet of Things Journal 5(1), 2018, Sec. IV-G (the (n, n') chain, W̄).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from workbench.fog.model import P1Params
from workbench.fog.params import MAX_CHAIN_STATES
from workbench.params import takes
from workbench.validation import ParameterError, UnstableRegimeError

__all__ = [
    "ChainSolution",
    "solve_chain",
    "mean_work",
    "mean_in_system",
    "node_load",
    "stationary_law",
]

#: the one fog node's arguments, in the order the functions take them positionally
NODE = ("lam_light", "lam_heavy", "mu_light", "mu_heavy")


# ------------------------------------------------------------------------ the load


def node_load(p, func: str) -> float:
    """ρ = λ/μ + λ'/μ' of the fog node of ``p``; raises when ρ ≥ 1 (no stationary law).

    Parameters
    ----------
    p : P1Params
        Its ``lam_light``, ``lam_heavy``, ``mu_light``, ``mu_heavy`` are read.
    func : str
        The public function named in the error.

    Returns
    -------
    float
        ρ, below 1.
    """
    rho = p.lam_light / p.mu_light + p.lam_heavy / p.mu_heavy
    if rho >= 1.0:
        raise UnstableRegimeError(
            f"{func}: the fog node is unstable, ρ = λ/μ + λ'/μ' = {rho:.6g} ≥ 1 "
            f"(λ={p.lam_light:g}, λ'={p.lam_heavy:g}, μ={p.mu_light:g}, "
            f"μ'={p.mu_heavy:g}); no stationary law exists."
        )
    return rho


# ------------------------------------------------------------------------ the chain


@dataclass(frozen=True)
class ChainSolution:
    """The stationary law of the truncated (n, n') chain.

    Parameters
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
    prob = np.zeros((levels + 1, levels + 1))
    # arrivals are blocked on the last level (the truncation)
    prob[n, m] = stationary_law(n, m, n + m < levels, lam, lam2, mu, mu2, q)
    return prob


def stationary_law(n, m, admits, lam, lam2, mu, mu2, q):
    """Stationary law of the (n, n') chain on a finite set of states, by one sparse LU solve.

    An admitting state moves to (n + 1, n') at rate λ and to (n, n' + 1) at rate λ' (both
    among the states); a busy state loses a Light request at Q·μ and a Heavy one at
    (1 − Q)·μ', Q = q·n/(q·n + (1−q)·n'). π·G = 0 is solved with the balance equation of
    the first state, (0, 0), replaced by the normalisation Σπ = 1.

    Parameters
    ----------
    n, m : numpy.ndarray of int
        The states' counts of Light and Heavy requests; the first state is (0, 0).
    admits : numpy.ndarray of bool
        Whether each state admits arrivals.
    lam, lam2, mu, mu2 : float
        λ, λ', μ, μ' [1/s].
    q : float
        Fairness.

    Returns
    -------
    numpy.ndarray
        π, one probability per state.
    """
    index = np.full((n.max() + 2, m.max() + 2), -1)
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
        [
            np.full(adm.size, lam),
            np.full(adm.size, lam2),
            share[light] * mu,
            (1 - share[heavy]) * mu2,
        ]
    )
    gen = sp.coo_matrix((vals, (rows, cols)), shape=(n.size, n.size)).tocsr()
    gen = gen - sp.diags(np.asarray(gen.sum(axis=1)).ravel())
    a = gen.T.tolil()
    a[0, :] = np.ones(n.size)
    rhs = np.zeros(n.size)
    rhs[0] = 1.0
    pi = np.clip(spla.spsolve(a.tocsc(), rhs), 0.0, None)
    return pi / pi.sum()


def _tail(level_mass):
    """The decay per level of P(n + n' = k), measured away from the truncation boundary.

    Returns (the last level, the later measured level and its mass, the ratio per level),
    or None when a measured level is empty.
    """
    k = level_mass.size - 1
    lo, hi = max(1, k - 12), max(2, k - 4)
    a, b = level_mass[lo], level_mass[hi]
    if a <= 0 or b <= 0:
        return None
    return k, hi, b, (b / a) ** (1.0 / (hi - lo))


def _dropped_estimate(level_mass):
    """Mass beyond the last level, extrapolating the decay of levels away from the boundary."""
    if (tail := _tail(level_mass)) is None:
        return 0.0
    k, hi, b, ratio = tail
    ratio = min(ratio, 1.0 - 1e-12)
    return float(b * ratio ** (k - hi + 1) / (1.0 - ratio))


def _more_levels(level_mass, dropped, tol, levels):
    """The next truncation: enough levels for the observed tail decay to reach ``tol``."""
    tail = _tail(level_mass)
    if tail is not None and tail[3] < 1.0:
        extra = math.ceil(math.log(tol / dropped) / math.log(tail[3])) + 8
        # at least a quarter more (a bounded number of tries), at most doubling
        return levels + min(max(extra, levels // 4, 8), levels)
    return 2 * levels


@takes(P1Params, *NODE, "q", "tol", positional=True)
def solve_chain(p) -> ChainSolution:
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
    The level N starts from the geometric bound: the smallest N with ρ^N ≤ tol·(1 − ρ), plus
    8 levels of margin (and at least 16). At q = 0.5 the total count is geometric, so the
    mass beyond that N, ρ^{N+1}, is below tol and this first truncation is kept. Otherwise N
    grows, by the tail's observed decay (at most doubling), while the extrapolated dropped
    mass exceeds ``tol``: one step when the decay holds beyond the last levels. Up to
    N = ``LEVEL_REDUCTION_MAX`` the chain is solved level by level (block Gaussian
    elimination), above by a sparse LU.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (transition rates and Q).
    """
    return _chain(p, node_load(p, "solve_chain"), "solve_chain")


def _chain(p, rho, func):
    """The truncated law of the chain of ``p`` at load ``rho`` (errors name ``func``)."""
    lam, lam2, mu, mu2, q, tol = p.lam_light, p.lam_heavy, p.mu_light, p.mu_heavy, p.q, p.tol
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
        # arrivals blocked on the last level; level reduction up to LEVEL_REDUCTION_MAX
        solve = _solve_levels if levels <= LEVEL_REDUCTION_MAX else _solve_sparse
        prob = solve(lam, lam2, mu, mu2, q, levels)
        sol = ChainSolution(prob, levels, 0.0, rho)
        dropped = _dropped_estimate(sol.level_mass)
        if dropped <= tol:
            return ChainSolution(prob, levels, dropped, rho)
        levels = _more_levels(sol.level_mass, dropped, tol, levels)


@takes(P1Params, *NODE, "q", positional=True)
def mean_work(p) -> float:
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
    rho = node_load(p, "mean_work")
    mu, mu2 = p.mu_light, p.mu_heavy
    return float((p.lam_light / mu**2 + p.lam_heavy / mu2**2) / (1 - rho))


@takes(P1Params, *NODE, "q", positional=True)
def mean_in_system(p) -> tuple[float, float]:
    """Mean numbers of Light and Heavy requests in a fog node, (E n, E n').

    This is what q changes: q near 1 serves Light requests first, so fewer Light and more
    Heavy requests wait (E n falls, E n' rises), while the work E n/μ + E n'/μ' = W̄, the
    acceptance P_j and therefore every delay of the model stay the same. At q = 0.5,
    E n = ρ₁/(1−ρ) and E n' = ρ₂/(1−ρ); otherwise the (n, n') chain is solved numerically.

    Parameters
    ----------
    lam_light, lam_heavy, mu_light, mu_heavy : float
        λ, λ', μ, μ' [1/s], with ρ = λ/μ + λ'/μ' < 1.
    q : float, default 0.5
        Fairness of the chain.

    Returns
    -------
    (float, float)
        (E n, E n').

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (the (n, n') chain).
    """
    rho = node_load(p, "mean_in_system")
    sol = _chain(p.trusted(tol=1e-12), rho, "mean_in_system")
    n, m = np.indices(sol.prob.shape)
    return float(np.sum(n * sol.prob)), float(np.sum(m * sol.prob))
