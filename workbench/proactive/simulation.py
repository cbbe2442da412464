"""Seeded simulation of the proposed scheme and the three baselines, with intervals.

Follows the workbench's contract::

    simulate(scheme, *, n_slots=..., replications=..., seed=0, confidence=0.95, **params)
        -> workbench.results.SimulationResult

Each replication draws its own network (:func:`~workbench.proactive.model.make_scenario`),
runs the training phase (:func:`~workbench.proactive.model.train`), draws the tasks and
runs the jitted slot kernel. Streams come from ``numpy.random.SeedSequence(seed)``: the
replication r of every scheme sees the same network, the same tasks and the same fading
(common random numbers), so differences between schemes are paired.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pandas as pd

from workbench.proactive import kernels as K
from workbench.proactive.model import Scenario, Training, _make_scenario, _train
from workbench.proactive.params import MAX_QUEUE, MAX_TASKS, PARAMS, SCHEME_CODES
from workbench.results import SimulationResult
from workbench.validation import ParameterError, UnstableRegimeError

__all__ = ["simulate", "run_scenario", "draw_tasks", "Tasks", "Run", "QUANTITIES", "MAX_WORK"]

QUANTITIES = (
    "mean_delay",
    "p90_delay",
    "p99_delay",
    "hit_rate",
    "hedged_fraction",
    "withdrawn_per_task",
    "pending_hit_rate",
)
MAX_WORK = 2e10  # slots × users × cloudlets per replication: bounds the run time (~minutes)

SCENARIO_KEYS = (
    "n_cloudlets", "n_users", "area", "n_tasks", "zipf", "n_profiles", "cacheable_ratio",
    "power_dbm", "noise_dbm_hz", "noise_figure_db", "bandwidth", "coverage_db",
)  # fmt: skip
TRAIN_KEYS = ("arrival_rate", "training_time", "theta", "sigma_d")
RUN_KEYS = (
    "fading", "cpu", "kappa", "mean_bits", "arrival_rate", "storage", "tau_ep", "budget",
    "x_max", "slot", "bandwidth", "cache_aware", "hedge_check",
)  # fmt: skip


class Tasks(NamedTuple):
    """The tasks of one replication, grouped by user (arrival order within a user)."""

    arrival: np.ndarray
    user: np.ndarray
    task_type: np.ndarray
    bits: np.ndarray
    user_start: np.ndarray


class Run(NamedTuple):
    """Outcome of :func:`run_scenario`: one row per task and the named counters."""

    tasks: pd.DataFrame
    counters: dict


def draw_tasks(scenario: Scenario, arrival_rate, mean_bits, horizon, seed) -> Tasks:
    """Poisson arrivals per user on [0, horizon), types from its profile, Exp(L̄) sizes."""
    gen = np.random.default_rng(np.random.SeedSequence([seed, 2]))
    n_users = scenario.profile_of_user.size
    counts = gen.poisson(arrival_rate * horizon, size=n_users)
    total = int(counts.sum())
    if total > MAX_TASKS:
        raise ParameterError(
            f"The 'n_slots' parameter of simulate must keep the tasks of one replication "
            f"below {MAX_TASKS:,} (memory bound). Got about {total:,} tasks instead."
        )
    starts = np.zeros(n_users + 1, dtype=np.int64)
    starts[1:] = np.cumsum(counts)
    arrival = np.empty(total)
    types = np.empty(total, dtype=np.int64)
    n_types = scenario.cacheable.size
    for u in range(n_users):
        lo, hi = starts[u], starts[u + 1]
        arrival[lo:hi] = np.sort(gen.uniform(0.0, horizon, size=hi - lo))
        types[lo:hi] = gen.choice(
            n_types, size=hi - lo, p=scenario.profiles[scenario.profile_of_user[u]]
        )
    user = np.repeat(np.arange(n_users, dtype=np.int64), counts)
    bits = gen.exponential(mean_bits, size=total)
    return Tasks(arrival, user, types, bits, starts)


def _xorshift_state(seed: int) -> np.uint64:
    """A nonzero 64-bit generator state from a seed (splitmix64 finaliser)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return np.uint64((z ^ (z >> 31)) or 1)


def _initial_rates(scenario: Scenario, bandwidth: float) -> np.ndarray:
    """r̄(0): the interference-free rate on the path gain (forgotten after one slot)."""
    snr = scenario.power_w * scenario.path_gain / scenario.noise_w
    return bandwidth * np.log1p(snr) / np.log(2.0)


