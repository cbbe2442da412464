"""Values for the arena's public arguments that neither a default nor a table row gives (the
API fuzz and ``check_paper`` build their calls from them)."""

from __future__ import annotations

from workbench.arena.baselines import evaluate, first_available
from workbench.arena.env import ArenaEnv

__all__ = ["EXAMPLES"]

EXAMPLES = {
    "scenario": lambda: "neutral",
    "policy": lambda: "jsq",
    "agent": lambda: first_available,  # arena.evaluate's agent (any obs, mask -> action)
    "env": lambda: ArenaEnv("neutral", tasks=50),  # QAgent's and DelayAgent's environment
    "agent_table.runs": lambda: {"neutral": (first_available, "neutral")},
    "versus.frame": lambda: evaluate(
        first_available, "neutral", tasks=100, replications=2, policies=["cloud"]
    ),
    "load_scenario.path": lambda: "neutral",
    # the theory functions (workbench.arena.model)
    "erlang_c_delay.servers": lambda: 3,
    "lam": lambda: 2.0,
    "mu": lambda: 3.0,
    "rho": lambda: 0.7,
    "mean_size": lambda: 0.2,
    "power_idle": lambda: 50.0,
    "power_busy": lambda: 120.0,
    "cloud_delay": lambda: 0.05,
}
