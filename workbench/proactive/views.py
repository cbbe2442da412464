"""The notebook's slider views of P2 (the only P2 module that imports ipywidgets).

``VIEWS`` maps a view name to a function returning the widget. The analytic views (delay
budget of eq. 4 / Φ, cacheable mass) redraw in milliseconds; the simulation view runs
the slot kernel in the background (latest move only).
"""

from __future__ import annotations

import numpy as np

from workbench.params import Param
from workbench.plots import figure
from workbench.proactive.figures import (
    SCHEME_COLORS,
    map_frame,
    plot_map,
)
from workbench.proactive.model import interference_free_rate, isolated_cloudlet_delay
from workbench.proactive.params import PARAMS
from workbench.proactive.simulation import simulate
from workbench.widgets import control, interactive_figure

__all__ = ["VIEWS", "explore_margin", "explore_mm1", "explore_schemes", "explore_map"]

DISTANCE = Param(
    "distance", "d", "user–cloudlet distance", "m", low=1.0, high=1000.0, default=30.0,
    slider=(5.0, 140.0), step=5.0, source="choice",
    help="Distance of the lone user from its cloudlet (path loss 140.7 + 36.7 log10(d/km)).",
)  # fmt: skip


def _margin_plot(mean_bits, budget, tau_ep, kappa, distance):
    """Φ (eq. 15) of a lone user against its task size: when is a request hedged?"""
    rate = interference_free_rate(distance)
    bits = np.linspace(0.0, 4 * mean_bits, 200)
    fig, ax = figure(width=6.0, height=3.4, fast=True)
    for wait, ls in ((0.0, "-"), (0.02, "--"), (0.05, ":")):
        phi = budget - kappa * bits / 1e10 - bits / rate - tau_ep - wait
        ax.plot(bits / 1e6, phi * 1e3, ls, color="C0", label=f"queue ahead {wait * 1e3:.0f} ms")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.axhline((budget - tau_ep) * 1e3, color=SCHEME_COLORS["proposed"], lw=1.5,
               label="cached result: D_th·ε − τ_EP")  # fmt: skip
    ax.set_xlabel("task data L [Mbit]")
    ax.set_ylabel("Φ [ms]  (< 0: hedge)")
    ax.legend(fontsize=7)
    ax.set_title(f"r̄ = {rate / 1e6:.0f} Mbit/s at {distance:.0f} m, no interference",
                 fontsize=9)  # fmt: skip
    return fig


def explore_margin():
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


def _mm1_plot(mean_bits, distance, slot):
    rate = interference_free_rate(distance)
    mu = rate / mean_bits
    lam = np.linspace(0.02, 0.95, 60) * mu
    d = [isolated_cloudlet_delay(x, rate, mean_bits, 1e10, 1.0, 0.005, slot) for x in lam]
    fig, ax = figure(width=6.0, height=3.4, fast=True)
    ax.plot(lam / mu, np.array(d) * 1e3, color="C0", label="M/M/1 upload + κL/c + τ_EP + δ")
    ax.set_xlabel("load ρ = λ_u L̄ / r")
    ax.set_ylabel("mean delay [ms]")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    ax.set_title(f"One user alone at one cloudlet, r = {rate / 1e6:.1f} Mbit/s", fontsize=9)
    return fig


def explore_mm1():
    """The isolated-cloudlet theory the simulator is tested against (M/M/1 uploads)."""
    return interactive_figure(
        _mm1_plot,
        title="Theory check: one user, one cloudlet",
        mean_bits=control(PARAMS["mean_bits"]),
        distance=control(DISTANCE, value=50.0),
        slot=control(PARAMS["slot"]),
    )


def _schemes_plot(storage, zipf, cacheable_ratio, area, x_max):
    fig, axes = figure(ncols=2, width=3.8, height=3.2, fast=True)
    names = ("proposed", "BL1", "BL2", "BL3")
    rows = [
        simulate(s, n_slots=1500, replications=2, seed=1, keep_records=False, storage=storage,
                 zipf=zipf, cacheable_ratio=cacheable_ratio, area=area, x_max=x_max)
        for s in names
    ]  # fmt: skip
    for ax, q, label in ((axes[0], "mean_delay", "average delay [ms]"),
                         (axes[1], "p99_delay", "99th percentile delay [ms]")):  # fmt: skip
        vals = [r[q] * 1e3 for r in rows]
        ax.bar(range(4), vals, color=[SCHEME_COLORS[s] for s in names])
        ax.set_xticks(range(4))
        ax.set_xticklabels(names, fontsize=8)
        ax.set_ylabel(label)
    fig.suptitle(
        f"2 replications × 1500 slots; hit rate proposed {rows[0]['hit_rate']:.2f}, "
        f"BL1 {rows[1]['hit_rate']:.2f}",
        fontsize=8,
    )
    return fig


def explore_schemes():
    """Short simulations of the four schemes (background, latest move only)."""
    return interactive_figure(
        _schemes_plot,
        title="The four schemes (short runs; seconds per move)",
        background=True,
        storage=control(PARAMS["storage"]),
        zipf=control(PARAMS["zipf"]),
        cacheable_ratio=control(PARAMS["cacheable_ratio"]),
        area=control(PARAMS["area"]),
        x_max=control(PARAMS["x_max"]),
    )


def _map_plot(scheme, seed):
    return plot_map(map_frame(scheme=scheme, seed=seed), fast=True)


def explore_map():
    """Clusters and one slot's matching for a chosen scheme and network."""
    return interactive_figure(
        _map_plot,
        title="Clusters and one slot of matching",
        scheme=control(PARAMS["scheme"]),
        seed=control(PARAMS["seed"], value=4, span=(0, 50)),
    )


VIEWS = {
    "explore_margin": explore_margin,
    "explore_mm1": explore_mm1,
    "explore_schemes": explore_schemes,
    "explore_map": explore_map,
}


def classroom():
    """The notebook's five prediction exercises (answers computed by the library)."""
    import ipywidgets as w

    from workbench.proactive.model import (
        cacheable_mass,
        make_scenario,
        reliability_margin,
        task_delay,
    )
    from workbench.widgets import exercise

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
            "E = 30 cloudlets all cover every user; each stores s_e = 2 results. How many "
            "distinct results can the network hold at most?",
            answer=30 * 2,
            tolerance=0,
            hint="A user can fetch a cached result from any covering cloudlet.",
            solution="60 ≥ 33 cacheable types: the pooled cache already holds every "
            "cacheable result, which is why s_e barely matters at the defaults.",
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


VIEWS["classroom"] = classroom
