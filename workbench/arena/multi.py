"""The arena as a multi-agent environment: a PettingZoo ``ParallelEnv``, one agent per node
where tasks appear, on the same compiled engine as :class:`~workbench.arena.env.ArenaEnv`.

Design
    Time is cut into slots of ``slot`` seconds, as in the slotted multi-agent offloading
    models (each agent decides, once per slot, where the tasks arriving at its node go).
    :meth:`ArenaParallelEnv.step` takes one action per agent (a candidate index of its node)
    and, in one compiled call, resumes the engine paused at each decision
    (:func:`workbench.arena.kernels.loop` under the ``EXTERNAL`` code): every task arriving
    before the slot's end is placed at the candidate its node's agent chose, the same
    index for the whole slot. The engine stops at the first decision at or after the
    slot's end, so nothing of the simulation is re-implemented: agents that choose what a
    built-in policy chooses (``local``: candidate 0 of a serving node; ``cloud``: the last)
    give ``simulate``'s per-task records bit for bit.
Agents
    The nodes where the scenario's tasks appear (its workload's sources), named by node id.
    Agent ``a``'s candidates are :class:`ArenaEnv`'s for a task at its node: the node itself
    if it serves, its serving neighbours by link delay, then the cloud.
Observation (per agent, a dict)
    ``"cand"``: float64 ``(6, K_a)``, the rows :data:`~workbench.arena.policies.CAND_FIELDS`
    of its candidates (node index, tasks held, servers -- ``inf`` for an unbounded cloud --,
    speed, propagation delay, the transmission time of its node's mean task);
    ``"action_mask"``: int8 ``(K_a,)``, the candidates with room (every one when none has
    room: :func:`~workbench.arena.policies.room_mask`, the single env's rule);
    ``"slot"``: float64 ``(2,)``, the slot's start (s) and the tasks that arrived at
    the node in the last slot. The engine runs event by event only up to decisions, so the
    state observed for a slot is the one the slot's first task sees on arrival (at or after
    the slot's start; the same for every agent).
Action
    ``Discrete(K_a)``: the candidate that takes the node's tasks of the slot. An action out
    of range or masked, a missing agent or an unknown one raises
    :class:`~workbench.arena.simulation.PolicyError` before anything runs (no task moves).
    A candidate that fills up during the slot loses the tasks sent to it once full, as a
    full node loses any task.
Reward (per agent)
    ``reward="own"`` (default): minus the time the agent's own tasks (those that arrived at
    its node) spent in the system during the slot, plus ``loss_penalty`` seconds for each of
    them lost in it. Over an episode, agent ``a``'s return is minus the total time in system
    of its tasks (delays of those served, time until lost plus the penalty for those lost),
    and the agents' returns add up to :class:`ArenaEnv`'s. ``reward="team"``: every agent
    gets the sum (a cooperative game). ``infos[a]``: ``time_in_system`` and ``lost`` of its
    own tasks in the slot.
Episodes
    ``tasks`` tasks or a ``horizon`` (:class:`ArenaEnv`'s); ``reset(seed=s)`` draws the tasks
    of ``simulate(seed=s)``'s replication 0 (later resets without a seed: the next ones).
    The step in which the last task is placed runs the engine until every task has left;
    all agents are then terminated.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from numba import njit
from pettingzoo import ParallelEnv

from workbench.arena import kernels as K
from workbench.arena.env import (
    A_PRESENT,
    N_CAND,
    ArenaEnv,
    Episode,
    Episodes,
    candidates,
    checked_action,
    deciding_nodes,
    row_of,
)
from workbench.arena.kernels import R_ACTION, R_NODE, R_PAUSED, R_PHASE, R_TASK
from workbench.arena.policies import (
    C_DELAY,
    C_NODE,
    C_QUEUE,
    C_SERVERS,
    C_SPEED,
    C_TRANSMISSION,
    room_mask,
)
from workbench.arena.scenario import Source
from workbench.arena.simulation import PolicyError
from workbench.validation import ParameterError, check_choice, check_real

__all__ = ["ArenaParallelEnv", "REWARDS"]

#: the per-agent rewards ``ArenaParallelEnv(reward=...)`` offers
REWARDS = ("own", "team")


@njit(cache=True, _nrt=False)
def _slot(net, tk, pol, user, st, q, area, present, acc, choice, t0, t1, agent_of, out):
    """Place every task arriving before ``t1`` at candidate ``choice[node]`` of its node,
    then charge each agent the time its tasks spent in the system in ``[t0, t1]`` (to the
    end when the engine has finished): ``out[a] = [time, lost, arrived]``."""
    n_p = int(acc[A_PRESENT])
    while st.reg[R_PHASE] == R_PAUSED and st.clock[1] < t1:
        present[n_p] = st.reg[R_TASK]
        n_p += 1
        out[agent_of[st.reg[R_NODE]], 2] += 1
        st.reg[R_ACTION] = choice[st.reg[R_NODE]]
        K.loop(net, tk, pol, 0, user, st, q, area[0], area[1])
    end = t1 if st.reg[R_PHASE] == R_PAUSED else np.inf
    kept = 0
    for j in range(n_p):
        t = present[j]
        a = agent_of[tk.node[t]]
        since = max(tk.t[t], t0)
        leave = np.inf
        if st.where[t] >= 0:
            leave = st.finish[t]
        elif st.t_alive[t] <= 0:
            leave = st.t_lost[t]
        if leave <= end:
            out[a, 0] += leave - since
            out[a, 1] += 0 if st.where[t] >= 0 else 1
        else:
            out[a, 0] += end - since
            present[kept] = t
            kept += 1
    acc[A_PRESENT] = kept
    return st.reg[R_PHASE] != R_PAUSED


@njit(cache=True, _nrt=False)
def _slot_of(net, pol, user, tk, st, heap, lane, rows, choice, t0, t1, agent_of, out):
    q = K.Pending(row_of(heap, 0), row_of(lane, 0))
    r = rows
    args = (r.area[0], r.present[0], r.acc[0], choice, t0, t1, agent_of, out)
    return _slot(net, row_of(tk, 0), pol, user, row_of(st, 0), q, *args)


@njit(cache=True)
def _store_slot(s, choice, t0, t1, agent_of, out):
    """One slot of episode 0 of the store ``s`` (:func:`_slot`), one compiled call."""
    fields = (s.net, s.pol, s.user, s.tk, s.state, s.heap, s.lane, s.rows)
    return _slot_of(*fields, choice, t0, t1, agent_of, out)


@njit(cache=True, _nrt=False)
def _masks_of(net, st, cands, counts, masks):
    for j in range(counts.shape[0]):
        room_mask(net, st, cands[j], counts[j], masks[j])


@njit(cache=True)
def _store_masks(s, cands, counts, masks):
    """Each agent's action mask (row ``j``: agent ``j``'s candidates ``cands[j, :counts[j]]``)
    in episode 0 of the store ``s``, by the engine's room rule."""
    _masks_of(s.net, row_of(s.state, 0), cands, counts, masks)


