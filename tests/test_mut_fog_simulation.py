"""P1's simulation module (workbench.fog.simulation) where the statistical tests do not look:
the request draws against the scenario's rates and eq. 2's routes, the event bound against
its slow twin and the kernel's own count, the event, memory and work budgets at their
edges, the cloud check and the model's load bound against hand-computed loads, the node
tables against the utilisation law, Little's law and conservation of requests, and the
intervals clipped to each quantity's range (benchmarks/mutation.py, target
``fog_simulation``)."""

import math

import numpy as np
import pytest
from naive_fog import event_bound_naive

from workbench import ParameterError, UnstableRegimeError, validation
from workbench.fog import default_scenario, ring_scenario, run_once, simulate, with_traffic
from workbench.fog import kernels as K
from workbench.fog.model import P1Params
from workbench.fog.scenario import compile_scenario
from workbench.fog.simulation import (
    draw_requests,
    event_bound,
    kernel_arguments,
    simulate_to_precision,
    warmup_requests,
)

BUDGET = 10**9  # the most events one run may process (the module's documented budget)


class Reached(Exception):
    """Raised by a stand-in kernel: every check before the run passed."""


def _stop_at_kernel(monkeypatch):
    """Replace the compiled kernel by one that records its settings and stops the call."""
    seen = {}

    def kernel(req, network, policy):
        seen["policy"] = policy
        seen["n"] = req.gen_time.size
        raise Reached

    monkeypatch.setattr(K, "simulate_network", kernel)
    return seen


def _uneven_routes():
    """Three fog nodes whose IoT nodes route differently (p^I, p^C per fog node)."""
    g = with_traffic(default_scenario(0, n_fog=3), light_fraction=0.3)
    shares = {0: (0.6, 0.1), 1: (0.1, 0.5), 2: (0.25, 0.25)}
    for v, d in g.nodes(data=True):
        if d["role"] == "iot":
            (fog,) = list(g.neighbors(v))
            d["p_iot"], d["p_cloud"] = shares[list(g.nodes).index(fog) % 3]
    return g


def test_draws_are_the_scenarios_poisson_streams_routes_and_unit_draws():
    net = compile_scenario(_uneven_routes())
    assert len({tuple(p) for p in net.iot_p}) == 3  # the routes really differ by IoT node
    n, period = 200_000, 0.05
    req = draw_requests(net, n, np.random.default_rng(3), period)
    rates = net.iot_rate
    total = rates.sum()
    gaps = np.diff(req.gen_time, prepend=0.0)
    assert (gaps > 0).all()
    # the merged stream of every (IoT node, type) is Poisson at the total rate
    assert abs(gaps.mean() * total - 1.0) < 5 / math.sqrt(n)
    assert abs(gaps.std() * total - 1.0) < 0.02
    # each request is of a pair with probability rate / total
    counts = np.zeros_like(rates)
    np.add.at(counts, (req.origin, req.rtype), 1)
    share = rates / total
    z = (counts - n * share) / np.sqrt(n * share * (1 - share))
    assert np.abs(z).max() < 5, z
    # eq. 2: each request takes the route p^I, p^F, p^C of its own IoT node
    for i in range(net.n_iot):
        mine = req.origin == i
        for route, col in ((K.ROUTE_LOCAL, 0), (K.ROUTE_FOG, 1), (K.ROUTE_CLOUD, 2)):
            want, m = net.iot_p[i, col], mine.sum()
            got = np.mean(req.route[mine] == route)
            assert abs(got - want) <= 5 * math.sqrt(want * (1 - want) / m) + 1e-12, (i, route)
    # work factors: unit exponential; the unit and queue picks: U(0, 1)
    assert abs(req.work.mean() - 1.0) < 5 / math.sqrt(n) and req.work.min() >= 0
    assert abs(req.work.var() - 1.0) < 0.05
    for u in (req.unit_u, req.select_u):
        assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    # one announcement phase per fog node, within the first period
    assert req.announce_phase.shape == (net.n_fog,)
    assert ((0 <= req.announce_phase) & (req.announce_phase < period)).all()
    for a in (req.origin, req.rtype, req.route):
        assert a.dtype == np.int64 and a.shape == (n,)


