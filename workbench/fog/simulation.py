"""Simulate the IoT–fog–cloud network: draw the requests, run the compiled kernel, tidy up.

:func:`simulate` runs independent replications of :func:`run_once` and returns a
:class:`workbench.results.SimulationResult` whose metric is the mean service delay per
request (after a 10% warm-up), with per-node utilisation in ``info["nodes"]`` and the
per-request records of the first replication in ``records``.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III (the policy), Sec. V (the simulation
the paper validates its model with; its settings were not recovered, the defaults here are
the workbench's choice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.fog import kernels as K
from workbench.fog.model import theta_per_fog
from workbench.fog.params import MODES, PARAMS, POLICIES
from workbench.fog.scenario import Compiled, compile_scenario
from workbench.results import SimulationResult
from workbench.validation import UnstableRegimeError

__all__ = ["simulate", "run_once", "draw_requests", "RunOutput", "WARMUP_FRACTION"]

WARMUP_FRACTION = 0.1
TIER_NAMES = np.array(["iot", "fog", "cloud"])
TYPE_NAMES = np.array(["light", "heavy"])
ROUTE_NAMES = np.array(["local", "fog", "cloud"])


@dataclass(frozen=True)
class Requests:
    """The random inputs of one run, one entry per request (see the kernel's docstring)."""

    gen_time: np.ndarray
    origin: np.ndarray
    rtype: np.ndarray
    route: np.ndarray
    work: np.ndarray
    unit_u: np.ndarray
    select_u: np.ndarray
    announce_phase: np.ndarray


def draw_requests(net: Compiled, n_requests: int, rng: np.random.Generator, period: float):
    """Poisson requests of every IoT node and type (merged stream), routes and work draws."""
    rates = net.iot_rate.ravel()  # (iot, type) pairs, Light first
    total = rates.sum()
    gen_time = np.cumsum(rng.exponential(1.0 / total, n_requests))
    cum = np.cumsum(rates / total)
    cum[-1] = 1.0
    pick = np.searchsorted(cum, rng.random(n_requests), side="right")
    pick = np.minimum(pick, rates.size - 1)
    origin = (pick // 2).astype(np.int64)
    rtype = (pick % 2).astype(np.int64)
    u = rng.random(n_requests)
    p = net.iot_p[origin]
    route = np.where(
        u < p[:, 0], K.ROUTE_LOCAL, np.where(u < p[:, 0] + p[:, 1], K.ROUTE_FOG, K.ROUTE_CLOUD)
    ).astype(np.int64)
    return Requests(
        gen_time=gen_time,
        origin=origin,
        rtype=rtype,
        route=route,
        work=rng.exponential(1.0, n_requests),
        unit_u=rng.random(n_requests),
        select_u=rng.random(n_requests),
        announce_phase=rng.uniform(0.0, period, net.n_fog),
    )


@dataclass(frozen=True)
class RunOutput:
    """One run: per-request records and per-node totals."""

    records: pd.DataFrame
    fog: pd.DataFrame
    cloud: pd.DataFrame
    horizon: float


def _central_node(net: Compiled) -> int:
    """The Central Node: the fog node with the smallest total propagation delay to the rest."""
    return int(np.argmin(net.ff_prop.sum(axis=1)))


def _unit_ptr(net: Compiled):
    return np.concatenate([[0], np.cumsum(net.cloud_units)]).astype(np.int64)


def kernel_arguments(net, req, theta, e_max, q, alpha, mode, policy, period):
    """The kernel's positional arguments (shared with the benchmark and the twin test)."""
    return (
        req.gen_time, req.origin, req.rtype, req.route, req.work, req.unit_u, req.select_u,
        net.iot_fog, net.iot_prop, net.iot_inv, net.iot_local_mean,
        net.nbr_ptr, net.nbr_idx, net.nbr_prop, net.nbr_inv, net.nbr_rev,
        net.ff_prop, net.ff_inv, net.fog_cloud, net.fc_prop, net.fc_inv, net.cf_prop, net.cf_inv,
        1.0 / net.fog_mu, net.cloud_mean, _unit_ptr(net), net.size_bits,
        theta, int(e_max), float(q), float(alpha), MODES.index(mode), POLICIES.index(policy),
        float(period), req.announce_phase, _central_node(net),
    )  # fmt: skip


def _check_stability(net: Compiled, theta, policy, func):
    """Refuse runs whose queues grow without bound (reported, never simulated forever)."""
    inflow = net.fog_inflow
    mu = net.fog_mu
    keeps_all = policy == "no_offload" or (policy == "offload" and np.any(np.isinf(theta)))
    if keeps_all or policy == "light_only":
        heavy = 0.0 if policy == "light_only" else 1.0
        rho = inflow[:, 0] / mu[:, 0] + heavy * inflow[:, 1] / mu[:, 1]
        mask = np.ones(net.n_fog, bool) if not policy == "offload" else np.isinf(theta)
        bad = np.flatnonzero(mask & (rho >= 1))
        if bad.size:
            j = int(bad[0])
            raise UnstableRegimeError(
                f"{func}: fog node {net.fog_names[j]!r} is unstable under policy {policy!r}: "
                f"it keeps every request it receives, ρ = {rho[j]:.4g} ≥ 1. Offload (finite θ) "
                "or lower the load."
            )
    # the cloud's worst case: everything that is not processed locally goes there
    to_cloud = np.zeros((net.n_cloud, 2))
    k_of_iot = net.fog_cloud[net.iot_fog]
    for c in (0, 1):
        w = net.iot_rate[:, c] * (net.iot_p[:, 1] + net.iot_p[:, 2])
        to_cloud[:, c] = np.bincount(k_of_iot, weights=w, minlength=net.n_cloud)
    load = (to_cloud * net.cloud_mean).sum(axis=1) / net.cloud_units
    bad = np.flatnonzero(load >= 1)
    if bad.size:
        k = int(bad[0])
        raise UnstableRegimeError(
            f"{func}: cloud server {net.cloud_names[k]!r} could be unstable: with every fog "
            f"request sent there its load per unit is {load[k]:.4g} ≥ 1. Add units or lower "
            "the load."
        )


def _validate(func, theta, e_max, q, alpha, mode, policy, announce_period):
    v = PARAMS.check(
        func, e_max=e_max, q=q, alpha=alpha, mode=mode, policy=policy,
        announce_period=announce_period,
    )  # fmt: skip
    return v


def run_once(
    scenario,
    *,
    theta=0.02,
    e_max=1,
    q=0.5,
    alpha=0.5,
    mode="distributed",
    policy="offload",
    announce_period=0.05,
    n_requests=50_000,
    seed=0,
) -> RunOutput:
    """One replication: per-request records (all requests, no warm-up removed) and node totals.

    Parameters as in :func:`simulate`.
    """
    func = "run_once"
    net = compile_scenario(scenario)
    v = _validate(func, theta, e_max, q, alpha, mode, policy, announce_period)
    n = PARAMS["n_requests"].check(n_requests, func)
    seed = PARAMS["seed"].check(seed, func)
    th = theta_per_fog(theta, net.n_fog, func)
    _check_stability(net, th, v["policy"], func)
    rng = np.random.default_rng(seed)
    return _run(net, th, v, n, rng)


def _run(net, th, v, n, rng) -> RunOutput:
    req = draw_requests(net, n, rng, v["announce_period"])
    out = K.simulate_network(
        *kernel_arguments(
            net, req, th, v["e_max"], v["q"], v["alpha"], v["mode"], v["policy"],
            v["announce_period"],
        )
    )  # fmt: skip
    (tier, place, hops, t_done, d_up, d_fwd, d_fc, d_wait, d_proc, d_back,
     fog_busy, fog_area, fog_arr, fog_acc, unit_busy, unit_served, horizon) = out  # fmt: skip
    records = pd.DataFrame(
        {
            "request": np.arange(n),
            "origin": req.origin,
            "type": pd.Categorical.from_codes(req.rtype, TYPE_NAMES),
            "route": pd.Categorical.from_codes(req.route, ROUTE_NAMES),
            "tier": pd.Categorical.from_codes(tier, TIER_NAMES),
            "place": place,
            "hops": hops,
            "t_gen": req.gen_time,
            "delay": t_done - req.gen_time,
            "d_up": d_up,
            "d_fwd": d_fwd,
            "d_fc": d_fc,
            "d_wait": d_wait,
            "d_proc": d_proc,
            "d_back": d_back,
        }
    )
    span = max(horizon, 1e-300)
    served_fog = np.bincount(place[tier == K.TIER_FOG], minlength=net.n_fog)
    sojourn = np.bincount(
        place[tier == K.TIER_FOG],
        weights=(d_wait + d_proc)[tier == K.TIER_FOG],
        minlength=net.n_fog,
    )
    fog = pd.DataFrame(
        {
            "fog": np.arange(net.n_fog),
            "name": net.fog_names,
            "utilisation": fog_busy / span,
            "mean_in_node": fog_area / span,
            "arrivals": fog_arr,
            "accepted": fog_acc,
            "served": served_fog,
            "throughput": served_fog / span,
            "mean_sojourn": np.divide(sojourn, served_fog, out=np.zeros(net.n_fog),
                                      where=served_fog > 0),
        }
    )  # fmt: skip
    unit_ptr = _unit_ptr(net)
    cloud = pd.DataFrame(
        {
            "cloud": np.arange(net.n_cloud),
            "name": net.cloud_names,
            "utilisation": [
                unit_busy[unit_ptr[k] : unit_ptr[k + 1]].mean() / span for k in range(net.n_cloud)
            ],
            "served": [
                unit_served[unit_ptr[k] : unit_ptr[k + 1]].sum() for k in range(net.n_cloud)
            ],
        }
    )
    return RunOutput(records=records, fog=fog, cloud=cloud, horizon=float(horizon))


def _replication_row(run: RunOutput, warmup: int) -> dict:
    rec = run.records.iloc[warmup:]
    delay = rec["delay"].to_numpy()
    light = (rec["type"] == "light").to_numpy()
    tier = rec["tier"].to_numpy()
    per_iot = rec.groupby("origin", observed=True)["delay"].mean()
    return {
        "delay": float(delay.mean()),
        "delay_light": float(delay[light].mean()) if light.any() else math.nan,
        "delay_heavy": float(delay[~light].mean()) if (~light).any() else math.nan,
        "delay_per_iot": float(per_iot.mean()),
        "share_fog": float(np.mean(tier == "fog")),
        "share_cloud": float(np.mean(tier == "cloud")),
        "mean_hops": float(rec["hops"].mean()),
        "fog_utilisation": float(run.fog["utilisation"].mean()),
        "max_fog_utilisation": float(run.fog["utilisation"].max()),
        "cloud_utilisation": float(run.cloud["utilisation"].mean()),
    }


def simulate(
    scenario,
    *,
    theta=0.02,
    e_max=1,
    q=0.5,
    alpha=0.5,
    mode="distributed",
    policy="offload",
    announce_period=0.05,
    n_requests=50_000,
    replications=10,
    seed=0,
    confidence=0.95,
) -> SimulationResult:
    """Simulate the network and estimate the mean service delay per request.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled
        A scenario (:mod:`workbench.fog.scenario`).
    theta : float or array
        θ per fog node or for all [s]; ``math.inf`` never offloads.
    e_max : int
        Offload limit e_M.
    q : float
        Queue fairness (0.5: FIFO).
    alpha : float
        EWMA weight of the processing-time estimates.
    mode : {"distributed", "central", "oracle"}
        How Reachability tables are fed.
    policy : {"offload", "no_offload", "all_cloud", "light_only"}
        The paper's policy or a baseline.
    announce_period : float
        T_a [s].
    n_requests : int
        Requests per replication (the first 10% are a warm-up, not counted).
    replications : int
    seed : int
    confidence : float

    Returns
    -------
    SimulationResult
        metric ``delay`` [s]; also ``delay_light``, ``delay_heavy``, ``delay_per_iot``,
        ``share_fog``, ``share_cloud``, ``mean_hops``, utilisations; ``info["nodes"]``: per
        fog node means over replications; ``records``: the first replication's requests.

    Raises
    ------
    UnstableRegimeError
        A fog node that keeps all its requests (θ = ∞, no_offload, light_only) or a cloud
        unit in the worst case has load ≥ 1.
    """
    func = "simulate"
    net = compile_scenario(scenario)
    v = _validate(func, theta, e_max, q, alpha, mode, policy, announce_period)
    checked = PARAMS.check(
        func, n_requests=n_requests, replications=replications, seed=seed, confidence=confidence
    )
    th = theta_per_fog(theta, net.n_fog, func)
    _check_stability(net, th, v["policy"], func)
    n = checked["n_requests"]
    warmup = int(WARMUP_FRACTION * n)
    streams = np.random.SeedSequence(checked["seed"]).spawn(checked["replications"])
    rows, fogs, first = [], [], None
    for rep, ss in enumerate(streams):
        run = _run(net, th, v, n, np.random.default_rng(ss))
        rows.append({"replication": rep, **_replication_row(run, warmup)})
        fogs.append(run.fog.assign(replication=rep))
        if first is None:
            first = run.records
    reps = pd.DataFrame(rows)
    nodes = (
        pd.concat(fogs)
        .groupby(["fog", "name"], as_index=False)[
            ["utilisation", "mean_in_node", "throughput", "mean_sojourn"]
        ]
        .mean()
    )
    quantities = [c for c in reps.columns if c != "replication"]
    return SimulationResult.from_replications(
        reps,
        "delay",
        quantities,
        confidence=checked["confidence"],
        run_length=n,
        run_unit="requests",
        records=first,
        info={"nodes": nodes, "settings": dict(v, theta=theta), "warmup": warmup},
    )
