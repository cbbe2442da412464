"""P2's analytic model where its own tests were silent: mutants of
``workbench/proactive/model.py`` that ``tests/test_proactive_model.py`` let survive
(``benchmarks/mutation.py proactive_model``).

Each check is written from the paper's equations or from a slower, independent computation:
eq. 4 and eq. 15 by hand, eq. 10 as a running mean, eq. 14 by sorting the delays, the
Shannon rate of one pair from its distance, the training's preferred cluster by counting,
and the refusals at the edges of each parameter's range.
"""

import math

import numpy as np
import pytest

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
)
from workbench.proactive.model import check_training, interference_free_rates
from workbench.proactive.runs import draw_tasks
from workbench.radio import path_loss_db
from workbench.validation import ParameterError, UnstableRegimeError

KAPPA, TAU = PARAMS["kappa"].default, PARAMS["tau_ep"].default


def _refused(name, func, *args, **kwargs):
    with pytest.raises(ParameterError, match=f"'{name}' parameter of {func.__name__}"):
        func(*args, **kwargs)


# --- eq. 4 and eq. 15 -----------------------------------------------------------------------


def test_task_delay_of_one_task_is_a_python_float_and_of_many_an_array():
    one = task_delay(1e6, 20e6, 1e10, KAPPA)
    assert type(one) is float
    assert one == pytest.approx(0.050 + 0.010 + TAU)
    many = task_delay([1e6, 2e6], 20e6, 1e10, KAPPA)
    assert isinstance(many, np.ndarray) and many.shape == (2,)


def test_task_delay_takes_any_size_from_zero_up_and_refuses_a_negative_one():
    # half a bit: κ L / c + L / r + τ_EP by hand
    assert task_delay(0.5, 1e6, 1e10, KAPPA) == pytest.approx(KAPPA * 0.5 / 1e10 + 0.5e-6 + TAU)
    assert task_delay(0.0, 1e6, 1e10, KAPPA, wait=0.002) == pytest.approx(0.002 + TAU)
    _refused("bits", task_delay, -0.5, 1e6, 1e10, KAPPA)


@pytest.mark.parametrize("rate", [-0.5, 0.0])
def test_a_rate_at_or_below_zero_is_refused_even_for_a_cached_task(rate):
    # a cached task costs τ_EP alone, whatever its rate: a zero rate must still be refused
    _refused("link_rate", task_delay, 1e6, rate, 1e10, KAPPA, cached=True)
    _refused("link_rate", task_delay, 1e6, rate, 1e10, KAPPA)


@pytest.mark.parametrize("flag", [np.datetime64("2020"), np.array([b"x"]), None, 1.0])
def test_cached_must_be_booleans(flag):
    _refused("cached", task_delay, 1e6, 1e7, 1e10, KAPPA, cached=flag)


def test_the_margin_without_a_queue_is_the_budget_minus_the_delay():
    # eq. 15 with Q_e empty: D_th ε − κ L / c − τ_EP − L / r̄
    phi = reliability_margin(1e6, 40e6, 1e10, KAPPA, tau_ep=TAU, budget=0.05)
    assert phi == pytest.approx(0.05 - 0.010 - TAU - 0.025)


# --- eq. 10 ---------------------------------------------------------------------------------


def test_ewma_starts_from_zero_and_refuses_a_negative_rate():
    est = ewma_rates([[2.0, 4.0], [4.0, 8.0]])
    assert est[0].tolist() == [0.0, 0.0]
    assert est[1:].tolist() == [[2.0, 4.0], [3.0, 6.0]]
    _refused("rates", ewma_rates, [[1.0, -0.5]])


def test_ewma_start_may_be_anything_from_zero_up():
    assert ewma_rates([[1.0]], initial=0.5)[0, 0] == 0.5
    assert ewma_rates([[1.0]], initial=0.0)[0, 0] == 0.0
    _refused("initial", ewma_rates, [[1.0]], initial=-0.5)


def test_ewma_names_the_row_shape_it_wanted():
    with pytest.raises(ParameterError, match=r"one row of shape \(2,\)\. Got the shape \(3,\)"):
        ewma_rates([[1.0, 2.0]], initial=[1.0, 2.0, 3.0])


# --- the coverage calibration's lists -------------------------------------------------------


