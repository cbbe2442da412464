"""The notebook's slider views of P2 (the only P2 module that imports ipywidgets).

``VIEWS`` maps a view name to a function returning the widget. The analytic views (delay
budget of eq. 4 / Φ, cacheable mass) redraw in milliseconds; the simulation view runs
the slot kernel in the background (latest move only).
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as w  # the views module is the one place that builds widgets
import numpy as np

from workbench.params import Param
from workbench.plots import ci_errorbar, figure
from workbench.proactive.figures import (
    SCHEME_COLORS,
    map_frame,
    plot_map,
)
from workbench.proactive.model import (
    cacheable_mass,
    interference_free_rate,
    isolated_cloudlet_delay,
    make_scenario,
    reliability_margin,
    task_delay,
)
from workbench.proactive.params import PARAMS
from workbench.proactive.simulation import simulate_to_precision
from workbench.widgets import control, exercise, interactive_figure

__all__ = ["VIEWS", "margin_view", "mm1_view", "schemes_view", "map_view"]

DISTANCE = Param(
    "distance", "d", "user–cloudlet distance", "m", low=1.0, high=1000.0, default=30.0,
    slider=(5.0, 140.0), step=5.0, source="choice",
    help="Distance of the lone user from its cloudlet (path loss 140.7 + 36.7 log10(d/km)).",
)  # fmt: skip


class _Canvas:
    """One figure per view, built once; slider moves update its artists in place.

    Rebuilding a figure (axes, ticks, legend) costs more than drawing it; keeping the
    x axis fixed and the y limits on a coarse grid also keeps the tick labels, whose text
    layout matplotlib caches.
    """

    def __init__(self, build):
        self._build = build
        self.fig = None
        self.art = {}

    def __call__(self):
        if self.fig is None:
            self.fig, self.art = self._build()
        return self.fig, self.art


def _nice_limits(low, high, step):
    """y limits rounded outward to multiples of ``step`` (stable ticks while sliding)."""
    return step * np.floor(low / step), step * np.ceil(high / step)


_BITS_OVER_MEAN = np.linspace(0.0, 4.0, 120)
_WAITS = (0.0, 0.02, 0.05)


def _build_margin():
    fig, ax = figure(width=8.6, height=3.4, fast=True)
    fig.subplots_adjust(right=0.64)  # room for the legend beside the lines
    art = {"phi": [ax.plot(_BITS_OVER_MEAN, _BITS_OVER_MEAN, ls, color="C0",
                           label=f"queue ahead {w * 1e3:.0f} ms")[0]
                   for w, ls in zip(_WAITS, ("-", "--", ":"), strict=True)]}  # fmt: skip
    ax.axhline(0.0, color="k", lw=0.8)
    art["cached"] = ax.axhline(0.0, color=SCHEME_COLORS["proposed"], lw=1.5,
                               label="cached result: D_th·ε − τ_EP")  # fmt: skip
    ax.set_xlim(0.0, 4.0)
    ax.set_xlabel("task data L / L̄")
    ax.set_ylabel("Φ [ms]  (< 0: hedge)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    art["title"] = ax.set_title("", fontsize=9)
    return fig, art


_MARGIN = _Canvas(_build_margin)


def _margin_plot(mean_bits, budget, tau_ep, kappa, distance):
    """Φ (eq. 15) of a lone user against its task size: when is a request hedged?"""
    rate = interference_free_rate(distance)
    bits = _BITS_OVER_MEAN * mean_bits
    fig, art = _MARGIN()
    low = high = (budget - tau_ep) * 1e3
    for wait, line in zip(_WAITS, art["phi"], strict=True):
        phi = 1e3 * (budget - kappa * bits / 1e10 - bits / rate - tau_ep - wait)
        line.set_ydata(phi)
        low, high = min(low, phi.min()), max(high, phi.max())
    art["cached"].set_ydata([(budget - tau_ep) * 1e3] * 2)
    fig.axes[0].set_ylim(*_nice_limits(low, high, 50.0))
    art["title"].set_text(f"r̄ = {rate / 1e6:.0f} Mbit/s at {distance:.0f} m, no interference, "
                          f"L̄ = {mean_bits / 1e6:.1f} Mbit")  # fmt: skip
    return fig


def margin_view():
    """Φ of eq. 15 against the task size for three queue waits."""
    return interactive_figure(
        _margin_plot,
        title="Reliability margin Φ (eqs. 9, 15)",
        mean_bits=control(PARAMS["mean_bits"]),
        budget=control(PARAMS["budget"]),
        tau_ep=control(PARAMS["tau_ep"]),
        kappa=control(PARAMS["kappa"]),
        distance=control(DISTANCE),
    )


_LOADS = np.linspace(0.02, 0.95, 40)


def _build_mm1():
    fig, ax = figure(width=6.0, height=3.4, fast=True)
    art = {"curve": ax.plot(_LOADS, _LOADS, color="C0",
                            label="M/M/1 upload + κL/c + τ_EP + δ")[0]}  # fmt: skip
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("load ρ = λ_u L̄ / r")
    ax.set_ylabel("mean delay [ms]")
    ax.legend(fontsize=7, loc="upper left")
    art["title"] = ax.set_title("", fontsize=9)
    return fig, art


_MM1 = _Canvas(_build_mm1)


def _mm1_plot(mean_bits, distance, slot):
    rate = interference_free_rate(distance)
    mu = rate / mean_bits
    d = 1e3 * np.array([isolated_cloudlet_delay(x, rate, mean_bits, 1e10, 1.0, 0.005, slot)
                        for x in _LOADS * mu])  # fmt: skip
    fig, art = _MM1()
    art["curve"].set_ydata(d)
    fig.axes[0].set_ylim(*_nice_limits(0.0, d.max(), 100.0 if d.max() > 400 else 20.0))
    art["title"].set_text(f"One user alone at one cloudlet, r = {rate / 1e6:.1f} Mbit/s")
    return fig


def mm1_view():
    """The isolated-cloudlet theory the simulator is tested against (M/M/1 uploads)."""
    return interactive_figure(
        _mm1_plot,
        title="Theory check: one user, one cloudlet",
        mean_bits=control(PARAMS["mean_bits"]),
        distance=control(DISTANCE, value=50.0),
        slot=control(PARAMS["slot"]),
    )


SCHEME_RUN = {"slots": 1600, "warmup": 1000 / 1600, "seed": 1}
PRECISION = {"rel_half_width": 0.05, "initial": 4, "max_replications": 16}
"""The view adds replications until the mean delay is known to ±5% (at most 16)."""
_NO_CACHE_DEFAULTS = {"storage": 10, "zipf": 0.8, "cacheable_ratio": 1 / 3}


@lru_cache(maxsize=256)
def _scheme_result(scheme, storage, zipf, cacheable_ratio, area, x_max):
    return simulate_to_precision(policy=scheme, storage=storage, zipf=zipf,
                                 cacheable_ratio=cacheable_ratio, area=area, x_max=x_max,
                                 progress=False, **PRECISION, **SCHEME_RUN)  # fmt: skip


def _schemes_plot(storage, zipf, cacheable_ratio, area, x_max):
    """Short paired simulations of the four schemes, mean with 95% CI over replications.

    BL2 and BL3 have no cache: storage, z and the cacheable ratio do not change them (the
    streams are common), so their runs are reused across those moves.
    """
    names = ("proposed", "BL1", "BL2", "BL3")
    cache_args = {"storage": storage, "zipf": zipf, "cacheable_ratio": cacheable_ratio}
    rows = [_scheme_result(s, **(_NO_CACHE_DEFAULTS if s in ("BL2", "BL3") else cache_args),
                           area=area, x_max=x_max) for s in names]  # fmt: skip
    fig, axes = figure(ncols=2, width=3.8, height=3.2, fast=True)
    for ax, q, label in ((axes[0], "mean_delay", "average delay [ms]"),
                         (axes[1], "p99_delay", "99th percentile delay [ms]")):  # fmt: skip
        for i, (s, r) in enumerate(zip(names, rows, strict=True)):
            low, high = r.interval(q)
            ci_errorbar(ax, [i], [r[q] * 1e3], [low * 1e3], [high * 1e3],
                        stationary=[r.stationary], color=SCHEME_COLORS[s])  # fmt: skip
        ax.set_xticks(range(4))
        ax.set_xticklabels(names, fontsize=8)
        ax.set_xlim(-0.5, 3.5)
        ax.set_ylim(bottom=0)
        ax.set_ylabel(label)
    n = SCHEME_RUN
    reps = "/".join(str(r.replications) for r in rows)
    fig.suptitle(
        f"Simulated to ±{PRECISION['rel_half_width']:.0%} on the mean: {reps} paired "
        f"replications × {n['slots'] - 1000} slots after 1000 warm-up, 95% CI;\nhit "
        f"rate proposed {rows[0]['hit_rate']:.2f}, BL1 {rows[1]['hit_rate']:.2f}",
        fontsize=8,
    )
    short = [s for s, r in zip(names, rows, strict=True) if not r.converged]
    if short:
        fig.text(0.5, 0.01, f"{', '.join(short)}: ±{PRECISION['rel_half_width']:.0%} not "
                 f"reached in {PRECISION['max_replications']} replications", ha="center",
                 fontsize=7)  # fmt: skip
    return fig


def schemes_view():
    """Short simulations of the four schemes (background, latest move only)."""
    return interactive_figure(
        _schemes_plot,
        title="The four schemes, simulated (short runs, about a second per move)",
        background=True,
        storage=control(PARAMS["storage"]),
        zipf=control(PARAMS["zipf"]),
        cacheable_ratio=control(PARAMS["cacheable_ratio"]),
        area=control(PARAMS["area"]),
        x_max=control(PARAMS["x_max"]),
    )


def _map_plot(scheme, seed):
    return plot_map(map_frame(policy=scheme, map_seed=seed), fast=True)


def map_view():
    """Clusters and one slot's matching for a chosen scheme and network."""
    return interactive_figure(
        _map_plot,
        title="Clusters and one slot of matching",
        scheme=control(PARAMS["policy"]),
        seed=control(PARAMS["seed"], value=4, span=(0, 50)),
    )