class ArenaParallelEnv(ParallelEnv):
    """A scenario of the arena as a PettingZoo parallel env (the module docstring).

    Parameters
    ----------
    scenario, tasks, horizon, loss_penalty
        As :class:`ArenaEnv` takes them.
    slot : float
        The slot's length (s, > 0): each agent's action holds for the slot.
    reward : {"own", "team"}
        Each agent's reward: its own tasks' time in system, or the sum over all agents.
    """

    metadata = {"render_modes": [], "name": "arena_parallel_v0"}

    def __init__(
        self,
        scenario="neutral",
        *,
        slot: float = 0.1,
        tasks: int | None = None,
        horizon: float | None = None,
        loss_penalty: float = 1.0,
        reward: str = "own",
    ):
        f = "ArenaParallelEnv"
        self.slot = check_real(slot, "slot", f, 0.0, 1e6, low_open=True)
        self.reward = check_choice(reward, "reward", f, REWARDS)
        env = ArenaEnv(scenario, tasks=tasks, horizon=horizon, loss_penalty=loss_penalty)
        self._env, self.scenario, self.net = env, env.scenario, env.net
        net, ids = self.net, [node.id for node in self.scenario.nodes]
        self._nodes = deciding_nodes(self.scenario)
        self.possible_agents = [ids[k] for k in self._nodes]
        self.agents: list[str] = []
        self._agent_of = np.full(len(ids), -1, np.int64)
        self._agent_of[self._nodes] = np.arange(len(self._nodes))
        # each agent's candidates (ArenaEnv's order) and their fixed rows
        self._cands, self._rows = [], []
        sources = [w for w in self.scenario.workload if isinstance(w, Source)]
        for k in self._nodes:
            cand = candidates(net, k)
            own = [w for w in sources if w.source == ids[k]]
            rate = sum(w.rate for w in own)
            mean_bits = sum(w.input_bits * w.rate for w in own) / rate if own else 0.0
            rows = np.zeros((N_CAND, len(cand)))
            rows[C_NODE] = cand
            rows[C_SERVERS] = np.where(net.servers[cand] >= K.BIG, np.inf, net.servers[cand])
            rows[C_SPEED] = net.speed[cand]
            rows[C_DELAY] = net.delay[k, cand]
            rows[C_TRANSMISSION] = mean_bits * net.invbw[k, cand]
            self._cands.append(cand)
            self._rows.append(rows)
        self._obs_spaces = [
            spaces.Dict(
                {
                    "cand": spaces.Box(0.0, np.inf, (N_CAND, len(c)), np.float64),
                    "action_mask": spaces.Box(0, 1, (len(c),), np.int8),
                    "slot": spaces.Box(0.0, np.inf, (2,), np.float64),
                }
            )
            for c in self._cands
        ]
        self._act_spaces = [spaces.Discrete(len(c)) for c in self._cands]
        counts = [len(c) for c in self._cands]
        self._counts = np.array(counts, np.int64)
        self._cand_rows = np.zeros((len(counts), max(counts, default=0)), np.int64)
        for j, c in enumerate(self._cands):
            self._cand_rows[j, : len(c)] = c
        self._mask_rows = np.zeros(self._cand_rows.shape, np.int8)
        self._choice = np.zeros(len(ids), np.int64)
        self._t0 = 0.0
        self._arrived = np.zeros(len(self._nodes))

    def observation_space(self, agent):
        """An agent's observation space.

        Parameters
        ----------
        agent : str
            One of :attr:`possible_agents`.

        Returns
        -------
        gymnasium.spaces.Dict
            ``cand``, ``action_mask`` and ``slot`` (the module docstring).
        """
        return self._obs_spaces[self._index(agent, "observation_space")]

    def action_space(self, agent):
        """An agent's action space.

        Parameters
        ----------
        agent : str
            One of :attr:`possible_agents`.

        Returns
        -------
        gymnasium.spaces.Discrete
            Its candidates.
        """
        return self._act_spaces[self._index(agent, "action_space")]

    def _index(self, agent, f: str) -> int:
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            raise PolicyError(
                f"ArenaParallelEnv.{f}: unknown agent {agent!r}; the agents are "
                f"{self.possible_agents}."
            ) from None

    # -- episodes ------------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        """A new episode; all agents live.

        Parameters
        ----------
        seed : int, optional
            :meth:`ArenaEnv.reset`'s: the tasks of replication 0 of ``simulate(seed=seed)``,
            or without, the next replication.
        options : dict, optional
            Unused (PettingZoo's API).

        Returns
        -------
        tuple
            Each agent's observation and an empty info dict per agent.
        """
        env = self._env
        env.reset(seed=seed)
        self.ep: Episode = env.ep
        self._store: Episodes = env._store
        self.agents = list(self.possible_agents)
        self._t0 = 0.0
        self._arrived[:] = 0.0
        obs = self._observe()
        return obs, {a: {} for a in self.agents}

    def _observe(self):
        n_in = self.ep.st.n_in
        _store_masks(self._store.ref, self._cand_rows, self._counts, self._mask_rows)
        self._mask = [m[:c] for m, c in zip(self._mask_rows, self._counts, strict=True)]
        obs = {}
        for j, agent in enumerate(self.possible_agents):
            rows = self._rows[j].copy()
            rows[C_QUEUE] = n_in[self._cands[j]]
            slot = np.array([self._t0, self._arrived[j]])
            obs[agent] = {"cand": rows, "action_mask": self._mask[j].copy(), "slot": slot}
        return obs

    def step(self, actions):
        """One slot: each agent's action places its node's tasks of the slot.

        Parameters
        ----------
        actions : dict
            One unmasked candidate index per live agent, checked before anything runs.

        Returns
        -------
        tuple
            ``(observations, rewards, terminated, truncated, infos)``, dicts by agent (the
            module docstring).
        """
        f = "ArenaParallelEnv.step"
        if not self.agents:
            raise ParameterError(f"{f}: call reset() first (the episode is over or not begun).")
        if not isinstance(actions, dict):
            raise PolicyError(
                f"{f}: the 'actions' must be a dict of one action per agent {self.agents}. "
                f"Got {type(actions).__name__}."
            )
        for agent in actions:
            self._index(agent, "step")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise PolicyError(
                f"{f}: no action for the agents {missing}; each live agent {self.agents} must "
                "act (no task moved)."
            )
        note = "(obs[agent]['action_mask']); no task moved."
        for j, agent in enumerate(self.possible_agents):

            def who(agent=agent):
                return f"of agent {agent!r}"

            a = checked_action(actions[agent], self._mask[j], f, who, note)
            self._choice[self._nodes[j]] = a
        t0, t1 = self._t0, self._t0 + self.slot
        out = np.zeros((len(self._nodes), 3))
        done = _store_slot(self._store.ref, self._choice, t0, t1, self._agent_of, out)
        self._env._done = bool(done)
        penalty = self._env.loss_penalty
        own = -(out[:, 0] + penalty * out[:, 1])
        team = float(own.sum())
        self._t0, self._arrived = t1, out[:, 2].copy()
        agents = self.agents
        rewards = {
            a: team if self.reward == "team" else float(own[j]) for j, a in enumerate(agents)
        }
        infos = {
            a: {"time_in_system": float(out[j, 0]), "lost": int(out[j, 1])}
            for j, a in enumerate(agents)
        }
        obs = self._observe()
        terminated = dict.fromkeys(agents, bool(done))
        truncated = dict.fromkeys(agents, False)
        if done:
            self.agents = []
        return obs, rewards, terminated, truncated, infos

    def records(self):
        """The finished episode's per-task records.

        Returns
        -------
        pandas.DataFrame
            :meth:`ArenaEnv.records`'.
        """
        return self._env.records()
