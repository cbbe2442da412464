"""The slider helper: controls from specs, redraw on change, errors shown not raised."""

import ipywidgets as w
import pytest

from workbench.plots import figure
from workbench.widgets import interactive_figure, make_control, param_of


def _plot(n=3, scale=1.0, kind="line"):
    if scale > 9:
        raise ValueError("The 'scale' parameter of _plot must be <= 9. Got 10 instead.")
    fig, ax = figure(1, fast=True)
    ax.plot(range(n), [scale * i for i in range(n)], "-" if kind == "line" else "o")
    return fig


def test_controls_from_specs():
    assert isinstance(make_control("n", (1, 10, 1, 3)), w.IntSlider)
    slider = make_control("x", (0.0, 1.0, 0.1, 0.5))
    assert isinstance(slider, w.FloatSlider) and slider.continuous_update is False
    assert isinstance(make_control("k", ["a", "b"]), w.Dropdown)
    assert isinstance(make_control("flag", True), w.Checkbox)
    with pytest.raises(TypeError, match="cannot build a control"):
        make_control("bad", object())


def test_view_redraws_on_change_and_shows_errors():
    view = interactive_figure(
        _plot, title="t", n=(2, 10, 1, 3), scale=(0.0, 10.0, 1.0, 1.0), kind=["line", "dots"]
    )
    assert "wb-interactive" in view._dom_classes and "wb-figure" in view.output._dom_classes
    assert len(view.latencies_ms) == 1  # default values drew a figure
    view.controls["n"].value = 7
    assert len(view.latencies_ms) == 2 and "updated in" in view.status.value
    view.controls["scale"].value = 10.0  # the plot raises a ValueError: shown, not raised
    assert "must be" in view.status.value
    assert len(view.latencies_ms) == 2
    assert view.values == {"n": 7, "scale": 10.0, "kind": "line"}


def test_refused_values_grey_out_the_figure_until_a_valid_redraw():
    view = interactive_figure(_plot, n=(2, 10, 1, 3), scale=(0.0, 10.0, 1.0, 1.0))
    assert not view.stale
    view.controls["scale"].value = 10.0
    assert view.stale and "out of date" in view.status.value
    assert view.drawn_values == {"n": 3, "scale": 1.0}  # what the greyed figure shows
    view.controls["scale"].value = 2.0
    assert not view.stale and view.drawn_values == {"n": 3, "scale": 2.0}


def test_dependent_range_follows_its_parent_and_moves_the_value_visibly():
    seen = []

    def plot(N, m):
        seen.append((N, m))
        assert m <= N, "the plot must never receive m > N"
        return _plot(n=N)

    view = interactive_figure(
        plot, N=(2, 24, 1, 24), m=(1, 24, 1, 24), limits={"m": lambda v: (1, v["N"])}
    )
    view.controls["N"].value = 2
    assert view.controls["m"].max == 2 and view.controls["m"].value == 2
    assert seen[-1] == (2, 2) and view.drawn_values == {"N": 2, "m": 2}
    view.controls["N"].value = 10  # the range allows more again: m goes back towards 24
    assert view.controls["m"].max == 10 and view.controls["m"].value == 10
    view.controls["m"].value = 5  # the reader's own choice
    view.controls["N"].value = 3
    assert view.controls["m"].value == 3 and seen[-1] == (3, 3)
    view.controls["N"].value = 12  # ... is given back once N allows it
    assert view.controls["m"].value == 5 and seen[-1] == (12, 5)


def test_per_choice_controls_pass_only_their_own_values():
    got = []

    def plot(family, alpha=None, mu=None):
        got.append((family, alpha, mu))
        return _plot()

    view = interactive_figure(
        plot,
        family=["S-Exp", "Pareto"],
        mu=(0.05, 5.0, 0.05, 0.2),
        alpha=(1.05, 5.0, 0.05, 1.2),
        visible={
            "mu": lambda v: v["family"] == "S-Exp",
            "alpha": lambda v: v["family"] == "Pareto",
        },
    )
    assert got[-1] == ("S-Exp", None, 0.2)
    assert view.controls["alpha"].layout.display == "none"
    view.controls["family"].value = "Pareto"
    assert got[-1] == ("Pareto", 1.2, None) and not view.stale
    assert view.controls["mu"].layout.display == "none"


