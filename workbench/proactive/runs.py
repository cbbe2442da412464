"""One replication's pieces: the tasks, and one run of the jitted slot kernel on them.

:func:`draw_tasks` draws Poisson arrivals per user (types from its Zipf profile, sizes
Exp(L̄)); :func:`run_scenario` runs the slot kernel of :mod:`workbench.proactive.kernels`
on a drawn scenario, its training and the tasks, and returns one row per task. The
replications, warm-up, output analysis and intervals are
:mod:`workbench.proactive.simulation`'s.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from workbench.params import takes
from workbench.proactive import kernels as K
from workbench.proactive.model import (
    Scenario,
    Training,
    check_scenario,
    check_training,
    interference_free_rates,
)
from workbench.proactive.params import (
    MAX_QUEUE,
    MAX_TASKS,
    MAX_WORK,
    PARAMS,
    POLICY_CODES,
    P2Params,
)
from workbench.validation import (
    ParameterError,
    UnstableRegimeError,
    check_int,
    check_real,
    check_seed,
    refusal,
)

__all__ = ["Tasks", "Run", "draw_tasks", "check_tasks", "run_scenario"]

IGNORED_READINGS = {
    "proposed": frozenset(),
    "BL1": frozenset({"cache_start"}),
    "BL2": frozenset({"cache_aware", "cache_start"}),
    "BL3": frozenset({"cache_aware", "cache_start", "hedge_check", "hedge_upload"}),
}
"""The readings a scheme's run does not depend on: the kernel reads ``cache_aware`` only
for a caching scheme's hits (proposed, BL1), ``cache_start`` only for the proposed scheme's
popularity caches (BL1's LRU caches always start empty), ``hedge_check`` and
``hedge_upload`` only in the hedge rounds (BL3 never hedges). Runs that differ only in
these are the same run, number for number (tests/test_proactive_simulation.py), so the
claims and the atlas compute them once."""


class Tasks(NamedTuple):
    """The tasks of one replication, grouped by user (arrival order within a user).

    Parameters
    ----------
    arrival : numpy.ndarray of float
        Arrival times [s], sorted within each user.
    user : numpy.ndarray of int
        The requesting user of every task.
    task_type : numpy.ndarray of int
        The task type, in [0, A).
    bits : numpy.ndarray of float
        The task's data size [bit].
    user_start : numpy.ndarray of int, shape (U + 1,)
        User u's tasks are rows ``user_start[u]`` to ``user_start[u + 1] - 1``.
    """

    arrival: np.ndarray
    user: np.ndarray
    task_type: np.ndarray
    bits: np.ndarray
    user_start: np.ndarray


class Run(NamedTuple):
    """Outcome of :func:`run_scenario`: one row per task and the named counters.

    Parameters
    ----------
    tasks : pandas.DataFrame
        One row per task: user, task_type, cacheable, bits, arrival, done, delay [s],
        server, from_cache, copies, cache_seq, cache_hit, upload_start, upload_end.
    counters : dict
        The slot kernel's counts (tasks, tasks_done, from_cache, hedged_tasks, copies,
        withdrawn, uploads, slots_run, status, pending_hits, matched_requests,
        unmatched_requests).
    """

    tasks: pd.DataFrame
    counters: dict


@takes(P2Params, "scenario", "lam", "mean_bits", "horizon", "seed", positional=True)
def draw_tasks(p, scenario: Scenario, horizon=None) -> Tasks:
    """Poisson arrivals per user on [0, horizon), types from its profile, Exp(L̄) sizes.

    Parameters
    ----------
    scenario : Scenario
        From :func:`~workbench.proactive.model.make_scenario`.
    lam, mean_bits : float
        λ_u [1/s, per user] and L̄ [bit].
    horizon : float or None
        Length of the arrival period [s], >= 0; λ_u · U · horizon tasks on average, at most
        ``MAX_TASKS``. None: the table's run, slots · δ.
    seed : int
        Same seed, same tasks.

    Returns
    -------
    Tasks
        Grouped by user, arrival order within a user.
    """
    func = "draw_tasks"
    check_scenario(func, scenario)
    if horizon is None:
        horizon = p.slots * p.slot
    horizon = check_real(horizon, "horizon", func, 0.0, 1e9)
    lam = p.lam
    expected = lam * horizon * scenario.profile_of_user.size
    if expected > MAX_TASKS:
        raise ParameterError(
            f"The 'horizon' parameter of {func} must keep λ_u · U · horizon below "
            f"{MAX_TASKS:,} tasks (memory bound). Got about {expected:,.0f} tasks instead."
        )
    gen = np.random.default_rng(np.random.SeedSequence([p.seed, 2]))
    n_users = scenario.profile_of_user.size
    counts = gen.poisson(lam * horizon, size=n_users)
    total = int(counts.sum())
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
    bits = gen.exponential(p.mean_bits, size=total)
    return Tasks(arrival, user, types, bits, starts)


def check_tasks(func: str, scenario: Scenario, tasks) -> None:
    """``tasks`` must be a :class:`Tasks` of ``scenario``: grouped by user, arrivals finite,
    >= 0 and sorted within each user, types inside the scenario's A, sizes finite >= 0.

    Parameters
    ----------
    func : str
        The public function whose error it is (named in the message).
    scenario : Scenario
        The network the tasks were drawn on.
    tasks : Tasks
        The value to check.

    Raises
    ------
    ParameterError
        Naming ``func``, the ``tasks`` parameter and what is wrong with it.
    """

    def fail(why):
        raise ParameterError(
            f"The 'tasks' parameter of {func} must be the Tasks of this scenario from "
            f"draw_tasks ({why})."
        )

    if not isinstance(tasks, Tasks):
        fail(f"got {type(tasks).__name__}")
    n_users = scenario.profile_of_user.size
    arr = [np.asarray(x) for x in tasks]
    n = arr[0].shape[0] if arr[0].ndim == 1 else -1
    if any(x.ndim != 1 or x.shape[0] != n for x in arr[:4]):
        fail("arrival, user, task_type and bits must be 1-D arrays of one length")
    arrival, user, types, bits, start = arr
    if start.shape != (n_users + 1,) or not np.issubdtype(start.dtype, np.integer):
        fail(f"user_start must hold U + 1 = {n_users + 1} ints")
    if not (np.issubdtype(user.dtype, np.integer) and np.issubdtype(types.dtype, np.integer)):
        fail("user and task_type must be ints")
    if arrival.dtype.kind != "f" or bits.dtype.kind != "f":
        fail("arrival and bits must be floats")
    if start[0] != 0 or start[-1] != n or np.any(np.diff(start) < 0):
        fail("user_start must rise from 0 to the number of tasks")
    if not np.array_equal(user, np.repeat(np.arange(n_users), np.diff(start))):
        fail("tasks must be grouped by user as user_start says")
    if n and (types.min() < 0 or types.max() >= scenario.cacheable.size):
        fail(f"task types must lie in [0, {scenario.cacheable.size - 1}]")
    if not (np.all(np.isfinite(arrival)) and np.all(arrival >= 0)):
        fail("arrival times must be finite and >= 0")
    if not (np.all(np.isfinite(bits)) and np.all(bits >= 0)):
        fail("task sizes must be finite and >= 0")
    same_user = np.diff(user) == 0
    if np.any(np.diff(arrival)[same_user] < 0):
        fail("arrivals must be sorted within each user")


def _xorshift_state(seed: int) -> np.uint64:
    """A nonzero 64-bit generator state from a seed (splitmix64 finaliser)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return np.uint64((z ^ (z >> 31)) or 1)


