"""The paper's claims, measured (ids as in data/claims/p5.csv).

"Overall" comparisons follow the paper's Fig. 7: at each (λ, μ) point a model's mean time is
divided by the advanced model's, and the ratios are averaged over the grid (9 × 9 points;
3 × 3 when quick). Every model at a grid point runs on the same draws, so models that route
alike tie exactly. Each measure takes ``seed`` (the notebook's ``SEED``, 0: the published
numbers; the spread over seeds is in the CSV's notes) and the model's keyword arguments
(``decision_time=...``). Every grid measure uses
only the points where every model compared is stationary: near capacity a finite run's mean
grows with its length, and those few points would dominate an average of ratios.

The claim atlas (:data:`ATLAS`, :func:`atlas_point`) measures the ``source=paper`` claims
the same way across the plausible space the parameter table declares
(``workbench.atlas.atlas("p5")``).
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

from workbench.claims import AtlasSpec, Measurement, load_claims
from workbench.hierarchy.calibration import r_squared
from workbench.hierarchy.figures import (
    beyond_down_offload_frame,
    fig10_11_topologies_frame,
    fig13_red_thresholds_frame,
    grid_study,
    study,
)
from workbench.hierarchy.model import P5Params, eq12_queue_estimate, size_moments
from workbench.hierarchy.params import PAPER_MODELS, PARAMS
from workbench.hierarchy.simulation import run_models
from workbench.hierarchy.topology import symmetric_tree
from workbench.memo import cached_call
from workbench.sweep import point_seed

__all__ = ["CLAIMS", "ATLAS", "atlas_point", "readings_table", "TIE"]

# Each yes/no threshold is read from the claim's own row of data/claims/p5.csv (its
# ``quantity`` text states it), so the claims and the atlas share one number:
_THRESHOLD_TEXT = {
    # "best" admits a tie: within 1 % of the best other model (the paper's normalised bars
    # cannot separate closer values, and models that route alike tie exactly)
    "advanced_best_everywhere": (r"within (\d+(?:\.\d+)?) %", 0.01),
    "red_gain_over_20pct": (r"more than (\d+(?:\.\d+)?) %", 0.01),
    "skew_changes_below_10pct": (r"less than (\d+(?:\.\d+)?) %", 0.01),
    "ba_changes_below_10pct": (r"less than (\d+(?:\.\d+)?) %", 0.01),
    "fig6_advanced_more_at_middle": (r"at least (\d+(?:\.\d+)?) percentage point", 0.01),
}


@functools.cache
def threshold(claim_id: str) -> float:
    """The number a yes/no claim compares with, as its row of data/claims/p5.csv states it."""
    pattern, scale = _THRESHOLD_TEXT[claim_id]
    text = load_claims("p5").set_index("id").loc[claim_id, "quantity"]
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"p5.csv, {claim_id}: no threshold matching {pattern!r} in {text!r}")
    return float(found.group(1)) * scale


TIE = threshold("advanced_best_everywhere")


# ---------------------------------------------------------------- the measures, once
# Each takes the stationary points' numbers (a (λ, μ) × model table of mean times, ...) and
# returns the claim's quantity; CLAIMS builds the tables from the figures' studies, the atlas
# from its own runs, and both call these.


def best_share(times: pd.DataFrame) -> float:
    """Share of points where the advanced model is within ``TIE`` of the best other model."""
    others = times[[m for m in times.columns if m != "advanced"]].min(axis=1)
    return float((times["advanced"] <= (1.0 + TIE) * others).mean())


def red_gain_of(times: pd.DataFrame) -> float:
    """Grid-averaged (time without enhancement 2) / (advanced time) − 1."""
    return float((times["without_enhancement_2"] / times["advanced"]).mean() - 1.0)


def worst_model(times: pd.DataFrame) -> str:
    """The model with the largest grid-averaged time relative to the advanced model."""
    return str(times.div(times["advanced"], axis=0).mean().idxmax())


def middle_gain_of(middle: pd.DataFrame) -> float:
    """Grid-averaged middle-tier share, advanced minus without enhancement 2 (Fig. 6)."""
    return float((middle["advanced"] - middle["without_enhancement_2"]).mean())


def largest_change(relative_means) -> float:
    """Largest |grid-averaged time per work relative to the tree − 1| over topologies."""
    return float(max(abs(r - 1.0) for r in relative_means))


def threshold_difference(time_5_20: pd.Series, time_5_40: pd.Series) -> float:
    """|grid mean time with (5, 40) ÷ grid mean time with (5, 20) − 1| (Fig. 13's title)."""
    return float(abs(time_5_40.mean() / time_5_20.mean() - 1.0))


def light_narrow_heavy_wide(by_lam: pd.DataFrame) -> float:
    """1 when (5, 20) is faster at the lightest λ and (5, 40) at the heaviest (``by_lam``:
    columns time_5_20, time_5_40, one row per λ, means over μ)."""
    light, heavy = by_lam.iloc[0], by_lam.iloc[-1]
    holds = light["time_5_20"] < light["time_5_40"] and heavy["time_5_40"] < heavy["time_5_20"]
    return float(holds)


def _pivot(quick, seed, value="mean_time", **fixed):
    """(λ, μ) × model table of ``value`` over the points where EVERY model is stationary,
    and the number of points dropped."""
    grid = grid_study(quick=quick, seed=seed, **fixed)
    pivot = grid.pivot_table(index=["lam", "mu"], columns="model", values=value)
    ok = grid.groupby(["lam", "mu"])["stationary"].all()
    dropped = int((~ok).sum())
    return pivot[ok.loc[pivot.index].to_numpy()], dropped, len(ok)


def _m(value, dropped, total, extra=""):
    note = f"{total - dropped} of {total} grid points stationary for every model"
    if extra:
        note += f"; {extra}"
    return Measurement(float(value), stationary=total > dropped, note=note)


def advanced_best_share(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """Share of stationary grid points where the advanced model is within ``TIE`` of the best."""
    pivot, dropped, total = _pivot(quick, seed, **fixed)
    return _m(best_share(pivot), dropped, total)


def red_gain(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """Grid-averaged (time without enhancement 2) / (advanced time) − 1, stationary points;
    the note gives the mechanism: RED's forward rate and the middle tier's share."""
    pivot, dropped, total = _pivot(quick, seed, **fixed)
    gain = red_gain_of(pivot)
    red, _, _ = _pivot(quick, seed, "red_forward_rate", **fixed)
    return _m(gain, dropped, total, f"RED forwards {red['advanced'].mean():.2%} of tasks")


def without_1_over_cloud(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """Grid-averaged normalised time without enhancement 1 ÷ pure cloud's (stationary points)."""
    pivot, dropped, total = _pivot(quick, seed, **fixed)
    ratio = float((pivot["without_enhancement_1"] / pivot["pure_cloud"]).mean())
    return _m(ratio, dropped, total)


def pure_local_worst(quick: bool, seed: int = 0, **fixed) -> Measurement:
    pivot, dropped, total = _pivot(quick, seed, **fixed)
    worst = worst_model(pivot)
    return _m(float(worst == "pure_local"), dropped, total, f"worst: {worst}")


def _stationary_frame(frame, quick, seed, **fixed):
    """The stationary rows of a figure's frame (Figs. 10-11, 13) at grid points where the
    advanced model's own run is stationary too; the number of rows dropped and the total."""
    grid = grid_study(quick=quick, models=("advanced",), seed=seed, **fixed)
    ok = grid.set_index(["lam", "mu"])["stationary"]
    points = list(zip(frame["lam"], frame["mu"], strict=True))
    keep = ok.loc[points].to_numpy(bool) & frame["stationary"].to_numpy(bool)
    return frame[keep], int((~keep).sum()), len(frame)


def topology_change(quick: bool, names, seed: int = 0, **fixed) -> Measurement:
    frame = fig10_11_topologies_frame(quick=quick, seed=seed, **fixed)
    frame = frame[frame["topology"].isin(names)]
    kept, dropped, total = _stationary_frame(frame, quick, seed, **fixed)
    value = largest_change(kept.groupby("topology")["relative"].mean())
    return Measurement(value, total > dropped, f"{total - dropped} of {total} points stationary")


def skew_change(quick: bool, seed: int = 0, **fixed) -> Measurement:
    return topology_change(quick, ["skewed"], seed, **fixed)


def ba_change(quick: bool, seed: int = 0, **fixed) -> Measurement:
    return topology_change(quick, [f"ba-{i}" for i in range(1, 6)], seed, **fixed)


def red_threshold_difference(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """|mean time with (5, 40) ÷ mean time with (5, 20) − 1|: the ratio of the grid means,
    the statistic Fig. 13's title shows, over the stationary points."""
    frame = fig13_red_thresholds_frame(quick=quick, seed=seed, **fixed)
    frame, dropped, total = _stationary_frame(frame, quick, seed, **fixed)
    value = threshold_difference(frame["time_5_20"], frame["time_5_40"])
    return Measurement(value, total > dropped, f"{total - dropped} of {total} stationary")


def red_thresholds_light_heavy(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """1 when (5, 20) is better at the lightest stationary λ and (5, 40) at the heaviest
    (Fig. 13's text), each averaged over μ."""
    frame = fig13_red_thresholds_frame(quick=quick, seed=seed, **fixed)
    frame, dropped, total = _stationary_frame(frame, quick, seed, **fixed)
    by_lam = frame.groupby("lam")[["time_5_20", "time_5_40"]].mean()
    return Measurement(light_narrow_heavy_wide(by_lam), total > dropped, _ratio_by_lam(by_lam))


def _ratio_by_lam(by_lam: pd.DataFrame) -> str:
    """The note of Fig. 13's light/heavy claim: (5, 40) ÷ (5, 20) at each λ."""
    ratio = by_lam["time_5_40"] / by_lam["time_5_20"]
    return "(5,40)/(5,20) by λ: " + ", ".join(f"{lam:g}: {r:.4f}" for lam, r in ratio.items())


def middle_share_gain(quick: bool, seed: int = 0, **fixed) -> Measurement:
    """Fig. 6: share of tasks run at the middle servers 1, 2, advanced minus without enh. 2
    (the yes/no claim asks for at least one percentage point more)."""
    s1, dropped, total = _pivot(quick, seed, "share_s1", **fixed)
    s2, _, _ = _pivot(quick, seed, "share_s2", **fixed)
    mid = s1 + s2
    diff = middle_gain_of(mid)
    extra = (
        f"middle share advanced {mid['advanced'].mean():.3f}, without enh. 2 "
        f"{mid['without_enhancement_2'].mean():.3f}"
    )
    return _m(diff, dropped, total, extra)


def _verdict(measure, holds):
    """A yes/no claim: 1.0 when ``holds`` is true of the quantity ``measure`` returns (the
    same note and stationarity)."""

    def claim(quick: bool, seed: int = 0, **fixed) -> Measurement:
        m = measure(quick, seed, **fixed)
        return m._replace(value=float(holds(m.value)))

    return claim


def _curve_over_mu(quick, seed):
    """The advanced model over μ = 1..9 (every other one when quick) at λ = 8."""
    mus = (1, 3, 5, 7, 9) if quick else tuple(range(1, 10))
    return study(models=("advanced",), lams=(8,), task_sizes=mus, quick=quick, seed=seed)


def linear_in_mu(quick: bool, seed: int = 0) -> Measurement:
    """R² of a straight line through the advanced model's mean time over μ = 1..9 at λ = 8."""
    run = _curve_over_mu(quick, seed)
    return Measurement(r_squared(run["mu"], run["mean_time"]), bool(run["stationary"].all()))


def queue_flat_in_mu(quick: bool, seed: int = 0) -> Measurement:
    """Fig. 8: largest |n̄(μ)/mean − 1| of eq. 12's estimate over μ at λ = 8."""
    run = _curve_over_mu(quick, seed)
    compute = symmetric_tree().compute
    n = np.array(
        [
            eq12_queue_estimate(t, size_moments(mu, 1.0)[0], compute)
            for t, mu in zip(run["mean_time"], run["mu"], strict=True)
        ]
    )
    return Measurement(float(np.max(np.abs(n / n.mean() - 1.0))), bool(run["stationary"].all()))


def down_offload_gain(quick: bool, seed: int = 0) -> Measurement:
    """1 − (mean time with down offloading) ÷ (without), averaged over λ at μ = 7."""
    frame = beyond_down_offload_frame(quick=quick, seed=seed)
    up = frame[frame["direction"] == "up only"].set_index("lam")
    both = frame[frame["direction"] == "up and down"].set_index("lam")
    ok = up["stationary"] & both["stationary"]
    value = float(np.mean(1.0 - both["mean_time"][ok] / up["mean_time"][ok]))
    return Measurement(value, bool(ok.any()), f"{int(ok.sum())} of {len(ok)} λ stationary")


# a yes/no claim is a verdict on its continuous quantity, with the claim's own threshold
CLAIMS = {
    "advanced_best_everywhere": advanced_best_share,
    "red_gain_over_20pct": _verdict(red_gain, lambda v: v > threshold("red_gain_over_20pct")),
    "without_enh1_worse_than_pure_cloud": _verdict(without_1_over_cloud, lambda v: v > 1 + 1e-9),
    "pure_local_worst": pure_local_worst,
    "skew_changes_below_10pct": _verdict(
        skew_change, lambda v: v < threshold("skew_changes_below_10pct")
    ),
    "ba_changes_below_10pct": _verdict(
        ba_change, lambda v: v < threshold("ba_changes_below_10pct")
    ),
    "red_thresholds_differ_0_2pct": red_threshold_difference,
    "red_thresholds_light_narrow_heavy_wide": red_thresholds_light_heavy,
    "fig6_advanced_more_at_middle": _verdict(
        middle_share_gain, lambda v: v >= threshold("fig6_advanced_more_at_middle")
    ),
    "linear_growth_in_mu": linear_in_mu,
    "fig8_mu_little_effect_on_queue": queue_flat_in_mu,
    "beyond_down_offload_gain": down_offload_gain,
}

# the readings and RED values tried one at a time in readings_table: the table's plausible
# rows, at the other readings (discrete) or at both ends of the range (continuous)
_READING_ROWS = (
    "decision_time",
    "in_decision",
    "offload_busy",
    "arrivals",
    "eq11_unit",
    "w_q",
    "max_p",
)
READING_ALTERNATIVES = {
    name: tuple(
        v
        for v in PARAMS[name].plausible
        if not (v == PARAMS[name].default and type(v) is type(PARAMS[name].default))
    )
    for name in _READING_ROWS
}


def readings_table(quick: bool = True, seed: int = 0):
    """The grid claims under each alternative reading, one change from the defaults at a time.

    Kept by :mod:`workbench.memo` between runs of the same code (JupyterLab and Voila after
    the notebook's first run).

    Parameters
    ----------
    quick : bool
        The quick grid and run length.
    seed : int
        The notebook's ``SEED`` (0: the published numbers).

    Returns
    -------
    pandas.DataFrame
        Columns reading, value, the number of points stationary for every model, then each
        claim's underlying quantity (stationary points only): the advanced model's best
        share, RED's gain and forward rate, without enh. 1 ÷ pure cloud, whether pure local
        is worst, the middle-share gain (Fig. 6), the skew and largest BA changes, the
        (5, 40) vs (5, 20) difference and whether the narrow pair wins at light load and the
        wide one at heavy.
    """
    return cached_call(_readings_rows, quick, seed)


def _readings_rows(quick: bool, seed: int) -> pd.DataFrame:
    rows = []
    settings = [("defaults", "")] + [
        (name, v) for name, values in READING_ALTERNATIVES.items() for v in values
    ]
    for name, v in settings:
        fixed = {} if name == "defaults" else {name: v}
        pivot, dropped, total = _pivot(quick, seed, **fixed)
        gain = red_gain(quick, seed, **fixed)
        rows.append(
            {
                "reading": name,
                "value": v,
                "stationary points": f"{total - dropped}/{total}",
                "advanced best share": advanced_best_share(quick, seed, **fixed).value,
                "RED gain": gain.value,
                "RED forwards": gain.note.split("RED forwards ")[-1],
                "without enh. 1 ÷ pure cloud": without_1_over_cloud(quick, seed, **fixed).value,
                "pure local worst": bool(pure_local_worst(quick, seed, **fixed).value),
                "middle share gain": middle_share_gain(quick, seed, **fixed).value,
                "skew change": skew_change(quick, seed, **fixed).value,
                "largest BA change": ba_change(quick, seed, **fixed).value,
                "(5, 40) vs (5, 20)": red_threshold_difference(quick, seed, **fixed).value,
                "light narrow, heavy wide": bool(
                    red_thresholds_light_heavy(quick, seed, **fixed).value
                ),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- the claim atlas

# the atlas's own small grid (quick): the lightest and heaviest λ of the quick grid, at a
# small and a large μ, one replication of 300 periods.
# Full: the claims' quick grid and run length (3 × 3 points, 300 periods × 3 replications).
ATLAS_QUICK_GRID = ((4, 3), (4, 9), (10, 3), (10, 9))
ATLAS_FULL_GRID = tuple((lam, mu) for lam in (4, 7, 10) for mu in (3, 6, 9))
ATLAS_PERIODS = 300
# the claims the atlas covers: the rows of data/claims/p5.csv with source = paper
ATLAS_CLAIMS = (
    "advanced_best_everywhere",
    "red_gain_over_20pct",
    "pure_local_worst",
    "skew_changes_below_10pct",
    "ba_changes_below_10pct",
    "red_thresholds_differ_0_2pct",
    "red_thresholds_light_narrow_heavy_wide",
    "fig6_advanced_more_at_middle",
)
_BA = tuple(f"ba-{i}" for i in range(1, 6))


def _atlas_runs(quick: bool, seed: int, p) -> pd.DataFrame:
    """One row per (λ, μ, replication): the five models' mean times and middle shares on the
    tree, the advanced model's mean time with (5, 40), its time per work on the skewed tree
    and on each BA tree, and whether each run was stationary. Every run at one (λ, μ,
    replication) uses the same draws (common random numbers)."""
    grid, reps = (ATLAS_QUICK_GRID, 1) if quick else (ATLAS_FULL_GRID, 3)
    p = p.with_("atlas_point", periods=ATLAS_PERIODS, overload="transient")
    wide_p = p.with_("atlas_point", max_th=40.0)
    topologies = {name: p.with_("atlas_point", topology=name) for name in ("skewed", *_BA)}
    rows = []
    for lam, mu in grid:
        for r in range(reps):
            run_seed = point_seed({"lam": lam, "mu": mu}, r, seed)  # the studies' seeds
            common = dict(lam=lam, task_size=mu, seed=run_seed)
            five = run_models(p, models=PAPER_MODELS, **common)
            row = {"lam": lam, "mu": mu}
            ok = [
                five[f"{m}/stationary"] == 1.0 and five[f"{m}/rho_bound"] < 1.0
                for m in PAPER_MODELS
            ]
            for m in PAPER_MODELS:
                row[m] = five[f"{m}/mean_time"]
                row[f"{m}/middle"] = five[f"{m}/share_s1"] + five[f"{m}/share_s2"]
            row["red_forwards"] = five["advanced/red_forward_rate"]
            row["tree_per_work"] = five["advanced/time_per_work"]
            row["all_ok"] = all(ok)
            advanced_ok = ok[0]
            wide = run_models(wide_p, models=("advanced",), **common)
            row["time_5_40"] = wide["advanced/mean_time"]
            row["wide_ok"] = advanced_ok and wide["advanced/stationary"] == 1.0
            for name, other_p in topologies.items():
                other = run_models(other_p, models=("advanced",), **common)
                row[f"{name}/per_work"] = other["advanced/time_per_work"]
                row[f"{name}/ok"] = advanced_ok and other["advanced/stationary"] == 1.0
            rows.append(row)
    # the replications of one point: means of the numbers, "all" of the stationarity flags
    # (by name: a flag from a comparison of numpy floats is a numpy bool, not a bool)
    how = {k: "all" if k.endswith("ok") else "mean" for k in rows[0] if k not in ("lam", "mu")}
    runs = pd.DataFrame(rows).groupby(["lam", "mu"]).agg(how)
    for name in ("skewed", *_BA):  # a ratio of replication means, as Figs. 10-11 take it
        runs[f"{name}/rel"] = runs[f"{name}/per_work"] / runs["tree_per_work"]
    return runs


def _share(mask) -> str:
    return f"{int(mask.sum())} of {len(mask)} atlas grid points stationary"


def atlas_point(*, quick: bool, seed: int, **params) -> dict:
    """Every atlas claim's measured value at one point of the plausible space.

    Each value is the quantity ``CLAIMS[id]`` measures, computed the same way (ratios over
    the grid points where every model compared is stationary), on the atlas's own grid.

    Parameters
    ----------
    quick : bool
        λ ∈ {4, 10} × μ ∈ {3, 9}, one replication of 300 periods; else the claims' quick
        3 × 3 grid with 3 replications.
    seed : int
        The runs' seed (the studies' point seeds derive from it).
    **params
        One value for each row of ``PARAMS`` with a plausible range or set (speeds, β, τ_d,
        RED's w_q and max_p, and the readings in_decision, offload_busy, arrivals,
        eq11_unit).

    Returns
    -------
    dict
        Claim id -> :class:`~workbench.claims.Measurement`; a claim whose points are all
        non-stationary is ``Measurement(nan, stationary=False, note=why)``.
    """
    runs = _atlas_runs(quick, seed, P5Params.of("atlas_point", params))
    out = {}
    ok = runs["all_ok"].to_numpy(bool)
    grid = runs[ok]
    if not ok.any():
        why = "no atlas grid point stationary for every model"
        for cid in (
            "advanced_best_everywhere",
            "red_gain_over_20pct",
            "pure_local_worst",
            "fig6_advanced_more_at_middle",
        ):
            out[cid] = Measurement(float("nan"), stationary=False, note=why)
    else:
        note = _share(ok)
        times = grid[list(PAPER_MODELS)]
        middle = grid[[f"{m}/middle" for m in PAPER_MODELS]].rename(
            columns=lambda c: c.split("/")[0]
        )
        gain, mid, worst = red_gain_of(times), middle_gain_of(middle), worst_model(times)
        red = f"RED forwards {grid['red_forwards'].mean():.2%} of tasks; gain {gain:+.2%}"
        above = float(gain > threshold("red_gain_over_20pct"))
        out["advanced_best_everywhere"] = Measurement(best_share(times), True, note)
        out["red_gain_over_20pct"] = Measurement(above, True, f"{note}; {red}")
        out["pure_local_worst"] = Measurement(
            float(worst == "pure_local"), True, f"{note}; worst: {worst}"
        )
        out["fig6_advanced_more_at_middle"] = Measurement(
            float(mid >= threshold("fig6_advanced_more_at_middle")),
            True,
            f"{note}; middle share gain {mid:+.4f}",
        )
    out["skew_changes_below_10pct"] = _topology_measure(
        runs, ("skewed",), "skew_changes_below_10pct"
    )
    out["ba_changes_below_10pct"] = _topology_measure(runs, _BA, "ba_changes_below_10pct")
    out |= _threshold_measures(runs)
    return out


def _topology_measure(runs, names, claim_id) -> Measurement:
    """1 when every topology's grid-averaged time per work is within the claim's threshold
    (10 %) of the tree's."""
    means = []
    for name in names:
        ok = runs[f"{name}/ok"].to_numpy(bool)
        if not ok.any():
            return Measurement(float("nan"), False, f"{name}: no atlas grid point stationary")
        means.append(runs.loc[ok, f"{name}/rel"].mean())
    largest = largest_change(means)
    below = float(largest < threshold(claim_id))
    return Measurement(below, True, f"largest change {largest:.1%}")


def _threshold_measures(runs) -> dict:
    """Fig. 13's two claims on the stationary points: the (5, 40) vs (5, 20) difference of the
    grid means, and narrow better at the lightest λ, wide at the heaviest (means over μ)."""
    ok = runs["wide_ok"].to_numpy(bool)
    if not ok.any():
        why = "no atlas grid point stationary with both threshold pairs"
        nan = Measurement(float("nan"), stationary=False, note=why)
        return {"red_thresholds_differ_0_2pct": nan, "red_thresholds_light_narrow_heavy_wide": nan}
    part = runs[ok].rename(columns={"advanced": "time_5_20"})
    diff = threshold_difference(part["time_5_20"], part["time_5_40"])
    by_lam = part.groupby(level="lam")[["time_5_20", "time_5_40"]].mean()
    return {
        "red_thresholds_differ_0_2pct": Measurement(diff, True, _share(ok)),
        "red_thresholds_light_narrow_heavy_wide": Measurement(
            light_narrow_heavy_wide(by_lam), True, _ratio_by_lam(by_lam)
        ),
    }


ATLAS = AtlasSpec(evaluate=atlas_point, claims=ATLAS_CLAIMS)
