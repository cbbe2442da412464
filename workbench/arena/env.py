"""The arena as a learning environment: a Gymnasium env over the compiled engine.

A *decision* is a task arriving at its node. The engine (:func:`workbench.arena.kernels.loop`,
the loop :func:`~workbench.arena.simulate` runs) runs until the next task needs a placement
and returns; :meth:`ArenaEnv.step` hands it the agent's choice and it resumes. Nothing of
the simulation is re-implemented here: driving the env with a built-in policy's choices
gives the per-task records of ``simulate(policy=..., records=True)`` bit for bit.

Observation (``observation="dict"``, the default)
    ``"cand"``: float64 ``(6, K)``, one column per candidate, the rows
    :data:`~workbench.arena.policies.CAND_FIELDS` (node index, tasks held, servers --
    ``inf`` for an unbounded cloud --, speed, propagation delay from the deciding node, this
    task's transmission time). The candidates are the deciding node (if it serves), its
    serving neighbours by link delay, then the cloud: exactly the ``cand`` array an
    :func:`@arena.policy <workbench.arena.policy>` sees, padded with zero columns to the
    largest candidate count ``K`` of the scenario.
    ``"task"``: float64 ``(7,)``, the fields :data:`~workbench.arena.policies.TASK_FIELDS`
    (clock, arrival, workload entry, type (-1: untyped), relative deadline (``inf``: none),
    size (-1 unless the scenario declares sizes known), deciding node).
    ``observation="flat"``: the two concatenated (``cand`` row by row, then ``task``).
Action
    The candidate's column index (``Discrete(K)``). ``info["action_mask"]`` (int8, ``K``)
    marks the candidates that can take the task: present, with servers and not full (when
    none can, every present one: the task is lost wherever it goes;
    :func:`~workbench.arena.policies.room_mask`). A masked or
    out-of-range action raises :class:`~workbench.arena.simulation.PolicyError`; the
    task stays where it was, undecided.
Reward
    Minus the time all tasks spend in the system between this decision and the next (the
    integral of the number of tasks present), so an episode's return is minus the total
    time in system of its tasks: minus the sum of the completed tasks' delays, minus, for
    each lost task, the time until it was lost plus ``loss_penalty`` seconds. With
    ``energy_weight`` w (s per J) the reward also charges w times the energy spent between
    the two decisions (the nodes' busy and idle power, the transmissions).
    ``info["time_in_system"]``, ``info["energy"]`` and ``info["lost"]`` give the parts.
Episodes
    ``tasks`` tasks, or the tasks arriving before ``horizon`` seconds. The last step runs
    the engine until every task has completed or been lost (``terminated=True``).
    ``reset(seed=s)``: episode ``e`` after it (``reset()`` without a seed moves on) draws
    the tasks of replication ``e`` of ``simulate(seed=s)``: child ``e`` of
    ``SeedSequence(s)``, the same for every policy (common random numbers).
"""

from __future__ import annotations

from typing import NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from numba import njit, typeof, types
from numba.core.extending import overload
from numba.experimental import structref

from workbench.arena import kernels as K
from workbench.arena.compile import check_run, draw_tasks
from workbench.arena.kernels import R_ACTION, R_NODE, R_PAUSED, R_PHASE, R_TASK, Policy
from workbench.arena.policies import (
    C_NODE,
    CAND_FIELDS,
    EXTERNAL,
    N_PAR,
    T_SIZE,
    TASK_FIELDS,
    USER_SIG,
    no_user,
    room_mask,
    view,
)
from workbench.arena.simulation import PolicyError, as_scenario, checked_net, task_records
from workbench.kernels.events import new_lane, new_queue
from workbench.seeding import replication_seeds
from workbench.validation import ParameterError, check_choice, check_int, check_real

__all__ = ["ArenaEnv", "OBSERVATIONS"]

#: the observation layouts ``ArenaEnv(observation=...)`` offers
OBSERVATIONS = ("dict", "flat")
#: slots of the per-episode accumulator ``acc``: tasks present, energy so far (J), the
#: transmission energy so far (J), the episode's start
A_PRESENT, A_ENERGY, A_TX, A_START = range(4)
N_CAND, N_TASK = len(CAND_FIELDS), len(TASK_FIELDS)


