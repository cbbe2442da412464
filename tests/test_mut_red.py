"""RED: checks written to kill the mutants the suite let live (benchmarks/mutation/red.md),
each from Floyd & Jacobson (1993) or Floyd's gentle variant (2000)."""

import pytest

from workbench.kernels.red import red_ewma, red_idle_decay
from workbench.red import drop_probability


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
