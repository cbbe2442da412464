"""Simulation of the replicated edge system with the compiled FCFS/loss kernel.

Each replication starts empty, draws ``n_jobs`` Poisson arrivals and their job times (the
fastest of m copies), runs them through :func:`workbench.kernels.events.multiserver_fcfs`
with c = ⌊N/m⌋ servers and ``waiting_room`` FCFS places, and records the mean system time
(T_cl for a job sent to the cloud), the fraction sent to the cloud and the mean wait.
Replications run one after another, so memory holds one run at a time; the run length is
bounded (``MAX_JOBS_PER_RUN``) and so is the total work (``MAX_TOTAL_JOBS``).

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", Sec. VII (500 arrivals × 100 runs), Sec. VIII-1 (a waiting room as future work).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench.kernels.events import multiserver_fcfs
from workbench.redundancy.model import _m_upto, _service, _stations
from workbench.redundancy.params import MAX_JOBS_PER_RUN, MAX_TOTAL_JOBS, PARAMS
from workbench.results import SimulationResult
from workbench.stats import t_half_width
from workbench.validation import ParameterError

__all__ = [
    "simulate",
    "simulate_to_precision",
    "running_mean_trace",
    "simulated_station_table",
    "QUANTITIES",
]

#: the estimated quantities of :func:`simulate`, headline first
QUANTITIES = ("system_time", "blocking", "mean_wait")


def simulate(
    N,
    m,
    lam,
    t_cloud,
    service,
    n_jobs: int = 20_000,
    seed: int = 0,
    *,
    replications: int = 20,
    waiting_room: int = 0,
    warmup: int | None = None,
    confidence: float = 0.95,
) -> SimulationResult:
    """Simulate the replicated edge system; mean system time, blocking and wait with CIs.

    Parameters
    ----------
    N, m, lam, t_cloud, service
        As in :func:`workbench.redundancy.system_time`.
    n_jobs : int
        Arrivals per replication (the paper uses 500 arrivals × 100 runs), at most
        ``MAX_JOBS_PER_RUN`` = 1e7 (about 0.6 GB in memory).
    seed : int
        Same seed, same numbers.
    replications : int
        Independent runs, each started empty; intervals are Student-t over their means.
        ``n_jobs * replications`` is at most ``MAX_TOTAL_JOBS`` = 2e8.
    waiting_room : int
        0 is the paper's loss system (M/G/c/c). w > 0 adds w FCFS waiting places
        (M/G/c/c+w), the extension the paper names as future work (Sec. VIII-1).
    warmup : int, optional
        Jobs discarded at the start of each run (default n_jobs // 10).
    confidence : float
        Level of the intervals.

    Returns
    -------
    SimulationResult
        ``metric="system_time"`` (E[T_sys]); quantities ``system_time``, ``blocking`` (the
        fraction sent to the cloud) and ``mean_wait`` (of the jobs served at the edge);
        ``run_length = n_jobs`` jobs; ``info["variance_finite"]`` is False when a job's time
        has infinite variance (Pareto with mα <= 2): the mean then converges at rate
        n^(1 − 1/(mα)), not n^(-1/2), and the t-interval under-covers (also in ``notes``).

    References
    ----------
    Peng & Soljanin, Sec. VII; eq. (1) and (4) are the theory the simulation checks.
    """
    f = "simulate"
    ok = PARAMS.check(
        f,
        N=N,
        lam=lam,
        t_cloud=t_cloud,
        seed=seed,
        replications=replications,
        waiting_room=waiting_room,
        confidence=confidence,
    )
    m = _m_upto(m, ok["N"], f)
    service = _service(service, f)
    replications = ok["replications"]
    n_jobs = _check_work(n_jobs, replications, f)
    warmup = (
        n_jobs // 10 if warmup is None else PARAMS["warmup"].with_(high=n_jobs - 1).check(warmup, f)
    )
    reps = _replications(
        ok["N"],
        m,
        ok["lam"],
        ok["t_cloud"],
        service,
        n_jobs,
        replications,
        ok["waiting_room"],
        warmup,
        np.random.default_rng(ok["seed"]),
    )
    return _result(reps, service, m, n_jobs, ok["confidence"], warmup, ok["waiting_room"])


def _check_work(n_jobs, replications: int, func: str) -> int:
    """Validate the run length and bound the memory of one run and the work of a call."""
    n_jobs = PARAMS["n_jobs"].with_(high=None).check(n_jobs, func)
    if n_jobs > MAX_JOBS_PER_RUN:
        raise ParameterError(
            f"The 'n_jobs' parameter of {func} must be an int in the range [10, "
            f"{MAX_JOBS_PER_RUN:.0e}]. Got {_short(n_jobs)} instead: one run holds about 60 "
            f"bytes per job in memory ({_short(60 * n_jobs // 10**9)} GB here); for longer "
            "simulations use more replications."
        )
    total = n_jobs * replications
    if total > MAX_TOTAL_JOBS:
        raise ParameterError(
            f"The run of {func} is too long: n_jobs * replications = {n_jobs:,} * "
            f"{replications:,} = {_short(total)} jobs, more than the {MAX_TOTAL_JOBS:.0e} the "
            "workbench simulates in one call (about a minute of work on one core); use "
            "fewer replications or shorter runs, or split the study into several calls."
        )
    return n_jobs


def _short(n: int) -> str:
    """A huge int in a few characters (``1e+308``, not 309 digits)."""
    return f"{n:.3g}" if n < 10**300 else f"~1e{len(str(n)) - 1}"


def _replications(N, m, lam, t_cloud, service, n_jobs, replications, waiting_room, warmup, rng):
    """Per-replication values (one row each), runs drawn one after the other from ``rng``."""
    rows = np.empty((replications, len(QUANTITIES)))
    for r in range(replications):
        rows[r] = _one_replication(N, m, lam, t_cloud, service, n_jobs, waiting_room, warmup, rng)
    return pd.DataFrame(rows, columns=list(QUANTITIES))


def _one_replication(N, m, lam, t_cloud, service, n_jobs, waiting_room, warmup, rng):
    t_sys, wait, blocked = _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng)
    t_sys, wait, blocked = t_sys[warmup:], wait[warmup:], blocked[warmup:]
    served = ~blocked
    mean_wait = wait[served].mean() if served.any() else 0.0
    return t_sys.mean(), blocked.mean(), mean_wait


def _result(reps, service, m, n_jobs, confidence, warmup, waiting_room) -> SimulationResult:
    finite = service.variance_finite(m)
    note = (
        ""
        if finite
        else f"{service.label()} with m={m}: job times have infinite variance (mα ≤ 2); "
        "the mean converges slowly and the t-interval under-covers."
    )
    return SimulationResult.from_replications(
        reps,
        "system_time",
        QUANTITIES,
        confidence=confidence,
        run_length=n_jobs,
        run_unit="jobs",
        notes=[note],
        info={"variance_finite": finite, "warmup": warmup, "waiting_room": waiting_room},
    )


def _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng):
    """One run started empty: per-job system time, wait (NaN if blocked) and blocked flag."""
    inter = rng.exponential(1.0 / lam, n_jobs)
    jobs = service.sample_job_times(m, n_jobs, rng)
    waits, blocked, _n_seen = multiserver_fcfs(inter, jobs, N // m, waiting_room)
    blocked = blocked.astype(bool)
    return np.where(blocked, t_cloud, waits + jobs), waits, blocked


def simulate_to_precision(
    N,
    m,
    lam,
    t_cloud,
    service,
    half_width: float = 0.05,
    seed: int = 0,
    *,
    n_jobs: int = 20_000,
    waiting_room: int = 0,
    confidence: float = 0.95,
    max_replications: int = 1_000,
    batch: int = 10,
    progress=None,
) -> SimulationResult:
    """Add replications until the interval of E[T_sys] is at most ± ``half_width``.

    Starts with ``batch`` replications and adds ``batch`` at a time until the Student-t
    half-width is at most ``half_width`` or ``max_replications`` is reached (then
    ``info["reached"]`` is False and a note says so). ``progress(done, target, half)`` is
    called after each batch (a notebook progress bar); ``target`` is the replication count
    the current spread predicts. Same seed, same numbers.
    """
    f = "simulate_to_precision"
    ok = PARAMS.check(
        f,
        N=N,
        lam=lam,
        t_cloud=t_cloud,
        half_width=half_width,
        seed=seed,
        waiting_room=waiting_room,
        confidence=confidence,
    )
    m = _m_upto(m, ok["N"], f)
    service = _service(service, f)
    max_replications = (
        PARAMS["replications"].with_(name="max_replications").check(max_replications, f)
    )
    batch = PARAMS["replications"].with_(name="batch").check(batch, f)
    n_jobs = _check_work(n_jobs, max_replications, f)
    warmup = n_jobs // 10
    rng = np.random.default_rng(ok["seed"])
    model = (ok["N"], m, ok["lam"], ok["t_cloud"], service, n_jobs)
    frames = []
    done, half = 0, math.inf
    while done < max_replications:
        size = min(batch, max_replications - done)
        frames.append(_replications(*model, size, ok["waiting_room"], warmup, rng))
        done += size
        values = pd.concat(frames, ignore_index=True)["system_time"]
        half = t_half_width(values.to_numpy(), ok["confidence"])
        if progress is not None:
            # the spread so far predicts how many replications the target needs
            need = done * (half / ok["half_width"]) ** 2 if half > 0 else done
            progress(done, int(min(max(need, done), max_replications)), half)
        if half <= ok["half_width"]:
            break
    reps = pd.concat(frames, ignore_index=True)
    result = _result(reps, service, m, n_jobs, ok["confidence"], warmup, ok["waiting_room"])
    reached = half <= ok["half_width"]
    notes = list(result.notes)
    if not reached:
        notes.append(
            f"stopped at {done} replications with half-width {half:.3g} > {ok['half_width']:g}"
        )
    return SimulationResult.from_replications(
        reps,
        "system_time",
        QUANTITIES,
        confidence=ok["confidence"],
        run_length=n_jobs,
        run_unit="jobs",
        notes=notes,
        info={**result.info, "reached": reached, "target_half_width": ok["half_width"]},
    )


def running_mean_trace(N, m, lam, t_cloud, service, n_jobs=200_000, seed=0, points=200):
    """Running mean of the system time along one long run (how fast does it settle?)."""
    f = "running_mean_trace"
    ok = PARAMS.check(f, N=N, lam=lam, t_cloud=t_cloud, seed=seed, points=points)
    m = _m_upto(m, ok["N"], f)
    service = _service(service, f)
    n_jobs = PARAMS["n_jobs"].with_(low=100).check(n_jobs, f)
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
    if not isinstance(result, SimulationResult):
        raise ParameterError(
            f"The 'result' parameter of {f} must be a SimulationResult (from simulate). "
            f"Got {type(result).__name__} instead."
        )
    pb = result.blocking
    edge_time = (result.mean - pb * ok["t_cloud"]) / (1.0 - pb) if pb < 1 else math.nan
    return _stations(ok["N"], m, ok["lam"], ok["t_cloud"], pb, edge_time)
