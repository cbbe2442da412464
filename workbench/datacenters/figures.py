"""The figures of P3: each a tidy frame (``<name>_frame(quick)``) and its drawing
(``plot_<name>(frame)``).

``quick`` computes fewer points and shorter runs (each frame says which). A frame that
simulates also takes ``seed``, the caller's (the notebook's ``SEED``, passed by
:meth:`~workbench.plots.FigureSpec.make`): its simulations draw from the frame's own base
seed shifted by it (:func:`workbench.seeding.figure_seed`), so ``seed=0`` gives the
published numbers.

``FIGURES`` maps the figure names used by ``python -m workbench reproduce p3`` to
:class:`workbench.plots.FigureSpec`. The frames at other parameters are the studies of
:mod:`workbench.datacenters.studies` (and :func:`ring_study` here), which go through
:func:`workbench.sweep.sweep`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from workbench.datacenters.diagram import draw_model, pair_text, subscript
from workbench.datacenters.exact import solve_exact
from workbench.datacenters.limit import limit_analysis
from workbench.datacenters.params import DEFAULTS, EXAMPLE, PARAMS, P3Params, Ring, example_at
from workbench.datacenters.ring import pairwise_reduction
from workbench.datacenters.simulation import ring_table, run_ring, simulate
from workbench.datacenters.studies import (
    convergence_table,
    cooperation_study,
    optimal_forwarding,
    regime_study,
)
from workbench.params import takes
from workbench.plots import FigureSpec, ci_errorbar, figure, unstable_legend
from workbench.seeding import figure_seed
from workbench.validation import check_bool, check_seed, refusal

__all__ = [
    "draw_model",
    "cooperation_frame",
    "plot_cooperation",
    "exact_limit_simulation_frame",
    "plot_exact_limit_simulation",
    "convergence_frame",
    "plot_convergence",
    "regime_map_frame",
    "plot_regime_map",
    "RING_SCENARIOS",
    "ring_study",
    "ring_frame",
    "plot_ring",
    "loss_landscape_frame",
    "plot_loss_landscape",
    "FIGURES",
]

_REGIME_CODES = {"A": 0, "B1": 1, "B2": 2, "E": 3}
#: the worked example, as the titles state it
_EXAMPLE_TEXT = (
    f"λ/N = {pair_text(EXAMPLE['lam'])}, c = {pair_text(EXAMPLE['c'])}, "
    f"μ = {pair_text(EXAMPLE['mu'])}, p = {pair_text(EXAMPLE['p'])}"
)
_REGIME_COLORS = ["#d9ead3", "#fce5cd", "#cfe2f3", "#f4cccc"]


def _legend_outside(ax, frame=None, **kw):
    """Legend to the right of the axes, off the data; with the entry for hollow markers when
    a simulated point of ``frame`` is not stationary."""
    kw.setdefault("fontsize", 8)
    kw |= {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
    if frame is not None and not frame["stationary"].all():
        return unstable_legend(ax, **kw)
    return ax.legend(**kw)


def plot_cooperation(frame: pd.DataFrame, fast=False):
    """β1, β2 and the lost fraction against p1 (or p2): the gain of cooperation and who pays
    for it. Solid: exact chain; dashed: scaling limit (left out where it is not certified).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`cooperation_frame`, or :func:`workbench.datacenters.studies.cooperation_study`
        at other parameters.
    fast : bool
        Fixed margins instead of constrained layout, for slider views.

    Returns
    -------
    matplotlib.figure.Figure
    """
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
    ax.set_xlabel(f"forwarding probability {subscript(vary)}")
    ax.set_ylabel("blocking probability")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    _legend_outside(ax, fontsize=7)
    ax.set_title(
        f"Who pays for cooperation: λ = {pair_text((row.lam1, row.lam2))}, "
        f"C = {pair_text((row.C1, row.C2))}, μ = {pair_text((row.mu1, row.mu2))}, "
        f"{subscript(other)} = {row.p_other:g}",
        fontsize=9,
    )
    return fig


_EXAMPLE_SIMULATION_SEED = 1  # the seed of the figure's simulations (any fixed seed would do)


def exact_limit_simulation_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """The worked example at several N: exact chain, simulation (CI) and the limit.

    Parameters
    ----------
    quick : bool
        N up to 50 and 8 replications of 100,000 events, else N up to 100 and 20 of
        1,000,000.
    seed : int
        The caller's seed (see the module's docstring).

    Returns
    -------
    pandas.DataFrame
        One row per N, class and model (``exact``, ``simulation``, ``limit``): ``beta``,
        the simulation's ``ci_low``/``ci_high`` and ``stationary``.
    """
    func = "exact_limit_simulation_frame"
    quick = check_bool(quick, "quick", func)
    seed = figure_seed(_EXAMPLE_SIMULATION_SEED, check_seed(seed, func))
    lim = limit_analysis(DEFAULTS)  # the worked example per unit N
    sizes = (10, 25, 50) if quick else (10, 25, 50, 100)
    rows = []
    for n in sizes:
        exact = solve_exact(example_at(n)).beta
        sim = simulate(
            example_at(n),
            events=100_000 if quick else 1_000_000,
            replications=8 if quick else 20,
            seed=seed,
            overload="transient",  # a flagged point is drawn hollow, not dropped
        )
        for i in (1, 2):
            low, high = sim.interval(f"beta{i}")
            rows += [
                (n, i, "exact", exact[i - 1], np.nan, np.nan, True),
                (n, i, "simulation", sim[f"beta{i}"], low, high, sim.stationary),
                (n, i, "limit", lim.beta[i - 1], np.nan, np.nan, True),
            ]
    columns = ["N", "class", "model", "beta", "ci_low", "ci_high", "stationary"]
    return pd.DataFrame(rows, columns=columns)


def _label_sizes(ax, sizes):
    """Log-scaled N axis labelled with the sizes actually computed."""
    sizes = sorted(set(int(n) for n in sizes))
    ax.set_xscale("log")
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.minorticks_off()


def plot_exact_limit_simulation(frame: pd.DataFrame):
    """Exact vs simulation (95% CI) vs limit for each class, against N.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`exact_limit_simulation_frame`.

    Returns
    -------
    matplotlib.figure.Figure
    """
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
        ax.set_ylabel(f"β{subscript(str(i))} (class {i} lost)")
        ax.set_ylim(bottom=0)
    _legend_outside(axes[1], frame)
    fig.suptitle(f"Exact chain, simulation and limit: {_EXAMPLE_TEXT}", fontsize=9)
    return fig


def plot_convergence(frame: pd.DataFrame, fast=False):
    """Exact β_i(N) against the limit, and the distance to it on log-log axes.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`convergence_frame`, or :func:`workbench.datacenters.studies.convergence_table`
        at other parameters.
    fast : bool
        Fixed margins instead of constrained layout, for slider views.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax0, ax1) = figure(ncols=2, width=4.6, fast=fast)
    for i, color in ((1, "C0"), (2, "C1")):
        sym = f"β{subscript(str(i))}"
        ax0.plot(frame["N"], frame[f"beta{i}"], "o-", color=color, label=f"{sym}(N) exact")
        ax0.axhline(frame[f"limit_beta{i}"].iloc[0], ls="--", color=color, label=f"{sym}(∞) limit")
        err = frame[f"error{i}"].abs()
        ax1.loglog(frame["N"], err, "o-", color=color, label=f"|{sym}(N) − {sym}(∞)|")
    n = frame["N"].to_numpy(dtype=float)
    ref = frame["error2"].abs().iloc[0] * (n[0] / n) ** 0.5
    ax1.loglog(n, ref, ":", color="gray", label="∝ N^(−1/2)")
    ax1.loglog(n, frame["error2"].abs().iloc[0] * n[0] / n, "-.", color="gray", label="∝ 1/N")
    for ax in (ax0, ax1):
        _label_sizes(ax, frame["N"])
        ax.set_xlabel("scale N")
    ax0.set_ylabel("blocking probability β")
    ax0.set_ylim(bottom=0)
    _legend_outside(ax0, fontsize=7)  # inside, it hid the β₂(∞) line
    ax1.set_ylabel("distance to the limit")
    ax1.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"Slow convergence to the limit: {_EXAMPLE_TEXT}", fontsize=9)
    return fig