def test_calibration_takes_one_number_as_a_list_of_one():
    one = coverage_calibration(thresholds_db=84.0, densities=10, seeds=2)
    listed = coverage_calibration(thresholds_db=[84.0], densities=[10], seeds=2)
    assert len(one) == 1 and one.equals(listed)


@pytest.mark.parametrize("value", [[[84.0, 90.0]], [[84.0], [90.0, 95.0]]])
def test_calibration_refuses_a_nested_or_ragged_list(value):
    _refused("thresholds_db", coverage_calibration, thresholds_db=value, seeds=1)
    _refused("densities", coverage_calibration, densities=value, seeds=1)


# --- the Shannon rates of a scenario --------------------------------------------------------


def test_interference_free_rates_are_each_pairs_rate_from_its_distance():
    sc = make_scenario(n_cloudlets=3, n_users=5, seed=2)
    got = interference_free_rates(sc)
    assert got.shape == (5, 3)
    d = np.hypot(*(sc.user_xy[:, None, :] - sc.cloudlet_xy[None, :, :]).transpose(2, 0, 1))
    for u in range(5):
        for e in range(3):
            assert got[u, e] == pytest.approx(interference_free_rate(d[u, e]), rel=1e-9)


# --- eq. 14 ---------------------------------------------------------------------------------


def test_rank_cloudlets_with_no_cache_ranks_by_delay_alone():
    # no ``cached``: nothing is held, the order is that of L / r̄ (fastest link first)
    assert rank_cloudlets(1e6, [1e7, 3e7, 2e7], 1e10, KAPPA, TAU).tolist() == [1, 2, 0]


def test_rank_cloudlets_sees_no_queue():
    """The user cannot see the queues (eq. 14): a task of no data costs τ_EP wherever it
    goes, cached or not, so equal delays keep the index order."""
    got = rank_cloudlets(0.0, [1e7, 2e7], 1e10, KAPPA, TAU, cached=[False, True])
    assert got.tolist() == [0, 1]


def test_rank_cloudlets_takes_any_positive_rate_and_refuses_the_rest():
    assert rank_cloudlets(1e6, [0.5, 2e7], 1e10, KAPPA, TAU).tolist() == [1, 0]
    for rate in (0.0, -0.5):
        _refused("rate_est", rank_cloudlets, 1e6, [rate, 2e7], 1e10, KAPPA, TAU)


def test_rank_cloudlets_refuses_a_table_of_rates_a_list_of_sizes_or_long_flags():
    _refused("rate_est", rank_cloudlets, 1e6, [[1e7, 2e7]], 1e10, KAPPA, TAU)
    _refused("bits", rank_cloudlets, [1e6, 2e6], [1e7, 2e7], 1e10, KAPPA, TAU)
    _refused("cached", rank_cloudlets, 1e6, [1e7, 2e7], 1e10, KAPPA, TAU, cached=[True] * 3)
    _refused("covered", rank_cloudlets, 1e6, [1e7, 2e7], 1e10, KAPPA, TAU, covered=[True] * 3)
    _refused("cached", rank_cloudlets, 1e6, [1e7, 2e7], 1e10, KAPPA, TAU, cached=[True])


# --- the drawn scenario ---------------------------------------------------------------------


def _distances(sc):
    return np.sqrt(((sc.user_xy[:, None, :] - sc.cloudlet_xy[None, :, :]) ** 2).sum(-1))


def test_scenario_path_gain_is_the_path_loss_without_fading():
    sc = make_scenario(n_cloudlets=4, n_users=6, seed=3)
    want = 10.0 ** (-path_loss_db(_distances(sc)) / 10.0)
    assert np.allclose(sc.path_gain, want, rtol=1e-12, atol=0)


def test_a_cloudlet_exactly_at_the_coverage_threshold_covers():
    """Coverage is a path loss *at most* the threshold: move the threshold onto one pair's
    path loss (the positions do not depend on it) and that pair is covered."""
    sc = make_scenario(n_cloudlets=5, n_users=8, seed=6)
    pl = path_loss_db(_distances(sc))
    far = np.argsort(pl, axis=1)[:, -1]  # each user's farthest cloudlet, never its nearest
    u = int(np.argmin(pl[np.arange(8), far]))
    level = float(pl[u, far[u]])
    assert PARAMS["coverage_db"].low <= level <= PARAMS["coverage_db"].high
    again = make_scenario(n_cloudlets=5, n_users=8, seed=6, coverage_db=level)
    assert again.covered[u, far[u]]
    assert np.array_equal(again.covered, (pl <= level) | (pl == pl.min(axis=1, keepdims=True)))


