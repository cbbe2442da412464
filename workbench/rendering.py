"""A view's figure as the PNG the page shows: legible on a projector, fast to redraw."""

from __future__ import annotations

import io

import matplotlib
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from workbench.notation import mathtext
from workbench.validation import check_real, check_type

__all__ = ["VIEW_DPI", "MIN_VIEW_WIDTH_PX", "view_dpi", "render_png", "apply_notation"]


def apply_notation(fig) -> list:
    """Render the paper's notation in every text of ``fig`` (``P_b`` → P with subscript b,
    ``p^I``, ``T_cl``, ``λ_m``; see :func:`~workbench.notation.mathtext`), the same reading
    as the controls' labels; a multi-line text is rendered line by line.
    Returns ``(text, original)`` pairs to undo it."""
    check_type(fig, "fig", "apply_notation", Figure, "a matplotlib Figure")
    changed = []
    texts = list(fig.findobj(Text))
    for ax in fig.axes:  # a table's cell texts are not among the figure's children
        for table in ax.tables:
            texts += [cell.get_text() for cell in table.get_celld().values()]
    for t in texts:
        s = t.get_text()
        if s and ("_" in s or "^" in s) and "$" not in s:
            new = "\n".join(mathtext(line) for line in s.split("\n"))
            if new != s:
                t.set_text(new)
                changed.append((t, s))
    return changed


def save_png(fig, buf, **kw) -> None:
    """``fig.savefig(buf, format="png", ...)`` with the notation rendered; a text whose
    notation matplotlib cannot typeset is drawn as typed."""
    changed = apply_notation(fig)
    try:
        fig.savefig(buf, format="png", **kw)
    except ValueError:  # a mathtext parse error: draw the texts as typed
        for t, s in changed:
            t.set_text(s)
        buf.seek(0)
        buf.truncate()
        fig.savefig(buf, format="png", **kw)


VIEW_DPI = 110  # 10 pt is 15 px on screen: legible on a projector
MIN_VIEW_WIDTH_PX = 640  # a small figure (a 3.6-inch diagram) is rendered finer, not tiny


def view_dpi(fig) -> float:
    """Resolution of a view's PNG: :data:`VIEW_DPI`, more for a figure narrower than
    :data:`MIN_VIEW_WIDTH_PX` pixels at that resolution (the page shows PNGs at their size)."""
    check_type(fig, "fig", "view_dpi", Figure, "a matplotlib Figure")
    return max(VIEW_DPI, MIN_VIEW_WIDTH_PX / fig.get_figwidth())


def render_png(fig, dpi: float | None = None) -> bytes:
    """PNG bytes of a figure, without the inline backend's costly tight bounding box.

    ``dpi`` defaults to :func:`view_dpi` (the same for every move of a view, so a figure
    updated in place keeps its renderer).

    Tick labels and legends are most of a redraw; unhinted glyphs render about 15% faster
    and look the same at screen resolution. zlib level 1 saves 3-4 ms a move at about the
    same PNG size (flat-coloured plots compress well at any level).

    A bare Figure gets an Agg canvas of its own on its first render: saved through a fresh
    canvas every time, it would get a fresh renderer that has forgotten the size of every
    text; a figure a view updates in place reuses its renderer, and the sizes of the texts a
    move leaves alone (tick labels, legends, titles), from one move to the next.
    """
    check_type(fig, "fig", "render_png", Figure, "a matplotlib Figure")
    if dpi is not None:
        dpi = check_real(dpi, "dpi", "render_png", 1.0, 2400.0)
    if type(fig.canvas) is FigureCanvasBase:
        FigureCanvasAgg(fig)
    dpi = view_dpi(fig) if dpi is None else dpi
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.hinting": "none"}):
        save_png(fig, buf, dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()
