"""Discrete-event kernels for multi-server FCFS queues with a finite waiting room.

Paper P4 (Peng & Soljanin, *Redundancy management for fast service (rates) in edge
computing systems*) splits N edge workers into ``c = N // m`` groups of ``m`` replicas.
A job occupies one free group and leaves when the first of its ``m`` replicas finishes;
with no free group it is blocked and sent to the cloud.  Seen from the groups this is an
M/G/c/c loss system, whose blocking probability is Erlang-B(c, lambda E[T]) for any
job-time distribution.  The paper lists a finite waiting room as future work: the
M/G/c/K system, with ``K = c + waiting_room`` places in total and FCFS service.

The kernels take the random inputs as arrays (the caller draws them, so the same inputs
can drive a kernel, its slow pure-Python twin in ``tests/naive.py`` and a SimPy model) and
contain no randomness. ``multiserver_fcfs`` returns the waits, blocking flags and number in
system seen by each arrival of a FCFS ``c``-server queue with ``waiting_room`` waiting
places (``0`` = pure loss system).
"""

import numpy as np
from numba import njit

__all__ = ["multiserver_fcfs"]

# ---------------------------------------------------------------------------------------
# Binary min-heap on the prefix ``heap[:size]`` of a float64 array.  Small separate
# functions (LLVM inlines them) so that the two heaps below share one implementation.
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def _sift_down(heap, size, pos):
    """Move ``heap[pos]`` down until both children are >= it (heap property below pos)."""
    x = heap[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size and heap[right] < heap[child]:
            child = right
        if heap[child] < x:
            heap[pos] = heap[child]
            pos = child
        else:
            break
    heap[pos] = x


@njit(cache=True)
def _sift_up(heap, pos):
    """Move ``heap[pos]`` up until its parent is <= it."""
    x = heap[pos]
    while pos > 0:
        parent = (pos - 1) >> 1
        if x < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = x


@njit(cache=True)
def _heap_push(heap, size, x):
    """Insert ``x`` into ``heap[:size]``; the caller guarantees room.  Returns the new size."""
    heap[size] = x
    _sift_up(heap, size)
    return size + 1


@njit(cache=True)
def _heap_pop(heap, size):
    """Drop the minimum of the non-empty ``heap[:size]``.  Returns the new size."""
    size -= 1
    if size > 0:
        heap[0] = heap[size]
        _sift_down(heap, size, 0)
    return size


@njit(cache=True)
def _heap_replace_top(heap, size, x):
    """Replace the minimum of the non-empty ``heap[:size]`` by ``x`` (one sift, no resize)."""
    heap[0] = x
    _sift_down(heap, size, 0)


@njit(cache=True)
def _pop_until(heap, size, t):
    """Pop every element ``<= t`` from ``heap[:size]``.  Returns the new size."""
    while size > 0 and heap[0] <= t:
        size = _heap_pop(heap, size)
    return size


# ---------------------------------------------------------------------------------------
# The queue
# ---------------------------------------------------------------------------------------

# Up to this many servers the per-arrival work is a vectorised scan of the servers'
# free times instead of heap operations.  Both give identical results, but heap sifts
# are bound by branch mispredictions, and a linear scan of a short array is not: up to a
# few hundred servers the scan wins, at light and heavy load alike.
_SCAN_MAX_SERVERS = 128


@njit(cache=True)
def multiserver_fcfs(interarrivals, job_times, servers, waiting_room):
    """Simulate a FCFS ``servers``-server queue with ``waiting_room`` waiting places.

    Job ``i`` arrives at ``t_i = interarrivals[0] + ... + interarrivals[i]`` (the sum is
    accumulated left to right, starting from time 0 with an empty system) and needs
    ``job_times[i]`` of service on one server.  A job that finds a free server starts at
    once; one that finds all servers busy waits in FCFS order if fewer than
    ``waiting_room`` jobs are waiting, and is otherwise blocked (lost; in paper P4 it
    goes to the cloud).  ``waiting_room = 0`` is the M/G/c/c loss system of Peng &
    Soljanin, whose blocking probability is Erlang-B(c, lambda E[T]); ``waiting_room > 0``
    is the M/G/c/K system with ``K = servers + waiting_room`` places, which the paper
    names as future work.  For P4 a "server" is a group of ``m`` replicas and
    ``job_times[i]`` is the minimum of the ``m`` replica service times.

    Parameters
    ----------
    interarrivals : ndarray of float64, shape (n,)
        Times between consecutive arrivals, ``>= 0`` (zeros give simultaneous arrivals,
        which are handled in index order).
    job_times : ndarray of float64, shape (n,)
        Service time of each job, ``>= 0``.  Must have the same length as
        ``interarrivals``.
    servers : int
        Number of servers ``c >= 1``.  Values ``< 1`` are treated as "no server": every
        job is blocked.
    waiting_room : int
        Number of waiting places ``k >= 0`` (negative values are treated as 0).  Any
        value ``>= n`` behaves as an unlimited queue (M/G/c); huge values such as
        ``2**63 - 1`` are safe.

    Returns
    -------
    waits : ndarray of float64, shape (n,)
        Time from arrival to start of service, ``start_i - t_i >= 0``, for admitted
        jobs (always 0 when ``waiting_room = 0``); ``NaN`` for blocked jobs, so they
        cannot be averaged in by mistake.  The departure of an admitted job is
        ``t_i + waits[i] + job_times[i]``.
    blocked : ndarray of bool, shape (n,)
        True if job ``i`` found all servers busy and the waiting room full.
    n_seen : ndarray of int64, shape (n,)
        Number of jobs in the system (in service plus waiting) just before job ``i``
        arrives, not counting job ``i`` itself.  Job ``i`` is blocked exactly when
        ``n_seen[i] == servers + waiting_room``.  With Poisson arrivals its mean
        estimates the time-average number in system (PASTA).

    Raises
    ------
    ValueError
        If the two input arrays differ in length.

    Notes
    -----
    Tie rule: a departure at exactly the arrival instant ``t_i`` happens before the
    arrival, so it frees its server (or waiting place) for job ``i``; equivalently a
    server whose free time equals ``t_i`` is free, a job that starts at ``t_i`` is no
    longer waiting, and a job of service time 0 leaves at its start.  Simultaneous
    arrivals are served in index order.

    Algorithm: in a FCFS queue the earliest-free server takes the next admitted job
    (Kiefer-Wolfowitz recursion), so ``start_i = max(t_i, min over servers of free
    time)``.  For ``c > 128`` servers the free times live in a binary min-heap, and the
    departure times of the jobs in the system in a second min-heap whose size, after
    popping the departures ``<= t_i`` (the tie rule), is ``n_seen[i]``; each job is
    pushed and popped at most once, so the cost is O(n log c) for the loss system and
    O(n log(c + k)) in general.  For ``c <= 128`` the number of busy servers is a
    vectorised count of free times ``> t_i`` and the number waiting is read off a ring
    buffer of the start times of waiting jobs (non-decreasing under FCFS, so a moving
    pointer suffices): O(n c) with a small constant, faster than the heaps in that
    range.  Both give bit-identical results.  Memory is O(n + min(n, c + k)); ``servers
    > n`` allocates only ``n`` server slots.

    References
    ----------
    P. Peng and E. Soljanin, "Redundancy management for fast service (rates) in edge
    computing systems", arXiv:2303.00486.
    """
    return _multiserver_fcfs(interarrivals, job_times, servers, waiting_room, _SCAN_MAX_SERVERS)


@njit(cache=True)
def _multiserver_fcfs(interarrivals, job_times, servers, waiting_room, scan_max_servers):
    """:func:`multiserver_fcfs` with the scan/heap switch exposed (tests force each path)."""
    n = interarrivals.shape[0]
    if job_times.shape[0] != n:
        raise ValueError("interarrivals and job_times must have the same length")

    waits = np.empty(n, dtype=np.float64)
    blocked = np.zeros(n, dtype=np.bool_)
    n_seen = np.zeros(n, dtype=np.int64)

    if servers < 1:
        # No server: nothing can ever be admitted (avoids a queue that never drains).
        waits[:] = np.nan
        blocked[:] = True
        return waits, blocked, n_seen

    k = waiting_room if waiting_room > 0 else 0
    # Never more than n jobs in the system, so cap every buffer at n.  Written without
    # forming servers + k, which could overflow int64 for an "unlimited" waiting room.
    c_eff = servers if servers < n else n
    k_eff = k if k < n else n
    if k >= n or servers >= n - k:
        capacity = n
    else:
        capacity = servers + k
    # Blocking threshold on the number in system; n + 1 can never be reached.
    limit = capacity if capacity < n else n + 1

    if c_eff <= scan_max_servers:
        _scan_loop(interarrivals, job_times, c_eff, k_eff, limit, waits, blocked, n_seen)
    elif c_eff == capacity:
        # Loss system (or a waiting room that can never be used): an admitted job always
        # finds a free server, so only the departure heap is needed.
        _heap_loss_loop(interarrivals, job_times, limit, capacity, waits, blocked, n_seen)
    else:
        _heap_fcfs_loop(interarrivals, job_times, c_eff, limit, capacity, waits, blocked, n_seen)
    return waits, blocked, n_seen


@njit(cache=True)
def _scan_loop(interarrivals, job_times, c, k, limit, waits, blocked, n_seen):
    """Main loop for few servers: linear scans instead of heaps.

    ``free_at[:c]`` holds each server's next-free time (a server is busy at ``t`` iff its
    free time is ``> t``: once a job is assigned, the server's schedule has no gap after
    the current time).  ``ring`` holds the start times of the jobs that had to wait, in
    admission order; FCFS makes them non-decreasing, so the jobs still waiting at ``t``
    are those from ``head`` on with start ``> t``.  At most ``k`` jobs wait at once.
    """
    n = interarrivals.shape[0]
    free_at = np.zeros(max(c, 1), dtype=np.float64)  # all servers free at time 0
    ring_size = k + 1
    ring = np.empty(ring_size, dtype=np.float64)
    head = 0
    tail = 0
    n_wait = 0
    t = 0.0
    for i in range(n):
        t += interarrivals[i]
        # Tie rule: a job starting at exactly t is no longer waiting.
        while n_wait > 0 and ring[head] <= t:
            head += 1
            if head == ring_size:
                head = 0
            n_wait -= 1
        busy = 0
        for q in range(c):  # vectorises: a branch-free count
            busy += free_at[q] > t
        present = busy + n_wait
        n_seen[i] = present
        if present >= limit:
            waits[i] = np.nan
            blocked[i] = True
        elif busy < c:
            # Some server is free (free time <= t): which one does not matter, the
            # servers are identical and a past free time never matters again.  The
            # bound is redundant (busy < c) but keeps garbage input in bounds.
            q = 0
            while q < c - 1 and free_at[q] > t:
                q += 1
            free_at[q] = t + job_times[i]
            waits[i] = 0.0
        else:
            # All busy, room to wait: the job takes the earliest-free server (FCFS).
            q = 0
            start = free_at[0]
            for r in range(1, c):
                if free_at[r] < start:
                    start = free_at[r]
                    q = r
            free_at[q] = start + job_times[i]
            waits[i] = start - t
            # present < c + k here, so fewer than k wait and the ring has room.
            ring[tail] = start
            tail += 1
            if tail == ring_size:
                tail = 0
            n_wait += 1


@njit(cache=True)
def _heap_loss_loop(interarrivals, job_times, limit, capacity, waits, blocked, n_seen):
    """Main loop for many servers when no admitted job ever waits.

    ``departs[:size]`` is a min-heap of the departure times of the jobs in the system.
    When at least one of them leaves by ``t`` the arrival is certainly admitted, so the
    first departure is *replaced* by the new one (one sift instead of a pop and a push).
    """
    n = interarrivals.shape[0]
    departs = np.empty(max(capacity, 1), dtype=np.float64)
    size = 0
    t = 0.0
    for i in range(n):
        t += interarrivals[i]
        if size > 0 and departs[0] <= t:
            done = t + job_times[i]
            _heap_replace_top(departs, size, done)
            size = _pop_until(departs, size, t)
            # The replaced top and the pops all left by t; so did job i if done == t.
            n_seen[i] = size - 1 if done > t else size
            waits[i] = 0.0
        elif size < limit:
            n_seen[i] = size
            waits[i] = 0.0
            size = _heap_push(departs, size, t + job_times[i])
        else:
            n_seen[i] = size
            waits[i] = np.nan
            blocked[i] = True


@njit(cache=True)
def _heap_fcfs_loop(interarrivals, job_times, c, limit, capacity, waits, blocked, n_seen):
    """Main loop for many servers with a waiting room.

    ``free_at[:c]`` is a min-heap of the servers' next-free times (the earliest-free
    server takes the next admitted job, so ``start = max(t, free_at[0])``) and
    ``departs[:size]`` a min-heap of the departure times of the jobs in the system.
    """
    n = interarrivals.shape[0]
    free_at = np.zeros(c, dtype=np.float64)  # all servers free at time 0
    departs = np.empty(max(capacity, 1), dtype=np.float64)
    size = 0
    t = 0.0
    for i in range(n):
        t += interarrivals[i]
        if size > 0 and departs[0] <= t:
            someone_left = True  # so job i is admitted
        elif size < limit:
            someone_left = False
            n_seen[i] = size
        else:
            n_seen[i] = size
            waits[i] = np.nan
            blocked[i] = True
            continue
        first_free = free_at[0]
        start = first_free if first_free > t else t
        done = start + job_times[i]
        waits[i] = start - t
        _heap_replace_top(free_at, c, done)
        if someone_left:
            # Replace one departed job by job i, then pop the other departures <= t.
            _heap_replace_top(departs, size, done)
            size = _pop_until(departs, size, t)
            n_seen[i] = size - 1 if done > t else size
        else:
            size = _heap_push(departs, size, done)
