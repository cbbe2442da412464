"""P1 — fog offloading to reduce IoT service delay (Yousefpour, Ishigaki, Gour, Jue, 2018).

(Full description of the model, the paper's statements and the workbench's choices: see the
end of this package's development; public names are re-exported below.)
"""

from workbench.fog.model import (
    ChainSolution,
    NetworkAnalysis,
    accept_probability,
    analyze,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    mean_in_system,
    mean_work,
    pollaczek_khinchine,
    ps_closed_form,
    solve_chain,
)
from workbench.fog.params import PARAMS
from workbench.fog.scenario import (
    ScenarioError,
    compile_scenario,
    default_scenario,
    geometric_scenario,
    grid_scenario,
    load_scenario,
    ring_scenario,
    save_scenario,
    validate,
    with_traffic,
)
from workbench.fog.simulation import run_once, simulate

__all__ = [
    "PARAMS",
    "ChainSolution",
    "NetworkAnalysis",
    "ScenarioError",
    "accept_probability",
    "analyze",
    "compile_scenario",
    "default_scenario",
    "erlang_sum_cdf",
    "erlang_sum_cdf_partial_fractions",
    "geometric_scenario",
    "grid_scenario",
    "load_scenario",
    "mean_in_system",
    "mean_work",
    "pollaczek_khinchine",
    "ps_closed_form",
    "ring_scenario",
    "run_once",
    "save_scenario",
    "simulate",
    "solve_chain",
    "validate",
    "with_traffic",
]
