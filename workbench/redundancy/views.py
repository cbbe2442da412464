"""The notebook's slider views (the only module of the package that imports ipywidgets).

``VIEWS`` maps a view name to a callable returning the widget; each ``plot_*`` function is
the view's figure as a plain function of the control values (timed directly by the
benchmarks).
"""

from __future__ import annotations

import numpy as np

from workbench.plots import FORMULA_STYLE, POLICY_COLORS, ci_errorbar, figure
from workbench.redundancy.figures import draw_policies, policy_curves
from workbench.redundancy.model import (
    SERVICE_FAMILIES,
    asto,
    blocking,
    bpo,
    make_service,
    metrics_by_m,
    optimum_vs_workers,
    system_time,
)
from workbench.redundancy.params import FORMULAS
from workbench.redundancy.simulation import running_mean_trace, simulate
from workbench.widgets import interactive_figure


def service_controls(family: str = "S-Exp", a: float = 3.0, b: float = 0.2) -> dict:
    """Slider specs for a service family and its two parameters, ``family`` selected first.

    a: S-Exp delta | Pareto beta | Weibull shape; b: S-Exp mu | Pareto alpha (> 1) | Weibull scale.
    """
    families = [family] + [f for f in SERVICE_FAMILIES if f != family]
    return {"family": families, "a": (0.0, 5.0, 0.1, a), "b": (0.05, 5.0, 0.05, b)}


def plot_tradeoff(N=24, lam=1.5, t_cloud=15.0, family="S-Exp", a=3.0, b=0.2):
    """Left: E[T_job] and P_b vs m. Right: E[T_sys] vs m, exact and as printed, with choices."""
    svc = make_service(family, a, b)
    df = metrics_by_m(N, lam, t_cloud, svc)
    m_exact, m_paper = (int(df.loc[df[f"system_time_{f}"].idxmin(), "m"]) for f in FORMULAS)
    m_asto, m_bpo = asto(N, lam, t_cloud, svc), bpo(N, lam, svc)
    fig, (ax1, ax3) = figure(2, width=4.8, height=3.3, fast=True)
    ax1.plot(df["m"], df["job_time"], "r*-", ms=4, label="E[T_job]")
    ax1.set(xlabel="m", ylabel="E[T_job]", title=f"{svc.label()}, N={N}, λ={lam:g}")
    ax2 = ax1.twinx()
    ax2.plot(df["m"], df["blocking"], "b^-", ms=4)
    ax2.set_ylabel("P_b", color="b")
    ax2.grid(False)
    ax3.plot(df["m"], df["system_time_exact"], "-", label=f"exact (Erlang-B): m*={m_exact}")
    ax3.plot(df["m"], df["system_time_paper"], "--", label=f"paper (eq. 8): m*={m_paper}")
    ax3.axvline(m_asto, color=POLICY_COLORS["asto"], lw=1, label=f"ASTO m={m_asto}")
    ax3.axvline(m_bpo, color=POLICY_COLORS["bpo"], lw=1, ls=":", label=f"BPO m={m_bpo}")
    ax3.set(xlabel="m", ylabel="E[T_sys]", title=f"T_cl={t_cloud:g}")
    ax3.legend(fontsize=7)
    return fig


def explore_tradeoff():
    """Sliders over the analytic model (Figs. 3, 5, 6): instant updates."""
    return interactive_figure(
        plot_tradeoff,
        title="Replication trade-off (analytic)",
        N=(2, 120, 1, 24),
        lam=(0.05, 8.0, 0.05, 1.5),
        t_cloud=(1.0, 100.0, 1.0, 15.0),
        **service_controls(),
    )


def plot_policies(
    N=24, t_cloud=15.0, family="Pareto", a=1.5, b=1.2, replications=20, n_jobs=500, lam_max=5.0
):
    """Fig. 4 under sliders: analytic curves and simulated means with 95% CIs."""
    svc = make_service(family, a, b)
    lams = np.linspace(lam_max / 10, lam_max, 10)
    df = policy_curves(N, t_cloud, svc, lams, n_jobs=n_jobs, replications=replications)
    fig, ax = figure(1, width=7.0, height=3.8, fast=True)
    draw_policies(ax, df)
    ax.set_title(f"N={N}, T_cl={t_cloud:g}, {svc.label()}, {replications} runs x {n_jobs} jobs")
    return fig