def plot_regime_map(frame: pd.DataFrame, *, mark=EXAMPLE["lam"], fast=False):
    """Regions (A), (B1), (B2), (E) of the limit in the plane of the loads per unit N.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`regime_map_frame`, or :func:`workbench.datacenters.studies.regime_study` at
        other parameters.
    mark : (float, float) or None
        A point (λ1/N, λ2/N) to star; default the worked example.
    fast : bool
        Fixed margins instead of constrained layout, for slider views.

    Returns
    -------
    matplotlib.figure.Figure
    """
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
        f"Regimes of the limit: p = {pair_text(p, '.2f')}, c = {pair_text(c)}, μ = {pair_text(mu)}",
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


@takes(P3Params, "scenarios", "n", "ring_p", "quick", "seed")
def ring_study(par, *, scenarios=None, n=40, quick=False) -> pd.DataFrame:
    """Ring of centers (c = mu = 1): simulation at scale N = ``n`` against the pairwise
    reduction.

    Parameters
    ----------
    scenarios : dict or None
        Name -> arrival rates per unit N, one per center (3 to 64); None:
        :data:`RING_SCENARIOS`.
    n : int
        The scale N: every center has N servers and receives λ_j N requests per second.
    quick : bool
        6 replications of 150,000 events per scenario, else 20 of 1,500,000.
    seed : int
        Root of the simulations' streams.

    Returns
    -------
    pandas.DataFrame
        One row per scenario and center: ``lam``, the reduction's ``reduction`` and
        ``beta_limit``, the simulation's ``beta_sim``, ``ci_low``, ``ci_high`` and
        ``stationary``, and ``N``, ``p``.
    """
    func = "ring_study"
    scenarios = RING_SCENARIOS if scenarios is None else scenarios
    if not isinstance(scenarios, dict) or not scenarios:
        raise refusal(
            func,
            "scenarios",
            "a dict of name -> arrival rates per unit N (3 to 64 per scenario)",
            scenarios,
        )
    n = PARAMS["servers"].with_(name="n", pair=False).check(n, func)
    p = par.ring_p
    quick = check_bool(quick, "quick", func)
    run_par = par.trusted(events=150_000 if quick else 1_500_000, replications=6 if quick else 20)
    rows = []
    for name, lam in scenarios.items():
        ring = Ring.of(func, lam, 1.0, 1.0, p, per_unit=True, rates_name="scenarios")
        lam = ring.rates
        red = pairwise_reduction(ring)
        # the centers at scale N: checked here once, as the simulation's own door would
        centers = Ring.of(func, lam * n, n, 1.0, p, rates_name="scenarios")
        run = run_ring(centers, run_par, "transient", func)  # flagged runs: hollow, not dropped
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


