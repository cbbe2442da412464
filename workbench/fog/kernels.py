"""Compiled kernels of the fog offloading simulator (plain arrays in, plain arrays out).

:func:`simulate_network` is the discrete-event loop of the IoT–fog–cloud network. It holds
no randomness: the caller draws every random input per request (generation time, origin,
type, route, an Exp(1) work draw, a uniform for the cloud unit and one for the queue
choice), so the same inputs drive the kernel and its slow twin in ``tests/naive_fog.py``
request by request.

Events at equal times run in the order they were scheduled (a sequence number breaks ties);
a generated request at the same instant as a scheduled event runs after it. Only the fog
layer goes through the event queue: local requests are finished up front; arrivals from
IoT nodes at their fog node form a second stream, sorted once (generation time + uplink)
and merged with the queue under the same tie rule; cloud arrivals are recorded and the
cloud's FIFO units are run after the loop in arrival order (nothing in the cloud acts back
on the fog layer). The result is the same, request by request, as one event queue for all
(``tests/naive_fog.py``). An announcement
is not an event at its receiver: it waits on the receiving table entry with its arrival
time and is applied when that entry is next read (an arrival at the reading instant
counts as received).

Fog node j (one server): an arriving request of type c is accepted when the estimated
waiting time W = cnt_L·z_L + cnt_H·z_H (requests in the node times EWMA estimates) is below
θ_j; otherwise it is forwarded to the neighbour e minimising table[e] + X_e (announced W
plus half the round trip) while it has been forwarded fewer than e_M times, else sent to
the fog node's cloud. The next request served is the oldest (q = 0.5, FIFO) or, for
q ≠ 0.5, a Light one with probability q·w_L/(q·w_L + (1−q)·w_H) (w: waiting counts), FIFO
within a type. After each service z_c ← (1−α)·z_c + α·(measured time).

Cloud server k: m_k FIFO units; a request joins unit ⌊u·m_k⌋ (uniform placement, as the
model's m_k independent M/G/1 units assume).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III (policy, Reachability table, EWMA W),
Sec. IV-K (cloud units).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from workbench.kernels.events import heap_pop, heap_push, new_heap

__all__ = [
    "path_inverse_rates",
    "simulate_network",
    "Outcome",
    "TIER_FOG",
    "ROUTE_LOCAL",
    "ROUTE_FOG",
    "ROUTE_CLOUD",
]

TIER_IOT, TIER_FOG, TIER_CLOUD = 0, 1, 2
ROUTE_LOCAL, ROUTE_FOG, ROUTE_CLOUD = 0, 1, 2
MODE_DISTRIBUTED, MODE_CENTRAL, MODE_ORACLE = 0, 1, 2
POLICY_OFFLOAD, POLICY_NO_OFFLOAD, POLICY_ALL_CLOUD, POLICY_LIGHT_ONLY = 0, 1, 2, 3

K_FOG_ARRIVE, K_FOG_DONE, K_ANNOUNCE = 0, 1, 3


@njit(cache=True)
def path_inverse_rates(dist, pred, inv_edge):
    """Σ 1/R along each shortest path, from Dijkstra's predecessors (one row per source).

    Nodes are visited in order of distance, so a node's predecessor is done before it.
    """
    n = dist.shape[0]
    out = np.zeros((n, n))
    for s in range(n):
        order = np.argsort(dist[s])
        for v in order:
            p = pred[s, v]
            if p >= 0:
                out[s, v] = out[s, p] + inv_edge[p, v]
    return out


# ------------------------------------------------------------------------ event queue
# The shared event queue of workbench.kernels.events: a (time, seq) min-heap whose entries
# carry ``kind`` (K_*), ``arg`` (the request and the fog node packed by _pack) and ``value``
# (when the event was scheduled). It is sized once for the most events that can be pending
# (one per request plus one announcement per node): an array reassigned inside the event
# loop costs numba two atomic reference-count updates per array per event.

_NODE_BITS = 22  # up to 4,194,304 fog nodes; the request index takes the bits above


@njit(cache=True, inline="always")
def _pack(r, j):
    return (r << _NODE_BITS) | j


@njit(cache=True)
def _stable_order(keys, count):
    """Stable argsort of keys[:count]; fast when they are nearly sorted (they are here).

    Insertion sort while the moves stay within 16 per element, else a merge sort: linear
    on streams whose disorder is a few link delays' worth of requests, never quadratic.
    """
    order = np.arange(count)
    budget = 16 * count + 64
    for a in range(1, count):
        idx = order[a]
        key = keys[idx]
        b = a
        while b > 0 and keys[order[b - 1]] > key:
            order[b] = order[b - 1]
            b -= 1
        order[b] = idx
        budget -= a - b
        if budget < 0:
            return np.argsort(keys[:count], kind="mergesort")
    return order


@njit(cache=True)
def _merge_orders(keys, first, second):
    """Merge two orders of ``keys`` (each sorted) into one, ``first`` winning ties."""
    out = np.empty(first.size + second.size, np.int64)
    a = b = 0
    for k in range(out.size):
        if b >= second.size or (a < first.size and keys[first[a]] <= keys[second[b]]):
            out[k] = first[a]
            a += 1
        else:
            out[k] = second[b]
            b += 1
    return out


@njit(cache=True)
def _sent_later(a, b, cl_sent, n_direct):
    """Whether cloud record a was scheduled after record b (records < n_direct: generations)."""
    if cl_sent[a] != cl_sent[b]:
        return cl_sent[a] > cl_sent[b]
    a_gen, b_gen = a < n_direct, b < n_direct
    if a_gen != b_gen:
        return a_gen  # at one instant, events run before generations
    return a > b


# ------------------------------------------------------------------------ the network


@njit(cache=True)
def _ewma_tick(j, now, z, z_sum, z_cnt, z_next, alpha, period):
    """Periodic EWMA of node j: apply the update of every period boundary passed by ``now``.

    Called before node j's estimate is read or a measurement is added, so a measurement
    counts in the period it was taken in; after quiet periods (nothing measured) only the
    boundary of the last measured period changes z.
    """
    if now < z_next[j]:
        return
    for c in range(2):
        if z_cnt[j, c] > 0:
            z[j, c] = (1.0 - alpha) * z[j, c] + alpha * z_sum[j, c] / z_cnt[j, c]
            z_sum[j, c] = 0.0
            z_cnt[j, c] = 0
    z_next[j] += period * (math.floor((now - z_next[j]) / period) + 1.0)


@njit(cache=True)
def _apply_due(e, now, table, pend_t, pend_v, pend_head, pend_len):
    """Apply the announcements that reached table entry ``e`` by ``now`` (oldest first)."""
    n_pend = pend_t.shape[1]
    while pend_len[e] > 0 and pend_t[e, pend_head[e]] <= now:
        table[e] = pend_v[e, pend_head[e]]
        pend_head[e] = pend_head[e] + 1 if pend_head[e] + 1 < n_pend else 0
        pend_len[e] -= 1


class Requests(NamedTuple):
    """The pre-drawn requests (arrays over requests, in generation order)."""

    gen_time: np.ndarray
    origin: np.ndarray  # int64: the IoT node
    rtype: np.ndarray  # int64: 0 light, 1 heavy
    route: np.ndarray  # int64: ROUTE_*
    work: np.ndarray  # work factor of the processing time
    unit_u: np.ndarray  # U(0,1): which cloud unit serves it
    select_u: np.ndarray  # U(0,1): the q-fair pick between the two queues
    announce_phase: np.ndarray  # over fog nodes: first announcement time


class Network(NamedTuple):
    """The compiled scenario: each field is the :class:`workbench.fog.scenario.Compiled`
    attribute of that name."""

    iot_fog: np.ndarray
    iot_prop: np.ndarray
    iot_inv: np.ndarray
    iot_local_mean: np.ndarray
    nbr_ptr: np.ndarray
    nbr_idx: np.ndarray
    nbr_prop: np.ndarray
    nbr_inv: np.ndarray
    nbr_rev: np.ndarray
    ff_prop: np.ndarray
    ff_inv: np.ndarray
    fog_cloud: np.ndarray
    fc_prop: np.ndarray
    fc_inv: np.ndarray
    cf_prop: np.ndarray
    cf_inv: np.ndarray
    fog_mean: np.ndarray  # (fog nodes, 2): mean processing time per type
    cloud_mean: np.ndarray
    unit_ptr: np.ndarray
    size_bits: np.ndarray


class Policy(NamedTuple):
    """The offloading policy and the run's settings (scalars but ``theta``)."""

    theta: np.ndarray  # θ per fog node
    e_max: int
    q: float
    alpha: float
    mode: int  # MODE_*
    policy: int  # POLICY_*
    announce_period: float
    central: int  # the Central Node (mode "central")
    ewma_period: float
    max_events: int