def run_scenario(
    scheme: str,
    scenario: Scenario,
    training: Training,
    tasks: Tasks,
    *,
    n_slots: int,
    fading_seed: int,
    fading=True,
    cpu=1e10,
    kappa=100.0,
    storage=10,
    tau_ep=0.005,
    budget=0.05,
    x_max=2,
    slot=0.005,
    bandwidth=10e6,
    cache_aware=True,
    hedge_check=True,
    max_drain_slots=None,
    func="run_scenario",
) -> Run:
    """Run the slot kernel on one drawn scenario; one row per task.

    Raises
    ------
    UnstableRegimeError
        If a cloudlet's queue exceeds ``MAX_QUEUE`` copies, or the tasks are not all done
        ``max_drain_slots`` slots after the last arrival (default max(2000, n_slots)).
    """
    n_users, n_cloudlets = scenario.path_gain.shape
    drain = max(2000, n_slots) if max_drain_slots is None else int(max_drain_slots)
    store = np.full(n_cloudlets, storage, dtype=np.int64)
    done, server, from_cache, copies, cache_seq, cache_hit, c = K.simulate_slots_kernel(
        SCHEME_CODES[scheme], scenario.path_gain, scenario.covered,
        np.full(n_users, scenario.power_w), scenario.noise_w, float(bandwidth), bool(fading),
        _xorshift_state(fading_seed), np.full(n_cloudlets, float(cpu)), float(kappa), float(tau_ep),
        float(budget), float(slot), int(n_slots), drain, int(x_max), store,
        training.cache_rank, scenario.cacheable, tasks.arrival, tasks.user, tasks.task_type,
        tasks.bits, tasks.user_start, _initial_rates(scenario, bandwidth), MAX_QUEUE,
        bool(cache_aware), bool(hedge_check),
    )  # fmt: skip
    counters = {
        name: int(c[getattr(K, name)])
        for name in (
            "TASKS",
            "TASKS_DONE",
            "FROM_CACHE",
            "HEDGED_TASKS",
            "COPIES",
            "WITHDRAWN",
            "UPLOADS",
            "SLOTS_RUN",
            "STATUS",
            "PENDING_HITS",
            "MATCHED_REQUESTS",
            "UNMATCHED_REQUESTS",
        )  # fmt: skip
    }
    counters = {k.lower(): v for k, v in counters.items()}
    if counters["status"] != K.OK:
        why = (
            f"a cloudlet queued more than {MAX_QUEUE} copies"
            if counters["status"] == K.QUEUE_OVERFLOW
            else f"{counters['tasks'] - counters['tasks_done']} tasks were still unfinished "
            f"{drain} slots after the last arrival"
        )
        raise UnstableRegimeError(
            f"The 'arrival_rate' parameter of {func} must give a load the cloudlets can "
            f"serve: {why} (scheme {scheme}; work bounded by the queue and drain limits). "
            f"Lower λ_u or L̄, or add cloudlets."
        )
    frame = pd.DataFrame(
        {
            "user": tasks.user,
            "task_type": tasks.task_type,
            "cacheable": scenario.cacheable[tasks.task_type],
            "bits": tasks.bits,
            "arrival": tasks.arrival,
            "done": done,
            "delay": done - tasks.arrival,
            "server": server,
            "from_cache": from_cache,
            "copies": copies,
            "cache_seq": cache_seq,
            "cache_hit": cache_hit,
        }
    )
    return Run(frame, counters)


def _replication_seeds(seed: int, replications: int):
    for child in np.random.SeedSequence(seed).spawn(replications):
        yield [int(x) for x in child.generate_state(4, dtype=np.uint32)]


