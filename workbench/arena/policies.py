"""Placement policies: the classic baselines, the papers' mechanisms and your own.

Every policy, built-in or yours, is a row of one table, :data:`TABLE`: its name, its
parameters (rows of :data:`workbench.arena.params.PARAMS`), its rule in words, its paper,
how many copies of a task it may make and how many uniforms it draws. The engine's policy
codes (``LOCAL``, ``JSQ``, ...) and the slots of ``Policy.par`` (``P_THETA``, ...) are
generated from it.

A policy decides, when task ``i`` is at node ``k`` (after ``hops`` forwards), where its
copies go: :func:`decide` writes up to ``M`` target nodes into ``st.buf`` and returns
``(count, mode)`` with ``mode`` 0 (placed: the target serves or loses it), 1 (forwarded: the
target decides again) or 2 (served from a cache at the target, no work). ``count = 0`` or a
target ``-1`` loses the task.

The *candidates* of node ``k`` are ``k`` itself (when it has servers) and its direct
neighbours with servers, the cloud excluded; a node's *home* is itself, or, for a node
without servers (a device), its nearest serving neighbour.

Your own policy (:func:`workbench.arena.policy`) is a function
``decide(task, cand, state, par, u, out) -> int`` compiled into the engine:

- ``task`` (float64, fields :data:`TASK_FIELDS`, indices ``T_NOW``, ``T_ARRIVAL``, ...):
  the clock, the task's arrival time, source (workload entry), type (-1: untyped),
  deadline (relative, s: the workload entry's, or the trace row's; ``inf``: none), size
  (``nan`` unless the scenario declares sizes known), the deciding node;
- ``cand`` (float64, rows :data:`CAND_FIELDS`, indices ``C_NODE``, ``C_QUEUE``, ...; one
  column per candidate, the cloud last when the scenario has one): node index, tasks held,
  servers (``inf`` for the cloud), speed, propagation delay from the deciding node and this
  task's transmission time;
- ``state`` (float64): the policy's own array, zeros at the start of each replication,
  kept between decisions; ``par``: its declared parameters, in declaration order; ``u``:
  uniforms in [0, 1) for this task;
- ``out`` (int64): it writes the chosen candidates' column indices into ``out[0]``,
  ``out[1]``, ... and returns how many (1: one target; more: copies, the first to finish
  cancels the others). ``out`` holds -1 at each call: a place it does not write is an
  index outside the candidates.

A count outside ``1 .. out.size`` or an index outside the candidates stops the run with
:class:`~workbench.arena.simulation.PolicyError` naming the policy, the task and the value;
a read or write past an array raises it too (the user's code is compiled with bounds
checks). The older form ``decide(queue, servers, speed, delay, u) -> index`` is still
accepted (``delay`` then includes the transmission time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, types

from workbench.kernels.red import red_drop_probability, red_ewma


@dataclass(frozen=True)
class PolicySpec:
    """A policy of the table.

    Parameters
    ----------
    name : str
        Its name, as ``simulate(policy=...)`` takes it.
    params : tuple of str
        Its parameters, rows of :data:`workbench.arena.params.PARAMS`; each gets a slot of
        ``Policy.par`` (:data:`SLOTS`).
    rule : str
        Its rule in words.
    paper : str
        The paper whose mechanism it is (``"p1"`` ... ``"p5"``; ``""``: a classic baseline).
    copies : int or str
        The most copies of a task it makes, or the parameter that sets it.
    uniforms : int or str
        The uniforms it draws per task, or the parameter that sets it.
    """

    name: str
    params: tuple
    rule: str
    paper: str = ""
    copies: int | str = 1
    uniforms: int | str = 2

    @property
    def code(self) -> int:
        return CODE[self.name]


#: every policy, in the order of its engine code ("user": your own, see the docstring)
TABLE = (
    PolicySpec("local", (), "the task's home node (lost when full)"),
    PolicySpec("cloud", (), "the cloud"),
    PolicySpec("random", (), "a uniform candidate (the node and its neighbours)"),
    PolicySpec("jsq", (), "the candidate with room with the fewest tasks per server"),
    PolicySpec("power_of_d", ("d",), "the least loaded of d random candidates", uniforms="d"),
    PolicySpec(
        "threshold",
        ("theta", "e_max"),
        "keep if the estimated wait <= θ, else forward (<= e_max), else the cloud",
        "p1",
    ),
    PolicySpec(
        "overflow",
        ("p",),
        "home if room, else with probability p a neighbour with room, else lost",
        "p3",
    ),
    PolicySpec(
        "replicate",
        ("m", "cancel"),
        "m copies on distinct servers, the first to finish (or start) cancels the "
        "rest; none: cloud",
        "p4",
        copies="m",
    ),
    PolicySpec(
        "red",
        ("min_th", "max_th", "max_p", "w_q"),
        "RED on the home's averaged queue decides offloading one tier up",
        "p5",
    ),
    PolicySpec(
        "hedge_cache",
        ("cache_size", "deadline"),
        "popular types from the cache; a second copy when the wait check fails",
        "p2",
        copies=2,
    ),
    PolicySpec("user", (), "your own decision function (workbench.arena.policy)"),
)
#: engine code of each policy
CODE = {s.name: k for k, s in enumerate(TABLE)}
#: the names of the codes the engine branches on (by name: the table's order may change)
_CODE_NAMES = "local cloud random jsq power_of_d threshold overflow replicate red hedge_cache user"
LOCAL, CLOUD, RANDOM, JSQ, POD, THRESHOLD, OVERFLOW, REPLICATE, RED, HEDGE, USER = (
    CODE[x] for x in _CODE_NAMES.split()
)
#: the code of no policy: the engine pauses at each placement and takes the candidate
#: index given from outside (:mod:`workbench.arena.env`, a learning agent's action)
EXTERNAL = len(TABLE)
#: slot of each built-in parameter in ``Policy.par``, in the table's order
SLOTS: dict[str, int] = {}
for _spec in TABLE:
    for _name in _spec.params:
        SLOTS.setdefault(_name, len(SLOTS))
N_PAR = len(SLOTS)
P_P, P_THETA, P_EMAX, P_M, P_D = (SLOTS[x] for x in ("p", "theta", "e_max", "m", "d"))
P_MIN, P_MAX, P_MAXP, P_WQ = (SLOTS[x] for x in ("min_th", "max_th", "max_p", "w_q"))
P_CACHE, P_DEADLINE, P_CANCEL = (SLOTS[x] for x in ("cache_size", "deadline", "cancel"))
_BIG = 2**40

#: the fields of a user policy's ``task`` array
TASK_FIELDS = ("now", "arrival", "source", "type", "deadline", "size", "node")
T_NOW, T_ARRIVAL, T_SOURCE, T_TYPE, T_DEADLINE, T_SIZE, T_NODE = range(len(TASK_FIELDS))
#: the rows of a user policy's ``cand`` array
CAND_FIELDS = ("node", "queue", "servers", "speed", "delay", "transmission")
C_NODE, C_QUEUE, C_SERVERS, C_SPEED, C_DELAY, C_TRANSMISSION = range(len(CAND_FIELDS))

#: the signature of a user decision function (module docstring)
USER_SIG = types.int64(
    types.float64[::1],
    types.float64[:, :],
    types.float64[::1],
    types.float64[::1],
    types.float64[::1],
    types.int64[::1],
)


@njit(USER_SIG, cache=True)
def no_user(task, cand, state, par, u, out):
    """The placeholder user decision of the built-in policies (never called)."""
    return 0


@njit(cache=True, inline="always", _nrt=False)
def _room(net, st, j):
    return net.servers[j] > 0 and st.n_in[j] < net.capacity[j]


@njit(cache=True, _nrt=False)
def room_mask(net, st, nodes, n, mask):
    """The room rule of a decision, shared by the learning environments' action masks.

    Parameters
    ----------
    net, st : Net, State
        The scenario's arrays and the engine's state (``st.n_in``: tasks held per node).
    nodes : ndarray of int64
        The candidates' node indices; the first ``n`` are used.
    n : int
        The number of candidates, at most ``mask.size``.
    mask : ndarray of int8
        Written: 1 for a candidate with room (it has servers and holds fewer tasks than its
        capacity, so the engine keeps a task placed there), 0 otherwise and from ``n`` on.
        When no candidate has room, every one of the ``n`` is 1: the task is lost wherever
        it goes, and each choice is as valid as another.
    """
    room = 0
    for a in range(mask.shape[0]):
        mask[a] = 1 if a < n and _room(net, st, nodes[a]) else 0
        room += mask[a]
    if room == 0:
        for a in range(n):
            mask[a] = 1


@njit(cache=True, inline="always", _nrt=False)
def _per_server(net, st, j):
    return st.n_in[j] / (net.servers[j] * net.speed[j])


@njit(cache=True, inline="always", _nrt=False)
def _wait(net, st, j, mean):
    """Estimated wait of one more task at ``j``: the work ahead of it spread over its servers
    (``inf`` at a node without servers)."""
    c = net.servers[j]
    if c >= _BIG or net.speed[j] == np.inf:
        return 0.0
    if c <= 0:
        return np.inf
    ahead = st.n_in[j] + 1 - c
    return 0.0 if ahead <= 0 else ahead * mean / (c * net.speed[j])


@njit(cache=True, inline="always", _nrt=False)
def _wait_within(net, st, j, mean, limit):
    """Is the estimated wait of one more task at ``j`` at most ``limit``? Counted in tasks,
    as the closed form counts places (:func:`workbench.arena.model.threshold_delay`): with
    θ = 0.3 and mean size 0.1 a node keeps a task behind 3 others, although 3 × 0.1 > 0.3
    in floating point."""
    c = net.servers[j]
    if c >= _BIG or net.speed[j] == np.inf or mean <= 0.0:
        return True
    if c <= 0:
        return False
    ahead = st.n_in[j] + 1 - c
    return ahead <= np.floor(limit * c * net.speed[j] / mean + 1e-9)


@njit(cache=True, inline="always", _nrt=False)
def _candidates(net, st, k):
    """Fill ``st.ibuf`` with the candidates of ``k``; returns how many."""
    n = 0
    if net.servers[k] > 0 and k != net.cloud:
        st.ibuf[0] = k
        n = 1
    for p in range(net.nbr_ptr[k], net.nbr_ptr[k + 1]):
        b = net.nbr_idx[p]
        if net.servers[b] > 0 and b != net.cloud:
            st.ibuf[n] = b
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _best_of(net, st, k, src, j, mean, best, score):
    for p in range(net.nbr_ptr[src], net.nbr_ptr[src + 1]):
        b = net.nbr_idx[p]
        if b == j or b == k or b == net.cloud or net.servers[b] == 0:
            continue
        s = _wait(net, st, b, mean) + net.delay[k, b]
        if s < score:
            best, score = b, s
    return best, score


@njit(cache=True, _nrt=False)
def _best_neighbour(net, st, k, j, mean):
    """The serving node next to ``k`` or to its home ``j`` (not ``j``, not the cloud) with
    the least estimated wait plus link delay from ``k``; -1 if none. A device sees its
    edge's neighbours through its edge."""
    best, score = _best_of(net, st, k, k, j, mean, -1, np.inf)
    if j != k:
        best, score = _best_of(net, st, k, j, j, mean, best, score)
    return best


