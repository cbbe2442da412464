"""The discrete-event kernel ``workbench.kernels.events.multiserver_fcfs``.

Three kinds of evidence:

1. Twin: the kernel equals the slow event-list simulation in ``tests/naive.py`` bit for
   bit on many random inputs, ties included, through both internal paths (vectorised
   scan for few servers, heaps for many).
2. Theory: Erlang-B blocking for exponential, Pareto and deterministic job times
   (insensitivity), the exact M/M/c/K birth-death solution, Little's law; each checked
   with a 99% Student-t interval over independent replications.
3. Conservation: on exactly representable (dyadic) inputs, every job is blocked or
   served once, never more than c in service or k waiting, FCFS order, no idling while
   jobs wait, and the number seen matches a brute-force count.
"""

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import multiserver_fcfs_naive
from numba import njit
from scipy import stats

from workbench.kernels.events import (
    _REBUILDS,
    _W,
    heap_pop,
    heap_push,
    lane_pop,
    lane_push,
    lane_takes,
    multiserver_fcfs,
    new_heap,
    new_lane,
    new_queue,
    queue_before,
    queue_pop,
    queue_push,
)
from workbench.kernels.fcfs import _SCAN_MAX_SERVERS, _multiserver_fcfs

HUGE = 2**63 - 1  # an "unlimited" waiting room: must not overflow or allocate


