"""The arena as a learning environment: a Gymnasium env over the compiled engine.

A *decision* is a task arriving at its node. The engine (:func:`workbench.arena.kernels._loop`,
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
    marks the candidates that can take the task: present and not full (when every
    candidate is full, every present one: the task is lost wherever it goes). A masked or
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

import gymnasium
import numpy as np
from gymnasium import spaces
from numba import njit
from numba.typed import List

from workbench.arena import kernels as K
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import R_ACTION, R_NODE, R_PAUSED, R_PHASE, R_TASK, Policy
from workbench.arena.policies import (
    C_NODE,
    CAND_FIELDS,
    EXTERNAL,
    N_PAR,
    T_SIZE,
    TASK_FIELDS,
    no_user,
    view,
)
from workbench.arena.simulation import PolicyError, _compiled, _records, _scenario
from workbench.kernels.events import new_lane, new_queue
from workbench.seeding import replication_seeds
from workbench.validation import ParameterError, check_choice, check_int, check_real

__all__ = ["ArenaEnv", "OBSERVATIONS"]

#: the observation layouts ``ArenaEnv(observation=...)`` offers
OBSERVATIONS = ("dict", "flat")
#: slots of the per-episode accumulator ``acc``: tasks present, energy so far (J), the
#: transmission energy so far (J), the episode's start, tasks lost so far
A_PRESENT, A_ENERGY, A_TX, A_START, A_LOST = range(5)
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
    room = 0
    for a in range(cand.shape[1]):
        for r in range(cand.shape[0]):
            cand[r, a] = st.fbuf[r, a] if a < n else 0.0
        mask[a] = 1 if a < n and st.n_in[st.ibuf[a]] < net.capacity[st.ibuf[a]] else 0
        room += mask[a]
    for f in range(task.shape[0]):
        task[f] = st.task[f]
    if np.isnan(task[T_SIZE]):
        task[T_SIZE] = -1.0
    if room == 0:  # every candidate full: the task is lost wherever it goes
        for a in range(n):
            mask[a] = 1


@njit(cache=True, _nrt=False)
def _step(net, tk, pol, user, st, q, area, present, acc, action, penalty, out, cand, task, mask):
    """Place the pending task at candidate ``action`` (checked by the caller), run to the
    next decision (or the end) and account for the time between: ``out`` gets
    ``[time in system, energy, tasks lost, done]``; the next decision's view is written."""
    a_time = st.clock[1]
    i = st.reg[R_TASK]
    present[int(acc[A_PRESENT])] = i
    st.reg[R_ACTION] = action
    K._loop(net, tk, pol, 0, user, st, q, area[0], area[1])
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
    acc[A_LOST] += lost
    done = st.reg[R_PHASE] != R_PAUSED
    out[3] = 1.0 if done else 0.0
    if not done:
        _observe(net, tk, st, cand, task, mask)


@njit(cache=True, _nrt=False)
def _start(net, tk, pol, user, st, q, area, acc, cand, task, mask):
    """Run a fresh episode to its first decision; False if it has none."""
    K._loop(net, tk, pol, 0, user, st, q, area[0], area[1])
    if st.reg[R_PHASE] != R_PAUSED:
        return False
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    acc[A_START] = st.clock[1]
    acc[A_ENERGY] = _energy(net, st, st.clock[1], st.clock[1], 0.0)
    _observe(net, tk, st, cand, task, mask)
    return True


def candidate_counts(net) -> np.ndarray:
    """Each node's number of candidates (itself if it serves, its serving neighbours, the
    cloud), as :func:`~workbench.arena.policies.view` lists them."""
    out = np.zeros(len(net.servers), np.int64)
    for k in range(len(net.servers)):
        nb = net.nbr_idx[net.nbr_ptr[k] : net.nbr_ptr[k + 1]]
        mine = int(net.servers[k] > 0 and k != net.cloud)
        out[k] = mine + int(np.sum((net.servers[nb] > 0) & (nb != net.cloud))) + (net.cloud >= 0)
    return out


def deciding_nodes(sc) -> np.ndarray:
    """The indices of the nodes where the scenario's tasks appear (its workload's sources,
    or the source column of its traces)."""
    pos = {node.id: k for k, node in enumerate(sc.nodes)}
    ids = set()
    for w in sc.workload:
        ids |= set(w.table.nodes) if hasattr(w, "table") else {w.source}
    return np.array(sorted(pos[x] for x in ids), dtype=np.int64)


