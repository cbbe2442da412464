"""The paper's figures and the workbench's extensions, each as ``<name>_frame`` + ``plot_<name>``.

``FIGURES`` maps a figure name to a :class:`workbench.plots.FigureSpec`:
``<name>_frame(quick)`` (from :mod:`workbench.redundancy.studies`) computes the tidy
DataFrame (one row per plotted point), ``plot_<name>(frame)`` draws it. :func:`diagram` draws
the model itself from its parameters.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", Sec. VII (Figs. 3-7), Sec. VI (Table I), Sec. VIII (future work: waiting room,
other service families).
"""

from __future__ import annotations

import pandas as pd
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch
from matplotlib.ticker import MaxNLocator

from workbench.params import takes
from workbench.plots import (
    FORMULA_STYLE,
    POLICY_COLORS,
    FigureSpec,
    ci_errorbar,
    figure,
    unstable_legend,
)
from workbench.redundancy import model as rd
from workbench.redundancy import studies
from workbench.redundancy.params import PARAMS
from workbench.redundancy.studies import EQ8_CASE, WEIBULL_CASE

__all__ = [
    "FIGURES",
    "diagram",
    "draw_optimum",
    "plot_fig3",
    "plot_fig4",
    "plot_fig5",
    "plot_fig6",
    "plot_fig7",
    "plot_table1",
    "plot_ext_eq8",
    "plot_ext_waiting_room",
    "plot_ext_weibull",
    "plot_ext_heavy_tail",
]

# axis and legend texts in symbols (slides): one place, from the parameter table
LABELS = {
    "lam": f"arrival rate {PARAMS['lam'].axis_label}",
    "t_cloud": f"cloud time {PARAMS['t_cloud'].axis_label}",
    "m": "replication factor m",
    "N": "edge workers N",
    "job_time": "E[T_job] [s]",
    "system_time": "E[T_sys] [s]",
    "blocking": "P_b (sent to the cloud)",
}
POLICY_NAMES = {
    "benchmark": "benchmark (m = 1)",
    "bpo": "BPO",
    "asto": "ASTO",
    "optimal": "optimal",
}
FORMULA_NAMES = {"exact": "eq. 1, Erlang-B (exact)", "paper": "paper: eq. 8 above λ_m"}


def integer_axis(axis) -> None:
    """Ticks at whole numbers only (m, c and N are counts)."""
    axis.set_major_locator(MaxNLocator(integer=True))


def _simulated(ax, x, d, mean: str = "sim_mean", **kw):
    """A frame's simulated means with their 95% intervals (:func:`workbench.plots.ci_errorbar`):
    the column ``mean`` (``sim_mean`` or ``sim_blocking``), its ``<prefix>_ci_low`` and
    ``<prefix>_ci_high`` columns, hollow where ``d["stationary"]`` is False."""
    prefix = mean.removesuffix("_mean")
    low, high = d[f"{prefix}_ci_low"], d[f"{prefix}_ci_high"]
    return ci_errorbar(ax, x, d[mean], low, high, stationary=d["stationary"], **kw)


# --------------------------------------------------------------------------------------
# Fig. 3: E[T_job] and P_b vs m
# --------------------------------------------------------------------------------------


