"""The paper's figures and the workbench's extensions, each as ``frame(quick)`` + ``plot(frame)``.

``FIGURES`` maps a figure name to a :class:`workbench.plots.FigureSpec`: ``frame(quick)``
computes the tidy DataFrame (one row per plotted point), ``plot(frame)`` draws it. Parameter
values the paper does not state are marked [choice]. Multi-point simulation studies go
through :func:`workbench.sweep.sweep`, so every point's seed comes from the point itself.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", Sec. VII (Figs. 3-7), Sec. VI (Table I), Sec. VIII (future work: waiting room,
other service families).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from workbench.plots import FORMULA_STYLE, POLICY_COLORS, FigureSpec, ci_errorbar, figure
from workbench.redundancy import model as rd
from workbench.redundancy.params import FORMULAS
from workbench.redundancy.simulation import running_mean_trace, simulate
from workbench.sweep import sweep

__all__ = [
    "FIGURES",
    "N_PAPER",
    "SEXP",
    "PARETO",
    "FAMILIES",
    "simulate_point",
    "policy_curves",
    "draw_policies",
    "classify_allocation",
]

N_PAPER = 24
SEXP = rd.SExp(3.0, 0.2)  # Figs. 4-7
PARETO = rd.Pareto(1.5, 1.2)
FAMILIES = {"S-Exp(3, 0.2)": SEXP, "Pareto(1.5, 1.2)": PARETO}
FIG3_LAMBDA = 3.0  # [choice] not stated; m=2 beats m=1 on P_b for Pareto only above λ≈1.2
BASE_SEED = 2303_00486


# --------------------------------------------------------------------------------------
# Simulation points for the sweep engine (module level: picklable)
# --------------------------------------------------------------------------------------


def simulate_point(
    family, a, b, N, m, lam, t_cloud, n_jobs, replications, waiting_room=0, seed=0
) -> dict:
    """One simulated configuration as a flat dict (the sweep engine's unit of work).

    ``a`` and ``b`` are the family's two parameters in constructor order (S-Exp Δ, μ;
    Pareto β, α; Weibull k, s); the sweep derives each point's seed from these keys.
    """
    res = simulate(
        N,
        m,
        lam,
        t_cloud,
        rd.make_service(family, a, b),
        n_jobs=n_jobs,
        seed=seed,
        replications=replications,
        waiting_room=waiting_room,
        warmup=0 if n_jobs <= 1000 else None,
    )
    blocking_low, blocking_high = res.interval("blocking")
    return {
        "sim_mean": res.mean,
        "sim_ci_low": res.ci_low,
        "sim_ci_high": res.ci_high,
        "sim_blocking": res.blocking,
        "sim_blocking_ci_low": blocking_low,
        "sim_blocking_ci_high": blocking_high,
        "variance_finite": res.info["variance_finite"],
    }


def _family_args(service: rd.ServiceTime) -> dict:
    a, b = service.params().values()
    return {"family": service.name, "a": a, "b": b}


def _run_points(points: list[dict], quick: bool, desc: str, progress: bool = False):
    """Simulate points with the sweep engine: in-process when quick, else in processes."""
    return sweep(
        simulate_point,
        points,
        n_workers=1 if quick else None,
        progress=progress,
        desc=desc,
        base_seed=BASE_SEED,
    )


# --------------------------------------------------------------------------------------
# Fig. 3: E[T_job] and P_b vs m
# --------------------------------------------------------------------------------------


def fig3_frame(quick: bool = False, N: int = N_PAPER, lam: float = FIG3_LAMBDA) -> pd.DataFrame:
    """E[T_job] and P_b vs m (N = 24; S-Exp(1, 1) and Pareto(1, 1.2))."""
    services = {"S-Exp(1, 1)": rd.SExp(1.0, 1.0), "Pareto(1, 1.2)": rd.Pareto(1.0, 1.2)}
    frames = []
    for label, svc in services.items():
        df = rd.metrics_by_m(N, lam, 1.0, svc)[["m", "c", "job_time", "blocking"]]
        frames.append(df.assign(service=label, lam=lam, N=N))
    return pd.concat(frames, ignore_index=True)


def fig3_plot(data: pd.DataFrame):
    fig, axes = figure(2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        lam = df["lam"].iloc[0]
        ax.plot(df["m"], df["job_time"], "r*-", label="E[T_job]")
        ax.set(xlabel="replication factor m", ylabel="E[T_job]", title=f"{label}, λ={lam:g}")
        ax2 = ax.twinx()
        ax2.plot(df["m"], df["blocking"], "b^-", label="P_b")
        ax2.set_ylabel("P_b (Erlang-B)")
        ax2.grid(False)
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles=handles, loc="center right")
    return fig


# --------------------------------------------------------------------------------------
# Fig. 4: policies vs λ
# --------------------------------------------------------------------------------------


def policy_curves(
    N,
    t_cloud,
    service,
    lams,
    *,
    n_jobs=0,
    replications=0,
    quick=True,
    policies=("benchmark", "bpo", "asto"),
    base_seed=BASE_SEED,
) -> pd.DataFrame:
    """E[T_sys] vs λ for each policy: its m, analytic (exact and paper), optional simulation."""
    rows = []
    for lam in lams:
        for policy in policies:
            m = rd.policy_m(policy, N, lam, t_cloud, service)
            rows.append(
                {
                    "lam": float(lam),
                    "policy": policy,
                    "m": m,
                    "exact": rd.system_time(N, m, lam, t_cloud, service),
                    "paper": rd.system_time(N, m, lam, t_cloud, service, "paper"),
                }
            )
    data = pd.DataFrame(rows)
    if n_jobs:
        points = [
            dict(
                **_family_args(service),
                N=N,
                m=int(r.m),
                lam=r.lam,
                t_cloud=t_cloud,
                n_jobs=n_jobs,
                replications=replications,
            )
            for r in data.itertuples()
        ]
        sims = sweep(
            simulate_point,
            points,
            n_workers=1 if quick else None,
            progress=False,
            desc="Fig. 4 simulations",
            base_seed=base_seed,
        )
        data = pd.concat([data, sims[[c for c in sims if c.startswith("sim_")]]], axis=1)
    return data


def fig4_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs λ for ASTO / BPO / benchmark (N=24, T_cl=15): analytic + simulation.

    The paper simulates 500 arrivals × 100 runs; so does the workbench (20 runs if quick).
    """
    lams = np.arange(0.25, 5.01, 0.5 if quick else 0.25)
    frames = [
        policy_curves(
            N_PAPER, 15.0, svc, lams, n_jobs=500, replications=20 if quick else 100, quick=quick
        ).assign(service=label)
        for label, svc in FAMILIES.items()
    ]
    return pd.concat(frames, ignore_index=True)


