"""Wire sliders to a figure in one line.

>>> view = interactive_figure(plot_fn, lam=(0.1, 5.0, 0.1, 1.5), m=(1, 24, 1, 2))
>>> view   # displays sliders above the figure

``plot_fn(**values)`` returns a matplotlib Figure. Sliders commit on release
(``continuous_update=False``) so heavy work runs once per move; a busy label shows while a
slow update runs, and each update's latency is kept in ``view.latencies_ms``.
The view is a ``VBox`` with CSS class ``wb-interactive``; its figure output has class
``wb-figure`` (the browser tests find them by these classes).
"""

from __future__ import annotations

import io
import numbers
import time
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import Image, display

from workbench.params import Param

__all__ = ["interactive_figure", "make_control", "control"]

_LAYOUT = w.Layout(width="420px")
_STYLE = {"description_width": "140px"}


def control(param: Param, value=None, span: tuple | None = None) -> w.ValueWidget:
    """The control of one declared parameter: label ``symbol meaning [unit]``, help as tooltip.

    ``value`` overrides the default and ``span`` the slider span (a view's own narrower range);
    both must lie inside the parameter's valid range, so a control never offers a value the
    model refuses.
    """
    value = param.default if value is None else value
    common = dict(description=param.label, tooltip=param.help, description_allow_html=False)
    if param.kind == "choice":
        ctl = w.Dropdown(options=list(param.choices), value=value, **common)
    elif param.kind == "bool":
        ctl = w.Checkbox(value=bool(value), indent=False, **common)
    else:
        lo, hi = span if span is not None else param.slider_span
        for bound in (lo, hi, value):
            param.check(bound, "control")
        if param.kind in ("int", "seed"):
            ctl = w.IntSlider(min=int(lo), max=int(hi), step=int(param.step or 1), value=int(value))
        else:
            step = param.step or (hi - lo) / 100
            ctl = w.FloatSlider(min=lo, max=hi, step=step, value=value, readout_format=".3g")
        ctl.description, ctl.tooltip = param.label, param.help
    if hasattr(ctl, "continuous_update"):
        ctl.continuous_update = False
    ctl.layout = _LAYOUT
    ctl.style = _STYLE
    return ctl


def make_control(name: str, spec) -> w.ValueWidget:
    """Build one control from a compact spec.

    - a :class:`~workbench.params.Param`: :func:`control` (label, tooltip, valid range);
    - an ipywidget: used as is (``continuous_update`` is switched off when it has one);
    - ``(min, max, step, value)``: an IntSlider if all four are ints, else a FloatSlider;
    - a list/tuple of strings (or of (label, value) pairs): a Dropdown, first item selected;
    - a bool: a Checkbox.
    """
    if isinstance(spec, Param):
        return control(spec)
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
    if hasattr(ctl, "continuous_update"):
        ctl.continuous_update = False
    if not ctl.description:
        ctl.description = name
    ctl.layout = _LAYOUT
    ctl.style = _STYLE
    return ctl


def _render_png(fig, dpi: int = 90) -> bytes:
    """PNG bytes of a figure, without the inline backend's costly tight bounding box."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


class InteractiveFigure(w.VBox):
    """Sliders + a figure output; see :func:`interactive_figure`."""

    def __init__(self, plot: Callable, controls: Mapping[str, w.ValueWidget], title: str = ""):
        self._plot = plot
        self.controls = dict(controls)
        self.output = w.Output()
        self.output.add_class("wb-figure")
        self.status = w.HTML(value="")
        self.latencies_ms: list[float] = []
        header = [w.HTML(f"<b>{title}</b>")] if title else []
        grid = w.GridBox(
            list(self.controls.values()),
            layout=w.Layout(grid_template_columns="repeat(2, 440px)"),
        )
        super().__init__(children=[*header, grid, self.status, self.output])
        self.add_class("wb-interactive")
        for ctl in self.controls.values():
            ctl.observe(self._on_change, names="value")
        self.update()

    @property
    def values(self) -> dict:
        return {k: c.value for k, c in self.controls.items()}

    def _on_change(self, _change) -> None:
        self.update()

    def update(self) -> None:
        """Recompute and redraw with the current control values."""
        self.status.value = "<i>computing…</i>"
        t0 = time.perf_counter()
        try:
            fig = self._plot(**self.values)
            png = _render_png(fig)
            plt.close(fig)  # no-op for bare Figures, frees pyplot ones
            with self.output:
                self.output.clear_output(wait=True)
                display(Image(data=png, format="png"))
            ms = 1e3 * (time.perf_counter() - t0)
            self.latencies_ms.append(ms)
            self.status.value = f"<small>updated in {ms:.0f} ms</small>"
        except ValueError as err:  # a ParameterError from the model: show it, keep the view alive
            self.status.value = f"<span style='color:#b00'>{err}</span>"


def interactive_figure(plot: Callable, title: str = "", **specs) -> InteractiveFigure:
    """Return a view whose controls (one per keyword) redraw ``plot(**values)`` on change.

    Parameters
    ----------
    plot : callable
        ``plot(**values) -> matplotlib.figure.Figure``.
    title : str
        Optional bold header.
    **specs
        One control per keyword, see :func:`make_control`.
    """
    controls = {name: make_control(name, spec) for name, spec in specs.items()}
    return InteractiveFigure(plot, controls, title=title)
