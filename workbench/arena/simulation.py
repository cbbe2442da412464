"""``arena.simulate``: one scenario, one policy, independent replications, the shared result.

Each replication draws its tasks from child r of ``SeedSequence(seed)`` (the shared engine,
:mod:`workbench.output_analysis`; that child is the root of
:func:`workbench.arena.compile.draw_tasks`' streams, so ``draw_tasks(sc, n, copies, uniforms,
replication_seeds(seed, replications)[r])`` gives replication r's tasks), runs the compiled engine
(:func:`workbench.arena.kernels.engine`) and measures the tasks after the warm-up:

- ``mean_delay``, ``p90_delay``, ``p99_delay``: time from a task's arrival at its source
  until its first copy finishes (completed tasks);
- ``loss_share``: tasks lost (every copy reached a full node, or no target);
- ``cloud_share``: tasks completed by the cloud; ``forwarded_share``: tasks completed by a
  node other than their home and the cloud;
- ``copies_per_task``: copies made per task (replicas and hedges; a forward moves a copy);
- ``energy_per_task`` (J): the nodes' energy between the first and the last measured
  arrival (busy power × busy server-time + idle power × idle server-time; a node with
  ``.inf`` servers only counts busy power) over the tasks arrived in it, plus each task's
  transmission energy (input bits × J/bit over its links).

The frame has, per replication, every quantity plus ``utilisation:<node>`` (busy servers /
servers; the mean number busy for ``.inf`` servers) and ``power:<node>`` (W).
"""

from __future__ import annotations

import inspect
import math
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit, types

from workbench.arena.compile import check_run, compile_scenario, draw_tasks
from workbench.arena.kernels import BIG, Policy, engine
from workbench.arena.params import RUN, ArenaParams
from workbench.arena.policies import (
    C_DELAY,
    C_QUEUE,
    C_SERVERS,
    C_SPEED,
    C_TRANSMISSION,
    N_PAR,
    SLOTS,
    TABLE,
    USER,
    USER_SIG,
    PolicySpec,
    no_user,
)
from workbench.arena.scenario import Scenario, ScenarioError, load_scenario, scenario_from_dict
from workbench.output_analysis import Replication, finish, replicate
from workbench.params import Param, takes
from workbench.precision import precision_keywords, to_precision
from workbench.results import SimulationResult
from workbench.validation import (
    ParameterError,
    check_bool,
    check_choice,
    check_int,
    check_real,
    refusal,
)

__all__ = [
    "simulate",
    "simulate_to_precision",
    "POLICIES",
    "PolicySpec",
    "PolicyError",
    "UserPolicy",
    "policy",
    "QUANTITIES",
    "HeavyTailError",
    "heavy_tail_notes",
]

QUANTITIES = (
    "mean_delay",
    "p90_delay",
    "p99_delay",
    "loss_share",
    "cloud_share",
    "forwarded_share",
    "copies_per_task",
    "energy_per_task",
)
_SHARES = ("loss_share", "cloud_share", "forwarded_share")
BOUNDS = {q: ((0.0, 1.0) if q in _SHARES else (0.0, math.inf)) for q in QUANTITIES}


#: the built-in policies (rows of :data:`workbench.arena.policies.TABLE`)
POLICIES: dict[str, PolicySpec] = {s.name: s for s in TABLE if s.code != USER}


class PolicyError(ParameterError):
    """A user policy that answered outside its candidates, raised, or ran out of time; the
    message names the policy, the task and the value."""


class HeavyTailError(ParameterError):
    """A plain mean delay asked of a scenario whose task sizes have an infinite third
    moment: the waiting time's variance is infinite, so the mean's interval does not cover
    it. Refused the way an unstable run is (``heavy_tails='flag'`` returns the numbers,
    flagged, as ``overload='transient'`` does)."""


