"""P1's simulator kernels where the request-by-request twin test (tests/test_fog_simulation.py)
does not look: the path sums the scenario compiler takes from it (the twin reads the same
compiled arrays), the order of cloud records at one instant, the three routes of eq. 2, and
announcements that overtake each other on a link (benchmarks/mutation.py, target
``fog_kernels``)."""

import dataclasses
import math

import networkx as nx
import numpy as np
import pytest
from naive_fog import naive_network
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from workbench.fog import kernels as K
from workbench.fog import ring_scenario, run_once
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
    # the public records name each request's route of eq. 2 and the tier that served it
    run = run_once(g, theta=math.inf, e_max=0, policy="no_offload", requests=300, seed=2)
    name = {K.TIER_IOT: "local", K.TIER_FOG: "fog", K.TIER_CLOUD: "cloud"}[tier]
    assert run.records["route"].astype(str).eq(name).all()
    assert run.records["tier"].astype(str).eq({"local": "iot"}.get(name, name)).all()


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


# ------------------------------------------- crafted runs: exact times, ties, event bound
# Every delay below is a multiple of 1/16 s (exact in binary), so events meet at one instant
# by construction and the documented tie rules decide: events at equal times run in the
# order they were scheduled, and cloud arrivals at one instant in the order they were sent.


def _exact_network(layer, *, fc_prop=None, nbr_prop=0.0625):
    """One IoT node per fog node; links without transmission time (1/R = 0); uplink
    1/16 s, fog-to-fog paths 1/8 s, fog links ``nbr_prop``, cloud paths 1/8 s, fog-to-cloud
    ``fc_prop`` (1/2 s); mean processing 1/4 s everywhere, one cloud unit."""
    g = build_scenario(layer, 1, seed=0, cloud_units=1)
    net = compile_scenario(g)
    nf, nc, ni = net.n_fog, net.n_cloud, net.n_iot
    return dataclasses.replace(
        net,
        iot_prop=np.full(ni, 0.0625),
        iot_inv=np.zeros(ni),
        nbr_prop=np.full(net.nbr_idx.size, nbr_prop),
        nbr_inv=np.zeros(net.nbr_idx.size),
        ff_prop=0.125 * (1 - np.eye(nf)),
        ff_inv=np.zeros((nf, nf)),
        fc_prop=np.full(nf, 0.5) if fc_prop is None else np.asarray(fc_prop, float),
        fc_inv=np.zeros(nf),
        cf_prop=np.full((nc, nf), 0.125),
        cf_inv=np.zeros((nc, nf)),
        fog_mu=np.full((nf, 2), 4.0),
        cloud_mean=np.full((nc, 2), 0.25),
        iot_local_mean=np.full((ni, 2), 0.25),
    )


def _requests(net, gen, fog, route, work, phase):
    """Light requests generated at ``gen`` by the IoT node of fog node ``fog[r]``."""
    n = len(gen)
    iot_of = [int(np.flatnonzero(net.iot_fog == j)[0]) for j in range(net.n_fog)]
    return K.Requests(
        np.asarray(gen, float),
        np.array([iot_of[j] for j in fog], np.int64),
        np.zeros(n, np.int64),
        np.asarray(route, np.int64),
        np.asarray(work, float),
        np.full(n, 0.5),
        np.full(n, 0.5),
        np.asarray(phase, float),
    )


def _crafted_run(net, req, theta, *, e_max=1, mode="distributed", policy="offload", **kw):
    """The kernel's outcome and, unless ``max_events`` is given, its slow twin's records."""
    theta = np.asarray(theta, float)
    settings = K.Policy(
        theta,
        e_max,
        0.5,
        0.0,
        ("distributed", "central", "oracle").index(mode),
        ("offload", "no_offload", "all_cloud", "light_only").index(policy),
        10.0,  # announce period: only the first announcement of each node matters
        0,
        0.0,
        kw.get("max_events", 10**6),
    )
    network = K.Network(*(getattr(net, name) for name in K.Network._fields))
    out = K.simulate_network(req, network, settings)
    if "max_events" in kw:
        return out, None
    twin = naive_network(
        net,
        req,
        theta=theta,
        e_max=e_max,
        q=0.5,
        alpha=0.0,
        mode=mode,
        policy=policy,
        period=10.0,
        central=0,
    )
    for name in ("tier", "place", "hops", "t_done", "d_wait", "d_fwd"):
        np.testing.assert_allclose(getattr(out, name), twin[name], rtol=0, atol=1e-15)
    return out, twin


