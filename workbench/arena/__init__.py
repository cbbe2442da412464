"""The arena: every paper's mechanism, the classic baselines and your own policy, on one
engine and one workload.

A deployment asks *which mechanism, under which load, link delay and task-size
variability, at what cost in servers, copies and energy?* Each paper answers its own
question on its own model; the arena runs them all, with the classic baselines and a
policy of your own, on one compiled engine and one scenario file.

- :mod:`~workbench.arena.scenario`: scenarios as YAML/JSON files, validated
  (:func:`load_scenario`, :func:`scenario_from_dict`); ``data/scenarios`` ships each
  paper's setup and a neutral one.
- :mod:`~workbench.arena.kernels`: the engine (numba, the shared event heap).
- :mod:`~workbench.arena.policies`: the placement rules; :data:`POLICIES` names them.
- :func:`simulate` returns the shared :class:`~workbench.results.SimulationResult`;
  :func:`simulate_to_precision` adds replications until the interval is narrow enough.
- :mod:`~workbench.arena.model`: the closed forms the engine is held against;
  :mod:`~workbench.arena.claims` (``data/claims/arena.csv``) and
  :mod:`~workbench.arena.exercises`, as a paper package has them.
- :func:`policy` turns a decision function into a policy that runs inside the engine (the
  arrays it sees: :mod:`~workbench.arena.policies`)::

      from workbench.arena.policies import C_DELAY, C_QUEUE, C_SERVERS, C_SPEED

      @arena.policy(state=1)
      def nearest_idle(task, cand, state, par, u, out):
          best, score = 0, 1e300
          for j in range(cand.shape[1]):
              wait = max(cand[C_QUEUE, j] + 1 - cand[C_SERVERS, j], 0.0) / cand[C_SPEED, j]
              if cand[C_DELAY, j] + wait < score:
                  best, score = j, cand[C_DELAY, j] + wait
          state[0] += 1  # its own array, kept between decisions
          out[0] = best
          return 1

- :class:`~workbench.arena.env.ArenaEnv`: the engine paused at each decision as a Gymnasium
  environment; :func:`evaluate` runs an agent and every built-in policy on the same tasks
  (paired intervals); :mod:`~workbench.arena.agents`: a numpy Q-learning agent exported as a
  compiled policy.

The arena is not a paper: it is registered as :data:`workbench.registry.ARENA` for the CLI
(``python -m workbench reproduce arena``), not in ``PAPERS``.
"""

from workbench.arena.baselines import evaluate
from workbench.arena.env import ArenaEnv
from workbench.arena.model import (
    energy_per_task,
    erlang_c_delay,
    mm1_delay,
    power_of_d_delay,
    threshold_delay,
)
from workbench.arena.params import PARAMS
from workbench.arena.scenario import (
    Scenario as Scenario,  # the type load_scenario returns (built through it, not walked)
)
from workbench.arena.scenario import (
    ScenarioError,
    load_scenario,
    scenario_from_dict,
    shipped,
)
from workbench.arena.simulation import (
    POLICIES,
    QUANTITIES,
    HeavyTailError,
    PolicyError,
    UserPolicy,
    policy,
    simulate,
    simulate_to_precision,
)

__all__ = [
    "PARAMS",
    "POLICIES",
    "QUANTITIES",
    "HeavyTailError",
    "PolicyError",
    "ScenarioError",
    "UserPolicy",
    "ArenaEnv",
    "evaluate",
    "load_scenario",
    "policy",
    "scenario_from_dict",
    "shipped",
    "simulate",
    "simulate_to_precision",
    # the theory the engine is checked against (workbench.arena.model)
    "energy_per_task",
    "erlang_c_delay",
    "mm1_delay",
    "power_of_d_delay",
    "threshold_delay",
]
