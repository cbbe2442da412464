"""The P4 kernels: each job's outcome in the replicated edge system.

The event loop itself is the generic FCFS multi-server/loss kernel
:func:`workbench.kernels.events.multiserver_fcfs` (c = ⌊N/m⌋ groups, ``waiting_room`` places);
Erlang-B is :mod:`workbench.kernels.erlang`. What is P4's own is how a job's time follows from
what the loop returns: a job that finds every group busy (and no waiting place) goes to the
cloud and takes T_cl; any other job waits, then takes its job time, the fastest of its m copies
(eq. 1 of the paper, per job). :func:`job_outcomes` computes that per job in one pass, together
with the series the stationarity detector sees (the job's own time replaced by its mean).

All functions take and return plain arrays and scalars (numba ``nopython``); the slow twin is
``tests/naive.py``.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", eq. (1) and Sec. III.
"""

import numpy as np
from numba import njit

__all__ = ["job_outcomes"]


@njit(cache=True)
def job_outcomes(waits, blocked, jobs, t_cloud, job_mean):
    """Per job, in arrival order: its system time and its detector observation.

    Parameters
    ----------
    waits : float64 array
        Wait before service (any value for a blocked job: it is not used).
    blocked : bool or uint8 array
        1 for a job sent to the cloud.
    jobs : float64 array
        The job's time at the edge (fastest of its m copies).
    t_cloud : float
        T_cl, the time of a job sent to the cloud.
    job_mean : float
        E[T_job(m)].

    Returns
    -------
    system_time : float64 array
        T_cl if blocked, else wait + job time.
    state : float64 array
        T_cl if blocked, else wait + E[T_job(m)]: the same mean (a job's own time is drawn
        independently of the state it finds), without the job-time noise.
    """
    n = jobs.shape[0]
    system_time = np.empty(n)
    state = np.empty(n)
    for k in range(n):
        if blocked[k]:
            system_time[k] = t_cloud
            state[k] = t_cloud
        else:
            system_time[k] = waits[k] + jobs[k]
            state[k] = waits[k] + job_mean
    return system_time, state
