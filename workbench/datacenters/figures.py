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
from workbench.datacenters.params import EXAMPLE, PARAMS, _check_ring_vector
from workbench.datacenters.simulation import ring_table, simulate, simulate_ring
from workbench.plots import FigureSpec, ci_errorbar, figure, unstable_legend
from workbench.sweep import sweep
from workbench.validation import ParameterError, check_bool, check_real, check_seed

__all__ = [
    "draw_model",
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
    # the figure states its parameters: carried as columns so that a CSV round trip keeps them
    (l1, l2), (c1, c2), (m1, m2) = args["lam"], args["servers"], args["mu"]
    frame = frame.assign(
        vary=args["vary"], p_other=args["p_other"], lam1=l1, lam2=l2, C1=c1, C2=c2, mu1=m1, mu2=m2
    )
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


def _subscript(name: str) -> str:
    """``p1`` -> ``p₁`` (symbols as a student reads them)."""
    return name.translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _pair(values, fmt="g") -> str:
    return "(" + ", ".join(f"{v:{fmt}}" for v in values) + ")"


def _legend_outside(ax, frame=None, **kw):
    """Legend to the right of the axes, off the data; with the entry for hollow markers when
    a simulated point of ``frame`` is not stationary."""
    kw.setdefault("fontsize", 8)
    kw |= {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
    if frame is not None and not frame["stationary"].all():
        return unstable_legend(ax, **kw)
    return ax.legend(**kw)


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
    """β1, β2 and the lost fraction against p1 (or p2): the gain of cooperation and who pays
    for it. Solid: exact chain; dashed: scaling limit (left out where it is not certified)."""
    if frame is None:
        frame = cooperation_frame(lam, servers, mu, p_other, vary, points)
    row = frame.iloc[0]
    vary = row["vary"]
    other = "p2" if vary == "p1" else "p1"
    fig, ax = figure(fast=fast, width=7.6, height=3.8)
    colors = {"beta1": "C0", "beta2": "C1", "loss_fraction": "k"}
    labels = {
        "beta1": "β₁ (class 1 lost)",
        "beta2": "β₂ (class 2 lost)",
        "loss_fraction": "(λ₁β₁ + λ₂β₂)/(λ₁ + λ₂)",
    }
    for model, sub in frame.groupby("model", sort=False):
        style = "--" if model.startswith("limit") else "-"
        for col in ("beta1", "beta2", "loss_fraction"):
            ax.plot(
                sub["p_varied"], sub[col], style, color=colors[col], label=f"{labels[col]}, {model}"
            )
    ax.set_xlabel(f"forwarding probability {_subscript(vary)}")
    ax.set_ylabel("blocking probability")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    _legend_outside(ax, fontsize=7)
    ax.set_title(
        f"Who pays for cooperation: λ = {_pair((row.lam1, row.lam2))}, "
        f"C = {_pair((row.C1, row.C2))}, μ = {_pair((row.mu1, row.mu2))}, "
        f"{_subscript(other)} = {row.p_other:g}",
        fontsize=9,
    )
    return fig


def _pair_of(value, name: str, func: str) -> tuple:
    """A sequence of exactly two items (each checked by the caller)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ParameterError(
            f"The '{name}' parameter of {func} must be a pair (one value per center). "
            f"Got {value!r} instead."
        )
    return tuple(value)


def exact_limit_simulation_frame(quick=True, seed=1) -> pd.DataFrame:
    """The worked example at several N: exact chain, simulation (CI) and the limit."""
    quick = check_bool(quick, "quick", "exact_limit_simulation_frame")
    seed = check_seed(seed, "exact_limit_simulation_frame")
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
            overload="transient",  # a flagged point is drawn hollow, not dropped
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
                    "stationary": True,
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
                    "stationary": sim.stationary,
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
                    "stationary": True,
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
            sim["ci_low"],  # clipped to [0, 1] by the simulation
            sim["ci_high"],
            stationary=sim["stationary"],
            color="C2",
            label="simulation, 95% CI",
        )
        ax.axhline(lim["beta"].iloc[0], ls="--", color="k", label="limit N → ∞")
        _label_sizes(ax, ex["N"])
        ax.set_xlabel("scale N (Cᵢ = N servers, arrivals λᵢN)")
        ax.set_ylabel(f"β{_subscript(str(i))} (class {i} lost)")
        ax.set_ylim(bottom=0)
    _legend_outside(axes[1], frame)
    ex = EXAMPLE
    fig.suptitle(
        f"Exact chain, simulation and limit: λ/N = {_pair(ex['lam'])}, c = {_pair(ex['c'])}, "
        f"μ = {_pair(ex['mu'])}, p = {_pair(ex['p'])}",
        fontsize=9,
    )
    return fig


def plot_convergence(frame: pd.DataFrame, fast=False):
    """Exact β_i(N) against the limit, and the distance to it on log-log axes."""
    fig, axes = figure(ncols=2, width=4.6, fast=fast)
    ax = axes[0]
    for i, color in ((1, "C0"), (2, "C1")):
        sym = f"β{_subscript(str(i))}"
        ax.plot(frame["N"], frame[f"beta{i}"], "o-", color=color, label=f"{sym}(N) exact")
        ax.axhline(frame[f"limit_beta{i}"].iloc[0], ls="--", color=color, label=f"{sym}(∞) limit")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("scale N")
    ax.set_ylabel("blocking probability β")
    ax.set_ylim(bottom=0)
    _legend_outside(ax, fontsize=7)  # inside, it hid the β₂(∞) line
    ax = axes[1]
    for i, color in ((1, "C0"), (2, "C1")):
        err = frame[f"error{i}"].abs()
        sym = f"β{_subscript(str(i))}"
        ax.loglog(frame["N"], err, "o-", color=color, label=f"|{sym}(N) − {sym}(∞)|")
    n = frame["N"].to_numpy(dtype=float)
    ref = frame["error2"].abs().iloc[0] * (n[0] / n) ** 0.5
    ax.loglog(n, ref, ":", color="gray", label="∝ N^(−1/2)")
    ax.loglog(n, frame["error2"].abs().iloc[0] * n[0] / n, "-.", color="gray", label="∝ 1/N")
    _label_sizes(ax, frame["N"])
    ax.set_xlabel("scale N")
    ax.set_ylabel("distance to the limit")
    ax.legend(fontsize=7, loc="lower left")
    ex = EXAMPLE
    fig.suptitle(
        f"Slow convergence to the limit: λ/N = {_pair(ex['lam'])}, c = {_pair(ex['c'])}, "
        f"μ = {_pair(ex['mu'])}, p = {_pair(ex['p'])}",
        fontsize=9,
    )
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
    return frame.assign(p1=p[0], p2=p[1], c1=c[0], c2=c[1], mu1=mu[0], mu2=mu[1])


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
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if frame is None:
        frame = regime_frame(p, c, mu, lam_max, points)
    first = frame.iloc[0]
    p, c, mu = (first.p1, first.p2), (first.c1, first.c2), (first.mu1, first.mu2)
    codes = frame["regime"].map(lambda r: _REGIME_CODES.get(r, 3)).to_numpy()
    lam1 = np.unique(frame["lam1"])
    lam2 = np.unique(frame["lam2"])
    grid = codes.reshape(lam1.size, lam2.size).T
    fig, ax = figure(fast=fast, width=7.0, height=4.4)
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
    ax.set_xlabel("λ₁ arrival rate per unit N [1/s]")
    ax.set_ylabel("λ₂ arrival rate per unit N [1/s]")
    _legend_outside(
        ax,
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
        ]
        + ([Line2D([], [], color="k", marker="*", ls="", label="worked example")] if mark else []),
    )
    ax.set_title(
        f"Regimes of the limit: p = {_pair(p, '.2f')}, c = {_pair(c)}, μ = {_pair(mu)}",
        fontsize=9,
    )
    if fast:  # fixed margins: room on the right for the legend
        fig.subplots_adjust(right=0.6)
    return fig


RING_SCENARIOS = {
    "isolated hot spot": (1.6, 0.6, 0.6, 0.6, 0.6, 0.6),
    "two adjacent hot spots": (1.4, 1.2, 0.5, 0.5, 0.5, 0.5),
    "three adjacent hot spots": (1.3, 1.3, 1.3, 0.5, 0.5, 0.5),
}


def ring_frame(scenarios=None, n=40, p=0.25, quick=True, seed=2) -> pd.DataFrame:
    """Ring of J = 6 centers (c = mu = 1): simulation at N against the pairwise reduction.

    ``scenarios`` maps a name to the arrival rates per unit N (one per center); ``n`` is the
    scale N (servers per center), ``p`` the forwarding probability to each neighbour.
    """
    func = "ring_frame"
    scenarios = RING_SCENARIOS if scenarios is None else scenarios
    if not isinstance(scenarios, dict) or not scenarios:
        raise ParameterError(
            f"The 'scenarios' parameter of {func} must be a dict of name -> arrival rates per "
            f"unit N (3 to 64 per scenario). Got {scenarios!r} instead."
        )
    n = PARAMS["servers"].with_(name="n", pair=False).check(n, func)
    p = PARAMS["ring_p"].with_(name="p").check(p, func)
    quick = check_bool(quick, "quick", func)
    seed = check_seed(seed, func)
    rows = []
    for name, lam in scenarios.items():
        lam = np.asarray(_check_ring_vector(lam, PARAMS["ring_lam"], None, func, "scenarios"))
        red = ring_limit(lam, 1.0, 1.0, p)
        run = simulate_ring(
            lam * n,
            n,
            1.0,
            p,
            events=150_000 if quick else 1_500_000,
            replications=6 if quick else 20,
            seed=seed,
            overload="transient",  # a flagged run is drawn hollow, not dropped
        )
        sim = ring_table(run)
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
                    "p": p,
                    "stationary": run.stationary,
                }
            )
    return pd.DataFrame(rows)


def plot_ring(frame: pd.DataFrame, fast=False):
    """Per-center blocking in the ring: simulation (95% CI) and the pairwise reduction."""
    names = list(dict.fromkeys(frame["scenario"]))
    fig, axes = figure(ncols=len(names), width=max(3.6, 6.4 / len(names)), height=3.4, fast=fast,
                       squeeze=False)  # fmt: skip
    for ax, name in zip(axes[0], names, strict=True):
        sub = frame[frame.scenario == name]
        ci_errorbar(
            ax,
            sub["center"],
            sub["beta_sim"],
            sub["ci_low"],
            sub["ci_high"],
            stationary=sub["stationary"],
            color="C2",
            label=f"simulation at N = {sub['N'].iloc[0]} (95% CI)",
        )
        ok = sub["beta_limit"].notna()
        ax.plot(
            sub["center"][ok], sub["beta_limit"][ok], "kx", ms=8, label="pairwise reduction (N → ∞)"
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
        ax.set_xlabel("center j (λⱼ per unit N)")
        ax.set_ylabel("βⱼ (requests of center j lost)")
        ax.set_ylim(0, 1.15 * ax.get_ylim()[1])  # room above the points for the "n/a" marks
    handles, labels = axes[0][0].get_legend_handles_labels()
    if not frame["stationary"].all():
        legend = unstable_legend(axes[0][0])
        handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        legend.remove()
    first = frame.iloc[0]
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle(
        f"Ring of {frame['center'].max() + 1} centers: c = μ = 1, pⱼ = {first.p:g} to each "
        f"neighbour, N = {first.N}",
        fontsize=9,
    )
    if fast:
        fig.subplots_adjust(bottom=0.32)
    else:
        fig.get_layout_engine().set(rect=(0, 0.1, 1, 0.9))
    return fig


def plot_loss_landscape(frame: pd.DataFrame, lam=None, fast=False):
    """Loss rate and unfairness over (p1, p2): the step beyond the paper."""
    fig, axes = figure(ncols=2, width=4.4, fast=fast)
    p1 = np.unique(frame["p1"])
    p2 = np.unique(frame["p2"])
    loss = frame["loss_rate"].to_numpy().reshape(p1.size, p2.size).T
    gap = (frame["beta1"] - frame["beta2"]).to_numpy().reshape(p1.size, p2.size).T
    im = axes[0].pcolormesh(p1, p2, loss, shading="nearest", cmap="viridis")
    fig.colorbar(im, ax=axes[0], label="loss rate λ₁β₁ + λ₂β₂ [1/s]")
    best = frame[frame.min_loss].iloc[0]
    axes[0].plot(best.p1, best.p2, "r*", ms=14, label="minimum loss", zorder=5, clip_on=False)
    im2 = axes[1].pcolormesh(
        p1, p2, gap, shading="nearest", cmap="coolwarm", vmin=-abs(gap).max(), vmax=abs(gap).max()
    )
    fig.colorbar(im2, ax=axes[1], label="β₁ − β₂")
    axes[1].contour(p1, p2, gap, levels=[0.0], colors="k", linewidths=1)
    fair = frame[frame.fair].iloc[0]
    axes[1].plot(fair.p1, fair.p2, "k*", ms=14, label="max-min fair", zorder=5, clip_on=False)
    for ax in axes:
        ax.set_xlabel("p₁ forwarding probability of class 1")
        ax.set_ylabel("p₂ forwarding probability\nof class 2")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    axes[0].set_title("total loss", fontsize=9, loc="right")
    axes[1].set_title("who pays (black line: β₁ = β₂)", fontsize=9, loc="right")
    if {"lam1", "C1"} <= set(frame.columns):
        first = frame.iloc[0]
        fig.suptitle(
            f"Exact chain over (p₁, p₂): λ = {_pair((first.lam1, first.lam2))}, "
            f"C = {_pair((first.C1, first.C2))}, μ = {_pair((first.mu1, first.mu2))}",
            fontsize=9,
        )
    return fig


_SERVERS_DRAWN = 24  # at most this many servers are drawn per center (the count is written)


class _ModelDiagram:
    """The diagram of :func:`draw_model`, built once and redrawn from new parameters.

    :meth:`update` changes texts and which server squares are drawn and shaded, so a slider
    view redraws the same figure instead of building one per move (axes, patches and text
    layout are most of a redraw). ``_ModelDiagram().update(...)`` is a fresh
    :func:`draw_model` figure.
    """

    def __init__(self):
        from matplotlib.colors import to_rgba
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

        fig, ax = figure(width=8.0, height=4.2)
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        ax.grid(False)
        # hidden axes are not even measured (placing the title measures the tick labels of
        # an axis that is switched off, on every draw)
        ax.xaxis.set_visible(False)
        ax.yaxis.set_visible(False)

        def arrow(xy0, xy1, where, color="k", **kw):
            ax.add_patch(
                FancyArrowPatch(
                    xy0, xy1, arrowstyle="-|>", mutation_scale=14, color=color, lw=1.4, **kw
                )
            )
            return ax.text(*where, "", ha="center", va="center", fontsize=9, color=color)

        self.squares, self.center_labels, self.service_labels = [], [], []
        for x0, y0 in ((1.6, 1.8), (6.0, 1.8)):
            ax.add_patch(
                FancyBboxPatch((x0, y0), 2.4, 2.4, boxstyle="round,pad=0.05", fc="#f3f6fb", ec="k")
            )
            squares = []
            for k in range(_SERVERS_DRAWN):
                r, q = divmod(k, 6)
                squares.append(
                    ax.add_patch(
                        Rectangle(
                            (x0 + 0.15 + 0.37 * q, y0 + 1.95 - 0.4 * r),
                            0.3,
                            0.3,
                            fc="white",
                            ec="C0",
                        )  # fmt: skip
                    )
                )
            self.squares.append(squares)
            self.center_labels.append(ax.text(x0 + 1.2, y0 + 0.2, "", ha="center", fontsize=8))
            self.service_labels.append(ax.text(x0 + 1.2, y0 + 2.65, "", ha="center", fontsize=8))
        self.lam_labels = (
            arrow((0.1, 3.0), (1.55, 3.0), (0.75, 3.35)),
            arrow((9.9, 3.0), (8.45, 3.0), (9.25, 3.35)),
        )
        bend = "arc3,rad=-0.25"
        self.forward_labels = (
            arrow((4.1, 3.7), (5.9, 3.7), (5.0, 4.35), "C1", connectionstyle=bend),
            arrow((5.9, 2.3), (4.1, 2.3), (5.0, 1.65), "C1", connectionstyle=bend),
        )
        self.lost_labels = (
            arrow((2.8, 1.75), (2.8, 0.4), (1.3, 0.8), "C3"),
            arrow((7.2, 1.75), (7.2, 0.4), (8.7, 0.8), "C3"),
        )
        self.title = ax.set_title("", fontsize=10)
        # "C0" is resolved now: a later theme must not recolour the shading of this figure
        self.busy_color = to_rgba("C0")
        self.fig, self.ax = fig, ax

    def update(self, lam=(30.0, 16.0), servers=(20, 20), mu=(1.0, 1.0), p=(0.6, 0.3), busy=None):
        """Redraw from the parameters (checked as :func:`draw_model` checks them)."""
        args = PARAMS.check("draw_model", lam=lam, servers=servers, mu=mu, p=p)
        lam, servers, mu, p = args["lam"], args["servers"], args["mu"], args["p"]
        if busy is not None:
            busy = [
                check_real(b, "busy", "draw_model", 0.0, float(c))
                for b, c in zip(_pair_of(busy, "busy", "draw_model"), servers, strict=True)
            ]
        for i in (0, 1):
            shown = min(servers[i], _SERVERS_DRAWN)
            filled = shown if busy is None else round(shown * busy[i] / servers[i])
            for k, square in enumerate(self.squares[i]):
                square.set_visible(k < shown)
                square.set_facecolor(self.busy_color if k < filled else "white")
            more = "" if servers[i] <= _SERVERS_DRAWN else f" (24 of {servers[i]} drawn)"
            sub = _subscript(str(i + 1))
            self.center_labels[i].set_text(f"center {i + 1}: C{sub} = {servers[i]}{more}")
            self.service_labels[i].set_text(f"service μ{sub} = {mu[i]:g} per busy server")
            self.lam_labels[i].set_text(f"λ{sub} = {lam[i]:g}")
            self.forward_labels[i].set_text(f"full: forward\nw.p. p{sub} = {p[i]:g}")
            self.lost_labels[i].set_text(
                f"lost: 1 − p{sub} = {1 - p[i]:g}\n(or forwarded, other full)"
            )
        title = "Two cooperating data centers (loss systems, no waiting room)"
        if busy is not None:
            title += ": shaded = mean busy servers"
        self.title.set_text(title)
        return self.fig


def draw_model(lam=(30.0, 16.0), servers=(20, 20), mu=(1.0, 1.0), p=(0.6, 0.3), busy=None):
    """A diagram of the two-center model drawn from its parameters.

    Each center is a box of C_i servers (at most 24 drawn, the count written), fed by its
    own arrivals λ_i; a request finding its center full is forwarded with probability p_i
    (arrows between the centers) or lost with probability 1 − p_i (arrows down); a forwarded
    request finding the other center full is lost too. ``busy`` = (E[ℓ1], E[ℓ2]) shades
    that many servers (e.g. from :func:`workbench.datacenters.solve_exact`).
    """
    return _ModelDiagram().update(lam, servers, mu, p, busy)


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