def test_background_view_computes_only_the_latest_of_queued_moves():
    import threading

    gate = threading.Event()
    calls = []

    def slow(n=3):
        calls.append(n)
        if len(calls) == 2:
            gate.wait(10)  # hold the second computation while three more moves arrive
        return _plot(n=n)

    view = interactive_figure(slow, background=True, n=(2, 10, 1, 3))
    view.wait()
    view.controls["n"].value = 4
    import time

    deadline = time.monotonic() + 10
    while len(calls) < 2 and time.monotonic() < deadline:  # the worker is now busy with 4
        time.sleep(0.01)
    for n in (5, 6, 7):
        view.controls["n"].value = n
    gate.set()
    view.wait()
    assert calls == [3, 4, 7]  # 5 and 6 were dropped, never computed
    assert view.drawn_values == {"n": 7} and not view.stale


def test_a_move_arriving_as_the_worker_ends_is_drawn():
    """A worker whose loop has ended may still be alive for a moment: a move that arrives
    then starts a new worker instead of waiting for one that will never look again."""
    import threading
    import time

    linger = threading.Event()
    view = interactive_figure(_plot, background=True, n=(2, 10, 1, 3))
    view.wait()
    work = view._work

    def work_then_linger():
        work()
        linger.wait(10)  # the loop is over, the thread still alive

    view._work = work_then_linger
    try:
        for n in (4, 5):  # 5 arrives while the worker that drew 4 lingers
            view.controls["n"].value = n
            deadline = time.monotonic() + 10
            while view.drawn_values != {"n": n} and time.monotonic() < deadline:
                time.sleep(0.01)
            assert view.drawn_values == {"n": n}
    finally:
        linger.set()


def test_wait_while_another_thread_starts_a_worker(monkeypatch):
    """A refinement's thread calls ``update()`` while a test or script waits: ``wait()`` must
    not see the worker between its creation and its start ("cannot join thread before it
    is started")."""
    import threading

    from workbench import interactive

    assigned, go = threading.Event(), threading.Event()

    class SlowStart(threading.Thread):
        def start(self):
            assigned.set()  # update() has made and assigned the worker, not started it
            go.wait(10)
            super().start()

    view = interactive_figure(_plot, background=True, n=(2, 10, 1, 3))
    view.wait()
    monkeypatch.setattr(interactive.threading, "Thread", SlowStart)
    mover = threading.Thread(target=lambda: setattr(view.controls["n"], "value", 6))
    mover.start()
    assert assigned.wait(10)
    threading.Timer(0.2, go.set).start()
    view.wait(10)  # the old wait() raised RuntimeError here
    mover.join(10)
    view.wait(10)
    assert view.drawn_values == {"n": 6} and not view.stale


def test_exercise_checks_within_tolerance():
    from workbench.widgets import exercise

    ex = exercise("Erlang-B with c=1, a=1?", 0.5, tolerance=0.01, hint="B = a/(1+a)")
    assert ex.check(0.505) and "Correct" in ex.feedback.value
    assert not ex.check(0.52) and "±0.01" in ex.feedback.value
    choice = exercise("Which is stable?", "loss", choices=["loss", "queue"])
    assert choice.check("loss") and not choice.check("queue")


def test_a_figure_flagged_unstable_is_shown_greyed_with_its_note():
    from workbench.plots import flag_unstable

    def plot(x):
        fig, ax = figure()
        ax.plot([0, 1], [0, x])
        return flag_unstable(fig, "mean grows with run length") if x > 1 else fig

    view = interactive_figure(plot, x=(0.0, 2.0, 0.5, 0.5))
    assert not view.stale
    view.controls["x"].value = 1.5
    assert view.stale and "mean grows with run length" in view.status.value
    assert view.drawn_values == {"x": 1.5}  # drawn for the new values, but greyed
    view.controls["x"].value = 1.0
    assert not view.stale


