"""P1 figures, claims and views: ids match the CSV, frames are tidy, views build fast enough."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from workbench.claims import load_claims
from workbench.fog.claims import CLAIMS
from workbench.fog.figures import FIGURES
from workbench.plots import unstable_note


def test_claim_ids_match_the_csv_and_disagreements_say_why():
    table = load_claims("p1")
    assert set(table["id"]) == set(CLAIMS)
    dis = table[table["expect"] == "disagree"]
    assert dis["workbench_value"].notna().all() and (dis["note"].str.len() > 20).all()
    own = table[table["source"] == "workbench"]
    assert own["note"].str.contains("paper gives no number").all()
    stated = table[table["source"] == "paper"]
    # the paper's own words, verbatim, for every row said to be the paper's; none elsewhere
    assert (stated["quote"].str.len() > 40).all()
    assert own["quote"].isna().all()
    # a statement in words is a yes (1) or a "no error / no gain" (0)
    assert set(stated["value"]) <= {0, 1}
    assert set(table["source"]) <= {"paper", "workbench"}


def test_fifo_claim_reproduces_its_workbench_value_quickly():
    row = load_claims("p1").set_index("id").loc["fifo_count_vs_chain"]
    got = CLAIMS["fifo_count_vs_chain"](quick=True)
    assert got.stationary and abs(got.value - row["workbench_value"]) <= row["tolerance"]
    assert abs(got.value - row["value"]) > row["tolerance"]


def test_erlang_figure_shows_the_instability():
    frame, fig = FIGURES["erlang_sum_stability"].make(quick=True)
    stable = frame[frame["route"].str.startswith("uniform")]["value"].to_numpy()
    paper = frame[frame["route"].str.startswith("partial")]["value"].to_numpy()
    assert np.all((stable >= 0) & (stable <= 1))
    assert np.abs(paper - stable)[0] > 1e-2 and np.abs(paper - stable)[-1] < 1e-10
    assert fig.axes


def test_package_import_does_not_import_ipywidgets():
    # the package and its model, simulation and tuning modules; study, figures, claims, views
    # import matplotlib (workbench.plots, and workbench.claims through the atlas) themselves
    code = (
        "import sys, workbench.fog, workbench.fog.cases, workbench.fog.tuning; "
        "print([m for m in ('ipywidgets', 'matplotlib', 'workbench.sweep') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_views_build_and_update():
    from workbench.fog.views import VIEWS

    view = VIEWS["node"]()
    view.controls["q"].value = 0.8
    assert "updated" in view.status.value
    lam = view.controls["lam_light"]
    lam.value = 190.0  # beyond the slider: held at its end, which keeps ρ below 1
    assert lam.value == lam.max and lam.max / 200.0 + 10.0 / (100.0 / 3.0) <= 0.85 + 1e-9
    assert "updated" in view.status.value and not view.stale
    view._draw(dict(view.values, lam_light=190.0))  # ρ ≥ 1 typed past the slider: said so
    assert "unstable" in view.status.value.lower() and view.stale


def test_a_theta_move_reuses_the_chain_and_a_rate_move_does_not():
    from workbench.fog.views import _node_state

    view_values = dict(lam_light=61.0, lam_heavy=9.0, mu_light=205.0, mu_heavy=33.0, q=0.45)
    from workbench.fog.views import NodeFigure

    draw = NodeFigure()
    before = _node_state.cache_info()
    fig = draw(theta=0.01, **view_values)
    draw(theta=0.05, **view_values)
    after = _node_state.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    assert draw(theta=0.05, **{**view_values, "lam_light": 62.0}) is fig  # updated in place
    assert _node_state.cache_info().misses == after.misses + 1


def test_node_figure_marks_the_chain_acceptance_at_theta():
    from workbench.fog import erlang_sum_cdf, solve_chain
    from workbench.fog.views import NodeFigure

    draw = NodeFigure()
    draw(lam_light=40.0, lam_heavy=8.0, mu_light=150.0, mu_heavy=30.0, q=0.3, theta=0.034)
    x, y = draw.point.get_data()
    # independent: the (n, n') chain solved numerically at q = 0.3, each state's work
    # P(Erlang(n, μ) + Erlang(n', μ') < θ) summed with the chain's weights
    sol = solve_chain(40.0, 8.0, 150.0, 30.0, q=0.3)
    expected = sum(
        sol.prob[n, m] * erlang_sum_cdf(0.034, n, 150.0, m, 30.0)
        for n in range(sol.levels + 1)
        for m in range(sol.levels + 1 - n)
        if sol.prob[n, m] > 1e-16
    )
    assert x[0] == pytest.approx(34.0) and y[0] == pytest.approx(expected, abs=1e-7)


def test_policy_view_shows_the_models_delays():
    from workbench.fog import analyze
    from workbench.fog.views import PolicyFigure, _default_network

    draw = PolicyFigure()
    # θ = 0 without forwards sends every fog request to the cloud: the offloading bars must
    # read as the all-to-cloud baseline's (computed through another policy and cache entry)
    draw(theta=0.0, e_max=0, load=1.1, light_fraction=0.6, p_iot=0.2)
    heights = [b.get_height() for b in draw.bars]
    assert heights[:2] == pytest.approx(heights[4:6], rel=1e-9)
    # past ρ = 1 at the busiest node the no-offloading bars say "unstable", not a number
    draw(theta=0.02, e_max=1, load=1.6, light_fraction=0.75, p_iot=0.1)
    assert [t.get_text() for t in draw.labels[2:4]] == ["unstable", "unstable"]
    assert all(t.get_text() != "unstable" for t in draw.labels[:2])
    net = _default_network(1.6, 0.75, 0.1)
    assert analyze(net, policy="all_cloud").mean_delay > 0


def test_simulation_view_runs_in_the_background_with_the_chosen_mode():
    from workbench.fog.views import VIEWS

    view = VIEWS["simulation"]()
    view.wait()
    assert view.drawn_values is not None and not view.stale
    view.controls["mode"].value = "oracle"
    assert view.stale  # greyed out with a "computing" line until the new run is drawn
    view.wait()
    assert view.drawn_values["mode"] == "oracle" and not view.stale


def test_fog_delay_reaches_offloaded_requests_only():
    from workbench.fog import analyze, default_scenario
    from workbench.fog.scenario import compile_scenario, with_fog_delay, with_traffic

    # no request straight to the cloud: its path may cross fog–fog links (nearest cloud)
    base = with_traffic(default_scenario(0), p_cloud=0.0)
    near = compile_scenario(with_fog_delay(base, 0.001))
    far = compile_scenario(with_fog_delay(base, 0.04))
    fog = far.nbr_prop
    assert np.all(fog == 0.04) and np.all(near.nbr_prop == 0.001)
    for own in (False, True):
        kept = [analyze(n, policy="no_offload", own_processing=own).mean_delay for n in (near, far)]
        assert kept[0] == pytest.approx(kept[1], abs=1e-12)  # served at home: no fog–fog hop
        moved = [analyze(n, theta=0.02, own_processing=own).mean_delay for n in (near, far)]
        assert moved[1] - moved[0] > 1e-3


def test_acceptance_fixed_point_does_not_depend_on_link_delays():
    from workbench.fog import analyze, default_scenario
    from workbench.fog.scenario import with_fog_delay

    a = analyze(with_fog_delay(default_scenario(0), 0.001), theta=0.03, e_max=2)
    b = analyze(with_fog_delay(default_scenario(0), 0.03), theta=0.03, e_max=2)
    np.testing.assert_allclose(a.fog["accept_light"], b.fog["accept_light"], atol=1e-9)
    reuse = analyze(
        with_fog_delay(default_scenario(0), 0.03),
        theta=0.03,
        e_max=2,
        acceptance=a.fog["accept_light"].to_numpy(),
    )
    assert reuse.mean_delay == pytest.approx(b.mean_delay, rel=1e-8)


def test_best_theta_falls_as_the_load_grows():
    from workbench.fog.figures import best_theta_summary, best_theta_vs_load_frame

    summary = best_theta_summary(best_theta_vs_load_frame(quick=True)).set_index(["source", "load"])
    sim = summary.loc["simulation", "best_theta"]
    model = summary.loc["model (+1/μ)", "best_theta"]
    # the quick runs cannot tell 5 from 10 ms apart (0.1-0.3 ms); a large θ's cost can
    assert sim.loc[1.4] <= sim.loc[0.6] and model.loc[1.4] < model.loc[0.6]
    frame = best_theta_vs_load_frame(quick=True)
    simulated = frame[frame["source"] == "simulation"].set_index(["load", "theta"])["delay"]
    cost = {load: simulated.loc[(load, 0.1)] - simulated.loc[load].min() for load in (0.6, 1.4)}
    assert cost[1.4] > 2 * cost[0.6]
    saved = summary.loc["simulation"]
    assert (saved["delay_at_20ms"] - saved["best_delay"]).loc[1.4] > 0.5  # ms


def test_fog_delay_view_draws_the_models_curves():
    from workbench.fog.views import (
        BASELINE_POINT,
        FOG_DELAYS,
        VIEWS,
        FogDelayFigure,
        _fog_delay_curves,
    )

    view = VIEWS["fog_delay"]()
    assert "updated" in view.status.value
    curves = _fog_delay_curves("offload", 0.02, 1, 1.0)
    assert np.all(np.diff(curves[1]) > 0) and curves.shape == (2, FOG_DELAYS.size)
    kept = _fog_delay_curves("no_offload", *BASELINE_POINT, 1.0)
    assert np.ptp(kept) < np.ptp(curves)  # no forwards: the link delay barely matters
    # an unstable baseline is named on the figure, never silently missing
    draw = FogDelayFigure()
    draw(theta=0.02, e_max=1, load=1.6)
    assert "no offloading" in draw.unstable.get_text()
    legend = [t.get_text() for t in draw.ax.get_legend().get_texts()]
    assert any("no offloading" in t and "unstable" in t for t in legend)
    draw(theta=0.02, e_max=1, load=1.0)
    assert draw.unstable.get_text() == ""
    legend = [t.get_text() for t in draw.ax.get_legend().get_texts()]
    assert not any("unstable" in t for t in legend)


def test_glossary_shows_the_real_defaults():
    """Defaults as people read them (μ' = 100/3 is 33.33, not 33.333333333333336); the
    solver's ε (once shown as 0.0) is a setting, not a symbol of the model: not listed, and
    its default reads 1 × 10⁻¹⁰ wherever it is shown."""
    from workbench.fog import PARAMS
    from workbench.numfmt import format_number
    from workbench.widgets import glossary

    html = glossary(PARAMS).value
    row = html[html.index("<td>μ'</td>") :].split("</tr>")[0]
    assert "<td>33.33</td>" in row
    assert "<td>ε</td>" not in html
    assert format_number(PARAMS["tol"].default, 4) == "1 × 10⁻¹⁰"


def test_hollow_markers_appear_exactly_for_the_flagged_points():
    from workbench.fog.figures import FIGURES
    from workbench.plots import UNSTABLE_LABEL

    # quick Light/Heavy mix: at b = 0.3 a fog node keeping everything is past ρ = 1
    frame = FIGURES["delay_vs_mix"].frame(quick=True)
    sim = frame[frame["source"] == "simulation"]
    flagged = sim[~sim["stationary"]]
    assert list(flagged["policy"]) == ["no_offload"] and list(flagged["x"]) == [0.3]
    assert flagged["delay"].notna().all()  # kept, as a transient number, not dropped
    fig = FIGURES["delay_vs_mix"].plot(frame)
    ax = fig.axes[0]
    hollow = [
        (x, y)
        for line in ax.lines
        if line.get_markerfacecolor() == "none" and line.get_marker() == "o"
        for x, y in zip(*line.get_data(), strict=True)
    ]
    assert len(hollow) == 1 and hollow[0][0] == 0.3
    # the far transient is drawn at the top edge with its value written out
    assert any(t.get_text().endswith(" s") for t in ax.texts)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert UNSTABLE_LABEL in labels
    steady = FIGURES["delay_vs_emax"].plot(FIGURES["delay_vs_emax"].frame(quick=True))
    assert UNSTABLE_LABEL not in [t.get_text() for t in steady.legends[0].get_texts()]


def test_simulation_view_greys_a_run_that_is_not_a_steady_state():
    from workbench.fog.views import plot_simulated_network

    # θ = ∞ at load 1.6: the busiest fog nodes keep every request at ρ > 1
    fig = plot_simulated_network(math.inf, 1, "distributed", 0.05, 1.6)
    assert "not a steady state" in unstable_note(fig)
    fine = plot_simulated_network(0.02, 1, "distributed", 0.05, 1.0)
    assert unstable_note(fine) == ""


def test_network_layout_is_the_same_in_every_process():
    """The network picture's positions do not depend on Python's string hashing."""
    code = (
        "from workbench.fog.figures import _layout; "
        "print(_layout(0)[0][['x', 'y']].to_numpy().round(12).tolist())"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": str(h)},
        ).stdout
        for h in (1, 2)
    }
    assert len(outs) == 1


class _Stop(Exception):
    """Raised by a spy once it has seen the run's parameters."""


def test_seeded_frames_take_the_seed_by_hand():
    """seed=0 is the published sample, seed=1 another one, the same seed the same numbers;
    there is no module-wide seed."""
    from workbench.fog.figures import network_run_frame

    def delay(**kw):
        return network_run_frame(requests=3_000, **kw)["mean_delay"].iloc[0]

    published = delay()
    moved = delay(seed=1)
    assert moved != published and delay(seed=1) == moved and delay(seed=0) == published
    # every frame that draws random numbers is given the caller's seed by FigureSpec.make
    drawn = {name for name, spec in FIGURES.items() if spec.seeded}
    assert drawn == set(FIGURES) - {"erlang_sum_stability"}


def test_the_simulation_view_runs_on_the_seed_it_is_given(monkeypatch):
    from workbench.fog import views

    seen = []

    def spy(p):
        seen.append(p.seed)
        raise _Stop

    monkeypatch.setattr(views, "network_run_frame", spy)
    for seed in (0, 4):
        with pytest.raises(_Stop):
            views.plot_simulated_network(0.02, 1, "distributed", 0.05, 1.0, seed)
    assert seen == [0, 4]
    view = views.simulation_view(seed=7)
    view.wait()
    assert seen[2:] == [7]