def test_every_profile_is_drawn_for_some_user():
    one = make_scenario(n_cloudlets=2, n_users=5, n_profiles=1, seed=0)
    assert one.profile_of_user.tolist() == [0] * 5
    many = make_scenario(n_cloudlets=2, n_users=60, n_profiles=3, seed=0)
    assert set(many.profile_of_user.tolist()) == {0, 1, 2}


# --- a scenario from elsewhere must hold together ---------------------------------------------


def _small():
    return make_scenario(n_cloudlets=3, n_users=4, n_tasks=5, n_profiles=2, seed=1)


def _broken():
    sc = _small()
    u, e, a = 4, 3, 5
    cov_none = sc.covered.copy()
    cov_none[1] = False
    cov_col = np.ones((u, e), bool)
    cov_col[0] = False  # every cloudlet covers someone, and user 0 is covered by none
    prof_neg = sc.profiles.copy()
    prof_neg[0, :2] = [1.5, -0.5]
    prof_neg[0, 2:] = 0.0
    return {
        r"positions must be \(E, 2\)": [
            sc._replace(cloudlet_xy=sc.cloudlet_xy[:, 0]),
            sc._replace(cloudlet_xy=sc.cloudlet_xy[None]),
            sc._replace(cloudlet_xy=np.hstack([sc.cloudlet_xy, sc.cloudlet_xy[:, :1]])),
            sc._replace(cloudlet_xy=sc.cloudlet_xy[:, :1]),
            sc._replace(user_xy=sc.user_xy[:, 0]),
            sc._replace(user_xy=sc.user_xy[None]),
            sc._replace(user_xy=np.hstack([sc.user_xy, sc.user_xy[:, :1]])),
            sc._replace(user_xy=sc.user_xy[:, :1]),
            sc._replace(cloudlet_xy=sc.cloudlet_xy[:, :, None]),
            sc._replace(user_xy=sc.user_xy[:, :, None]),
        ],
        "at least one cloudlet": [
            sc._replace(cloudlet_xy=np.zeros((0, 2))),
            sc._replace(user_xy=np.zeros((0, 2))),
        ],
        r"profiles must be an \(n_profiles, A\)": [
            sc._replace(profiles=sc.profiles[0]),
            sc._replace(profiles=sc.profiles[None]),
            sc._replace(profiles=np.zeros((2, 0))),
        ],
        "path_gain must be": [
            sc._replace(path_gain=sc.path_gain[:, :2]),
            sc._replace(path_gain=np.hstack([sc.path_gain, sc.path_gain[:, :1]])),
            sc._replace(covered=sc.covered[:, :2]),
            sc._replace(covered=np.hstack([sc.covered, sc.covered[:, :1]])),
            sc._replace(covered=sc.covered.astype(int)),
            sc._replace(covered=np.where(sc.covered, b"y", b"n")),
        ],
        "positions must be finite": [
            sc._replace(cloudlet_xy=np.where(np.eye(e, 2) > 0, np.nan, sc.cloudlet_xy)),
            sc._replace(user_xy=np.where(np.eye(u, 2) > 0, np.inf, sc.user_xy)),
        ],
        r"path gains must lie in \(0, 1\]": [
            sc._replace(path_gain=np.where(np.eye(u, e) > 0, 0.0, sc.path_gain)),
            sc._replace(path_gain=np.where(np.eye(u, e) > 0, 1.5, sc.path_gain)),
            sc._replace(path_gain=np.where(np.eye(u, e) > 0, -0.5, sc.path_gain)),
            sc._replace(path_gain=np.where(np.eye(u, e) > 0, np.nan, sc.path_gain)),
        ],
        "every user must be covered": [
            sc._replace(covered=cov_none),
            sc._replace(covered=cov_col),
        ],
        "every profile must be a probability vector": [
            sc._replace(profiles=prof_neg),
            sc._replace(profiles=sc.profiles * 2),
        ],
        "profile_of_user must hold U ints": [
            sc._replace(profile_of_user=sc.profile_of_user[:-1]),
            sc._replace(profile_of_user=np.append(sc.profile_of_user, 0)),
            sc._replace(profile_of_user=sc.profile_of_user.astype(float)),
        ],
        "profile_of_user must lie in": [
            sc._replace(profile_of_user=np.full(u, 2)),
            sc._replace(profile_of_user=np.full(u, -1)),
        ],
        f"cacheable must hold A = {a} booleans": [
            sc._replace(cacheable=sc.cacheable[:-1]),
            sc._replace(cacheable=sc.cacheable.astype(int)),
        ],
        "power_w and noise_w must be finite and > 0": [
            sc._replace(noise_w=-1.0),
            sc._replace(noise_w=0.0),
            sc._replace(power_w=-1.0),
            sc._replace(noise_w=math.inf),
            sc._replace(power_w=math.nan),
        ],
        "a field is not an array or a number": [
            sc._replace(power_w=None),
            sc._replace(noise_w="loud"),
        ],
    }