@njit(cache=True, inline="always", _nrt=False)
def _single(st, b, mode):
    st.buf[0] = b
    return 1, mode


@njit(cache=True, inline="always", _nrt=False)
def _shortest(net, st, n, room_only):
    best, score = -1, np.inf
    for a in range(n):
        b = st.ibuf[a]
        if room_only and not _room(net, st, b):
            continue
        s = _per_server(net, st, b)
        if s < score:
            best, score = b, s
    return best


@njit(cache=True, _nrt=False)
def _overflow(net, tk, pol, st, i, k):
    j = net.home[k]
    if _room(net, st, j):
        return _single(st, j, 0)
    if tk.u[i, 0] >= pol.par[P_P]:
        return _single(st, -1, 0)
    n = 0
    for p in range(net.nbr_ptr[j], net.nbr_ptr[j + 1]):
        b = net.nbr_idx[p]
        if b != net.cloud and _room(net, st, b):
            st.ibuf[n] = b
            n += 1
    if n == 0:
        return _single(st, -1, 0)
    return _single(st, st.ibuf[min(int(tk.u[i, 1] * n), n - 1)], 0)


@njit(cache=True, _nrt=False)
def _replicate(net, st, pol, k):
    """``m`` copies on distinct servers: the home first, then the serving neighbours of the
    deciding node and of its home, by link delay; a node takes one copy per idle server (they
    start at once, Peng & Soljanin's workers), or a single copy that waits when it has room
    but no idle server. No place at all: the cloud."""
    m = int(pol.par[P_M])
    j = net.home[k]
    n = 0
    if net.servers[j] > 0 and j != net.cloud:
        st.ibuf[0] = j
        n = 1
    for src in (k, j):
        for p in range(net.nbr_ptr[src], net.nbr_ptr[src + 1]):
            b = net.nbr_idx[p]
            if b == net.cloud or net.servers[b] == 0:
                continue
            seen = False
            for a in range(n):
                seen = seen or st.ibuf[a] == b
            if not seen:
                st.ibuf[n] = b
                n += 1
    placed = 0
    for a in range(n):
        b = st.ibuf[a]
        room = net.capacity[b] - st.n_in[b]
        idle = net.servers[b] - st.busy[b]
        take = min(idle, room) if idle > 0 else min(1, room)
        while take > 0 and placed < m:
            st.buf[placed] = b
            placed += 1
            take -= 1
    if placed == 0:
        return _single(st, net.cloud, 0)
    return placed, 0


