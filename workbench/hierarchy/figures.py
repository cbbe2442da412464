"""The paper's Figs. 4-13 (and one step beyond) as tidy frames and slide-ready plots.

Every study runs through :func:`workbench.sweep.sweep` (seeds from the grid point) over
:func:`~workbench.hierarchy.simulation.run_models`, then a Student-t interval per point.
Every frame takes ``quick`` (the 3 × 3 grid, 300 periods × 3 replications a point; else
9 × 9, 1,000 × 5), ``seed`` (the notebook's ``SEED``, passed by hand; 0: the published
frame) and :data:`STUDY_FIELDS`, the model's keywords fixed for every point (or a
:class:`~workbench.hierarchy.P5Params`).
Every point carries a ``stationary`` column: every replication's detector found a steady
state (per-task completion times, :mod:`workbench.output_analysis`) and the load bound and the
measured load are below 1. Other points are finite-run transients: drawn hollow (curves) or
marked "n.s." (heat maps), and left out of the claims.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from workbench.erlang import pollaczek_khinchine
from workbench.hierarchy.model import P5Params, eq12_queue_estimate, size_moments
from workbench.hierarchy.params import PAPER_MODELS, PARAMS
from workbench.hierarchy.simulation import RUN_FIELDS, run_models, simulate
from workbench.numfmt import format_number
from workbench.params import takes
from workbench.plots import (
    PALETTE,
    UNSTABLE_LABEL,
    FigureSpec,
    ci_errorbar,
    figure,
    mark_hidden,
    unstable_legend,
)
from workbench.seeding import figure_seed
from workbench.stats import mean_ci
from workbench.sweep import sweep
from workbench.validation import check_bool, check_seed

__all__ = [
    "FIGURES",
    "study",
    "grid_study",
    "STUDY_FIELDS",
    "LAMBDAS",
    "TASK_SIZES",
    "MODEL_LABELS",
]

LAMBDAS = tuple(range(2, 11))
TASK_SIZES = tuple(range(1, 10))  # the paper's μ = 1..9
QUICK_LAMBDAS = (4, 7, 10)
QUICK_TASK_SIZES = (3, 6, 9)
MODEL_LABELS = {
    "advanced": "advanced",
    "pure_cloud": "pure cloud",
    "pure_local": "pure local",
    "without_enhancement_1": "without enh. 1",
    "without_enhancement_2": "without enh. 2",
    "original": "original rule",
}
MODEL_COLORS = {m: PALETTE[i] for i, m in enumerate(PAPER_MODELS)}


def _run_length(quick: bool) -> dict:
    return {"periods": 300, "replications": 3} if quick else {"periods": 1000, "replications": 5}


def _study_point(*, lam, mu, seed, params, models) -> dict:
    """One sweep point: :func:`run_models` at (λ, μ). The grid's key stays ``mu`` (the
    paper's symbol): the sweep derives each point's seed from its names and values, so the
    studies keep their seeds, and the figures' CSV columns stay ``lam``, ``mu``."""
    return run_models(params, lam=lam, task_size=mu, seed=seed, models=models)


#: the keywords a study may fix: the grid gives λ, μ and the seeds, the study the run length
STUDY_FIELDS = tuple(
    n for n in RUN_FIELDS if n not in ("lam", "task_size", "seed", "periods", "overload")
)
# the studies' seeds derive from (BASE_SEED + seed, λ, μ) only (seed: the notebook's SEED,
# workbench.seeding.figure_seed): every model, threshold pair and topology at one grid point
# sees the same draws (common random numbers)
BASE_SEED = 2019
# the full grid runs on two processes (the seeds do not depend on it); quick runs stay in one
FULL_WORKERS = 2
_DEFAULTS = P5Params()


