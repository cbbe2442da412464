"""The P1 notebook's slider views (the only P1 module importing ipywidgets).

Controls come from the parameter table (label "symbol meaning [unit]", tooltip, range).
The analytic views answer a slider move in tens of milliseconds; the simulation view runs
a short simulation per move (about a second) and says so in its title.
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.fog.acceptance import accept_probability, ps_accept
from workbench.fog.chain import solve_chain
from workbench.fog.figures import network_run_frame, plot_network_utilisation
from workbench.fog.model import P1Params
from workbench.fog.network import analyze
from workbench.fog.params import PARAMS
from workbench.fog.scenario import (
    compile_scenario,
    default_scenario,
    with_fog_delay,
    with_traffic,
)
from workbench.fog.study import POLICY_COLORS, POLICY_LABELS
from workbench.params import takes
from workbench.plots import PALETTE, figure, flag_unstable
from workbench.seeding import figure_seed
from workbench.widgets import control, interactive_figure

__all__ = [
    "VIEWS",
    "node_view",
    "network_view",
    "simulation_view",
    "plot_simulated_network",
    "fog_delay_view",
]


# θ's slider never goes past this: the acceptance curve is cached on a fixed grid up to it
THETA_CURVE_MAX = PARAMS["theta"].slider_span[1]
THETA_CURVE = np.linspace(0.0, THETA_CURVE_MAX, 41)


@functools.lru_cache(maxsize=512)
def _node_state(lam_light, lam_heavy, mu_light, mu_heavy, q):
    """Everything of one node that does not depend on θ (cached: a θ move redraws only)."""
    sol = solve_chain(lam_light, lam_heavy, mu_light, mu_heavy, q=q)
    n, m = np.indices(sol.prob.shape)
    en, em = float((n * sol.prob).sum()), float((m * sol.prob).sum())
    wbar = float(((n / mu_light + m / mu_heavy) * sol.prob).sum())
    curve = accept_on_grid(lam_light, lam_heavy, mu_light, mu_heavy, THETA_CURVE)
    k = min(sol.levels, 25)
    img = np.log10(np.maximum(sol.prob[:k, :k], 1e-12)).T
    return sol.rho, en, em, wbar, curve, img


def accept_on_grid(lam_light, lam_heavy, mu_light, mu_heavy, thetas):
    """P(W < θ) on a grid of θ at once (closed form: the same for every q)."""
    thetas = np.asarray(thetas, dtype=float)
    ones = np.ones_like(thetas)
    return ps_accept(
        thetas,
        ones * lam_light / mu_light,
        ones * lam_heavy / mu_heavy,
        ones * mu_light,
        ones * mu_heavy,
    )


class NodeFigure:
    """The node view's figure, built on the first call and updated in place afterwards.

    A slider move then changes an image, a curve and a few texts instead of building a
    figure (half of a redraw). ``NodeFigure()(**values)`` is a fresh figure.
    """

    PIXELS = 25  # the (n, n') picture shows n, n' < 25

    fig = None  # built on the first call

    def _build(self):
        fig, (ax0, ax1) = figure(ncols=2, width=4.6, height=3.6, fast=True)
        blank = np.full((self.PIXELS, self.PIXELS), -12.0)
        self.image = ax0.imshow(
            blank, origin="lower", cmap="magma", vmin=-8, vmax=0, interpolation="nearest"
        )
        fig.colorbar(self.image, ax=ax0, label="log₁₀ P(n, n')", ticks=[-8, -4, 0])
        ax0.set_xlabel("n Light in node")
        ax0.set_ylabel("n' Heavy in node")
        self.title0 = ax0.set_title("", fontsize=8, y=1.0)
        (self.curve,) = ax1.plot(1e3 * THETA_CURVE, np.zeros_like(THETA_CURVE), color=PALETTE[0])
        (self.point,) = ax1.plot([0.0], [0.0], "o", color=PALETTE[3])
        self.empty = ax1.axhline(0.0, color="0.5", ls=":", lw=1)
        self.empty_label = ax1.text(
            1e3 * THETA_CURVE_MAX, 0.0, "1 − ρ (empty node)", ha="right", va="bottom", fontsize=7
        )
        ax1.set_xlabel("θ [ms]")
        ax1.set_ylabel("P_j = P(W < θ)")
        ax1.set_xlim(0, 1e3 * THETA_CURVE_MAX * 1.02)
        ax1.set_ylim(0, 1.02)
        self.title1 = ax1.set_title("", fontsize=9, y=1.0)
        self.fig = fig

    def __call__(self, lam_light, lam_heavy, mu_light, mu_heavy, q, theta):
        rho, en, em, wbar, curve, img = _node_state(
            float(lam_light), float(lam_heavy), float(mu_light), float(mu_heavy), float(q)
        )
        p = accept_probability(theta, lam_light, lam_heavy, mu_light, mu_heavy, q=q)
        if self.fig is None:
            self._build()
        picture = np.full((self.PIXELS, self.PIXELS), -12.0)
        picture[: img.shape[0], : img.shape[1]] = img
        self.image.set_data(picture)
        self.title0.set_text(
            f"ρ = {rho:.2f}: E n = {en:.2f}, E n' = {em:.2f}, W̄ = {1e3 * wbar:.1f} ms"
        )
        self.curve.set_ydata(curve)
        self.point.set_data([1e3 * theta], [p])
        self.empty.set_ydata([1 - rho, 1 - rho])
        self.empty_label.set_y(1 - rho)
        self.title1.set_text(f"P_j({1e3 * theta:.0f} ms) = {p:.3f}, the same for every q")
        return self.fig


def _sliders(*names) -> dict:
    """The table's rows ``names``, the view's controls in this order."""
    return {name: PARAMS[name] for name in names}


RHO_MAX = 0.85  # the node view stops below ρ = 1 (refused) and where the q ≠ 0.5 chain gets slow


def _rate_limit(own_mu: str, other_lam: str, other_mu: str, name: str):
    """A rate's slider range that keeps ρ = ρ₁ + ρ₂ ≤ RHO_MAX (the model refuses ρ ≥ 1)."""
    step = PARAMS[name].step or 1.0

    def rule(v):
        room = v[own_mu] * (RHO_MAX - v[other_lam] / v[other_mu])
        return 0.0, max(step, step * np.floor(room / step))

    return rule


