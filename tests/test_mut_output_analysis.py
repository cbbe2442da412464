"""The output analysis against a slow twin written from its definitions, and against theory:
mutants of ``workbench/output_analysis.py`` the behavioural tests could not see
(``benchmarks/mutation.py output_analysis``).

The twin (``_twin_detect``) follows the module docstring step by step with loops and
scipy's own tests: MSER-5 as the minimiser of SSE(d) / (k - d)^2 over the batch means
(two-pass sums), one common cut chosen on the replications' average, batch means of the
kept series, Student's two-sample t of the halves (``scipy.stats.ttest_ind``, one-sided)
turned into a z, the von Neumann ratio of successive batch means standardised by its exact
null mean 2 and variance 4(b - 2)/(b^2 - 1), Stouffer's z over replications for the halves,
the largest p-value for von Neumann, and a Bonferroni-doubled minimum. The theory tests
check that, under the null (i.i.d. normal batch means), the two standardised statistics have
mean 0 and variance 1, and that the detector's false-alarm rate is at most ``alpha``."""

import math

import numpy as np
import pandas as pd
import pytest
from naive import mser5_naive
from scipy import stats

from workbench import EmptyRunError, ParameterError, UnstableRegimeError
from workbench.output_analysis import (
    MAX_BATCHES,
    MIN_BATCH_SIZE,
    MIN_BATCHES,
    Replication,
    Stationarity,
    _batch_means,
    _trend_z,
    check_overload,
    detect,
    finish,
    mser5,
    replicate,
    require_observations,
)
from workbench.seeding import replication_seeds

# -- the slow twin ---------------------------------------------------------------------------


