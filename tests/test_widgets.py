"""The slider helper: controls from specs, redraw on change, errors shown not raised."""

import ipywidgets as w
import pytest

from workbench.plots import figure
from workbench.widgets import interactive_figure, make_control


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
    view.controls["N"].value = 10
    assert view.controls["m"].max == 10 and view.controls["m"].value == 2


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
    ci_errorbar(ax, [0, 1, 2, 3], mean, [0.5, 1.5, 2.5, 3.5], [1.5, 2.5, 3.5, 4.5],
                stationary=[True, False, True, False], label="sim")  # fmt: skip
    unstable_legend(ax)
    hollow = [ln for ln in ax.lines if ln.get_markerfacecolor() == "none"]
    filled = [ln for ln in ax.lines if ln.get_marker() == "o" and ln not in hollow]
    assert [list(ln.get_ydata()) for ln in hollow] == [[2.0, 4.0]]
    assert [list(ln.get_ydata()) for ln in filled] == [[1.0, 3.0]]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["sim", UNSTABLE_LABEL]
