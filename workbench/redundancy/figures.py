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
from matplotlib.ticker import MaxNLocator

from workbench.plots import (
    FORMULA_STYLE,
    POLICY_COLORS,
    FigureSpec,
    ci_errorbar,
    figure,
    unstable_legend,
)
from workbench.redundancy import model as rd
from workbench.redundancy.params import FORMULAS, PARAMS
from workbench.redundancy.simulation import running_mean_trace, simulate
from workbench.sweep import sweep

__all__ = [
    "FIGURES",
    "diagram",
    "classify_allocation",
]

N_PAPER = 24
SEXP = rd.SExp(3.0, 0.2)  # Figs. 4-7
PARETO = rd.Pareto(1.5, 1.2)
FAMILIES = {"S-Exp(3, 0.2)": SEXP, "Pareto(1.5, 1.2)": PARETO}
FIG3_LAMBDA = 3.0  # [choice] not stated; m=2 beats m=1 on P_b for Pareto only above λ≈1.2
BASE_SEED = 2303_00486

# axis and legend texts in symbols (slides): one place, from the parameter table
LABELS = {
    "lam": f"arrival rate {PARAMS['lam'].axis_label}",
    "t_cloud": f"cloud time {PARAMS['t_cloud'].axis_label}",
    "m": "replication factor m",
    "N": "edge workers N",
    "job_time": "E[T_job] [s]",
    "system_time": "E[T_sys] [s]",
    "blocking": "P_b (sent to the cloud)",
}
POLICY_NAMES = {
    "benchmark": "benchmark (m = 1)",
    "bpo": "BPO",
    "asto": "ASTO",
    "optimal": "optimal",
}
FORMULA_NAMES = {"exact": "eq. 1, Erlang-B (exact)", "paper": "paper: eq. 8 above λ_m"}
SYMBOL = {"lam": "λ", "t_cloud": "T_cl"}


def _integer_axis(axis) -> None:
    axis.set_major_locator(MaxNLocator(integer=True))


# --------------------------------------------------------------------------------------
# Simulation points for the sweep engine (module level: picklable)
# --------------------------------------------------------------------------------------


def _simulate_point(
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
        overload="transient",  # a figure draws a non-stationary point hollow, not skips it
    )
    blocking_low, blocking_high = res.interval("blocking")
    # intervals come clipped to where the quantity lies (E[T_sys] >= 0, P_b in [0, 1])
    return {
        "sim_mean": res.mean,
        "sim_ci_low": res.ci_low,
        "sim_ci_high": res.ci_high,
        "sim_blocking": res.blocking,
        "sim_blocking_ci_low": blocking_low,
        "sim_blocking_ci_high": blocking_high,
        "variance_finite": res.info["variance_finite"],
        "stationary": res.stationary,
        "stationarity_p": res.stationarity.p_value,
    }


def _family_args(service: rd.ServiceTime) -> dict:
    a, b = service.params().values()
    return {"family": service.name, "a": a, "b": b}


def _run_points(points: list[dict], quick: bool, desc: str, progress: bool = False):
    """Simulate points with the sweep engine: in-process when quick, else in processes."""
    return sweep(
        _simulate_point,
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
        lam, N = df["lam"].iloc[0], df["N"].iloc[0]
        ax.plot(df["m"], df["job_time"], "r*-", label="E[T_job(m)] (left axis)")
        ax.set(xlabel=LABELS["m"], ylabel=LABELS["job_time"], title=f"{label}: N={N}, λ={lam:g}")
        ax2 = ax.twinx()
        ax2.plot(df["m"], df["blocking"], "b^-", label="P_b, Erlang-B (right axis)")
        ax2.set_ylabel(LABELS["blocking"])
        ax2.grid(False)
        _integer_axis(ax.xaxis)
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles=handles, loc="center right", fontsize=8)  # between the curves
    return fig


# --------------------------------------------------------------------------------------
# Fig. 4: policies vs λ
# --------------------------------------------------------------------------------------


