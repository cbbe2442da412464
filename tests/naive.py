"""Slow, obviously-correct pure-Python twins of the numba kernels.

Each twin re-implements one kernel in the most literal way (explicit event lists, plain
lists, no cleverness) so that the tests can compare the kernel with it on many random
inputs.  Twins are for tests only and are deliberately O(slow).

Sections (one per kernel module; append new ones at the end):

- ``workbench.kernels.events``: :func:`multiserver_fcfs_naive`
- ``workbench.kernels.erlang``: :func:`erlang_b_exact` (P3's twins: ``tests/naive_datacenters.py``)
- ``workbench.redundancy.kernels``: :func:`job_outcomes_naive`
- ``workbench.output_analysis``: :func:`mser_statistic_naive`, :func:`mser5_naive`
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from fractions import Fraction

# =======================================================================================
# workbench.kernels.events -- twin of multiserver_fcfs (FCFS c-server queue, k places)
# =======================================================================================

_DEPARTURE = 0  # at equal times departures sort first: the kernel's tie rule
_ARRIVAL = 1


def multiserver_fcfs_naive(interarrivals, job_times, servers, waiting_room):
    """Event-by-event twin of :func:`workbench.kernels.events.multiserver_fcfs`.

    A literal discrete-event simulation: one heap of pending events ``(time, kind, seq,
    job)``, a counter of busy servers and a FIFO ``deque`` of waiting jobs.  Departures
    at time ``t`` are handled before arrivals at ``t`` (``_DEPARTURE < _ARRIVAL``), and
    simultaneous arrivals in index order (``seq``).  A departure hands its server
    straight to the head of the queue, which starts at that instant.

    Parameters and return values are those of the kernel (returned as lists):
    ``(waits, blocked, n_seen)`` with ``NaN`` waits for blocked jobs.  ``servers < 1``
    blocks every job and a negative ``waiting_room`` acts as 0, like the kernel.
    """
    n = len(interarrivals)
    if len(job_times) != n:
        raise ValueError("interarrivals and job_times must have the same length")
    waits = [math.nan] * n
    blocked = [False] * n
    n_seen = [0] * n
    if servers < 1:
        return waits, [True] * n, n_seen

    # Arrival times summed left to right from 0, exactly as the kernel does.
    arrivals = []
    t = 0.0
    for gap in interarrivals:
        t += float(gap)
        arrivals.append(t)

    events = [(arrivals[i], _ARRIVAL, i, i) for i in range(n)]
    heapq.heapify(events)
    seq = n  # tie-breaker for departures, never compared with job data
    busy = 0
    queue = deque()

    def start(job, now):
        nonlocal seq
        waits[job] = now - arrivals[job]
        heapq.heappush(events, (now + float(job_times[job]), _DEPARTURE, seq, job))
        seq += 1

    while events:
        now, kind, _, job = heapq.heappop(events)
        if kind == _DEPARTURE:
            if queue:
                start(queue.popleft(), now)  # the server passes to the queue head
            else:
                busy -= 1
            continue
        n_seen[job] = busy + len(queue)
        if busy < servers:
            busy += 1
            start(job, now)
        elif len(queue) < waiting_room:
            queue.append(job)
        else:
            blocked[job] = True
    return waits, blocked, n_seen


# =======================================================================================
# workbench.kernels.erlang -- twin of erlang_b_kernel
# =======================================================================================


def erlang_b_exact(c: int, a: Fraction) -> Fraction:
    """The textbook ratio a^c/c! / sum_j a^j/j!, in exact rational arithmetic."""
    terms = [a**j / math.factorial(j) for j in range(c + 1)]
    return terms[-1] / sum(terms)


# =======================================================================================
# workbench.redundancy.kernels -- twin of job_outcomes (P4's per-job time, eq. 1)
# =======================================================================================


def job_outcomes_naive(waits, blocked, jobs, t_cloud, job_mean):
    """Twin of :func:`workbench.redundancy.kernels.job_outcomes`, from the paper's text: "if
    all the groups are busy, the job is sent to the cloud" and takes T_cl; otherwise it waits
    (with a waiting room) and is done when the first of its m copies finishes."""
    times, states = [], []
    for wait, sent_to_cloud, job in zip(waits, blocked, jobs, strict=True):
        if sent_to_cloud:
            times.append(t_cloud)
            states.append(t_cloud)
        else:
            times.append(wait + job)
            states.append(wait + job_mean)
    return times, states


# ---------------------------------------------------------------- workbench.output_analysis


def mser_statistic_naive(means):
    """SSE(d) / (k - d)^2 of means[d:], two-pass, for d = 0 .. k - 1."""
    k = len(means)
    out = []
    for d in range(k):
        tail = [float(x) for x in means[d:]]
        mu = sum(tail) / len(tail)
        out.append(sum((x - mu) ** 2 for x in tail) / (k - d) ** 2)
    return out


def mser5_naive(y):
    """MSER-5 from its definition: batch means of five, the statistic over the batches that
    leave at least five behind, the first minimiser (ties go to the earliest point)."""
    k = len(y) // 5
    if k < 10:
        return 0
    means = [sum(float(v) for v in y[5 * i : 5 * i + 5]) / 5 for i in range(k)]
    stat = mser_statistic_naive(means)[: k - 5]
    return 5 * stat.index(min(stat))
