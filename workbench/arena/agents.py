"""Small learning agents for :class:`~workbench.arena.env.ArenaEnv`, with numpy only, each
exported as an ``@arena.policy`` that runs compiled and makes the agent's greedy choices
(one compiled function reads the env's observation and the engine's ``cand`` array).

:class:`QAgent`: tabular Q-learning on the env's reward. The state is the load (tasks held
per server) of the first ``edges`` candidates that are not the cloud, each cut into bins at
``bins`` (e.g. ``(0.5, 1.0, 1.5)``: four bins), so ``len(bins) + 1`` to the power ``edges``
states; the actions are the candidates.

:class:`DelayAgent`: the expected delay of a task at each kind of candidate (its own node, a
neighbour, the cloud) and backlog, learned from the delays its choices gave; it places each
task where that is least.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from workbench.arena.env import ArenaEnv
from workbench.arena.policies import C_NODE, C_QUEUE, C_SERVERS, C_SPEED, T_NODE
from workbench.arena.simulation import policy as make_policy
from workbench.progress import finish_bar, open_bar
from workbench.validation import ParameterError, check_int, check_real

__all__ = ["DelayAgent", "KINDS", "QAgent"]


@njit(cache=True)
def _state_index(cand, n, edges, bins):
    """The state of a decision: each of the first ``edges`` finite candidates' load (tasks
    per server; 0 for a missing one) binned at ``bins``, as one index."""
    s, seen = 0, 0
    for a in range(n):
        if seen == edges:
            break
        servers = cand[C_SERVERS, a]
        if not np.isfinite(servers) or servers <= 0:
            continue
        load = cand[C_QUEUE, a] / servers
        s = s * (len(bins) + 1) + np.searchsorted(bins, load, side="right")  # bins <= load
        seen += 1
    for _ in range(seen, edges):
        s = s * (len(bins) + 1)
    return s


@njit(cache=True)
def _greedy(q, s, n, mask):
    best, value = -1, -np.inf
    for a in range(n):
        if mask[a] and q[s, a] > value:
            best, value = a, q[s, a]
    return best


def _dict_env(env, f: str) -> ArenaEnv:
    if not isinstance(env, ArenaEnv) or env.observation != "dict":
        raise ParameterError(
            f"The 'env' parameter of {f} must be an ArenaEnv with observation='dict'. Got {env!r}."
        )
    return env


def _bins(bins, f: str, most: int, what: str) -> np.ndarray:
    """``bins`` as 1 to ``most`` increasing positive floats, or a ParameterError (ragged or
    text values included)."""
    try:
        b = np.asarray(bins, dtype=float)
    except (TypeError, ValueError):
        b = np.empty(0)  # refused below
    if b.ndim != 1 or not 1 <= b.size <= most or not np.all(np.diff(b) > 0) or not b[0] > 0:
        raise ParameterError(
            f"The 'bins' parameter of {f} must be 1 to {most} increasing {what} > 0. Got {bins!r}."
        )
    return b


def _episodes(env, episodes, seed, progress, desc: str, f: str):
    """The first observation and info of each training episode (episode e: the env's e-th
    after ``reset(seed=seed)``), under a progress bar."""
    episodes = check_int(episodes, "episodes", f, 1, 10**6)
    seed = check_int(seed, "seed", f, 0, 2**63 - 1)
    bar = open_bar(episodes, desc, progress)
    try:
        for e in range(episodes):
            yield env.reset(seed=seed) if e == 0 else env.reset()
            if bar is not None:
                bar.update(1)
    finally:
        finish_bar(bar)


class QAgent:
    """Tabular Q-learning (one-step, ε-greedy) on an env (the module docstring).

    Call it as an agent ``agent(obs, mask) -> action`` (greedy) for
    :func:`workbench.arena.evaluate`.

    Parameters
    ----------
    env : ArenaEnv
        The env it learns on (``observation="dict"``).
    edges : int
        The candidates (not the cloud) whose load makes the state (1 to 6).
    bins : sequence of float
        Increasing load thresholds (tasks per server, > 0; 1 to 8 of them).
    alpha : float
        The learning rate, in (0, 1].
    gamma : float
        The discount per decision, in [0, 1).
    epsilon : float
        The exploration probability, in [0, 1].
    seed : int
        The exploration's seed (>= 0).
    """

    def __init__(
        self,
        env: ArenaEnv,
        *,
        edges: int = 3,
        bins=(0.5, 1.0, 1.5),
        alpha: float = 0.1,
        gamma: float = 0.9,
        epsilon: float = 0.1,
        seed: int = 0,
    ):
        f = "QAgent"
        self.env = _dict_env(env, f)
        self.edges = check_int(edges, "edges", f, 1, 6)
        b = _bins(bins, f, 8, "loads")
        self.bins = b
        self.alpha = check_real(alpha, "alpha", f, 0.0, 1.0, low_open=True)
        self.gamma = check_real(gamma, "gamma", f, 0.0, 1.0, high_open=True)
        self.epsilon = check_real(epsilon, "epsilon", f, 0.0, 1.0)
        self.rng = np.random.default_rng(check_int(seed, "seed", f, 0, 2**63 - 1))
        self.q = np.zeros(((b.size + 1) ** self.edges, env.width))
        self.curve: list[float] = []

    def _state(self, obs):
        cand = obs["cand"]
        n = int(np.sum(cand[C_SPEED] > 0))
        return _state_index(cand, n, self.edges, self.bins), n

    def __call__(self, obs, mask):
        s, n = self._state(obs)
        return int(_greedy(self.q, s, n, mask))

    def train(self, episodes: int, *, seed: int = 0, progress: bool = True) -> list[float]:
        """Learn by Q-learning over some episodes of the env.

        Parameters
        ----------
        episodes : int
            Episodes to learn from (1 to 10**6).
        seed : int
            Episode e has the tasks of the env's e-th episode after ``reset(seed=seed)``.
        progress : bool
            Show a progress bar.

        Returns
        -------
        list of float
            :attr:`curve`, with each episode's mean time in system per task appended.
        """
        env, q, rng = self.env, self.q, self.rng
        for obs, info in _episodes(env, episodes, seed, progress, "Q-learning", "QAgent.train"):
            s, n = self._state(obs)
            total, steps, done = 0.0, 0, False
            while not done:
                mask = info["action_mask"]
                if rng.random() < self.epsilon:
                    a = int(rng.choice(np.flatnonzero(mask)))
                else:
                    a = int(_greedy(q, s, n, mask))
                obs, r, done, _, info = env.step(a)
                total += r
                steps += 1
                target = r
                if not done:
                    s2, n2 = self._state(obs)
                    target += self.gamma * q[s2, _greedy(q, s2, n2, info["action_mask"])]
                q[s, a] += self.alpha * (target - q[s, a])
                if not done:
                    s, n = s2, n2
            self.curve.append(-total / steps)
        return self.curve

    def policy(self, name: str = "q_learned"):
        """The greedy policy of the current table as an ``@arena.policy`` (a frozen copy
        of the table, compiled into the engine): ``arena.simulate(policy=agent.policy())``
        and the winner map run it at compiled speed.

        Parameters
        ----------
        name : str
            The policy's name.

        Returns
        -------
        UserPolicy
            The compiled policy.
        """
        table, edges, bins = self.q.copy(), self.edges, self.bins.copy()

        def decide(task, cand, state, par, u, out):
            n = cand.shape[1]
            s = _state_index(cand, n, edges, bins)
            best, value = 0, -np.inf
            for a in range(n):
                if table[s, a] > value:
                    best, value = a, table[s, a]
            out[0] = best
            return 1

        return make_policy(decide, name=name)


#: the kinds of candidate a :class:`DelayAgent` tells apart (rows of its table)
KINDS = ("own", "neighbour", "cloud")
#: a :class:`DelayAgent`'s default backlog bins (tasks held per server over the speed)
BACKLOG_BINS = tuple(k / 4 for k in range(1, 13))


@njit(cache=True)
def _cell(cand, a, node, cloud, bins):
    """The table cell of candidate ``a``: its kind (0: the deciding ``node`` itself, 2: the
    scenario's ``cloud`` node, 1: any other node) times ``len(bins) + 1``, plus the bin of
    its backlog (tasks held per server over its speed; 0 with unbounded servers) at
    ``bins``."""
    here = cand[C_NODE, a]
    kind = 2 if here == cloud else (0 if here == node else 1)
    backlog = cand[C_QUEUE, a] / (cand[C_SERVERS, a] * cand[C_SPEED, a])
    return kind * (len(bins) + 1) + np.searchsorted(bins, backlog, side="right")


@njit(cache=True)
def _least(table, cand, n, node, cloud, bins, mask, masked):
    """The candidate (of the first ``n``; with ``masked``, of those ``mask`` allows) whose
    cell has the least expected delay in ``table``; the first of equals."""
    best, value = -1, np.inf
    for a in range(n):
        if masked and not mask[a]:
            continue
        v = table[_cell(cand, a, node, cloud, bins)]
        if v < value:
            best, value = a, v
    return best


class DelayAgent:
    """Learns, from the delays its own choices gave, the expected delay of a task placed at
    each kind of candidate (the deciding node, a neighbour, the cloud) at each backlog, and
    places each task where that is least; call it as an agent ``agent(obs, mask) -> action``
    (greedy) for :func:`workbench.arena.evaluate`.

    The table has ``3 × (len(bins) + 1)`` cells (:data:`KINDS` × the backlog bins: tasks held
    per server over the speed, cut at ``bins``); every decision of an episode updates the
    cell of the chosen candidate with that task's delay, read from the episode's records
    (a lost task counts the time until it was lost plus the env's ``loss_penalty``). The
    sum of these delays is minus the episode's return, so this is Monte Carlo learning of
    action values on a per-task split of the return. The split charges each task its own
    delay, not the waiting it causes later tasks: the agent learns to serve each task as
    fast as possible, a selfish rule, which can lose to a mechanism that keeps room for
    the tasks to come.

    Parameters
    ----------
    env : ArenaEnv
        The env it learns on (``observation="dict"``).
    bins : sequence of float
        Increasing backlog thresholds (tasks per server over the speed, > 0; 1 to 64).
    epsilon : float
        The ε-greedy exploration probability, in [0, 1].
    memory : int
        A cell's estimate is the mean of at most its last ``memory`` delays (>= 1): a
        running mean that forgets the early, more exploring episodes.
    seed : int
        The exploration's seed (>= 0).
    """

    def __init__(
        self,
        env: ArenaEnv,
        *,
        bins=BACKLOG_BINS,
        epsilon: float = 0.1,
        memory: int = 5_000,
        seed: int = 0,
    ):
        f = "DelayAgent"
        self.env = _dict_env(env, f)
        self.cloud = float(env.net.cloud)  # the cloud's node index (-1: none)
        b = _bins(bins, f, 64, "backlogs (tasks per server over the speed)")
        self.bins = b
        self.epsilon = check_real(epsilon, "epsilon", f, 0.0, 1.0)
        self.memory = check_int(memory, "memory", f, 1, 10**9)
        self.rng = np.random.default_rng(check_int(seed, "seed", f, 0, 2**63 - 1))
        self.table = np.zeros(len(KINDS) * (b.size + 1))
        self.counts = np.zeros(self.table.size, np.int64)
        self.curve: list[float] = []
        self.decisions = 0

    def __call__(self, obs, mask):
        cand, node = obs["cand"], obs["task"][T_NODE]
        n = int(np.sum(cand[C_SPEED] > 0))
        return int(_least(self.table, cand, n, node, self.cloud, self.bins, mask, True))

    def train(self, episodes: int, *, seed: int = 0, progress: bool = True) -> list[float]:
        """Learn from some episodes of the env.

        Parameters
        ----------
        episodes, seed, progress
            As :meth:`QAgent.train` takes them.

        Returns
        -------
        list of float
            :attr:`curve`, with each episode's mean delay per task appended (the learning
            curve, exploration included).
        """
        env, rng, bins = self.env, self.rng, self.bins
        for obs, info in _episodes(env, episodes, seed, progress, "learning", "DelayAgent.train"):
            tasks, cells, done = [], [], False
            while not done:
                mask = info["action_mask"]
                if rng.random() < self.epsilon:
                    a = int(rng.choice(np.flatnonzero(mask)))
                else:
                    a = self(obs, mask)
                tasks.append(info["task"])
                cells.append(_cell(obs["cand"], a, obs["task"][T_NODE], self.cloud, bins))
                obs, _, done, _, info = env.step(a)
            self._learn(np.array(tasks), np.array(cells))
        return self.curve

    def _learn(self, tasks, cells) -> None:
        rec = self.env.records()
        delay = rec["delay"].to_numpy(dtype=float)
        lost = (rec["outcome"] == "lost").to_numpy()
        delay = np.where(lost, np.nan_to_num(delay) + self.env.loss_penalty, delay)
        d = delay[tasks]
        self.curve.append(float(d.mean()))
        self.decisions += d.size
        size = self.table.size
        m = np.bincount(cells, minlength=size)
        total = np.bincount(cells, weights=d, minlength=size)
        seen = m > 0
        weight = m[seen] / (np.minimum(self.counts[seen], self.memory) + m[seen])
        self.table[seen] += weight * (total[seen] / m[seen] - self.table[seen])
        self.counts += m

    def policy(self, name: str = "delay_learned"):
        """The greedy policy of the current table as an ``@arena.policy`` (a frozen copy,
        compiled into the engine): ``arena.simulate(policy=agent.policy())`` and the winner
        map run it at compiled speed. It makes the agent's choices on the same observation,
        except that it cannot see which candidates are full (the env's mask): it may send a
        task to a full node, where it is lost.

        Parameters
        ----------
        name : str
            The policy's name.

        Returns
        -------
        UserPolicy
            The compiled policy.
        """
        table, bins, cloud = self.table.copy(), self.bins.copy(), self.cloud
        none = np.zeros(1, np.int8)

        def decide(task, cand, state, par, u, out):
            out[0] = _least(table, cand, cand.shape[1], task[T_NODE], cloud, bins, none, False)
            return 1

        return make_policy(decide, name=name)