def _row(run: Run, measured_from: float = 0.0) -> dict:
    """Delay statistics of the tasks arriving at or after ``measured_from`` (warm-up cut)."""
    t = run.tasks[run.tasks["arrival"] >= measured_from]
    d = t["delay"].to_numpy()
    c = run.counters
    n = max(len(d), 1)
    return {
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


def simulate(
    scheme="proposed",
    *,
    n_slots=20_000,
    replications=5,
    seed=0,
    confidence=0.95,
    keep_records=True,
    **params,
) -> SimulationResult:
    """Simulate one scheme; mean, 90th and 99th percentile delay and hit rate with CIs.

    Parameters
    ----------
    scheme : {"proposed", "BL1", "BL2", "BL3"}
        proposed: clustered popularity caching, Φ-ranked matching with hedging. BL1:
        hedging with local LRU caching. BL2: hedging, no caching. BL3: no caching, no
        hedging, both sides rank by link quality.
    n_slots : int
        Measured slots of length δ with arrivals per replication, after ``warmup_slots``
        (a model parameter, default 2000 = 10 s) in which the empty caches fill and the
        rate estimates settle; tasks arriving in the warm-up are simulated but not
        counted. Then the system drains.
    replications : int
        Independent replications, each a new network, training and task stream.
    seed : int
        Root of the replications' streams: same seed, same numbers.
    confidence : float
        Level of the Student-t intervals over replications.
    keep_records : bool
        Keep one row per task in ``result.records`` (for the delay CCDF).
    **params
        Any model parameter of :data:`~workbench.proactive.params.PARAMS` (E, U, area,
        radio, CPU, tasks, caching, matching, training, δ); defaults from the table.

    Returns
    -------
    SimulationResult
        Metric ``mean_delay`` [s]; quantities p90_delay, p99_delay [s], hit_rate (share of
        tasks served from a cache), hedged_fraction (share of tasks queued at two or more
        cloudlets), withdrawn_per_task (copies withdrawn per task), pending_hit_rate
        (requests whose result was cached but not yet computed). ``frame``: one row per
        replication with the counts (tasks, uploads, copies, withdrawn, slots_run);
        ``records``: one row per task (replication, delay, from_cache, copies, server...).

    Raises
    ------
    ParameterError
        For invalid parameters; UnstableRegimeError when the load cannot be served.

    References
    ----------
    Elbamby et al. (2018), Sec. 4 (the schemes and baselines compared).
    """
    func = "simulate"
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise ParameterError(
            f"The '{unknown[0]}' parameter of {func} is not a model parameter; valid names "
            f"are {sorted(set(PARAMS) - {'scheme', 'n_slots', 'replications', 'seed'})}."
        )
    values = PARAMS.defaults()
    values.update(params)
    values.update(scheme=scheme, n_slots=n_slots, replications=replications, seed=seed,
                  confidence=confidence)  # fmt: skip
    v = PARAMS.check(func, **values)
    if not isinstance(keep_records, bool):
        raise ParameterError(
            f"The 'keep_records' parameter of {func} must be True or False. "
            f"Got {keep_records!r} instead."
        )
    work = (v["warmup_slots"] + v["n_slots"]) * v["n_users"] * v["n_cloudlets"]
    if work > MAX_WORK:
        raise ParameterError(
            f"The 'n_slots' parameter of {func} must keep (warmup_slots + n_slots) × U × E at most "
            f"{MAX_WORK:.0e} per replication (run-time bound). Got {work:.3g} instead."
        )
    return _simulate(v, keep_records, func)


@lru_cache(maxsize=32)
def _network(scenario_values: tuple, s_scen: int, train_values: tuple, s_train: int):
    """Scenario and training of one replication, kept for the next scheme or parameter.

    The schemes of one replication (and e.g. every storage size) share the network and
    its training phase; the spectral clustering costs more than a short run of the slot
    kernel, so it is computed once per (network, training) key.
    """
    scenario = _make_scenario(**dict(scenario_values), seed=s_scen)
    return scenario, _train(scenario, **dict(train_values), seed=s_train)


def one_replication(v: dict, seeds, func: str = "simulate") -> tuple[dict, Run, Training]:
    """One replication from validated values ``v`` and four stream seeds (no checks)."""
    s_scen, s_train, s_task, s_fade = seeds
    scenario, training = _network(
        tuple((k, v[k]) for k in SCENARIO_KEYS), s_scen,
        tuple((k, v[k]) for k in TRAIN_KEYS), s_train,
    )  # fmt: skip
    n_slots = v["warmup_slots"] + v["n_slots"]
    tasks = draw_tasks(scenario, v["arrival_rate"], v["mean_bits"], n_slots * v["slot"], s_task)
    run = run_scenario(
        v["scheme"], scenario, training, tasks, n_slots=n_slots, fading_seed=s_fade,
        **{k: v[k] for k in RUN_KEYS if k not in ("arrival_rate", "mean_bits")},
        func=func,
    )  # fmt: skip
    row = _row(run, measured_from=v["warmup_slots"] * v["slot"])
    return {"clusters": training.clusters.k} | row, run, training


def _simulate(v: dict, keep_records: bool, func: str) -> SimulationResult:
    rows, records = [], []
    for r, seeds in enumerate(_replication_seeds(v["seed"], v["replications"])):
        row, run, _ = one_replication(v, seeds, func)
        rows.append({"replication": r} | row)
        if keep_records:
            measured = run.tasks["arrival"] >= v["warmup_slots"] * v["slot"]
            rec = run.tasks.loc[measured, ["delay", "from_cache", "copies", "server",
                                           "cacheable"]].copy()  # fmt: skip
            rec.insert(0, "replication", r)
            records.append(rec)
    return SimulationResult.from_replications(
        pd.DataFrame(rows),
        "mean_delay",
        QUANTITIES,
        confidence=v["confidence"],
        run_length=v["n_slots"],
        run_unit="slots",
        records=pd.concat(records, ignore_index=True) if records else None,
        info={k: v[k] for k in v if k not in ("confidence",)},
    )