class EdgeDraws:
    """A stand-in for numpy's Generator whose uniform draws are given: exponential draws
    are their mean, uniform(a, b) is a."""

    def __init__(self, *uniforms):
        self.uniforms = list(uniforms)

    def exponential(self, scale, size):
        return np.full(size, scale)

    def random(self, size):
        return np.asarray(self.uniforms.pop(0), float)

    def uniform(self, low, high, size):
        return np.full(size, low)


def test_eq_2_splits_the_unit_interval_into_half_open_routes():
    """A draw u takes the route of [0, p^I), [p^I, p^I + p^F) or [p^I + p^F, 1): a draw on a
    boundary belongs to the next route, and the first (IoT node, type) pair whose
    cumulative share exceeds the pick draw is chosen."""
    net = compile_scenario(_uneven_routes())
    p = net.iot_p[0]
    u = [0.0, np.nextafter(p[0], 0), p[0], p[0] + p[1], np.nextafter(1.0, 0)]
    req = draw_requests(net, 5, EdgeDraws(np.zeros(5), u, np.zeros(5), np.zeros(5)), 0.05)
    assert req.origin.tolist() == [0] * 5 and req.rtype.tolist() == [0] * 5
    local, fog, cloud = K.ROUTE_LOCAL, K.ROUTE_FOG, K.ROUTE_CLOUD
    assert req.route.tolist() == [local, local, fog, cloud, cloud]
    # the pick draw: the last pair takes every draw up to 1, the first the draws below its share
    rates = net.iot_rate.ravel()
    share = np.cumsum(rates / rates.sum())
    pick = [0.0, np.nextafter(share[0], 0), share[0], np.nextafter(1.0, 0)]
    req = draw_requests(net, 4, EdgeDraws(pick, np.zeros(4), np.zeros(4), np.zeros(4)), 0.05)
    last = net.n_iot - 1
    assert req.origin.tolist() == [0, 0, 0, last] and req.rtype.tolist() == [0, 0, 1, 1]


def test_kernel_arguments_take_theta_and_max_events_by_keyword_only():
    net = compile_scenario(default_scenario(0, n_fog=3))
    req = draw_requests(net, 100, np.random.default_rng(1), 0.05)
    with pytest.raises(TypeError):
        kernel_arguments(P1Params(scenario=net), req, None, 10)


BOUND_CASES = [
    ("distributed", "offload", 1, 0.02),
    # the same choices named by strings built at run time (not the interned literals)
    ("".join(["ora", "cle"]), "offload", 2, 0.02),
    ("distributed", "".join(["off", "load"]), 1, 0.02),
    ("central", "offload", 3, 0.01),
    ("oracle", "offload", 2, 0.02),
    ("distributed", "offload", 0, 0.02),
    ("distributed", "no_offload", 2, 0.02),
    ("distributed", "light_only", 1, 0.02),
    ("distributed", "all_cloud", 1, 0.02),
]


BOUND_IDS = [
    "offload",
    "oracle-built",
    "offload-built",
    "central-emax3",
    "oracle",
    "emax0",
    "no_offload",
    "light_only",
    "all_cloud",
]


@pytest.mark.parametrize(("mode", "policy", "e_max", "period"), BOUND_CASES, ids=BOUND_IDS)
def test_event_bound_is_its_documented_sum_and_holds(mode, policy, e_max, period):
    g = with_traffic(default_scenario(1, n_fog=4), load=1.3)
    net = compile_scenario(g)
    req = draw_requests(net, 3_000, np.random.default_rng(8), period)
    kw = dict(mode=mode, policy=policy, e_max=e_max, announce_period=period)
    p = P1Params(scenario=net, theta=0.03, **kw)
    bound = event_bound(p, req)
    assert bound == event_bound_naive(
        net, req, e_max=e_max, mode=mode, policy=policy, period=period
    )
    out = K.simulate_network(*kernel_arguments(p, req))
    assert out.events <= bound
    assert (out.t_done > 0).all()  # the run finished every request inside its bound


