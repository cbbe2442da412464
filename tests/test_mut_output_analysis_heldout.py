"""Held-out mutants of ``workbench/output_analysis.py`` (session 10): the answers to a fresh
sample the existing tests let live, and the boundaries of the functions they pointed at.

Oracles: MSER-5 from its definition (tests/naive.py: two-pass sums of squares, ties to the
earliest point), block means counted by hand, the documented defaults of
:class:`Stationarity`, the scale-freeness the module promises (an exact power-of-two factor
changes nothing), a stationary i.i.d. series, and a fake ``tqdm`` that counts the steps the
replication engine reports."""

import math

import numpy as np
import pytest
from naive import mser5_naive, mser_statistic_naive

from workbench.output_analysis import (
    METHOD,
    Replication,
    Stationarity,
    _mser_statistic,
    _trend_z,
    block_series,
    check_overload,
    detect,
    mser5,
    replicate,
)
from workbench.validation import UnstableRegimeError


def test_stationarity_defaults_are_the_documented_ones():
    s = Stationarity(stationary=True)
    assert s.truncation == 0  # nothing cut unless the detector says so
    assert s.observations == 0
    assert s.method == METHOD
    assert math.isnan(s.first_half) and math.isnan(s.second_half) and math.isnan(s.p_value)
    assert s.rho is None and s.note == "" and s.tested is True
    assert s.as_dict()["truncation"] == 0


@pytest.mark.parametrize("c", [0.1, 0.2, 0.3, 1 / 3, 0.7, 1000.1])
def test_mser_statistic_of_a_constant_series_is_zero_not_negative(c):
    # an SSE is a sum of squares: never negative, and zero for a constant tail; the one-pass
    # formula s2 - s1^2 / m rounds below zero for these values and must be clipped at 0
    stat = _mser_statistic(np.full(40, c))
    assert np.all(stat >= 0.0)
    assert np.all(stat <= 1e-12 * c * c)


def test_mser_statistic_and_mser5_equal_their_definition():
    rng = np.random.default_rng(7)
    for k in (1, 2, 10, 37):
        means = rng.normal(3.0, 2.0, k)
        np.testing.assert_allclose(_mser_statistic(means), mser_statistic_naive(means), rtol=1e-9)
    for n in (49, 50, 54, 55, 200, 333):
        y = rng.exponential(1.0, n) + np.linspace(4.0, 0.0, n) ** 2
        assert mser5(y) == mser5_naive(y)
    # hand-computed: batch means 10, 0 x 9 (k = 10): SSE(0) = 90, stat(0) = 0.9; stat(d) = 0
    # for 1 <= d <= 4 (only d < k - 5 = 5 allowed): the earliest zero is d = 1, 5 observations
    y = np.r_[np.full(5, 10.0), np.zeros(45)]
    assert _mser_statistic(np.r_[10.0, np.zeros(9)])[0] == pytest.approx(0.9)
    assert mser5(y) == 5


# -- block_series -----------------------------------------------------------------------------


@pytest.mark.parametrize("n, limit", [(7, 10), (10, 10), (6, 10), (1, 2), (2, 2)])
def test_block_series_keeps_a_series_no_longer_than_the_limit(n, limit):
    values = np.arange(n, dtype=np.int64) * 3 + 1  # integers: the result must be floats
    series, warmup = block_series(values, 4, limit)
    assert series.dtype == float
    np.testing.assert_array_equal(series, np.arange(n) * 3.0 + 1.0)
    assert warmup == 4


def test_block_series_averages_blocks_past_the_limit():
    # n = 11, limit = 10: b = ceil(11 / 5) = 3, k = 3 blocks (the 11th value dropped)
    values = np.arange(11, dtype=float)
    series, warmup = block_series(values, 4, 10)
    np.testing.assert_array_equal(series, [1.0, 4.0, 7.0])
    assert warmup == 2  # 4 observations are 2 blocks of 3, rounded up
    assert block_series(values, 3, 10)[1] == 1 and block_series(values, 0, 10)[1] == 0
    # n = 21, limit = 7 (odd): limit // 2 = 3, b = 7, k = 3
    series, warmup = block_series(np.arange(21, dtype=float), 8, 7)
    np.testing.assert_array_equal(series, [3.0, 10.0, 17.0])
    assert warmup == 2


