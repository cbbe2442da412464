"""Shared plotting style: one look for every paper's figures."""

from __future__ import annotations

import functools
import io
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from workbench.validation import check_seed

PALETTE = sns.color_palette("colorblind")
POLICY_COLORS = {
    "benchmark": PALETTE[7],
    "bpo": PALETTE[0],
    "asto": PALETTE[2],
    "optimal": PALETTE[3],
}
FORMULA_STYLE = {"exact": "-", "paper": "--"}
MIN_LEGEND_PT = 10.0  # no legend text smaller than this (read on a projector)


def _points(size) -> float:
    """A font size (points, or a name such as ``"small"``) in points."""
    return FontProperties(size=size).get_size_in_points()


def readable_legend_kw(kw: dict, min_pt: float = MIN_LEGEND_PT) -> dict:
    """Legend keywords with every font size raised to at least ``min_pt`` points.

    Applies to ``fontsize``, ``title_fontsize`` and ``prop`` (a dict or a FontProperties);
    sizes left unset follow the theme (11 pt legends, 12 pt titles).
    """
    kw = dict(kw)
    for key in ("fontsize", "title_fontsize"):
        if kw.get(key) is not None and _points(kw[key]) < min_pt:
            kw[key] = min_pt
    prop = kw.get("prop")
    if isinstance(prop, dict) and prop.get("size") is not None and _points(prop["size"]) < min_pt:
        kw["prop"] = {**prop, "size": min_pt}
    elif isinstance(prop, FontProperties) and prop.get_size_in_points() < min_pt:
        prop = prop.copy()
        prop.set_size(min_pt)
        kw["prop"] = prop
    return kw


class WorkbenchAxes(Axes):
    """Axes whose legends are never smaller than :data:`MIN_LEGEND_PT` points."""

    def legend(self, *args, **kwargs):
        return super().legend(*args, **readable_legend_kw(kwargs))


class WorkbenchFigure(Figure):
    """The workbench's Figure: its axes (twins and insets too) are :class:`WorkbenchAxes`,
    and its figure legends are never smaller than :data:`MIN_LEGEND_PT` points either."""

    def add_subplot(self, *args, **kwargs):
        if "projection" not in kwargs and "polar" not in kwargs:
            kwargs.setdefault("axes_class", WorkbenchAxes)
        return super().add_subplot(*args, **kwargs)

    def add_axes(self, *args, **kwargs):
        if (
            "projection" not in kwargs
            and "polar" not in kwargs
            and not (args and isinstance(args[0], Axes))
        ):
            kwargs.setdefault("axes_class", WorkbenchAxes)
        return super().add_axes(*args, **kwargs)

    def legend(self, *args, **kwargs):
        return super().legend(*args, **readable_legend_kw(kwargs))


def _figure_png(fig: Figure) -> bytes:
    from workbench.rendering import save_png  # notation rendered as in the views

    buf = io.BytesIO()
    save_png(fig, buf, dpi=100, bbox_inches="tight")
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
    from IPython import get_ipython  # a dependency of ipykernel and ipywidgets

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

    @property
    def seeded(self) -> bool:
        """Whether the frame draws random numbers (its function takes ``seed``)."""
        import inspect

        return "seed" in inspect.signature(self.frame).parameters

    def make(self, quick: bool = False, seed: int = 0) -> tuple[pd.DataFrame, Figure]:
        """The frame (kept by :func:`workbench.memo.cached_call` between runs of the same
        code) and the figure drawn from it.

        ``seed`` is the notebook's ``SEED``, passed by hand: a seeded frame draws from its own
        base seed shifted by it (:func:`workbench.seeding.figure_seed`), so ``seed=0`` keeps
        the published numbers. A frame that draws nothing ignores it.
        """
        from workbench.memo import cached_call

        seed = check_seed(seed, "FigureSpec.make")
        kwargs = {"seed": seed} if self.seeded else {}
        data = cached_call(self.frame, quick=quick, **kwargs)
        return data, self.plot(data)


CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC")
"""Fallback fonts for the Chinese of P5's quotes (Debian's ``fonts-noto-cjk``, installed by
``run.sh setup``): without one, CJK characters render as empty boxes."""


CJK_FILES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",)


@functools.cache
def _cjk_font() -> str | None:
    from pathlib import Path

    from matplotlib import font_manager

    for path in CJK_FILES:  # installed after matplotlib's font cache was written
        if Path(path).exists():
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue
    for name in CJK_FONTS:
        try:
            font_manager.findfont(name, fallback_to_default=False)
        except ValueError:
            continue
        return name
    return None


def use_cjk_fallback() -> None:
    """Let matplotlib fall back to a CJK font for glyphs the theme's font lacks (a no-op
    when no CJK font is installed)."""
    import matplotlib

    name = _cjk_font()
    family = matplotlib.rcParams["font.family"]
    family = [family] if isinstance(family, str) else list(family)
    if name is not None and name not in family:
        matplotlib.rcParams["font.family"] = [*family, name]


