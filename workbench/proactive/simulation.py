"""Seeded simulation of the proposed scheme and the three baselines, with intervals.

Follows the workbench's contract: ``simulate(params=None, /, *, policy=..., slots=...,
warmup=..., replications=..., seed=0, confidence=0.95, <every model row>, keep_records=True,
overload="raise") -> SimulationResult``, its keywords generated from the parameter table
(:class:`~workbench.proactive.params.P2Params`, validated once at the door). The run length
``slots`` counts every simulated slot with arrivals, and ``warmup`` is the fraction of them
(from the start) whose tasks are not counted (1/6 of 24,000 slots = 4000 slots at the
defaults).

One replication's tasks and slot-kernel run are :mod:`workbench.proactive.runs`'s
(:func:`~workbench.proactive.runs.draw_tasks`, :func:`~workbench.proactive.runs.run_scenario`).

Each replication draws its own network (:func:`~workbench.proactive.model.make_scenario`),
runs the training phase (:func:`~workbench.proactive.model.train`), draws the tasks and
runs the jitted slot kernel. Streams come from ``numpy.random.SeedSequence(seed)``: the
replication r of every scheme sees the same network, the same tasks and the same fading
(common random numbers), so differences between schemes are paired.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from workbench.output_analysis import (
    OVERLOAD,
    Replication,
    check_overload,
    finish,
    replicate,
)
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.proactive.model import (
    SCENARIO_KEYS,
    TRAIN_KEYS,
    Scenario,
    interference_free_rates,
    make_scenario,
    train,
)
from workbench.proactive.params import PARAMS, P2Params
from workbench.proactive.runs import Run, Tasks, draw_tasks, run_scenario
from workbench.results import SimulationResult
from workbench.validation import (
    UnstableRegimeError,
    check_bool,
    check_choice,
    check_int,
    refusal,
)

__all__ = ["simulate", "simulate_to_precision", "run_length"]


def run_length(measured_slots: int, warmup_slots: int) -> dict:
    """``slots`` and ``warmup`` for a run of ``warmup_slots`` then ``measured_slots`` slots.

    The shared form counts the warm-up as a fraction of the run; a warm-up fixed in slots
    (the time the caches take to fill) is ``warmup_slots / (warmup_slots + measured_slots)``,
    and the simulator rounds ``warmup · slots`` back to exactly ``warmup_slots``.

    Parameters
    ----------
    measured_slots : int
        Slots counted after the warm-up, in [1, 5e7].
    warmup_slots : int
        Slots of the warm-up, in [0, 5e7].

    Returns
    -------
    dict
        ``slots`` (their sum) and ``warmup`` (the warm-up's fraction of it), keywords of
        :func:`simulate`.
    """
    func = "run_length"
    measured = check_int(measured_slots, "measured_slots", func, 1, 50_000_000)
    warm = check_int(warmup_slots, "warmup_slots", func, 0, 50_000_000)
    total = measured + warm
    return {"slots": total, "warmup": warm / total}


def _stream_seeds(child: np.random.SeedSequence) -> list[int]:
    """A replication's four stream seeds (network, training, tasks, fading): replication r's
    ``child`` is the r-th of ``SeedSequence(seed).spawn``."""
    return [int(x) for x in child.generate_state(4, dtype=np.uint32)]


def _row(run: Run, measured_from: float = 0.0, cloudlets: int = 1, horizon: float = 0.0) -> dict:
    """Delay statistics of the tasks arriving at or after ``measured_from`` (warm-up cut).

    ``uplink_utilisation``: the upload time of the measured tasks over ``cloudlets`` × the
    span from ``measured_from`` to the later of ``horizon`` and their last upload's end (a
    cloudlet receives one upload at a time, so it lies in [0, 1])."""
    t = run.tasks[run.tasks["arrival"] >= measured_from]
    d = t["delay"].to_numpy()
    c = run.counters
    n = max(len(d), 1)
    start, end = t["upload_start"].to_numpy(), t["upload_end"].to_numpy()
    busy = np.nansum(end - start)
    span = max(horizon, np.nanmax(end, initial=horizon)) - measured_from
    return {
        "uplink_utilisation": float(busy / (cloudlets * span)) if span > 0 else 0.0,
        "mean_delay": float(d.mean()) if d.size else np.nan,
        "p90_delay": float(np.quantile(d, 0.90)) if d.size else np.nan,
        "p99_delay": float(np.quantile(d, 0.99)) if d.size else np.nan,
        "hit_rate": float(t["from_cache"].sum()) / n,
        "hedged_fraction": float((t["copies"] > 1).sum()) / n,
        "withdrawn_per_task": c["withdrawn"] / max(c["tasks"], 1),
        "pending_hit_rate": c["pending_hits"] / max(c["tasks"], 1),
        "tasks": len(d),
        "uploads": c["uploads"],
        "copies": c["copies"],
        "withdrawn": c["withdrawn"],
        "slots_run": c["slots_run"],
    }


BOUNDS = {
    "mean_delay": (0.0, np.inf),
    "p90_delay": (0.0, np.inf),
    "p99_delay": (0.0, np.inf),
    "hit_rate": (0.0, 1.0),
    "hedged_fraction": (0.0, 1.0),
    "withdrawn_per_task": (0.0, np.inf),
    "pending_hit_rate": (0.0, 1.0),
    "uplink_utilisation": (0.0, 1.0),
}
"""The reported quantities, in order, and their ranges: their intervals are clipped to them."""

_EMPTY_HINT = (
    "Raise λ_u (lam), U or the number of slots: on average λ_u · U · (1 − warmup) · slots · δ "
    "tasks arrive after the warm-up."
)


def _user_load(scenario: Scenario, p) -> float:
    """A necessary condition for stability: the busiest user's upload load (< 1 needed).

    A user uploads one task at a time, at most at its interference-free rate to its best
    covering cloudlet, and only a task whose result is not cached needs an upload: its
    transmitter is busy at least λ_u (1 − c_u) L̄ / r_u of the time, c_u being its
    cacheable mass (0 without caching). The matching, hedging and interference of the slot
    model admit no closed stability bound; this one is necessary, not sufficient, and the
    stationarity detector decides the rest.
    """
    rates = interference_free_rates(p, scenario=scenario)
    rate = np.where(scenario.covered, rates, 0.0).max(axis=1)
    cached = 0.0
    if p.policy in ("proposed", "BL1") and p.storage > 0:
        cached = scenario.profiles[:, scenario.cacheable].sum(axis=1)[scenario.profile_of_user]
    return float(np.max(p.lam * (1.0 - cached) * p.mean_bits / rate))


def _load_bound(p, replications: int) -> float:
    """:func:`_user_load`, the largest over the replications' networks."""
    out = 0.0
    for child in np.random.SeedSequence(p.seed).spawn(replications):
        s_scen, s_train, _, _ = _stream_seeds(child)
        scenario, _ = _network(*_network_key(p, s_scen, s_train))
        out = max(out, _user_load(scenario, p))
    return out


