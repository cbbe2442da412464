"""The arena's figures: the winner map and the delay-versus-energy fronts (CSV + PNG by
``python -m workbench reproduce arena``). Every frame takes the caller's ``seed`` (the
notebook's ``SEED``, ``reproduce --seed``) and passes it to its study."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from workbench.arena.studies import CONTENDERS, fronts, validation_table, winner_map
from workbench.plots import FigureSpec, figure

__all__ = [
    "FIGURES",
    "plot_winner_map",
    "plot_fronts",
    "plot_validation",
    "describe_map",
    "winner_map_frame",
    "fronts_frame",
    "validation_frame",
]

_COLOURS = dict(
    zip(
        CONTENDERS,
        ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"],
        strict=True,
    )
)


def plot_winner_map(frame: pd.DataFrame):
    """The winner map: one panel per task-size SCV (and per cloud round trip, in rows).

    At each (link delay, load) the winner, a square in its colour, when it is separated
    from every other contender (paired intervals); otherwise the tied set, one stripe per
    member, named.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`~workbench.arena.studies.winner_map`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    scvs = sorted(frame["scv"].unique())
    rtts = sorted(frame["cloud_rtt"].unique()) if "cloud_rtt" in frame else [None]
    fig, axes = figure(nrows=len(rtts), ncols=len(scvs), width=3.6, height=3.2, squeeze=False)
    delays = sorted(frame["link_delay"].unique())
    loads = sorted(frame["load"].unique())
    # a 2 × 2 grid (the quick map, the one a slide shows) has room for 12 px text on a slide
    size = 9 if max(len(delays), len(loads)) <= 2 else None
    for row, rtt in zip(axes, rtts, strict=True):
        for ax, scv in zip(row, scvs, strict=True):
            part = frame[frame["scv"] == scv]
            if rtt is not None:
                part = part[part["cloud_rtt"] == rtt]
            for (delay, load), cell in part.groupby(["link_delay", "load"]):
                _draw_cell(ax, delays.index(delay), loads.index(load), cell.iloc[0], size)
            ax.set_xticks(range(len(delays)), [f"{d * 1e3:g}" for d in delays])
            ax.set_yticks(range(len(loads)), [f"{x:g}" for x in loads])
            ax.set_xlim(-0.6, len(delays) - 0.4)
            ax.set_ylim(-0.6, len(loads) - 0.4)
            ax.set_xlabel("edge link delay (ms)")
            title = f"task size SCV = {scv:g}"
            ax.set_title(
                title if rtt is None else f"{title}, cloud RTT {rtt * 1e3:g} ms",
                fontsize=10 if size else 9,
            )
        row[0].set_ylabel("edge load ρ")
    return fig


def _draw_cell(ax, x, y, r, size=None) -> None:
    """A winner as a square in its colour; a tie as stripes of its members' colours (their
    names at ``size`` points, default 7 for a winner and 6 for a tie)."""
    if r["winner"]:
        ax.add_patch(
            Rectangle((x - 0.45, y - 0.45), 0.9, 0.9, color=_COLOURS.get(r["winner"], "k"))
        )
        ax.annotate(
            r["winner"], (x, y), ha="center", va="center", fontsize=size or 7, color="white"
        )
        return
    names = [t for t in r["tied_with"].split(", ") if t]
    if not names:  # no contender: every run unstable or losing more than 1 %
        ax.annotate("none", (x, y), ha="center", va="center", fontsize=size or 7, color="0.4")
        return
    w = 0.9 / len(names)
    for a, name in enumerate(names):
        ax.add_patch(
            Rectangle(
                (x - 0.45 + a * w, y - 0.45), w, 0.9, color=_COLOURS.get(name, "k"), alpha=0.55
            )
        )
    ax.annotate("tie:\n" + "\n".join(names), (x, y), ha="center", va="center", fontsize=size or 6)