def test_event_bound_of_a_lone_fog_node_and_of_no_request():
    net = compile_scenario(ring_scenario(1, 3))
    assert net.nbr_prop.size == 0  # no fog link: no hop after the work
    req = draw_requests(net, 500, np.random.default_rng(2), 0.01)
    p = P1Params(scenario=net, theta=0.01, e_max=2, announce_period=0.01)
    want = event_bound_naive(net, req, e_max=2, mode="distributed", policy="offload", period=0.01)
    assert event_bound(p, req) == want
    empty = draw_requests(net, 0, np.random.default_rng(2), 0.01)
    assert event_bound(p, empty) == 1


def _slow_traffic():
    """One fog node, one IoT node at 10⁻⁴ requests/s: 100 requests span about 10⁶ s."""
    return compile_scenario(ring_scenario(1, 1, lam_per_iot=1e-4))


def _period_for(net, n, seed, e_max, events):
    """The T_a at which a run of ``n`` requests (one fog node) has a bound of ``events``."""
    req = draw_requests(net, n, np.random.default_rng(seed), 1.0)
    base = event_bound_naive(net, req, e_max=e_max, mode="oracle", policy="offload", period=1.0)
    k = events - base - 2  # one node: floor(end / T_a) + 2 announcements
    end = req.gen_time[-1] + net.iot_prop.max()
    end += req.work[req.route == K.ROUTE_FOG].sum() / net.fog_mu.min()
    period = end / (k + 0.5)
    got = event_bound_naive(net, req, e_max=e_max, mode="central", policy="offload", period=period)
    assert got == events
    return period, req


def test_a_run_at_the_event_budget_runs_and_one_event_more_is_refused(monkeypatch):
    net = _slow_traffic()
    kw = dict(scenario=net, theta=0.02, e_max=1, mode="central", requests=100, seed=2)
    seen = _stop_at_kernel(monkeypatch)
    period, _ = _period_for(net, 100, 2, 1, BUDGET)
    with pytest.raises(Reached):
        run_once(announce_period=period, **kw)
    assert seen["policy"].max_events == BUDGET  # the loop stops at the run's own bound
    period, req = _period_for(net, 100, 2, 1, BUDGET + 1)
    with pytest.raises(ParameterError) as err:
        run_once(announce_period=period, **kw)
    msg = str(err.value)
    # it names the bound, the period, the traffic's span and the fog nodes
    span = f"{req.gen_time[-1]:.3g} s of traffic at 1 fog nodes"
    assert f"{req.gen_time[-2]:.3g}" != f"{req.gen_time[-1]:.3g}"
    assert msg.startswith("run_once: this run could take up to 1e+09 events")
    assert f"T_a = {period:g} s" in msg and span in msg and "budget of 1e+09" in msg


def test_a_budget_of_events_below_the_bound_is_never_a_result(monkeypatch):
    g = default_scenario(0, n_fog=3)
    real = K.simulate_network
    for extra, fails in ((0, False), (1, True)):

        def kernel(req, network, policy, extra=extra):
            out = real(req, network, policy)
            return out._replace(events=policy.max_events + extra)

        monkeypatch.setattr(K, "simulate_network", kernel)
        if fails:
            with pytest.raises(ParameterError, match="run_once: the event loop exceeded"):
                run_once(g, requests=300, seed=1)
        else:
            assert len(run_once(g, requests=300, seed=1).records) == 300


def test_kernel_arguments_cap_the_event_count_to_the_kernels_integer():
    net = compile_scenario(default_scenario(0, n_fog=3))
    req = draw_requests(net, 200, np.random.default_rng(1), 0.05)
    p = P1Params(scenario=net)
    _, _, settings = kernel_arguments(p, req, max_events=10**30)
    assert settings.max_events == 2**62
    _, _, settings = kernel_arguments(p, req, theta=np.array([0.5, 0.0, math.inf]))
    assert settings.theta.tolist() == [0.5, 0.0, math.inf]
    assert settings.max_events == event_bound(p, req)


