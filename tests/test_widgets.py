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
