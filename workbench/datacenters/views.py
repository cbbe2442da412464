"""The notebook's slider views of P3 (the only P3 module that imports ipywidgets).

``VIEWS`` maps a view name to a function returning the widget. Every control comes from the
parameter table (symbol, meaning, unit, tooltip, valid range); each view redraws a plot
function of this module, which can be timed without widgets.
"""

from __future__ import annotations

import numpy as np

from workbench.datacenters.figures import (
    _cached_limit,
    _pair,
    draw_model,
    plot_regime_map,
    plot_ring,
    ring_frame,
)
from workbench.datacenters.model import _classify, _solve_exact
from workbench.datacenters.params import PARAMS, center
from workbench.plots import figure
from workbench.widgets import interactive_figure

__all__ = ["VIEWS", "explore", "explore_regimes", "explore_ring", "explore_model"]

_PER_N = {"meaning": "arrival rate per unit N", "slider": (0.1, 3.0)}


def _explore_plot(lam1, lam2, c1, c2, N, mu1, mu2, p1, p2):
    lam, mu = (lam1 * N, lam2 * N), (mu1, mu2)
    servers = (max(1, round(c1 * N)), max(1, round(c2 * N)))
    fig, axes = figure(ncols=2, width=4.6, height=3.6, fast=True)
    grid = np.linspace(0.0, 1.0, 11)
    exact = np.array(
        [_solve_exact(lam, servers, mu, (q, p2), tol=1e-10, func="explore").beta for q in grid]
    )
    ax = axes[0]
    ax.plot(grid, exact[:, 0], "o-", color="C0", ms=3, label="β₁ exact")
    ax.plot(grid, exact[:, 1], "o-", color="C1", ms=3, label="β₂ exact")
    loss = (lam[0] * exact[:, 0] + lam[1] * exact[:, 1]) / (lam[0] + lam[1])
    ax.plot(grid, loss, "k-", label="lost fraction")
    ax.axvline(p1, color="0.5", ls=":")
    ax.set_xlabel(f"forwarding probability p₁ (p₂ = {p2:.2f})")
    ax.set_ylabel("blocking probability")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.22), ncol=3)
    ax.set_title(f"C = {servers}, λ = {_pair(lam)}, μ = {_pair(mu)}", fontsize=8)
    now = _solve_exact(lam, servers, mu, (p1, p2), tol=1e-10, func="explore").beta
    c = (servers[0] / N, servers[1] / N)
    reg = _classify((lam1, lam2), c, mu, (p1, p2))
    lim = _cached_limit((lam1, lam2), c, mu, (p1, p2), tol=1e-7)
    ax = axes[1]
    x = np.arange(2)
    ax.bar(x - 0.2, now, 0.4, label=f"exact, N = {N}", color="C0")
    shown = list(now)
    if lim is not None:
        ax.bar(x + 0.2, lim, 0.4, label="limit N → ∞", color="0.6")
        shown += list(lim)
    else:
        ax.text(0.5, 0.9, "limit not certified (near critical load)", transform=ax.transAxes,
                ha="center", fontsize=8)  # fmt: skip
    for xi, v in zip(np.r_[x - 0.2, x + 0.2][: len(shown)], shown, strict=True):
        ax.text(xi, v, f"{v:.3f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels(["β₁ (class 1)", "β₂ (class 2)"])
    ax.set_ylabel("blocking probability")
    ax.set_ylim(0, max(1e-3, *shown) * 1.25)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.12), ncol=2)
    ax.set_title(f"p = ({p1:.2f}, {p2:.2f}); regime of the limit: ({reg})", fontsize=8)
    fig.subplots_adjust(bottom=0.3)
    return fig


def explore():
    """λ_i (per unit N), c_i, N, μ_i, p_i: blocking against p₁, and exact against the limit."""
    return interactive_figure(
        _explore_plot,
        title="Two cooperating data centers: who pays for cooperation",
        lam1=center("lam", 1, **_PER_N),
        lam2=center("lam", 2, **_PER_N),
        c1=center("c", 1),
        c2=center("c", 2),
        N=PARAMS["N"].with_(default=30, slider=(2, 60)),
        mu1=center("mu", 1),
        mu2=center("mu", 2),
        p1=center("p", 1),
        p2=center("p", 2),
    )


def _regime_plot(p1, p2, c1, c2):
    return plot_regime_map(p=(p1, p2), c=(c1, c2), points=81, fast=True)


def explore_regimes():
    """p_i and c_i: the regime map of the limit in the (λ1, λ2) plane."""
    return interactive_figure(
        _regime_plot,
        title="Regimes of the scaling limit",
        p1=center("p", 1),
        p2=center("p", 2),
        c1=center("c", 1),
        c2=center("c", 2),
    )


def _ring_plot(lam0, lam1, lam2, p, N):
    lam = (lam0, lam1, lam2, 0.5, 0.5, 0.5)
    frame = ring_frame({"ring of 6 (λ₃ = λ₄ = λ₅ = 0.5)": lam}, n=N, p=p, quick=True, seed=3)
    return plot_ring(frame, fast=True)


def _ring_center(j: int, default: float):
    return PARAMS["ring_lam"].with_(
        name=f"lam{j}",
        symbol=f"λ{'₀₁₂'[j]}",
        meaning=f"arrival rate per unit N of center {j}",
        default=default,
        length=None,  # one center's rate: a scalar
    )


def explore_ring():
    """The loads of three adjacent centers of a ring of six: simulation against the pairwise
    reduction, which gives up when three neighbours are congested (a simulation: runs in the
    background, only the latest move is computed)."""
    return interactive_figure(
        _ring_plot,
        title="Ring of J = 6 centers",
        background=True,
        lam0=_ring_center(0, 1.4),
        lam1=_ring_center(1, 1.2),
        lam2=_ring_center(2, 0.5),
        p=PARAMS["ring_p"],
        N=PARAMS["N"].with_(default=20, slider=(5, 60), step=5),
    )


def _model_plot(lam1, lam2, C1, C2, mu1, mu2, p1, p2):
    lam, servers, mu, p = (lam1, lam2), (C1, C2), (mu1, mu2), (p1, p2)
    sol = _solve_exact(lam, servers, mu, p, func="explore_model")
    fig = draw_model(lam, servers, mu, p, busy=sol.mean_busy)
    fig.axes[0].text(
        5.0,
        5.55,
        f"β₁ = {sol.beta[0]:.3f}, β₂ = {sol.beta[1]:.3f}; "
        f"E[ℓ₁] = {sol.mean_busy[0]:.1f}, E[ℓ₂] = {sol.mean_busy[1]:.1f} busy servers",
        ha="center",
        fontsize=9,
    )
    return fig


def explore_model():
    """The model's diagram drawn from the controls, shaded with the mean busy servers."""
    lam_span = {"slider": (0.5, 60.0), "step": 0.5}
    return interactive_figure(
        _model_plot,
        title="The model, drawn from its parameters",
        lam1=center("lam", 1, default=30.0, **lam_span),
        lam2=center("lam", 2, default=16.0, **lam_span),
        C1=center("servers", 1, default=20, slider=(1, 60)),
        C2=center("servers", 2, default=20, slider=(1, 60)),
        mu1=center("mu", 1),
        mu2=center("mu", 2),
        p1=center("p", 1),
        p2=center("p", 2),
    )


VIEWS = {
    "explore_model": explore_model,
    "explore": explore,
    "explore_regimes": explore_regimes,
    "explore_ring": explore_ring,
}
