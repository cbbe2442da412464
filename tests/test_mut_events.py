"""The calendar queue's bookkeeping against its slow twin (tests/naive_events.py), the heap
and the lane at their edges: mutants of ``workbench/kernels/events.py`` that the order
tests of tests/test_events.py cannot see (``benchmarks/mutation.py events``).

A calendar queue that sizes or spaces its buckets wrongly still pops in heapq's order; it
only gets slow. So here every push and pop is compared with the twin on the state the
module documents: the number of buckets, the width and its reciprocal, the cursor, the
pops since the mark and the times of the last pop and the mark, the rebuilds, the top, and
(every so often, and at the end) which bucket holds which event in which order."""

import math

import numpy as np
import pytest
from naive_events import NO_DAY, VDAY_MAX, CalendarTwin, day

from workbench.kernels.events import (
    _CUR,
    _INVW,
    _MIN_BUCKETS,
    _NB,
    _NO_DAY,
    _POPS,
    _REBUILDS,
    _TLAST,
    _TMARK,
    _VDAY_MAX,
    _W,
    _day,
    heap_pop,
    heap_push,
    lane_pop,
    lane_push,
    lane_takes,
    new_heap,
    new_lane,
    new_queue,
    queue_before,
    queue_pop,
    queue_push,
)


def _buckets(q):
    out = []
    for b in range(q.ints[_NB]):
        chain, p = [], q.head[b]
        while p >= 0:
            chain.append((float(q.time[p]), int(q.seq[p])))
            p = q.link[p]
        out.append(chain)
    return out


def _same_state(q, twin, size, full):
    assert int(q.ints[_NB]) == twin.n_buckets
    assert int(q.ints[_REBUILDS]) == twin.rebuilds
    assert int(q.ints[_POPS]) == twin.pops
    assert int(q.ints[_CUR]) == twin.cursor
    assert float(q.floats[_W]) == twin.width and float(q.floats[_INVW]) == twin.inv_width
    assert float(q.floats[_TLAST]) == twin.t_last and float(q.floats[_TMARK]) == twin.t_mark
    if size:
        assert (float(q.time[0]), int(q.seq[0])) == twin.top
    if full:
        assert _buckets(q) == twin.buckets


def _run(ops, capacity, every=61):
    """Push (t) or pop (None) on the kernel and the twin; compare after each operation."""
    q, twin = new_queue(capacity), CalendarTwin(capacity)
    size = seq = 0
    for n, t in enumerate(ops):
        if t is None:
            if size == 0:
                continue
            size = queue_pop(q, size)
            twin.pop()
        else:
            size = queue_push(q, size, t, seq, 0, seq, 0.0)
            twin.push(t, seq)
            seq += 1
        assert size == twin.size
        _same_state(q, twin, size, full=n % every == 0)
    _same_state(q, twin, size, full=True)
    return twin


def _hold_then_drain(rng, n_pending, n_hold, gap, start=0.0):
    """Fill with ``n_pending`` events, hold (pop one, push one later) ``n_hold`` times with
    one event due per ``gap``, then pop all: the calendar grows, re-measures and shrinks."""
    pending = sorted(start + rng.exponential(gap * n_pending, n_pending))
    ops = list(pending)
    now = start
    heap = list(pending)
    for _ in range(n_hold):
        heap.sort()
        now = heap.pop(0)
        t = now + rng.exponential(gap * n_pending)
        heap.append(t)
        ops += [None, t]
    return ops + [None] * (n_pending + 1)


@pytest.mark.parametrize(
    ("seed", "gap"), [(0, 1.0), (1, 1e-3), (2, 250.0), (3, 1.0)], ids=["1", "ms", "far", "mix"]
)
def test_calendar_bookkeeping_equals_its_twin(seed, gap):
    rng = np.random.default_rng(seed)
    ops = _hold_then_drain(rng, 300, 700, gap)
    if seed == 3:  # then a burst at a rate 1000 times higher, and ties
        ops += _hold_then_drain(rng, 120, 400, gap / 1000, start=5e3)
        ops += [7e3] * 40 + [None] * 20 + [7e3 + 0.5] * 10 + [None] * 40
    twin = _run(ops, 320 if seed != 3 else 330)
    assert twin.rebuilds >= 4  # it doubled, re-measured and halved along the way
    assert twin.n_buckets == _MIN_BUCKETS  # drained: back to the smallest calendar


