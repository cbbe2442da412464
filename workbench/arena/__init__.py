"""The arena: every paper's mechanism, the classic baselines and your own policy, on one
engine and one workload (see :mod:`workbench.arena.scenario` for the scenario files)."""

from workbench.arena.scenario import Scenario, ScenarioError, load_scenario, scenario_from_dict

__all__ = ["Scenario", "ScenarioError", "load_scenario", "scenario_from_dict"]
