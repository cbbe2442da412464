"""The notebook's slider views of P2 (the only P2 module that imports ipywidgets).

``VIEWS`` maps a view name to a function returning the widget (``<name>_view``). The
analytic views (the margin Φ of eqs. 9/15, the M/M/1 check) redraw in milliseconds; the map
draws one slot's matching. The schemes view simulates in the background (latest move
only): a move is answered at once by a first look (2 short replications per scheme whose
parameters changed), then a progress bar counts the replications of precision-driven runs
(:func:`~workbench.proactive.simulation.simulate_to_precision`, ±5% on the mean) and the
figure is redrawn with their intervals; a newer move stops that refinement within one
replication, and refined results are kept for values seen again.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from workbench.params import Param
from workbench.plots import figure, flag_unstable
from workbench.proactive.figures import (
    SCHEME_COLORS,
    map_frame,
    mm1_delay_ms,
    plot_map,
)
from workbench.proactive.model import (
    interference_free_rate,
    reliability_margin,
)
from workbench.proactive.params import PARAMS, POLICIES
from workbench.proactive.simulation import simulate, simulate_to_precision
from workbench.seeding import figure_seed
from workbench.validation import check_seed
from workbench.widgets import Refinement, control, interactive_figure

__all__ = ["VIEWS", "margin_view", "mm1_view", "schemes_view", "map_view"]

DISTANCE = Param(
    "distance",
    "d",
    "user–cloudlet distance",
    "m",
    low=1.0,
    high=1000.0,
    default=30.0,
    slider=(5.0, 140.0),
    step=5.0,
    source="choice",
    help="Distance of the lone user from its cloudlet (path loss 140.7 + 36.7 log10(d/km)).",
)


def _nice_limits(low, high, step):
    """y limits rounded outward to multiples of ``step`` (stable ticks while sliding)."""
    return step * np.floor(low / step), step * np.ceil(high / step)


_BITS_OVER_MEAN = np.linspace(0.0, 4.0, 120)
_WAITS = (0.0, 0.02, 0.05)
_CPU = PARAMS["cpu"].default


def _build_margin():
    fig, ax = figure(width=8.6, height=3.4, fast=True)
    fig.subplots_adjust(right=0.64)  # room for the legend beside the lines
    art = {
        "phi": [
            ax.plot(
                _BITS_OVER_MEAN,
                _BITS_OVER_MEAN,
                ls,
                color="C0",
                label=f"queue ahead {w * 1e3:.0f} ms",
            )[0]
            for w, ls in zip(_WAITS, ("-", "--", ":"), strict=True)
        ]
    }
    ax.axhline(0.0, color="k", lw=0.8)
    art["cached"] = ax.axhline(
        0.0, color=SCHEME_COLORS["proposed"], lw=1.5, label="cached result: D_th·ε − τ_EP"
    )
    ax.set_xlim(0.0, 4.0)
    ax.set_xlabel("task data L / L̄")
    ax.set_ylabel("Φ [ms]  (< 0: hedge)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    art["title"] = ax.set_title("", fontsize=9)
    return fig, art


# One figure per view, built once (the cached builder); slider moves update its artists in
# place: rebuilding a figure (axes, ticks, legend) costs more than drawing it, and a fixed x
# axis with y limits on a coarse grid keeps the tick labels, whose layout matplotlib caches.
_MARGIN = cache(_build_margin)


def _margin_plot(mean_bits, budget, tau_ep, kappa, distance):
    """Φ (eq. 15) of a lone user against its task size: when is a request hedged?"""
    rate = interference_free_rate(distance)
    bits = _BITS_OVER_MEAN * mean_bits
    fig, art = _MARGIN()
    low = high = (budget - tau_ep) * 1e3
    for wait, line in zip(_WAITS, art["phi"], strict=True):
        phi = 1e3 * reliability_margin(bits, rate, _CPU, kappa, wait, tau_ep, budget)
        line.set_ydata(phi)
        low, high = min(low, phi.min()), max(high, phi.max())
    art["cached"].set_ydata([(budget - tau_ep) * 1e3] * 2)
    fig.axes[0].set_ylim(*_nice_limits(low, high, 50.0))
    art["title"].set_text(
        f"r̄ = {rate / 1e6:.0f} Mbit/s at {distance:.0f} m, no interference, "
        f"L̄ = {mean_bits / 1e6:.1f} Mbit"
    )
    return fig


def margin_view():
    """Φ of eq. 15 against the task size for three queue waits.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The sliders and the figure they redraw.
    """
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
    art = {"curve": ax.plot(_LOADS, _LOADS, color="C0", label="M/M/1 upload + κL/c + τ_EP + δ")[0]}
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("load ρ = λ_u L̄ / r")
    ax.set_ylabel("mean delay [ms]")
    ax.legend(fontsize=7, loc="upper left")
    art["title"] = ax.set_title("", fontsize=9)
    return fig, art


_MM1 = cache(_build_mm1)


def _mm1_plot(mean_bits, distance, slot):
    rate = interference_free_rate(distance)
    mu = rate / mean_bits
    d = np.array([mm1_delay_ms(x, rate, mean_bits, slot) for x in _LOADS * mu])
    fig, art = _MM1()
    art["curve"].set_ydata(d)
    fig.axes[0].set_ylim(*_nice_limits(0.0, d.max(), 100.0 if d.max() > 400 else 20.0))
    art["title"].set_text(f"One user alone at one cloudlet, r = {rate / 1e6:.1f} Mbit/s")
    return fig


def mm1_view():
    """The isolated-cloudlet theory the simulator is tested against (M/M/1 uploads).

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The sliders and the figure they redraw.
    """
    return interactive_figure(
        _mm1_plot,
        title="Theory check: one user, one cloudlet",
        mean_bits=control(PARAMS["mean_bits"]),
        distance=control(DISTANCE, value=50.0),
        slot=control(PARAMS["slot"]),
    )


SCHEME_RUN = {"slots": 1600, "warmup": 1000 / 1600, "seed": 1}
"""Each replication: 1000 warm-up slots (5 s: the empty caches fill), then 600 measured."""
FIRST = {"replications": 2, "slots": 800, "warmup": 0.5}
"""A move is answered at once from 2 paired replications of 400 warm-up + 400 measured
slots (a first look: means, wide intervals, caches not yet full)."""
PRECISION = {"rel_half_width": 0.05, "initial": 4, "max_replications": 40}
"""Then, in the background with a progress bar, replications are added until each
scheme's mean delay is known to ±5% (at most 40), and the figure is redrawn."""
NAMES = POLICIES
_NO_CACHE_DEFAULTS = {k: PARAMS[k].default for k in ("storage", "zipf", "cacheable_ratio")}
_PRECISE: dict = {}
"""Precision-driven results by (scheme, parameters): a value seen before is drawn at once."""


