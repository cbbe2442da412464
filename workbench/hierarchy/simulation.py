"""simulate(): the edge hierarchy over independent replications, with per-task records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench.hierarchy import kernels as K
from workbench.hierarchy.model import P5Params, time_weights, utilisation_bound
from workbench.hierarchy.params import MODELS, PAPER_MODELS, PARAMS
from workbench.hierarchy.topology import Topology
from workbench.output_analysis import (
    Replication,
    check_overload,
    detect,
    finish,
    replicate,
    require_observations,
)
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.results import SimulationResult
from workbench.validation import ParameterError, check_budget, refusal

__all__ = ["simulate", "simulate_to_precision", "run_models", "SIMULATE_FIELDS", "RUN_FIELDS"]

#: the keywords of :func:`simulate`: every row of ``PARAMS``, in the table's order
SIMULATE_FIELDS = tuple(PARAMS)
#: the keywords of :func:`run_models`: one replication of several models, no records
RUN_FIELDS = tuple(
    n for n in SIMULATE_FIELDS if n not in ("model", "replications", "confidence", "keep_records")
)

# (cloud_forward, use_red, overhead, queue_aware) of each decision model
_MODEL_FLAGS = {
    "pure_local": (False, False, False, False),
    "pure_cloud": (True, False, False, False),
    "original": (False, False, True, False),
    "without_enhancement_1": (False, True, True, False),
    "without_enhancement_2": (False, False, True, True),
    "advanced": (False, True, True, True),
}
# the tasks a replication may draw (its draws and kernel outputs: _WORDS_PER_TASK + n words each)
_MAX_TASKS = 3_000_000
# the memory estimate, bytes per expected task: one replication's draws and kernel outputs,
# freed after it (the task arrays, the n RED uniforms, the eight outputs and the draws'
# temporaries: 20 + n eight-byte words), then for each replication the engine keeps, its
# completion-time series (8 bytes) and, with keep_records, its records (a row of 17 columns
# and the copy that concatenates them: about 400 bytes)
_WORDS_PER_TASK = 20
_SERIES_BYTES = 8.0
_RECORD_BYTES = 400.0
IN_DECISION = {
    "full": K.IN_DECISION_FULL,
    "zero": K.IN_DECISION_ZERO,
    "remaining": K.IN_DECISION_REMAINING,
}


def _draw_tasks(
    topology: Topology,
    lam,
    task_size,
    sigma,
    periods,
    period,
    data_per_work,
    rng,
    arrivals,
) -> K.Tasks:
    """Poisson(λ·weight) tasks per period per server; sizes Normal(μ, σ) truncated to
    ``D > 0`` by redrawing the non-positive ones (an exact truncated Normal); ``B = β D``.

    ``arrivals="spread"``: at uniform times inside the period (together: a Poisson process
    of rate λ·weight/T); ``"batch"``: all at the start of the period, in server order.
    The uniforms are drawn in both cases, so the sizes and RED's draws do not depend on it.
    """
    gens = topology.generators
    counts = rng.poisson(lam * topology.weight[gens], size=(periods, gens.size))
    total = int(counts.sum())
    period_of = np.repeat(np.repeat(np.arange(periods), gens.size), counts.ravel())
    origin = np.repeat(np.tile(gens, periods), counts.ravel())
    offset = rng.uniform(size=total)
    arrival = (period_of + (offset if arrivals == "spread" else 0.0)) * period
    order = np.argsort(arrival, kind="stable")
    arrival, origin = arrival[order], origin[order]
    work = (
        rng.normal(task_size, sigma, size=total) if sigma > 0 else np.full(total, float(task_size))
    )
    bad = work <= 0
    while np.any(bad):
        work[bad] = rng.normal(task_size, sigma, size=int(bad.sum()))
        bad = work <= 0
    uniforms = rng.uniform(size=(total, topology.n))
    return K.Tasks(arrival, origin.astype(np.int64), work, data_per_work * work, uniforms)


def _run_kernel(model: str, topology: Topology, tasks: K.Tasks, *, max_events=None, **params):
    """Run one replication of ``model`` on given draws (no validation: callers validate).

    ``params``: the kernel's parameters (``_KERNEL_KEYS`` and ``eq11_unit`` in seconds per
    unit); those left out take the table's defaults.
    """
    unknown = set(params) - set(_KERNEL_DEFAULTS)
    if unknown:
        raise TypeError(f"_run_kernel: unknown parameters {sorted(unknown)}")
    k = _KERNEL_DEFAULTS | params
    cloud_forward, use_red, overhead, queue_aware = _MODEL_FLAGS[model]
    m, n = tasks.arrival.size, topology.n
    gt, ge = time_weights(topology.compute)
    out = K.Outcome(
        finish=np.empty(m),
        exec_server=np.empty(m, dtype=np.int64),
        visits=np.empty(m, dtype=np.int64),
        wait=np.empty(m),
        decide=np.empty(m),
        transfer=np.empty(m),
        red_forwards=np.empty(m, dtype=np.int64),
        went_down=np.empty(m, dtype=np.int64),
        server_stats=np.empty((n, K.N_SRV_STATS)),
    )
    tree = K.Tree(
        parent=topology.parent,
        compute=topology.compute,
        bandwidth=topology.bandwidth,
        gamma_t=gt,
        gamma_e=ge,
        power=np.full(n, float(k["power"])),
    )
    rules = K.Rules(
        kappa=float(k["kappa"]),
        cloud_forward=cloud_forward,
        use_red=use_red,
        overhead=overhead,
        queue_aware=queue_aware,
        down_offload=bool(k["down_offload"]),
        min_th=float(k["min_th"]),
        max_th=float(k["max_th"]),
        max_p=float(k["max_p"]),
        w_q=float(k["w_q"]),
        gentle=bool(k["gentle"]),
        decision_time=float(k["decision_time"]),
        in_decision=IN_DECISION[k["in_decision"]],
        offload_busy=bool(k["offload_busy"]),
        eq11_unit=float(k["eq11_unit"]),
        max_events=int(max_events if max_events is not None else _event_budget(topology, m)),
    )
    out = out._asdict() | {"events": K.simulate_hierarchy(tree, rules, tasks, out)}
    if out["events"] < 0:
        raise RuntimeError(f"{model}: the event budget ran out (kernel invariant broken)")
    return out


def _event_budget(topology: Topology, m: int) -> int:
    """At most 3 events per task and server visited (arrive, decide, execute or hand over),
    a visit per tier plus one down: ``3 m (depth + 2)`` plus the servers' last events."""
    return int(3 * m * (int(topology.depth.max()) + 2) + 4 * topology.n + 16)