def plot_fig3(data: pd.DataFrame):
    """Fig. 3: E[T_job] (left axis) and P_b (right axis) against m, one panel per law.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.fig3_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = figure(2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        lam, N = df["lam"].iloc[0], df["N"].iloc[0]
        ax.plot(df["m"], df["job_time"], "r*-", label="E[T_job(m)] (left axis)")
        ax.set(xlabel=LABELS["m"], ylabel=LABELS["job_time"], title=f"{label}: N={N}, λ={lam:g}")
        ax2 = ax.twinx()
        ax2.plot(df["m"], df["blocking"], "b^-", label="P_b, Erlang-B (right axis)")
        ax2.set_ylabel(LABELS["blocking"])
        ax2.grid(False)
        integer_axis(ax.xaxis)
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles=handles, loc="center right", fontsize=8)  # between the curves
    return fig


# --------------------------------------------------------------------------------------
# Fig. 4: policies vs λ
# --------------------------------------------------------------------------------------


def plot_fig4(data: pd.DataFrame):
    """Fig. 4: E[T_sys] against λ per policy, eq. 1 and simulated, one panel per law.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.fig4_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = figure(2, height=4.2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        draw_policies(ax, df)
        ax.set_title(f"{label}: N=24, T_cl=15 s")
    handles, labels = _legend_entries(axes[0], data)
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    return fig


def draw_policies(ax, df):
    """Analytic curves (lines) and simulated means with CIs (markers), one colour per policy.

    Intervals are drawn cut at 0 (E[T_sys] is positive). The caller places the legend.
    """
    for policy, d in df.groupby("policy", sort=False):
        color = POLICY_COLORS[policy]
        name = POLICY_NAMES[policy]
        ax.plot(d["lam"], d["exact"], "-", color=color, label=f"{name}: eq. 1")
        if "sim_mean" in d:
            label = f"{name}: simulated, 95% CI"
            _simulated(ax, d["lam"], d, color=color, fmt="o", label=label)
    ax.set(xlabel=LABELS["lam"], ylabel=LABELS["system_time"])
    ax.set_ylim(bottom=0)


def _legend_entries(ax, df):
    """Handles and labels of ``ax`` for a figure legend, with the hollow-marker entry when a
    point of ``df`` is not stationary."""
    if "stationary" in df and not df["stationary"].all():
        legend = unstable_legend(ax)
        entries = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        legend.remove()
        return entries
    return ax.get_legend_handles_labels()


def stationarity_legend(ax, df, **kw):
    """The axes' legend; with the entry for hollow markers when a point is not stationary."""
    if "stationary" in df and not df["stationary"].all():
        return unstable_legend(ax, **kw)
    return ax.legend(**kw)


# --------------------------------------------------------------------------------------
# Figs. 5-6: E[T_sys] vs m
# --------------------------------------------------------------------------------------


def _by_m_plot(data: pd.DataFrame, param: str, title_fmt: str):
    fig, axes = figure(2, height=4.2)
    values = list(dict.fromkeys(data[param]))
    unit = {"1/s": "/s"}.get(PARAMS[param].unit, PARAMS[param].unit)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        for i, v in enumerate(values):
            for formula, d in df[df[param] == v].groupby("formula"):
                ax.plot(
                    d["m"],
                    d["system_time"],
                    FORMULA_STYLE[formula],
                    color=f"C{i}",
                    label=f"{PARAMS[param].symbol} = {v:g} {unit}: {FORMULA_NAMES[formula]}",
                )
                best = d.loc[d["system_time"].idxmin()]
                ax.plot(best["m"], best["system_time"], "k*", markersize=9)
        ax.set(xlabel=LABELS["m"], ylabel=LABELS["system_time"], title=title_fmt.format(label))
        integer_axis(ax.xaxis)
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(axes[0].plot([], [], "k*", markersize=9)[0])
    labels.append("optimum of each curve")
    # below the panels: never on the data
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=8)
    return fig


def plot_fig5(data: pd.DataFrame):
    """Fig. 5: E[T_sys] against m for three λ, exact and as printed, optima starred.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.fig5_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return _by_m_plot(data, param="lam", title_fmt="{}: N=24, T_cl=8 s")


def plot_fig6(data: pd.DataFrame):
    """Fig. 6: E[T_sys] against m for three T_cl, exact and as printed, optima starred.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.fig6_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return _by_m_plot(data, param="t_cloud", title_fmt="{}: N=24, λ=1.5 /s")


# --------------------------------------------------------------------------------------
# Fig. 7: optimal m and c vs N
# --------------------------------------------------------------------------------------