def run_all_paths(ia, s, c, k):
    """Kernel through the public entry and both forced paths; all three must agree."""
    ia = np.asarray(ia, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    out = multiserver_fcfs(ia, s, c, k)
    for scan_max in (0, 10**9):  # 0: heaps always; 10**9: scan always
        other = _multiserver_fcfs(ia, s, c, k, scan_max)
        assert_same(out, other)
    return out


def assert_same(a, b):
    """Bit-for-bit equality of two ``(waits, blocked, n_seen)`` triples."""
    wa, ba, na = (np.asarray(x) for x in a)
    wb, bb, nb = (np.asarray(x) for x in b)
    np.testing.assert_array_equal(ba.astype(bool), bb.astype(bool))
    np.testing.assert_array_equal(na, nb)
    np.testing.assert_array_equal(wa, wb)  # NaN == NaN here, other values exactly


def check_against_twin(ia, s, c, k):
    out = run_all_paths(ia, s, c, k)
    assert_same(out, multiserver_fcfs_naive(list(ia), list(s), c, k))
    return out


# ----- 1. the kernel equals its twin --------------------------------------------------------

# Small integers make exact ties between arrivals and departures common; floats do not.
_ints = st.integers(0, 3).map(float)
_floats = st.floats(0.0, 4.0, allow_nan=False, allow_infinity=False)


@st.composite
def queue_inputs(draw):
    n = draw(st.integers(0, 60))
    gap = draw(st.sampled_from([_ints, _floats, st.just(0.0)]))
    job = draw(st.sampled_from([st.integers(0, 6).map(float), _floats]))
    ia = draw(st.lists(gap, min_size=n, max_size=n))
    s = draw(st.lists(job, min_size=n, max_size=n))
    c = draw(st.one_of(st.integers(1, 5), st.sampled_from([1, 70, 10**9])))
    k = draw(st.one_of(st.integers(0, 4), st.sampled_from([0, 30, HUGE])))
    return ia, s, c, k


@settings(deadline=None, max_examples=400)
@given(queue_inputs())
def test_kernel_equals_twin_hypothesis(args):
    check_against_twin(*args)


def test_kernel_equals_twin_seeded():
    rng = np.random.default_rng(2024)
    for trial in range(300):
        n = int(rng.integers(0, 1500))
        kind = trial % 5
        if kind == 0:  # continuous, no ties
            lam = rng.uniform(0.2, 3.0)
            ia, s = rng.exponential(1 / lam, n), rng.exponential(1.0, n)
        elif kind == 1:  # integer grid: many exact ties
            ia, s = rng.integers(0, 3, n).astype(float), rng.integers(0, 8, n).astype(float)
        elif kind == 2:  # bursts of simultaneous arrivals, some zero job times
            ia = np.where(rng.random(n) < 0.6, 0.0, rng.exponential(1.0, n))
            s = np.where(rng.random(n) < 0.2, 0.0, rng.exponential(2.0, n))
        elif kind == 3:  # heavy tail
            ia, s = rng.exponential(0.3, n), 0.4 * (1 + rng.pareto(1.5, n))
        else:  # deterministic service
            ia, s = rng.exponential(0.5, n), np.full(n, 1.25)
        c = int(rng.choice([1, 2, 3, 5, 8, 40, _SCAN_MAX_SERVERS, _SCAN_MAX_SERVERS + 1]))
        k = int(rng.choice([0, 0, 1, 3, 10, 200, HUGE]))
        check_against_twin(ia, s, c, k)


def test_hand_computed_ties():
    # c = 1, k = 1; arrivals at 1, 1, 1, 2 and 3.5.  Job 0 holds the server until 2.5,
    # job 1 waits for it, job 2 finds the room full, job 3 too (job 1 still waits at 2).
    # Job 4 arrives at 3.5 exactly when job 1 departs: the departure goes first.
    waits, blocked, n_seen = check_against_twin(
        [1.0, 0.0, 0.0, 1.0, 1.5], [1.5, 1.0, 1.0, 1.0, 1.0], 1, 1
    )
    np.testing.assert_array_equal(blocked, [False, False, True, True, False])
    np.testing.assert_array_equal(n_seen, [0, 1, 2, 2, 0])
    np.testing.assert_array_equal(waits, [0.0, 1.5, np.nan, np.nan, 0.0])
    # Loss system: a departure at exactly the arrival instant frees the server.
    waits, blocked, n_seen = check_against_twin([0.0, 2.0, 0.0], [2.0, 1.0, 1.0], 1, 0)
    np.testing.assert_array_equal(blocked, [False, False, True])
    np.testing.assert_array_equal(n_seen, [0, 0, 1])
    # A zero-length job leaves at its start; a simultaneous arrival finds the server free.
    _, blocked, n_seen = check_against_twin([1.0, 0.0], [0.0, 1.0], 1, 0)
    np.testing.assert_array_equal(blocked, [False, False])
    np.testing.assert_array_equal(n_seen, [0, 0])


def test_degenerate_inputs_do_not_crash():
    empty = np.zeros(0)
    for c, k in [(1, 0), (3, 5), (10**9, HUGE)]:
        w, b, ns = multiserver_fcfs(empty, empty, c, k)
        assert w.shape == b.shape == ns.shape == (0,)
    ones = np.ones(5)
    # servers far beyond n: nothing is blocked, nobody waits, only n slots allocated
    w, b, ns = check_against_twin(ones, 10 * ones, 10**12, 0)
    assert not b.any() and (w == 0).all()
    np.testing.assert_array_equal(ns, [0, 1, 2, 3, 4])
    # unlimited room: single server queue, nobody blocked
    w, b, _ = check_against_twin(ones, 3 * ones, 1, HUGE)
    np.testing.assert_array_equal(w, [0, 2, 4, 6, 8])
    # documented defensive behaviour: no server blocks all; negative room acts as 0
    w, b, ns = multiserver_fcfs(ones, ones, 0, 3)
    assert b.all() and np.isnan(w).all()
    assert_same(multiserver_fcfs(ones, 3 * ones, 2, -4), multiserver_fcfs(ones, 3 * ones, 2, 0))
    with pytest.raises(ValueError, match="same length"):
        multiserver_fcfs(ones, np.ones(4), 2, 0)
    # NaN or negative inputs give garbage numbers, but the kernel must finish, keep its
    # shapes and invariants (blocked exactly when c + k are present; nobody sees more)
    bad = np.array([1.0, np.nan, -5.0, 2.0, np.inf, 0.0])
    for path in (0, 10**9):
        for k in (0, 2):
            w, b, ns = _multiserver_fcfs(bad, bad[::-1].copy(), 2, k, path)
            assert w.shape == b.shape == ns.shape == bad.shape
            assert ((ns >= 0) & (ns <= 2 + k)).all(), ns
            assert np.array_equal(np.asarray(b, dtype=bool), ns == 2 + k), (b, ns)


# ----- 2. theory as oracle ------------------------------------------------------------------


def erlang_b_reference(c, a):
    """Erlang-B by the recursion B_k = a B_{k-1} / (k + a B_{k-1}), B_0 = 1."""
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def mmck_reference(c, k, a):
    """Exact M/M/c/(c+k) with unit-mean service and arrival rate a (birth-death chain).

    Returns ``(P(block), E[wait | admitted], E[number in system])``.
    """
    K = c + k
    weights = [1.0]
    for j in range(1, K + 1):
        weights.append(weights[-1] * a / min(j, c))  # pi_j / pi_{j-1} = lam / (min(j,c) mu)
    total = sum(weights)
    pi = [w / total for w in weights]
    lq = sum((j - c) * pi[j] for j in range(c + 1, K + 1))
    return pi[K], lq / (a * (1.0 - pi[K])), sum(j * p for j, p in enumerate(pi))


def unit_mean_jobs(law, rng, n):
    if law == "exponential":
        return rng.exponential(1.0, n)
    if law == "pareto":  # alpha = 2.5, scale chosen for mean 1
        alpha = 2.5
        return (alpha - 1) / alpha * (1.0 + rng.pareto(alpha, n))
    if law == "deterministic":
        return np.ones(n)
    raise ValueError(law)


def replicate(stat, c, k, a, law, reps=30, n=40_000, warmup=2_000, seed=0):
    """``stat(waits, blocked, n_seen, ia, s)`` on ``reps`` independent runs (empty start,
    first ``warmup`` jobs dropped); returns the array of per-run values."""
    out = []
    for child in np.random.SeedSequence([seed, c, k, int(10 * a)]).spawn(reps):
        rng = np.random.default_rng(child)
        ia = rng.exponential(1.0 / a, n)  # unit-mean jobs, so lambda = a
        s = unit_mean_jobs(law, rng, n)
        w, b, ns = multiserver_fcfs(ia, s, c, k)
        cut = slice(warmup, None)
        out.append(stat(w[cut], b[cut], ns[cut], ia[cut], s[cut]))
    return np.asarray(out)


def assert_in_t_interval(samples, target, level=0.99, max_half_width=None):
    """``target`` lies in the ``level`` Student-t interval of the replication means."""
    r = samples.size
    half = stats.t.ppf(0.5 + level / 2, r - 1) * samples.std(ddof=1) / math.sqrt(r)
    mean = samples.mean()
    assert abs(mean - target) <= half, f"{target=} outside {mean:.5f} +- {half:.5f}"
    if max_half_width is not None:  # the interval must also be tight enough to mean much
        assert half < max_half_width, f"interval too wide: +- {half:.5f}"


def blocked_fraction(w, b, ns, ia, s):
    return b.mean()


@pytest.mark.parametrize("law", ["exponential", "pareto", "deterministic"])
@pytest.mark.parametrize("a", [5.0, 15.0])
def test_loss_system_blocking_is_erlang_b_for_any_job_law(law, a):
    # M/G/c/c: blocking depends on the job-time law only through its mean.
    c = 10
    fractions = replicate(blocked_fraction, c, 0, a, law, seed=1)
    assert_in_t_interval(fractions, erlang_b_reference(c, a), max_half_width=0.004)


def test_loss_system_blocking_many_servers_heap_path():
    c, a = 150, 145.0  # c > _SCAN_MAX_SERVERS: exercised through the heaps
    assert c > _SCAN_MAX_SERVERS
    fractions = replicate(blocked_fraction, c, 0, a, "exponential", reps=20, n=60_000, seed=2)
    assert_in_t_interval(fractions, erlang_b_reference(c, a), max_half_width=0.004)


@pytest.mark.parametrize("c,k,a", [(3, 4, 2.0), (3, 4, 4.5), (1, 6, 0.8), (130, 20, 128.0)])
def test_mmck_matches_birth_death_solution(c, k, a):
    p_block, mean_wait, mean_number = mmck_reference(c, k, a)

    def block_wait_number(w, b, ns, ia, s):
        return b.mean(), w[~b].mean(), ns.mean()

    runs = replicate(block_wait_number, c, k, a, "exponential", seed=3)
    assert_in_t_interval(runs[:, 0], p_block, max_half_width=0.01)
    assert_in_t_interval(runs[:, 1], mean_wait, max_half_width=0.05 * mean_wait + 0.01)
    # PASTA: arrivals see the time-stationary number in system
    assert_in_t_interval(runs[:, 2], mean_number, max_half_width=0.02 * mean_number)


@pytest.mark.parametrize(
    "c,k,a,law", [(4, 5, 3.5, "pareto"), (10, 0, 9.0, "deterministic"), (2, 3, 2.5, "exponential")]
)
def test_littles_law(c, k, a, law):
    # L (time average, seen by Poisson arrivals) = lambda_admitted * E[time in system]
    def gap(w, b, ns, ia, s):
        horizon = ia.sum()
        lam_admitted = np.count_nonzero(~b) / horizon
        sojourn = (w[~b] + s[~b]).mean()
        return ns.mean() - lam_admitted * sojourn

    diffs = replicate(gap, c, k, a, law, reps=30, n=40_000, seed=4)
    assert_in_t_interval(diffs, 0.0, max_half_width=0.05)


def test_waits_are_zero_without_waiting_room_and_nan_when_blocked():
    rng = np.random.default_rng(7)
    ia, s = rng.exponential(0.1, 20_000), rng.exponential(1.0, 20_000)
    w, b, ns = run_all_paths(ia, s, 10, 0)
    assert b.any() and (~b).any()
    assert (w[~b] == 0).all() and np.isnan(w[b]).all()
    np.testing.assert_array_equal(b, ns == 10)


# ----- 3. conservation on exactly representable inputs -------------------------------------


@pytest.mark.parametrize("c,k", [(1, 0), (1, 3), (3, 0), (3, 2), (7, 50), (140, 0), (140, 9)])
def test_conservation_and_fcfs(c, k):
    rng = np.random.default_rng(c * 100 + k)
    n = 1500
    # Dyadic values (multiples of 2**-9, sums below 2**12): all arithmetic is exact.
    # The arrival unit scales with c so that the system is overloaded (blocking and
    # waiting both occur).
    unit = 2.0 ** -math.floor(math.log2(c)) / 2
    ia = rng.integers(0, 5, n) * unit
    s = rng.integers(0, 40, n) / 8.0
    w, b, ns = run_all_paths(ia, s, c, k)  # the twin is compared at the end
    arrival = np.cumsum(ia)
    served = ~b

    # each job is either blocked or served exactly once
    assert np.array_equal(np.isnan(w), b)
    assert served.sum() + b.sum() == n
    start = arrival + np.where(served, w, 0.0)
    depart = start + s
    assert (w[served] >= 0).all() and (depart[served] >= start[served]).all()
    # FCFS: service starts in arrival order
    assert (np.diff(start[served]) >= 0).all()
    # blocked exactly when the system was full
    np.testing.assert_array_equal(b, ns == c + k)

    def concurrent(lo, hi):
        """Max number of half-open intervals [lo, hi) covering one instant."""
        keep = hi > lo
        times = np.concatenate([lo[keep], hi[keep]])
        steps = np.concatenate([np.ones(keep.sum()), -np.ones(keep.sum())])
        order = np.lexsort((steps, times))  # ends before starts at equal times
        return int(np.cumsum(steps[order]).max(initial=0))

    assert concurrent(start[served], depart[served]) <= c
    assert concurrent(arrival[served], start[served]) <= k

    # brute force: number in system at each arrival, in service, and no idling
    for i in range(n):
        before = served[:i]
        present = np.count_nonzero(depart[:i][before] > arrival[i])
        in_service = np.count_nonzero(
            (start[:i][before] <= arrival[i]) & (depart[:i][before] > arrival[i])
        )
        assert ns[i] == present
        if b[i] or w[i] > 0:
            assert in_service == c  # a job only waits or is lost if all servers are busy
    assert_same((w, b, ns), multiserver_fcfs_naive(list(ia), list(s), c, k))


# ----- the shared event queue (kernels.events.EventQueue) against heapq -------------------


@njit(cache=True)
def _drive_queue(times, pushes, capacity):
    """Push (time, seq = push number, arg = op index) or pop the earliest, on the calendar.

    Returns the args in pop order, how many popped entries carried another's payload, and
    the queue (its state: rebuilds, width).
    """
    q = new_queue(capacity)
    size = seq = n = wrong_payload = 0
    popped = np.empty(len(times), np.int64)
    for i in range(len(times) + 1):
        if i < len(times) and (pushes[i] or size == 0):
            size = queue_push(q, size, times[i], seq, i % 3, i, 2.0 * times[i])
            seq += 1
            continue
        while size > 0:  # one pop, or all at the end
            wrong_payload += q.kind[0] != q.arg[0] % 3 or q.value[0] != 2.0 * q.time[0]
            popped[n] = q.arg[0]
            n += 1
            size = queue_pop(q, size)
            if i < len(times):
                break
    return popped[:n], wrong_payload, q


@njit(cache=True)
def _drive_heap(times, pushes, capacity):
    """:func:`_drive_queue` on the 4-ary heap (P1's and P5's loops)."""
    q = new_heap(capacity)
    size = seq = n = wrong_payload = 0
    popped = np.empty(len(times), np.int64)
    for i in range(len(times) + 1):
        if i < len(times) and (pushes[i] or size == 0):
            size = heap_push(q, size, times[i], seq, i % 3, i, 2.0 * times[i])
            seq += 1
            continue
        while size > 0:
            wrong_payload += q.kind[0] != q.arg[0] % 3 or q.value[0] != 2.0 * q.time[0]
            popped[n] = q.arg[0]
            n += 1
            size = heap_pop(q, size)
            if i < len(times):
                break
    return popped[:n], wrong_payload


def _heapq_order(ops):
    """The operations as arrays (times, pushes) and the order ``heapq`` pops them in: push
    ``(time, push number, index)``, or pop the earliest (a pop on an empty heap pushes)."""
    times = np.array([t for t, _ in ops])
    pushes = np.array([p for _, p in ops])
    heap, expected, seq = [], [], 0
    for i, (t, push) in enumerate(ops):
        if push or not heap:
            heapq.heappush(heap, (t, seq, i))
            seq += 1
        else:
            expected.append(heapq.heappop(heap)[2])
    expected += [heapq.heappop(heap)[2] for _ in range(len(heap))]
    return times, pushes, expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_ints, st.booleans()), min_size=1, max_size=300))