@pytest.mark.parametrize(
    ("why", "k"), [(why, k) for why, cases in _broken().items() for k in range(len(cases))]
)
def test_a_scenario_that_does_not_hold_together_is_refused_with_the_reason(why, k):
    bad = _broken()[why][k]
    with pytest.raises(ParameterError, match=f"'scenario' parameter of cacheable_mass.*{why}"):
        cacheable_mass(bad)


def test_the_smallest_scenario_and_its_edge_values_are_accepted():
    """One cloudlet, one user, one task type; a path gain of exactly 1 and a profile that
    never asks for some task are valid."""
    tiny = make_scenario(n_cloudlets=1, n_users=1, n_tasks=1, n_profiles=1, seed=0)
    assert cacheable_mass(tiny) in (0.0, 1.0)
    sc = _small()
    prof = sc.profiles.copy()
    prof[0] = [0.5, 0.5, 0.0, 0.0, 0.0]
    edge = sc._replace(path_gain=np.where(np.eye(4, 3) > 0, 1.0, sc.path_gain), profiles=prof)
    assert cacheable_mass(edge) == pytest.approx(
        np.mean([prof[g][sc.cacheable].sum() for g in sc.profile_of_user])
    )


def _profiles_case(sc, pou):
    return sc._replace(profile_of_user=np.asarray(pou, dtype=np.int64))


@pytest.mark.parametrize(
    ("pou", "ok"),
    [
        ([0, 1, 0, 1], True),
        ([1, 1, 1, 1], True),
        ([0, 0, 0, 0], True),
        ([0, 1, 2, 0], False),
        ([0, 1, 3, 0], False),
        ([-1, 0, 1, 0], False),
    ],
)
def test_profile_of_user_is_a_profile_index(pou, ok):
    """Two profiles: the users' profiles are 0 or 1, whichever the users hold."""
    sc = _profiles_case(_small(), pou)
    if ok:
        assert 0 <= cacheable_mass(sc) <= 1
    else:
        with pytest.raises(ParameterError, match=r"profile_of_user must lie in \[0, 1\]"):
            cacheable_mass(sc)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cacheable", lambda sc: np.append(sc.cacheable, True)),
        ("cacheable", lambda sc: np.where(sc.cacheable, b"y", b"n")),
        ("power_w", lambda sc: 0.0),
        ("power_w", lambda sc: -0.5),
        ("power_w", lambda sc: math.inf),
        ("noise_w", lambda sc: -0.5),
    ],
)
def test_more_fields_that_do_not_hold_together(field, value):
    sc = _small()
    bad = sc._replace(**{field: value(sc)})
    with pytest.raises(ParameterError, match="'scenario' parameter of cacheable_mass"):
        cacheable_mass(bad)


# --- the training phase -------------------------------------------------------------------


def _trained():
    sc = _small()._replace(covered=np.ones((4, 3), bool))
    return sc, train(sc, training_time=10.0, seed=1)