def _twin_batch_means(y):
    b = min(32, len(y) // 8)
    if b % 2:
        b -= 1
    if b < 8:
        return None
    size = len(y) // b
    tail = y[len(y) - b * size :]
    return np.array([tail[i * size : (i + 1) * size].mean() for i in range(b)])


def _twin_trend_z(means):
    b = len(means)
    if max(means) - min(means) <= 1e-9 * max(abs(x) for x in means):
        return 0.0, 0.0
    first, second = means[: b // 2], means[b // 2 :]
    p = stats.ttest_ind(second, first, equal_var=True, alternative="greater").pvalue
    z_half = float(stats.norm.isf(p))
    mu = sum(means) / b
    ratio = sum((means[i + 1] - means[i]) ** 2 for i in range(b - 1)) / sum(
        (x - mu) ** 2 for x in means
    )
    z_vn = (2.0 - ratio) / math.sqrt(4.0 * (b - 2) / (b * b - 1.0))
    return z_half, z_vn


def _twin_detect(series, warmup, alpha=1e-3):
    """(stationary, truncation, observations, first_half, second_half, p_value)."""
    cleaned = []
    for y, w in zip(series, warmup, strict=True):
        y = np.asarray(y, dtype=float)
        y = y[np.isfinite(y)]
        cleaned.append((y, min(w, len(y))))
    parts = [y[w:] for y, w in cleaned]
    length = min(len(p) for p in parts)
    if length < 50:
        cut = 0
    else:
        avg = np.mean([p[:length] for p in parts], axis=0)
        cut = mser5_naive(list(avg))
        cut = None if cut > length // 2 else cut
    truncation, observations, sums1, sums2, n1, n2, zs = 0, 0, 0.0, 0.0, 0, 0, []
    for y, w in cleaned:
        d = w + cut if cut is not None and w + cut < len(y) else w
        kept = y[d:]
        truncation = max(truncation, d)
        observations += len(kept)
        if len(kept) >= 2:
            h = len(kept) // 2
            sums1, n1 = sums1 + kept[:h].sum(), n1 + h
            sums2, n2 = sums2 + kept[h:].sum(), n2 + len(kept) - h
        means = _twin_batch_means(kept)
        if means is not None:
            zs.append(_twin_trend_z(means))
    p_value = math.nan
    if zs:
        p_half = 2 * stats.norm.sf(abs(sum(z[0] for z in zs)) / math.sqrt(len(zs)))
        p_vn = max(stats.norm.sf(z[1]) for z in zs)
        p_value = min(1.0, 2 * min(p_half, p_vn))
    first = sums1 / n1 if n1 else math.nan
    second = sums2 / n2 if n2 else math.nan
    return (not p_value < alpha, truncation, observations, first, second, p_value)


def _ar1(rng, n, phi, mean=0.0):
    y = np.empty(n)
    y[0] = rng.standard_normal() / math.sqrt(1 - phi * phi)
    e = rng.standard_normal(n)
    for i in range(1, n):
        y[i] = phi * y[i - 1] + e[i]
    return mean + y


def _cases():
    """Series of every shape the detector meets: stationary, drifting, transient, random
    walk, short, with NaN and infinities, per-replication warm-ups, unequal lengths."""
    rng = np.random.default_rng(11)
    n = 1_200
    cases = {
        "ar1": ([_ar1(rng, n, 0.5, 3.0)], [0]),
        "ar1_three": ([_ar1(rng, n, 0.8, 3.0) for _ in range(3)], [0, 100, 37]),
        "drift": ([rng.standard_normal(n) + np.linspace(0, 1.5, n)] * 2, [0, 0]),
        "falls": ([rng.standard_normal(n) - np.linspace(0, 2.0, n)], [0]),
        "transient": ([rng.standard_normal(n) + 8 * np.exp(-np.arange(n) / 60.0)], [0]),
        "walk": ([np.cumsum(rng.standard_normal(n)) for _ in range(2)], [5, 0]),
        "unequal": ([rng.exponential(1.0, 900), rng.exponential(1.0, 1_500)], [40, 0]),
        "short": ([rng.standard_normal(70), rng.standard_normal(130)], [0, 3]),
        "tiny": ([rng.standard_normal(40)], [0]),
        "nan": ([np.where(rng.random(n) < 0.05, np.nan, rng.standard_normal(n))], [10]),
        "inf": ([np.where(rng.random(n) < 0.02, np.inf, rng.standard_normal(n) + 1)], [0]),
        "warmup_past_end": ([rng.standard_normal(300), rng.standard_normal(300)], [400, 0]),
        "late_warmup": ([np.r_[rng.standard_normal(700) + 5, rng.standard_normal(500)]], [0]),
        "odd_batches": ([rng.standard_normal(8 * 9 + 3)], [0]),
        # exactly 50 after the warm-up (the least MSER looks at), with a transient to cut
        "fifty": ([np.r_[np.full(10, 5.0), rng.standard_normal(40) * 0.1]], [0]),
        # after the warm-ups, 200, 1 and 2 observations: halves only from 2 on
        "few_kept": ([rng.standard_normal(200), np.ones(11), rng.standard_normal(12)], [0, 10, 10]),
        # a step MSER cuts at exactly half the run: still a warm-up that ended
        "half": ([np.r_[np.full(50, 9.0), np.zeros(50)]], [0]),
    }
    return cases


@pytest.mark.parametrize("case", list(_cases()))
def test_detect_equals_its_slow_twin(case):
    series, warmup = _cases()[case]
    got = detect(series, warmup=warmup, alpha=0.01)
    want = _twin_detect(series, warmup, alpha=0.01)
    assert got.stationary == want[0]
    assert (got.truncation, got.observations) == want[1:3]
    np.testing.assert_allclose([got.first_half, got.second_half], want[3:5], rtol=1e-12)
    # the module turns t into z through the t cdf, which keeps ~1e-16 absolute near 1: a
    # p-value near 1e-10 agrees with scipy's survival function to about 1e-6 relative
    np.testing.assert_allclose(got.p_value, want[5], rtol=1e-5)
    assert got.tested == (not math.isnan(want[5]))


def test_the_twin_cases_cover_both_verdicts_and_a_cut():
    """The comparison above compares something: alarms and quiet runs, MSER cuts and none."""
    verdicts = {c: _twin_detect(*_cases()[c], alpha=0.01) for c in _cases()}
    assert not verdicts["drift"][0] and not verdicts["walk"][0] and not verdicts["falls"][0]
    assert verdicts["ar1"][0] and verdicts["unequal"][0]
    assert verdicts["transient"][1] >= 100  # MSER cuts the transient
    assert math.isnan(verdicts["tiny"][5])  # too short for batches
    assert verdicts["fifty"][1] >= 10 and verdicts["half"][1] == 50  # MSER cuts at 50 obs


def test_mser5_equals_its_twin_and_breaks_ties_early():
    rng = np.random.default_rng(3)
    for n in (49, 50, 54, 55, 61, 300, 1_003):
        y = rng.standard_normal(n) + 4 * np.exp(-np.arange(n) / 30)
        assert mser5(y) == mser5_naive(list(y)), n
    y = rng.standard_normal(400) * 1e-3 + 0.05 * np.exp(-np.arange(400) / 40)
    assert mser5(y) == mser5(y * 1e6) == mser5_naive(list(y)) > 0  # MSER is scale-free
    assert mser5(np.ones(100)) == 0  # every d ties at 0: the earliest
    # a step: the first 50 values high, the rest flat: the cut is exactly at the step
    assert mser5(np.r_[np.full(50, 9.0), np.zeros(150)]) == 50
    # the last five batches are never a candidate: a jump there cannot move the cut to them
    y = np.r_[np.zeros(100), np.full(25, 50.0)]
    assert mser5(y) == mser5_naive(list(y)) < 100


def test_batch_means_of_every_length_equal_their_twin():
    rng = np.random.default_rng(5)
    for n in (*range(60, 80), 127, 128, 255, 256, 257, 300, 1_000):
        y = rng.standard_normal(n)
        got, want = _batch_means(y), _twin_batch_means(y)
        if want is None:
            assert got is None, n
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(n))
    assert (MAX_BATCHES, MIN_BATCHES, MIN_BATCH_SIZE) == (32, 8, 8)  # the docstring's b


def test_trend_z_equals_scipys_tests():
    rng = np.random.default_rng(9)
    for b in (8, 10, 16, 32):
        for shift in (0.0, 0.5, -2.0):
            m = rng.standard_normal(b) + shift * np.arange(b) / b
            np.testing.assert_allclose(_trend_z(m), _twin_trend_z(m), rtol=1e-9, atol=1e-12)


def test_trend_z_on_degenerate_batch_means():
    assert _trend_z(np.full(8, 3.0)) == (0.0, 0.0)  # constant: no trend
    assert _trend_z(np.full(8, 3.0) * (1 + 1e-12 * np.arange(8))) == (0.0, 0.0)  # rounding
    assert _trend_z(1e6 + 1e-4 * np.arange(8)) == (0.0, 0.0)  # relative: 1e-10 of 1e6
    # halves each constant but different: no variance within them, a sure step up or down
    up = np.r_[np.zeros(4), np.ones(4)]
    assert _trend_z(up)[0] == 40.0 and _trend_z(1.0 - up)[0] == -40.0
    # halves far apart: the t cdf rounds to 1 (or is tiny), and z stays finite
    step = np.r_[np.zeros(16), np.full(16, 100.0)] + np.tile([0.0, 1e-3], 16)
    assert 8.0 < _trend_z(step)[0] < 9.0 and -40.0 < _trend_z(-step)[0] < -8.0
    # a negative series: the constant test uses the largest magnitude, not the largest value
    neg = -5.0 + np.r_[np.zeros(4), np.full(4, 1e-6)]
    assert _trend_z(neg)[0] == 40.0


def test_standardised_statistics_are_standard_normal_under_the_null():
    """Theory: for i.i.d. normal batch means the von Neumann ratio has mean 2 and variance
    4(b - 2)/(b^2 - 1) (von Neumann 1941), and the half-means t turned into z is N(0, 1)."""
    rng = np.random.default_rng(2)
    z = np.array([_trend_z(rng.standard_normal(16)) for _ in range(4_000)])
    assert abs(z[:, 0].mean()) < 0.06 and abs(z[:, 1].mean()) < 0.06
    assert 0.92 < z[:, 0].var() < 1.08 and 0.92 < z[:, 1].var() < 1.08
    # and the tails: P(z > 1.645) = 5 % for each
    assert 0.04 < (z[:, 0] > 1.645).mean() < 0.06
    assert 0.035 < (z[:, 1] > 1.645).mean() < 0.065


def test_false_alarm_rate_of_iid_series_is_at_most_alpha():
    """Bonferroni over two tests: at most alpha, near alpha when they are independent."""
    alpha = 0.1
    rng = np.random.default_rng(4)
    flagged = [not detect(rng.standard_normal(320), alpha=alpha).stationary for _ in range(600)]
    assert 0.06 < np.mean(flagged) <= alpha + 0.02


def test_scale_does_not_change_the_verdict_and_huge_values_do_not_overflow():
    rng = np.random.default_rng(6)
    for y in (rng.standard_normal(2_000) + np.linspace(0, 1, 2_000), _ar1(rng, 2_000, 0.5)):
        base = detect(y)
        for factor in (2.0**600, 2.0**-600, 2.0**200):
            got = detect(y * factor)
            assert got.stationary == base.stationary and got.p_value == base.p_value
            assert got.first_half == base.first_half * factor
            assert got.second_half == base.second_half * factor
    assert not detect(np.linspace(1e307, 1.7e308, 2_000)).stationary  # a trend near the top


def test_detect_notes_and_verdict_fields():
    rng = np.random.default_rng(8)
    v = detect([np.cumsum(rng.standard_normal(3_000)) + 100], unit="s", label="delay")
    assert not v.stationary and v.rho is None and v.tested
    trend = "grows" if v.second_half > v.first_half else "falls"
    assert v.note.startswith(f"delay {trend} with run length: ")
    assert f"{v.first_half:.3g} s in the first half" in v.note
    assert f"(trend test p = {v.p_value:.2g})" in v.note
    down = detect(10 - np.linspace(0, 5, 1_000) + rng.standard_normal(1_000) * 0.1)
    assert "mean falls with run length" in down.note and " s " not in down.note
    # a warm-up that never ends: the note counts the replications where MSER says so
    ramp = [np.linspace(0, 10, 1_000) + rng.standard_normal(1_000) for _ in range(3)]
    flat = np.r_[np.full(50, 6.0), rng.standard_normal(950)]  # a warm-up that ends early
    v = detect([*ramp, flat])
    assert "MSER-5 finds no end to the warm-up in 3 of 4 replications" in v.note
    # a load bound: recorded, flags at 1 exactly, and the stationary note stays empty below
    y = rng.standard_normal(500)
    assert detect(y, rho=1.0).note.startswith("the model loads a server to ρ = 1 >= 1")
    ok = detect(y, rho=0.0)
    assert ok.stationary and ok.rho == 0.0 and ok.note == "" and ok.tested
    assert detect(y).as_dict() == {
        "stationary": True,
        "truncation": detect(y).truncation,
        "first_half": detect(y).first_half,
        "second_half": detect(y).second_half,
        "p_value": detect(y).p_value,
        "rho": None,
        "note": "",
    }
    assert Stationarity(True).method.startswith("MSER-5")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 0.0}, "'alpha' parameter of detect"),
        ({"alpha": 0.5000001}, "'alpha' parameter of detect"),
        ({"rho": -0.1}, "'rho' parameter of detect"),
        ({"warmup": -1}, "'warmup' parameter of detect"),
        ({"warmup": [0, -1]}, "'warmup' parameter of detect"),
        ({"warmup": [0]}, r"one int per replication \(2\). Got 1 values"),
        ({"unit": 3}, "'unit' parameter of detect must be a str"),
        ({"label": None}, "'label' parameter of detect must be a str"),
    ],
)
def test_detect_refuses_bad_arguments_by_name(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        detect([np.ones(100), np.ones(100)], **kwargs)


def test_detect_accepts_its_boundaries_and_refuses_bad_series():
    y = np.random.default_rng(0).standard_normal(200)
    assert detect(y, alpha=0.5).stationary in (True, False)
    assert detect(y, rho=0.0, warmup=0).truncation >= 0
    assert detect(y, warmup=[250]).observations == 0  # a warm-up past the end keeps nothing
    assert detect([list(y)]).observations == detect(y).observations  # a list as a series
    rows = np.random.default_rng(1).standard_normal((3, 400))
    assert detect(rows) == detect(list(rows))  # a 2-D array: one replication a row
    with pytest.raises(TypeError):  # everything after the series is keyword-only
        detect(y, 0)
    for bad in ("abc", b"ab", np.float64(1.0), np.array(1.0), 3, np.ones((2, 3, 4))):
        with pytest.raises(ParameterError, match="'series' parameter of detect"):
            detect(bad)
    with pytest.raises(ParameterError, match="at least one replication"):
        detect([])
    with pytest.raises(ParameterError, match="a 1-D array of real numbers"):
        detect([["a", "b"]])
    with pytest.raises(ParameterError, match="'series' parameter of mser5"):
        mser5(np.ones((3, 3)))
    with pytest.raises(ParameterError, match="'series' parameter of mser5"):
        mser5("12345")


# -- the overload policy and empty runs ----------------------------------------------------


def test_check_overload_in_every_combination():
    bad = Stationarity(False, note="it grows")
    good = Stationarity(True)
    # raise: rho first, then the verdict
    with pytest.raises(UnstableRegimeError, match=r"^f: x: the model loads a server to ρ = 1 "):
        check_overload("f", "raise", rho=1.0, stationarity=bad, what="x")
    with pytest.raises(UnstableRegimeError, match=r"^f: the run is not a steady state \(it grows"):
        check_overload("f", "raise", rho=0.99, stationarity=bad)
    assert check_overload("f", "raise", rho=0.99, stationarity=good) == []
    assert check_overload("f", "raise") == []
    # transient: a note per cause
    assert check_overload("f", "transient", stationarity=bad) == ["not stationary: it grows"]
    notes = check_overload("f", "transient", rho=1.0, stationarity=good)
    assert notes == [
        "overloaded (ρ = 1 >= 1): finite-horizon numbers that grow with the run length, "
        "not steady-state means"
    ]
    assert len(check_overload("f", "transient", rho=2.0, stationarity=bad)) == 2
    for kwargs, name in [
        ({"rho": -1.0}, "'rho' parameter of f"),
        ({"stationarity": "yes"}, "'stationarity' parameter of f"),
        ({"what": 1}, "'what' parameter of f"),
    ]:
        with pytest.raises(ParameterError, match=name):
            check_overload("f", "raise", **kwargs)
    with pytest.raises(ParameterError, match="'func' parameter of check_overload"):
        check_overload(1, "raise")


def test_require_observations_counts_the_empty_replications():
    with pytest.raises(EmptyRunError, match=r"^f: 2 of 3 replications have no jobs, so .* Wait"):
        require_observations("f", [0, 5, -1], what="jobs", hint="Wait.")
    with pytest.raises(EmptyRunError, match="1 of 1 replications have no requests completed"):
        require_observations("f", [])
    with pytest.raises(EmptyRunError, match="Raise the arrival rate or lengthen the run"):
        require_observations("f", 0)
    assert require_observations("f", 0.5) is None  # a positive count
    with pytest.raises(ParameterError, match="'counts' parameter of f"):
        require_observations("f", [1, float("nan")])
    with pytest.raises(ParameterError, match="'counts' parameter of f"):
        require_observations("f", ["x"])
    for kwargs, name in [({"what": 1}, "'what' parameter of f"), ({"hint": 2}, "'hint'")]:
        with pytest.raises(ParameterError, match=name):
            require_observations("f", [1], **kwargs)
    with pytest.raises(ParameterError, match="'func' parameter of require_observations"):
        require_observations(None, [1])


# -- the replication engine ------------------------------------------------------------------


def _recorder():
    seen = []

    def one(seed_sequence, index):
        seen.append((seed_sequence, index))
        x = np.random.default_rng(seed_sequence).random()
        return Replication({"x": x, "n": 3}, np.full(60, x), 0)

    return one, seen


def test_replicate_hands_each_replication_its_own_child_and_index():
    one, seen = _recorder()
    reps = replicate(one, replications=3, seed=21, start=4)
    assert [i for _, i in seen] == [4, 5, 6]
    want = replication_seeds(21, 3, 4)
    assert [s.spawn_key for s, _ in seen] == [w.spawn_key for w in want]
    assert [s.entropy for s, _ in seen] == [w.entropy for w in want]
    assert [r.row["x"] for r in reps] == [np.random.default_rng(w).random() for w in want]
    one, seen = _recorder()
    replicate(one, replications=1, seed=np.random.SeedSequence(5), progress=True, desc="d")
    assert seen[0][0].entropy == 5 and seen[0][1] == 0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"replications": 0}, "'replications'"),
        ({"replications": 10**6 + 1}, "'replications'"),
        ({"start": -1}, "'start'"),
        ({"start": 10**6 + 1}, "'start'"),
        ({"seed": -1}, "'seed'"),
        ({"seed": 2**128}, "'seed'"),
        ({"progress": "yes"}, "'progress'"),
        ({"desc": 3}, "'desc'"),
    ],
)
def test_replicate_refuses_bad_arguments_by_name(kwargs, name):
    one, _ = _recorder()
    args = {"replications": 2} | kwargs
    with pytest.raises(ParameterError, match=f"{name} parameter of replicate"):
        replicate(one, **args)