@njit(cache=True, _nrt=False)
def _threshold(net, tk, pol, st, i, k, hops):
    j = net.home[k]
    mean = net.mean_size[tk.source[i]]
    if j != net.cloud and _room(net, st, j) and _wait_within(net, st, j, mean, pol.par[P_THETA]):
        return _single(st, j, 0)
    if hops < pol.par[P_EMAX]:
        b = _best_neighbour(net, st, k, j, mean)
        if b >= 0:
            return _single(st, b, 1)
    return _single(st, net.cloud, 0)


@njit(cache=True, _nrt=False)
def _red(net, tk, pol, st, i, k):
    j = net.home[k]
    st.red_avg[j] = red_ewma(st.red_avg[j], st.n_in[j], pol.par[P_WQ])
    p = red_drop_probability(
        st.red_avg[j], pol.par[P_MIN], pol.par[P_MAX], pol.par[P_MAXP], 0, False
    )
    if tk.u[i, 0] < p or not _room(net, st, j):
        up = net.parent[j]
        return _single(st, up if up >= 0 else net.cloud, 0)
    return _single(st, j, 0)


@njit(cache=True, _nrt=False)
def _hedge(net, tk, pol, st, i, k):
    j = net.home[k]
    if 0 <= tk.kind[i] < pol.par[P_CACHE] and j != net.cloud:
        return _single(st, j, 2)
    mean = net.mean_size[tk.source[i]]
    if net.servers[j] == 0:  # no serving home: one copy to the best neighbour or the cloud
        b = _best_neighbour(net, st, k, j, mean)
        return _single(st, b if b >= 0 else net.cloud, 0)
    st.buf[0] = j
    if not _wait_within(net, st, j, mean, pol.par[P_DEADLINE]):
        b = _best_neighbour(net, st, k, j, mean)
        if b >= 0:
            st.buf[1] = b
            return 2, 0
    return 1, 0


