"""The fog network simulator: its slow twin, theory (P-K, Little), conservation, baselines."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_fog import naive_network

from workbench.fog import analyze, default_scenario, ring_scenario, run_once, simulate
from workbench.fog import kernels as K
from workbench.fog.model import P1Params
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.fog.simulation import _central_node, draw_requests, kernel_arguments
from workbench.validation import ParameterError, UnstableRegimeError


def kernel_and_twin(net, req, **settings):
    """The compiled kernel and its slow twin on the same requests, with one set of settings
    (``P1Params(scenario=net, **settings)``: the table's defaults for the others)."""
    p = P1Params(scenario=net, **settings)
    twin = naive_network(
        net,
        req,
        theta=p.thetas,
        e_max=p.e_max,
        q=p.q,
        alpha=p.alpha,
        mode=p.mode,
        policy=p.policy,
        period=p.announce_period,
        central=_central_node(net),
    )
    return K.simulate_network(*kernel_arguments(p, req)), twin


FIELDS = ("tier", "place", "hops", "t_done", "d_up", "d_fwd", "d_fc", "d_wait", "d_proc", "d_back")


@settings(deadline=None, max_examples=25)
@given(
    seed=st.integers(0, 2**32),
    n_fog=st.integers(2, 5),
    theta=st.sampled_from([0.0, 0.03, 0.1, 0.3, math.inf]),
    e_max=st.integers(0, 3),
    q=st.sampled_from([0.5, 0.2, 0.8]),
    mode=st.sampled_from(["distributed", "central", "oracle"]),
    policy=st.sampled_from(["offload", "offload", "all_cloud", "light_only", "no_offload"]),
    load=st.floats(0.3, 1.4),
)
def test_kernel_matches_naive_twin_request_by_request(
    seed, n_fog, theta, e_max, q, mode, policy, load
):
    rng = np.random.default_rng(seed)
    g = ring_scenario(
        n_fog, list(rng.integers(1, 8, n_fog)), seed=seed % 1000, lam_per_iot=load * 4
    )
    net = compile_scenario(g)
    req = draw_requests(net, 400, rng, 0.02)
    out, twin = kernel_and_twin(
        net,
        req,
        theta=np.full(net.n_fog, theta),
        e_max=e_max,
        q=q,
        alpha=0.3,
        mode=mode,
        policy=policy,
        announce_period=0.02,
    )
    for name in FIELDS:
        got, want = getattr(out, name), twin[name]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


def one_fog(rate, light_fraction=0.75, iot=10, p_iot=0.0, p_cloud=0.0, units=4):
    layer = nx.Graph()
    layer.add_node(0)
    return build_scenario(
        layer,
        iot,
        lam_per_iot=rate,
        light_fraction=light_fraction,
        p_iot=p_iot,
        p_cloud=p_cloud,
        cloud_units=units,
        fog_mu=(50.0, 10.0),
        cloud_mu=(1000.0, 200.0),
    )


def test_one_fog_node_no_offloading_is_mg1_pollaczek_khinchine():
    # 10 IoT nodes × 0.8/s: λ = 6, λ' = 2, μ = 50, μ' = 10 -> ρ = 0.32; FIFO hyperexponential M/G/1
    g = one_fog(0.8)
    res = simulate(scenario=g, policy="no_offload", requests=60_000, replications=8, seed=11)
    lam, lam2, mu, mu2 = 6.0, 2.0, 50.0, 10.0
    total = lam + lam2
    es = (lam / mu + lam2 / mu2) / total
    es2 = (2 * lam / mu**2 + 2 * lam2 / mu2**2) / total
    wait = total * es2 / (2 * (1 - total * es))
    rec = res.records.iloc[6000:]
    sim_wait = rec.loc[rec["tier"] == "fog", "d_wait"].mean()
    assert sim_wait == pytest.approx(wait, rel=0.08)
    # the analytic model (with the request's own processing) gives the same mean delay
    model = analyze(g, policy="no_offload", own_processing=True).mean_delay
    assert res.ci_low - 0.02 * model <= model <= res.ci_high + 0.02 * model
    # the paper's eq. 6 (W̄ only) misses the mean processing time E[S] = 0.04 s: it matches
    # the simulated delay minus the simulated mean processing, not the simulated delay
    paper = analyze(g, policy="no_offload").mean_delay
    served = rec[rec["tier"] == "fog"]
    assert served["d_proc"].mean() == pytest.approx(es, rel=0.05)
    assert paper == pytest.approx(res.mean - served["d_proc"].mean(), rel=0.05)
    assert paper < res.ci_low


def test_cloud_units_are_pk_queues():
    g = one_fog(2.0, units=1)  # λ_cloud = 20/s, Z = 1 ms, Z' = 5 ms
    res = simulate(scenario=g, policy="all_cloud", requests=60_000, replications=6, seed=5)
    rec = res.records.iloc[6000:]
    lam = 20.0
    es = 0.75 * 1e-3 + 0.25 * 5e-3
    es2 = 0.75 * 2e-6 + 0.25 * 2 * 25e-6
    wait = lam * es2 / (2 * (1 - lam * es))
    assert rec["d_wait"].mean() == pytest.approx(wait, rel=0.1)
    model = analyze(g, policy="all_cloud").mean_delay
    assert res.ci_low - 0.01 * model <= model <= res.ci_high + 0.01 * model


def test_little_law_per_node_and_conservation():
    g = default_scenario(2)
    run = run_once(g, theta=0.1, e_max=2, requests=30_000, seed=3)
    rec = run.records
    # every request ends exactly once, at one place, after it was generated
    assert rec["tier"].notna().all() and (rec["place"] >= 0).all()
    assert (rec["delay"] > 0).all()
    parts = rec[["d_up", "d_fwd", "d_fc", "d_wait", "d_proc", "d_back"]].sum(axis=1)
    np.testing.assert_allclose(parts, rec["delay"], rtol=1e-9, atol=1e-12)
    fog = run.fog
    assert fog["accepted"].sum() == (rec["tier"] == "fog").sum()
    # Little per fog node: time-average number in node = throughput × mean sojourn
    np.testing.assert_allclose(
        fog["mean_in_node"], fog["throughput"] * fog["mean_sojourn"], rtol=1e-9
    )
    # forwards: first arrivals + forwards = all fog arrivals
    first = (rec["route"] == "fog").sum()
    assert fog["arrivals"].sum() == first + rec["hops"].sum()
    assert rec["hops"].max() <= 2


def test_same_seed_same_numbers_and_seed_matters():
    g = ring_scenario(4, 5)
    a = simulate(scenario=g, requests=5_000, replications=2, seed=1)
    b = simulate(scenario=g, requests=5_000, replications=2, seed=1)
    c = simulate(scenario=g, requests=5_000, replications=2, seed=2)
    assert a.frame.equals(b.frame) and not a.frame.equals(c.frame)


def test_theta_extremes_are_the_baselines():
    # through the θ test itself (finite θ, W = c·z + c'·z' compared every arrival): a θ no
    # estimate can reach keeps everything, θ = 0 refuses everything
    g = default_scenario(0)
    kw = dict(requests=8_000, replications=2, seed=4)
    refuse = simulate(scenario=g, theta=0.0, e_max=0, **kw)
    assert refuse["share_fog"] == 0.0
    assert refuse.frame.equals(simulate(scenario=g, policy="all_cloud", e_max=0, **kw).frame)
    keep = simulate(scenario=g, theta=1e4, e_max=3, **kw)
    assert keep["share_fog"] == pytest.approx(0.8, abs=0.02) and keep["mean_hops"] == 0.0
    assert keep.frame.equals(simulate(scenario=g, policy="no_offload", **kw).frame)


def test_unstable_fog_node_is_reported_not_run():
    g = one_fog(4.0)  # ρ = 1.6 if the node keeps everything
    with pytest.raises(UnstableRegimeError, match="fog0"):
        simulate(scenario=g, policy="no_offload", requests=1000, replications=2)
    with pytest.raises(UnstableRegimeError):
        simulate(scenario=g, theta=math.inf, requests=1000, replications=2)
    res = simulate(scenario=g, theta=0.2, requests=5_000, replications=2)  # offloading sheds load
    assert res.share_cloud > 0.2


@settings(deadline=None, max_examples=30)
@given(
    theta=st.one_of(st.floats(allow_nan=True), st.text(max_size=2)),
    e_max=st.one_of(st.integers(-3, 60), st.floats()),
    mode=st.sampled_from(["distributed", "oracle", "gossip", 3]),
    n=st.integers(-5, 300),
)
def test_fuzz_bad_arguments(theta, e_max, mode, n):
    g = ring_scenario(3, 2)
    try:
        res = simulate(scenario=g, theta=theta, e_max=e_max, mode=mode, requests=n, replications=2)
    except ParameterError as err:
        assert "simulate" in str(err)
        return
    assert math.isfinite(res.mean)


@pytest.mark.parametrize("mode", ["distributed", "oracle"])
def test_kernel_matches_twin_when_requests_are_generated_in_the_same_instant(mode):
    # pairs of requests generated at one instant from one IoT node reach the fog and the
    # cloud at equal times: the kernel's sorted streams must keep the event queue's order
    rng = np.random.default_rng(11)
    g = ring_scenario(3, [4, 2, 5], seed=3, lam_per_iot=5.0)
    net = compile_scenario(g)
    req = draw_requests(net, 600, rng, 0.02)
    req = req._replace(
        gen_time=np.repeat(req.gen_time[::2], 2), origin=np.repeat(req.origin[::2], 2)
    )
    out, twin = kernel_and_twin(
        net, req, theta=0.01, e_max=2, alpha=0.3, mode=mode, announce_period=0.02
    )
    for name in FIELDS:
        got, want = getattr(out, name), twin[name]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (np.diff(req.gen_time) == 0).sum() >= 299


def test_overloaded_fog_layer_gap_is_the_chain_ignoring_admission():
    # 100 IoT nodes per fog node at 4 req/s offer 320/s to a node that serves about 89/s.
    # The model's chain gets Poisson λ_j = P_j·v_j whatever the node's state, so the fixed
    # point puts it next to saturation with a huge W̄_j; the real node only admits while
    # W < θ, so an accepted request finds less than θ of work. The gap is that difference
    # times the share served in the fog, and neither the routing rule nor the network's
    # size has a part in it (the 1,000-fog network shows the same numbers).
    from workbench.fog.cases import overloaded_scenario

    net = compile_scenario(overloaded_scenario(40))
    theta = 0.02
    model = analyze(net, theta=theta, e_max=1)
    res = simulate(scenario=net, theta=theta, e_max=1, requests=60_000, replications=2, seed=3)
    gap = model.mean_delay - res.mean
    assert gap / res.mean > 0.6  # the model is far too pessimistic here
    assert model.fog["rho"].min() > 0.85 and model.fog["mean_work"].min() > 5 * theta
    warm = res.records.iloc[int(0.1 * len(res.records)) :]
    fog = warm[warm["tier"] == "fog"]
    assert fog["d_wait"].mean() < theta  # admission bounds the work an accepted request finds
    share = (model.fog["lam_light"] + model.fog["lam_heavy"]).sum() / net.iot_rate.sum()
    explained = share * (model.fog["mean_work"].mean() - fog["d_wait"].mean())
    assert 0.8 < explained / gap < 1.2
    uniform = analyze(net, theta=theta, e_max=1, neighbour="uniform").mean_delay
    assert abs(uniform / model.mean_delay - 1) < 0.02  # not the 1/deg-vs-best routing
    # the workbench's correction models the θ test itself: it closes the gap
    admitted = analyze(net, theta=theta, e_max=1, admission="threshold", own_processing=True)
    assert abs(admitted.mean_delay / res.mean - 1) < 0.05
    light = compile_scenario(overloaded_scenario(40, lam_per_iot=0.5))  # same layer, 1/8 the load
    calm = simulate(scenario=light, theta=theta, e_max=1, requests=30_000, replications=2, seed=3)
    assert abs(analyze(light, theta=theta, e_max=1).mean_delay / calm.mean - 1) < 0.06


def test_warmup_is_a_fraction_of_the_run_with_the_table_default():
    """``warmup`` drops that fraction of each run's requests; None is the table's 0.1."""
    from workbench.fog.params import PARAMS
    from workbench.fog.simulation import simulate_to_precision

    g = ring_scenario(3, 4)
    kw = dict(scenario=g, requests=4_000, replications=2, seed=2)
    default = simulate(**kw)
    assert PARAMS["warmup"].default == 0.1
    assert default.frame.equals(simulate(warmup=0.1, **kw).frame)
    assert default.info["warmup"] == 400
    longer = simulate(warmup=0.5, **kw)
    assert longer.info["warmup"] == 2_000
    assert not longer.frame["delay"].equals(default.frame["delay"])
    with pytest.raises(ParameterError, match="'warmup' parameter of simulate"):
        simulate(warmup=0.95, **kw)
    with pytest.raises(TypeError):
        simulate(g, requests=1_000)  # every argument is keyword-only
    with pytest.raises(ParameterError, match="not both"):
        simulate_to_precision(scenario=g, rel_half_width=0.1, half_width=0.01, progress=False)
    res = simulate_to_precision(scenario=g, half_width=0.05, requests=2_000, progress=False)
    assert res.half_width <= 0.05 or not res.converged