def plot_fig7(data: pd.DataFrame):
    """Fig. 7: the optimal c and m against N, one row of panels per law.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.fig7_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = figure(2, 2, height=3.0)
    for row, (label, df) in enumerate(data.groupby("service", sort=False)):
        draw_optimum(axes[row, 0], axes[row, 1], df)
        axes[row, 0].set_title(f"{label}: λ=1.5 /s, T_cl=10 s")
        axes[row, 1].set_title(f"{label}: λ=1.5 /s, T_cl=10 s")
    return fig


def draw_optimum(ax_c, ax_m, df):
    """Optimal c and m against N, one step line per formula, integer axes.

    Parameters
    ----------
    ax_c, ax_m : matplotlib.axes.Axes
        The axes of c and of m.
    df : pandas.DataFrame
        Rows of :func:`~workbench.redundancy.optimum_vs_workers` (N, m_opt, c_opt, formula).
    """
    for formula, d in df.groupby("formula"):
        style = FORMULA_STYLE[formula]
        name = FORMULA_NAMES[formula]
        ax_c.step(d["N"], d["c_opt"], style, where="post", label=name)
        ax_m.step(d["N"], d["m_opt"], style, where="post", label=name)
    ax_c.set(xlabel=LABELS["N"], ylabel="optimal c (groups)")
    ax_m.set(xlabel=LABELS["N"], ylabel="optimal m (replicas per job)")
    for ax in (ax_c, ax_m):
        integer_axis(ax.xaxis)
        integer_axis(ax.yaxis)
    ax_m.legend(fontsize=7, loc="upper left")


# --------------------------------------------------------------------------------------
# Table I: concentrate / spread / balance
# --------------------------------------------------------------------------------------


def plot_table1(data: pd.DataFrame):
    """Table I as a compact table: one row per (family, parameter), small and large levels.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.table1_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = {"lam": "λ [1/s]", "t_cloud": "T_cl [s]", "N": "N", "alpha": "α"}
    cells, colors, rows = [], [], []
    for (fam, param), g in data.groupby(["family", "parameter"], sort=False):
        rows.append(f"{fam}, {names[param]}")
        line, tint = [], []
        for level in ("small", "large"):
            r = g[g["level"] == level].iloc[0]
            line += [f"{r['value']:g}", f"{r['workbench']} (m*={r['m_opt']})", r["paper"]]
            ok = "#d8f0d8" if r["agrees"] else "#f6d5d5"
            tint += ["white", ok, ok]
        cells.append(line)
        colors.append(tint)
    cols = ["small", "workbench", "paper", "large", "workbench", "paper"]
    fig, ax = figure(1, width=8.4, height=0.3 * (len(rows) + 1) + 0.9)
    ax.axis("off")
    tab = ax.table(
        cellText=cells,
        cellColours=colors,
        rowLabels=rows,
        colLabels=cols,
        bbox=[0.0, 0.0, 1.0, 1.0],  # the table fills its axes: no blank band around it
        cellLoc="center",
    )
    tab.auto_set_font_size(False)
    tab.set_fontsize(10)
    agree = int(data["agrees"].sum())
    ax.set_title(
        f"Table I recomputed: {agree}/{len(data)} cells agree with the paper (green)\n"
        "S spread (m* = 1), C concentrate (≤ 2 groups), B balance\n"
        "baseline N=24, λ=1.5 /s, T_cl=15 s [choice]; Exp(0.2), S-Exp(3, 0.2), Pareto(1.5, 1.2)",
        fontsize=9,
    )
    return fig


# --------------------------------------------------------------------------------------
# Beyond the paper
# --------------------------------------------------------------------------------------


def plot_ext_eq8(data: pd.DataFrame):
    """Eq. 8 and eq. 1 against λ, with the simulated means and λ_m.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.ext_eq8_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    N, m, t_cloud, service = (EQ8_CASE[k] for k in ("N", "m", "t_cloud", "service"))
    fig, ax = figure(1, width=6.5)
    ax.plot(data["lam"], data["exact"], "-", label=FORMULA_NAMES["exact"])
    ax.plot(data["lam"], data["paper"], "--", label="paper: eq. 1, then eq. 8 above λ_m")
    _simulated(ax, data["lam"], data, color="k", label="simulation, 95% CI")
    lam_m = data["lambda_max"].iloc[0]
    ax.axvline(lam_m, color="grey", lw=1)
    ax.text(lam_m, ax.get_ylim()[0], f" λ_m = {lam_m:.2f}", color="grey", va="bottom")
    ax.set(
        xlabel=LABELS["lam"],
        ylabel=LABELS["system_time"],
        title=f"{service.label()}: N={N}, m={m}, T_cl={t_cloud:g} s",
    )
    stationarity_legend(ax, data, fontsize=8, loc="lower right")
    return fig


def plot_ext_waiting_room(data: pd.DataFrame):
    """E[T_sys] (top) and P_b (bottom) against m per waiting room, one column per law.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.ext_waiting_room_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    lam, t_cloud = data["lam"].iloc[0], data["t_cloud"].iloc[0]
    fig, axes = figure(2, 2, height=3.0)
    for col, (label, df) in enumerate(data.groupby("service", sort=False)):
        for i, (k, d) in enumerate(df.groupby("waiting_room")):
            style = {"fmt": "o-", "color": f"C{i}"}
            _simulated(axes[0, col], d["m"], d, **style, label=f"w = {k} waiting places")
            _simulated(axes[1, col], d["m"], d, "sim_blocking", **style, label=f"w = {k}")
        d0 = df[df.waiting_room == 0]
        axes[1, col].plot(d0["m"], d0["erlang_b"], "k--", label="Erlang-B (w = 0)")
        axes[0, col].set(
            title=f"{label}: N=24, λ={lam:g} /s, T_cl={t_cloud:g} s",
            xlabel=LABELS["m"],
            ylabel=LABELS["system_time"],
        )
        axes[1, col].set(xlabel=LABELS["m"], ylabel=LABELS["blocking"])
        for ax in axes[:, col]:
            integer_axis(ax.xaxis)
        if col == 0:  # the same entries on the right: there the legend hid Pareto's m = 1
            stationarity_legend(axes[0, col], data, fontsize=7, loc="upper left")
        stationarity_legend(axes[1, col], df, fontsize=7, loc="upper left")
    return fig