def _policy_curves(
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
            _simulate_point,
            points,
            n_workers=1 if quick else None,
            progress=False,
            desc="Fig. 4 simulations",
            base_seed=base_seed,
        )
        keep = [c for c in sims if c.startswith("sim_") or c in ("stationary", "stationarity_p")]
        data = pd.concat([data, sims[keep]], axis=1)
    return data


def fig4_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs λ for ASTO / BPO / benchmark (N=24, T_cl=15): analytic + simulation.

    The paper simulates 500 arrivals × 100 runs; so does the workbench (20 runs if quick).
    """
    lams = np.arange(0.25, 5.01, 0.5 if quick else 0.25)
    frames = [
        _policy_curves(
            N_PAPER, 15.0, svc, lams, n_jobs=500, replications=20 if quick else 100, quick=quick
        ).assign(service=label)
        for label, svc in FAMILIES.items()
    ]
    return pd.concat(frames, ignore_index=True)


def fig4_plot(data: pd.DataFrame):
    fig, axes = figure(2, height=4.2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        _draw_policies(ax, df, legend=False)
        ax.set_title(f"{label}: N=24, T_cl=15 s")
    handles, labels = _legend_entries(axes[0], data)
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    return fig


def _draw_policies(ax, df, legend: bool = True):
    """Analytic curves (lines) and simulated means with CIs (markers), one colour per policy.

    Intervals are drawn cut at 0 (E[T_sys] is positive).
    """
    for policy, d in df.groupby("policy", sort=False):
        color = POLICY_COLORS[policy]
        name = POLICY_NAMES[policy]
        ax.plot(d["lam"], d["exact"], "-", color=color, label=f"{name}: eq. 1")
        if "sim_mean" in d:
            ci_errorbar(
                ax,
                d["lam"],
                d["sim_mean"],
                d["sim_ci_low"],
                d["sim_ci_high"],
                stationary=d.get("stationary"),
                color=color,
                fmt="o",
                label=f"{name}: simulated, 95% CI",
            )
    ax.set(xlabel=LABELS["lam"], ylabel=LABELS["system_time"])
    ax.set_ylim(bottom=0)
    if legend:
        _legend(ax, df, fontsize=7, loc="lower right")


def _legend_entries(ax, df):
    """Handles and labels of ``ax`` for a figure legend, with the hollow-marker entry when a
    point of ``df`` is not stationary."""
    if "stationary" in df and not df["stationary"].all():
        legend = unstable_legend(ax)
        entries = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        legend.remove()
        return entries
    return ax.get_legend_handles_labels()


def _legend(ax, df, **kw):
    """The axes' legend; with the entry for hollow markers when a point is not stationary."""
    if "stationary" in df and not df["stationary"].all():
        return unstable_legend(ax, **kw)
    return ax.legend(**kw)


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
    fig, axes = figure(2, height=4.2)
    values = list(dict.fromkeys(data[param]))
    unit = {"1/s": "/s"}.get(PARAMS[param].unit, PARAMS[param].unit)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        for i, v in enumerate(values):
            for formula, d in df[df[param] == v].groupby("formula"):
                ax.plot(
                    d["m"],
                    d["system_time"],
                    FORMULA_STYLE[formula],
                    color=f"C{i}",
                    label=f"{SYMBOL[param]} = {v:g} {unit}: {FORMULA_NAMES[formula]}",
                )
                best = d.loc[d["system_time"].idxmin()]
                ax.plot(best["m"], best["system_time"], "k*", markersize=9)
        ax.set(xlabel=LABELS["m"], ylabel=LABELS["system_time"], title=title_fmt.format(label))
        _integer_axis(ax.xaxis)
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(axes[0].plot([], [], "k*", markersize=9)[0])
    labels.append("optimum of each curve")
    # below the panels: never on the data
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=8)
    return fig


