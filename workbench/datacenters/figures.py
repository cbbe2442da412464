"""The figures of P3: each a tidy frame (``*_frame``) and a drawing of it (``plot_*``).

``FIGURES`` maps the figure names used by ``python -m workbench reproduce p3`` to
:class:`workbench.plots.FigureSpec` (``frame(quick)`` then ``plot(frame)``). Studies over
many points go through :func:`workbench.sweep.sweep`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datacenters.model import (
    UncertifiedSolutionError,
    _classify,
    _limit_analysis,
    _solve_exact,
    convergence_table,
    optimal_forwarding,
    ring_limit,
)
from workbench.datacenters.params import EXAMPLE, PARAMS
from workbench.datacenters.simulation import ring_table, simulate, simulate_ring
from workbench.plots import FigureSpec, ci_errorbar, figure
from workbench.sweep import sweep

__all__ = [
    "cooperation_frame",
    "plot_cooperation",
    "exact_limit_simulation_frame",
    "plot_exact_limit_simulation",
    "plot_convergence",
    "regime_frame",
    "plot_regime_map",
    "RING_SCENARIOS",
    "ring_frame",
    "plot_ring",
    "plot_loss_landscape",
    "FIGURES",
]

_REGIME_CODES = {"A": 0, "B1": 1, "B2": 2, "E": 3}
_REGIME_COLORS = ["#d9ead3", "#fce5cd", "#cfe2f3", "#f4cccc"]


def cooperation_frame(
    lam, servers, mu, p_other=0.3, vary="p1", points=21, limit=True
) -> pd.DataFrame:
    """Exact (and limit) beta1, beta2 and the loss fraction as one forwarding probability varies.

    ``servers`` = (C1, C2) = N (c1, c2) with N = max(C) is used for the limit's scaling.
    """
    args = PARAMS.check(
        "cooperation_frame",
        lam=lam,
        servers=servers,
        mu=mu,
        p_other=p_other,
        vary=vary,
        points=points,
        limit=limit,
    )
    values = [float(q) for q in np.linspace(0.0, 1.0, args.pop("points"))]
    frame = sweep(_cooperation_rows, {"q": values}, fixed=args, n_workers=1, progress=False)
    frame = frame.drop(columns=["q", "replication", "seed"])
    frame.attrs["vary"] = args["vary"]
    return frame


def _cooperation_rows(q, lam, servers, mu, p_other, vary, limit) -> pd.DataFrame:
    """The exact (and limit) point of :func:`cooperation_frame` at p_varied = q."""
    n = max(servers)
    c = (servers[0] / n, servers[1] / n)
    p = (q, p_other) if vary == "p1" else (p_other, q)
    b1, b2 = _solve_exact(lam, servers, mu, p, tol=1e-10, func="cooperation_frame").beta
    rows = [
        {
            "p_varied": q,
            "model": f"exact (N={n})",
            "beta1": b1,
            "beta2": b2,
            "loss_fraction": (lam[0] * b1 + lam[1] * b2) / (lam[0] + lam[1]),
        }
    ]
    limit_beta = _cached_limit((lam[0] / n, lam[1] / n), c, mu, p) if limit else None
    if limit_beta is not None:
        l1, l2 = limit_beta
        rows.append(
            {
                "p_varied": q,
                "model": "limit N→∞",
                "beta1": l1,
                "beta2": l2,
                "loss_fraction": (lam[0] * l1 + lam[1] * l2) / (lam[0] + lam[1]),
            }
        )
    return pd.DataFrame(rows)


_LIMIT_CACHE: dict = {}


def _cached_limit(lam, c, mu, p, tol=1e-8):
    """The limit's beta, memoised for slider views; None where it cannot be certified (close
    to critical load), so that a figure leaves it out instead of drawing a guess."""
    key = tuple(round(float(v), 10) for v in (*lam, *c, *mu, *p))
    if key not in _LIMIT_CACHE:
        if len(_LIMIT_CACHE) > 4096:
            _LIMIT_CACHE.clear()
        try:
            _LIMIT_CACHE[key] = _limit_analysis(lam, c, mu, p, tol=tol).beta
        except UncertifiedSolutionError:
            _LIMIT_CACHE[key] = None
    return _LIMIT_CACHE[key]


def plot_cooperation(
    frame: pd.DataFrame | None = None,
    *,
    lam=(60.0, 32.0),
    servers=(40, 40),
    mu=(1.0, 1.0),
    p_other=0.3,
    vary="p1",
    points=21,
    fast=False,
):
    """beta1, beta2 and the loss fraction against p1 (or p2): the gain of cooperation and who
    pays for it. Solid: exact chain; dashed: scaling limit."""
    if frame is None:
        frame = cooperation_frame(lam, servers, mu, p_other, vary, points)
    vary = frame.attrs.get("vary", vary)
    fig, ax = figure(fast=fast, width=6.0)
    colors = {"beta1": "C0", "beta2": "C1", "loss_fraction": "k"}
    labels = {
        "beta1": "β1 (class 1)",
        "beta2": "β2 (class 2)",
        "loss_fraction": "lost fraction of all requests",
    }
    for model, sub in frame.groupby("model", sort=False):
        style = "--" if model.startswith("limit") else "-"
        for col in ("beta1", "beta2", "loss_fraction"):
            ax.plot(
                sub["p_varied"], sub[col], style, color=colors[col], label=f"{labels[col]}, {model}"
            )
    ax.set_xlabel(f"forwarding probability {vary}")
    ax.set_ylabel("blocking probability")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="best")
    ax.set_title(f"Who pays for cooperation ({vary} varies)", fontsize=10)
    return fig


def exact_limit_simulation_frame(quick=True, seed=1) -> pd.DataFrame:
    """The worked example at several N: exact chain, simulation (CI) and the limit."""
    ex = EXAMPLE
    lim = _limit_analysis(ex["lam"], ex["c"], ex["mu"], ex["p"])
    sizes = (10, 25, 50) if quick else (10, 25, 50, 100)
    rows = []
    for n in sizes:
        lam = (ex["lam"][0] * n, ex["lam"][1] * n)
        caps = (n, n)
        exact = _solve_exact(lam, caps, ex["mu"], ex["p"], func="exact_limit_simulation_frame").beta
        sim = simulate(
            lam,
            caps,
            ex["mu"],
            ex["p"],
            events=100_000 if quick else 1_000_000,
            replications=8 if quick else 20,
            seed=seed,
        )
        for i in (1, 2):
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "exact",
                    "beta": exact[i - 1],
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                }
            )
            low, high = sim.interval(f"beta{i}")
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "simulation",
                    "beta": sim[f"beta{i}"],
                    "ci_low": low,
                    "ci_high": high,
                }
            )
            rows.append(
                {
                    "N": n,
                    "class": i,
                    "model": "limit",
                    "beta": lim.beta[i - 1],
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                }
            )
    return pd.DataFrame(rows)


def _label_sizes(ax, sizes):
    """Log-scaled N axis labelled with the sizes actually computed."""
    sizes = sorted(set(int(n) for n in sizes))
    ax.set_xscale("log")
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.minorticks_off()


def plot_exact_limit_simulation(frame: pd.DataFrame):
    """Exact vs simulation (95% CI) vs limit for each class, against N."""
    fig, axes = figure(ncols=2, width=4.2)
    for ax, i in zip(axes, (1, 2), strict=True):
        sub = frame[frame["class"] == i]
        ex = sub[sub.model == "exact"]
        sim = sub[sub.model == "simulation"]
        lim = sub[sub.model == "limit"]
        ax.plot(ex["N"], ex["beta"], "o-", color="C0", label="exact chain")
        ci_errorbar(
            ax,
            sim["N"] * 1.04,
            sim["beta"],
            sim["ci_low"],
            sim["ci_high"],
            color="C2",
            label="simulation, 95% CI",
        )
        ax.axhline(lim["beta"].iloc[0], ls="--", color="k", label="limit N→∞")
        _label_sizes(ax, ex["N"])
        ax.set_xlabel("N (C_i = N, arrivals λ_i N)")
        ax.set_ylabel(f"β{i}")
        ax.set_title(f"class {i}", fontsize=10)
    axes[0].legend(fontsize=7)
    return fig


def plot_convergence(frame: pd.DataFrame, fast=False):
    """Exact beta_i(N) against the limit, and the error on log-log axes."""
    fig, axes = figure(ncols=2, width=4.3, fast=fast)
    ax = axes[0]
    for i, color in ((1, "C0"), (2, "C1")):
        ax.plot(frame["N"], frame[f"beta{i}"], "o-", color=color, label=f"β{i} exact")
        ax.axhline(frame[f"limit_beta{i}"].iloc[0], ls="--", color=color, label=f"β{i} limit")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("N")
    ax.set_ylabel("blocking probability")
    ax.legend(fontsize=7)
    ax = axes[1]
    for i, color in ((1, "C0"), (2, "C1")):
        err = frame[f"error{i}"].abs()
        ax.loglog(frame["N"], err, "o-", color=color, label=f"|β{i}(N) − β{i}(∞)|")
    n = frame["N"].to_numpy(dtype=float)
    ref = frame["error2"].abs().iloc[0] * (n[0] / n) ** 0.5
    ax.loglog(n, ref, ":", color="gray", label="∝ N^(-1/2)")
    ax.loglog(n, frame["error2"].abs().iloc[0] * n[0] / n, "-.", color="gray", label="∝ 1/N")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("N")
    ax.set_ylabel("distance to the limit")
    ax.legend(fontsize=7)
    return fig


def regime_frame(p=EXAMPLE["p"], c=(1.0, 1.0), mu=(1.0, 1.0), lam_max=3.0, points=121):
    """Regime of the limit on a (lambda1, lambda2) grid, plus the limit's loss fraction where
    it is in closed form."""
    func = "regime_frame"
    args = PARAMS.check(func, p=p, c=c, mu=mu, lam_max=lam_max)
    p, c, mu, lam_max = args["p"], args["c"], args["mu"], args["lam_max"]
    points = PARAMS["map_points"].with_(name="points").check(points, func)
    values = np.linspace(lam_max / points, lam_max, points)
    rows = [
        {"lam1": a, "lam2": b, "regime": _classify((a, b), c, mu, p)}
        for a in values
        for b in values
    ]
    frame = pd.DataFrame(rows)
    frame.attrs.update(p=p, c=c, mu=mu)
    return frame


def plot_regime_map(
    frame: pd.DataFrame | None = None,
    *,
    p=EXAMPLE["p"],
    c=(1.0, 1.0),
    mu=(1.0, 1.0),
    lam_max=3.0,
    points=121,
    mark=EXAMPLE["lam"],
    fast=False,
):
    """Regions (A), (B1), (B2), (E) of the limit in the (lambda1, lambda2) plane."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    if frame is None:
        frame = regime_frame(p, c, mu, lam_max, points)
    p, c, mu = frame.attrs["p"], frame.attrs["c"], frame.attrs["mu"]
    codes = frame["regime"].map(lambda r: _REGIME_CODES.get(r, 3)).to_numpy()
    lam1 = np.unique(frame["lam1"])
    lam2 = np.unique(frame["lam2"])
    grid = codes.reshape(lam1.size, lam2.size).T
    fig, ax = figure(fast=fast, width=5.0, height=4.2)
    ax.pcolormesh(
        lam1,
        lam2,
        grid,
        cmap=ListedColormap(_REGIME_COLORS),
        vmin=-0.5,
        vmax=3.5,
        shading="nearest",
    )
    k1, k2 = c[0] * mu[0], c[1] * mu[1]
    x = np.linspace(k1, lam1[-1], 50)
    ax.plot(x, k2 - p[0] * (x - k1), "k-", lw=1)  # E / B1 boundary
    y = np.linspace(k2, lam2[-1], 50)
    ax.plot(k1 - p[1] * (y - k2), y, "k-", lw=1)  # E / B2 boundary
    ax.axvline(k1, color="k", lw=0.5, ls=":")
    ax.axhline(k2, color="k", lw=0.5, ls=":")
    if mark is not None:
        ax.plot(*mark, "k*", ms=10)
    ax.set_xlim(lam1[0], lam1[-1])
    ax.set_ylim(lam2[0], lam2[-1])
    ax.set_xlabel("λ1 (per unit N)")
    ax.set_ylabel("λ2 (per unit N)")
    ax.legend(
        handles=[
            Patch(color=col, label=lab)
            for col, lab in zip(
                _REGIME_COLORS,
                [
                    "(A) both underloaded",
                    "(B1) 1 overflows into 2",
                    "(B2) 2 overflows into 1",
                    "(E) both saturated",
                ],
                strict=True,
            )
        ],
        fontsize=7,
        loc="upper right",
    )
    ax.set_title(f"regimes of the limit, p = ({p[0]:.2f}, {p[1]:.2f})", fontsize=10)
    return fig


