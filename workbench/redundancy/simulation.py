"""Simulation of the replicated edge system with the compiled FCFS/loss kernel.

Each replication starts empty, draws ``jobs`` Poisson arrivals and their job times (the
fastest of m copies), runs them through :func:`workbench.kernels.events.multiserver_fcfs`
with c = ⌊N/m⌋ servers and ``waiting_room`` FCFS places, and records the mean system time
(T_cl for a job sent to the cloud), the fraction sent to the cloud and the mean wait.
Replication r draws from child r of ``numpy.random.SeedSequence(seed)``
(:mod:`workbench.output_analysis`): one run in memory at a time, and a longer call extends
a shorter one. One run is bounded (``MAX_JOBS_PER_RUN``), and so is a call's work
(``MAX_TOTAL_JOBS``).

Stationarity. The detector (:func:`workbench.output_analysis.detect`) sees each job's
system time with the job's own time replaced by its mean: T_cl for a job sent to the
cloud, its wait + E[T_job(m)] for a job served at the edge. A job's own time is drawn
independently of the state it finds, so this series has the mean and the dynamics of the
system times (waits that grow, blocking that changes) without the noise of the job times,
heavy-tailed for Pareto (infinite variance when mα <= 2), which would hide a trend. The
trend test runs at ``ALPHA`` = 1e-6 rather than the shared 1e-3: a claim rests on hundreds
of simulated points, and a waiting room still filling is found with p far below that.
``benchmarks/p4_detector.py`` measures both series on the points of Fig. 4 (how often each
is flagged at each level) and the slow fill of m = 1 runs with Pareto jobs from empty.
Runs longer than ``MAX_SERIES`` jobs are handed over as block means (bounded memory).

A waiting room of w places (M/G/c/c+w) is stable (finite states), but when the groups are
overloaded, ρ = λ E[T_job] / c > 1, it takes about w ρ / (ρ − 1) arrivals to fill
(:func:`room_fill_jobs`); a run whose measured part is shorter is a transient, refused
before any work with ``overload="raise"``.

Pareto job times with mα <= 2 have infinite variance: the mean converges at rate
n^(1 − 1/(mα)), not n^(-1/2), and the t-interval under-covers; the result's notes say so.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", Sec. VII (500 arrivals × 100 runs), Sec. VIII-1 (a waiting room as future work).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from workbench.kernels.events import multiserver_fcfs
from workbench.output_analysis import (
    Replication,
    Stationarity,
    block_series,
    check_overload,
    finish,
    replicate,
)
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.redundancy.kernels import job_outcomes
from workbench.redundancy.model import P4Params, check_total_jobs, job_time
from workbench.redundancy.params import PARAMS, SHORT_RUN, WARMUP_FRACTION
from workbench.results import SimulationResult
from workbench.validation import UnstableRegimeError, check_budget, check_choice

__all__ = [
    "simulate",
    "simulate_to_precision",
    "running_mean_trace",
    "room_fill_jobs",
    "warmup_jobs",
    "QUANTITIES",
]

#: the estimated quantities of :func:`simulate`, headline first
QUANTITIES = ("system_time", "blocking", "mean_wait")
#: ranges the intervals are clipped to
BOUNDS = {"system_time": (0.0, math.inf), "blocking": (0.0, 1.0), "mean_wait": (0.0, math.inf)}
#: level of the detector's trend test (module docstring: why lower than the shared 1e-3)
ALPHA = 1e-6
#: longest series handed to the detector per replication (longer runs: block means)
MAX_SERIES = 2**16
#: bytes the detector's series take per job kept in memory (float64)
_SERIES_BYTES = 8
_OVERLOAD = ("raise", "transient")
#: the fields of a simulated run, which every simulating function takes
RUN = ("N", "m", "lam", "t_cloud", "service", "jobs", "waiting_room", "warmup", "confidence")


@takes(P4Params, *RUN, "seed", "replications")
def simulate(p, *, overload: str = "raise") -> SimulationResult:
    """Simulate the replicated edge system; mean system time, blocking and wait with CIs.

    Takes a :class:`~workbench.redundancy.P4Params` or its keywords (every argument is
    keyword-only; defaults from :data:`~workbench.redundancy.PARAMS`).

    Parameters
    ----------
    N, m, lam, t_cloud, service
        As in :func:`workbench.redundancy.system_time`.
    jobs : int
        Arrivals per replication (the paper uses 500 arrivals × 100 runs), at most
        ``MAX_JOBS_PER_RUN`` = 1e7 (about 0.6 GB in memory).
    seed : int
        Same seed, same numbers: replication r draws from child r of
        ``numpy.random.SeedSequence(seed)``.
    replications : int
        Independent runs, each started empty; intervals are Student-t over their means,
        clipped to each quantity's range (times >= 0, the blocking in [0, 1]).
        ``jobs * replications`` is at most ``MAX_TOTAL_JOBS`` = 2e8.
    waiting_room : int
        0 is the paper's loss system (M/G/c/c). w > 0 adds w FCFS waiting places
        (M/G/c/c+w), the extension the paper names as future work (Sec. VIII-1).
    warmup : float, optional
        Fraction of each run's jobs discarded at its start, in [0, 0.9]; None: P4's rule
        (:func:`warmup_jobs`).
    confidence : float
        Level of the intervals.
    overload : {"raise", "transient"}
        What to do with a run that is not a steady state (a waiting room still filling
        after the warm-up, found by the fill bound or by the stationarity detector): raise
        :class:`workbench.validation.UnstableRegimeError`, or return the finite-horizon
        numbers with ``stationary=False`` and a note.

    Returns
    -------
    SimulationResult
        ``metric="system_time"`` (E[T_sys]); quantities ``system_time``, ``blocking`` (the
        fraction sent to the cloud) and ``mean_wait`` (of the jobs served at the edge);
        ``run_length = jobs``; ``stationarity`` (the detector's verdict);
        ``info["warmup"]`` the jobs dropped per run; ``info["variance_finite"]`` False when
        a job's time has infinite variance (Pareto with mα <= 2; also in ``notes``).

    References
    ----------
    Peng & Soljanin, Sec. VII; eq. (1) and (4) are the theory the simulation checks.
    """
    overload = check_choice(overload, "overload", "simulate", _OVERLOAD)
    one, finishing = _setup("simulate", p, p.replications, overload)
    return finish(replicate(one, replications=p.replications, seed=p.seed), **finishing)


@takes(P4Params, "jobs", "warmup", positional=True)
def warmup_jobs(p) -> int:
    """Jobs dropped at the start of a run of ``jobs`` jobs for a warm-up fraction.

    ``warmup=None`` is P4's rule: ``WARMUP_FRACTION`` (⌊jobs / 10⌋) for runs longer than
    ``SHORT_RUN`` jobs, 0 for shorter ones (the paper's 500-arrival runs are measured whole).

    Returns
    -------
    int
        The jobs dropped, in [0, jobs].
    """
    warmup = p.warmup
    if warmup is None:
        warmup = 0.0 if p.jobs <= SHORT_RUN else WARMUP_FRACTION
    # + 1e-9: a fraction written in decimal (0.29 · 100 = 28.999999999999996) drops 29 jobs
    return int(warmup * p.jobs + 1e-9)


def _setup(func: str, p, replications: int, overload: str) -> tuple:
    """Bound the work of a validated call, apply the waiting room's fill bound, and return
    the replication function and the arguments of :func:`workbench.output_analysis.finish`."""
    N, m, service, n_jobs, room = p.N, p.m, p.service, p.jobs, p.waiting_room
    warmup = warmup_jobs(p)
    kept = min(n_jobs, MAX_SERIES)
    check_budget(
        func,
        "replications",
        replications,
        replications * kept * _SERIES_BYTES,
        "the per-job series the stationarity detector keeps",
    )
    notes = [_variance_note(service, m)]
    fill = room_fill_jobs(p)
    transient = None
    if fill > n_jobs - warmup:
        # the room is still filling in the part of the run that is measured: a transient,
        # refused now under "raise", the result's verdict under "transient"
        transient = Stationarity(
            stationary=False, method="fill bound", note=_fill_note(p, fill, warmup)
        )
        check_overload(func, overload, stationarity=transient)
    return partial(_one, p, warmup), {
        "func": func,
        "metric": "system_time",
        "quantities": QUANTITIES,
        "confidence": p.confidence,
        "run_length": n_jobs,
        "run_unit": "jobs",
        "overload": overload,
        "bounds": BOUNDS,
        "notes": notes,
        "unit": "s",
        "alpha": ALPHA,
        "info": {
            "variance_finite": service.variance_finite(m),
            "warmup": warmup,
            "waiting_room": room,
            "room_fill_jobs": fill,
            "model": (N, m, p.lam, p.t_cloud),  # simulated_station_table
        },
        "count": "jobs_measured",
        "empty_what": "jobs after the warm-up",
        "empty_hint": f"Lower the warm-up ({warmup} jobs) below jobs ({n_jobs}).",
        "transient": transient,
    }


@takes(P4Params, "N", "m", "lam", "service", "waiting_room", positional=True)
def room_fill_jobs(p) -> float:
    """Arrivals it takes an overloaded M/G/c/c+w system, started empty, to fill its room.

    With ρ = λ E[T_job(m)] / c > 1 the queue grows by about λ − c / E[T_job] jobs per unit
    of time while the room has space, so the w places fill after about w ρ / (ρ − 1)
    arrivals. 0 when there is no room or ρ <= 1 (nothing to fill: the system is in its
    steady state after a few job times). A run whose measured part starts before that
    (``jobs - warmup`` shorter than it) is a transient: a queue still growing.

    Returns
    -------
    float
        The arrivals to fill the room (about), 0 when there is nothing to fill.
    """
    room = p.waiting_room
    rho = p.lam * job_time(p) / (p.N // p.m)
    if room == 0 or rho <= 1.0:
        return 0.0
    return room * rho / (rho - 1.0)


def _fill_note(p, fill, warmup) -> str:
    rho = p.lam * job_time(p) / (p.N // p.m)
    return (
        f"the {p.N // p.m} groups are overloaded (ρ = λ E[T_job] / c = {rho:.3g} > 1) and the "
        f"{p.waiting_room:,} waiting places fill only after about {fill:,.0f} arrivals, more "
        f"than the {p.jobs - warmup:,} measured after the warm-up: the queue is still growing"
    )


def _variance_note(service, m) -> str:
    if service.variance_finite(m):
        return ""
    return (
        f"{service.label()} with m={m}: job times have infinite variance (mα ≤ 2); "
        "the mean converges slowly and the t-interval under-covers."
    )


def _one(p, warmup, seed_seq, index):
    """One replication from its own stream: the estimates and the per-job series."""
    rng = np.random.default_rng(seed_seq)
    t_sys, wait, blocked, state = _one_run(p, p.jobs, rng)
    kept_t, kept_wait, kept_blocked = t_sys[warmup:], wait[warmup:], blocked[warmup:]
    served = ~kept_blocked
    row = {
        "system_time": kept_t.mean() if kept_t.size else math.nan,
        "blocking": kept_blocked.mean() if kept_t.size else math.nan,
        "mean_wait": kept_wait[served].mean() if served.any() else 0.0,
        "jobs_measured": kept_t.size,
    }
    # the detector's series: each job's system time with its own job time replaced by its
    # mean (module docstring: same mean, same dynamics, none of the heavy-tailed noise)
    series, series_warmup = block_series(state, warmup, MAX_SERIES)
    return Replication(row, series, series_warmup)


def _one_run(p, n_jobs, rng):
    """One run of ``n_jobs`` jobs started empty: per-job system time, wait (NaN if
    blocked), blocked flag and the detector's observation
    (:func:`workbench.redundancy.kernels.job_outcomes`)."""
    m = p.m
    inter = rng.exponential(1.0 / p.lam, n_jobs)
    jobs = p.service.sample_job_times(m, n_jobs, rng)
    waits, blocked, _n_seen = multiserver_fcfs(inter, jobs, p.N // m, p.waiting_room)
    blocked = blocked.astype(bool)
    t_sys, state = job_outcomes(waits, blocked, jobs, p.t_cloud, job_time(p))
    return t_sys, waits, blocked, state


@takes(P4Params, *RUN, "seed")
@precision_keywords(
    unit="s",
    default_half_width=PARAMS["half_width"].default,
    max_half_width=PARAMS["half_width"].high,
    initial=10,
    progress=False,
)
def simulate_to_precision(p, *, target, overload: str = "raise") -> SimulationResult:
    """Add replications until the interval of E[T_sys] is narrow enough.

    Takes a :class:`~workbench.redundancy.P4Params` or its keywords, as :func:`simulate`
    (every argument is keyword-only); replication r is that of ``simulate(seed=seed)``:
    same seed, same numbers. The loop stops at ``max_replications`` with
    ``info["reached"]`` and ``converged`` False and a note.

    Parameters
    ----------
    overload : {"raise", "transient"}
        A run that is not a steady state raises
        :class:`workbench.validation.UnstableRegimeError`, or, with ``"transient"``, the
        first ``initial`` replications come back with ``stationary=False``,
        ``converged=False`` and the detector's note.

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, with ``info["reached"]`` (and ``info["target_half_width"]``
        for an absolute target).
    """
    f = "simulate_to_precision"
    cap = target.max_replications
    overload = check_choice(overload, "overload", f, _OVERLOAD)
    check_total_jobs(f, p.jobs, cap)
    try:
        one, finishing = _setup(f, p, cap, "raise")
        result = to_precision(one, target=target, seed=p.seed, **finishing)
        info = {"reached": result.converged}
        if target.absolute:
            info["target_half_width"] = target.value
        return result.with_(info={**result.info, **info})
    except UnstableRegimeError:
        if overload == "raise":
            raise
    # not a steady state: the first batch as a transient, said in its notes
    first = simulate(p.trusted(replications=target.initial), overload="transient")
    return first.with_(converged=False, info={**first.info, "reached": False})


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", "trace_jobs", "seed", "points")
def running_mean_trace(p) -> pd.DataFrame:
    """Running mean of the system time along one long run (how fast does it settle?).

    Returns
    -------
    pandas.DataFrame
        ``jobs`` (log-spaced, ``points`` of them) and ``running_mean`` of the system time
        over the first ``jobs`` jobs of one run of ``trace_jobs`` jobs (no waiting room).
    """
    n_jobs = p.trace_jobs
    rng = np.random.default_rng(p.seed)
    t_sys = _one_run(p.trusted(waiting_room=0), n_jobs, rng)[0]
    running = np.cumsum(t_sys) / np.arange(1, n_jobs + 1)
    idx = np.unique(np.geomspace(1, n_jobs, p.points).astype(int)) - 1
    return pd.DataFrame({"jobs": idx + 1, "running_mean": running[idx]})