@njit(cache=True, _nrt=False)
def _energy(net, st, now, start, tx):
    """The energy spent from ``start`` to ``now`` (J): busy and idle server-time per node,
    as :func:`~workbench.arena.simulate` counts it, plus the transmissions ``tx``."""
    e = tx
    for k in range(st.area.shape[0]):
        busy = st.area[k] + st.busy[k] * (now - st.last[k])
        e += net.power_busy[k] * busy
        if net.servers[k] < K.BIG:
            e += net.power_idle[k] * (net.servers[k] * (now - start) - busy)
    return e


@njit(cache=True, _nrt=False)
def _observe(net, tk, st, cand, task, mask):
    """The pending decision's view into ``cand``, ``task`` and ``mask``."""
    i, k = st.reg[R_TASK], st.reg[R_NODE]
    n = view(net, tk, st, i, k, st.clock[1])
    for a in range(cand.shape[1]):
        for r in range(cand.shape[0]):
            cand[r, a] = st.fbuf[r, a] if a < n else 0.0
    room_mask(net, st, st.ibuf, n, mask)
    for f in range(task.shape[0]):
        task[f] = st.task[f]
    if np.isnan(task[T_SIZE]):
        task[T_SIZE] = -1.0


@njit(cache=True, _nrt=False)
def _step(net, tk, pol, user, st, q, area, present, acc, action, penalty, out, cand, task, mask):
    """Place the pending task at candidate ``action`` (checked by the caller), run to the
    next decision (or the end) and account for the time between: ``out`` gets
    ``[time in system, energy, tasks lost, done]``; the next decision's view is written."""
    a_time = st.clock[1]
    i = st.reg[R_TASK]
    present[int(acc[A_PRESENT])] = i
    st.reg[R_ACTION] = action
    K.loop(net, tk, pol, 0, user, st, q, area[0], area[1])
    acc[A_TX] += st.energy_tx[i]
    b_time = st.clock[1]
    # each task present in [a_time, b_time] until it leaves; those that left are dropped
    spent, lost, kept = 0.0, 0, 0
    for j in range(int(acc[A_PRESENT]) + 1):
        t = present[j]
        gone = st.where[t] >= 0 or st.t_alive[t] <= 0
        if gone:
            leave = st.finish[t] if st.where[t] >= 0 else st.t_lost[t]
            lost += 0 if st.where[t] >= 0 else 1
            spent += leave - a_time
        else:
            spent += b_time - a_time
            present[kept] = t
            kept += 1
    acc[A_PRESENT] = kept
    energy = _energy(net, st, b_time, acc[A_START], acc[A_TX])
    out[0] = spent + lost * penalty
    out[1] = energy - acc[A_ENERGY]
    out[2] = lost
    acc[A_ENERGY] = energy
    done = st.reg[R_PHASE] != R_PAUSED
    out[3] = 1.0 if done else 0.0
    if not done:
        _observe(net, tk, st, cand, task, mask)


@njit(cache=True, _nrt=False)
def _start(net, tk, pol, user, st, q, area, acc, cand, task, mask):
    """Run a fresh episode to its first decision; False if it has none."""
    K.loop(net, tk, pol, 0, user, st, q, area[0], area[1])
    if st.reg[R_PHASE] != R_PAUSED:
        return False
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    acc[A_START] = st.clock[1]
    acc[A_ENERGY] = _energy(net, st, st.clock[1], st.clock[1], 0.0)
    _observe(net, tk, st, cand, task, mask)
    return True


def candidates(net, k: int) -> np.ndarray:
    """Node ``k``'s candidates in :func:`~workbench.arena.policies.view`'s order: ``k``
    itself if it serves, its serving neighbours by link delay, then the cloud."""
    nb = net.nbr_idx[net.nbr_ptr[k] : net.nbr_ptr[k + 1]]
    own = [k] if net.servers[k] > 0 and k != net.cloud else []
    serving = [int(b) for b in nb if net.servers[b] > 0 and b != net.cloud]
    return np.array(own + serving + ([net.cloud] if net.cloud >= 0 else []), np.int64)


