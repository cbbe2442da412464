"""A layout check for figures: what a lecturer would see cropped, overlapping or too small.

>>> problems = check_layout(fig)        # [] when the figure is clean
>>> problems
["overlap: x label 'λ [1/s]' (axes 1) overlaps figure text 'Settings: ...' by 40x9 px"]

The figure is drawn once with the Agg renderer; every text the renderer actually draws is
recorded (titles, axis labels, tick labels, offset texts, legend texts, annotations, figure
texts), and the checks use matplotlib's window extents (display pixels):

- ``outside``: a text not entirely inside the canvas (cropped in the PNG);
- ``overlap``: two drawn texts whose boxes overlap (more than :data:`TOLERANCE_PX` each way);
- ``legend-data``: a legend's box covers plotted data of any axes (its own, a twin ``twinx``
  draws over it, a neighbour): a line's segments, markers, error bars, scatter points, bars
  or filled areas (only the part inside that axes counts, as the rest is clipped; full-height
  or full-width spans are background, not data);
- ``legend-text``: a legend's box covers a text that is not its own (an axes title, a label);
- ``legend-font``: a legend whose texts are smaller than :data:`MIN_LEGEND_PT` points.

Rotated texts (not a multiple of 90°) are compared as rotated rectangles, not by their axis-
aligned boxes, so slanted tick labels side by side are not reported.

:func:`layout_problems` returns :class:`Problem` records (``kind``, ``message``);
:func:`check_layout` their messages.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from workbench.plots import MIN_LEGEND_PT, unstable_note

__all__ = ["Problem", "check_layout", "layout_problems", "KINDS", "MIN_LEGEND_PT"]

KINDS = ("outside", "overlap", "legend-data", "legend-text", "legend-font")
TOLERANCE_PX = 1.0  # overlaps of at most a pixel are anti-aliasing, not a problem


@dataclass(frozen=True)
class Problem:
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def check_layout(fig: Figure, *, dpi: float | None = None) -> list[str]:
    """Readable layout problems of ``fig`` (empty list: none); see the module docstring."""
    return [str(p) for p in layout_problems(fig, dpi=dpi)]


def layout_problems(fig: Figure, *, dpi: float | None = None) -> list[Problem]:
    """The layout problems of ``fig`` drawn by Agg (at ``dpi``, default the figure's own)."""
    old_dpi = fig.dpi
    if dpi is not None:
        fig.set_dpi(dpi)
    try:
        drawn = _draw_and_record(fig)
        renderer = fig.canvas.get_renderer()
        names = _text_names(fig)
        texts = [(t, t.get_window_extent(renderer)) for t in drawn]
        texts = [(t, bb) for t, bb in texts if bb.width > 0 and bb.height > 0]
        checks = (
            _outside(fig, texts, names),
            _overlaps(texts, names, renderer),
            _legends(fig, texts, names, renderer),
        )
        return [Problem(kind, message) for kind, message in itertools.chain(*checks)]
    finally:
        if dpi is not None:
            fig.set_dpi(old_dpi)


# ------------------------------------------------------------------------------ drawing


def _draw_and_record(fig: Figure) -> list[Text]:
    """Draw ``fig`` with Agg; return the Text artists the renderer drew, in drawing order.

    matplotlib tells the renderer which artist a glyph run belongs to only for one-line
    texts, so ``Text.draw`` is wrapped for the duration of the draw: whatever the renderer
    draws while a Text of this figure is drawing belongs to that Text (multi-line labels,
    wrapped titles, annotations and legend texts alike).
    """
    if not isinstance(fig.canvas, FigureCanvasAgg):  # a bare Figure's FigureCanvasBase too
        FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    seen: dict[int, Text] = {}
    drawing: list[Text] = []
    text_draw = Text.draw
    draw_text = renderer.draw_text

    def recording_text_draw(self, rend, *args, **kwargs):
        if rend is not renderer:  # another figure (another thread): leave it alone
            return text_draw(self, rend, *args, **kwargs)
        drawing.append(self)
        try:
            return text_draw(self, rend, *args, **kwargs)
        finally:
            drawing.pop()

    def recording_draw_text(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        owner = drawing[-1] if drawing else mtext
        if owner is not None and str(s).strip():
            seen.setdefault(id(owner), owner)
        return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    Text.draw = recording_text_draw
    renderer.draw_text = recording_draw_text
    try:
        fig.canvas.draw()
    finally:
        Text.draw = text_draw
        del renderer.draw_text
    return list(seen.values())


# ------------------------------------------------------------------------------- naming


def _short(text: str, n: int = 40) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def _axes_name(fig: Figure, ax) -> str:
    i = fig.axes.index(ax) + 1 if ax in fig.axes else 0
    title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
    return f"axes {i}" + (f" {_short(title, 30)}" if title else "")


def _text_names(fig: Figure) -> dict[int, str]:
    """A role for every text we can place: 'x tick label (axes 2)', 'legend text', ..."""
    names: dict[int, str] = {}
    for ax in fig.axes:
        where = _axes_name(fig, ax)
        for t, role in (
            (ax.title, "title"),
            (ax._left_title, "left title"),
            (ax._right_title, "right title"),
        ):
            names[id(t)] = f"{role} of axes {fig.axes.index(ax) + 1}"
        for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            names[id(axis.label)] = f"{letter} label of {where}"
            names[id(axis.offsetText)] = f"{letter} offset text of {where}"
            for tick in (*axis.majorTicks, *axis.minorTicks):
                names[id(tick.label1)] = f"{letter} tick label of {where}"
                names[id(tick.label2)] = f"{letter} tick label of {where}"
        for t in ax.texts:
            names[id(t)] = f"text in {where}"
    for leg, where in _legend_list(fig):
        for t in leg.get_texts():
            names[id(t)] = f"text of the {where}"
        names[id(leg.get_title())] = f"title of the {where}"
    for t, role in (
        (fig._suptitle, "title"),
        (fig._supxlabel, "x label"),
        (fig._supylabel, "y label"),
    ):
        if t is not None:
            names[id(t)] = f"figure {role}"
    for t in fig.texts:
        names.setdefault(id(t), "figure text")
    return names


def _legend_list(fig: Figure) -> list[tuple[Legend, str]]:
    """``(legend, where)`` for every legend of ``fig``: each axes' own, then the figure's."""
    legends = [
        (leg, f"legend of {_axes_name(fig, ax)}")
        for ax in fig.axes
        if (leg := ax.get_legend()) is not None
    ]
    return legends + [(leg, f"figure legend {i + 1}") for i, leg in enumerate(fig.legends)]


def _describe(t: Text, names: dict) -> str:
    return f"{names.get(id(t), 'text')} {_short(t.get_text())}"


# ------------------------------------------------------------------------------- checks
# each check yields (kind, message) pairs


def _outside(fig, texts, names):
    canvas = fig.bbox
    for t, bb in texts:
        cut = {
            "left": canvas.x0 - bb.x0,
            "right": bb.x1 - canvas.x1,
            "bottom": canvas.y0 - bb.y0,
            "top": bb.y1 - canvas.y1,
        }
        sides = [f"{side} by {px:.0f} px" for side, px in cut.items() if px > TOLERANCE_PX]
        if sides:
            yield "outside", f"{_describe(t, names)} is cut at the canvas " + ", ".join(sides)


def _is_axis_aligned(t: Text) -> bool:
    a = t.get_rotation() % 180.0
    return min(abs(a), abs(a - 90.0), abs(a - 180.0)) < 1e-6


def _rotated_rect(t: Text, bb: Bbox, renderer) -> np.ndarray:
    """The 4 corners of a rotated text's own rectangle (display pixels)."""
    w, h, _d = 0.0, 0.0, 0.0
    for line in t.get_text().split("\n"):
        lw, lh, ld = renderer.get_text_width_height_descent(
            line or " ", t.get_fontproperties(), ismath="TeX" if t.get_usetex() else False
        )
        w = max(w, lw)
        h += lh * (t.get_linespacing() if h else 1.0)
    theta = math.radians(t.get_rotation())
    c, s = math.cos(theta), math.sin(theta)
    cx, cy = (bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2
    half = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    rot = np.array([[c, -s], [s, c]])
    return half @ rot.T + [cx, cy]


def _polygons_overlap(p: np.ndarray, q: np.ndarray, tol: float) -> bool:
    """Separating-axis test for two convex quadrilaterals (overlap deeper than ``tol``)."""
    for poly in (p, q):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            norm = np.hypot(*axis)
            if norm == 0:
                continue
            axis /= norm
            a, b = p @ axis, q @ axis
            if min(a.max(), b.max()) - max(a.min(), b.min()) <= tol:
                return False
    return True


def _intersection(a: Bbox, b: Bbox) -> tuple[float, float]:
    return min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)


def _overlaps(texts, names, renderer):
    for i, (t1, b1) in enumerate(texts):
        for t2, b2 in texts[i + 1 :]:
            w, h = _intersection(b1, b2)
            if w <= TOLERANCE_PX or h <= TOLERANCE_PX:
                continue
            if not (_is_axis_aligned(t1) and _is_axis_aligned(t2)):
                p = _rotated_rect(t1, b1, renderer)
                q = _rotated_rect(t2, b2, renderer)
                if not _polygons_overlap(p, q, TOLERANCE_PX):
                    continue
            what = f"{_describe(t1, names)} overlaps {_describe(t2, names)}"
            yield "overlap", f"{what} by {w:.0f}x{h:.0f} px"


def _legends(fig, texts, names, renderer):
    for leg, where in _legend_list(fig):
        if not leg.get_visible():
            continue
        own = {id(t) for t in leg.get_texts()} | {id(leg.get_title())}
        sizes = [t.get_fontsize() for t in leg.get_texts() if t.get_text()]
        if sizes and min(sizes) < MIN_LEGEND_PT - 1e-9:
            yield (
                "legend-font",
                f"{where}: texts of {min(sizes):.3g} pt (minimum {MIN_LEGEND_PT:g} pt)",
            )
        box = leg.get_window_extent(renderer)
        for t, bb in texts:
            if id(t) in own:
                continue
            w, h = _intersection(box, bb)
            if w > TOLERANCE_PX and h > TOLERANCE_PX:
                yield "legend-text", f"{where} covers {_describe(t, names)} by {w:.0f}x{h:.0f} px"
        for target in fig.axes:  # its own axes, a twin drawn over it, a neighbour
            covered = _covered_data(target, box, renderer)
            if covered:
                what = f"{where} covers data of {_axes_name(fig, target)}"
                yield "legend-data", f"{what}: " + ", ".join(covered)


def _covered_data(ax, legend_box: Bbox, renderer) -> list[str]:
    """Labels of the data artists of ``ax`` drawn inside ``legend_box``."""
    region = Bbox.intersection(legend_box, ax.bbox)
    if region is None or region.width <= 2 * TOLERANCE_PX or region.height <= 2 * TOLERANCE_PX:
        return []
    region = region.padded(-TOLERANCE_PX)
    hits = []
    for line in ax.get_lines():
        if line.get_visible() and _line_hits(line, region):
            hits.append(_artist_label(line, "line"))
    for coll in ax.collections:
        if coll.get_visible() and _collection_hits(coll, region):
            hits.append(_artist_label(coll, type(coll).__name__))
    for patch in ax.patches:
        if patch.get_visible() and _patch_hits(ax, patch, region, renderer):
            hits.append(_artist_label(patch, "bar" if isinstance(patch, Rectangle) else "patch"))
    unique = list(dict.fromkeys(hits))
    return unique[:4] + ([f"and {len(unique) - 4} more"] if len(unique) > 4 else [])


def _artist_label(artist, kind: str) -> str:
    label = artist.get_label()
    return f"{kind} {_short(label, 30)}" if label and not label.startswith("_") else kind


def _points_in(xy: np.ndarray, box: Bbox) -> bool:
    """Whether a point of ``xy`` lies in ``box`` (a nan or infinite point lies nowhere)."""
    return bool(np.any(((xy >= box.p0) & (xy <= box.p1)).all(axis=1)))


def _segments_hit(p0: np.ndarray, p1: np.ndarray, box: Bbox) -> bool:
    """Whether any segment p0[i]-p1[i] crosses ``box`` (Liang-Barsky, vectorised)."""
    ok = np.isfinite(p0).all(axis=1) & np.isfinite(p1).all(axis=1)
    p0, p1 = p0[ok], p1[ok]
    if len(p0) == 0:
        return False
    d = p1 - p0
    t0 = np.zeros(len(p0))
    t1 = np.ones(len(p0))
    inside = np.ones(len(p0), dtype=bool)
    for p, q in (
        (-d[:, 0], p0[:, 0] - box.x0),
        (d[:, 0], box.x1 - p0[:, 0]),
        (-d[:, 1], p0[:, 1] - box.y0),
        (d[:, 1], box.y1 - p0[:, 1]),
    ):
        parallel = p == 0
        inside &= ~(parallel & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = q / p
        t0 = np.where(~parallel & (p < 0), np.maximum(t0, r), t0)
        t1 = np.where(~parallel & (p > 0), np.minimum(t1, r), t1)
    return bool(np.any(inside & (t0 <= t1)))


def _line_hits(line: Line2D, region: Bbox) -> bool:
    xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
    marker = line.get_marker()
    if marker not in (None, "", " ", "None", "none") and _points_in(xy, region):
        return True
    if line.get_linestyle() in ("None", "", " ", "none") or line.get_linewidth() == 0:
        return False
    return _segments_hit(xy[:-1], xy[1:], region)


def _collection_hits(coll, region: Bbox) -> bool:
    if isinstance(coll, LineCollection):
        trans = coll.get_transform()
        segments = (trans.transform(np.asarray(seg, dtype=float)) for seg in coll.get_segments())
        return any(len(seg) >= 2 and _segments_hit(seg[:-1], seg[1:], region) for seg in segments)
    if isinstance(coll, PathCollection) and len(coll.get_offsets()):
        offsets = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), float))
        return _points_in(offsets, region)
    if isinstance(coll, PolyCollection):
        paths = map(coll.get_transform().transform_path, coll.get_paths())
        return any(path.intersects_bbox(region, filled=True) for path in paths)
    return False


