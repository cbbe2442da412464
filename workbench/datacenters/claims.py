"""The claims of P3 measured by the workbench: ``CLAIMS[claim_id](quick) -> float`` (the
simulated one returns a :class:`workbench.claims.Measurement` carrying its stationarity).

The ids match ``data/claims/p3.csv``; ``python -m workbench claims p3`` compares them with
the table. The paper states no numbers, so every numeric row is the workbench's own value: a
regression guard, or (``pi00_box_walk``, ``beta1_sim_N25``) a cross-check of two independent
computations. One row is the paper's, in words: forwarding is introduced "to reduce the
blocking probability" (``forwarding_reduces_blocking``, an indicator 1/0).

The claim atlas (``ATLAS``, :func:`atlas_point`, run by :func:`workbench.atlas.atlas`) asks
two questions:

- do the workbench's numbers hinge on its numerical choices? The regression rows at the
  worked example are evaluated over the plausible solver settings (``tol``, ``tail``, the
  ADI/GMRES settings, the walk's ``truncation_target`` and ``max_phases``) and the
  simulation's ``warmup``: the example itself stays fixed, since every such row is *defined*
  at it (varying it changes the question, not the answer);
- does the paper's claim survive the examples it lost? ``forwarding_reduces_blocking`` is
  evaluated over plausible loads, forwarding probabilities and service rates
  (``example_*`` rows), under both readings of "the blocking probability"
  (``blocking_reading``: the lost fraction of all requests, or each class's β_i).

``pi00_box_walk`` (a 200 x 200 box solved by GMRES) and ``beta1_limit_at_N1000`` (a
million-state chain) are left out of the atlas: either alone would exceed the quick atlas's
budget of about a second per point, and neither is a conclusion that could
hinge on a reading (the first cross-checks the QBD that ``pi00_limit`` covers, the second is
the expected disagreement of the limit with a finite system).
"""

from __future__ import annotations

import math

from workbench.claims import AtlasSpec, Measurement
from workbench.datacenters.exact import UncertifiedSolutionError, solve_exact
from workbench.datacenters.limit import limit_analysis, walk_in_box
from workbench.datacenters.params import DEFAULTS, EXAMPLE, example_at
from workbench.datacenters.simulation import simulate

__all__ = ["CLAIMS", "ATLAS", "atlas_point"]

#: the scale at which the paper's claim is checked (C_i = N servers, arrivals lambda_i N)
FORWARDING_N = 50


def _example_limit():
    return limit_analysis(DEFAULTS)


def _example_beta(n) -> tuple:
    """(beta1, beta2) of the exact chain of the worked example at scale ``n``."""
    return solve_exact(example_at(n)).beta


def _box_walk_pi00(quick: bool) -> float:
    """pi00 of the idle-server walk truncated to a box and solved by ADI-GMRES: a computation
    independent of the QBD behind ``pi00_limit``."""
    ex = EXAMPLE
    box = 200 if quick else 300
    pi, _, _ = walk_in_box(ex["lam"], ex["c"], ex["mu"], ex["p"], (box, box), 1e-13)
    return float(pi[-1, -1])  # the grid stores (M - m, M - n): (0, 0) is its last corner


def _simulated_beta1(quick: bool, seed: int, **run) -> Measurement:
    """β₁ simulated at N = 25 (the atlas passes its point's ``warmup`` in ``run``)."""
    sim = simulate(
        example_at(25),
        events=200_000 if quick else 2_000_000,
        replications=8,
        seed=seed,
        overload="transient",  # a flagged run is reported as undetermined, not as an error
        **run,
    )
    return Measurement(sim.estimate, stationary=sim.stationary, note=sim.stationarity.note)


def _cooperation_gain(quick: bool) -> float:
    point = example_at(200)
    lam = point.lam
    on = solve_exact(point).beta
    off = solve_exact(point.trusted(p=(0.0, 0.0))).beta
    return ((lam[0] * off[0] + lam[1] * off[1]) - (lam[0] * on[0] + lam[1] * on[1])) / (
        lam[0] + lam[1]
    )


def _lost_fraction(load, mu, p, n, **solver) -> tuple[float, tuple]:
    """(lost fraction of all requests, (beta1, beta2)) of the exact chain at scale ``n``."""
    lam = (load[0] * n, load[1] * n)
    beta = solve_exact(DEFAULTS.trusted(lam=lam, servers=(n, n), mu=mu, p=p, **solver)).beta
    return (lam[0] * beta[0] + lam[1] * beta[1]) / (lam[0] + lam[1]), beta


def _forwarding_reduces(load, mu, p, reading: str, **solver) -> float:
    """1.0 when forwarding ``p`` blocks less than no forwarding (exact chain, N = 50), else 0.0.

    ``reading`` "total": the lost fraction of all requests is lower; "each class": neither
    class's beta is higher and the lost fraction is lower.
    """
    on, beta_on = _lost_fraction(load, mu, p, FORWARDING_N, **solver)
    off, beta_off = _lost_fraction(load, mu, (0.0, 0.0), FORWARDING_N, **solver)
    reduced = on < off
    if reading == "each class":
        reduced = reduced and beta_on[0] <= beta_off[0] and beta_on[1] <= beta_off[1]
    return float(reduced)