@pytest.mark.parametrize("seed", range(4))
def test_calendar_bookkeeping_with_the_size_crossing_its_thresholds(seed):
    """The number pending swings across the doubling and halving points (32, 64 events
    stored) while the spacing of the events changes by factors of 1.5 to 3, so rebuilds
    happen after any number of pops since the mark, and re-measures near the 2x bound."""
    rng = np.random.default_rng(seed)
    ops, now = [], 0.0
    for _ in range(14):
        gap = float(rng.choice([1.0, 1.5, 2.5, 3.0]))
        for _ in range(int(rng.integers(20, 60))):
            ops.append(now + rng.exponential(gap * 40))
        for _ in range(int(rng.integers(20, 60))):
            ops.append(None)
            now += rng.exponential(gap)
            ops.append(now + rng.exponential(gap * 40) if rng.random() < 0.5 else None)
    twin = _run(ops, 1_000, every=5)
    assert twin.rebuilds >= 10


def test_the_width_follows_a_rate_that_moves_by_less_than_three():
    """100 events pending throughout (64 buckets), one due per unit of time exactly, then
    one per 2.6 units: the measured width moves past twice the old one (not three times),
    so the calendar rebuilds with the same buckets and the new width."""
    ops = [float(i) for i in range(1, 101)]
    now = 100.0
    for gap in (1.0, 2.6):
        for _ in range(600):
            now += gap
            ops += [None, now]
    twin = _run(ops, 101)
    assert twin.n_buckets == 64 and abs(twin.width - 2.6) < 0.05


def test_calendar_bookkeeping_at_the_extremes():
    """Far-future events (clamped to the last virtual bucket), an infinite one, negative
    times, and equal times: the twin's days and buckets are the kernel's."""
    rng = np.random.default_rng(7)
    ops = []
    for _ in range(6):
        ops += list(rng.choice([1e300, math.inf, -1e300, -3.5, 0.0, 2.0], 30))
        ops += list(rng.normal(0.0, 50.0, 60))
        ops += [None] * 70
    ops += [None] * 200
    _run(ops, 600, every=7)


def test_a_small_calendar_doubles_past_two_events_a_bucket_and_halves_back():
    """33 events stored in 16 buckets is more than two a bucket: 32 buckets; popping them
    halves it back (compared with the twin after every operation)."""
    twin = _run([float(i % 7) for i in range(40)] + [None] * 41, 40, every=1)
    assert twin.max_buckets == 64 and twin.rebuilds >= 2 and twin.n_buckets == _MIN_BUCKETS
    q = new_queue(0)  # capacity 0 is one place
    assert q.time.shape == (1,) and q.head.shape == (_MIN_BUCKETS,)
    assert new_queue(17).head.shape == (32,) and new_queue(16).head.shape == (16,)
    assert q.ints.tolist() == [_MIN_BUCKETS, 0, -1, 1, 0, 0]
    assert q.floats.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert (q.head[:_MIN_BUCKETS] == -1).all()


def test_day_is_the_clamped_floor():
    assert (_VDAY_MAX, _NO_DAY) == (VDAY_MAX, NO_DAY) == (2.0**62, 2**63 - 1)
    for t in (0.0, 0.5, 1.0, 1.5, -0.5, -1.0, -1.5, 2.0**61, -(2.0**61), 1e300, -1e300):
        for inv in (1.0, 3.0, 1e-3):
            assert _day(t, inv) == day(t, inv) == min(max(math.floor(t * inv), -(2**62)), 2**62)
    assert _day(math.inf, 1.0) == _day(math.nan, 1.0) == 2**62
    assert _day(-math.inf, 1.0) == -(2**62)


def test_queue_before_orders_on_time_then_seq():
    assert queue_before(1.0, 5, 2.0, 0) and not queue_before(2.0, 0, 1.0, 5)
    assert queue_before(1.0, 1, 1.0, 2) and not queue_before(1.0, 2, 1.0, 1)
    assert not queue_before(1.0, 1, 1.0, 1)


def _heap_state(q, size):
    return [(float(q.time[i]), int(q.seq[i]), int(q.kind[i]), int(q.arg[i])) for i in range(size)]