class Outcome(NamedTuple):
    """What :func:`simulate_network` returns: one run's per-request records and node totals.

    Parameters
    ----------
    tier, place, hops : ndarray of int64, shape (n,)
        Where each request was served (TIER_IOT/FOG/CLOUD, the node's index) and its
        fog-to-fog forwards.
    t_done : ndarray of float64, shape (n,)
        Completion time, back at the IoT node [s].
    d_up, d_fwd, d_fc, d_wait, d_proc, d_back : ndarray of float64, shape (n,)
        The delay components [s]: IoT uplink, fog-to-fog transfers, fog-to-cloud transfer,
        queueing, processing, return.
    fog_busy, fog_area : ndarray of float64, shape (n_fog,)
        Busy time [s] and ∫ (requests in node) dt.
    fog_arrivals, fog_accepted : ndarray of int64, shape (n_fog,)
        Arrivals (first or forwarded) and acceptances.
    unit_busy : ndarray of float64, shape (total cloud units,)
        Busy time of each cloud processing unit [s].
    unit_served : ndarray of int64, shape (total cloud units,)
        Requests each unit served.
    horizon : float
        Time of the last event [s].
    events : int
        Events the loop processed (> ``max_events``: stopped early, results incomplete).
    """

    tier: np.ndarray
    place: np.ndarray
    hops: np.ndarray
    t_done: np.ndarray
    d_up: np.ndarray
    d_fwd: np.ndarray
    d_fc: np.ndarray
    d_wait: np.ndarray
    d_proc: np.ndarray
    d_back: np.ndarray
    fog_busy: np.ndarray
    fog_area: np.ndarray
    fog_arrivals: np.ndarray
    fog_accepted: np.ndarray
    unit_busy: np.ndarray
    unit_served: np.ndarray
    horizon: float
    events: int


