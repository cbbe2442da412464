"""``arena.simulate``: one scenario, one policy, independent replications, the shared result.

Each replication draws its tasks from child r of ``SeedSequence(seed)`` (the shared engine,
:mod:`workbench.output_analysis`), runs the compiled engine
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

import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from numba import njit

from workbench.arena.compile import compile_scenario, draw_tasks
from workbench.arena.kernels import BIG, USER_SIG, Policy, engine
from workbench.arena.params import MAX_TOTAL, PARAMS
from workbench.arena.policies import N_PAR, no_user
from workbench.arena.scenario import Scenario, ScenarioError, load_scenario, scenario_from_dict
from workbench.output_analysis import Replication, finish, replicate
from workbench.precision import precision_target, to_precision
from workbench.results import SimulationResult
from workbench.validation import ParameterError, check_choice

__all__ = [
    "simulate", "simulate_to_precision", "POLICIES", "PolicySpec", "UserPolicy", "policy",
    "QUANTITIES", "run_once",
]  # fmt: skip

QUANTITIES = (
    "mean_delay", "p90_delay", "p99_delay", "loss_share", "cloud_share", "forwarded_share",
    "copies_per_task", "energy_per_task",
)  # fmt: skip
_SHARES = ("loss_share", "cloud_share", "forwarded_share")
BOUNDS = {q: ((0.0, 1.0) if q in _SHARES else (0.0, math.inf)) for q in QUANTITIES}


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: its engine code, its parameters (rows of ``PARAMS``), its rule."""

    name: str
    code: int
    params: tuple
    rule: str
    paper: str = ""


POLICIES: dict[str, PolicySpec] = {
    s.name: s
    for s in (
        PolicySpec("local", 0, (), "the task's home node (lost when full)"),
        PolicySpec("cloud", 1, (), "the cloud"),
        PolicySpec("random", 2, (), "a uniform candidate (the node and its neighbours)"),
        PolicySpec("jsq", 3, (), "the candidate with room with the fewest tasks per server"),
        PolicySpec("power_of_d", 4, ("d",), "the least loaded of d random candidates"),
        PolicySpec("threshold", 5, ("theta", "e_max"),
                   "keep if the estimated wait <= θ, else forward (<= e_max), else the cloud",
                   "p1"),
        PolicySpec("overflow", 6, ("p",),
                   "home if room, else with probability p a neighbour with room, else lost",
                   "p3"),
        PolicySpec("replicate", 7, ("m", "cancel"),
                   "m copies on distinct servers, the first to finish (or start) cancels the "
                   "rest; none: cloud", "p4"),
        PolicySpec("red", 8, ("min_th", "max_th", "max_p", "w_q"),
                   "RED on the home's averaged queue decides offloading one tier up", "p5"),
        PolicySpec("hedge_cache", 9, ("cache_size", "deadline"),
                   "popular types from the cache; a second copy when the wait check fails",
                   "p2"),
    )
}  # fmt: skip
_PAR_INDEX = {"p": 0, "theta": 1, "e_max": 2, "m": 3, "d": 4, "min_th": 5, "max_th": 6}
_PAR_INDEX |= {"max_p": 7, "w_q": 8, "cache_size": 9, "deadline": 10, "cancel": 11}


@dataclass(frozen=True)
class UserPolicy:
    """Your own policy, made by :func:`policy`: ``name`` and the compiled ``decide``."""

    name: str
    decide: object
    params: tuple = ()


def policy(func=None, *, name: str | None = None):
    """Make a policy of your own from a decision function (usable as ``@arena.policy``).

    ``func(queue, servers, speed, delay, u) -> int``: four float64 arrays over the deciding
    node's candidates (itself when it serves, its serving neighbours, then the cloud) and a
    uniform ``u``; it returns the index of the chosen candidate (any other value: the task is
    lost). It is compiled with numba (an ``@njit`` function or a plain one) to the signature
    :data:`workbench.arena.kernels.USER_SIG` and runs inside the compiled engine.
    """
    if name is not None and not isinstance(name, str):
        raise ParameterError(f"The 'name' parameter of policy must be a string. Got {name!r}.")

    def wrap(f):
        py = getattr(f, "py_func", f)
        if not callable(py):
            raise ParameterError(f"The 'func' parameter of policy must be a function. Got {f!r}.")
        try:
            compiled = njit(USER_SIG)(py)
        except Exception as exc:  # noqa: BLE001 - numba's typing error, said plainly
            raise ParameterError(
                f"policy: {py.__name__} does not compile as decide(queue, servers, speed, "
                f"delay, u) -> int with float64 arrays and a float: {str(exc)[:300]}"
            ) from None
        return UserPolicy(name or py.__name__, compiled)

    return wrap if func is None else wrap(func)


