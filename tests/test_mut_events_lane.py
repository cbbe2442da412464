"""The lane of ``workbench.kernels.events`` past 256 places, where a Python int is a new
object each time: a full lane takes nothing however late the event (benchmarks/mutation.py,
target ``events``; tests/test_mut_events.py covers the small lanes)."""

import numpy as np

from workbench.kernels.events import lane_push, lane_takes, new_lane


def test_a_full_lane_of_512_places_takes_nothing():
    lane = new_lane(512)
    count = 0
    for i in range(512):
        assert lane_takes(lane, 0, count, float(i))
        count = lane_push(lane, 0, count, float(i), i, 0, 0, 0.0)
    assert count == 512
    assert not lane_takes(lane, 0, count, 1e9)
    np.testing.assert_array_equal(lane.time, np.arange(512.0))