@takes(P5Params, *SIMULATE_FIELDS)
def simulate(p) -> SimulationResult:
    """Simulate a decision model on the edge hierarchy; mean task completion time with CI.

    Takes a :class:`~workbench.hierarchy.P5Params` or its keywords (keyword-only). The
    rows of ``PARAMS`` say more (the plausible values of each reading, the paper's words).

    Parameters
    ----------
    task_size : float
        The paper's μ: mean task size (Normal(μ, σ) truncated to positive values) [work
        units]. Not a service rate: the service time at server i is D / F_i.
    topology : str or Topology
        ``"tree"`` (paper's Fig. 3), ``"skewed"`` (1:2:3:4), ``"ba-1"``..``"ba-5"``, or a
        :class:`~workbench.hierarchy.topology.Topology` (then the speed and bandwidth
        arguments are ignored: the Topology carries them).
    periods : int
        Generation periods per replication; every task then runs to completion.
    seed : int
        Replication ``r`` uses the ``r``-th child of ``numpy.random.SeedSequence(seed)``.
    warmup : float
        The fraction of the run dropped: tasks generated in the first ``warmup·periods``
        periods are run but left out of the means.

    Returns
    -------
    SimulationResult
        ``metric = "mean_time"`` (mean completion time of the tasks generated after the
        warm-up, seconds); also ``mean_wait``, ``mean_transfer``, ``mean_decision``,
        ``mean_execution``, ``time_per_work``, ``mean_in_system`` (time-average tasks per
        server), ``red_forward_rate``, ``share_s<i>`` (fraction of tasks executed at server i),
        ``load_s<i>`` (worker time server i spent per second of generation: the load the
        policy's routing really puts on it, decisions and hand-overs included).
        ``stationarity``: the shared detector's verdict on the per-task completion times in
        arrival order. ``records``: one row per task; ``info["stations"]``: per-server table;
        ``info["rho_bound"]``: the load bound (see Raises); ``info["rho_measured"]``: the
        largest ``load_s<i>``.

    Raises
    ------
    ParameterError
        A parameter outside its range, or more than ``_MAX_TASKS`` expected tasks per
        replication (memory bound); ``EmptyRunError`` when no task arrives after the warm-up.
    UnstableRegimeError
        With ``overload="raise"``: before the run when the model's load bound is >= 1 (exact
        for the static models pure_local, pure_cloud, original; a necessary condition for the
        others, see :func:`~workbench.hierarchy.model.utilisation_bound`); after it when a
        server's measured load is >= 1 or the detector finds the run non-stationary.

    References
    ----------
    Yin, Chen, Hu, FGCS 90 (2019), Secs. 3-5.
    """
    p, topo, rho, notes = _prepare("simulate", p, kept=p.replications)
    stations = []  # each replication's per-server table
    reps = replicate(_one_replication(p, topo, stations), replications=p.replications, seed=p.seed)
    return _finish("simulate", p, topo, rho, notes, reps, stations)