def heavy_tail_notes(sc: Scenario, func: str, heavy_tails: str = "raise") -> list[str]:
    """Refuse or flag a plain mean of a scenario with sources in :attr:`Scenario.heavy_tails`.

    Parameters
    ----------
    sc : Scenario
        The scenario.
    func : str
        The caller's name, for the message.
    heavy_tails : {"raise", "flag"}
        ``"raise"``: :class:`HeavyTailError` when a source has heavy tails; ``"flag"``:
        return the notes to attach instead.

    Returns
    -------
    list of str
        The notes (empty when no source has heavy tails). The message names each source,
        its law's α and c², the moment that is infinite, and what to do instead.
    """
    heavy_tails = check_choice(heavy_tails, "heavy_tails", func, ("raise", "flag"))
    which = [int(x.split("[")[1].split("]")[0]) for x in sc.heavy_tails]
    if not which:
        return []
    said = []
    for k in which:
        law = sc.workload[k].size
        said.append(
            f"workload[{k}] (source {sc.workload[k].source!r}) has Pareto sizes with alpha = "
            f"{law.alpha:g} <= 3 (mean {law.moment(1):.4g}, c² = {law.cv2:.3g}): E[S³] is "
            "infinite"
        )
    law = sc.workload[which[0]].size
    instead = "lognormal" if law.cv2 < 1 else "hyperexponential"
    why = (
        f"scenario {sc.name!r}: {'; '.join(said)}. The waiting time's variance is then "
        "infinite, so a plain mean delay converges slowly and its 95 % interval mostly "
        "misses it (benchmarks/arena_coverage.py)"
    )
    if heavy_tails == "raise":
        raise HeavyTailError(
            f"{func}: {why}. Give the sizes a law of the same mean and c² with every moment "
            f"finite, e.g. {{dist: {instead}, mean: {law.moment(1):.4g}, scv: "
            f"{law.cv2:.3g}}} (lognormal: any c²; hyperexponential: c² >= 1), or pass "
            "heavy_tails='flag' for the numbers with the mean flagged; the quantiles "
            "p90_delay and p99_delay keep their meaning."
        )
    return [
        f"heavy tails: {why}; read the quantiles p90_delay and p99_delay, not the mean's interval"
    ]


#: the older user signature, decide(queue, servers, speed, delay, u) -> index
_LEGACY_SIG = types.int64(
    types.float64[:], types.float64[:], types.float64[:], types.float64[:], types.float64
)


def _legacy(inner):
    """The new signature around an older five-argument decision function (compiled per
    session like the user's own function: a closure over it has nothing to cache)."""

    def decide(task, cand, state, par, u, out):
        delay = cand[C_DELAY] + cand[C_TRANSMISSION]
        out[0] = inner(cand[C_QUEUE], cand[C_SERVERS], cand[C_SPEED], delay, u[0])
        return 1

    return njit(USER_SIG, boundscheck=True)(decide)


def _compile(func, name: str):
    """``func`` (a plain function or a numba-compiled one) compiled to
    :data:`workbench.arena.policies.USER_SIG` with bounds checks, or a ParameterError
    naming it."""
    py = getattr(func, "py_func", func)
    if not callable(py) or not hasattr(py, "__code__"):
        raise ParameterError(
            f"The 'decide' parameter of UserPolicy {name!r} must be a Python function. "
            f"Got {func!r}."
        )
    nargs = py.__code__.co_argcount
    if nargs not in (5, 6):
        raise ParameterError(
            f"policy {name!r}: {py.__name__} must take (task, cand, state, par, u, out) (or "
            f"the older (queue, servers, speed, delay, u)); it takes {nargs} arguments."
        )
    want = (
        "(task, cand, state, par, u, out)" if nargs == 6 else ("(queue, servers, speed, delay, u)")
    )
    try:
        if nargs == 6:
            return njit(USER_SIG, boundscheck=True)(py)
        return _legacy(njit(_LEGACY_SIG, boundscheck=True)(py))
    except Exception as exc:  # noqa: BLE001 - numba's typing error, said plainly
        raise ParameterError(
            f"policy {name!r}: {py.__name__} does not compile as decide{want} -> int with the "
            f"arena's arrays (see workbench.arena.policies): {str(exc)[:300]}"
        ) from None


