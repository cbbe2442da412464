"""The computations behind P4's figures and claims: one tidy frame per figure, no drawing.

``<name>_frame(quick=False, seed=0)`` computes the tidy DataFrame of figure ``<name>`` (one
row per plotted point): ``quick`` computes fewer points and shorter runs; ``seed``, taken by
the simulated frames, is the caller's (the notebook's ``SEED``), and 0 gives the published
numbers. :mod:`workbench.redundancy.figures` draws a frame (``plot_<name>``) and
:mod:`workbench.redundancy.claims` measures the claims on the same computations. This module
imports neither matplotlib nor ipywidgets. Parameter values the paper does not state are
marked [choice]. Multi-point simulation studies go through :func:`workbench.sweep.sweep`, so
every point's seed comes from the point itself.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", Sec. VII (Figs. 3-7), Sec. VI (Table I), Sec. VIII (future work: waiting room,
other service families).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.params import takes
from workbench.redundancy import model as rd
from workbench.redundancy.model import P4Params
from workbench.redundancy.params import FORMULAS, PARAMS
from workbench.redundancy.simulation import running_mean_trace, simulate
from workbench.seeding import figure_seed
from workbench.sweep import sweep

__all__ = [
    "classify_allocation",
    "fig3_frame",
    "fig4_frame",
    "fig5_frame",
    "fig6_frame",
    "fig7_frame",
    "table1_frame",
    "ext_eq8_frame",
    "ext_waiting_room_frame",
    "ext_weibull_frame",
    "ext_heavy_tail_frame",
]

N_PAPER = 24
SEXP = rd.SExp(3.0, 0.2)  # Figs. 4-7
PARETO = rd.Pareto(1.5, 1.2)
FAMILIES = {"S-Exp(3, 0.2)": SEXP, "Pareto(1.5, 1.2)": PARETO}
FIG3_LAMBDA = PARAMS["fig3_lam"].default  # [choice] not stated (its row says why)
BASE_SEED = 2303_00486


def _simulate_point(family, a, b, N, m, lam, t_cloud, n_jobs, replications, waiting_room, seed):
    """One simulated configuration as a flat dict (the sweep engine's unit of work).

    ``a`` and ``b`` are the family's two parameters in constructor order (S-Exp Δ, μ;
    Pareto β, α; Weibull k, s); the sweep derives each point's seed from these keys.
    """
    res = simulate(
        N=N,
        m=m,
        lam=lam,
        t_cloud=t_cloud,
        service=rd.make_service(family, a, b),
        jobs=n_jobs,  # the point's key keeps its name: the sweep derives the seed from it
        seed=seed,
        replications=replications,
        waiting_room=waiting_room,
        overload="transient",  # a figure draws a non-stationary point hollow, not skips it
    )
    blocking_low, blocking_high = res.interval("blocking")
    # intervals come clipped to where the quantity lies (E[T_sys] >= 0, P_b in [0, 1])
    return {
        "sim_mean": res.mean,
        "sim_ci_low": res.ci_low,
        "sim_ci_high": res.ci_high,
        "sim_blocking": res.blocking,
        "sim_blocking_ci_low": blocking_low,
        "sim_blocking_ci_high": blocking_high,
        "variance_finite": res.info["variance_finite"],
        "stationary": res.stationary,
        "stationarity_p": res.stationarity.p_value,
    }


def _both_formulas(N, m, lam, t_cloud, service) -> dict:
    """E[T_sys] by eq. 1 with the exact Erlang-B (``exact``) and as printed (``paper``)."""
    return {f: rd.system_time(N, m, lam, t_cloud, service, f) for f in FORMULAS}


def _family_args(service: rd.ServiceTime) -> dict:
    a, b = service.params().values()
    return {"family": service.name, "a": a, "b": b}


def _run_points(points: list[dict], quick: bool, desc: str, base_seed: int, fixed=None):
    """Simulate points with the sweep engine: in-process when quick, else in processes. The
    points' seeds come from ``base_seed`` and the points' values; ``fixed`` (the paper's loss
    system, ``waiting_room=0``) does not enter them."""
    return sweep(
        _simulate_point,
        points,
        fixed=fixed,
        n_workers=1 if quick else None,
        progress=False,
        desc=desc,
        base_seed=base_seed,
    )


def _with_simulations(data, ms, service, quick, desc, base_seed, **run):
    """``data`` (one row per λ, column ``lam``) with the loss system simulated at each row's
    λ and m (``ms``) beside it: the simulated columns of :func:`_simulate_point`. ``run``:
    the points' other keys (N, t_cloud, n_jobs, replications)."""
    points = [
        {**_family_args(service), **run, "m": int(m), "lam": lam}
        for m, lam in zip(ms, data["lam"], strict=True)
    ]
    sims = _run_points(points, quick, desc, base_seed, fixed={"waiting_room": 0})
    keep = [c for c in sims if c.startswith("sim_") or c in ("stationary", "stationarity_p")]
    return pd.concat([data, sims[keep]], axis=1)


