"""Valid values for the arguments of P4's public callables that no table row gives.

``EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid value (built
when asked, once). The API fuzz (``tests/fuzz_api.py``) builds its baseline calls from them
and :func:`workbench.paper.check_paper` checks every required argument has one.
"""

from __future__ import annotations

import functools

from workbench.redundancy.model import SExp
from workbench.redundancy.simulation import simulate

__all__ = ["EXAMPLES"]


@functools.cache
def _result():
    return simulate(
        N=24, m=3, lam=1.5, t_cloud=15.0, service=SExp(1.0, 1.0), jobs=2_000, replications=2, seed=0
    )


EXAMPLES = {
    "service": functools.partial(SExp, 1.0, 1.0),
    "Ns": lambda: (4, 8),
    "simulated_station_table.result": _result,
}