def _compiled_user(decide) -> bool:
    sigs = getattr(decide, "signatures", None)
    return bool(sigs) and tuple(USER_SIG.args) in [tuple(x) for x in sigs]


@dataclass(frozen=True)
class UserPolicy:
    """Your own policy (made by :func:`policy`).

    Parameters
    ----------
    name : str
        Its name, a Python identifier.
    decide : callable
        Its decision function (:mod:`workbench.arena.policies`' docstring); a plain or
        numba-compiled function is compiled here with bounds checks, or refused by name.
    params : tuple of Param
        Its declared parameters (real or int rows), passed as ``par`` in this order.
    state : int
        The length of its own ``state`` array (0 to 10**6).
    copies : int
        The most targets it may return (1 to 64).
    uniforms : int
        The uniforms it draws per task (1 to 64).
    """

    name: str
    decide: object
    params: tuple = ()
    state: int = 0
    copies: int = 1
    uniforms: int = 2

    def __post_init__(self):
        f = "UserPolicy"
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ParameterError(
                f"The 'name' parameter of {f} must be a Python identifier. Got {self.name!r}."
            )
        for key, lo, hi in (("state", 0, 10**6), ("copies", 1, 64), ("uniforms", 1, 64)):
            object.__setattr__(self, key, check_int(getattr(self, key), key, f, lo, hi))
        params = tuple(self.params) if isinstance(self.params, (tuple, list)) else None
        if params is None or not all(
            isinstance(p, Param) and p.kind in ("real", "int") for p in params
        ):
            raise ParameterError(
                f"The 'params' parameter of {f} must be a tuple of real or int Param rows. "
                f"Got {self.params!r}."
            )
        object.__setattr__(self, "params", params)
        if not _compiled_user(self.decide):
            object.__setattr__(self, "decide", _compile(self.decide, self.name))


def _declared(params, name: str) -> tuple:
    """``{"alpha": (low, high, default), ...}`` or ``Param`` rows, as Param rows."""
    if params is None:
        return ()
    if not isinstance(params, dict):
        raise refusal(
            "policy",
            "params",
            "a dict name -> (low, high, default) or Param",
            got=f"{type(params).__name__}",
        )
    # a policy's parameters are keywords of the runs: none may be one of theirs, nor a row
    # of the table (the runs validate those by the row)
    reserved = set(inspect.signature(simulate).parameters) | set(ArenaParams.model_fields)
    reserved |= set(inspect.signature(simulate_to_precision).parameters)
    reserved -= {"policy_params"}
    out = []
    for key, spec in params.items():
        if not isinstance(key, str) or not key.isidentifier() or key in reserved:
            raise ParameterError(
                f"policy {name!r}: parameter name {key!r} must be an identifier other than "
                f"{sorted(reserved)}."
            )
        if isinstance(spec, Param):
            out.append(spec)
            continue
        if not (isinstance(spec, tuple) and len(spec) == 3):
            raise ParameterError(
                f"policy {name!r}: parameter {key!r} must be (low, high, default) or a Param. "
                f"Got {spec!r}."
            )
        lo, hi, default = spec
        kind = (
            "int" if all(isinstance(x, int) and not isinstance(x, bool) for x in spec) else ("real")
        )
        try:
            row = Param(
                key,
                key,
                f"parameter of policy {name}",
                kind=kind,
                low=lo,
                high=hi,
                default=default,
                source="choice",
            )
            row.check(default, f"policy {name!r}")
        except (ParameterError, ValueError, TypeError) as exc:
            raise ParameterError(f"policy {name!r}: parameter {key!r}: {exc}") from None
        out.append(row)
    return tuple(out)


