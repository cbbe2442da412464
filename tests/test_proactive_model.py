"""P2 analytic model: eq. 4, Φ (eqs. 9/15), EWMA (eq. 10), eq. 14, scenario and training."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench.proactive import (
    PARAMS,
    cacheable_mass,
    coverage_calibration,
    ewma_rates,
    interference_free_rate,
    isolated_cloudlet_delay,
    make_scenario,
    rank_cloudlets,
    reliability_margin,
    task_delay,
    train,
    zipf_popularity,
)
from workbench.validation import ParameterError, UnstableRegimeError


def test_task_delay_by_hand():
    # 1 Mbit at 20 Mbit/s = 50 ms, 100 cycles/bit at 1e10 = 10 ms, 5 ms wait, 5 ms tau
    d = task_delay(1e6, 20e6, 1e10, 100.0, wait=0.005, tau_ep=0.005)
    assert d == pytest.approx(0.050 + 0.010 + 0.005 + 0.005)
    assert task_delay(1e6, 20e6, 1e10, 100.0, 0.005, 0.005, cached=True) == pytest.approx(0.005)


def test_reliability_margin_is_budget_minus_estimated_delay():
    phi = reliability_margin(1e6, 40e6, 1e10, 100.0, 0.01, 0.005, 0.05)
    # 50 ms - (25 + 10 + 10 + 5) ms = 0
    assert phi == pytest.approx(0.0, abs=1e-15)
    assert reliability_margin(1e6, 40e6, 1e10, 100.0, 0.01, 0.005, 0.05, cached=True) == (
        pytest.approx(0.045)
    )


def test_ewma_with_one_over_t_is_the_running_mean():
    rng = np.random.default_rng(1)
    r = rng.exponential(size=(50, 3))
    est = ewma_rates(r, initial=np.full(3, 123.0))
    running = np.cumsum(r, axis=0) / np.arange(1, 51)[:, None]
    assert np.allclose(est[1:], running)
    assert np.allclose(est[0], 123.0)  # r̄(0), forgotten at t = 1


def test_rank_cloudlets_prefers_cached_then_fast_links():
    order = rank_cloudlets(
        1e6,
        [10e6, 40e6, 20e6, 80e6],
        1e10,
        100.0,
        0.005,
        cached=[False, False, True, False],
        covered=[True, True, True, False],
    )
    assert order.tolist() == [2, 1, 0]


def test_zipf_popularity():
    p = zipf_popularity(100, 0.8)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] / p[9] == pytest.approx(10**0.8)
    assert np.allclose(zipf_popularity(5, 0.0), 0.2)


def test_scenario_reproducible_and_consistent():
    a = make_scenario(n_cloudlets=6, n_users=20, seed=4)
    b = make_scenario(n_cloudlets=6, n_users=20, seed=4)
    c = make_scenario(n_cloudlets=6, n_users=20, seed=5)
    assert np.array_equal(a.user_xy, b.user_xy) and not np.array_equal(a.user_xy, c.user_xy)
    assert a.cacheable.sum() == round(100 / 3)
    # every profile is the same Zipf law over a different order of the tasks
    assert np.allclose(np.sort(a.profiles, axis=1), np.sort(a.profiles[0]))
    assert a.covered.any(axis=1).all()
    assert 0 < cacheable_mass(a) < 1


def test_training_by_brute_force():
    sc = make_scenario(n_cloudlets=5, n_users=24, area=200.0, seed=7)
    tr = train(sc, lam=2.0, training_time=50.0, seed=3)
    gain = np.where(sc.covered, sc.path_gain, -1)
    assert np.array_equal(tr.attach, gain.argmax(axis=1))
    labels = tr.clusters.labels
    for e in range(5):
        served = [tr.counts[(tr.attach == e) & (labels == i)].sum() for i in range(tr.clusters.k)]
        if sum(served) > 0:
            assert tr.preferred_cluster[e] == int(np.argmax(served))
    for i in range(tr.clusters.k):
        order = tr.cluster_order[i]
        n_c = sc.cacheable.sum()
        assert sc.cacheable[order[:n_c]].all()  # cacheable tasks first
        totals = tr.counts[labels == i].sum(axis=0)[order[:n_c]]
        assert np.all(np.diff(totals) <= 0)  # most requested first
    e = 0
    ranks = tr.cache_rank[e]
    assert np.array_equal(np.argsort(ranks), tr.cluster_order[tr.preferred_cluster[e]])


def test_planted_profiles_are_clustered_apart():
    # two far-apart groups with disjoint profiles: clustering must separate them
    sc = make_scenario(n_cloudlets=4, n_users=20, n_profiles=2, seed=11)
    xy = sc.user_xy.copy()
    prof = np.array([0] * 10 + [1] * 10)
    xy[:10] = xy[:10] * 0.05
    xy[10:] = 95.0 + xy[10:] * 0.05
    sc = sc._replace(user_xy=xy, profile_of_user=prof)
    tr = train(sc, training_time=200.0, seed=1)
    labels = tr.clusters.labels
    assert len(set(labels[:10])) == 1 and len(set(labels[10:])) == 1
    assert labels[0] != labels[10]


def test_isolated_delay_formula_and_instability():
    d = isolated_cloudlet_delay(
        lam=10.0, link_rate=20e6, mean_bits=1e6, cpu=1e10, kappa=100.0, tau_ep=0.005
    )
    assert d == pytest.approx(1 / (20 - 10) + 0.01 + 0.005)
    with pytest.raises(UnstableRegimeError, match="isolated_cloudlet_delay"):
        isolated_cloudlet_delay(
            lam=25.0, link_rate=20e6, mean_bits=1e6, cpu=1e10, kappa=100.0, tau_ep=0.005
        )


def test_interference_free_rate_at_20m():
    # path loss 140.7 + 36.7 log10(0.02) dB, SNR in dB = 20 - PL - (-174 + 70 + 9)
    pl = 140.7 + 36.7 * math.log10(0.02)
    snr = 10 ** ((20 - pl + 174 - 70 - 9) / 10)
    assert interference_free_rate(20.0) == pytest.approx(10e6 * math.log2(1 + snr))


@settings(deadline=None, max_examples=40)
@given(
    st.sampled_from(["n_cloudlets", "n_users", "area", "zipf", "cacheable_ratio", "seed"]),
    st.one_of(st.just(-1), st.just(math.nan), st.just("x"), st.just(None), st.just(1e9)),
)
def test_make_scenario_bad_input_names_the_parameter(name, value):
    assume(not (name == "seed" and value == 1e9))  # an integral float is a valid seed
    with pytest.raises(ParameterError, match=f"'{name}' parameter of make_scenario"):
        make_scenario(**{name: value})


def test_bad_model_inputs():
    with pytest.raises(ParameterError, match="'link_rate' parameter of task_delay"):
        task_delay(1e6, 0.0, 1e10, 100.0)
    with pytest.raises(ParameterError, match="'budget' parameter of reliability_margin"):
        reliability_margin(1e6, 1e7, 1e10, 100.0, 0.0, 0.005, -1.0)
    with pytest.raises(ParameterError, match="'scenario' parameter of train"):
        train("network")
    with pytest.raises(ParameterError, match="'rates' parameter of ewma_rates"):
        ewma_rates(3.0)


# --- bad input found by review: each case raised a raw error or returned garbage before ---


def _raises(func, match, *args, **kwargs):
    with pytest.raises(ParameterError, match=match):
        func(*args, **kwargs)


def test_task_delay_refuses_mismatched_shapes_and_non_boolean_cached():
    _raises(
        task_delay,
        r"'bits' parameter of task_delay must broadcast.*rate \(2,\)",
        [1.0, 2.0, 3.0],
        [1e6, 2e6],
        1e10,
        100.0,
    )
    # the string "False" is truthy: it used to count the task as cached (τ_EP only)
    _raises(task_delay, "'cached' parameter of task_delay", 1e6, 1e7, 1e10, 100.0, cached="False")
    _raises(task_delay, "'cached' parameter of task_delay", 1e6, 1e7, 1e10, 100.0, cached=2)
    # extreme data over a tiny rate overflows: refused, not an infinite delay
    _raises(
        task_delay,
        "'link_rate' parameter of task_delay must give a finite delay",
        1e300,
        1e-300,
        1e10,
        100.0,
    )
    assert task_delay(1e6, 1e7, 1e10, 100.0, cached=np.array([True, False])).tolist() == [
        pytest.approx(0.005),
        pytest.approx(0.1 + 0.01 + 0.005),
    ]


def test_margin_and_ranking_errors_name_their_own_parameters():
    _raises(
        reliability_margin,
        "'rate_est' parameter of reliability_margin",
        1e6,
        -1.0,
        1e10,
        100.0,
        0.0,
        0.005,
        0.05,
    )
    _raises(
        reliability_margin,
        "'queue_wait_est' parameter of reliability_margin",
        1e6,
        1e7,
        1e10,
        100.0,
        -1.0,
        0.005,
        0.05,
    )
    _raises(
        rank_cloudlets,
        "'rate_est' parameter of rank_cloudlets",
        1e6,
        [-1.0, 2e7],
        1e10,
        100.0,
        0.005,
    )


def test_rank_cloudlets_needs_one_flag_per_cloudlet():
    rates = [1e7, 2e7, 3e7]
    # a length-1 `cached` used to be broadcast to every cloudlet
    _raises(
        rank_cloudlets,
        r"'cached' parameter of rank_cloudlets must hold one boolean per "
        r"cloudlet \(3\)",
        1e6,
        rates,
        1e10,
        100.0,
        0.005,
        cached=[True],
    )
    _raises(
        rank_cloudlets, "'covered' parameter", 1e6, rates, 1e10, 100.0, 0.005, covered=[1, 0, 1]
    )
    # from the text of eq. 14 with y_ea: a holder costs τ_EP only and comes first
    got = rank_cloudlets(1e6, rates, 1e10, 100.0, 0.005, cached=[True, False, False])
    assert got.tolist() == [0, 2, 1]


def test_ewma_rates_refuses_a_nan_or_misshaped_start():
    _raises(ewma_rates, "'initial' parameter of ewma_rates", [[1.0, 2.0]], initial=np.nan)
    _raises(
        ewma_rates,
        "'initial' parameter of ewma_rates must broadcast",
        [[1.0, 2.0]],
        initial=[1.0, 2.0, 3.0],
    )
    assert ewma_rates([[1.0, 2.0], [3.0, 4.0]], initial=[5.0, 6.0])[-1].tolist() == [2.0, 3.0]


def test_scenario_training_and_tasks_must_belong_together():
    from workbench.proactive import draw_tasks, run_scenario

    sc, other = make_scenario(n_cloudlets=4, n_users=12, seed=1), make_scenario(seed=1)
    tr = train(sc, training_time=10.0, seed=1)
    tasks = draw_tasks(sc, 1.0, 1e6, 1.0, 1)
    _raises(
        run_scenario,
        "'training' parameter of run_scenario must be a Training of this scenario",
        "BL2",
        other,
        tr,
        tasks,
        slots=300,
        fading_seed=0,
    )
    _raises(
        run_scenario,
        "'tasks' parameter of run_scenario",
        "BL2",
        sc,
        tr,
        draw_tasks(other, 1.0, 1e6, 1.0, 1),
        slots=300,
        fading_seed=0,
    )
    _raises(
        run_scenario,
        "'scenario' parameter of run_scenario",
        "BL2",
        sc._replace(path_gain=sc.path_gain * np.nan),
        tr,
        tasks,
        slots=300,
        fading_seed=0,
    )
    _raises(
        run_scenario,
        "'tasks' parameter of run_scenario must arrive within",
        "BL2",
        sc,
        tr,
        tasks,
        slots=10,
        fading_seed=0,
    )
    _raises(
        run_scenario,
        "'storage' parameter of run_scenario",
        "BL2",
        sc,
        tr,
        tasks,
        slots=300,
        fading_seed=0,
        storage=-1,
    )
    _raises(
        run_scenario,
        "'fading_seed' parameter of run_scenario",
        "BL2",
        sc,
        tr,
        tasks,
        slots=300,
        fading_seed=-1,
    )
    _raises(draw_tasks, "'horizon' parameter of draw_tasks must keep", sc, 1.0, 1e6, 1e9, 0)
    _raises(train, "'scenario' parameter of train", tasks)


def test_train_accepts_any_valid_seed():
    # scikit-learn refuses seeds above 2**32 - 1: they are hashed into its range
    sc = make_scenario(n_cloudlets=5, n_users=15, seed=2)
    a, b = train(sc, seed=10**12), train(sc, seed=10**12)
    assert np.array_equal(a.clusters.labels, b.clusters.labels)


def test_coverage_counts_the_nearest_cloudlet_alone_or_every_cloudlet():
    """At 30 dB (a radius of centimetres) only the nearest cloudlet covers a user (nobody is
    left uncovered); at 200 dB every cloudlet of the square does."""
    frame = coverage_calibration(thresholds_db=(30.0, 200.0), densities=(10, 20), seeds=3)
    near, every = frame[frame["coverage_db"] == 30.0], frame[frame["coverage_db"] == 200.0]
    assert (near["covering"] == 1.0).all() and (near["below_x_max"] == 1.0).all()
    assert (every["covering"] == every["n_cloudlets"]).all()
    assert (every["below_x_max"] == 0.0).all()


def test_coverage_calibration_chooses_the_tables_threshold():
    """The table's coverage_db is the calibration's choice: at E = 10 a user has on
    average X_max = 2 cloudlets in coverage."""
    frame = coverage_calibration(thresholds_db=(80.0, 84.0, 90.0), densities=(10, 30))
    assert frame.attrs["chosen"] == PARAMS["coverage_db"].default == 84.0
    at = frame.set_index(["coverage_db", "n_cloudlets"])["covering"]
    assert abs(at[84.0, 10] - PARAMS["x_max"].default) < 0.5
    assert at[80.0, 10] < at[84.0, 10] < at[90.0, 10] < at[90.0, 30]


def test_coverage_calibration_counts_the_cloudlets_make_scenario_covers():
    """The calibration draws its networks as make_scenario does: its mean covering count is
    the mean of the drawn scenarios' coverage rows."""
    frame = coverage_calibration(thresholds_db=(84.0, 95.0), densities=(10, 20), seeds=3)
    for (db, e), covering in frame.set_index(["coverage_db", "n_cloudlets"])["covering"].items():
        drawn = [
            make_scenario(n_cloudlets=e, n_users=3 * e, coverage_db=db, seed=s).covered.sum(axis=1)
            for s in range(3)
        ]
        assert covering == pytest.approx(np.concatenate(drawn).mean(), abs=1e-12)
