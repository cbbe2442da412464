"""RED: checks written to kill the mutants the suite let live (benchmarks/mutation/red.md),
each from Floyd & Jacobson (1993) or Floyd's gentle variant (2000)."""

import numpy as np
import pytest

from workbench.kernels.red import red_ewma, red_idle_decay
from workbench.red import drop_probability, red_run


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
