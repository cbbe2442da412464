"""The slotted simulator of the proactive edge-computing model, as one jitted kernel.

Per slot of length δ (time t0 = s δ):

1. **Requests.** Every user whose oldest unmatched task has arrived (arrival ≤ t0) requests
   it; a user requests one task per slot.
2. **Preferences.** Users rank their covered cloudlets by their own delay estimate (eq. 14):
   κL/c_e + L/r̄_ue + τ_EP (users do not know the queues, nor, unless ``cache_aware``,
   which cloudlet holds their result; a cache-aware user ranks a holder by τ_EP). Cloudlets rank
   the requests by Φ_eu (eq. 15), where the queue term sums the remaining data of the
   copies queued (and uploading) at e over their estimated rates. BL3 ranks both sides by
   the estimated link rate r̄_ue instead.
3. **Matching.** One-to-one deferred acceptance (users propose); then the hedge rounds for
   the matched requests with Φ < 0 at their cloudlet (proposed, BL1, BL2): they are
   matched again to cloudlets still vacant this slot, up to X_max cloudlets in all
   (:func:`workbench.kernels.matching.hedge_rounds_kernel`); with ``hedge_check`` only to
   cloudlets where the request's own Φ ≥ 0 (eq. 9 holds there). Unmatched requests retry
   next slot.
4. **Cache hits.** A request matched to a cloudlet holding its result (cached and computed)
   is served at t0 + τ_EP (the first such cloudlet of its matches).
5. **Uploads.** An idle cloudlet starts the oldest live copy of its FIFO queue; the other
   copies of that task are withdrawn ("upload to whichever frees first"). When several of
   a user's copies head idle queues in the same slot (they free at the same time) the user
   uploads to the one with the least own delay κL/c_e + L/r̄_ue. A user uploads one task
   at a time: a copy whose user is transmitting elsewhere waits at the head.
   When an upload starts, the cloudlet's cache sees the request (LRU for BL1, the
   popularity rule for the proposed scheme).
6. **Radio.** Fading is redrawn (block fading, one block per slot); the transmitting users'
   rates follow eq. 2 (:func:`workbench.kernels.radio.uplink_rate_kernel`). An upload that
   completes inside the slot finishes at its exact time; the task then waits for the
   cloudlet's CPU (FIFO) and computes for κL/c_e; it is done τ_EP later.
7. **Rate estimates.** Every cloudlet updates r̄_ue (eq. 10, ν(t) = 1/t) for every covered
   user with the rate the user would have had there this slot.

After ``n_slots`` slots no task arrives any more and the simulation runs until every task
is done (bounded by ``max_drain_slots``).
"""

from typing import NamedTuple

import numpy as np
from numba import config, njit

from workbench.kernels.matching import deferred_acceptance_kernel, hedge_rounds_kernel
from workbench.proactive.fading import FADING_TABLE, fade, jump_table
from workbench.proactive.log1p import PLATFORM, PROBE, log1p_many, platform_variant

# scheme codes (SCHEMES in params.py)
PROPOSED = 0
BL1 = 1
BL2 = 2
BL3 = 3

# task states
WAITING = 0
QUEUED = 1
UPLOADING = 2
DONE = 3

# named slots of the counters array
TASKS = 0
TASKS_DONE = 1
FROM_CACHE = 2
HEDGED_TASKS = 3
COPIES = 4
WITHDRAWN = 5
UPLOADS = 6
SLOTS_RUN = 7
STATUS = 8
PENDING_HITS = 9
MATCHED_REQUESTS = 10
UNMATCHED_REQUESTS = 11
N_COUNTERS = 12
#: the counters' names, read by name from the kernel's array (``getattr(kernels, name)``)
COUNTERS = (
    "TASKS",
    "TASKS_DONE",
    "FROM_CACHE",
    "HEDGED_TASKS",
    "COPIES",
    "WITHDRAWN",
    "UPLOADS",
    "SLOTS_RUN",
    "STATUS",
    "PENDING_HITS",
    "MATCHED_REQUESTS",
    "UNMATCHED_REQUESTS",
)

