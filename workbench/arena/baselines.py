"""``arena.evaluate``: a learning agent against every built-in policy, on the same tasks.

The agent runs on :class:`~workbench.arena.env.ArenaEnv`: replication ``r`` is episode
``r`` after ``reset(seed=seed)``, whose tasks are those of replication ``r`` of
``arena.simulate(seed=seed)`` (common random numbers), so each built-in policy's
replications pair up with the agent's. The frame has the winner map's columns
(:func:`workbench.arena.studies.mark_winners`: ``winner``, ``tied_with``, ``margin``,
``margin_low``, ``margin_high``, ``in_lead``) and, per policy, the paired difference of its
mean delay to the agent's with its interval (``vs_agent``, ``vs_agent_low``,
``vs_agent_high``: an interval above 0 means the agent is faster, below 0 slower).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd

from workbench.arena.env import ArenaEnv
from workbench.arena.pairs import CONTENDERS, mark_winners, paired_interval
from workbench.arena.params import ArenaParams
from workbench.arena.policies import TABLE
from workbench.arena.simulation import POLICIES, simulate
from workbench.digest import DATA
from workbench.output_analysis import detect
from workbench.params import takes
from workbench.validation import ParameterError, check_int

__all__ = ["evaluate", "agent_runs", "agent_table", "first_available", "kept_point", "versus"]


def first_available(obs, mask) -> int:
    """A trivial agent: the first candidate with room.

    Parameters
    ----------
    obs : dict
        The env's observation (unused: the mask says all it needs).
    mask : numpy.ndarray of int8
        ``info["action_mask"]``.

    Returns
    -------
    int
        The first unmasked candidate: the deciding node when it serves and has room.
    """
    return int(np.flatnonzero(mask)[0])


def _actor(agent, func: str):
    """``agent`` as a function (obs, mask) -> action: an object's ``predict`` (a trained
    model's; a tuple answer's first item is the action), or a callable of the observation
    (and, if it takes two arguments, ``info["action_mask"]``)."""
    if hasattr(agent, "predict") and callable(agent.predict):

        def act(obs, mask):
            out = agent.predict(obs)
            return out[0] if isinstance(out, tuple) else out

        return act
    if not callable(agent):
        raise ParameterError(
            f"The 'agent' parameter of {func} must be a callable obs -> action (or obs, mask "
            f"-> action) or an object with predict(obs). Got {type(agent).__name__}."
        )
    try:
        params = inspect.signature(agent).parameters.values()
        two = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= 2
    except (TypeError, ValueError):  # a builtin without a signature: one argument
        two = False
    return (lambda obs, mask: agent(obs, mask)) if two else (lambda obs, mask: agent(obs))


def agent_runs(agent, env: ArenaEnv, replications: int, seed: int, warm: int) -> dict:
    """The agent's replications on an env, on :func:`simulate`'s tasks.

    Parameters
    ----------
    agent : callable or object
        As :func:`evaluate` takes it.
    env : ArenaEnv
        The env, with episodes of its ``tasks`` tasks.
    replications : int
        Episodes to run: episode r after ``env.reset(seed=seed)`` is replication r.
    seed : int
        The root seed (>= 0).
    warm : int
        Tasks per episode not measured (the warm-up, in arrival order).

    Returns
    -------
    dict
        ``"mean_delay"`` and ``"loss_share"`` (arrays, one per replication, over the tasks
        after ``warm``) and ``"series"`` (each replication's delays of the served tasks, in
        arrival order, for the stationarity check).
    """
    act = _actor(agent, "evaluate")
    delays, losses, series = [], [], []
    for r in range(replications):
        obs, info = env.reset(seed=seed) if r == 0 else env.reset()
        done = False
        while not done:
            obs, _, done, _, info = env.step(act(obs, info["action_mask"]))
        rec = env.records()
        kept = rec.iloc[warm:]
        served = kept["outcome"] != "lost"
        d = kept["delay"][served].to_numpy()
        delays.append(float(d.mean()) if d.size else math.nan)
        losses.append(float(1.0 - served.mean()))
        series.append(rec["delay"][rec["outcome"] != "lost"].to_numpy())
    return {"mean_delay": np.array(delays), "loss_share": np.array(losses), "series": series}


#: the ArenaEnv options evaluate passes through (episodes are its own ``tasks``)
REWARD_OPTIONS = ("observation", "energy_weight", "loss_penalty")


@takes(
    ArenaParams,
    "agent",
    "scenario",
    "tasks",
    "replications",
    "seed",
    "warmup",
    "confidence",
    "label",
    "policies",
    positional=True,
)
def evaluate(
    p,
    agent,
    scenario="neutral",
    tasks: int = 5_000,
    label: str = "agent",
    policies=None,
    **env_options,
) -> pd.DataFrame:
    """An agent and every built-in policy on one scenario, paired replication by replication.

    Parameters
    ----------
    agent : callable or object
        A callable obs -> action (or obs, mask -> action), or an object with
        ``predict(obs)`` (e.g. a stable-baselines3 model).
    scenario : Scenario, dict, str or path
        As :class:`ArenaEnv` takes it.
    tasks : int
        Tasks per replication.
    seed : int
        The root seed (>= 0): replication r of every contender has the tasks of
        replication r of ``simulate(seed=seed)``.
    label : str
        The agent's name in the frame (not a built-in policy's).
    policies : list of str, optional
        Built-in policies to compare (default: all; the map's parameters where it has
        them, else the defaults).
    **env_options
        :class:`ArenaEnv`'s reward options (:data:`REWARD_OPTIONS`).

    Returns
    -------
    pandas.DataFrame
        One row per contender: ``scenario``, ``policy``, ``mean_delay`` with its interval
        ``ci_low``/``ci_high``, ``loss_share``, ``stationary``, ``mean_delay@r``, the paired
        difference to the agent (``vs_agent``, ``vs_agent_low``, ``vs_agent_high``) and
        :func:`~workbench.arena.pairs.mark_winners`' columns. Policies the scenario cannot
        run (``cloud`` without a cloud) are left out and named in ``attrs["skipped"]``.
    """
    f = "evaluate"
    tasks = check_int(tasks, "tasks", f, 1, 10**7)
    if not isinstance(label, str) or not label or label in POLICIES:
        raise ParameterError(
            f"The 'label' parameter of {f} must be a non-empty string other than a built-in "
            f"policy's name. Got {label!r}."
        )
    names = list(POLICIES) if policies is None else policies
    if not isinstance(names, (list, tuple)) or not all(
        isinstance(x, str) and x in POLICIES for x in names
    ):
        raise ParameterError(
            f"The 'policies' parameter of {f} must be a list naming built-in policies "
            f"{list(POLICIES)}. Got {policies!r}."
        )
    unknown = sorted(set(env_options) - set(REWARD_OPTIONS))
    if unknown:
        raise ParameterError(
            f"The keyword options of {f} are ArenaEnv's reward options {list(REWARD_OPTIONS)}. "
            f"Got unknown {unknown}."
        )
    env = ArenaEnv(scenario, tasks=tasks, **env_options)
    warm = int(p.warmup * env.tasks + 1e-9)
    runs = agent_runs(agent, env, p.replications, p.seed, warm)
    ref = runs["mean_delay"]
    stationary = detect(runs["series"]).stationary
    rows = [_row(p, label, ref, runs["loss_share"], stationary, ref)]
    skipped = {}
    for name in names:
        try:
            r = simulate(
                p,
                scenario=env.scenario,
                policy=name,
                requests=env.tasks,
                overload="transient",
                **CONTENDERS.get(name, {}),
            )
        except ParameterError as exc:
            skipped[name] = str(exc)
            continue
        d, lost = r.frame["mean_delay"].to_numpy(), r.frame["loss_share"].to_numpy()
        rows.append(_row(p, name, d, lost, r.stationary, ref))
    frame = pd.DataFrame(rows)
    frame.insert(0, "scenario", env.scenario.name)
    out = mark_winners(p, frame=frame)
    out.attrs["skipped"] = skipped
    return out


def _row(p, name, delays, losses, stationary, agent) -> dict:
    """A contender's row: its mean delay with its interval over the replications ``delays``,
    and the paired difference to the agent's (``agent``)."""
    m, lo, hi = paired_interval(p, a=delays, b=np.zeros_like(delays))
    row = {
        "policy": name,
        "mean_delay": m,
        "ci_low": lo,
        "ci_high": hi,
        "loss_share": float(np.mean(losses)),
        "stationary": bool(stationary),
    }
    row.update({f"mean_delay@{j}": float(x) for j, x in enumerate(delays)})
    vs = paired_interval(p, a=np.asarray(delays, dtype=float), b=agent)
    return row | dict(zip(("vs_agent", "vs_agent_low", "vs_agent_high"), vs, strict=True))