def fig4_plot(data: pd.DataFrame):
    fig, axes = figure(2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        draw_policies(ax, df)
        ax.set_title(f"N=24, T_cl=15, {label}")
    return fig


def draw_policies(ax, df):
    """Analytic curves (lines) and simulated means with CIs (markers), one colour per policy."""
    for policy, d in df.groupby("policy", sort=False):
        color = POLICY_COLORS[policy]
        ax.plot(d["lam"], d["exact"], "-", color=color, label=f"{policy} (Erlang-B)")
        if "sim_mean" in d:
            ci_errorbar(
                ax,
                d["lam"],
                d["sim_mean"],
                d["sim_ci_low"],
                d["sim_ci_high"],
                color=color,
                fmt="o",
                label=f"{policy} (simulated, 95% CI)",
            )
    ax.set(xlabel="arrival rate λ", ylabel="E[T_sys]")
    ax.legend(fontsize=7)


# --------------------------------------------------------------------------------------
# Figs. 5-6: E[T_sys] vs m
# --------------------------------------------------------------------------------------


def _by_m_frame(param: str, values, fixed: dict) -> pd.DataFrame:
    frames = []
    for label, svc in FAMILIES.items():
        for v in values:
            kw = {**fixed, param: v}
            df = rd.metrics_by_m(N_PAPER, kw["lam"], kw["t_cloud"], svc)
            long = df.melt(
                id_vars=["m", "c"],
                value_vars=["system_time_exact", "system_time_paper"],
                var_name="formula",
                value_name="system_time",
            )
            long["formula"] = long["formula"].str.removeprefix("system_time_")
            frames.append(long.assign(service=label, **kw))
    return pd.concat(frames, ignore_index=True)


def _by_m_plot(data: pd.DataFrame, param: str, title_fmt: str):
    fig, axes = figure(2)
    values = list(dict.fromkeys(data[param]))
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        for i, v in enumerate(values):
            for formula, d in df[df[param] == v].groupby("formula"):
                ax.plot(
                    d["m"],
                    d["system_time"],
                    FORMULA_STYLE[formula],
                    color=f"C{i}",
                    label=f"{param}={v:g} ({formula})",
                )
                best = d.loc[d["system_time"].idxmin()]
                ax.plot(best["m"], best["system_time"], "k*", markersize=9)
        ax.set(xlabel="replication factor m", ylabel="E[T_sys]", title=title_fmt.format(label))
        ax.legend(fontsize=7)
    return fig


def fig5_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for λ in {0.1, 1, 5}, T_cl = 8 (eq. 1 exact and eqs. 1/8 as printed)."""
    return _by_m_frame("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0})


def fig6_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for T_cl in {15, 50, 100}, λ = 1.5 (caption's '10' is a typo for 100)."""
    return _by_m_frame("t_cloud", (15.0, 50.0, 100.0), {"lam": 1.5})


fig5_plot = functools.partial(_by_m_plot, param="lam", title_fmt="N=24, T_cl=8, {}")
fig6_plot = functools.partial(_by_m_plot, param="t_cloud", title_fmt="N=24, λ=1.5, {}")


# --------------------------------------------------------------------------------------
# Fig. 7: optimal m and c vs N
# --------------------------------------------------------------------------------------


def fig7_frame(quick: bool = False) -> pd.DataFrame:
    """Optimal m and c = ⌊N/m⌋ vs N (λ = 1.5, T_cl = 10)."""
    Ns = range(2, 61 if quick else 121)
    return pd.concat(
        [
            rd.optimum_vs_workers(Ns, 1.5, 10.0, svc, f).assign(service=label)
            for label, svc in FAMILIES.items()
            for f in FORMULAS
        ],
        ignore_index=True,
    )


def fig7_plot(data: pd.DataFrame):
    fig, axes = figure(2, 2, height=3.0)
    for row, (label, df) in enumerate(data.groupby("service", sort=False)):
        for formula, d in df.groupby("formula"):
            axes[row, 0].step(
                d["N"], d["c_opt"], FORMULA_STYLE[formula], where="post", label=formula
            )
            axes[row, 1].step(
                d["N"], d["m_opt"], FORMULA_STYLE[formula], where="post", label=formula
            )
        axes[row, 0].set(xlabel="workers N", ylabel="optimal c", title=label)
        axes[row, 1].set(xlabel="workers N", ylabel="optimal m", title=label)
        axes[row, 1].legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------------------
# Table I: concentrate / spread / balance
# --------------------------------------------------------------------------------------

TABLE1_PAPER = {  # (family, parameter, level) -> letter, as printed in Table I
    ("Exp", "lam", "large"): "B",
    ("Exp", "lam", "small"): "C",
    ("Exp", "t_cloud", "large"): "S",
    ("Exp", "t_cloud", "small"): "C",
    ("Exp", "N", "large"): "C",
    ("Exp", "N", "small"): "B",
    ("S-Exp", "lam", "large"): "B",
    ("S-Exp", "lam", "small"): "C",
    ("S-Exp", "t_cloud", "large"): "S",
    ("S-Exp", "t_cloud", "small"): "C",
    ("S-Exp", "N", "large"): "B",
    ("S-Exp", "N", "small"): "B",
    ("Pareto", "lam", "large"): "B",
    ("Pareto", "lam", "small"): "C",
    ("Pareto", "t_cloud", "large"): "B",
    ("Pareto", "t_cloud", "small"): "C",
    ("Pareto", "N", "large"): "B",
    ("Pareto", "N", "small"): "B",
    ("Pareto", "alpha", "large"): "C",
    ("Pareto", "alpha", "small"): "S",
}
# [choice] the paper gives no values for 'large' and 'small': baseline N=24, lam=1.5,
# T_cl=15 (Fig. 4) and these levels.
TABLE1_BASE = {"N": 24, "lam": 1.5, "t_cloud": 15.0}
TABLE1_LEVELS = {"lam": (0.05, 5.0), "t_cloud": (1.5, 100.0), "N": (4, 100), "alpha": (1.05, 3.0)}
TABLE1_SERVICES = {"Exp": rd.SExp(0.0, 0.2), "S-Exp": SEXP, "Pareto": PARETO}


def classify_allocation(N: int, m: int) -> str:
    """S (spread) if m = 1, C (concentrate) if at most 2 groups, else B (balance)."""
    if m == 1:
        return "S"
    return "C" if N // m <= 2 else "B"


def table1_frame(quick: bool = False) -> pd.DataFrame:
    """Table I recomputed: the optimal allocation at 'small' and 'large' parameter values."""
    rows = []
    for fam, svc in TABLE1_SERVICES.items():
        for param, (small, large) in TABLE1_LEVELS.items():
            if param == "alpha" and fam != "Pareto":
                continue
            for level, value in (("small", small), ("large", large)):
                kw = dict(TABLE1_BASE)
                service = svc
                if param == "alpha":
                    service = rd.Pareto(svc.beta, value)
                else:
                    kw[param] = value
                m = rd.optimal_m(kw["N"], kw["lam"], kw["t_cloud"], service)
                rows.append(
                    {
                        "family": fam,
                        "parameter": param,
                        "level": level,
                        "value": value,
                        "N": kw["N"],
                        "m_opt": m,
                        "c_opt": kw["N"] // m,
                        "workbench": classify_allocation(kw["N"], m),
                        "paper": TABLE1_PAPER[(fam, param, level)],
                    }
                )
    data = pd.DataFrame(rows)
    data["agrees"] = data["workbench"] == data["paper"]
    return data


def table1_plot(data: pd.DataFrame):
    fig, ax = figure(1, width=8.5, height=3.2)
    ax.axis("off")
    cells = [
        [f"{r.workbench} (paper {r.paper}) m*={r.m_opt}" for r in g.itertuples()]
        for _, g in data.groupby("family", sort=False)
    ]
    cols = [
        f"{p} {lv}"
        for p, lv in data[data.family == "Pareto"][["parameter", "level"]].itertuples(index=False)
    ]
    cells = [row + [""] * (len(cols) - len(row)) for row in cells]
    tab = ax.table(
        cellText=cells,
        rowLabels=list(dict.fromkeys(data["family"])),
        colLabels=cols,
        loc="center",
        cellLoc="center",
    )
    tab.auto_set_font_size(False)
    tab.set_fontsize(6.5)
    tab.scale(1, 1.6)
    for (r, c), cell in tab.get_celld().items():
        text = cell.get_text().get_text()
        if r > 0 and c >= 0 and text and "paper" in text:
            ok = text[0] == text.split("paper ")[1][0]
            cell.set_facecolor("#d8f0d8" if ok else "#f6d5d5")
    ax.set_title("Table I recomputed (green: agrees with the paper)")
    return fig


# --------------------------------------------------------------------------------------
# Beyond the paper
# --------------------------------------------------------------------------------------

EQ8_CASE = {"N": N_PAPER, "m": 4, "t_cloud": 15.0, "service": SEXP}


def ext_eq8_frame(quick: bool = False) -> pd.DataFrame:
    """Where the paper's eq. 8 departs from Erlang-B and what a simulation says."""
    N, m, t_cloud, service = (EQ8_CASE[k] for k in ("N", "m", "t_cloud", "service"))
    lams = np.linspace(0.2, 8.0, 14 if quick else 40)
    rows = [
        {
            "lam": lam,
            "exact": rd.system_time(N, m, lam, t_cloud, service),
            "paper": rd.system_time(N, m, lam, t_cloud, service, "paper"),
        }
        for lam in lams
    ]
    data = pd.DataFrame(rows)
    points = [
        dict(
            **_family_args(service),
            N=N,
            m=m,
            lam=lam,
            t_cloud=t_cloud,
            n_jobs=5_000 if quick else 50_000,
            replications=10,
        )
        for lam in data["lam"]
    ]
    sims = _run_points(points, quick, "eq. 8 vs simulation")
    data = pd.concat([data, sims[[c for c in sims if c.startswith("sim_")]]], axis=1)
    data["lambda_max"] = rd.lambda_max(N, m, service)
    return data


def ext_eq8_plot(data: pd.DataFrame):
    N, m, t_cloud, service = (EQ8_CASE[k] for k in ("N", "m", "t_cloud", "service"))
    fig, ax = figure(1, width=6.5)
    ax.plot(data["lam"], data["exact"], "-", label="eq. 1 with Erlang-B (exact)")
    ax.plot(data["lam"], data["paper"], "--", label="paper: eq. 1, then eq. 8 above λ_m")
    ci_errorbar(
        ax,
        data["lam"],
        data["sim_mean"],
        data["sim_ci_low"],
        data["sim_ci_high"],
        color="k",
        label="simulation (95% CI)",
    )
    ax.axvline(data["lambda_max"].iloc[0], color="grey", lw=1)
    ax.text(data["lambda_max"].iloc[0], ax.get_ylim()[0], " λ_m", color="grey", va="bottom")
    ax.set(
        xlabel="arrival rate λ",
        ylabel="E[T_sys]",
        title=f"N={N}, m={m}, T_cl={t_cloud:g}, {service.label()}",
    )
    ax.legend(fontsize=8)
    return fig


WAITING_CASE = {"lam": 1.5, "t_cloud": 15.0}


def ext_waiting_room_frame(quick: bool = False) -> pd.DataFrame:
    """M/G/c/c+w by simulation: does a waiting room change the best m? (paper Sec. VIII-1)."""
    lam, t_cloud = WAITING_CASE["lam"], WAITING_CASE["t_cloud"]
    rooms = (0, 2, 8)
    ms = [1, 2, 3, 4, 6, 8, 12] if quick else list(range(1, 13))
    points = [
        dict(
            **_family_args(svc),
            N=N_PAPER,
            m=m,
            lam=lam,
            t_cloud=t_cloud,
            n_jobs=5_000 if quick else 40_000,
            replications=8 if quick else 20,
            waiting_room=k,
        )
        for svc in FAMILIES.values()
        for k in rooms
        for m in ms
    ]
    data = _run_points(points, quick, "waiting room")
    data["service"] = [
        f"{f}({a:g}, {b:g})" for f, a, b in data[["family", "a", "b"]].itertuples(index=False)
    ]
    data["erlang_b"] = [
        rd.blocking(N_PAPER, m, lam, rd.make_service(f, a, b)) if k == 0 else np.nan
        for f, a, b, m, k in data[["family", "a", "b", "m", "waiting_room"]].itertuples(index=False)
    ]
    return data


def ext_waiting_room_plot(data: pd.DataFrame):
    lam, t_cloud = data["lam"].iloc[0], data["t_cloud"].iloc[0]
    fig, axes = figure(2, 2, height=3.0)
    for col, (label, df) in enumerate(data.groupby("service", sort=False)):
        for i, (k, d) in enumerate(df.groupby("waiting_room")):
            ci_errorbar(
                axes[0, col],
                d["m"],
                d["sim_mean"],
                d["sim_ci_low"],
                d["sim_ci_high"],
                fmt="o-",
                color=f"C{i}",
                label=f"w={k} waiting places",
            )
            ci_errorbar(
                axes[1, col],
                d["m"],
                d["sim_blocking"],
                d["sim_blocking_ci_low"],
                d["sim_blocking_ci_high"],
                fmt="o-",
                color=f"C{i}",
                label=f"w={k}",
            )
        d0 = df[df.waiting_room == 0]
        axes[1, col].plot(d0["m"], d0["erlang_b"], "k--", label="Erlang-B (w=0)")
        axes[0, col].set(title=f"{label}, λ={lam:g}, T_cl={t_cloud:g}", ylabel="E[T_sys]")
        axes[1, col].set(xlabel="replication factor m", ylabel="P(sent to cloud)")
        axes[0, col].legend(fontsize=7)
        axes[1, col].legend(fontsize=7)
    return fig


WEIBULL_CASE = {"lam": 1.5, "t_cloud": 15.0}


def ext_weibull_frame(quick: bool = False) -> pd.DataFrame:
    """Weibull service (future-work family): the best m vs the shape parameter."""
    lam, t_cloud = WEIBULL_CASE["lam"], WEIBULL_CASE["t_cloud"]
    shapes = np.round(np.linspace(0.3, 3.0, 10 if quick else 28), 3)
    rows = []
    for k in shapes:
        svc = rd.Weibull(k, 1.0 / rd.Weibull(k, 1.0).job_time_mean(1) * 7.0)  # E[T_job(1)] = 7
        for formula in FORMULAS:
            m = rd.optimal_m(N_PAPER, lam, t_cloud, svc, formula)
            rows.append(
                {
                    "shape": k,
                    "scale": svc.scale,
                    "formula": formula,
                    "m_opt": m,
                    "system_time": rd.system_time(N_PAPER, m, lam, t_cloud, svc),
                    "benchmark": rd.system_time(N_PAPER, 1, lam, t_cloud, svc),
                }
            )
    return pd.DataFrame(rows)


def ext_weibull_plot(data: pd.DataFrame):
    lam, t_cloud = WEIBULL_CASE["lam"], WEIBULL_CASE["t_cloud"]
    fig, axes = figure(2)
    for formula, d in data.groupby("formula"):
        axes[0].step(d["shape"], d["m_opt"], FORMULA_STYLE[formula], where="mid", label=formula)
    ex = data[data.formula == "exact"]
    axes[1].plot(ex["shape"], 1 - ex["system_time"] / ex["benchmark"], "o-")
    axes[0].set(
        xlabel="Weibull shape k (E[T_job(1)] = 7)",
        ylabel="optimal m",
        title=f"N=24, λ={lam:g}, T_cl={t_cloud:g}",
    )
    axes[1].set(xlabel="Weibull shape k", ylabel="gain of the optimal m over m=1")
    axes[0].legend()
    return fig


def ext_heavy_tail_frame(quick: bool = False) -> pd.DataFrame:
    """How slowly a simulated mean settles when job times have infinite variance."""
    n = 100_000 if quick else 2_000_000
    frames = []
    for m in (1, 2, 3):
        tr = running_mean_trace(N_PAPER, m, 1.0, 15.0, PARETO, n_jobs=n, seed=7 + m)
        tr["m"] = m
        tr["exact"] = rd.system_time(N_PAPER, m, 1.0, 15.0, PARETO)
        tr["variance_finite"] = PARETO.variance_finite(m)
        frames.append(tr)
    return pd.concat(frames, ignore_index=True)


def ext_heavy_tail_plot(data: pd.DataFrame):
    fig, ax = figure(1, width=6.5)
    for i, (m, d) in enumerate(data.groupby("m")):
        tag = "finite" if d["variance_finite"].iloc[0] else "INFINITE"
        ax.plot(d["jobs"], d["running_mean"], color=f"C{i}", label=f"m={m} ({tag} variance)")
        ax.axhline(d["exact"].iloc[0], color=f"C{i}", ls=":")
    ax.set(
        xscale="log",
        xlabel="jobs simulated",
        ylabel="running mean of T_sys",
        title="Pareto(1.5, 1.2), N=24, λ=1, T_cl=15 (dotted: exact)",
    )
    ax.legend(fontsize=8)
    return fig


FIGURES = {
    "fig3": FigureSpec(fig3_frame, fig3_plot, "Fig. 3: E[T_job] and P_b vs m"),
    "fig4": FigureSpec(fig4_frame, fig4_plot, "Fig. 4: ASTO, BPO and benchmark vs λ"),
    "fig5": FigureSpec(fig5_frame, fig5_plot, "Fig. 5: E[T_sys] vs m for three λ"),
    "fig6": FigureSpec(fig6_frame, fig6_plot, "Fig. 6: E[T_sys] vs m for three T_cl"),
    "fig7": FigureSpec(fig7_frame, fig7_plot, "Fig. 7: optimal m and c vs N"),
    "table1": FigureSpec(table1_frame, table1_plot, "Table I: concentrate, spread or balance"),
    "ext_eq8": FigureSpec(ext_eq8_frame, ext_eq8_plot, "Eq. 8 against Erlang-B and simulation"),
    "ext_waiting_room": FigureSpec(
        ext_waiting_room_frame, ext_waiting_room_plot, "A waiting room (M/G/c/c+w)"
    ),
    "ext_weibull": FigureSpec(ext_weibull_frame, ext_weibull_plot, "Weibull service"),
    "ext_heavy_tail": FigureSpec(
        ext_heavy_tail_frame, ext_heavy_tail_plot, "Running means under infinite variance"
    ),
}
