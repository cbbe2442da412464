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
Tolerances in the CSV are twice the standard deviation of the quick measurement over root
seeds (:func:`seed_spread`), so that they are as wide as the seed-to-seed spread and no
wider.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.claims import Measurement
from workbench.proactive.simulation import run_length, simulate
from workbench.stats import t_half_width

__all__ = ["CLAIMS", "measure", "seed_spread"]

RUN = {
    True: run_length(1000, 2000) | {"replications": 8},
    False: run_length(8000, 2000) | {"replications": 8},
}
"""Run lengths: 8 replications × (2000 warm-up + 1000 or 8000 measured) slots."""
DENSITY_CLOUDLETS = (10, 20, 30, 40)
ZIPF_LOW_HIGH = (0.4, 1.2)
CACHEABLE_LOW_HIGH = (0.2, 0.8)


@lru_cache(maxsize=256)
def _run(scheme: str, quick: bool, seed: int, extra: tuple = ()):
    return simulate(policy=scheme, seed=seed, keep_records=False, overload="transient",
                    **RUN[quick], **dict(extra))  # fmt: skip


def _get(scheme, quick, seed, **extra):
    if extra.get("n_cloudlets") == 30:
        extra = {k: v for k, v in extra.items() if k not in ("n_cloudlets", "n_users")}
    return _run(scheme, quick, seed, tuple(sorted(extra.items())))


def _flag(results) -> tuple[bool, str]:
    bad = [r for r in results if not r.stationary]
    note = "; ".join(sorted({r.stationarity.note for r in bad}))
    return not bad, note


def _gain(quantity, quick, seed, **extra) -> Measurement:
    p, b = _get("proposed", quick, seed, **extra), _get("BL2", quick, seed, **extra)
    ok, note = _flag((p, b))
    return Measurement(1.0 - p[quantity] / b[quantity], ok, note)


def _density(e: int) -> dict:
    return {"n_cloudlets": e, "n_users": 3 * e}


def _max_gain(quantity, quick, seed) -> Measurement:
    """Largest gain over the densities whose two runs are stationary."""
    gains = [_gain(quantity, quick, seed, **_density(e)) for e in DENSITY_CLOUDLETS]
    kept = [g.value for g in gains if g.stationary]
    if not kept:
        return Measurement(float("nan"), False, "no density ran stationary for both schemes")
    left = len(gains) - len(kept)
    note = f"{left} unstable densities left out" if left else ""
    return Measurement(max(kept), True, note)


def _below(a, b, quantity) -> float:
    """1.0 when the paired 95% interval of a − b (per replication) lies below 0, else 0.0."""
    d = a.frame[quantity].to_numpy(float) - b.frame[quantity].to_numpy(float)
    return float(d.mean() + t_half_width(d, 0.95) < 0.0)


def _is_below(quantity, quick, seed, lhs, rhs) -> Measurement:
    """lhs, rhs: (scheme, extra params); 1 if lhs's quantity is resolvably below rhs's."""
    a, b = _get(lhs[0], quick, seed, **lhs[1]), _get(rhs[0], quick, seed, **rhs[1])
    ok, note = _flag((a, b))
    return Measurement(_below(a, b, quantity), ok, note)


def _density_falls(quantity, quick, seed) -> Measurement:
    """1 if the proposed scheme's quantity at E = 40 is resolvably below E = 10 (Welch)."""
    lo, hi = (_get("proposed", quick, seed, **_density(e)) for e in (10, 40))
    x, y = hi.frame[quantity].to_numpy(float), lo.frame[quantity].to_numpy(float)
    half = 1.96 * np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    ok, note = _flag((lo, hi))
    return Measurement(float(x.mean() - y.mean() + half < 0.0), ok, note)


def _storage_cut(quantity, quick, seed) -> Measurement:
    two = _get("proposed", quick, seed, storage=2)
    four = _get("proposed", quick, seed, storage=4)
    ok, note = _flag((two, four))
    return Measurement(1.0 - four[quantity] / two[quantity], ok, note)


def _value(quantity, scheme, quick, seed, **extra) -> Measurement:
    r = _get(scheme, quick, seed, **extra)
    return Measurement(float(r[quantity]), r.stationary, r.stationarity.note)


P, B1, B2, B3 = "proposed", "BL1", "BL2", "BL3"
LOW_C, HIGH_C = ({"cacheable_ratio": c} for c in CACHEABLE_LOW_HIGH)
LOW_Z, HIGH_Z = ({"zipf": z} for z in ZIPF_LOW_HIGH)

MEASURES = {
    "fig3_p90_gain_vs_bl2": lambda q, s: _gain("p90_delay", q, s),
    "fig3_p99_gain_vs_bl2": lambda q, s: _gain("p99_delay", q, s),
    "fig3_mean_gain_vs_bl2": lambda q, s: _gain("mean_delay", q, s),
    "fig3_bl2_tail_below_bl3": lambda q, s: _is_below("p99_delay", q, s, (B2, {}), (B3, {})),
    "fig3_bl1_mean_above_proposed": lambda q, s: _is_below("mean_delay", q, s, (P, {}), (B1, {})),
    "fig3_hedged_share_bl2": lambda q, s: _value("hedged_fraction", B2, q, s),
    **{
        f"fig4_mean_gain_E{e}": (lambda q, s, e=e: _gain("mean_delay", q, s, **_density(e)))
        for e in DENSITY_CLOUDLETS
    },
    **{
        f"fig4_p99_gain_E{e}": (lambda q, s, e=e: _gain("p99_delay", q, s, **_density(e)))
        for e in DENSITY_CLOUDLETS
    },
    "fig4_max_mean_gain": lambda q, s: _max_gain("mean_delay", q, s),
    "fig4_max_p99_gain": lambda q, s: _max_gain("p99_delay", q, s),
    "fig4_proposed_mean_falls_with_density": lambda q, s: _density_falls("mean_delay", q, s),
    "fig4_bl2_mean_above_bl3_at_E10": lambda q, s: _is_below(
        "mean_delay", q, s, (B3, _density(10)), (B2, _density(10))
    ),
    "fig4_bl2_mean_below_bl3_at_E40": lambda q, s: _is_below(
        "mean_delay", q, s, (B2, _density(40)), (B3, _density(40))
    ),
    "fig4_bl2_p99_below_bl3_at_E40": lambda q, s: _is_below(
        "p99_delay", q, s, (B2, _density(40)), (B3, _density(40))
    ),
    "fig5_mean_cut_2_to_4": lambda q, s: _storage_cut("mean_delay", q, s),
    "fig5_p99_cut_2_to_4": lambda q, s: _storage_cut("p99_delay", q, s),
    "fig6_mean_falls_with_cacheable_ratio": lambda q, s: _is_below(
        "mean_delay", q, s, (P, HIGH_C), (P, LOW_C)
    ),
    "fig6_p99_falls_with_cacheable_ratio": lambda q, s: _is_below(
        "p99_delay", q, s, (P, HIGH_C), (P, LOW_C)
    ),
    "fig7_hit_rate_rises_with_z": lambda q, s: _is_below("hit_rate", q, s, (P, LOW_Z), (P, HIGH_Z)),
    "fig7_p99_falls_with_z": lambda q, s: _is_below("p99_delay", q, s, (P, HIGH_Z), (P, LOW_Z)),
}


def measure(claim_id: str, quick: bool = True, seed: int = 0) -> Measurement:
    """One claim measured with the root seed ``seed`` (CLAIMS uses seed 0)."""
    return MEASURES[claim_id](bool(quick), int(seed))


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