@takes(P5Params, *STUDY_FIELDS)
@functools.lru_cache(maxsize=64)
def study(p, *, models: tuple, lams: tuple, task_sizes: tuple, quick: bool, seed: int = 0):
    """Mean time with CIs of ``models`` over the ``lams`` × ``task_sizes`` grid (cached per
    session); the column of the task size is ``mu``, the paper's symbol.

    Each replication runs every model on the same draws
    (:func:`~workbench.hierarchy.simulation.run_models`).

    Parameters
    ----------
    models, lams, task_sizes : tuple
        The models and the grid.
    quick : bool
        300 periods × 3 replications a point (else 1,000 × 5).
    seed : int
        The notebook's ``SEED``: the points' seeds derive from ``BASE_SEED + seed``.

    Returns
    -------
    pandas.DataFrame
        Columns model, lam, mu, mean_time, ci_low, ci_high, stationary, overloaded, and the
        means of the other quantities of :func:`run_models` (``share_s*``, ...).
    """
    run = _run_length(check_bool(quick, "quick", "study"))
    raw = sweep(
        _study_point,
        {"lam": list(lams), "mu": list(task_sizes)},
        fixed={
            "models": tuple(models),
            "params": p.with_("study", periods=run["periods"], overload="transient"),
        },
        replications=run["replications"],
        base_seed=figure_seed(BASE_SEED, check_seed(seed, "study")),
        n_workers=1 if quick else FULL_WORKERS,
        progress=False,
    )
    keys = ["lam", "mu", "replication"]
    long = pd.concat(
        [
            raw[keys]
            .join(raw.filter(like=f"{m}/").rename(columns=lambda c: c.split("/", 1)[1]))
            .assign(model=m)
            for m in models
        ],
        ignore_index=True,
    )
    keys = ["model", "lam", "mu"]
    out = long.groupby(keys, sort=False).mean(numeric_only=True).drop(columns=["replication"])
    out = out.reset_index()
    # the Student-t half-width of each point (workbench.stats.mean_ci), around the mean above
    half = mean_ci(long, keys, "mean_time").set_index(keys)["half_width"]
    half = half.loc[list(zip(out["model"], out["lam"], out["mu"], strict=True))].to_numpy()
    out["ci_low"] = out["mean_time"] - half
    out["ci_high"] = out["mean_time"] + half
    # a point is a steady state when every replication's detector agreed and no bound was hit
    out["stationary"] = (out["stationary"] >= 1.0) & (out["rho_bound"] < 1.0)
    out["overloaded"] = ~out["stationary"]
    return out


@takes(P5Params, *STUDY_FIELDS)
def grid_study(p, *, quick: bool, models: tuple = PAPER_MODELS, seed: int = 0) -> pd.DataFrame:
    """:func:`study` over the paper's whole (λ, μ) grid (3 × 3 corners and centre when quick).

    At the defaults a subset of the paper's models is read from the five-model study (common
    random numbers: the same rows, computed once).

    Parameters
    ----------
    quick : bool
        The quick grid and run length.
    models : tuple of str
        The models compared.
    seed : int
        The notebook's ``SEED`` (0: the published numbers).

    Returns
    -------
    pandas.DataFrame
        :func:`study`'s rows.
    """
    lams, sizes = (QUICK_LAMBDAS, QUICK_TASK_SIZES) if quick else (LAMBDAS, TASK_SIZES)
    grid = {"lams": lams, "task_sizes": sizes, "quick": quick, "seed": seed}
    if p == _DEFAULTS and set(models) < set(PAPER_MODELS):
        full = study(p, models=PAPER_MODELS, **grid)
        return full[full["model"].isin(models)].reset_index(drop=True)
    return study(p, models=tuple(models), **grid)


# ----------------------------------------------------------------------- Figs. 4 and 5