def node_view():
    """Sliders for one fog node's chain (the rates stop below ρ = 1).

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The controls and the figure they redraw.
    """
    return interactive_figure(
        NodeFigure(),
        title="One fog node: the (n, n') chain and its acceptance probability",
        limits={
            "lam_light": _rate_limit("mu_light", "lam_heavy", "mu_heavy", "lam_light"),
            "lam_heavy": _rate_limit("mu_heavy", "lam_light", "mu_light", "lam_heavy"),
        },
        **_sliders("lam_light", "lam_heavy", "mu_light", "mu_heavy", "q", "theta"),
    )


@functools.lru_cache(maxsize=256)
def _default_network(load, light_fraction=None, p_iot=None, fog_delay=None):
    """The default scenario with the sliders' traffic and fog–fog delay, compiled once each.

    A keyword left None keeps the scenario's own value (:func:`~workbench.fog.with_traffic`,
    :func:`~workbench.fog.with_fog_delay`).
    """
    g = with_traffic(default_scenario(0), load=load, light_fraction=light_fraction, p_iot=p_iot)
    return compile_scenario(g if fog_delay is None else with_fog_delay(g, fog_delay))


BASELINE_POINT = (PARAMS["theta"].default, PARAMS["e_max"].default)
"""(θ, e_M) of the baselines' cached delays: the table's; a baseline depends on neither."""


@functools.lru_cache(maxsize=2048)
def _policy_delays(policy, theta, e_max, load, light_fraction, p_iot):
    """(eq. 6, +1/μ) mean delays [ms] of one policy; None where the policy is unstable.

    Baselines are called at :data:`BASELINE_POINT`: they do not depend on θ or e_M, so a
    θ or e_M move reuses them.
    """
    net = _default_network(load, light_fraction, p_iot)
    try:
        return tuple(
            1e3 * analyze(net, theta, e_max, policy=policy, own_processing=own).mean_delay
            for own in (False, True)
        )
    except ValueError:
        return None


