"""RED: checks written to kill the mutants the suite let live (benchmarks/mutation/red.md),
each from Floyd & Jacobson (1993) or Floyd's gentle variant (2000)."""

import numpy as np
import pytest

from workbench.kernels.red import red_ewma, red_idle_decay
from workbench.red import drop_probability, ewma, ewma_series, red_run
from workbench.validation import ParameterError


def test_gentle_ramp_when_twice_max_th_is_below_two():
    # max_th = 1.5: the second ramp runs from max_p at 1.5 to 1 at 3.0; at 2.9 it gives
    # max_p + (1 - max_p) (2.9 - 1.5) / 1.5 (a threshold under 2 catches 2 ** max_th)
    want = 0.1 + 0.9 * 1.4 / 1.5
    assert drop_probability(2.9, 0.5, 1.5, 0.1, gentle=True) == pytest.approx(want, rel=1e-12)
    assert drop_probability(3.0, 0.5, 1.5, 0.1, gentle=True) == 1.0


@pytest.mark.parametrize("m", [0, 1, 5, 40])
@pytest.mark.parametrize("w_q", [0.002, 0.3])
def test_idle_decay_is_m_arrivals_to_an_empty_queue(m, w_q):
    # Floyd & Jacobson, Fig. 2: after an idle period the average is updated as if m small
    # packets had arrived to an empty queue, i.e. m EWMA steps with sample 0
    avg = 7.5
    for _ in range(m):
        avg = red_ewma(avg, 0.0, w_q)
    assert red_idle_decay(7.5, m, w_q) == pytest.approx(avg, rel=1e-12, abs=0.0)


def test_red_run_reports_p_a_of_fig_2_for_every_arrival():
    # w_q = 1: the average is the sample. Fig. 2 counts an arrival at avg = min_th too
    # ("if min_th <= avg < max_th: count <- count + 1"), so the count reaches 3 at the last
    # arrival: p_a = p_b / (1 - 3 p_b). Below min_th p_a is 0 and the count is reset.
    samples = [1.0, 10.0, 10.0, 5.0, 10.0, 2.0, 10.0]
    frame = red_run(samples, [0.999] * 7, 5.0, 15.0, 0.1, 1.0)  # no draw below p_a
    p_b = 0.1 * (10.0 - 5.0) / (15.0 - 5.0)
    want = [0.0, p_b, p_b / (1 - p_b), 0.0, p_b / (1 - 3 * p_b), 0.0, p_b]
    np.testing.assert_allclose(frame["p_a"], want, rtol=1e-12, atol=0.0)
    assert not frame["dropped"].any()


def test_a_zero_draw_is_not_a_drop_at_zero_probability():
    # dropped when the U[0, 1) draw is below p_a, so P(drop) = p_a; at avg = min_th, p_a = 0
    # and even a draw of exactly 0 keeps the arrival; at p_a = 1 every draw drops it
    frame = red_run([5.0, 15.0], [0.0, 0.999999], 5.0, 15.0, 0.1, 1.0)
    assert list(frame["dropped"]) == [False, True]


@pytest.mark.parametrize("max_th", [0.0, -0.5])
def test_max_th_is_refused_below_and_at_zero_by_its_own_range(max_th):
    with pytest.raises(
        ParameterError,
        match=rf"'max_th' parameter of drop_probability must be a finite real number in the "
        rf"range \(0, inf\)\. Got {max_th} instead",
    ):
        drop_probability(1.0, 0.0, max_th, 0.1)


def test_count_range_is_0_to_2_to_the_62():
    assert drop_probability(10.0, 5, 15, 0.1, count=2**62) == 1.0
    for bad in (-1, 2**62 + 1):
        with pytest.raises(
            ParameterError,
            match=rf"'count' parameter of drop_probability must be an int in the range "
            rf"\[0, 4611686018427387904\]\. Got {bad} instead",
        ):
            drop_probability(10.0, 5, 15, 0.1, count=bad)


def test_scalar_and_zero_d_averages_give_a_float():
    for avg in (10.0, 10, np.float64(10.0), np.array(10.0)):
        got = drop_probability(avg, 5, 15, 0.1)
        assert type(got) is float and got == pytest.approx(0.05)
    got = drop_probability(np.array([10.0]), 5, 15, 0.1)
    assert isinstance(got, np.ndarray) and got.shape == (1,)


def test_averages_and_samples_below_one_are_valid_and_negatives_are_not():
    assert drop_probability(0.5, 0.0, 2.0, 0.1) == pytest.approx(0.025)
    assert ewma(0.0, 0.5, 0.5) == pytest.approx(0.25)
    np.testing.assert_allclose(ewma_series([0.5, 0.5], 0.5), [0.25, 0.375])
    bad = [
        (lambda: drop_probability(-0.5, 0.0, 2.0, 0.1), "'avg' parameter of drop_probability"),
        (lambda: drop_probability(np.array([1.0, -0.5]), 0.0, 2.0, 0.1), "'avg' parameter"),
        (lambda: ewma(-0.5, 1.0, 0.1), "'avg' parameter of ewma"),
        (lambda: ewma(1.0, -0.5, 0.1), "'sample' parameter of ewma"),
        (lambda: ewma_series([-0.5], 0.1), "'samples' parameter of ewma_series"),
        (lambda: ewma_series([1.0], 0.1, avg0=-0.5), "'avg0' parameter of ewma_series"),
        (lambda: red_run([-0.5], [0.5], 0.0, 2.0, 0.1, 0.1), "'samples' parameter of red_run"),
        (lambda: red_run([1.0], [-0.5], 0.0, 2.0, 0.1, 0.1), "'uniforms' parameter of red_run"),
        (lambda: red_run([1.0], [0.5, 0.5], 0.0, 2.0, 0.1, 0.1), "one draw per sample"),
        (lambda: red_run([1.0, 2.0], [0.5], 0.0, 2.0, 0.1, 0.1), "one draw per sample"),
    ]
    for call, message in bad:
        with pytest.raises(ParameterError, match=message):
            call()


def test_red_run_takes_keywords_and_gentle_only_as_a_keyword():
    kwargs = dict(samples=[1.0, 25.0], uniforms=[0.5, 0.5], min_th=0.0, max_th=20.0)
    frame = red_run(**kwargs, max_p=0.1, w_q=1.0, gentle=True)
    p_b = 0.1 + 0.9 * (25 - 20) / 20  # on the gentle ramp, count 1 at the second arrival
    np.testing.assert_allclose(frame["p_a"], [0.005, p_b / (1 - p_b)], rtol=1e-12)
    with pytest.raises(TypeError):
        red_run([1.0], [0.5], 0.0, 2.0, 0.1, 0.1, True)


def test_kernel_marks_drops_with_1_and_keeps_with_0():
    from workbench.kernels.red import red_run as red_run_kernel

    q, u = np.array([1.0, 25.0, 30.0]), np.array([0.5, 0.5, 0.5])
    avgs, probs, drops = np.empty(3), np.empty(3), np.empty(3, dtype=np.int64)
    red_run_kernel(q, u, 0.0, 20.0, 0.1, 1.0, False, avgs, drops, probs)  # docstring: 1 / 0
    np.testing.assert_array_equal(drops, [0, 1, 1])