def test_event_queue_pops_in_time_then_scheduling_order_like_heapq(ops):
    times, pushes, expected = _heapq_order(ops)
    calendar = _drive_queue(times, pushes, len(ops))[:2]
    heap = _drive_heap(times, pushes, len(ops))
    for popped, wrong_payload in (calendar, heap):
        assert popped.tolist() == expected
        assert wrong_payload == 0


_times = st.one_of(
    _ints,  # equal times
    st.floats(0.0, 1e3, allow_nan=False),
    st.floats(0.0, 1e-6, allow_nan=False),  # far below the width
    st.sampled_from([1e12, 1e300, math.inf]),  # far-future events, past the last bucket
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_times, st.booleans()), min_size=1, max_size=600))
def test_calendar_queue_at_every_scale_pops_like_heapq(ops):
    """Equal times, times far apart, far-future events and an infinite one, pops on an
    empty queue (they push): the calendar's order is heapq's."""
    times, pushes, expected = _heapq_order(ops)
    popped, wrong_payload, _ = _drive_queue(times, pushes, len(ops))
    assert popped.tolist() == expected
    assert wrong_payload == 0


@pytest.mark.parametrize("seed", range(6))
def test_calendar_queue_grows_shrinks_and_follows_the_event_rate_like_heapq(seed):
    """Thousands of events pending, then few, with the gaps between events changing by
    orders of magnitude: the calendar rebuilds (doubles, halves, re-measures its width) and
    still pops in heapq's order."""
    rng = np.random.default_rng(seed)
    ops, now = [], 0.0
    for scale, n, p_push in ((1.0, 4000, 0.8), (1e-4, 4000, 0.5), (1e3, 6000, 0.2)):
        for _ in range(n):
            push = bool(rng.random() < p_push)
            t = now + rng.exponential(scale) * rng.integers(1, 50)
            if rng.random() < 0.1:
                t = now  # ties with the current time
            ops.append((t, push))
            now = max(now, t) if push else now
    times, pushes, expected = _heapq_order(ops)
    popped, wrong_payload, q = _drive_queue(times, pushes, len(ops))
    assert popped.tolist() == expected
    assert wrong_payload == 0
    assert q.ints[_REBUILDS] >= 6  # grew to thousands of events and shrank back


