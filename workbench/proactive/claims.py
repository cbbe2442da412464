"""The claims of P2 measured by the workbench: ``CLAIMS[claim_id](quick) -> Measurement``.

The ids match ``data/claims/p2.csv``. Every measurement runs :func:`simulate` with
``overload="transient"`` and carries the output analysis' verdict: a claim measured on a
run that is not a steady state says so and never counts as agreement.

- **Gains** are 1 − proposed/BL2 of the quantity's mean over paired replications (the
  replication r of every scheme and every parameter value sees the same network, tasks and
  fading).
- **Yes/no statements** of the paper are 0/1 rows checked exactly. "A is below B" is 1 when
  the paired 95% Student-t interval of the per-replication differences A − B lies below 0
  (a difference the replications resolve), else 0: a tie is not a "yes".
- **Fig. 4** is measured at every density E ∈ {10, 20, 30, 40} (U = 3E); the largest gain
  over densities is taken only over points where both schemes ran stationary.

Two run lengths share one code path (:func:`measure`): ``quick=True`` (the test suite, 8
replications × 1000 slots after the 2000-slot warm-up) and ``quick=False`` (8 × 8000).
:func:`atlas_point` measures the same claims at any point of the plausible space (the
claim atlas, :data:`ATLAS`), with a smaller quick setting.
Tolerances in the CSV are twice the standard deviation of the quick measurement over root
seeds (:func:`seed_spread`), so that they are as wide as the seed-to-seed spread and no
wider.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.claims import AtlasSpec, Measurement
from workbench.proactive.params import PARAMS
from workbench.proactive.simulation import run_length, simulate
from workbench.stats import t_half_width
from workbench.validation import ParameterError, UnstableRegimeError, check_bool, reject_unknown

__all__ = ["CLAIMS", "ATLAS", "atlas_point", "measure", "seed_spread"]

RUN = {
    True: run_length(1000, 2000) | {"replications": 8},
    False: run_length(8000, 2000) | {"replications": 8},
}
"""Run lengths: 8 replications × (2000 warm-up + 1000 or 8000 measured) slots."""
ATLAS_RUN = run_length(500, 500) | {"replications": 3}
"""The quick atlas' run length: 3 replications × (500 warm-up + 500 measured) slots, a
small setting (a P2 run is expensive: every claim at one point needs 18 runs); the
full atlas runs the claims' quick length (8 × (2000 + 1000))."""
DENSITY_CLOUDLETS = (10, 20, 30, 40)
ZIPF_LOW_HIGH = (0.4, 1.2)
CACHEABLE_LOW_HIGH = (0.2, 0.8)


@lru_cache(maxsize=256)
def _run(scheme: str, run: tuple, seed: int, extra: tuple = ()):
    try:
        return simulate(policy=scheme, seed=seed, keep_records=False, overload="transient",
                        **dict(run), **dict(extra))  # fmt: skip
    except UnstableRegimeError as err:  # no numbers at all (queues overflowed)
        return _Failed(str(err))


class _Failed:
    """A run that gave no numbers: every quantity NaN, never stationary."""

    stationary = False

    def __init__(self, note: str):
        self.stationarity = type("Verdict", (), {"note": note})()
        self.frame = pd.DataFrame()

    def __getitem__(self, name):
        return float("nan")


def _context(quick: bool, seed: int, params: dict | None = None, run: dict | None = None):
    """Where the claims are measured: run length, root seed and model parameters."""
    run = RUN[bool(quick)] if run is None else run
    return (tuple(sorted(run.items())), int(seed), tuple(sorted((params or {}).items())))


def _get(scheme, ctx, **extra):
    run, seed, base = ctx
    if extra.get("n_cloudlets") == 30:
        extra = {k: v for k, v in extra.items() if k not in ("n_cloudlets", "n_users")}
    return _run(scheme, run, seed, tuple(sorted((dict(base) | extra).items())))


def _flag(results) -> tuple[bool, str]:
    bad = [r for r in results if not r.stationary]
    note = "; ".join(sorted({r.stationarity.note for r in bad}))
    return not bad, note


def _gain(quantity, ctx, **extra) -> Measurement:
    p, b = _get("proposed", ctx, **extra), _get("BL2", ctx, **extra)
    ok, note = _flag((p, b))
    return Measurement(1.0 - p[quantity] / b[quantity], ok, note)


def _density(e: int) -> dict:
    return {"n_cloudlets": e, "n_users": 3 * e}


def _max_gain(quantity, ctx) -> Measurement:
    """Largest gain over the densities whose two runs are stationary."""
    gains = [_gain(quantity, ctx, **_density(e)) for e in DENSITY_CLOUDLETS]
    kept = [g.value for g in gains if g.stationary]
    if not kept:
        return Measurement(float("nan"), False, "no density ran stationary for both schemes")
    left = len(gains) - len(kept)
    note = f"{left} unstable densities left out" if left else ""
    return Measurement(max(kept), True, note)