def _training_cases():
    sc, tr = _trained()
    e, a = 3, 5
    uncovered = sc._replace(covered=np.eye(4, 3, dtype=bool) | (np.arange(4) == 3)[:, None])
    return [
        (sc, tr._replace(attach=tr.attach[:-1]), "attach must hold U = 4 ints"),
        (sc, tr._replace(attach=np.append(tr.attach, 0)), "attach must hold U = 4 ints"),
        (sc, tr._replace(attach=tr.attach.astype(float)), "attach must hold U = 4 ints"),
        (sc, tr._replace(attach=np.array([-1, 0, 1, 2])), "attach to a cloudlet that covers"),
        (sc, tr._replace(attach=np.array([0, 1, 2, e])), "attach to a cloudlet that covers"),
        (sc, tr._replace(attach=np.array([0, 1, 2, e + 1])), "attach to a cloudlet that covers"),
        (uncovered, tr._replace(attach=np.array([1, 1, 2, 0])), "attach to a cloudlet that covers"),
        (
            sc,
            tr._replace(cache_rank=tr.cache_rank[:, :-1]),
            f"cache_rank must be an \\(E, A\\) = \\({e}, {a}\\)",
        ),
        (
            sc,
            tr._replace(cache_rank=np.hstack([tr.cache_rank, tr.cache_rank[:, :1]])),
            "cache_rank must be",
        ),
        (sc, tr._replace(cache_rank=tr.cache_rank[:-1]), "cache_rank must be"),
        (sc, tr._replace(cache_rank=tr.cache_rank.astype(float)), "cache_rank must be"),
        (sc, tr._replace(cache_rank=np.zeros((e, a), np.int64)), "every row of cache_rank"),
        (
            sc,
            tr._replace(preferred_cluster=tr.preferred_cluster[:-1]),
            "preferred_cluster must hold E = 3",
        ),
        (
            sc,
            tr._replace(preferred_cluster=np.append(tr.preferred_cluster, 0)),
            "preferred_cluster must hold",
        ),
        (sc, tuple(tr), "got tuple"),
    ]


@pytest.mark.parametrize("k", range(15))
def test_a_training_of_another_scenario_is_refused_with_the_reason(k):
    sc, bad, why = _training_cases()[k]
    with pytest.raises(ParameterError, match=f"'training' parameter of f must be.*{why}"):
        check_training("f", sc, bad)


@pytest.mark.parametrize("attach", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 1, 0, 2]])
def test_a_training_attached_anywhere_in_coverage_is_accepted(attach):
    sc, tr = _trained()
    check_training("f", sc, tr._replace(attach=np.array(attach)))


def test_training_requests_are_poisson_with_mean_lambda_t():
    """Each user's requests are Poisson(λ T): over 40 users and λ T = 100 the total is
    within five standard deviations of 4000."""
    sc = make_scenario(n_cloudlets=5, n_users=40, seed=2)
    tr = train(sc, lam=2.0, training_time=50.0, seed=4)
    total = tr.counts.sum()
    assert abs(total - 4000) < 5 * math.sqrt(4000)
    assert (tr.counts.sum(axis=1) > 0).all()


@pytest.mark.parametrize(("users", "k"), [(3, 1), (4, 2)])
def test_four_users_are_the_fewest_that_are_clustered(users, k):
    """With U >= 4 the eigengap chooses k in [2, U/2] (k = 2 at U = 4); below, one cluster
    and no spectrum."""
    sc = make_scenario(n_cloudlets=2, n_users=users, seed=3)
    tr = train(sc, training_time=50.0, seed=0)
    assert tr.clusters.k == k and tr.cluster_order.shape == (k, sc.cacheable.size)
    assert set(tr.clusters.labels.tolist()) == set(range(k))
    if k == 1:
        assert tr.clusters.eigenvalues.size == 0


@pytest.mark.parametrize(("n_tasks", "ratio", "clustered"), [(3, 0.0, False), (3, 1 / 3, True)])
def test_users_are_clustered_on_their_cacheable_requests_only(n_tasks, ratio, clustered):
    """S_p is the cosine of the counts of *cacheable* tasks: with none, one cluster; one
    cacheable task is enough to cluster."""
    sc = make_scenario(n_cloudlets=3, n_users=8, n_tasks=n_tasks, cacheable_ratio=ratio, seed=1)
    assert sc.cacheable.sum() == round(ratio * n_tasks)
    tr = train(sc, training_time=50.0, seed=2)
    assert (tr.clusters.k >= 2) == clustered


