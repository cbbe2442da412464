"""Shared plotting style: one look for every paper's figures."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

PALETTE = sns.color_palette("colorblind")
POLICY_COLORS = {
    "benchmark": PALETTE[7],
    "bpo": PALETTE[0],
    "asto": PALETTE[2],
    "optimal": PALETTE[3],
}
FORMULA_STYLE = {"exact": "-", "paper": "--"}


def _figure_png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


def show_figures_in_ipython() -> bool:
    """Make a bare :class:`~matplotlib.figure.Figure` returned by a cell display as a PNG.

    matplotlib registers a PNG formatter for figures only when the inline backend is
    activated (``%matplotlib inline``, or pyplot imported under it). The workbench draws on
    bare Figures, so without this a cell that returns one shows ``<Figure size 860x400 with
    1 Axes>`` in any kernel whose backend is not inline (Voila with ``MPLBACKEND=agg``,
    nbconvert, a kernel that never imported pyplot). Called when this module is imported;
    returns whether an IPython shell was found. Harmless outside IPython.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return False
    shell = get_ipython()
    if shell is None:
        return False
    shell.display_formatter.formatters["image/png"].for_type(Figure, _figure_png)
    return True


show_figures_in_ipython()


@dataclass(frozen=True)
class FigureSpec:
    """One figure of a paper: ``frame(quick)`` computes its tidy data, ``plot(frame)`` draws it.

    The CLI writes ``frame`` as CSV and ``plot(frame)`` as PNG; the notebook's views call the
    same two functions, so the headless figure and the notebook's cannot drift apart.
    """

    frame: Callable[..., pd.DataFrame]
    plot: Callable[[pd.DataFrame], Figure]
    caption: str = ""

    def make(self, quick: bool = False) -> tuple[pd.DataFrame, Figure]:
        data = self.frame(quick=quick)
        return data, self.plot(data)


def figure(
    ncols: int = 1,
    nrows: int = 1,
    width: float = 5.2,
    height: float = 3.6,
    fast: bool = False,
    **kw,
):
    """A themed figure with a grid of axes (squeezed like plt.subplots).

    ``fast=True`` (slider views) uses fixed margins instead of constrained layout, which
    costs about half of a redraw.
    """
    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    # a bare Figure (not pyplot's): the notebook shows it once, when returned, and no
    # figure accumulates in pyplot's registry across slider moves
    fig = Figure(figsize=(width * ncols, height * nrows), layout=None if fast else "constrained")
    axes = fig.subplots(nrows, ncols, **kw)
    if fast:
        _fixed_margins(fig, ncols, nrows, width * ncols, height * nrows)
    return fig, axes


def _fixed_margins(
    fig, ncols, nrows, w, h, left=0.8, right=0.65, bottom=0.6, top=0.45, hgap=1.25, vgap=0.8
):
    """Margins in inches (room for tick labels, a twin y axis and titles), as fractions."""
    axis_w = (w - left - right - hgap * (ncols - 1)) / ncols
    axis_h = (h - bottom - top - vgap * (nrows - 1)) / nrows
    fig.subplots_adjust(
        left=left / w,
        right=1 - right / w,
        bottom=bottom / h,
        top=1 - top / h,
        wspace=hgap / axis_w,
        hspace=vgap / axis_h,
    )


def ci_errorbar(ax, x, mean, low, high, **kw):
    """Markers with asymmetric confidence-interval whiskers."""
    import numpy as np

    mean, low, high = (np.asarray(v, dtype=float) for v in (mean, low, high))
    yerr = np.vstack([mean - low, high - mean])
    kw.setdefault("fmt", "o")
    kw.setdefault("capsize", 3)
    kw.setdefault("markersize", 4)
    return ax.errorbar(x, mean, yerr=yerr, **kw)
