"""Studies of P3 over many points: each a tidy frame, computed through the sweep engine.

- :func:`cooperation_study`: exact (and limit) blocking as one forwarding probability varies;
- :func:`convergence_table`: the exact chain at C_i = c_i N for growing N, next to the limit;
- :func:`optimal_forwarding`: the exact chain over a grid of (p1, p2), a step beyond the paper;
- :func:`regime_study`: the regime of the limit over a grid of loads per unit N.

This module imports :mod:`workbench.sweep`, so the package's ``__init__`` does not import it:
``from workbench.datacenters.studies import convergence_table``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datacenters.exact import UncertifiedSolutionError, solve_exact
from workbench.datacenters.limit import limit_analysis, regime
from workbench.datacenters.params import DEFAULTS, LIMIT, P3Params
from workbench.params import takes
from workbench.sweep import sweep
from workbench.validation import check_bool

__all__ = [
    "cooperation_study",
    "cached_limit",
    "convergence_table",
    "optimal_forwarding",
    "regime_study",
]


@takes(P3Params, "lam", "servers", "mu", "p_other", "vary", "points", "limit", positional=True)
def cooperation_study(par) -> pd.DataFrame:
    """Exact (and limit) beta1, beta2 and the loss fraction as one forwarding probability varies.

    Takes the keywords below (positional in this order) or one :class:`P3Params` alone.

    Parameters
    ----------
    vary : {"p1", "p2"}
        The probability varied over ``points`` values in [0, 1]; ``p_other`` is the other.
    limit : bool
        Also the scaling limit, at N = max(C) (loads lam / N, capacities C / N).

    Returns
    -------
    pandas.DataFrame
        One row per value and model (``exact (N=…)``, ``limit N→∞``): ``p_varied``,
        ``beta1``, ``beta2``, ``loss_fraction``, and the parameters as columns (``vary``,
        ``p_other``, ``lam1`` ...), so that a CSV round trip keeps them. The values run
        through :func:`workbench.sweep.sweep`.
    """
    (l1, l2), (c1, c2), (m1, m2) = par.lam, par.servers, par.mu
    fixed = {k: getattr(par, k) for k in ("lam", "servers", "mu", "p_other", "vary", "limit")}
    values = [float(q) for q in np.linspace(0.0, 1.0, par.points)]
    frame = sweep(_cooperation_rows, {"q": values}, fixed=fixed, n_workers=1, progress=False)
    frame = frame.drop(columns=["q", "replication", "seed"])
    frame.attrs["vary"] = par.vary
    # the figure states its parameters: carried as columns so that a CSV round trip keeps them
    frame = frame.assign(
        vary=par.vary, p_other=par.p_other, lam1=l1, lam2=l2, C1=c1, C2=c2, mu1=m1, mu2=m2
    )
    return frame


def _cooperation_rows(q, lam, servers, mu, p_other, vary, limit) -> pd.DataFrame:
    """The exact (and limit) point of :func:`cooperation_study` at p_varied = q."""
    n = max(servers)
    c = (servers[0] / n, servers[1] / n)
    p = (q, p_other) if vary == "p1" else (p_other, q)
    point = DEFAULTS.trusted(lam=lam, servers=servers, mu=mu, p=p, tol=1e-10)
    models = {f"exact (N={n})": solve_exact(point).beta}
    if limit:
        load = (lam[0] / n, lam[1] / n)
        screen = DEFAULTS.trusted(
            load=load, c=c, mu=mu, p=p, truncation_target=SCREEN_TRUNCATION_TARGET
        )
        limit_beta = cached_limit(screen)
        if limit_beta is not None:
            models["limit N→∞"] = limit_beta
    rows = [
        {
            "p_varied": q,
            "model": model,
            "beta1": b1,
            "beta2": b2,
            "loss_fraction": (lam[0] * b1 + lam[1] * b2) / (lam[0] + lam[1]),
        }
        for model, (b1, b2) in models.items()
    ]
    return pd.DataFrame(rows)


_LIMIT_CACHE: dict = {}


#: the limit's truncation target in figures and views: a curve on a screen needs no 1e-10
SCREEN_TRUNCATION_TARGET = 1e-8


@takes(P3Params, *LIMIT, "truncation_target", positional=True)
def cached_limit(par):
    """The limit's beta, memoised for slider views; None where it cannot be certified.

    Takes the keywords of :func:`workbench.datacenters.limit_analysis` but ``max_phases``
    (positional in this order) or one :class:`P3Params`; the figures and views pass
    :data:`SCREEN_TRUNCATION_TARGET` or looser as ``truncation_target``.

    Returns
    -------
    (beta1, beta2) or None
        None close to critical load, where the limit cannot be certified: a figure leaves
        it out instead of drawing a guess.
    """
    key = tuple(round(float(v), 10) for v in (*par.load, *par.c, *par.mu, *par.p))
    if key not in _LIMIT_CACHE:
        if len(_LIMIT_CACHE) > 4096:
            _LIMIT_CACHE.clear()
        try:
            _LIMIT_CACHE[key] = limit_analysis(par).beta
        except UncertifiedSolutionError:
            _LIMIT_CACHE[key] = None
    return _LIMIT_CACHE[key]


def _convergence_row(N, lam, c, mu, p, limit_beta) -> dict:
    caps = (max(1, round(c[0] * N)), max(1, round(c[1] * N)))
    sol = solve_exact(DEFAULTS.trusted(lam=(lam[0] * N, lam[1] * N), servers=caps, mu=mu, p=p))
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


@takes(P3Params, *LIMIT, "sizes")
def convergence_table(par, *, progress=False) -> pd.DataFrame:
    """Exact beta at C_i = c_i N, arrivals lambda_i N = load_i N, for growing N, next to the
    limit.

    Parameters
    ----------
    par : P3Params, or its keywords ``load``, ``c``, ``mu``, ``p``, ``sizes``
        The point per unit N (the worked example by default) and the scales N (10 ...
        1000 by default).
    progress : bool
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per N with ``beta1``, ``beta2``, the limit values, the errors, N * error
        (constant if the error is O(1/N)), the solver's relative residual and iterations.
        The sizes run through :func:`workbench.sweep.sweep`.

    References
    ----------
    Fricker et al. (2016), Proposition 2 (the limit the exact values approach).
    """
    progress = check_bool(progress, "progress", "convergence_table")
    sizes = [int(n) for n in par.sizes]
    lim = limit_analysis(par)
    fixed = {"lam": par.load, "c": par.c, "mu": par.mu, "p": par.p, "limit_beta": lim.beta}
    frame = sweep(_convergence_row, {"N": sizes}, fixed=fixed, n_workers=1, progress=progress)
    return frame.drop(columns=["replication", "seed"])  # deterministic: one replication


def _forwarding_row(p1, p2, lam, servers, mu) -> dict:
    point = DEFAULTS.trusted(lam=lam, servers=servers, mu=mu, p=(p1, p2), tol=1e-10)
    b1, b2 = solve_exact(point).beta
    return {
        "beta1": b1,
        "beta2": b2,
        "loss_rate": lam[0] * b1 + lam[1] * b2,
        "max_beta": max(b1, b2),
    }


@takes(P3Params, "lam", "servers", "mu", "grid", positional=True)
def optimal_forwarding(par, *, progress=False) -> pd.DataFrame:
    """Exact beta1, beta2 and the loss rate over a grid of (p1, p2) in [0, 1]^2.

    A step beyond the paper, which fixes p and compares the classes.

    Takes the keywords below (positional in this order) or one :class:`P3Params` alone.

    Parameters
    ----------
    progress : bool
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (p1, p2): ``beta1``, ``beta2``, ``loss_rate`` = lambda1 beta1 +
        lambda2 beta2, ``max_beta``; ``min_loss`` flags the rows of least loss, ``fair`` the
        smallest max(beta1, beta2) (max-min fairness between the classes); the centers'
        parameters as columns.
    """
    progress = check_bool(progress, "progress", "optimal_forwarding")
    values = [float(v) for v in np.linspace(0.0, 1.0, par.grid)]
    frame = sweep(
        _forwarding_row,
        {"p1": values, "p2": values},
        fixed={"lam": par.lam, "servers": par.servers, "mu": par.mu},
        n_workers=1,
        progress=progress,
    )
    frame = frame.drop(columns=["replication", "seed"])
    frame["min_loss"] = frame["loss_rate"] == frame["loss_rate"].min()
    frame["fair"] = frame["max_beta"] == frame["max_beta"].min()
    (l1, l2), (c1, c2), (m1, m2) = par.lam, par.servers, par.mu
    return frame.assign(lam1=l1, lam2=l2, C1=c1, C2=c2, mu1=m1, mu2=m2)


@takes(P3Params, "p", "c", "mu", "lam_max", "map_points")
def regime_study(par) -> pd.DataFrame:
    """Regime of the limit on a grid of loads per unit N.

    Parameters
    ----------
    par : P3Params, or its keywords ``p``, ``c``, ``mu``, ``lam_max``, ``map_points``
        The point's other values, and the grid: ``map_points`` values per axis in
        (0, ``lam_max``].

    Returns
    -------
    pandas.DataFrame
        One row per (lambda1/N, lambda2/N) (columns ``lam1``, ``lam2``) with its
        ``regime`` (:func:`workbench.datacenters.regime`) and the other values as columns.
    """
    p, c, mu, lam_max, points = par.p, par.c, par.mu, par.lam_max, par.map_points
    values = np.linspace(lam_max / points, lam_max, points)
    rows = [
        {"lam1": a, "lam2": b, "regime": regime(par.trusted(load=(a, b)))}
        for a in values
        for b in values
    ]
    frame = pd.DataFrame(rows)
    frame.attrs.update(p=p, c=c, mu=mu)
    return frame.assign(p1=p[0], p2=p[1], c1=c[0], c2=c[1], mu1=mu[0], mu2=mu[1])
