"""Valid values for the arguments of P2's public callables that no table row gives.

``EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid value (built
when asked, once). The API fuzz (``tests/fuzz_api.py``) builds its baseline calls from them
and :func:`workbench.paper.check_paper` checks every required argument has one.
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.proactive.model import make_scenario, train
from workbench.proactive.runs import draw_tasks

__all__ = ["EXAMPLES"]


@functools.cache
def _scenario():
    return make_scenario(n_cloudlets=3, n_users=6, seed=0)


@functools.cache
def _training():
    return train(_scenario(), seed=0)


@functools.cache
def _tasks():
    return draw_tasks(_scenario(), lam=1.0, mean_bits=1e5, horizon=2.0, seed=0)


EXAMPLES = {
    "scenario": _scenario,
    "training": _training,
    "tasks": _tasks,
    "horizon": lambda: 2.0,
    "fading_seed": lambda: 0,
    "rates": lambda: np.array([1e6, 2e6, 1.5e6]),
    "distance_m": lambda: 50.0,
    "link_rate": lambda: 1e7,
    "measured_slots": lambda: 1000,
    "warmup_slots": lambda: 2000,
    "bits": lambda: 1e5,
    "rate_est": lambda: np.array([1e7, 2e7]),
    "queue_wait_est": lambda: np.array([0.01, 0.02]),
}