VIEWS = {
    "margin": margin_view,
    "mm1": mm1_view,
    "schemes": schemes_view,
    "map": map_view,
}


def classroom_view():
    """The notebook's five prediction exercises (answers computed by the library)."""
    phi = reliability_margin(2e6, 40e6, 1e10, 100.0, 0.010, 0.005, 0.05)
    items = [
        exercise(
            "A 2 Mbit task, uplink 40 Mbit/s, κ = 100 cycles/bit, c_e = 10^10 cycles/s, "
            "10 ms of queue ahead, τ_EP = 5 ms. Delay by eq. 4, in ms?",
            answer=1e3 * task_delay(2e6, 40e6, 1e10, 100.0, 0.010, 0.005),
            tolerance=1.0,
            hint="Add upload L/r, computing κL/c_e, the wait and τ_EP.",
            solution="50 + 20 + 10 + 5 = 85 ms.",
        ),
        exercise(
            "With the latency budget D_th·ε = 50 ms, is that request hedged (Φ < 0)?",
            answer="yes" if phi < 0 else "no",
            choices=["yes", "no"],
            hint="Φ = D_th·ε minus the estimated delay.",
            solution="Φ = 50 − 85 = −35 ms < 0: it is matched to a second, vacant cloudlet.",
        ),
        exercise(
            "One third of the 100 task types (chosen at random) are cacheable. What fraction "
            "of all requests can at most be served from caches (default network)?",
            answer=cacheable_mass(make_scenario(seed=0)),
            tolerance=0.06,
            hint="The cacheable types are a random third of a Zipf law.",
            solution="About 1/3: a random third of the types carries about a third of the "
            "mass. No caching scheme can beat it.",
        ),
        exercise(
            "Users rank cloudlets by eq. 4, so a cloudlet holding their result costs τ_EP only "
            "and they fetch it from any covering cloudlet. With the calibrated coverage a user "
            "has about 6 cloudlets in range at E = 30; each stores s_e = 2 results. How many "
            "distinct results can the caches within one user's range hold at most?",
            answer=6 * 2,
            tolerance=0,
            hint="Each covering cloudlet adds s_e places.",
            solution="12 < 33 cacheable types: s_e still matters (Fig. 5). Were every cloudlet "
            "to cover every user (a 146 m radius), 30 × 2 = 60 places would hold every "
            "cacheable result and s_e would stop mattering.",
        ),
        exercise(
            "One user alone at a cloudlet: r = 20 Mbit/s, L̄ = 1 Mbit, λ_u = 10 tasks/s. "
            "Mean time in the upload queue plus upload (M/M/1), in ms?",
            answer=1e3 / (20 - 10),
            tolerance=2.0,
            hint="μ = r / L̄ uploads per second; M/M/1 sojourn 1/(μ − λ).",
            solution="μ = 20/s, so 1/(20 − 10) s = 100 ms.",
        ),
    ]
    return w.VBox(items)


VIEWS["classroom"] = classroom_view
