"""Tests of the P3 simulators (two centers, ring) and their kernels."""

from __future__ import annotations

import naive_datacenters as naive
import numpy as np
import pytest

import workbench.datacenters as dc
from workbench.datacenters.figures import RING_SCENARIOS
from workbench.datacenters.kernels import (
    Centers,
    simulate_ring_kernel,
    simulate_two_centers_kernel,
)
from workbench.erlang import erlang_b
from workbench.validation import EmptyRunError, ParameterError, UnstableRegimeError

# ---------------------------------------------------------------------------------------------
# kernels against their naive twins


def _model(args) -> dict:
    """(lam, servers, mu, p) as the keywords of simulate."""
    return dict(zip(("lam", "servers", "mu", "p"), args, strict=True))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_center_simulation_kernel_matches_naive_twin(seed):
    rng = np.random.default_rng(seed)
    lam1, lam2 = rng.uniform(1, 8, 2)
    mu1, mu2 = rng.uniform(0.5, 2, 2)
    p1, p2 = rng.uniform(0, 1, 2)
    cap1, cap2 = rng.integers(1, 6, 2)
    u, v = rng.random(5000), rng.random(5000)
    lost = np.full(u.size, 9, np.uint8)
    args = (lam1, lam2, mu1, mu2, p1, p2, cap1, cap2, 0, 0, u, v, 300)
    got = simulate_two_centers_kernel(Centers(*args[:10]), *args[10:], lost)
    ref = naive.simulate_two_centers(*args)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)
    np.testing.assert_array_equal(got[2], ref[2])
    # the per-arrival series: class-1 fates in order, warm-up included
    assert got[3] == ref[3].size and got[4] == ref[4]
    np.testing.assert_array_equal(lost[: got[3]], ref[3])
    assert ref[3][ref[4] :].sum() == got[0][3] + got[0][4]  # lost after the warm-up


@pytest.mark.parametrize("seed", [0, 1])
def test_ring_simulation_kernel_matches_naive_twin(seed):
    rng = np.random.default_rng(seed)
    n = 5
    lam = rng.uniform(1, 6, n)
    mu = rng.uniform(0.5, 2, n)
    p = rng.uniform(0, 0.5, n)
    cap = rng.integers(1, 5, n).astype(np.int64)
    u, v = rng.random(4000), rng.random(4000)
    lost = np.full(u.size, 9, np.uint8)
    got = simulate_ring_kernel(lam, mu, p, cap, np.zeros(n, np.int64), u, v, 200, lost)
    ref = naive.simulate_ring(lam, mu, p, cap, np.zeros(n, np.int64), u, v, 200)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)
    np.testing.assert_array_equal(got[2], ref[2])
    assert got[3] == ref[3].size and got[4] == ref[4]
    np.testing.assert_array_equal(lost[: got[3]], ref[3])
    assert ref[3][ref[4] :].sum() == got[0][:, 3].sum() + got[0][:, 4].sum()


# ---------------------------------------------------------------------------------------------
# simulation


def test_simulation_within_confidence_interval_of_exact():
    lam, servers, mu, p = (15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3)
    exact = dc.solve_exact(lam, servers, mu, p)
    sim = dc.simulate(lam=lam, servers=servers, mu=mu, p=p, events=200_000, replications=10, seed=5)
    assert sim.metric == "beta1"
    for i, name in enumerate(["beta1", "beta2"]):
        low, high = sim.interval(name)
        # 99.9%-safe: 2 half-widths of the 95% interval
        assert abs(sim[name] - exact.beta[i]) <= (high - low), name
    assert sim.mean_busy1 == pytest.approx(exact.mean_busy[0], rel=0.02)


