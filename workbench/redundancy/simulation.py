"""Simulation of the replicated edge system with the compiled FCFS/loss kernel.

Each replication starts empty, draws ``n_jobs`` Poisson arrivals and their job times (the
fastest of m copies), runs them through :func:`workbench.kernels.events.multiserver_fcfs`
with c = ⌊N/m⌋ servers and ``waiting_room`` FCFS places, and records the mean system time
(T_cl for a job sent to the cloud), the fraction sent to the cloud and the mean wait.
Replications come from the shared engine (:mod:`workbench.output_analysis`): replication r
draws from child r of ``numpy.random.SeedSequence(seed)``, so memory holds one run at a
time and a longer call extends a shorter one; the run length is bounded
(``MAX_JOBS_PER_RUN``) and so is the total work (``MAX_TOTAL_JOBS``).

Output analysis
---------------
The stationarity detector (:func:`workbench.output_analysis.detect`) sees, per replication
and in arrival order (warm-up included), each job's system time *with the job's own time
replaced by its mean*: T_cl for a job sent to the cloud, its wait + E[T_job(m)] for a job
served at the edge. A job's own time is drawn independently of the state it finds (its
wait, whether a group is free), so this series has the same mean as the system times,
E[T_sys], and the same dynamics (waits that grow, blocking that changes), without the
job-time noise, which is heavy-tailed for Pareto (infinite variance when mα <= 2). That
noise made the detector cry wolf on a stable system: on the raw system times of Fig. 4's
Pareto(1.5, 1.2) points (500 jobs × 100 runs, 10 seeds) 35 of 160 points were flagged, and
on i.i.d. Pareto(α = 1.2) series 22 % of runs (MSER-5 preferentially cuts an early outlier,
so the kept second half is larger in 3 of 4 replications, a bias that Stouffer's sum over
100 replications turns into an alarm). The same bias, milder, remains on this series when
blocking is rare (a few T_cl among many E[T_job]: at ASTO's m = 3 for λ = 1.25-1.5 the
median p-value was 0.013, while the blocking of the first 100 jobs is only 10 % below its
steady value), so the trend test runs at level ``ALPHA`` = 1e-6 rather than the shared
1e-3: a claim rests on up to 640 simulated points, a waiting room still filling is found
with p < 1e-100, and so is the one real transient of the paper's figures. That transient:
with m = 1 Pareto(1.5, 1.2) replica per job (infinite variance) the groups fill with long
jobs for far longer than the paper's 500 arrivals. At λ = 4.75 the blocking of a 500-job
run from empty climbs from 0.05 (first 100 jobs) to 0.23 (last 100), against Erlang-B's
0.46, and is still 0.40 after 10^6 jobs. That climb is too slow to show as a trend
within one 500-job run (p = 0.03 over 100 runs at λ = 4.75, with the shared detector's
common MSER cut), so Fig. 4 shows it against Erlang-B rather than as hollow points. Runs longer
than 65,536 jobs are handed over as means of consecutive blocks of jobs (at least 32,768 of
them), so memory stays bounded.

The bound: the paper's loss system (``waiting_room=0``) is stable at every load. A waiting
room of w places is stable too (the state space is finite), but when the groups are
overloaded, ρ = λ E[T_job] / c > 1, it takes about w ρ / (ρ − 1) arrivals to fill
(:func:`room_fill_jobs`); a run whose measured part is shorter than that is a transient (a
queue still filling), refused before any work with ``overload="raise"``; a room that fills
during the measured part is left to the detector.

Pareto job times with mα <= 2 have infinite variance: the mean converges at rate
n^(1 − 1/(mα)), not n^(-1/2), the t-interval under-covers, and the detector's batch means
are noisy too; the result's notes say so.

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
    check_overload,
    finish,
    replicate,
)
from workbench.output_analysis import Stationarity as _Stationarity
from workbench.precision import precision_target, to_precision
from workbench.redundancy.kernels import job_outcomes
from workbench.redundancy.model import _check_simulated, _m_upto, _service, _stations, job_time
from workbench.redundancy.params import (
    MAX_JOBS_PER_RUN,
    MAX_TOTAL_JOBS,
    PARAMS,
    SHORT_RUN,
    WARMUP_FRACTION,
)
from workbench.results import SimulationResult
from workbench.validation import (
    ParameterError,
    UnstableRegimeError,
    check_budget,
    check_choice,
)

__all__ = [
    "simulate",
    "simulate_to_precision",
    "running_mean_trace",
    "simulated_station_table",
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


def simulate(
    *,
    N,
    m,
    lam,
    t_cloud,
    service,
    jobs: int = 20_000,
    seed: int = 0,
    replications: int = 20,
    waiting_room: int = 0,
    warmup: float | None = None,
    confidence: float = 0.95,
    overload: str = "raise",
) -> SimulationResult:
    """Simulate the replicated edge system; mean system time, blocking and wait with CIs.

    Every argument is keyword-only.

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
        Fraction of each run's jobs discarded at its start, in [0, 0.9] (⌊warmup · jobs⌋
        jobs). None: ``WARMUP_FRACTION`` = 0.1, and none at all for runs of at most
        ``SHORT_RUN`` = 1000 jobs (the paper measures its 500-arrival runs whole).
    confidence : float
        Level of the intervals.
    overload : {"raise", "transient"}
        What to do with a run that is not a steady state (a waiting room still filling
        after the warm-up, found by the bound in the module docstring or by the
        stationarity detector): raise :class:`workbench.validation.UnstableRegimeError`,
        or return the finite-horizon numbers with ``stationary=False`` and a note.

    Returns
    -------
    SimulationResult
        ``metric="system_time"`` (E[T_sys]); quantities ``system_time``, ``blocking`` (the
        fraction sent to the cloud) and ``mean_wait`` (of the jobs served at the edge);
        ``run_length = jobs``; ``stationarity`` (the detector's verdict on the per-job
        system times); ``info["warmup"]`` the jobs dropped per run;
        ``info["variance_finite"]`` is False when a job's time has infinite variance
        (Pareto with mα <= 2): the mean then converges at rate n^(1 − 1/(mα)), not
        n^(-1/2), and the t-interval under-covers (also in ``notes``).

    References
    ----------
    Peng & Soljanin, Sec. VII; eq. (1) and (4) are the theory the simulation checks.
    """
    run = _setup(
        "simulate",
        N=N,
        m=m,
        lam=lam,
        t_cloud=t_cloud,
        service=service,
        jobs=jobs,
        seed=seed,
        replications=replications,
        waiting_room=waiting_room,
        warmup=warmup,
        confidence=confidence,
        overload=overload,
    )
    reps = replicate(run["one"], replications=run["replications"], seed=run["seed"])
    return finish(reps, **run["finish"])


def warmup_jobs(jobs: int, warmup: float | None = None) -> int:
    """Jobs dropped at the start of a run of ``jobs`` jobs for a warm-up fraction.

    ``warmup=None`` is P4's rule: ``WARMUP_FRACTION`` (⌊jobs / 10⌋) for runs longer than
    ``SHORT_RUN`` jobs, 0 for shorter ones (the paper's 500-arrival runs are measured whole).
    """
    f = "warmup_jobs"
    jobs = PARAMS["jobs"].check(jobs, f)
    return _warmup_jobs(jobs, PARAMS["warmup"].check(warmup, f) if warmup is not None else None)


def _warmup_jobs(jobs: int, warmup: float | None) -> int:
    if warmup is None:
        warmup = 0.0 if jobs <= SHORT_RUN else WARMUP_FRACTION
    # + 1e-9: a fraction written in decimal (0.29 · 100 = 28.999999999999996) drops 29 jobs
    return int(warmup * jobs + 1e-9)


def _setup(func, *, replications, overload, warmup, **model) -> dict:
    """Validate a call, bound its work, apply the waiting room's fill bound, and return the
    replication function and the arguments of :func:`workbench.output_analysis.finish`."""
    ok = PARAMS.check(
        func,
        N=model["N"],
        lam=model["lam"],
        t_cloud=model["t_cloud"],
        seed=model["seed"],
        replications=replications,
        waiting_room=model["waiting_room"],
        confidence=model["confidence"],
    )
    overload = check_choice(overload, "overload", func, ("raise", "transient"))
    N, lam, t_cloud, room = ok["N"], ok["lam"], ok["t_cloud"], ok["waiting_room"]
    m = _m_upto(model["m"], N, func)
    service = _service(model["service"], func)
    reps = ok["replications"]
    n_jobs = _check_work(model["jobs"], reps, func)
    if warmup is not None:
        warmup = PARAMS["warmup"].check(warmup, func)
    warmup = _warmup_jobs(n_jobs, warmup)
    kept = min(n_jobs, MAX_SERIES)
    check_budget(
        func,
        "replications",
        reps,
        reps * kept * _SERIES_BYTES,
        "the per-job series the stationarity detector keeps",
    )
    notes = [_variance_note(service, m)]
    fill = room_fill_jobs(N, m, lam, service, room)
    if fill > n_jobs - warmup:
        # the room is still filling in the part of the run that is measured: a transient
        notes += check_overload(
            func,
            overload,
            stationarity=_Stationarity(
                stationary=False,
                method="fill bound",
                note=_fill_note(N, m, lam, service, room, fill, n_jobs, warmup),
            ),
        )
    one = partial(_one, N, m, lam, t_cloud, service, n_jobs, room, warmup)
    return {
        "one": one,
        "replications": reps,
        "seed": ok["seed"],
        "finish": {
            "func": func,
            "metric": "system_time",
            "quantities": QUANTITIES,
            "confidence": ok["confidence"],
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
                "model": (ok["N"], m, ok["lam"], ok["t_cloud"]),  # simulated_station_table
            },
            "count": "jobs_measured",
            "empty_what": "jobs after the warm-up",
            "empty_hint": f"Lower the warm-up ({warmup} jobs) below jobs ({n_jobs}).",
        },
    }


def room_fill_jobs(N, m, lam, service, waiting_room) -> float:
    """Arrivals it takes an overloaded M/G/c/c+w system, started empty, to fill its room.

    With ρ = λ E[T_job(m)] / c > 1 the queue grows by about λ − c / E[T_job] jobs per unit
    of time while the room has space, so the w places fill after about w ρ / (ρ − 1)
    arrivals. 0 when there is no room or ρ <= 1 (nothing to fill: the system is in its
    steady state after a few job times). A run whose measured part starts before that
    (``n_jobs - warmup`` shorter than it) is a transient: a queue still growing.
    """
    f = "room_fill_jobs"
    ok = PARAMS.check(f, N=N, lam=lam, waiting_room=waiting_room)
    m = _m_upto(m, ok["N"], f)
    service = _service(service, f)
    room = ok["waiting_room"]
    rho = ok["lam"] * job_time(m, service) / (ok["N"] // m)
    if room == 0 or rho <= 1.0:
        return 0.0
    return room * rho / (rho - 1.0)


def _fill_note(N, m, lam, service, room, fill, n_jobs, warmup) -> str:
    rho = lam * job_time(m, service) / (N // m)
    return (
        f"the {N // m} groups are overloaded (ρ = λ E[T_job] / c = {rho:.3g} > 1) and the "
        f"{room:,} waiting places fill only after about {fill:,.0f} arrivals, more than the "
        f"{n_jobs - warmup:,} measured after the warm-up: the queue is still growing"
    )


def _variance_note(service, m) -> str:
    if service.variance_finite(m):
        return ""
    return (
        f"{service.label()} with m={m}: job times have infinite variance (mα ≤ 2); "
        "the mean converges slowly and the t-interval under-covers."
    )


def _check_work(n_jobs, replications: int, func: str, name: str = "jobs") -> int:
    """Validate the run length and bound the memory of one run and the work of a call."""
    n_jobs = PARAMS[name].with_(high=None).check(n_jobs, func)
    if n_jobs > MAX_JOBS_PER_RUN:
        raise ParameterError(
            f"The '{name}' parameter of {func} must be an int in the range [10, "
            f"{MAX_JOBS_PER_RUN:.0e}]. Got {_short(n_jobs)} instead: one run holds about 60 "
            f"bytes per job in memory ({_short(60 * n_jobs // 10**9)} GB here); for longer "
            "simulations use more replications."
        )
    total = n_jobs * replications
    if total > MAX_TOTAL_JOBS:
        raise ParameterError(
            f"The run of {func} is too long: jobs * replications = {n_jobs:,} * "
            f"{replications:,} = {_short(total)} jobs, more than the {MAX_TOTAL_JOBS:.0e} the "
            "workbench simulates in one call (about a minute of work on one core); use "
            "fewer replications or shorter runs, or split the study into several calls."
        )
    return n_jobs


def _short(n: int) -> str:
    """A huge int in a few characters (``1e+308``, not 309 digits)."""
    return f"{n:.3g}" if n < 10**300 else f"~1e{len(str(n)) - 1}"


def _one(N, m, lam, t_cloud, service, n_jobs, waiting_room, warmup, seed_seq, index):
    """One replication from its own stream: the estimates and the per-job series."""
    rng = np.random.default_rng(seed_seq)
    t_sys, wait, blocked, state = _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng)
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
    series, series_warmup = _block_series(state, warmup)
    return Replication(row, series, series_warmup)


def _block_series(values: np.ndarray, warmup: int, limit: int = MAX_SERIES):
    """The detector's series: ``values`` itself when at most ``limit`` long, else the means
    of consecutive blocks of b = ⌈n / (limit / 2)⌉ observations (a trailing partial block
    dropped), with the warm-up in blocks rounded up. Returns (series, warmup)."""
    n = values.size
    if n <= limit:
        return values, warmup
    b = -(-n // (limit // 2))
    k = n // b
    return values[: k * b].reshape(k, b).mean(axis=1), -(-warmup // b)


def _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng):
    """One run started empty: per-job system time, wait (NaN if blocked), blocked flag and
    the detector's observation (:func:`workbench.redundancy.kernels.job_outcomes`)."""
    inter = rng.exponential(1.0 / lam, n_jobs)
    jobs = service.sample_job_times(m, n_jobs, rng)
    waits, blocked, _n_seen = multiserver_fcfs(inter, jobs, N // m, waiting_room)
    blocked = blocked.astype(bool)
    t_sys, state = job_outcomes(waits, blocked, jobs, t_cloud, job_time(m, service))
    return t_sys, waits, blocked, state


def simulate_to_precision(
    *,
    N,
    m,
    lam,
    t_cloud,
    service,
    rel_half_width: float | None = None,
    half_width: float | None = None,
    max_replications: int | None = None,
    jobs: int = 20_000,
    seed: int = 0,
    waiting_room: int = 0,
    warmup: float | None = None,
    confidence: float = 0.95,
    overload: str = "raise",
    batch: int = 10,
    progress=False,
) -> SimulationResult:
    """Add replications until the interval of E[T_sys] is narrow enough (keyword-only).

    The shared loop :func:`workbench.precision.to_precision` chooses the steps (``batch``
    replications first, then as many as the spread predicts, at most doubling) until the
    half-width is at most ``rel_half_width`` times the estimate, or at most ``half_width``
    (seconds; the table's 0.05 s when neither target is given). It stops at
    ``max_replications`` (the shared table's 200 by default; then ``info["reached"]`` and
    ``converged`` are False and a note says so). ``progress``: True shows a text progress
    bar; a function ``progress(done, target, half)`` is also accepted, called after each
    step (a notebook progress bar; ``target`` is the count the current spread predicts).
    A run that is not a steady state raises
    :class:`workbench.validation.UnstableRegimeError` with ``overload="raise"``; with
    ``overload="transient"`` the first ``batch`` replications are returned instead, with
    ``stationary=False``, ``converged=False`` and the detector's note. Replication r is that
    of ``simulate(..., seed=seed)``: same seed, same numbers.
    """
    f = "simulate_to_precision"
    batch = PARAMS["replications"].with_(name="batch").check(batch, f)
    target = precision_target(
        f, rel_half_width=rel_half_width, half_width=half_width,
        max_replications=max_replications, initial=batch, progress=progress,
        default_half_width=PARAMS["half_width"].default, max_half_width=PARAMS["half_width"].high,
        unit="s",
    )  # fmt: skip
    cap = target.max_replications
    overload = check_choice(overload, "overload", f, ("raise", "transient"))
    model = {
        "N": N,
        "m": m,
        "lam": lam,
        "t_cloud": t_cloud,
        "service": service,
        "jobs": jobs,
        "seed": seed,
        "waiting_room": waiting_room,
        "confidence": confidence,
    }
    try:
        run = _setup(f, **model, replications=cap, warmup=warmup, overload="raise")
        result = to_precision(run["one"], target=target, seed=run["seed"], **run["finish"])
        info = {"reached": result.converged}
        if target.absolute:
            info["target_half_width"] = target.value
        return result.with_(info={**result.info, **info})
    except UnstableRegimeError:
        if overload == "raise":
            raise
    # not a steady state: the first batch as a transient, said in its notes
    first = simulate(**model, replications=min(batch, cap), warmup=warmup, overload="transient")
    return first.with_(converged=False, info={**first.info, "reached": False})


def running_mean_trace(
    *, N, m, lam, t_cloud, service, trace_jobs=200_000, seed=0, points=200
) -> pd.DataFrame:
    """Running mean of the system time along one long run (how fast does it settle?)."""
    f = "running_mean_trace"
    ok = PARAMS.check(
        f, N=N, lam=lam, t_cloud=t_cloud, seed=seed, points=points, trace_jobs=trace_jobs
    )
    m = _m_upto(m, ok["N"], f)
    service = _service(service, f)
    n_jobs = ok["trace_jobs"]
    rng = np.random.default_rng(ok["seed"])
    t_sys = _one_run(ok["N"], m, ok["lam"], ok["t_cloud"], service, n_jobs, 0, rng)[0]
    running = np.cumsum(t_sys) / np.arange(1, n_jobs + 1)
    idx = np.unique(np.geomspace(1, n_jobs, ok["points"]).astype(int)) - 1
    return pd.DataFrame({"jobs": idx + 1, "running_mean": running[idx]})


def simulated_station_table(N, m, lam, t_cloud, service, result) -> pd.DataFrame:
    """The station table (:func:`workbench.redundancy.station_table`) from a simulation.

    Uses the simulated fraction sent to the cloud P̂_b and the simulated E[T_sys]; the edge
    time is what eq. 1 leaves for it, (Ê[T_sys] − P̂_b T_cl) / (1 − P̂_b).
    """
    f = "simulated_station_table"
    ok = PARAMS.check(f, N=N, lam=lam, t_cloud=t_cloud)
    m = _m_upto(m, ok["N"], f)
    _service(service, f)
    _check_simulated(result, (ok["N"], m, ok["lam"], ok["t_cloud"]), f)
    pb = result.blocking
    edge_time = (result.mean - pb * ok["t_cloud"]) / (1.0 - pb) if pb < 1 else math.nan
    return _stations(ok["N"], m, ok["lam"], ok["t_cloud"], pb, edge_time)