def policy(
    func=None,
    *,
    name: str | None = None,
    params=None,
    state: int = 0,
    copies: int = 1,
    uniforms: int = 2,
):
    """Make a policy of your own from a decision function (usable as ``@arena.policy`` or
    ``@arena.policy(params=..., state=...)``).

    ``func(task, cand, state, par, u, out) -> int`` (the arrays of
    :mod:`workbench.arena.policies`' docstring) writes the chosen candidates' indices into
    ``out`` and returns how many; the older ``func(queue, servers, speed, delay, u) ->
    index`` is accepted too. ``params``: ``{"name": (low, high, default)}`` (or ``Param``
    rows), passed to :func:`simulate` as keywords and to ``func`` as ``par`` in this order;
    ``state``: the length of ``func``'s own array; ``copies``: the most targets it may
    return; ``uniforms``: the length of ``u``. It is compiled with numba, with bounds
    checks, and runs inside the compiled engine.

    Parameters
    ----------
    func : callable, optional
        The decision function (None: return a decorator).
    name : str, optional
        The policy's name (default: the function's).
    params : dict, optional
        ``{"name": (low, high, default)}`` or ``Param`` rows.
    state : int
        The length of its own array (0 to 10**6).
    copies : int
        The most targets it may return (1 to 64).
    uniforms : int
        The uniforms it draws per task (1 to 64).

    Returns
    -------
    UserPolicy or callable
        The policy, or (without ``func``) a decorator that makes it.
    """
    f_ = "policy"
    if name is not None and not isinstance(name, str):
        raise ParameterError(f"The 'name' parameter of policy must be a string. Got {name!r}.")
    # checked here, not when the function arrives: @policy(...) with a bad value fails at once
    state = check_int(state, "state", f_, 0, 10**6)
    copies = check_int(copies, "copies", f_, 1, 64)
    uniforms = check_int(uniforms, "uniforms", f_, 1, 64)
    _declared(params, name or "user_policy")  # refused now too; named by the label below

    def wrap(f):
        py = getattr(f, "py_func", f)
        label = getattr(py, "__name__", "")
        label = name or (label if label.isidentifier() else "user_policy")
        return UserPolicy(label, f, _declared(params, label), state, copies, uniforms)

    return wrap if func is None else wrap(func)


def as_scenario(scenario, func: str) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return scenario_from_dict(scenario)
    if isinstance(scenario, (str, Path)):
        return load_scenario(scenario)
    raise refusal(
        func, "scenario", "a Scenario, a dict or a file path", got=f"{type(scenario).__name__}"
    )


class Chosen(NamedTuple):
    """A policy resolved for the engine: its code, the built-in parameters, copies ``M``,
    uniforms ``R``, its name, and a user policy's function, parameters and state length."""

    code: int
    par: np.ndarray
    copies: int
    uniforms: int
    name: str
    user: object = no_user
    upar: np.ndarray = np.zeros(1)
    state: int = 0


def _policy(policy, params: dict, func: str, p: ArenaParams | None = None) -> Chosen:
    """``policy`` resolved for the engine. ``params``: the policy parameters given (a
    built-in policy's are rows of the table, validated at the door; a user policy's are
    checked here by its own rows); ``p``: where a built-in policy reads the rest (the table's
    defaults when None)."""
    user = isinstance(policy, UserPolicy)
    name = policy.name if user else check_choice(policy, "policy", func, tuple(POLICIES))
    known = [p.name for p in policy.params] if user else list(POLICIES[name].params)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ParameterError(
            f"{func}: policy {name!r} takes the parameters {known}; got unknown {unknown}"
        )
    if user:
        values = [float(p.check(params.get(p.name, p.default), func)) for p in policy.params]
        return Chosen(
            USER,
            np.zeros(N_PAR),
            policy.copies,
            max(2, policy.uniforms),
            policy.name,
            policy.decide,
            np.array(values or [0.0]),
            policy.state,
        )
    spec = POLICIES[name]
    par = np.zeros(N_PAR)
    p = ArenaParams() if p is None else p
    values = {x: getattr(p, x) for x in spec.params} | params
    for x, v in values.items():
        par[SLOTS[x]] = float(v == "start") if x == "cancel" else v
    if name == "red" and par[SLOTS["min_th"]] >= par[SLOTS["max_th"]]:
        raise ParameterError(f"{func}: red needs min_th < max_th; got {values}")

    def count(x):
        return int(par[SLOTS[x]]) if isinstance(x, str) else x

    return Chosen(spec.code, par, count(spec.copies), max(2, count(spec.uniforms)), name)


