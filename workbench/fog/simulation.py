"""Simulate the IoT–fog–cloud network: draw the requests, run the compiled kernel, tidy up.

:func:`simulate` runs independent replications of :func:`run_once` and returns a
:class:`workbench.results.SimulationResult` whose metric is the mean service delay per
request (after the ``warmup`` fraction of each run, 10% by default), with per-node
utilisation in ``info["nodes"]`` and the
per-request records of the first replication in ``records``.

Output analysis (:mod:`workbench.output_analysis`): the series each replication hands the
detector is every request's service delay in generation order, the ``warmup`` fraction
included as its fixed warm-up. The load bound is the model's: a fog node that keeps every request it
receives (θ = ∞, no_offload, light_only) must have ρ < 1 with its own IoT traffic *and* the
requests its neighbours forward to it (:func:`workbench.fog.network.fog_loads`); a node with
a finite θ limits its own queue, so only the detector judges it. Work is bounded before a
run starts: no traffic is refused, memory against ``MEMORY_BUDGET`` (300 bytes per
request), and the event loop gets a bound on its events from the inputs (requests and
announcements), which it reports if ever exceeded.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III (the policy), Sec. V (the simulation
the paper validates its model with; its settings were not recovered, the defaults here are
the workbench's choice).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.fog import kernels as K
from workbench.fog.model import P1Params
from workbench.fog.network import fog_loads
from workbench.fog.params import MODES, POLICIES
from workbench.fog.scenario import Compiled
from workbench.output_analysis import Replication, check_overload, finish, replicate
from workbench.params import REL_HALF_WIDTH as _SHARED_REL_HALF_WIDTH
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.results import SimulationResult
from workbench.validation import (
    ParameterError,
    UnstableRegimeError,
    check_budget,
    check_runs,
)

__all__ = ["simulate", "simulate_to_precision", "run_once", "RunOutput", "warmup_requests"]

# Most events one run may process: the loop's own bound
# follows from the inputs (a few events per request, announcements every T_a until the last
# request is done); a run whose bound exceeds this is refused before it starts.
EVENT_BUDGET = 10**9
# Bytes one run holds per request at its peak: the drawn inputs (7 arrays) and their
# temporaries, the kernel's per-request outputs and work arrays (about 20), the records
# frame (15 columns) and its copies.
BYTES_PER_REQUEST = 300
# work budget of check_runs: the steps one simulated request counts for
STEPS_PER_REQUEST = 150
TIER_NAMES = np.array(["iot", "fog", "cloud"])
TYPE_NAMES = np.array(["light", "heavy"])
ROUTE_NAMES = np.array(["local", "fog", "cloud"])


def draw_requests(net: Compiled, n_requests: int, rng: np.random.Generator, period: float):
    """Poisson requests of every IoT node and type (merged stream), routes and work draws:
    the kernel's :class:`~workbench.fog.kernels.Requests`, one entry per request."""
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
    return K.Requests(
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
    """One run: per-request records and per-node totals.

    Parameters
    ----------
    records : pandas.DataFrame
        One row per request, in generation order: origin, type, route, where it was served
        (tier, place), forwards, generation time, delay and its components [s].
    fog, cloud : pandas.DataFrame
        One row per fog node (utilisation, mean requests in the node, arrivals, acceptances,
        throughput, mean sojourn) over ``horizon``, and per cloud server (utilisation,
        requests served) over ``horizon`` or, when later, the end of its last service.
    horizon : float
        Time of the run's last event [s].
    """

    records: pd.DataFrame
    fog: pd.DataFrame
    cloud: pd.DataFrame
    horizon: float


def _central_node(net: Compiled) -> int:
    """The Central Node: the fog node with the smallest total propagation delay to the rest."""
    return int(np.argmin(net.ff_prop.sum(axis=1)))


def kernel_arguments(p, req: K.Requests, *, theta=None, max_events=None):
    """The kernel's three records for a run of ``p`` on the requests ``req``.

    Parameters
    ----------
    p : P1Params
        The scenario and the policy's settings (``e_max``, ``q``, ``alpha``, ``mode``,
        ``policy``, ``announce_period``, ``ewma_period``).
    req : workbench.fog.kernels.Requests
        The run's random inputs (:func:`draw_requests`).
    theta : numpy.ndarray, optional
        θ per fog node [s], in place of ``p``'s (a candidate of the tuning search); None:
        ``p.thetas``.
    max_events : int, optional
        Where the event loop stops; None: :func:`event_bound`.

    Returns
    -------
    tuple
        ``(K.Requests, K.Network, K.Policy)``, the arguments of
        :func:`workbench.fog.kernels.simulate_network`.
    """
    net = p.network
    if max_events is None:
        max_events = event_bound(p, req)
    network = K.Network(*(getattr(net, name) for name in K.Network._fields))
    settings = K.Policy(
        theta=p.thetas if theta is None else theta,
        e_max=int(p.e_max),
        q=float(p.q),
        alpha=float(p.alpha),
        mode=MODES.index(p.mode),
        policy=POLICIES.index(p.policy),
        announce_period=float(p.announce_period),
        central=_central_node(net),
        ewma_period=float(p.ewma_period),
        max_events=int(min(max_events, 2**62)),
    )
    return req, network, settings


def event_bound(p, req: K.Requests) -> int:
    """An upper bound on the events of one run of ``p`` on the requests ``req``.

    Each request that reaches the fog makes at most e_M + 1 arrivals and one departure;
    announcements (offloading, e_M > 0, not oracle) run every T_a at each fog node until the
    last request is done, which is at most the last arrival at the fog plus every fog
    processing time and e_M + 1 fog-to-fog hops of the slowest link.
    """
    net, e_max = p.network, p.e_max
    n = req.gen_time.size
    events = n * (int(e_max) + 2) + 1
    if p.mode != "oracle" and p.policy == "offload" and e_max > 0 and n:
        fog = req.route == K.ROUTE_FOG
        work = float(req.work[fog].sum()) * float(np.max(1.0 / net.fog_mu))
        hop = (
            float(net.nbr_prop.max() + net.size_bits.max() * net.nbr_inv.max())
            if (net.nbr_prop.size)
            else 0.0
        )
        end = float(req.gen_time[-1]) + float(net.iot_prop.max()) + work + (e_max + 1) * hop
        events += net.n_fog * (int(end / p.announce_period) + 2)
    return events


def _model_load(p, net: Compiled, theta):
    """(ρ, name): the largest load of a fog node that keeps every request it receives.

    ``(None, "")`` when no node keeps every request.

    Such a node (θ = ∞ under offloading, every node under no_offload, Light at every node
    under light_only) has no admission limit: its queue is stable only if ρ < 1 with the
    traffic it really gets, forwarded requests included (:func:`workbench.fog.network.fog_loads`).
    A node with a finite θ admits only while its estimated work is below θ, so it bounds its
    own queue: no load bound applies and the output analysis alone judges the run.
    """
    if p.policy == "all_cloud":
        return None, ""
    keeps = np.isinf(theta) if p.policy == "offload" else np.ones(net.n_fog, bool)
    if not keeps.any():
        return None, ""
    rho = np.where(keeps, fog_loads(p), -np.inf)
    j = int(np.argmax(rho))
    return float(rho[j]), net.fog_names[j]


def check_work(net: Compiled, n: int, func: str, cloud: bool = True) -> None:
    """Refuse a run with nothing to simulate, more work than the budgets allow, or (with
    ``cloud``) a cloud server that would be overloaded even if it got every fog request.

    Parameters
    ----------
    net : Compiled
        The scenario.
    n : int
        Requests per run.
    func : str
        The public function named in the error.
    cloud : bool
        Whether to check the cloud servers (:func:`run_once` does not: one run's records
        are what they are).
    """
    net.require_traffic(func, "so the run would never generate one")
    check_budget(func, "requests", n, n * BYTES_PER_REQUEST, "per-request inputs and records")
    if not cloud:
        return
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


@takes(P1Params, "warmup", "requests", positional=True)
def warmup_requests(p) -> int:
    """The requests of a run dropped as its warm-up.

    Parameters
    ----------
    warmup : float
        The fraction of the run, in [0, 0.9].
    requests : int
        Requests per run.

    Returns
    -------
    int
        ``int(warmup · requests)``.
    """
    return int(p.warmup * p.requests)


#: the arguments of one run, in the order :func:`run_once` takes them positionally (then
#: ``seed`` and ``ewma_period``, written in each decorator for the seed rule of check-paper)
RUN = (
    "scenario",
    "theta",
    "e_max",
    "q",
    "alpha",
    "mode",
    "policy",
    "announce_period",
    "requests",
)


@takes(P1Params, *RUN, "seed", "ewma_period", positional=True)
def run_once(p) -> RunOutput:
    """One replication: per-request records (all requests, no warm-up removed) and node totals.

    Parameters as in :func:`simulate`. No stability check: one run's records are what they
    are (use :func:`simulate` for estimates).

    Returns
    -------
    RunOutput
        ``records`` (one row per request), ``fog`` and ``cloud`` (per node), ``horizon``.
    """
    func = "run_once"
    net = p.network
    check_work(net, p.requests, func, cloud=False)
    return _run(p, net, p.thetas, p.requests, np.random.default_rng(p.seed), func)


def _run(p, net, th, n, rng, func) -> RunOutput:
    req = draw_requests(net, n, rng, p.announce_period)
    bound = event_bound(p, req)
    if bound > EVENT_BUDGET:
        raise ParameterError(
            f"{func}: this run could take up to {bound:.3g} events (announcements every "
            f"T_a = {p.announce_period:g} s over {req.gen_time[-1]:.3g} s of traffic at "
            f"{net.n_fog} fog nodes), more than the event budget of {EVENT_BUDGET:.0e}. Raise "
            "announce_period or the request rates, or lower requests."
        )
    out = K.simulate_network(*kernel_arguments(p, req, theta=th, max_events=bound))
    if out.events > bound:  # cannot happen when the bound holds: reported, never a wrong number
        raise ParameterError(
            f"{func}: the event loop exceeded its budget of {bound:,} events and was stopped."
        )
    records = pd.DataFrame(
        {
            "request": np.arange(n),
            "origin": req.origin,
            "type": pd.Categorical.from_codes(req.rtype, TYPE_NAMES),
            "route": pd.Categorical.from_codes(req.route, ROUTE_NAMES),
            "tier": pd.Categorical.from_codes(out.tier, TIER_NAMES),
            "place": out.place,
            "hops": out.hops,
            "t_gen": req.gen_time,
            "delay": out.t_done - req.gen_time,
            "d_up": out.d_up,
            "d_fwd": out.d_fwd,
            "d_fc": out.d_fc,
            "d_wait": out.d_wait,
            "d_proc": out.d_proc,
            "d_back": out.d_back,
        }
    )
    span = max(out.horizon, 1e-300)
    at_fog = out.tier == K.TIER_FOG
    served_fog = np.bincount(out.place[at_fog], minlength=net.n_fog)
    sojourn = np.bincount(
        out.place[at_fog], weights=(out.d_wait + out.d_proc)[at_fog], minlength=net.n_fog
    )
    fog = pd.DataFrame(
        {
            "fog": np.arange(net.n_fog),
            "name": net.fog_names,
            "utilisation": out.fog_busy / span,
            "mean_in_node": out.fog_area / span,
            "arrivals": out.fog_arrivals,
            "accepted": out.fog_accepted,
            "served": served_fog,
            "throughput": served_fog / span,
            "mean_sojourn": np.divide(
                sojourn, served_fog, out=np.zeros(net.n_fog), where=served_fog > 0
            ),
        }
    )
    units = [slice(a, b) for a, b in itertools.pairwise(net.unit_ptr)]
    # a cloud unit can still be serving after the loop's last event (a cloud arrival): a
    # server's utilisation is over the run up to the end of its last service, never above 1
    at_cloud = out.tier == K.TIER_CLOUD
    cloud_span = np.full(net.n_cloud, span)
    np.maximum.at(cloud_span, out.place[at_cloud], (out.t_done - out.d_back)[at_cloud])
    cloud = pd.DataFrame(
        {
            "cloud": np.arange(net.n_cloud),
            "name": net.cloud_names,
            "utilisation": [out.unit_busy[u].mean() / cloud_span[k] for k, u in enumerate(units)],
            "served": [out.unit_served[u].sum() for u in units],
        }
    )
    return RunOutput(records=records, fog=fog, cloud=cloud, horizon=float(out.horizon))


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


@takes(P1Params, *RUN, "seed", "ewma_period", "confidence", "overload", "warmup", "replications")
def simulate(p) -> SimulationResult:
    """Simulate the network and estimate the mean service delay per request.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled, optional
        A scenario (:mod:`workbench.fog.scenario`); None: :func:`~workbench.fog.default_scenario`.
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
    requests : int
        Requests per replication (the first ``warmup`` fraction is not counted).
    replications : int
    seed : int
    confidence : float
    ewma_period : float, default 0
        0: the EWMA is updated at every departure; T > 0: every T [s] with the mean
        processing time of the last period (the paper's "periodically").
    overload : {"raise", "transient"}, default "raise"
        What to do with an unstable run: a fog node that keeps every request (θ = ∞,
        no_offload, light_only) at load ρ ≥ 1 with the traffic it really gets (forwarded
        requests included), or a run the output analysis finds non-stationary. "raise":
        :class:`UnstableRegimeError` (before running when the load says so); "transient":
        the finite-horizon numbers, with ``stationary=False`` and a note.
    warmup : float, optional
        Fraction of each run's requests (in generation order) dropped before estimating, in
        [0, 0.9]; ``None``: the table's default, 0.1. The stationarity detector's cut comes
        on top.

    Returns
    -------
    SimulationResult
        metric ``delay`` [s]; also ``delay_light``, ``delay_heavy``, ``delay_per_iot``,
        ``share_fog``, ``share_cloud``, ``mean_hops``, utilisations; ``info["nodes"]``: per
        fog node means over replications; ``records``: the first replication's requests;
        ``stationarity``: the detector's verdict on each request's delay in generation
        order (the ``warmup`` fraction is its fixed warm-up).

    Raises
    ------
    UnstableRegimeError
        See ``overload``; also a cloud server that would be overloaded with every fog
        request sent to it.
    ParameterError
        A value out of range, a scenario without traffic, or a run above the memory or
        event budget.
    """
    func = "simulate"
    plan = _plan(func, p)
    check_runs(func, p.replications, p.requests, STEPS_PER_REQUEST, "requests")
    reps = replicate(plan["one"], replications=p.replications, seed=p.seed)
    return _attach_nodes(plan, finish(reps, func=func, **plan["finish"]))


REL_HALF_WIDTH = _SHARED_REL_HALF_WIDTH.default
"""The relative precision :func:`simulate_to_precision` aims at when no target is given."""


@takes(P1Params, *RUN, "seed", "ewma_period", "confidence", "overload", "warmup")
@precision_keywords(unit="s")
def simulate_to_precision(p, *, target) -> SimulationResult:
    """:func:`simulate` with replications added until the mean delay is known precisely.

    The shared precision loop (:func:`workbench.precision.to_precision`): replication r is
    that of ``simulate(seed=seed)``, so the same seed gives the same numbers. ``overload``
    applies to the model's load check before running; a run the output analysis finds
    non-stationary always stops with :class:`UnstableRegimeError` (a precision target means
    nothing there). The other keywords are :func:`simulate`'s.

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, with as many replications as the target took.
    """
    func = "simulate_to_precision"
    plan = _plan(func, p)
    result = to_precision(plan["one"], func=func, target=target, seed=p.seed, **plan["finish"])
    return _attach_nodes(plan, result)


def _plan(func, p):
    """The replication function and :func:`workbench.output_analysis.finish`'s arguments
    of a run of ``p``, after the checks of the work, the cloud and the model's load."""
    net = p.network
    th = p.thetas
    n = p.requests
    check_work(net, n, func)
    rho, node = _model_load(p, net, th)
    # refuse before running when the model already says a queue grows without bound
    what = f"fog node {node!r} keeps every request it receives (forwarded ones included)"
    notes = check_overload(func, p.overload, rho=rho, what=what)
    warmup = warmup_requests(p)
    settings = p.pick("q", "alpha", "mode", "policy", "announce_period", "ewma_period")
    settings.update(e_max=p.e_max, theta=p.theta)
    fogs = {}

    def one(seed_sequence, index):
        run = _run(p, net, th, n, np.random.default_rng(seed_sequence), func)
        fogs[index] = run.fog.assign(replication=index)
        delay = run.records["delay"].to_numpy()
        records = run.records if index == 0 else None
        return Replication(_replication_row(run, warmup), delay, warmup, records)

    quantities = list(QUANTITY_BOUNDS)
    return {
        "one": one,
        "fogs": fogs,
        "finish": dict(
            metric="delay",
            quantities=quantities,
            confidence=p.confidence,
            run_length=n,
            run_unit="requests",
            overload=p.overload,
            bounds=QUANTITY_BOUNDS,
            rho=rho,
            notes=[n_ for n_ in notes if not n_.startswith("overloaded")],
            unit="s",
            info={"settings": settings, "warmup": warmup},
        ),
    }


def _attach_nodes(plan, result) -> SimulationResult:
    fogs = [plan["fogs"][i] for i in sorted(plan["fogs"])][: len(result.frame)]
    nodes = (
        pd.concat(fogs)
        .groupby(["fog", "name"], as_index=False)[
            ["utilisation", "mean_in_node", "throughput", "mean_sojourn"]
        ]
        .mean()
    )
    return result.with_(info={**result.info, "nodes": nodes})


QUANTITY_BOUNDS = {
    "delay": (0.0, math.inf),
    "delay_light": (0.0, math.inf),
    "delay_heavy": (0.0, math.inf),
    "delay_per_iot": (0.0, math.inf),
    "share_fog": (0.0, 1.0),
    "share_cloud": (0.0, 1.0),
    "mean_hops": (0.0, math.inf),
    "fog_utilisation": (0.0, 1.0),
    "max_fog_utilisation": (0.0, 1.0),
    "cloud_utilisation": (0.0, 1.0),
}