class PolicyFigure:
    """The network view's bar chart, built once and updated in place (see :class:`NodeFigure`)."""

    fig = None  # built on the first call

    def _build(self):
        fig, ax = figure(width=7.0, height=3.4, fast=True)
        names = list(POLICY_COLORS)
        self.bars, self.labels = [], []
        for k, policy in enumerate(names):
            for shift, hatch in ((-0.2, "//"), (0.2, "")):
                (bar,) = ax.bar(
                    k + shift,
                    0.0,
                    width=0.38,
                    color=POLICY_COLORS[policy],
                    hatch=hatch,
                    edgecolor="k",
                    lw=0.4,
                )
                self.bars.append(bar)
                self.labels.append(
                    ax.text(k + shift, 0.0, "", ha="center", va="bottom", fontsize=7)
                )
        ax.set_xticks(range(len(names)), [POLICY_LABELS[p] for p in names], fontsize=7)
        ax.set_ylabel("mean service delay [ms]")
        ax.set_title(
            "Analytic model: hatched = eq. 6 as published, plain = with own processing",
            fontsize=9,
            y=1.0,
        )
        self.ax, self.fig = ax, fig

    def __call__(self, theta, e_max, load, light_fraction, p_iot):
        traffic = (float(load), float(light_fraction), float(p_iot))
        heights = []
        for policy in POLICY_COLORS:
            point = (float(theta), int(e_max)) if policy == "offload" else BASELINE_POINT
            delays = _policy_delays(policy, *point, *traffic)
            heights.extend([None, None] if delays is None else delays)
        if self.fig is None:
            self._build()
        top = max([h for h in heights if h is not None], default=1.0)
        for bar, label, h in zip(self.bars, self.labels, heights, strict=True):
            bar.set_height(0.0 if h is None else h)
            label.set_y(0.0 if h is None else h)
            label.set_text("unstable" if h is None else f"{h:.1f}")
            label.set_rotation(90 if h is None else 0)
        self.ax.set_ylim(0, 1.12 * top)
        return self.fig


def network_view():
    """Sliders for the analytic model on the default scenario.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The controls and the figure they redraw.
    """
    return interactive_figure(
        PolicyFigure(),
        title="The analytic model on the default scenario: the paper's policy and baselines",
        **_sliders("theta", "e_max", "load", "light_fraction", "p_iot"),
    )


FOG_DELAYS = np.array([0.0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05])
"""The fog–fog link delays [s] of the fog-delay view's x axis."""


@functools.lru_cache(maxsize=256)
def _fog_delay_curves(policy, theta, e_max, load):
    """(eq. 6, +1/μ) delay [ms] along FOG_DELAYS; one acceptance fixed point for all.

    The fixed point depends on no link delay (flows, θ and the chain only), so it is solved
    once and every delay variant reuses it. None where the policy is unstable.
    """
    try:
        first = analyze(
            _default_network(load, fog_delay=float(FOG_DELAYS[0])), theta, e_max, policy=policy
        )
    except ValueError:
        return None
    acc = first.fog["accept_light"].to_numpy() if policy == "offload" else None
    curves = np.empty((2, FOG_DELAYS.size))
    for k, delay in enumerate(FOG_DELAYS):
        net = _default_network(load, fog_delay=float(delay))
        for row, own in enumerate((False, True)):
            curves[row, k] = (
                1e3
                * analyze(
                    net, theta, e_max, policy=policy, own_processing=own, acceptance=acc
                ).mean_delay
            )
    return curves