@takes(P5Params, *(n for n in SIMULATE_FIELDS if n != "replications"))
@precision_keywords(unit="s", overload="params")
def simulate_to_precision(p, *, target) -> SimulationResult:
    """:func:`simulate` with as many replications as the headline interval needs.

    Adds replications (the same streams as :func:`simulate`'s, then fresh ones) until the
    mean time's interval is as narrow as asked (JMT's stopping rule), with a progress bar:
    the shared loop :func:`workbench.precision.to_precision`. Raises
    ``UnstableRegimeError`` as soon as the run is found non-stationary (a precision loop
    needs a steady state: ``overload`` must be "raise"); stops at ``max_replications`` with
    ``converged=False`` and a note. The other keywords are :func:`simulate`'s but
    ``replications``.

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, ``converged`` saying whether the target was reached.
    """
    f = "simulate_to_precision"
    # the loop keeps every replication it runs: up to max_replications series (and records)
    p, topo, rho, notes = _prepare(f, p, kept=target.max_replications)
    stations = []
    return to_precision(
        _one_replication(p, topo, stations),
        func=f,
        target=target,
        seed=p.seed,
        desc=f"{p.model} λ={p.lam:g} μ={p.task_size:g}",
        **_finish_kwargs(p, topo, rho, notes),
    )


def _one_replication(p, topo, stations):
    """The engine's ``one(seed_sequence, index)``: one replication as a ``Replication``."""
    cutoff = p.warmup * p.periods * p.period

    def one(seed_sequence, index):
        rng = np.random.default_rng(seed_sequence)
        tasks = _draw(p, topo, rng)
        out = _run_kernel(p.model, topo, tasks, **_kernel_args(p))
        row, station = _summarise(topo, tasks, out, cutoff, p.periods * p.period)
        station["replication"] = index
        stations.append(station)
        records = _records(topo, tasks, out, cutoff, index) if p.keep_records else None
        series = out["finish"] - tasks.arrival
        return Replication(row, series, int(np.sum(tasks.arrival < cutoff)), records)

    return one


_ROW = (
    "mean_time",
    "mean_wait",
    "mean_transfer",
    "mean_decision",
    "mean_execution",
    "time_per_work",
    "mean_in_system",
    "red_forward_rate",
    "sent_down_share",
    "tasks",
)


