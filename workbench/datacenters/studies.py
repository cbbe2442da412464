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

from workbench.datacenters.exact import UncertifiedSolutionError, _solve_exact
from workbench.datacenters.limit import _classify, _limit_analysis, _limit_args
from workbench.datacenters.params import PARAMS, _vector
from workbench.sweep import sweep
from workbench.validation import check_bool

__all__ = [
    "cooperation_study",
    "cached_limit",
    "convergence_table",
    "optimal_forwarding",
    "regime_study",
]


def cooperation_study(
    lam, servers, mu, *, p_other=0.3, vary="p1", points=21, limit=True
) -> pd.DataFrame:
    """Exact (and limit) beta1, beta2 and the loss fraction as one forwarding probability varies.

    ``lam`` are the absolute arrival rates; ``servers`` = (C1, C2) = N (c1, c2) with
    N = max(C) is used for the limit's scaling (loads lam / N, capacities C / N). The
    values run through :func:`workbench.sweep.sweep`; the frame carries the parameters as
    columns (``vary``, ``p_other``, ``lam1`` ...), so that a CSV round trip keeps them.
    """
    args = PARAMS.check(
        "cooperation_study",
        lam=lam,
        servers=servers,
        mu=mu,
        p_other=p_other,
        vary=vary,
        points=points,
        limit=limit,
    )
    values = [float(q) for q in np.linspace(0.0, 1.0, args.pop("points"))]
    frame = sweep(_cooperation_rows, {"q": values}, fixed=args, n_workers=1, progress=False)
    frame = frame.drop(columns=["q", "replication", "seed"])
    frame.attrs["vary"] = args["vary"]
    # the figure states its parameters: carried as columns so that a CSV round trip keeps them
    (l1, l2), (c1, c2), (m1, m2) = args["lam"], args["servers"], args["mu"]
    frame = frame.assign(
        vary=args["vary"], p_other=args["p_other"], lam1=l1, lam2=l2, C1=c1, C2=c2, mu1=m1, mu2=m2
    )
    return frame


def _cooperation_rows(q, lam, servers, mu, p_other, vary, limit) -> pd.DataFrame:
    """The exact (and limit) point of :func:`cooperation_study` at p_varied = q."""
    n = max(servers)
    c = (servers[0] / n, servers[1] / n)
    p = (q, p_other) if vary == "p1" else (p_other, q)
    b1, b2 = _solve_exact(lam, servers, mu, p, tol=1e-10, func="cooperation_study").beta
    rows = [
        {
            "p_varied": q,
            "model": f"exact (N={n})",
            "beta1": b1,
            "beta2": b2,
            "loss_fraction": (lam[0] * b1 + lam[1] * b2) / (lam[0] + lam[1]),
        }
    ]
    load = (lam[0] / n, lam[1] / n)
    limit_beta = cached_limit(load, c, mu, p, SCREEN_TRUNCATION_TARGET) if limit else None
    if limit_beta is not None:
        l1, l2 = limit_beta
        rows.append(
            {
                "p_varied": q,
                "model": "limit N→∞",
                "beta1": l1,
                "beta2": l2,
                "loss_fraction": (lam[0] * l1 + lam[1] * l2) / (lam[0] + lam[1]),
            }
        )
    return pd.DataFrame(rows)


_LIMIT_CACHE: dict = {}


#: the limit's truncation target in figures and views: a curve on a screen needs no 1e-10
SCREEN_TRUNCATION_TARGET = 1e-8


def cached_limit(load, c, mu, p, truncation_target=None):
    """The limit's beta at checked arguments, memoised for slider views; None where it cannot
    be certified (close to critical load), so that a figure leaves it out instead of drawing a
    guess. ``truncation_target`` None: the table's default (1e-10); the figures and views pass
    :data:`SCREEN_TRUNCATION_TARGET` or looser."""
    if truncation_target is None:
        truncation_target = PARAMS["truncation_target"].default
    key = tuple(round(float(v), 10) for v in (*load, *c, *mu, *p))
    if key not in _LIMIT_CACHE:
        if len(_LIMIT_CACHE) > 4096:
            _LIMIT_CACHE.clear()
        try:
            _LIMIT_CACHE[key] = _limit_analysis(
                load, c, mu, p, truncation_target=truncation_target
            ).beta
        except UncertifiedSolutionError:
            _LIMIT_CACHE[key] = None
    return _LIMIT_CACHE[key]


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
    *, load=None, c=None, mu=None, p=None, sizes=None, progress=False
) -> pd.DataFrame:
    """Exact beta at C_i = c_i N, arrivals lambda_i N = load_i N, for growing N, next to the
    limit.

    Every argument left at None is the table's default (the worked example,
    ``sizes`` = 10 ... 1000). Returns one row per N with ``beta1``, ``beta2``, the limit
    values, the errors, the solver's relative residual and iterations, and N * error
    (constant if the error is O(1/N)). The sizes run through :func:`workbench.sweep.sweep`
    (``progress`` shows its bar).

    References
    ----------
    Fricker et al. (2016), Proposition 2 (the limit the exact values approach).
    """
    func = "convergence_table"
    load, c, mu, p = _limit_args(
        *(
            PARAMS[k].default if v is None else v
            for k, v in (("load", load), ("c", c), ("mu", mu), ("p", p))
        ),
        func,
    )
    sizes = PARAMS["sizes"].default if sizes is None else sizes
    sizes = [int(n) for n in _vector(sizes, "sizes", func, name="sizes", dtype=int)]
    lim = _limit_analysis(load, c, mu, p)
    fixed = {"lam": load, "c": c, "mu": mu, "p": p, "limit_beta": lim.beta}
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


def regime_study(*, p=(0.6, 0.3), c=(1.0, 1.0), mu=(1.0, 1.0), lam_max=3.0, map_points=121):
    """Regime of the limit on a grid of loads per unit N, (lambda1/N, lambda2/N) in
    (0, lam_max]^2 (the columns keep the names ``lam1``, ``lam2``)."""
    func = "regime_study"
    args = PARAMS.check(func, p=p, c=c, mu=mu, lam_max=lam_max, map_points=map_points)
    p, c, mu, lam_max = args["p"], args["c"], args["mu"], args["lam_max"]
    points = args["map_points"]
    values = np.linspace(lam_max / points, lam_max, points)
    rows = [
        {"lam1": a, "lam2": b, "regime": _classify((a, b), c, mu, p)}
        for a in values
        for b in values
    ]
    frame = pd.DataFrame(rows)
    frame.attrs.update(p=p, c=c, mu=mu)
    return frame.assign(p1=p[0], p2=p[1], c1=c[0], c2=c[1], mu1=mu[0], mu2=mu[1])
