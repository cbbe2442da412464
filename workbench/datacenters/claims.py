"""The claims of P3 measured by the workbench: ``CLAIMS[claim_id](quick) -> float`` (the
simulated one returns a :class:`workbench.claims.Measurement` carrying its stationarity).

The ids match ``data/claims/p3.csv``; ``python -m workbench claims p3`` compares them with
the table. The paper states no numbers, so every row is the workbench's own value: a
regression guard, or (``pi00_box_walk``, ``beta1_sim_N25``) a cross-check of two independent
computations.
"""

from __future__ import annotations

from workbench.claims import Measurement
from workbench.datacenters.exact import _solve_exact
from workbench.datacenters.limit import _limit_analysis, _walk_pi00
from workbench.datacenters.params import EXAMPLE
from workbench.datacenters.simulation import simulate

__all__ = ["CLAIMS"]


def _example_limit():
    ex = EXAMPLE
    return _limit_analysis(ex["lam"], ex["c"], ex["mu"], ex["p"])


def _example_exact(n):
    ex = EXAMPLE
    return _solve_exact(
        (ex["lam"][0] * n, ex["lam"][1] * n), (n, n), ex["mu"], ex["p"], func="claims"
    )


def _box_walk_pi00(quick: bool) -> float:
    """pi00 of the idle-server walk truncated to a box and solved by ADI-GMRES: a computation
    independent of the QBD behind ``pi00_limit``."""
    ex = EXAMPLE
    box = 200 if quick else 300
    pi, _, _ = _walk_pi00(ex["lam"], ex["c"], ex["mu"], ex["p"], (box, box), 1e-13)
    return float(pi[-1, -1])  # the grid stores (M - m, M - n): (0, 0) is its last corner


def _simulated_beta1(quick: bool) -> Measurement:
    ex = EXAMPLE
    n = 25
    sim = simulate(
        lam=(ex["lam"][0] * n, ex["lam"][1] * n),
        servers=(n, n),
        mu=ex["mu"],
        p=ex["p"],
        events=200_000 if quick else 2_000_000,
        replications=8,
        seed=11,
        overload="transient",  # a flagged run is reported as undetermined, not as an error
    )
    return Measurement(sim.estimate, stationary=sim.stationary, note=sim.stationarity.note)


def _cooperation_gain(quick: bool) -> float:
    ex = EXAMPLE
    n = 200
    lam = (ex["lam"][0] * n, ex["lam"][1] * n)
    on = _solve_exact(lam, (n, n), ex["mu"], ex["p"], func="claims").beta
    off = _solve_exact(lam, (n, n), ex["mu"], (0.0, 0.0), func="claims").beta
    return ((lam[0] * off[0] + lam[1] * off[1]) - (lam[0] * on[0] + lam[1] * on[1])) / (
        lam[0] + lam[1]
    )


CLAIMS = {
    "pi00_limit": lambda quick: _example_limit().pi00,
    "beta1_limit": lambda quick: _example_limit().beta[0],
    "beta2_limit": lambda quick: _example_limit().beta[1],
    "beta1_N200": lambda quick: _example_exact(200).beta[0],
    "beta2_N200": lambda quick: _example_exact(200).beta[1],
    "pi00_box_walk": _box_walk_pi00,
    "beta1_sim_N25": _simulated_beta1,
    "beta1_exact_N25": lambda quick: _example_exact(25).beta[0],
    "cooperation_gain_N200": _cooperation_gain,
    "beta1_limit_at_N1000": lambda quick: _example_exact(1000).beta[0],
}