def test_simulation_is_reproducible_and_request_fates_match_the_exact_chain():
    lam, servers, mu, p = (15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3)
    a = dc.simulate(lam=lam, servers=servers, mu=mu, p=p, events=100_000, replications=6, seed=9)
    b = dc.simulate(lam=lam, servers=servers, mu=mu, p=p, events=100_000, replications=6, seed=9)
    c = dc.simulate(lam=lam, servers=servers, mu=mu, p=p, events=100_000, replications=6, seed=10)
    assert a.frame.equals(b.frame) and a.summary.equals(b.summary)
    assert not a.frame.equals(c.frame)
    reps = a.frame
    exact = dc.solve_exact(lam, servers, mu, p)
    (pf1, pf2), both = exact.p_full, exact.p_both_full
    for i, (lam_i, p_i, own_full) in enumerate(((lam[0], p[0], pf1), (lam[1], p[1], pf2)), start=1):
        # arrivals per unit time estimate lambda_i (Poisson thinning of the jump chain)
        rate = reps[f"arrivals{i}"] / reps["time"]
        assert rate.mean() == pytest.approx(lam_i, rel=0.01)
        # fates by PASTA: served by the other center w.p. p_i (P(own full) - P(both full)),
        # rejected at once w.p. (1 - p_i) P(own full); every request counted once
        arrivals = reps[f"arrivals{i}"]
        remote = (reps[f"remote{i}"] / arrivals).mean()
        assert remote == pytest.approx(p_i * (own_full - both), abs=0.01)
        assert (reps[f"local{i}"] / arrivals).mean() == pytest.approx(1 - own_full, abs=0.01)
        total = reps[f"local{i}"] + reps[f"remote{i}"] + reps[f"rejected{i}"]
        assert (total == arrivals).all()


@pytest.mark.parametrize(
    "lam,servers,mu,p",
    [
        ((1e6, 1e-6), (1, 5000), (1e-6, 1e6), (1.0, 0.0)),
        ((1e6, 1e6), (1, 1), (1e6, 1e6), (0.5, 0.5)),
        ((1e-6, 1e-6), (2, 2), (1e-6, 1e-6), (1.0, 1.0)),
    ],
)
def test_simulation_at_the_corners_of_the_parameter_table_gives_probabilities(lam, servers, mu, p):
    sim = dc.simulate(lam=lam, servers=servers, mu=mu, p=p, events=5_000, replications=2, seed=1)
    for q in ("beta1", "beta2", "p_full1", "p_full2", "p_both_full"):
        assert 0.0 <= sim[q] <= 1.0, (q, sim[q])
    assert np.isfinite(sim.summary["estimate"]).all()
    assert sim.stationary


def test_a_run_without_class_1_arrivals_raises_instead_of_a_number():
    # λ₁ = 1e-6 against λ₂ = 1e6: no class-1 request in 5,000 events, so β₁ is not measured
    with pytest.raises(EmptyRunError, match="no class-1 arrivals after the warm-up"):
        dc.simulate(
            lam=(1e-6, 1e6),
            servers=(5000, 1),
            mu=(1e6, 1e-6),
            p=(0.0, 1.0),
            events=5_000,
            replications=2,
        )
    # the same network measured from class 2's side: β₂ = 0 is said to be no measurement
    sim = dc.simulate(
        lam=(1e6, 1e-6),
        servers=(1, 5000),
        mu=(1e-6, 1e6),
        p=(1.0, 0.0),
        events=5_000,
        replications=2,
    )
    assert sim["beta2"] == 0.0 and "no class-2 arrival" in sim.notes[0]


def test_ring_without_forwarding_is_independent_erlang_b():
    # p = 0: each center of the ring is its own Erlang-B system
    result = dc.simulate_ring(
        lam=(6.0, 4.0, 5.0), servers=5, mu=1.0, p=0.0, events=200_000, replications=6, seed=1
    )
    sim = dc.ring_table(result)
    for j, load in enumerate((6.0, 4.0, 5.0)):
        row = sim.iloc[j]
        assert abs(row["beta"] - erlang_b(5, load)) <= 2 * row["half_width"] + 1e-3