@pytest.mark.parametrize("seed", range(4))
def test_each_cloudlet_prefers_the_cluster_it_served_most_or_its_nearest_users(seed):
    """Step 5 of the training by brute force, with few requests (some cloudlets serve one
    request, some none) and more cloudlets than users can fill."""
    sc = make_scenario(n_cloudlets=10, n_users=12, area=100.0, seed=seed)
    tr = train(sc, lam=1.0, training_time=1.0, seed=seed)
    labels = tr.clusters.labels
    served_total = np.zeros(10)
    for e in range(10):
        served = [tr.counts[(tr.attach == e) & (labels == c)].sum() for c in range(tr.clusters.k)]
        served_total[e] = sum(served)
        if served_total[e] > 0:
            assert tr.preferred_cluster[e] == int(np.argmax(served))
        else:
            d = np.hypot(*(sc.user_xy - sc.cloudlet_xy[e]).T)
            assert tr.preferred_cluster[e] == labels[int(np.argmin(d))]
    assert (served_total == 0).any()


# --- the radio and the isolated cloudlet ----------------------------------------------------


@pytest.mark.parametrize("d", [0.5, 999_999.5, 1e6])
def test_a_rate_at_any_distance_in_range(d):
    pl = 140.7 + 36.7 * math.log10(max(d, 1.0) / 1e3)  # closer than 1 m: the loss at 1 m
    snr = 10 ** ((20 - pl + 174 - 70 - 9) / 10)
    assert interference_free_rate(d) == pytest.approx(10e6 * math.log2(1 + snr))


@pytest.mark.parametrize("d", [0.0, -0.5, 1e6 + 0.5])
def test_a_distance_out_of_range_is_refused(d):
    _refused("distance_m", interference_free_rate, d)


def _isolated(**kw):
    base = {"lam": 10.0, "mean_bits": 1e6, "cpu": 1e10, "kappa": KAPPA, "tau_ep": TAU}
    return isolated_cloudlet_delay(**(base | kw))


def test_isolated_delay_is_the_mm1_sojourn_plus_computing():
    # μ = r / L̄ = 15.5 per second: sojourn 1 / (μ − λ) = 1 / 5.5
    assert _isolated(link_rate=15.5e6) == pytest.approx(1 / 5.5 + 0.01 + TAU)
    assert _isolated(link_rate=15.5e6, slot_correction=0.5) == pytest.approx(
        1 / 5.5 + 0.01 + TAU + 0.5
    )
    assert _isolated(link_rate=0.5, lam=0.25, mean_bits=1.0) == pytest.approx(1 / 0.25 + TAU)
    with pytest.raises(TypeError):
        isolated_cloudlet_delay(15.5e6)  # the rate is named: it is no row of the table


def test_isolated_delay_at_load_one_or_above_is_unstable_and_says_the_load():
    with pytest.raises(UnstableRegimeError, match=r"load 1\)"):
        _isolated(link_rate=10e6)  # λ = μ: the M/M/1 queue has no stationary law
    with pytest.raises(UnstableRegimeError, match=r"load 1\.25\)"):
        _isolated(link_rate=8e6)


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("link_rate", {"link_rate": 0.0}),
        ("link_rate", {"link_rate": -0.5}),
        ("slot_correction", {"link_rate": 20e6, "slot_correction": -0.5}),
        ("slot_correction", {"link_rate": 20e6, "slot_correction": 1.5}),
    ],
)
def test_isolated_delay_refuses_a_rate_or_correction_out_of_range(name, kw):
    with pytest.raises(ParameterError, match=f"'{name}' parameter of isolated_cloudlet_delay"):
        _isolated(**kw)


def test_the_default_calibration_covers_fig4s_densities_and_offers_its_choice():
    """Fig. 4 draws E = 10, 20, 30 and 40 cloudlets; the default grid of thresholds holds
    the one the rule chooses (the table's 84 dB), so the frame shows the chosen row."""
    frame = coverage_calibration()
    assert frame.attrs["chosen"] == PARAMS["coverage_db"].default
    assert sorted(set(frame["n_cloudlets"])) == [10, 20, 30, 40]
    assert frame.attrs["chosen"] in set(frame["coverage_db"])
    assert len(frame) == 4 * frame["coverage_db"].nunique()


