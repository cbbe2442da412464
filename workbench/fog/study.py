"""The study machinery of the P1 figures: one axis swept, the model beside the simulation.

:func:`study_frame` evaluates the analytic model (eq. 6 as published, and with the
request's own processing time) and the simulator (:func:`simulated_point`, Student-t
intervals, unstable points kept and drawn hollow) for the paper's policy and its three
baselines along one axis; :func:`plot_study` draws it. The figures of
:mod:`workbench.fog.figures` and the views share the colours and labels defined here.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. V (the comparisons: θ, e_M, mix, p^I; the
figures themselves were not recovered, these are the workbench's).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench.fog.model import P1Params
from workbench.fog.network import analyze
from workbench.fog.params import PARAMS
from workbench.fog.scenario import (
    compile_scenario,
    default_scenario,
    with_fog_delay,
    with_traffic,
)
from workbench.fog.simulation import simulate
from workbench.params import takes
from workbench.plots import PALETTE, UNSTABLE_LABEL, ci_errorbar, figure
from workbench.seeding import figure_seed
from workbench.validation import ParameterError, refusal

__all__ = [
    "POLICY_COLORS",
    "POLICY_LABELS",
    "study_scenario",
    "simulated_point",
    "model_point",
    "point_row",
    "study_frame",
    "plot_study",
    "mark_unstable",
    "footnote",
    "label_point",
]

POLICY_COLORS = {
    "offload": PALETTE[0],
    "no_offload": PALETTE[3],
    "all_cloud": PALETTE[7],
    "light_only": PALETTE[2],
}
POLICY_LABELS = {
    "offload": "offloading (paper's policy)",
    "no_offload": "fog, no offloading (θ = ∞)",
    "all_cloud": "all to cloud",
    "light_only": "fog processes Light only",
}
TRAFFIC = ("load", "light_fraction", "p_iot")
#: the settings a study point reads (the swept axis replaces one)
POINT = ("theta", "e_max", "mode", "announce_period", *TRAFFIC)


@takes(P1Params, "scenario_seed", "load", "light_fraction", "p_iot", "fog_delay", positional=True)
def study_scenario(p, *, scenario_seed=0, fog_delay=None):
    """The default scenario with the study's traffic, and every fog–fog link's delay.

    Parameters
    ----------
    scenario_seed : int
        Seed of :func:`~workbench.fog.default_scenario`.
    load, light_fraction, p_iot
        Passed to :func:`~workbench.fog.with_traffic`.
    fog_delay : float, optional
        The delay of every fog–fog link [s] (:func:`~workbench.fog.with_fog_delay`); None
        keeps the scenario's own draws.

    Returns
    -------
    networkx.Graph
    """
    g = with_traffic(
        default_scenario(scenario_seed), load=p.load, light_fraction=p.light_fraction, p_iot=p.p_iot
    )
    return g if fog_delay is None else with_fog_delay(g, fog_delay)


@takes(
    P1Params,
    "scenario_seed",
    *TRAFFIC,
    "policy",
    "theta",
    "e_max",
    "mode",
    "announce_period",
    "requests",
    "replications",
    "seed",
    "fog_delay",
)
def simulated_point(p, *, scenario_seed=0, fog_delay=None):
    """The simulated mean service delay at one study point, with its interval and verdict.

    Runs :func:`workbench.fog.simulate` with ``overload="transient"``: an unstable point
    (a fog node that keeps every request at ρ ≥ 1, or a run the output analysis finds
    non-stationary) comes back with ``stationary=False`` and is drawn hollow, never dropped.
    The other keywords are :func:`workbench.fog.simulate`'s (each figure chooses its own
    short run).

    Parameters
    ----------
    scenario_seed, fog_delay
        The scenario, as :func:`study_scenario`.

    Returns
    -------
    dict
        ``delay``, ``ci_low``, ``ci_high`` [s], ``share_fog``, ``stationary``, ``note``.
    """
    g = study_scenario(p, scenario_seed=scenario_seed, fog_delay=fog_delay)
    try:
        res = simulate(p.trusted(scenario=compile_scenario(g), overload="transient"))
    except ParameterError as err:  # e.g. a cloud that every fog request would overload
        nan = math.nan
        return dict(
            delay=nan, ci_low=nan, ci_high=nan, share_fog=nan, stationary=False, note=str(err)
        )
    return dict(
        delay=res.estimate,
        ci_low=res.ci_low,
        ci_high=res.ci_high,
        share_fog=float(res["share_fog"]),
        stationary=bool(res.stationary),
        note=res.stationarity.note,
    )


def model_point(delay, stationary=True) -> dict:
    """An analytic point in the shape of :func:`simulated_point`'s (no interval, no note).

    Parameters
    ----------
    delay : float
        The model's mean delay [s] (NaN where the model has no steady state).
    stationary : bool
        Whether the model has a steady state at this point.

    Returns
    -------
    dict
        ``delay``, ``ci_low``, ``ci_high`` (NaN), ``stationary``, ``note`` ("").
    """
    return dict(delay=delay, ci_low=math.nan, ci_high=math.nan, stationary=stationary, note="")


def point_row(point, **keys) -> dict:
    """A frame row: ``keys``, then the point's delay and interval in ms, verdict and note.

    Parameters
    ----------
    point : dict
        :func:`simulated_point`'s or :func:`model_point`'s (delays in seconds).
    **keys
        The row's leading columns (its place on the figure).

    Returns
    -------
    dict
        ``keys``, ``delay``, ``ci_low``, ``ci_high`` [ms], ``stationary``, ``note``.
    """
    ms = {k: 1e3 * point[k] for k in ("delay", "ci_low", "ci_high")}
    return {**keys, **ms, "stationary": point["stationary"], "note": point["note"]}


@takes(
    P1Params,
    "axis",
    "values",
    "quick",
    "policies",
    *POINT,
    "fog_delay",
    "seed",
    positional=True,
)
def study_frame(p, *, axis, values, quick, policies=tuple(POLICY_COLORS), fog_delay=None):
    """Analytic (paper's eq. 6 and corrected) and simulated delay along one axis.

    Parameters
    ----------
    axis : str
        The swept parameter: one of theta, e_max, mode, announce_period, load,
        light_fraction, p_iot, fog_delay.
    values : list
        Its values (each validated where it is used).
    quick : bool
        Short runs (6,000 requests × 3 replications, else 40,000 × 8).
    policies : tuple of str
        The paper's policy and the baselines to show.
    theta, e_max, mode, announce_period, load, light_fraction, p_iot, fog_delay
        The other settings (``fog_delay=None``: the scenario's own link delays).
    seed : int
        The caller's seed (the notebook's ``SEED``): the point of policy k at index i runs
        on ``figure_seed(0, seed) + 1000 k + i``.

    Returns
    -------
    pandas.DataFrame
        Rows ``axis``, ``x``, ``policy``, ``source`` in {"model (eq. 6)", "model (+1/μ)",
        "simulation"}, ``delay``, ``ci_low``, ``ci_high`` (ms), ``stationary`` (the output
        analysis's verdict on the simulated point; model rows: the model has a steady
        state) and ``note``.
    """
    if axis not in (*POINT, "fog_delay"):
        raise refusal("study_frame", "axis", f"one of {(*POINT, 'fog_delay')}", axis)
    seed = figure_seed(0, p.seed)
    settings = {name: getattr(p, name) for name in POINT} | {"fog_delay": fog_delay}
    requests = 6_000 if quick else 40_000
    reps = 3 if quick else 8
    rows = []
    for x in values:
        point = {**settings, axis: x}
        g = study_scenario(
            0, point["load"], point["light_fraction"], point["p_iot"], fog_delay=point["fog_delay"]
        )
        for policy in policies:
            for own, label in ((False, "model (eq. 6)"), (True, "model (+1/μ)")):
                try:
                    d = analyze(
                        g,
                        theta=point["theta"],
                        e_max=point["e_max"],
                        policy=policy,
                        own_processing=own,
                    ).mean_delay
                except ValueError:  # unstable under this policy: no steady state, no line
                    d = math.nan
                model = model_point(d, stationary=bool(math.isfinite(d)))
                rows.append(point_row(model, axis=axis, x=x, policy=policy, source=label))
        for k, policy in enumerate(policies):
            sim = simulated_point(
                policy=policy,
                requests=requests,
                replications=reps,
                seed=seed + 1000 * k + values.index(x),
                **point,
            )
            rows.append(point_row(sim, axis=axis, x=x, policy=policy, source="simulation"))
    return pd.DataFrame(rows)


def _clip_transients(ax, frame):
    """Scale the y axis to the steady-state numbers; name the transient points above it.

    A non-stationary point's delay grows with the run (seconds where the rest are tens of
    ms): it stays on the plot, hollow, but one far above would flatten every curve, so it
    is drawn at the top edge with its value written next to it.
    """
    sim = frame[frame["source"] == "simulation"]
    steady = sim[sim["stationary"].astype(bool)]
    model = frame.loc[frame["source"] != "simulation", "delay"].to_numpy(float)
    values = np.concatenate([steady["ci_high"].to_numpy(float), model])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return
    top = 1.2 * float(values.max())
    ax.set_ylim(0, top)
    far = sim[~sim["stationary"].astype(bool) & (sim["delay"] > top)]
    for _, row in far.iterrows():
        color = POLICY_COLORS.get(row["policy"], "0.3")
        ax.plot([row["x"]], [0.97 * top], marker="^", mfc="none", color=color, ls="")
        xy = (row["x"], 0.97 * top)
        label_point(
            ax, f"{row['delay'] / 1e3:.3g} s", xy, (4, -3), ha="left", fontsize=7, color=color
        )


def footnote(fig, text, **kw):
    """The figure's setting in small grey type under the axes, left-aligned.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    text : str
        What the figure shows (scenario, seeds, intervals).
    **kw
        Text properties that differ from the note's (``fontsize=7``, ``x=0.01``).
    """
    fig.supxlabel(text, **{"x": 0.01, "ha": "left", "fontsize": 7, "color": "0.4", **kw})


def label_point(ax, text, xy, offset=(0, 4), **kw):
    """Write ``text`` next to the data point ``xy``, ``offset`` points away (centred above).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    text : str
        The label.
    xy : (float, float)
        The point, in data coordinates.
    offset : (float, float)
        Where the label sits from the point [points].
    **kw
        Text properties that differ from the label's (``ha="center"``, ``fontsize=8``).
    """
    ax.annotate(
        text, xy, textcoords="offset points", xytext=offset, **{"ha": "center", "fontsize": 8, **kw}
    )


def mark_unstable(ax, frame):
    """A legend entry for hollow markers when some simulated point is not stationary.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes whose legend gets the entry.
    frame : pandas.DataFrame
        Simulated points with a ``stationary`` column.
    """
    if "stationary" in frame and not frame["stationary"].astype(bool).all():
        ax.plot([], [], "o", mfc="none", color="0.3", ls="", label=UNSTABLE_LABEL)


def plot_study(frame, title=""):
    """Delay [ms] against the study's axis: lines = model, markers = simulation ± CI.

    Parameters
    ----------
    frame : pandas.DataFrame
        A study's frame (:func:`study_frame`).
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    axis = frame["axis"].iloc[0]
    fig, ax = figure(width=8.6, height=4.0)
    for policy, grp in frame.groupby("policy", sort=False):
        color = POLICY_COLORS[policy]
        sim = grp[grp["source"] == "simulation"]
        ci_errorbar(
            ax,
            sim["x"],
            sim["delay"],
            sim["ci_low"],
            sim["ci_high"],
            color=color,
            stationary=sim["stationary"].to_numpy(bool),
            label=f"{POLICY_LABELS[policy]}: simulation",
        )
        corr = grp[grp["source"] == "model (+1/μ)"]
        ax.plot(corr["x"], corr["delay"], "-", color=color, lw=1.3)
        if policy == "offload":
            paper = grp[grp["source"] == "model (eq. 6)"]
            ax.plot(
                paper["x"],
                paper["delay"],
                "--",
                color=color,
                lw=1.3,
                label="offloading: model as in eq. 6",
            )
    ax.plot([], [], "-", color="0.3", label="model with own processing (+1/μ)")
    mark_unstable(ax, frame[frame["source"] == "simulation"])
    label = PARAMS[axis].axis_label if axis in PARAMS else axis
    ax.set_xlabel(label)
    ax.set_ylabel("mean service delay [ms]")
    _clip_transients(ax, frame)
    ax.set_title(
        title or f"Service delay vs {PARAMS[axis].symbol if axis in PARAMS else axis}", fontsize=10
    )
    fig.legend(fontsize=7, loc="outside right upper", frameon=False)
    footnote(fig, "default scenario seed 0 (10 fog, 1 cloud); 95% Student-t intervals")
    return fig
