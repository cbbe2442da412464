"""Wire sliders to a figure in one line.

>>> view = interactive_figure(plot_fn, lam=PARAMS["lam"], m=PARAMS["m"],
...                           limits={"m": lambda v: (1, v["N"])})
>>> view   # displays labelled controls above the figure

``plot_fn(**values)`` returns a matplotlib Figure. Controls commit on release
(``continuous_update=False``). What the view guarantees:

- **No stale figure left unmarked.** While a figure is being recomputed, and whenever the
  controls hold values the model refuses, the figure on screen is greyed out (CSS class
  ``wb-stale``) and the status line says why; it is unmarked again only when a figure of the
  current values is drawn.
- **Every failure in words.** Values the model refuses read "values refused" with the
  model's sentence; an unstable regime (:class:`~workbench.validation.UnstableRegimeError`)
  reads "unstable" with its note; any other exception, in the foreground or in a background
  draw, shows its type and message (never "computing…" for good).
- **Dependent ranges** (``limits``): a control's range follows other controls (m ≤ N); a value
  outside the new range is moved inside it, visibly, before the figure is computed, and back
  to the reader's own choice once the range allows it again.
- **Per-choice controls** (``visible``): controls that belong to one choice (a service family's
  shape) are shown only with that choice, each with its own valid range.
- **Latest only** (``background=True`` for slow views): moves are computed in a thread; moves
  that arrive while it runs are not queued, only the last one is computed next. The first
  figure is drawn before the view is shown, so a view is never blank after Run All.
- **Refinement** (:class:`Refinement`): a slow view answers a move with a first look and
  refines it in the background with a progress bar; a newer move stops the refinement.

The view is a ``VBox`` with CSS class ``wb-interactive``; its figure is an ``<img>`` inside an
element of class ``wb-figure`` (the browser tests find them by these classes).
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib.pyplot as plt

from workbench.controls import VIEW_CSS, ControlRow, control_grid, make_control
from workbench.plots import unstable_note
from workbench.rendering import render_png
from workbench.validation import UnstableRegimeError

__all__ = ["InteractiveFigure", "interactive_figure", "Refinement", "Moved"]


class Moved(Exception):
    """Raised inside a refinement task when a newer move has made it pointless."""


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
        refinement: Refinement | None = None,
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
        # the value the reader last chose for each control with a dependent range: a range
        # that shrinks moves the value inside it, and gives it back once the range allows
        self._wished = {name: self.controls[name].value for name in self._limits}
        self._stale = False
        self._lock = threading.Lock()
        self._pending: dict | None = None
        self._busy = False  # a worker's loop runs (under the lock: not Thread.is_alive)
        self._worker: threading.Thread | None = None
        self.refinement: Refinement | None = None  # set by Refinement.attach
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
        grid = control_grid(self.rows.values())
        super().__init__(children=[w.HTML(VIEW_CSS), *header, grid, self.status, self.output])
        self.add_class("wb-interactive")
        for ctl in self.controls.values():
            ctl.observe(self._on_change, names="value")
        self._apply_dependencies()
        if refinement is not None:
            refinement.attach(self)
        # the first figure is drawn here, in the cell that builds the view, even for a
        # background view: a thread's first image could reach the page after Run All's
        # output area is rendered and leave the view blank until a first move
        self._draw(self.values)

    @property
    def values(self) -> dict:
        return {k: c.value for k, c in self.controls.items() if self._shown(k)}

    @property
    def stale(self) -> bool:
        """True when the figure on screen does not show the current control values."""
        return self._stale

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
                    wished = self._wished.get(name, ctl.value)
                    ctl.value = min(max(wished, lo), hi)  # back to the reader's choice
            for name in self._visible:
                display = None if self._shown(name) else "none"
                self.controls[name].layout.display = display
                self.rows[name].layout.display = display
        finally:
            self._adjusting = False

    def _on_change(self, change) -> None:
        if self._adjusting:
            return
        for name in self._limits:  # the reader moved this control: that is its wish now
            if change.get("owner") is self.controls[name]:
                self._wished[name] = change["new"]
        for row in self.rows.values():
            row.clear_refusal()  # a typed value refused before this move no longer applies
        self._apply_dependencies()
        self.update()

    def _mark(self, why: str, stale: bool = True) -> None:
        """Say ``why`` in the status line; grey the figure out when it is ``stale``."""
        self._stale = stale
        (self.output.add_class if stale else self.output.remove_class)("wb-stale")
        self.status.value = why

    def update(self) -> None:
        """Recompute and redraw with the current control values."""
        values = self.values
        self._mark("<i>computing… (the figure below shows the previous values)</i>")
        if not self._background:
            self._draw(values)
            return
        with self._lock:
            self._pending = values
            if self._busy:
                return  # the running worker picks up the latest values when it is done
            self._busy = True
            self._worker = threading.Thread(target=self._work, daemon=True)
            self._worker.start()

    def _work(self) -> None:
        # the loop ends under the lock that update() takes: a thread still alive after its
        # last look at _pending would otherwise swallow a move that arrives just then
        try:
            while True:
                with self._lock:
                    values, self._pending = self._pending, None
                    if values is None:
                        self._busy = False
                        return
                self._draw(values)
        except BaseException:
            with self._lock:
                self._busy = False
            raise

    def wait(self, timeout: float = 60.0) -> None:
        """Block until a background computation is done (tests, scripts)."""
        # read under the lock: update(), maybe called from a refinement's thread, assigns
        # and starts the worker under it, and a thread not yet started cannot be joined
        with self._lock:
            worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _draw(self, values: dict) -> None:
        t0 = time.perf_counter()
        try:
            fig = self._plot(**values)
            png = render_png(fig)
            plt.close(fig)  # no-op for bare Figures, frees pyplot ones
        except Exception as err:  # noqa: BLE001 - every failure is shown, the view lives on
            self._show_failure(err)
            return
        if self._background and self._pending is not None:
            return  # newer values are waiting: do not show a figure that is already old
        self.image.value = png
        self.figure = fig
        self.drawn_values = values
        ms = 1e3 * (time.perf_counter() - t0)
        self.latencies_ms.append(ms)
        timing = f"<small>(updated in {ms:.0f} ms)</small>"
        if self.refinement is not None and self.refinement.running:
            timing = (
                f"<small>(first look drawn in {ms:.0f} ms; refining in the background, "
                "see the progress bar)</small>"
            )
        unstable = unstable_note(fig)
        if unstable:  # drawn for these values, but not a steady state: greyed, with the reason
            self._mark(
                "<span style='color:#a60'>Not a steady state — these numbers grow with the run "
                f"length and are no means: {html.escape(unstable)}</span> {timing}"
            )
            return
        self._mark(timing, stale=False)

    def _show_failure(self, err: Exception) -> None:
        self.errors.append(str(err))
        text = html.escape(str(err))
        if isinstance(err, UnstableRegimeError):
            why = f"<span style='color:#a60'>Unstable for these values (no steady state): {text}"
        elif isinstance(err, ValueError):  # a ParameterError from the model
            why = f"<span style='color:#b00'>Figure out of date — these values are refused: {text}"
        else:
            why = (
                "<span style='color:#b00'>Figure out of date — the computation failed: "
                f"{html.escape(type(err).__name__)}: {text}"
            )
        self._mark(why + "</span>")


def interactive_figure(
    plot: Callable,
    title: str = "",
    *,
    limits: Mapping[str, Callable] | None = None,
    visible: Mapping[str, Callable] | None = None,
    background: bool = False,
    refinement: Refinement | None = None,
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
        Compute moves in a thread and drop queued moves (for views that can take over a
        second); the first figure is drawn at once.
    refinement : Refinement, optional
        The view's background refinement (its progress bar sits above the figure).
    **specs
        One control per keyword, see :func:`make_control`.
    """
    controls = {name: make_control(name, spec) for name, spec in specs.items()}
    return InteractiveFigure(
        plot,
        controls,
        title=title,
        limits=limits,
        visible=visible,
        background=background,
        refinement=refinement,
    )