def _scenario(scenario, func: str) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return scenario_from_dict(scenario)
    if isinstance(scenario, (str, Path)):
        return load_scenario(scenario)
    raise ParameterError(
        f"The 'scenario' parameter of {func} must be a Scenario, a dict or a file path. "
        f"Got {type(scenario).__name__} instead."
    )


def _policy(policy, params: dict, func: str):
    """(code, par array, user function, copies M, uniforms R, spec name)."""
    if isinstance(policy, UserPolicy):
        if params:
            raise ParameterError(f"{func}: a user policy takes no parameters; got {sorted(params)}")
        return 10, np.zeros(N_PAR), policy.decide, 1, 2, policy.name
    name = check_choice(policy, "policy", func, tuple(POLICIES))
    spec = POLICIES[name]
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise ParameterError(
            f"{func}: policy {name!r} takes the parameters {list(spec.params)}; "
            f"got unknown {unknown}"
        )
    par = np.zeros(N_PAR)
    values = {p: PARAMS[p].default for p in spec.params} | params
    for p, v in values.items():
        v = PARAMS[p].check(v, func)
        par[_PAR_INDEX[p]] = float(v == "start") if p == "cancel" else v
    if name == "red" and par[_PAR_INDEX["min_th"]] >= par[_PAR_INDEX["max_th"]]:
        raise ParameterError(f"{func}: red needs min_th < max_th; got {values}")
    copies = (
        int(par[_PAR_INDEX["m"]]) if name == "replicate" else (2 if name == "hedge_cache" else 1)
    )
    uniforms = max(2, int(par[_PAR_INDEX["d"]]))
    return spec.code, par, no_user, copies, uniforms, name


def run_once(
    sc: Scenario, net, pol: Policy, user, n: int, copies: int, uniforms: int, warm: int, rng
):
    """One replication: the tasks and the engine's raw output."""
    tk = draw_tasks(sc, n, copies, uniforms, rng)
    return tk, engine()(net, tk, pol, warm, user)


def _one(sc, net, pol, user, n, copies, uniforms, warm, seed_seq, index):
    rng = np.random.default_rng(seed_seq)
    tk, out = run_once(sc, net, pol, user, n, copies, uniforms, warm, rng)
    finish_t, where, ncopies, _, energy_tx, area, span, _ = out
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
    return Replication(row, series, warmup=int(np.sum(where[:warm] >= 0)))


def _compiled(sc: Scenario, f: str):
    """The scenario's arrays, refused by name where the engine would compute garbage: a
    cloud that some source cannot reach (it would be reached in no time, for NaN energy)."""
    try:
        net = compile_scenario(sc)
    except OverflowError as exc:
        raise ScenarioError(
            f"{f}: scenario {sc.name!r} has a task size law whose moments overflow a float "
            f"({exc}); give sizes of a physical scale."
        ) from None
    if net.cloud >= 0:
        pos = {node.id: k for k, node in enumerate(sc.nodes)}
        for w in sc.workload:
            k = pos[w.source]
            if not np.isfinite(net.delay[k, net.cloud]):
                raise ScenarioError(
                    f"{f}: scenario {sc.name!r}: the cloud {sc.nodes[net.cloud].id!r} has no "
                    f"path from the source {w.source!r}; link it (links: [{{a: "
                    f"{w.source}, b: {sc.nodes[net.cloud].id}, delay: ...}}]) or remove it."
                )
    return net