def _below(a, b, quantity) -> float:
    """1.0 when the paired 95% interval of a − b (per replication) lies below 0, else 0.0."""
    if isinstance(a, _Failed) or isinstance(b, _Failed):
        return float("nan")
    d = a.frame[quantity].to_numpy(float) - b.frame[quantity].to_numpy(float)
    return float(d.mean() + t_half_width(d, 0.95) < 0.0)


def _is_below(quantity, ctx, lhs, rhs) -> Measurement:
    """lhs, rhs: (scheme, extra params); 1 if lhs's quantity is resolvably below rhs's."""
    a, b = _get(lhs[0], ctx, **lhs[1]), _get(rhs[0], ctx, **rhs[1])
    ok, note = _flag((a, b))
    return Measurement(_below(a, b, quantity), ok, note)


def _density_falls(quantity, ctx) -> Measurement:
    """1 if the proposed scheme's quantity at E = 40 is resolvably below E = 10 (Welch)."""
    lo, hi = (_get("proposed", ctx, **_density(e)) for e in (10, 40))
    ok, note = _flag((lo, hi))
    if not ok and (isinstance(lo, _Failed) or isinstance(hi, _Failed)):
        return Measurement(float("nan"), False, note)
    x, y = hi.frame[quantity].to_numpy(float), lo.frame[quantity].to_numpy(float)
    half = 1.96 * np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    ok, note = _flag((lo, hi))
    return Measurement(float(x.mean() - y.mean() + half < 0.0), ok, note)


def _storage_cut(quantity, ctx) -> Measurement:
    two = _get("proposed", ctx, storage=2)
    four = _get("proposed", ctx, storage=4)
    ok, note = _flag((two, four))
    return Measurement(1.0 - four[quantity] / two[quantity], ok, note)


def _value(quantity, scheme, ctx, **extra) -> Measurement:
    r = _get(scheme, ctx, **extra)
    return Measurement(float(r[quantity]), r.stationary, r.stationarity.note)


P, B1, B2, B3 = "proposed", "BL1", "BL2", "BL3"
LOW_C, HIGH_C = ({"cacheable_ratio": c} for c in CACHEABLE_LOW_HIGH)
LOW_Z, HIGH_Z = ({"zipf": z} for z in ZIPF_LOW_HIGH)

MEASURES = {
    "fig3_p90_gain_vs_bl2": lambda c: _gain("p90_delay", c),
    "fig3_p99_gain_vs_bl2": lambda c: _gain("p99_delay", c),
    "fig3_mean_gain_vs_bl2": lambda c: _gain("mean_delay", c),
    "fig3_bl2_tail_below_bl3": lambda c: _is_below("p99_delay", c, (B2, {}), (B3, {})),
    "fig3_bl1_mean_above_proposed": lambda c: _is_below("mean_delay", c, (P, {}), (B1, {})),
    "fig3_hedged_share_bl2": lambda c: _value("hedged_fraction", B2, c),
    **{
        f"fig4_mean_gain_E{e}": (lambda c, e=e: _gain("mean_delay", c, **_density(e)))
        for e in DENSITY_CLOUDLETS
    },
    **{
        f"fig4_p99_gain_E{e}": (lambda c, e=e: _gain("p99_delay", c, **_density(e)))
        for e in DENSITY_CLOUDLETS
    },
    "fig4_max_mean_gain": lambda c: _max_gain("mean_delay", c),
    "fig4_max_p99_gain": lambda c: _max_gain("p99_delay", c),
    "fig4_proposed_mean_falls_with_density": lambda c: _density_falls("mean_delay", c),
    "fig4_bl2_mean_above_bl3_at_E10": lambda c: _is_below(
        "mean_delay", c, (B3, _density(10)), (B2, _density(10))
    ),
    "fig4_bl2_mean_below_bl3_at_E40": lambda c: _is_below(
        "mean_delay", c, (B2, _density(40)), (B3, _density(40))
    ),
    "fig4_bl2_p99_below_bl3_at_E40": lambda c: _is_below(
        "p99_delay", c, (B2, _density(40)), (B3, _density(40))
    ),
    "fig5_mean_cut_2_to_4": lambda c: _storage_cut("mean_delay", c),
    "fig5_p99_cut_2_to_4": lambda c: _storage_cut("p99_delay", c),
    "fig6_mean_falls_with_cacheable_ratio": lambda c: _is_below(
        "mean_delay", c, (P, HIGH_C), (P, LOW_C)
    ),
    "fig6_p99_falls_with_cacheable_ratio": lambda c: _is_below(
        "p99_delay", c, (P, HIGH_C), (P, LOW_C)
    ),
    "fig7_hit_rate_rises_with_z": lambda c: _is_below("hit_rate", c, (P, LOW_Z), (P, HIGH_Z)),
    "fig7_p99_falls_with_z": lambda c: _is_below("p99_delay", c, (P, HIGH_Z), (P, LOW_Z)),
}