def plot_ext_weibull(data: pd.DataFrame):
    """The optimal m against the Weibull shape, and its gain over m = 1.

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.ext_weibull_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    lam, t_cloud = WEIBULL_CASE["lam"], WEIBULL_CASE["t_cloud"]
    fig, axes = figure(2)
    for formula, d in data.groupby("formula"):
        axes[0].step(
            d["shape"],
            d["m_opt"],
            FORMULA_STYLE[formula],
            where="mid",
            label=FORMULA_NAMES[formula],
        )
    ex = data[data.formula == "exact"]
    axes[1].plot(ex["shape"], 1 - ex["system_time"] / ex["benchmark"], "o-")
    title = f"Weibull(k, s), E[T_job(1)] = 7 s:\nN=24, λ={lam:g} /s, T_cl={t_cloud:g} s"
    axes[0].set(xlabel="Weibull shape k", ylabel="optimal m", title=title)
    axes[1].set(
        xlabel="Weibull shape k",
        ylabel="1 − E[T_sys](m*) / E[T_sys](m=1)",
        title="gain of the optimal m over m = 1",
    )
    integer_axis(axes[0].yaxis)
    axes[0].legend(fontsize=8)
    return fig


def plot_ext_heavy_tail(data: pd.DataFrame):
    """One run's running mean per m against the exact E[T_sys].

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`~workbench.redundancy.studies.ext_heavy_tail_frame`'s frame.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = figure(1, width=7.0)
    for i, (m, d) in enumerate(data.groupby("m")):
        tag = "finite" if d["variance_finite"].iloc[0] else "INFINITE"
        ax.plot(d["jobs"], d["running_mean"], color=f"C{i}", label=f"m = {m} ({tag} variance)")
        ax.axhline(d["exact"].iloc[0], color=f"C{i}", ls=":")
    ax.set(
        xscale="log",
        xlabel="jobs simulated (one run)",
        ylabel="running mean of T_sys [s]",
        title="Pareto(β=1.5, α=1.2): N=24, λ=1 /s, T_cl=15 s (dotted: exact E[T_sys])",
    )
    ax.legend(fontsize=8, loc="center right")  # between the curves
    return fig


# --------------------------------------------------------------------------------------
# The model as a diagram, drawn from its parameters
# --------------------------------------------------------------------------------------

MAX_DRAWN_GROUPS = 8