def _forwarding_claim(quick: bool) -> float:
    ex = EXAMPLE
    return _forwarding_reduces(ex["lam"], ex["mu"], ex["p"], "total")


CLAIMS = {
    "pi00_limit": lambda quick: _example_limit().pi00,
    "beta1_limit": lambda quick: _example_limit().beta[0],
    "beta2_limit": lambda quick: _example_limit().beta[1],
    "beta1_N200": lambda quick: _example_beta(200)[0],
    "beta2_N200": lambda quick: _example_beta(200)[1],
    "pi00_box_walk": _box_walk_pi00,
    "beta1_sim_N25": lambda quick: _simulated_beta1(quick, seed=11),
    "beta1_exact_N25": lambda quick: _example_beta(25)[0],
    "cooperation_gain_N200": _cooperation_gain,
    "beta1_limit_at_N1000": lambda quick: _example_beta(1000)[0],
    "forwarding_reduces_blocking": _forwarding_claim,
}


def _undetermined(ids, err) -> dict:
    why = f"not certified at these solver settings: {err}"
    return {i: Measurement(math.nan, stationary=False, note=why) for i in ids}


def atlas_point(
    *,
    quick: bool,
    seed: int,
    tol,
    tail,
    shifts,
    restart,
    max_restarts,
    truncation_target,
    max_phases,
    warmup,
    example_load1,
    example_load2,
    example_p1,
    example_p2,
    example_mu2,
    blocking_reading,
) -> dict:
    """Every atlas claim's measured value at one point of P3's plausible space.

    A chain the solver cannot certify at the point's settings gives an undetermined
    measurement (NaN, ``stationary=False``), never a number.

    Parameters
    ----------
    quick : bool
        Short simulations, as the claims' ``quick``.
    seed : int
        Root of the simulation's streams.
    tol, tail, shifts, restart, max_restarts, truncation_target, max_phases
        The solver's settings (rows of :data:`~workbench.datacenters.PARAMS`); the regression
        rows are measured at the worked example with them.
    warmup : float
        Warm-up fraction of ``beta1_sim_N25``'s simulation.
    example_load1, example_load2, example_p1, example_p2, example_mu2
        The example at which ``forwarding_reduces_blocking`` is measured (μ₁ = c₁ = c₂ = 1,
        N = 50).
    blocking_reading : {"total", "each class"}
        Which blocking forwarding must reduce.

    Returns
    -------
    dict
        Claim id -> measured value (a float, or a :class:`workbench.claims.Measurement`).
    """
    ex = EXAMPLE
    solver = {
        "tol": float(tol),
        "tail": float(tail),
        "shifts": int(shifts),
        "restart": int(restart),
        "max_restarts": int(max_restarts),
    }
    out: dict = {}
    lim = limit_analysis(
        DEFAULTS.trusted(truncation_target=float(truncation_target), max_phases=int(max_phases))
    )
    out |= {"pi00_limit": lim.pi00, "beta1_limit": lim.beta[0], "beta2_limit": lim.beta[1]}
    n200 = ("beta1_N200", "beta2_N200", "cooperation_gain_N200")
    try:
        on, beta = _lost_fraction(ex["lam"], ex["mu"], ex["p"], 200, **solver)
        off, _ = _lost_fraction(ex["lam"], ex["mu"], (0.0, 0.0), 200, **solver)
        out |= {"beta1_N200": beta[0], "beta2_N200": beta[1], "cooperation_gain_N200": off - on}
    except UncertifiedSolutionError as err:
        out |= _undetermined(n200, err)
    try:
        out["beta1_exact_N25"] = _lost_fraction(ex["lam"], ex["mu"], ex["p"], 25, **solver)[1][0]
    except UncertifiedSolutionError as err:
        out |= _undetermined(("beta1_exact_N25",), err)
    out["beta1_sim_N25"] = _simulated_beta1(quick, seed, warmup=float(warmup))
    try:
        out["forwarding_reduces_blocking"] = _forwarding_reduces(
            (float(example_load1), float(example_load2)),
            (1.0, float(example_mu2)),
            (float(example_p1), float(example_p2)),
            blocking_reading,
            **solver,
        )
    except UncertifiedSolutionError as err:
        out |= _undetermined(("forwarding_reduces_blocking",), err)
    return out


ATLAS = AtlasSpec(
    evaluate=atlas_point,
    claims=(
        "forwarding_reduces_blocking",
        "pi00_limit",
        "beta1_limit",
        "beta2_limit",
        "beta1_N200",
        "beta2_N200",
        "cooperation_gain_N200",
        "beta1_exact_N25",
        "beta1_sim_N25",
    ),
)