def measure(claim_id: str, quick: bool = True, seed: int = 0) -> Measurement:
    """One claim measured with the root seed ``seed`` (CLAIMS uses seed 0)."""
    return MEASURES[claim_id](_context(quick, seed))


def seed_spread(quick: bool = True, seeds=range(6), claims=None) -> pd.DataFrame:
    """Every claim over several root seeds: one row per claim, mean/std/min/max, the
    suggested tolerance (twice the standard deviation, at least 0.01; 0 for a yes/no row)
    and how many seeds measured a non-stationary point."""
    ids = list(MEASURES) if claims is None else list(claims)
    seeds = list(seeds)
    got = {s: [measure(c, quick, s) for c in ids] for s in seeds}
    raw = pd.DataFrame({s: [m.value for m in got[s]] for s in seeds}, index=ids)
    unstable = pd.Series({c: sum(not got[s][i].stationary for s in seeds)
                          for i, c in enumerate(ids)})  # fmt: skip
    yes_no = raw.isin([0.0, 1.0]).all(axis=1) & raw.notna().all(axis=1)
    std = raw.std(axis=1, ddof=1)
    out = pd.DataFrame({"mean": raw.mean(axis=1), "std": std, "min": raw.min(axis=1),
                        "max": raw.max(axis=1),
                        "tolerance": np.where(yes_no, 0.0, np.maximum(
                            np.ceil(200 * std) / 100, 0.01)),
                        "unstable_seeds": unstable})  # fmt: skip
    out["seeds"] = len(seeds)
    return pd.concat([out, raw.add_prefix("seed_")], axis=1).round(4)


CLAIMS = {claim_id: (lambda quick, c=claim_id: measure(c, quick, 0)) for claim_id in MEASURES}

ATLAS_CLAIMS = (
    "fig3_p90_gain_vs_bl2",
    "fig3_p99_gain_vs_bl2",
    "fig3_bl2_tail_below_bl3",
    "fig3_bl1_mean_above_proposed",
    "fig4_max_mean_gain",
    "fig4_max_p99_gain",
    "fig4_proposed_mean_falls_with_density",
    "fig4_bl2_mean_above_bl3_at_E10",
    "fig4_bl2_mean_below_bl3_at_E40",
    "fig4_bl2_p99_below_bl3_at_E40",
    "fig5_mean_cut_2_to_4",
    "fig5_p99_cut_2_to_4",
    "fig6_mean_falls_with_cacheable_ratio",
    "fig6_p99_falls_with_cacheable_ratio",
    "fig7_hit_rate_rises_with_z",
    "fig7_p99_falls_with_z",
)
"""The claims the paper makes (the source=paper rows of data/claims/p2.csv)."""
_RUN_CONTROL = {"policy", "slots", "warmup", "replications", "seed", "confidence"}


def atlas_point(*, quick: bool, seed: int, **params) -> dict[str, Measurement]:
    """Every atlas claim's measured value at one point of the plausible space.

    ``params`` holds one value for each row of :data:`~workbench.proactive.params.PARAMS`
    with ``plausible`` (the lost values sampled by the atlas, the readings ``cache_aware``
    and ``hedge_check`` at the reading's value); the claims are measured exactly as
    :data:`CLAIMS` measures them (the same runs, with these parameters on top). Returns
    claim id -> :class:`Measurement`; a run that is not stationary (or gave no numbers, its
    queues overflowing) makes the claims resting on it undetermined.

    ``quick=True`` is a small setting, because a P2 point is expensive (18 simulations:
    four schemes at E = 30, the densities E = 10, 20, 40, the storage, cacheable-ratio and
    Zipf pairs): 3 replications × (500 warm-up + 500 measured) slots, a few seconds per
    point on one core, with little power for the yes/no claims (3 paired replications).
    ``quick=False`` runs the claims' own quick length (8 × (2000 + 1000) slots).
    """
    func = "atlas_point"
    quick = check_bool(quick, "quick", func)
    reject_unknown(func, params, set(PARAMS) - _RUN_CONTROL)
    values = PARAMS.check(func, seed=seed, **params)
    seed = values.pop("seed")
    ctx = _context(quick, seed, values, run=ATLAS_RUN if quick else RUN[True])
    if not set(ATLAS_CLAIMS) <= set(MEASURES):  # pragma: no cover - a table/code mismatch
        raise ParameterError(f"{func}: ATLAS_CLAIMS names claims that MEASURES does not have")
    return {claim: MEASURES[claim](ctx) for claim in ATLAS_CLAIMS}


ATLAS = AtlasSpec(evaluate=atlas_point, claims=ATLAS_CLAIMS)