class Episode:
    """One episode's engine state: the tasks, the engine's buffers and the accounting."""

    def __init__(self, net, tk, width: int):
        n, n_nodes = len(tk.t), len(net.servers)
        deg = np.diff(net.nbr_ptr)
        self.net, self.tk = net, tk
        self.pol = Policy(EXTERNAL, np.zeros(N_PAR))
        self.st = K._state(n_nodes, n, 1, int(deg.max()) if deg.size else 0, tk.u.shape[1])
        self.q = K._Pending(new_queue(n + 2), new_lane(4096))
        self.area = np.zeros((2, n_nodes))
        self.present = np.zeros(n + 1, np.int64)
        self.acc = np.zeros(5)
        self.out = np.zeros(4)
        self.cand = np.zeros((N_CAND, width))
        self.task = np.zeros(N_TASK)
        self.mask = np.zeros(width, np.int8)

    def start(self) -> bool:
        return bool(
            _start(
                self.net,
                self.tk,
                self.pol,
                no_user,
                self.st,
                self.q,
                self.area,
                self.acc,
                self.cand,
                self.task,
                self.mask,
            )
        )

    def step(self, action: int, penalty: float) -> None:
        _step(
            self.net,
            self.tk,
            self.pol,
            no_user,
            self.st,
            self.q,
            self.area,
            self.present,
            self.acc,
            action,
            penalty,
            self.out,
            self.cand,
            self.task,
            self.mask,
        )


class ArenaEnv(gymnasium.Env):
    """A scenario of the arena as a Gymnasium environment (the module docstring).

    ``scenario``: a :class:`~workbench.arena.Scenario`, its dict, a file path or a shipped
    name. ``tasks``: tasks per episode (1000 when no ``horizon``), or ``horizon``: the
    episode's length in seconds (the tasks arriving before it). ``observation``: ``"dict"``
    or ``"flat"``. ``energy_weight`` (s/J, >= 0) and ``loss_penalty`` (s per lost task,
    >= 0): the reward's terms.
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
        self.scenario = _scenario(scenario, f)
        self.net = _compiled(self.scenario, f)
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
        counts = candidate_counts(self.net)[deciding_nodes(self.scenario)]
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
        """A new episode: with ``seed``, replication 0 of ``simulate(seed=seed)``'s tasks;
        without, the next replication of the last seed given (of 0 if none)."""
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
        self.ep = Episode(self.net, tk, self.width)
        self.ep.start()
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
        """Place the pending task at candidate ``action``; run to the next decision."""
        f = "ArenaEnv.step"
        ep = self.ep
        if ep is None or self._done:
            raise ParameterError(f"{f}: call reset() first (the episode is over or not begun).")
        a = action.item() if isinstance(action, np.ndarray) and action.size == 1 else action
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise PolicyError(
                f"{f}: the 'action' must be an int candidate index in [0, {self.width - 1}]. "
                f"Got {action!r}."
            )
        a = int(a)
        if not 0 <= a < self.width or not ep.mask[a]:
            valid = np.flatnonzero(ep.mask).tolist()
            i = int(ep.st.reg[R_TASK])
            why = "out of range" if not 0 <= a < self.width else "masked (absent or full)"
            raise PolicyError(
                f"{f}: action {a} for task {i} (at node "
                f"{self.scenario.nodes[int(ep.st.reg[R_NODE])].id!r}) is {why}; the "
                f"'action' must be one of the unmasked candidates {valid} (info['action_mask'])."
                " The task is still waiting for a valid action."
            )
        ep.step(a, self.loss_penalty)
        out = ep.out
        reward = -(float(out[0]) + self.energy_weight * float(out[1]))
        self._done = bool(out[3])
        return self._obs(), reward, self._done, False, self._info(out)

    # -- what the episode did ------------------------------------------------------------
    @property
    def node_ids(self) -> list[str]:
        return [node.id for node in self.scenario.nodes]

    def candidates(self) -> list[str]:
        """The node ids of the pending decision's candidates, in action order."""
        ep = self.ep
        if ep is None or self._done:
            raise ParameterError("ArenaEnv.candidates: no decision is pending.")
        n = int(candidate_counts(self.net)[int(ep.st.reg[R_NODE])])
        return [self.node_ids[int(x)] for x in ep.cand[C_NODE, :n]]

    def records(self):
        """The finished episode's per-task records, in the columns of
        ``simulate(records=True)`` (without ``replication``)."""
        if self.ep is None or not self._done:
            raise ParameterError("ArenaEnv.records: the episode is not finished.")
        st, tk = self.ep.st, self.ep.tk
        keep = slice(0, len(tk.t))
        return _records(
            self.scenario,
            tk,
            keep,
            st.finish,
            st.where,
            st.t_ncopies,
            st.t_hops,
            st.energy_tx,
            st.t_start,
        )