def _prepare(f, scenario, policy, requests, replications, seed, warmup, confidence,
             policy_params):  # fmt: skip
    """Validate a run and build its replication function and :func:`finish`'s description."""
    sc = _scenario(scenario, f)
    ok = PARAMS.check(f, requests=requests, replications=replications, seed=seed)
    ok |= PARAMS.check(f, confidence=confidence)
    warm_frac = 0.1 if warmup is None else PARAMS["warmup"].check(warmup, f)
    code, par, user, copies, uniforms, pname = _policy(policy, policy_params, f)
    n, reps = ok["requests"], ok["replications"]
    if n * reps > MAX_TOTAL:
        raise ParameterError(
            f"{f}: requests × replications must be at most {MAX_TOTAL:.0e}; got {n * reps:.3g}"
        )
    net = _compiled(sc, f)
    if pname == "cloud" and net.cloud < 0:
        raise ParameterError(f"{f}: policy 'cloud' needs a node with role cloud in {sc.name!r}")
    warm = int(warm_frac * n + 1e-9)
    one = partial(_one, sc, net, Policy(code, par), user, n, copies, uniforms, warm)
    described = dict(
        func=f, metric="mean_delay", quantities=QUANTITIES, confidence=ok["confidence"],
        run_length=n, run_unit="requests", bounds=BOUNDS, unit="s", count="measured",
        info={"scenario": sc.name, "policy": pname, "warmup": warm, "params": policy_params},
        empty_what="tasks completed after the warm-up",
        empty_hint="Every measured task was lost: give the nodes room or a cloud.",
    )  # fmt: skip
    return one, ok, described


def simulate(
    *,
    scenario,
    policy,
    requests: int = 20_000,
    replications: int = 10,
    seed: int = 0,
    overload: str = "raise",
    warmup: float | None = None,
    confidence: float = 0.95,
    **policy_params,
) -> SimulationResult:
    """Simulate ``policy`` on ``scenario``; the quantities of the module docstring with
    Student-t intervals over ``replications`` independent runs of ``requests`` tasks.

    ``scenario``: a :class:`Scenario`, its dict, or a file path (or a shipped name, see
    :func:`workbench.arena.scenario.shipped`). ``policy``: a name of :data:`POLICIES` or a
    :class:`UserPolicy` (:func:`policy`); its parameters as keywords (``m=3``). ``warmup``:
    the fraction of each run's tasks not measured (None: 0.1). ``overload``: ``"raise"``
    (:class:`workbench.validation.UnstableRegimeError` when the delays are not stationary)
    or ``"transient"`` (the finite-horizon numbers, flagged).
    """
    f = "simulate"
    one, ok, described = _prepare(f, scenario, policy, requests, replications, seed, warmup,
                                  confidence, policy_params)  # fmt: skip
    overload = check_choice(overload, "overload", f, ("raise", "transient"))
    rs = replicate(one, replications=ok["replications"], seed=ok["seed"])
    return finish(rs, overload=overload, **described)


def simulate_to_precision(
    *,
    scenario,
    policy,
    rel_half_width=None,
    half_width=None,
    max_replications=None,
    initial=None,
    requests: int = 20_000,
    seed: int = 0,
    overload: str = "raise",
    warmup: float | None = None,
    confidence: float = 0.95,
    progress=True,
    **policy_params,
) -> SimulationResult:
    """:func:`simulate` with as many replications as the mean delay's interval needs.

    Adds replications (the same streams as :func:`simulate`'s, then fresh ones) until the
    mean delay's relative half-width is at most ``rel_half_width`` (0.02 when neither
    target is given) or its absolute half-width at most ``half_width`` [s]: the shared loop
    :func:`workbench.precision.to_precision`, ``initial`` replications first and at most
    ``max_replications`` (the shared table's rows), with a progress bar. A non-stationary
    run raises ``UnstableRegimeError`` at once; a run that reaches the cap is returned with
    ``converged=False`` and a note.
    """
    f = "simulate_to_precision"
    target = precision_target(
        f, rel_half_width=rel_half_width, half_width=half_width,
        max_replications=max_replications, initial=initial, progress=progress, unit="s",
    )  # fmt: skip
    if check_choice(overload, "overload", f, ("raise", "transient")) != "raise":
        raise ParameterError(
            f"The 'overload' parameter of {f} must be 'raise': a transient run has no "
            f"precision to reach (use simulate(overload='transient')). Got {overload!r} instead."
        )
    one, ok, described = _prepare(f, scenario, policy, requests, 2, seed, warmup, confidence,
                                  policy_params)  # fmt: skip
    described.pop("func")
    return to_precision(one, func=f, target=target, seed=ok["seed"], **described)