def test_memory_budget_is_300_bytes_per_request(monkeypatch):
    g = default_scenario(0, n_fog=3)
    seen = _stop_at_kernel(monkeypatch)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 300 * 1_000)
    for call in (run_once, simulate):
        with pytest.raises(Reached):
            call(scenario=g, requests=1_000, seed=1)
        assert seen.pop("n") == 1_000
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 300 * 1_000 - 1)
    for call in (run_once, simulate):
        with pytest.raises(ParameterError, match=f"'requests' parameter of {call.__name__}"):
            call(scenario=g, requests=1_000, seed=1)
        assert "n" not in seen


def test_work_budget_is_150_steps_per_simulated_request(monkeypatch):
    g = default_scenario(0, n_fog=3)
    _stop_at_kernel(monkeypatch)
    monkeypatch.setattr(validation, "WORK_BUDGET", 3 * 1_000 * 150)
    with pytest.raises(Reached):
        simulate(scenario=g, requests=1_000, replications=3)
    monkeypatch.setattr(validation, "WORK_BUDGET", 3 * 1_000 * 150 - 1)
    with pytest.raises(ParameterError, match="'replications' parameter of simulate"):
        simulate(scenario=g, requests=1_000, replications=3)


def _cloud_load(lam, *, p_iot=0.2, p_cloud=0.3, light=0.4, mu=(50.0, 5.0), units=2, iots=4):
    """The cloud's load per unit if every fog request went there, by hand: each IoT node
    sends (p^F + p^C) of its λ to the fog or the cloud; Light and Heavy take 1/μ', 1/μ''."""
    per_iot = lam * (light / mu[0] + (1 - light) / mu[1]) * (1 - p_iot)
    return iots * per_iot / units


def _cloud_scenario(lam):
    return ring_scenario(
        2,
        [3, 1],
        lam_per_iot=lam,
        light_fraction=0.4,
        p_iot=0.2,
        p_cloud=0.3,
        cloud_mu=(50.0, 5.0),
        cloud_units=2,
    )


def test_a_cloud_overloaded_by_every_fog_request_is_refused_by_hand_computed_load(monkeypatch):
    seen = _stop_at_kernel(monkeypatch)
    lam = 1.0 / _cloud_load(1.0)  # the rate at which the cloud's load per unit is 1
    below, above = _cloud_scenario(0.99 * lam), _cloud_scenario(1.01 * lam)
    with pytest.raises(Reached):
        simulate(scenario=below, requests=1_000)
    assert seen.pop("n") == 1_000
    with pytest.raises(UnstableRegimeError) as err:
        simulate(scenario=above, requests=1_000)
    assert f"per unit is {1.01:.4g} ≥ 1" in str(err.value)
    name = compile_scenario(above).cloud_names[0]
    assert f"cloud server {name!r}" in str(err.value)
    with pytest.raises(Reached):  # one run's records are what they are: run_once runs
        run_once(scenario=above, requests=1_000)


def test_a_cloud_at_a_load_of_exactly_one_is_refused():
    # one IoT node, every request to the fog or the cloud, Z = Z' = 1/4 s: ρ = 4 · 1/4 = 1
    g = ring_scenario(
        1, 1, lam_per_iot=4.0, light_fraction=0.5, p_iot=0.0, cloud_mu=(4.0, 4.0), cloud_units=1
    )
    with pytest.raises(UnstableRegimeError, match="per unit is 1 ≥ 1"):
        simulate(scenario=g, requests=1_000)


def _pair(iots=(3, 1), lam=4.0):
    """Two fog nodes on a path, Light share 0.4, p^I = 0.2, p^C = 0.1."""
    return ring_scenario(2, list(iots), lam_per_iot=lam, light_fraction=0.4, p_iot=0.2, p_cloud=0.1)