def test_replicate_accepts_its_largest_seed_and_start_and_refuses_a_non_callable():
    one, seen = _recorder()
    replicate(one, replications=1, seed=2**128 - 1, start=10**6)
    assert seen[0][1] == 10**6
    with pytest.raises(ParameterError, match="'one' parameter of replicate must be a callable"):
        replicate(3, replications=1)


def _rep(x, n=200, warmup=0, records=None, rng=None):
    rng = rng or np.random.default_rng(int(x * 1000))
    return Replication({"x": x, "y": 2 * x, "n": n}, rng.standard_normal(n) + x, warmup, records)


_FINISH = dict(func="g", metric="x", quantities=["x", "y"], confidence=0.9, run_length=200)
_FINISH |= dict(run_unit="jobs")


def test_finish_builds_the_result_from_the_rows_and_the_verdict():
    recs = [pd.DataFrame({"a": [1, 2]}), None, pd.DataFrame({"a": [3]})]
    reps = [_rep(1.0, records=recs[0]), _rep(1.2, records=recs[1]), _rep(0.8, records=recs[2])]
    result = finish(reps, notes=("first",), info={"k": 1}, rho=0.4, **_FINISH)
    assert list(result.frame["replication"]) == [0, 1, 2]
    assert result.frame["y"].tolist() == [2.0, 2.4, 1.6]
    assert result.estimate == pytest.approx(1.0)
    assert result.confidence == 0.9 and result.run_length == 200 and result.run_unit == "jobs"
    assert result.records["a"].tolist() == [1, 2, 3]
    assert result.notes[0] == "first" and result.info == {"k": 1}
    assert result.stationarity == detect([r.series for r in reps], rho=0.4, label="x")
    assert result.stationarity.rho == 0.4
    given = pd.DataFrame({"b": [7]})
    assert finish(reps, records=given, **_FINISH).records is given
    assert finish([_rep(1.0)], **_FINISH).records is None
    # the overload policy's notes follow the caller's
    transient = finish(reps, notes=["n0"], rho=1.5, overload="transient", **_FINISH)
    assert transient.notes[0] == "n0" and "overloaded (ρ = 1.5" in transient.notes[1]
    with pytest.raises(UnstableRegimeError, match="ρ = 1.5"):
        finish(reps, rho=1.5, **_FINISH)


