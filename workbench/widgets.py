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

The view is a ``VBox`` with CSS class ``wb-interactive``; its figure is an ``<img>`` inside an
element of class ``wb-figure`` (the browser tests find them by these classes).
"""

from __future__ import annotations

import html
import io
import numbers
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

from workbench.params import Param, Params

__all__ = [
    "interactive_figure",
    "make_control",
    "control",
    "exercise",
    "glossary",
    "table_html",
]

_LAYOUT = w.Layout(width="430px")
_STYLE = {"description_width": "190px"}
# greys out a figure that no longer matches its controls (injected once per view)
_STALE_CSS = (
    "<style>.wb-stale img{opacity:.35;filter:grayscale(1);}"
    ".wb-figure img{max-width:100%;height:auto;}</style>"
)


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
    ctl.description = param.label
    ctl.tooltip = param.help or param.label
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


def _render_png(fig, dpi: int = 90) -> bytes:
    """PNG bytes of a figure, without the inline backend's costly tight bounding box.

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
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.hinting": "none"}):
        fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


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
        header = [w.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        grid = w.GridBox(
            list(self.controls.values()),
            layout=w.Layout(grid_template_columns="repeat(2, 450px)"),
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
                ctl = self.controls[name]
                ctl.layout.display = None if self._shown(name) else "none"
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
    """A prediction exercise: a number (or a choice), checked within a tolerance."""

    def __init__(self, question, answer, tolerance=0.0, hint="", solution="", choices=None):
        self.answer = answer
        self.tolerance = float(tolerance)
        self.choices = None if choices is None else list(choices)
        if self.choices is None:
            self.entry = w.FloatText(description="your answer", style=_STYLE)
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

    def is_correct(self, value) -> bool:
        if self.choices is not None:
            return value == self.answer
        try:
            return abs(float(value) - float(self.answer)) <= self.tolerance
        except (TypeError, ValueError):
            return False

    def check(self, value=None) -> bool:
        """Check ``value`` (default: what is typed); shows and returns the verdict."""
        value = self.entry.value if value is None else value
        ok = self.is_correct(value)
        if ok:
            self.feedback.value = "<span style='color:#080'>✔ Correct.</span>"
        elif self.choices is not None:
            self.feedback.value = "<span style='color:#b00'>✘ Not this one — try again.</span>"
        else:
            self.feedback.value = (
                f"<span style='color:#b00'>✘ Not within ±{self.tolerance:g} of the answer — "
                "try again (or open the hint).</span>"
            )
        return ok


def exercise(question, answer, tolerance=0.0, hint="", solution="", choices=None) -> Exercise:
    """A prediction exercise with a self-check, a hint and a folded solution.

    ``answer`` is computed by the library (never typed in by hand), ``tolerance`` is absolute;
    with ``choices`` the answer is one of them.
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
