"""A slow, obvious twin of the calendar queue's bookkeeping
(``workbench.kernels.events.new_queue``, ``queue_push``, ``queue_pop``), written from the
module's description with Python lists: the top event apart, ``n_buckets`` sorted lists, a
cursor, the bucket width and its measurement, the rebuilds.

The order events leave in is heapq's whatever the bookkeeping (tests/test_events.py checks
that); this twin is for the bookkeeping itself: how many buckets, how wide, which bucket
holds which event, when the calendar rebuilds. A mistake there changes no order, only the
cost of every push and pop, which no order test can see.
"""

from __future__ import annotations

import bisect
import math

MIN_BUCKETS = 16
VDAY_MAX = 2.0**62  # virtual buckets beyond this share the last one
NO_DAY = 2**63 - 1  # the cursor of an empty calendar


def day(t: float, inv_width: float) -> int:
    """floor(t / width), clamped to +-2**62 (NaN and +inf to the top)."""
    x = t * inv_width
    if math.isnan(x) or x >= VDAY_MAX:
        return int(VDAY_MAX)
    if x < -VDAY_MAX:
        return -int(VDAY_MAX)
    return math.floor(x)


class CalendarTwin:
    def __init__(self, capacity: int):
        cap = max(capacity, 1)
        self.max_buckets = MIN_BUCKETS
        while self.max_buckets < cap:
            self.max_buckets *= 2
        self.n_buckets = MIN_BUCKETS
        self.buckets: list[list] = [[] for _ in range(self.n_buckets)]
        self.top = None  # (time, seq)
        self.size = 0
        self.width, self.inv_width = 1.0, 1.0
        self.cursor = 0  # new_queue's zeroed state: 0 until the first event is stored
        self.pops = 0
        self.t_last = self.t_mark = 0.0
        self.rebuilds = 0

    # -- storing ---------------------------------------------------------------------------
    def _store(self, ev):
        v = day(ev[0], self.inv_width)
        self.cursor = min(self.cursor, v)
        bisect.insort(self.buckets[v & (self.n_buckets - 1)], ev)

    def stored(self):
        return [ev for b in self.buckets for ev in b]

    def push(self, t: float, seq: int) -> None:
        ev = (float(t), seq)
        if self.size == 0:
            self.top = ev
        else:
            if ev < self.top:  # a new top; the old one is stored
                ev, self.top = self.top, ev
            self._store(ev)
            if self.size > 2 * self.n_buckets and 2 * self.n_buckets <= self.max_buckets:
                self._adapt(self.size, 2 * self.n_buckets)
        self.size += 1

    def pop(self) -> None:
        self.size -= 1
        if self.size == 0:
            return
        nb = self.n_buckets
        found = None
        for v in range(self.cursor, self.cursor + nb):  # one year from the cursor on
            b = self.buckets[v & (nb - 1)]
            if b and day(b[0][0], self.inv_width) == v:
                found = v
                break
        if found is None:  # the earliest of the heads
            found = day(min(b[0] for b in self.buckets if b)[0], self.inv_width)
        self.cursor = found
        self.top = self.buckets[found & (nb - 1)].pop(0)
        self.t_last = self.top[0]
        self.pops += 1
        if self.size <= nb // 2 and nb > MIN_BUCKETS:
            self._adapt(self.size - 1, nb // 2)
        elif self.pops >= 2 * nb + 64:
            self._adapt(self.size - 1, nb)

    # -- the width and the rebuilds ------------------------------------------------------
    def _measured_width(self, n_stored: int) -> float:
        """The mean time between the events given out since the mark (8 at least), else
        the mean spacing of the stored events above the top."""
        span = self.t_last - self.t_mark
        if self.pops >= 8 and span > 0.0:
            return span / self.pops
        times = [ev[0] for ev in self.stored()]
        lo = self.top[0]
        hi = max([lo, *times])
        if n_stored > 0 and hi > lo:
            return (hi - lo) / n_stored
        return 0.0

    def _adapt(self, n_stored: int, n_buckets: int) -> None:
        w = self._measured_width(n_stored)
        if n_buckets != self.n_buckets or w > 2.0 * self.width or 2.0 * w < self.width:
            events = self.stored()
            if w * VDAY_MAX > 1.0 and w < math.inf:
                self.width, self.inv_width = w, 1.0 / w
            self.n_buckets = n_buckets
            self.buckets = [[] for _ in range(n_buckets)]
            self.cursor = NO_DAY
            self.rebuilds += 1
            for ev in events:
                self._store(ev)
        self.pops = 0
        self.t_mark = self.t_last