@takes(P5Params, *STUDY_FIELDS)
def fig4_time_vs_mu_frame(p, *, quick=False, seed: int = 0):
    """Fig. 4: the five models over μ at λ = 8.

    Returns
    -------
    pandas.DataFrame
        :func:`study`'s rows, with ``relative``: the mean time ÷ the advanced model's.
    """
    sizes = QUICK_TASK_SIZES if quick else TASK_SIZES
    frame = study(p, models=PAPER_MODELS, lams=(8,), task_sizes=sizes, quick=quick, seed=seed)
    return _normalise(frame)


@takes(P5Params, *STUDY_FIELDS)
def fig5_time_vs_lam_frame(p, *, quick=False, seed: int = 0):
    """Fig. 5: the five models over λ at μ = 7.

    Returns
    -------
    pandas.DataFrame
        :func:`study`'s rows, with ``relative``: the mean time ÷ the advanced model's.
    """
    lams = QUICK_LAMBDAS if quick else LAMBDAS
    frame = study(p, models=PAPER_MODELS, lams=lams, task_sizes=(7,), quick=quick, seed=seed)
    return _normalise(frame)


def _normalise(frame):
    frame = frame.copy()
    base = frame[frame["model"] == "advanced"].set_index(["lam", "mu"])["mean_time"]
    frame["relative"] = (
        frame["mean_time"].to_numpy()
        / base.loc[list(zip(frame["lam"], frame["mu"], strict=True))].to_numpy()
    )
    return frame


def _time_curve(ax, part, x, color, label):
    """Mean completion time over ``x`` with its intervals (hollow where not stationary),
    joined by a line."""
    ci_errorbar(
        ax,
        part[x],
        part["mean_time"],
        part["ci_low"],
        part["ci_high"],
        stationary=part["stationary"].to_numpy(bool),
        color=color,
        label=label,
    )
    ax.plot(part[x], part["mean_time"], "-", color=color, lw=0.8)