def _engine_call(net, tk, pol, warm, user, name, timeout):
    """The engine. A user policy runs in a thread this one waits for, so that Ctrl-C (or
    Jupyter's interrupt) and ``timeout`` end the wait even when the policy never returns."""
    if user is no_user:
        return engine()(net, tk, pol, warm, user)
    box = {}

    def work():
        try:
            box["out"] = engine()(net, tk, pol, warm, user)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["exc"] = exc

    worker = threading.Thread(target=work, name=f"arena policy {name}", daemon=True)
    t0 = time.monotonic()
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
        if timeout is not None and worker.is_alive() and time.monotonic() - t0 > timeout:
            raise PolicyError(
                f"simulate: policy {name!r} did not finish a replication within timeout="
                f"{timeout:g} s (it was deciding task {int(pol.err[1])}). Its compiled call "
                "cannot be ended from here and keeps a core busy until this process ends: "
                "restart the kernel."
            )
    i = int(pol.err[1])
    where = f"task {i} (arrived at node {int(tk.node[i])} at time {tk.t[i]:.6g})"
    if "exc" in box:
        exc = box["exc"]
        raise PolicyError(
            f"simulate: policy {name!r} raised {type(exc).__name__} ({exc}) while deciding "
            f"{where}: a read or write past one of its arrays?"
        ) from None
    kind, value, limit = int(pol.err[0]), int(pol.err[2]), int(pol.err[3])
    if kind == 1:
        raise PolicyError(
            f"simulate: policy {name!r} returned {value} for {where}; it must write 1 to "
            f"{limit} candidate indices into out and return how many (declare copies=... "
            "for more)."
        )
    if kind == 2:
        raise PolicyError(
            f"simulate: policy {name!r} chose candidate {value} for {where}; the task had "
            f"{limit} candidates, indices 0 to {limit - 1} (out holds -1 where the policy "
            "wrote nothing)."
        )
    return box["out"]


def _one(sc, net, ch: Chosen, n, warm, timeout, want_records, seed_seq, index):
    # the replication's SeedSequence itself is the root of draw_tasks' streams, so
    # draw_tasks(sc, n, ..., replication_seeds(seed, R)[r]) gives replication r's tasks
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))
    tk = draw_tasks(sc, n, ch.copies, ch.uniforms, seed_seq)
    out = _engine_call(net, tk, pol, warm, ch.user, ch.name, timeout)
    finish_t, where, ncopies, hops, energy_tx, area, span, _, start = out
    keep = slice(warm, n)
    delay = (finish_t - tk.t)[keep]
    done = where[keep] >= 0
    d = delay[done]
    home = net.home[tk.node[keep]]
    w = where[keep]
    servers = net.servers.astype(float)
    finite = net.servers < BIG
    idle = np.where(finite, servers * span - area, 0.0)
    energy_nodes = float(np.sum(net.power_busy * area + net.power_idle * idle))
    arrived = max(n - 1 - warm, 1)
    row = {
        "mean_delay": float(d.mean()) if d.size else math.nan,
        "p90_delay": float(np.quantile(d, 0.9)) if d.size else math.nan,
        "p99_delay": float(np.quantile(d, 0.99)) if d.size else math.nan,
        "loss_share": float(1.0 - done.mean()),
        "cloud_share": float(np.mean(w == net.cloud)) if net.cloud >= 0 else 0.0,
        "forwarded_share": float(np.mean(done & (w != home) & (w != net.cloud))),
        "copies_per_task": float(ncopies[keep].mean()),
        "energy_per_task": energy_nodes / arrived + float(energy_tx[keep].mean()),
        "measured": int(done.sum()),
    }
    for k, node in enumerate(sc.nodes):
        busy = area[k] / span if span > 0 else math.nan
        row[f"utilisation:{node.id}"] = busy / servers[k] if finite[k] and servers[k] > 0 else busy
        p = net.power_busy[k] * area[k] + net.power_idle[k] * idle[k]
        row[f"power:{node.id}"] = p / span if span > 0 else math.nan
    series = (finish_t - tk.t)[where >= 0]
    records = None
    if want_records:
        records = task_records(sc, tk, keep, finish_t, where, ncopies, hops, energy_tx, start)
        records.insert(0, "replication", index)
    return Replication(row, series, warmup=int(np.sum(where[:warm] >= 0)), records=records)


