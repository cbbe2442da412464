"""The scaling limit of P3: arrivals lambda_i N, capacities c_i N, N -> infinity.

:func:`regime` classifies a point ((A), (B1), (B2), (E) or a boundary);
:func:`limit_analysis` / :func:`blocking_limit` give the loss probabilities: in closed form
outside (E), and under (E) from pi_c(0,0) of the random walk of idle servers, solved as a
quasi-birth-death process (:func:`workbench.datacenters.kernels.idle_walk_qbd`). Every
function here takes ``load`` = lambda / N (the arrival rate per unit of the scale N), the
absolute rate being ``lam`` everywhere in the workbench.

References
----------
Fricker, Guillemin, Robert, Thompson (2016), condition (E), Proposition 2, Section 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.datacenters.exact import UncertifiedSolutionError, clip_unit
from workbench.datacenters.kernels import idle_walk_qbd
from workbench.datacenters.params import LIMIT, P3Params
from workbench.kernels.markov import adi_shifts, grid_chain_stencil, stationary_gmres
from workbench.params import takes

__all__ = ["regime", "limit_analysis", "blocking_limit", "LimitSolution"]


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


@takes(P3Params, *LIMIT, positional=True)
def regime(par) -> str:
    """Regime of the scaling limit: 'A', 'B1', 'B2', 'E' or 'E/B1 boundary', 'E/B2 boundary'.

    Takes the loads and capacities per unit N, the service rates and the forwarding
    probabilities (pairs, positional in this order, as in :func:`limit_analysis`), or one
    :class:`P3Params`.

    Returns
    -------
    str
        The regime's name.

    Notes
    -----
    (E): lambda1 > c1 mu1 and lambda2 + p1 (lambda1 - c1 mu1) > c2 mu2, or the symmetric
    condition: both centers are saturated with positive probability. (A): both underloaded.
    (B1): center 1 overloaded, center 2 absorbs its overflow. Points within a relative
    1e-9 of the (E) boundary are reported as boundary points.

    References
    ----------
    Fricker et al. (2016), condition (E) and Proposition 2.
    """
    return _classify(par.load, par.c, par.mu, par.p)


@dataclass(frozen=True)
class LimitSolution:
    """Scaling limit of the two-center network (see :func:`limit_analysis`).

    Parameters
    ----------
    regime : str
        ``"A"``, ``"B1"``, ``"B2"``, ``"E"`` or a boundary (:func:`regime`).
    beta : (float, float)
        Loss probability of each class in the limit.
    pi00 : float
        π_c(0, 0): both centers saturated.
    p_saturated : (float, float)
        P(m = 0), P(n = 0) (no idle server at center 1, at center 2); NaN for p = (1, 1)
        near critical load, where they are not needed.
    truncation : (int, int)
        Phases kept for m and for n (0: that coordinate is the walk's exact level).
    truncation_error : float
        Error estimate of the walk's probabilities.
    iterations : int
        Logarithmic-reduction steps.
    beta_error : float
        Bound on |β − exact| implied by ``truncation_error``.
    """

    regime: str
    beta: tuple
    pi00: float
    p_saturated: tuple
    truncation: tuple
    truncation_error: float
    iterations: int
    beta_error: float = 0.0


def walk_in_box(load, c, mu, p, box, tol):
    """The idle-server walk truncated to the box {0..M1} x {0..M2}, solved by ADI-GMRES.

    A computation independent of :func:`limit_analysis`'s QBD, to check it (the claim
    ``pi00_box_walk``, the tests). It trusts its arguments: a point inside (E), and a box
    large enough for the walk's tails.

    Parameters
    ----------
    load, c, mu, p : pairs of float
        Loads and capacities per unit N, service rates, forwarding probabilities.
    box : (int, int)
        (M1, M2), the largest numbers of idle servers kept.
    tol : float
        GMRES's relative residual target.

    Returns
    -------
    pi : numpy.ndarray
        The distribution on the grid x = M1 - m, y = M2 - n, so that the corner
        (m, n) = (0, 0) is ``pi[-1, -1]`` and the overflow terms sit on the top edges, as
        in the finite chain.
    residual : float
        ‖πQ‖₁ on the box.
    iterations : int
        GMRES iterations.

    Raises
    ------
    UncertifiedSolutionError
        When GMRES does not bring ‖πQ‖₁ below ``tol`` times the total flow: no unverified
        distribution is returned.
    """
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = load, c, mu, p
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
    pi, res, flow, it, converged = stationary_gmres(
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
    if not converged:
        raise UncertifiedSolutionError(
            f"walk_in_box: the idle-server walk at load={load!r}, c={c!r}, mu={mu!r}, p={p!r} "
            f"in the box {box!r} could not be solved to tol={tol:g}: relative residual "
            f"||pi Q||_1 / sum pi q = {res / flow:.1e} after {it} GMRES iterations."
        )
    return pi, res, it


@takes(P3Params, *LIMIT, "truncation_target", "max_phases", positional=True)
def limit_analysis(par) -> LimitSolution:
    """Blocking probabilities in the scaling limit, with the regime and pi_c(0,0).

    Takes the keywords below (positional in this order) or one :class:`P3Params` alone.

    Parameters
    ----------
    load, c : pairs of float
        Arrival rates and capacities per unit N: the centers receive lambda_i N requests
        per second and have c_i N servers.
    truncation_target : float
        Target for the truncation error (not a solver tolerance). The walk is solved as a
        quasi-birth-death process whose level is the coordinate with the heavier tail (exact,
        matrix-geometric in that coordinate) and whose phase, the other coordinate, is
        truncated where its geometric tail falls below truncation_target.
    max_phases : int
        Largest phase truncation; the reported ``truncation_error`` (tail mass of the
        phase, mismatch of the drift relations) says how good it is.

    Returns
    -------
    LimitSolution
        The regime, beta, pi_c(0, 0) and the truncation's error bounds.

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
        When the truncation error bound on beta exceeds max(truncation_target, 1e-8): close
        to critical load both idle-server counts have heavy tails and the walk cannot be
        truncated; the message says how far off the answer could be.

    References
    ----------
    Fricker et al. (2016), Proposition 2 (limit of the loss probabilities), Section 3
    (the blocking probabilities in terms of pi_c(0,0)).
    """
    lam, c, mu, p = par.load, par.c, par.mu, par.p  # lam: the loads per unit N
    tol, max_phases = par.truncation_target, par.max_phases
    reg = _classify(lam, c, mu, p)
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, c, mu, p
    if reg == "A":
        return LimitSolution(reg, (0.0, 0.0), 0.0, (0.0, 0.0), (0, 0), 0.0, 0)
    if reg in ("B1", "E/B1 boundary"):
        a = 1 - c1 * m1 / l1
        return LimitSolution(reg, ((1 - p1) * a, 0.0), 0.0, (a, 0.0), (0, 0), 0.0, 0)
    if reg in ("B2", "E/B2 boundary"):
        b = 1 - c2 * m2 / l2
        return LimitSolution(reg, (0.0, (1 - p2) * b), 0.0, (0.0, b), (0, 0), 0.0, 0)
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
        beta = (clip_unit(pi00), clip_unit(pi00))
        return LimitSolution(reg, beta, pi00, (math.nan, math.nan), (0, 0), 0.0, 0, 0.0)
    phases = int(min(needed, max_phases))
    # mass beyond the last quarter of the phases decays like rho_phase^k: when even
    # max_phases cannot bring it below the target, fail now instead of after the solve
    predicted_tail = rho_phase ** (0.75 * phases)
    if not full_pooling and predicted_tail > max(tol, 1e-8):
        raise UncertifiedSolutionError(
            f"limit_analysis: the idle-server walk at load={lam!r}, c={c!r}, mu={mu!r}, "
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
            f"limit_analysis: the idle-server walk at load={lam!r}, c={c!r}, mu={mu!r}, "
            f"p={p!r} could not be solved accurately enough: truncated at {phases} phases, "
            f"error estimate {walk_error:.1e} on its probabilities, i.e. up to "
            f"{beta_error:.1e} on beta "
            f"(> {max(tol, 1e-8):.0e}). This happens within a small relative distance of "
            "critical load, where both idle-server counts have heavy tails."
        )
    beta = (clip_unit((1 - p1) * a + p1 * pi00), clip_unit((1 - p2) * b + p2 * pi00))
    box = (phases, 0) if level_n else (0, phases)
    return LimitSolution(
        reg,
        beta,
        pi00,
        (clip_unit(a), clip_unit(b)),
        box,
        float(error),
        int(iterations),
        float(beta_error),
    )


@takes(P3Params, *LIMIT, positional=True)
def blocking_limit(par) -> tuple:
    """Blocking probabilities (beta1, beta2) in the limit lambda_i N, c_i N, N -> infinity.

    Takes ``load``, ``c``, ``mu``, ``p`` as :func:`limit_analysis` does (positional in this
    order) or one :class:`P3Params`.

    Returns
    -------
    (beta1, beta2) : tuple of float
        (A): (0, 0). (B1): ((1 - p1)(1 - c1 mu1 / lambda1), 0). (B2) symmetric. (E): from
        pi_c(0, 0) of the idle-server random walk, see :func:`limit_analysis`.

    References
    ----------
    Fricker et al. (2016), Proposition 2 and Section 3.
    """
    return limit_analysis(par).beta
