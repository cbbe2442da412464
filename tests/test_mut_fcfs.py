"""P4's multi-server FCFS kernel (``workbench.kernels.fcfs``) where tests/test_events.py does
not look (benchmarks/mutation.py, target ``fcfs``)."""

import numpy as np
import pytest

from workbench.kernels.fcfs import multiserver_fcfs


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_job_times_of_another_length_are_refused_either_way(n_jobs):
    # one service time per arrival: longer is as wrong as shorter
    with pytest.raises(ValueError, match="same length"):
        multiserver_fcfs(np.ones(3), np.ones(n_jobs), 2, 0)