def task_records(sc, tk, keep, finish_t, where, ncopies, hops, energy_tx, start):
    """One row per measured task (see :func:`simulate`)."""
    ids = np.array([node.id for node in sc.nodes] + [""], dtype=object)
    w = where[keep]
    fin = finish_t[keep]
    st = start[keep]
    outcome = np.where(w < 0, "lost", np.where(np.isnan(st), "cached", "served"))
    return pd.DataFrame(
        {
            "task": np.arange(keep.start, keep.stop),
            "arrival": tk.t[keep],
            "source": ids[tk.node[keep]],
            "type": tk.kind[keep],
            "node": ids[w],  # "" when lost (index -1: the last entry)
            "copies": ncopies[keep],
            "hops": hops[keep],
            "start": st,
            "finish": fin,
            "delay": fin - tk.t[keep],
            "energy": energy_tx[keep],
            "outcome": outcome,
        }
    )


def checked_net(sc: Scenario, f: str):
    """The scenario's arrays, refused by name where the engine would compute garbage: a
    cloud that some source cannot reach (it would be reached in no time, for NaN energy)."""
    try:
        net = compile_scenario(sc)
    except OverflowError as exc:
        raise ScenarioError(
            f"{f}: scenario {sc.name!r} has a task size law whose moments overflow a float "
            f"({exc}); give sizes of a physical scale."
        ) from None
    # what a user policy may see: sizes where the scenario declares them known (deadlines
    # come with each task: draw_tasks)
    known = [int(w.size_known) for w in sc.workload]
    return net._replace(size_known=np.array(known, dtype=np.int64))


def _prepare(f, p: ArenaParams, scenario, policy, given, replications, heavy_tails="raise"):
    """Check a run against its scenario and build :func:`finish`'s description (the run's
    keywords were validated at the door, in ``p``)."""
    sc = as_scenario(scenario, f)
    notes = heavy_tail_notes(sc, f, heavy_tails)
    chosen = _policy(policy, given, f, p)
    net = checked_net(sc, f)
    check_run(sc, p.requests, chosen.copies, chosen.uniforms, f, replications=replications)
    if chosen.name == "cloud" and net.cloud < 0:
        raise ParameterError(f"{f}: policy 'cloud' needs a node with role cloud in {sc.name!r}")
    warm = int(p.warmup * p.requests + 1e-9)
    described = dict(
        func=f,
        metric="mean_delay",
        quantities=QUANTITIES,
        confidence=p.confidence,
        run_length=p.requests,
        run_unit="requests",
        bounds=BOUNDS,
        unit="s",
        count="measured",
        notes=notes,
        info={
            "scenario": sc.name,
            "policy": chosen.name,
            "warmup": warm,
            "params": given,
            "heavy_tails": sc.heavy_tails,
        },
        empty_what="tasks completed after the warm-up",
        empty_hint="Every measured task was lost: give the nodes room or a cloud.",
    )
    return partial(_one, sc, net, chosen, p.requests, warm), described


