"""The diagram of the hierarchy and the plots behind the notebook's slider views.

:mod:`~workbench.hierarchy.views` wraps each in sliders; these functions take plain values
and return a matplotlib figure, so they run headless too.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection

from workbench.hierarchy.figures import BASE_SEED, MODEL_COLORS, MODEL_LABELS
from workbench.hierarchy.model import (
    P5Params,
    local_overhead,
    offload_overhead,
    red_thresholds,
    time_weights,
)
from workbench.hierarchy.params import PAPER_MODELS, PARAMS
from workbench.hierarchy.simulation import run_models
from workbench.hierarchy.topology import BUILT_FROM
from workbench.notation import mathtext
from workbench.numfmt import format_number
from workbench.params import takes
from workbench.plots import PALETTE, ci_errorbar, figure, flag_unstable
from workbench.red import drop_probability
from workbench.seeding import figure_seed
from workbench.stats import t_half_width
from workbench.sweep import point_seed
from workbench.validation import check_seed

__all__ = [
    "draw_hierarchy",
    "ba_speed_note",
    "plot_red_curve",
    "plot_overhead_rule",
    "plot_model_comparison",
]


def draw_hierarchy(topology, stations=None, ax=None, note=""):
    """The hierarchy as a tree: servers (size ~ speed), links, generators marked.

    Parameters
    ----------
    topology : Topology
        The servers.
    stations : pandas.DataFrame, optional
        ``simulate(...).info["stations"]``: each server then shows its utilisation.
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).
    note : str
        One more line under the title (the view says there how a BA tree's speeds follow
        the sliders).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.
    """
    if ax is None:
        fig, ax = figure(width=6.0, height=3.9 if note else 3.6, fast=True)
        if note:
            fig.subplots_adjust(top=0.8)  # room for the title's third line
    else:
        fig = ax.figure
    depth = topology.depth
    xs = np.zeros(topology.n)
    leaves = iter(range(topology.n))

    def place(s) -> float:
        """Leaves spread evenly in depth-first order, each parent centred over its children."""
        kids = topology.children(s)
        xs[s] = np.mean([place(c) for c in kids]) if kids else next(leaves)
        return xs[s]

    place(topology.root)
    # (child, parent) of every link
    edges = [(s, topology.parent[s]) for s in np.flatnonzero(topology.parent >= 0)]
    links = [[(xs[s], -depth[s]), (xs[p], -depth[p])] for s, p in edges]
    # one artist for all links: a slider move redraws the tree, so fewer artists is faster
    ax.add_collection(LineCollection(links, colors="0.6", zorder=1))
    up = topology.bandwidth[topology.parent >= 0]
    same_bandwidth = up.size == 0 or bool(np.all(up == up[0]))
    if not same_bandwidth:  # one W for every link is said once, in the title
        for s, p in edges:
            ax.annotate(  # nearer the child, beside the link: clear of the parent's label
                format_number(topology.bandwidth[s]),
                (0.3 * xs[p] + 0.7 * xs[s], -(0.3 * depth[p] + 0.7 * depth[s])),
                xytext=(3, 0),
                textcoords="offset points",
                fontsize=7,
                color="0.4",
                va="center",
            )
    sizes = 300 + 900 * topology.compute / topology.compute.max()
    colors = [PALETTE[1] if topology.weight[s] > 0 else PALETTE[0] for s in range(topology.n)]
    ax.scatter(xs, -depth, s=sizes, c=colors, zorder=2, edgecolors="k")
    for s in range(topology.n):
        label = f"{s}\nF = {format_number(topology.compute[s])}"
        if stations is not None:
            label += f"\nρ={stations.loc[stations['server'] == s, 'utilisation'].iloc[0]:.2f}"
        ax.text(  # on a white ground: a link straight down runs behind the label
            xs[s],
            -depth[s] - 0.32,
            label,
            ha="center",
            va="top",
            fontsize=7,
            zorder=3,
            bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85},
        )
    ax.set_ylim(-depth.max() - 1.0, 0.5)
    ax.set_xlim(xs.min() - 0.7, xs.max() + 0.7)
    ax.axis("off")
    ax.set_title(
        f"{topology.name}: orange servers generate tasks\n(weights "
        f"{', '.join(f'{w:.2g}' for w in topology.weight[topology.generators])}); "
        + (f"every link W = {up[0]:g} Mbit/s" if same_bandwidth else "link labels: W [Mbit/s]")
        + (f"\n{note}" if note else ""),
        fontsize=8,
    )
    return fig


@takes(P5Params, "topology", *BUILT_FROM, positional=True)
def ba_speed_note(p) -> str:
    """What a Barabási–Albert hierarchy does with the tier speeds, in one line.

    :func:`~workbench.hierarchy.topology.barabasi_albert` gives the centre F_c, tier 1 F_m
    and deeper servers F_b, then scales every speed by one factor so that the total compute
    equals the symmetric tree's (F_c + 2 F_m + 4 F_b): only the shape changes. The line
    gives that factor, so a drawn speed is explained by the sliders.

    Parameters
    ----------
    topology : str or Topology
        The hierarchy (a name builds it with the speeds given).

    Returns
    -------
    str
        The line; ``""`` for the tree and the skewed tree, whose servers take the speeds as
        given.
    """
    topology = p.hierarchy()
    if not topology.name.startswith("ba-"):
        return ""
    factor = topology.compute[topology.root] / p.compute_top  # the one factor of every tier
    return (
        f"BA: F_c, F_m, F_b by tier × {format_number(factor)}, so the total stays the "
        f"tree's {format_number(topology.compute.sum())} work units/s"
    )


@takes(P5Params, "min_th", "max_th", "max_p", "gentle")
def plot_red_curve(p, *, mean_exec_time):
    """RED's p_b against the average expected time to finish the queue, eq. 11 scaled.

    Parameters
    ----------
    mean_exec_time : float
        t̄, the mean execution time of the queued tasks [s] (scales the thresholds).

    Returns
    -------
    matplotlib.figure.Figure
        The curve, with the scaled thresholds min' and max' marked.
    """
    lo, hi = red_thresholds(p.min_th, p.max_th, mean_exec_time)
    avg = np.linspace(0.0, 2.3 * hi, 400)
    prob = drop_probability(avg, lo, hi, p.max_p, 0, gentle=p.gentle)  # the public, checked one
    fig, ax = figure(fast=True)
    ax.plot(avg, prob, color=PALETTE[0])
    for v, name in ((lo, "min'"), (hi, "max'")):  # named, not valued: exercise 4 asks for min'
        ax.axvline(v, color="0.5", ls="--", lw=0.8)
        ax.annotate(
            name,
            (v, 0.55),
            xytext=(3, 0),
            textcoords="offset points",
            rotation=90,
            va="center",
            ha="left",
            fontsize=8,
        )
    ax.set_xlabel("average expected time to finish the queue [s]")
    ax.set_ylabel(mathtext("p_b (probability of forwarding up)"))
    ax.set_ylim(0, 1.1)
    ax.set_title(
        mathtext(f"t̄_exe = {format_number(mean_exec_time)} s, max_p = {format_number(p.max_p)}"),
        fontsize=9,
    )
    return fig


@takes(
    P5Params,
    "task_size",
    "data_per_work",
    "bandwidth",
    "compute_bottom",
    "compute_middle",
    "power",
    positional=True,
)
def plot_overhead_rule(p):
    """Eqs. 5, 8, 10 at a bottom server: overheads against the work queued at the next hop,
    for a task of the mean size μ = ``task_size``.

    Returns
    -------
    matplotlib.figure.Figure
        The local overhead, the blind and the queue-aware offload overheads.
    """
    mu, data = p.task_size, p.data_per_work * p.task_size
    (gt,), (ge,) = time_weights([p.compute_bottom])
    queued = np.linspace(0.0, 20.0 * mu, 200)
    local = local_overhead(mu, p.compute_bottom, gt, ge, p.kappa)
    offload = (mu, data, p.bandwidth, p.compute_middle, gt, ge, p.power)  # eq. 10 adds the queue
    eq8 = offload_overhead(*offload)
    eq10 = offload_overhead(*offload, queued)
    fig, ax = figure(width=7.8, fast=True)
    fig.subplots_adjust(right=0.62)  # room for the legend beside the lines
    ax.axhline(local, color=PALETTE[1], label="run here (eq. 5)")
    ax.axhline(eq8, color=PALETTE[2], ls="--", label="offload, blind (eq. 8)")
    ax.plot(queued, eq10, color=PALETTE[0], label="offload, queue-aware (eq. 10)")
    ax.set_xlabel("work queued at the next hop ΣD_j [work units]")
    ax.set_ylabel("overhead")
    ax.set_title(f"task D = μ = {mu:g}, B = {data:.3g} Mbit", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def comparison_seeds(lam, mu, replications: int, seed: int = 0) -> list[int]:
    """The seeds :func:`~workbench.hierarchy.figures.study` gives the point (λ, μ): the
    sweep's point seed from the figures' base seed shifted by ``seed`` (the notebook's
    ``SEED``)."""
    base = figure_seed(BASE_SEED, check_seed(seed, "comparison_seeds"))
    return [point_seed({"lam": lam, "mu": mu}, r, base) for r in range(replications)]


@takes(P5Params, "lam", "task_size", "decision_time", "arrivals", "eq11_unit", positional=True)
def plot_model_comparison(p, *, view_periods=300, view_replications=3, seed: int = 0):
    """The five models at one (λ, μ = ``task_size``) on the same draws: mean time with CIs.

    Hollow: a model whose run is not stationary (a replication's detector or its load); the
    figure is then flagged for the slider view, which greys it with the note.

    Parameters
    ----------
    lam, task_size, decision_time, arrivals, eq11_unit
        The sliders (rows of ``PARAMS``); the other parameters at the table's defaults.
    view_periods, view_replications : int
        The short runs behind the bars (300 periods × 3).
    seed : int
        The notebook's ``SEED``: the runs are seeded as the figures' study seeds the grid
        point (λ, μ) (:func:`comparison_seeds`), so at a grid point of Fig. 5 with the
        quick run length the bars are Fig. 5's numbers.

    Returns
    -------
    matplotlib.figure.Figure
    """
    lam, mu, decision_time = p.lam, p.task_size, p.decision_time
    run = p.with_("plot_model_comparison", periods=view_periods, overload="transient")
    reps = [
        run_models(run, models=PAPER_MODELS, seed=s)
        for s in comparison_seeds(lam, mu, view_replications, seed)
    ]
    rows = []
    for model in PAPER_MODELS:
        times = np.array([r[f"{model}/mean_time"] for r in reps])
        half = t_half_width(times, PARAMS["confidence"].default)
        mean = times.mean()
        ok = all(r[f"{model}/stationary"] == 1.0 for r in reps)
        rows.append((model, mean, max(mean - half, 0.0), mean + half, ok))
    fig, ax = figure(width=6.0, fast=True)
    for i, (model, mean, lo, hi, ok) in enumerate(rows):
        ci_errorbar(ax, [i], [mean], [lo], [hi], stationary=[ok], color=MODEL_COLORS[model])
    ax.set_xticks(range(len(rows)), [MODEL_LABELS[r[0]] for r in rows], rotation=15, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("mean completion time [s]")
    fig.subplots_adjust(left=0.19)  # room for log tick labels such as 4×10⁻¹
    ax.set_title(
        f"λ = {lam:g}, μ = {mu:g}, τ_d = {decision_time * 1e3:g} ms, {p.arrivals} arrivals, "
        f"eq. 11 in {p.eq11_unit}; {view_periods} periods × {view_replications}; "
        "hollow: not stationary",
        fontsize=8,
    )
    bad = [MODEL_LABELS[r[0]] for r in rows if not r[4]]
    if bad:
        flag_unstable(fig, f"not stationary (queues grow during the run): {', '.join(bad)}")
    return fig
