"""P1's simulator kernels where the request-by-request twin test (tests/test_fog_simulation.py)
does not look: the path sums the scenario compiler takes from it (the twin reads the same
compiled arrays), the order of cloud records at one instant, the three routes of eq. 2, and
announcements that overtake each other on a link (benchmarks/mutation.py, target
``fog_kernels``)."""

import math

import networkx as nx
import numpy as np
import pytest
from naive_fog import naive_network
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from workbench.fog import kernels as K
from workbench.fog import ring_scenario
from workbench.fog.model import P1Params
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.fog.simulation import _central_node, draw_requests, kernel_arguments


def test_path_inverse_rates_sum_one_over_rate_along_each_shortest_path():
    rng = np.random.default_rng(4)
    g = nx.connected_watts_strogatz_graph(9, 4, 0.4, seed=4)
    n = g.number_of_nodes()
    delay, inv = np.zeros((n, n)), np.zeros((n, n))
    for a, b in g.edges:
        delay[a, b] = delay[b, a] = rng.uniform(0.5, 1.5)
        inv[a, b] = inv[b, a] = rng.uniform(1e-3, 1e-2)
    dist, pred = dijkstra(csr_matrix(delay), return_predecessors=True)
    got = K.path_inverse_rates(dist, pred.astype(np.int64), inv)
    for s in range(n):
        path = nx.shortest_path(g, s, weight=lambda a, b, _: delay[a, b])
        for v in range(n):
            hops = path[v]
            want = sum(inv[a, b] for a, b in zip(hops[:-1], hops[1:], strict=True))
            assert got[s, v] == pytest.approx(want, rel=1e-12, abs=0.0)


def test_cloud_records_at_one_instant_put_events_before_generations():
    # records 0, 1 are generations (n_direct = 2), 2, 3 come from events
    sent = np.array([1.0, 2.0, 2.0, 2.0])
    assert K._sent_later(1, 0, sent, 2) and not K._sent_later(0, 1, sent, 2)
    # at one instant events run first: the generation 1 was scheduled after the event 2
    assert K._sent_later(1, 2, sent, 2) and not K._sent_later(2, 1, sent, 2)
    # two events at one instant: in record order
    assert K._sent_later(3, 2, sent, 2) and not K._sent_later(2, 3, sent, 2)
    assert not K._sent_later(2, 2, sent, 2)


def _run(g, n, seed, **kw):
    net = compile_scenario(g)
    req = draw_requests(net, n, np.random.default_rng(seed), kw.get("announce_period", 0.02))
    p = P1Params(scenario=net, **kw)
    return net, req, K.simulate_network(*kernel_arguments(p, req))


@pytest.mark.parametrize(
    "p_iot, p_cloud, tier",
    [(1.0, 0.0, K.TIER_IOT), (0.0, 1.0, K.TIER_CLOUD), (0.0, 0.0, K.TIER_FOG)],
)
def test_each_route_of_eq2_ends_at_its_tier(p_iot, p_cloud, tier):
    # p^I = 1: every request is processed locally; p^C = 1: at its cloud; p^F = 1 with no
    # offloading: at its fog node
    g = ring_scenario(3, 4, seed=1, p_iot=p_iot, p_cloud=p_cloud)
    _, req, out = _run(g, 300, 2, theta=math.inf, e_max=0, policy="no_offload")
    assert (np.asarray(out.tier) == tier).all()
    assert (np.asarray(out.hops) == 0).all()


@pytest.mark.parametrize("mode", ["distributed", "central", "oracle"])
def test_announcements_that_overtake_each_other_match_the_twin(mode):
    # an announcement every 0.2 ms on fog links of 0.5-1.2 ms: several are in flight on a
    # link at once, queued in each table entry's ring buffer
    g = ring_scenario(4, [3, 5, 2, 4], seed=3, lam_per_iot=25.0, n_cloud=2, cloud_units=2)
    kw = dict(e_max=2, q=0.5, alpha=0.3, mode=mode, policy="offload")
    net, req, out = _run(g, 400, 7, theta=0.02, announce_period=0.0002, **kw)
    theta = np.full(net.n_fog, 0.02)
    twin = naive_network(net, req, theta=theta, period=0.0002, central=_central_node(net), **kw)
    for name in ("tier", "place", "hops", "t_done", "d_wait"):
        np.testing.assert_allclose(getattr(out, name), twin[name], rtol=1e-12, atol=1e-12)