def _quantities(topo) -> list[str]:
    return [
        *_ROW,
        *(f"share_s{s}" for s in range(topo.n)),
        *(f"load_s{s}" for s in range(topo.n)),
    ]


def _bounds(quantities) -> dict:
    out = {q: (0.0, math.inf) for q in quantities}
    return out | {q: (0.0, 1.0) for q in quantities if q.startswith(("share_s", "sent_down"))}


# what a run without a task after the warm-up lacks, and what to change
_EMPTY = {
    "what": "tasks generated after the warm-up",
    "hint": " Raise λ or periods, or lower the warm-up fraction.",
}


_NOT_PARAMETERS = ("topology", "keep_records", "replications")


def _finish_kwargs(p, topo, rho, notes) -> dict:
    """The shared engine's ``finish`` arguments for this run."""
    quantities = _quantities(topo)
    return dict(
        metric="mean_time",
        quantities=quantities,
        confidence=p.confidence,
        run_length=p.periods,
        run_unit="periods",
        overload=p.overload,
        bounds=_bounds(quantities),
        rho=rho,
        notes=notes,
        unit="s",
        count="tasks",
        empty_what=_EMPTY["what"],
        empty_hint=_EMPTY["hint"],
        info={
            "model": p.model,
            "topology": topo.name,
            "rho_bound": rho,
            # the replications run are the result's own (a precision loop chooses them)
            "parameters": {k: v for k, v in p if k not in _NOT_PARAMETERS},
        },
    )


def _finish(func, p, topo, rho, notes, reps, stations):
    """The engine's ``finish``, with the measured load folded into ρ and the station table."""
    kw = _finish_kwargs(p, topo, rho, notes)
    require_observations(func, [r.row["tasks"] for r in reps], **_EMPTY)
    measured = _measured_load(reps)
    kw["rho"] = max(rho, measured)
    if measured >= 1.0 > rho:
        kw["notes"] = [
            *notes,
            f"the policy's routing loads a server to ρ = {measured:.3g} >= 1 (measured: worker "
            f"time per second of generation, decisions and hand-overs included)",
        ]
    frame = pd.concat(stations).groupby("server", as_index=False).mean(numeric_only=True)
    kw["info"] |= {"rho_measured": measured, "stations": frame.drop(columns="replication")}
    return finish(reps, func=func, **kw)


def _measured_load(reps) -> float:
    """Largest server load (worker time per second of generation), averaged over replications."""
    keys = [k for k in reps[0].row if k.startswith("load_s")]
    return float(max(np.mean([r.row[k] for r in reps]) for k in keys))


