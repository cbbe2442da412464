"""P4 figures: tidy frames, slide-ready plots (labelled axes, integer axes, CIs above 0)."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Circle
from shared_results import results_cache

import workbench.redundancy as rd
from workbench import ParameterError
from workbench.redundancy.figures import FIGURES, diagram


@pytest.fixture(scope="module")
def made():
    with results_cache():  # the notebook's frames, computed once a run
        return {name: spec.make(quick=True) for name, spec in FIGURES.items()}


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_axis_is_labelled_and_titled(made, name):
    frame, fig = made[name]
    assert isinstance(fig, Figure) and len(frame) > 0
    for ax in fig.axes:
        if not ax.axison:
            continue  # Table I is a table
        assert ax.get_xlabel() or ax.get_shared_x_axes().get_siblings(ax) != [ax], name
        assert ax.get_ylabel(), f"{name}: unlabelled y axis"
    titles = [ax.get_title() for ax in fig.axes] + [fig.get_suptitle()]
    stated = [t for t in titles if "T_cl" in t or "N=24" in t or "N = 24" in t]
    assert stated, f"{name} states no parameters: {titles}"


@pytest.mark.parametrize("name", ["fig4", "ext_eq8", "ext_waiting_room"])
def test_intervals_of_positive_quantities_stay_above_zero(made, name):
    frame, _ = made[name]
    assert (frame["sim_ci_low"] >= 0).all()
    if "sim_blocking_ci_low" in frame:
        assert frame["sim_blocking_ci_low"].between(0, 1).all()
        assert frame["sim_blocking_ci_high"].between(0, 1).all()


def test_optimal_m_and_c_axes_have_integer_ticks(made):
    _, fig = made["fig7"]
    for ax in fig.axes:
        ticks = ax.yaxis.get_majorticklocs()
        assert np.allclose(ticks, np.round(ticks)), ticks


def test_legends_of_figs_4_5_6_are_off_the_data(made):
    for name in ("fig4", "fig5", "fig6"):
        _, fig = made[name]
        assert fig.legends and not any(ax.get_legend() for ax in fig.axes), name


def test_table1_is_a_compact_table():
    frame, fig = FIGURES["table1"].make()
    table = fig.axes[0].tables[0]
    rows = {r for r, _ in table.get_celld()}
    assert len(rows) == 11  # header + one row per (family, parameter)
    assert fig.get_figheight() < 5


@pytest.mark.parametrize(("N", "m"), [(24, 3), (7, 3), (60, 1), (5, 5)])
def test_diagram_draws_the_groups_of_the_parameters(N, m):
    fig = diagram(N, m, 1.5, 15.0, rd.SExp(3.0, 0.2))
    circles = [p for p in fig.axes[0].patches if isinstance(p, Circle)]
    assert len(circles) == min(N // m, 8) * min(m, 12)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert f"c = ⌊N/m⌋ = {N // m} groups of m = {m}" in texts
    assert (f"{N % m} idle" in texts) == (N % m > 0)
    with pytest.raises(ParameterError, match="'m' parameter of diagram"):
        diagram(N, N + 1, 1.5, 15.0)


@pytest.mark.parametrize("name", ["ext_eq8", "ext_waiting_room"])
def test_no_simulated_point_of_a_figure_grid_is_flagged(made, name):
    # a loss system (and a waiting room of at most 8 places at ρ < 1) is stable, and these
    # runs are long enough to reach it: an alarm would be a false one
    frame, _ = made[name]
    assert frame["stationary"].dtype == bool and frame["stationary"].all()


def test_fig4_flags_no_steady_point_and_its_slow_transient_shows_against_erlang_b(made):
    # 500 jobs from empty: with one Pareto(1.5, 1.2) replica per job (infinite variance) the
    # servers fill with long jobs for far longer than 500 arrivals. The climb within a run is
    # too slow for the detector (p ~ 0.03 over 100 runs at λ = 4.75), so the transient shows
    # only against Erlang-B; the detector may flag those points, and must flag no other
    frame, _ = made["fig4"]
    flagged = frame[~frame["stationary"]]
    assert (flagged["service"] == "Pareto(1.5, 1.2)").all() and (flagged["m"] == 1).all()
    steady = frame[frame["stationary"] & frame["service"].str.startswith("S-Exp")]
    assert len(steady) == (frame["service"].str.startswith("S-Exp")).sum()
    slow = frame[
        (frame["service"] == "Pareto(1.5, 1.2)") & (frame["m"] == 1) & (frame["lam"] >= 3.5)
    ]
    assert len(slow) > 0
    erlang = np.array([rd.blocking(24, 1, lam, rd.Pareto(1.5, 1.2)) for lam in slow["lam"]])
    assert (slow["sim_blocking"] < 0.75 * erlang).all()  # far below the steady state


def _hollow_and_filled(ax):
    hollow, filled = [], []
    for line in ax.lines:
        if line.get_marker() == "o" and line.get_linestyle() in ("None", "", " "):
            target = hollow if str(line.get_markerfacecolor()) == "none" else filled
            target += list(line.get_xdata())
    return sorted(hollow), sorted(filled)


def test_hollow_markers_exactly_for_flagged_points(made):
    import matplotlib.pyplot as plt

    from workbench.redundancy.figures import plot_fig4

    frame, _ = made["fig4"]
    more = frame.copy()  # and two ASTO points as if they had been flagged too
    more.loc[(more["policy"] == "asto") & more["lam"].isin([0.75, 2.25]), "stationary"] = False
    for data in (frame, more):
        fig = plot_fig4(data)
        for ax, (_, df) in zip(fig.axes, data.groupby("service", sort=False), strict=True):
            hollow, filled = _hollow_and_filled(ax)
            assert hollow == sorted(df.loc[~df["stationary"], "lam"])
            assert len(filled) == df["stationary"].sum()
        labels = [t.get_text() for t in fig.legends[0].texts]
        # the legend explains hollow markers exactly when some point is drawn hollow
        explained = any("hollow: not stationary" in t for t in labels)
        assert explained == (not data["stationary"].all())
        plt.close(fig)