RUN_KEYS = (
    "slots",
    "fading",
    "cpu",
    "kappa",
    "storage",
    "tau_ep",
    "budget",
    "x_max",
    "slot",
    "bandwidth",
    "cache_aware",
    "hedge_check",
    "cache_start",
    "hedge_upload",
)
"""The rows a run of the slot kernel reads (:func:`run_scenario`), in its order."""


@takes(P2Params, "policy", "scenario", "training", "tasks", *RUN_KEYS, positional=True)
def run_scenario(
    p,
    policy,
    scenario: Scenario,
    training: Training,
    tasks: Tasks,
    *,
    fading_seed,
    max_drain_slots=None,
    caller: str = "run_scenario",
) -> Run:
    """Run the slot kernel on one drawn scenario; one row per task.

    Parameters
    ----------
    policy : {"proposed", "BL1", "BL2", "BL3"}
        The scheme.
    scenario, training, tasks
        Of one network: :func:`~workbench.proactive.model.make_scenario`,
        :func:`~workbench.proactive.model.train` and :func:`draw_tasks` (same U, E and A;
        the training's attachment inside the coverage).
    slots : int
        Slots with arrivals: every task must arrive in them (no warm-up is cut here). The
        other rows of :data:`RUN_KEYS` are the model's.
    fading_seed : int
        The fading draws' seed.
    max_drain_slots : int or None
        Slots the run may take after the last arrival (default max(2000, slots)).
    caller : str
        The function a failed run's error names (:func:`~workbench.proactive.simulate`
        passes its own name: the user called it).

    Returns
    -------
    Run
        One row per task (arrival, done, delay, server, from_cache, copies, uploads ...)
        and the kernel's named counters.

    Raises
    ------
    UnstableRegimeError
        If a cloudlet's queue exceeds ``MAX_QUEUE`` copies, or the tasks are not all done
        ``max_drain_slots`` slots after the last arrival.
    """
    func = "run_scenario"
    policy = PARAMS["policy"].check(policy, func)
    check_scenario(func, scenario)
    check_training(func, scenario, training)
    check_tasks(func, scenario, tasks)
    fading_seed = check_seed(fading_seed, func, "fading_seed")
    if not isinstance(caller, str):
        raise refusal(func, "caller", "a function's name (str)", caller)
    if max_drain_slots is not None:
        max_drain_slots = check_int(max_drain_slots, "max_drain_slots", func, 0, 50_000_000)
    slots = p.slots
    n_users, n_cloudlets = scenario.path_gain.shape
    if (slots + (max_drain_slots or 0)) * n_users * n_cloudlets > MAX_WORK:
        raise ParameterError(
            f"The 'slots' parameter of {func} must keep (slots + max_drain_slots) × U × E "
            f"at most {MAX_WORK:.0e} (run-time bound). Got slots = {slots!r} instead."
        )
    if tasks.arrival.size and tasks.arrival.max() >= slots * p.slot:
        raise ParameterError(
            f"The 'tasks' parameter of {func} must arrive within the slots · δ = "
            f"{slots * p.slot:.6g} s simulated. Got arrivals up to "
            f"{tasks.arrival.max():.6g} s instead."
        )
    drain = max(2000, slots) if max_drain_slots is None else int(max_drain_slots)
    store = np.full(n_cloudlets, p.storage, dtype=np.int64)
    radio = K.Radio(
        path_gain=scenario.path_gain,
        covered=scenario.covered,
        power=np.full(n_users, scenario.power_w),
        noise_w=scenario.noise_w,
        bandwidth=float(p.bandwidth),
        fading=bool(p.fading),
        fading_seed=_xorshift_state(fading_seed),
        rbar0=interference_free_rates(p, scenario=scenario),
    )
    cloudlets = K.Cloudlets(
        cpu=np.full(n_cloudlets, float(p.cpu)),
        kappa=float(p.kappa),
        tau_ep=float(p.tau_ep),
        budget=float(p.budget),
        storage=store,
        cache_rank=training.cache_rank,
        cacheable=scenario.cacheable,
    )
    stream = K.TaskStream(tasks.arrival, tasks.user, tasks.task_type, tasks.bits, tasks.user_start)
    schedule = K.Schedule(
        scheme=POLICY_CODES[policy],
        slot=float(p.slot),
        n_slots=int(slots),
        max_drain_slots=drain,
        x_max=int(p.x_max),
        max_queue=MAX_QUEUE,
        cache_aware=bool(p.cache_aware),
        hedge_check=bool(p.hedge_check),
        warm_caches=p.cache_start == "popular",
        least_wait=p.hedge_upload == "least_wait",
    )
    out = K.simulate_slots_kernel(radio, cloudlets, stream, schedule)
    counters = {name.lower(): int(out.counters[getattr(K, name)]) for name in K.COUNTERS}
    if counters["status"] != K.OK:
        why = (
            f"a cloudlet queued more than {MAX_QUEUE} copies"
            if counters["status"] == K.QUEUE_OVERFLOW
            else f"{counters['tasks'] - counters['tasks_done']} tasks were still unfinished "
            f"{drain} slots after the last arrival"
        )
        raise UnstableRegimeError(
            f"The 'lam' parameter of {caller} must give a load the cloudlets can "
            f"serve: {why} (policy {policy}; work bounded by the queue and drain limits). "
            f"Lower λ_u or L̄, or add cloudlets."
        )
    per_task = out._asdict()
    del per_task["counters"]
    frame = pd.DataFrame(
        {
            "user": tasks.user,
            "task_type": tasks.task_type,
            "cacheable": scenario.cacheable[tasks.task_type],
            "bits": tasks.bits,
            "arrival": tasks.arrival,
            **per_task,
        }
    )
    frame.insert(frame.columns.get_loc("done") + 1, "delay", out.done - tasks.arrival)
    return Run(frame, counters)
