"""Discrete-event kernels for multi-server FCFS queues with a finite waiting room.

Paper P4 (Peng & Soljanin, *Redundancy management for fast service (rates) in edge
computing systems*) splits N edge workers into ``c = N // m`` groups of ``m`` replicas.
A job occupies one free group and leaves when the first of its ``m`` replicas finishes;
with no free group it is blocked and sent to the cloud.  Seen from the groups this is an
M/G/c/c loss system, whose blocking probability is Erlang-B(c, lambda E[T]) for any
job-time distribution.  The paper lists a finite waiting room as future work: the
M/G/c/K system, with ``K = c + waiting_room`` places in total and FCFS service.

The kernels here take the random inputs as arrays (the caller draws them, so the same
inputs can drive a kernel, its slow pure-Python twin in ``tests/naive.py`` and a SimPy
model) and contain no randomness.

Kernels
-------
EventQueue, new_queue, queue_push, queue_pop, queue_before
    The one event queue of every discrete-event simulator of the workbench (P1, P5, the
    arena): a calendar queue ordered by ``(time, seq)``, each entry carrying an integer
    ``kind``, an integer ``arg`` and a float ``value``.  The caller numbers its pushes with
    ``seq``, so simultaneous events leave in the order they were scheduled (deterministic
    ties).
Lane, new_lane, lane_takes, lane_push, lane_pop
    A fixed FIFO ring beside the queue for events scheduled in the order they fall due (the
    arena's moves over links): they skip the queue, the order stays the same.
multiserver_fcfs
    Waits, blocking flags and number in system seen by each arrival of a FCFS
    ``c``-server queue with ``waiting_room`` waiting places (``0`` = pure loss system).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = [
    "EventQueue", "new_queue", "queue_push", "queue_pop", "queue_before", "multiserver_fcfs",
]  # fmt: skip


# ---------------------------------------------------------------------------------------
# The event queue: a calendar queue (R. Brown, "Calendar queues", CACM 31(10), 1988) on
# ``(time, seq)`` over parallel arrays, and an optional FIFO lane beside it.
#
# Usage inside an @njit event loop (``size`` is kept by the caller, as a plain int, so the
# loop never reassigns an array and pays no reference counting per event)::
#
#     q = new_queue(capacity)            # capacity: the most events pending at once
#     size = queue_push(q, size, t, seq, kind, arg, value); seq += 1
#     now, kind, arg, value = q.time[0], q.kind[0], q.arg[0], q.value[0]   # the earliest
#     size = queue_pop(q, size)
#
# Ties: ``queue_before(t1, s1, t2, s2)`` is ``t1 < t2 or (t1 == t2 and s1 < s2)``; with a
# counter as ``seq`` the queue is FIFO among simultaneous events.  ``seq`` being unique, the
# events leave in the total order on ``(time, seq)``: how the queue stores them changes its
# speed, never the order.  Pushing beyond the capacity is the caller's bug (numba does not
# bounds-check): size the arrays for the most events that can be pending.
#
# How it works.  Place 0 of the arrays always holds the earliest event (the "top"); the
# others sit in a calendar: ``n_buckets`` buckets (a power of two), each a linked list of
# places sorted by ``(time, seq)``.  An event due at ``t`` has the virtual bucket
# ``v = floor(t / width)`` and lives in bucket ``v mod n_buckets`` (one "day" of a "year" of
# ``n_buckets`` days).  ``cursor`` is a lower bound of every stored event's ``v``: the
# earliest stored event is the head of the first bucket, from the cursor on, whose head is
# due on the cursor's day (a bucket's head is its earliest event, and ``v`` grows with
# ``t``); a year without one falls back to the earliest of all heads.  ``width`` is the mean
# time between the events the queue gave out (one event a bucket near the front), measured
# anew when the calendar doubles (more than two events a bucket) or halves (fewer than one
# in two), and whenever the measured rate moves away from the width by more than 2x.  Most
# events are appended to their bucket (a bucket's last event is usually earlier), so a push
# and a pop cost a few array reads whatever the number pending.  The calendar allocates
# nothing after ``new_queue``: its buckets are a prefix of arrays sized for the capacity,
# and a place is only written when the queue first holds that many events.
#
# The lane (``new_lane``, ``lane_takes``, ``lane_push``, ``lane_pop``): a fixed ring of
# events scheduled in the order they fall due, e.g. moves over links of equal delay.  A
# simulator that keeps one schedules an event into the lane when ``lane_takes`` it (the
# ring has room and the event is due no earlier than the lane's last), else into the queue,
# and takes the earliest of the queue's top and the lane's head (``queue_before``): the lane
# stays sorted, most such events skip the queue, and the order is still the total order on
# ``(time, seq)``.
# ---------------------------------------------------------------------------------------


class EventQueue(NamedTuple):
    """The arrays of an event queue (numba passes it as a tuple of arrays)."""

    time: np.ndarray  # float64: when the event happens (place 0: the earliest)
    seq: np.ndarray  # int64: the scheduling order, breaks ties in time
    kind: np.ndarray  # int64: what happens (the simulator's own constants)
    arg: np.ndarray  # int64: to whom (a task, a server, a node, or a packed code)
    value: np.ndarray  # float64: one number the event carries (a send time, a size, ...)
    link: np.ndarray  # int64: the next place in the same bucket (or on the free list), -1
    head: np.ndarray  # int64: each bucket's first place (-1: empty)
    tail: np.ndarray  # int64: each bucket's last place
    ints: np.ndarray  # int64: [buckets, cursor, free list, places used, pops, rebuilds]
    floats: np.ndarray  # float64: [width, 1 / width, time of the last pop, time at mark]


class Lane(NamedTuple):
    """The arrays of a lane: a ring of a power-of-two number of places."""

    time: np.ndarray
    seq: np.ndarray
    kind: np.ndarray
    arg: np.ndarray
    value: np.ndarray


_MIN_BUCKETS = 16
_VDAY_MAX = 2.0**62  # virtual buckets beyond this share the last one (far-future events)
_NO_DAY = 2**63 - 1  # the cursor of an empty calendar
# the state slots
_NB, _CUR, _FREE, _USED, _POPS, _REBUILDS = 0, 1, 2, 3, 4, 5
_W, _INVW, _TLAST, _TMARK = 0, 1, 2, 3


@njit(cache=True)
def new_queue(capacity):
    """An empty :class:`EventQueue` with room for ``capacity`` pending events."""
    cap = max(capacity, 1)
    n_max = _MIN_BUCKETS
    while n_max < cap:
        n_max *= 2
    ints = np.zeros(6, np.int64)
    ints[_NB] = _MIN_BUCKETS
    ints[_FREE] = -1
    ints[_USED] = 1  # place 0 is the top's
    floats = np.zeros(4)
    floats[_W] = 1.0
    floats[_INVW] = 1.0
    head = np.empty(n_max, np.int64)
    head[:_MIN_BUCKETS] = -1
    return EventQueue(
        np.empty(cap),
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap),
        np.empty(cap, np.int64),
        head,
        np.empty(n_max, np.int64),
        ints,
        floats,
    )


@njit(cache=True, inline="always")
def queue_before(t1, s1, t2, s2):
    """Whether the event ``(t1, s1)`` leaves the queue before ``(t2, s2)``."""
    return t1 < t2 or (t1 == t2 and s1 < s2)


@njit(cache=True, inline="always")
def _put(q, pos, t, seq, kind, arg, value):
    q.time[pos] = t
    q.seq[pos] = seq
    q.kind[pos] = kind
    q.arg[pos] = arg
    q.value[pos] = value


@njit(cache=True, inline="always")
def _move(q, dst, src):
    q.time[dst] = q.time[src]
    q.seq[dst] = q.seq[src]
    q.kind[dst] = q.kind[src]
    q.arg[dst] = q.arg[src]
    q.value[dst] = q.value[src]


@njit(cache=True, inline="always")
def _day(t, inv_width):
    """The virtual bucket of time ``t`` (clamped: far-future events share the last one)."""
    x = t * inv_width
    if not x < _VDAY_MAX:  # NaN too
        x = _VDAY_MAX
    elif x < -_VDAY_MAX:
        x = -_VDAY_MAX
    v = np.int64(x)  # rounds towards zero
    return v - 1 if v > x else v


@njit(cache=True, inline="always")
def _link(time, seq, link, head, tail, ints, inv_width, p):
    """Insert the stored event at place ``p`` into its bucket, keeping the bucket sorted."""
    t, s = time[p], seq[p]
    v = _day(t, inv_width)
    cur = ints[_CUR]
    ints[_CUR] = v if v < cur else cur
    b = v & (ints[_NB] - 1)
    h = head[b]
    last = tail[b]
    if h < 0:
        head[b] = p
        tail[b] = p
        link[p] = -1
    elif not queue_before(t, s, time[last], seq[last]):  # the usual case: append
        link[last] = p
        link[p] = -1
        tail[b] = p
    elif queue_before(t, s, time[h], seq[h]):
        link[p] = h
        head[b] = p
    else:
        prev = h
        nxt = link[h]
        while not queue_before(t, s, time[nxt], seq[nxt]):  # stops at the tail at last
            prev = nxt
            nxt = link[nxt]
        link[prev] = p
        link[p] = nxt
    return _last_use5(time, seq, link, head, tail)


@njit(cache=True, inline="always")
def _last_use5(a, b, c, d, e):
    """A use of five arrays after a helper's branches (see :func:`_last_use`)."""
    return a.shape[0] + b.shape[0] + c.shape[0] + d.shape[0] + e.shape[0]