def _keys(storage, zipf, cacheable_ratio, area, x_max, seed=0) -> list[tuple]:
    """One key per scheme; BL2 and BL3 have no cache, so storage, z and the cacheable
    ratio do not change them (the streams are common) and their runs are shared; BL3 does
    not hedge, so X_max does not change it either. ``seed`` (the caller's) shifts the
    view's own seed: part of the key."""
    cache_args = (storage, zipf, cacheable_ratio)
    no_cache = tuple(_NO_CACHE_DEFAULTS.values())
    seed = figure_seed(SCHEME_RUN["seed"], seed)
    return [
        (
            s,
            *(no_cache if s in ("BL2", "BL3") else cache_args),
            area,
            1 if s == "BL3" else x_max,
            seed,
        )
        for s in NAMES
    ]


def _params(key: tuple) -> dict:
    """:func:`simulate`'s keywords of a key of :func:`_keys`."""
    names = ("policy", "storage", "zipf", "cacheable_ratio", "area", "x_max", "seed")
    return SCHEME_RUN | dict(zip(names, key, strict=True))


@lru_cache(maxsize=512)
def _first_result(key: tuple):
    return simulate(keep_records=False, overload="transient", **(_params(key) | FIRST))


def _precise_result(key: tuple, monitor=None):
    if key not in _PRECISE:
        _PRECISE[key] = simulate_to_precision(
            overload="transient",
            progress=False,
            monitor=monitor,
            **PRECISION,
            **_params(key),
        )
    return _PRECISE[key]