RING_SCENARIOS = {
    "isolated hot spot": (1.6, 0.6, 0.6, 0.6, 0.6, 0.6),
    "two adjacent hot spots": (1.4, 1.2, 0.5, 0.5, 0.5, 0.5),
    "three adjacent hot spots": (1.3, 1.3, 1.3, 0.5, 0.5, 0.5),
}


def ring_frame(scenarios=None, n=40, p=0.25, quick=True, seed=2) -> pd.DataFrame:
    """Ring of J = 6 centers (c = mu = 1): simulation at N against the pairwise reduction."""
    scenarios = RING_SCENARIOS if scenarios is None else scenarios
    rows = []
    for name, lam in scenarios.items():
        lam = np.asarray(lam, dtype=float)
        red = ring_limit(lam, 1.0, 1.0, p)
        sim = ring_table(
            simulate_ring(
                lam * n,
                n,
                1.0,
                p,
                events=150_000 if quick else 1_500_000,
                replications=6 if quick else 20,
                seed=seed,
            )
        )
        for j in range(lam.size):
            rows.append(
                {
                    "scenario": name,
                    "center": j,
                    "lam": lam[j],
                    "reduction": red["reduction"][j],
                    "beta_limit": red["beta"][j],
                    "beta_sim": sim["beta"][j],
                    "ci_low": sim["ci_low"][j],
                    "ci_high": sim["ci_high"][j],
                    "N": n,
                }
            )
    return pd.DataFrame(rows)


