"""P5 figures: hollow markers exactly where the detector flagged a point."""

import numpy as np
from matplotlib.colors import to_rgba

from workbench.hierarchy.figures import _normalise, _plot_vs, plot_model_comparison, study
from workbench.hierarchy.params import PAPER_MODELS
from workbench.plots import UNSTABLE_LABEL


def _hollow(ax) -> int:
    count = 0
    for line in ax.get_lines():
        face = line.get_markerfacecolor()
        if line.get_marker() not in ("None", None, "") and (
            face == "none" or to_rgba(face)[3] == 0
        ):
            count += len(line.get_xdata())
    return count


def test_hollow_markers_exactly_for_flagged_points():
    """λ = 12: pure local and pure cloud are overloaded at μ = 9 (ρ = 1.08), not at μ = 2."""
    frame = _normalise(study(PAPER_MODELS, (12,), (2, 9), True))
    flagged = int((~frame["stationary"]).sum())
    assert flagged >= 2 and frame[frame["mu"] == 2]["stationary"].all()
    fig = _plot_vs(frame, "mu", "λ = 12")
    ax1, ax2 = fig.axes[:2]
    assert _hollow(ax1) == flagged
    assert _hollow(ax2) == flagged
    assert UNSTABLE_LABEL in [t.get_text() for t in ax2.get_legend().get_texts()]


def test_comparison_view_flags_an_unstable_load():
    fig = plot_model_comparison(12, 9, 0.001, view_periods=200, view_replications=2)
    assert "pure local" in fig.wb_unstable_note
    ok = plot_model_comparison(4, 3, 0.001, view_periods=200, view_replications=2)
    assert not getattr(ok, "wb_unstable_note", "")
    assert np.isfinite(_hollow(ok.axes[0])) and _hollow(ok.axes[0]) == 0