def fig5_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for λ in {0.1, 1, 5}, T_cl = 8 (eq. 1 exact and eqs. 1/8 as printed)."""
    return _by_m_frame("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0})


def fig6_frame(quick: bool = False) -> pd.DataFrame:
    """E[T_sys] vs m for T_cl in {15, 50, 100}, λ = 1.5 (caption's '10' is a typo for 100)."""
    return _by_m_frame("t_cloud", (15.0, 50.0, 100.0), {"lam": 1.5})


fig5_plot = functools.partial(_by_m_plot, param="lam", title_fmt="{}: N=24, T_cl=8 s")
fig6_plot = functools.partial(_by_m_plot, param="t_cloud", title_fmt="{}: N=24, λ=1.5 /s")


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
        draw_optimum(axes[row, 0], axes[row, 1], df)
        axes[row, 0].set_title(f"{label}: λ=1.5 /s, T_cl=10 s")
        axes[row, 1].set_title(f"{label}: λ=1.5 /s, T_cl=10 s")
    return fig


def draw_optimum(ax_c, ax_m, df):
    """Optimal c and m against N, one step line per formula, integer axes."""
    for formula, d in df.groupby("formula"):
        style = FORMULA_STYLE[formula]
        name = FORMULA_NAMES[formula]
        ax_c.step(d["N"], d["c_opt"], style, where="post", label=name)
        ax_m.step(d["N"], d["m_opt"], style, where="post", label=name)
    ax_c.set(xlabel=LABELS["N"], ylabel="optimal c (groups)")
    ax_m.set(xlabel=LABELS["N"], ylabel="optimal m (replicas per job)")
    for ax in (ax_c, ax_m):
        _integer_axis(ax.xaxis)
        _integer_axis(ax.yaxis)
    ax_m.legend(fontsize=7, loc="upper left")


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
    """Table I as a compact table: one row per (family, parameter), small and large levels."""
    names = {"lam": "λ [1/s]", "t_cloud": "T_cl [s]", "N": "N", "alpha": "α"}
    cells, colors, rows = [], [], []
    for (fam, param), g in data.groupby(["family", "parameter"], sort=False):
        rows.append(f"{fam}, {names[param]}")
        line, tint = [], []
        for level in ("small", "large"):
            r = g[g["level"] == level].iloc[0]
            line += [f"{r['value']:g}", f"{r['workbench']} (m*={r['m_opt']})", r["paper"]]
            ok = "#d8f0d8" if r["agrees"] else "#f6d5d5"
            tint += ["white", ok, ok]
        cells.append(line)
        colors.append(tint)
    cols = ["small", "workbench", "paper", "large", "workbench", "paper"]
    fig, ax = figure(1, width=7.2, height=0.32 * (len(rows) + 2) + 0.5)
    ax.axis("off")
    tab = ax.table(
        cellText=cells,
        cellColours=colors,
        rowLabels=rows,
        colLabels=cols,
        loc="center",
        cellLoc="center",
    )
    tab.auto_set_font_size(False)
    tab.set_fontsize(9)
    tab.scale(1, 1.25)
    agree = int(data["agrees"].sum())
    ax.set_title(
        f"Table I recomputed: {agree}/{len(data)} cells agree with the paper (green)\n"
        "S spread (m* = 1), C concentrate (≤ 2 groups), B balance\n"
        "baseline N=24, λ=1.5 /s, T_cl=15 s [choice]; Exp(0.2), S-Exp(3, 0.2), Pareto(1.5, 1.2)",
        fontsize=9,
    )
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
    keep = [c for c in sims if c.startswith("sim_") or c in ("stationary", "stationarity_p")]
    data = pd.concat([data, sims[keep]], axis=1)
    data["lambda_max"] = rd.lambda_max(N, m, service)
    return data


def ext_eq8_plot(data: pd.DataFrame):
    N, m, t_cloud, service = (EQ8_CASE[k] for k in ("N", "m", "t_cloud", "service"))
    fig, ax = figure(1, width=6.5)
    ax.plot(data["lam"], data["exact"], "-", label=FORMULA_NAMES["exact"])
    ax.plot(data["lam"], data["paper"], "--", label="paper: eq. 1, then eq. 8 above λ_m")
    ci_errorbar(
        ax,
        data["lam"],
        data["sim_mean"],
        data["sim_ci_low"],
        data["sim_ci_high"],
        stationary=data["stationary"],
        color="k",
        label="simulation, 95% CI",
    )
    lam_m = data["lambda_max"].iloc[0]
    ax.axvline(lam_m, color="grey", lw=1)
    ax.text(lam_m, ax.get_ylim()[0], f" λ_m = {lam_m:.2f}", color="grey", va="bottom")
    ax.set(
        xlabel=LABELS["lam"],
        ylabel=LABELS["system_time"],
        title=f"{service.label()}: N={N}, m={m}, T_cl={t_cloud:g} s",
    )
    _legend(ax, data, fontsize=8, loc="lower right")
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
                stationary=d["stationary"],
                fmt="o-",
                color=f"C{i}",
                label=f"w = {k} waiting places",
            )
            ci_errorbar(
                axes[1, col],
                d["m"],
                d["sim_blocking"],
                d["sim_blocking_ci_low"],
                d["sim_blocking_ci_high"],
                stationary=d["stationary"],
                fmt="o-",
                color=f"C{i}",
                label=f"w = {k}",
            )
        d0 = df[df.waiting_room == 0]
        axes[1, col].plot(d0["m"], d0["erlang_b"], "k--", label="Erlang-B (w = 0)")
        axes[0, col].set(
            title=f"{label}: N=24, λ={lam:g} /s, T_cl={t_cloud:g} s",
            xlabel=LABELS["m"],
            ylabel=LABELS["system_time"],
        )
        axes[1, col].set(xlabel=LABELS["m"], ylabel=LABELS["blocking"])
        for ax in axes[:, col]:
            _integer_axis(ax.xaxis)
        if col == 0:  # the same entries on the right: there the legend hid Pareto's m = 1
            _legend(axes[0, col], data, fontsize=7, loc="upper left")
        _legend(axes[1, col], df, fontsize=7, loc="upper left")
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
        axes[0].step(
            d["shape"],
            d["m_opt"],
            FORMULA_STYLE[formula],
            where="mid",
            label=FORMULA_NAMES[formula],
        )
    ex = data[data.formula == "exact"]
    axes[1].plot(ex["shape"], 1 - ex["system_time"] / ex["benchmark"], "o-")
    title = f"Weibull(k, s), E[T_job(1)] = 7 s:\nN=24, λ={lam:g} /s, T_cl={t_cloud:g} s"
    axes[0].set(xlabel="Weibull shape k", ylabel="optimal m", title=title)
    axes[1].set(
        xlabel="Weibull shape k",
        ylabel="1 − E[T_sys](m*) / E[T_sys](m=1)",
        title="gain of the optimal m over m = 1",
    )
    _integer_axis(axes[0].yaxis)
    axes[0].legend(fontsize=8)
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
    fig, ax = figure(1, width=7.0)
    for i, (m, d) in enumerate(data.groupby("m")):
        tag = "finite" if d["variance_finite"].iloc[0] else "INFINITE"
        ax.plot(d["jobs"], d["running_mean"], color=f"C{i}", label=f"m = {m} ({tag} variance)")
        ax.axhline(d["exact"].iloc[0], color=f"C{i}", ls=":")
    ax.set(
        xscale="log",
        xlabel="jobs simulated (one run)",
        ylabel="running mean of T_sys [s]",
        title="Pareto(β=1.5, α=1.2): N=24, λ=1 /s, T_cl=15 s (dotted: exact E[T_sys])",
    )
    ax.legend(fontsize=8, loc="center right")  # between the curves
    return fig