def explore_policies():
    return interactive_figure(
        plot_policies,
        title="ASTO vs BPO vs benchmark (Fig. 4)",
        N=(4, 60, 1, 24),
        t_cloud=(2.0, 100.0, 1.0, 15.0),
        **service_controls("Pareto", 1.5, 1.2),
        replications=(5, 200, 5, 20),
        n_jobs=(100, 20_000, 100, 500),
        lam_max=(0.5, 10.0, 0.5, 5.0),
    )


def plot_simulation(
    N=24,
    m=2,
    lam=1.5,
    t_cloud=15.0,
    family="Pareto",
    a=1.5,
    b=1.2,
    waiting_room=0,
    n_jobs=20_000,
    replications=20,
):
    """Simulated E[T_sys] with CIs over m against Erlang-B, and one run's running mean at m."""
    svc = make_service(family, a, b)
    m = min(m, N)
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
        )
        for k in ms
    }
    exact = [system_time(N, k, lam, t_cloud, svc) for k in ms]
    fig, (ax1, ax2) = figure(2, width=4.8, height=3.3, fast=True)
    ax1.plot(ms, exact, "-", color="C0", label="eq. 1, Erlang-B (k=0)")
    ci_errorbar(
        ax1,
        ms,
        [sims[k].mean for k in ms],
        [sims[k].ci_low for k in ms],
        [sims[k].ci_high for k in ms],
        color="k",
        label=f"simulated, k={waiting_room} (95% CI)",
    )
    ax1.axvline(m, color="grey", lw=1)
    sim = sims[m]
    tag = "" if sim.info["variance_finite"] else ", INFINITE variance"
    ax1.set(
        xlabel="m",
        ylabel="E[T_sys]",
        title=f"{svc.label()}, N={N}, λ={lam:g}: at m={m} P_b sim "
        f"{sim.blocking:.3f} vs Erlang-B {blocking(N, m, lam, svc):.3f}{tag}",
    )
    ax1.title.set_fontsize(8)
    ax1.legend(fontsize=7)
    trace = running_mean_trace(N, m, lam, t_cloud, svc, n_jobs=max(n_jobs, 1000), seed=2)
    ax2.plot(trace["jobs"], trace["running_mean"], label=f"running mean, one run, m={m}")
    ax2.axhline(system_time(N, m, lam, t_cloud, svc), color="k", ls=":", label="exact (k=0)")
    ax2.set(xscale="log", xlabel="jobs", ylabel="mean T_sys so far")
    ax2.legend(fontsize=7)
    return fig


def explore_simulation():
    return interactive_figure(
        plot_simulation,
        title="Simulation vs theory",
        N=(2, 60, 1, 24),
        m=(1, 24, 1, 2),
        lam=(0.05, 8.0, 0.05, 1.5),
        t_cloud=(1.0, 100.0, 1.0, 15.0),
        **service_controls("Pareto", 1.5, 1.2),
        waiting_room=(0, 30, 1, 0),
        n_jobs=(1_000, 200_000, 1_000, 20_000),
        replications=(2, 100, 1, 20),
    )


def plot_scaling(lam=1.5, t_cloud=10.0, family="S-Exp", a=3.0, b=0.2, N_max=120):
    """Fig. 7 under sliders: optimal m and c vs N."""
    svc = make_service(family, a, b)
    fig, (ax1, ax2) = figure(2, width=4.8, height=3.2, fast=True)
    for f in FORMULAS:
        d = optimum_vs_workers(range(2, N_max + 1), lam, t_cloud, svc, f)
        ax1.step(d["N"], d["c_opt"], FORMULA_STYLE[f], where="post", label=f)
        ax2.step(d["N"], d["m_opt"], FORMULA_STYLE[f], where="post", label=f)
    ax1.set(xlabel="N", ylabel="optimal c", title=f"{svc.label()}, λ={lam:g}, T_cl={t_cloud:g}")
    ax2.set(xlabel="N", ylabel="optimal m")
    ax2.legend()
    return fig


def explore_scaling():
    return interactive_figure(
        plot_scaling,
        title="Optimal allocation vs N (Fig. 7)",
        lam=(0.1, 8.0, 0.1, 1.5),
        t_cloud=(1.0, 100.0, 1.0, 10.0),
        **service_controls(),
        N_max=(10, 300, 10, 120),
    )


VIEWS = {
    "tradeoff": explore_tradeoff,
    "policies": explore_policies,
    "simulation": explore_simulation,
    "scaling": explore_scaling,
}