@njit(cache=True)
def _step_all(
    net, tks, pol, user, sts, qs, areas, presents, accs, actions, penalty, outs, cands, tasks, masks
):
    """One step of every episode of a batch (:class:`BatchEnv`), in one compiled call."""
    for b in range(len(sts)):
        _step(
            net,
            tks[b],
            pol,
            user,
            sts[b],
            qs[b],
            areas[b],
            presents[b],
            accs[b],
            actions[b],
            penalty,
            outs[b],
            cands[b],
            tasks[b],
            masks[b],
        )


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
        self._list = List
        self.episodes = [None] * self.size
        self._seed = 0
        self._count = 0

    def _episode(self, b: int) -> Episode:
        (seed_seq,) = replication_seeds(self._seed, 1, b + self.size * self._count_of[b])
        ep = Episode(self.env.net, self.env._draw(seed_seq), self.env.width)
        ep.start()
        return ep

    def _gather(self):
        eps = self.episodes
        self._sts, self._tks, self._qs = (
            self._list([getattr(e, a) for e in eps]) for a in ("st", "tk", "q")
        )
        for name in ("area", "present", "acc", "out", "cand", "task", "mask"):
            setattr(self, f"_{name}", np.stack([getattr(e, name) for e in eps]))
        for b, e in enumerate(eps):  # each episode works in its row of the stacks
            e.area, e.present, e.acc = self._area[b], self._present[b], self._acc[b]
            e.out, e.cand, e.task, e.mask = (
                self._out[b],
                self._cand[b],
                self._task[b],
                self._mask[b],
            )

    def reset(self, *, seed: int = 0):
        self._seed = check_int(seed, "seed", "BatchEnv.reset", 0, 2**63 - 1)
        self._count_of = [0] * self.size
        self.episodes = [self._episode(b) for b in range(self.size)]
        self._gather()
        return self._obs(), {"action_mask": self._mask.copy()}

    def _obs(self):
        return {"cand": self._cand.copy(), "task": self._task.copy()}

    def step(self, actions):
        a = np.asarray(actions)
        if a.shape != (self.size,) or a.dtype.kind not in "iu":
            raise PolicyError(
                f"BatchEnv.step: the 'actions' must be {self.size} int candidate indices. "
                f"Got {actions!r}."
            )
        a = a.astype(np.int64)
        rows = np.arange(self.size)
        ok = (a >= 0) & (a < self.env.width)
        ok[ok] = self._mask[rows[ok], a[ok]] == 1
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            raise PolicyError(
                f"BatchEnv.step: action {int(a[b])} of episode {b} is out of range or masked; "
                f"it must be one of {np.flatnonzero(self._mask[b]).tolist()} "
                "(info['action_mask'][b]). No episode moved."
            )
        _step_all(
            self.env.net,
            self._tks,
            self.episodes[0].pol,
            no_user,
            self._sts,
            self._qs,
            self._area,
            self._present,
            self._acc,
            a,
            self.env.loss_penalty,
            self._out,
            self._cand,
            self._task,
            self._mask,
        )
        out = self._out
        rewards = -(out[:, 0] + self.env.energy_weight * out[:, 1])
        done = out[:, 3] > 0
        info = {
            "time_in_system": out[:, 0].copy(),
            "energy": out[:, 1].copy(),
            "lost": out[:, 2].astype(np.int64),
        }
        if done.any():
            for b in np.flatnonzero(done):
                self._count_of[b] += 1
                self.episodes[b] = self._episode(int(b))
            self._gather()
        info["action_mask"] = self._mask.copy()
        return self._obs(), rewards, done, np.zeros(self.size, bool), info
