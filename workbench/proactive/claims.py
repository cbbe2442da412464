"""The claims of P2 measured by the workbench: ``CLAIMS[claim_id](quick) -> float``.

The ids match ``data/claims/p2.csv``. Gains are 1 − (proposed / BL2) of the quantity's
mean over paired replications (same networks, tasks and fading for every scheme and every
value of the varied parameter).

Two run lengths share one code path (:func:`measure`):

- ``quick=True`` (the test suite): 8 replications × 1500 slots — many short paired
  replications rather than a few long ones, because the gains vary more between drawn
  networks than within a run; all P2 claims take well under a minute together.
- ``quick=False``: 8 replications × 10 000 slots.

The CSV's tolerances cover the spread of the quick measurement over root seeds (see the
notes there); :func:`seed_spread` recomputes that spread.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.proactive.simulation import simulate

__all__ = ["CLAIMS", "RUN", "DENSITY_CLOUDLETS", "ZIPF_LOW_HIGH", "measure", "seed_spread"]

RUN = {True: {"n_slots": 1000, "replications": 8}, False: {"n_slots": 8000, "replications": 8}}
DENSITY_CLOUDLETS = (10, 20, 30, 40)
ZIPF_LOW_HIGH = (0.4, 1.2)


@lru_cache(maxsize=64)
def _run(scheme: str, quick: bool, seed: int, extra: tuple = ()):
    return simulate(scheme, seed=seed, keep_records=False, **RUN[quick], **dict(extra))


def _q(scheme, quantity, quick, seed, **extra) -> float:
    return float(_run(scheme, quick, seed, tuple(sorted(extra.items())))[quantity])


def _gain(quantity, quick, seed, **extra) -> float:
    return 1.0 - _q("proposed", quantity, quick, seed, **extra) / _q(
        "BL2", quantity, quick, seed, **extra
    )


def _density_gain(quantity, quick, seed) -> float:
    return max(
        _gain(quantity, quick, seed, n_cloudlets=e, n_users=3 * e) if e != 30 else
        _gain(quantity, quick, seed)
        for e in DENSITY_CLOUDLETS
    )  # fmt: skip


def _storage_cut(quantity, quick, seed, **extra) -> float:
    two = _q("proposed", quantity, quick, seed, storage=2, **extra)
    four = _q("proposed", quantity, quick, seed, storage=4, **extra)
    return 1.0 - four / two


def _ratio(a, b, quantity, quick, seed) -> float:
    return _q(a, quantity, quick, seed) / _q(b, quantity, quick, seed)


MEASURES = {
    "fig3_p90_gain_vs_bl2": lambda quick, seed: _gain("p90_delay", quick, seed),
    "fig3_p99_gain_vs_bl2": lambda quick, seed: _gain("p99_delay", quick, seed),
    "fig3_mean_gain_vs_bl2": lambda quick, seed: _gain("mean_delay", quick, seed),
    "fig3_bl2_tail_below_bl3": lambda quick, seed: float(
        _ratio("BL2", "BL3", "p99_delay", quick, seed) < 1.0
    ),
    "fig3_bl2_over_bl3_p99": lambda quick, seed: _ratio("BL2", "BL3", "p99_delay", quick, seed),
    "fig3_bl1_over_proposed_mean": lambda quick, seed: _ratio(
        "BL1", "proposed", "mean_delay", quick, seed
    ),
    "fig4_max_mean_gain": lambda quick, seed: _density_gain("mean_delay", quick, seed),
    "fig4_max_p99_gain": lambda quick, seed: _density_gain("p99_delay", quick, seed),
    "fig5_mean_cut_2_to_4": lambda quick, seed: _storage_cut("mean_delay", quick, seed),
    "fig5_p99_cut_2_to_4": lambda quick, seed: _storage_cut("p99_delay", quick, seed),
    "fig5_mean_cut_2_to_4_pooled": lambda quick, seed: _storage_cut(
        "mean_delay", quick, seed, cache_aware=True
    ),
    "fig7_hit_rate_rises_with_z": lambda quick, seed: float(
        _q("proposed", "hit_rate", quick, seed, zipf=ZIPF_LOW_HIGH[1])
        > _q("proposed", "hit_rate", quick, seed, zipf=ZIPF_LOW_HIGH[0])
    ),
    "fig7_hit_rate_gain_z": lambda quick, seed: (
        _q("proposed", "hit_rate", quick, seed, zipf=ZIPF_LOW_HIGH[1])
        - _q("proposed", "hit_rate", quick, seed, zipf=ZIPF_LOW_HIGH[0])
    ),
}


def measure(claim_id: str, quick: bool = True, seed: int = 0) -> float:
    """One claim measured with the root seed ``seed`` (CLAIMS uses seed 0)."""
    return MEASURES[claim_id](bool(quick), int(seed))


def seed_spread(quick: bool = True, seeds=range(6), claims=None) -> pd.DataFrame:
    """Every claim over several root seeds: one row per claim, mean/min/max/std."""
    ids = list(MEASURES) if claims is None else list(claims)
    raw = pd.DataFrame({s: [measure(c, quick, s) for c in ids] for s in seeds}, index=ids)
    out = pd.DataFrame({"mean": raw.mean(axis=1), "min": raw.min(axis=1),
                        "max": raw.max(axis=1), "std": raw.std(axis=1, ddof=1)})  # fmt: skip
    out["seeds"] = len(list(seeds))
    return pd.concat([out, raw.add_prefix("seed_")], axis=1).round(4).replace({np.nan: None})


CLAIMS = {claim_id: (lambda quick, c=claim_id: measure(c, quick, 0)) for claim_id in MEASURES}