@njit(cache=True)
def simulate_network(requests, network, settings):
    """Run the network on pre-drawn requests; return per-request records and node totals.

    The inputs come as three named records: :class:`Requests`, :class:`Network` and
    :class:`Policy` (built by :func:`workbench.fog.simulation.kernel_arguments`).

    ``ewma_period`` chooses the reading of the EWMA z ← (1−α)z + α·new_z: 0 updates it at
    every departure with that request's processing time; T > 0 updates it every T (on the
    grid T, 2T, ...) with new_z the mean processing time of the requests of that type
    processed in the last period (no update for a type with none), as the paper's
    "periodically measures processing times of recently processed tasks" reads. The loop
    stops after ``max_events`` events (the caller's bound, computed from the inputs): the
    returned event count then exceeds it and the caller reports the run as over budget.

    Returns
    -------
    Outcome
        The per-request records and the node totals, by name.
    """
    gen_time, origin, rtype, route, work, unit_u, select_u, announce_phase = requests
    iot_fog, iot_prop, iot_inv, iot_local_mean, nbr_ptr, nbr_idx, nbr_prop = network[:7]
    nbr_inv, nbr_rev, ff_prop, ff_inv, fog_cloud, fc_prop, fc_inv = network[7:14]
    cf_prop, cf_inv, fog_mean, cloud_mean, unit_ptr, size_bits = network[14:]
    theta, e_max, q, alpha, mode, policy, announce_period = settings[:7]
    central, ewma_period, max_events = settings[7:]
    n = gen_time.size
    nf = fog_mean.shape[0]
    n_units = unit_ptr[-1]
    if nf >= 1 << _NODE_BITS:
        raise ValueError("simulate_network: more fog nodes than an event code can hold")

    tier = np.full(n, -1, np.int64)
    place = np.full(n, -1, np.int64)
    hops = np.zeros(n, np.int64)
    t_done = np.zeros(n)
    d_up = np.zeros(n)
    d_fwd = np.zeros(n)
    d_fc = np.zeros(n)
    d_wait = np.zeros(n)
    d_proc = np.zeros(n)
    d_back = np.zeros(n)
    t_join = np.zeros(n)
    nxt = np.full(n, -1, np.int64)

    cnt = np.zeros((nf, 2), np.int64)
    z = fog_mean.copy()  # EWMA estimates start at the true means
    z_sum = np.zeros((nf, 2))  # periodic reading: processing times measured this period
    z_cnt = np.zeros((nf, 2), np.int64)
    z_next = np.full(nf, ewma_period)
    head = np.full((nf, 2), -1, np.int64)
    tail = np.full((nf, 2), -1, np.int64)
    serving = np.full(nf, -1, np.int64)
    last = np.zeros(nf)
    fog_busy = np.zeros(nf)
    fog_area = np.zeros(nf)
    fog_arrivals = np.zeros(nf, np.int64)
    fog_accepted = np.zeros(nf, np.int64)
    table = np.zeros(nbr_idx.size)
    # announcements in flight on each table entry (arrival time, value), applied when the
    # table is read or a newer one is sent: no event per delivered announcement
    msg_delay = np.empty(nbr_idx.size)
    for j in range(nf):
        for e in range(nbr_ptr[j], nbr_ptr[j + 1]):
            if mode == MODE_CENTRAL:
                msg_delay[e] = ff_prop[j, central] + ff_prop[central, nbr_idx[e]]
            else:
                msg_delay[e] = nbr_prop[e]
    longest = msg_delay.max() if msg_delay.size else 0.0
    n_pend = int(longest / announce_period) + 2
    pend_t = np.zeros((nbr_idx.size, n_pend))
    pend_v = np.zeros((nbr_idx.size, n_pend))
    pend_head = np.zeros(nbr_idx.size, np.int64)
    pend_len = np.zeros(nbr_idx.size, np.int64)
    unit_free = np.zeros(n_units)
    unit_busy = np.zeros(n_units)
    unit_served = np.zeros(n_units, np.int64)
    # cloud arrivals never act on the fog layer: recorded with the time they were sent,
    # then served after the loop in the order an event queue would give them
    cl_time = np.empty(n)
    cl_sent = np.empty(n)
    cl_req = np.empty(n, np.int64)
    cl_server = np.empty(n, np.int64)
    n_cl = 0

    # requests the event loop does not need: local ones (done here), those sent straight to
    # the cloud (recorded), and direct fog arrivals as a stream sorted by arrival time
    dir_time = np.empty(n)
    dir_req = np.empty(n, np.int64)
    n_dir = 0
    for r in range(n):
        i = origin[r]
        c = rtype[r]
        if route[r] == ROUTE_LOCAL:
            d_proc[r] = work[r] * iot_local_mean[i, c]
            t_done[r] = gen_time[r] + d_proc[r]
            tier[r] = TIER_IOT
            place[r] = i
            continue
        sz = size_bits[c]
        j = iot_fog[i]
        d_up[r] = iot_prop[i] + sz * iot_inv[i]
        if route[r] == ROUTE_FOG:
            dir_time[n_dir] = gen_time[r] + d_up[r]
            dir_req[n_dir] = r
            n_dir += 1
        else:
            d_fc[r] = fc_prop[j] + sz * fc_inv[j]
            cl_time[n_cl] = gen_time[r] + d_up[r] + d_fc[r]
            cl_sent[n_cl] = gen_time[r]
            cl_req[n_cl] = r
            cl_server[n_cl] = fog_cloud[j]
            n_cl += 1
    n_cl_direct = n_cl
    dir_order = _stable_order(dir_time, n_dir)  # ties: generation order

    cap = n + nf + 1  # at most one pending event per request, one announcement per node
    ev = new_heap(cap)
    size = 0
    seq = 0

    if mode != MODE_ORACLE and policy == POLICY_OFFLOAD and e_max > 0:
        for j in range(nf):
            size = heap_push(ev, size, announce_phase[j], seq, K_ANNOUNCE, _pack(0, j), 0.0)
            seq += 1

    d = 0
    outstanding = 0
    now = 0.0
    events = 0
    while d < n_dir or outstanding > 0:
        events += 1
        if events > max_events:
            break
        # the next direct arrival runs before the queue's earliest event if it is earlier,
        # or at the same time but sent earlier (an event queue's scheduling order: a request
        # generated at t is scheduled after the events already due at t)
        take_direct = False
        if d < n_dir:
            r = dir_req[dir_order[d]]
            t_dir = dir_time[dir_order[d]]
            take_direct = size == 0 or t_dir < ev.time[0]
            if not take_direct and t_dir == ev.time[0]:
                take_direct = gen_time[r] < ev.value[0]
        if take_direct:
            d += 1
            now = t_dir
            j = iot_fog[origin[r]]
            outstanding += 1
            kind = K_FOG_ARRIVE
        else:
            now, kind, code = ev.time[0], ev.kind[0], ev.arg[0]
            size = heap_pop(ev, size)
            j = code & ((1 << _NODE_BITS) - 1)
            r = code >> _NODE_BITS

        if ewma_period > 0.0:
            _ewma_tick(j, now, z, z_sum, z_cnt, z_next, alpha, ewma_period)
        if kind == K_FOG_ARRIVE:
            c = rtype[r]
            sz = size_bits[c]
            fog_arrivals[j] += 1
            if policy == POLICY_OFFLOAD:
                w_est = cnt[j, 0] * z[j, 0] + cnt[j, 1] * z[j, 1]
                accept = w_est < theta[j]
            elif policy == POLICY_NO_OFFLOAD:
                accept = True
            elif policy == POLICY_ALL_CLOUD:
                accept = False
            else:
                accept = c == 0
            if accept:
                fog_accepted[j] += 1
                fog_area[j] += (cnt[j, 0] + cnt[j, 1]) * (now - last[j])
                last[j] = now
                cnt[j, c] += 1
                t_join[r] = now
                if serving[j] < 0:
                    serving[j] = r
                    d_proc[r] = work[r] * fog_mean[j, c]
                    size = heap_push(ev, size, now + d_proc[r], seq, K_FOG_DONE, _pack(r, j), now)
                    seq += 1
                else:
                    if tail[j, c] < 0:
                        head[j, c] = r
                    else:
                        nxt[tail[j, c]] = r
                    tail[j, c] = r
                continue
            s0, s1 = nbr_ptr[j], nbr_ptr[j + 1]
            if policy == POLICY_OFFLOAD and hops[r] < e_max and s1 > s0:
                best = -1
                best_cost = np.inf
                for e in range(s0, s1):
                    _apply_due(e, now, table, pend_t, pend_v, pend_head, pend_len)
                    if mode == MODE_ORACLE:
                        m = nbr_idx[e]
                        if ewma_period > 0.0:
                            _ewma_tick(m, now, z, z_sum, z_cnt, z_next, alpha, ewma_period)
                        seen = cnt[m, 0] * z[m, 0] + cnt[m, 1] * z[m, 1]
                    else:
                        seen = table[e]
                    cost = seen + nbr_prop[e]
                    if cost < best_cost:
                        best_cost = cost
                        best = e
                hops[r] += 1
                delay = nbr_prop[best] + sz * nbr_inv[best]
                d_fwd[r] += delay
                size = heap_push(
                    ev, size, now + delay, seq, K_FOG_ARRIVE, _pack(r, nbr_idx[best]), now
                )
                seq += 1
            else:
                d_fc[r] = fc_prop[j] + sz * fc_inv[j]
                cl_time[n_cl] = now + d_fc[r]
                cl_sent[n_cl] = now
                cl_req[n_cl] = r
                cl_server[n_cl] = fog_cloud[j]
                n_cl += 1
                outstanding -= 1

        elif kind == K_FOG_DONE:
            c = rtype[r]
            sz = size_bits[c]
            fog_area[j] += (cnt[j, 0] + cnt[j, 1]) * (now - last[j])
            last[j] = now
            cnt[j, c] -= 1
            fog_busy[j] += d_proc[r]
            if ewma_period > 0.0:
                z_sum[j, c] += d_proc[r]
                z_cnt[j, c] += 1
            else:
                z[j, c] = (1.0 - alpha) * z[j, c] + alpha * d_proc[r]
            i = origin[r]
            f = iot_fog[i]
            d_back[r] = ff_prop[j, f] + sz * ff_inv[j, f] + iot_prop[i] + sz * iot_inv[i]
            t_done[r] = now + d_back[r]
            tier[r] = TIER_FOG
            place[r] = j
            outstanding -= 1
            serving[j] = -1
            h0, h1 = head[j, 0], head[j, 1]
            if h0 >= 0 or h1 >= 0:
                if h1 < 0:
                    pick = 0
                elif h0 < 0:
                    pick = 1
                elif q == 0.5:
                    pick = 0 if t_join[h0] <= t_join[h1] else 1
                else:
                    wl, wh = cnt[j, 0], cnt[j, 1]
                    share = q * wl / (q * wl + (1.0 - q) * wh)
                    pick = 0 if select_u[r] < share else 1
                nr = head[j, pick]
                head[j, pick] = nxt[nr]
                if head[j, pick] < 0:
                    tail[j, pick] = -1
                serving[j] = nr
                d_wait[nr] = now - t_join[nr]
                d_proc[nr] = work[nr] * fog_mean[j, pick]
                size = heap_push(ev, size, now + d_proc[nr], seq, K_FOG_DONE, _pack(nr, j), now)
                seq += 1

        else:  # K_ANNOUNCE of node j
            w_est = cnt[j, 0] * z[j, 0] + cnt[j, 1] * z[j, 1]
            for e in range(nbr_ptr[j], nbr_ptr[j + 1]):
                back = nbr_rev[e]
                _apply_due(back, now, table, pend_t, pend_v, pend_head, pend_len)
                k = pend_head[back] + pend_len[back]
                if k >= n_pend:
                    k -= n_pend
                pend_t[back, k] = now + msg_delay[e]
                pend_v[back, k] = w_est
                pend_len[back] += 1
            if d < n_dir or outstanding > 0:
                size = heap_push(ev, size, now + announce_period, seq, K_ANNOUNCE, _pack(0, j), now)
                seq += 1

    for j in range(nf):
        fog_area[j] += (cnt[j, 0] + cnt[j, 1]) * (now - last[j])

    if n > 0:
        now = max(now, gen_time[n - 1])  # the horizon counts the last generation too
    # the cloud: FIFO units in arrival order; equal arrival times in the order an event
    # queue would have scheduled them (sent earlier first; at the same sending time, sent
    # by an event before sent at a generation; then in sending order)
    order = _merge_orders(
        cl_time,
        _stable_order(cl_time, n_cl_direct),
        n_cl_direct + _stable_order(cl_time[n_cl_direct:], n_cl - n_cl_direct),
    )  # two nearly sorted groups: sent at generation, sent by fog nodes
    start_run = 0
    while start_run < n_cl:
        end_run = start_run + 1
        while end_run < n_cl and cl_time[order[end_run]] == cl_time[order[start_run]]:
            end_run += 1
        for a in range(start_run + 1, end_run):  # insertion sort of a (rare) tie run
            b = a
            while b > start_run and _sent_later(order[b - 1], order[b], cl_sent, n_cl_direct):
                order[b - 1], order[b] = order[b], order[b - 1]
                b -= 1
        start_run = end_run
    for o in order:
        t_arr = cl_time[o]
        r = cl_req[o]
        k = cl_server[o]
        c = rtype[r]
        sz = size_bits[c]
        m_k = unit_ptr[k + 1] - unit_ptr[k]
        u = unit_ptr[k] + min(int(unit_u[r] * m_k), m_k - 1)
        start = max(t_arr, unit_free[u])
        d_wait[r] = start - t_arr
        d_proc[r] = work[r] * cloud_mean[k, c]
        unit_free[u] = start + d_proc[r]
        unit_busy[u] += d_proc[r]
        unit_served[u] += 1
        i = origin[r]
        f = iot_fog[i]
        d_back[r] = cf_prop[k, f] + sz * cf_inv[k, f] + iot_prop[i] + sz * iot_inv[i]
        t_done[r] = unit_free[u] + d_back[r]
        tier[r] = TIER_CLOUD
        place[r] = k
        now = max(now, t_arr)  # the horizon: the last event, a cloud arrival included
    return Outcome(
        tier,
        place,
        hops,
        t_done,
        d_up,
        d_fwd,
        d_fc,
        d_wait,
        d_proc,
        d_back,
        fog_busy,
        fog_area,
        fog_arrivals,
        fog_accepted,
        unit_busy,
        unit_served,
        now,
        events,
    )