#: simulate's keywords: the scheme and the run first, then the model's rows in table order
_RUN = ("policy", "slots", "warmup", "replications", "seed", "confidence")
_MODEL = tuple(n for n in PARAMS if n not in _RUN)


@takes(P2Params, *_RUN, *_MODEL)
def simulate(p, *, keep_records=True, overload="raise") -> SimulationResult:
    """Simulate one scheme; mean, 90th and 99th percentile delay and hit rate with CIs.

    Takes a :class:`~workbench.proactive.params.P2Params` or its keywords (every argument
    is keyword-only; defaults from :data:`~workbench.proactive.params.PARAMS`, whose other
    rows are the model's: E, U, area, radio, CPU, tasks, caching, matching, training, δ and
    the readings). An unknown name is an error that suggests the closest one.

    Parameters
    ----------
    policy : {"proposed", "BL1", "BL2", "BL3"}
        The scheme. proposed: clustered popularity caching, Φ-ranked matching with
        hedging. BL1: hedging with local LRU caching. BL2: hedging, no caching. BL3: no
        caching, no hedging, both sides rank by link quality.
    slots : int
        Slots of length δ with arrivals per replication, warm-up included; then the
        system drains.
    warmup : float
        Fraction of ``slots`` (from the start) whose arriving tasks are simulated but not
        counted: the empty caches fill and the rate estimates settle (the table's 1/6:
        4000 of the default 24,000 slots = 20 s). :func:`run_length` turns a warm-up in
        slots into this fraction.
    replications : int
        Independent replications, each a new network, training and task stream.
    seed : int
        Root of the replications' streams: same seed, same numbers.
    confidence : float
        Level of the Student-t intervals over replications (clipped to each quantity's
        range: times >= 0, shares in [0, 1]).
    keep_records : bool
        Keep one row per task in ``result.records`` (for the delay CCDF).
    overload : {"raise", "transient"}
        What to do when the run is not a steady state (see Raises): "transient" returns
        the finite-horizon numbers with ``stationary=False`` and a note.

    Returns
    -------
    SimulationResult
        Metric ``mean_delay`` [s]; quantities p90_delay, p99_delay [s], hit_rate (share of
        tasks served from a cache), hedged_fraction (share of tasks queued at two or more
        cloudlets), withdrawn_per_task (copies withdrawn per task), pending_hit_rate
        (requests whose result was cached but not yet computed), uplink_utilisation (upload
        time of the measured tasks per cloudlet and measured second). ``frame``: one row per
        replication with the counts (tasks, uploads, copies, withdrawn, slots_run);
        ``records``: one row per task (replication, delay, from_cache, copies, server...).
        ``run_length`` is the measured slots (after the warm-up). ``stationarity``: the
        output analysis of the per-task delays in arrival order
        (:func:`workbench.output_analysis.detect`, the warm-up's tasks as the fixed
        warm-up); ``info["load_bound"]``: :func:`_user_load`, the largest over the
        replications.

    Raises
    ------
    ParameterError
        For invalid parameters or unknown keywords; ``EmptyRunError`` (a ParameterError)
        when a replication has no task arriving after the warm-up.
    UnstableRegimeError
        With ``overload="raise"``: when the busiest user's upload load (:func:`_user_load`)
        is at least 1 or the detector finds the delays trending. Whatever ``overload``:
        when a cloudlet queues more than ``MAX_QUEUE`` copies or the tasks are not done
        ``max(2000, slots)`` slots after the last arrival (there are no numbers then).

    References
    ----------
    Elbamby et al. (2018), Sec. 4 (the schemes and baselines compared).
    """
    func = "simulate"
    keep_records = check_bool(keep_records, "keep_records", func)
    overload = check_choice(overload, "overload", func, OVERLOAD)
    return _simulate(p, func, keep_records, overload)