def plot_fronts(frame: pd.DataFrame):
    """Mean delay against energy per task, each mechanism across its knob.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`~workbench.arena.studies.fronts`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig, ax = figure(width=5.6, height=3.8)
    for name, part in frame.groupby("policy", sort=False):
        ax.plot(
            part["energy_per_task"], part["mean_delay"], "o-", label=name, color=_COLOURS.get(name)
        )
        for _, r in part.iterrows():
            ax.annotate(
                f"{r['knob']}={r['value']:g}",
                (r["energy_per_task"], r["mean_delay"]),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
    best = frame[frame["pareto"]].sort_values("energy_per_task")
    ax.plot(
        best["energy_per_task"],
        best["mean_delay"],
        "ks",
        mfc="none",
        ms=10,
        label="not dominated (paired intervals)",
    )
    ax.set_xlabel("energy per task (J)")
    ax.set_ylabel("mean delay (s)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return fig


def describe_map(frame: pd.DataFrame) -> str:
    """The winner map in sentences, from its numbers.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`~workbench.arena.studies.winner_map`.

    Returns
    -------
    str
        Where each mechanism wins (separated from every other by paired intervals) and
        why, by the routing shares and utilisations measured there; where no winner is
        separated, the tied sets; the mean loss share per policy.
    """
    keys = [k for k in ("load", "link_delay", "scv", "cloud_rtt") if k in frame]
    points = frame.drop_duplicates(keys)
    if points.empty:
        return "The map is empty."
    lines = []
    won = points[points["winner"] != ""]
    for name, cells in won.groupby("winner"):
        rows = frame[(frame["policy"] == name) & (frame["winner"] == name)]
        where = _where(cells)
        lines.append(
            f"{name} wins {len(cells)} of {len(points)} points ({where}), by "
            f"{cells['margin'].mean():.3g} s over the runner-up on average; there it "
            f"forwards {rows['forwarded_share'].mean():.0%} of the tasks, sends "
            f"{rows['cloud_share'].mean():.0%} to the cloud, makes "
            f"{rows['copies_per_task'].mean():.2f} copies per task, and the edge is "
            f"{rows['edge_utilisation'].mean():.0%} busy (the cloud "
            f"{rows['cloud_utilisation'].mean():.0%})."
        )
    tied = points[(points["winner"] == "") & (points["tied_with"] != "")]
    for names, cells in tied.groupby("tied_with"):
        lines.append(
            f"Tied ({names}; paired intervals include 0) at {len(cells)} points ({_where(cells)})."
        )
    none = points[(points["winner"] == "") & (points["tied_with"] == "")]
    if len(none):
        lines.append(
            f"No contender (every run unstable or losing more than 1 %) at "
            f"{len(none)} points ({_where(none)})."
        )
    lost = frame.groupby("policy")["loss_share"].mean().sort_values()
    lines.append(
        "Mean loss share per policy over the map: "
        + ", ".join(f"{k} {v:.1%}" for k, v in lost.items())
        + "."
    )
    return "\n".join(lines)


def _where(cells: pd.DataFrame) -> str:
    parts = [
        f"loads {_values(cells, 'load')}",
        f"link delays {_values(cells, 'link_delay')} s",
        f"SCV {_values(cells, 'scv')}",
    ]
    if "cloud_rtt" in cells:
        parts.append(f"cloud RTT {_values(cells, 'cloud_rtt')} s")
    return ", ".join(parts)


def _values(part: pd.DataFrame, key: str) -> list:
    return [float(x) for x in sorted(part[key].unique())]


def winner_map_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """The winner map's data (:func:`workbench.arena.studies.winner_map`).

    Parameters
    ----------
    quick : bool
        The quick grid and run lengths.
    seed : int
        The sweep's base seed (the notebook's ``SEED``; 0: the published map).

    Returns
    -------
    pandas.DataFrame
        One row per contender and point, with the winner or the tied set.
    """
    return winner_map(quick=quick, seed=seed)


def fronts_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """The fronts' data (:func:`workbench.arena.studies.fronts`).

    Parameters
    ----------
    quick : bool
        The quick knob values and run lengths.
    seed : int
        The runs' seed (the notebook's ``SEED``; 0: the published fronts).

    Returns
    -------
    pandas.DataFrame
        One row per mechanism and knob value.
    """
    return fronts(quick=quick, seed=seed)


def validation_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """The exact mappings' data (:func:`workbench.arena.studies.validation_table`).

    Parameters
    ----------
    quick : bool
        The quick run lengths.
    seed : int
        The seed of the arena's and the packages' runs (the notebook's ``SEED``; 0: the
        published table).

    Returns
    -------
    pandas.DataFrame
        One row per mapping: the arena, the package and the theory.
    """
    return validation_table(quick=quick, seed=seed)


def plot_validation(frame: pd.DataFrame):
    """Each exact mapping: arena and package intervals, relative to the theory (= 1).

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`~workbench.arena.studies.validation_table`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
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
    "winner_map": FigureSpec(
        winner_map_frame,
        plot_winner_map,
        "The winner (separated by paired intervals) or the tied set.",
    ),
    "fronts": FigureSpec(
        fronts_frame,
        plot_fronts,
        "Mean delay against energy per task, each mechanism across its knob.",
    ),
    "validation": FigureSpec(
        validation_frame,
        plot_validation,
        "Exact mappings (P3, P4): arena vs the paper's package vs theory.",
    ),
}