def deciding_nodes(sc) -> np.ndarray:
    """The indices of the nodes where the scenario's tasks appear (its workload's sources,
    or the source column of its traces)."""
    pos = {node.id: k for k, node in enumerate(sc.nodes)}
    ids = {node for w in sc.workload for node in w.nodes}
    return np.array(sorted(pos[x] for x in ids), dtype=np.int64)


def checked_action(action, mask, f: str, who, note: str) -> int:
    """An agent's action as the index of a candidate that ``mask`` allows.

    Parameters
    ----------
    action : int or numpy integer
        The action (a one-element array too).
    mask : numpy.ndarray of int8
        The action mask, one entry per candidate.
    f : str
        The caller's name, for the message.
    who : callable
        ``who()`` says whose action it is (``"of agent 'e1'"``); called only for a message.
    note : str
        The message's closing words.

    Returns
    -------
    int
        The action, or a :class:`~workbench.arena.simulation.PolicyError` naming it, its
        fault (not an int, out of range, masked) and the unmasked candidates.
    """
    a = action.item() if isinstance(action, np.ndarray) and action.size == 1 else action
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise PolicyError(
            f"{f}: the action {who()} must be an int candidate index in [0, {len(mask) - 1}]. "
            f"Got {action!r} {note}"
        )
    if not 0 <= a < len(mask) or not mask[a]:
        why = "out of range" if not 0 <= a < len(mask) else "masked (absent or full)"
        raise PolicyError(
            f"{f}: action {a} {who()} is {why}; it must be one of the unmasked candidates "
            f"{np.flatnonzero(mask).tolist()} {note}"
        )
    return int(a)


class _Rows(NamedTuple):
    """An episode's accounting and its view of the pending decision (one row per episode of
    an :class:`Episodes` store): busy areas, the tasks present, the accumulator ``acc``
    (slots ``A_*``), the last step's ``out``, and the observation ``cand``, ``task`` and
    ``mask``."""

    area: np.ndarray
    present: np.ndarray
    acc: np.ndarray
    out: np.ndarray
    cand: np.ndarray
    task: np.ndarray
    mask: np.ndarray


def row_of(tup, b):
    """Row ``b`` of each array of the named tuple ``tup`` (views), as the same named tuple."""
    return type(tup)(*(x[b] for x in tup))


@overload(row_of, inline="always", jit_options={"_nrt": False})
def _row_compiled(tup, b):
    # the fields are known when the call is typed: one view per field, written out
    fields = ", ".join(f"tup[{j}][b]" for j in range(len(tup)))
    scope = {"cls": tup.instance_class}
    exec(f"def row(tup, b):\n    return cls({fields})\n", scope)  # noqa: S102
    return scope["row"]


@structref.register
class _StoreType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class _Store(structref.StructRefProxy):
    """The compiled side of :class:`Episodes`: one reference to all its arrays, so a call
    from Python unboxes one object, not some eighty arrays."""


_STORE_FIELDS = ("net", "pol", "user", "tk", "state", "heap", "lane", "rows")
structref.define_proxy(_Store, _StoreType, list(_STORE_FIELDS))


def _new_store(net, pol, user, tk, state, heap, lane, rows):
    return _Store(net, pol, user, tk, state, heap, lane, rows)


_NEW_STORE = []


def _store(*fields) -> _Store:
    """A :class:`_Store` of these arrays; the user function is typed as the engine's
    (:data:`~workbench.arena.policies.USER_SIG`), so the env runs the very loop
    ``simulate`` compiled."""
    if not _NEW_STORE:
        kinds = [typeof(x) for x in fields]
        kinds[2] = types.FunctionType(USER_SIG)
        sig = _StoreType(list(zip(_STORE_FIELDS, kinds, strict=True)))(*kinds)
        _NEW_STORE.append(njit(sig, cache=True)(_new_store))
    return _NEW_STORE[0](*fields)