@takes(P2Params, *(n for n in _RUN if n != "replications"), *_MODEL)
@precision_keywords(unit="s", max_half_width=10.0)
def simulate_to_precision(p, *, target, overload="raise", monitor=None) -> SimulationResult:
    """Add replications until the mean delay's interval is narrow enough.

    Like JMT's precision-driven runs; takes a :class:`~workbench.proactive.params.P2Params`
    or its keywords as :func:`simulate` does (replication r is that of
    ``simulate(seed=seed)``: same seed, same numbers; records are not kept). The run's and
    the model's keywords are :func:`simulate`'s.

    Parameters
    ----------
    overload : {"raise", "transient"}
        A run the detector finds non-stationary raises :class:`UnstableRegimeError`, or
        with ``"transient"`` the ``initial`` replications come back flagged
        (``stationary=False``, ``converged=False``).
    monitor : callable, optional
        ``monitor(index)`` is called before replication ``index`` runs: a progress display
        of its own, or a way to stop (an exception it raises ends the run and propagates).

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, with ``converged`` saying whether the target was met.
    """
    func = "simulate_to_precision"
    top, initial = target.max_replications, target.initial
    # even the least precision run (2 replications) must fit; named by the parameter the
    # caller sets here (simulate_to_precision takes no ``replications``)
    p.check_work(func, 2, "max_replications")
    p.check_work(func, top, "max_replications")
    overload = check_choice(overload, "overload", func, OVERLOAD)
    if monitor is not None and not callable(monitor):
        raise refusal(func, "monitor", "None or a callable monitor(index)", monitor)
    rho = _load_bound(p, initial)
    check_overload(func, overload, rho=rho)

    def one(child, index):
        if monitor is not None:
            monitor(index)
        return _replication(p, child, func, False)

    try:
        return to_precision(
            one,
            func=func,
            target=target,
            seed=p.seed,
            desc=f"P2 {p.policy} to {target.shown}",
            **_finish_kwargs(p, rho),
        )
    except UnstableRegimeError:
        if overload == "raise":
            raise
    flagged = _simulate(p.trusted(replications=initial), func, False, "transient")
    note = f"not stationary: precision not pursued, {initial} replications shown"
    return flagged.with_(converged=False, notes=(*flagged.notes, note))


