"""P4 notebook views: per-family controls, m follows N, no stale figure, speed, exercises.

The real browser runs are in tests/test_browser.py; here the widgets are driven in Python.
"""

import contextlib
import io
import time

import numpy as np
import pytest

import workbench.redundancy as rd
import workbench.redundancy.model as rd_model
import workbench.redundancy.studies as rd_studies
from workbench.exercises import show
from workbench.plots import unstable_note
from workbench.redundancy.exercises import EXERCISES
from workbench.redundancy.params import FAMILY_PARAMS, PARAMS
from workbench.redundancy.views import (
    VIEWS,
    plot_scaling,
    plot_tradeoff,
    run_to_precision,
    station_tables,
)
from workbench.validation import ParameterError


def _quiet(make):
    with contextlib.redirect_stdout(io.StringIO()):
        return make()


@pytest.fixture(scope="module")
def tradeoff():
    return _quiet(VIEWS["tradeoff"])


@pytest.mark.parametrize("family", list(FAMILY_PARAMS))
def test_each_family_shows_its_own_controls_with_valid_ranges(tradeoff, family):
    tradeoff.controls["family"].value = family
    assert not tradeoff.stale and not tradeoff.errors, tradeoff.status.value
    shown = {n for n, c in tradeoff.controls.items() if c.layout.display != "none"}
    for fam, names in FAMILY_PARAMS.items():
        assert set(names) <= shown if fam == family else not set(names) & shown
    assert tradeoff.drawn_values == tradeoff.values  # the figure shows these values
    for name in FAMILY_PARAMS[family]:
        ctl, p = tradeoff.controls[name], PARAMS[name]
        p.check(ctl.min, "test"), p.check(ctl.max, "test")  # no slider value is refused
        assert p.symbol in ctl.description and ctl.tooltip


def test_every_move_draws_a_figure_of_the_current_values(tradeoff):
    tradeoff.controls["family"].value = "S-Exp"
    drawn = len(tradeoff.latencies_ms)
    tradeoff.controls["lam"].value = 2.0
    assert len(tradeoff.latencies_ms) == drawn + 1 and not tradeoff.stale
    assert tradeoff.drawn_values == tradeoff.values


def _service_of(values):
    family = values["family"]
    return rd.make_service(family, **{n: values[n] for n in FAMILY_PARAMS[family]})


def _check_tradeoff_drawing(drawing, v):
    """The drawn curves, markers and legend are the model's at the values ``v``."""
    N, lam, t_cloud, svc = v["N"], v["lam"], v["t_cloud"], _service_of(v)
    m = np.arange(1, N + 1)
    expected = {
        drawing.curves["job_time"]: [svc.job_time_mean(k) for k in m],
        drawing.curves["blocking"]: [rd.blocking(N, k, lam, svc) for k in m],
        drawing.curves["system_time_exact"]: [rd.system_time(N, k, lam, t_cloud, svc) for k in m],
        drawing.curves["system_time_paper"]: [
            rd.system_time(N, k, lam, t_cloud, svc, "paper") for k in m
        ],
    }
    for line, values in expected.items():
        assert np.array_equal(line.get_xdata(), m)
        assert line.get_ydata() == pytest.approx(values, rel=1e-9)
        low, high = line.axes.get_ylim()  # the y range follows the new data
        assert low <= min(values) and max(values) <= high
    assert line.axes.get_xlim()[0] <= 1 and N <= line.axes.get_xlim()[1]
    asto, bpo = rd.asto(N, lam, t_cloud, svc), rd.bpo(N, lam, svc)
    assert drawing.asto.get_xdata()[0] == asto and drawing.bpo.get_xdata()[0] == bpo
    legend = [t.get_text() for t in drawing.legend.get_texts()]
    assert legend[0].endswith(f"m* = {rd.optimal_m(N, lam, t_cloud, svc)}")
    assert legend[1].endswith(f"m* = {rd.optimal_m(N, lam, t_cloud, svc, 'paper')}")
    assert legend[2:] == [f"ASTO picks m = {asto}", f"BPO picks m = {bpo}"]
    assert f"N={N}, λ={lam:g} /s" in drawing.title.get_text()


def test_tradeoff_view_draws_the_models_curves_after_every_move(tradeoff):
    tradeoff.controls["family"].value = "S-Exp"
    drawing = tradeoff._plot  # the view's figure object, updated in place by every move
    fig, first = drawing.fig, drawing.curves["system_time_exact"].get_ydata().copy()
    moves = [
        ("N", 40),
        ("lam", 3.0),
        ("t_cloud", 30.0),
        ("delta", 1.0),
        ("family", "Pareto"),
        ("alpha", 2.5),
        ("N", 7),
    ]
    for name, value in moves:
        tradeoff.controls[name].value = value
        assert not tradeoff.stale and tradeoff.drawn_values == tradeoff.values
        _check_tradeoff_drawing(drawing, tradeoff.values)
    assert drawing.fig is fig and len(drawing.curves["system_time_exact"].get_ydata()) != len(first)
    tradeoff.controls["N"].value = PARAMS["N"].default