@takes(rd.P4Params, "N", "m", "lam", "t_cloud", "service", positional=True)
def diagram(p):
    """The edge system for given N, m: arrivals, the c = ⌊N/m⌋ groups of m workers, the cloud.

    Takes a :class:`~workbench.redundancy.P4Params` or its keywords. Idle workers (N mod m)
    are grey; the title gives the service law, E[T_job(m)], P_b and E[T_sys] (eq. 1,
    Erlang-B). At most ``MAX_DRAWN_GROUPS`` groups are drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    # add_artist, not add_patch: the limits are fixed, and updating them from every
    # patch's Bezier path was most of the drawing time
    N, m, lam, t_cloud = p.N, p.m, p.lam, p.t_cloud
    c, idle = N // m, N % m
    shown = min(c, MAX_DRAWN_GROUPS)
    top = shown + 0.9  # the lane of blocked jobs
    height = 0.62 * (top + 1.6) + 0.9
    fig, ax = figure(1, width=7.5, height=height, fast=True)
    # the two-line title at 11 pt needs 0.55 in above the drawing (a projector's 12 px)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - max(0.12, 0.55 / height))
    ax.set_axis_off()
    ax.set(xlim=(0, 10), ylim=(-1.3, top + 0.7))

    def arrow(a, b, text="", color="k", lw=1.2, **kw):
        patch = FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=12, color=color, lw=lw, **kw)
        ax.add_artist(patch)
        if text:
            ax.text(*text[1], text[0], ha="center", fontsize=11, color=color)

    def box(x, y, w, h, color, label=""):
        ax.add_artist(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.05", fc=color, ec="0.4"))
        if label:
            ax.text(x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=11)

    mid = (shown - 1) / 2
    box(1.5, mid - 0.35, 1.2, 0.7, "#eeeeee", "dispatch")
    arrow((0.05, mid), (1.45, mid), (f"Poisson\nλ = {lam:g} /s", (0.7, mid + 0.2)))
    radius = min(0.2, 1.4 / max(min(m, 12), 1))
    for g in range(shown):
        y = shown - 1 - g
        box(3.4, y - 0.32, 3.0, 0.64, "#e8f1fb")
        drawn = min(m, 12)
        for j in range(drawn):
            ax.add_artist(Circle((3.65 + j * 2.5 / max(drawn - 1, 1), y), radius, fc="#4c72b0"))
        if m > drawn:
            ax.text(6.35, y, "…", va="center", ha="right")
        arrow((2.75, mid), (3.35, y), lw=0.7)
        arrow((6.5, y), (7.2, y), lw=0.7)
    ax.text(7.3, mid, "done when the\nfirst of m\ncopies ends", va="center", fontsize=11)
    below = f"c = ⌊N/m⌋ = {c} groups of m = {m} workers"
    if c > shown:
        below += f" ({c - shown} more not drawn)"
    if idle:
        below += f"; {idle} idle (N mod m)"
    ax.text(4.9, -0.85, below, ha="center", fontsize=11)
    box(7.5, top - 0.35, 2.3, 0.7, "#fbeee8", f"cloud: T_cl = {t_cloud:g} s")
    arrow(
        (2.1, mid + 0.4),
        (7.45, top),
        ("all c groups busy: blocked (P_b)", (4.9, top + 0.12)),
        color="C3",
        connectionstyle="angle,angleA=90,angleB=0,rad=0",
    )
    tj, pb, t_sys = rd.job_time(p), rd.blocking(p), rd.system_time(p.trusted(formula="exact"))
    title = (
        f"N = {N} edge workers as an M/G/c/c loss system\n{p.service.label()}: "
        f"E[T_job(m)] = {tj:.3g} s, P_b = {pb:.3g}, E[T_sys] = {t_sys:.3g} s"
    )
    ax.set_title(title, fontsize=11)
    return fig


#: each figure's caption; its frame is ``studies.<name>_frame``, its drawing ``plot_<name>``
CAPTIONS = {
    "fig3": "Fig. 3: E[T_job] and P_b vs m",
    "fig4": "Fig. 4: ASTO, BPO and benchmark vs λ",
    "fig5": "Fig. 5: E[T_sys] vs m for three λ",
    "fig6": "Fig. 6: E[T_sys] vs m for three T_cl",
    "fig7": "Fig. 7: optimal m and c vs N",
    "table1": "Table I: concentrate, spread or balance",
    "ext_eq8": "Eq. 8 against Erlang-B and simulation",
    "ext_waiting_room": "A waiting room (M/G/c/c+w)",
    "ext_weibull": "Weibull service",
    "ext_heavy_tail": "Running means under infinite variance",
}
FIGURES = {
    name: FigureSpec(getattr(studies, f"{name}_frame"), globals()[f"plot_{name}"], caption)
    for name, caption in CAPTIONS.items()
}
