"""The notebook's slider views of P3 (the only P3 module that imports ipywidgets).

``VIEWS`` maps a view name to ``<name>_view()``, a function returning the widget. Every
control comes from the parameter table (symbol, meaning, unit, tooltip, valid range); each
view redraws a plot function of this module, which can be timed without widgets. The
analytic views ``cooperation`` and ``model`` keep one figure (:class:`_CooperationFigure`,
:class:`_ModelFigure`) and update its artists on every move instead of building a new one,
which is most of a redraw (the shared :func:`workbench.widgets.interactive_figure` calls
its plot function afresh on every move).
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.datacenters.diagram import ModelDiagram, pair_text, subscript
from workbench.datacenters.exact import solve_exact
from workbench.datacenters.figures import plot_regime_map, plot_ring, ring_study
from workbench.datacenters.limit import regime
from workbench.datacenters.params import DEFAULTS, PARAMS, P3Params
from workbench.datacenters.studies import cached_limit, regime_study
from workbench.plots import figure
from workbench.rendering import render_png
from workbench.seeding import figure_seed
from workbench.validation import check_seed
from workbench.widgets import interactive_figure

__all__ = [
    "VIEWS",
    "cooperation_view",
    "regimes_view",
    "ring_view",
    "model_view",
]

_PER_N = {"slider": (0.1, 3.0)}


def _center(row: str, i: int, **changes):
    """The row of pair parameter ``row`` for center ``i`` alone (``lam`` -> ``lam1``, λ₁):
    one slider per center."""
    base = PARAMS[row]
    fields = {"name": f"{row}{i}", "pair": False, "default": base.default[i - 1]} | changes
    fields["symbol"] = f"{changes.get('symbol', base.symbol)}{subscript(str(i))}"
    fields["meaning"] = f"{changes.get('meaning', base.meaning)} of center {i}"
    return base.with_(**fields)


def _pair(row: str, **changes) -> dict:
    """The sliders of pair parameter ``row`` for both centers (``lam1``, ``lam2``)."""
    return {f"{row}{i}": _center(row, i, **changes) for i in (1, 2)}


#: one center of the ring view: its rate alone (a scalar), numbered from 0
_RING_CENTER = {"meaning": "arrival rate per unit N", "symbol": "λ", "length": None}

_P_GRID = np.linspace(0.0, 1.0, 11)
_BETA_LABELS = ["β₁ (class 1)", "β₂ (class 2)"]


@functools.lru_cache(maxsize=256)
def _blocking_against_p1(lam, servers, mu, p2):
    """β₁, β₂ (exact) on the p₁ grid, at values of a validated point: independent of p₁
    itself, so a p₁ move reuses it."""
    base = DEFAULTS.trusted(lam=lam, servers=servers, mu=mu, tol=1e-10)
    return np.array([solve_exact(base.trusted(p=(q, p2))).beta for q in _P_GRID])


def _shows_offset(axis) -> bool:
    """True when ``axis`` at its current limits writes an offset or a power of ten
    ("1e−40") at its end, as its formatter decides at the next draw."""
    formatter = axis.get_major_formatter()
    formatter.set_locs(axis.get_major_locator()())
    return bool(formatter.get_offset())


class _CooperationFigure:
    """The ``cooperation`` view's figure, built on the first call and updated in place afterwards.

    A slider move changes line data, bar heights and texts of one figure instead of building
    a new one: building axes, ticks and legends, and laying out their text afresh, is most of
    a redraw. ``_CooperationFigure()(**values)`` is a fresh figure.

    ``fixed_titles=True`` (the view) pins each axes title at the top of its axes instead of
    letting matplotlib place it on every draw, which measures the tick labels once more.
    matplotlib only moves a title there to clear an offset text ("1e−40") of the y axis, so
    an axes whose y axis shows one gets matplotlib's placement back: the figure is the same
    either way.
    """

    def __init__(self, fixed_titles: bool = False):
        self.fixed_titles = fixed_titles
        self.fig = None

    def _build(self, pinned):
        fig, (ax0, ax1) = figure(ncols=2, width=4.6, height=3.6, fast=True)
        pin0, pin1 = ({"y": 1.0} if p else {} for p in pinned)
        zeros = np.zeros_like(_P_GRID)
        (self.beta1,) = ax0.plot(_P_GRID, zeros, "o-", color="C0", ms=3, label="β₁ exact")
        (self.beta2,) = ax0.plot(_P_GRID, zeros, "o-", color="C1", ms=3, label="β₂ exact")
        (self.loss,) = ax0.plot(_P_GRID, zeros, "k-", label="lost fraction")
        self.p1_marker = ax0.axvline(0.0, color="0.5", ls=":")
        self.xlabel0 = ax0.set_xlabel("")
        ax0.set_ylabel("blocking probability")
        ax0.set_xlim(0, 1)
        ax0.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.22), ncol=3)
        self.title0 = ax0.set_title("", fontsize=8, **pin0)
        x = np.arange(2)
        self.exact_bars = ax1.bar(x - 0.2, [0.0, 0.0], 0.4, color="C0")
        self.limit_bars = ax1.bar(x + 0.2, [0.0, 0.0], 0.4, label="limit N → ∞", color="0.6")
        self.uncertified = ax1.text(
            0.5,
            0.9,
            "limit not certified (near critical load)",
            transform=ax1.transAxes,
            ha="center",
            fontsize=8,
        )
        self.value_labels = [
            ax1.text(xi, 0.0, "", ha="center", va="bottom", fontsize=7)
            for xi in np.r_[x - 0.2, x + 0.2]
        ]
        ax1.set_xticks(x)
        ax1.set_xticklabels(_BETA_LABELS)
        ax1.set_ylabel("blocking probability")
        self.legend1 = None
        self.title1 = ax1.set_title("", fontsize=8, **pin1)
        fig.subplots_adjust(bottom=0.3)
        self.fig, self.axes, self.pinned = fig, (ax0, ax1), pinned

    def __call__(self, load1, load2, c1, c2, N, mu1, mu2, p1, p2):
        # every number first: a refused value leaves the figure as it was
        lam, mu = (load1 * N, load2 * N), (mu1, mu2)
        servers = (max(1, round(c1 * N)), max(1, round(c2 * N)))
        c = (servers[0] / N, servers[1] / N)
        values = {"lam": lam, "servers": servers, "mu": mu, "p": (p1, p2), "load": (load1, load2)}
        point = P3Params.of("cooperation_view", values | {"c": c, "tol": 1e-10})
        exact = _blocking_against_p1(point.lam, point.servers, point.mu, point.p[1])
        loss = (lam[0] * exact[:, 0] + lam[1] * exact[:, 1]) / (lam[0] + lam[1])
        now = solve_exact(point).beta
        reg = regime(point)
        lim = cached_limit(point.trusted(truncation_target=1e-7))
        texts = (
            f"C = {servers}, λ = {pair_text(lam)}, μ = {pair_text(mu)}",
            f"forwarding probability p₁ (p₂ = {p2:.2f})",
            f"exact, N = {N}",
            f"p = ({p1:.2f}, {p2:.2f}); regime of the limit: ({reg})",
        )
        if self.fig is None:
            self._build((self.fixed_titles, self.fixed_titles))
        self._show(exact, loss, p1, now, lim, texts)
        if self.fixed_titles:
            pinned = tuple(not _shows_offset(ax.yaxis) for ax in self.axes)
            if pinned != self.pinned:  # rare: an offset text appeared or went away
                self._build(pinned)
                self._show(exact, loss, p1, now, lim, texts)
        return self.fig

    def _show(self, exact, loss, p1, now, lim, texts):
        ax0, ax1 = self.axes
        title0, xlabel0, exact_label, title1 = texts
        self.beta1.set_ydata(exact[:, 0])
        self.beta2.set_ydata(exact[:, 1])
        self.loss.set_ydata(loss)
        self.p1_marker.set_xdata([p1, p1])
        self.xlabel0.set_text(xlabel0)
        # y from 0 to the data's autoscaled top, as for freshly plotted lines
        ax0.relim()
        ax0.set_autoscaley_on(True)  # set_ylim(bottom=0) of the last move turned it off
        ax0.autoscale_view(scalex=False)
        ax0.set_ylim(bottom=0)
        self.title0.set_text(title0)
        shown = list(now) if lim is None else [*now, *lim]
        for bar, v in zip(self.exact_bars, now, strict=True):
            bar.set_height(v)
        for bar, v in zip(self.limit_bars, (0.0, 0.0) if lim is None else lim, strict=True):
            bar.set_height(v)
            bar.set_visible(lim is not None)
        self.uncertified.set_visible(lim is None)
        for k, label in enumerate(self.value_labels):
            label.set_visible(k < len(shown))
            if k < len(shown):
                label.set_y(shown[k])
                label.set_text(f"{shown[k]:.3f}")
        # x spans the bars drawn (the limit's only when it is shown)
        ax1.relim(visible_only=True)
        ax1.autoscale_view(scaley=False)
        ax1.set_ylim(0, max(1e-3, *shown) * 1.25)
        self.exact_bars.set_label(exact_label)
        handles = [self.exact_bars] if lim is None else [self.exact_bars, self.limit_bars]
        if self.legend1 is not None and len(self.legend1.texts) == len(handles):
            self.legend1.texts[0].set_text(exact_label)
        else:  # the limit's entry comes or goes
            self.legend1 = ax1.legend(
                handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.12), ncol=2
            )
        self.title1.set_text(title1)


def cooperation_view():
    """λ_i/N, c_i, N, μ_i, p_i: blocking against p₁, and exact against the limit.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The view: one slider per load, capacity, service rate and probability, and N.
    """
    return interactive_figure(
        _CooperationFigure(fixed_titles=True),
        title="Two cooperating data centers: who pays for cooperation",
        **_pair("load", **_PER_N),
        **_pair("c"),
        N=PARAMS["N"].with_(default=30, slider=(2, 60)),
        **_pair("mu"),
        **_pair("p"),
    )


def _regime_plot(p1, p2, c1, c2):
    return plot_regime_map(regime_study(p=(p1, p2), c=(c1, c2), map_points=81), fast=True)


def regimes_view():
    """p_i and c_i: the regime map of the limit in the (λ1, λ2) plane.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The view: one slider per forwarding probability and capacity.
    """
    return interactive_figure(
        _regime_plot,
        title="Regimes of the scaling limit",
        **_pair("p"),
        **_pair("c"),
    )


#: the ring view's own seed, shifted by the notebook's SEED
RING_VIEW_SEED = 3


def _ring_plot(lam0, lam1, lam2, p, N, *, seed):
    lam = (lam0, lam1, lam2, 0.5, 0.5, 0.5)
    frame = ring_study(
        scenarios={"ring of 6 (λ₃ = λ₄ = λ₅ = 0.5)": lam}, n=N, ring_p=p, quick=True, seed=seed
    )
    return plot_ring(frame, fast=True)


def ring_view(seed: int = 0):
    """The loads of three adjacent centers of a ring of six: simulation against the pairwise
    reduction, which gives up when three neighbours are congested (a simulation: runs in the
    background, only the latest move is computed).

    Parameters
    ----------
    seed : int
        The notebook's ``SEED``: the simulations draw from the view's own seed shifted by it
        (:func:`workbench.seeding.figure_seed`); 0 gives the published picture.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The view: one slider per load, p and N.
    """
    seed = figure_seed(RING_VIEW_SEED, check_seed(seed, "ring_view"))
    return interactive_figure(
        functools.partial(_ring_plot, seed=seed),
        title="Ring of J = 6 centers",
        background=True,
        lam0=_center("ring_load", 0, name="lam0", default=1.4, **_RING_CENTER),
        lam1=_center("ring_load", 1, name="lam1", default=1.2, **_RING_CENTER),
        lam2=_center("ring_load", 2, name="lam2", default=0.5, **_RING_CENTER),
        p=PARAMS["ring_p"],
        N=PARAMS["N"].with_(default=20, slider=(5, 60), step=5),
    )


def _freeze_layout(fig) -> None:
    """Lay a constrained-layout figure out once, as the view renders it, then keep it.

    Saving a figure with a layout engine draws it twice (once to lay it out, with a fresh
    renderer that has no cached text sizes). The diagram's layout depends on its title alone
    (every other text and patch is clipped to the axes and left out of the layout), which
    a move never changes, so the positions found once hold for every later move.
    """
    render_png(fig)  # the layout at the resolution and text settings of the view's PNG
    fig.set_layout_engine(None)


class _ModelFigure:
    """The ``model`` view's diagram, built once and updated in place (see
    :class:`_CooperationFigure` and :class:`workbench.datacenters.diagram.ModelDiagram`)."""

    def __init__(self):
        self.diagram = None

    def __call__(self, lam1, lam2, C1, C2, mu1, mu2, p1, p2):
        lam, servers, mu, p = (lam1, lam2), (C1, C2), (mu1, mu2), (p1, p2)
        point = P3Params.of("model_view", {"lam": lam, "servers": servers, "mu": mu, "p": p})
        sol = solve_exact(point)
        first = self.diagram is None
        if first:
            self.diagram = ModelDiagram()
            self.summary = self.diagram.ax.text(5.0, 5.55, "", ha="center", fontsize=9)
        fig = self.diagram.update(point, busy=sol.mean_busy)
        self.summary.set_text(
            f"β₁ = {sol.beta[0]:.3f}, β₂ = {sol.beta[1]:.3f}; "
            f"E[ℓ₁] = {sol.mean_busy[0]:.1f}, E[ℓ₂] = {sol.mean_busy[1]:.1f} busy servers"
        )
        if first:
            _freeze_layout(fig)
        return fig


def model_view():
    """The model's diagram drawn from the controls, shaded with the mean busy servers.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The view: one slider per rate, server count and probability.
    """
    return interactive_figure(
        _ModelFigure(),
        title="The model, drawn from its parameters",
        **_pair("lam"),  # the table's λ = (30, 16), slider and step
        C1=_center("servers", 1, slider=(1, 60)),
        C2=_center("servers", 2, slider=(1, 60)),
        **_pair("mu"),
        **_pair("p"),
    )


VIEWS = {
    "model": model_view,
    "cooperation": cooperation_view,
    "regimes": regimes_view,
    "ring": ring_view,
}