# status codes
OK = 0
QUEUE_OVERFLOW = 1
NOT_DRAINED = 2

_LN2 = np.log(2.0)

# with numba's JIT off (NUMBA_DISABLE_JIT=1: debugging, mutation runs) the bit casts of the
# vectorised log1p cannot run as Python: the kernel then takes log1p value by value
_PYTHON_LOG1P = bool(config.DISABLE_JIT)


@njit(cache=True)
def stable_order(keys, n, order):
    """order[:n] = the stable ascending order of keys[:n] (ties by index), by insertion.

    The same permutation as ``np.argsort(keys[:n], kind="mergesort")`` for keys without
    NaN, without allocating (the slot loop sorts E cloudlets and a few requests per slot).
    """
    for i in range(n):
        x = keys[i]
        j = i
        while j > 0 and keys[order[j - 1]] > x:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@njit(cache=True)
def _cache_request(e, a, policy, clock, caches, storage, cache_rank):
    """One request for task ``a`` seen by cloudlet ``e``'s cache; True if it was held.

    ``caches``: the caches' state, ``(slot_of, c_obj, c_key, used, ready)``: the slot of
    each (cloudlet, task) or -1, each slot's task and key, the slots in use, and when each
    held result is computed.

    policy 1 = LRU (key = time of last request; evict the oldest), policy 0 = popularity
    (key = rank in the preferred cluster's ξ; a newcomer replaces the least popular held
    result only if strictly more popular). New entries are not ready until computed.
    """
    slot_of, c_obj, c_key, used, ready = caches
    s = slot_of[e, a]
    if s >= 0:
        if policy == 1:
            c_key[e, s] = clock
        return True
    cap = storage[e]
    if cap <= 0:
        return False
    if used[e] < cap:
        s = used[e]
        used[e] += 1
    else:
        victim = 0
        if policy == 1:
            for j in range(1, cap):
                if c_key[e, j] < c_key[e, victim]:
                    victim = j
        else:
            for j in range(1, cap):
                if c_key[e, j] > c_key[e, victim]:
                    victim = j
            if cache_rank[e, a] >= c_key[e, victim]:
                return False
        s = victim
        old = c_obj[e, s]
        slot_of[e, old] = -1
        ready[e, old] = np.inf
    c_obj[e, s] = a
    slot_of[e, a] = s
    c_key[e, s] = clock if policy == 1 else cache_rank[e, a]
    ready[e, a] = np.inf
    return False


@njit(cache=True)
def _fill_popular(storage, cache_rank, cacheable, caches):
    """Fill every cache with its ``storage[e]`` most popular cacheable results (by
    ``cache_rank[e]``, rank 0 first), computed at time 0: where the popularity rule of
    :func:`_cache_request` ends once every such result has been requested."""
    slot_of, c_obj, c_key, used, ready = caches
    n_cloudlets, n_task_types = cache_rank.shape
    by_rank = np.empty(n_task_types, dtype=np.int64)
    for e in range(n_cloudlets):
        for a in range(n_task_types):
            by_rank[cache_rank[e, a]] = a
        for r in range(n_task_types):
            if used[e] >= storage[e]:
                break
            a = by_rank[r]
            if cacheable[a]:
                s = used[e]
                used[e] += 1
                c_obj[e, s] = a
                slot_of[e, a] = s
                c_key[e, s] = cache_rank[e, a]
                ready[e, a] = 0.0


class Radio(NamedTuple):
    """The users' links (see the parameters of :func:`simulate_slots_kernel`)."""

    path_gain: np.ndarray
    covered: np.ndarray
    power: np.ndarray
    noise_w: float
    bandwidth: float
    fading: bool
    fading_seed: np.uint64
    rbar0: np.ndarray


class Cloudlets(NamedTuple):
    """The cloudlets: speeds, costs, caches."""

    cpu: np.ndarray
    kappa: float
    tau_ep: float
    budget: float
    storage: np.ndarray
    cache_rank: np.ndarray
    cacheable: np.ndarray


