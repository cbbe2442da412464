"""The discrete-event kernel of the edge hierarchy (numba, plain arrays in and out).

Servers ``0..n-1`` form a tree given by ``parent`` (``-1`` at the centre). Each server has
one FIFO queue and one worker of speed ``compute[s]`` (work units per second); the link
from ``s`` up to ``parent[s]`` carries ``bandwidth[s]`` Mbit/s, and a transfer of ``B``
Mbit takes ``B / bandwidth[s]`` (links are pure delays: no queueing on links). Tasks
arrive at their origin at given times with work ``D`` and input data ``B``.

What a server does with a task is switched by flags, so that one kernel runs every
decision model of :mod:`workbench.hierarchy`:

``cloud_forward``
    every task is forwarded up at once, without queueing, until it reaches the centre;
``use_red``
    a RED filter at the entrance (not at the centre: there is nowhere up to go) keeps an
    EWMA of the *expected time to finish the queue* and forwards the arriving task up with
    RED's probability, thresholds scaled by eq. 11;
``overhead``
    at the head of the queue the worker spends ``decision_time`` on the overhead rule
    (eqs. 5, 8, 9) and then executes the task or forwards it up;
``queue_aware``
    the overhead rule's offload time counts the work queued at the next hop (eq. 10);
``down_offload``
    (beyond the paper) at the centre's entrance a task is sent *down* to the child that
    would finish it first, when that beats the centre; it then executes there.

Without ``overhead`` a task that is queued is executed where it is queued.

Event order: the earliest event first; at equal times the event scheduled first
(a sequence number) and events already scheduled before a new generated arrival.

References
----------
Yin, Chen, Hu, "An advanced decision model enabling two-way initiative offloading in edge
computing", Future Generation Computer Systems 90 (2019) 39-48, Sec. 3-4 (eqs. 5-11).
Floyd & Jacobson (1993), RED (Sec. 4).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from workbench.kernels.events import heap_pop, heap_push, new_heap
from workbench.kernels.red import red_drop_probability, red_ewma

# per-server statistics: columns of ``server_stats``
SRV_AREA = 0  # integral of the number of tasks at the server (queued + in service) over time
SRV_BUSY = 1  # worker busy time (decisions + executions)
SRV_EXECUTED = 2  # tasks executed here
SRV_WORK = 3  # work executed here
SRV_ENQUEUED = 4  # tasks that joined the queue
SRV_RED_FORWARDED = 5  # tasks the RED filter forwarded up at the entrance
SRV_DECIDED_UP = 6  # tasks the overhead rule forwarded up from the head of the queue
SRV_SENT_DOWN = 7  # tasks sent down to a child (down_offload)
SRV_END_TIME = 8  # time of the last event (same for every server)
N_SRV_STATS = 9

_ARRIVE = 0
_DONE = 1
_DECIDE = 0
_EXECUTE = 1
_SEND = 2  # the worker hands an offloaded task to the link (offload_busy)

# how a task under decision counts in another server's work ahead (``in_decision``)
IN_DECISION_FULL = 0  # its whole work: it may yet run here (the worst case)
IN_DECISION_ZERO = 1  # nothing: it is no longer queued and may leave
IN_DECISION_REMAINING = 2  # the worker time its decision still takes, in work units


@njit(cache=True)
def _ahead(queued, task, kind, end, now, speed, task_work, in_decision):
    """Work still to do at a server if everything there ran on it: queued + in service.

    ``task`` is the task in service (-1: none), ``kind`` what it is doing, ``end`` when that
    ends, ``task_work`` its work. An execution or a hand-over to the link counts what is left
    of it; a task in its decision counts as ``in_decision`` says (full, zero, or the decision
    time left). Scalars only: an array argument would cost the event loop numba's reference
    counting (an atomic increment and decrement) on every call.
    """
    if task < 0:
        return queued
    if kind != _DECIDE:
        return queued + (end - now) * speed
    if in_decision == IN_DECISION_FULL:
        return queued + task_work
    if in_decision == IN_DECISION_ZERO:
        return queued
    return queued + (end - now) * speed


class Tree(NamedTuple):
    """The servers (arrays over servers): tree, speed, link up, eq. 5/8 weights, power."""

    parent: np.ndarray  # int64: the server above (-1 at the centre)
    compute: np.ndarray  # float64: speed F [work units/s]
    bandwidth: np.ndarray  # float64: bandwidth W of the link up [Mbit/s]
    gamma_t: np.ndarray  # float64: weight of time (eqs. 5, 8)
    gamma_e: np.ndarray  # float64: weight of energy (eqs. 5, 8)
    power: np.ndarray  # float64: transmit power P


class Rules(NamedTuple):
    """The decision model and its parameters (scalars; see the module docstring)."""

    kappa: float  # energy per cycle coefficient: nu_i = kappa F_i^2 (eq. 4)
    cloud_forward: bool
    use_red: bool
    overhead: bool
    queue_aware: bool
    down_offload: bool
    min_th: float  # RED thresholds before eq. 11's scaling
    max_th: float
    max_p: float
    w_q: float
    gentle: bool
    decision_time: float  # worker time of one overhead decision
    in_decision: int  # IN_DECISION_*: how a task under decision counts in the work ahead
    offload_busy: bool  # the worker stays busy while it hands an offloaded task to the link
    eq11_unit: float  # seconds per unit of eq. 11's min(1, t), max(1, t)
    max_events: int  # event budget: the loop stops and returns -1 past it


class Tasks(NamedTuple):
    """The random inputs of one replication (arrays over tasks, sorted by ``arrival``)."""

    arrival: np.ndarray
    origin: np.ndarray  # int64
    work: np.ndarray
    data: np.ndarray
    uniforms: np.ndarray  # (tasks, servers): RED's U(0,1) draw at each visit


class Outcome(NamedTuple):
    """The outputs, filled by the kernel (arrays over tasks; ``server_stats`` over servers)."""

    finish: np.ndarray  # completion time
    exec_server: np.ndarray  # int64: the server that executed the task
    visits: np.ndarray  # int64: servers visited
    wait: np.ndarray  # time queued
    decide: np.ndarray  # time in decisions
    transfer: np.ndarray  # time on links
    red_forwards: np.ndarray  # int64: RED forwards
    went_down: np.ndarray  # int64: 1 if sent down
    server_stats: np.ndarray  # (servers, N_SRV_STATS)


@njit(cache=True)
def simulate_hierarchy(tree, rules, tasks, out):
    """Run every task to completion; fill the per-task arrays and ``server_stats``.

    Parameters
    ----------
    tree : Tree
    rules : Rules
    tasks : Tasks
    out : Outcome
        Filled in place.

    Returns
    -------
    int
        Number of events processed (-1: the event budget ran out).
    """
    parent, compute, bandwidth, gamma_t, gamma_e, power = tree
    kappa, cloud_forward, use_red, overhead, queue_aware, down_offload = rules[:6]
    min_th, max_th, max_p, w_q, gentle = rules[6:11]
    decision_time, in_decision, offload_busy, eq11_unit, max_events = rules[11:]
    arr_time, origin, work, data, uniforms = tasks
    finish, exec_server, visits, wait, decide, transfer = out[:6]
    red_forwards, went_down, server_stats = out[6:]
    n = parent.shape[0]
    m = arr_time.shape[0]
    queued_work = np.zeros(n)
    present_work = np.zeros(n)  # work of every task at the server, in service included
    present = np.zeros(n, dtype=np.int64)
    q_head = np.full(n, -1, dtype=np.int64)
    q_tail = np.full(n, -1, dtype=np.int64)
    nxt = np.full(m, -1, dtype=np.int64)
    svc_task = np.full(n, -1, dtype=np.int64)
    svc_kind = np.zeros(n, dtype=np.int64)
    svc_end = np.zeros(n)
    red_avg = np.zeros(n)
    red_count = np.full(n, -1, dtype=np.int64)
    last_change = np.zeros(n)
    location = np.full(m, -1, dtype=np.int64)
    enqueued_at = np.zeros(m)
    pinned = np.zeros(m, dtype=np.bool_)

    def ahead_at(t, now):
        """:func:`_ahead` of server ``t``'s queue and worker."""
        return _ahead(
            queued_work[t],
            svc_task[t],
            svc_kind[t],
            svc_end[t],
            now,
            compute[t],
            work[max(svc_task[t], 0)],
            in_decision,
        )

    server_stats[:, :] = 0.0
    finish[:] = np.nan
    exec_server[:] = -1
    visits[:] = 0
    wait[:] = 0.0
    decide[:] = 0.0
    transfer[:] = 0.0
    red_forwards[:] = 0
    went_down[:] = 0

    cap = m + n + 1
    ev = new_heap(cap)
    size = 0
    seq = 0
    g = 0
    events = 0
    now = 0.0

    while True:
        from_generator = g < m and (size == 0 or arr_time[g] < ev.time[0])
        if not from_generator and size == 0:
            break
        events += 1
        if events > max_events:
            return -1
        if from_generator:
            k = g
            g += 1
            now = arr_time[k]
            s = origin[k]
            kind = _ARRIVE
        else:
            now, kind, arg = ev.time[0], ev.kind[0], ev.arg[0]
            size = heap_pop(ev, size)
            if kind == _ARRIVE:
                k = arg
                s = location[k]
            else:
                s = arg
                k = svc_task[s]

        start_worker = False
        if kind == _ARRIVE:
            visits[k] += 1
            location[k] = s
            up = parent[s]
            dest = -1  # the server the task is sent to (-1: it joins the queue here)
            if pinned[k]:
                pass
            elif cloud_forward and up >= 0:
                dest = up
            elif use_red and up >= 0:
                ahead = ahead_at(s, now)
                red_avg[s] = red_ewma(red_avg[s], ahead / compute[s], w_q)
                # eq. 11: thresholds in seconds, scaled by the mean execution time queued
                if present[s] > 0:
                    t_exe = present_work[s] / present[s] / compute[s]
                else:
                    t_exe = work[k] / compute[s]
                t_exe /= eq11_unit
                lo = min(1.0, t_exe) * min_th * eq11_unit
                hi = max(1.0, t_exe) * max_th * eq11_unit
                if red_avg[s] >= lo:
                    red_count[s] += 1
                    p = red_drop_probability(red_avg[s], lo, hi, max_p, red_count[s], gentle)
                    if uniforms[k, visits[k] - 1] < p:
                        dest = up
                        red_count[s] = 0
                        red_forwards[k] += 1
                        server_stats[s, SRV_RED_FORWARDED] += 1.0
                else:
                    red_count[s] = -1
            elif down_offload and up < 0:
                ahead = ahead_at(s, now)
                best = (ahead + work[k]) / compute[s]
                for c in range(n):
                    if parent[c] == s:
                        ahead_c = ahead_at(c, now)
                        t_c = data[k] / bandwidth[c] + (ahead_c + work[k]) / compute[c]
                        if t_c < best:
                            best = t_c
                            dest = c
                if dest >= 0:
                    pinned[k] = True
                    went_down[k] = 1
                    server_stats[s, SRV_SENT_DOWN] += 1.0
            if dest >= 0:
                hop = data[k] / bandwidth[s if dest == up else dest]  # the child's link
                transfer[k] += hop
                location[k] = dest
                size = heap_push(ev, size, now + hop, seq, _ARRIVE, k, 0.0)
                seq += 1
            else:
                server_stats[s, SRV_AREA] += present[s] * (now - last_change[s])
                last_change[s] = now
                present[s] += 1
                present_work[s] += work[k]
                queued_work[s] += work[k]
                enqueued_at[k] = now
                server_stats[s, SRV_ENQUEUED] += 1.0
                nxt[k] = -1  # a task queued before elsewhere keeps a stale link
                if q_tail[s] >= 0:
                    nxt[q_tail[s]] = k
                else:
                    q_head[s] = k
                q_tail[s] = k
                start_worker = svc_task[s] < 0
        else:
            # the worker of s finished a decision or an execution
            leave = False
            free = False
            if svc_kind[s] == _SEND:
                free = True
            elif svc_kind[s] == _DECIDE:
                up = parent[s]
                local = (
                    gamma_t[s] * work[k] / compute[s]
                    + gamma_e[s] * kappa * compute[s] ** 2 * work[k]
                )
                hop = data[k] / bandwidth[s]
                ahead = 0.0
                if queue_aware:
                    ahead = ahead_at(up, now)
                offload = (
                    gamma_t[s] * (hop + (work[k] + ahead) / compute[up])
                    + gamma_e[s] * power[s] * hop
                )
                if offload < local:  # eq. 9: ties stay local
                    leave = True
                    server_stats[s, SRV_DECIDED_UP] += 1.0
                    transfer[k] += hop
                    location[k] = up
                    size = heap_push(ev, size, now + hop, seq, _ARRIVE, k, 0.0)
                    seq += 1
                    if offload_busy and hop > 0.0:
                        svc_kind[s] = _SEND
                        svc_end[s] = now + hop
                        server_stats[s, SRV_BUSY] += hop
                        size = heap_push(ev, size, now + hop, seq, _DONE, s, 0.0)
                        seq += 1
                    else:
                        free = True
                else:
                    svc_kind[s] = _EXECUTE
                    exec_server[k] = s
                    svc_end[s] = now + work[k] / compute[s]
                    server_stats[s, SRV_BUSY] += work[k] / compute[s]
                    size = heap_push(ev, size, svc_end[s], seq, _DONE, s, 0.0)
                    seq += 1
            else:
                leave = True
                finish[k] = now
                server_stats[s, SRV_EXECUTED] += 1.0
                server_stats[s, SRV_WORK] += work[k]
                free = True
            if leave:
                server_stats[s, SRV_AREA] += present[s] * (now - last_change[s])
                last_change[s] = now
                present[s] -= 1
                present_work[s] -= work[k]
                if present[s] == 0:
                    present_work[s] = 0.0
            if free:
                svc_task[s] = -1
                start_worker = q_head[s] >= 0

        if start_worker:
            k = q_head[s]
            q_head[s] = nxt[k]
            queued_work[s] -= work[k]
            if q_head[s] < 0:
                q_tail[s] = -1
                queued_work[s] = 0.0  # no rounding drift below an empty queue
            wait[k] += now - enqueued_at[k]
            svc_task[s] = k
            if overhead and parent[s] >= 0 and not pinned[k]:
                svc_kind[s] = _DECIDE
                svc_end[s] = now + decision_time
                decide[k] += decision_time
                server_stats[s, SRV_BUSY] += decision_time
            else:
                svc_kind[s] = _EXECUTE
                exec_server[k] = s
                svc_end[s] = now + work[k] / compute[s]
                server_stats[s, SRV_BUSY] += work[k] / compute[s]
            size = heap_push(ev, size, svc_end[s], seq, _DONE, s, 0.0)
            seq += 1

    for s in range(n):
        server_stats[s, SRV_AREA] += present[s] * (now - last_change[s])
        server_stats[s, SRV_END_TIME] = now
    return events