def test_an_announcement_runs_before_a_completion_scheduled_after_it_at_one_instant():
    # path A - M - B. A's first announcement (scheduled at the start) and the completion of
    # r0 at A (scheduled at 1/16 s) both fall at 1/2 s: the announcement runs first, so A
    # announces the request it is serving, W = 1/4 s. r1 reaches M at 3/4 s, M (θ = 0)
    # offloads it: A costs 1/4 + 1/16, B (idle, announced at 5/8 s) 1/16: B serves it
    net = _exact_network(nx.path_graph(3))
    a, m, b = 0, 1, 2
    req = _requests(
        net,
        gen=[0.0, 0.6875],
        fog=[a, m],
        route=[1, 1],
        work=[1.75, 1.0],
        phase=[0.5, 0.125, 0.625],
    )
    out, _ = _crafted_run(net, req, [math.inf, 0.0, math.inf])
    assert list(out.place) == [a, b] and list(out.hops) == [0, 1]
    # r0 done at 1/2 s, back over its own uplink; r1 served at B from 13/16 s to 17/16 s
    assert list(out.t_done) == [0.5 + 0.0625, 1.0625 + 0.125 + 0.0625]


def test_a_completion_runs_before_an_arrival_scheduled_after_it_at_one_instant():
    # path B - A - C, oracle mode (no announcements). r1's completion at A (scheduled at
    # 1/4 s) and r2's forwarded arrival at A (rejected by C, θ = 0, at 5/16 s, 3/16 s on the
    # link) both fall at 1/2 s: the completion runs first, so r2 finds A idle and is
    # accepted at once (θ_A = 1/8 s would refuse it while r1 is in service). r0 at B
    # finishes in between (7/16 s), so the heap reorders these two events on a pop.
    net = _exact_network(nx.path_graph(3), nbr_prop=0.1875)
    b, a, c = 0, 1, 2
    req = _requests(
        net,
        gen=[0.0, 0.1875, 0.25],
        fog=[b, a, c],
        route=[1, 1, 1],
        work=[1.5, 1.0, 1.0],
        phase=[9] * 3,
    )
    out, _ = _crafted_run(net, req, [math.inf, 0.125, 0.0], mode="oracle")
    assert list(out.tier) == [K.TIER_FOG] * 3 and list(out.place) == [b, a, a]
    assert list(out.d_wait) == [0.0, 0.0, 0.0]
    assert out.t_done[2] == 0.5 + 0.25 + 0.125 + 0.0625


def test_cloud_arrivals_at_one_instant_are_served_in_the_order_they_were_sent():
    # one cloud unit. r0 arrives first (9/16 s). r1 (fog 1, rejected: all_cloud) is sent
    # at 1/16 s and arrives at 17/16 s; r2, sent to the cloud at its generation (1/2 s),
    # arrives at the same 17/16 s: r1 was sent first and is served first, r2 waits for it
    net = _exact_network(nx.path_graph(2), fc_prop=[0.5, 1.0])
    req = _requests(
        net, gen=[0.0, 0.0, 0.5], fog=[0, 1, 0], route=[2, 1, 2], work=[1.0] * 3, phase=[9, 9]
    )
    out, _ = _crafted_run(net, req, [0.0, 0.0], e_max=0, policy="all_cloud")
    assert list(out.tier) == [K.TIER_CLOUD] * 3
    assert list(out.d_wait) == [0.0, 0.0, 0.25]
    assert list(out.t_done) == [0.8125 + 0.1875, 1.3125 + 0.1875, 1.5625 + 0.1875]