def _fog_load(net, j, n_iot, light_only=False):
    """ρ of fog node j keeping the p^F share of ``n_iot`` IoT nodes' requests (by hand)."""
    lam = net.iot_rate[0]  # every IoT node has the same rates
    work = lam[0] / net.fog_mu[j, 0] + (0.0 if light_only else lam[1] / net.fog_mu[j, 1])
    return n_iot * work * net.iot_p[0, 1]


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        (dict(policy="no_offload"), lambda net: _fog_load(net, 0, 3)),
        (dict(policy="light_only"), lambda net: _fog_load(net, 0, 3, light_only=True)),
        # θ = ∞ at node 0: it keeps its own requests and all node 1 forwards (θ = 0)
        (dict(theta=[math.inf, 0.0], e_max=1), lambda net: _fog_load(net, 0, 4)),
        (dict(theta=[0.0, math.inf], e_max=1), lambda net: _fog_load(net, 1, 4)),
        (dict(theta=[0.05, 0.05], policy="".join(["off", "load"])), lambda net: None),
        (dict(theta=[0.05, 0.05]), lambda net: None),
        (dict(policy="all_cloud"), lambda net: None),
        # the same policy named by a string built at run time (not the interned literal)
        (dict(policy="".join(["all_", "cloud"])), lambda net: None),
    ],
)
def test_the_models_load_bound_is_the_node_that_keeps_everything(kw, want):
    g = _pair(lam=6.0)
    net = compile_scenario(g)
    res = simulate(scenario=g, requests=2_000, replications=2, seed=3, **kw)
    rho = want(net)
    if rho is None:
        assert res.stationarity.rho is None
    else:
        assert 0.02 < rho < 1
        assert res.stationarity.rho == pytest.approx(rho, rel=1e-9)


def test_an_overloaded_node_that_keeps_everything_is_named():
    net = compile_scenario(_pair(iots=(1, 6), lam=15.0))
    assert _fog_load(net, 1, 6) > 1 > _fog_load(net, 0, 1)
    with pytest.raises(UnstableRegimeError) as err:
        simulate(scenario=net, policy="no_offload", requests=1_000)
    assert f"fog node {net.fog_names[1]!r} keeps every request" in str(err.value)


def test_node_tables_obey_the_utilisation_law_littles_law_and_conservation():
    g = with_traffic(default_scenario(0, n_fog=3), load=1.15)
    run = run_once(g, theta=0.2, e_max=1, requests=30_000, seed=5)
    rec, fog, cloud, span = run.records, run.fog, run.cloud, run.horizon
    assert span >= rec["t_gen"].to_numpy()[-1]
    tier = rec["tier"].to_numpy()
    # conservation: every request is served once, locally, at a fog node or in the cloud
    assert (tier == "iot").sum() + fog["served"].sum() + cloud["served"].sum() == len(rec)
    net = compile_scenario(g)
    for j in range(net.n_fog):
        mine = rec[(tier == "fog") & (rec["place"].to_numpy() == j)]
        row = fog.iloc[j]
        assert row["served"] == len(mine) and row["throughput"] == len(mine) / span
        # the utilisation law: busy time is the sum of the processing times served
        assert row["utilisation"] == pytest.approx(mine["d_proc"].sum() / span, rel=1e-9)
        sojourn = (mine["d_wait"] + mine["d_proc"]).mean()
        assert row["mean_sojourn"] == pytest.approx(sojourn, rel=1e-9)
        # Little's law, L = X · W, on the node's time-average number of requests
        assert row["mean_in_node"] == pytest.approx(row["throughput"] * sojourn, rel=0.02)
    assert fog["mean_in_node"].max() > 1.5  # a loaded node: L above one request
    for k in range(net.n_cloud):
        mine = rec[(tier == "cloud") & (rec["place"].to_numpy() == k)]
        assert cloud["served"].iloc[k] == len(mine)
        want = mine["d_proc"].sum() / (net.cloud_units[k] * span)
        assert cloud["utilisation"].iloc[k] == pytest.approx(want, rel=1e-9)


