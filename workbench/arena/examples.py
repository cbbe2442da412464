"""Values for the arena's public arguments that neither a default nor a table row gives (the
API fuzz and ``check_paper`` build their calls from them)."""

from __future__ import annotations

__all__ = ["EXAMPLES"]

EXAMPLES = {
    "scenario": lambda: "neutral",
    "policy": lambda: "jsq",
    "load_scenario.path": lambda: "neutral",
}
