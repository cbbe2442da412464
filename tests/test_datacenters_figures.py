"""Tests of the P3 figures, claims and notebook views."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from shared_results import results_cache

import workbench.datacenters as dc
from workbench.datacenters import studies
from workbench.datacenters.claims import CLAIMS
from workbench.datacenters.diagram import draw_model
from workbench.datacenters.figures import (
    FIGURES,
    convergence_frame,
    cooperation_frame,
    exact_limit_simulation_frame,
    loss_landscape_frame,
    regime_map_frame,
    ring_frame,
    ring_study,
)
from workbench.plots import FigureSpec

FIGURE_NAMES = [
    "cooperation",
    "exact_limit_simulation",
    "convergence",
    "regime_map",
    "ring",
    "loss_landscape",
]


def test_figure_names_and_claim_ids_are_those_of_the_cli_and_the_table():
    assert list(FIGURES) == FIGURE_NAMES
    table = pd.read_csv("data/claims/p3.csv", comment="#")
    assert set(CLAIMS) == set(table["id"])


def _make(spec):
    """The figure as the notebook draws it, its frame computed once a run (shared_results)."""
    with results_cache():
        return spec.make(quick=True)


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_every_figure_frame_is_tidy_and_draws(name, tmp_path):
    spec = FIGURES[name]
    assert isinstance(spec, FigureSpec)
    frame, fig = _make(spec)
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    path = tmp_path / f"{name}.png"
    fig.savefig(path)
    assert path.stat().st_size > 0
    if name == "convergence":
        assert {"N", "beta1", "beta2", "limit_beta1", "limit_beta2"} <= set(frame.columns)


def test_interactive_view_redraws_on_slider_moves():
    # latency is measured in benchmarks/bench_slider_latency.py, not here
    from workbench.datacenters.views import VIEWS

    view = VIEWS["cooperation"]()
    assert "wb-interactive" in view._dom_classes
    for value in (0.5, 0.4, 0.6):
        view.controls["p2"].value = value
        assert not view.status.value.startswith("<span"), view.status.value
    assert len(view.latencies_ms) == 4


def _imported_modules(path) -> list[str]:
    import ast

    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
    return names


def test_only_views_import_the_widget_stack():
    from pathlib import Path

    import workbench.datacenters as dc

    for path in Path(dc.__file__).parent.glob("*.py"):
        widgety = [
            n
            for n in _imported_modules(path)
            if n.startswith(("ipywidgets", "IPython", "workbench.widgets"))
        ]
        assert (path.name == "views.py") == bool(widgety), (path.name, widgety)


def test_cooperation_study_validates_its_flags_and_leaves_out_uncertified_limits():
    from workbench.validation import ParameterError

    cooperation_study = studies.cooperation_study
    with pytest.raises(ParameterError, match="'limit' parameter of cooperation_study"):
        cooperation_study((30.0, 16.0), (20, 20), (1.0, 1.0), limit="yes")
    with pytest.raises(ParameterError, match="'vary' parameter of cooperation_study"):
        cooperation_study((30.0, 16.0), (20, 20), (1.0, 1.0), vary="p3")
    # lambda/N = (1.001, 1.002): the limit is uncertifiable at p = (q, 0.5) with q < 1, and
    # exact at q = 1 only when p = (1, 1); no guessed limit value may appear
    frame = cooperation_study((1001.0, 1002.0), (1000, 1000), (1.0, 1.0), p_other=0.5, points=3)
    limit_rows = frame[frame["model"].str.startswith("limit")]
    assert frame[frame["model"].str.startswith("exact")].shape[0] == 3
    assert limit_rows.empty
    for col in ("beta1", "beta2", "loss_fraction"):
        assert frame[col].between(0, 1).all()


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_figures_are_slide_ready(name):
    """Every data axis labelled, and the figure states its parameters (a title with '=')."""
    frame, fig = _make(FIGURES[name])
    titles = [fig._suptitle.get_text() if fig._suptitle else ""]
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_xlabel() and ax.get_ylabel(), (name, ax.get_title())
        titles.append(ax.get_title())
    assert any("=" in t for t in titles), (name, titles)


def _hollow_and_filled(ax):
    """(x of hollow markers, x of filled markers) of the errorbar points of ``ax``."""
    hollow, filled = [], []
    for line in ax.lines:
        if line.get_marker() in ("o",) and line.get_linestyle() in ("None", "", " "):
            target = hollow if str(line.get_markerfacecolor()) == "none" else filled
            target += list(line.get_xdata())
    return sorted(hollow), sorted(filled)


def test_ring_intervals_stop_at_zero_and_flagged_runs_are_hollow():
    from workbench.datacenters.figures import plot_ring

    # centers 1 and 2 lose under 1 %: their Student-t intervals would go below 0
    run = dc.simulate_ring(
        lam=(12.0, 2.5, 2.5), servers=10, mu=1.0, p=0.25, events=5_000, replications=3
    )
    table = dc.ring_table(run)
    assert run.stationary and (table["ci_low"] >= 0.0).all() and (table["ci_high"] <= 1.0).all()
    assert (table["beta"] - table["half_width"] < 0).any()  # clipping was needed
    frame = pd.DataFrame(
        {
            "scenario": ["s"] * 3 + ["t"] * 3,
            "center": [0, 1, 2] * 2,
            "lam": [1.2, 0.25, 0.25] * 2,
            "reduction": ["isolated", "underloaded", "underloaded"] * 2,
            "beta_limit": [0.2, 0.0, 0.0] * 2,
            "beta_sim": list(table["beta"]) * 2,
            "ci_low": list(table["ci_low"]) * 2,
            "ci_high": list(table["ci_high"]) * 2,
            "N": 10,
            "p": 0.25,
            "stationary": [True] * 3 + [False] * 3,  # scenario t: as if the run were flagged
        }
    )
    fig = plot_ring(frame)
    assert _hollow_and_filled(fig.axes[0]) == ([], [0, 1, 2])
    assert _hollow_and_filled(fig.axes[1]) == ([0, 1, 2], [])
    assert "hollow: not stationary" in " ".join(t.get_text() for t in fig.legends[0].texts)
    plt.close(fig)
    fig = plot_ring(frame[frame.scenario == "s"])
    assert not any("hollow" in t.get_text() for t in fig.legends[0].texts)
    plt.close(fig)


def test_diagram_is_drawn_from_the_parameters():
    from workbench.validation import ParameterError

    fig = draw_model((12.0, 3.0), (7, 40), (1.0, 2.0), (0.25, 0.75), busy=(6.5, 1.0))
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    for part in ("λ₁ = 12", "λ₂ = 3", "C₁ = 7", "C₂ = 40", "p₁ = 0.25", "p₂ = 0.75", "μ₂ = 2"):
        assert part in texts, part
    with pytest.raises(ParameterError, match="'p' parameter of draw_model"):
        draw_model(p=(1.5, 0.0))


def test_every_view_builds_with_labelled_controls_and_draws():
    from workbench.datacenters.params import PARAMS
    from workbench.datacenters.views import VIEWS

    symbols = {p.symbol[0] for p in PARAMS.rows}
    for name, build in VIEWS.items():
        view = build()
        for ctl in view.controls.values():
            assert ctl.description[0] in symbols and ctl.tooltip, (name, ctl.description)
        assert not view.status.value.startswith("<span"), (name, view.status.value)


@pytest.mark.parametrize("name", ["exact_limit_simulation", "ring"])
def test_no_simulated_point_of_a_figure_grid_is_flagged(name):
    # finite loss networks are stable at every load: an alarm here is a false one
    frame, _ = _make(FIGURES[name])
    assert frame["stationary"].dtype == bool and frame["stationary"].all()


def test_figure_helpers_refuse_bad_input_by_name():
    # found by the registry fuzz (tests/fuzz_api.py): raw errors or ignored flags before
    from workbench.validation import ParameterError

    cases = [
        (lambda: dc.ring_table("x"), "'result' parameter of ring_table"),
        (lambda: draw_model(busy="x"), "'busy' parameter of draw_model"),
        (lambda: draw_model(busy=(30.0, 1.0)), r"'busy' parameter of draw_model.*\[0, 20\]"),
        (lambda: ring_study(scenarios="x"), "'scenarios' parameter of ring_study"),
        (lambda: ring_study(scenarios={"a": (1.0, "x", 1.0)}), "'scenarios' parameter"),
        (lambda: ring_study(n="x"), "'n' parameter of ring_study"),
        (lambda: ring_frame(quick="x"), "'quick' parameter of ring_study"),
        (lambda: exact_limit_simulation_frame(quick=None), "'quick' parameter"),
        *(
            (lambda f=f: f(quick="x"), f"'quick' parameter of {f.__name__}")
            for f in (cooperation_frame, convergence_frame, regime_map_frame, loss_landscape_frame)
        ),
        (
            lambda: studies.convergence_table(progress="x"),
            "'progress' parameter of convergence_table",
        ),
        (
            lambda: studies.optimal_forwarding((30.0, 16.0), (20, 20), (1.0, 1.0), progress=-1),
            "'progress' parameter of optimal_forwarding",
        ),
        (
            lambda: dc.solve_exact((1.5, 0.8), (50, 50), (1.0, 1.0), (0.6, 0.3), tail=1e-7),
            "'tail' parameter of solve_exact",
        ),
    ]
    for call, message in cases:
        with pytest.raises(ParameterError, match=message):
            call()
    assert issubclass(dc.UncertifiedSolutionError, ParameterError)
    plt.close(draw_model(busy=(6.5, 1.0)))


def test_a_seeded_frame_moves_with_the_callers_seed_and_repeats_with_it():
    """The notebook's SEED reaches the figure's simulations by hand: seed=1 draws another
    sample (the simulated rows move, the exact and limit rows do not), the same seed the same
    numbers; and FigureSpec.make passes it (the frames are declared seeded)."""
    assert FIGURES["exact_limit_simulation"].seeded and FIGURES["ring"].seeded
    published = exact_limit_simulation_frame(quick=True, seed=0)
    other = exact_limit_simulation_frame(quick=True, seed=1)
    pd.testing.assert_frame_equal(exact_limit_simulation_frame(quick=True, seed=1), other)
    simulated = published["model"] == "simulation"
    pd.testing.assert_frame_equal(published[~simulated], other[~simulated])
    assert (published.loc[simulated, "beta"] != other.loc[simulated, "beta"]).all()


def test_the_ring_frame_and_view_simulate_on_the_callers_seed(monkeypatch):
    """ring_frame and the ring view root their simulations at their own seed shifted by the
    caller's (the notebook's SEED, passed by hand); 0 keeps the published seed."""
    from workbench.datacenters import figures, views
    from workbench.validation import ParameterError

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["seed"])
        raise ParameterError("spy: the seed is recorded, nothing is simulated")

    monkeypatch.setattr(figures, "ring_study", spy)
    monkeypatch.setattr(views, "ring_study", spy)
    for seed in (0, 1, 0):
        with pytest.raises(ParameterError, match="spy"):
            figures.ring_frame(quick=True, seed=seed)
        views.ring_view(seed=seed)  # the view shows the refusal of its first draw
    assert seen == [2, 3, 3, 4, 2, 3]
    with pytest.raises(ParameterError, match="'seed' parameter of ring_view"):
        views.ring_view(seed=-1)
