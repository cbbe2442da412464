"""RED against a literal transcription of Floyd & Jacobson (1993), Fig. 2, and hand values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.red import drop_probability, ewma, ewma_series, red_run
from workbench.validation import ParameterError


def floyd_jacobson(samples, uniforms, min_th, max_th, max_p, w_q):
    """Fig. 2 of the paper, line by line (queue never idle: the idle branch is not taken)."""
    avg, count = 0.0, -1
    out = []
    for q, u in zip(samples, uniforms, strict=True):
        avg = (1 - w_q) * avg + w_q * q
        mark = False
        if min_th <= avg < max_th:
            count = count + 1
            p_b = max_p * (avg - min_th) / (max_th - min_th)
            p_a = p_b / (1 - count * p_b) if count * p_b < 1 else 1.0
            p_a = min(p_a, 1.0)
            if u < p_a:
                mark, count = True, 0
        elif max_th <= avg:
            mark, count = True, 0
        else:
            count = -1
        out.append((avg, mark))
    return out


def test_hand_values():
    assert drop_probability(4.9, 5, 15, 0.1) == 0.0
    assert drop_probability(5.0, 5, 15, 0.1) == 0.0
    assert drop_probability(10.0, 5, 15, 0.1) == pytest.approx(0.05)
    # count 10: 0.05 / (1 - 0.5) = 0.1
    assert drop_probability(10.0, 5, 15, 0.1, count=10) == pytest.approx(0.1)
    # count 19: 0.05 / 0.05 = 1 -> capped
    assert drop_probability(10.0, 5, 15, 0.1, count=19) == 1.0
    assert drop_probability(10.0, 5, 15, 0.1, count=25) == 1.0
    assert drop_probability(15.0, 5, 15, 0.1) == 1.0
    assert drop_probability(14.999, 5, 15, 0.1) == pytest.approx(0.1 * 9.999 / 10)


def test_gentle_ramp():
    assert drop_probability(15.0, 5, 15, 0.1, gentle=True) == pytest.approx(0.1)
    assert drop_probability(22.5, 5, 15, 0.1, gentle=True) == pytest.approx(0.55)
    assert drop_probability(30.0, 5, 15, 0.1, gentle=True) == 1.0
    # below max_th the gentle variant is plain RED
    assert drop_probability(10.0, 5, 15, 0.1, gentle=True) == drop_probability(10.0, 5, 15, 0.1)


def test_ewma_hand_values():
    assert ewma(0.0, 10.0, 0.002) == pytest.approx(0.02)
    assert ewma(4.0, 4.0, 0.3) == pytest.approx(4.0)
    # constant sample s from 0: avg_k = s (1 - (1-w)^k)
    series = ewma_series(np.full(100, 2.0), 0.1)
    assert series[-1] == pytest.approx(2.0 * (1 - 0.9**100))


def test_array_avg():
    got = drop_probability(np.array([0.0, 10.0, 20.0]), 5, 15, 0.1)
    np.testing.assert_allclose(got, [0.0, 0.05, 1.0])


@settings(deadline=None, max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    min_th=st.floats(0.0, 10.0),
    width=st.floats(0.5, 30.0),
    max_p=st.floats(0.01, 1.0),
    w_q=st.floats(0.01, 1.0),
)
def test_red_run_matches_pseudo_code(seed, min_th, width, max_p, w_q):
    rng = np.random.default_rng(seed)
    samples = rng.uniform(0, 2 * (min_th + width), 300)
    uniforms = rng.uniform(size=300)
    frame = red_run(samples, uniforms, min_th, min_th + width, max_p, w_q)
    ref = floyd_jacobson(samples, uniforms, min_th, min_th + width, max_p, w_q)
    np.testing.assert_allclose(frame["avg"], [a for a, _ in ref], rtol=1e-12)
    assert list(frame["dropped"]) == [m for _, m in ref]


def test_count_spreads_drops():
    """Constant avg with p_b = 0.02: drops come at most 1/p_b = 50 arrivals apart."""
    n = 5000
    frame = red_run(np.full(n, 10.0), np.random.default_rng(1).uniform(size=n), 0, 50, 0.1, 1.0)
    gaps = np.diff(np.flatnonzero(frame["dropped"]))
    assert gaps.max() <= 50
    # the count-corrected drop rate is 2 / (1/p_b + 1) ~ 1/25.5 (Floyd & Jacobson, Sec. 7)
    assert frame["dropped"].mean() == pytest.approx(2 / 51, rel=0.15)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(min_th=5, max_th=5), "max_th"),
        (dict(min_th=6, max_th=5), "max_th"),
        (dict(max_p=0.0), "max_p"),
        (dict(max_p=1.5), "max_p"),
        (dict(max_p=math.nan), "max_p"),
        (dict(min_th=-1.0), "min_th"),
        (dict(count=-2), "count"),
    ],
)
def test_bad_thresholds(kwargs, name):
    args = dict(avg=1.0, min_th=5, max_th=15, max_p=0.1) | kwargs
    with pytest.raises(ParameterError, match=f"'{name}' parameter of drop_probability"):
        drop_probability(**args)


@pytest.mark.parametrize("w_q", [0.0, -0.1, 1.01, math.inf, "a"])
def test_bad_w_q(w_q):
    with pytest.raises(ParameterError, match="'w_q' parameter of ewma"):
        ewma(1.0, 1.0, w_q)
    with pytest.raises(ParameterError, match="'w_q' parameter of red_run"):
        red_run([1.0], [0.5], 1, 2, 0.1, w_q)


@settings(deadline=None, max_examples=40)
@given(
    min_th=st.one_of(st.floats(allow_nan=True), st.integers(-5, 5)),
    max_th=st.one_of(st.floats(allow_nan=True), st.integers(-5, 5)),
    max_p=st.floats(allow_nan=True),
)
def test_fuzz_never_crashes(min_th, max_th, max_p):
    try:
        p = drop_probability(3.0, min_th, max_th, max_p)
    except ParameterError:
        return
    assert 0.0 <= p <= 1.0


def test_issue_bad_inputs_are_refused():
    """count = 10**30 raised a numba error; a uniform of 1.0 never dropped at p = 1; 2-D
    input was flattened silently."""
    with pytest.raises(ParameterError, match="'count'"):
        drop_probability(1.0, 0.0, 2.0, 0.1, count=10**30)
    with pytest.raises(ParameterError, match="'uniforms'"):
        red_run([1.0, 2.0], [0.5, 1.0], 0.0, 2.0, 0.1, 0.1)
    with pytest.raises(ParameterError, match="1-D"):
        ewma_series([[1.0, 2.0], [3.0, 4.0]], 0.1)
    with pytest.raises(ParameterError, match="1-D"):
        red_run([[1.0, 2.0]], [[0.5, 0.5]], 0.0, 2.0, 0.1, 0.1)
