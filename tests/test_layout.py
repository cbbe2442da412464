"""The layout check: it catches each kind of problem, and no paper figure or view has one.

The checker is tested first on figures built to have exactly one problem each (it must
report it) and on a clean figure (it must report nothing). Then it runs on every static
figure of every paper (``FIGURES``, frames built once per session with ``quick=True``) and
on every slider view (``VIEWS``)
at its defaults and at the ends of every control (background views: defaults only).
Problems that only a paper package's own code can fix are listed in ``KNOWN`` with the reason.
"""

from __future__ import annotations

import fnmatch
import functools

import numpy as np
import pytest
from matplotlib.figure import Figure
from shared_results import shared

from workbench.layout import check_layout, layout_problems, view_settings
from workbench.plots import figure
from workbench.registry import PAPERS
from workbench.widgets import InteractiveFigure, view_dpi


def _kinds(fig) -> list[str]:
    return sorted({p.kind for p in layout_problems(fig)})


def _clean():
    fig, ax = figure()
    x = np.linspace(0, 1, 50)
    ax.plot(x, 0.4 * x, label="slow")
    ax.plot(x, 0.2 * x, "o", label="points", markersize=3)
    ax.bar([0.2, 0.4], [0.1, 0.15], width=0.05, label="bars")
    ax.set_ylim(0, 1)
    ax.set_title("A clean figure")
    ax.set_xlabel("x [s]")
    ax.set_ylabel("y [s]")
    ax.legend(loc="upper left")
    return fig, ax


def test_a_clean_figure_has_no_problem():
    fig, _ax = _clean()
    assert check_layout(fig) == []


def test_slanted_tick_labels_side_by_side_are_not_an_overlap():
    fig, ax = figure()
    ax.plot(range(12), range(12))
    ax.set_xticks(range(12), [f"label {i}" for i in range(12)], rotation=45, ha="right")
    assert "overlap" not in _kinds(fig)
    ax.set_xticks(range(12), [f"label number {i}" for i in range(12)], rotation=0)
    assert "overlap" in _kinds(fig)  # the same labels level do collide


def test_text_outside_the_canvas():
    fig, ax = _clean()
    fig.text(0.9, 0.5, "a footnote far too long for the figure")
    problems = check_layout(fig)
    assert len(problems) == 1 and problems[0].startswith("outside: figure text")
    assert "cut at the canvas right" in problems[0]


def test_two_texts_overlapping():
    fig, ax = _clean()
    ax.text(0.6, 0.8, "first note", transform=ax.transAxes)
    ax.text(0.62, 0.8, "second note", transform=ax.transAxes)
    problems = check_layout(fig)
    assert len(problems) == 1 and problems[0].startswith("overlap: text in axes 1")
    assert "'first note'" in problems[0] and "'second note'" in problems[0]


def test_multi_line_texts_are_checked_too():
    fig, ax = _clean()
    ax.text(0.6, 0.8, "first\nnote", transform=ax.transAxes)
    ax.text(0.62, 0.75, "second\nnote", transform=ax.transAxes)
    fig.text(0.9, 0.5, "a footnote\nfar too long for the figure")
    kinds = sorted(p.split(":")[0] for p in check_layout(fig))
    assert kinds == ["outside", "overlap"], check_layout(fig)


def test_a_label_under_tick_labels_is_an_overlap():
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    ax.plot([0, 1], [1e3, 2e3])
    fig.subplots_adjust(left=0.2)
    ax.set_ylabel("y [s]", labelpad=-25)
    assert any("y label of axes 1" in p and "y tick label" in p for p in check_layout(fig))


@pytest.mark.parametrize("what", ["line", "markers", "bars", "scatter", "errorbar", "band"])
def test_legend_over_data(what):
    fig, ax = figure()
    x = np.linspace(0, 1, 11)
    if what == "line":  # only the segment crosses the legend, no vertex lies under it
        ax.plot([0, 1], [1, 0], label="a line")
    elif what == "markers":
        ax.plot([0.05, 0.95], [0.95, 0.05], "o", label="two points")
    elif what == "bars":
        ax.bar([0.1, 0.9], [0.9, 0.2], width=0.1, label="bars")
    elif what == "scatter":
        ax.scatter([0.07], [0.93], label="one point")
    elif what == "errorbar":
        ax.errorbar([0.1], [0.5], yerr=[0.45], fmt="none", label="interval")
    else:
        ax.fill_between(x, 0.6, 1.0, label="band")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    problems = check_layout(fig)
    assert [p.split(":")[0] for p in problems] == ["legend-data"], problems