def _summarise(
    topo, tasks, out, cutoff, window, with_station=True
) -> tuple[dict, pd.DataFrame | None]:
    """Per-replication quantities; ``window`` = generation time n·T (loads are per second of it)."""
    done = out["finish"]
    if np.any(np.isnan(done)):  # conservation: every task completes
        raise RuntimeError("simulate: a task never completed (kernel invariant broken)")
    keep = tasks.arrival >= cutoff
    st = out["server_stats"]
    loads = {f"load_s{s}": st[s, K.SRV_BUSY] / window for s in range(topo.n)}
    if not keep.any():
        row = dict.fromkeys(_quantities(topo), math.nan) | {"tasks": 0.0} | loads
        station = pd.DataFrame({"server": np.arange(topo.n)}) if with_station else None
        return row, station
    sojourn = done - tasks.arrival
    execution = tasks.work / topo.compute[out["exec_server"]]
    horizon = st[0, K.SRV_END_TIME]
    row = {
        "mean_time": sojourn[keep].mean(),
        "mean_wait": out["wait"][keep].mean(),
        "mean_transfer": out["transfer"][keep].mean(),
        "mean_decision": out["decide"][keep].mean(),
        "mean_execution": execution[keep].mean(),
        "time_per_work": sojourn[keep].mean() / tasks.work[keep].mean(),
        "mean_in_system": st[:, K.SRV_AREA].sum() / horizon / topo.n,
        "red_forward_rate": out["red_forwards"][keep].mean(),
        "sent_down_share": out["went_down"][keep].mean(),
        "tasks": float(keep.sum()),
    }
    executed = np.bincount(out["exec_server"][keep], minlength=topo.n)
    for s in range(topo.n):
        row[f"share_s{s}"] = executed[s] / keep.sum()
    row |= loads
    if not with_station:
        return row, None
    station = pd.DataFrame(
        {
            "server": np.arange(topo.n),
            "tier": topo.depth,
            "compute": topo.compute,
            "utilisation": st[:, K.SRV_BUSY] / horizon,
            "load": st[:, K.SRV_BUSY] / window,
            "throughput": st[:, K.SRV_EXECUTED] / horizon,
            "mean_number": st[:, K.SRV_AREA] / horizon,
            "executed_share": st[:, K.SRV_EXECUTED] / done.size,
            "work_share": st[:, K.SRV_WORK] / tasks.work.sum(),
            "red_forwarded": st[:, K.SRV_RED_FORWARDED],
            "decided_up": st[:, K.SRV_DECIDED_UP],
            "sent_down": st[:, K.SRV_SENT_DOWN],
        }
    )
    return row, station


def _records(topo, tasks, out, cutoff, replication) -> pd.DataFrame:
    exec_server = out["exec_server"]
    down = out["went_down"]
    paths = {}
    for key in set(zip(tasks.origin.tolist(), exec_server.tolist(), down.tolist(), strict=True)):
        o, e, d = key
        up = topo.path_up(o)
        if d:
            paths[key] = ">".join(map(str, [*up, e]))
        else:
            paths[key] = ">".join(map(str, up[: up.index(e) + 1]))
    visited = [
        paths[k]
        for k in zip(tasks.origin.tolist(), exec_server.tolist(), down.tolist(), strict=True)
    ]
    execution = tasks.work / topo.compute[exec_server]
    return pd.DataFrame(
        {
            "replication": replication,
            "task": np.arange(tasks.arrival.size),
            "origin": tasks.origin,
            "arrival": tasks.arrival,
            "work": tasks.work,
            "data": tasks.data,
            "executed_at": exec_server,
            "servers_visited": visited,
            "n_visited": out["visits"],
            "red_forwards": out["red_forwards"],
            "sent_down": down.astype(bool),
            "wait": out["wait"],
            "decision": out["decide"],
            "transfer": out["transfer"],
            "execution": execution,
            "completion_time": out["finish"] - tasks.arrival,
            "measured": tasks.arrival >= cutoff,
        }
    )


def _prepare(f, p, kept):
    """Build the hierarchy, bound the run's memory and check the model's load (``p`` is
    validated; ``kept``: the replications whose series and records the run holds at once)."""
    topo = p.hierarchy()
    p = p.trusted(topology=topo)
    expected_tasks = p.lam * topo.weight.sum() * p.periods
    check_budget(
        f,
        "periods",
        p.periods,
        expected_tasks * _task_bytes(topo.n, kept, p.keep_records),
        what="task draws, kernel outputs, completion-time series and per-task records",
    )
    if expected_tasks > _MAX_TASKS:
        raise ParameterError(
            f"The 'periods' parameter of {f} must keep the expected number of tasks per "
            f"replication (λ·Σweights·n = {expected_tasks:.3g}) at most {_MAX_TASKS:,} "
            f"(8 (20 + n) bytes a task for its draws and kernel outputs). Got {p.periods!r} "
            "instead."
        )
    rho, notes = _load_check(f, p.model, p)
    return p, topo, rho, notes