@njit(cache=True, inline="always", _nrt=False)
def view(net, tk, st, i, k, now):
    """What a decision on task ``i`` at node ``k`` sees: the candidates (``k`` and its
    serving neighbours, then the cloud) in ``st.ibuf`` and their rows
    (:data:`CAND_FIELDS`) in ``st.fbuf``, the task (:data:`TASK_FIELDS`) in ``st.task``;
    returns how many candidates."""
    n = _candidates(net, st, k)
    if net.cloud >= 0:
        st.ibuf[n] = net.cloud
        n += 1
    for a in range(n):
        b = st.ibuf[a]
        st.fbuf[C_NODE, a] = b
        st.fbuf[C_QUEUE, a] = st.n_in[b]
        st.fbuf[C_SERVERS, a] = np.inf if net.servers[b] >= _BIG else net.servers[b]
        st.fbuf[C_SPEED, a] = net.speed[b]
        st.fbuf[C_DELAY, a] = net.delay[k, b]
        st.fbuf[C_TRANSMISSION, a] = tk.bits[i] * net.invbw[k, b]
    src = tk.source[i]
    task = st.task
    task[T_NOW] = now
    task[T_ARRIVAL] = tk.t[i]
    task[T_SOURCE] = src
    task[T_TYPE] = tk.kind[i]
    task[T_DEADLINE] = tk.deadline[i]
    known = src < net.size_known.shape[0] and net.size_known[src] != 0
    task[T_SIZE] = tk.size[i, 0] if known else np.nan
    task[T_NODE] = k
    return n


