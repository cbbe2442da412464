"""P5 figures: hollow markers exactly where the detector flagged a point; the hierarchy
drawing clean for every topology."""

import re

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from workbench.hierarchy.diagrams import ba_speed_note, draw_hierarchy, plot_model_comparison
from workbench.hierarchy.figures import _normalise, _plot_vs, study
from workbench.hierarchy.params import PAPER_MODELS, TOPOLOGIES
from workbench.hierarchy.topology import P5Params
from workbench.layout import check_layout
from workbench.plots import UNSTABLE_LABEL, unstable_note
from workbench.validation import ParameterError
from workbench.widgets import view_dpi


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
    frame = _normalise(study(models=PAPER_MODELS, lams=(12,), task_sizes=(2, 9), quick=True))
    flagged = int((~frame["stationary"]).sum())
    assert flagged >= 2 and frame[frame["mu"] == 2]["stationary"].all()
    fig = _plot_vs(frame, "mu", "λ = 12")
    ax1, ax2 = fig.axes[:2]
    assert _hollow(ax1) == flagged
    assert _hollow(ax2) == flagged
    assert UNSTABLE_LABEL in [t.get_text() for t in ax2.get_legend().get_texts()]


def test_comparison_view_flags_an_unstable_load():
    fig = plot_model_comparison(12, 9, 0.001, view_periods=200, view_replications=2)
    assert "pure local" in unstable_note(fig)
    ok = plot_model_comparison(4, 3, 0.001, view_periods=200, view_replications=2)
    assert not unstable_note(ok)
    assert np.isfinite(_hollow(ok.axes[0])) and _hollow(ok.axes[0]) == 0


@pytest.mark.parametrize("name", TOPOLOGIES)
def test_hierarchy_drawing_is_clean_and_says_how_ba_speeds_follow_the_sliders(name):
    """Issue 17: ba-2/ba-3 had a cropped title and node labels over link labels, and a BA
    tree drew other speeds than the sliders' (F_c = 400 drew 463) without a word."""
    for fb, fm, fc in ((100.0, 200.0, 400.0), (10.0, 10.0, 1600.0), (400.0, 800.0, 20.0)):
        speeds = {"compute_bottom": fb, "compute_middle": fm, "compute_top": fc}
        topo = P5Params(topology=name, **speeds).hierarchy()
        note = ba_speed_note(topo, fb, fm, fc)
        fig = draw_hierarchy(topo, note=note)
        assert check_layout(fig, dpi=view_dpi(fig)) == [], (name, fb, fm, fc)
        if not name.startswith("ba-"):
            assert note == "" and topo.compute[0] == fc
            continue
        factor = float(re.search(r"× ([\d.]+)", note).group(1))
        tier = np.where(topo.depth == 0, fc, np.where(topo.depth == 1, fm, fb))
        np.testing.assert_allclose(topo.compute, tier * factor, rtol=2e-3)
        assert topo.compute.sum() == pytest.approx(fc + 2 * fm + 4 * fb)
        assert fig.axes[0].get_title().endswith(note)


def test_a_seeded_frame_follows_the_seed_passed_by_hand():
    """Issue 45: the notebook's SEED reaches a frame by hand, not through a module global.
    seed=0 is the published frame, seed=1 another sample of the same model, the same seed
    the same numbers (computed afresh)."""
    from workbench.hierarchy.figures import FIGURES

    spec = FIGURES["fig5_time_vs_lam"]
    assert spec.seeded

    def fresh(**kw):
        study.__wrapped__.cache_clear()  # the session cache would answer the same object
        return spec.frame(quick=True, **kw)["mean_time"].to_numpy()

    published, moved = fresh(), fresh(seed=1)
    assert not np.array_equal(published, moved)
    assert np.array_equal(fresh(seed=1), moved)
    with pytest.raises(ParameterError, match="'seed' parameter of study"):
        spec.frame(quick=True, seed=-1)
    with pytest.raises(ParameterError, match="'quick' parameter of study"):
        spec.frame(quick="yes")
