"""The notebook's slider views of P3 (the only P3 module that imports ipywidgets).

``VIEWS`` maps a view name to a function returning the widget; each redraws a plot function
of this module (which can be timed directly, without widgets).
"""

from __future__ import annotations

import numpy as np

from workbench.datacenters.figures import _cached_limit, plot_regime_map, plot_ring, ring_frame
from workbench.datacenters.model import _classify, _solve_exact
from workbench.plots import figure
from workbench.widgets import interactive_figure

__all__ = ["VIEWS", "explore", "explore_regimes", "explore_ring"]


def _explore_plot(lam1, lam2, c1, c2, N, mu1, mu2, p1, p2):
    lam, mu = (lam1 * N, lam2 * N), (mu1, mu2)
    servers = (max(1, round(c1 * N)), max(1, round(c2 * N)))
    fig, axes = figure(ncols=2, width=4.4, fast=True)
    grid = np.linspace(0.0, 1.0, 11)
    exact = np.array(
        [_solve_exact(lam, servers, mu, (q, p2), tol=1e-10, func="explore").beta for q in grid]
    )
    ax = axes[0]
    ax.plot(grid, exact[:, 0], "o-", color="C0", ms=3, label="β1 exact")
    ax.plot(grid, exact[:, 1], "o-", color="C1", ms=3, label="β2 exact")
    loss = (lam[0] * exact[:, 0] + lam[1] * exact[:, 1]) / (lam[0] + lam[1])
    ax.plot(grid, loss, "k-", label="lost fraction")
    ax.axvline(p1, color="0.5", ls=":")
    ax.set_xlabel(f"p1 (p2 = {p2:.2f})")
    ax.set_ylabel("blocking probability")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    ax.set_title(f"C = {servers}, λ = ({lam[0]:g}, {lam[1]:g})", fontsize=9)
    now = _solve_exact(lam, servers, mu, (p1, p2), tol=1e-10, func="explore").beta
    c = (servers[0] / N, servers[1] / N)
    reg = _classify((lam1, lam2), c, mu, (p1, p2))
    lim = _cached_limit((lam1, lam2), c, mu, (p1, p2), tol=1e-7)
    ax = axes[1]
    x = np.arange(2)
    ax.bar(x - 0.2, now, 0.4, label=f"exact, N={N}", color="C0")
    if lim is not None:
        ax.bar(x + 0.2, lim, 0.4, label="limit N→∞", color="0.6")
    else:
        ax.text(0.5, 0.5, "limit not certified\n(near critical load)", transform=ax.transAxes)
    shown = [*now, *(lim or ())]
    for xi, v in zip(np.r_[x - 0.2, x + 0.2][: len(shown)], shown, strict=True):
        ax.text(xi, v, f"{v:.3f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels(["β1", "β2"])
    ax.legend(fontsize=7)
    ax.set_title(f"p = ({p1:.2f}, {p2:.2f}); limit regime ({reg})", fontsize=9)
    return fig


def explore():
    """Sliders for lambda_i (per unit N), c_i, N, mu_i, p_i: blocking vs p1 and exact vs limit."""
    return interactive_figure(
        _explore_plot,
        title="P3: two cooperating data centers",
        lam1=(0.1, 3.0, 0.05, 1.5),
        lam2=(0.1, 3.0, 0.05, 0.8),
        c1=(0.25, 2.0, 0.05, 1.0),
        c2=(0.25, 2.0, 0.05, 1.0),
        N=(2, 60, 1, 30),
        mu1=(0.25, 3.0, 0.05, 1.0),
        mu2=(0.25, 3.0, 0.05, 1.0),
        p1=(0.0, 1.0, 0.05, 0.6),
        p2=(0.0, 1.0, 0.05, 0.3),
    )


def _regime_plot(p1, p2, c1, c2):
    return plot_regime_map(p=(p1, p2), c=(c1, c2), points=81, fast=True)


def explore_regimes():
    """Sliders for p_i and c_i: the regime map in the (lambda1, lambda2) plane."""
    return interactive_figure(
        _regime_plot,
        title="Regimes of the scaling limit",
        p1=(0.0, 1.0, 0.05, 0.6),
        p2=(0.0, 1.0, 0.05, 0.3),
        c1=(0.25, 2.0, 0.05, 1.0),
        c2=(0.25, 2.0, 0.05, 1.0),
    )


def _ring_plot(lam0, lam1, lam2, p, N):
    lam = (lam0, lam1, lam2, 0.5, 0.5, 0.5)
    frame = ring_frame({"ring of 6 (λ3..λ5 = 0.5)": lam}, n=N, p=p, quick=True, seed=3)
    return plot_ring(frame, fast=True)


def explore_ring():
    """Sliders for the loads of three adjacent centers of a ring of six: simulation against
    the pairwise reduction, which gives up when three neighbours are congested."""
    return interactive_figure(
        _ring_plot,
        title="Ring of J = 6 centers",
        lam0=(0.2, 2.0, 0.05, 1.4),
        lam1=(0.2, 2.0, 0.05, 1.2),
        lam2=(0.2, 2.0, 0.05, 0.5),
        p=(0.0, 0.5, 0.05, 0.25),
        N=(5, 60, 5, 20),
    )


VIEWS = {
    "explore": explore,
    "explore_regimes": explore_regimes,
    "explore_ring": explore_ring,
}