_RING_SEED = 2  # the seed of the ring figure's simulations


def ring_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """:func:`ring_study` of :data:`RING_SCENARIOS` at N = 40, p_j = 0.25.

    Parameters
    ----------
    quick : bool
        6 replications of 150,000 events per scenario, else 20 of 1,500,000.
    seed : int
        The caller's seed (see the module's docstring).

    Returns
    -------
    pandas.DataFrame
        As :func:`ring_study`'s: one row per scenario and center.
    """
    seed = figure_seed(_RING_SEED, check_seed(seed, "ring_frame"))
    return ring_study(scenarios=RING_SCENARIOS, n=40, ring_p=0.25, quick=quick, seed=seed)


def plot_ring(frame: pd.DataFrame, fast=False):
    """Per-center blocking in the ring: simulation (95% CI) and the pairwise reduction.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`ring_frame`, or :func:`ring_study` at other parameters.
    fast : bool
        Fixed margins instead of constrained layout, for slider views.

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(dict.fromkeys(frame["scenario"]))
    fig, axes = figure(
        ncols=len(names), width=max(3.6, 6.4 / len(names)), height=3.4, fast=fast, squeeze=False
    )
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
                fontsize=8,
                color="C3",
            )
        ax.set_xticks(sub["center"])
        ax.set_xticklabels(
            [f"{j}\nλ={v:g}" for j, v in zip(sub["center"], sub["lam"], strict=True)], fontsize=8
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


def plot_loss_landscape(frame: pd.DataFrame, fast=False):
    """Loss rate and unfairness over (p1, p2): the step beyond the paper.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`loss_landscape_frame`, or
        :func:`workbench.datacenters.studies.optimal_forwarding` at other parameters.
    fast : bool
        Fixed margins instead of constrained layout, for slider views.

    Returns
    -------
    matplotlib.figure.Figure
    """
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
            f"Exact chain over (p₁, p₂): λ = {pair_text((first.lam1, first.lam2))}, "
            f"C = {pair_text((first.C1, first.C2))}, μ = {pair_text((first.mu1, first.mu2))}",
            fontsize=9,
        )
    return fig


def cooperation_frame(quick=False) -> pd.DataFrame:
    """:func:`cooperation_study` of the worked example, p2 = 0.3.

    Parameters
    ----------
    quick : bool
        N = 50 and 11 values of p1, else N = 200 and 41.

    Returns
    -------
    pandas.DataFrame
        As :func:`~workbench.datacenters.studies.cooperation_study`'s.
    """
    quick = check_bool(quick, "quick", "cooperation_frame")
    point = example_at(50 if quick else 200)
    return cooperation_study(
        point.lam,
        point.servers,
        point.mu,
        p_other=point.p[1],
        vary="p1",
        points=11 if quick else 41,
    )


def convergence_frame(quick=False) -> pd.DataFrame:
    """:func:`convergence_table` of the worked example.

    Parameters
    ----------
    quick : bool
        N up to 200, else up to 2000.

    Returns
    -------
    pandas.DataFrame
        As :func:`~workbench.datacenters.studies.convergence_table`'s.
    """
    quick = check_bool(quick, "quick", "convergence_frame")
    sizes = (10, 20, 50, 100, 200) if quick else (10, 20, 50, 100, 200, 500, 1000, 2000)
    return convergence_table(sizes=sizes, progress=not quick)


def regime_map_frame(quick=False) -> pd.DataFrame:
    """:func:`regime_study` at the table's defaults.

    Parameters
    ----------
    quick : bool
        61 points per axis, else 201.

    Returns
    -------
    pandas.DataFrame
        As :func:`~workbench.datacenters.studies.regime_study`'s.
    """
    quick = check_bool(quick, "quick", "regime_map_frame")
    return regime_study(map_points=61 if quick else 201)


def loss_landscape_frame(quick=False) -> pd.DataFrame:
    """:func:`optimal_forwarding` for the worked example.

    Parameters
    ----------
    quick : bool
        N = 20 and 11 values of each p_i, else N = 50 and 21.

    Returns
    -------
    pandas.DataFrame
        As :func:`~workbench.datacenters.studies.optimal_forwarding`'s.
    """
    quick = check_bool(quick, "quick", "loss_landscape_frame")
    point = example_at(20 if quick else 50)
    grid = 11 if quick else 21
    return optimal_forwarding(point.lam, point.servers, point.mu, grid=grid, progress=not quick)


FIGURES = {
    "cooperation": FigureSpec(
        cooperation_frame,
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
        convergence_frame,
        plot_convergence,
        "Exact β_i(N) against the limit, and the distance to it on log-log axes.",
    ),
    "regime_map": FigureSpec(
        regime_map_frame,
        plot_regime_map,
        "Regimes (A), (B1), (B2), (E) of the scaling limit in the (λ1, λ2) plane.",
    ),
    "ring": FigureSpec(
        ring_frame,
        plot_ring,
        "Ring of six centers: simulated blocking (95% CI) and the pairwise reduction.",
    ),
    "loss_landscape": FigureSpec(
        loss_landscape_frame,
        plot_loss_landscape,
        "Loss rate and β1 − β2 over (p1, p2) at N = 20 or 50: the step beyond the paper.",
    ),
}