def test_hollow_markers_exactly_for_the_points_flagged_not_stationary():
    from workbench.plots import UNSTABLE_LABEL, ci_errorbar, unstable_legend

    fig, ax = figure()
    mean = [1.0, 2.0, 3.0, 4.0]
    ci_errorbar(
        ax,
        [0, 1, 2, 3],
        mean,
        [0.5, 1.5, 2.5, 3.5],
        [1.5, 2.5, 3.5, 4.5],
        stationary=[True, False, True, False],
        label="sim",
    )
    unstable_legend(ax)
    hollow = [ln for ln in ax.lines if ln.get_markerfacecolor() == "none"]
    filled = [ln for ln in ax.lines if ln.get_marker() == "o" and ln not in hollow]
    assert [list(ln.get_ydata()) for ln in hollow] == [[2.0, 4.0]]
    assert [list(ln.get_ydata()) for ln in filled] == [[1.0, 3.0]]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["sim", UNSTABLE_LABEL]


# ------------------------------------------------------------------------------ controls


def test_notation_renders_scripts_as_html_and_unicode():
    from workbench.widgets import notation

    assert notation("p^I local processing") == "p<sup>I</sup> local processing"
    assert notation("p^I", as_html=False) == "pᴵ"
    assert notation("X^FF fog–fog link delay [s]") == "X<sup>FF</sup> fog–fog link delay [s]"
    assert notation("X^FF", as_html=False) == "X^FF"  # no superscript F in Unicode: left as typed
    assert notation("T_cl cloud time [s]") == "T<sub>cl</sub> cloud time [s]"
    assert notation("λ_m", as_html=False) == "λₘ"
    assert notation("E[T_sys] formula") == "E[T<sub>sys</sub>] formula"
    assert notation("x^{n+1} < y") == "x<sup>n+1</sup> &lt; y"
    assert notation("users with cache_aware on") == "users with cache_aware on"
    assert notation("RED drop probability at max_th") == "RED drop probability at max<sub>th</sub>"


def _all_params():
    from workbench.params import CONFIDENCE, REPLICATIONS, SEED
    from workbench.registry import PAPERS

    rows = [(pid, p) for pid, paper in PAPERS.items() for p in paper.params.values()]
    return rows + [("shared", p) for p in (SEED, REPLICATIONS, CONFIDENCE)]


def test_every_control_label_is_rendered_in_full_without_doubled_names():
    import re

    from workbench.widgets import ControlRow, control, control_label

    for pid, param in _all_params():
        text = control_label(param)
        assert not re.search(r"\b(\w+) \1\b", text, re.IGNORECASE), (pid, text)
        if param.unit:
            assert text.endswith(f"[{param.unit}]"), (pid, text)
        if param.kind == "choice" and param.default is None:
            continue
        try:
            ctl = control(param)
        except ValueError:  # unbounded without a slider span: never a control
            continue
        row = ControlRow(param.name, ctl)
        assert "^" not in row.label.value, (pid, row.label.value)
        if re.search(r"(?<![A-Za-z])[A-Za-zλμτσ]_[A-Za-z0-9]", param.symbol):
            assert "<sub>" in row.label.value, (pid, param.symbol, row.label.value)
        assert "…" not in row.label.value and "wb-nolabel" in ctl._dom_classes
        assert row.label.layout.width and "wb-control-label" in row.label._dom_classes
        assert ctl.description == text  # the control says it once, like control_label
    from workbench.params import SEED

    assert control_label(SEED) == "random seed"
    assert control(SEED, 4, (0, 50)).description == "random seed"


def test_named_doubled_labels_of_the_issue_are_gone():
    from workbench.hierarchy.params import PARAMS as P5
    from workbench.widgets import control_label

    assert control_label(P5["gentle"]) == "gentle RED"
    assert control_label(P5["overload"]) == "overloaded regime"


