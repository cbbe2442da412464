"""P4 figures, claims and notebook views (model in :mod:`workbench.redundancy`).

Every ``fig*`` / ``ext_*`` function takes ``quick`` and returns ``(tidy DataFrame, Figure)``;
``FIGURES`` lists them for ``python -m workbench reproduce p4``. ``explore_*`` build the
notebook's slider views. Parameter values the paper does not state are marked [choice].
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench import redundancy as rd
from workbench.plots import FORMULA_STYLE, POLICY_COLORS, ci_errorbar, figure
from workbench.sweep import sweep
from workbench.widgets import interactive_figure

N_PAPER = 24
SEXP = rd.SExp(3.0, 0.2)  # Figs. 4-7
PARETO = rd.Pareto(1.5, 1.2)
FAMILIES = {"S-Exp(3, 0.2)": SEXP, "Pareto(1.5, 1.2)": PARETO}
FIG3_LAMBDA = 3.0  # [choice] not stated; m=2 beats m=1 on P_b for Pareto only above λ≈1.2


# --------------------------------------------------------------------------------------
# Simulation points for the sweep engine (module level: picklable)
# --------------------------------------------------------------------------------------


def simulate_point(
    family, a, b, N, m, lam, t_cloud, n_jobs, replications, waiting_room=0, seed=0
) -> dict:
    """One simulated configuration as a flat dict (the sweep engine's unit of work)."""
    res = rd.simulate(
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
    return {
        "sim_mean": res.mean,
        "sim_ci_low": res.ci_low,
        "sim_ci_high": res.ci_high,
        "sim_blocking": res.blocking,
        "sim_blocking_ci_low": res.blocking_ci_low,
        "sim_blocking_ci_high": res.blocking_ci_high,
        "variance_finite": res.variance_finite,
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
        base_seed=2303_00486,
    )


# --------------------------------------------------------------------------------------
# Figures of the paper
# --------------------------------------------------------------------------------------


def fig3(quick: bool = False, N: int = N_PAPER, lam: float = FIG3_LAMBDA):
    """E[T_job] and P_b vs m (N = 24; S-Exp(1, 1) and Pareto(1, 1.2))."""
    services = {"S-Exp(1, 1)": rd.SExp(1.0, 1.0), "Pareto(1, 1.2)": rd.Pareto(1.0, 1.2)}
    frames = []
    for label, svc in services.items():
        df = rd.metrics_by_m(N, lam, 1.0, svc)[["m", "c", "job_time", "blocking"]]
        frames.append(df.assign(service=label, lam=lam, N=N))
    data = pd.concat(frames, ignore_index=True)
    fig, axes = figure(2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        ax.plot(df["m"], df["job_time"], "r*-", label="E[T_job]")
        ax.set(xlabel="replication factor m", ylabel="E[T_job]", title=f"{label}, λ={lam:g}")
        ax2 = ax.twinx()
        ax2.plot(df["m"], df["blocking"], "b^-", label="P_b")
        ax2.set_ylabel("P_b (Erlang-B)")
        ax2.grid(False)
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles=handles, loc="center right")
    return data, fig


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
) -> pd.DataFrame:
    """E[T_sys] vs lam for each policy: its m, analytic (exact and paper), optional simulation."""
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
        sims = _run_points(points, quick, "Fig. 4 simulations")
        data = pd.concat([data, sims[[c for c in sims if c.startswith("sim_")]]], axis=1)
    return data


def fig4(quick: bool = False):
    """E[T_sys] vs lam for ASTO / BPO / benchmark (N=24, T_cl=15): analytic + simulation.

    The paper simulates 500 arrivals x 100 runs; so do we (20 runs with --quick).
    """
    lams = np.arange(0.25, 5.01, 0.5 if quick else 0.25)
    frames = [
        policy_curves(
            N_PAPER, 15.0, svc, lams, n_jobs=500, replications=20 if quick else 100, quick=quick
        ).assign(service=label)
        for label, svc in FAMILIES.items()
    ]
    data = pd.concat(frames, ignore_index=True)
    fig, axes = figure(2)
    for ax, (label, df) in zip(axes, data.groupby("service", sort=False), strict=True):
        _draw_policies(ax, df)
        ax.set_title(f"N=24, T_cl=15, {label}")
    return data, fig


def _draw_policies(ax, df):
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


def _by_m_figure(param: str, values, fixed: dict, title_fmt: str):
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
    data = pd.concat(frames, ignore_index=True)
    fig, axes = figure(2)
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
    return data, fig


def fig5(quick: bool = False):
    """E[T_sys] vs m for lam in {0.1, 1, 5}, T_cl = 8 (eq. 1 exact and eqs. 1/8 as printed)."""
    return _by_m_figure("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0}, "N=24, T_cl=8, {}")


def fig6(quick: bool = False):
    """E[T_sys] vs m for T_cl in {15, 50, 100}, lam = 1.5 (caption's '10' is a typo for 100)."""
    return _by_m_figure("t_cloud", (15.0, 50.0, 100.0), {"lam": 1.5}, "N=24, λ=1.5, {}")


def optimum_vs_workers(Ns, lam, t_cloud, service, formula="exact") -> pd.DataFrame:
    rows = []
    for N in Ns:
        m = rd.optimal_m(N, lam, t_cloud, service, formula)
        rows.append(
            {
                "N": N,
                "m_opt": m,
                "c_opt": N // m,
                "formula": formula,
                "system_time": rd.system_time(N, m, lam, t_cloud, service),
            }
        )
    return pd.DataFrame(rows)


def fig7(quick: bool = False):
    """Optimal m and c = floor(N/m) vs N (lam = 1.5, T_cl = 10)."""
    Ns = range(2, 61 if quick else 121)
    data = pd.concat(
        [
            optimum_vs_workers(Ns, 1.5, 10.0, svc, f).assign(service=label)
            for label, svc in FAMILIES.items()
            for f in rd.FORMULAS
        ],
        ignore_index=True,
    )
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
    return data, fig


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


def table1(quick: bool = False):
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
                got = classify_allocation(kw["N"], m)
                rows.append(
                    {
                        "family": fam,
                        "parameter": param,
                        "level": level,
                        "value": value,
                        "N": kw["N"],
                        "m_opt": m,
                        "c_opt": kw["N"] // m,
                        "workbench": got,
                        "paper": TABLE1_PAPER[(fam, param, level)],
                    }
                )
    data = pd.DataFrame(rows)
    data["agrees"] = data["workbench"] == data["paper"]
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
        rowLabels=list(TABLE1_SERVICES),
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
    return data, fig


# --------------------------------------------------------------------------------------
# Beyond the paper
# --------------------------------------------------------------------------------------


def ext_eq8(
    quick: bool = False,
    N: int = N_PAPER,
    m: int = 4,
    t_cloud: float = 15.0,
    service: rd.ServiceTime = SEXP,
):
    """Where the paper's eq. 8 departs from Erlang-B and what a simulation says."""
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
    return data, fig


def ext_waiting_room(quick: bool = False, lam: float = 1.5, t_cloud: float = 15.0):
    """M/G/c/c+k by simulation: does a waiting room change the best m? (paper Sec. VIII-1)."""
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
                label=f"k={k} waiting places",
            )
            ci_errorbar(
                axes[1, col],
                d["m"],
                d["sim_blocking"],
                d["sim_blocking_ci_low"],
                d["sim_blocking_ci_high"],
                fmt="o-",
                color=f"C{i}",
                label=f"k={k}",
            )
        d0 = df[df.waiting_room == 0]
        axes[1, col].plot(d0["m"], d0["erlang_b"], "k--", label="Erlang-B (k=0)")
        axes[0, col].set(title=f"{label}, λ={lam:g}, T_cl={t_cloud:g}", ylabel="E[T_sys]")
        axes[1, col].set(xlabel="replication factor m", ylabel="P(sent to cloud)")
        axes[0, col].legend(fontsize=7)
        axes[1, col].legend(fontsize=7)
    return data, fig


def ext_weibull(quick: bool = False, lam: float = 1.5, t_cloud: float = 15.0):
    """Weibull service (future-work family): the best m vs the shape parameter."""
    shapes = np.round(np.linspace(0.3, 3.0, 10 if quick else 28), 3)
    rows = []
    for k in shapes:
        svc = rd.Weibull(k, 1.0 / rd.Weibull(k, 1.0).job_time_mean(1) * 7.0)  # E[T_job(1)] = 7
        for formula in rd.FORMULAS:
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
    data = pd.DataFrame(rows)
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
    return data, fig


def ext_heavy_tail(quick: bool = False):
    """How slowly a simulated mean settles when job times have infinite variance."""
    n = 100_000 if quick else 2_000_000
    frames = []
    for m in (1, 2, 3):
        tr = rd.running_mean_trace(N_PAPER, m, 1.0, 15.0, PARETO, n_jobs=n, seed=7 + m)
        tr["m"] = m
        tr["exact"] = rd.system_time(N_PAPER, m, 1.0, 15.0, PARETO)
        tr["variance_finite"] = PARETO.variance_finite(m)
        frames.append(tr)
    data = pd.concat(frames, ignore_index=True)
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
    return data, fig


FIGURES = {
    "fig3": fig3,
    "fig4": fig4,
    "fig5": fig5,
    "fig6": fig6,
    "fig7": fig7,
    "table1": table1,
    "ext_eq8": ext_eq8,
    "ext_waiting_room": ext_waiting_room,
    "ext_weibull": ext_weibull,
    "ext_heavy_tail": ext_heavy_tail,
}


# --------------------------------------------------------------------------------------
# Claims (data/claims/p4.csv): id -> measure(quick) -> float
# --------------------------------------------------------------------------------------


def _fig4_gain(versus: str, lams, quick: bool, simulated: bool = False) -> float:
    """Mean over lams of 1 - E[T_sys](ASTO) / E[T_sys](versus), Pareto(1.5, 1.2)."""
    if simulated:
        df = policy_curves(
            N_PAPER,
            15.0,
            PARETO,
            lams,
            n_jobs=500,
            replications=100,
            quick=quick,
            policies=("asto", versus),
        )
        col = "sim_mean"
    else:
        df = policy_curves(N_PAPER, 15.0, PARETO, lams, policies=("asto", versus))
        col = "exact"
    wide = df.pivot(index="lam", columns="policy", values=col)
    return float((1 - wide["asto"] / wide[versus]).mean())


LAMS_LOW = np.arange(0.25, 2.01, 0.25)
LAMS_WIDE = np.geomspace(0.05, 20.0, 25)


def _optimal_ms(param, values, fixed, service, formula="exact"):
    return [
        rd.optimal_m(N_PAPER, **{**fixed, param: v}, service=service, formula=formula)
        for v in values
    ]


def _strictly_decreasing(xs) -> float:
    return float(all(a > b for a, b in zip(xs, xs[1:], strict=False)))


CLAIMS = {
    "thm1_sexp_pb_min_at_m1": lambda quick: float(
        all(rd.optimal_m_blocking(N_PAPER, lam, rd.SExp(1.0, 1.0)) == 1 for lam in LAMS_WIDE)
    ),
    "fig3_pareto_pb_min_at_m2": lambda quick: float(
        rd.optimal_m_blocking(N_PAPER, FIG3_LAMBDA, rd.Pareto(1.0, 1.2))
    ),
    "lemma1_pareto_alpha2_pb_min_at_m1": lambda quick: float(
        all(rd.optimal_m_blocking(N_PAPER, lam, rd.Pareto(1.0, 2.0)) == 1 for lam in LAMS_WIDE)
    ),
    "lemma1_pareto_alpha1p2_pb_min_in_1_2": lambda quick: float(
        all(rd.optimal_m_blocking(N_PAPER, lam, rd.Pareto(1.0, 1.2)) in (1, 2) for lam in LAMS_WIDE)
    ),
    "fig4_pareto_asto_gain_vs_benchmark_exact": lambda quick: _fig4_gain(
        "benchmark", LAMS_LOW, quick
    ),
    "fig4_pareto_asto_gain_vs_benchmark_sim500": lambda quick: _fig4_gain(
        "benchmark", LAMS_LOW, quick, simulated=True
    ),
    "fig4_pareto_asto_gain_vs_bpo_where_bpo_replicates": lambda quick: _fig4_gain(
        "bpo", np.arange(1.0, 2.01, 0.25), quick
    ),
    "fig4_pareto_bpo_equals_benchmark_low_lambda": lambda quick: float(
        all(rd.bpo(N_PAPER, lam, PARETO) == 1 for lam in (0.1, 0.25, 0.5))
    ),
    "fig4_sexp_asto_equals_benchmark_above_2p5": lambda quick: float(
        all(rd.asto(N_PAPER, lam, 15.0, SEXP) == 1 for lam in np.arange(2.75, 5.01, 0.25))
    ),
    "fig5_sexp_optimal_m_decreases_with_lambda": lambda quick: _strictly_decreasing(
        _optimal_ms("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0}, SEXP)
    ),
    "fig5_pareto_optimal_m_decreases_with_lambda": lambda quick: _strictly_decreasing(
        _optimal_ms("lam", (0.1, 1.0, 5.0), {"t_cloud": 8.0}, PARETO)
    ),
    "fig6_sexp_m1_optimal_at_tcl50": lambda quick: float(rd.optimal_m(N_PAPER, 1.5, 50.0, SEXP)),
    "fig6_pareto_m1_not_optimal_at_tcl100": lambda quick: float(
        rd.optimal_m(N_PAPER, 1.5, 100.0, PARETO) > 1
    ),
    "fig7_optimal_m_grows_with_N_sexp": lambda quick: float(
        rd.optimal_m(120, 1.5, 10.0, SEXP) > rd.optimal_m(12, 1.5, 10.0, SEXP)
    ),
    "fig7_optimal_c_grows_with_N_pareto": lambda quick: float(
        120 // rd.optimal_m(120, 1.5, 10.0, PARETO) > 12 // rd.optimal_m(12, 1.5, 10.0, PARETO)
    ),
    "table1_cells_agreeing": lambda quick: float(table1(quick)[0]["agrees"].sum()),
    "eq8_vs_exact_sexp_m4_lam6": lambda quick: (
        rd.system_time(N_PAPER, 4, 6.0, 15.0, SEXP, "paper")
        - rd.system_time(N_PAPER, 4, 6.0, 15.0, SEXP)
    ),
    "pmax_at_most_half_c24": lambda quick: float(rd.erlang_b(24, 24.0)),
}


# --------------------------------------------------------------------------------------
# Notebook views: each returns an interactive_figure whose defaults draw a complete figure
# --------------------------------------------------------------------------------------


def service_controls(family: str = "S-Exp", a: float = 3.0, b: float = 0.2) -> dict:
    """Slider specs for a service family and its two parameters, ``family`` selected first.

    a: S-Exp delta | Pareto beta | Weibull shape; b: S-Exp mu | Pareto alpha (> 1) | Weibull scale.
    """
    families = [family] + [f for f in rd.SERVICE_FAMILIES if f != family]
    return {"family": families, "a": (0.0, 5.0, 0.1, a), "b": (0.05, 5.0, 0.05, b)}


def plot_tradeoff(N=24, lam=1.5, t_cloud=15.0, family="S-Exp", a=3.0, b=0.2):
    """Left: E[T_job] and P_b vs m. Right: E[T_sys] vs m, exact and as printed, with choices."""
    svc = rd.make_service(family, a, b)
    df = rd.metrics_by_m(N, lam, t_cloud, svc)
    m_exact, m_paper = (int(df.loc[df[f"system_time_{f}"].idxmin(), "m"]) for f in rd.FORMULAS)
    m_asto, m_bpo = rd.asto(N, lam, t_cloud, svc), rd.bpo(N, lam, svc)
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
    svc = rd.make_service(family, a, b)
    lams = np.linspace(lam_max / 10, lam_max, 10)
    df = policy_curves(N, t_cloud, svc, lams, n_jobs=n_jobs, replications=replications)
    fig, ax = figure(1, width=7.0, height=3.8, fast=True)
    _draw_policies(ax, df)
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
    svc = rd.make_service(family, a, b)
    m = min(m, N)
    ms = sorted(set(range(1, min(N, 12) + 1)) | {m})
    sims = {
        k: rd.simulate(
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
    exact = [rd.system_time(N, k, lam, t_cloud, svc) for k in ms]
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
    tag = "" if sim.variance_finite else ", INFINITE variance"
    ax1.set(
        xlabel="m",
        ylabel="E[T_sys]",
        title=f"{svc.label()}, N={N}, λ={lam:g}: at m={m} P_b sim "
        f"{sim.blocking:.3f} vs Erlang-B {rd.blocking(N, m, lam, svc):.3f}{tag}",
    )
    ax1.title.set_fontsize(8)
    ax1.legend(fontsize=7)
    trace = rd.running_mean_trace(N, m, lam, t_cloud, svc, n_jobs=max(n_jobs, 1000), seed=2)
    ax2.plot(trace["jobs"], trace["running_mean"], label=f"running mean, one run, m={m}")
    ax2.axhline(rd.system_time(N, m, lam, t_cloud, svc), color="k", ls=":", label="exact (k=0)")
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
    svc = rd.make_service(family, a, b)
    fig, (ax1, ax2) = figure(2, width=4.8, height=3.2, fast=True)
    for f in rd.FORMULAS:
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
