"""The arena's compiled engine: one event loop for every policy on every scenario.

The scenario arrives as flat arrays (:class:`Net`, built by :mod:`workbench.arena.compile`),
the random inputs of one replication as :class:`Tasks` (drawn by the caller, so the same
inputs drive this kernel, the slow twin in ``tests/naive_arena.py`` and the SimPy twin in
``benchmarks/bench_arena_simpy.py``), the policy as :class:`Policy` (a code, its parameters
and a user decision function).

Semantics
---------
- Task ``i`` appears at node ``src[i]`` at time ``t[i]``; the policy (see
  :mod:`workbench.arena.policies`) returns up to ``M`` targets and whether the task is
  *placed* there or *forwarded* (the target decides again, one more hop).
- A copy sent from ``a`` to ``b`` travels the path of least delay: it arrives after
  ``delay[a, b] + input_bits * invbw[a, b]`` (propagation plus transmission on every link;
  links are not queues) and costs ``input_bits * epb[a, b]`` J. A zero-time move is
  immediate.
- A node holds at most ``capacity`` copies (servers plus FCFS waiting room). A copy that
  reaches a full node is lost; a task is lost when all its copies are.
- Copy ``j`` of task ``i`` needs ``size[i, j] / speed`` of service (``speed = inf``: none).
  The first copy to finish completes the task (its delay: finish minus ``t[i]``; results
  are not sent back) and cancels the others: a waiting copy leaves its queue, a copy in
  service frees its server, a copy in transit is dropped when it arrives.
- Busy server-time is integrated per node for the energy and the utilisation, between the
  arrival of the first measured task and the arrival of the last one.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from workbench.arena.policies import (
    CAND_FIELDS,
    EXTERNAL,
    P_CANCEL,
    REPLICATE,
    TASK_FIELDS,
    USER_SIG,
    decide,
)
from workbench.kernels.events import (
    EventQueue,
    Lane,
    lane_pop,
    lane_push,
    lane_takes,
    new_lane,
    new_queue,
    queue_before,
    queue_pop,
    queue_push,
)

__all__ = [
    "Net",
    "Tasks",
    "Policy",
    "Pending",
    "STATE_ARRAYS",
    "new_state",
    "loop",
    "engine",
    "BIG",
]

#: "unbounded" for servers and capacities
BIG = 2**40
# copy states
TRANSIT, WAITING, SERVING, DONE, CANCELLED, LOST = 0, 1, 2, 3, 4, 5


class Net(NamedTuple):
    """The scenario as arrays, ``N`` nodes and ``S`` workload entries (made by
    :func:`workbench.arena.compile.compile_scenario`).

    Parameters
    ----------
    servers : int64 (N,)
        Servers per node (:data:`BIG` for ``.inf``).
    capacity : int64 (N,)
        The most copies a node holds, servers plus waiting room (:data:`BIG`: unbounded).
    speed : float64 (N,)
        Work per second of each server (``inf``: no service time).
    power_idle, power_busy : float64 (N,)
        W per idle and per busy server.
    level : int64 (N,)
        The tier: 0 device, 1 edge, 2 fog, 3 cloud.
    nbr_ptr, nbr_idx : int64 (N + 1,) and int64
        Node k's direct neighbours, ``nbr_idx[nbr_ptr[k]:nbr_ptr[k + 1]]``, by link delay.
    delay, invbw, epb : float64 (N, N)
        On the least-delay path between two nodes: propagation delay (s), the sum of
        1 / bandwidth (s/bit) and of the energy per bit (J/bit).
    hops : int64 (N, N)
        Links on that path.
    home : int64 (N,)
        The node itself, or (a node without servers) its nearest serving neighbour.
    parent : int64 (N,)
        The nearest serving neighbour one tier up (-1: none).
    cloud : int
        The cloud node's index (-1: none).
    mean_size : float64 (S,)
        Each workload entry's mean task size.
    size_known : int64 (S,)
        1 where a user policy may see the task's size (set by ``simulate``).
    """

    servers: np.ndarray
    capacity: np.ndarray
    speed: np.ndarray
    power_idle: np.ndarray
    power_busy: np.ndarray
    level: np.ndarray
    nbr_ptr: np.ndarray
    nbr_idx: np.ndarray
    delay: np.ndarray
    invbw: np.ndarray
    epb: np.ndarray
    hops: np.ndarray
    home: np.ndarray
    parent: np.ndarray
    cloud: int
    mean_size: np.ndarray
    size_known: np.ndarray = np.zeros(0, np.int64)


class Tasks(NamedTuple):
    """The random inputs of one replication, ``n`` tasks, ``M`` copies and ``R`` uniforms
    (drawn by :func:`workbench.arena.compile.draw_tasks`).

    Parameters
    ----------
    t : float64 (n,)
        Arrival times (s), non-decreasing.
    node : int64 (n,)
        The node where each task appears.
    source : int64 (n,)
        Its workload entry.
    size : float64 (n, M)
        The work of each copy (s at speed 1).
    bits : float64 (n,)
        Input bits.
    kind : int64 (n,)
        Task type (0: the most popular; -1: untyped).
    u : float64 (n, R)
        Uniforms in [0, 1) for the policy.
    deadline : float64 (n,)
        Relative deadline (s; ``inf``: none), from the scenario or the trace.
    """

    t: np.ndarray
    node: np.ndarray
    source: np.ndarray
    size: np.ndarray
    bits: np.ndarray
    kind: np.ndarray
    u: np.ndarray
    deadline: np.ndarray

    @classmethod
    def zeros(cls, n: int, m: int, r: int, rows: int | None = None) -> Tasks:
        """``n`` tasks of zeros with ``m`` copies and ``r`` uniforms (with ``rows``: that
        many such sets, stacked on a first axis)."""
        lead = (n,) if rows is None else (rows, n)
        f, i = float, np.int64
        kinds = ((f, ()), (i, ()), (i, ()), (f, (m,)), (f, ()), (i, ()), (f, (r,)), (f, ()))
        return cls(*(np.zeros((*lead, *extra), dt) for dt, extra in kinds))


#: the defaults of a built-in policy's user fields (never written: no user code runs)
_NO_F = np.zeros(1)


class Policy(NamedTuple):
    """The policy as the engine takes it.

    Parameters
    ----------
    code : int
        Its engine code (:data:`workbench.arena.policies.CODE`).
    par : float64 (N_PAR,)
        A built-in policy's parameters, in the slots of
        :data:`workbench.arena.policies.SLOTS`.
    upar : float64
        A user policy's declared parameters.
    ustate : float64
        A user policy's own state (the engine updates it).
    err : int64 (4,)
        Written by the engine: ``[kind, task, value, limit]`` of a user policy's invalid
        answer (kind 1: a count outside 1..limit, 2: an index outside the limit
        candidates); ``task`` is also the task being decided when the user's code raised.
    """

    code: int
    par: np.ndarray
    upar: np.ndarray = _NO_F
    ustate: np.ndarray = _NO_F
    err: np.ndarray = np.zeros(4, np.int64)


class Pending(NamedTuple):
    """The pending events, on the shared queue of :mod:`workbench.kernels.events`: its
    calendar queue on ``(time, seq)`` and a FIFO lane (a ring of 4,096 places) that takes a
    copy's move whenever it has room and the move is due no earlier than the lane's last
    event (equal link delays make moves due in the order they leave), so most moves skip
    the queue. ``seq`` numbers events in the order they were scheduled and is unique, so
    events leave in the total order on ``(time, seq)`` whichever structure holds them.
    ``kind`` is ``ARRIVE`` (a copy reaching its node) or ``DEPART`` (a copy finishing
    service), ``arg`` the copy. Each copy has at most one pending event, so ``n * M + 2``
    places suffice for the queue.

    Parameters
    ----------
    heap : EventQueue
        The calendar queue (:func:`workbench.kernels.events.new_queue`).
    lane : Lane
        The FIFO lane (:func:`workbench.kernels.events.new_lane`).
    """

    heap: EventQueue
    lane: Lane


#: event kinds
ARRIVE = 0
DEPART = 1


#: the engine's state, one array per row: its name, its length, dtype and initial value. A
#: length is a size of the run (:func:`new_state`: ``node``, ``task``, ``copy`` for tasks
#: times copies, or a scratch buffer's) or a number; every array starts filled with its value
STATE_ARRAYS = (
    ("n_in", "node", np.int64, 0),  # copies held per node (waiting + in service)
    ("busy", "node", np.int64, 0),  # busy servers per node
    ("area", "node", float, 0.0),  # busy server-seconds per node
    ("last", "node", float, 0.0),  # time of the last area update per node
    ("qhead", "node", np.int64, -1),  # FIFO of waiting copies per node (linked through qnext)
    ("qtail", "node", np.int64, -1),
    ("qnext", "copy", np.int64, -1),
    ("c_task", "copy", np.int64, 0),  # per copy
    ("c_node", "copy", np.int64, -1),
    ("c_state", "copy", np.int64, 0),
    ("c_work", "copy", float, 0.0),  # service time at its node
    ("c_decide", "copy", np.int64, 0),  # 1: the target decides again on arrival (forwarding)
    ("t_first", "task", np.int64, 0),  # per task: its first copy, its copies, alive copies
    ("t_ncopies", "task", np.int64, 0),
    ("t_alive", "task", np.int64, 0),
    ("t_hops", "task", np.int64, 0),
    ("t_fwd", "task", np.int64, 0),  # per task: policy forwards so far
    ("finish", "task", float, np.nan),  # per task: completion time (nan: lost or not done)
    ("where", "task", np.int64, -1),  # per task: node that completed it (-1: lost)
    ("energy_tx", "task", float, 0.0),  # per task: transmission energy (J)
    ("red_avg", "node", float, 0.0),  # per node: RED's averaged queue
    ("buf", "targets", np.int64, -1),  # scratch: targets of a decision
    ("fbuf", "cand", float, 0.0),  # scratch for user candidates (rows: policies.CAND_FIELDS)
    ("ibuf", "cand_ids", np.int64, 0),  # scratch: the user candidates' node ids
    ("task", len(TASK_FIELDS), float, 0.0),  # scratch: a user policy's view of the task
    ("c_start", "copy", float, np.nan),  # per copy: when it started service
    ("t_start", "task", float, np.nan),  # per task: when its completing copy started
    ("ubuf", "answer", np.int64, 0),  # scratch: a user policy's answer
    ("ctr", 6, np.int64, 0),  # [heap size, seq, copies made, cancelled, lane head, lane size]
    ("on_start", 1, np.int64, 0),  # 1 when the first copy to *start* cancels the others
    ("reg", 8, np.int64, 0),  # the loop's registers between two calls (R_* below)
    ("clock", 2, float, 0.0),  # [arrival of task ``warm``, time of the pause]
    ("t_lost", "task", float, np.nan),  # per task: when its last copy was lost (nan: not)
)

State = NamedTuple("State", [(name, np.ndarray) for name, *_ in STATE_ARRAYS])
State.__doc__ = """The engine's state between events (made by :func:`new_state`; :func:`loop`
paused at a decision keeps it): its fields are the rows of :data:`STATE_ARRAYS`, in order."""


def new_state(n_nodes: int, n: int, m: int, max_deg: int, r: int) -> State:
    """The engine's state for a run, every array at its initial value.

    Parameters
    ----------
    n_nodes, n, m : int
        The nodes, the tasks and the most copies per task.
    max_deg : int
        The most direct neighbours of a node.
    r : int
        The uniforms per task.

    Returns
    -------
    State
        Fresh arrays of :data:`STATE_ARRAYS`.
    """
    width = 2 * max_deg + 2  # the candidates of a decision at most
    size = {"node": n_nodes, "task": n, "copy": n * m, "targets": max(m, 2), "answer": max(m, 1)}
    size |= {"cand": (len(CAND_FIELDS), width), "cand_ids": width + r}
    return State(*(np.full(size.get(k, k), v, dtype) for _, k, dtype, v in STATE_ARRAYS))


#: slots of ``State.reg``: the loop's phase (R_FRESH, R_PAUSED, R_DONE), the next arrival
#: and its sequence number, the pending placement (task, node, hops, copy) and the action
#: an external policy (:data:`workbench.arena.policies.EXTERNAL`) gives for it
R_PHASE, R_NXT, R_SEQ, R_TASK, R_NODE, R_HOPS, R_COPY, R_ACTION = range(8)
R_FRESH, R_PAUSED, R_DONE = 0, 1, 2


@njit(cache=True, inline="always", _nrt=False)
def _touch(st, k, now):
    st.area[k] += st.busy[k] * (now - st.last[k])
    st.last[k] = now


@njit(cache=True, inline="always", _nrt=False)
def _start(net, st, q, k, c, now):
    """Copy ``c`` takes a server of node ``k`` now."""
    _touch(st, k, now)
    st.busy[k] += 1
    st.c_state[c] = SERVING
    st.c_start[c] = now
    st.ctr[0] = queue_push(q.heap, st.ctr[0], now + st.c_work[c], st.ctr[1], DEPART, c, 0.0)
    st.ctr[1] += 1
    if st.on_start[0]:
        _cancel_unstarted(st, st.c_task[c], c)


@njit(cache=True, inline="always", _nrt=False)
def _cancel_unstarted(st, i, c):
    """Cancel-on-start: copy ``c`` of task ``i`` has started, so its other copies (waiting
    or travelling; none can be in service) leave. Copies not yet sent are marked here and
    skipped by :func:`_place`."""
    first = st.t_first[i]
    for cj in range(first, first + st.t_ncopies[i]):
        if cj == c:
            continue
        s = st.c_state[cj]
        if s == WAITING:
            st.n_in[st.c_node[cj]] -= 1
        if s == WAITING or s == TRANSIT:
            st.c_state[cj] = CANCELLED
            st.ctr[3] += 1


@njit(cache=True, inline="always", _nrt=False)
def _free_server(net, st, q, k, now):
    """A server of ``k`` is freed: it takes the next live waiting copy, if any."""
    _touch(st, k, now)
    st.busy[k] -= 1
    c = st.qhead[k]
    while c >= 0:
        nxt = st.qnext[c]
        st.qhead[k] = nxt
        if nxt < 0:
            st.qtail[k] = -1
        if st.c_state[c] == WAITING:
            _start(net, st, q, k, c, now)
            return
        c = nxt


@njit(cache=True, inline="always", _nrt=False)
def _lose(st, c, now):
    st.c_state[c] = LOST
    i = st.c_task[c]
    st.t_alive[i] -= 1
    if st.t_alive[i] <= 0:
        st.t_lost[i] = now


@njit(cache=True, inline="always", _nrt=False)
def _admit(net, tk, st, q, c, k, now):
    """Copy ``c`` reaches node ``k`` to be served there (or lost if ``k`` is full)."""
    if st.n_in[k] >= net.capacity[k] or net.servers[k] == 0:
        _lose(st, c, now)
        return
    st.n_in[k] += 1
    st.c_node[c] = k
    sp = net.speed[k]
    st.c_work[c] = 0.0 if sp == np.inf else tk.size[st.c_task[c], c - st.t_first[st.c_task[c]]] / sp
    if st.busy[k] < net.servers[k]:
        _start(net, st, q, k, c, now)
    else:
        st.c_state[c] = WAITING
        st.qnext[c] = -1
        if st.qtail[k] < 0:
            st.qhead[k] = c
        else:
            st.qnext[st.qtail[k]] = c
        st.qtail[k] = c


@njit(cache=True, inline="always", _nrt=False)
def _send(net, tk, st, q, c, a, b, forward, now):
    """Copy ``c`` leaves node ``a`` for node ``b`` (placed there, or to decide again)."""
    i = st.c_task[c]
    st.c_state[c] = TRANSIT
    st.c_node[c] = b
    st.c_decide[c] = forward
    if a != b:
        st.t_hops[i] += net.hops[a, b]
        st.energy_tx[i] += tk.bits[i] * net.epb[a, b]
    dt = net.delay[a, b] + tk.bits[i] * net.invbw[a, b]
    if dt > 0.0 or forward:
        t = now + dt
        if lane_takes(q.lane, st.ctr[4], st.ctr[5], t):
            st.ctr[5] = lane_push(q.lane, st.ctr[4], st.ctr[5], t, st.ctr[1], ARRIVE, c, 0.0)
        else:
            st.ctr[0] = queue_push(q.heap, st.ctr[0], t, st.ctr[1], ARRIVE, c, 0.0)
        st.ctr[1] += 1
    else:
        _admit(net, tk, st, q, c, b, now)


@njit(cache=True, inline="always", _nrt=False)
def _place(net, tk, pol, user, st, q, i, k, hops, c, now):
    """Task ``i`` is at node ``k`` after ``hops`` forwards: the policy places its copies
    (``c >= 0``: the task's existing single copy, moved on; ``-1``: make new copies)."""
    n_t, mode = decide(net, tk, pol, user, st, i, k, hops, now)
    forward = 1 if mode == 1 else 0
    st.t_fwd[i] += forward
    if mode == 2 and c < 0:  # served from a cache at the target: done on arrival there
        b = st.buf[0]
        st.t_first[i] = st.ctr[2]
        st.t_ncopies[i] = 1
        st.c_task[st.ctr[2]] = i
        st.c_state[st.ctr[2]] = DONE
        st.ctr[2] += 1
        st.where[i] = b
        st.finish[i] = now + net.delay[k, b] + tk.bits[i] * net.invbw[k, b]
        st.t_hops[i] += net.hops[k, b]
        st.energy_tx[i] += tk.bits[i] * net.epb[k, b]
        return
    if c >= 0:  # a forwarded task keeps its one copy
        first, n_c = c, 1
    else:
        first = st.ctr[2]
        n_c = n_t if n_t > 0 else 1
        st.t_first[i] = first
        st.t_ncopies[i] = n_c
        st.t_alive[i] = n_c
        st.ctr[2] += n_c
    for j in range(n_c):  # one call site of _send (and of what it inlines)
        cj = first + j
        st.c_task[cj] = i
        b = st.buf[j] if n_t > 0 else -1
        if st.c_state[cj] == CANCELLED:  # cancel-on-start: a sibling has started already
            continue
        if b < 0:
            _lose(st, cj, now)
        else:
            _send(net, tk, st, q, cj, k, b, forward, now)


@njit(cache=True, inline="always", _nrt=False)
def _cancel_others(net, st, q, i, winner, now):
    """Task ``i`` is done by copy ``winner``: its other live copies (travelling, waiting or
    in service: the states up to SERVING) are cancelled, freeing their places."""
    first = st.t_first[i]
    for cj in range(first, first + st.t_ncopies[i]):
        s = st.c_state[cj]
        if cj == winner or s > SERVING:
            continue
        st.c_state[cj] = CANCELLED
        st.ctr[3] += 1
        if s != TRANSIT:
            st.n_in[st.c_node[cj]] -= 1
        if s == SERVING:
            _free_server(net, st, q, st.c_node[cj], now)


@njit(cache=True, inline="always", _nrt=False)
def _depart(net, tk, st, q, c, now):
    k = st.c_node[c]
    if st.c_state[c] != SERVING:
        return  # cancelled while in service: its server was freed then
    st.c_state[c] = DONE
    st.n_in[k] -= 1
    i = st.c_task[c]
    st.t_alive[i] -= 1
    _free_server(net, st, q, k, now)
    if st.where[i] < 0:
        st.where[i] = k
        st.finish[i] = now
        st.t_start[i] = st.c_start[c]
        _cancel_others(net, st, q, i, c, now)


@njit(cache=True, _nrt=False)
def _snapshot(st, now, out):
    for k in range(st.area.shape[0]):
        _touch(st, k, now)
        out[k] = st.area[k]


def _run(net, tk, pol, warm, user, st):
    """Run one replication on the state buffers ``st`` (from :func:`new_state`, as fresh);
    returns per-task ``finish, where, copies, hops, energy_tx`` and per-node busy
    server-seconds between the arrivals of tasks ``warm`` and ``n - 1`` (``area``, its
    window length ``span``), the counters ``[copies made, cancelled]``, and per task the
    time its completing copy started service (``start``; nan: lost, or served from a
    cache). A user policy's invalid answer ends the run early (``pol.err``).
    """
    n = tk.t.shape[0]
    n_nodes = net.servers.shape[0]
    m = tk.size.shape[1]
    st.on_start[0] = 1 if pol.code == REPLICATE and pol.par[P_CANCEL] > 0 else 0
    pol.err[:] = 0
    q = Pending(new_queue(n * m + 2), new_lane(4096))
    area0 = np.zeros(n_nodes)
    area1 = np.zeros(n_nodes)
    t0 = loop(net, tk, pol, warm, user, st, q, area0, area1)
    span = tk.t[n - 1] - t0 if n > 0 else 0.0
    copies = st.t_ncopies
    return (
        st.finish.copy(),
        st.where.copy(),
        copies.copy(),
        st.t_hops.copy(),
        st.energy_tx.copy(),
        area1 - area0,
        span,
        st.ctr[2:4].copy(),
        st.t_start.copy(),
    )


_BUFFERS = {}
_POOL = threading.Lock()


def _buffers(net, tk):
    """The state buffers of a run of these sizes, as :func:`new_state` makes them: the last
    run's, refilled in place when the sizes are the same (no fresh pages to fault in: a
    run of 10**6 tasks otherwise faults about 30,000 pages in), else new ones. A run takes
    them out of the pool while it runs, so two runs (threads, or a run abandoned after its
    timeout that is still going) never share them."""
    n_nodes, n, m, r = net.servers.shape[0], tk.t.shape[0], tk.size.shape[1], tk.u.shape[1]
    deg = np.diff(net.nbr_ptr)
    dims = (n_nodes, n, m, int(deg.max()) if deg.size else 0, r)
    with _POOL:
        st = _BUFFERS.pop(dims, None)
    if st is None:
        return dims, new_state(*dims)
    for buf, (*_, value) in zip(st, STATE_ARRAYS, strict=True):
        buf.fill(value)
    return dims, st


def _run_pooled(net, tk, pol, warm, user):
    """The compiled engine on reused buffers: see :func:`engine`."""
    dims, st = _buffers(net, tk)
    out = _ENGINE[0](net, tk, pol, warm, user, st)
    with _POOL:
        _BUFFERS.clear()
        _BUFFERS[dims] = st
    return out


@njit(cache=True, _nrt=False)
def loop(net, tk, pol, warm, user, st, q, area0, area1):
    """The event loop over the allocated state ``st`` and queue ``q``.

    It runs until every event is done, or, under the ``EXTERNAL`` policy code, until a task
    needs a placement: it then pauses (``st.reg[R_PHASE] == R_PAUSED``) with the placement
    in ``st.reg``, and the next call places it at ``st.reg[R_ACTION]`` and goes on (the
    envs of :mod:`workbench.arena.env` and :mod:`workbench.arena.multi` drive it so).

    Compiled without numba's reference counting (``_nrt=False``): it allocates nothing,
    and the per-access incref/decref of the ~30 arrays it reads through ``net``, ``tk``
    and ``st`` otherwise cost most of its time (atomic operations on every event).

    Parameters
    ----------
    net : Net
        The scenario's arrays.
    tk : Tasks
        The replication's tasks.
    pol : Policy
        The policy.
    warm : int
        The first measured task.
    user : numba function
        The user decision function (:data:`workbench.arena.policies.no_user` for a
        built-in policy).
    st : State
        The state (:func:`new_state`, or the state of a paused run).
    q : Pending
        The pending events.
    area0, area1 : numpy.ndarray of float64
        Written with each node's busy server-seconds at the arrivals of tasks ``warm`` and
        ``n - 1``.

    Returns
    -------
    float
        The arrival time of task ``warm`` (0.0 if there is none).
    """
    n = tk.t.shape[0]
    reg = st.reg
    # The arrivals are sorted: the next one waits outside the heap, with the sequence
    # number it would carry there (drawn when the previous one arrived), and leaves
    # before the heap's earliest event exactly when it would have left the heap first.
    # One call site of _place (inlined with the policies): the arrivals and the forwarded
    # copies set what it places, so the policies are compiled into the loop once.
    # A paused run (an external policy waiting for its action) resumes with that placement.
    resume = reg[R_PHASE] == R_PAUSED
    if resume:
        nxt, nxt_seq, t0, now = reg[R_NXT], reg[R_SEQ], st.clock[0], st.clock[1]
        pi, pk, ph, pc = reg[R_TASK], reg[R_NODE], reg[R_HOPS], reg[R_COPY]
    else:
        nxt, nxt_seq, t0, now = 0, 0, 0.0, 0.0
        st.ctr[1] = 1 if n > 0 else 0
        pi, pk, ph, pc = 0, 0, 0, -1
    heap, lane = q.heap, q.lane
    while True:
        place = False
        # the earliest pending event: the heap's top or the lane's head (src 1 or 2)
        src, et, es, h = 0, 0.0, 0, st.ctr[4]
        if st.ctr[0] > 0:
            src, et, es = 1, heap.time[0], heap.seq[0]
        if st.ctr[5] > 0:
            lt, ls = lane.time[h], lane.seq[h]
            if src == 0 or queue_before(lt, ls, et, es):
                src, et, es = 2, lt, ls
        if resume:
            place = True
        elif nxt < n and (src == 0 or queue_before(tk.t[nxt], nxt_seq, et, es)):
            i = nxt
            now = tk.t[i]
            if i == warm:
                _snapshot(st, now, area0)
                t0 = now
            if i == n - 1:
                _snapshot(st, now, area1)
                nxt = n
            else:
                nxt, nxt_seq = i + 1, st.ctr[1]
                st.ctr[1] += 1
            place, pi, pk, ph, pc = True, i, tk.node[i], 0, -1
        else:
            if src == 0:
                break
            now = et
            if src == 1:
                kind, c = heap.kind[0], heap.arg[0]
                st.ctr[0] = queue_pop(heap, st.ctr[0])
            else:
                kind, c = lane.kind[h], lane.arg[h]
                st.ctr[4] = lane_pop(lane, h)
                st.ctr[5] -= 1
            if kind == ARRIVE:  # the copy reaches its node
                if st.c_state[c] == CANCELLED:
                    continue
                if st.c_decide[c] == 1:
                    i = st.c_task[c]
                    place, pi, pk, ph, pc = True, i, st.c_node[c], st.t_fwd[i], c
                else:
                    _admit(net, tk, st, q, c, st.c_node[c], now)
            else:
                _depart(net, tk, st, q, c, now)
        if place:
            if pol.code == EXTERNAL and not resume:  # pause: the action comes from outside
                reg[R_PHASE], reg[R_NXT], reg[R_SEQ] = R_PAUSED, nxt, nxt_seq
                reg[R_TASK], reg[R_NODE], reg[R_HOPS], reg[R_COPY] = pi, pk, ph, pc
                st.clock[0], st.clock[1] = t0, now
                return t0
            resume = False
            _place(net, tk, pol, user, st, q, pi, pk, ph, pc, now)
            if pol.err[0] != 0:  # a user policy answered outside its candidates: stop
                break
    reg[R_PHASE] = R_DONE
    st.clock[0], st.clock[1] = t0, now
    return t0


_ENGINE = []


def engine():
    """The compiled engine (compiled, or loaded from the cache, on first use).

    Returns
    -------
    callable
        ``run(net, tk, pol, warm, user)``: one replication of the tasks ``tk`` (:class:`Tasks`)
        on ``net`` (:class:`Net`) under ``pol`` (:class:`Policy`), measured from task
        ``warm``; ``user`` is a first-class function of
        :data:`workbench.arena.policies.USER_SIG`, so the one compiled engine serves every
        user policy. It returns per task ``finish, where, copies, hops, energy_tx``, per
        node the busy server-seconds between the arrivals of tasks ``warm`` and ``n - 1``
        and that window's length, the counters ``[copies made, cancelled]`` and per task
        the start of its completing copy's service (NaN: lost, or served from a cache).
        It releases the GIL, so a caller can wait for it in another thread (and stop
        waiting: a user policy that never returns). Its state buffers are kept for the
        next run of the same sizes unless a run still holds them; the arrays it returns
        are its own.
    """
    if not _ENGINE:
        net, tk, pol = _examples()
        f1, i1 = types.float64[::1], types.int64[::1]
        out = types.Tuple([f1, i1, i1, i1, f1, f1, types.float64, i1, f1])
        user = types.FunctionType(USER_SIG)
        st = typeof(new_state(1, 1, 1, 0, 0))
        sig = out(typeof(net), typeof(tk), typeof(pol), types.int64, user, st)
        _ENGINE.append(njit(sig, cache=True, nogil=True)(_run))
    return _run_pooled


def _examples():
    f1, i1 = np.zeros(1), np.zeros(1, np.int64)
    f2, i2 = np.zeros((1, 1)), np.zeros((1, 1), np.int64)
    net = Net(i1, i1, f1, f1, f1, i1, i1, i1, f2, f2, f2, i2, i1, i1, 0, f1, i1)
    tk = Tasks.zeros(1, 1, 1)
    return net, tk, Policy(0, f1, f1, f1, i1)