# -- _trend_z ---------------------------------------------------------------------------------


def test_trend_z_of_batch_means_whose_squares_underflow_is_finite():
    # distinct batch means near 1e-200: their deviations' squares underflow to 0, so the
    # von Neumann denominator is 0 although the means differ; the statistic must stay a number
    means = 1e-200 * np.arange(1.0, 9.0)
    z_half, z_vn = _trend_z(means)
    assert math.isfinite(z_half) and math.isfinite(z_vn)
    assert z_vn == 0.0


# -- rescaling: the tests are scale-free ------------------------------------------------------


def _tiny_tail_series():
    """One value of 2e77 (above 2^256, below 3^256) early, then a tail near 1e-100 whose
    own minimum of the MSER statistic lies past its first batches."""
    rng = np.random.default_rng(3)
    tail = 1e-100 * np.r_[5.0 + 3.0 * rng.random(40), 1.0 + rng.random(400)]
    return np.r_[np.ones(10), 2e77, np.ones(4), tail]


def test_an_exact_power_of_two_factor_changes_nothing():
    y = _tiny_tail_series()
    assert 2.0**256 < np.abs(y).max() < 3.0**256
    a = detect(y)
    for j in (300, 500):
        b = detect(y * 2.0**j)
        assert b.truncation == a.truncation
        assert b.observations == a.observations
        assert b.stationary == a.stationary
        assert b.p_value == a.p_value
        assert b.first_half == a.first_half * 2.0**j
        assert b.second_half == a.second_half * 2.0**j


def test_a_huge_warm_up_value_within_range_leaves_a_tiny_stationary_tail_alone():
    # the warm-up holds 1e70 (inside [2^-256, 2^256]: no rescaling), the tested part is i.i.d.
    # near 1e-130: a stationary series, judged as if the warm-up were not there
    rng = np.random.default_rng(1)
    tail = 1e-130 * (1.0 + rng.random(400))
    s = detect(np.r_[1e70, tail], warmup=1)
    alone = detect(tail)
    assert s.stationary and alone.stationary
    assert s.p_value == alone.p_value
    assert s.truncation == 1 + alone.truncation
    # the same value as a first spike of the tested part: inside the range, the run is not
    # rescaled (which would push the tail's squares below the smallest double); MSER-5 cuts
    # the spike's batch and the i.i.d. tail reads as stationary
    s = detect(np.r_[1e70, tail])
    assert s.stationary and s.truncation == 5


# -- detect: the common cut after a fixed warm-up ---------------------------------------------


def test_the_common_cut_is_added_to_a_long_fixed_warm_up():
    # 100 warm-up observations, then 200 with a 30-observation transient: the truncation is
    # the warm-up plus MSER-5 of what follows it (w * d would exceed the length: irrelevant)
    rng = np.random.default_rng(5)
    after = np.r_[np.full(30, 9.0) + rng.random(30), rng.random(170)]
    y = np.r_[np.full(100, 50.0), after]
    d = mser5_naive(after)
    assert 0 < d <= after.size // 2 and 100 * d >= y.size
    s = detect(y, warmup=100)
    assert s.truncation == 100 + d
    assert s.observations == y.size - 100 - d


def _late_series(frac, n=400):
    """A step from 10 to noise near 0 at ``frac`` of the series: MSER-5 cuts the step."""
    rng = np.random.default_rng(11)
    cut = int(frac * n)
    return np.r_[10.0 + rng.random(cut), rng.random(n - cut)]


def test_the_late_warm_up_note_counts_points_past_the_half_only():
    # rho >= 1 flags the run, so the note on late warm-ups is written when it applies
    y = _late_series(0.4)
    d = mser5_naive(y)
    assert y.size // 3 < d <= y.size // 2
    s = detect([y], rho=1.5)
    assert not s.stationary
    assert "MSER-5 finds no end" not in s.note
    y = _late_series(0.6)
    d = mser5_naive(y)
    assert d > y.size // 2
    s = detect([y, _late_series(0.4)], rho=1.5)
    assert "MSER-5 finds no end to the warm-up in 1 of 2 replications" in s.note


