"""Valid values for the arguments of P3's public callables that no table row gives.

``EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid value (built
when asked, once). The API fuzz (``tests/fuzz_api.py``) builds its baseline calls from them
and :func:`workbench.paper.check_paper` checks every required argument has one.
"""

from __future__ import annotations

import functools

from workbench.datacenters.simulation import simulate_ring

__all__ = ["EXAMPLES"]


@functools.cache
def _ring():
    return simulate_ring(
        lam=(0.9, 0.9, 0.9),
        servers=(10, 10, 10),
        mu=(0.1, 0.1, 0.1),
        p=(0.5, 0.5, 0.5),
        events=20_000,
        replications=2,
    )


EXAMPLES = {
    "ring_table.result": _ring,
}
