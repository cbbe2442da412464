"""The arena's studies: the winner map over load × link delay × task-size variability, and
the delay-versus-resources fronts of each mechanism.

The map's scenario is the neutral one's geometry (four edge nodes of four servers on a ring,
a cloud four times faster), parameterised by the edge load ``load`` (arrival work over edge
capacity), the edge-to-edge link delay ``link_delay`` (the cloud is ten times farther) and
the squared coefficient of variation ``scv`` of the task size (mean 0.1 s: deterministic
for 0, shifted exponential below 1, exponential at 1, Pareto above). Every point runs
through :func:`workbench.sweep.sweep` (joblib locally, a Dask cluster by address).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench import datacenters as p3
from workbench import redundancy as p4
from workbench.arena.scenario import Scenario, load_scenario, scenario_from_dict
from workbench.arena.simulation import simulate
from workbench.sweep import sweep

__all__ = [
    "map_scenario", "size_for_scv", "evaluate", "winner_map", "fronts", "validation_table",
    "CONTENDERS",
]  # fmt: skip

#: the policies compared on the map, with their parameters
CONTENDERS = {
    "local": {},
    "jsq": {},
    "power_of_d": {"d": 2},
    "threshold": {"theta": 0.05, "e_max": 1},
    "overflow": {"p": 1.0},
    "replicate": {"m": 2},
    "red": {"min_th": 4.0, "max_th": 12.0, "max_p": 0.2, "w_q": 0.05},
    "cloud": {},
}
MEAN_SIZE = 0.1


def size_for_scv(scv: float, mean: float = MEAN_SIZE) -> dict:
    """A size distribution of the given mean and squared coefficient of variation."""
    if scv == 0:
        return {"dist": "deterministic", "value": mean}
    if scv < 1:
        spread = mean * math.sqrt(scv)
        return {"dist": "shifted_exponential", "shift": mean - spread, "rate": 1 / spread}
    if scv == 1:
        return {"dist": "exponential", "mean": mean}
    alpha = 1 + math.sqrt(1 + 1 / scv)  # Pareto: scv = 1 / (alpha (alpha - 2))
    return {"dist": "pareto", "scale": mean * (alpha - 1) / alpha, "alpha": alpha}


def mesh_scenario(n_nodes=3, servers=2, capacity=4, delay=0.01, lam=2.5, cloud=True) -> Scenario:
    """A small full mesh that exercises every part of the engine: ``n_nodes`` edge nodes
    with waiting rooms, links of unequal delays ``delay × (1 + a + b)`` and 1 Mbit/s, a
    cloud twice as fast 0.1 s away, Weibull task sizes (shape 0.8, scale 0.5) of 1000 input
    bits, and sources of unequal rates ``lam × (1 + 0.3 k)``. The engine's identity checks
    against its slow twin (tests and ``benchmarks/arena_identity.py``) run on it."""
    nodes = [{"id": f"e{k}", "role": "edge", "servers": servers, "capacity": capacity}
             for k in range(n_nodes)]  # fmt: skip
    links = [{"a": f"e{a}", "b": f"e{b}", "delay": delay * (1 + a + b), "bandwidth": 1e6}
             for a in range(n_nodes) for b in range(a + 1, n_nodes)]  # fmt: skip
    if cloud:
        nodes.append({"id": "c", "role": "cloud", "servers": ".inf", "speed": 2.0})
        links += [{"a": f"e{k}", "b": "c", "delay": 0.1} for k in range(n_nodes)]
    size = {"dist": "weibull", "shape": 0.8, "scale": 0.5}
    work = [{"source": f"e{k}", "rate": lam * (1 + 0.3 * k), "input_bits": 1000.0,
             "size": size} for k in range(n_nodes)]  # fmt: skip
    return scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def map_scenario(load: float, link_delay: float, scv: float, servers: int = 4) -> Scenario:
    """The map's scenario at one point (module docstring)."""
    n = 4
    shares = np.array([0.32, 0.21, 0.26, 0.21])  # unequal sources: pooling has work to do
    total = load * n * servers / MEAN_SIZE
    nodes = [
        {"id": f"e{k}", "role": "edge", "servers": servers, "capacity": 10 * servers,
         "power_idle": 60.0, "power_busy": 150.0}
        for k in range(1, n + 1)
    ]  # fmt: skip
    nodes.append({"id": "cloud", "role": "cloud", "servers": ".inf", "speed": 4.0,
                  "power_busy": 100.0})  # fmt: skip
    ring = [(k, k % n + 1) for k in range(1, n + 1)]
    links = [{"a": f"e{a}", "b": f"e{b}", "delay": link_delay, "bandwidth": 1e8,
              "energy_per_bit": 1e-8} for a, b in ring]  # fmt: skip
    links += [{"a": f"e{k}", "b": "cloud", "delay": 10 * link_delay, "bandwidth": 1e9,
               "energy_per_bit": 5e-8} for k in range(1, n + 1)]  # fmt: skip
    work = [{"source": f"e{k + 1}", "rate": float(total * shares[k]), "input_bits": 1e5,
             "size": size_for_scv(scv)} for k in range(n)]  # fmt: skip
    name = f"map(load={load:g}, link_delay={link_delay:g}, scv={scv:g})"
    return scenario_from_dict({"name": name, "nodes": nodes, "links": links, "workload": work})