def _patch_hits(ax, patch: Patch, region: Bbox, renderer) -> bool:
    bb = patch.get_window_extent(renderer)
    axes = ax.bbox
    if bb.width >= axes.width - 1 or bb.height >= axes.height - 1:
        return False  # axvspan / axhspan / a frame: background, not data
    if not patch.get_fill() and patch.get_edgecolor()[3] == 0:
        return False
    w, h = _intersection(bb, region)
    return w > 0 and h > 0


# ------------------------------------------------------------------------------ views


def view_settings(view, ends: bool = True):
    """Yield ``(setting, figure)`` for a slider view at its defaults and at every control's ends.

    ``view`` is a :class:`workbench.widgets.InteractiveFigure`. With ``ends``, every visible
    slider is moved to its low and its high end and every dropdown or checkbox through its other
    values, one control at a time, each time starting from the defaults (restored after each
    control). A refused setting (the view greys the figure and shows why) yields no figure.
    Background views are waited for.
    """
    wait = getattr(view, "wait", lambda *a: None)
    wait(300)
    defaults = {name: ctl.value for name, ctl in view.controls.items()}
    if view.figure is not None:
        yield "defaults", view.figure
    if not ends:
        return
    for name, ctl in view.controls.items():
        if ctl.layout.display == "none":
            continue
        if hasattr(ctl, "min") and hasattr(ctl, "max"):
            targets = [("min", ctl.min), ("max", ctl.max)]
        elif hasattr(ctl, "options"):
            targets = [(repr(v), v) for v in _option_values(ctl) if v != ctl.value]
        elif isinstance(ctl.value, bool):
            targets = [(repr(not ctl.value), not ctl.value)]
        else:
            continue
        for what, value in targets:
            if value == ctl.value:
                continue
            ctl.value = value
            wait(300)
            drawn = view.drawn_values is not None and view.drawn_values.get(name) == ctl.value
            if drawn and (not view.stale or unstable_note(view.figure)):
                number = isinstance(ctl.value, (int, float)) and not isinstance(ctl.value, bool)
                yield (
                    (f"{name}={what} ({ctl.value:g})" if number else f"{name}={what}"),
                    view.figure,
                )
        for other, value in defaults.items():  # back to the defaults before the next control
            if view.controls[other].value != value:
                view.controls[other].value = value
                wait(300)


def _option_values(ctl) -> list:
    return [opt[1] if isinstance(opt, tuple) and len(opt) == 2 else opt for opt in ctl.options]
