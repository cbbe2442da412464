"""P4's multi-server FCFS kernel (``workbench.kernels.fcfs``) where tests/test_events.py does
not look (benchmarks/mutation.py, target ``fcfs``)."""

import numpy as np
import pytest
from naive import multiserver_fcfs_naive

from workbench.kernels.fcfs import multiserver_fcfs


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_job_times_of_another_length_are_refused_either_way(n_jobs):
    # one service time per arrival: longer is as wrong as shorter
    with pytest.raises(ValueError, match="same length"):
        multiserver_fcfs(np.ones(3), np.ones(n_jobs), 2, 0)


def test_a_waiting_room_past_256_places_wraps_its_ring():
    # past 256 a Python int is a new object each time: `tail is ring_size` is not `==`
    rng = np.random.default_rng(4)
    ia, s = rng.exponential(0.01, 2000), rng.exponential(1.0, 2000)
    got = multiserver_fcfs(ia, s, 2, 300)
    want = multiserver_fcfs_naive(list(ia), list(s), 2, 300)
    assert max(want[2]) == 302  # the room fills up, so the ring goes round
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, np.asarray(b))
