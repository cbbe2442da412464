"""P3 slider views redraw one figure in place: after every move it must show the model's
numbers at the new setting (never the previous move's), and a refused move still greys it.

Latency is measured in benchmarks/bench_slider_latency.py; the browser runs are in
tests/test_browser.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgba

import workbench.datacenters.views as views
from workbench.datacenters import limit_analysis, solve_exact
from workbench.validation import ParameterError

P_GRID = np.linspace(0.0, 1.0, 11)


def _cooperation_setting(v):
    """The view's controls as the model's arguments: λᵢ = loadᵢ N and Cᵢ = cᵢ N."""
    n = v["N"]
    lam = (v["load1"] * n, v["load2"] * n)
    servers = (max(1, round(v["c1"] * n)), max(1, round(v["c2"] * n)))
    return lam, servers, (v["mu1"], v["mu2"]), (v["p1"], v["p2"])


def _inside_the_axes(ax, *ys):
    low, high = ax.get_ylim()
    return all(low <= y <= high for values in ys for y in np.ravel(values))


def _check_cooperation_drawing(drawing, v):
    lam, servers, mu, p = _cooperation_setting(v)
    curve = np.array([solve_exact(lam, servers, mu, (q, p[1]), tol=1e-10).beta for q in P_GRID])
    assert drawing.beta1.get_ydata() == pytest.approx(curve[:, 0], rel=1e-6, abs=1e-12)
    assert drawing.beta2.get_ydata() == pytest.approx(curve[:, 1], rel=1e-6, abs=1e-12)
    loss = (lam[0] * curve[:, 0] + lam[1] * curve[:, 1]) / (lam[0] + lam[1])
    assert drawing.loss.get_ydata() == pytest.approx(loss, rel=1e-6, abs=1e-12)
    assert drawing.p1_marker.get_xdata()[0] == pytest.approx(p[0])
    now = solve_exact(lam, servers, mu, p, tol=1e-10).beta
    assert [b.get_height() for b in drawing.exact_bars] == pytest.approx(now, rel=1e-6, abs=1e-12)
    left, right = drawing.axes
    assert _inside_the_axes(left, curve, loss)  # the y range follows the new data
    assert _inside_the_axes(right, now)
    return now


def test_cooperation_view_draws_the_models_blocking_after_every_move():
    view = views.VIEWS["cooperation"]()
    drawing = view._plot  # the view's figure object, updated in place by every move
    fig = drawing.fig
    first = drawing.beta1.get_ydata().copy()
    for name, value in [("p2", 0.7), ("N", 12), ("load1", 2.0), ("c2", 0.5), ("p1", 0.25)]:
        view.controls[name].value = value
        assert not view.stale and view.drawn_values == view.values, view.status.value
        v = view.values
        now = _check_cooperation_drawing(drawing, v)
        lam, servers, mu, p = _cooperation_setting(v)
        limit = limit_analysis(
            (v["load1"], v["load2"]), (servers[0] / v["N"], servers[1] / v["N"]), mu, p
        ).beta
        assert [b.get_height() for b in drawing.limit_bars] == pytest.approx(limit, abs=1e-6)
        assert all(b.get_visible() for b in drawing.limit_bars)
        labels = [t.get_text() for t in drawing.value_labels]
        assert labels == [f"{x:.3f}" for x in (*now, *drawing_limits(drawing))]
        assert f"N = {v['N']}" in drawing.legend1.texts[0].get_text()
        assert f"p₂ = {v['p2']:.2f}" in drawing.xlabel0.get_text()
    assert drawing.fig is fig  # one figure throughout
    assert np.abs(drawing.beta1.get_ydata() - first).max() > 1e-3  # the moves changed the data


def drawing_limits(drawing):
    return [b.get_height() for b in drawing.limit_bars]


def test_cooperation_view_drops_an_uncertified_limit_and_brings_it_back():
    view = views.VIEWS["cooperation"]()
    drawing = view._plot
    view.controls["load1"].value = 1.05  # both centres just overloaded: no certified limit
    view.controls["load2"].value = 1.05
    assert not view.stale and not view.errors
    _check_cooperation_drawing(drawing, view.values)
    assert drawing.uncertified.get_visible()
    assert not any(b.get_visible() for b in drawing.limit_bars)
    assert (
        len(drawing.legend1.texts) == 1 and sum(t.get_visible() for t in drawing.value_labels) == 2
    )
    view.controls["load1"].value = 1.5
    _check_cooperation_drawing(drawing, view.values)
    assert not drawing.uncertified.get_visible() and len(drawing.legend1.texts) == 2


def test_cooperation_figure_is_right_where_the_y_axis_needs_a_power_of_ten():
    # lightly loaded centres block ~1e-20 of requests: the y axis writes "1e−20" at its top,
    # and the figure goes back to matplotlib's own title placement (the figure is rebuilt)
    drawing = views._CooperationFigure(fixed_titles=True)
    light = dict(load1=0.1, load2=0.1, c1=1.0, c2=1.0, N=30, mu1=1.0, mu2=1.0, p1=0.5, p2=0.5)
    drawing(**{**light, "load1": 1.5, "load2": 0.8})
    assert drawing.pinned == (True, True)
    drawing(**light)
    assert drawing.pinned == (False, True)
    assert 0 < drawing.beta1.get_ydata().max() < 1e-15
    _check_cooperation_drawing(drawing, light)
    assert drawing.title0.get_text().startswith("C = (30, 30)")
    drawing(**{**light, "load1": 1.5, "load2": 0.8})  # and back
    assert drawing.pinned == (True, True)
    _check_cooperation_drawing(drawing, {**light, "load1": 1.5, "load2": 0.8})


def test_model_view_draws_the_models_busy_servers_after_every_move():
    view = views.VIEWS["model"]()
    drawing = view._plot
    busy_colour = to_rgba("C0")
    moves = [("lam1", 45.0), ("C2", 30), ("p2", 0.8), ("C1", 6), ("mu2", 2.0)]
    for name, value in moves:
        view.controls[name].value = value
        assert not view.stale and view.drawn_values == view.values, view.status.value
        v = view.values
        servers = (v["C1"], v["C2"])
        sol = solve_exact((v["lam1"], v["lam2"]), servers, (v["mu1"], v["mu2"]), (v["p1"], v["p2"]))
        summary = drawing.summary.get_text()
        beta, busy = sol.beta, sol.mean_busy
        for part in (
            f"β₁ = {beta[0]:.3f}",
            f"β₂ = {beta[1]:.3f}",
            f"E[ℓ₁] = {busy[0]:.1f}",
            f"E[ℓ₂] = {busy[1]:.1f}",
        ):
            assert part in summary, (part, summary)
        for i, squares in enumerate(drawing.diagram.squares):
            drawn = [s for s in squares if s.get_visible()]
            assert len(drawn) == min(servers[i], 24)
            shaded = sum(s.get_facecolor() == busy_colour for s in drawn)
            assert shaded == round(len(drawn) * sol.mean_busy[i] / servers[i]), (i, shaded)
        texts = " ".join(t.get_text() for t in drawing.diagram.ax.texts)
        for part in (
            f"λ₁ = {v['lam1']:g}",
            f"C₂ = {v['C2']}",
            f"p₂ = {v['p2']:g}",
            f"μ₂ = {v['mu2']:g}",
        ):
            assert part in texts, part


def test_a_refused_move_greys_the_figure_and_the_next_move_draws_the_new_values(monkeypatch):
    view = views.VIEWS["cooperation"]()
    drawing, png = view._plot, view.image.value
    solve = views.solve_exact

    def refuse_p2_of_09(par):
        if par.p[1] == 0.9:
            raise ParameterError("cooperation_view: the 'p' parameter is refused here (test)")
        return solve(par)

    monkeypatch.setattr(views, "solve_exact", refuse_p2_of_09)
    view.controls["p2"].value = 0.9
    assert view.stale and view.errors and "refused" in view.status.value
    assert view.image.value == png  # the old picture stays, greyed
    view.controls["p2"].value = 0.45
    assert not view.stale and view.drawn_values == view.values
    _check_cooperation_drawing(drawing, view.values)