def test_legend_under_the_data_of_a_twin_axes():
    fig, ax = figure()
    ax.plot([0, 1], [0, 0.2], label="left axis")
    ax.set_ylim(0, 1)
    twin = ax.twinx()
    twin.plot([0, 1], [0.9, 0.9], label="right axis")
    twin.set_ylim(0, 1)
    ax.legend(loc="upper center")
    assert [p.split(":")[0] for p in check_layout(fig)] == ["legend-data"]


def test_a_line_beside_the_legend_is_not_covered():
    fig, ax = figure()
    ax.plot([0, 1], [0, 0.3], label="low")
    ax.axvspan(0.0, 0.2, alpha=0.1)  # background span: not data
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    assert check_layout(fig) == []


def test_legend_over_a_title():
    fig, ax = _clean()
    ax.get_legend().remove()
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.93), ncols=3)
    assert "legend-text" in _kinds(fig)
    assert any("covers title of axes 1" in p for p in check_layout(fig))


def test_small_legend_font():
    fig = Figure(figsize=(5, 3.5), layout="constrained")  # matplotlib's own, no floor
    ax = fig.subplots()
    ax.plot([0, 1], [0, 0.2], label="a")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", fontsize=7)
    assert check_layout(fig) == ["legend-font: legend of axes 1: texts of 7 pt (minimum 10 pt)"]


def test_workbench_figures_raise_every_legend_to_10_pt():
    fig, ax = figure()
    ax.plot([0, 1], [0, 0.2], label="a")
    ax.legend(fontsize=7, title="t", title_fontsize="x-small")
    twin = ax.twinx()
    twin.plot([0, 1], [1, 0.9], label="b")
    twin.legend(prop={"size": 6}, loc="lower right")
    fig.legend(fontsize="small", loc="outside right upper")
    for leg in (ax.get_legend(), twin.get_legend(), *fig.legends):
        assert min(t.get_fontsize() for t in leg.get_texts()) >= 10
    assert ax.get_legend().get_title().get_fontsize() >= 10
    assert "legend-font" not in _kinds(fig)


# ------------------------------------------------------------------------------ papers

# Problems only a paper package can fix (more than a local layout edit of its figure or view):
# (paper, "figure NAME" | "view NAME") -> [(fnmatch pattern on "setting: problem", reason)].
# Each entry must still match, so a fixed problem cannot stay listed.
KNOWN: dict[tuple[str, str], list[tuple[str, str]]] = {}


@functools.cache
def _frame(pid: str, name: str):
    """The figure's quick frame, as the notebook draws it (``FigureSpec.make``), computed
    once a run (shared_results). This module checks layout; each paper's figure tests check
    the frames' numbers."""
    return shared(PAPERS[pid].figures[name].frame, quick=True)


def _unexpected(pid: str, target: str, found: list[tuple[str, str]]) -> list[str]:
    """The problems not in KNOWN; fails if a KNOWN entry no longer matches anything."""
    known = KNOWN.get((pid, target), [])
    lines = [f"{setting}: {problem}" for setting, problem in found]
    stale = [pat for pat, _why in known if not any(fnmatch.fnmatch(x, pat) for x in lines)]
    assert not stale, f"{pid} {target}: known problems no longer found, remove them: {stale}"
    return [x for x in lines if not any(fnmatch.fnmatch(x, pat) for pat, _why in known)]


FIGURE_CASES = [(pid, name) for pid, p in PAPERS.items() for name in p.figures]
VIEW_CASES = [(pid, name) for pid, p in PAPERS.items() for name in p.views]


@pytest.mark.parametrize(("pid", "name"), FIGURE_CASES, ids=[f"{p}-{n}" for p, n in FIGURE_CASES])
def test_paper_figure_layout(pid, name):
    fig = PAPERS[pid].figures[name].plot(_frame(pid, name))
    found = [("figure", p) for p in check_layout(fig)]
    assert not _unexpected(pid, f"figure {name}", found)


@pytest.mark.parametrize(("pid", "name"), VIEW_CASES, ids=[f"{p}-{n}" for p, n in VIEW_CASES])
def test_paper_view_layout_at_defaults_and_slider_ends(pid, name):
    view = PAPERS[pid].views[name]()
    if not isinstance(view, InteractiveFigure):
        pytest.skip(f"{pid} {name} is not a slider view")
    found = []
    settings = 0
    for setting, fig in view_settings(view, ends=not view._background):
        settings += 1
        found += [(setting, p) for p in check_layout(fig, dpi=view_dpi(fig))]
    assert settings >= 1, "the view drew no figure at its defaults"
    assert not _unexpected(pid, f"view {name}", found)