def evaluate(load, link_delay, scv, policy, seed=0, tasks_per_run=10_000, runs=3) -> dict:
    """One point of the map: the arena's quantities for ``policy`` over ``runs``
    replications of ``tasks_per_run`` tasks (finite-horizon numbers are kept, flagged
    ``stationary=False``)."""
    sc = map_scenario(load, link_delay, scv)
    r = simulate(scenario=sc, policy=policy, requests=tasks_per_run, replications=runs,
                 seed=seed, overload="transient", **CONTENDERS[policy])  # fmt: skip
    row = r.as_dict()
    keep = ("mean_delay", "p99_delay", "loss_share", "cloud_share", "forwarded_share",
            "copies_per_task", "energy_per_task")  # fmt: skip
    out = {q: row[q] for q in keep}
    out["half_width"] = r.half_width
    out["stationary"] = bool(r.stationary)
    util = [c for c in r.frame.columns if c.startswith("utilisation:e")]
    out["edge_utilisation"] = float(r.frame[util].to_numpy().mean())
    return out


def winner_map(quick: bool = True, client=None, seed: int = 0, policies=None) -> pd.DataFrame:
    """Every contender at every point of the grid; column ``winner`` marks the least mean
    delay among the stationary runs losing at most 1 % of the tasks at that point."""
    grid = {
        "load": [0.5, 0.85] if quick else [0.3, 0.5, 0.7, 0.85, 0.95],
        "link_delay": [0.001, 0.02] if quick else [0.0005, 0.002, 0.005, 0.01, 0.02, 0.05],
        "scv": [0.25, 4.0] if quick else [0.0, 0.25, 1.0, 2.0, 4.0, 10.0],
        "policy": list(policies or CONTENDERS),
    }
    fixed = {"tasks_per_run": 4_000 if quick else 20_000, "runs": 2 if quick else 4}
    frame = sweep(evaluate, grid, fixed=fixed, base_seed=seed, client=client,
                  n_workers=1 if quick else None, progress=False)  # fmt: skip
    return mark_winners(frame)


def mark_winners(frame: pd.DataFrame) -> pd.DataFrame:
    """Add ``winner`` (bool) per grid point (see :func:`winner_map`)."""
    frame = frame.copy()
    ok = frame["stationary"] & (frame["loss_share"] <= 0.01)
    score = frame["mean_delay"].where(ok, np.inf)
    keys = ["load", "link_delay", "scv"]
    best = score.groupby([frame[k] for k in keys]).transform("min")
    frame["winner"] = np.isfinite(score) & (score == best)
    return frame