class TaskStream(NamedTuple):
    """The tasks, grouped by user."""

    arrival: np.ndarray
    task_user: np.ndarray
    task_type: np.ndarray
    task_bits: np.ndarray
    user_start: np.ndarray


class Schedule(NamedTuple):
    """The scheme and the run's limits."""

    scheme: int
    slot: float
    n_slots: int
    max_drain_slots: int
    x_max: int
    max_queue: int
    cache_aware: bool
    hedge_check: bool
    warm_caches: bool = False  # start each cache full of its most popular results
    least_wait: bool = False  # a hedged task uploads to the match with the least wait


class Outcome(NamedTuple):
    """What the slot kernel returns: one entry per task, and the named counters.

    Parameters
    ----------
    done : float64[N]
        Completion time (NaN if not done).
    server : int64[N]
        Cloudlet that served the task (cache hit or upload).
    from_cache : bool[N]
    copies : int64[N]
        Cloudlets the request was queued at (0 for a cache hit).
    cache_seq, cache_hit : int64[N], bool[N]
        Order of the task's request at its server's cache (-1 if the cache never saw it)
        and whether the cache held the result then.
    upload_start, upload_end : float64[N]
        When the task's upload started (a slot boundary) and finished (NaN for a hit).
    counters : int64[N_COUNTERS]
        Named slots TASKS ... UNMATCHED_REQUESTS.
    """

    done: np.ndarray
    server: np.ndarray
    from_cache: np.ndarray
    copies: np.ndarray
    cache_seq: np.ndarray
    cache_hit: np.ndarray
    upload_start: np.ndarray
    upload_end: np.ndarray
    counters: np.ndarray


@njit(cache=True, nogil=True)
def simulate_slots_kernel(radio, cloudlets, tasks, schedule):
    """Run the slotted model (see :func:`_slots_loop`) on four named records."""
    return _slots_loop(*(radio[:] + cloudlets[:] + tasks[:] + schedule[:]))