@takes(ArenaParams, "scenario", "policy", *RUN)
def simulate(
    p,
    /,
    *,
    scenario,
    policy,
    overload: str = "raise",
    records: bool = False,
    timeout: float | None = None,
    heavy_tails: str = "raise",
    **policy_params,
) -> SimulationResult:
    """Simulate a policy on a scenario: the module docstring's quantities with Student-t
    intervals over independent replications.

    Parameters
    ----------
    scenario : Scenario, dict, str or path
        A :class:`Scenario`, its dict, or a file path (or a shipped name, see
        :func:`workbench.arena.scenario.shipped`).
    policy : str or UserPolicy
        A name of :data:`POLICIES` or a :class:`UserPolicy` (:func:`policy`).
    replications : int
        Independent replications; replication r runs on child r of ``SeedSequence(seed)``.
    seed : int
        The root seed (>= 0): same seed, same numbers.
    overload : {"raise", "transient"}
        ``"raise"``: :class:`workbench.validation.UnstableRegimeError` when the delays are
        not stationary; ``"transient"``: the finite-horizon numbers, flagged.
    records : bool
        Also return one row per measured task (below).
    timeout : float, optional
        Seconds a user policy's replication may take (None: no limit; Ctrl-C stops the
        wait either way).
    heavy_tails : {"raise", "flag"}
        ``"raise"``: :class:`HeavyTailError` before any run when a source's task size has an
        infinite third moment (:attr:`Scenario.heavy_tails`: the mean delay's interval
        would not cover it); ``"flag"``: the numbers, with a note (``info["heavy_tails"]``
        names the sources).
    **policy_params
        The policy's parameters (``m=3``), rows of :data:`~workbench.arena.params.PARAMS`
        or a user policy's declared ones.

    Returns
    -------
    SimulationResult
        The shared result: each quantity's mean and interval, ``frame`` (one row per
        replication with ``utilisation:<node>`` and ``power:<node>``), the stationarity
        verdict. With ``records=True``, ``records`` has one row per measured task of every
        replication: ``replication``, ``task``, ``arrival``, ``source`` (node id), ``type``,
        ``node`` (the node that completed it, ``""`` if lost), ``copies``, ``hops``,
        ``start`` (its completing copy's start of service), ``finish``, ``delay``,
        ``energy`` (its transmission energy, J; the nodes' busy and idle energy is shared
        and only in the summary) and ``outcome`` (``served``, ``cached``: from a cache, no
        work, or ``lost``).
    """
    f = "simulate"
    one, described = _prepare(f, p, scenario, policy, policy_params, p.replications, heavy_tails)
    if timeout is not None:
        timeout = check_real(timeout, "timeout", f, 0.0, None, low_open=True)
    one = partial(one, timeout, check_bool(records, "records", f))
    overload = check_choice(overload, "overload", f, ("raise", "transient"))
    rs = replicate(one, replications=p.replications, seed=p.seed)
    return finish(rs, overload=overload, **described)


@takes(ArenaParams, "scenario", "policy", "requests", "seed", "warmup", "confidence")
@precision_keywords(unit="s", overload="keyword")
def simulate_to_precision(
    p, /, *, scenario, policy, target, overload: str = "raise", **policy_params
) -> SimulationResult:
    """:func:`simulate` with as many replications as the mean delay's interval needs.

    Adds replications (the same streams as :func:`simulate`'s, then fresh ones) until the
    mean delay's interval is as narrow as asked: the shared loop
    :func:`workbench.precision.to_precision`, with a progress bar. A non-stationary run
    raises ``UnstableRegimeError`` at once, a heavy-tailed scenario :class:`HeavyTailError`
    (its interval has no precision to reach); a run that reaches the cap is returned with
    ``converged=False`` and a note.

    Parameters
    ----------
    scenario, policy, requests, seed, warmup, confidence, **policy_params
        As :func:`simulate` takes them.
    overload : {"raise"}
        Only ``"raise"``: a transient run has no precision to reach.

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, with ``converged`` and the replications it took.
    """
    f = "simulate_to_precision"
    one, described = _prepare(f, p, scenario, policy, policy_params, 2)
    described.pop("func")
    return to_precision(partial(one, None, False), func=f, target=target, seed=p.seed, **described)