def test_parse_number_accepts_a_decimal_comma_and_refuses_the_rest():
    from workbench.widgets import parse_number

    assert parse_number("1,5") == 1.5 and parse_number(" 1.5 ") == 1.5
    assert parse_number("−2,25") == -2.25 and parse_number("2e-3") == 0.002
    assert parse_number("4", integer=True) == 4 and parse_number("4,0", integer=True) == 4
    for bad, why in (
        ("1.000,5", "one decimal separator"),
        ("abc", "not a number"),
        ("nan", "finite"),
        ("", "type a number"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_number(bad)
    with pytest.raises(ValueError, match="whole number"):
        parse_number("3,5", integer=True)


def test_a_decimal_comma_typed_into_a_readout_sets_the_value_or_is_refused_visibly():
    seen = []

    def plot(x=1.0, n=3):
        seen.append((x, n))
        return _plot(n=n, scale=x)

    view = interactive_figure(plot, x=(0.0, 5.0, 0.25, 1.0), n=(2, 10, 1, 3))
    row = view.rows["x"]
    assert view.controls["x"].readout is False and row.entry.value == "1"
    row.type("1,5")
    assert view.controls["x"].value == 1.5 and seen[-1] == (1.5, 3)
    assert row.entry.value == "1.5" and row.note.value == ""
    for bad, why in (
        ("1,5,0", "one decimal separator"),
        ("12", "outside"),
        ("zwei", "not a number"),
    ):
        row.type(bad)
        assert view.controls["x"].value == 1.5 and seen[-1] == (1.5, 3), bad
        assert why in row.note.value and "wb-refused" in row.entry._dom_classes, bad
    row.type("2")
    assert view.controls["x"].value == 2.0 and row.note.value == ""
    assert "wb-refused" not in row.entry._dom_classes
    view.rows["n"].type("3,5")
    assert view.controls["n"].value == 3 and "whole number" in view.rows["n"].note.value
    view.controls["x"].value = 0.75  # a slider move rewrites the readout
    assert row.entry.value == "0.75"


def test_hidden_per_choice_controls_hide_their_whole_row():
    view = interactive_figure(
        lambda family, mu=None, alpha=None: _plot(),
        family=["S-Exp", "Pareto"],
        mu=(0.05, 5.0, 0.05, 0.2),
        alpha=(1.05, 5.0, 0.05, 1.2),
        visible={
            "mu": lambda v: v["family"] == "S-Exp",
            "alpha": lambda v: v["family"] == "Pareto",
        },
    )
    assert view.rows["alpha"].layout.display == "none" and view.rows["mu"].layout.display is None
    view.controls["family"].value = "Pareto"
    assert view.rows["mu"].layout.display == "none" and view.rows["alpha"].layout.display is None


def _view_units_missing(paper, view) -> list[str]:
    """Controls of ``view`` whose parameter has a unit their label does not show."""
    missing = []
    for name, ctl in view.controls.items():
        param = param_of(ctl) or paper.params.get(name)
        if param is None or not param.unit:
            continue
        unit = f"[{param.unit}]"
        from workbench.widgets import notation

        if unit not in ctl.description or notation(unit) not in view.rows[name].label.value:
            missing.append(f"{name}: {ctl.description!r} lacks {unit}")
    return missing


def test_every_view_control_label_shows_its_parameters_unit(monkeypatch):
    """Browser-free: build every view of every paper without drawing, read its labels."""
    from workbench.registry import PAPERS
    from workbench.widgets import InteractiveFigure

    monkeypatch.setattr(InteractiveFigure, "update", lambda self: None)
    checked = 0
    for pid, paper in PAPERS.items():
        for vname, make in paper.views.items():
            view = make()
            if not isinstance(view, InteractiveFigure):
                continue
            assert not _view_units_missing(paper, view), (pid, vname)
            checked += sum(1 for c in view.controls.values() if param_of(c))
    assert checked > 50
    # the check can fail: a control built from a bare spec drops the unit
    view = interactive_figure(_plot, scale=(0.0, 5.0, 0.5, 1.0))
    fake = type("Paper", (), {"params": {"scale": PAPERS["p4"].params["lam"]}})()
    assert _view_units_missing(fake, view) == ["scale: 'scale' lacks [1/s]"]


def test_every_failure_of_a_background_draw_is_shown_and_unstable_reads_unstable():
    """A RuntimeError in a background draw shows its message (never "computing…" for
    good); an UnstableRegimeError reads "unstable" with its note, not "values refused"."""
    import matplotlib.pyplot as plt

    from workbench.validation import UnstableRegimeError

    def plot(x):
        if x > 5:
            raise RuntimeError("kernel exploded at x = 6")
        if x < 0:
            raise UnstableRegimeError("rho = 1.2 >= 1: the queue grows without bound")
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, x])
        return fig

    view = interactive_figure(plot, background=True, x=(-5, 10, 1, 1))
    assert view.drawn_values == {"x": 1} and not view.stale  # first figure drawn at once
    view.controls["x"].value = 6
    view.wait()
    assert "kernel exploded at x = 6" in view.status.value and "RuntimeError" in view.status.value
    assert "computing" not in view.status.value and view.stale
    view.controls["x"].value = -1
    view.wait()
    assert "Unstable" in view.status.value and "grows without bound" in view.status.value
    assert "refused" not in view.status.value and view.stale
    view.controls["x"].value = 2
    view.wait()
    assert not view.stale and "updated in" in view.status.value