def test_a_run_shorter_than_a_second_keeps_the_utilisation_law():
    g = with_traffic(default_scenario(0, n_fog=3), load=3.0)
    run = run_once(g, requests=100, seed=2)
    assert run.horizon < 0.6  # about 500 requests per second
    rec = run.records
    for j in range(3):
        mine = rec[(rec["tier"] == "fog").to_numpy() & (rec["place"].to_numpy() == j)]
        want = mine["d_proc"].sum() / run.horizon
        assert run.fog["utilisation"].iloc[j] == pytest.approx(want, rel=1e-9)
        assert run.fog["throughput"].iloc[j] == pytest.approx(len(mine) / run.horizon)


def test_a_fog_node_that_serves_nothing_has_zero_sojourn():
    g = _pair()
    run = run_once(g, policy="all_cloud", requests=500, seed=1)
    assert (run.fog["served"] == 0).all() and (run.fog["mean_sojourn"] == 0).all()
    assert (run.fog["utilisation"] == 0).all()


RANGES = {
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


def _clipped(res, crossing):
    """Every interval inside its quantity's range (a delay, a share, a utilisation), and the
    ``crossing`` ones cut at the range's end their raw Student-t interval crosses."""
    s = res.summary.set_index("quantity")
    for q, (low, high) in RANGES.items():
        row = s.loc[q]
        assert low <= row["ci_low"] <= row["estimate"] <= row["ci_high"] <= high, q
    for q, side in crossing.items():
        row = s.loc[q]
        if side == "high":
            assert row["estimate"] + row["half_width"] > 1.0, q  # the raw interval crosses 1
            assert row["ci_high"] == 1.0, q
        else:
            assert row["estimate"] - row["half_width"] < 0.0, q  # the raw interval crosses 0
            assert row["ci_low"] == 0.0, q


def test_utilisation_and_share_intervals_stop_at_one_on_a_saturated_node():
    # one fog node at ρ ≈ 4 keeps everything: busy from its first request to the end
    g = with_traffic(ring_scenario(1, 15), load=4.0, p_cloud=0.0, p_iot=0.002)
    res = simulate(
        scenario=g,
        policy="no_offload",
        overload="transient",
        requests=4_000,
        replications=2,
        seed=1,
    )
    assert not res.stationary
    assert sum(n.startswith("overloaded") for n in res.notes) == 1  # said once, not twice
    high = ("share_fog", "fog_utilisation", "max_fog_utilisation")
    _clipped(res, dict.fromkeys(high, "high"))


def _busy_cloud():
    """Every request to one cloud unit (Z = Z' = 10 ms) at a load per unit of 0.995."""
    lam = 0.995 / (15 * 0.998 / 100.0)
    return ring_scenario(
        1, 15, lam_per_iot=lam, p_iot=0.002, p_cloud=0.0, cloud_mu=(100.0, 100.0), cloud_units=1
    )


def test_a_cloud_serving_after_the_last_event_is_never_busier_than_the_run():
    # the last cloud arrival is the loop's last event; the unit's backlog is served after it
    run = run_once(_busy_cloud(), policy="all_cloud", requests=4_000, seed=2)
    rec = run.records
    end = (rec["t_gen"] + rec["delay"] - rec["d_back"])[rec["tier"] == "cloud"].max()
    assert end > run.horizon * 1.01  # a backlog outlives the last event
    # the utilisation law over the run up to the end of the cloud's last service
    want = rec["d_proc"][rec["tier"] == "cloud"].sum() / end
    assert run.cloud["utilisation"].iloc[0] == pytest.approx(want, rel=1e-9)
    assert run.cloud["utilisation"].iloc[0] <= 1.0


def test_cloud_utilisation_and_share_intervals_stop_at_one_on_a_busy_cloud():
    res = simulate(
        scenario=_busy_cloud(),
        policy="all_cloud",
        overload="transient",
        requests=4_000,
        replications=2,
        seed=2,
    )
    _clipped(res, dict.fromkeys(("share_cloud", "cloud_utilisation"), "high"))


@pytest.mark.parametrize(
    ("seed", "low"),
    [
        (3, ("delay", "delay_light", "delay_heavy", "delay_per_iot", "share_cloud")),
        (3, ("mean_hops", "fog_utilisation", "max_fog_utilisation", "cloud_utilisation")),
        (5, ("share_fog",)),
    ],
)
def test_intervals_of_short_runs_stop_at_zero(seed, low):
    # 50 measured requests per replication, two replications: Student-t's 12.7 makes the
    # raw intervals of delays, shares, hops and utilisations reach below zero
    g = with_traffic(default_scenario(2, n_fog=3), p_iot=0.05, p_cloud=0.02)
    res = simulate(
        scenario=g, theta=0.05, e_max=1, requests=100, warmup=0.5, replications=2, seed=seed
    )
    _clipped(res, dict.fromkeys(low, "low"))


def test_the_warm_up_is_the_fraction_of_the_requests_rounded_down():
    assert warmup_requests(0.1, 1_000) == 100
    assert warmup_requests(0.25, 1_003) == 250
    assert warmup_requests(0.0, 500) == 0
    g = default_scenario(0, n_fog=3)
    res = simulate(scenario=g, requests=1_003, replications=2, warmup=0.25)
    assert res.info["warmup"] == 250


def test_records_are_the_first_replications_and_nodes_average_every_replication():
    g = default_scenario(0, n_fog=3)
    res = simulate(scenario=g, requests=1_500, replications=3, seed=6)
    rec = res.records
    assert len(rec) == 1_500 and rec["request"].tolist() == list(range(1_500))
    # the first replication's records give its row (after the warm-up of 150 requests)
    kept = rec.iloc[150:]
    first = res.frame.iloc[0]
    assert first["delay"] == pytest.approx(kept["delay"].mean(), rel=1e-12)
    assert first["mean_hops"] == pytest.approx(kept["hops"].mean(), rel=1e-12)
    assert first["share_fog"] == pytest.approx(np.mean(kept["tier"] == "fog"), rel=1e-12)
    light = (kept["type"] == "light").to_numpy()
    assert first["delay_light"] == pytest.approx(kept["delay"][light].mean(), rel=1e-12)
    assert first["delay_heavy"] == pytest.approx(kept["delay"][~light].mean(), rel=1e-12)
    per_iot = kept.groupby("origin")["delay"].mean().mean()
    assert first["delay_per_iot"] == pytest.approx(per_iot, rel=1e-12)
    # the node table is the mean over replications: its mean utilisation is the frame's
    nodes = res.info["nodes"]
    assert nodes["name"].tolist() == compile_scenario(g).fog_names
    assert nodes["fog"].tolist() == [0, 1, 2]
    assert nodes["utilisation"].mean() == pytest.approx(res.frame["fog_utilisation"].mean())
    assert nodes["utilisation"].max() <= res.frame["max_fog_utilisation"].max()


def test_precision_loop_keeps_the_node_table_of_the_replications_it_reports():
    g = default_scenario(0, n_fog=3)
    res = simulate_to_precision(
        scenario=g, requests=2_000, rel_half_width=0.05, initial=3, progress=False, seed=2
    )
    nodes = res.info["nodes"]
    assert nodes["utilisation"].mean() == pytest.approx(res.frame["fog_utilisation"].mean())
    assert res.replications == len(res.frame) >= 3


def test_the_precision_loop_shows_its_progress_unless_told_not_to(capsys):
    kw = dict(scenario=default_scenario(0, n_fog=3), requests=1_000, rel_half_width=0.5)
    simulate_to_precision(**kw, initial=2)
    shown = capsys.readouterr().err
    assert "simulate_to_precision" in shown and "%" in shown  # a text bar on stderr
    simulate_to_precision(**kw, initial=2, progress=False)
    assert capsys.readouterr().err == ""


def test_a_run_of_heavy_requests_only_has_a_heavy_delay_and_no_light_one():
    g = with_traffic(default_scenario(0, n_fog=3), light_fraction=0.0)
    res = simulate(scenario=g, requests=1_000, replications=2)
    assert math.isnan(res["delay_light"])
    assert res["delay_heavy"] == pytest.approx(res["delay"], rel=1e-12)
