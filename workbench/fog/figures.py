"""P1 figures: service delay against θ, e_M, the Light/Heavy mix, p^I, the load and the
announcement period, with the analytic model beside simulated means (Student-t intervals)
and the three baselines on every delay plot; the network coloured by utilisation; the
partial-fraction instability.

Every figure ``<name>`` has ``<name>_frame(quick=False, seed=0)``, a tidy DataFrame (one row
per plotted point), and ``plot_<name>(frame)``, which draws it; the notebook's views and
``reproduce p1`` call the same two. ``quick`` runs short simulations; ``seed`` is the
caller's (the notebook's ``SEED``, passed by :meth:`~workbench.plots.FigureSpec.make`):
each run of a frame draws from its own base seed shifted by it
(:func:`workbench.seeding.figure_seed`), so ``seed=0`` gives the published numbers. The
delay studies share :mod:`workbench.fog.study`.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. V (the comparisons: θ, e_M, mix, p^I; the
figures themselves were not recovered, these are the workbench's).
"""

from __future__ import annotations

import functools
import math
import textwrap

import networkx as nx
import numpy as np
import pandas as pd
from matplotlib import colormaps, colors
from matplotlib.collections import LineCollection

from workbench.fog.acceptance import erlang_sum_cdf, erlang_sum_cdf_partial_fractions
from workbench.fog.cases import (
    AGREEMENT_CASES,
    load_variance_gains,
    one_fog_scenario,
    overloaded_scenario,
)
from workbench.fog.model import P1Params
from workbench.fog.network import analyze
from workbench.fog.params import PARAMS
from workbench.fog.scenario import compile_scenario, default_scenario, with_traffic
from workbench.fog.simulation import run_once, simulate, warmup_requests
from workbench.fog.study import (
    footnote,
    label_point,
    mark_unstable,
    model_point,
    plot_study,
    point_row,
    simulated_point,
    study_frame,
    study_scenario,
)
from workbench.fog.tuning import (
    MODEL_LABELS,
    THETA_GRID,
    compare_thetas,
    per_node_table,
    policy_table,
    tune_theta_per_node,
)
from workbench.output_analysis import detect
from workbench.params import takes
from workbench.plots import PALETTE, FigureSpec, ci_errorbar, figure
from workbench.seeding import figure_seed

__all__ = [
    "FIGURES",
    "per_node_table",
    "policy_table",
]


# ------------------------------------------------------------------ the delay studies

THETA_VALUES = ([0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15], [0.0, 0.01, 0.04, 0.15])
EMAX_VALUES = ([0, 1, 2, 3, 4], [0, 1, 3])
MIX_VALUES = ([0.1, 0.3, 0.5, 0.7, 0.9, 1.0], [0.3, 0.7, 1.0])
P_IOT_VALUES = ([0.0, 0.2, 0.4, 0.6, 0.8], [0.0, 0.4, 0.8])
LOAD_VALUES = ([0.4, 0.6, 0.8, 1.0, 1.15, 1.3, 1.5], [0.5, 1.0, 1.5])
FOG_DELAY_VALUES = ([0.0005, 0.002, 0.005, 0.01, 0.02, 0.04], [0.001, 0.01, 0.04])
"""(full, quick) values of each study's axis."""


def _values(pair, quick):
    return pair[1] if quick else pair[0]