@njit(cache=True, _nrt=False)
def _user(net, tk, pol, user, st, i, k, now):
    """Your own policy: its view of the task and the candidates, its call, its answer
    checked (an invalid one is written to ``pol.err`` and ends the run)."""
    n = view(net, tk, st, i, k, now)
    out = st.ubuf[: tk.size.shape[1]]
    out[:] = -1  # an answer left unwritten is refused, not read from the last decision
    pol.err[1] = i  # the task being decided, should the user's code raise
    count = user(st.task, st.fbuf[:, :n], pol.ustate, pol.upar, tk.u[i], out)
    if count < 1 or count > out.shape[0]:
        pol.err[0], pol.err[2], pol.err[3] = 1, count, out.shape[0]
        return _single(st, -1, 0)
    for a in range(count):
        idx = out[a]
        if idx < 0 or idx >= n:
            pol.err[0], pol.err[2], pol.err[3] = 2, idx, n
            return _single(st, -1, 0)
        st.buf[a] = st.ibuf[idx]
    return count, 0


@njit(cache=True, _nrt=False)
def _external(net, tk, st, i, k, now):
    """The action given from outside (``st.reg[7]``, checked by its caller): the index of
    one of :func:`view`'s candidates."""
    n = view(net, tk, st, i, k, now)
    a = st.reg[7]
    return _single(st, st.ibuf[a] if 0 <= a < n else -1, 0)


@njit(cache=True, inline="always", _nrt=False)
def decide(net, tk, pol, user, st, i, k, hops, now):
    """Where task ``i`` at node ``k`` goes (module docstring)."""
    code = pol.code
    if code == LOCAL:
        return _single(st, net.home[k], 0)
    if code == CLOUD:
        return _single(st, net.cloud, 0)
    if code == RANDOM or code == JSQ or code == POD:
        n = _candidates(net, st, k)
        if n == 0:
            return _single(st, net.cloud, 0)
        if code == RANDOM:
            return _single(st, st.ibuf[min(int(tk.u[i, 0] * n), n - 1)], 0)
        if code == POD:
            d = int(pol.par[P_D])
            for a in range(d):  # draws with replacement, moved to the front
                pick = min(int(tk.u[i, a] * n), n - 1)
                st.ibuf[n + a] = st.ibuf[pick]
            for a in range(d):
                st.ibuf[a] = st.ibuf[n + a]
            n = d
        b = _shortest(net, st, n, True)
        return _single(st, b if b >= 0 else net.cloud, 0)
    if code == THRESHOLD:
        return _threshold(net, tk, pol, st, i, k, hops)
    if code == OVERFLOW:
        return _overflow(net, tk, pol, st, i, k)
    if code == REPLICATE:
        return _replicate(net, st, pol, k)
    if code == RED:
        return _red(net, tk, pol, st, i, k)
    if code == HEDGE:
        return _hedge(net, tk, pol, st, i, k)
    if code == EXTERNAL:
        return _external(net, tk, st, i, k, now)
    return _user(net, tk, pol, user, st, i, k, now)