def _build_schemes():
    fig, axes = figure(ncols=2, width=3.8, height=3.2, fast=True)
    art = {"marks": {}, "bars": {}}
    for ax, q, label in (
        (axes[0], "mean_delay", "average delay [ms]"),
        (axes[1], "p99_delay", "99th percentile delay [ms]"),
    ):
        for i, s in enumerate(NAMES):
            art["bars"][q, s] = ax.plot([i, i], [0.0, 0.0], color=SCHEME_COLORS[s], lw=1.5)[0]
            art["marks"][q, s] = ax.plot([i], [0.0], "o", color=SCHEME_COLORS[s], ms=6)[0]
        ax.set_xticks(range(4))
        ax.set_xticklabels(NAMES, fontsize=8)
        ax.set_xlim(-0.5, 3.5)
        ax.set_ylabel(label)
    art["title"] = fig.suptitle("", fontsize=8)
    art["note"] = fig.text(0.5, 0.01, "", ha="center", fontsize=7)
    return fig, art


_SCHEMES = cache(_build_schemes)


def _schemes_plot(storage, zipf, cacheable_ratio, area, x_max, seed=0):
    """Paired simulations of the four schemes, mean with 95% CI over replications.

    Schemes whose precision-driven result is known are drawn from it; the others from
    :data:`FIRST` (2 short replications, "first look"). A point whose run is not
    stationary is drawn hollow with a dotted interval (:func:`missing_keys` lists the
    keys still to refine). The figure is built once and updated in place (a move costs the
    simulations, not a new figure).
    """
    keys = _keys(storage, zipf, cacheable_ratio, area, x_max, seed)
    rows = [_PRECISE[k] if k in _PRECISE else _first_result(k) for k in keys]
    missing = [k for k in keys if k not in _PRECISE]
    fig, art = _SCHEMES()
    for ax, q in zip(fig.axes, ("mean_delay", "p99_delay"), strict=True):
        top = 0.0
        for s, r in zip(NAMES, rows, strict=True):
            low, high = (1e3 * x for x in r.interval(q))
            mark, bar = art["marks"][q, s], art["bars"][q, s]
            mark.set_ydata([1e3 * r[q]])
            mark.set_markerfacecolor(SCHEME_COLORS[s] if r.stationary else "none")
            bar.set_ydata([low, high])
            bar.set_linestyle("-" if r.stationary else ":")
            top = max(top, high if np.isfinite(high) else 1e3 * r[q])
        ax.set_ylim(*_nice_limits(0.0, max(top, 1.0) * 1.05, 50.0 if top > 200 else 10.0))
    target = f"±{PRECISION['rel_half_width']:.0%}"
    reached = [s for s, r in zip(NAMES, rows, strict=True) if r.converged and r.stationary]
    if missing:
        slots, warm = FIRST["slots"], round(FIRST["warmup"] * FIRST["slots"])
        state = (
            f"first look at {', '.join(k[0] for k in missing)} ({FIRST['replications']} "
            f"replications × {slots - warm} slots after {warm} warm-up), refining to "
            f"{target} on the mean"
        )
    else:
        slots, warm = SCHEME_RUN["slots"], round(SCHEME_RUN["warmup"] * SCHEME_RUN["slots"])
        reps = "/".join(str(r.replications) for r in rows)
        if len(reached) == len(NAMES):
            aim = f"simulated to {target} on the mean"
        else:  # the title never claims a precision the footer says was not reached
            aim = f"{target} on the mean reached for {', '.join(reached) or 'no scheme'}"
        runs = f"{reps} paired replications × {slots - warm} slots after {warm} warm-up"
        state = f"{aim}: {runs}"
    art["title"].set_text(
        f"{state}, 95% CI;\nhit rate proposed {rows[0]['hit_rate']:.2f}, BL1 "
        f"{rows[1]['hit_rate']:.2f}"
    )
    short = [] if missing else [s for s in NAMES if s not in reached]
    art["note"].set_text(
        f"{', '.join(short)}: {target} not reached in {PRECISION['max_replications']} "
        f"replications (or not stationary; hollow)"
        if short
        else ""
    )
    unstable = [s for s, r in zip(NAMES, rows, strict=True) if not r.stationary]
    flag_unstable(fig, f"{', '.join(unstable)}: not a steady state" if unstable else "")
    return fig