@njit(cache=True, _nrt=False)
def _steps_of(net, pol, user, tk, st, heap, lane, rows, lo, actions, penalty):
    for j in range(actions.shape[0]):
        b = lo + j
        _step(
            net,
            row_of(tk, b),
            pol,
            user,
            row_of(st, b),
            K.Pending(row_of(heap, b), row_of(lane, b)),
            rows.area[b],
            rows.present[b],
            rows.acc[b],
            actions[j],
            penalty,
            rows.out[b],
            rows.cand[b],
            rows.task[b],
            rows.mask[b],
        )


@njit(cache=True)
def _store_step(s, lo, actions, penalty):
    """Step episodes ``lo .. lo + len(actions) - 1`` of the store ``s``, one compiled call."""
    _steps_of(s.net, s.pol, s.user, s.tk, s.state, s.heap, s.lane, s.rows, lo, actions, penalty)


@njit(cache=True, _nrt=False)
def _start_of(net, pol, user, tk, st, heap, lane, rows, b):
    r = rows
    q = K.Pending(row_of(heap, b), row_of(lane, b))
    args = (r.area[b], r.acc[b], r.cand[b], r.task[b], r.mask[b])
    return _start(net, row_of(tk, b), pol, user, row_of(st, b), q, *args)


@njit(cache=True)
def _store_start(s, b):
    """Run episode ``b`` of the store ``s`` (fresh) to its first decision."""
    return _start_of(s.net, s.pol, s.user, s.tk, s.state, s.heap, s.lane, s.rows, b)


class Episode:
    """Episode ``b`` of an :class:`Episodes` store, as views: ``tk``, ``st`` (the engine's
    state) and its rows ``area``, ``present``, ``acc``, ``out``, ``cand``, ``task``,
    ``mask``."""

    def __init__(self, store: Episodes, b: int):
        self.tk, self.st = row_of(store.tk, b), row_of(store.st, b)
        for name, x in zip(_Rows._fields, row_of(store.rows, b), strict=True):
            setattr(self, name, x)


class Episodes:
    """``size`` episodes of ``n`` tasks each on one scenario, their arrays stacked (row ``b``:
    episode ``b``) and held by one compiled reference, so that :meth:`step` steps any run of
    them in one compiled call whose Python side unboxes one object."""

    def __init__(self, net, n: int, width: int, size: int, copies: int = 1, uniforms: int = 2):
        deg = np.diff(net.nbr_ptr)
        n_nodes = len(net.servers)
        self.net, self.n, self.size = net, n, size
        self.pol = Policy(EXTERNAL, np.zeros(N_PAR), err=np.zeros(4, np.int64))  # its own
        # the fresh state of one episode, copied into a row when an episode starts
        self._fresh = (
            K.new_state(n_nodes, n, copies, int(deg.max()) if deg.size else 0, uniforms),
            new_queue(n * copies + 2),
            new_lane(4096),
        )
        st, heap, lane = (
            type(x)(*(np.empty((size, *a.shape), a.dtype) for a in x)) for x in self._fresh
        )
        self.st, self.heap, self.lane = st, heap, lane
        self.tk = K.Tasks.zeros(n, copies, uniforms, rows=size)
        self.rows = _Rows(
            np.zeros((size, 2, n_nodes)),
            np.zeros((size, n + 1), np.int64),
            np.zeros((size, 4)),
            np.zeros((size, 4)),
            np.zeros((size, N_CAND, width)),
            np.zeros((size, N_TASK)),
            np.zeros((size, width), np.int8),
        )
        self.ref = _store(net, self.pol, no_user, self.tk, st, heap, lane, self.rows)
        self._act = np.zeros(1, np.int64)

    def start(self, b: int, tk) -> None:
        """Episode ``b`` starts afresh on the tasks ``tk`` and runs to its first decision."""
        for stacked, one in zip(self.tk, tk, strict=True):
            stacked[b] = one
        for stacked, fresh in zip((self.st, self.heap, self.lane), self._fresh, strict=True):
            for x, y in zip(stacked, fresh, strict=True):
                x[b] = y
        self.rows.area[b] = 0.0
        _store_start(self.ref, b)

    def step(self, actions: np.ndarray, penalty: float, lo: int = 0) -> None:
        """Place each episode's pending task (``lo`` onwards) at its candidate ``actions``
        (checked by the caller) and run each to its next decision."""
        _store_step(self.ref, lo, actions, penalty)

    def step_one(self, b: int, action: int, penalty: float) -> None:
        self._act[0] = action
        _store_step(self.ref, b, self._act, penalty)


