"""The notebook's views and classroom widgets (the only module of the package importing ipywidgets).

``VIEWS`` maps a view name to a callable returning the widget. Every control comes from the
parameter table (label "symbol meaning [unit]", tooltip, valid range); each service family
has its own controls, shown only with that family; m follows N (1 ≤ m ≤ N). Each ``plot_*``
function is the view's figure as a plain function of the control values (the benchmarks
time it directly); the trade-off view keeps one :class:`_TradeoffFigure` and updates it in
place on every move, the same picture as :func:`plot_tradeoff`. ``EXERCISES`` are the
classroom section's prediction exercises, their answers computed by the library.
"""

from __future__ import annotations

import html

import ipywidgets as w
import numpy as np

from workbench.params import Param
from workbench.plots import POLICY_COLORS, ci_errorbar, figure, flag_unstable, unstable_legend
from workbench.redundancy import model as rd
from workbench.redundancy.figures import (
    FORMULA_NAMES,
    LABELS,
    _draw_policies,
    _legend,
    _policy_curves,
    diagram,
    draw_optimum,
)
from workbench.redundancy.params import FAMILY_PARAMS, FORMULAS, PARAMS
from workbench.redundancy.simulation import (
    running_mean_trace,
    simulate,
    simulate_to_precision,
    simulated_station_table,
)
from workbench.validation import reject_unknown
from workbench.widgets import exercise, interactive_figure, table_html

