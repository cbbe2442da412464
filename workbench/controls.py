"""The controls of a view: one declared parameter, one labelled row a student can read.

:func:`control` builds the control of a :class:`~workbench.params.Param` (label
``symbol meaning [unit]``, help as tooltip, the valid range); :func:`make_control` builds one
from a compact spec; :class:`ControlRow` lays a control out with its label in full and a typed
readout read by :func:`~workbench.numfmt.parse_number`.

A row is at most :data:`ROW_MIN_WIDTH` wide: two rows side by side fit the 848 px notebook
column of JupyterLab at 1280 × 800 with the file browser open, and a narrower column shows
one row per line (the grid is ``repeat(auto-fit, minmax(ROW_MIN_WIDTH, 1fr))``).
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Sequence

import ipywidgets as w

from workbench.notation import control_label, notation
from workbench.numfmt import format_number, parse_number
from workbench.params import Param

__all__ = [
    "control",
    "make_control",
    "ControlRow",
    "control_grid",
    "param_of",
    "VIEW_CSS",
    "ROW_MIN_WIDTH",
]

_STYLE = {"description_width": "initial"}
LABEL_WIDTH = "165px"  # a control's label wraps inside this width, never cut with "…"
SLIDER_WIDTH = "150px"
ENTRY_WIDTH = "76px"
ROW_MIN_WIDTH = "405px"  # label + slider + readout and their margins; two fit in 848 px
_CONTROL_WIDTH = "400px"  # a bare control (before a row takes it)
# greys out a figure that no longer matches its controls (injected once per view); the
# control labels wrap (ipywidgets' own labels are one line cut with an ellipsis, so a view
# draws its own label beside each control and hides the control's description)
VIEW_CSS = (
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
    ".wb-grid{max-width:100%;}"
    ".wb-refused input{border-color:#b00!important;color:#b00;}</style>"
)

# the parameter behind each control built by :func:`control` (label and unit checks), kept
# beside the widget rather than set on it
_PARAMS: dict[int, Param] = {}


def param_of(ctl) -> Param | None:
    """The declared parameter a control was built from (None for a bare widget)."""
    return _PARAMS.get(ctl.model_id)


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
            ctl = w.FloatSlider(min=lo, max=hi, step=step, value=value)
    ctl.description = control_label(param)
    ctl.tooltip = notation(param.help or ctl.description, as_html=False)
    _PARAMS[ctl.model_id] = param
    return _style(ctl)


def _style(ctl):
    if hasattr(ctl, "continuous_update"):
        ctl.continuous_update = False
    ctl.layout = w.Layout(width=_CONTROL_WIDTH)
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
        integral = all(isinstance(v, numbers.Integral) for v in spec)
        slider = w.IntSlider if integral else w.FloatSlider
        ctl = slider(min=lo, max=hi, step=step, value=value, description=name)
    elif isinstance(spec, Sequence) and not isinstance(spec, str) and len(spec) > 0:
        ctl = w.Dropdown(options=list(spec), description=name)
    else:
        raise TypeError(f"make_control: cannot build a control for {name!r} from {spec!r}")
    if not ctl.description:
        ctl.description = name
    return _style(ctl)


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
            ctl.layout.max_width = "220px"
        line = w.HBox(parts)
        line.add_class("wb-control")
        super().__init__(children=[line, self.note], layout=w.Layout(min_width=ROW_MIN_WIDTH))
        self._syncing = False

    def _format(self, value) -> str:
        """The readout of ``value``: :func:`format_number` with enough digits for the step."""
        if isinstance(self.control, w.IntSlider):
            return format_number(int(value))
        step = abs(float(getattr(self.control, "step", 0) or 0))
        digits = 3
        if step > 0 and value != 0:
            digits = max(3, math.floor(math.log10(abs(value))) - math.floor(math.log10(step)) + 1)
        return format_number(value, min(digits, 8))

    def clear_refusal(self) -> None:
        """Forget a refused typed value: the readout shows the control's value again."""
        if self.entry is not None and self.note.value:
            self._show_value({"new": self.control.value})

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


def control_grid(rows) -> w.GridBox:
    """Rows side by side as the column allows: two in a notebook, one in a narrow output."""
    grid = w.GridBox(
        list(rows),
        layout=w.Layout(
            grid_template_columns=f"repeat(auto-fit, minmax({ROW_MIN_WIDTH}, 1fr))",
            width="100%",
        ),
    )
    grid.add_class("wb-grid")
    return grid