#: each built-in policy's paper ("": a classic baseline), from the policy table
PAPER = {spec.name: spec.paper for spec in TABLE}
#: the verdicts of :func:`versus`
VERDICTS = ("agent faster", "tied", "policy faster")


def versus(frame: pd.DataFrame, label: str = "agent") -> pd.DataFrame:
    """:func:`evaluate`'s frame as the agent-against-each-policy table.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`evaluate`.
    label : str
        The agent's row (its ``policy``).

    Returns
    -------
    pandas.DataFrame
        One row per built-in policy, the published mechanisms first (by paper), then the
        classic baselines. ``gain`` (with ``gain_low``, ``gain_high``) is the paired mean of
        the policy's mean delay minus the agent's and its interval (above 0: the agent is
        faster); ``verdict`` is ``"agent faster"`` or ``"policy faster"`` only where that
        interval excludes 0, else ``"tied"``. ``contender`` is the winner map's rule
        (stationary, losing at most 1 % of the tasks; a policy that drops tasks has its
        served tasks' delay only). ``point`` is the scenario's verdict over every
        contender, the agent included: the winner, or ``"tied: a, b"``.
    """
    if not {"policy", "vs_agent", "vs_agent_low", "vs_agent_high"} <= set(frame.columns):
        raise ParameterError(
            "The 'frame' parameter of versus must be a frame of arena.evaluate (columns "
            f"policy, vs_agent, vs_agent_low, vs_agent_high). Got columns {list(frame.columns)}."
        )
    if label not in set(frame["policy"]):
        raise ParameterError(
            f"The 'label' parameter of versus must name the agent's row of the frame. Got "
            f"{label!r}; the rows are {list(frame['policy'])}."
        )
    first = frame.iloc[0]
    point = first["winner"] or f"tied: {first['tied_with']}"
    rows = frame[frame["policy"] != label]
    gains = {"vs_agent": "gain", "vs_agent_low": "gain_low", "vs_agent_high": "gain_high"}
    out = rows[["scenario", "policy", "mean_delay", "loss_share", "contender", *gains]]
    out = out.rename(columns=gains)
    out.insert(2, "paper", rows["policy"].map(PAPER).fillna(""))
    out["verdict"] = np.select(
        [out["gain_low"] > 0, out["gain_high"] < 0], [VERDICTS[0], VERDICTS[2]], VERDICTS[1]
    )
    out["point"] = point
    agent = frame[frame["policy"] == label].iloc[0]
    out.insert(4, "agent_delay", agent["mean_delay"])
    # the classic baselines (no paper) after the papers
    out = out.sort_values("paper", key=lambda paper: paper.replace("", "~"), kind="stable")
    return out.reset_index(drop=True)


