"""Valid values for the arguments of P1's public callables that no table row gives.

``EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid value (built
when asked, once). The API fuzz (``tests/fuzz_api.py``) builds its baseline calls from them
and :func:`workbench.paper.check_paper` checks every required argument has one.
"""

from __future__ import annotations

import functools
import os
import tempfile

import networkx as nx

from workbench.fog.scenario import default_scenario

__all__ = ["EXAMPLES"]


@functools.cache
def _scenario():
    return default_scenario(0, n_fog=3)


EXAMPLES = {
    "scenario": _scenario,
    "fog_layer": lambda: nx.path_graph(2),
    "iot_per_fog": lambda: 2,
    "thetas": lambda: [0.01, 0.02],
    "n": lambda: 2,
    "n2": lambda: 1,
    "mu": lambda: 1.0,
    "mu2": lambda: 0.5,
    "path": lambda: os.path.join(tempfile.mkdtemp(prefix="wb-fuzz-"), "s.json"),
}
