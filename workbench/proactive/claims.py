"""The claims of P2 measured by the workbench: ``CLAIMS[claim_id](quick) -> float``.

The ids match ``data/claims/p2.csv``. Gains are 1 − (proposed / BL2) of the quantity's
mean over paired replications (same networks, tasks and fading for both schemes).

``quick`` is accepted for the common interface but ignored: the gains against BL2 depend
strongly on the drawn networks (BL2's tail is dominated by the few networks where its
hedged requests congest the cloudlets), so a shorter run would measure something else.
Every claim runs the configuration its row was measured with (seed 0).
"""

from __future__ import annotations

from functools import lru_cache

from workbench.proactive.simulation import simulate

__all__ = ["CLAIMS"]

FIG3 = {"n_slots": 20_000, "replications": 4, "seed": 0}
DENSITY = {"n_slots": 10_000, "replications": 3, "seed": 0}
DENSITY_CLOUDLETS = (10, 20)


@lru_cache(maxsize=16)
def _run(scheme: str, config: tuple, extra: tuple = ()):
    return simulate(scheme, keep_records=False, **dict(config), **dict(extra))


def _fig3(scheme: str, **extra):
    return _run(scheme, tuple(FIG3.items()), tuple(sorted(extra.items())))


def _gain(quantity: str, quick: bool) -> float:
    return 1.0 - _fig3("proposed")[quantity] / _fig3("BL2")[quantity]


def _density_gain(quantity: str, quick: bool) -> float:
    gains = []
    for e in DENSITY_CLOUDLETS:
        extra = (("n_cloudlets", e), ("n_users", 3 * e))
        p = _run("proposed", tuple(DENSITY.items()), extra)
        b = _run("BL2", tuple(DENSITY.items()), extra)
        gains.append(1.0 - p[quantity] / b[quantity])
    return max(gains)


def _storage_cut(quantity: str, quick: bool, area: float = 100.0) -> float:
    two = _fig3("proposed", storage=2, area=area)
    four = _fig3("proposed", storage=4, area=area)
    return 1.0 - four[quantity] / two[quantity]


def _bl2_tail_below_bl3(quick: bool) -> float:
    return float(_fig3("BL2")["p99_delay"] < _fig3("BL3")["p99_delay"])


def _bl1_mean_above_proposed(quick: bool) -> float:
    return float(_fig3("BL1")["mean_delay"] > 1.01 * _fig3("proposed")["mean_delay"])


CLAIMS = {
    "fig3_p90_gain_vs_bl2": lambda quick: _gain("p90_delay", quick),
    "fig3_p99_gain_vs_bl2": lambda quick: _gain("p99_delay", quick),
    "fig3_mean_gain_vs_bl2": lambda quick: _gain("mean_delay", quick),
    "fig3_bl2_tail_below_bl3": _bl2_tail_below_bl3,
    "fig3_bl1_mean_above_proposed": _bl1_mean_above_proposed,
    "fig4_max_mean_gain": lambda quick: _density_gain("mean_delay", quick),
    "fig4_max_p99_gain": lambda quick: _density_gain("p99_delay", quick),
    "fig5_mean_cut_2_to_4": lambda quick: _storage_cut("mean_delay", quick),
    "fig5_p99_cut_2_to_4": lambda quick: _storage_cut("p99_delay", quick),
    "fig5_mean_cut_2_to_4_local": lambda quick: _storage_cut("mean_delay", quick, 300.0),
    "fig5_p99_cut_2_to_4_local": lambda quick: _storage_cut("p99_delay", quick, 300.0),
}