class FogDelayFigure:
    """Analytic mean delay against the fog–fog link delay, the policy and its baselines."""

    fig = None  # built on the first call

    def _build(self):
        fig, ax = figure(width=7.0, height=3.6, fast=True)
        self.lines = {}
        x = 1e3 * FOG_DELAYS
        for policy, color in POLICY_COLORS.items():
            (paper,) = ax.plot(x, np.zeros_like(x), "--", color=color, lw=1.2)
            (corr,) = ax.plot(
                x, np.zeros_like(x), "-", color=color, lw=1.6, label=POLICY_LABELS[policy]
            )
            self.lines[policy] = (paper, corr)
        ax.plot([], [], "--", color="0.4", label="dashed: eq. 6 as published")
        ax.set_xlabel("Xᶠᶠ fog–fog link delay [ms]")
        ax.set_ylabel("mean service delay [ms]")
        self.title = ax.set_title("", fontsize=9, y=1.0)
        self.unstable = ax.text(
            0.99,
            0.97,
            "",
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=7,
            color=PALETTE[3],
        )
        self.ax, self.fig = ax, fig

    def __call__(self, theta, e_max, load):
        curves = {}
        for policy in POLICY_COLORS:
            point = (float(theta), int(e_max)) if policy == "offload" else BASELINE_POINT
            curves[policy] = _fog_delay_curves(policy, *point, float(load))
        if self.fig is None:
            self._build()
        top = 1.0
        for policy, (paper, corr) in self.lines.items():
            c = curves[policy]
            nan = np.full(FOG_DELAYS.size, np.nan)
            paper.set_ydata(nan if c is None else c[0])
            corr.set_ydata(nan if c is None else c[1])
            # an unstable policy keeps its legend entry, hollow and marked, and a note
            corr.set_label(POLICY_LABELS[policy] + (": unstable" if c is None else ""))
            corr.set_marker("o" if c is None else "None")
            corr.set_markerfacecolor("none")
            if c is not None:
                top = max(top, float(c.max()))
        self.ax.legend(fontsize=7, loc="lower left", ncols=2, frameon=False)
        self.ax.set_ylim(0, 1.1 * top)
        self.title.set_text(
            f"Analytic model, θ = {1e3 * theta:.0f} ms, e_M = {e_max}, load × {load:.2f}"
        )
        missing = [POLICY_LABELS[p] for p, c in curves.items() if c is None]
        self.unstable.set_text(
            "".join(f"no curve: {m} is unstable (a fog node at ρ ≥ 1)\n" for m in missing)
        )
        return self.fig


def fog_delay_view():
    """Sliders for the delay-vs-fog–fog-delay curves (analytic).

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The controls and the figure they redraw.
    """
    return interactive_figure(
        FogDelayFigure(),
        title="Service delay against the fog–fog link delay (analytic, default scenario)",
        **_sliders("theta", "e_max", "load"),
    )


SIMULATION_VIEW_REQUESTS = 20_000
"""Requests per move of the simulation view: about a second with the drawing."""


@takes(P1Params, "theta", "e_max", "mode", "announce_period", "load", "seed", positional=True)
def plot_simulated_network(p):
    """One short simulation of the default scenario, fog nodes by utilisation.

    Parameters
    ----------
    theta, e_max, mode, announce_period, load
        The sliders' values.
    seed : int
        The caller's seed (the notebook's ``SEED``): the run draws from
        ``figure_seed(0, seed)``, as :func:`~workbench.fog.figures.network_run_frame`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    theta, e_max, mode = p.theta, p.e_max, p.mode
    frame = network_run_frame(p.trusted(requests=SIMULATION_VIEW_REQUESTS))
    d, share = frame["mean_delay"].iloc[0], frame["share_fog"].iloc[0]
    title = (
        f"θ = {1e3 * theta:.0f} ms, e_M = {e_max}, {mode} tables: mean delay {1e3 * d:.1f} ms,\n"
        f"{share:.0%} served in the fog ({SIMULATION_VIEW_REQUESTS:,} requests, "
        f"seed {figure_seed(0, p.seed)})"
    )
    fig = plot_network_utilisation(frame, fast=True, title=title)
    stationary = bool(frame["stationary"].iloc[0])
    return flag_unstable(fig, "" if stationary else f"not a steady state: {frame['note'].iloc[0]}")


def simulation_view(seed: int = 0):
    """Sliders for a short simulation: the network coloured by utilisation (about 1 s).

    Computed in a background thread, latest move only; the figure is greyed out with a
    "computing…" line while a move is being simulated.

    Parameters
    ----------
    seed : int
        The caller's seed (the notebook's ``SEED``): every move runs on
        ``figure_seed(0, seed)``.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The controls and the figure they redraw.
    """
    seed = PARAMS["seed"].check(seed, "simulation_view")
    return interactive_figure(
        functools.partial(plot_simulated_network, seed=seed),
        title="Simulated network, fog nodes coloured by utilisation (≈ 1 s per move)",
        background=True,
        **_sliders("theta", "e_max"),
        mode=control(PARAMS["mode"]),
        **_sliders("announce_period", "load"),
    )


VIEWS = {
    "node": node_view,
    "network": network_view,
    "simulation": simulation_view,
    "fog_delay": fog_delay_view,
}