def test_finish_counts_observations_from_the_row_or_the_kept_series():
    nan = Replication({"x": 1.0, "y": 1.0, "n": 9}, np.full(50, np.nan), 0)
    with pytest.raises(EmptyRunError, match="1 of 2 replications have no tasks"):
        finish([_rep(1.0), nan], count="n", empty_what="tasks", **_FINISH)
    zero = Replication({"x": 1.0, "y": 1.0, "n": 0}, np.ones(50), 0)
    with pytest.raises(EmptyRunError, match="1 of 2 .* Hint."):
        finish([_rep(1.0), zero], count="n", empty_hint="Hint.", **_FINISH)
    assert finish([_rep(1.0), zero], **_FINISH).replications == 2  # its series counts
    past = Replication({"x": 1.0, "y": 1.0, "n": 5}, np.ones(50), 50)  # all warm-up
    with pytest.raises(EmptyRunError, match="1 of 2"):
        finish([_rep(1.0), past], **_FINISH)
    with pytest.raises(ParameterError, match="'count' parameter of g"):
        finish([_rep(1.0)], count="m", **_FINISH)


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"reps": []}, "'reps'"),
        ({"reps": "ab"}, "'reps'"),
        ({"reps": [("not", "a replication")]}, "'reps'"),
        ({"metric": 3}, "'metric'"),
        ({"metric": "z"}, "'metric'"),
        ({"quantities": "x"}, "'quantities'"),
        ({"quantities": ["x", 3]}, "'quantities'"),
        ({"quantities": ["x", "w"]}, "'quantities'"),
        ({"confidence": 1.0}, "'confidence'"),
        ({"run_length": 0}, "'run_length'"),
        ({"run_unit": 1}, "'run_unit'"),
        ({"bounds": [(0, 1)]}, "'bounds'"),
        ({"notes": "a note"}, "'notes'"),
        ({"info": [1]}, "'info'"),
        ({"records": [1]}, "'records'"),
        ({"overload": "ignore"}, "'overload'"),
    ],
)
def test_finish_refuses_bad_arguments_by_name(change, name):
    args = {"reps": [_rep(1.0), _rep(2.0)]} | _FINISH | change
    with pytest.raises(ParameterError, match=f"{name} parameter of g"):
        finish(**args)