def fig3_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_job] and P_b vs m (N = 24; S-Exp(1, 1) and Pareto(1, 1.2); λ = 3 [choice]).

    Parameters
    ----------
    quick : bool
        Unused: the frame is analytic and fast.

    Returns
    -------
    pandas.DataFrame
        One row per (service, m): c, job_time, blocking, lam, N.
    """
    N, lam = N_PAPER, FIG3_LAMBDA
    services = {"S-Exp(1, 1)": rd.SExp(1.0, 1.0), "Pareto(1, 1.2)": rd.Pareto(1.0, 1.2)}
    frames = []
    for label, svc in services.items():
        df = rd.metrics_by_m(N, lam, 1.0, svc)[["m", "c", "job_time", "blocking"]]
        frames.append(df.assign(service=label, lam=lam, N=N))
    return pd.concat(frames, ignore_index=True)


def policy_curves(
    N,
    t_cloud,
    service,
    lams,
    *,
    n_jobs=0,
    replications=None,
    quick=True,
    policies=("benchmark", "bpo", "asto"),
    base_seed=BASE_SEED,
) -> pd.DataFrame:
    """E[T_sys] vs λ for each policy: its m, analytic (exact and paper), optional simulation.

    Parameters
    ----------
    N, t_cloud, service
        The system (workers, cloud time [s], job-time law).
    lams
        Arrival rates [1/s], one row per rate and policy.
    n_jobs, replications, quick
        The simulation protocol: ``n_jobs`` arrivals per run (0: analytic only),
        ``replications`` runs per point (None: 20 quick, 100 full).
    policies
        Names of :func:`workbench.redundancy.policy_m`.
    base_seed
        The sweep's seed: a caller following a notebook passes
        ``figure_seed(BASE_SEED, seed)``.

    Returns
    -------
    pandas.DataFrame
        One row per (λ, policy): m, the exact and the paper's E[T_sys], and the simulated
        mean, interval and stationarity when simulated.
    """
    rows = []
    for lam in lams:
        for policy in policies:
            m = rd.policy_m(policy, N, lam, t_cloud, service)
            rows.append(
                {"lam": float(lam), "policy": policy, "m": m}
                | _both_formulas(N, m, lam, t_cloud, service)
            )
    data = pd.DataFrame(rows)
    if not n_jobs:
        return data
    replications = PARAMS["replications"].default if replications is None else replications
    run = {"N": N, "t_cloud": t_cloud, "n_jobs": n_jobs, "replications": replications}
    return _with_simulations(
        data, data["m"], service, quick, "Fig. 4 simulations", base_seed, **run
    )


def fig4_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """E[T_sys] vs λ for ASTO / BPO / benchmark (N=24, T_cl=15): analytic + simulation.

    The paper simulates 500 arrivals × 100 runs; so does the workbench (20 runs if quick).

    Parameters
    ----------
    quick : bool
        Fewer points and shorter runs.
    seed : int
        The caller's seed: it shifts every run's seed.

    Returns
    -------
    pandas.DataFrame
        :func:`policy_curves`'s rows for both services, with ``service``.
    """
    lams = np.arange(0.25, 5.01, 0.5 if quick else 0.25)
    frames = [
        policy_curves(
            N_PAPER,
            15.0,
            svc,
            lams,
            n_jobs=500,
            replications=20 if quick else 100,
            quick=quick,
            base_seed=figure_seed(BASE_SEED, seed),
        ).assign(service=label)
        for label, svc in FAMILIES.items()
    ]
    return pd.concat(frames, ignore_index=True)


def _by_m_frame(param: str, values, fixed: dict) -> pd.DataFrame:
    frames = []
    for label, svc in FAMILIES.items():
        for v in values:
            kw = {**fixed, param: v}
            df = rd.metrics_by_m(N_PAPER, kw["lam"], kw["t_cloud"], svc)
            long = df.melt(
                id_vars=["m", "c"],
                value_vars=["system_time_exact", "system_time_paper"],
                var_name="formula",
                value_name="system_time",
            )
            long["formula"] = long["formula"].str.removeprefix("system_time_")
            frames.append(long.assign(service=label, **kw))
    return pd.concat(frames, ignore_index=True)


def fig5_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for λ in {0.1, 1, 5}, T_cl = 8 (eq. 1 exact and eqs. 1/8 as printed).

    Parameters
    ----------
    quick : bool
        Unused: the frame is analytic and fast.

    Returns
    -------
    pandas.DataFrame
        One row per (service, λ, formula, m): c, system_time.
    """
    return _by_m_frame("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0})


def fig6_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for T_cl in {15, 50, 100}, λ = 1.5 (caption's '10' is a typo for 100).

    Parameters
    ----------
    quick : bool
        Unused: the frame is analytic and fast.

    Returns
    -------
    pandas.DataFrame
        One row per (service, T_cl, formula, m): c, system_time.
    """
    return _by_m_frame("t_cloud", (15.0, 50.0, 100.0), {"lam": 1.5})


def fig7_frame(quick: bool = False) -> pd.DataFrame:
    """Optimal m and c = ⌊N/m⌋ vs N (λ = 1.5, T_cl = 10).

    Parameters
    ----------
    quick : bool
        N up to 60 instead of 120.

    Returns
    -------
    pandas.DataFrame
        One row per (service, formula, N): m_opt, c_opt, system_time.
    """
    Ns = range(2, 61 if quick else 121)
    return pd.concat(
        [
            rd.optimum_vs_workers(Ns, 1.5, 10.0, svc, f).assign(service=label)
            for label, svc in FAMILIES.items()
            for f in FORMULAS
        ],
        ignore_index=True,
    )


#: Table I as printed: (family, parameter) -> its letters at the "small" and "large" values
TABLE1_PAPER = {
    ("Exp", "lam"): ("C", "B"),
    ("Exp", "t_cloud"): ("C", "S"),
    ("Exp", "N"): ("B", "C"),
    ("S-Exp", "lam"): ("C", "B"),
    ("S-Exp", "t_cloud"): ("C", "S"),
    ("S-Exp", "N"): ("B", "B"),
    ("Pareto", "lam"): ("C", "B"),
    ("Pareto", "t_cloud"): ("C", "B"),
    ("Pareto", "N"): ("B", "B"),
    ("Pareto", "alpha"): ("S", "C"),
}
TABLE1_SERVICES = {"Exp": rd.SExp(0.0, 0.2), "S-Exp": SEXP, "Pareto": PARETO}
#: Table I's [choice] values (the paper gives none for 'large' and 'small'), each a row of
#: the parameter table with its plausible range: the baseline, then (small, large) per level
TABLE1_BASE = ("N", "lam", "t_cloud")
TABLE1_LEVELS = ("lam", "t_cloud", "N", "alpha")
TABLE1_FIELDS = (
    *(f"table1_{k}" for k in TABLE1_BASE),
    *(f"table1_{k}_{level}" for k in TABLE1_LEVELS for level in ("small", "large")),
)


def classify_allocation(N: int, m: int) -> str:
    """Table I's letter of an allocation.

    Parameters
    ----------
    N : int
        Edge workers.
    m : int
        Replication factor, 1 <= m <= N.

    Returns
    -------
    str
        S (spread) if m = 1, C (concentrate) if at most 2 groups remain, else B (balance).
    """
    if m == 1:
        return "S"
    return "C" if N // m <= 2 else "B"


@takes(P4Params, *TABLE1_FIELDS, "formula")
def table1_frame(p, *, quick: bool = False) -> pd.DataFrame:
    """Table I recomputed: the optimal allocation at 'small' and 'large' parameter values.

    Each cell moves one parameter (λ, T_cl, N, or Pareto's α) from the baseline to its
    'small' or 'large' value and finds the optimal m by E[T_sys] (``formula``); the claim
    atlas moves these [choice] values.

    Parameters
    ----------
    quick : bool
        Unused: the table is analytic and fast.

    Returns
    -------
    pandas.DataFrame
        One row per cell: family, parameter, level, value, N, m_opt, c_opt, the workbench's
        letter beside the paper's, and whether they agree.
    """
    rows = []
    for (fam, param), letters in TABLE1_PAPER.items():
        for level, paper in zip(("small", "large"), letters, strict=True):
            value = getattr(p, f"table1_{param}_{level}")
            kw = {k: getattr(p, f"table1_{k}") for k in TABLE1_BASE}
            service = TABLE1_SERVICES[fam]
            if param == "alpha":
                service = rd.Pareto(service.beta, value)
            else:
                kw[param] = value
            m = rd.optimal_m(kw["N"], kw["lam"], kw["t_cloud"], service, p.formula)
            rows.append(
                {
                    "family": fam,
                    "parameter": param,
                    "level": level,
                    "value": value,
                    "N": kw["N"],
                    "m_opt": m,
                    "c_opt": kw["N"] // m,
                    "workbench": classify_allocation(kw["N"], m),
                    "paper": paper,
                }
            )
    data = pd.DataFrame(rows)
    data["agrees"] = data["workbench"] == data["paper"]
    return data


EQ8_CASE = {"N": N_PAPER, "m": 4, "t_cloud": 15.0, "service": SEXP}


def ext_eq8_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Where the paper's eq. 8 departs from Erlang-B and what a simulation says.

    Parameters
    ----------
    quick : bool
        Fewer points and shorter runs.
    seed : int
        The caller's seed: it shifts every run's seed.

    Returns
    -------
    pandas.DataFrame
        One row per λ: exact, paper, the simulated mean with its interval, lambda_max.
    """
    N, m, t_cloud, service = (EQ8_CASE[k] for k in ("N", "m", "t_cloud", "service"))
    lams = np.linspace(0.2, 8.0, 14 if quick else 40)
    rows = [{"lam": lam} | _both_formulas(N, m, lam, t_cloud, service) for lam in lams]
    run = {"N": N, "t_cloud": t_cloud, "n_jobs": 5_000 if quick else 50_000, "replications": 10}
    data = _with_simulations(
        pd.DataFrame(rows),
        [m] * len(lams),
        service,
        quick,
        "eq. 8 vs simulation",
        figure_seed(BASE_SEED, seed),
        **run,
    )
    data["lambda_max"] = rd.lambda_max(N, m, service)
    return data


WAITING_CASE = {"lam": 1.5, "t_cloud": 15.0}


def ext_waiting_room_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """M/G/c/c+w by simulation: does a waiting room change the best m? (paper Sec. VIII-1).

    Parameters
    ----------
    quick : bool
        Fewer points and shorter runs.
    seed : int
        The caller's seed: it shifts every run's seed.

    Returns
    -------
    pandas.DataFrame
        One row per (service, waiting places, m): the simulated E[T_sys] and P_b with
        their intervals, and Erlang-B for w = 0.
    """
    lam, t_cloud = WAITING_CASE["lam"], WAITING_CASE["t_cloud"]
    rooms = (0, 2, 8)
    ms = [1, 2, 3, 4, 6, 8, 12] if quick else list(range(1, 13))
    points = [
        dict(
            **_family_args(svc),
            N=N_PAPER,
            m=m,
            lam=lam,
            t_cloud=t_cloud,
            n_jobs=5_000 if quick else 40_000,
            replications=8 if quick else 20,
            waiting_room=k,
        )
        for svc in FAMILIES.values()
        for k in rooms
        for m in ms
    ]
    data = _run_points(points, quick, "waiting room", figure_seed(BASE_SEED, seed))
    data["service"] = [
        f"{f}({a:g}, {b:g})" for f, a, b in data[["family", "a", "b"]].itertuples(index=False)
    ]
    data["erlang_b"] = [
        rd.blocking(N_PAPER, m, lam, rd.make_service(f, a, b)) if k == 0 else np.nan
        for f, a, b, m, k in data[["family", "a", "b", "m", "waiting_room"]].itertuples(index=False)
    ]
    return data


WEIBULL_CASE = {"lam": 1.5, "t_cloud": 15.0}


def ext_weibull_frame(quick: bool = False) -> pd.DataFrame:
    """Weibull service (future-work family): the best m vs the shape parameter.

    Parameters
    ----------
    quick : bool
        10 shapes instead of 28.

    Returns
    -------
    pandas.DataFrame
        One row per (shape, formula): scale, m_opt, its system_time and the benchmark's.
    """
    lam, t_cloud = WEIBULL_CASE["lam"], WEIBULL_CASE["t_cloud"]
    shapes = np.round(np.linspace(0.3, 3.0, 10 if quick else 28), 3)
    rows = []
    for k in shapes:
        svc = rd.Weibull(k, 1.0 / rd.Weibull(k, 1.0).job_time_mean(1) * 7.0)  # E[T_job(1)] = 7
        for formula in FORMULAS:
            m = rd.optimal_m(N_PAPER, lam, t_cloud, svc, formula)
            rows.append(
                {
                    "shape": k,
                    "scale": svc.scale,
                    "formula": formula,
                    "m_opt": m,
                    "system_time": rd.system_time(N_PAPER, m, lam, t_cloud, svc),
                    "benchmark": rd.system_time(N_PAPER, 1, lam, t_cloud, svc),
                }
            )
    return pd.DataFrame(rows)


def ext_heavy_tail_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """How slowly a simulated mean settles when job times have infinite variance.

    Parameters
    ----------
    quick : bool
        Runs of 1e5 jobs instead of 2e6.
    seed : int
        The caller's seed: it shifts every run's seed.

    Returns
    -------
    pandas.DataFrame
        The running means (:func:`~workbench.redundancy.running_mean_trace`) for
        m = 1, 2, 3 with the exact E[T_sys].
    """
    n = 100_000 if quick else 2_000_000
    frames = []
    for m in (1, 2, 3):
        tr = running_mean_trace(
            N=N_PAPER,
            m=m,
            lam=1.0,
            t_cloud=15.0,
            service=PARETO,
            trace_jobs=n,
            seed=figure_seed(7 + m, seed),
        )
        tr["m"] = m
        tr["exact"] = rd.system_time(N_PAPER, m, 1.0, 15.0, PARETO)
        tr["variance_finite"] = PARETO.variance_finite(m)
        frames.append(tr)
    return pd.concat(frames, ignore_index=True)
