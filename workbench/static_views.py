"""Widgets as static HTML, for the course site (``WORKBENCH_STATIC=1``).

A static page has no kernel: an ipywidget there shows as nothing, or as its text
``VBox(children=…)``. When the environment variable ``WORKBENCH_STATIC`` is ``1``,
:mod:`workbench.widgets` calls :func:`install` on import, and from then on every widget a cell
displays is written as one HTML output instead:

- a slider view (:class:`~workbench.widgets.InteractiveFigure`) as its figure drawn at the
  defaults (a background view is waited for), the table of its controls (symbol, meaning,
  unit, value, range, from the parameter tables) and a line saying how to open it live;
- an exercise as its question, the hint folded in ``<details class="wb-hint">`` and the
  worked solution with the answer folded in ``<details class="wb-solution">``: nothing of
  the answer is visible before the reader opens it;
- tables and text as their HTML, images as ``<img>``, an ``Output`` as what it captured,
  an accordion as ``<details>``; a box as its children in order. A box whose children change
  later (a run to a precision target adds its tables when done) updates its output.
"""

from __future__ import annotations

import base64
import html
import os
import re

__all__ = ["install", "is_static", "to_html", "LIVE_LINE"]

LIVE_LINE = (
    "Static picture at the defaults. To move the sliders, open the notebook live: "
    "<code>bash run.sh lab</code>."
)
_installed = False


def is_static() -> bool:
    """True when ``WORKBENCH_STATIC=1``: views are drawn as pictures, not widgets."""
    return os.environ.get("WORKBENCH_STATIC") == "1"


def install() -> None:
    """Display every ipywidget as static HTML in this IPython kernel (idempotent)."""
    global _installed
    from IPython import get_ipython

    ip = get_ipython()
    if ip is None or _installed:
        return
    import ipywidgets as w

    _capture_outputs(w.Output)
    ip.display_formatter.ipython_display_formatter.for_type(w.Widget, _display)
    _installed = True


def _capture_outputs(output_cls) -> None:
    """``with out: display(x)`` keeps x in ``out.outputs`` in the kernel (no front end)."""
    from IPython.utils.capture import capture_output

    def enter(self):
        self._wb_capture = capture_output()
        self._wb_io = self._wb_capture.__enter__()

    def exit_(self, *exc):
        self._wb_capture.__exit__(*exc)
        io = self._wb_io
        outs = [{"output_type": "stream", "name": "stdout", "text": io.stdout}] * bool(io.stdout)
        outs += [
            {"output_type": "display_data", "data": o.data, "metadata": o.metadata or {}}
            for o in io.outputs
        ]
        self.outputs = (*self.outputs, *outs)
        return False

    output_cls.__enter__, output_cls.__exit__ = enter, exit_


def _display(widget) -> bool:
    from IPython.display import HTML, display

    handle = display(HTML(to_html(widget)), display_id=True)

    def redraw(_change=None):
        handle.update(HTML(to_html(widget)))

    for box in _boxes(widget):
        box.observe(redraw, names="children")
    return True


def _boxes(widget):
    import ipywidgets as w

    if isinstance(widget, w.Box):
        yield widget
        for child in widget.children:
            yield from _boxes(child)


def to_html(widget) -> str:
    """One widget (and its children) as static HTML."""
    import ipywidgets as w

    if type(widget).__name__.startswith("Tqdm"):
        return ""  # a progress bar (tqdm's): finished by the time anyone reads the page
    if hasattr(widget, "controls") and hasattr(widget, "image"):
        return _view_html(widget)
    if hasattr(widget, "answer") and hasattr(widget, "is_correct"):
        return _exercise_html(widget)
    if isinstance(widget, w.Accordion):
        return "".join(
            f"<details><summary>{html.escape(widget.get_title(i) or '')}</summary>"
            f"{to_html(c)}</details>"
            for i, c in enumerate(widget.children)
        )
    if isinstance(widget, w.Box):
        if getattr(widget.layout, "display", None) == "none":
            return ""
        return "<div>" + "".join(to_html(c) for c in widget.children) + "</div>"
    if isinstance(widget, (w.HTML, w.HTMLMath)):
        return _html_widget(widget)
    if isinstance(widget, w.Label):
        return f"<p>{html.escape(widget.value)}</p>"
    if isinstance(widget, w.Image):
        return _img(widget.value) if widget.value else ""
    if isinstance(widget, w.Output):
        return "".join(_output_html(o) for o in widget.outputs)
    return ""  # progress bars, buttons, entry boxes: nothing to read on paper


_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.S | re.I)