def test_the_event_queue_holds_an_event_per_request_and_an_announcement_per_node():
    # two fog nodes, two requests: at 1/8 s r0 is in service at node 0 (its completion
    # pending), r1 is on its way to node 1 and both announcements are pending: n + n_fog
    # events at once, the size the queue is built for
    net = _exact_network(nx.path_graph(2))
    req = _requests(
        net, gen=[0.0, 0.0625], fog=[0, 0], route=[1, 1], work=[4.0, 1.0], phase=[0.5, 0.5]
    )
    out, _ = _crafted_run(net, req, [0.125, math.inf])
    assert list(out.place) == [0, 1] and list(out.hops) == [0, 1]
    assert list(out.d_fwd) == [0.0, 0.0625]


def test_a_run_cut_by_its_event_bound_counts_the_requests_still_in_the_nodes():
    # r0 reaches node 0 at 1 s, r1 node 1 at 3 s, both with 10 s of processing; the loop
    # stops after these two events: node 0 has held one request from 1 s to the horizon 3 s
    net = _exact_network(nx.path_graph(2))
    req = _requests(
        net, gen=[0.9375, 2.9375], fog=[0, 1], route=[1, 1], work=[40.0, 40.0], phase=[9, 9]
    )
    out, _ = _crafted_run(net, req, [math.inf] * 2, e_max=0, policy="no_offload", max_events=2)
    assert out.events == 3 and out.horizon == 3.0
    assert list(out.fog_area) == [2.0, 0.0]
    assert list(out.tier) == [-1, -1]


def test_the_horizon_of_a_single_local_request_is_its_generation():
    net = _exact_network(nx.path_graph(2))
    req = _requests(net, gen=[5.0], fog=[0], route=[K.ROUTE_LOCAL], work=[1.0], phase=[9, 9])
    out, _ = _crafted_run(net, req, [math.inf] * 2, e_max=0, policy="no_offload")
    assert out.horizon == 5.0 and list(out.t_done) == [5.25]


def test_a_ring_of_many_fog_nodes_runs_as_its_twin():
    # 24 fog nodes: far below the 2**22 an event code can hold, so the kernel runs them and
    # agrees with the twin request by request
    g = ring_scenario(24, 2, seed=5, lam_per_iot=20.0, n_cloud=1, cloud_units=2)
    kw = dict(e_max=2, q=0.5, alpha=0.3, mode="distributed", policy="offload")
    net, req, out = _run(g, 300, 3, theta=0.02, announce_period=0.002, **kw)
    assert net.n_fog == 24
    theta = np.full(net.n_fog, 0.02)
    twin = naive_network(net, req, theta=theta, period=0.002, central=_central_node(net), **kw)
    for name in ("tier", "place", "hops", "t_done"):
        np.testing.assert_allclose(getattr(out, name), twin[name], rtol=1e-12, atol=1e-12)
    assert len(set(np.asarray(out.place)[np.asarray(out.tier) == K.TIER_FOG])) > 12


def test_more_fog_nodes_than_an_event_code_holds_are_refused():
    # an event packs (request << 22) | node: 2**22 fog nodes would alias node 0
    g = ring_scenario(3, 2, seed=1)
    net = compile_scenario(g)
    req = draw_requests(net, 10, np.random.default_rng(1), 0.02)
    requests, network, settings = kernel_arguments(P1Params(scenario=net), req)
    fog_mean = network[16]
    assert fog_mean.shape == (3, 2)
    huge = np.zeros((1 << 22, 2), fog_mean.dtype)  # calloc'ed: no page is touched
    network = (*network[:16], huge, *network[17:])
    with pytest.raises(ValueError, match="more fog nodes than an event code can hold"):
        K.simulate_network(requests, network, settings)