_DEFAULTS = P2Params()


def _network_key(p, s_scen: int, s_train: int) -> tuple:
    """The key of :func:`_network`: the scenario's and the training's values and seeds."""
    return (
        tuple((k, getattr(p, k)) for k in SCENARIO_KEYS),
        s_scen,
        tuple((k, getattr(p, k)) for k in TRAIN_KEYS),
        s_train,
    )


@lru_cache(maxsize=256)
def _network(scenario_values: tuple, s_scen: int, train_values: tuple, s_train: int):
    """Scenario and training of one replication, kept for the next scheme or parameter.

    The schemes of one replication (and e.g. every storage size) share the network and
    its training phase; the spectral clustering costs more than a short run of the slot
    kernel, so it is computed once per (network, training) key.
    """
    scenario = make_scenario(_DEFAULTS.trusted(**dict(scenario_values), seed=s_scen))
    trained = _DEFAULTS.trusted(**dict(train_values), seed=s_train)
    return scenario, train(trained, scenario=scenario)


@lru_cache(maxsize=64)
def _tasks(network: tuple, lam: float, mean_bits: float, horizon: float, s_task: int) -> Tasks:
    """The tasks of one replication on the network :func:`_network` ``(*network)`` gives,
    kept for the next scheme or parameter of the same replication (the schemes' runs are
    paired on them; the slot kernel reads them and copies what it changes)."""
    scenario, _ = _network(*network)
    drawn = _DEFAULTS.trusted(lam=lam, mean_bits=mean_bits, seed=s_task)
    return draw_tasks(drawn, scenario=scenario, horizon=horizon)


def _replication(p, child, func: str, keep_records: bool) -> Replication:
    """One replication of the validated object ``p`` for the output-analysis engine: its
    row, delay series and warm-up, from the four stream seeds of ``child``."""
    s_scen, s_train, s_task, s_fade = _stream_seeds(child)
    network = _network_key(p, s_scen, s_train)
    scenario, training = _network(*network)
    tasks = _tasks(network, p.lam, p.mean_bits, p.slots * p.slot, s_task)
    run = run_scenario(
        p,
        policy=p.policy,
        scenario=scenario,
        training=training,
        tasks=tasks,
        fading_seed=s_fade,
        caller=func,
    )
    start = p.warmup_slots() * p.slot
    row = {"clusters": training.clusters.k} | _row(run, start, p.n_cloudlets, p.slots * p.slot)
    t = run.tasks.sort_values("arrival", kind="stable")
    measured = t["arrival"].to_numpy() >= start
    rec = None
    if keep_records:
        rec = t.loc[measured, ["delay", "from_cache", "copies", "server", "cacheable"]]
        rec = rec.reset_index(drop=True)
    return Replication(row, t["delay"].to_numpy(), int((~measured).sum()), rec)


def _finish_kwargs(p, rho: float) -> dict:
    return dict(
        metric="mean_delay",
        quantities=tuple(BOUNDS),
        confidence=p.confidence,
        run_length=p.slots - p.warmup_slots(),
        run_unit="slots",
        bounds=BOUNDS,
        rho=rho,
        unit="s",
        count="tasks",
        empty_what="tasks arriving after the warm-up",
        empty_hint=_EMPTY_HINT,
        # the run's parameters in table order (the interval's level is the result's own)
        info={k: v for k, v in p if k != "confidence"} | {"load_bound": rho},
    )


def _simulate(p, func: str, keep_records: bool, overload: str) -> SimulationResult:
    """simulate's body, errors naming ``func`` (the function the user called)."""
    rho = _load_bound(p, p.replications)
    check_overload(func, overload, rho=rho)  # refuse a certain overload before running

    def one(child, index):
        rep = _replication(p, child, func, keep_records)
        if rep.records is not None:
            rep = rep._replace(records=rep.records.assign(replication=index))
        return rep

    reps = replicate(one, replications=p.replications, seed=p.seed)
    result = finish(reps, func=func, overload=overload, **_finish_kwargs(p, rho))
    if result.records is not None:
        cols = ["replication", "delay", "from_cache", "copies", "server", "cacheable"]
        result = result.with_(records=result.records[cols])
    return result