def test_the_heap_keeps_the_four_ary_heap_property_and_its_payloads():
    """After every operation, each of the first ``size`` places is no earlier than its
    parent (index (i - 1) // 4), and the payloads travel with their events."""
    rng = np.random.default_rng(3)
    q, size, seq, alive = new_heap(200), 0, 0, {}
    for _ in range(1_500):
        if size and rng.random() < 0.45:
            t, s = float(q.time[0]), int(q.seq[0])
            assert (t, s) == min(alive.values())
            assert q.kind[0] == s % 5 and q.arg[0] == 3 * s and q.value[0] == -t
            del alive[s]
            size = heap_pop(q, size)
        elif size < 200:
            t = float(rng.integers(0, 40))
            size = heap_push(q, size, t, seq, seq % 5, 3 * seq, -t)
            alive[seq] = (t, seq)
            seq += 1
        state = _heap_state(q, size)
        assert size == len(alive)
        assert sorted((t, s) for t, s, _, _ in state) == sorted(alive.values())
        for i in range(1, size):
            assert state[(i - 1) // 4][:2] <= state[i][:2]
        assert all(k == s % 5 and a == 3 * s for _, s, k, a in state)
    assert new_heap(0).time.shape == (1,) and new_heap(5).seq.dtype == np.int64


def test_the_lane_rounds_up_to_a_power_of_two_and_takes_only_in_order():
    places = {0: 1, 1: 1, 2: 2, 3: 4, 4: 4, 5: 8, 8: 8, 9: 16}
    assert {n: new_lane(n).time.shape[0] for n in places} == places
    lane = new_lane(4)
    assert lane.seq.dtype == lane.kind.dtype == lane.arg.dtype == np.int64
    assert lane_takes(lane, 0, 0, -5.0)  # empty: takes anything
    count = lane_push(lane, 3, 0, 2.0, 0, 1, 2, 3.5)  # the ring's last place
    assert count == 1 and lane.time[3] == 2.0 and lane.value[3] == 3.5 and lane.arg[3] == 2
    assert lane_takes(lane, 3, 1, 2.0) and not lane_takes(lane, 3, 1, 1.99)
    count = lane_push(lane, 3, count, 2.5, 1, 1, 2, 0.0)  # wraps to place 0
    assert lane.time[0] == 2.5 and count == 2
    assert not lane_takes(lane, 3, 2, 2.4) and lane_takes(lane, 3, 2, 2.5)
    count = lane_push(lane, 3, count, 3.0, 2, 1, 2, 0.0)
    assert lane.time[1] == 3.0 and count == 3
    assert lane_takes(lane, 3, 3, 9.0) and not lane_takes(lane, 3, 3, 2.9)
    assert not lane_takes(lane, 3, 4, 9.0)  # full
    assert lane_pop(lane, 3) == 0 and lane_pop(lane, 0) == 1


def test_the_width_follows_a_slower_rate_from_a_width_below_one():
    """The same 2.6x slow-down from one event per 0.25 units: the calendar rebuilds when the
    measured width passes twice the old one, 0.5 (the twin's 2x rule), so the new width is
    taken; a width below 1 is where 2w and 2**w differ."""
    ops = [0.25 * i for i in range(1, 101)]
    now = 25.0
    for gap in (0.25, 0.65):
        for _ in range(600):
            now += gap
            ops += [None, now]
    twin = _run(ops, 101)
    assert twin.n_buckets == 64 and abs(twin.width - 0.65) < 0.0125


def test_simultaneous_events_measure_no_width_and_keep_the_old_one():
    """20 events held at time 0 (pop one, push one at the same time) for 200 pops: the
    events given out span no time since the mark (at 0) and the stored ones none either, so
    the measured width is unknown (0.0): each re-measure after 2 * 16 + 64 pops rebuilds
    and keeps the width of 1 (the twin: a width of 0 is off by more than 2x, and is never
    taken)."""
    ops = [0.0] * 20 + [None, 0.0] * 200
    twin = _run(ops, 21, every=1)
    assert twin.rebuilds == 2 and twin.width == 1.0 and twin.n_buckets == _MIN_BUCKETS


def test_a_rebuild_after_seven_pops_measures_the_stored_spread():
    """Seven pops since the mark are fewer than the eight the event rate needs: when the
    calendar doubles after them (33 stored: 9 to 20 and 100 to 120), the width is the
    spread of the stored events above the top, (120 - 8) / 33, not the seven pops' 7 / 7
    (compared with the twin)."""
    ops = [float(t) for t in range(1, 21)] + [None] * 7 + [100.0 + i for i in range(34)]
    twin = _run(ops, 60, every=1)
    assert twin.rebuilds == 1 and twin.n_buckets == 32
    assert twin.width == (120.0 - 8.0) / 33


def test_the_stored_spread_ignores_a_freed_place_that_held_a_later_event():
    """Place 1 holds the event due at 1000 and is the first freed (the free list reuses it
    last); the queue drains and is filled again with earlier events, one popped first (so
    the time since the mark is negative and the rate unknown). When the calendar doubles,
    its width is the spread of what is stored above the top (2 to 19), (19 - 2) / 33, not
    up to the freed 1000."""
    ops = [0.0] + [1000.0 + i for i in range(41)] + [None] * 42
    ops += [1.0, 2.0, None] + [3.0 + 0.5 * i for i in range(33)]
    twin = _run(ops, 64, every=1)
    assert twin.n_buckets == 32 and twin.width == (19.0 - 2.0) / 33