@njit(cache=True, inline="always")
def _measured_width(time, head, tail, ints, floats, n_stored):
    """The mean time between the events given out since the mark (the queue's event rate),
    or, with too few of them, the mean spacing of the stored events; 0.0 if neither is
    known."""
    pops = ints[_POPS]
    span = floats[_TLAST] - floats[_TMARK]
    width = 0.0
    if pops >= 8 and span > 0.0:
        width = span / pops
    else:
        lo, hi = time[0], time[0]
        for b in range(ints[_NB]):
            if head[b] >= 0:
                hi = max(hi, time[tail[b]])
        if n_stored > 0 and hi > lo:
            width = (hi - lo) / n_stored
    _last_use5(time, head, tail, ints, floats)
    return width


@njit(cache=True, inline="always")
def _adapt(time, seq, link, head, tail, ints, floats, n_stored, n_buckets):
    """Rebuild with ``n_buckets`` buckets (the calendar grew or shrank) or, with as many as
    before, when the measured width is off by more than 2x (the event rate moved); then
    restart the measurement.  A rebuild spreads the stored events over the buckets anew."""
    w = _measured_width(time, head, tail, ints, floats, n_stored)
    if n_buckets != ints[_NB] or w > 2.0 * floats[_W] or 2.0 * w < floats[_W]:
        chain = -1  # every stored place, chained through link
        for b in range(ints[_NB]):
            p = head[b]
            while p >= 0:
                nxt = link[p]
                link[p] = chain
                chain = p
                p = nxt
        if w * _VDAY_MAX > 1.0 and w < np.inf:  # else keep the width
            floats[_W] = w
            floats[_INVW] = 1.0 / w
        ints[_NB] = n_buckets
        for b in range(n_buckets):
            head[b] = -1
        ints[_CUR] = _NO_DAY
        ints[_REBUILDS] += 1
        inv_width = floats[_INVW]
        p = chain
        while p >= 0:
            nxt = link[p]
            _link(time, seq, link, head, tail, ints, inv_width, p)
            p = nxt
    ints[_POPS] = 0
    floats[_TMARK] = floats[_TLAST]
    return _last_use5(time, seq, link, head, tail) + _last_use5(ints, floats, ints, ints, ints)