class ArenaEnv(gymnasium.Env):
    """A scenario of the arena as a Gymnasium environment (the module docstring).

    Parameters
    ----------
    scenario : Scenario, dict, str or path
        A :class:`~workbench.arena.Scenario`, its dict, a file path or a shipped name.
    tasks : int, optional
        Tasks per episode (1 to 10**7; 1000 when no ``horizon``).
    horizon : float, optional
        Or the episode's length (s, > 0): the tasks arriving before it.
    observation : {"dict", "flat"}
        The observation's layout.
    energy_weight : float
        The reward's charge per joule (s/J, >= 0).
    loss_penalty : float
        The reward's charge per lost task (s, >= 0).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario="neutral",
        *,
        tasks: int | None = None,
        horizon: float | None = None,
        observation: str = "dict",
        energy_weight: float = 0.0,
        loss_penalty: float = 1.0,
    ):
        f = "ArenaEnv"
        self.scenario = as_scenario(scenario, f)
        self.net = checked_net(self.scenario, f)
        if tasks is not None and horizon is not None:
            raise ParameterError(
                f"{f}: give 'tasks' (tasks per episode) or 'horizon' (seconds), not both; got "
                f"tasks={tasks!r}, horizon={horizon!r}."
            )
        self.horizon = (
            None if horizon is None else check_real(horizon, "horizon", f, 0.0, 1e9, low_open=True)
        )
        self.tasks = (
            None
            if self.horizon is not None
            else check_int(1000 if tasks is None else tasks, "tasks", f, 1, 10**7)
        )
        self.observation = check_choice(observation, "observation", f, OBSERVATIONS)
        self.energy_weight = check_real(energy_weight, "energy_weight", f, 0.0, 1e9)
        self.loss_penalty = check_real(loss_penalty, "loss_penalty", f, 0.0, 1e9)
        counts = np.array([len(candidates(self.net, k)) for k in deciding_nodes(self.scenario)])
        if counts.max(initial=0) < 2:
            raise ParameterError(
                f"{f}: scenario {self.scenario.name!r} has no decision to make: no node has "
                "two candidates (itself or a serving neighbour, and the cloud) to choose from."
            )
        self.width = int(counts.max())
        self.action_space = spaces.Discrete(self.width)
        cand = spaces.Box(0.0, np.inf, (N_CAND, self.width), np.float64)
        task = spaces.Box(-1.0, np.inf, (N_TASK,), np.float64)
        if self.observation == "dict":
            self.observation_space = spaces.Dict({"cand": cand, "task": task})
        else:
            size = N_CAND * self.width + N_TASK
            low = np.concatenate([np.zeros(N_CAND * self.width), np.full(N_TASK, -1.0)])
            self.observation_space = spaces.Box(low, np.inf, (size,), np.float64)
        self._root = None
        self._episode = -1
        self._store = None
        self.ep = None

    # -- episodes ------------------------------------------------------------------------
    def _draw(self, seed_seq):
        # the SeedSequence itself roots draw_tasks' streams, as in simulate's replications
        if self.horizon is None:
            return draw_tasks(self.scenario, self.tasks, 1, 2, seed_seq)
        n = int(self.scenario.total_rate * self.horizon * 1.2 + 20)
        for _ in range(40):
            tk = draw_tasks(self.scenario, n, 1, 2, seed_seq)  # the same tasks, more of them
            keep = int(np.searchsorted(tk.t, self.horizon, side="left"))
            if keep < n:
                return K.Tasks(*(np.ascontiguousarray(x[:keep]) for x in tk))
            n *= 2
        raise ParameterError(f"ArenaEnv: no end to the tasks before horizon={self.horizon}")

    def reset(self, *, seed=None, options=None):
        """A new episode.

        Parameters
        ----------
        seed : int, optional
            With a seed, the tasks of replication 0 of ``simulate(seed=seed)``; without,
            the next replication of the last seed given (of 0 if none).
        options : dict, optional
            Unused (Gymnasium's API).

        Returns
        -------
        tuple
            The first decision's observation and its ``info`` (``action_mask``, ``task``).
        """
        super().reset(seed=seed)
        if seed is not None or self._root is None:
            self._root = 0 if seed is None else int(seed)
            self._episode = 0
        else:
            self._episode += 1
        (seed_seq,) = replication_seeds(self._root, 1, self._episode)
        tk = self._draw(seed_seq)
        if len(tk.t) == 0:
            raise ParameterError(
                f"ArenaEnv.reset: scenario {self.scenario.name!r} has no decision to make in "
                f"an episode of horizon={self.horizon} s: no task arrives before it."
            )
        n = len(tk.t)
        if self._store is None or self._store.n != n:  # horizon episodes: a store per length
            self._store = Episodes(self.net, n, self.width, 1)
        self._store.start(0, tk)
        self.ep = Episode(self._store, 0)
        self._done = False
        return self._obs(), self._info(None)

    def _obs(self):
        ep = self.ep
        if self.observation == "dict":
            return {"cand": ep.cand.copy(), "task": ep.task.copy()}
        return np.concatenate([ep.cand.reshape(-1), ep.task])

    def _info(self, out):
        ep = self.ep
        info = {"action_mask": ep.mask.copy(), "task": int(ep.st.reg[R_TASK])}
        if out is not None:
            info["time_in_system"], info["energy"] = float(out[0]), float(out[1])
            info["lost"] = int(out[2])
        return info

    def step(self, action):
        """Place the pending task and run to the next decision.

        Parameters
        ----------
        action : int
            The candidate's column index; it must be unmasked (``info["action_mask"]``),
            else :class:`~workbench.arena.simulation.PolicyError` and the task waits.

        Returns
        -------
        tuple
            ``(observation, reward, terminated, truncated, info)`` (the module docstring);
            ``info`` has the next ``action_mask``, ``time_in_system``, ``energy`` and
            ``lost``.
        """
        f = "ArenaEnv.step"
        ep = self.ep
        if ep is None or self._done:
            raise ParameterError(f"{f}: call reset() first (the episode is over or not begun).")

        def who():
            node = self.scenario.nodes[int(ep.st.reg[R_NODE])].id
            return f"for task {int(ep.st.reg[R_TASK])} (at node {node!r})"

        note = "(info['action_mask']); the task is still waiting for a valid action."
        a = checked_action(action, ep.mask, f, who, note)
        self._store.step_one(0, a, self.loss_penalty)
        out = ep.out
        reward = -(float(out[0]) + self.energy_weight * float(out[1]))
        self._done = bool(out[3])
        return self._obs(), reward, self._done, False, self._info(out)

    # -- what the episode did ------------------------------------------------------------
    def candidates(self) -> list[str]:
        """The pending decision's candidates.

        Returns
        -------
        list of str
            Their node ids, in action order.
        """
        ep = self.ep
        if ep is None or self._done:
            raise ParameterError("ArenaEnv.candidates: no decision is pending.")
        n = len(candidates(self.net, int(ep.st.reg[R_NODE])))
        return [self.scenario.nodes[int(x)].id for x in ep.cand[C_NODE, :n]]

    def records(self):
        """The finished episode's per-task records.

        Returns
        -------
        pandas.DataFrame
            One row per task, in the columns of ``simulate(records=True)`` (without
            ``replication``).
        """
        if self.ep is None or not self._done:
            raise ParameterError("ArenaEnv.records: the episode is not finished.")
        # copies: the next episode reuses the arrays, and the records are the caller's
        st = K.State(*(x.copy() for x in self.ep.st))
        tk = K.Tasks(*(x.copy() for x in self.ep.tk))
        keep = slice(0, len(tk.t))
        fields = (st.finish, st.where, st.t_ncopies, st.t_hops, st.energy_tx, st.t_start)
        return task_records(self.scenario, tk, keep, *fields)


class BatchEnv:
    """``size`` episodes of one scenario stepped together in one compiled call.

    The arrays hold one row per episode: ``reset(seed=s)`` returns observations
    ``{"cand": (size, 6, K), "task": (size, 7)}`` and ``info["action_mask"]`` ``(size, K)``;
    ``step(actions)`` returns them with ``rewards``, ``terminated`` (``(size,)``), a
    ``truncated`` of zeros and ``info`` (``action_mask``, ``time_in_system``, ``energy``,
    ``lost``). An episode that ends starts its next one at once: its row of the returned
    observation is the new episode's first decision (``terminated`` marks it). Episode
    ``e`` of row ``b`` has the tasks of replication ``b + size * e`` of
    ``simulate(seed=s)``. Actions are checked as :meth:`ArenaEnv.step` checks them. The
    options are :class:`ArenaEnv`'s (episodes of ``tasks`` tasks only).
    """

    def __init__(self, scenario="neutral", size: int = 64, **options):
        f = "BatchEnv"
        self.size = check_int(size, "size", f, 1, 100_000)
        if options.get("horizon") is not None:
            raise ParameterError(f"{f}: episodes of a batch are a number of tasks, not a horizon")
        self.env = ArenaEnv(scenario, **options)
        self._store = None
        self._seed = 0

    def _start(self, b: int) -> None:
        e = b + self.size * self._count_of[b]
        (seed_seq,) = replication_seeds(self._seed, 1, e)
        self._store.start(b, self.env._draw(seed_seq))

    def reset(self, *, seed: int = 0):
        """Start every row's first episode.

        Parameters
        ----------
        seed : int
            Row ``b``'s episodes have the tasks of replications ``b``, ``b + size``, ... of
            ``simulate(seed=seed)``.

        Returns
        -------
        tuple
            The observations (``cand``: ``(size, 6, K)``, ``task``: ``(size, 7)``) and
            ``info`` (``action_mask``: ``(size, K)``).
        """
        self._seed = check_int(seed, "seed", "BatchEnv.reset", 0, 2**63 - 1)
        self._count_of = [0] * self.size
        if self._store is None:
            env = self.env
            check_run(env.scenario, env.tasks * self.size, 1, 2, "BatchEnv")
            self._store = Episodes(env.net, env.tasks, env.width, self.size)
        rows = self._store.rows
        self._out, self._cand, self._task, self._mask = rows.out, rows.cand, rows.task, rows.mask
        for b in range(self.size):
            self._start(b)
        return self._obs(), {"action_mask": self._mask.copy()}

    def _obs(self):
        return {"cand": self._cand.copy(), "task": self._task.copy()}

    def step(self, actions):
        """Place each row's pending task and run each to its next decision.

        Parameters
        ----------
        actions : array_like of int
            One unmasked candidate index per row (``size`` of them), checked before any
            row moves.

        Returns
        -------
        tuple
            ``(observations, rewards, terminated, truncated, info)``, one row per episode;
            a row whose episode ended holds its next episode's first decision.
        """
        if self._store is None:
            raise ParameterError("BatchEnv.step: call reset() first.")
        a = np.asarray(actions)
        if a.shape != (self.size,) or a.dtype.kind not in "iu":
            raise PolicyError(
                f"BatchEnv.step: the 'actions' must be {self.size} int candidate indices. "
                f"Got {actions!r}."
            )
        a = a.astype(np.int64)
        ok = (a >= 0) & (a < self.env.width)
        ok[ok] = np.take_along_axis(self._mask, a[:, None], 1)[ok, 0] == 1
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            raise PolicyError(
                f"BatchEnv.step: action {int(a[b])} of episode {b} is out of range or masked; "
                f"it must be one of {np.flatnonzero(self._mask[b]).tolist()} "
                "(info['action_mask'][b]). No episode moved."
            )
        self._store.step(a, self.env.loss_penalty)
        out = self._out
        rewards = -(out[:, 0] + self.env.energy_weight * out[:, 1])
        done = out[:, 3] > 0
        info = {
            "time_in_system": out[:, 0].copy(),
            "energy": out[:, 1].copy(),
            "lost": out[:, 2].astype(np.int64),
        }
        for b in np.flatnonzero(done):  # the row's next episode starts at once
            self._count_of[b] += 1
            self._start(int(b))
        info["action_mask"] = self._mask.copy()
        return self._obs(), rewards, done, np.zeros(self.size, bool), info
