"""The paper's claims, measured (ids as in data/claims/p5.csv).

"Overall" comparisons follow the paper's Fig. 7: at each (λ, μ) point a model's mean time is
divided by the advanced model's, and the ratios are averaged over the grid (9 × 9 points;
3 × 3 when quick).
"""

from __future__ import annotations

import numpy as np

from workbench.hierarchy.figures import _frame_down, _frame_red, grid_study, topology_frame

__all__ = ["CLAIMS", "normalised_grid"]


def normalised_grid(quick: bool):
    """Grid-averaged mean time of each model relative to the advanced model (Fig. 7)."""
    grid = grid_study(quick)
    pivot = grid.pivot_table(index=["lam", "mu"], columns="model", values="mean_time")
    return pivot.div(pivot["advanced"], axis=0).mean()


def advanced_best_share(quick: bool) -> float:
    grid = grid_study(quick)
    pivot = grid.pivot_table(index=["lam", "mu"], columns="model", values="mean_time")
    return float((pivot.idxmin(axis=1) == "advanced").mean())


def red_gain(quick: bool) -> float:
    """Grid-averaged (time without enhancement 2) / (advanced time) − 1."""
    return float(normalised_grid(quick)["without_enhancement_2"] - 1.0)


def red_gain_over_20pct(quick: bool) -> float:
    return float(red_gain(quick) > 0.2)


def without_1_worse_than_cloud(quick: bool) -> float:
    norm = normalised_grid(quick)
    return float(norm["without_enhancement_1"] > norm["pure_cloud"])


def pure_local_worst(quick: bool) -> float:
    return float(normalised_grid(quick).idxmax() == "pure_local")


def topology_change(quick: bool, names) -> float:
    frame = topology_frame(quick)
    frame = frame[frame["topology"].isin(names)]
    return float((frame.groupby("topology")["relative"].mean() - 1.0).abs().max())


def skew_below_10pct(quick: bool) -> float:
    return float(topology_change(quick, ["skewed"]) < 0.1)


def ba_below_10pct(quick: bool) -> float:
    return float(topology_change(quick, [f"ba-{i}" for i in range(1, 6)]) < 0.1)


def red_threshold_difference(quick: bool) -> float:
    """Grid-averaged |(5, 40) time ÷ (5, 20) time − 1|."""
    return float(abs(_frame_red(quick)["relative"].mean() - 1.0))


def down_offload_gain(quick: bool) -> float:
    """1 − (mean time with down offloading) ÷ (without), averaged over λ at μ = 7."""
    frame = _frame_down(quick)
    up = frame[frame["direction"] == "up only"].set_index("lam")["mean_time"]
    both = frame[frame["direction"] == "up and down"].set_index("lam")["mean_time"]
    return float(np.mean(1.0 - both / up))


CLAIMS = {
    "advanced_best_everywhere": advanced_best_share,
    "red_gain_over_20pct": red_gain_over_20pct,
    "without_enh1_worse_than_pure_cloud": without_1_worse_than_cloud,
    "pure_local_worst": pure_local_worst,
    "skew_changes_below_10pct": skew_below_10pct,
    "ba_changes_below_10pct": ba_below_10pct,
    "red_thresholds_differ_0_2pct": red_threshold_difference,
    "beyond_down_offload_gain": down_offload_gain,
}


def claims_table(quick: bool = True):
    """The claims CSV with the workbench's measurement next to the paper's number."""
    from pathlib import Path

    import pandas as pd

    path = Path(__file__).resolve().parents[2] / "data" / "claims" / "p5.csv"
    frame = pd.read_csv(path, comment="#", skipinitialspace=True)
    frame["measured"] = [CLAIMS[i](quick) for i in frame["id"]]
    return frame[["id", "quantity", "value", "measured", "expect", "workbench_value", "note"]]