def test_the_late_rule_halves_the_tested_part_not_the_whole_series():
    # after a fixed warm-up of 200, the 400 tested observations end their step at 240: past
    # their half (200), though short of half the series with its warm-up, (600 + 200) / 2
    tested = _late_series(0.6)
    d = mser5_naive(tested)
    assert tested.size // 2 < d < (tested.size + 2 * 200) // 2
    y = np.r_[np.full(200, 3.0), tested]
    s = detect([y], warmup=200, rho=1.5)
    assert "MSER-5 finds no end to the warm-up in 1 of 1 replications" in s.note


def test_raise_is_read_by_value_not_by_identity():
    # a name read from a widget or a file is a new string object, not the interned literal
    raise_ = "".join(["rai", "se"])
    assert raise_ == "raise" and raise_ is not "raise"  # noqa: F632
    with pytest.raises(UnstableRegimeError, match="ρ = 1.5 >= 1"):
        check_overload("f", raise_, rho=1.5)
    flat = Stationarity(stationary=False, note="a trend")
    with pytest.raises(UnstableRegimeError, match="not a steady state"):
        check_overload("f", raise_, stationarity=flat)


# -- replicate's progress bar -----------------------------------------------------------------


class _FakeBar:
    made = []

    def __init__(self, total=None, desc="", leave=False, **options):
        self.total, self.desc, self.n, self.steps, self.closed = total, desc, 0, [], False
        self.disable = False
        _FakeBar.made.append(self)

    def update(self, k=1):
        self.steps.append(k)
        self.n += k

    def refresh(self):
        pass

    def close(self):
        self.closed = True


def test_the_progress_bar_advances_once_per_replication(monkeypatch):
    import tqdm.auto

    monkeypatch.setattr(tqdm.auto, "tqdm", _FakeBar)
    _FakeBar.made.clear()

    def one(seed_sequence, index):
        return Replication({"x": float(index)}, np.zeros(3), 0)

    out = replicate(one, replications=4, seed=2, progress=True, desc="reps", start=3)
    assert [r.row["x"] for r in out] == [3.0, 4.0, 5.0, 6.0]
    (bar,) = _FakeBar.made
    assert bar.desc == "reps"
    assert bar.steps == [1, 1, 1, 1]
    assert bar.n == 4 and bar.total == 4 and bar.closed


# -- boundaries no test pinned ------------------------------------------------------------------


def test_mser5_boundaries_of_length_and_of_the_last_allowed_point():
    step = np.r_[np.full(5, 10.0), np.zeros(45)]
    assert mser5(step) == 5  # k = 10 batches: computed
    assert mser5(step[:49]) == 0  # k = 9 < 10: no cut
    # noise, then 25 equal values: d = 75 (k - 5 = 15 batches) would give SSE 0, but the
    # point must leave at least five batches beyond the one it starts: d <= 5 (k - 6) = 70
    rng = np.random.default_rng(2)
    y = np.r_[rng.normal(0.0, 1.0, 75), np.full(25, 0.3)]
    assert mser5(y) == mser5_naive(y) == 70


@pytest.mark.parametrize("cut, truncation", [(45, 45), (50, 50), (55, 0)])
def test_the_common_cut_up_to_the_half_and_none_past_it(cut, truncation):
    # a step at ``cut`` of 100 observations: MSER-5 finds it; a point up to length // 2 = 50
    # is used, one past it means the warm-up may never end (test everything: no cut)
    rng = np.random.default_rng(cut)
    y = np.r_[10.0 + rng.random(cut), np.zeros(100 - cut)]  # SSE 0 from the step on
    assert mser5_naive(y) == cut
    s = detect(y)
    assert s.truncation == truncation
    assert s.observations == 100 - truncation


def test_halves_are_pooled_with_their_sizes_and_short_runs_are_not_tested():
    # [1, 3]: halves 1 | 3 (one each); [2, 4, 6, 8]: halves 3 | 7 (two each)
    s = detect([np.array([1.0, 3.0]), np.array([2.0, 4.0, 6.0, 8.0])])
    assert s.first_half == pytest.approx(7 / 3) and s.second_half == pytest.approx(17 / 3)
    assert s.observations == 6 and not s.tested and s.stationary
    assert math.isnan(s.p_value)
    assert s.note == "too few observations after the warm-up for the trend test"
    one = detect(np.array([5.0]))
    assert one.observations == 1 and math.isnan(one.first_half) and math.isnan(one.second_half)
    # a warm-up longer than the series cuts all of it
    assert detect(np.arange(10.0), warmup=25).truncation == 10


