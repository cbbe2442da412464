"""The arena's studies: the winner map over load × link delay × task-size variability × the
cloud's round trip, and the delay-versus-resources fronts of each mechanism.

The map's scenario is the neutral one's geometry (four edge nodes on a ring, a cloud behind
each), parameterised by the edge load ``load`` (arrival work over edge capacity), the
edge-to-edge link delay ``link_delay``, the squared coefficient of variation ``scv`` of the
task size (mean 0.1 s of edge work: deterministic for 0, shifted exponential below 1,
exponential at 1, hyperexponential above) and the cloud's round trip ``cloud_rtt``. The rest of the
deployment (edge servers and speed, cloud servers and speed) comes from the declared
parameters of :data:`workbench.arena.params.PARAMS`, each with a plausible range and its
reason. Every point runs through :func:`workbench.sweep.sweep` (joblib locally, a Dask
cluster by address), every contender at a point on the same seed, so replication r of each
sees the same tasks once the workload streams are common; :func:`mark_winners` names a
winner only when paired intervals separate it from every other contender.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench import datacenters as p3
from workbench import redundancy as p4
from workbench.arena.pairs import (
    CONTENDERS,
    POINT,
    mark_winners,
    paired_interval,
    replications_of,
)
from workbench.arena.params import PARAMS, RUN, ArenaParams
from workbench.arena.scenario import Scenario, load_scenario, scenario_from_dict
from workbench.arena.simulation import simulate
from workbench.params import takes
from workbench.sweep import sweep
from workbench.validation import ParameterError

__all__ = [
    "map_scenario",
    "size_for_scv",
    "evaluate",
    "evaluate_point",
    "winner_map",
    "fronts",
    "validation_table",
    "mark_winners",
    "paired_interval",
    "separated_front",
    "compare",
    "CONTENDERS",
    "map_grid",
    "separation_table",
]

MEAN_SIZE = 0.1


def size_for_scv(scv: float, mean: float = MEAN_SIZE) -> dict:
    """A size distribution of the given mean and squared coefficient of variation.

    Parameters
    ----------
    scv : float
        The squared coefficient of variation (>= 0).
    mean : float
        The mean size (s of work at speed 1, > 0).

    Returns
    -------
    dict
        A scenario file's ``size`` entry: deterministic for 0, shifted exponential below 1,
        exponential at 1, hyperexponential (every moment finite) above.
    """
    if scv == 0:
        return {"dist": "deterministic", "value": mean}
    if scv < 1:
        spread = mean * math.sqrt(scv)
        return {"dist": "shifted_exponential", "shift": mean - spread, "rate": 1 / spread}
    if scv == 1:
        return {"dist": "exponential", "mean": mean}
    # a hyperexponential (balanced means) has every moment, so the intervals of a mean
    # delay cover it; a Pareto of the same c² (alpha ~2.1 at c² = 4) has no third moment
    return {"dist": "hyperexponential", "mean": mean, "scv": scv}


def mesh_scenario(n_nodes=3, servers=2, capacity=4, delay=0.01, lam=2.5, cloud=True) -> Scenario:
    """A small full mesh that exercises every part of the engine: ``n_nodes`` edge nodes
    with waiting rooms, links of unequal delays ``delay × (1 + a + b)`` and 1 Mbit/s, a
    cloud twice as fast 0.1 s away, Weibull task sizes (shape 0.8, scale 0.5) of 1000 input
    bits, and sources of unequal rates ``lam × (1 + 0.3 k)``. The engine's identity checks
    against its slow twin (tests and ``benchmarks/arena_identity.py``) run on it."""
    nodes = [
        {"id": f"e{k}", "role": "edge", "servers": servers, "capacity": capacity}
        for k in range(n_nodes)
    ]
    links = [
        {"a": f"e{a}", "b": f"e{b}", "delay": delay * (1 + a + b), "bandwidth": 1e6}
        for a in range(n_nodes)
        for b in range(a + 1, n_nodes)
    ]
    if cloud:
        nodes.append({"id": "c", "role": "cloud", "servers": ".inf", "speed": 2.0})
        links += [{"a": f"e{k}", "b": "c", "delay": 0.1} for k in range(n_nodes)]
    size = {"dist": "weibull", "shape": 0.8, "scale": 0.5}
    work = [
        {"source": f"e{k}", "rate": lam * (1 + 0.3 * k), "input_bits": 1000.0, "size": size}
        for k in range(n_nodes)
    ]
    return scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


@takes(
    ArenaParams,
    "load",
    "link_delay",
    "scv",
    "edge_servers",
    "cloud_rtt",
    "cloud_speed",
    "cloud_servers",
    "edge_speed",
    positional=True,
)
def map_scenario(p) -> Scenario:
    """The map's scenario at one point (module docstring): the edge load ρ (arrival work over
    the edge's service capacity), the edge-to-edge link delay, the task size's squared
    coefficient of variation (:func:`size_for_scv`) and the rest of the deployment, each a
    row of :data:`workbench.arena.params.PARAMS` with its range and reason.

    Returns
    -------
    Scenario
        Four edge nodes on a ring with unequal sources, and a cloud behind each.
    """
    load, link_delay, scv = p.load, p.link_delay, p.scv
    servers, speed = p.edge_servers, p.edge_speed
    n = 4
    shares = np.array([0.32, 0.21, 0.26, 0.21])  # unequal sources: pooling has work to do
    total = load * n * servers * speed / MEAN_SIZE
    nodes = [
        {
            "id": f"e{k}",
            "role": "edge",
            "servers": servers,
            "speed": speed,
            "capacity": 10 * servers,
            "power_idle": 60.0,
            "power_busy": 150.0,
        }
        for k in range(1, n + 1)
    ]
    nodes.append(
        {
            "id": "cloud",
            "role": "cloud",
            "servers": p.cloud_servers,
            "speed": p.cloud_speed,
            "power_busy": 100.0,
        }
    )
    ring = [(k, k % n + 1) for k in range(1, n + 1)]
    links = [
        {"a": f"e{a}", "b": f"e{b}", "delay": link_delay, "bandwidth": 1e8, "energy_per_bit": 1e-8}
        for a, b in ring
    ]
    links += [
        {
            "a": f"e{k}",
            "b": "cloud",
            "delay": p.cloud_rtt,
            "bandwidth": 1e9,
            "energy_per_bit": 5e-8,
        }
        for k in range(1, n + 1)
    ]
    work = [
        {
            "source": f"e{k + 1}",
            "rate": float(total * shares[k]),
            "input_bits": 1e5,
            "size": size_for_scv(scv),
        }
        for k in range(n)
    ]
    name = f"map(load={load:g}, link_delay={link_delay:g}, scv={scv:g})"
    return scenario_from_dict({"name": name, "nodes": nodes, "links": links, "workload": work})


#: the quantities a map point keeps per contender
KEEP = (
    "mean_delay",
    "p99_delay",
    "loss_share",
    "cloud_share",
    "forwarded_share",
    "copies_per_task",
    "energy_per_task",
)
#: the quantities a front keeps per run
FRONT = ("mean_delay", "energy_per_task", "copies_per_task", "cloud_share")
#: the quantities kept per replication too (``mean_delay@0``, ...), for paired comparisons
PAIRED = ("mean_delay", "energy_per_task")


def _per_replication(r) -> dict:
    """The :data:`PAIRED` quantities of each replication of a result (``mean_delay@0``, ...)."""
    return {f"{q}@{k}": float(x) for q in PAIRED for k, x in enumerate(r.frame[q].to_numpy())}


def evaluate(
    load, link_delay, scv, policy, seed=0, tasks_per_run=10_000, runs=3, cloud_rtt=None
) -> dict:
    """One contender at one point of the map.

    Parameters
    ----------
    load, link_delay, scv : float
        The point (:func:`map_scenario`).
    policy : str
        A contender of :data:`CONTENDERS` (with its parameters there).
    seed : int
        The runs' seed: replication r of every contender runs on child r of it, so the
        contenders' replications pair up.
    tasks_per_run : int
        Tasks per replication.
    runs : int
        Replications.
    cloud_rtt : float, optional
        The round trip to the cloud (s; None: its declared default).

    Returns
    -------
    dict
        The quantities :data:`KEEP`, ``half_width``, ``stationary`` (finite-horizon
        numbers are kept, flagged False), the edge's and the cloud's utilisation, and each
        replication's mean delay and energy (``mean_delay@r``, ``energy_per_task@r``).
    """
    sc = map_scenario(load, link_delay, scv, cloud_rtt=cloud_rtt)
    run = dict(requests=tasks_per_run, replications=runs, seed=seed, overload="transient")
    r = simulate(scenario=sc, policy=policy, **run, **CONTENDERS[policy])
    row = r.as_dict()
    out = {q: row[q] for q in KEEP}
    out["half_width"] = r.half_width
    out["stationary"] = bool(r.stationary)
    util = [c for c in r.frame.columns if c.startswith("utilisation:e")]
    out["edge_utilisation"] = float(r.frame[util].to_numpy().mean())
    out["cloud_utilisation"] = float(r.frame["utilisation:cloud"].mean())
    return out | _per_replication(r)


def evaluate_point(
    load, link_delay, scv, seed=0, tasks_per_run=10_000, runs=3, cloud_rtt=None, policies=None
) -> pd.DataFrame:
    """Every contender at one point, all with the same seed (paired replications).

    Parameters
    ----------
    load, link_delay, scv : float
        The point (:func:`map_scenario`).
    seed, tasks_per_run, runs, cloud_rtt
        As :func:`evaluate` takes them.
    policies : list of str, optional
        The contenders (default: all of :data:`CONTENDERS`).

    Returns
    -------
    pandas.DataFrame
        One row per policy: ``policy`` and :func:`evaluate`'s keys.
    """
    run = dict(seed=seed, tasks_per_run=tasks_per_run, runs=runs, cloud_rtt=cloud_rtt)
    return pd.DataFrame(
        [{"policy": p, **evaluate(load, link_delay, scv, p, **run)} for p in policies or CONTENDERS]
    )


def winner_map(quick: bool = True, client=None, seed: int = 0, policies=None) -> pd.DataFrame:
    """Every contender at every point of the grid, paired by seed.

    Parameters
    ----------
    quick : bool
        The quick grid and run lengths (:func:`map_grid`).
    client : dask.distributed.Client or str, optional
        A Dask cluster (or its address) to sweep on; None: joblib locally.
    seed : int
        The sweep's base seed; a point's seed depends only on its values.
    policies : list of str, optional
        The contenders (default: all of :data:`CONTENDERS`).

    Returns
    -------
    pandas.DataFrame
        One row per contender and point (load × link delay × task-size SCV × the cloud's
        round trip) with :func:`mark_winners`' winner or tied set.
    """
    grid, fixed = map_grid(quick, policies)
    frame = sweep(
        evaluate_point,
        grid,
        fixed=fixed,
        base_seed=seed,
        client=client,
        n_workers=1 if quick else None,
        progress=False,
    )
    return mark_winners(frame)


def map_grid(quick: bool = True, policies=None) -> tuple[dict, dict]:
    """The winner map's grid and the arguments every point shares.

    A point's seed depends only on its values (:func:`workbench.sweep.point_seed`), so the
    grid may be swept in parts (``benchmarks/arena_winner_map.py``) for the same frame.

    Parameters
    ----------
    quick : bool
        The quick grid (2 values per axis) or the full one.
    policies : list of str, optional
        The contenders (default: all of :data:`CONTENDERS`).

    Returns
    -------
    tuple of dict
        The grid (axis -> values) and :func:`evaluate_point`'s ``tasks_per_run``,
        ``runs`` and ``policies``.
    """
    rtt = PARAMS["cloud_rtt"].default
    grid = {
        "load": [0.5, 0.85] if quick else [0.3, 0.5, 0.7, 0.85, 0.95],
        "link_delay": [0.001, 0.02] if quick else [0.0005, 0.002, 0.005, 0.01, 0.02, 0.05],
        "scv": [0.25, 4.0] if quick else [0.0, 0.25, 1.0, 2.0, 4.0, 10.0],
        "cloud_rtt": [rtt, 2.5 * rtt] if quick else [0.5 * rtt, rtt, 2.5 * rtt],
    }
    fixed = {
        "tasks_per_run": 4_000 if quick else 20_000,
        "runs": 3 if quick else 5,
        "policies": list(policies or CONTENDERS),
    }
    return grid, fixed


def separation_table(frame: pd.DataFrame) -> pd.DataFrame:
    """How well the map's winners are separated.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`mark_winners` (the winner map).

    Returns
    -------
    pandas.DataFrame
        Indexed by policy: the points where it has the least mean delay (``best``), those
        where it is named the winner (``separated``: every other contender's paired
        interval excludes 0) and those where it is best but tied (``tied``);
        ``in_tied_sets``: the tied sets it belongs to; over its separated points, the
        runner-up's paired margin (s: ``margin_mean``, ``margin_min``, ``margin_median``)
        and that margin relative to its mean delay (``rel_margin_median``). The row
        ``all`` counts the points, those with a contender, named winners and tied sets.
    """
    keys = [k for k in POINT if k in frame.columns]
    points = frame.drop_duplicates(keys)
    best_of = points["tied_with"].str.split(", ").str[0].where(points["winner"] == "", "")
    best_of = best_of.where(points["winner"] == "", points["winner"])
    lead = frame[frame["policy"] == frame["winner"]].set_index(keys)["mean_delay"]
    rows = []
    names = list(dict.fromkeys(frame["policy"]))
    for name in [*names, "all"]:
        mine = best_of != "" if name == "all" else best_of == name
        won = points[mine & (points["winner"] != "")]
        sets = points["tied_with"].str.split(", ")
        member = sets.map(lambda t, n=name: n in t if n != "all" else t != [""])
        rel = won["margin"].to_numpy() / lead.loc[won.set_index(keys).index].to_numpy()
        rows.append(
            {
                "policy": name,
                "points": len(points),
                "best": int(mine.sum()),
                "separated": len(won),
                "tied": int(mine.sum()) - len(won),
                "in_tied_sets": int(member.sum()),
                "separated_share": len(won) / mine.sum() if mine.sum() else math.nan,
                # margin_mean, margin_min, margin_median: NaN where it won nowhere
                **{f"margin_{s}": float(won["margin"].agg(s)) for s in ("mean", "min", "median")},
                "rel_margin_median": float(np.median(rel)) if len(won) else math.nan,
            }
        )
    return pd.DataFrame(rows).set_index("policy")


@takes(ArenaParams, "scenario", "policies", *RUN, positional=True)
def compare(p, scenario, policies) -> pd.DataFrame:
    """Several policies on one scenario, every one on the same seed (paired replications).

    Parameters
    ----------
    scenario : Scenario, dict, str or path
        As :func:`~workbench.arena.simulation.simulate` takes it.
    policies : list or dict
        Names of :data:`~workbench.arena.simulation.POLICIES` or
        :class:`~workbench.arena.simulation.UserPolicy` objects, or a dict label ->
        (policy, parameters).
    requests, replications, seed, warmup, confidence
        :func:`~workbench.arena.simulation.simulate`'s, the same for every policy (or
        ``params``, an :class:`~workbench.arena.params.ArenaParams`).

    Returns
    -------
    pandas.DataFrame
        Indexed by policy: its mean delay and interval, its routing and loss shares,
        ``stationary``, and the paired difference to the best (``vs_best``,
        ``vs_best_low``, ``vs_best_high``; an interval above 0 means the best is separated
        from it).
    """
    if isinstance(policies, (list, tuple)):
        policies = {getattr(p, "name", p): (p, {}) for p in policies}
    if (
        not isinstance(policies, dict)
        or not policies
        or not all(
            isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict)
            for v in policies.values()
        )
    ):
        raise ParameterError(
            "The 'policies' parameter of compare must be a non-empty list of policies or a "
            f"dict label -> (policy, parameters). Got {policies!r}."
        )
    runs = {
        label: simulate(p, scenario=scenario, policy=pol, overload="transient", **params)
        for label, (pol, params) in policies.items()
    }
    best = min(runs, key=lambda k: runs[k].mean_delay)
    rows = []
    for label, r in runs.items():
        m, lo, hi = paired_interval(p, a=r.frame["mean_delay"], b=runs[best].frame["mean_delay"])
        rows.append(
            {
                "policy": label,
                "mean_delay": r.mean_delay,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "vs_best": m,
                "vs_best_low": lo,
                "vs_best_high": hi,
                "cloud_share": r.cloud_share,
                "forwarded_share": r.forwarded_share,
                "loss_share": r.loss_share,
                "stationary": r.stationary,
            }
        )
    return pd.DataFrame(rows).set_index("policy")


@takes(ArenaParams, "frame", "confidence", positional=True)
def separated_front(p, frame: pd.DataFrame) -> np.ndarray:
    """Which rows no other row dominates *separately*.

    Row j dominates row i when j's mean delay and energy per task are both at most i's and
    at least one of the two paired intervals (i − j over the replications) lies above 0.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows with ``mean_delay@r`` and ``energy_per_task@r``, replications paired.

    Returns
    -------
    numpy.ndarray of bool
        True for each row no other dominates.
    """
    d = [replications_of(r, "mean_delay") for _, r in frame.iterrows()]
    e = [replications_of(r, "energy_per_task") for _, r in frame.iterrows()]
    n = len(d)
    keep = np.ones(n, bool)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dd = paired_interval(p, a=d[i], b=d[j])
            de = paired_interval(p, a=e[i], b=e[j])
            if dd[0] >= 0 and de[0] >= 0 and (dd[1] > 0 or de[1] > 0):
                keep[i] = False
                break
    return keep


def fronts(quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """Delay against resources on the neutral map point (load 0.7, 2 ms, scv 1).

    Parameters
    ----------
    quick : bool
        The quick knob values and run lengths.
    seed : int
        The runs' seed, the same for every run (paired replications).

    Returns
    -------
    pandas.DataFrame
        One row per mechanism and value of its own knob (``policy``, ``knob``, ``value``,
        mean delay, energy, copies and cloud share per task, their replications), and
        ``pareto``: no other row dominates it separately (:func:`separated_front`).
    """
    rows = []
    knobs = {
        "replicate": ("m", [1, 2, 3] if quick else [1, 2, 3, 4]),
        "threshold": ("theta", [0.0, 0.05, 0.2] if quick else [0.0, 0.02, 0.05, 0.1, 0.2, 0.5]),
        "power_of_d": ("d", [1, 2, 4] if quick else [1, 2, 3, 4, 6]),
        "red": ("max_p", [0.05, 0.5] if quick else [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]),
    }
    sc = map_scenario(0.7, 0.002, 1.0)
    n, reps = (4_000, 3) if quick else (20_000, 6)
    run = dict(requests=n, replications=reps, seed=seed, overload="transient")
    for name, (knob, values) in knobs.items():
        for v in values:
            r = simulate(scenario=sc, policy=name, **run, **{**CONTENDERS[name], knob: v})
            row = {"policy": name, "knob": knob, "value": v} | {q: r[q] for q in FRONT}
            rows.append(row | _per_replication(r))
    out = pd.DataFrame(rows)
    out["pareto"] = separated_front(out)
    return out


def _mapping(paper, policy, quantity, arena, package, theory) -> dict:
    """A row of :func:`validation_table`; ``arena`` and ``package`` are (estimate, low, high)."""
    row = {"paper": paper, "policy": policy, "quantity": quantity}
    for who, (mid, low, high) in (("arena", arena), ("package", package)):
        row |= {who: mid, f"{who}_low": low, f"{who}_high": high}
    return row | {"theory": theory}


def validation_table(quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """Each exact mapping: the arena, the paper package's own simulator and the theory.

    P3 (``overflow`` on ``p3_datacenters``, p = 0.5): the share of requests lost against
    ``datacenters.simulate`` and ``datacenters.blocking_exact``. P4 (``replicate`` on
    ``p4_redundancy``, m = 1, 2, 3): the mean system time against ``redundancy.simulate``
    and ``redundancy.system_time``.

    Parameters
    ----------
    quick : bool
        The quick run lengths.
    seed : int
        The seed of the arena's and the packages' runs.

    Returns
    -------
    pandas.DataFrame
        One row per mapping: the arena's and the package's estimates with their intervals,
        the theory, ``theory_in_arena_interval`` and ``intervals_overlap``.
    """
    n, reps = (20_000, 4) if quick else (100_000, 10)
    rows = []
    sc = load_scenario("p3_datacenters")
    lam = tuple(w.rate for w in sc.workload)
    a = simulate(scenario=sc, policy="overflow", p=0.5, requests=n, replications=reps, seed=seed)
    pk = p3.simulate(
        lam=lam,
        servers=(10, 10),
        mu=(1.0, 1.0),
        p=(0.5, 0.5),
        events=2 * n,
        replications=reps,
        seed=seed,
    )
    b1, b2 = p3.blocking_exact(lam, (10, 10), (1.0, 1.0), (0.5, 0.5))
    w = np.array(lam) / sum(lam)

    def pooled(res):
        (l1, h1), (l2, h2) = res.interval("beta1"), res.interval("beta2")
        return w[0] * l1 + w[1] * l2, w[0] * h1 + w[1] * h2

    arena = (a.loss_share, *a.interval("loss_share"))
    package = (w[0] * pk["beta1"] + w[1] * pk["beta2"], *pooled(pk))
    theory = w[0] * b1 + w[1] * b2
    rows.append(_mapping("P3", "overflow p=0.5", "share lost", arena, package, theory))
    sc = load_scenario("p4_redundancy")
    svc = p4.SExp(3.0, 0.2)
    for m in (1, 2, 3):
        a = simulate(scenario=sc, policy="replicate", m=m, requests=n, replications=reps, seed=seed)
        pk = p4.simulate(
            N=24, m=m, lam=1.5, t_cloud=15.0, service=svc, jobs=n, replications=reps, seed=seed
        )
        arena = (a.mean_delay, a.ci_low, a.ci_high)
        package = (pk.mean, pk.ci_low, pk.ci_high)
        theory = p4.system_time(24, m, 1.5, 15.0, svc)
        rows.append(_mapping("P4", f"replicate m={m}", "mean delay (s)", arena, package, theory))
    out = pd.DataFrame(rows)
    out["theory_in_arena_interval"] = out["theory"].between(out["arena_low"], out["arena_high"])
    out["intervals_overlap"] = (out["arena_low"] <= out["package_high"]) & (
        out["package_low"] <= out["arena_high"]
    )
    return out
