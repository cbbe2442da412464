"""P2's fading draws against their plain-Python twin (tests/naive_proactive.py): the
generator step and one draw, bit for bit, on Python integers."""

import numpy as np
from naive_proactive import XorShift

from workbench.proactive.fading import FADING_BITS, FADING_TABLE, fading_draw, xorshift_next

SEED = 88172645463325252


def test_xorshift_and_its_draws_equal_the_python_twin_bit_for_bit():
    steps, draws = np.array([SEED], dtype=np.uint64), np.array([SEED], dtype=np.uint64)
    twin_steps, twin_draws = XorShift(SEED), XorShift(SEED)
    for _ in range(2_000):
        assert int(xorshift_next(steps)) == twin_steps.next()
        assert int(steps[0]) == twin_steps.x
        cell = twin_draws.next() >> (64 - FADING_BITS)
        assert fading_draw(draws, FADING_TABLE) == FADING_TABLE[cell]