class Refinement:
    """The one refinement mechanism of slow views: a first look now, better numbers later.

    A view's plot function draws a first look and calls :meth:`start` with the tasks left
    (``(label, task)`` pairs; ``task(monitor)`` calls ``monitor(done)`` as it goes, which
    raises :class:`Moved` when a newer move has made the task pointless). The tasks run in a
    thread with a progress bar (``steps`` per task); when all are done the view is redrawn
    (its plot function then finds the refined results and starts nothing). :meth:`stop`
    (a draw with nothing to refine) hides the bar.
    """

    def __init__(self, description: str = "refining"):
        self.view: InteractiveFigure | None = None
        self.generation = 0
        self.thread: threading.Thread | None = None
        self.running = False
        self.bar = w.IntProgress(  # starts at 0 of 0..1
            max=1,
            description=description,
            bar_style="info",
            layout=w.Layout(width="60%", display="none"),
        )
        self.label = w.HTML("")
        self.box = w.HBox([self.bar, self.label])

    def attach(self, view: InteractiveFigure) -> InteractiveFigure:
        """Show the progress bar between ``view``'s status line and its figure."""
        self.view = view
        view.refinement = self
        view.children = (*view.children[:-1], self.box, view.children[-1])
        return view

    def stop(self) -> None:
        """No refinement for the values drawn: stop any running one, hide the bar."""
        self.generation += 1
        self.running = False
        self.bar.layout.display = "none"
        self.label.value = ""

    def start(self, tasks: Sequence[tuple[str, Callable]], steps: int) -> None:
        """Run ``tasks`` in the background (any running refinement stops at its next step)."""
        self.generation += 1
        self.running = True
        self.bar.max, self.bar.value = max(1, steps * len(tasks)), 0
        self.bar.bar_style = "info"
        self.bar.layout.display = ""
        self.thread = threading.Thread(
            target=self._run, args=(list(tasks), steps, self.generation), daemon=True
        )
        self.thread.start()

    def _run(self, tasks, steps, generation) -> None:
        try:
            for j, (label, task) in enumerate(tasks):
                self.label.value = f"<small>{html.escape(label)}…</small>"

                def monitor(done, j=j):
                    if generation != self.generation:
                        raise Moved
                    self.bar.value = min(self.bar.max, j * steps + done)

                task(monitor)
                self.bar.value = (j + 1) * steps
        except Moved:
            return
        except Exception as err:  # noqa: BLE001 - shown under the bar, never lost
            if generation == self.generation:
                self.running = False
                self.bar.bar_style = "danger"
                self.label.value = (
                    f"<small style='color:#b00'>refinement failed: "
                    f"{html.escape(type(err).__name__)}: {html.escape(str(err))}</small>"
                )
            return
        if generation == self.generation:
            self.running = False
            self.label.value = ""
            self.bar.layout.display = "none"
            if self.view is not None:
                self.view.update()  # the refined results are drawn at once

    def wait(self, timeout: float = 300.0) -> None:
        """Block until the refinement (and the redraw it starts) is done (tests, scripts)."""
        for _ in range(3):  # draw -> refinement -> redraw (which starts no refinement)
            if self.view is not None:
                self.view.wait(timeout)
            if self.thread is not None:
                self.thread.join(timeout)
