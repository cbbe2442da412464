"""Valid values for the arguments of P5's public callables that no table row gives.

``EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid value (built
when asked, once). The API fuzz (``tests/fuzz_api.py``) builds its baseline calls from them
and :func:`workbench.paper.check_paper` checks every required argument has one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EXAMPLES"]

EXAMPLES = {
    "index": lambda: 1,
    "parents": lambda: (-1, 0, 0),
    "compute": lambda: (100.0, 40.0, 40.0),
    "local_overhead.compute": lambda: 40.0,
    "Topology.name": lambda: "three",
    "Topology.parent": lambda: np.array([-1, 0, 0]),
    "Topology.compute": lambda: np.array([100.0, 40.0, 40.0]),
    "Topology.weight": lambda: np.array([0.0, 1.0, 1.0]),
    "gain": lambda: 1e-3,
    "noise": lambda: 1e-9,
    "work": lambda: 2.0,
    "data": lambda: 1.0,
    "compute_next": lambda: 40.0,
    "gamma_t": lambda: 1.0,
    "gamma_e": lambda: 1.0,
    "local": lambda: 1.0,
    "offload": lambda: 2.0,
    "mean_exec_time": lambda: 0.1,
    "mean_time": lambda: 0.5,
    "mean_size": lambda: 5.0,
    # workbench.erlang's Pollaczek-Khinchine, re-exported
    "pollaczek_khinchine.mean_service": lambda: 1.0,
    "pollaczek_khinchine.second_moment": lambda: 2.0,
}