@njit(cache=True, nogil=True)
def _slots_loop(
    path_gain,
    covered,
    power,
    noise_w,
    bandwidth,
    fading,
    fading_seed,
    rbar0,
    cpu,
    kappa,
    tau_ep,
    budget,
    storage,
    cache_rank,
    cacheable,
    arrival,
    task_user,
    task_type,
    task_bits,
    user_start,
    scheme,
    slot,
    n_slots,
    max_drain_slots,
    x_max,
    max_queue,
    cache_aware,
    hedge_check,
    warm_caches,
    least_wait,
):
    # the fields of Radio, Cloudlets, TaskStream and Schedule in order: numba compiles the
    # loop over plain arrays (unpacking the records inside it cost 20% of P2's run time)
    """Run the slotted model; per-task outcomes and named counters (:class:`Outcome`).

    The inputs come as four named records, :class:`Radio`, :class:`Cloudlets`,
    :class:`TaskStream` and :class:`Schedule`, whose fields are:

    Parameters
    ----------
    scheme : int
        PROPOSED, BL1, BL2 or BL3.
    path_gain : float64[U, E]
        Linear path gains (fading multiplies them each slot when ``fading``).
    covered : bool[U, E]
        Coverage; a user only proposes to covered cloudlets.
    power : float64[U]
        Transmit powers [W].
    noise_w, bandwidth, fading : float, float, bool
        Noise power [W], band [Hz], Rayleigh block fading (Exp(1) power gain a link a slot).
    fading_seed : uint64
        Nonzero initial state of the xorshift64* generator of the fading draws.
    cpu : float64[E]
        CPU speeds [cycles/s].
    kappa, tau_ep, budget, slot : float
        κ [cycles/bit], τ_EP [s], D_th·ε [s], δ [s].
    n_slots, max_drain_slots, x_max : int
        Slots with arrivals, most extra slots to finish the work, X_max.
    storage, cache_rank : int64[E], int64[E, A]
        Cache capacities (results); each cloudlet's popularity rank of every task (proposed).
    cacheable : bool[A]
    arrival, task_bits, task_user, task_type : float64[N], float64[N], int64[N], int64[N]
        Arrival times (sorted within each user), data sizes, users and types of the tasks.
    user_start : int64[U + 1]
        Tasks are grouped by user: user u owns tasks user_start[u] .. user_start[u+1]-1.
    rbar0 : float64[U, E]
        Initial rate estimates r̄(0) (forgotten after one slot since ν(1) = 1).
    max_queue : int
        Copies one cloudlet may hold; more stops the run with status QUEUE_OVERFLOW.
    cache_aware : bool
        Users rank a cloudlet holding their result by τ_EP (eq. 14 with y_ea known to
        the user). False (the paper's reading): users rank by the upload and computing
        delay of their own data only; a hit happens when the matched cloudlet holds it.
    warm_caches : bool
        Start every cache of the proposed scheme in the steady state of its popularity
        rule: the ``storage[e]`` cacheable results ranked first by ``cache_rank[e]``, already
        computed (ready at time 0). False: every cache starts empty (BL1's LRU caches
        always do).
    least_wait : bool
        A hedged request is uploaded to the matched cloudlet with the smallest estimated
        waiting time w_ea (the queue term of eq. 15; ties to the earlier match) and queued
        there only. False (the default): queued at every matched cloudlet, the copy that
        starts first is uploaded ("the cloudlet that frees its queue first").

    Returns
    -------
    Outcome
        Per-task outcomes and the named counters.
    """
    n_users, n_cloudlets = path_gain.shape
    n_task_types = cacheable.shape[0]
    n = arrival.shape[0]
    rng_state = np.empty(1, dtype=np.uint64)
    rng_state[0] = fading_seed
    table = FADING_TABLE
    user_jump = jump_table(n_cloudlets)  # the generator's E steps (one user's links)
    starts = np.empty(n_users, dtype=np.uint64)
    caching = scheme == PROPOSED or scheme == BL1
    policy = 1 if scheme == BL1 else 0
    hedging = scheme != BL3 and x_max > 1

    done_time = np.full(n, np.nan)
    server = np.full(n, -1, dtype=np.int64)
    from_cache = np.zeros(n, dtype=np.bool_)
    copies = np.zeros(n, dtype=np.int64)
    cache_seq = np.full(n, -1, dtype=np.int64)
    cache_hit = np.zeros(n, dtype=np.bool_)
    upload_start = np.full(n, np.nan)
    upload_end = np.full(n, np.nan)
    state = np.zeros(n, dtype=np.int64)
    left = task_bits.copy()
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    counters[TASKS] = n
    out = Outcome(
        done_time,
        server,
        from_cache,
        copies,
        cache_seq,
        cache_hit,
        upload_start,
        upload_end,
        counters,
    )

    head = user_start[:-1].copy()  # next unmatched task of every user
    user_busy = np.zeros(n_users, dtype=np.bool_)
    qbuf = np.empty((n_cloudlets, max_queue), dtype=np.int64)
    qhead = np.zeros(n_cloudlets, dtype=np.int64)
    qlen = np.zeros(n_cloudlets, dtype=np.int64)
    up_task = np.full(n_cloudlets, -1, dtype=np.int64)
    cpu_free = np.zeros(n_cloudlets)

    s_max = max(1, storage.max())
    slot_of = np.full((n_cloudlets, n_task_types), -1, dtype=np.int64)
    ready = np.full((n_cloudlets, n_task_types), np.inf)
    c_obj = np.full((n_cloudlets, s_max), -1, dtype=np.int64)
    c_key = np.zeros((n_cloudlets, s_max), dtype=np.int64)
    used = np.zeros(n_cloudlets, dtype=np.int64)
    caches = (slot_of, c_obj, c_key, used, ready)
    clock = 0  # cache request counter (LRU recency, replay order)
    if warm_caches and caching and policy == 0:
        _fill_popular(storage, cache_rank, cacheable, caches)

    rbar = rbar0.copy()
    gain = path_gain.copy()
    serving = np.full(n_users, -1, dtype=np.int64)
    received = np.zeros(n_cloudlets)
    wait_est = np.zeros(n_cloudlets)
    req_user = np.empty(n_users, dtype=np.int64)
    req_task = np.empty(n_users, dtype=np.int64)
    ukey = np.empty(n_cloudlets)
    e_order = np.empty(n_cloudlets, dtype=np.int64)
    u_order = np.empty(n_users, dtype=np.int64)
    neg = np.empty(n_users)
    den = np.empty(n_cloudlets)
    rates = np.zeros(n_users)
    pick_e = np.full(n_users, -1, dtype=np.int64)
    pick_key = np.zeros(n_users)
    caps = np.ones(n_cloudlets, dtype=np.int64)
    # the covered links, user by user (user u's: link_e[link_start[u]:link_start[u + 1]])
    link_user, link_e = np.nonzero(covered)
    link_start = np.zeros(n_users + 1, dtype=np.int64)
    link_start[1:] = np.cumsum(np.bincount(link_user, minlength=n_users))
    n_links = link_e.shape[0]
    sinr = np.empty(n_links)
    logs = np.empty(n_links)
    # the C library's log1p, vectorised (as Python: numpy's log1p, value by value)
    log_variant = PLATFORM if _PYTHON_LOG1P else platform_variant(PROBE)

    s = 0
    last_slot = n_slots + max_drain_slots
    while s < last_slot:
        if s >= n_slots and counters[TASKS_DONE] == n:
            break
        t0 = s * slot
        # 1. requests
        n_req = 0
        for u in range(n_users):
            k = head[u]
            if k < user_start[u + 1] and arrival[k] <= t0:
                req_user[n_req] = u
                req_task[n_req] = k
                n_req += 1
        if n_req > 0:
            # 2. preferences
            if scheme != BL3:
                for e in range(n_cloudlets):
                    w = 0.0
                    t = up_task[e]
                    if t >= 0:
                        w += left[t] / rbar[task_user[t], e]
                    for j in range(qlen[e]):
                        t = qbuf[e, (qhead[e] + j) % max_queue]
                        if state[t] == QUEUED:
                            w += task_bits[t] / rbar[task_user[t], e]
                    wait_est[e] = w
            phi = np.empty((n_cloudlets, n_req))
            ready_at = np.zeros((n_cloudlets, n_req), dtype=np.bool_)
            prefs = np.full((n_req, n_cloudlets), -1, dtype=np.int64)
            for i in range(n_req):
                u = req_user[i]
                t = req_task[i]
                a = task_type[t]
                bits = task_bits[t]
                for e in range(n_cloudlets):
                    if not covered[u, e]:
                        ukey[e] = np.inf
                        phi[e, i] = -np.inf
                        continue
                    if scheme == BL3:
                        ukey[e] = -rbar[u, e]
                        phi[e, i] = rbar[u, e]
                        continue
                    hit = caching and slot_of[e, a] >= 0 and ready[e, a] <= t0
                    ready_at[e, i] = hit
                    own = kappa * bits / cpu[e] + bits / rbar[u, e]
                    # users see caches only when cache_aware; cloudlets know their own
                    ukey[e] = tau_ep if hit and cache_aware else own + tau_ep
                    if hit:
                        phi[e, i] = budget - tau_ep
                    else:
                        phi[e, i] = budget - own - wait_est[e] - tau_ep
                stable_order(ukey, n_cloudlets, e_order)
                k = 0
                for j in range(n_cloudlets):
                    e = e_order[j]
                    if covered[u, e]:
                        prefs[i, k] = e
                        k += 1
            rprefs = np.full((n_cloudlets, n_req), -1, dtype=np.int64)
            for e in range(n_cloudlets):
                for i in range(n_req):
                    neg[i] = -phi[e, i]
                stable_order(neg, n_req, u_order)
                k = 0
                for j in range(n_req):
                    i = u_order[j]
                    if covered[req_user[i], e]:
                        rprefs[e, k] = i
                        k += 1
            # 3. matching (+ hedge rounds)
            first = deferred_acceptance_kernel(prefs, rprefs, caps)
            flags = np.zeros(n_req, dtype=np.bool_)
            any_flag = False
            if hedging:
                for i in range(n_req):
                    e = first[i]
                    if e >= 0 and not ready_at[e, i] and phi[e, i] < 0.0:
                        flags[i] = True
                        any_flag = True
            if any_flag:
                hprefs = prefs
                if hedge_check:
                    hprefs = np.full((n_req, n_cloudlets), -1, dtype=np.int64)
                    for i in range(n_req):
                        if not flags[i]:
                            continue
                        k = 0
                        for j in range(n_cloudlets):
                            e = prefs[i, j]
                            if e < 0:
                                break
                            if phi[e, i] >= 0.0:
                                hprefs[i, k] = e
                                k += 1
                matched = hedge_rounds_kernel(first, hprefs, rprefs, caps, flags, x_max)
            else:
                matched = np.full((n_req, 1), -1, dtype=np.int64)
                for i in range(n_req):
                    matched[i, 0] = first[i]
            # 4. cache hits and queueing
            for i in range(n_req):
                e0 = matched[i, 0]
                if e0 < 0:
                    counters[UNMATCHED_REQUESTS] += 1
                    continue
                counters[MATCHED_REQUESTS] += 1
                u = req_user[i]
                t = req_task[i]
                head[u] += 1
                for j in range(matched.shape[1]):
                    e = matched[i, j]
                    if e >= 0 and ready_at[e, i]:
                        e0 = e
                        break
                if ready_at[e0, i]:
                    _cache_request(e0, task_type[t], policy, clock, caches, storage, cache_rank)
                    cache_seq[t] = clock
                    cache_hit[t] = True
                    clock += 1
                    from_cache[t] = True
                    server[t] = e0
                    done_time[t] = t0 + tau_ep
                    state[t] = DONE
                    counters[FROM_CACHE] += 1
                    counters[TASKS_DONE] += 1
                    continue
                state[t] = QUEUED
                only = -1
                if least_wait:
                    for j in range(matched.shape[1]):
                        e = matched[i, j]
                        if e >= 0 and (only < 0 or wait_est[e] < wait_est[only]):
                            only = e
                c = 0
                for j in range(matched.shape[1]):
                    e = matched[i, j]
                    if e < 0 or (only >= 0 and e != only):
                        continue
                    if qlen[e] >= max_queue:
                        counters[STATUS] = QUEUE_OVERFLOW
                        counters[SLOTS_RUN] = s + 1
                        return out
                    qbuf[e, (qhead[e] + qlen[e]) % max_queue] = t
                    qlen[e] += 1
                    c += 1
                copies[t] = c
                counters[COPIES] += c
                if c > 1:
                    counters[HEDGED_TASKS] += 1
        # 5. uploads start at idle cloudlets. A free user whose live copies head several
        # idle queues (a hedged request whose cloudlets free in the same slot) uploads to
        # the one it prefers by its own delay (eq. 14); the losers look again.
        started = True
        while started:
            started = False
            pick_e[:] = -1
            for e in range(n_cloudlets):
                if up_task[e] >= 0:
                    continue
                while qlen[e] > 0 and state[qbuf[e, qhead[e]]] != QUEUED:
                    qhead[e] = (qhead[e] + 1) % max_queue  # withdrawn: a copy started first
                    qlen[e] -= 1
                    counters[WITHDRAWN] += 1
                if qlen[e] == 0:
                    continue
                t = qbuf[e, qhead[e]]
                u = task_user[t]
                if user_busy[u]:
                    continue
                own = kappa * task_bits[t] / cpu[e] + task_bits[t] / rbar[u, e]
                if pick_e[u] < 0 or own < pick_key[u]:
                    pick_e[u] = e
                    pick_key[u] = own
            for u in range(n_users):
                e = pick_e[u]
                if e < 0:
                    continue
                t = qbuf[e, qhead[e]]
                qhead[e] = (qhead[e] + 1) % max_queue
                qlen[e] -= 1
                state[t] = UPLOADING
                upload_start[t] = t0
                server[t] = e
                up_task[e] = t
                user_busy[u] = True
                started = True
                counters[UPLOADS] += 1
                a = task_type[t]
                if caching and cacheable[a]:
                    held = _cache_request(e, a, policy, clock, caches, storage, cache_rank)
                    cache_seq[t] = clock
                    cache_hit[t] = held
                    clock += 1
                    if held:
                        counters[PENDING_HITS] += 1
        # 6. radio: fading, rates of the transmitting users, upload progress
        serving[:] = -1
        for e in range(n_cloudlets):
            if up_task[e] >= 0:
                serving[task_user[up_task[e]]] = e
        if fading:
            fade(gain, path_gain, rng_state, table, user_jump, starts)
        # received power at every cloudlet, summed once for the rates and the estimates
        received[:] = 0.0
        any_serving = False
        for v in range(n_users):
            if serving[v] >= 0:
                any_serving = True
                for e in range(n_cloudlets):
                    received[e] += gain[v, e] * power[v]
        if any_serving:  # eq. 2, as workbench.kernels.radio.uplink_rate_kernel
            for e in range(n_cloudlets):
                t = up_task[e]
                if t >= 0:
                    u = task_user[t]
                    own = gain[u, e] * power[u]
                    interference = received[e] - own
                    if interference < 0.0:
                        interference = 0.0
                    rates[u] = bandwidth * np.log2(1.0 + own / (noise_w + interference))
        for e in range(n_cloudlets):
            t = up_task[e]
            if t < 0:
                continue
            u = task_user[t]
            r = rates[u]
            progress = r * slot
            if left[t] <= progress:  # a task with nothing left ends at once, even at r = 0
                finish = t0 + left[t] / r if left[t] > 0.0 else t0
                upload_end[t] = finish
                left[t] = 0.0
                start = cpu_free[e] if cpu_free[e] > finish else finish
                cpu_free[e] = start + kappa * task_bits[t] / cpu[e]
                done_time[t] = cpu_free[e] + tau_ep
                state[t] = DONE
                counters[TASKS_DONE] += 1
                user_busy[u] = False
                up_task[e] = -1
                a = task_type[t]
                if caching and slot_of[e, a] >= 0 and ready[e, a] > cpu_free[e]:
                    ready[e, a] = cpu_free[e]
            else:
                left[t] -= progress
        # 7. rate estimates, eq. 10 with nu = 1 / (number of observations): every covered
        # link's SINR, then their logarithms in one vectorised pass (log1p_many)
        nu = 1.0 / (s + 1)
        keep = 1.0 - nu
        for e in range(n_cloudlets):
            den[e] = noise_w + received[e]  # a silent user's interference: all received
        for u in range(n_users):
            pu = power[u]
            if serving[u] >= 0:
                for k in range(link_start[u], link_start[u + 1]):
                    e = link_e[k]
                    own = gain[u, e] * pu
                    interference = received[e] - own
                    if interference < 0.0:
                        interference = 0.0
                    sinr[k] = own / (noise_w + interference)
            else:
                for k in range(link_start[u], link_start[u + 1]):
                    e = link_e[k]
                    sinr[k] = gain[u, e] * pu / den[e]
        log1p_many(sinr, n_links, logs, log_variant)
        for u in range(n_users):
            for k in range(link_start[u], link_start[u + 1]):
                e = link_e[k]
                r = bandwidth * logs[k] / _LN2
                rbar[u, e] = nu * r + keep * rbar[u, e]
        s += 1
    counters[SLOTS_RUN] = s
    if counters[TASKS_DONE] < n:
        counters[STATUS] = NOT_DRAINED
    else:  # every task is done: copies still queued are withdrawn ones, never popped
        for e in range(n_cloudlets):
            counters[WITHDRAWN] += qlen[e]
    return out