@njit(cache=True, inline="always")
def _last_use(time, seq, kind, arg, value, link, head, tail, ints, floats):
    """A use of every array of the queue, placed after a function's branches.

    numba drops its reference to a local array after the array's last use.  When that
    falls in different branches, LLVM merges the drops into one that numba's
    reference-count pruning no longer recognises, and a loop compiled with reference
    counting (P1's, P5's) then pays atomic increments and decrements on every event
    (measured: queue operations 5-10x slower).  The two operations bind the arrays once at
    their start, pass them (never the tuple) to their helpers, make no call that can raise,
    and end with this use, so the pairs are pruned.
    """
    n = time.shape[0] + seq.shape[0] + kind.shape[0] + arg.shape[0] + value.shape[0]
    return n + link.shape[0] + head.shape[0] + tail.shape[0] + ints.shape[0] + floats.shape[0]


@njit(cache=True, inline="always")
def queue_push(q, size, t, s, k, a, x):
    """Insert the event ``(t, s)`` of kind ``k``, argument ``a`` and value ``x`` into the queue
    of ``size`` events; the caller guarantees room.  Returns the new size."""
    time, seq, kind, arg, value = q.time, q.seq, q.kind, q.arg, q.value
    link, head, tail, ints, floats = q.link, q.head, q.tail, q.ints, q.floats
    if size == 0:
        time[0], seq[0], kind[0], arg[0], value[0] = t, s, k, a, x
    else:
        p = ints[_FREE]  # a place for the stored event
        if p >= 0:
            ints[_FREE] = link[p]
        else:
            p = ints[_USED]
            ints[_USED] = p + 1
        if queue_before(t, s, time[0], seq[0]):  # a new top: the old one is stored
            time[p], seq[p], kind[p], arg[p], value[p] = time[0], seq[0], kind[0], arg[0], value[0]
            time[0], seq[0], kind[0], arg[0], value[0] = t, s, k, a, x
        else:
            time[p], seq[p], kind[p], arg[p], value[p] = t, s, k, a, x
        _link(time, seq, link, head, tail, ints, floats[_INVW], p)
        nb = ints[_NB]
        if size > 2 * nb and 2 * nb <= head.shape[0]:  # size: the events now stored
            _adapt(time, seq, link, head, tail, ints, floats, size, 2 * nb)
    _last_use(time, seq, kind, arg, value, link, head, tail, ints, floats)
    return size + 1


