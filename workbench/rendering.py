"""A view's figure as the PNG the page shows: legible on a projector, fast to redraw."""

from __future__ import annotations

import io
import struct
import threading
import zlib

import matplotlib
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from workbench.notation import mathtext
from workbench.validation import ParameterError, check_real, check_type

__all__ = [
    "VIEW_DPI",
    "MIN_VIEW_WIDTH_PX",
    "MIN_TEXT_KEY",
    "view_dpi",
    "render_png",
    "save_png",
    "apply_notation",
    "min_text_px",
    "png_text",
]


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


MIN_TEXT_KEY = "workbench:min-text-px"
"""The PNG text chunk that holds the size of the smallest text drawn in the picture, in
pixels of the PNG (a slide scaling the picture by s shows it at s times that)."""

_drawn = threading.local()  # the font sizes [pt] of the texts a save in this thread draws
_text_draw = Text.draw


def _recording_draw(self, renderer):
    sizes = getattr(_drawn, "sizes", None)
    if sizes is not None and self.get_visible() and self.get_text().strip():
        sizes.append(self.get_fontsize())
    return _text_draw(self, renderer)


Text.draw = _recording_draw


def png_with_text(png: bytes, key: str, value: str) -> bytes:
    """``png`` with a ``tEXt`` chunk ``key``/``value`` before its ``IEND`` chunk."""
    data = key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = b"tEXt" + data
    chunk = struct.pack(">I", len(data)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    end = png.rindex(b"IEND") - 4  # the IEND chunk's length field
    return png[:end] + chunk + png[end:]


def _check_png(png, func: str) -> None:
    if not isinstance(png, (bytes, bytearray)):
        raise ParameterError(
            f"{func}: png must be the bytes of a PNG file; got {type(png).__name__}"
        )


def png_text(png: bytes) -> dict[str, str]:
    """The ``tEXt`` chunks of a PNG (key -> value)."""
    _check_png(png, "png_text")
    out, i = {}, 8
    while i + 8 <= len(png):
        (length,) = struct.unpack(">I", png[i : i + 4])
        kind = png[i + 4 : i + 8]
        if kind == b"tEXt":
            key, _, value = png[i + 8 : i + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        i += 12 + length
    return out


def min_text_px(png: bytes) -> float | None:
    """The smallest text drawn in a PNG written by :func:`save_png`, in its pixels (None for
    a picture without text or not written by it)."""
    _check_png(png, "min_text_px")
    value = png_text(png).get(MIN_TEXT_KEY)
    return float(value) if value else None


#: the ``savefig`` keywords :func:`save_png` passes on (a typo is refused by name)
SAVE_KEYWORDS = frozenset(
    {
        "dpi",
        "bbox_inches",
        "pad_inches",
        "facecolor",
        "edgecolor",
        "transparent",
        "metadata",
        "pil_kwargs",
    }
)


def save_png(fig, buf, **kw) -> None:
    """``fig.savefig(buf, format="png", ...)`` with the notation rendered; a text whose
    notation matplotlib cannot typeset is drawn as typed.

    The PNG carries the size of its smallest drawn text in pixels (:data:`MIN_TEXT_KEY`,
    :func:`min_text_px`; mathtext scripts count at their base size): the course's slides
    check what a projector shows with it."""
    unknown = sorted(set(kw) - SAVE_KEYWORDS)
    if unknown:
        raise ParameterError(
            f"save_png: keyword {unknown[0]!r} is not one of savefig's "
            f"{', '.join(sorted(SAVE_KEYWORDS))}; got {unknown[0]}={kw[unknown[0]]!r}"
        )
    changed = apply_notation(fig)
    start = buf.tell()
    _drawn.sizes = []
    try:
        try:
            fig.savefig(buf, format="png", **kw)
        except ValueError:  # a mathtext parse error: draw the texts as typed
            for t, s in changed:
                t.set_text(s)
            buf.seek(start)
            buf.truncate()
            _drawn.sizes = []
            fig.savefig(buf, format="png", **kw)
        sizes = _drawn.sizes
    finally:
        _drawn.sizes = None
    if not sizes:
        return
    dpi = kw.get("dpi") or fig.dpi
    buf.seek(start)
    png = png_with_text(buf.read(), MIN_TEXT_KEY, f"{min(sizes) * dpi / 72:.2f}")
    buf.seek(start)
    buf.truncate()
    buf.write(png)


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

    Tick labels and legends are most of a redraw; unhinted glyphs render faster and look the
    same at screen resolution. zlib level 1 is faster than the default at about the same PNG
    size (flat-coloured plots compress well at any level).

    A bare Figure gets an Agg canvas of its own on its first render: saved through a fresh
    canvas every time, it would get a fresh renderer that has forgotten the size of every
    text; a figure a view updates in place reuses its renderer, and the sizes of the texts a
    move leaves alone (tick labels, legends, titles), from one move to the next.
    """
    check_type(fig, "fig", "render_png", Figure, "a matplotlib Figure")
    dpi = view_dpi(fig) if dpi is None else check_real(dpi, "dpi", "render_png", 1.0, 2400.0)
    if type(fig.canvas) is FigureCanvasBase:
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.hinting": "none"}):
        save_png(fig, buf, dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()