def _task_bytes(n: int, kept: int, records: bool) -> float:
    """The memory estimate per expected task (see ``_WORDS_PER_TASK``): one replication's
    scratch, plus what each of the ``kept`` replications leaves behind."""
    left = _SERIES_BYTES + (_RECORD_BYTES if records else 0.0)
    return 8.0 * (_WORDS_PER_TASK + n) + kept * left


def _load_check(f, model, p):
    """The model's load bound before the run; UnstableRegimeError at ρ >= 1 unless transient."""
    rho = utilisation_bound(p.trusted(model=model))
    what = f"model {model!r} at λ={p.lam:g}, μ={p.task_size:g}"
    return rho, check_overload(f, p.overload, rho=rho, what=what)


_KERNEL_KEYS = (
    "min_th",
    "max_th",
    "max_p",
    "w_q",
    "gentle",
    "decision_time",
    "power",
    "kappa",
    "down_offload",
    "in_decision",
    "offload_busy",
)


def _kernel_args(p) -> dict:
    """The kernel's keyword arguments from validated parameters."""
    unit = {"s": 1.0, "ms": 1e-3, "period": p.period}[p.eq11_unit]
    return {k: getattr(p, k) for k in _KERNEL_KEYS} | {"eq11_unit": unit}


_KERNEL_DEFAULTS = _kernel_args(P5Params())


def _draw(p, topo, rng) -> K.Tasks:
    return _draw_tasks(
        topo, p.lam, p.task_size, p.sigma, p.periods, p.period, p.data_per_work, rng, p.arrivals
    )


@takes(P5Params, *RUN_FIELDS)
def run_models(p, *, models=PAPER_MODELS) -> dict:
    """One replication of several decision models on the *same* random draws.

    The tasks (arrival times, sizes, RED's uniforms) are drawn once from ``seed`` and every
    model in ``models`` runs on them: common random numbers, so a difference between two
    models is the models' and not the draws' (two models that route alike tie exactly), and
    the draws are paid once. For sweeps (:func:`workbench.sweep.sweep` passes the seed).

    Parameters
    ----------
    models : sequence of str
        Names from ``MODELS`` (default: the paper's five); the other keywords are
        :func:`simulate`'s but ``model``, ``replications``, ``confidence`` and
        ``keep_records``.

    Returns
    -------
    dict
        ``{"<model>/<quantity>": value}``: :func:`simulate`'s quantities of that one
        replication, plus ``rho_bound``, ``rho_measured`` and ``stationary`` (1.0 or 0.0: the
        shared detector on this replication's completion times, and ρ < 1).
    """
    f = "run_models"
    if (
        isinstance(models, str)
        or getattr(models, "ndim", 1) != 1
        or not hasattr(models, "__len__")
        or len(models) == 0
    ):
        raise refusal(f, "models", f"a non-empty sequence of names from {MODELS}", models)
    models = [PARAMS["model"].check(m, f) for m in models]
    p, topo, _, _ = _prepare(f, p.trusted(model=models[0], keep_records=False), kept=1)
    rhos = {m: _load_check(f, m, p)[0] for m in models}
    rng = np.random.default_rng(np.random.SeedSequence(p.seed))
    tasks = _draw(p, topo, rng)
    cutoff = p.warmup * p.periods * p.period
    warm = int(np.sum(tasks.arrival < cutoff))
    require_observations(f, [tasks.arrival.size - warm], **_EMPTY)
    out = {}
    for m in models:
        res = _run_kernel(m, topo, tasks, **_kernel_args(p))
        row, _ = _summarise(topo, tasks, res, cutoff, p.periods * p.period, False)
        measured = max(row[f"load_s{s}"] for s in range(topo.n))
        rho = max(rhos[m], measured)
        verdict = detect([res["finish"] - tasks.arrival], warmup=warm, rho=rho, unit="s")
        check_overload(f, p.overload, rho=rho, stationarity=verdict, what=m)
        row |= {"rho_bound": rhos[m], "rho_measured": measured}
        row["stationary"] = float(verdict.stationary)
        out.update({f"{m}/{q}": v for q, v in row.items()})
    return out
