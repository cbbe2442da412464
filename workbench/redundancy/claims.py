"""The paper's claims as measurements, at the table's defaults and across its plausible space.

``CLAIMS[id](quick) -> float`` measures one claim (a simulated one returns a
:class:`workbench.claims.Measurement`, which says whether its runs were stationary). Ids match
``data/claims/p4.csv``, which holds the paper's value (or says the paper gives none), the
tolerance, and whether the workbench agrees.

Every measure is a function of the values the paper does not state (the rows of
:data:`workbench.redundancy.params.PARAMS` with a ``plausible`` range or set: Fig. 3's λ,
the start of Fig. 4's "λ ≤ 2", Table I's baseline and levels, and the reading of E[T_sys],
eq. 1 or the paper's eq. 8). ``CLAIMS`` evaluates it at the table's defaults;
:func:`atlas_point` at any point of that space, and ``ATLAS`` hands it to
:func:`workbench.atlas.atlas`.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems": Theorem 1, Lemma 1, Sec. IV-C, Sec. V-C (eq. 8), Sec. VI-A, Sec. VII, Table I.
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.claims import AtlasSpec, Measurement, load_claims
from workbench.kernels.erlang import erlang_b_kernel
from workbench.redundancy import model as rd
from workbench.redundancy.model import P4Params
from workbench.redundancy.params import PARAMS
from workbench.redundancy.studies import (
    BASE_SEED,
    N_PAPER,
    PARETO,
    SEXP,
    TABLE1_FIELDS,
    policy_curves,
    table1_frame,
)

__all__ = ["CLAIMS", "ATLAS", "atlas_point", "fig4_lams"]

FIG4_LAM_HIGH = 2.0  # the paper's "λ ≤ 2"
FIG4_POINTS = 8  # rates averaged, evenly spaced from the range's start to 2
LAMS_WIDE = np.geomspace(0.05, 20.0, 25)
FIG4_SEEDS = 40  # independent repetitions of the paper's 500 × 100 protocol
FIG4_SEEDS_QUICK = 10
#: seeds of the simulated Fig. 4 gain at one atlas point: one run of the paper's protocol
#: when quick, the quick claim's ten otherwise
ATLAS_SEEDS = {True: 1, False: FIG4_SEEDS_QUICK}


def fig4_lams(low: float) -> np.ndarray:
    """The rates over which Fig. 4's "λ ≤ 2" gains are averaged.

    Parameters
    ----------
    low : float
        The first rate [1/s] (the row ``fig4_lam_low``; the paper does not state it).

    Returns
    -------
    numpy.ndarray
        8 rates evenly spaced from ``low`` to 2 (``low`` = 0.25: 0.25, 0.5, ..., 2, the grid
        of the workbench's Fig. 4).
    """
    return np.linspace(low, FIG4_LAM_HIGH, FIG4_POINTS)


LAMS_LOW = fig4_lams(PARAMS["fig4_lam_low"].default)


def _fig4_gain(versus: str, lams, formula: str) -> float:
    """Mean over λ of 1 − E[T_sys](ASTO) / E[T_sys](versus), Pareto(1.5, 1.2), N=24, T_cl=15,
    by eq. 1 with Erlang-B (``formula="exact"``) or the paper's eq. 8 above λ_m (``"paper"``)."""
    df = policy_curves(N_PAPER, 15.0, PARETO, lams, policies=("asto", versus))
    return _mean_gain(df, versus, formula)


def _mean_gain(df, versus: str, column: str) -> float:
    wide = df.pivot(index="lam", columns="policy", values=column)
    return float((1 - wide["asto"] / wide[versus]).mean())


def _fig4_simulated_gains(
    quick: bool, seeds: int | None = None, lams=LAMS_LOW, base_seed: int = BASE_SEED
) -> tuple[np.ndarray, int]:
    """The simulated Fig. 4 gain of ASTO over the benchmark for ``seeds`` base seeds, and
    the number of simulated points (over all seeds) the stationarity detector flagged.

    Each gain runs the paper's protocol (500 arrivals × 100 runs per λ) from base seed
    ``base_seed + i``. One run of the protocol is one draw of a noisy number (the benchmark
    m = 1 has infinite variance for α = 1.2): its spread over seeds is part of the answer.
    """
    n = seeds or (FIG4_SEEDS_QUICK if quick else FIG4_SEEDS)
    gains, flagged = [], 0
    for i in range(n):
        df = policy_curves(
            N_PAPER,
            15.0,
            PARETO,
            lams,
            n_jobs=500,
            replications=100,
            quick=quick,
            policies=("asto", "benchmark"),
            base_seed=base_seed + i,
        )
        gains.append(_mean_gain(df, "benchmark", "sim_mean"))
        flagged += int((~df["stationary"]).sum())
    return np.array(gains), flagged


def _fig4_simulated_median(quick: bool, seeds: int | None, lams, base_seed: int) -> Measurement:
    gains, flagged = _fig4_simulated_gains(quick, seeds, lams, base_seed)
    note = (
        f"{flagged} simulated points not stationary (the stationarity detector)" if flagged else ""
    )
    return Measurement(float(np.median(gains)), stationary=flagged == 0, note=note)


def _optimal_ms(param, values, fixed, service, formula):
    return [
        rd.optimal_m(N_PAPER, **{**fixed, param: v}, service=service, formula=formula)
        for v in values
    ]


def _strictly_decreasing(xs) -> float:
    return float(all(a > b for a, b in zip(xs, xs[1:], strict=False)))


def _least_blocking_in(service, ms) -> float:
    """1.0 when, at every rate of ``LAMS_WIDE``, the m of least blocking is one of ``ms``."""
    return float(all(rd.optimal_m_blocking(N_PAPER, lam, service) in ms for lam in LAMS_WIDE))


# each claim as a function of the lost values ``v`` (one per plausible row), ``quick`` and
# the simulation's (base seed, seeds): the same quantity CLAIMS measures at the defaults
MEASURES = {
    "thm1_sexp_pb_min_at_m1": lambda v, quick, sim: _least_blocking_in(rd.SExp(1.0, 1.0), (1,)),
    "fig3_pareto_pb_min_at_m2": lambda v, quick, sim: float(
        rd.optimal_m_blocking(N_PAPER, v["fig3_lam"], rd.Pareto(1.0, 1.2))
    ),
    "lemma1_pareto_alpha2_pb_min_at_m1": lambda v, quick, sim: _least_blocking_in(
        rd.Pareto(1.0, 2.0), (1,)
    ),
    "lemma1_pareto_alpha1p2_pb_min_in_1_2": lambda v, quick, sim: _least_blocking_in(
        rd.Pareto(1.0, 1.2), (1, 2)
    ),
    "fig4_pareto_asto_gain_vs_benchmark_exact": lambda v, quick, sim: _fig4_gain(
        "benchmark", fig4_lams(v["fig4_lam_low"]), v["formula"]
    ),
    "fig4_pareto_asto_gain_vs_benchmark_sim500": lambda v, quick, sim: _fig4_simulated_median(
        quick, sim[1], fig4_lams(v["fig4_lam_low"]), sim[0]
    ),
    "fig4_pareto_asto_gain_vs_bpo": lambda v, quick, sim: _fig4_gain(
        "bpo", fig4_lams(v["fig4_lam_low"]), v["formula"]
    ),
    "fig4_pareto_asto_gain_vs_bpo_where_bpo_replicates": lambda v, quick, sim: _fig4_gain(
        "bpo", np.arange(1.0, 2.01, 0.25), v["formula"]
    ),
    "fig4_pareto_bpo_equals_benchmark_low_lambda": lambda v, quick, sim: float(
        all(rd.bpo(N_PAPER, lam, PARETO) == 1 for lam in (0.1, 0.25, 0.5))
    ),
    "fig4_sexp_asto_equals_benchmark_above_2p5": lambda v, quick, sim: float(
        all(rd.asto(N_PAPER, lam, 15.0, SEXP) == 1 for lam in np.arange(2.75, 5.01, 0.25))
    ),
    "fig5_sexp_optimal_m_decreases_with_lambda": lambda v, quick, sim: _strictly_decreasing(
        _optimal_ms("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0}, SEXP, v["formula"])
    ),
    "fig5_pareto_optimal_m_decreases_with_lambda": lambda v, quick, sim: _strictly_decreasing(
        _optimal_ms("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0}, PARETO, v["formula"])
    ),
    "fig6_sexp_m1_optimal_at_tcl50": lambda v, quick, sim: float(
        rd.optimal_m(N_PAPER, 1.5, 50.0, SEXP, v["formula"])
    ),
    "fig6_pareto_m1_not_optimal_at_tcl100": lambda v, quick, sim: float(
        rd.optimal_m(N_PAPER, 1.5, 100.0, PARETO, v["formula"]) > 1
    ),
    "fig7_optimal_m_grows_with_N_sexp": lambda v, quick, sim: float(
        rd.optimal_m(120, 1.5, 10.0, SEXP, v["formula"])
        > rd.optimal_m(12, 1.5, 10.0, SEXP, v["formula"])
    ),
    "fig7_optimal_c_grows_with_N_pareto": lambda v, quick, sim: float(
        120 // rd.optimal_m(120, 1.5, 10.0, PARETO, v["formula"])
        > 12 // rd.optimal_m(12, 1.5, 10.0, PARETO, v["formula"])
    ),
    "table1_cells_agreeing": lambda v, quick, sim: float(
        table1_frame(**{k: v[k] for k in (*TABLE1_FIELDS, "formula")})["agrees"].sum()
    ),
    "eq8_vs_exact_sexp_m4_lam6": lambda v, quick, sim: (
        rd.system_time(N_PAPER, 4, 6.0, 15.0, SEXP, "paper")
        - rd.system_time(N_PAPER, 4, 6.0, 15.0, SEXP)
    ),
    "pmax_at_most_half_c24": lambda v, quick, sim: float(erlang_b_kernel(24, 24.0) <= 0.5),
}


#: the lost values at the table's defaults (what CLAIMS measures at)
DEFAULTS = {p.name: p.default for p in PARAMS.values() if p.plausible is not None}


def _at_defaults(claim: str, quick: bool):
    """``CLAIMS[claim](quick)``: the measure at the table's defaults, the simulated gain a
    median over 40 seeds (10 if quick) from the workbench's base seed."""
    return MEASURES[claim](DEFAULTS, quick, (BASE_SEED, None))


CLAIMS = {claim: functools.partial(_at_defaults, claim) for claim in MEASURES}

#: the claims the atlas moves: every source=paper row of data/claims/p4.csv
ATLAS_CLAIMS = tuple(row.id for row in load_claims("p4").itertuples() if row.source == "paper")


def atlas_point(*, quick: bool, seed: int, **params) -> dict:
    """Every atlas claim's measured value at one point of the plausible space.

    Parameters
    ----------
    quick : bool
        The simulated Fig. 4 gain runs the paper's protocol once, else the median of ten
        runs.
    seed : int
        The simulated gain's base seed.
    **params
        One value for each row with ``plausible`` (``fig3_lam``, ``fig4_lam_low``, the
        ``table1_*`` values and the ``formula`` reading); a row left out stays at its
        default.

    Returns
    -------
    dict
        Claim id -> value (a :class:`Measurement` for the simulated one), the quantity
        ``CLAIMS[id]`` measures.
    """
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"atlas_point got values for {unknown}, rows without a plausible range")
    checked = P4Params.of("atlas_point", {**params, "seed": seed})  # each row's own range
    values = {name: getattr(checked, name) for name in DEFAULTS}
    sim = (checked.seed % 2**32, ATLAS_SEEDS[bool(quick)])
    return {claim: MEASURES[claim](values, quick, sim) for claim in ATLAS_CLAIMS}


#: 16 design points when quick, not the shared 8: the 13 lost values are sampled jointly and
#: with 8 points a decision tree can split a claim on a value it does not depend on
ATLAS = AtlasSpec(evaluate=atlas_point, claims=ATLAS_CLAIMS, quick_points=16)