def plot_ring(frame: pd.DataFrame, fast=False):
    """Per-center blocking in the ring: simulation (95% CI) and the pairwise reduction."""
    names = list(dict.fromkeys(frame["scenario"]))
    fig, axes = figure(ncols=len(names), width=3.6, fast=fast, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        sub = frame[frame.scenario == name]
        ci_errorbar(
            ax,
            sub["center"],
            sub["beta_sim"],
            sub["ci_low"],
            sub["ci_high"],
            color="C2",
            label=f"simulation N={sub['N'].iloc[0]}",
        )
        ok = sub["beta_limit"].notna()
        ax.plot(
            sub["center"][ok], sub["beta_limit"][ok], "kx", ms=8, label="pairwise reduction (N→∞)"
        )
        for _, row in sub[~ok].iterrows():
            ax.annotate(
                "n/a",
                (row["center"], row["beta_sim"]),
                textcoords="offset points",
                xytext=(0, 8),
                ha="center",
                fontsize=7,
                color="C3",
            )
        ax.set_xticks(sub["center"])
        ax.set_xticklabels(
            [f"{j}\nλ={v:g}" for j, v in zip(sub["center"], sub["lam"], strict=True)], fontsize=7
        )
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("β_j")
        ax.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=7)
    return fig


def plot_loss_landscape(frame: pd.DataFrame, lam=None, fast=False):
    """Loss rate and unfairness over (p1, p2): the step beyond the paper."""
    fig, axes = figure(ncols=2, width=4.4, fast=fast)
    p1 = np.unique(frame["p1"])
    p2 = np.unique(frame["p2"])
    loss = frame["loss_rate"].to_numpy().reshape(p1.size, p2.size).T
    gap = (frame["beta1"] - frame["beta2"]).to_numpy().reshape(p1.size, p2.size).T
    im = axes[0].pcolormesh(p1, p2, loss, shading="nearest", cmap="viridis")
    fig.colorbar(im, ax=axes[0], label="loss rate λ1β1 + λ2β2")
    best = frame[frame.min_loss].iloc[0]
    axes[0].plot(best.p1, best.p2, "r*", ms=14, label="minimum loss", zorder=5, clip_on=False)
    im2 = axes[1].pcolormesh(
        p1, p2, gap, shading="nearest", cmap="coolwarm", vmin=-abs(gap).max(), vmax=abs(gap).max()
    )
    fig.colorbar(im2, ax=axes[1], label="β1 − β2")
    axes[1].contour(p1, p2, gap, levels=[0.0], colors="k", linewidths=1)
    fair = frame[frame.fair].iloc[0]
    axes[1].plot(fair.p1, fair.p2, "k*", ms=14, label="max-min fair", zorder=5, clip_on=False)
    for ax in axes:
        ax.set_xlabel("p1")
        ax.set_ylabel("p2")
        ax.legend(fontsize=7, loc="lower left", framealpha=0.9)
    axes[0].set_title("total loss", fontsize=10)
    axes[1].set_title("who pays (black line: β1 = β2)", fontsize=10)
    return fig