def test_ewma_refuses_more_than_1e8_rates_before_copying_them():
    """A read-only view of 10^8 + 1 rates (no memory behind it) is refused by the memory
    bound at once; it used to be copied to floats first (10^12 of them: a MemoryError)."""
    for shape in ((1, 10**8 + 1), (10**6, 10**6)):
        with pytest.raises(
            ParameterError, match=r"'rates' parameter of ewma_rates must hold at most 10\^8"
        ):
            ewma_rates(np.broadcast_to(1.0, shape))


def test_the_calibrations_radius_is_the_distance_at_that_path_loss():
    frame = coverage_calibration(thresholds_db=(80.0, 84.0, 100.0), densities=(10,), seeds=1)
    for db, radius in zip(frame["coverage_db"], frame["radius_m"], strict=True):
        assert path_loss_db(radius) == pytest.approx(db, abs=1e-9)


def test_calibration_refuses_no_pair_or_more_than_1000_pairs():
    _refused("thresholds_db", coverage_calibration, thresholds_db=[], seeds=1)
    _refused("thresholds_db", coverage_calibration, densities=[], seeds=1)
    many = np.linspace(60.0, 140.0, 143)
    _refused("thresholds_db", coverage_calibration, thresholds_db=many, densities=range(1, 8))
    frame = coverage_calibration(
        thresholds_db=many[:125], densities=range(1, 9), seeds=1
    )  # 1000 pairs: the most it takes
    assert len(frame) == 1000


@pytest.mark.parametrize(("seeds", "ok"), [(0, False), (1, True), (1000, True), (1001, False)])
def test_calibration_takes_1_to_1000_networks_per_pair(seeds, ok):
    if ok:
        frame = coverage_calibration(thresholds_db=(84.0,), densities=(1,), seeds=seeds)
        assert frame["covering"].tolist() == [1.0]  # one cloudlet covers everyone
    else:
        _refused("seeds", coverage_calibration, thresholds_db=(84.0,), densities=(1,), seeds=seeds)


def test_below_x_max_counts_users_covered_by_fewer_than_x_max():
    """At 30 dB only a user's nearest cloudlet covers it: one cloudlet, which is fewer than
    X_max = 2 and not fewer than X_max = 1."""
    for x_max, below in ((1, 0.0), (2, 1.0)):
        frame = coverage_calibration(thresholds_db=(30.0,), densities=(10,), seeds=2, x_max=x_max)
        assert frame["below_x_max"].tolist() == [below]


def test_the_chosen_threshold_is_the_closest_by_the_drawn_networks():
    """The rule by brute force: over thresholds 60 .. 140 dB (1 dB apart), the mean number of
    cloudlets covering a user of the drawn networks (make_scenario, U = 3E, E = 10, seeds
    0 .. 2) closest to X_max."""
    for x_max in (3, 5):
        frame = coverage_calibration(thresholds_db=(84.0,), densities=(10,), seeds=3, x_max=x_max)
        grid = np.arange(60.0, 141.0)
        mean = [
            np.mean(
                [
                    make_scenario(n_cloudlets=10, n_users=30, coverage_db=db, seed=s).covered.sum()
                    / 30
                    for s in range(3)
                ]
            )
            for db in grid
        ]
        assert frame.attrs["chosen"] == grid[int(np.argmin(np.abs(np.array(mean) - x_max)))]


def test_a_calibration_threshold_at_a_drawn_path_loss_covers_that_pair():
    sc = make_scenario(n_cloudlets=10, n_users=30, seed=0)
    pl = path_loss_db(_distances(sc))
    level = float(np.sort(pl, axis=1)[0, 5])  # user 0's sixth nearest cloudlet
    frame = coverage_calibration(thresholds_db=(level,), densities=(10,), seeds=1)
    again = make_scenario(n_cloudlets=10, n_users=30, seed=0, coverage_db=level)
    assert again.covered[0].sum() == 6
    assert frame["covering"].tolist() == [again.covered.sum() / 30]


# --- the training's stream, the calibration's defaults and grid -----------------------------


