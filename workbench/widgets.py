"""Wire sliders to a figure in one line, and classroom widgets.

>>> view = interactive_figure(plot_fn, lam=PARAMS["lam"], m=PARAMS["m"],
...                           limits={"m": lambda v: (1, v["N"])})
>>> view   # displays labelled controls above the figure

``plot_fn(**values)`` returns a matplotlib Figure. Controls commit on release
(``continuous_update=False``). What the view guarantees:

- **No stale figure left unmarked.** While a figure is being recomputed, and whenever the
  controls hold values the model refuses, the figure on screen is greyed out (CSS class
  ``wb-stale``) and the status line says why; it is unmarked again only when a figure of the
  current values is drawn.
- **Dependent ranges** (``limits``): a control's range follows other controls (m ≤ N); a value
  outside the new range is moved inside it, visibly, before the figure is computed.
- **Per-choice controls** (``visible``): controls that belong to one choice (a service family's
  shape) are shown only with that choice, each with its own valid range.
- **Latest only** (``background=True`` for slow views): the work runs in a thread; moves that
  arrive while it runs are not queued, only the last one is computed next.

- **Labels in full**: each control sits in a :class:`ControlRow` whose label (symbol, meaning
  and unit, from :func:`control_label`, notation rendered by :func:`notation`) wraps instead
  of being cut with "…"; the help text is the tooltip.
- **Typed values**: a slider's readout is a text box read by :func:`parse_number`, so "1,5"
  sets 1.5; anything else (text, two separators, a value outside the range) is refused
  visibly under the control and the value stays as it was.
- **Legible images**: PNGs at :func:`view_dpi` (110 dpi, and at least 640 px wide).

The view is a ``VBox`` with CSS class ``wb-interactive``; its figure is an ``<img>`` inside an
element of class ``wb-figure`` (the browser tests find them by these classes).
"""

from __future__ import annotations

import html
import io
import math
import numbers
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

from workbench import claims
from workbench.params import Param, Params

__all__ = [
    "interactive_figure",
    "InteractiveFigure",
    "ControlRow",
    "make_control",
    "control",
    "exercise",
    "glossary",
    "table_html",
    "view_dpi",
    "notation",
    "control_label",
    "parse_number",
    "claims_table",
    "atlas_view",
]

_LAYOUT = w.Layout(width="430px")
_STYLE = {"description_width": "190px"}
LABEL_WIDTH = "215px"  # a control's label wraps inside this width, never cut with "…"
SLIDER_WIDTH = "175px"
ENTRY_WIDTH = "72px"
COLUMN_WIDTH = "480px"
# greys out a figure that no longer matches its controls (injected once per view); the
# control labels wrap (ipywidgets' own labels are one line cut with an ellipsis, so a view
# draws its own label beside each control and hides the control's description)
_STALE_CSS = (
    "<style>.wb-stale img{opacity:.35;filter:grayscale(1);}"
    ".wb-figure img{max-width:100%;height:auto;}"
    ".wb-nolabel > .widget-label,.wb-nolabel > .jupyter-widget-label,"
    ".wb-nolabel .widget-label-basic > span,.wb-nolabel .jupyter-widget-label-basic > span"
    "{display:none!important}"
    ".wb-control{align-items:center;}"
    ".wb-control-label,.wb-control-label > .widget-html-content,"
    ".wb-control-label > .jupyter-widget-html-content{height:auto!important;"
    "line-height:1.25!important;white-space:normal!important;overflow:visible!important;}"
    ".wb-control-label{text-align:right;padding-right:6px;}"
    ".wb-refused input{border-color:#b00!important;color:#b00;}</style>"
)

# ------------------------------------------------------------------------------ labels