def _html_widget(widget) -> str:
    """An HTML widget's value with the widget's classes on a ``<div>`` around it (a table's
    ``<style>`` is scoped by them, ``.wb-table table``); a widget that only carries a
    stylesheet for the live controls (greying, label widths) shows nothing."""
    value = widget.value or ""
    if not _STYLE.sub("", value).strip():
        return ""
    classes = " ".join(html.escape(c) for c in getattr(widget, "_dom_classes", ()))
    return f"<div class='{classes}'>{value}</div>" if classes else value


def _img(png: bytes, alt: str = "figure") -> str:
    data = base64.b64encode(png).decode("ascii")
    src = f"data:image/png;base64,{data}"
    return f"<img class='wb-static-figure' alt='{html.escape(alt)}' src='{src}'>"


def _output_html(out: dict) -> str:
    if out.get("output_type") == "stream":
        return f"<pre>{html.escape(out.get('text', ''))}</pre>"
    data = out.get("data", {})
    if "image/png" in data:
        png = data["image/png"]
        return _img(base64.b64decode(png) if isinstance(png, str) else png)
    if "text/html" in data:
        return data["text/html"]
    return f"<pre>{html.escape(str(data.get('text/plain', '')))}</pre>"


def _view_html(view) -> str:
    view.wait()
    refiner = getattr(view, "refiner", None)
    if refiner is not None:
        refiner.wait()
    title = next(
        (c.value for c in view.children if hasattr(c, "value") and str(c.value).startswith("<b>")),
        "",
    )
    note = view.status.value if view.stale else ""
    figure = _img(view.image.value, alt="slider view at its defaults") if view.image.value else ""
    return (
        "<div class='wb-static-view'>"
        + (f"<p>{title}</p>" if title else "")
        + figure
        + (f"<p>{note}</p>" if note else "")
        + _controls_table(view)
        + f"<p class='wb-live'>{LIVE_LINE}</p></div>"
    )


def _controls_table(view) -> str:
    from workbench.controls import param_of  # ipywidgets: loaded only when a view is drawn
    from workbench.notation import notation
    from workbench.numfmt import format_number

    rows = []
    for name, ctl in view.controls.items():
        if not view._shown(name):
            continue
        param = param_of(ctl)
        symbol = notation(param.symbol) if param else html.escape(name)
        meaning = html.escape(param.meaning) if param else html.escape(ctl.description or "")
        unit = html.escape(param.unit) if param and param.unit else ""
        if hasattr(ctl, "min") and hasattr(ctl, "max"):
            span = f"{format_number(ctl.min)} … {format_number(ctl.max)}"
        elif hasattr(ctl, "options"):
            span = ", ".join(html.escape(str(o)) for o in ctl.options)
        else:
            span = "on / off"
        value = ctl.value if not isinstance(ctl.value, float) else f"{ctl.value:.4g}"
        rows.append(
            f"<tr><td>{symbol}</td><td>{meaning}</td><td>{unit}</td>"
            f"<td>{html.escape(str(value))}</td><td>{span}</td></tr>"
        )
    head = "<tr><th>symbol</th><th>meaning</th><th>unit</th><th>value</th><th>range</th></tr>"
    return (
        "<table class='wb-controls'><caption>Controls of this view</caption>"
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _exercise_html(ex) -> str:
    import ipywidgets as w

    question = ex.children[0].value
    folds = {}
    for child in ex.children:
        if isinstance(child, w.Accordion) and child.children:
            folds[child.get_title(0) or ""] = child.children[0].value
    hint = next((v for k, v in folds.items() if k.lower().startswith("hint")), "")
    solution = next((v for k, v in folds.items() if k.lower().startswith("solution")), "")
    answer = ex.answer if ex.choices is not None else f"{float(ex.answer):.6g}"
    choices = (
        "<ul>" + "".join(f"<li>{html.escape(str(c))}</li>" for c in ex.choices) + "</ul>"
        if ex.choices
        else ""
    )
    within = f" (within ± {ex.tolerance:g})" if ex.tolerance else ""
    kind = "number" if ex.choices is None else "choice"  # a choice's answer is listed above
    parts = [
        f"<div class='wb-static-exercise' data-kind='{kind}'>{question}{choices}",
        f"<details class='wb-hint'><summary>Hint</summary>{hint}</details>" if hint else "",
        "<details class='wb-solution'><summary>Solution (try first)</summary>"
        f"<p><b>Answer:</b> <span class='wb-answer'>{html.escape(str(answer))}</span>{within}</p>"
        f"{solution}</details></div>",
    ]
    return "".join(parts)
