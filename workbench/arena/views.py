"""The arena's notebook views (the only arena module that imports ipywidgets)."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from workbench.arena.params import PARAMS, ArenaParams
from workbench.arena.simulation import simulate
from workbench.arena.studies import CONTENDERS, map_scenario
from workbench.params import takes
from workbench.plots import figure
from workbench.validation import check_seed
from workbench.widgets import interactive_figure

__all__ = ["VIEWS", "plot_point", "point_view"]


#: tasks per replication of each contender in a move of the view (two replications each)
VIEW_REQUESTS = 1_500
#: what the view shows of each contender's result, in the columns of its array
SHOWN = ("mean_delay", "ci_low", "ci_high", "forwarded_share", "cloud_share", "loss_share")


@takes(ArenaParams, "load", "link_delay", "scv", "cloud_rtt", "seed", positional=True)
def plot_point(p):
    """Every contender at one point of the map (:data:`VIEW_REQUESTS` tasks × 2 replications),
    the point's deployment as :func:`~workbench.arena.studies.map_scenario` builds it.

    Parameters
    ----------
    seed : int
        The runs' seed, every contender on the same (the notebook's ``SEED``).

    Returns
    -------
    matplotlib.figure.Figure
        Each contender's mean delay with its interval (the fastest that loses at most 1 %
        in red, ``*`` when not stationary), and the shares of its tasks forwarded, sent to
        the cloud and lost.
    """
    sc = map_scenario(p)
    names, rows, stationary = list(CONTENDERS), [], []
    run = dict(requests=VIEW_REQUESTS, replications=2, seed=p.seed, overload="transient")
    for name in names:
        r = simulate(scenario=sc, policy=name, **run, **CONTENDERS[name])
        rows.append([getattr(r, q) for q in SHOWN])
        stationary.append(r.stationary)
    a = np.array(rows, dtype=float)
    fig, (ax, bx) = figure(ncols=2, width=4.2, height=3.2, fast=True)
    y = np.arange(len(names))
    best = int(np.nanargmin(np.where(a[:, 5] <= 0.01, a[:, 0], np.inf)))
    colours = ["#c44e52" if i == best else "#4c72b0" for i in y]
    err = np.vstack([a[:, 0] - a[:, 1], a[:, 2] - a[:, 0]])
    ax.barh(y, a[:, 0], xerr=np.nan_to_num(err), color=colours)
    ax.set_yticks(y, [n + ("" if ok else " *") for n, ok in zip(names, stationary, strict=True)])
    ax.set_xlabel("mean delay (s)")
    bx.barh(y - 0.25, a[:, 3], 0.25, label="forwarded")
    bx.barh(y, a[:, 4], 0.25, label="cloud")
    bx.barh(y + 0.25, a[:, 5], 0.25, label="lost")
    bx.set_yticks(y, [""] * len(y))
    bx.set_xlim(0.0, 1.0)  # shares: one scale for every move
    bx.set_xlabel("share of tasks")
    bx.legend(fontsize=8)
    ax.set_title(f"winner: {names[best]}  (* not stationary)", fontsize=10)
    _fit_left_margin(fig, ax)
    return fig


def _fit_left_margin(fig, ax, pad: float = 0.2) -> None:
    """Widen the left margin to the y tick labels (the contenders' names): the fixed margins
    of a fast figure cut them ("hreshold", "wer_of_d")."""
    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)  # a bare Figure: the Agg canvas render_png would give it
    renderer = fig.canvas.get_renderer()
    width = max(t.get_window_extent(renderer).width for t in ax.get_yticklabels()) / fig.dpi
    left = (width + ax.yaxis.get_tick_padding() / 72 + pad) / fig.get_figwidth()
    if left > fig.subplotpars.left:
        fig.subplots_adjust(left=left)


def point_view(seed: int = 0):
    """:func:`plot_point` under sliders over load, link delay, size variability and RTT.

    Parameters
    ----------
    seed : int
        The notebook's seed; every move re-runs every contender on it.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The view: the sliders and the figure they redraw.
    """
    seed = check_seed(seed, "point_view")
    return interactive_figure(
        functools.partial(plot_point, seed=seed),
        title="Which mechanism wins here?",
        background=True,
        load=PARAMS["load"],
        link_delay=PARAMS["link_delay"],
        scv=PARAMS["scv"],
        cloud_rtt=PARAMS["cloud_rtt"],
    )


VIEWS = {"point": point_view}