def test_finish_refuses_a_bad_series_and_names_the_rows_quantities():
    bad = Replication({"x": 1.0, "y": 1.0}, "abc", 0)
    with pytest.raises(ParameterError, match="'series' parameter of g"):
        finish([bad], **_FINISH)
    with pytest.raises(ParameterError, match=r"quantities every replication's row has \['n',"):
        finish([_rep(1.0)], **(_FINISH | {"metric": "q"}))
    with pytest.raises(ParameterError, match="'func' parameter of finish"):
        finish([_rep(1.0)], **(_FINISH | {"func": 3}))


def test_a_replication_without_a_warm_up_keeps_its_first_observation():
    """Replication's warm-up defaults to none: a series whose only finite value is its
    first measured something."""
    only_first = Replication({"x": 1.0, "y": 2.0, "n": 1}, np.r_[1.0, np.full(59, np.nan)])
    assert finish([only_first], **_FINISH).estimate == 1.0
    with pytest.raises(EmptyRunError):
        finish([only_first._replace(warmup=1)], **_FINISH)


class _Sentinel(Exception):
    pass


def _refuse(seed_sequence, index):
    raise _Sentinel


def test_replicate_defaults_and_its_largest_run():
    """Seed 0 by default; 10**6 replications pass the check (the first one is called)."""
    one, seen = _recorder()
    replicate(one, replications=2)
    assert [s.entropy for s, _ in seen] == [0, 0]
    assert [s.spawn_key for s, _ in seen] == [w.spawn_key for w in replication_seeds(0, 2)]
    with pytest.raises(_Sentinel):
        replicate(_refuse, replications=10**6)


def test_overload_and_counts_take_keywords_and_refuse_unconvertible_counts():
    with pytest.raises(TypeError):  # rho and the verdict are keyword-only
        check_overload("f", "raise", 1.0)
    with pytest.raises(ParameterError, match="'counts' parameter of f"):
        require_observations("f", [{}])  # not a number: a TypeError inside numpy


def test_an_alarm_with_equal_halves_says_the_mean_drifts():
    """A slow oscillation: four periods of a tent 0, 1, ..., 49, 49, ..., 0 (integers, so
    the sums are exact), started 20 values in. MSER cuts nothing, each half of the run holds
    two whole periods, so both halves average 24.5 exactly; the von Neumann ratio of the
    batch means (neighbours close together) gives the alarm. With halves equal the mean
    neither grows nor falls: the note says it drifts."""
    tent = np.r_[np.arange(50.0), np.arange(50.0)[::-1]]
    y = np.roll(np.tile(tent, 4), -20)
    got = detect([y])
    want = _twin_detect([y], [0])
    assert not got.stationary and not want[0] and got.truncation == want[1] == 0
    assert got.first_half == got.second_half == 24.5
    assert got.note.startswith("mean drifts with run length: 24.5 in the first half, 24.5 in")