# --------------------------------------------------------------------------------------
# The model as a diagram, drawn from its parameters
# --------------------------------------------------------------------------------------

MAX_DRAWN_GROUPS = 8


def diagram(N: int = N_PAPER, m: int = 2, lam: float = 1.5, t_cloud: float = 15.0, service=None):
    """The edge system for given N, m: arrivals, the c = ⌊N/m⌋ groups of m workers, the cloud.

    Idle workers (N mod m) are grey. With a service law the title also gives E[T_job(m)],
    P_b and E[T_sys] (eq. 1, Erlang-B). At most ``MAX_DRAWN_GROUPS`` groups are drawn.
    """
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

    # add_artist, not add_patch: the limits are fixed, and updating them from every
    # patch's Bezier path was most of the drawing time

    ok = PARAMS.check("diagram", N=N, lam=lam, t_cloud=t_cloud)
    N, lam, t_cloud = ok["N"], ok["lam"], ok["t_cloud"]
    m = rd._m_upto(m, N, "diagram")
    c, idle = N // m, N % m
    shown = min(c, MAX_DRAWN_GROUPS)
    top = shown + 0.9  # the lane of blocked jobs
    fig, ax = figure(1, width=7.5, height=0.62 * (top + 1.6) + 0.9, fast=True)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.88)
    ax.set_axis_off()
    ax.set(xlim=(0, 10), ylim=(-1.3, top + 0.7))

    def arrow(a, b, text="", color="k", lw=1.2, **kw):
        patch = FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=12, color=color, lw=lw, **kw)
        ax.add_artist(patch)
        if text:
            ax.text(*text[1], text[0], ha="center", fontsize=9, color=color)

    def box(x, y, w, h, color, label=""):
        ax.add_artist(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.05", fc=color, ec="0.4"))
        if label:
            ax.text(x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=9)

    mid = (shown - 1) / 2
    box(1.5, mid - 0.35, 1.2, 0.7, "#eeeeee", "dispatch")
    arrow((0.05, mid), (1.45, mid), (f"Poisson\nλ = {lam:g} /s", (0.7, mid + 0.2)))
    radius = min(0.2, 1.4 / max(min(m, 12), 1))
    for g in range(shown):
        y = shown - 1 - g
        box(3.4, y - 0.32, 3.0, 0.64, "#e8f1fb")
        drawn = min(m, 12)
        for j in range(drawn):
            ax.add_artist(Circle((3.65 + j * 2.5 / max(drawn - 1, 1), y), radius, fc="#4c72b0"))
        if m > drawn:
            ax.text(6.35, y, "…", va="center", ha="right")
        arrow((2.75, mid), (3.35, y), lw=0.7)
        arrow((6.5, y), (7.2, y), lw=0.7)
    ax.text(7.3, mid, "done when the\nfirst of m\ncopies ends", va="center", fontsize=8)
    below = f"c = ⌊N/m⌋ = {c} groups of m = {m} workers"
    if c > shown:
        below += f" ({c - shown} more not drawn)"
    if idle:
        below += f"; {idle} idle (N mod m)"
    ax.text(4.9, -0.85, below, ha="center", fontsize=9)
    box(7.5, top - 0.35, 2.3, 0.7, "#fbeee8", f"cloud: T_cl = {t_cloud:g} s")
    arrow(
        (2.1, mid + 0.4),
        (7.45, top),
        ("all c groups busy: blocked (P_b)", (4.9, top + 0.12)),
        color="C3",
        connectionstyle="angle,angleA=90,angleB=0,rad=0",
    )
    title = f"N = {N} edge workers as an M/G/c/c loss system"
    if service is not None:
        tj = rd._job_time(service, m)
        pb = rd.blocking(N, m, lam, service)
        t_sys = rd.system_time(N, m, lam, t_cloud, service)
        title += (
            f"\n{service.label()}: E[T_job(m)] = {tj:.3g} s, P_b = {pb:.3g}, "
            f"E[T_sys] = {t_sys:.3g} s"
        )
    ax.set_title(title, fontsize=10)
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