def test_a_refusal_note_goes_when_another_control_moves():
    def plot(a, b):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.plot([a, b])
        return fig

    view = interactive_figure(plot, a=(0, 10, 1, 5), b=(0, 10, 1, 5))
    row = view.rows["a"]
    row.type("abc")
    assert row.note.value and "wb-refused" in row.entry._dom_classes
    view.controls["b"].value = 7
    assert row.note.value == "" and row.entry.value == "5"


def test_controls_fit_two_to_an_848_px_column_and_readouts_never_use_e_notation():
    from workbench.controls import ROW_MIN_WIDTH
    from workbench.widgets import ControlRow

    assert 2 * int(ROW_MIN_WIDTH.removesuffix("px")) <= 848
    view = interactive_figure(
        lambda x: __import__("matplotlib.pyplot").pyplot.figure(), x=(1.0, 2e6, 0.1, 1600.4)
    )
    grid = view.children[1]
    assert "auto-fit" in grid.layout.grid_template_columns
    row = next(iter(view.rows.values()))
    assert isinstance(row, ControlRow) and row.entry.value == "1600.4"
    view.controls["x"].value = 1e6
    assert row.entry.value == "1000000"


def test_the_atlas_view_shows_its_figure_as_an_image_widget_never_through_an_output(monkeypatch):
    """Voila's executor stalled on the one cell that displayed into a ``w.Output`` (the
    atlas): the view's figure is a PNG in an Image widget, with no output capture."""
    import io

    import pandas as pd
    from PIL import Image

    from workbench import tables

    frame = pd.DataFrame(
        {
            "paper": "p4",
            "claim": ["c1", "c1"],
            "reading": ["all", "default"],
            "points": [4, 4],
            "undetermined": [0, 0],
            "holds_share": [0.5, 0.75],
            "ci_low": [0.15, 0.3],
            "ci_high": [0.85, 0.95],
            "verdict": ["depends", "depends"],
            "decided_by": ["x", "x"],
            "flip": ["x ≤ 1: holds at 0/2; above: 2/2", ""],
        }
    )
    import workbench.atlas

    monkeypatch.setattr(workbench.atlas, "atlas", lambda *a, **k: frame)
    view = tables.atlas_view("p4")

    def walk(widget):
        yield widget
        for child in getattr(widget, "children", ()):
            yield from walk(child)

    parts = list(walk(view))
    assert not [p for p in parts if isinstance(p, w.Output)]
    images = [p for p in parts if isinstance(p, w.Image)]
    assert len(images) == 1 and images[0].format == "png"
    width, height = Image.open(io.BytesIO(images[0].value)).size
    assert width > 300 and height > 100
