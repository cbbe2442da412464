"""The notebook's views and classroom widgets (the only module of the package importing ipywidgets).

``VIEWS`` maps a view name to a callable returning the widget. Every control comes from the
parameter table (label "symbol meaning [unit]", tooltip, valid range); each service family
has its own controls, shown only with that family; m follows N (1 ≤ m ≤ N). Each ``plot_*``
function is the view's figure as a function of P4's parameter object or its keywords, the
law as ``service`` (the view turns its family controls into the law); the trade-off view
keeps one :class:`_TradeoffFigure` and updates it in place on every move, the same picture
as :func:`plot_tradeoff`. The simulation view runs each m to a precision target within a
work budget per move (module constants below). The classroom exercises are in
:mod:`workbench.redundancy.exercises`.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable

# ipywidgets and IPython's display: this module is the package's only widget module and is
# never imported by the package itself (the contract: `import workbench.redundancy` loads
# no widget library)
import ipywidgets as w
import numpy as np
from IPython.display import display
from matplotlib.ticker import FuncFormatter, NullLocator

from workbench.params import Param, takes
from workbench.plots import POLICY_COLORS, ci_errorbar, figure, flag_unstable, unstable_legend
from workbench.redundancy import model as rd
from workbench.redundancy.figures import (
    FORMULA_NAMES,
    LABELS,
    diagram,
    draw_optimum,
    draw_policies,
    integer_axis,
    stationarity_legend,
)
from workbench.redundancy.model import P4Params
from workbench.redundancy.params import FAMILY_PARAMS, FORMULAS, MAX_TOTAL_JOBS, PARAMS
from workbench.redundancy.simulation import RUN, running_mean_trace, simulate_to_precision
from workbench.redundancy.studies import BASE_SEED, policy_curves
from workbench.seeding import figure_seed
from workbench.validation import check_bool, check_type
from workbench.widgets import interactive_figure, table_html

__all__ = [
    "VIEWS",
    "plot_tradeoff",
    "plot_policies",
    "plot_simulation",
    "plot_scaling",
    "run_to_precision",
    "station_tables",
    "diagram_view",
    "tradeoff_view",
    "policies_view",
    "simulation_view",
    "scaling_view",
]

# the service controls: one set per family, visible with that family only
FAMILY_VISIBLE = {
    name: (lambda values, family=family: values["family"] == family)
    for family, names in FAMILY_PARAMS.items()
    for name in names
}
M_UP_TO_N = {"m": lambda values: (1, values["N"])}

LAM_MAX = Param(
    "lam_max",
    "λ_max",
    "largest arrival rate shown",
    unit="1/s",
    low=0.5,
    high=10.0,
    default=5.0,
    step=0.5,
    help="The figure shows 10 arrival rates from λ_max/10 to λ_max.",
    source="choice",
)
N_MAX = Param(
    "N_max",
    "N_max",
    "largest N shown",
    kind="int",
    low=10,
    high=300,
    default=120,
    step=10,
    help="Optimal m and c are computed for every N from 2 to N_max (Fig. 7: 120).",
    source="choice",
)


def service_controls(family: str | None = None) -> dict:
    """Control specs for the family dropdown and every family's own parameters, with their
    visibility (a family's controls shown with that family only).

    Parameters
    ----------
    family : str, optional
        The family shown first (a key of ``FAMILY_PARAMS``); None: the table's default.

    Returns
    -------
    dict
        Keywords of :func:`workbench.widgets.interactive_figure`: ``visible``
        (:data:`FAMILY_VISIBLE`) and name -> row (the family: (row, first value)), the
        controls' specs; each row starts at its default.
    """
    laws = {name: PARAMS[name] for names in FAMILY_PARAMS.values() for name in names}
    return {"visible": FAMILY_VISIBLE, "family": (PARAMS["family"], family), **laws}


def _law(family: str, values: dict) -> rd.ServiceTime:
    """The law of ``family`` from a view's control values; its parameters leave ``values``
    (only the shown family's controls pass their values)."""
    return rd.make_service(family, **{n: values.pop(n) for n in FAMILY_PARAMS[family]})


def _on_controls(plot, base: P4Params):
    """A view's plot callable: ``plot`` at the control values, the family's law as
    ``service``, over ``base`` (the object its view built and validated, its seed)."""

    def draw(family, **values):
        return plot(base, service=_law(family, values), **values)

    return draw


# --------------------------------------------------------------------------------------
# 1. The trade-off (Figs. 3, 5, 6), analytic
# --------------------------------------------------------------------------------------


class _TradeoffFigure:
    """The trade-off view's figure, built on the first call and updated in place afterwards.

    A move changes the curves' data, the policy markers and the texts of one figure instead
    of building axes, twin axis, ticks and legend again (most of a redraw); the axes are
    autoscaled to the new data as for freshly plotted curves.
    ``_TradeoffFigure()(**values)`` is a fresh figure.
    """

    def __init__(self):
        self.fig = None

    def _build(self):
        fig, (ax1, ax3) = figure(2, width=5.8, height=3.6, fast=True)
        fig.subplots_adjust(right=0.73, wspace=0.5)  # room for the twin's label and the legend
        ax2 = ax1.twinx()
        #: the frame's column each curve draws
        self.curves = {
            "job_time": ax1.plot([], [], "r*-", ms=4)[0],
            "blocking": ax2.plot([], [], "b^-", ms=4)[0],
            "system_time_exact": ax3.plot([], [], "-")[0],
            "system_time_paper": ax3.plot([], [], "--")[0],
        }
        # the axis labels, coloured like their curves, are the legend: nothing sits on the data
        ax1.set_xlabel(LABELS["m"])
        ax1.set_ylabel(f"{LABELS['job_time']} (red ★)", color="r")
        ax2.set_ylabel(f"{LABELS['blocking']} (blue ▲)", color="b")
        ax2.grid(False)
        self.asto = ax3.axvline(1, color=POLICY_COLORS["asto"], lw=1.2)
        self.bpo = ax3.axvline(1, color=POLICY_COLORS["bpo"], lw=1.2, ls=":")
        ax3.set(xlabel=LABELS["m"], ylabel=LABELS["system_time"])
        #: the artists the legend names, in its order
        self.named = (
            self.curves["system_time_exact"],
            self.curves["system_time_paper"],
            self.asto,
            self.bpo,
        )
        self.legend = ax3.legend(
            self.named, [""] * 4, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0)
        )
        integer_axis(ax1.xaxis)
        integer_axis(ax3.xaxis)
        self.title = fig.suptitle("", fontsize=10)
        self.fig, self.axes = fig, (ax1, ax2, ax3)

    def __call__(self, family, **values):
        """Draw the view's move: the control values (the family and its parameters among
        them), validated as :func:`plot_tradeoff` validates its keywords."""
        values["service"] = _law(family, values)
        return self.draw(_DEFAULTS.with_("plot_tradeoff", _TRADEOFF, **values))

    def draw(self, p):
        """Draw the model ``p``: the figure, built on the first call, updated afterwards."""
        # every number first: a refused value leaves the figure as it was
        df = rd.metrics_by_m(p)
        m_exact, m_paper = (int(df.loc[df[f"system_time_{f}"].idxmin(), "m"]) for f in FORMULAS)
        m_asto, m_bpo = rd.asto(p), rd.bpo(p)
        if self.fig is None:
            self._build()
        m = df["m"].to_numpy()
        for column, curve in self.curves.items():
            curve.set_data(m, df[column].to_numpy())
        self.asto.set_xdata([m_asto, m_asto])
        self.bpo.set_xdata([m_bpo, m_bpo])
        labels = (
            f"{FORMULA_NAMES['exact']}: m* = {m_exact}",
            f"{FORMULA_NAMES['paper']}: m* = {m_paper}",
            f"ASTO picks m = {m_asto}",
            f"BPO picks m = {m_bpo}",
        )
        for artist, text, label in zip(self.named, self.legend.get_texts(), labels, strict=True):
            artist.set_label(label)
            text.set_text(label)
        for ax in self.axes:
            ax.relim()
            ax.autoscale()  # at the next draw, from the new data (the twin axes share x)
        self.title.set_text(f"{p.service.label()}: N={p.N}, λ={p.lam:g} /s, T_cl={p.t_cloud:g} s")
        return self.fig


_DEFAULTS = P4Params()
_TRADEOFF = ("N", "lam", "t_cloud", "service")


@takes(P4Params, *_TRADEOFF)
def plot_tradeoff(p):
    """Left: E[T_job] and P_b vs m. Right: E[T_sys] vs m, exact and as printed, with choices.

    A fresh figure; the view updates one :class:`_TradeoffFigure` in place.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return _TradeoffFigure().draw(p)


def tradeoff_view():
    """Controls over the analytic model (Figs. 3, 5, 6): instant updates.

    Returns
    -------
    InteractiveFigure
        The view (controls, status and figure).
    """
    return interactive_figure(
        _TradeoffFigure(),
        title="Replication trade-off (analytic)",
        N=PARAMS["N"],
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls(),
    )


# --------------------------------------------------------------------------------------
# 2. Policies vs λ (Fig. 4), analytic and simulated
# --------------------------------------------------------------------------------------


@takes(P4Params, "N", "t_cloud", "service", "replications", "protocol_jobs", "seed")
def plot_policies(p, *, lam_max: float = LAM_MAX.default):
    """Fig. 4 under controls: analytic curves and simulated means with 95% CIs.

    Parameters
    ----------
    lam_max : float
        The largest arrival rate shown [1/s], in [0.5, 10]; ten rates from ``lam_max / 10``.
    seed : int
        The notebook's ``SEED``: it shifts the simulation's seeds.

    Returns
    -------
    matplotlib.figure.Figure
    """
    lam_max = LAM_MAX.check(lam_max, "plot_policies")
    lams = np.linspace(lam_max / 10, lam_max, 10)
    df = policy_curves(
        p.N,
        p.t_cloud,
        p.service,
        lams,
        n_jobs=p.protocol_jobs,
        replications=p.replications,
        base_seed=figure_seed(BASE_SEED, p.seed),
    )
    fig, ax = figure(1, width=8.5, height=4.0, fast=True)
    draw_policies(ax, df)
    stationarity_legend(ax, df, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.subplots_adjust(right=0.56)
    title = (
        f"{p.service.label()}: N={p.N}, T_cl={p.t_cloud:g} s; "
        f"{p.replications} runs × {p.protocol_jobs} jobs per point"
    )
    bad = df[~df["stationary"]]
    if len(bad):
        # hollow points, said in the title: a few transients do not grey the whole view
        ms = ", ".join(str(m) for m in sorted(set(bad["m"])))
        title += (
            f"\nhollow: {len(bad)} runs not stationary (λ ≥ {bad['lam'].min():g}, m = {ms}): "
            "started empty, not yet in steady state"
        )
    ax.set_title(title, fontsize=9)
    return fig


def policies_view(seed: int = 0):
    """Fig. 4 with simulation (each move computed in the background).

    Parameters
    ----------
    seed : int
        The notebook's ``SEED``, checked here once: every move draws from it.

    Returns
    -------
    InteractiveFigure
        The view (controls, status and figure).
    """
    base = P4Params.of("policies_view", {"seed": seed})
    return interactive_figure(
        _on_controls(plot_policies, base),
        title="ASTO vs BPO vs benchmark (Fig. 4)",
        background=True,
        N=(PARAMS["N"], 24, (4, 60)),
        t_cloud=PARAMS["t_cloud"],
        **service_controls("Pareto"),
        replications=(PARAMS["replications"], 20, (5, 200)),
        protocol_jobs=PARAMS["protocol_jobs"],
        lam_max=LAM_MAX,
    )


# --------------------------------------------------------------------------------------
# 3. Simulation vs theory: precision-driven, within a work budget per move
# --------------------------------------------------------------------------------------

#: work per slider move at most, over every m of the view, in jobs simulated: a move stays
#: under a second (``benchmarks/bench_p4_simulation_view.py`` measures it)
MOVE_BUDGET_JOBS = 3_000_000
#: what one replication costs beyond its jobs, in jobs: its share of the output analysis (the
#: detector's trend test runs per replication at every precision step), which dominates a
#: move made of short runs
REPLICATION_OVERHEAD_JOBS = 5_000
#: replications per m at least, whatever the budget (a t-interval needs a few)
MIN_VIEW_REPLICATIONS = 4
#: replications per m at most in a long run (then a progress bar shows the work)
LONG_RUN_REPLICATIONS = 400
#: seeds of the view's simulations and its running-mean trace (the same move gives the same
#: picture), shifted by the notebook's SEED passed to the view (workbench.seeding.figure_seed)
VIEW_SEED = 1
TRACE_SEED = 2

TARGET = Param(
    "rel_half_width",
    "h/E",
    "target relative half-width",
    low=0.005,
    high=0.2,
    default=0.02,
    step=0.005,
    help="Each m is simulated until the 95% interval of E[T_sys] is within ± this fraction "
    "of the estimate, or until the move's work budget (a long run: 400 replications) ends.",
    source="choice",
)
LONG_RUN = Param(
    "long_run",
    "long",
    "long run (slower, with a progress bar)",
    kind="bool",
    default=False,
    help="Off: every move stays under a second (replications capped by a work budget). "
    f"On: up to {LONG_RUN_REPLICATIONS} replications per m, with a progress bar.",
    source="choice",
)


def view_replication_cap(jobs: int, points: int, long_run: bool) -> int:
    """Replications per m a move may use: the move's budget shared by its ``points`` values
    of m, each replication costing its ``jobs`` plus :data:`REPLICATION_OVERHEAD_JOBS` (at
    least :data:`MIN_VIEW_REPLICATIONS`), or the long run's cap."""
    if long_run:
        return int(min(LONG_RUN_REPLICATIONS, MAX_TOTAL_JOBS // jobs))
    per_point = MOVE_BUDGET_JOBS // ((jobs + REPLICATION_OVERHEAD_JOBS) * points)
    return int(min(LONG_RUN_REPLICATIONS, max(MIN_VIEW_REPLICATIONS, per_point)))


@functools.lru_cache(maxsize=2048)
def _view_point(N, m, lam, t_cloud, service, room, jobs, target, cap, seed):
    """One m of the simulation view, cached: a move that changes only m, or returns to
    values seen before, simulates nothing again."""
    return simulate_to_precision(
        N=N,
        m=m,
        lam=lam,
        t_cloud=t_cloud,
        service=service,
        rel_half_width=target,
        max_replications=cap,
        initial=min(MIN_VIEW_REPLICATIONS, cap),
        jobs=jobs,
        seed=seed,
        waiting_room=room,
        overload="transient",  # drawn hollow, and the figure greyed with the note
    )


@functools.lru_cache(maxsize=256)
def _view_trace(N, m, lam, t_cloud, service, jobs, seed):
    return running_mean_trace(
        N=N, m=m, lam=lam, t_cloud=t_cloud, service=service, trace_jobs=jobs, seed=seed
    )


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", "waiting_room", "jobs", "seed")
def plot_simulation(
    p,
    *,
    rel_half_width: float = TARGET.default,
    long_run: bool = LONG_RUN.default,
    progress=None,
):
    """Simulated E[T_sys] with CIs over m against Erlang-B, and one run's running mean at m.

    Each m runs :func:`~workbench.redundancy.simulate_to_precision` to ± ``rel_half_width``
    of its estimate, with at most :func:`view_replication_cap` replications (a work budget
    per move, or the long run's cap). A point that stops at the cap is drawn as an orange
    square (its interval is wider than asked, and honest); a run that is not a steady state
    is drawn hollow and the figure is greyed with the detector's note.

    Parameters
    ----------
    rel_half_width : float
        The target relative half-width, in [0.005, 0.2].
    long_run : bool
        Up to ``LONG_RUN_REPLICATIONS`` replications per m instead of the move's budget.
    progress : callable, optional
        ``progress(done, total)``, called after each m (the view's progress bar).
    seed : int
        The notebook's ``SEED``: it shifts the view's and the trace's seeds.

    Returns
    -------
    matplotlib.figure.Figure
    """
    N, m, lam, t_cloud, svc = p.N, p.m, p.lam, p.t_cloud, p.service
    waiting_room, jobs, seed = p.waiting_room, p.jobs, p.seed
    f = "plot_simulation"
    target = TARGET.check(rel_half_width, f)
    long_run = check_bool(long_run, "long_run", f)
    check_type(progress, "progress", f, (type(None), Callable), "a function or None")
    ms = sorted(set(range(1, min(N, 12) + 1)) | {m})
    cap = view_replication_cap(jobs, len(ms), long_run)
    sims = {}
    for i, k in enumerate(ms):
        sims[k] = _view_point(
            N, k, lam, t_cloud, svc, waiting_room, jobs, target, cap, figure_seed(VIEW_SEED, seed)
        )
        if progress is not None:
            progress(i + 1, len(ms))
    exact = [rd.system_time(p.trusted(m=k, formula="exact")) for k in ms]
    fig, (ax1, ax2) = figure(2, width=5.0, height=4.6, fast=True)
    # the legends under the axes, off the curves; room above for the two-line title
    fig.subplots_adjust(bottom=0.34, top=0.8)
    ax1.plot(ms, exact, "-", color="C0", label="eq. 1, Erlang-B (w = 0)")
    _draw_view_points(ax1, ms, sims, waiting_room, target)
    ax1.axvline(m, color="grey", lw=1)
    sim = sims[m]
    tag = "" if sim.info["variance_finite"] else "; INFINITE variance"
    heavy = [k for k in ms if not sims[k].info["variance_finite"]]
    if heavy:  # an honest interval says when it cannot be trusted
        tag += f"\nm ≤ {max(heavy)}: infinite variance, the CI under-covers"
    ax1.set(
        xlabel=LABELS["m"],
        ylabel=LABELS["system_time"],
        title=f"at m={m}: P_b simulated {sim.blocking:.3f}, Erlang-B {rd.blocking(p):.3f}{tag}",
    )
    ax1.title.set_fontsize(8)
    flagged = [k for k in ms if not sims[k].stationary]
    legend_kw = {"fontsize": 7, "loc": "upper center", "bbox_to_anchor": (0.5, -0.22)}
    if flagged:
        unstable_legend(ax1, **legend_kw)
        note = sims[flagged[0]].stationarity.note
        flag_unstable(fig, f"m = {', '.join(map(str, flagged))} not stationary: {note}")
    else:
        ax1.legend(**legend_kw)
    integer_axis(ax1.xaxis)
    trace = _view_trace(N, m, lam, t_cloud, svc, max(jobs, 1000), figure_seed(TRACE_SEED, seed))
    ax2.plot(trace["jobs"], trace["running_mean"], label=f"running mean, one run, m = {m}")
    ax2.axhline(exact[ms.index(m)], color="k", ls=":", label="exact (w = 0)")
    ax2.set(xscale="log", xlabel="jobs simulated", ylabel="mean T_sys so far [s]")
    # no minor ticks and plain labels (1,000, not mathtext 10³): mathtext is slow to render
    ax2.xaxis.set_minor_locator(NullLocator())
    ax2.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.0f}"))
    ax2.legend(**legend_kw)
    reps = [sims[k].replications for k in ms]
    fig.suptitle(
        f"{svc.label()}: N={N}, λ={lam:g} /s, T_cl={t_cloud:g} s\n"
        f"target ±{target:.1%}; {min(reps)}–{max(reps)} runs × {jobs:,} jobs per m "
        f"(at most {cap}{', long run' if long_run else ''})",
        fontsize=9,
    )
    return fig


def _draw_view_points(ax, ms, sims, waiting_room, target) -> None:
    """Simulated means with CIs: black where the target was reached, orange squares where
    the replication cap came first, hollow where the run was not a steady state."""
    done = [k for k in ms if sims[k].converged or not sims[k].stationary]
    short = [k for k in ms if not sims[k].converged and sims[k].stationary]
    for ks, style in (
        (done, {"color": "k", "label": f"simulated, w = {waiting_room} (95% CI)"}),
        (short, {"color": "C1", "fmt": "s", "label": f"cap reached before ±{target:.1%}"}),
    ):
        if ks:
            ci_errorbar(
                ax,
                ks,
                [sims[k].mean for k in ks],
                [sims[k].ci_low for k in ks],
                [sims[k].ci_high for k in ks],
                stationary=[sims[k].stationary for k in ks],
                **style,
            )


def simulation_view(seed: int = 0):
    """Simulation against Erlang-B: precision-driven, under a second per move (a long run,
    switched on, shows a progress bar).

    Parameters
    ----------
    seed : int
        The notebook's ``SEED``, checked here once: every move draws from it.

    Returns
    -------
    InteractiveFigure
        The view, with its long-run bar as ``progress_bar``.
    """
    draw = _on_controls(plot_simulation, P4Params.of("simulation_view", {"seed": seed}))
    bar = w.IntProgress(
        max=1, description="long run", bar_style="info", layout=w.Layout(display="none")
    )

    def show(done, total):
        bar.max, bar.value = total, done

    def plot(long_run=False, **values):
        bar.layout.display = None if long_run else "none"
        return draw(long_run=long_run, progress=show, **values)

    view = interactive_figure(
        plot,
        title="Simulation vs theory",
        limits=M_UP_TO_N,
        background=True,
        N=(PARAMS["N"], 24, (2, 60)),
        m=PARAMS["m"],
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls("Pareto"),
        waiting_room=PARAMS["waiting_room"],
        jobs=(PARAMS["jobs"], 5_000, (1_000, 50_000)),
        rel_half_width=TARGET,
        long_run=LONG_RUN,
    )
    view.children = (*view.children[:-1], bar, view.children[-1])
    view.progress_bar = bar
    return view


# --------------------------------------------------------------------------------------
# 4. Optimal allocation vs N (Fig. 7), analytic
# --------------------------------------------------------------------------------------


@takes(P4Params, "lam", "t_cloud", "service")
def plot_scaling(p, *, N_max: int = N_MAX.default):
    """Fig. 7 under controls: optimal m and c vs N (vectorised over all (N, m) pairs).

    Parameters
    ----------
    N_max : int
        The largest N shown, in [10, 300].

    Returns
    -------
    matplotlib.figure.Figure
    """
    N_max = N_MAX.check(N_max, "plot_scaling")
    Ns = list(range(2, N_max + 1))
    fig, (ax1, ax2) = figure(2, width=5.6, height=3.4, fast=True)
    fig.subplots_adjust(right=0.8)  # room for the legend beside the curves
    for f in FORMULAS:
        d = rd.optimum_vs_workers(p.trusted(formula=f), Ns=Ns)
        draw_optimum(ax1, ax2, d)
    handles, labels = ax2.get_legend_handles_labels()
    ax2.legend(handles[-2:], labels[-2:], fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(f"{p.service.label()}: λ={p.lam:g} /s, T_cl={p.t_cloud:g} s", fontsize=10)
    return fig


def scaling_view():
    """Fig. 7 under controls (analytic and vectorised: fast moves).

    Returns
    -------
    InteractiveFigure
        The view (controls, status and figure).
    """
    return interactive_figure(
        _on_controls(plot_scaling, _DEFAULTS),
        title="Optimal allocation vs N (Fig. 7)",
        lam=PARAMS["lam"],
        t_cloud=(PARAMS["t_cloud"], 10.0),
        **service_controls(),
        N_max=N_MAX,
    )


# --------------------------------------------------------------------------------------
# 5. The model as a diagram
# --------------------------------------------------------------------------------------


def diagram_view():
    """The system drawn from its parameters, with E[T_job], P_b and E[T_sys].

    Returns
    -------
    InteractiveFigure
        The view (controls, status and figure).
    """
    return interactive_figure(
        _on_controls(diagram, _DEFAULTS),
        title="The model",
        limits=M_UP_TO_N,
        N=(PARAMS["N"], 24, (1, 60)),
        m=(PARAMS["m"], 3),
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls(),
    )


VIEWS = {
    "diagram": diagram_view,
    "tradeoff": tradeoff_view,
    "policies": policies_view,
    "simulation": simulation_view,
    "scaling": scaling_view,
}


# --------------------------------------------------------------------------------------
# Station table and a simulation run to a chosen precision
# --------------------------------------------------------------------------------------


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", "result", positional=True)
def station_tables(p, result=None):
    """The analytic station table, and the simulated one beside it when ``result`` is given.

    Parameters
    ----------
    result : SimulationResult, optional
        :func:`~workbench.redundancy.simulate`'s result for the same model.

    Returns
    -------
    ipywidgets.HBox
        The tables side by side.
    """
    boxes = [table_html(rd.station_table(p), "Analytic (eq. 1, 4)")]
    if result is not None:
        sim = rd.simulated_station_table(p, result=result)
        boxes.append(table_html(sim, f"Simulated ({result.replications} replications)"))
    for box in boxes:
        box.layout.margin = "0 2em 0 0"
    return w.HBox(boxes)


@takes(P4Params, *RUN, "seed", "half_width")
def run_to_precision(p, *, max_replications: int | None = None):
    """Simulate until the 95% interval of E[T_sys] is ± ``half_width``, with a progress bar.

    :func:`~workbench.redundancy.simulate_to_precision` with a progress bar, its result
    table (beside the exact values of the loss system) and the station tables.

    Parameters
    ----------
    max_replications : int, optional
        Where the loop stops (the shared table's 200 by default).

    Returns
    -------
    ipywidgets.VBox
        The widget (progress bar, result table, station tables); the result is its
        ``result`` attribute.
    """
    bar = w.IntProgress(max=10, description="replications", bar_style="info")
    label = w.HTML("")
    box = w.VBox([w.HBox([bar, label])])
    display(box)

    def progress(done, target, half):
        bar.max = max(target, done, 1)
        bar.value = done
        label.value = f"{done} done, ±{half:.3g} s (target ±{p.half_width:g} s)"

    result = simulate_to_precision(
        p, half_width=p.half_width, max_replications=max_replications, progress=progress
    )
    bar.bar_style = "success" if result.info["reached"] else "warning"
    bar.value = bar.max = result.replications
    table = result.table()
    if p.waiting_room == 0:  # the loss system has the exact values of eqs. 1, 4
        exact = (rd.system_time(p.trusted(formula="exact")), rd.blocking(p), 0)
        table.insert(1, "exact", [f"{x:.4g}" for x in exact])
    notes = "".join(f"<p><i>{html.escape(n)}</i></p>" for n in result.notes)
    box.children = [
        *box.children,
        table_html(table.reset_index(), f"E[T_sys], P_b and wait: {result._caption()}"),
        w.HTML(notes),
        station_tables(p, result=result),
    ]
    box.result = result
    return box