def fronts(quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """Delay against resources on the neutral map point (load 0.7, 2 ms, scv 1): each
    mechanism across its own knob; ``pareto`` marks the points no other beats on both
    mean delay and energy per task."""
    rows = []
    knobs = {
        "replicate": ("m", [1, 2, 3] if quick else [1, 2, 3, 4]),
        "threshold": ("theta", [0.0, 0.05, 0.2] if quick else [0.0, 0.02, 0.05, 0.1, 0.2, 0.5]),
        "power_of_d": ("d", [1, 2, 4] if quick else [1, 2, 3, 4, 6]),
        "red": ("max_p", [0.05, 0.5] if quick else [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]),
    }
    sc = map_scenario(0.7, 0.002, 1.0)
    n = 4_000 if quick else 20_000
    for name, (knob, values) in knobs.items():
        for v in values:
            params = {**CONTENDERS[name], knob: v}
            r = simulate(scenario=sc, policy=name, requests=n, replications=2, seed=seed,
                         overload="transient", **params)  # fmt: skip
            rows.append({"policy": name, "knob": knob, "value": v, **{
                q: r[q] for q in ("mean_delay", "energy_per_task", "copies_per_task",
                                  "cloud_share")}})  # fmt: skip
    out = pd.DataFrame(rows)
    d, e = out["mean_delay"].to_numpy(), out["energy_per_task"].to_numpy()
    out["pareto"] = [
        not np.any((d <= d[i]) & (e <= e[i]) & ((d < d[i]) | (e < e[i]))) for i in range(len(d))
    ]
    return out


def validation_table(quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """Each exact mapping: the arena, the paper package's own simulator and the theory.

    P3 (``overflow`` on ``p3_datacenters``, p = 0.5): the share of requests lost against
    ``datacenters.simulate`` and ``datacenters.blocking_exact``. P4 (``replicate`` on
    ``p4_redundancy``, m = 1, 2, 3): the mean system time against ``redundancy.simulate``
    and ``redundancy.system_time``.
    """
    n, reps = (20_000, 4) if quick else (100_000, 10)
    rows = []
    sc = load_scenario("p3_datacenters")
    lam = tuple(w.rate for w in sc.workload)
    a = simulate(scenario=sc, policy="overflow", p=0.5, requests=n, replications=reps, seed=seed)
    pk = p3.simulate(lam=lam, servers=(10, 10), mu=(1.0, 1.0), p=(0.5, 0.5), events=2 * n,
                     replications=reps, seed=seed)  # fmt: skip
    b1, b2 = p3.blocking_exact(lam, (10, 10), (1.0, 1.0), (0.5, 0.5))
    w = np.array(lam) / sum(lam)

    def pooled(res):
        (l1, h1), (l2, h2) = res.interval("beta1"), res.interval("beta2")
        return w[0] * l1 + w[1] * l2, w[0] * h1 + w[1] * h2

    lo, hi = pooled(pk)
    rows.append({"paper": "P3", "policy": "overflow p=0.5", "quantity": "share lost",
                 "arena": a.loss_share, "arena_low": a.interval("loss_share")[0],
                 "arena_high": a.interval("loss_share")[1],
                 "package": w[0] * pk["beta1"] + w[1] * pk["beta2"], "package_low": lo,
                 "package_high": hi, "theory": w[0] * b1 + w[1] * b2})  # fmt: skip
    sc = load_scenario("p4_redundancy")
    svc = p4.SExp(3.0, 0.2)
    for m in (1, 2, 3):
        a = simulate(scenario=sc, policy="replicate", m=m, requests=n, replications=reps,
                     seed=seed)  # fmt: skip
        pk = p4.simulate(N=24, m=m, lam=1.5, t_cloud=15.0, service=svc, jobs=n,
                         replications=reps, seed=seed)  # fmt: skip
        rows.append({"paper": "P4", "policy": f"replicate m={m}", "quantity": "mean delay (s)",
                     "arena": a.mean_delay, "arena_low": a.ci_low, "arena_high": a.ci_high,
                     "package": pk.mean, "package_low": pk.ci_low, "package_high": pk.ci_high,
                     "theory": p4.system_time(24, m, 1.5, 15.0, svc)})  # fmt: skip
    out = pd.DataFrame(rows)
    out["theory_in_arena_interval"] = (out["arena_low"] <= out["theory"]) & (
        out["theory"] <= out["arena_high"]
    )
    out["intervals_overlap"] = (out["arena_low"] <= out["package_high"]) & (
        out["package_low"] <= out["arena_high"]
    )
    return out
