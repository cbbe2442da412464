"""The P1 notebook's slider views (the only P1 module importing ipywidgets).

Controls come from the parameter table (label "symbol meaning [unit]", tooltip, range).
The analytic views answer a slider move in tens of milliseconds; the simulation view runs
a short simulation per move (about a second) and says so in its title.
"""

from __future__ import annotations

import ipywidgets as w
import numpy as np

from workbench.fog.figures import POLICY_COLORS, POLICY_LABELS, plot_network
from workbench.fog.model import accept_from_stages, analyze, solve_chain, stage_distribution
from workbench.fog.params import PARAMS
from workbench.fog.scenario import default_scenario, with_traffic
from workbench.plots import PALETTE, figure
from workbench.widgets import control, interactive_figure

__all__ = ["VIEWS", "node_view", "network_view", "simulation_view", "plot_node", "plot_policies"]


def plot_node(lam_light, lam_heavy, mu_light, mu_heavy, q, theta):
    """One fog node: P(n, n') of the chain and P(W < θ) against θ."""
    sol = solve_chain(lam_light, lam_heavy, mu_light, mu_heavy, q=q)
    fig, (ax0, ax1) = figure(ncols=2, width=4.6, height=3.6, fast=True)
    k = min(sol.levels, 25)
    img = np.log10(np.maximum(sol.prob[:k, :k], 1e-12))
    im = ax0.imshow(img.T, origin="lower", cmap="magma", vmin=-8, vmax=0)
    fig.colorbar(im, ax=ax0, label="log₁₀ P(n, n')")
    ax0.set_xlabel("n Light in node")
    ax0.set_ylabel("n' Heavy in node")
    n, m = np.indices(sol.prob.shape)
    en, em = float((n * sol.prob).sum()), float((m * sol.prob).sum())
    wbar = float(((n / mu_light + m / mu_heavy) * sol.prob).sum())
    ax0.set_title(f"ρ = {sol.rho:.2f}: E n = {en:.2f}, E n' = {em:.2f}, W̄ = {1e3 * wbar:.1f} ms",
                  fontsize=8)  # fmt: skip
    grid = np.linspace(0, max(0.2, 3 * theta), 40)
    dist, mu_hi = stage_distribution(sol.prob, mu_light, mu_heavy, grid[-1])
    acc = [accept_from_stages(dist, mu_hi, t) for t in grid]
    ax1.plot(1e3 * grid, acc, color=PALETTE[0])
    p = accept_from_stages(dist, mu_hi, theta)
    ax1.plot([1e3 * theta], [p], "o", color=PALETTE[3])
    ax1.axhline(1 - sol.rho, color="0.5", ls=":", lw=1)
    ax1.text(1e3 * grid[-1], 1 - sol.rho, "1 − ρ (empty node)", ha="right", va="bottom", fontsize=7)
    ax1.set_xlabel("θ [ms]")
    ax1.set_ylabel("P_j = P(W < θ)")
    ax1.set_ylim(0, 1.02)
    ax1.set_title(f"P_j({1e3 * theta:.0f} ms) = {p:.3f} (q = {q:.2f})", fontsize=9)
    return fig


def node_view():
    """Sliders for one fog node's chain."""
    return interactive_figure(
        plot_node,
        title="One fog node: the (n, n') chain and its acceptance probability",
        lam_light=PARAMS["lam_light"],
        lam_heavy=PARAMS["lam_heavy"],
        mu_light=PARAMS["mu_light"],
        mu_heavy=PARAMS["mu_heavy"],
        q=PARAMS["q"],
        theta=PARAMS["theta"],
    )


def plot_policies(theta, e_max, load, light_fraction, p_iot):
    """The analytic mean delay of the four policies at the sliders' values."""
    g = with_traffic(default_scenario(0), load=load, light_fraction=light_fraction, p_iot=p_iot)
    fig, ax = figure(width=7.0, height=3.4, fast=True)
    names = list(POLICY_COLORS)
    for k, policy in enumerate(names):
        for own, shift, hatch in ((False, -0.2, "//"), (True, 0.2, "")):
            try:
                d = 1e3 * analyze(g, theta=theta, e_max=e_max, policy=policy,
                                  own_processing=own).mean_delay  # fmt: skip
            except ValueError:
                ax.text(k + shift, 1, "unstable", rotation=90, ha="center", fontsize=7)
                continue
            ax.bar(k + shift, d, width=0.38, color=POLICY_COLORS[policy], hatch=hatch,
                   edgecolor="k", lw=0.4)  # fmt: skip
            ax.text(k + shift, d, f"{d:.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(names)), [POLICY_LABELS[p] for p in names], fontsize=7)
    ax.set_ylabel("mean service delay [ms]")
    ax.set_title("Analytic model: hatched = eq. 6 as published, plain = with own processing",
                 fontsize=9)  # fmt: skip
    return fig


def network_view():
    """Sliders for the analytic model on the default scenario."""
    return interactive_figure(
        plot_policies,
        title="The analytic model on the default scenario: the paper's policy and baselines",
        theta=PARAMS["theta"],
        e_max=PARAMS["e_max"],
        load=PARAMS["load"],
        light_fraction=PARAMS["light_fraction"],
        p_iot=PARAMS["p_iot"],
    )


def _simulated_network(theta, e_max, mode, announce_period, load):
    from workbench.fog.figures import network_frame

    frame = network_frame(quick=True, theta=theta, e_max=e_max, load=load)
    del mode, announce_period  # the picture uses the default tables (distributed)
    return plot_network(frame)


def simulation_view():
    """Sliders for a short simulation: the network coloured by utilisation (about 1 s)."""
    return interactive_figure(
        _simulated_network,
        title="Simulated network, fog nodes coloured by utilisation (≈ 1 s per move)",
        theta=PARAMS["theta"],
        e_max=PARAMS["e_max"],
        mode=control(PARAMS["mode"]),
        announce_period=PARAMS["announce_period"],
        load=PARAMS["load"],
    )


def exercise(question, answer, tolerance, hint, unit=""):
    """A prediction box: type a number, press check; right within ``tolerance``."""
    box = w.FloatText(description="your answer", layout=w.Layout(width="260px"))
    out = w.HTML()
    button = w.Button(description="check")

    def check(_):
        ok = abs(box.value - answer) <= tolerance
        out.value = (
            f"<span style='color:#070'>Right: {answer:.4g} {unit}</span>"
            if ok
            else f"<span style='color:#b00'>Not yet. Hint: {hint}</span>"
        )

    button.on_click(check)
    return w.VBox([w.HTML(f"<b>{question}</b>"), w.HBox([box, button]), out])


VIEWS = {
    "node": node_view,
    "network": network_view,
    "simulation": simulation_view,
}