def test_build_scenario_keeps_every_iot_rate():
    # the routes' scenario: one fog node, a rate per IoT node
    layer = nx.Graph()
    layer.add_node(0)
    g = build_scenario(layer, 2, lam_per_iot=3.0, p_cloud=0.5)
    assert compile_scenario(g).iot_rate.sum() == pytest.approx(6.0)


@pytest.mark.parametrize("policy", ["offload", "no_offload"])
def test_node_totals_are_the_sums_of_the_records(policy):
    # sample-path identities over a run that ends with every request done: ∫ (requests in
    # node j) dt is the sum of the sojourns (wait + processing) of the requests served at j
    # (Little's law on one path), busy time the sum of their processing; a unit's count and
    # busy time are those of the cloud requests it served; every fog visit is an arrival
    g = ring_scenario(4, [3, 5, 2, 4], seed=3, lam_per_iot=25.0, p_iot=0.1, p_cloud=0.2)
    net, req, out = _run(g, 600, 5, theta=0.02, e_max=2, policy=policy, announce_period=0.001)
    tier, place = np.asarray(out.tier), np.asarray(out.place)
    assert out.events > 0 and np.isfinite(out.t_done).all()
    sojourn = np.asarray(out.d_wait) + np.asarray(out.d_proc)
    for j in range(net.n_fog):
        here = (tier == K.TIER_FOG) & (place == j)
        assert out.fog_area[j] == pytest.approx(sojourn[here].sum(), rel=1e-9)
        assert out.fog_busy[j] == pytest.approx(np.asarray(out.d_proc)[here].sum(), rel=1e-9)
        assert out.fog_accepted[j] == here.sum()
    reached = (tier != K.TIER_IOT) & (np.asarray(req.route) == K.ROUTE_FOG)
    assert out.fog_arrivals.sum() == reached.sum() + np.asarray(out.hops)[reached].sum()
    cloud = tier == K.TIER_CLOUD
    assert out.unit_served.sum() == cloud.sum()
    assert out.unit_busy.sum() == pytest.approx(np.asarray(out.d_proc)[cloud].sum(), rel=1e-9)
    if policy == "offload":
        assert (np.asarray(out.hops) > 0).any() and cloud.any()
    # announcements stop with the last request: no event after the last completion
    assert out.horizon <= np.max(out.t_done)


def test_a_run_stopped_by_its_event_bound_says_so_and_marks_the_unfinished():
    g = ring_scenario(4, [3, 5, 2, 4], seed=3, lam_per_iot=25.0, n_cloud=2, cloud_units=2)
    net = compile_scenario(g)
    req = draw_requests(net, 300, np.random.default_rng(5), 0.001)
    p = P1Params(scenario=net, theta=0.02, e_max=2, announce_period=0.001)
    full = K.simulate_network(*kernel_arguments(p, req))
    assert full.events > 100 and (np.asarray(full.tier) >= 0).all()
    out = K.simulate_network(*kernel_arguments(p, req, max_events=100))
    # the loop ran past its bound (events > max_events is the caller's sign) and the
    # requests it never finished keep the 'nowhere' marks
    assert 100 < out.events < full.events
    tier, place = np.asarray(out.tier), np.asarray(out.place)
    unfinished = tier < 0
    assert unfinished.any() and (tier[unfinished] == -1).all() and (place[unfinished] == -1).all()
    assert (place[~unfinished] >= 0).all()


def test_light_only_keeps_light_requests_and_sends_heavy_ones_to_the_cloud():
    g = ring_scenario(3, 4, seed=1, p_iot=0.0, p_cloud=0.0)
    _, req, out = _run(g, 300, 2, theta=0.02, e_max=2, policy="light_only")
    light = np.asarray(req.rtype) == 0
    tier = np.asarray(out.tier)
    assert light.any() and (~light).any()
    assert (tier[light] == K.TIER_FOG).all() and (tier[~light] == K.TIER_CLOUD).all()