def missing_keys(**values) -> list:
    """The runs of these values not refined yet (the schemes view refines them)."""
    return [k for k in _keys(**values) if k not in _PRECISE]


def _refine_task(key):
    def task(monitor):  # monitor(index) raises Moved when a newer move arrived
        _precise_result(key, lambda index: monitor(index + 1))

    return task


def schemes_view(seed: int = 0):
    """Short simulations of the four schemes: a move is answered from 2 replications at
    once, then refined to ±5% on the mean in the background (progress bar), then redrawn.

    Parameters
    ----------
    seed : int
        The caller's seed (the notebook's ``SEED``; 0: the published view), shifting the
        view's own seed ``SCHEME_RUN["seed"]``.

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The sliders and the figure they redraw; ``view.refiner`` refines
        the runs in the background.
    """
    seed = check_seed(seed, "schemes_view")
    # the first look at once, refined by the shared Refinement (precision-driven runs, a
    # progress bar, a redraw; a newer move stops it within one replication)
    refinement = Refinement("refining")

    def plot(**values):
        fig = _schemes_plot(**values, seed=seed)
        missing = missing_keys(**values, seed=seed)
        if missing:
            target = f"±{PRECISION['rel_half_width']:.0%}"
            refinement.start(
                [(f"longer run: {key[0]} to {target}", _refine_task(key)) for key in missing],
                steps=PRECISION["max_replications"],
            )
        else:
            refinement.stop()
        return fig

    view = interactive_figure(
        plot,
        title="The four schemes, simulated (a first look at once, then refined towards ±5%)",
        background=True,
        refinement=refinement,
        storage=control(PARAMS["storage"]),
        zipf=control(PARAMS["zipf"]),
        cacheable_ratio=control(PARAMS["cacheable_ratio"]),
        area=control(PARAMS["area"]),
        x_max=control(PARAMS["x_max"]),
    )
    view.refiner = refinement  # tests and scripts: view.refiner.wait()
    return view


def _map_plot(scheme, seed):
    return plot_map(map_frame(policy=scheme, seed=seed), fast=True)


def map_view(seed: int = 0):
    """Clusters and one slot's matching for a chosen scheme and network.

    Parameters
    ----------
    seed : int
        The caller's seed (the notebook's ``SEED``): the slider starts there; the network
        drawn is ``figure_seed(MAP_SEED, slider)`` (0: the published map).

    Returns
    -------
    workbench.interactive.InteractiveFigure
        The sliders and the figure they redraw.
    """
    seed = check_seed(seed, "map_view")
    return interactive_figure(
        _map_plot,
        title="Clusters and one slot of matching",
        scheme=control(PARAMS["policy"]),
        seed=control(PARAMS["seed"], value=seed, span=(0, max(50, seed))),
    )


VIEWS = {
    "margin": margin_view,
    "mm1": mm1_view,
    "schemes": schemes_view,
    "map": map_view,
}
