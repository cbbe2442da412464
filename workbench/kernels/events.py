"""The event queue of the workbench's discrete-event simulators (and, re-exported from
:mod:`workbench.kernels.fcfs`, the multi-server FCFS kernel of P4).

Kernels
-------
EventQueue, new_queue, queue_push, queue_pop, queue_before
    The arena's event queue: a calendar queue ordered by ``(time, seq)``, each entry
    carrying an integer ``kind``, an integer ``arg`` and a float ``value``.  The caller
    numbers its pushes with ``seq``, so simultaneous events leave in the order they were
    scheduled (deterministic ties).
EventHeap, new_heap, heap_push, heap_pop
    The same interface on a 4-ary heap, for P1's and P5's loops (compiled with reference
    counting, where the calendar's branches cost more than the heap).
Lane, new_lane, lane_takes, lane_push, lane_pop
    A fixed FIFO ring beside the queue for events scheduled in the order they fall due (the
    arena's moves over links): they skip the queue, the order stays the same.
multiserver_fcfs
    Re-exported from :mod:`workbench.kernels.fcfs` (P4's multi-server FCFS queue).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from workbench.kernels.fcfs import multiserver_fcfs

__all__ = [
    "EventQueue",
    "new_queue",
    "queue_push",
    "queue_pop",
    "queue_before",
    "multiserver_fcfs",
]


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
# _last_use), so in such a loop a calendar operation costs several heap operations, while
# in a loop compiled without reference counting (the arena's) the calendar is the faster
# of the two.  Same usage as the queue, with ``new_heap``,
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