def _plot_vs(frame, x, fixed_text):
    fig, (ax1, ax2) = figure(ncols=2, width=5.0)
    for model in PAPER_MODELS:
        part = frame[frame["model"] == model].sort_values(x)
        color = MODEL_COLORS[model]
        _time_curve(ax1, part, x, color, MODEL_LABELS[model])
        ax2.plot(part[x], part["relative"], "-", color=color, lw=0.8)
        ok = part["stationary"].to_numpy(bool)
        ax2.plot(part[x][ok], part["relative"][ok], "o", color=color, label=MODEL_LABELS[model])
        ax2.plot(part[x][~ok], part["relative"][~ok], "o", mfc="none", color=color)
    sym = PARAMS["lam" if x == "lam" else "task_size"]
    for ax in (ax1, ax2):
        ax.set_yscale("log")
        ax.set_xlabel(sym.axis_label)
    ax1.set_ylabel("mean completion time [s]")
    ax2.set_ylabel("relative to the advanced model")
    ax1.set_title(fixed_text, fontsize=9)
    mark_hidden(ax2)
    unstable_legend(ax2, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def plot_fig4_time_vs_mu(frame):
    return _plot_vs(frame, "mu", "λ = 8")


def plot_fig5_time_vs_lam(frame):
    return _plot_vs(frame, "lam", "μ = 7")


# ----------------------------------------------------------------------- Fig. 7: gain heat map


@takes(P5Params, *STUDY_FIELDS)
def fig7_gain_heatmap_frame(p, *, quick=False, seed: int = 0):
    """Fig. 7: at each (λ, μ), the best other model's mean time ÷ the advanced model's.

    Returns
    -------
    pandas.DataFrame
        lam, mu, advanced, best_other, best_other_model, gain, stationary.
    """
    grid = grid_study(p, quick=quick, seed=seed)
    pivot = grid.pivot_table(index=["lam", "mu"], columns="model", values="mean_time")
    others = pivot.drop(columns="advanced")
    out = pd.DataFrame(
        {
            "advanced": pivot["advanced"],
            "best_other": others.min(axis=1),
            "best_other_model": others.idxmin(axis=1),
            "gain": others.min(axis=1) / pivot["advanced"],
            "stationary": grid.groupby(["lam", "mu"])["stationary"].all(),
        }
    )
    return out.reset_index()


def _heatmap(frame, value, fmt, *, label, text_color="w", **scale):
    """The (λ, μ) heat map of ``value``, each cell's value written in it ("n.s." where the
    runs are not stationary), with a colour bar ``label``; ``scale``: imshow's colours."""
    fig, ax = figure(width=5.6, height=4.2)
    table = frame.pivot(index="mu", columns="lam", values=value)
    ok = frame.pivot(index="mu", columns="lam", values="stationary")
    im = ax.imshow(table.to_numpy(dtype=float), origin="lower", aspect="auto", **scale)
    ax.set_xticks(range(table.shape[1]), [f"{v:g}" for v in table.columns])
    ax.set_yticks(range(table.shape[0]), [f"{v:g}" for v in table.index])
    for (i, j), value in np.ndenumerate(table.to_numpy()):
        text = format(value, fmt) if ok.iat[i, j] else "n.s."
        ax.text(j, i, text, ha="center", va="center", fontsize=10, color=text_color)
    ax.grid(False)
    ax.set_xlabel(PARAMS["lam"].axis_label)
    ax.set_ylabel(PARAMS["task_size"].axis_label)
    fig.colorbar(im, ax=ax, label=label)
    return fig, ax


def plot_fig7_gain_heatmap(frame):
    ratio = frame["gain"].to_numpy(dtype=float)
    # a diverging scale centred on 1 (no difference), at least ±5 %: 1.000 and 1.001 read
    # as the same neutral colour, not as the two ends of a 0-0.0004 scale
    spread = max(0.05, float(np.nanmax(np.abs(ratio - 1.0))) if np.isfinite(ratio).any() else 0)
    fig, ax = _heatmap(
        frame,
        "gain",
        ".3f",
        label="ratio (1: no difference)",
        text_color="0.1",  # dark on the pale middle of the scale
        cmap="PuOr_r",
        vmin=1.0 - spread,
        vmax=1.0 + spread,
    )
    ax.set_title(
        "best other model's time ÷ advanced's (> 1: advanced wins)\nn.s.: not stationary",
        fontsize=10,
    )
    return fig


# ----------------------------------------------------------------------- Fig. 6: share per server


@takes(P5Params, *STUDY_FIELDS)
def fig6_share_per_server_frame(p, *, quick=False, seed: int = 0):
    """Fig. 6: each model's share of tasks executed at each server, over the grid.

    Returns
    -------
    pandas.DataFrame
        model, server, share (averaged over the grid).
    """
    grid = grid_study(p, quick=quick, seed=seed)
    shares = [c for c in grid.columns if c.startswith("share_s")]
    mean = grid.groupby("model")[shares].mean().reset_index()
    return mean.melt(id_vars="model", var_name="server", value_name="share").assign(
        server=lambda d: d["server"].str.removeprefix("share_s").astype(int)
    )


def plot_fig6_share_per_server(frame):
    fig, ax = figure(width=7.0)
    width = 0.8 / len(PAPER_MODELS)
    for i, model in enumerate(PAPER_MODELS):
        part = frame[frame["model"] == model].sort_values("server")
        ax.bar(
            part["server"] + (i - 2) * width,
            part["share"],
            width,
            color=MODEL_COLORS[model],
            label=MODEL_LABELS[model],
        )
    ax.set_xticks(range(7))
    ax.set_xlabel("server (0 centre; 1, 2 middle; 3-6 bottom)")
    ax.set_ylabel("share of tasks executed")
    ax.set_title("averaged over the (λ, μ) grid", fontsize=9)
    ax.legend(fontsize=8)
    return fig


# ----------------------------------------------------------------------- Fig. 13: RED thresholds


@takes(P5Params, *STUDY_FIELDS)
def fig13_red_thresholds_frame(p, *, quick=False, seed: int = 0):
    """Fig. 13: the advanced model with RED thresholds (5, 40) against (5, 20).

    Returns
    -------
    pandas.DataFrame
        lam, mu, time_5_20, time_5_40, relative (their ratio), stationary.
    """
    run = {"quick": quick, "models": ("advanced",), "seed": seed}
    base = grid_study(p, **run)
    wide = grid_study(p.with_("fig13_red_thresholds_frame", max_th=40.0), **run)
    out = base[["lam", "mu", "mean_time"]].rename(columns={"mean_time": "time_5_20"})
    out["time_5_40"] = wide["mean_time"].to_numpy()
    out["relative"] = out["time_5_40"] / out["time_5_20"]
    out["stationary"] = base["stationary"].to_numpy() & wide["stationary"].to_numpy()
    return out


def plot_fig13_red_thresholds(frame):
    fig, ax = _heatmap(
        frame, "relative", ".4f", label="mean-time ratio", cmap="coolwarm", vmin=0.5, vmax=1.5
    )
    ok = frame[frame["stationary"]]
    ratio = ok["time_5_40"].mean() / ok["time_5_20"].mean()
    ax.set_title(
        f"(5, 40) ÷ (5, 20); overall (ratio of means, stationary points) {ratio:.4f}", fontsize=9
    )
    return fig


# ----------------------------------------------------------------------- Figs. 10-11: skew and BA


@takes(P5Params, *STUDY_FIELDS)
def fig10_11_topologies_frame(p, *, quick=False, seed: int = 0):
    """Figs. 10-11: the advanced model's time per unit of work on each topology, relative
    to the tree's.

    Returns
    -------
    pandas.DataFrame
        topology, lam, mu, relative, stationary.
    """
    run = {"quick": quick, "models": ("advanced",), "seed": seed}
    rows = []
    base = grid_study(p, **run)
    for name in ("skewed", "ba-1", "ba-2", "ba-3", "ba-4", "ba-5"):
        other = grid_study(p.with_("fig10_11_topologies_frame", topology=name), **run)
        rows.append(
            other[["lam", "mu"]].assign(
                topology=name,
                relative=other["time_per_work"].to_numpy() / base["time_per_work"].to_numpy(),
                stationary=other["stationary"].to_numpy() & base["stationary"].to_numpy(),
            )
        )
    return pd.concat(rows, ignore_index=True)[["topology", "lam", "mu", "relative", "stationary"]]


def plot_fig10_11_topologies(frame):
    fig, ax = figure(width=6.0)
    names = list(dict.fromkeys(frame["topology"]))
    data = [frame.loc[frame["topology"] == n, "relative"] for n in names]
    ax.boxplot(data, tick_labels=names)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhspan(0.9, 1.1, color=PALETTE[2], alpha=0.15, label="±10 % (paper's bound)")
    ax.set_ylabel("time per work unit ÷ symmetric tree's")
    ax.set_title("advanced model over the (λ, μ) grid", fontsize=9)
    ax.legend(fontsize=8)
    return fig


# ----------------------------------------------------------------------- Fig. 8: eq. 12


@takes(P5Params, *STUDY_FIELDS)
def fig8_eq12_queue_frame(p, *, quick=False, seed: int = 0):
    """Fig. 8: eq. 12's queue estimate from the advanced model's mean time, and the measured
    mean number of tasks per server.

    Returns
    -------
    pandas.DataFrame
        lam, mu, mean_in_system (measured), eq12 (estimated), stationary.
    """
    grid = grid_study(p, quick=quick, models=("advanced",), seed=seed)
    compute = p.hierarchy().compute
    est = [
        eq12_queue_estimate(t, size_moments(p, task_size=mu)[0], compute)
        for t, mu in zip(grid["mean_time"], grid["mu"], strict=True)
    ]
    return grid[["lam", "mu", "mean_in_system", "stationary"]].assign(eq12=est)


def plot_fig8_eq12_queue(frame):
    fig, (ax1, ax2) = figure(ncols=2, width=4.6)
    for mu, part in frame.groupby("mu"):
        (line,) = ax1.plot(part["lam"], part["eq12"], "-", label=f"μ = {mu:g}", lw=0.8)
        ax2.plot(part["lam"], part["mean_in_system"], "-", lw=0.8, color=line.get_color())
        ok = part["stationary"].to_numpy(bool)
        for ax, col in ((ax1, "eq12"), (ax2, "mean_in_system")):
            ax.plot(part["lam"][ok], part[col][ok], "o", color=line.get_color(), ms=4)
            ax.plot(part["lam"][~ok], part[col][~ok], "o", mfc="none", color=line.get_color())
    ax1.set_title("eq. 12 estimate n̄", fontsize=9)
    ax2.set_title("measured mean tasks per server", fontsize=9)
    ax1.set_ylabel("tasks")
    for ax in (ax1, ax2):  # labelled ticks at 1, 2, 5 × 10ⁿ: a short log axis keeps labels
        ax.set_xlabel(PARAMS["lam"].axis_label)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: format_number(v)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    handles, labels = ax1.get_legend_handles_labels()  # the μ of each colour, then hollow
    handles.append(Line2D([], [], marker="o", ls="", mfc="none", color="0.3"))
    labels.append(UNSTABLE_LABEL)
    ax2.legend(handles, labels, fontsize=10, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


# ----------------------------------------------------------------------- beyond: down offloading


@takes(P5Params, *STUDY_FIELDS)
def beyond_down_offload_frame(p, *, quick=False, seed: int = 0):
    """Beyond the paper: the advanced model over λ at μ = 7, with and without the centre
    offloading down.

    Returns
    -------
    pandas.DataFrame
        :func:`study`'s rows, with ``direction``: "up only" or "up and down".
    """
    lams = QUICK_LAMBDAS if quick else LAMBDAS
    run = {"models": ("advanced",), "lams": lams, "task_sizes": (7,), "quick": quick}
    up = study(p.with_("beyond_down_offload_frame", down_offload=False), **run, seed=seed)
    both = study(p.with_("beyond_down_offload_frame", down_offload=True), **run, seed=seed)
    return pd.concat([up.assign(direction="up only"), both.assign(direction="up and down")])


def plot_beyond_down_offload(frame):
    fig, ax = figure(width=7.0)
    for i, (name, part) in enumerate(frame.groupby("direction", sort=False)):
        part = part.sort_values("lam").assign(ci_low=lambda d: d["ci_low"].clip(lower=1e-9))
        _time_curve(ax, part, "lam", PALETTE[i], name)
    ax.set_yscale("log")
    ax.set_xlabel(PARAMS["lam"].axis_label)
    ax.set_ylabel("mean completion time [s]")
    ax.set_title("advanced model, μ = 7:\nthe centre also offloads down", fontsize=9)
    mark_hidden(ax)
    unstable_legend(ax, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


FIGURES = {
    "fig4_time_vs_mu": FigureSpec(
        fig4_time_vs_mu_frame,
        plot_fig4_time_vs_mu,
        "Fig. 4: mean completion time vs μ at λ = 8, five models.",
    ),
    "fig5_time_vs_lam": FigureSpec(
        fig5_time_vs_lam_frame,
        plot_fig5_time_vs_lam,
        "Fig. 5: mean completion time vs λ at μ = 7, five models.",
    ),
    "fig6_share_per_server": FigureSpec(
        fig6_share_per_server_frame,
        plot_fig6_share_per_server,
        "Fig. 6: share of tasks executed per server.",
    ),
    "fig7_gain_heatmap": FigureSpec(
        fig7_gain_heatmap_frame,
        plot_fig7_gain_heatmap,
        "Fig. 7: the advanced model's gain over the (λ, μ) grid.",
    ),
    "fig8_eq12_queue": FigureSpec(
        fig8_eq12_queue_frame,
        plot_fig8_eq12_queue,
        "Fig. 8: eq. 12's queue estimate vs the measured queue.",
    ),
    "fig10_11_topologies": FigureSpec(
        fig10_11_topologies_frame,
        plot_fig10_11_topologies,
        "Figs. 10-11: skewed load and five BA topologies.",
    ),
    "fig13_red_thresholds": FigureSpec(
        fig13_red_thresholds_frame,
        plot_fig13_red_thresholds,
        "Fig. 13: RED thresholds (5, 40) relative to (5, 20).",
    ),
    "beyond_down_offload": FigureSpec(
        beyond_down_offload_frame,
        plot_beyond_down_offload,
        "Beyond the paper: the centre offloads down to idle servers.",
    ),
}


#: the theory table's seed at the notebook's SEED = 0
THEORY_SEED = 7


def theory_table(
    *, theory_periods: int = 2000, theory_replications: int = 5, seed: int = 0
) -> pd.DataFrame:
    """Simulated mean time (with CI) next to queueing theory where theory covers the model.

    Spread arrivals (a Poisson process): pure local makes each bottom server an M/G/1 queue
    (Pollaczek–Khinchine); pure cloud makes the centre one, plus two link delays of mean
    β E[D] / W. Batch arrivals (the default reading): at light load each period's batch
    drains within the period, and a task finds on average λ/2 others of its batch ahead
    (size-biased Poisson), so pure local gives ``(1 + λ/2) E[S]``.

    Parameters
    ----------
    theory_periods, theory_replications : int
        Each row's :func:`simulate` run.
    seed : int
        The notebook's ``SEED``: the runs use ``THEORY_SEED + seed`` (0: the published table).

    Returns
    -------
    pandas.DataFrame
        One row per case: model, arrivals, λ, μ, ρ, the simulated mean with its CI, the
        theory and its value, and whether the theory lies inside the CI.
    """
    f_b, f_c = PARAMS["compute_bottom"].default, PARAMS["compute_top"].default
    link = 2 * PARAMS["data_per_work"].default / PARAMS["bandwidth"].default
    rows = []
    for model, arrivals, lam, mu in (
        ("pure_local", "spread", 8.0, 7.0),
        ("pure_local", "batch", 2.0, 7.0),
        ("pure_local", "batch", 5.0, 3.0),
        ("pure_cloud", "spread", 8.0, 7.0),
    ):
        m1, m2 = size_moments(mu, 1.0)
        if model == "pure_local" and arrivals == "spread":
            theory, name = pollaczek_khinchine(lam, m1 / f_b, m2 / f_b**2), "M/G/1 (P-K)"
        elif model == "pure_local":
            theory, name = (1.0 + lam / 2.0) * m1 / f_b, "batch: (1 + λ/2) E[S]"
        else:
            theory = pollaczek_khinchine(4 * lam, m1 / f_c, m2 / f_c**2) + link * m1
            name = "M/G/1 (P-K) + links"
        res = simulate(
            model=model,
            lam=lam,
            task_size=mu,
            arrivals=arrivals,
            offload_busy=False,
            periods=theory_periods,
            replications=theory_replications,
            keep_records=False,
            seed=figure_seed(THEORY_SEED, check_seed(seed, "theory_table")),
        )
        rows.append(
            {
                "model": MODEL_LABELS[model],
                "arrivals": arrivals,
                "λ": lam,
                "μ": mu,
                "ρ": res.info["rho_bound"],
                "simulated [s]": res.mean_time,
                "CI low": res.ci_low,
                "CI high": res.ci_high,
                "theory": name,
                "theory [s]": theory,
                "inside CI": res.ci_low <= theory <= res.ci_high,
            }
        )
    return pd.DataFrame(rows)
