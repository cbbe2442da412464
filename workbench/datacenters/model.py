"""The analytic model of P3, one module per role (this module gathers their public names).

1. :mod:`workbench.datacenters.exact`: :func:`solve_exact` / :func:`blocking_exact` /
   :func:`station_table`, the exact finite chain on {0..C1} x {0..C2}, solved by
   ADI-preconditioned GMRES on its 5-point stencil (absolute rates ``lam``).
2. :mod:`workbench.datacenters.limit`: :func:`regime`, :func:`limit_analysis`,
   :func:`blocking_limit`, the scaling limit (loads per unit N ``load``, capacities c_i N,
   N -> ∞): regimes (A), (B1), (B2) in closed form; under condition (E) π_c(0,0) from the
   random walk of idle servers, then β from π_c(0,0).
3. :mod:`workbench.datacenters.ring`: :func:`ring_limit`, the pairwise reduction of the ring
   of J centers.

The studies over many points (convergence in N, the forwarding that minimises the loss, the
cooperation curve, the regime map) run through the sweep engine and are in
:mod:`workbench.datacenters.studies`.
"""

from __future__ import annotations

from workbench.datacenters.exact import (
    ExactSolution,
    UncertifiedSolutionError,
    blocking_exact,
    solve_exact,
    station_table,
)
from workbench.datacenters.limit import LimitSolution, blocking_limit, limit_analysis, regime
from workbench.datacenters.ring import ring_limit

__all__ = [
    "UncertifiedSolutionError",
    "station_table",
    "blocking_exact",
    "solve_exact",
    "ExactSolution",
    "regime",
    "blocking_limit",
    "limit_analysis",
    "LimitSolution",
    "ring_limit",
]