def test_a_refused_tradeoff_move_greys_the_figure_then_the_next_draws_anew(monkeypatch):
    view = _quiet(VIEWS["tradeoff"])
    drawing, png = view._plot, view.image.value
    metrics = rd_model.metrics_by_m

    def refuse_lam_4(p, ms=None):
        if p.lam == 4.0:
            raise ParameterError("metrics_by_m: λ = 4 refused here (test)")
        return metrics(p, ms=ms)

    monkeypatch.setattr(rd_model, "metrics_by_m", refuse_lam_4)
    view.controls["lam"].value = 4.0
    assert view.stale and view.errors and "refused" in view.status.value
    assert view.image.value == png  # the old picture stays, greyed
    view.controls["lam"].value = 2.5
    assert not view.stale and view.drawn_values == view.values
    _check_tradeoff_drawing(drawing, view.values)


def test_m_follows_N_and_is_never_silently_clamped():
    view = _quiet(VIEWS["diagram"])
    view.controls["m"].value = 20
    view.controls["N"].value = 2
    assert view.controls["m"].max == 2 and view.controls["m"].value <= 2
    assert view.drawn_values["m"] == view.controls["m"].value  # figure and control agree
    view.controls["N"].value = 40
    assert view.controls["m"].max == 40


def test_simulation_view_obeys_m_at_most_N():
    view = _quiet(VIEWS["simulation"])
    view.wait(120)
    view.controls["N"].value = 2
    view.wait(120)
    assert view.controls["m"].max == 2 and view.drawn_values["m"] <= 2 and not view.errors


def _warm_median_ms(fn, moves):
    fn(**moves[0])
    times = []
    for kw in moves:
        t0 = time.perf_counter()
        fn(**kw)
        times.append(1e3 * (time.perf_counter() - t0))
    return float(np.median(times)), max(times)


def test_fig7_view_answers_fast_even_for_slow_families():
    # before: 3.8 s per move for Weibull(3, 0.2), 22-30 s for Weibull(0.5, 2), 135 s at 300
    moves = [dict(service=rd.Weibull(0.5, 2.0), N_max=300, lam=lam) for lam in (0.5, 1.5, 4)] + [
        dict(service=rd.Weibull(3.0, 0.2), N_max=300, lam=lam) for lam in (0.5, 4)
    ]
    median, worst = _warm_median_ms(plot_scaling, moves)
    # goal: < 100 ms median on an idle machine; the bound leaves room for a loaded one
    assert median < 300 and worst < 1500, (median, worst)


def test_tradeoff_view_answers_fast():
    moves = [dict(N=n, lam=1.5, service=rd.Pareto(1.5, 1.2)) for n in (24, 120, 60)]
    median, worst = _warm_median_ms(plot_tradeoff, moves)
    assert median < 300 and worst < 1500, (median, worst)


@pytest.mark.parametrize("number", range(1, len(EXERCISES) + 1))
def test_exercises_accept_their_answer_and_reject_a_wrong_one(number):
    ex = show("p4", number)
    assert ex.check(ex.answer)
    if ex.choices is None:
        assert not ex.check(float(ex.answer) + 2 * ex.tolerance + 1.0)
    else:
        assert not ex.check(next(c for c in ex.choices if c != ex.answer))
    assert ex.children[-1].get_title(0).startswith("Solution")  # folded solution


def test_exercise_answers_come_from_the_model():
    by_key = {q.key: q for q in EXERCISES}
    assert by_key["erlang_b"].value() == rd.blocking(24, 3, 2.0, rd.SExp(3.0, 0.2))
    assert by_key["insensitivity"].value() == "it stays the same"
    assert by_key["optimal_m"].value() == rd.optimal_m(24, 1.5, 15.0, rd.Pareto(1.5, 1.2))
    gap = rd.system_time(24, 4, 6.0, 15.0, rd.SExp(3.0, 0.2), "paper") - rd.system_time(
        24, 4, 6.0, 15.0, rd.SExp(3.0, 0.2)
    )
    assert by_key["eq8"].value() == gap


def test_run_to_precision_reaches_the_target_and_shows_the_tables():
    box = _quiet(
        lambda: run_to_precision(
            N=24, m=3, lam=1.5, t_cloud=15.0, service=rd.SExp(3, 0.2), half_width=0.05, jobs=2000
        )
    )
    assert box.result.info["reached"] and box.result.half_width <= 0.05
    bar = box.children[0].children[0]
    assert bar.value == bar.max == box.result.replications
    assert len(box.children) == 4  # progress, estimates, notes, station tables
    assert len(station_tables(24, 3, 1.5, 15.0, rd.SExp(3, 0.2), box.result).children) == 2


def test_views_refuse_a_misspelled_service_parameter():
    with pytest.raises(ParameterError, match="plot_tradeoff.*'t_clod'.*Did you mean 't_cloud'"):
        plot_tradeoff(t_clod=15.0)
    with pytest.raises(ParameterError, match="run_to_precision.*'job'.*Did you mean 'jobs'"):
        run_to_precision(job=1_000)