_SUP = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
        strict=True,
    )
)
_SUB = dict(
    zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
# base^X, base^{...}, base_x, base_{...}: the base is the token just before the mark; a
# subscript needs a short base (≤ 3 characters: T_cl, λ_u, min_th) so that a snake_case word
# of a sentence (cache_aware) is left alone
_SCRIPT = re.compile(
    r"(?P<base>[^\s\^_\[\]()/,;:|]+?)(?P<mark>[\^_])(?:\{(?P<braced>[^{}]+)\}"
    r"|(?P<bare>[A-Za-z0-9′'*+−-]+))"
)


def notation(text: str, *, as_html: bool = True) -> str:
    """Render the paper's ASCII notation: ``p^I`` → pᴵ, ``X^FF`` → X<sup>FF</sup>,
    ``T_cl`` → T<sub>cl</sub>, ``λ_m`` → λ<sub>m</sub>, ``x^{n+1}`` → x<sup>n+1</sup>.

    ``as_html=True`` (control labels): HTML with the rest escaped, ``<sup>``/``<sub>`` for the
    scripts. ``as_html=False`` (tooltips, plain text): Unicode super- and subscript letters
    where every character has one (p^I → pᴵ, λ_m → λₘ), else the notation is left as typed.
    A subscript is only read after a base of at most three characters (``T_cl``, ``min_th``),
    so snake_case words in a sentence (``cache_aware``) stay as they are.
    """
    out = []
    pos = 0
    for m in _SCRIPT.finditer(text):
        base, mark = m.group("base"), m.group("mark")
        script = m.group("braced") or m.group("bare")
        word = re.search(r"[A-Za-z0-9\u0370-\u03ff\u0300-\u036f]+$", base)
        if mark == "_" and (word is None or len(word.group()) > 3):
            continue
        out.append(_escape(text[pos : m.start()], as_html))
        out.append(_escape(base, as_html))
        table = _SUP if mark == "^" else _SUB
        if as_html:
            tag = "sup" if mark == "^" else "sub"
            out.append(f"<{tag}>{html.escape(script)}</{tag}>")
        elif all(c in table for c in script):
            out.append("".join(table[c] for c in script))
        else:
            out.append(m.group(0)[len(base) :])
        pos = m.end()
    out.append(_escape(text[pos:], as_html))
    return "".join(out)


def _escape(text: str, as_html: bool) -> str:
    return html.escape(text, quote=False) if as_html else text


def control_label(param: Param) -> str:
    """``symbol meaning [unit]`` without saying a name twice.

    A symbol that is a plain word already in the meaning is dropped: ``seed`` "random seed"
    reads "random seed", ``gentle`` "gentle RED" reads "gentle RED" (not "gentle gentle RED").
    """
    unit = f" [{param.unit}]" if param.unit else ""
    symbol, meaning = param.symbol.strip(), param.meaning.strip()
    if _said_in(symbol, meaning):
        return f"{meaning}{unit}"
    return f"{symbol} {meaning}{unit}".strip()


def _said_in(symbol: str, meaning: str) -> bool:
    if not re.fullmatch(r"[A-Za-z][A-Za-z-]{2,}", symbol):
        return False  # a mathematical symbol (λ, T_cl, n_slots) is not a word of the meaning
    words = re.findall(r"[A-Za-z-]+", meaning.lower())
    return any(word.startswith(symbol.lower()) for word in words)


# ------------------------------------------------------------------------------ numbers


def parse_number(text: str, *, integer: bool = False):
    """A number typed by a student: ``"1,5"`` and ``"1.5"`` are both 1.5.

    Accepts a decimal point or a single decimal comma, a leading ``−`` (Unicode minus),
    spaces and exponents (``2e-3``). Raises ``ValueError`` with a sentence to show for
    anything else: two separators (``"1.000,5"``), a thousands separator in an integer,
    text, ``nan`` or ``inf``, a fraction where an integer is needed.
    """
    raw = str(text)
    t = re.sub(r"[\s\u00a0\u202f\u2009]", "", raw).replace("−", "-")
    if not t:
        raise ValueError("type a number")
    if "," in t:
        if t.count(",") > 1 or "." in t:
            raise ValueError(f"“{raw}” is not a number: use one decimal separator (1.5 or 1,5)")
        t = t.replace(",", ".")
    try:
        value = float(t)
    except ValueError:
        raise ValueError(f"“{raw}” is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"“{raw}” is not a finite number")
    if integer:
        if value != int(value):
            raise ValueError(f"“{raw}” is not a whole number")
        return int(value)
    return value


def control(param: Param, value=None, span: tuple | None = None) -> w.ValueWidget:
    """The control of one declared parameter: label ``symbol meaning [unit]``, help as tooltip.

    ``value`` overrides the default and ``span`` the slider span (a view's own narrower range);
    both must lie inside the parameter's valid range, so a control never offers a value the
    model refuses.
    """
    value = param.default if value is None else value
    if param.kind == "choice":
        ctl = w.Dropdown(options=list(param.choices), value=value)
    elif param.kind == "bool":
        ctl = w.Checkbox(value=bool(value), indent=False)
    else:
        lo, hi = span if span is not None else param.slider_span
        for bound in (lo, hi, value):
            param.check(bound, "control")
        if param.kind in ("int", "seed"):
            ctl = w.IntSlider(min=int(lo), max=int(hi), step=int(param.step or 1), value=int(value))
        else:
            step = param.step or (hi - lo) / 100
            ctl = w.FloatSlider(min=lo, max=hi, step=step, value=value, readout_format=".3g")
    ctl.description = control_label(param)
    ctl.tooltip = notation(param.help or ctl.description, as_html=False)
    ctl.wb_param = param  # the parameter behind the control (label and unit checks)
    return _style(ctl)


def _style(ctl):
    if hasattr(ctl, "continuous_update"):
        ctl.continuous_update = False
    ctl.layout = w.Layout(width=_LAYOUT.width)
    ctl.style = _STYLE
    return ctl


def make_control(name: str, spec) -> w.ValueWidget:
    """Build one control from a compact spec.

    - a :class:`~workbench.params.Param`: :func:`control` (label, tooltip, valid range);
    - ``(param, value)`` or ``(param, value, (low, high))``: the same with another start value
      or a narrower span;
    - an ipywidget: used as is (``continuous_update`` is switched off when it has one);
    - ``(min, max, step, value)``: an IntSlider if all four are ints, else a FloatSlider;
    - a list/tuple of strings (or of (label, value) pairs): a Dropdown, first item selected;
    - a bool: a Checkbox.
    """
    if isinstance(spec, Param):
        return control(spec)
    if isinstance(spec, tuple) and spec and isinstance(spec[0], Param):
        return control(*spec)
    if isinstance(spec, w.ValueWidget):
        ctl = spec
    elif isinstance(spec, bool):
        ctl = w.Checkbox(value=spec, description=name)
    elif (
        isinstance(spec, tuple)
        and len(spec) == 4
        and all(isinstance(v, numbers.Real) for v in spec)
    ):
        lo, hi, step, value = spec
        if all(isinstance(v, numbers.Integral) for v in spec):
            ctl = w.IntSlider(min=lo, max=hi, step=step, value=value, description=name)
        else:
            ctl = w.FloatSlider(
                min=lo, max=hi, step=step, value=value, description=name, readout_format=".3g"
            )
    elif isinstance(spec, Sequence) and not isinstance(spec, str) and len(spec) > 0:
        ctl = w.Dropdown(options=list(spec), description=name)
    else:
        raise TypeError(f"make_control: cannot build a control for {name!r} from {spec!r}")
    if not ctl.description:
        ctl.description = name
    return _style(ctl)


VIEW_DPI = 110  # 10 pt is 15 px on screen: legible on a projector
MIN_VIEW_WIDTH_PX = 640  # a small figure (a 3.6-inch diagram) is rendered finer, not tiny


def view_dpi(fig) -> float:
    """Resolution of a view's PNG: :data:`VIEW_DPI`, more for a figure narrower than
    :data:`MIN_VIEW_WIDTH_PX` pixels at that resolution (the page shows PNGs at their size)."""
    return max(VIEW_DPI, MIN_VIEW_WIDTH_PX / fig.get_figwidth())


def _render_png(fig, dpi: float | None = None) -> bytes:
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
    if type(fig.canvas) is FigureCanvasBase:
        FigureCanvasAgg(fig)
    dpi = view_dpi(fig) if dpi is None else dpi
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.hinting": "none"}):
        fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


class ControlRow(w.VBox):
    """One control as a student reads it: its label in full, the control, a typed readout.

    - the label (``symbol meaning [unit]``, notation rendered by :func:`notation`) wraps in
      :data:`LABEL_WIDTH` instead of being cut with "…"; the help text is its tooltip;
    - a slider's readout is a text box read by :func:`parse_number`: "1,5" sets 1.5; text
      that is no number, or a number outside the slider's range, is refused visibly (red box,
      a sentence under it) and the value is left as it was.
    """

    def __init__(self, name: str, ctl: w.ValueWidget):
        self.name = name
        self.control = ctl
        text = ctl.description or name
        self.label = w.HTML(
            value=notation(text), layout=w.Layout(width=LABEL_WIDTH, min_width=LABEL_WIDTH)
        )
        self.label.add_class("wb-control-label")
        self.label.tooltip = ctl.tooltip or notation(text, as_html=False)
        ctl.add_class("wb-nolabel")
        ctl.style.description_width = "0px"
        self.entry = None
        self.note = w.HTML(value="")
        parts = [self.label, ctl]
        if isinstance(ctl, (w.IntSlider, w.FloatSlider)):
            ctl.readout = False
            ctl.layout.width = SLIDER_WIDTH
            self.entry = w.Text(
                value=self._format(ctl.value),
                continuous_update=False,
                layout=w.Layout(width=ENTRY_WIDTH),
            )
            self.entry.add_class("wb-readout")
            self.entry.tooltip = "type a value (1.5 or 1,5) and press Enter"
            parts.append(self.entry)
            ctl.observe(self._show_value, names="value")
            self.entry.observe(self._typed, names="value")
        else:
            ctl.layout.width = "auto"
        line = w.HBox(parts)
        line.add_class("wb-control")
        super().__init__(children=[line, self.note], layout=w.Layout(width=COLUMN_WIDTH))
        self._syncing = False

    def _format(self, value) -> str:
        if isinstance(self.control, w.IntSlider):
            return str(int(value))
        fmt = getattr(self.control, "readout_format", ".3g") or ".3g"
        return format(value, fmt)

    def _show_value(self, change) -> None:
        self._syncing = True
        try:
            self.entry.value = self._format(change["new"])
        finally:
            self._syncing = False
        self._refuse("")

    def _refuse(self, why: str) -> None:
        if why:
            self.entry.add_class("wb-refused")
            self.note.value = f"<small style='color:#b00'>{html.escape(why)}</small>"
        else:
            self.entry.remove_class("wb-refused")
            self.note.value = ""

    def _typed(self, change) -> None:
        if self._syncing:
            return
        ctl = self.control
        try:
            value = parse_number(change["new"], integer=isinstance(ctl, w.IntSlider))
        except ValueError as err:
            self._refuse(f"{err}; the value stays {self._format(ctl.value)}.")
            return
        if not ctl.min <= value <= ctl.max:
            self._refuse(
                f"{self._format(value)} is outside this control's range "
                f"{self._format(ctl.min)} … {self._format(ctl.max)}; "
                f"the value stays {self._format(ctl.value)}."
            )
            return
        if value == ctl.value:
            self._show_value({"new": ctl.value})  # normalise the text ("1,50" -> "1.5")
        else:
            ctl.value = value  # its observer rewrites the text and clears any refusal

    def type(self, text: str) -> None:
        """Type ``text`` into the readout and press Enter (tests, scripts)."""
        self.entry.value = text


class InteractiveFigure(w.VBox):
    """Controls + a figure; see :func:`interactive_figure`."""

    def __init__(
        self,
        plot: Callable,
        controls: Mapping[str, w.ValueWidget],
        title: str = "",
        limits: Mapping[str, Callable] | None = None,
        visible: Mapping[str, Callable] | None = None,
        background: bool = False,
    ):
        self._plot = plot
        self.controls = dict(controls)
        self._limits = dict(limits or {})
        self._visible = dict(visible or {})
        for name in (*self._limits, *self._visible):
            if name not in self.controls:
                raise KeyError(f"interactive_figure: no control named {name!r}")
        self._background = background
        self._adjusting = False
        self._lock = threading.Lock()
        self._pending: dict | None = None
        self._worker: threading.Thread | None = None
        self.image = w.Image(format="png", layout=w.Layout(width="auto"))
        self.output = w.Box([self.image])
        self.output.add_class("wb-figure")
        self.status = w.HTML(value="")
        self.latencies_ms: list[float] = []
        self.errors: list[str] = []
        self.drawn_values: dict | None = None
        self.figure = None  # the last figure drawn (the layout check and tests read it)
        header = [w.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        self.rows = {name: ControlRow(name, ctl) for name, ctl in self.controls.items()}
        grid = w.GridBox(
            list(self.rows.values()),
            layout=w.Layout(grid_template_columns=f"repeat(2, {COLUMN_WIDTH})"),
        )
        super().__init__(children=[w.HTML(_STALE_CSS), *header, grid, self.status, self.output])
        self.add_class("wb-interactive")
        for ctl in self.controls.values():
            ctl.observe(self._on_change, names="value")
        self._apply_dependencies()
        self.update()

    @property
    def values(self) -> dict:
        return {k: c.value for k, c in self.controls.items() if self._shown(k)}

    @property
    def stale(self) -> bool:
        """True when the figure on screen does not show the current control values."""
        return "wb-stale" in self.output._dom_classes

    def _shown(self, name: str) -> bool:
        rule = self._visible.get(name)
        return True if rule is None else bool(rule(self._all_values()))

    def _all_values(self) -> dict:
        return {k: c.value for k, c in self.controls.items()}

    def _apply_dependencies(self) -> None:
        """Ranges follow their parents; per-choice controls show with their choice only."""
        self._adjusting = True
        try:
            for name, rule in self._limits.items():
                ctl = self.controls[name]
                lo, hi = rule(self._all_values())
                if hasattr(ctl, "min"):
                    # set min/max in an order that never makes min > max in between
                    if lo > ctl.max:
                        ctl.max = hi
                        ctl.min = lo
                    else:
                        ctl.min = lo
                        ctl.max = hi
            for name in self._visible:
                display = None if self._shown(name) else "none"
                self.controls[name].layout.display = display
                self.rows[name].layout.display = display
        finally:
            self._adjusting = False

    def _on_change(self, _change) -> None:
        if self._adjusting:
            return
        self._apply_dependencies()
        self.update()

    def _mark_stale(self, why: str) -> None:
        self.output.add_class("wb-stale")
        self.status.value = why

    def update(self) -> None:
        """Recompute and redraw with the current control values."""
        values = self.values
        self._mark_stale("<i>computing… (the figure below shows the previous values)</i>")
        if not self._background:
            self._draw(values)
            return
        with self._lock:
            self._pending = values
            if self._worker is not None and self._worker.is_alive():
                return  # the running worker picks up the latest values when it is done
            self._worker = threading.Thread(target=self._work, daemon=True)
            self._worker.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                values, self._pending = self._pending, None
                if values is None:
                    return
            self._draw(values)

    def wait(self, timeout: float = 60.0) -> None:
        """Block until a background computation is done (tests, scripts)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _draw(self, values: dict) -> None:
        t0 = time.perf_counter()
        try:
            fig = self._plot(**values)
            png = _render_png(fig)
            plt.close(fig)  # no-op for bare Figures, frees pyplot ones
        except ValueError as err:  # a ParameterError from the model: show it, keep the view
            self.errors.append(str(err))
            self._mark_stale(
                "<span style='color:#b00'>Figure out of date — these values are refused: "
                f"{html.escape(str(err))}</span>"
            )
            return
        if self._background and self._pending is not None:
            return  # newer values are waiting: do not show a figure that is already old
        self.image.value = png
        self.figure = fig
        self.drawn_values = values
        ms = 1e3 * (time.perf_counter() - t0)
        self.latencies_ms.append(ms)
        unstable = getattr(fig, "wb_unstable_note", "")
        if unstable:  # drawn for these values, but not a steady state: greyed, with the reason
            self._mark_stale(
                "<span style='color:#a60'>Not a steady state — these numbers grow with the run "
                f"length and are no means: {html.escape(unstable)}</span>"
                f" <small>(updated in {ms:.0f} ms)</small>"
            )
            return
        self.output.remove_class("wb-stale")
        self.status.value = f"<small>updated in {ms:.0f} ms</small>"


def interactive_figure(
    plot: Callable,
    title: str = "",
    *,
    limits: Mapping[str, Callable] | None = None,
    visible: Mapping[str, Callable] | None = None,
    background: bool = False,
    **specs,
) -> InteractiveFigure:
    """Return a view whose controls (one per keyword) redraw ``plot(**values)`` on change.

    Parameters
    ----------
    plot : callable
        ``plot(**values) -> matplotlib.figure.Figure``; only the visible controls' values are
        passed.
    title : str
        Optional bold header.
    limits : dict, optional
        ``name -> f(values) -> (low, high)``: the control's range as a function of all the
        current values (a dependent range such as m ≤ N).
    visible : dict, optional
        ``name -> f(values) -> bool``: show the control (and pass its value) only when true.
    background : bool
        Compute in a thread and drop queued moves (for views that can take over a second).
    **specs
        One control per keyword, see :func:`make_control`.
    """
    controls = {name: make_control(name, spec) for name, spec in specs.items()}
    return InteractiveFigure(
        plot, controls, title=title, limits=limits, visible=visible, background=background
    )


# ------------------------------------------------------------------------------------------
# Classroom widgets
# ------------------------------------------------------------------------------------------


class Exercise(w.VBox):
    """A prediction exercise: a number (or a choice), checked within a tolerance.

    The answer box is a text box read by :func:`parse_number`: ``"0,75"`` and ``"0.75"`` are
    the same answer, and text that is no number is refused with a sentence saying so (never
    read as 0). ``tolerance`` is absolute; 0 asks for the exact value.
    """

    def __init__(self, question, answer, tolerance=0.0, hint="", solution="", choices=None):
        self.answer = answer
        self.tolerance = float(tolerance)
        self.choices = None if choices is None else list(choices)
        if self.choices is None:
            self.entry = w.Text(
                description="your answer",
                placeholder="a number, e.g. 0.5 or 0,5",
                style=_STYLE,
                continuous_update=False,
            )
        else:
            self.entry = w.Dropdown(options=["—", *self.choices], description="your answer")
        self.button = w.Button(description="Check", button_style="info")
        self.feedback = w.HTML("")
        self.button.on_click(lambda _b: self.check())
        parts = [w.HTML(f"<p>{question}</p>"), w.HBox([self.entry, self.button]), self.feedback]
        if hint:
            hint_box = w.Accordion(children=[w.HTML(f"<p>{hint}</p>")])
            hint_box.set_title(0, "Hint")
            hint_box.selected_index = None
            parts.append(hint_box)
        if solution:
            sol = w.Accordion(children=[w.HTML(f"<p>{solution}</p>")])
            sol.set_title(0, "Solution (try first)")
            sol.selected_index = None
            parts.append(sol)
        super().__init__(children=parts)
        self.add_class("wb-exercise")

    def _value(self, value):
        """The typed answer as a number (choices: as chosen); ValueError with a sentence."""
        if self.choices is not None:
            return value
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
        return parse_number(value)

    def is_correct(self, value) -> bool:
        try:
            value = self._value(value)
        except ValueError:
            return False
        if self.choices is not None:
            return value == self.answer
        return abs(value - float(self.answer)) <= self.tolerance * (1 + 1e-9) + 1e-12

    def check(self, value=None) -> bool:
        """Check ``value`` (default: what is typed); shows and returns the verdict."""
        value = self.entry.value if value is None else value
        try:
            self._value(value)
        except ValueError as exc:
            self.feedback.value = f"<span style='color:#b00'>✘ {html.escape(str(exc))}.</span>"
            return False
        ok = self.is_correct(value)
        if ok:
            self.feedback.value = "<span style='color:#080'>✔ Correct.</span>"
        elif self.choices is not None:
            self.feedback.value = "<span style='color:#b00'>✘ Not this one — try again.</span>"
        elif self.tolerance == 0:
            self.feedback.value = (
                "<span style='color:#b00'>✘ Not the exact value — try again "
                "(or open the hint).</span>"
            )
        else:
            self.feedback.value = (
                f"<span style='color:#b00'>✘ Not within ±{self.tolerance:.3g} of the answer "
                "— try again (or open the hint).</span>"
            )
        return ok


def exercise(question, answer, tolerance=0.0, hint="", solution="", choices=None) -> Exercise:
    """A prediction exercise with a self-check, a hint and a folded solution.

    ``answer`` is computed by the library (never typed in by hand), ``tolerance`` is absolute;
    with ``choices`` the answer is one of them. Notebooks pose exercises through
    :func:`workbench.exercises.show`, which builds this widget from the package's
    ``exercises.py``.
    """
    return Exercise(question, answer, tolerance, hint, solution, choices)


def table_html(frame: pd.DataFrame, caption: str = "", digits: int = 4) -> w.HTML:
    """A DataFrame as a readable HTML table widget (no truncated cells, numbers rounded)."""
    fmt = {c: (lambda x, d=digits: f"{x:.{d}g}") for c in frame.select_dtypes("number").columns}
    styled = frame.to_html(index=False, formatters=fmt, escape=True, border=0)
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    return w.HTML(cap + styled)


def glossary(params: Params) -> w.HTML:
    """The notebook's glossary of symbols, from the paper's parameter table."""
    frame = params.frame()[["symbol", "meaning", "unit", "valid", "default", "source", "help"]]
    return table_html(frame.astype({"default": str}), caption="Symbols")


def claims_table(paper: str, quick: bool = True) -> w.HTML:
    """A paper's claims, measured now, as the notebook shows them (one way everywhere).

    Each row: what is claimed, the paper's number, the workbench's, the tolerance and the
    verdict (``agrees`` / ``disagrees`` / ``undetermined (not stationary)``), from
    :func:`workbench.claims.check_claims` and :func:`workbench.claims.readable`.
    """
    mode = "quick runs" if quick else "full runs"
    return table_html(
        claims.readable(claims.check_claims(paper, quick=quick)), caption=f"{paper} claims ({mode})"
    )


def atlas_view(paper: str, quick: bool = True, n_points: int | None = None, seed: int = 0):
    """A paper's claim atlas: its table (overall rows) and its figure (claims × readings).

    Computed by :func:`workbench.claims.atlas` in this process (quick: a few seconds to a
    minute, with a progress bar) and kept in :func:`workbench.claims.default_cache_dir`
    until the code or a claims table changes, so reopening the notebook is instant; the
    figure colours each cell by the share of the plausible space where the claim holds.
    """
    # claims.atlas loads the sweep engine and scikit-learn when first called, not on import
    frame = claims.atlas(
        paper,
        quick=quick,
        n_points=n_points,
        seed=seed,
        n_workers=1,
        cache_dir=claims.default_cache_dir(),
    )
    out = w.Output()
    with out:
        display(claims.plot_atlas(frame))
    return w.VBox(
        [
            table_html(claims.atlas_summary(frame), caption=f"{paper} claim atlas (reading = all)"),
            out,
        ]
    )


if os.environ.get("WORKBENCH_STATIC") == "1":  # the course site: widgets as static HTML
    from workbench import static_views

    static_views.install()