def _fig_cooperation(quick: bool):
    ex = EXAMPLE
    n = 50 if quick else 200
    frame = cooperation_frame(
        (ex["lam"][0] * n, ex["lam"][1] * n),
        (n, n),
        ex["mu"],
        p_other=ex["p"][1],
        vary="p1",
        points=11 if quick else 41,
    )
    return frame


def _fig_convergence(quick: bool):
    sizes = (10, 20, 50, 100, 200) if quick else (10, 20, 50, 100, 200, 500, 1000, 2000)
    return convergence_table(sizes=sizes, progress=not quick)


def _fig_regime_map(quick: bool):
    return regime_frame(points=61 if quick else 201)


def _fig_loss_landscape(quick: bool):
    n = 20 if quick else 50
    ex = EXAMPLE
    lam = (ex["lam"][0] * n, ex["lam"][1] * n)
    return optimal_forwarding(lam, (n, n), ex["mu"], grid=11 if quick else 21, progress=not quick)


FIGURES = {
    "cooperation": FigureSpec(
        _fig_cooperation,
        plot_cooperation,
        "β1, β2 and the lost fraction against p1 (example at N = 50 or 200): exact chain "
        "(solid) and scaling limit (dashed).",
    ),
    "exact_limit_simulation": FigureSpec(
        exact_limit_simulation_frame,
        plot_exact_limit_simulation,
        "Exact chain, simulation (95% CI) and the limit for the example, against N.",
    ),
    "convergence": FigureSpec(
        _fig_convergence,
        plot_convergence,
        "Exact β_i(N) against the limit, and the distance to it on log-log axes.",
    ),
    "regime_map": FigureSpec(
        _fig_regime_map,
        plot_regime_map,
        "Regimes (A), (B1), (B2), (E) of the scaling limit in the (λ1, λ2) plane.",
    ),
    "ring": FigureSpec(
        ring_frame,
        plot_ring,
        "Ring of six centers: simulated blocking (95% CI) and the pairwise reduction.",
    ),
    "loss_landscape": FigureSpec(
        _fig_loss_landscape,
        plot_loss_landscape,
        "Loss rate and β1 − β2 over (p1, p2) at N = 20 or 50: the step beyond the paper.",
    ),
}