def delay_vs_theta_frame(quick=False, seed: int = 0):
    """Delay against θ (e_M = 1): :func:`workbench.fog.study.study_frame` on ``theta``."""
    return study_frame("theta", _values(THETA_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_theta(frame):
    return plot_study(frame)


def delay_vs_emax_frame(quick=False, seed: int = 0):
    """Delay against the offload limit e_M (θ = 20 ms)."""
    return study_frame("e_max", _values(EMAX_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_emax(frame):
    return plot_study(frame)


def delay_vs_mix_frame(quick=False, seed: int = 0):
    """Delay against the Light share b of requests."""
    return study_frame("light_fraction", _values(MIX_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_mix(frame):
    return plot_study(frame)


def delay_vs_p_iot_frame(quick=False, seed: int = 0):
    """Delay against the local-processing probability p^I."""
    return study_frame("p_iot", _values(P_IOT_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_p_iot(frame):
    return plot_study(frame)


def delay_vs_load_frame(quick=False, seed: int = 0):
    """Delay against a load multiplier on every IoT rate."""
    return study_frame("load", _values(LOAD_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_load(frame):
    return plot_study(frame)


def delay_vs_fog_delay_frame(quick=False, seed: int = 0):
    """Delay against the fog–fog link delay (every fog–fog link set to it)."""
    return study_frame("fog_delay", _values(FOG_DELAY_VALUES, quick), quick=quick, seed=seed)


def plot_delay_vs_fog_delay(frame):
    return plot_study(frame)


# ---------------------------------------------------------------- the network picture


@functools.lru_cache(maxsize=8)
def _layout(scenario_seed):
    """Node positions of a default scenario (fixed per seed: the picture does not jump).

    The fog and cloud layer is copied in the scenario's node order: a subgraph view would
    iterate its nodes in the order of a set of names, which changes from one Python process
    to the next (string hashing), and the layout with it.
    """
    g = default_scenario(scenario_seed)
    core = nx.Graph()
    core.add_nodes_from(n for n, d in g.nodes(data=True) if d["role"] != "iot")
    core.add_edges_from((a, b) for a, b in g.edges if a in core and b in core)
    pos = nx.spring_layout(core, seed=1, weight=None)
    rng = np.random.default_rng(2)
    for n, d in g.nodes(data=True):
        if d["role"] == "iot":
            (f,) = list(g.neighbors(n))
            ang = rng.uniform(0, 2 * np.pi)
            pos[n] = pos[f] + 0.12 * np.array([np.cos(ang), np.sin(ang)])
    nodes = pd.DataFrame(
        [
            dict(kind="node", name=n, role=d["role"], x=pos[n][0], y=pos[n][1])
            for n, d in g.nodes(data=True)
        ]
    )
    edges = pd.DataFrame(
        [
            dict(
                kind="edge",
                name=f"{a}-{b}",
                role="-".join(sorted((g.nodes[a]["role"], g.nodes[b]["role"]))),
                x=pos[a][0],
                y=pos[a][1],
                x1=pos[b][0],
                y1=pos[b][1],
            )
            for a, b in g.edges
        ]
    )
    return nodes, edges


def network_utilisation_frame(quick=False, seed: int = 0):
    """The default scenario's nodes and edges with one simulated run's utilisation.

    :func:`network_run_frame` at θ = 20 ms, e_M = 1 with 5,000 (quick) or 40,000 requests.
    """
    return network_run_frame(requests=5_000 if quick else 40_000, seed=seed)


@takes(
    P1Params,
    "requests",
    "scenario_seed",
    "theta",
    "e_max",
    "load",
    "seed",
    "mode",
    "announce_period",
    "warmup",
)
def network_run_frame(p, *, scenario_seed=0):
    """Positions, roles and simulated utilisation of every node; edges as segments.

    Parameters
    ----------
    requests, theta, e_max, mode, announce_period, warmup
        One run (:func:`workbench.fog.run_once`) of the default scenario.
    scenario_seed : int
        Seed of :func:`~workbench.fog.default_scenario` (the picture's layout).
    load : float
        Multiplier of every IoT node's rate (:func:`~workbench.fog.with_traffic`).
    seed : int
        The caller's seed: the run draws from ``figure_seed(0, seed)``.

    Returns
    -------
    pandas.DataFrame
        Node rows (position, role, ``utilisation``) and edge rows (segments). Node rows also
        carry the run's mean service delay and its share served in the fog after the
        ``warmup`` fraction (``mean_delay`` [s], ``share_fog``, the same on every row) and
        the stationarity verdict on each request's delay (``stationary``, ``note``).
    """
    g = with_traffic(default_scenario(scenario_seed), load=p.load)
    net = compile_scenario(g)
    run = run_once(p.trusted(scenario=net, seed=figure_seed(0, p.seed)))
    util = dict(zip(net.fog_names, run.fog["utilisation"], strict=True))
    util.update(zip(net.cloud_names, run.cloud["utilisation"], strict=True))
    nodes, edges = _layout(scenario_seed)
    nodes = nodes.assign(
        utilisation=nodes["name"].map(util).astype(float), x1=math.nan, y1=math.nan
    )
    skip = warmup_requests(p)
    rec = run.records.iloc[skip:]
    verdict = detect([run.records["delay"].to_numpy()], warmup=skip, unit="s", label="delay")
    nodes["mean_delay"] = float(rec["delay"].mean())
    nodes["share_fog"] = float((rec["tier"] == "fog").mean())
    nodes["stationary"] = verdict.stationary
    nodes["note"] = verdict.note
    return pd.concat([nodes, edges.assign(utilisation=math.nan)], ignore_index=True)


def plot_network_utilisation(frame, fast=False, title=None):
    """Fog nodes coloured by simulated utilisation; IoT nodes small, the cloud a square."""
    fig, ax = figure(width=6.4, height=5.0, fast=fast)
    edges = frame[frame["kind"] == "edge"]
    style = {"fog-fog": ("0.2", 1.4), "cloud-fog": ("0.75", 0.6), "fog-iot": ("0.85", 0.4)}
    for role, grp in edges.groupby("role"):
        color, width = style.get(role, ("0.8", 0.5))
        segs = np.stack([grp[["x", "y"]].to_numpy(), grp[["x1", "y1"]].to_numpy()], axis=1)
        ax.add_collection(LineCollection(segs, colors=color, linewidths=width, zorder=1))
    nodes = frame[frame["kind"] == "node"]
    # fog nodes and cloud servers on one colour scale of utilisation
    shade = dict(cmap=colormaps["viridis"], norm=colors.Normalize(0, 1), edgecolors="k", zorder=3)
    iot = nodes[nodes["role"] == "iot"]
    ax.scatter(iot["x"], iot["y"], s=6, color="0.6", zorder=2, label="IoT node")
    fog = nodes[nodes["role"] == "fog"]
    sc = ax.scatter(fog["x"], fog["y"], s=340, c=fog["utilisation"], label="fog node", **shade)
    for x, y, u in zip(fog["x"], fog["y"], fog["utilisation"], strict=True):
        ax.annotate(
            f"{u:.2f}",
            (x, y),
            ha="center",
            va="center",
            fontsize=7,
            color="w" if u < 0.6 else "k",
            zorder=4,
        )
    cl = nodes[nodes["role"] == "cloud"]
    ax.scatter(
        cl["x"], cl["y"], s=300, marker="s", c=cl["utilisation"], label="cloud (mean unit)", **shade
    )
    fig.colorbar(sc, ax=ax, label="utilisation (busy fraction)")
    ax.set_axis_off()
    ax.legend(
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=3,
        frameon=False,
        markerscale=0.5,
    )
    ax.set_title(
        title or "Default scenario: fog utilisation under offloading (θ = 20 ms, e_M = 1)",
        fontsize=9,
        y=1.0,
    )
    return fig


# ---------------------------------------------------------- the partial-fraction route


def erlang_sum_stability_frame(quick=False):
    """P(Erlang(5, μ) + Erlang(4, μ') < 0.3 s) by both routes as μ' → μ = 20/s."""
    gaps = np.logspace(-8, 0, 17 if quick else 33)
    routes = {
        "uniformisation (stable)": erlang_sum_cdf,
        "partial fractions (paper)": erlang_sum_cdf_partial_fractions,
    }
    rows = [
        dict(gap=gap, route=route, value=cdf(0.3, 5, 20.0, 4, 20.0 * (1 + gap)))
        for gap in gaps
        for route, cdf in routes.items()
    ]
    return pd.DataFrame(rows)


def plot_erlang_sum_stability(frame):
    fig, ax = figure(width=6.0, height=3.6)
    stable = frame[frame["route"].str.startswith("uniform")]
    paper = frame[frame["route"].str.startswith("partial")]
    err = np.abs(paper["value"].to_numpy() - stable["value"].to_numpy())
    ax.loglog(
        stable["gap"],
        np.maximum(err, 1e-17),
        "o-",
        color=PALETTE[3],
        label="|partial fractions − stable|",
    )
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
    ax.set_xlabel("relative rate gap (μ' − μ)/μ")
    ax.set_ylabel("absolute error of P(W < θ)")
    ax.set_title(
        "P(Erlang(5, μ) + Erlang(4, μ') < 0.3 s), μ = 20/s: the paper's route", fontsize=10
    )
    ax.legend(fontsize=8)
    return fig


FIGURES = {
    "delay_vs_theta": FigureSpec(
        frame=delay_vs_theta_frame,
        plot=plot_delay_vs_theta,
        caption="Mean service delay vs θ (e_M = 1): the interior optimum, the baselines.",
    ),
    "delay_vs_emax": FigureSpec(
        frame=delay_vs_emax_frame,
        plot=plot_delay_vs_emax,
        caption="Mean service delay vs the offload limit e_M (θ = 20 ms).",
    ),
    "delay_vs_mix": FigureSpec(
        frame=delay_vs_mix_frame,
        plot=plot_delay_vs_mix,
        caption="Mean service delay vs the Light share b of requests.",
    ),
    "delay_vs_p_iot": FigureSpec(
        frame=delay_vs_p_iot_frame,
        plot=plot_delay_vs_p_iot,
        caption="Mean service delay vs the local-processing probability p^I.",
    ),
    "delay_vs_load": FigureSpec(
        frame=delay_vs_load_frame,
        plot=plot_delay_vs_load,
        caption="Mean service delay vs a load multiplier on every IoT rate (no_offload stops "
        "where a fog node reaches ρ = 1).",
    ),
    "delay_vs_fog_delay": FigureSpec(
        frame=delay_vs_fog_delay_frame,
        plot=plot_delay_vs_fog_delay,
        caption="Mean service delay vs the fog–fog link delay (every fog–fog link set to it; "
        "θ = 20 ms, e_M = 1).",
    ),
    "network_utilisation": FigureSpec(
        frame=network_utilisation_frame,
        plot=plot_network_utilisation,
        caption="The default scenario, fog nodes coloured by simulated utilisation.",
    ),
    "erlang_sum_stability": FigureSpec(
        frame=erlang_sum_stability_frame,
        plot=plot_erlang_sum_stability,
        caption="The paper's partial-fraction route loses every digit as μ' → μ.",
    ),
}

# ------------------------------------------------------- analytic beside simulation


def agreement_table_frame(quick=False, seed: int = 0):
    """Analytic (eq. 6, and with +1/μ) beside simulated mean delay, case by case [ms]."""
    n, reps = (10_000, 3) if quick else (60_000, 10)
    rows = []
    for label, which, kw in AGREEMENT_CASES:
        if which == "overloaded_1000" and quick:
            continue  # 100,000 IoT nodes: the full table only (about a minute)
        g = {
            "one_fog": one_fog_scenario,
            "default": lambda: default_scenario(0),
            "overloaded": overloaded_scenario,
            "overloaded_1000": lambda: compile_scenario(overloaded_scenario(1000)),
        }[which]()
        model_kw = {k: v for k, v in kw.items() if k in ("theta", "e_max", "policy")}
        paper = analyze(g, **model_kw).mean_delay
        corrected = analyze(g, own_processing=True, **model_kw).mean_delay
        admitted = analyze(g, own_processing=True, admission="threshold", **model_kw).mean_delay
        # the overloaded layers run 16,000 and 400,000 requests/s: longer runs, same seconds
        size = {"overloaded": (4 * n, reps), "overloaded_1000": (1_000_000, 3)}
        n_case, reps_case = size.get(which, (n, reps))
        res = simulate(
            scenario=g, requests=n_case, replications=reps_case, seed=figure_seed(21, seed), **kw
        )
        rows.append(
            {
                "case": label,
                "model eq. 6 [ms]": 1e3 * paper,
                "model +1/μ [ms]": 1e3 * corrected,
                "threshold +1/μ [ms]": 1e3 * admitted,
                "simulation [ms]": 1e3 * res.mean,
                "± [ms]": 1e3 * res.half_width,
                "error eq. 6": paper / res.mean - 1,
                "error +1/μ": corrected / res.mean - 1,
                "error threshold +1/μ": admitted / res.mean - 1,
            }
        )
    return pd.DataFrame(rows)


def plot_agreement_table(frame):
    """The agreement table as a figure legible on a projector: 8.4 inches wide (shown near
    its size in an 848 px notebook column, not scaled down), 11 pt text, the case wrapped."""
    cases = [textwrap.fill(str(c), 30) for c in frame["case"]]
    lines = sum(max(2, c.count("\n") + 1) for c in cases)
    fig, ax = figure(width=8.4, height=0.8 + 0.24 * (lines + len(frame) + 3))
    ax.set_axis_off()
    cells = [
        [
            case,
            f"{r['model eq. 6 [ms]']:.1f}",
            f"{r['model +1/μ [ms]']:.1f}",
            f"{r['threshold +1/μ [ms]']:.1f}",
            f"{r['simulation [ms]']:.1f}\n± {r['± [ms]']:.1f}",
            f"{r['error eq. 6']:+.0%}",
            f"{r['error +1/μ']:+.0%}",
            f"{r['error threshold +1/μ']:+.0%}",
        ]
        for case, (_, r) in zip(cases, frame.iterrows(), strict=True)
    ]
    table = ax.table(
        cellText=cells,
        colLabels=[
            "case",
            "eq. 6",
            "+1/μ",
            "thresh.\n+1/μ",
            "simulated\n(95% CI)",
            "error\neq. 6",
            "error\n+1/μ",
            "error\nthresh.",
        ],
        loc="center",
        cellLoc="center",
        colWidths=[0.34, 0.08, 0.08, 0.09, 0.12, 0.09, 0.09, 0.09],
    )
    table.auto_set_font_size(False)
    table.set_fontsize(11)
    celld = table.get_celld()
    row_lines = {}
    for (row, _col), cell in celld.items():
        n = cell.get_text().get_text().count("\n") + 1
        row_lines[row] = max(row_lines.get(row, 1), n)
    unit = 1.0 / (sum(row_lines.values()) + len(row_lines))  # a line plus padding per row
    for (row, _col), cell in celld.items():
        cell.set_height(unit * (row_lines[row] + 1))
    ax.set_title(
        "Mean service delay [ms]: analytic model beside simulation (default scenario)", fontsize=11
    )
    return fig


FIGURES["agreement_table"] = FigureSpec(
    frame=agreement_table_frame,
    plot=plot_agreement_table,
    caption="Where the analytic model agrees with the simulation and where it does not.",
)


def delay_vs_period_frame(quick=False, seed: int = 0):
    """Beyond the paper: delay vs announcement period for distributed, central, oracle."""
    periods = [0.01, 0.1, 1.0] if quick else [0.005, 0.02, 0.05, 0.1, 0.3, 1.0, 3.0]
    n, reps = (6_000, 3) if quick else (40_000, 8)
    rows = []
    for k, mode in enumerate(["distributed", "central", "oracle"]):
        for i, period in enumerate(periods):
            sim = simulated_point(
                theta=0.04,
                e_max=2,
                mode=mode,
                announce_period=period,
                requests=n,
                replications=reps,
                seed=figure_seed(7 + 100 * k + i, seed),
            )
            rows.append(point_row(sim, x=period, mode=mode))
    return pd.DataFrame(rows)


def plot_delay_vs_period(frame):
    fig, ax = figure(width=6.4, height=4.0)
    for k, (mode, grp) in enumerate(frame.groupby("mode", sort=False)):
        ci_errorbar(
            ax,
            grp["x"],
            grp["delay"],
            grp["ci_low"],
            grp["ci_high"],
            color=PALETTE[k],
            label=mode,
            fmt="o-",
            stationary=grp["stationary"].to_numpy(bool),
        )
    mark_unstable(ax, frame)
    ax.set_xscale("log")
    ax.set_xlabel(PARAMS["announce_period"].axis_label)
    ax.set_ylabel("mean service delay [ms]")
    ax.set_title("Stale tables: announcement period and mode (θ = 40 ms, e_M = 2)", fontsize=10)
    ax.legend(
        fontsize=8,
        title="tables fed by",
        title_fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
    )
    return fig


FIGURES["delay_vs_period"] = FigureSpec(
    frame=delay_vs_period_frame,
    plot=plot_delay_vs_period,
    caption="Beyond the paper: how stale Reachability tables cost delay, per announcement mode.",
)


# ------------------------------------------------------------ beyond: θ tuned to the load


def best_theta_vs_load_frame(quick=False, seed: int = 0):
    """Beyond the paper: the best θ at each load, by the model and by simulation.

    Rows per load and source ("model (eq. 6)", "model (+1/μ)", "simulation"): ``theta``,
    ``delay`` [ms] on a θ grid, and ``ci_low``/``ci_high`` for the simulation.
    """
    loads = [0.6, 1.0, 1.4] if quick else [0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6]
    thetas = [0.0, 0.005, 0.01, 0.02, 0.04, 0.1] if quick else list(THETA_GRID)
    n, reps = (6_000, 3) if quick else (40_000, 8)
    rows = []
    for load in loads:
        g = study_scenario(0, load, 0.75, 0.1)
        for theta in thetas:
            first = analyze(g, theta=theta, e_max=1)
            acc = first.fog["accept_light"].to_numpy()
            corrected = analyze(g, theta=theta, e_max=1, own_processing=True, acceptance=acc)
            for label, res in (("model (eq. 6)", first), ("model (+1/μ)", corrected)):
                model = model_point(res.mean_delay)
                rows.append(point_row(model, load=load, theta=theta, source=label))
    for i, load in enumerate(loads):
        for theta in thetas:
            # the same seed at every θ of a load: common random numbers for the argmin
            sim = simulated_point(
                load=load,
                theta=theta,
                e_max=1,
                requests=n,
                replications=reps,
                seed=figure_seed(17 + 100 * i, seed),
            )
            rows.append(point_row(sim, load=load, theta=theta, source="simulation"))
    return pd.DataFrame(rows).drop(columns="note")


def best_theta_summary(frame):
    """Per load and source: the best θ on the grid, its delay, and the delay at θ = 20 ms."""
    out = []
    for (load, source), grp in frame.groupby(["load", "source"], sort=False):
        k = grp["delay"].idxmin()
        at_default = grp.loc[(grp["theta"] - 0.02).abs().idxmin(), "delay"]
        out.append(
            dict(
                load=load,
                source=source,
                best_theta=grp.loc[k, "theta"],
                best_delay=grp.loc[k, "delay"],
                delay_at_20ms=at_default,
            )
        )
    return pd.DataFrame(out)


def plot_best_theta_vs_load(frame):
    """Left: the best θ against the load; right: what tuning θ to the load saves."""
    summary = best_theta_summary(frame)
    fig, (ax0, ax1) = figure(ncols=2, width=4.8, height=3.8)
    styles = {
        "model (eq. 6)": ("--", PALETTE[0]),
        "model (+1/μ)": ("-", PALETTE[0]),
        "simulation": ("o-", PALETTE[3]),
    }
    for source, grp in summary.groupby("source", sort=False):
        ls, color = styles[source]
        ax0.plot(grp["load"], 1e3 * grp["best_theta"], ls, color=color, label=source)
        ax1.plot(
            grp["load"], grp["delay_at_20ms"] - grp["best_delay"], ls, color=color, label=source
        )
    ax0.set_xlabel(PARAMS["load"].axis_label)
    ax0.set_ylabel("best θ on the grid [ms]")
    ax0.set_title("θ that minimises the mean delay", fontsize=10)
    ax0.legend(fontsize=7)
    ax1.set_xlabel(PARAMS["load"].axis_label)
    ax1.set_ylabel("delay at θ = 20 ms − at best θ [ms]")
    ax1.set_title("What tuning θ to the load saves", fontsize=10)
    ax1.set_ylim(bottom=0)
    footnote(fig, "default scenario seed 0, e_M = 1; simulation: means over replications")
    return fig


FIGURES["best_theta_vs_load"] = FigureSpec(
    frame=best_theta_vs_load_frame,
    plot=plot_best_theta_vs_load,
    caption="Beyond the paper: the best θ moves with the load; the model's best θ against "
    "the simulated one.",
)


# ------------------------------------------------------- beyond: θ tuned to each fog node

MODEL_SOURCES = {  # label, marker, colour of each analytic model of the per-node figure
    "chain": (MODEL_LABELS["chain"], "x", PALETTE[0]),
    "threshold": (MODEL_LABELS["threshold"], "+", PALETTE[2]),
}
PER_NODE_LOAD = 1.2  # a heavy load: the fog nodes are offered 11.5 to 52 Light requests/s


def best_theta_per_node_frame(quick=False, seed: int = 0):
    """Beyond the paper: the best θ of every fog node, tuned by simulation, checked afresh.

    Tuning (:func:`workbench.fog.tuning.tune_theta_per_node`): coordinate descent on one
    long run with common random numbers (seed 0), from the best uniform θ; the analytic
    model's choices beside it (the chain with +1/μ; the full frame also the threshold
    model). Verification (:func:`workbench.fog.tuning.compare_thetas`): θ = 20 ms, the best
    uniform θ, the simulation-tuned and the model-tuned vectors on fresh replications
    (seed 1), paired, with Student-t intervals.

    Rows with ``part == "node"``: one per fog node (``name``, ``offered_load``, ``inflow_light``,
    ``inflow_heavy``, ``theta_uniform``, ``theta_tuned``, ``theta_<model>_model``,
    ``theta_<model>_model_uniform`` [s]). Rows with ``part == "policy"``: one per verified
    policy (``policy``, ``theta`` [ms, text], ``delay``, ``ci_low``, ``ci_high``,
    ``difference``, ``difference_low``, ``difference_high`` [ms]: paired, policy − best
    uniform θ; ``tuning_run_delay`` [ms]: the same policy on the tuning run itself).
    """
    # quick: a coarser grid, the chain model only (the threshold model is the slower one)
    quick_grid = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.1)
    grid, models = (quick_grid, ("chain",)) if quick else (THETA_GRID, ("chain", "threshold"))
    n_tune, n_check, reps = (40_000, 30_000, 5) if quick else (200_000, 200_000, 10)
    g = compile_scenario(study_scenario(0, PER_NODE_LOAD, 0.75, 0.1))
    nodes = tune_theta_per_node(
        g, grid=grid, e_max=1, requests=n_tune, seed=figure_seed(0, seed), models=models
    )
    uniform = float(nodes["theta_uniform"].iloc[0])
    policies = {
        "θ = 20 ms (paper)": 0.02,
        f"best uniform θ = {1e3 * uniform:g} ms": uniform,
        "per node, simulation-tuned": nodes["theta_tuned"].to_numpy(),
    }
    for model in models:
        policies[f"per node, {MODEL_SOURCES[model][0]}-tuned"] = nodes[f"theta_{model}_model"]
    reference = list(policies)[1]
    checked = compare_thetas(
        g,
        {k: np.asarray(v, dtype=float) for k, v in policies.items()},
        reference=reference,
        e_max=1,
        requests=n_check,
        replications=reps,
        seed=figure_seed(1, seed),
    )
    for col in ("delay", "ci_low", "ci_high", "difference", "difference_low", "difference_high"):
        checked[col] = 1e3 * checked[col]
    in_sample = {
        reference: nodes.attrs["delay_uniform"],
        list(policies)[2]: nodes.attrs["delay_tuned"],
    }
    checked["tuning_run_delay"] = [1e3 * in_sample.get(p, math.nan) for p in checked["policy"]]
    return pd.concat(
        [
            nodes.assign(part="node", load=PER_NODE_LOAD),
            checked.assign(part="policy", load=PER_NODE_LOAD),
        ],
        ignore_index=True,
    ).assign(tune_seed=figure_seed(0, seed), check_seed=figure_seed(1, seed))


def plot_best_theta_per_node(frame):
    """Left: θ chosen per fog node (ordered by offered load); right: the policies re-measured."""
    nodes = frame[frame["part"] == "node"].sort_values(["offered_load", "fog"])
    pol = frame[frame["part"] == "policy"].reset_index(drop=True)
    fig, (ax0, ax1) = figure(ncols=2, width=5.2, height=4.2)
    sources = [("simulation", "theta_tuned", "theta_uniform", "o", PALETTE[3])]
    for m, (label, marker, color) in MODEL_SOURCES.items():
        col = f"theta_{m}_model"
        if col in nodes and nodes[col].notna().all():
            sources.append((label, col, f"{col}_uniform", marker, color))
    x = np.arange(len(nodes))
    for k, (label, col, uniform_col, marker, color) in enumerate(sources):
        dx = 0.18 * (k - (len(sources) - 1) / 2)
        ax0.scatter(
            x + dx,
            1e3 * nodes[col],
            marker=marker,
            s=55,
            color=color,
            label=f"{label}: per node",
            zorder=3,
        )
        ax0.axhline(
            1e3 * nodes[uniform_col].iloc[0],
            color=color,
            ls=":",
            lw=1.2,
            label=f"{label}: best uniform θ",
        )
    chosen = sorted(set(1e3 * nodes.filter(like="theta_").stack().astype(float)))
    ax0.set_yscale("symlog", linthresh=2.0, linscale=0.5)
    ax0.set_yticks(chosen, [f"{t:g}" for t in chosen])
    ax0.minorticks_off()
    ax0.set_ylim(bottom=0.0 if chosen[0] == 0 else 0.6 * chosen[0])
    ax0.set_xticks(
        x,
        [f"{n}\n{r:.2f}" for n, r in zip(nodes["name"], nodes["offered_load"], strict=True)],
        fontsize=8,
    )
    ax0.set_xlabel("fog node and its offered load ρ_j = I_j/μ + I'_j/μ' (ascending)")
    ax0.set_ylabel("θ_j chosen on the grid [ms]")
    ax0.set_title("Best θ of each fog node", fontsize=10)
    ax0.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncols=2, frameon=False)
    colors = {"θ = 20": PALETTE[7], "best uniform": PALETTE[1], "per node, simulation": PALETTE[3]}
    colors.update({f"per node, {label}": c for label, _, c in MODEL_SOURCES.values()})
    for i, row in pol.iterrows():
        color = next((c for key, c in colors.items() if row["policy"].startswith(key)), "0.3")
        ci_errorbar(
            ax1, [i], [row["delay"]], [row["ci_low"]], [row["ci_high"]], color=color, markersize=7
        )
        if row["policy"] != row["reference"]:
            label_point(
                ax1,
                f"Δ = {row['difference']:+.3f} ms\n[{row['difference_low']:+.3f}, "
                f"{row['difference_high']:+.3f}]",
                (i, row["ci_high"]),
                offset=(0, 6),
            )
    ax1.set_xticks(range(len(pol)), [textwrap.fill(p, 14) for p in pol["policy"]], fontsize=8)
    ax1.set_xlim(-0.6, len(pol) - 0.4)
    ax1.set_ylabel("mean service delay [ms] (95% CI)")
    ax1.set_title("Re-measured on fresh seeds (Δ: paired, − best uniform)", fontsize=10)
    ax1.margins(y=0.25)
    reps, n = int(pol["replications"].iloc[0]), int(pol["n_requests"].iloc[0])
    footnote(
        fig,
        f"default scenario seed 0 at load {frame['load'].iloc[0]:g}, e_M = 1; tuned on one run "
        f"(seed {int(frame['tune_seed'].iloc[0])}, common random numbers), verified on {reps} × "
        f"{n:,} requests (seed {int(frame['check_seed'].iloc[0])})",
        fontsize=8,
        x=0.5,
        ha="center",
    )
    return fig


FIGURES["best_theta_per_node"] = FigureSpec(
    frame=best_theta_per_node_frame,
    plot=plot_best_theta_per_node,
    caption="Beyond the paper: one θ per fog node, tuned by simulation (common random numbers) "
    "and by the model, re-measured on fresh seeds against θ = 20 ms and the best uniform θ.",
)


# ---------------------------------------------------------- load variance (Sec. III-B)


def load_variance_frame(quick=False, seed: int = 0):
    """Offloading's gain with the same total load spread evenly and unevenly (see claims).

    One row per spread: delays [ms] without (e_M = 0) and with (e_M = 1) fog-to-fog
    offloading at θ = 20 ms, the relative ``gain``, the fog shares and ``stationary``.
    """
    frame = load_variance_gains(quick, seed).copy()
    frame["delay_no_forward"] *= 1e3
    frame["delay_forward"] *= 1e3
    return frame


def plot_load_variance(frame):
    fig, ax = figure(width=8.0, height=3.8)
    x = np.arange(len(frame))
    for shift, col, label, color in (
        (-0.2, "delay_no_forward", "e_M = 0 (busy node → cloud)", PALETTE[7]),
        (0.2, "delay_forward", "e_M = 1 (offload to a neighbour)", PALETTE[0]),
    ):
        fill = [color if s else "none" for s in frame["stationary"]]
        ax.bar(x + shift, frame[col], width=0.38, color=fill, edgecolor=color, label=label)
    for i, row in frame.reset_index(drop=True).iterrows():
        top = max(row["delay_no_forward"], row["delay_forward"])
        label_point(ax, f"gain {row['gain']:+.1%}", (i, top))
    ax.set_xticks(
        x,
        [
            "every node\nρ = 0.94" if s == "even" else "ρ = 0.29 / 1.58\nalternately"
            for s in frame["spread"]
        ],
    )
    ax.set_ylabel("mean service delay [ms]")
    ax.set_ylim(bottom=0)
    ax.set_title(
        "Same total load, spread evenly or not\n(ring of 10 fog nodes, θ = 20 ms)", fontsize=9
    )
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


FIGURES["load_variance"] = FigureSpec(
    frame=load_variance_frame,
    plot=plot_load_variance,
    caption="Offloading helps when the load varies across fog nodes, not when all are busy "
    "(Sec. III-B): the same total load spread evenly or unevenly.",
)