def test_the_training_draws_neither_the_networks_nor_the_tasks_numbers():
    """One seed for a whole manual run (network, training, tasks) must not make the
    training's requests replay another part's draws. make_scenario's stream is found from its
    output (its first draws are the cloudlets' positions); the tasks' per-user numbers are
    Poisson(λ_u T) as the training's are, so over the same period they would be equal."""
    seed, lam, period = 7, 2.0, 100.0
    sc = make_scenario(n_cloudlets=2, n_users=3, seed=seed)
    requests = train(sc, seed=seed, lam=lam, training_time=period).counts.sum(axis=1)
    network = np.random.default_rng(np.random.SeedSequence(seed))
    assert np.array_equal(network.uniform(0.0, PARAMS["area"].default, (2, 2)), sc.cloudlet_xy)
    replayed = np.random.default_rng(np.random.SeedSequence(seed)).poisson(lam * period, 3)
    assert not np.array_equal(requests, replayed)
    tasks = draw_tasks(sc, seed=seed, lam=lam, horizon=period)
    assert not np.array_equal(requests, np.diff(tasks.user_start))
    assert requests.sum() > 0 and np.diff(tasks.user_start).sum() > 0


def test_the_default_calibration_is_the_documented_grid_over_20_networks():
    """The docstring's defaults: 80 to 90 dB every 2 dB, then 95, 100 and 110 dB (its ends the
    table's plausible range of coverage_db) at Fig. 4's densities, over the networks of seeds
    0 .. 19: a cell's mean covering count is the mean over those 20 drawn scenarios, and at
    84 dB and E = 10 it is the table's help: X_max = 2 on average, 41% of the users below."""
    frame = coverage_calibration()
    grid = [80.0, 82.0, 84.0, 86.0, 88.0, 90.0, 95.0, 100.0, 110.0]
    assert (grid[0], grid[-1]) == PARAMS["coverage_db"].plausible
    for e in (10, 20, 30, 40):
        assert frame.loc[frame["n_cloudlets"] == e, "coverage_db"].tolist() == grid
    at = frame.set_index(["coverage_db", "n_cloudlets"])
    drawn = np.concatenate(
        [
            make_scenario(n_cloudlets=10, n_users=30, coverage_db=84.0, seed=s).covered.sum(axis=1)
            for s in range(20)
        ]
    )
    assert drawn.size == 20 * 30
    assert at.loc[(84.0, 10), "covering"] == pytest.approx(drawn.mean(), abs=1e-12)
    assert at.loc[(84.0, 10), "below_x_max"] == pytest.approx((drawn < 2).mean(), abs=1e-12)
    assert round(at.loc[(84.0, 10), "covering"]) == PARAMS["x_max"].default == 2
    assert round(100 * at.loc[(84.0, 10), "below_x_max"]) == 41
    # 110 dB (146 m) reaches every cloudlet of the 100 m square from every user
    assert (at.loc[110.0, "covering"] == [10.0, 20.0, 30.0, 40.0]).all()


def test_the_chosen_threshold_is_60_db_when_every_grid_point_covers_too_many():
    """X_max = 1: every threshold covers at least the nearest cloudlet, and the mean covering
    count does not fall as the threshold rises, so the closest to 1 is the grid's lowest point,
    60 dB, the lowest of the ties (the docstring's rule)."""
    frame = coverage_calibration(thresholds_db=(59.0, 60.0, 61.0), densities=(10,), x_max=1)
    covering = frame["covering"].tolist()
    assert 1.0 <= covering[0] <= covering[1] <= covering[2]
    assert frame.attrs["chosen"] == 60.0


def test_the_chosen_threshold_is_140_db_when_the_grid_never_covers_enough():
    """A 5 km square: at E = 10 even 141 dB (a 1 km radius) covers fewer than X_max = 2
    cloudlets per user on average, and the mean still rises from 139 to 140 to 141 dB, so
    the closest to X_max is the grid's top, 140 dB (the docstring's rule)."""
    frame = coverage_calibration(
        thresholds_db=(139.0, 140.0, 141.0), densities=(10,), seeds=5, area=5000.0
    )
    covering = frame["covering"].tolist()
    assert covering[0] < covering[1] < covering[2] < PARAMS["x_max"].default
    assert frame.attrs["chosen"] == 140.0