@njit(cache=True)
def _hold_model(gap, n_pending, n_ops, seed):
    """The classic hold model: ``n_pending`` events; each pop schedules one later by an
    exponential time of mean ``gap * n_pending``, so one event is due per ``gap``."""
    np.random.seed(seed)
    q = new_queue(n_pending + 1)
    size, seq = 0, 0
    for _ in range(n_pending):
        size = queue_push(q, size, np.random.exponential(gap * n_pending), seq, 0, 0, 0.0)
        seq += 1
    for _ in range(n_ops):
        now = q.time[0]
        size = queue_pop(q, size)
        size = queue_push(q, size, now + np.random.exponential(gap * n_pending), seq, 0, 0, 0.0)
        seq += 1
    return q.floats[_W]


@pytest.mark.parametrize("gap", [1e-6, 1.0, 1e5])
def test_calendar_bucket_width_is_the_mean_time_between_events(gap):
    """Buckets one mean inter-event time wide, whatever the time scale."""
    width = _hold_model(gap, 1000, 20_000, 1)
    assert 0.5 * gap < width < 2.0 * gap


@njit(cache=True)
def _drive_queue_and_lane(times, pushes, capacity, lane_places):
    """As :func:`_drive_queue`, with a lane of ``lane_places`` beside the queue: an event
    joins the lane when the lane takes it (room, and due no earlier than its last), else
    the queue; a pop takes the earlier of the queue's top and the lane's head. Also
    returns how many went to the lane."""
    q, lane = new_queue(capacity), new_lane(lane_places)
    size, head, count, seq, n, laned = 0, 0, 0, 0, 0, 0
    popped = np.empty(len(times), np.int64)
    for i in range(len(times) + capacity):
        if i < len(times) and (pushes[i] or size + count == 0):
            if lane_takes(lane, head, count, times[i]):
                count = lane_push(lane, head, count, times[i], seq, 0, i, 0.0)
                laned += 1
            else:
                size = queue_push(q, size, times[i], seq, 0, i, 0.0)
            seq += 1
            continue
        if size + count == 0:
            break
        if count > 0 and (
            size == 0 or queue_before(lane.time[head], lane.seq[head], q.time[0], q.seq[0])
        ):
            popped[n] = lane.arg[head]
            head = lane_pop(lane, head)
            count -= 1
        else:
            popped[n] = q.arg[0]
            size = queue_pop(q, size)
        n += 1
    return popped[:n], laned


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_ints, st.booleans()), min_size=1, max_size=300))
def test_a_lane_beside_the_heap_keeps_the_order_of_heapq(ops):
    """The arena's moves skip the heap through the lane; the pop order must not change."""
    times, pushes, expected = _heapq_order(ops)
    popped, laned = _drive_queue_and_lane(times, pushes, len(ops), 8)
    assert popped.tolist() == expected
    assert laned >= 1  # the first push always joins the empty lane


def test_a_full_lane_sends_the_event_to_the_queue():
    """A lane of 4 places and 10 events pending in time order: 4 join the lane, 6 the
    queue, and they still leave in order."""
    times = np.arange(10.0)
    pushes = np.ones(10, bool)
    popped, laned = _drive_queue_and_lane(times, pushes, 10, 4)
    assert laned == 4 and popped.tolist() == list(range(10))


def test_the_lane_wraps_around_its_ring():
    """Five times more events than places pass through a lane of 4 places, in order."""
    times = np.arange(40.0)  # increasing: every push joins the lane
    pushes = np.tile([True, True, True, False, False, False], 7)[:40]
    popped, laned = _drive_queue_and_lane(times, pushes, 4, 4)
    pushed = [i for i in range(40) if pushes[i]]
    assert laned == len(pushed) == 21 and popped.tolist() == pushed
