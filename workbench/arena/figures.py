"""The arena's figures: the winner map and the delay-versus-energy fronts (CSV + PNG by
``python -m workbench reproduce arena``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.arena.studies import CONTENDERS, fronts, validation_table, winner_map
from workbench.plots import FigureSpec, figure

__all__ = [
    "FIGURES", "plot_winner_map", "plot_fronts", "plot_validation", "describe_map",
    "winner_map_frame", "fronts_frame", "validation_frame",
]  # fmt: skip

_COLOURS = dict(zip(CONTENDERS, ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
                                 "#937860", "#da8bc3", "#8c8c8c"], strict=True))  # fmt: skip


def plot_winner_map(frame: pd.DataFrame):
    """One panel per task-size SCV: the winning policy at each (link delay, load)."""
    scvs = sorted(frame["scv"].unique())
    fig, axes = figure(ncols=len(scvs), width=3.6, height=3.2, squeeze=False)
    win = frame[frame["winner"]]
    delays = sorted(frame["link_delay"].unique())
    loads = sorted(frame["load"].unique())
    for ax, scv in zip(axes[0], scvs, strict=True):
        part = win[win["scv"] == scv]
        for _, r in part.iterrows():
            x, y = delays.index(r["link_delay"]), loads.index(r["load"])
            ax.scatter(x, y, s=900, marker="s", color=_COLOURS.get(r["policy"], "k"))
            ax.annotate(r["policy"], (x, y), ha="center", va="center", fontsize=7,
                        color="white")  # fmt: skip
        ax.set_xticks(range(len(delays)), [f"{d * 1e3:g}" for d in delays])
        ax.set_yticks(range(len(loads)), [f"{x:g}" for x in loads])
        ax.set_xlim(-0.6, len(delays) - 0.4)
        ax.set_ylim(-0.6, len(loads) - 0.4)
        ax.set_xlabel("edge link delay (ms)")
        ax.set_title(f"task size SCV = {scv:g}")
    axes[0][0].set_ylabel("edge load ρ")
    return fig


def plot_fronts(frame: pd.DataFrame):
    """Mean delay against energy per task, each mechanism across its knob."""
    fig, ax = figure(width=5.6, height=3.8)
    for name, part in frame.groupby("policy", sort=False):
        ax.plot(part["energy_per_task"], part["mean_delay"], "o-", label=name,
                color=_COLOURS.get(name))  # fmt: skip
        for _, r in part.iterrows():
            ax.annotate(f"{r['knob']}={r['value']:g}", (r["energy_per_task"], r["mean_delay"]),
                        fontsize=7, xytext=(3, 3), textcoords="offset points")  # fmt: skip
    best = frame[frame["pareto"]].sort_values("energy_per_task")
    ax.plot(best["energy_per_task"], best["mean_delay"], "k--", lw=1, label="Pareto front")
    ax.set_xlabel("energy per task (J)")
    ax.set_ylabel("mean delay (s)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return fig


def describe_map(frame: pd.DataFrame) -> str:
    """Sentences from the numbers: who wins where, with the routing shares behind it."""
    win = frame[frame["winner"]]
    if win.empty:
        return "No point had a stationary run losing at most 1 % of the tasks."
    lines = []
    points = win[["load", "link_delay", "scv"]].drop_duplicates().shape[0]

    def values(part, key):
        return [float(x) for x in sorted(part[key].unique())]

    for name, part in win.groupby("policy"):
        fwd, cloud = part["forwarded_share"].mean(), part["cloud_share"].mean()
        lines.append(
            f"{name} wins {len(part)} of {points} points: loads {values(part, 'load')}, "
            f"link delays {values(part, 'link_delay')} s, SCV {values(part, 'scv')}; there it "
            f"forwards {fwd:.0%} of tasks, sends {cloud:.0%} to the cloud, and the edge is "
            f"{part['edge_utilisation'].mean():.0%} busy."
        )
    lost = frame.groupby("policy")["loss_share"].mean().sort_values()
    lines.append(
        "Mean loss share per policy over the map: "
        + ", ".join(f"{k} {v:.1%}" for k, v in lost.items())
        + "."
    )
    return "\n".join(lines)


def fronts_frame(quick: bool = False) -> pd.DataFrame:
    """The fronts' data (:func:`workbench.arena.studies.fronts`)."""
    return fronts(quick=quick)


def winner_map_frame(quick: bool = False) -> pd.DataFrame:
    """The winner map's data (:func:`workbench.arena.studies.winner_map`)."""
    return winner_map(quick=quick)


def validation_frame(quick: bool = False) -> pd.DataFrame:
    """The exact mappings' data (:func:`workbench.arena.studies.validation_table`)."""
    return validation_table(quick=quick)


def plot_validation(frame: pd.DataFrame):
    """Each exact mapping: arena and package intervals, relative to the theory (= 1)."""
    fig, ax = figure(width=5.6, height=0.6 + 0.55 * len(frame))
    y = np.arange(len(frame))
    for dy, who, colour in ((-0.12, "arena", "#c44e52"), (0.12, "package", "#4c72b0")):
        mid = frame[who] / frame["theory"]
        lo = frame[f"{who}_low"] / frame["theory"]
        hi = frame[f"{who}_high"] / frame["theory"]
        ax.errorbar(mid, y + dy, xerr=[mid - lo, hi - mid], fmt="o", color=colour, label=who)
    ax.axvline(1.0, color="k", lw=1, label="theory")
    ax.set_yticks(y, [f"{r.paper} {r.policy}" for r in frame.itertuples()])
    ax.set_xlabel("estimate / theory (95 % intervals)")
    ax.legend(fontsize=8)
    return fig


FIGURES = {
    "winner_map": FigureSpec(winner_map_frame, plot_winner_map,
                             "The policy with the least mean delay (stationary, <= 1 % lost)."),
    "fronts": FigureSpec(fronts_frame, plot_fronts,
                         "Mean delay against energy per task, each mechanism across its knob."),
    "validation": FigureSpec(validation_frame, plot_validation,
                             "Exact mappings (P3, P4): arena vs the paper's package vs theory."),
}  # fmt: skip