# ----- the simulation view: precision-driven within a work budget per move ------------------


def test_the_move_budget_bounds_the_replications_per_m():
    from workbench.redundancy.views import (
        LONG_RUN_REPLICATIONS,
        MIN_VIEW_REPLICATIONS,
        MOVE_BUDGET_JOBS,
        REPLICATION_OVERHEAD_JOBS,
        view_replication_cap,
    )

    for jobs in (1_000, 5_000, 20_000, 50_000):
        cap = view_replication_cap(jobs, 13, long_run=False)
        assert cap >= MIN_VIEW_REPLICATIONS
        cost = cap * (jobs + REPLICATION_OVERHEAD_JOBS) * 13
        assert cap == MIN_VIEW_REPLICATIONS or cost <= MOVE_BUDGET_JOBS
    assert view_replication_cap(5_000, 13, long_run=True) == LONG_RUN_REPLICATIONS


def _legend_texts(fig):
    return [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().texts]


def test_points_short_of_the_target_are_marked_not_dropped():
    from workbench.redundancy.views import plot_simulation

    # α = 1.05 and a 0.5 % target: the heavy-tailed small m cannot get there within the budget
    fig = plot_simulation(N=12, service=rd.Pareto(1.5, 1.05), jobs=20_000, rel_half_width=0.005)
    ax = fig.axes[0]
    xs = sorted(x for line in ax.lines if line.get_marker() in ("o", "s") for x in line.get_xdata())
    assert xs == list(range(1, 13))  # every m is drawn
    assert any("cap reached before" in t for t in _legend_texts(fig))


def test_an_overloaded_waiting_room_is_drawn_hollow_and_greyed():
    from workbench.redundancy.views import plot_simulation

    # ρ = 0.79 · 8 / 6 = 1.05: the 30 places fill after about 600 arrivals, more than 500
    fig = plot_simulation(N=6, m=1, lam=0.79, service=rd.SExp(3.0, 0.2), waiting_room=30, jobs=500)
    assert "not stationary" in unstable_note(fig)
    assert any("not stationary" in t for t in _legend_texts(fig))


def test_a_long_run_shows_its_progress_bar():
    view = _quiet(VIEWS["simulation"])
    view.wait(120)
    bar = view.progress_bar
    assert bar.layout.display == "none"  # a budgeted move needs no bar
    view.controls["jobs"].value = 1_000
    view.controls["long_run"].value = True
    view.wait(300)
    assert bar.layout.display is None and bar.value == bar.max > 1 and not view.errors


def test_simulate_to_precision_returns_a_transient_when_asked():
    sexp = rd.SExp(3.0, 0.2)
    # the 100,000 places fill after about 250,000 arrivals: refused before any work
    kw = dict(N=24, m=1, lam=5.0, t_cloud=15.0, service=sexp, waiting_room=100_000, jobs=20_000)
    res = rd.simulate_to_precision(**kw, rel_half_width=0.01, overload="transient", initial=4)
    assert not res.stationary and not res.converged and res.replications == 4
    with pytest.raises(ParameterError):
        rd.simulate_to_precision(**kw, rel_half_width=0.01)


def test_each_door_checks_its_own_arguments_once():
    """A view checks the seed at its door (the error names it); its moves trust the seed, and
    a direct call of a plot function checks its own keywords (the error names that)."""
    from workbench.redundancy.views import plot_policies, plot_simulation

    for name in ("policies", "simulation"):
        with pytest.raises(ParameterError, match=f"'seed' parameter of {name}_view"):
            VIEWS[name](seed=-1)
    with pytest.raises(ParameterError, match="'seed' parameter of plot_policies"):
        plot_policies(seed=-1)
    with pytest.raises(ParameterError, match="'lam_max' parameter of plot_policies"):
        plot_policies(lam_max=0.0)
    with pytest.raises(ParameterError, match="'N_max' parameter of plot_scaling"):
        plot_scaling(N_max=1)
    for bad in ({"long_run": "yes"}, {"progress": 5}):  # refused before any simulation
        with pytest.raises(ParameterError, match=f"'{next(iter(bad))}' parameter of plot_sim"):
            plot_simulation(jobs=1_000, **bad)
    with pytest.raises(ParameterError, match="'table1_N_small' parameter of table1_frame"):
        rd_studies.table1_frame(table1_N_small=0)
    table = rd_studies.table1_frame()
    small = rd_studies.table1_frame(table1_t_cloud_small=5.0)
    cells = small["parameter"].eq("t_cloud") & small["level"].eq("small")
    assert (small.loc[cells, "value"] == 5.0).all()  # the keyword reaches its cells
    assert not small["m_opt"].equals(table["m_opt"])  # and moves their optimum
    baseline = rd_studies.table1_frame(table1_t_cloud=50.0)  # the baseline moves every cell
    assert (baseline["value"] == table["value"]).all() and not baseline.equals(table)