def agent_table(runs: dict, **options) -> pd.DataFrame:
    """Each agent against every built-in policy on its scenario.

    Parameters
    ----------
    runs : dict
        A label (the ``scenario`` column) -> ``(agent, scenario)``.
    **options
        :func:`evaluate`'s keywords, the same for every scenario (so the same seeds).

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`versus`, scenario after scenario; ``attrs["frames"]`` keeps each
        scenario's :func:`evaluate` frame.
    """
    if not isinstance(runs, dict) or not runs:
        raise ParameterError(
            "The 'runs' parameter of agent_table must be a non-empty dict label -> (agent, "
            f"scenario). Got {runs!r}."
        )
    tables, frames = [], {}
    for name, pair in runs.items():
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ParameterError(
                f"The 'runs' parameter of agent_table must map each label to (agent, "
                f"scenario). Got {name!r}: {pair!r}."
            )
        agent, scenario = pair
        frames[name] = evaluate(agent, scenario, **options)
        tables.append(versus(frames[name], options.get("label", "agent")).assign(scenario=name))
    out = pd.concat(tables, ignore_index=True)
    out.attrs["frames"] = frames
    return out


#: the full winner map kept in the repository (``benchmarks/arena_winner_map.py``)
KEPT_MAP = DATA / "arena" / "winner_map_full.csv"


@takes(ArenaParams, "load", "link_delay", "scv", "cloud_rtt", positional=True)
def kept_point(p) -> pd.DataFrame:
    """The kept full winner map's rows at one point of its grid (the point's rows of the
    arena's table, as :func:`~workbench.arena.studies.map_scenario` takes them).

    Returns
    -------
    pandas.DataFrame
        ``policy``, ``paper``, ``mean_delay``, ``half_width``, ``loss_share``, ``winner``,
        ``tied_with``, fastest first. A point off the grid is a ParameterError naming it.
    """
    frame = pd.read_csv(KEPT_MAP)
    at = {"load": p.load, "link_delay": p.link_delay, "scv": p.scv, "cloud_rtt": p.cloud_rtt}
    rows = frame[np.logical_and.reduce([np.isclose(frame[c], v) for c, v in at.items()])]
    if rows.empty:
        grid = {c: sorted(frame[c].unique().tolist()) for c in at}
        raise ParameterError(
            f"kept_point: {at} is not a point of the kept map; its grid is {grid}."
        )
    out = rows[["policy", "mean_delay", "half_width", "loss_share", "winner", "tied_with"]]
    out = out.fillna({"tied_with": ""})
    out.insert(1, "paper", out["policy"].map(PAPER).fillna(""))
    return out.sort_values("mean_delay").reset_index(drop=True)