__all__ = [
    "VIEWS",
    "EXERCISES",
    "plot_tradeoff",
    "plot_policies",
    "plot_simulation",
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


def service_controls(family: str = "S-Exp", **values) -> dict:
    """Control specs for the family dropdown and every family's own parameters."""
    reject_unknown("service_controls", values, _FAMILY_PARAM_NAMES)
    specs = {"family": (PARAMS["family"], family)}
    for names in FAMILY_PARAMS.values():
        for name in names:
            specs[name] = (PARAMS[name], values.get(name, PARAMS[name].default))
    return specs


def _service(family: str, params: dict, func: str = "view") -> rd.ServiceTime:
    """The service law of ``family`` from the visible controls' values (the other families'
    parameters are ignored; a name that is no family's parameter is refused)."""
    reject_unknown(func, params, _FAMILY_PARAM_NAMES)
    names = FAMILY_PARAMS[PARAMS["family"].check(family, func)]
    return rd.make_service(family, **{n: params.get(n, PARAMS[n].default) for n in names})


_FAMILY_PARAM_NAMES = tuple(n for names in FAMILY_PARAMS.values() for n in names)


def _integer_ticks(*axes) -> None:
    from matplotlib.ticker import MaxNLocator

    for axis in axes:
        axis.set_major_locator(MaxNLocator(integer=True))


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
        # the axis labels, coloured like their curves, are the legend: nothing sits on the data
        (self.job_time,) = ax1.plot([], [], "r*-", ms=4)
        ax1.set_xlabel(LABELS["m"])
        ax1.set_ylabel(f"{LABELS['job_time']} (red ★)", color="r")
        ax2 = ax1.twinx()
        (self.blocking,) = ax2.plot([], [], "b^-", ms=4)
        ax2.set_ylabel(f"{LABELS['blocking']} (blue ▲)", color="b")
        ax2.grid(False)
        (self.exact,) = ax3.plot([], [], "-")
        (self.paper,) = ax3.plot([], [], "--")
        self.asto = ax3.axvline(1, color=POLICY_COLORS["asto"], lw=1.2)
        self.bpo = ax3.axvline(1, color=POLICY_COLORS["bpo"], lw=1.2, ls=":")
        ax3.set(xlabel=LABELS["m"], ylabel=LABELS["system_time"])
        self.legend = ax3.legend(
            [self.exact, self.paper, self.asto, self.bpo], [""] * 4, fontsize=7,
            loc="upper left", bbox_to_anchor=(1.02, 1.0),
        )  # fmt: skip
        _integer_ticks(ax1.xaxis, ax3.xaxis)
        self.title = fig.suptitle("", fontsize=10)
        self.fig, self.axes = fig, (ax1, ax2, ax3)

    def __call__(self, N=24, lam=1.5, t_cloud=15.0, family="S-Exp", **service_params):
        # every number first: a refused value leaves the figure as it was
        svc = _service(family, service_params, "plot_tradeoff")
        df = rd.metrics_by_m(N, lam, t_cloud, svc)
        m_exact, m_paper = (int(df.loc[df[f"system_time_{f}"].idxmin(), "m"]) for f in FORMULAS)
        m_asto, m_bpo = rd.asto(N, lam, t_cloud, svc), rd.bpo(N, lam, svc)
        if self.fig is None:
            self._build()
        m = df["m"].to_numpy()
        self.job_time.set_data(m, df["job_time"].to_numpy())
        self.blocking.set_data(m, df["blocking"].to_numpy())
        self.exact.set_data(m, df["system_time_exact"].to_numpy())
        self.paper.set_data(m, df["system_time_paper"].to_numpy())
        self.asto.set_xdata([m_asto, m_asto])
        self.bpo.set_xdata([m_bpo, m_bpo])
        labels = (
            f"{FORMULA_NAMES['exact']}: m* = {m_exact}",
            f"{FORMULA_NAMES['paper']}: m* = {m_paper}",
            f"ASTO picks m = {m_asto}",
            f"BPO picks m = {m_bpo}",
        )
        for artist, text, label in zip(
            (self.exact, self.paper, self.asto, self.bpo), self.legend.get_texts(), labels,
            strict=True,
        ):  # fmt: skip
            artist.set_label(label)
            text.set_text(label)
        for ax in self.axes:
            ax.relim()
            ax.autoscale()  # at the next draw, from the new data (the twin axes share x)
        self.title.set_text(f"{svc.label()}: N={N}, λ={lam:g} /s, T_cl={t_cloud:g} s")
        return self.fig


def plot_tradeoff(N=24, lam=1.5, t_cloud=15.0, family="S-Exp", **service_params):
    """Left: E[T_job] and P_b vs m. Right: E[T_sys] vs m, exact and as printed, with choices.

    A fresh figure; the view updates one :class:`_TradeoffFigure` in place.
    """
    return _TradeoffFigure()(N, lam, t_cloud, family, **service_params)


def explore_tradeoff():
    """Controls over the analytic model (Figs. 3, 5, 6): instant updates."""
    return interactive_figure(
        _TradeoffFigure(),
        title="Replication trade-off (analytic)",
        visible=FAMILY_VISIBLE,
        N=PARAMS["N"],
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls(),
    )


# --------------------------------------------------------------------------------------
# 2. Policies vs λ (Fig. 4), analytic and simulated
# --------------------------------------------------------------------------------------


def plot_policies(
    N=24, t_cloud=15.0, family="Pareto", replications=20, n_jobs=500, lam_max=5.0, **service_params
):
    """Fig. 4 under controls: analytic curves and simulated means with 95% CIs."""
    svc = _service(family, service_params, "plot_policies")
    lams = np.linspace(lam_max / 10, lam_max, 10)
    df = _policy_curves(N, t_cloud, svc, lams, n_jobs=n_jobs, replications=replications)
    fig, ax = figure(1, width=8.5, height=4.0, fast=True)
    _draw_policies(ax, df, legend=False)
    _legend(ax, df, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.subplots_adjust(right=0.56)
    title = (
        f"{svc.label()}: N={N}, T_cl={t_cloud:g} s; {replications} runs × {n_jobs} jobs per point"
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


def explore_policies():
    """Fig. 4 with simulation (about a second per move: computed in the background)."""
    return interactive_figure(
        plot_policies,
        title="ASTO vs BPO vs benchmark (Fig. 4)",
        visible=FAMILY_VISIBLE,
        background=True,
        N=(PARAMS["N"], 24, (4, 60)),
        t_cloud=PARAMS["t_cloud"],
        **service_controls("Pareto"),
        replications=(PARAMS["replications"], 20, (5, 200)),
        n_jobs=(PARAMS["n_jobs"], 500, (100, 20_000)),
        lam_max=LAM_MAX,
    )


# --------------------------------------------------------------------------------------
# 3. Simulation vs theory
# --------------------------------------------------------------------------------------


def plot_simulation(
    N=24,
    m=2,
    lam=1.5,
    t_cloud=15.0,
    family="Pareto",
    waiting_room=0,
    n_jobs=20_000,
    replications=20,
    **service_params,
):
    """Simulated E[T_sys] with CIs over m against Erlang-B, and one run's running mean at m."""
    svc = _service(family, service_params, "plot_simulation")
    m = rd._m_upto(m, PARAMS["N"].check(N, "plot_simulation"), "plot_simulation")  # no clamp
    ms = sorted(set(range(1, min(N, 12) + 1)) | {m})
    sims = {
        k: simulate(
            N,
            k,
            lam,
            t_cloud,
            svc,
            n_jobs=n_jobs,
            seed=1,
            replications=replications,
            waiting_room=waiting_room,
            overload="transient",  # drawn hollow, and the figure greyed with the note
        )
        for k in ms
    }
    exact = [rd.system_time(N, k, lam, t_cloud, svc) for k in ms]
    fig, (ax1, ax2) = figure(2, width=5.0, height=4.4, fast=True)
    fig.subplots_adjust(bottom=0.32)  # the legends go under the axes, off the curves
    ax1.plot(ms, exact, "-", color="C0", label="eq. 1, Erlang-B (w = 0)")
    ci_errorbar(
        ax1,
        ms,
        [sims[k].mean for k in ms],
        [sims[k].ci_low for k in ms],
        [sims[k].ci_high for k in ms],
        stationary=[sims[k].stationary for k in ms],
        color="k",
        label=f"simulated, w = {waiting_room} (95% CI)",
    )
    ax1.axvline(m, color="grey", lw=1)
    sim = sims[m]
    tag = "" if sim.info["variance_finite"] else "; INFINITE variance"
    ax1.set(
        xlabel=LABELS["m"],
        ylabel=LABELS["system_time"],
        title=f"at m={m}: P_b simulated {sim.blocking:.3f}, "
        f"Erlang-B {rd.blocking(N, m, lam, svc):.3f}{tag}",
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
    _integer_ticks(ax1.xaxis)
    trace = running_mean_trace(N, m, lam, t_cloud, svc, n_jobs=max(n_jobs, 1000), seed=2)
    ax2.plot(trace["jobs"], trace["running_mean"], label=f"running mean, one run, m = {m}")
    ax2.axhline(rd.system_time(N, m, lam, t_cloud, svc), color="k", ls=":", label="exact (w = 0)")
    ax2.set(xscale="log", xlabel="jobs simulated", ylabel="mean T_sys so far [s]")
    ax2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.suptitle(
        f"{svc.label()}: N={N}, λ={lam:g} /s, T_cl={t_cloud:g} s; "
        f"{replications} runs × {n_jobs} jobs",
        fontsize=10,
    )
    return fig


def explore_simulation():
    """Simulation against Erlang-B (seconds per move for long runs: in the background)."""
    return interactive_figure(
        plot_simulation,
        title="Simulation vs theory",
        visible=FAMILY_VISIBLE,
        limits=M_UP_TO_N,
        background=True,
        N=(PARAMS["N"], 24, (2, 60)),
        m=PARAMS["m"],
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls("Pareto"),
        waiting_room=PARAMS["waiting_room"],
        n_jobs=PARAMS["n_jobs"],
        replications=(PARAMS["replications"], 20, (2, 100)),
    )


# --------------------------------------------------------------------------------------
# 4. Optimal allocation vs N (Fig. 7), analytic
# --------------------------------------------------------------------------------------


def plot_scaling(lam=1.5, t_cloud=10.0, family="S-Exp", N_max=120, **service_params):
    """Fig. 7 under controls: optimal m and c vs N (vectorised over all (N, m) pairs)."""
    svc = _service(family, service_params, "plot_scaling")
    Ns = list(range(2, N_max + 1))
    fig, (ax1, ax2) = figure(2, width=5.6, height=3.4, fast=True)
    fig.subplots_adjust(right=0.8)  # room for the legend beside the curves
    for f in FORMULAS:
        d = rd.optimum_vs_workers(Ns, lam, t_cloud, svc, f)
        draw_optimum(ax1, ax2, d)
    handles, labels = ax2.get_legend_handles_labels()
    ax2.legend(handles[-2:], labels[-2:], fontsize=7, loc="upper left",
               bbox_to_anchor=(1.02, 1.0))  # fmt: skip
    fig.suptitle(f"{svc.label()}: λ={lam:g} /s, T_cl={t_cloud:g} s", fontsize=10)
    return fig


def explore_scaling():
    """Fig. 7 under controls (analytic, vectorised: well under 100 ms per move)."""
    return interactive_figure(
        plot_scaling,
        title="Optimal allocation vs N (Fig. 7)",
        visible=FAMILY_VISIBLE,
        lam=PARAMS["lam"],
        t_cloud=(PARAMS["t_cloud"], 10.0),
        **service_controls(),
        N_max=N_MAX,
    )


# --------------------------------------------------------------------------------------
# 5. The model as a diagram
# --------------------------------------------------------------------------------------


def plot_diagram(N=24, m=3, lam=1.5, t_cloud=15.0, family="S-Exp", **service_params):
    return diagram(N, m, lam, t_cloud, _service(family, service_params, "plot_diagram"))


def explore_diagram():
    """The system drawn from its parameters, with E[T_job], P_b and E[T_sys]."""
    return interactive_figure(
        plot_diagram,
        title="The model",
        visible=FAMILY_VISIBLE,
        limits=M_UP_TO_N,
        N=(PARAMS["N"], 24, (1, 60)),
        m=(PARAMS["m"], 3),
        lam=PARAMS["lam"],
        t_cloud=PARAMS["t_cloud"],
        **service_controls(),
    )


VIEWS = {
    "diagram": explore_diagram,
    "tradeoff": explore_tradeoff,
    "policies": explore_policies,
    "simulation": explore_simulation,
    "scaling": explore_scaling,
}


# --------------------------------------------------------------------------------------
# Station table and a simulation run to a chosen precision
# --------------------------------------------------------------------------------------


def station_tables(N, m, lam, t_cloud, service, result=None):
    """Analytic station table (and the simulated one next to it when ``result`` is given)."""
    boxes = [table_html(rd.station_table(N, m, lam, t_cloud, service), "Analytic (eq. 1, 4)")]
    if result is not None:
        sim = simulated_station_table(N, m, lam, t_cloud, service, result)
        boxes.append(table_html(sim, f"Simulated ({result.replications} replications)"))
    for box in boxes:
        box.layout.margin = "0 2em 0 0"
    return w.HBox(boxes)


def run_to_precision(N=24, m=3, lam=1.5, t_cloud=15.0, service=None, half_width=0.05, **kw):
    """Simulate until the 95% interval of E[T_sys] is ± ``half_width``, with a progress bar.

    Returns the widget (progress bar, result table, station tables); the result is in its
    ``result`` attribute.
    """
    service = service or rd.SExp(3.0, 0.2)
    reject_unknown(
        "run_to_precision",
        kw,
        ("n_jobs", "waiting_room", "confidence", "max_replications", "batch", "seed"),
    )
    bar = w.IntProgress(min=0, max=10, description="replications", bar_style="info")
    label = w.HTML("")
    box = w.VBox([w.HBox([bar, label])])
    from IPython.display import display

    display(box)

    def progress(done, target, half):
        bar.max = max(target, done, 1)
        bar.value = done
        label.value = f"{done} done, ±{half:.3g} s (target ±{half_width:g} s)"

    result = simulate_to_precision(N, m, lam, t_cloud, service, half_width, progress=progress, **kw)
    bar.bar_style = "success" if result.info["reached"] else "warning"
    bar.value = bar.max = result.replications
    table = result.table()
    if kw.get("waiting_room", 0) == 0:  # the loss system has the exact values of eqs. 1, 4
        exact = (rd.system_time(N, m, lam, t_cloud, service), rd.blocking(N, m, lam, service), 0)
        table.insert(1, "exact", [f"{x:.4g}" for x in exact])
    notes = "".join(f"<p><i>{html.escape(n)}</i></p>" for n in result.notes)
    box.children = [
        *box.children,
        table_html(table.reset_index(), f"E[T_sys], P_b and wait: {result._caption()}"),
        w.HTML(notes),
        station_tables(N, m, lam, t_cloud, service, result),
    ]
    box.result = result
    return box


# --------------------------------------------------------------------------------------
# Classroom exercises: predictions checked within a tolerance; answers from the library
# --------------------------------------------------------------------------------------


def _exercise_erlang_b():
    svc = rd.SExp(3.0, 0.2)
    pb = rd.blocking(24, 3, 1.5, svc)
    return exercise(
        "N = 24 workers, m = 3 replicas, λ = 1.5 /s, S-Exp(Δ = 3 s, μ = 0.2 /s). "
        "Predict the blocking probability P_b (a number between 0 and 1).",
        answer=round(pb, 4),
        tolerance=0.01,
        hint="c = ⌊24/3⌋ = 8 groups; E[T_job(3)] = Δ + 1/(3μ); the offered load is "
        "a = λ E[T_job(3)]; P_b = ErlangB(c, a) = (a^c/c!) / Σ_j a^j/j!.",
        solution=f"E[T_job(3)] = 3 + 1/0.6 = 4.667 s, a = 7.0 erlang, ErlangB(8, 7) = {pb:.4f}.",
    )


def _exercise_insensitivity():
    sexp = rd.SExp(3.0, 0.2)
    mean = sexp.job_time_mean(3)
    # a Pareto law whose fastest-of-3 has the same mean: beta * 3a / (3a - 1) = mean
    alpha = 1.5
    pareto = rd.Pareto(mean * (3 * alpha - 1) / (3 * alpha), alpha)
    same = abs(rd.blocking(24, 3, 1.5, pareto) - rd.blocking(24, 3, 1.5, sexp)) < 1e-12
    return exercise(
        "Keep N = 24, m = 3, λ = 1.5 /s, but replace S-Exp(3, 0.2) by a heavy-tailed Pareto law "
        f"with the same E[T_job(3)] = {mean:.3f} s (β = {pareto.beta:.3f} s, α = 1.5). "
        "What happens to P_b?",
        answer="it stays the same" if same else "it changes",
        choices=["it rises", "it falls", "it stays the same", "it changes"],
        hint="In a loss system (no queue), what does the Erlang-B formula depend on?",
        solution="Erlang-B is insensitive: P_b depends on the service law only through its "
        "mean (the offered load a = λ E[T_job]). E[T_sys] is the same too; only the spread "
        "of individual times changes. Check it in the simulation view: same P_b for both laws.",
    )


def _exercise_stability():
    svc = rd.SExp(3.0, 0.2)
    t = rd.system_time(24, 4, 6.0, 15.0, svc)
    lam_m = rd.lambda_max(24, 4, svc)
    return exercise(
        f"N = 24, m = 4, S-Exp(3, 0.2), T_cl = 15 s. The paper calls λ_m = {lam_m:.2f} /s the "
        "'maximum stable arrival rate'. At λ = 6 /s, four times λ_m, predict E[T_sys] in seconds.",
        answer=round(t, 3),
        tolerance=0.3,
        hint="Does a loss system (no waiting room) have a queue that can grow? A blocked job "
        "takes T_cl; use eq. 1 with the exact Erlang-B at a = λ E[T_job(4)].",
        solution=f"A loss system is stable at every load: E[T_sys] = (1 − P_b) E[T_job] + "
        f"P_b T_cl = {t:.3f} s, below T_cl. Nothing blows up: more jobs simply go to the cloud.",
    )


def _exercise_eq8():
    svc = rd.SExp(3.0, 0.2)
    gap = rd.system_time(24, 4, 6.0, 15.0, svc, "paper") - rd.system_time(24, 4, 6.0, 15.0, svc)
    return exercise(
        "Same system at λ = 6 /s. The paper's eq. 8 instead serves only λ_m (1 − P_max) jobs per "
        "second at the edge. By how many seconds does eq. 8 overstate E[T_sys]?",
        answer=round(gap, 3),
        tolerance=0.05,
        hint="Compute rd.system_time(24, 4, 6.0, 15.0, svc, 'paper') − rd.system_time(...); "
        "or read it off the 'eq. 8 vs Erlang-B' figure at λ = 6.",
        solution=f"Eq. 8 gives {gap:.3f} s more. It treats λ_m as a capacity, but the edge "
        "still serves λ(1 − P_b) jobs per second with P_b from Erlang-B; the simulation "
        "agrees with Erlang-B, not with eq. 8.",
    )


def _exercise_optimal_m():
    m = rd.optimal_m(24, 1.5, 15.0, rd.Pareto(1.5, 1.2))
    return exercise(
        "N = 24, λ = 1.5 /s, T_cl = 15 s, Pareto(β = 1.5 s, α = 1.2). Which m minimises E[T_sys]?",
        answer=m,
        tolerance=0,
        hint="With α = 1.2 one copy has infinite variance: a second copy cuts the straggler "
        "tail a lot (the min of m copies is Pareto(β, mα)). Blocking grows slowly at this load.",
        solution=f"m* = {m}. Replication pays for heavy tails; the trade-off view shows the "
        "whole curve.",
    )


EXERCISES = {
    "erlang_b": _exercise_erlang_b,
    "insensitivity": _exercise_insensitivity,
    "stability": _exercise_stability,
    "eq8": _exercise_eq8,
    "optimal_m": _exercise_optimal_m,
}