def test_ring_pair_reduction_against_simulation_at_moderate_N():
    lam = np.array(RING_SCENARIOS["two adjacent hot spots"])
    red = dc.ring_limit(lam, 1.0, 1.0, 0.25)
    sim = dc.ring_table(
        dc.simulate_ring(
            lam=lam * 80, servers=80, mu=1.0, p=0.25, events=300_000, replications=6, seed=4
        )
    )
    # finite-N blocking sits above the limit and approaches it (slowly, as for two centers)
    for j in (0, 1):
        assert red["beta"][j] < sim["beta"][j] < red["beta"][j] + 0.05


def test_simulation_and_ring_reject_bad_input():
    with pytest.raises(ParameterError, match="'seed' parameter of simulate"):
        dc.simulate(lam=(1.0, 1.0), servers=(2, 2), mu=(1.0, 1.0), p=(0.5, 0.5), seed=-1)
    with pytest.raises(ParameterError, match="'p' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1.0, 1.0), servers=2, mu=1.0, p=0.6)
    with pytest.raises(ParameterError, match="'lam' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1.0), servers=2, mu=1.0, p=0.2)
    with pytest.raises(ParameterError, match="'servers' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1.0, 1.0), servers="1", mu=1.0, p=0.2)
    with pytest.raises(ParameterError, match="'lam' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1 + 1j, 1.0), servers=2, mu=1.0, p=0.2)
    with pytest.raises(ParameterError, match="'lam' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, [1.0], 1.0), servers=2, mu=1.0, p=0.2)
    with pytest.raises(ParameterError, match="'servers' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1.0, 1.0), servers=(2, True, 2), mu=1.0, p=0.2)
    with pytest.raises(ParameterError, match="'confidence' parameter of simulate"):
        dc.simulate(lam=(1.0, 1.0), servers=(2, 2), mu=(1.0, 1.0), p=(0.5, 0.5), confidence=1.5)
    with pytest.raises(ParameterError, match="'lam' parameter of simulate"):
        dc.simulate(lam=(1e308, 1.0), servers=(2, 2), mu=(1.0, 1.0), p=(0.5, 0.5))


def test_simulate_to_precision_reaches_an_absolute_target_with_the_streams_of_simulate():
    args = _model(((15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3)))
    res = dc.simulate_to_precision(**args, half_width=0.004, events=50_000, seed=3, progress=False)
    assert res.converged and res.half_width <= 0.004
    same = dc.simulate(**args, events=50_000, replications=res.replications, seed=3)
    assert res.frame.equals(same.frame)
    capped = dc.simulate_to_precision(
        **args, half_width=1e-5, events=5_000, max_replications=6, seed=3, progress=False
    )
    assert capped.replications == 6 and not capped.converged
    with pytest.raises(ParameterError, match="'half_width' parameter of simulate_to_precision"):
        dc.simulate_to_precision(**args, half_width=0.0)


# ---------------------------------------------------------------------------------------------
# output analysis: a loss network is stable, so the detector must stay silent at the defaults


def test_defaults_and_the_worked_example_are_stationary():
    from workbench.datacenters.params import EXAMPLE, PARAMS

    model = {k: PARAMS[k].default for k in ("lam", "servers", "mu", "p")}
    sim = dc.simulate(**model, events=50_000, replications=4, seed=3)
    assert sim.stationary and sim.stationarity.tested and sim.stationarity.note == ""
    n = 25  # the simulated claim's point: the worked example at N = 25
    lam = (EXAMPLE["lam"][0] * n, EXAMPLE["lam"][1] * n)
    sim = dc.simulate(
        lam=lam, servers=(n, n), mu=EXAMPLE["mu"], p=EXAMPLE["p"], events=100_000, replications=8
    )
    assert sim.stationary and 0.0 < sim.stationarity.p_value <= 1.0
    assert sim.stationarity.observations > 8 * 30_000  # class-1 arrivals after the warm-up
    ring = dc.simulate_ring(
        lam=PARAMS["ring_load"].default, servers=40, mu=1.0, p=PARAMS["ring_p"].default
    )
    assert ring.stationary


def test_a_run_that_is_all_warm_up_is_flagged_and_overload_decides():
    # 2 x 5,000 servers started empty, no warm-up dropped: about the first half of 30,000
    # events fill the servers (nothing lost), losses start only after that: not a steady state
    args = ((7500.0, 4000.0), (5000, 5000), (1.0, 1.0), (0.6, 0.3))
    kw = {"events": 30_000, "replications": 3, "warmup": 0.0}
    with pytest.raises(UnstableRegimeError, match="not a steady state"):
        dc.simulate(**_model(args), **kw)
    sim = dc.simulate(**_model(args), **kw, overload="transient")
    assert not sim.stationary and sim.stationarity.second_half > sim.stationarity.first_half
    assert any("not stationary" in n for n in sim.notes)
    # dropping the filling phase (and running longer) gives a steady state
    assert dc.simulate(**_model(args), events=200_000, replications=3, warmup=0.5).stationary
    with pytest.raises(ParameterError, match="'overload' parameter of simulate"):
        dc.simulate(**_model(args), **kw, overload="ignore")
    with pytest.raises(ParameterError, match="'overload' parameter of simulate_ring"):
        dc.simulate_ring(lam=(1.0, 1.0, 1.0), servers=2, mu=1.0, p=0.2, overload=True)


def test_simulate_to_precision_with_a_relative_target_uses_the_shared_precision_loop():
    args = _model(((15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3)))
    res = dc.simulate_to_precision(
        **args, rel_half_width=0.05, events=20_000, seed=3, progress=False
    )
    assert res.converged and res.half_width <= 0.05 * res.estimate
    assert "precision" in res.notes[-1]
    same = dc.simulate(**args, events=20_000, replications=res.replications, seed=3)
    assert res.frame.equals(same.frame)  # replication r has the same stream in both
    with pytest.raises(ParameterError, match="'half_width' parameter of simulate_to_precision"):
        dc.simulate_to_precision(**args, half_width=0.01, rel_half_width=0.05)  # two targets
    with pytest.raises(UnstableRegimeError):
        dc.simulate_to_precision(
            **_model(((7500.0, 4000.0), (5000, 5000), (1.0, 1.0), (0.6, 0.3))),
            events=30_000,
            warmup=0.0,
            progress=False,
        )
    with pytest.raises(ParameterError, match="'rel_half_width' parameter of simulate_to_precision"):
        dc.simulate_to_precision(**args, rel_half_width=0.0)
    with pytest.raises(ParameterError, match="'initial' parameter of simulate_to_precision"):
        dc.simulate_to_precision(**args, initial=1)
    with pytest.raises(TypeError):  # every argument is keyword-only
        dc.simulate((15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3))


def test_work_is_bounded_before_it_starts():
    args = ((15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3))
    with pytest.raises(ParameterError, match="simulate is too long"):
        dc.simulate(**_model(args), events=50_000_000, replications=1000)
    with pytest.raises(ParameterError, match="simulate_ring is too long"):
        dc.simulate_ring(
            lam=(1.0,) * 64, servers=2, mu=1.0, p=0.2, events=10_000_000, replications=100
        )
    with pytest.raises(ParameterError, match="simulate_to_precision is too long"):
        dc.simulate_to_precision(
            **_model(args), events=50_000_000, max_replications=100, progress=False
        )


def test_the_public_api_lists_only_what_a_user_calls():
    import importlib

    for name in (
        "",
        ".model",
        ".exact",
        ".limit",
        ".ring",
        ".studies",
        ".simulation",
        ".figures",
        ".diagram",
        ".claims",
        ".params",
    ):
        module = importlib.import_module("workbench.datacenters" + name)
        assert all(not n.startswith("_") and hasattr(module, n) for n in module.__all__), name
    params = importlib.import_module("workbench.datacenters.params")
    assert "center" not in params.__all__ and "check_ring_vector" not in params.__all__