def figure(
    ncols: int = 1,
    nrows: int = 1,
    width: float = 5.2,
    height: float = 3.6,
    fast: bool = False,
    **kw,
):
    """A themed figure with a grid of axes (squeezed like plt.subplots).

    Legends drawn on it (``ax.legend``, ``fig.legend``, twins included) are at least
    :data:`MIN_LEGEND_PT` points, whatever font size the caller asks for.

    ``fast=True`` (slider views) uses fixed margins instead of constrained layout, which
    costs about half of a redraw.
    """
    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    use_cjk_fallback()
    # a bare Figure (not pyplot's): the notebook shows it once, when returned, and no
    # figure accumulates in pyplot's registry across slider moves
    fig = WorkbenchFigure(
        figsize=(width * ncols, height * nrows), layout=None if fast else "constrained"
    )
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


UNSTABLE_LABEL = "hollow: not stationary (no steady-state mean)"


def ci_errorbar(ax, x, mean, low, high, stationary=None, **kw):
    """Markers with asymmetric confidence-interval whiskers.

    ``stationary`` (one bool per point, optional): points whose run the output analysis did
    not find stationary are drawn hollow, with dotted whiskers, and are not a steady-state
    mean; add :func:`unstable_legend` so the legend says so. Returns the container of the
    filled points (the one that carries ``label``).
    """
    import numpy as np

    x = np.asarray(x)
    mean, low, high = (np.asarray(v, dtype=float) for v in (mean, low, high))
    kw.setdefault("fmt", "o")
    kw.setdefault("capsize", 3)
    kw.setdefault("markersize", 4)
    if stationary is None:
        ok = np.ones(mean.shape, dtype=bool)
    else:
        ok = np.asarray(stationary, dtype=bool).reshape(mean.shape)
    yerr = np.vstack([mean - low, high - mean])
    drawn = ax.errorbar(x[ok], mean[ok], yerr=yerr[:, ok], **kw)
    if not ok.all():
        color = drawn.lines[0].get_color()
        hollow = {k: v for k, v in kw.items() if k not in ("label", "color", "mfc")}
        hollow["markerfacecolor"] = "none"
        bad = ~ok
        _, _, bars = ax.errorbar(
            x[bad], mean[bad], yerr=yerr[:, bad], color=color, label="_nolegend_", **hollow
        )
        for bar in bars:
            bar.set_linestyle(":")
    return drawn


def _labelled_series(ax) -> list:
    """(artist carrying the label, x, y) of an axes' labelled lines and error-bar markers,
    in drawing order (a later one is drawn over an earlier one)."""
    import numpy as np
    from matplotlib.container import ErrorbarContainer

    series = [  # (artist carrying the label, its line)
        (c, c.lines[0])
        for c in ax.containers
        if isinstance(c, ErrorbarContainer) and c.lines and c.lines[0] is not None
    ]
    in_container = {id(line) for _, line in series}
    series += [(line, line) for line in ax.lines if id(line) not in in_container]
    return [
        (art, np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
        for art, line in series
        if not art.get_label().startswith("_")
    ]


def mark_hidden(ax, rel: float = 0.005) -> list[str]:
    """Say in the legend which labelled curves are hidden under another one.

    A labelled series whose every point lies within ``rel`` (relative) of a series drawn
    after it, at the same x, is covered by it on the page: its label gets "(under <that
    label>)". Call before the legend is drawn. Returns the labels changed.
    """
    import numpy as np

    series = _labelled_series(ax)
    changed = []
    for i, (art, x, y) in enumerate(series):
        for top, x2, y2 in series[i + 1 :]:
            if x.shape != x2.shape or not x.size or not np.allclose(x, x2):
                continue
            scale = np.maximum(np.abs(y2), 1e-300)
            if np.all(np.abs(y - y2) <= rel * scale):
                art.set_label(f"{art.get_label()} (under {top.get_label()})")
                changed.append(art.get_label())
                break
    return changed


def unstable_legend(ax, **legend_kw):
    """Add the legend entry that explains hollow markers (call after plotting)."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if UNSTABLE_LABEL not in labels:
        handles.append(Line2D([], [], marker="o", ls="", mfc="none", color="0.3"))
        labels.append(UNSTABLE_LABEL)
    return ax.legend(handles, labels, **legend_kw)


# the note of each figure flagged unstable, kept beside the figure (never set on it) and
# forgotten with it
_UNSTABLE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def flag_unstable(fig: Figure, note: str) -> Figure:
    """Mark a slider view's figure as showing non-stationary numbers.

    The notebook's view (:mod:`workbench.interactive`) then shows it greyed, with ``note``
    above it, like a figure that no longer matches its controls. An empty note clears the
    mark; :func:`unstable_note` reads it.
    """
    if note:
        _UNSTABLE[fig] = str(note)
    else:
        _UNSTABLE.pop(fig, None)
    return fig


def unstable_note(fig) -> str:
    """The note :func:`flag_unstable` put on ``fig`` ("" when it shows a steady state)."""
    try:
        return _UNSTABLE.get(fig, "")
    except TypeError:  # not weakly referenceable: never flagged
        return ""