def test_a_tiny_series_is_brought_back_by_an_exact_power_of_two():
    rng = np.random.default_rng(4)
    y = 1.0 + rng.random(600) + np.linspace(0.0, 0.3, 600)
    a = detect(y)
    b = detect(y * 2.0**-900)  # below 2^-256: rescaled exactly back near 1
    assert b.truncation == a.truncation and b.stationary == a.stationary
    assert b.p_value == a.p_value
    assert b.first_half == a.first_half * 2.0**-900


def test_no_bar_without_progress(monkeypatch):
    import tqdm.auto

    monkeypatch.setattr(tqdm.auto, "tqdm", _FakeBar)
    _FakeBar.made.clear()
    out = replicate(
        lambda s, i: Replication({"x": 1.0}, np.zeros(3), 0), replications=2, progress=False
    )
    assert len(out) == 2 and _FakeBar.made == []


def test_odd_halves_are_weighted_by_their_own_sizes():
    # [1, 2, 4]: halves 1 | 3 with sizes 1 | 2; [2, 4]: halves 2 | 4 with sizes 1 | 1
    s = detect([np.array([1.0, 2.0, 4.0]), np.array([2.0, 4.0])])
    assert s.first_half == pytest.approx(1.5) and s.second_half == pytest.approx(10 / 3)


def test_a_run_below_two_to_the_minus_256_is_rescaled_before_its_squares_underflow():
    # the largest value 1e-80 (a first spike MSER-5 cuts) is below 2^-256: the series is
    # multiplied by 2^266 first, so the i.i.d. tail near 1e-160 (whose squares would be
    # subnormal) is judged exactly as the same run given already multiplied: stationary
    rng = np.random.default_rng(6)
    y = np.r_[1e-80, 1e-160 * (1.0 + rng.random(400))]
    assert 2.0**-300 < 1e-80 < 2.0**-256
    s = detect(y)
    scaled = detect(y * 2.0 ** -math.frexp(1e-80)[1])
    assert s.truncation == 5
    assert s.stationary and scaled.stationary
    assert s.p_value == scaled.p_value and s.truncation == scaled.truncation


def test_a_huge_warm_up_does_not_hide_a_tail_whose_squares_underflow():
    # bug found on the held-out sample: the rescaling factor was taken over the warm-up too,
    # so a first value of 2e77 set it and the i.i.d. tail near 1e-130 (scaled to 1e-207,
    # squares underflowing) read as a perfectly separated trend; so did a warm-up of 1 before
    # a tail near 1e-207. The warm-up is never tested: the verdict is the tail's alone.
    rng = np.random.default_rng(1)
    tail = 1e-130 * (1.0 + rng.random(400))
    alone = detect(tail)
    assert alone.stationary
    for first, factor in ((2e77, 1.0), (1.0, 2.0**-256), (1e300, 2.0**-400)):
        s = detect(np.r_[first, tail * factor], warmup=1)
        assert s.stationary
        assert s.p_value == alone.p_value and s.truncation == 1 + alone.truncation
        assert s.first_half == alone.first_half * factor


def test_a_run_of_subnormal_values_is_judged_like_the_same_run_near_one():
    # bug found on the held-out sample: 2.0**-e for a largest value below 2^-1022 overflowed
    # (OverflowError); the factor is exact, so the verdict is the one of the run near 1 (values
    # of 7 significant bits: exact at 2^-1040 too, where the spacing is 2^-1074)
    rng = np.random.default_rng(8)
    y = 1.0 + rng.integers(0, 64, 400) / 64.0
    a = detect(y)
    b = detect(y * 2.0**-1040)
    assert a.stationary and b.stationary
    assert b.p_value == a.p_value and b.truncation == a.truncation
    assert b.first_half == a.first_half * 2.0**-1040