@njit(cache=True, inline="always")
def queue_pop(q, size):
    """Drop the earliest event of the non-empty queue (read it at index 0 first).

    Returns the new size.
    """
    time, seq, kind, arg, value = q.time, q.seq, q.kind, q.arg, q.value
    link, head, tail, ints, floats = q.link, q.head, q.tail, q.ints, q.floats
    size -= 1
    if size > 0:  # the earliest of the ``size`` stored events becomes the top
        inv_width = floats[_INVW]
        nb = ints[_NB]
        mask = nb - 1
        v = ints[_CUR]
        p = -1
        for _ in range(nb):  # one year from the cursor on
            h = head[v & mask]
            if h >= 0 and _day(time[h], inv_width) == v:
                p = h
                break
            v += 1
        if p < 0:  # an empty year: the earliest of the heads
            for b in range(nb):
                h = head[b]
                if h >= 0 and (p < 0 or queue_before(time[h], seq[h], time[p], seq[p])):
                    p = h
            v = _day(time[p], inv_width)
        ints[_CUR] = v
        head[v & mask] = link[p]
        time[0], seq[0], kind[0], arg[0], value[0] = time[p], seq[p], kind[p], arg[p], value[p]
        link[p] = ints[_FREE]
        ints[_FREE] = p
        # the event rate: the width follows it, and the calendar its number of events
        floats[_TLAST] = time[0]
        pops = ints[_POPS] + 1
        ints[_POPS] = pops
        if size <= nb // 2 and nb > _MIN_BUCKETS:
            _adapt(time, seq, link, head, tail, ints, floats, size - 1, nb // 2)
        elif pops >= 2 * nb + 64:
            _adapt(time, seq, link, head, tail, ints, floats, size - 1, nb)
    _last_use(time, seq, kind, arg, value, link, head, tail, ints, floats)
    return size


# ---------------------------------------------------------------------------------------
# The 4-ary heap on ``(time, seq)``: the same orders as the calendar queue, for event loops
# compiled with numba's reference counting (P1's and P5's, which allocate their results).
# There the calendar's branches defeat numba's pruning of reference counts (see
# _last_use): measured in such a loop, a calendar operation took 110-120 ns against
# 20-100 ns for this heap, while in a loop compiled without reference counting (the
# arena's) the calendar took 29-44 ns.  Same usage as the queue, with ``new_heap``,
# ``heap_push``, ``heap_pop``; the earliest event is at index 0.
# ---------------------------------------------------------------------------------------


class EventHeap(NamedTuple):
    """The arrays of an event heap (numba passes it as a tuple of arrays)."""

    time: np.ndarray
    seq: np.ndarray
    kind: np.ndarray
    arg: np.ndarray
    value: np.ndarray


@njit(cache=True)
def new_heap(capacity):
    """An empty :class:`EventHeap` with room for ``capacity`` pending events."""
    i8 = np.int64
    n = max(capacity, 1)
    return EventHeap(np.empty(n), np.empty(n, i8), np.empty(n, i8), np.empty(n, i8), np.empty(n))


@njit(cache=True, inline="always")
def heap_push(q, size, t, seq, kind, arg, value):
    """Insert an event into the heap ``q[:size]``; the caller guarantees room.  Returns the new
    size."""
    pos = size
    while pos > 0:
        up = (pos - 1) >> 2
        if queue_before(t, seq, q.time[up], q.seq[up]):
            _move(q, pos, up)
            pos = up
        else:
            break
    _put(q, pos, t, seq, kind, arg, value)
    return size + 1


@njit(cache=True, inline="always")
def heap_pop(q, size):
    """Drop the earliest event of the non-empty ``q[:size]`` (read it at index 0 first).

    Returns the new size.
    """
    size -= 1
    if size == 0:
        return size
    t, seq = q.time[size], q.seq[size]
    kind, arg, value = q.kind[size], q.arg[size], q.value[size]
    pos = 0
    while True:
        first = 4 * pos + 1
        if first >= size:
            break
        best = first
        bt, bs = q.time[first], q.seq[first]
        for ch in range(first + 1, min(first + 4, size)):
            if queue_before(q.time[ch], q.seq[ch], bt, bs):
                best, bt, bs = ch, q.time[ch], q.seq[ch]
        if queue_before(bt, bs, t, seq):
            _move(q, pos, best)
            pos = best
        else:
            break
    _put(q, pos, t, seq, kind, arg, value)
    return size


@njit(cache=True)
def new_lane(places):
    """An empty :class:`Lane` of at least ``places`` places (rounded up to a power of two)."""
    n = 1
    while n < places:
        n *= 2
    i8 = np.int64
    return Lane(np.empty(n), np.empty(n, i8), np.empty(n, i8), np.empty(n, i8), np.empty(n))


@njit(cache=True, inline="always")
def lane_takes(lane, head, count, t):
    """Whether an event due at ``t`` can join the lane ``lane[head : head + count]`` (ring)
    and keep it sorted: the lane has room, and is empty or its last event is due no later
    than ``t``.  (An event it does not take goes to the queue.)"""
    n = lane.time.shape[0]
    return count == 0 or (count < n and t >= lane.time[(head + count - 1) & (n - 1)])


@njit(cache=True, inline="always")
def lane_push(lane, head, count, t, seq, kind, arg, value):
    """Append an event to the lane (the caller checked :func:`lane_takes`).  Returns the
    new count."""
    _put(lane, (head + count) & (lane.time.shape[0] - 1), t, seq, kind, arg, value)
    return count + 1


@njit(cache=True, inline="always")
def lane_pop(lane, head):
    """Drop the lane's head (read it at ``head`` first).  Returns the new head; the caller
    decreases its count."""
    return (head + 1) & (lane.time.shape[0] - 1)


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
# are bound by branch mispredictions: the scan measured 1.4-3x faster for c <= 128 at
# 30% and 90% load, with or without a waiting room; break-even is near c = 256.
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
