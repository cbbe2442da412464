"""The claim atlas: each claim's verdict across a paper's plausible space and readings.

Which of a paper's conclusions survive every careful reading of it, and which hinge on a
value the paper lost? :func:`atlas` evaluates every claim of ``data/claims/<paper>.csv``
over the plausible space that the paper's parameter table declares (``Param.plausible``,
``Param.why``) and sums up where it holds. A paper takes part by declaring
:class:`workbench.claims.AtlasSpec` as ``ATLAS`` in its ``claims`` module.

:mod:`workbench.claims` (the claims table, light: every paper imports it) sits below this
module, which needs the sweep engine, scikit-learn and matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import qmc
from sklearn.tree import DecisionTreeClassifier

from workbench.claims import (
    AtlasSpec,
    Measurement,
    load_claims,
    measured,
    need_frame,
)
from workbench.digest import source_digest, usable_cache_dir
from workbench.plots import WorkbenchFigure
from workbench.registry import paper as get_paper
from workbench.sweep import point_seed, sweep
from workbench.validation import (
    ParameterError,
    check_bool,
    check_int,
    check_real,
    check_seed,
    check_work,
    describe,
    refusal,
    same_choice,
)

# one list: workbench.claims forwards these names (and the helpers below) here
__all__ = ["atlas", "atlas_summary", "plot_atlas", "VERDICTS", "default_cache_dir"]

VERDICTS = ("reproduced", "refuted", "depends", "undetermined")
REPRODUCED_SHARE = 0.9  # holds at >= 90 % of the determined points
REFUTED_SHARE = 0.1  # holds at <= 10 % of them
TREE_DEPTH = 2


def plausible_space(params) -> tuple[list, dict]:
    """The plausible space a parameter table declares.

    Returns ``(ranges, readings)``: the rows with a plausible *range* (real or int), sampled
    by the design, and the readings: ``"default"`` (every discrete row at its default) and,
    for each choice or bool row with a plausible *set*, one reading per other value
    (``"arrivals=spread"``), one row changed at a time.
    """
    rows = getattr(params, "rows", None)
    if not isinstance(rows, (list, tuple)) or not all(
        hasattr(p, "continuous") and hasattr(p, "plausible") for p in rows
    ):
        what = "a parameter table (workbench.params.Params, with rows)"
        raise refusal("plausible_space", "params", what, params)
    ranges = [p for p in rows if p.continuous]
    readings = {"default": {}}
    for p in params.rows:
        if p.plausible is not None and not p.continuous:
            for v in p.plausible:
                if not same_choice(v, p.default):
                    readings[f"{p.name}={v}"] = {p.name: v}
    return ranges, readings


def design(ranges, n_points: int, seed: int = 0) -> pd.DataFrame:
    """A Latin-hypercube design (``scipy.stats.qmc``, scrambled, ``seed``) of ``n_points``
    over the plausible ranges; log-uniform where a range spans two decades or more, rounded
    for int rows. One column per row, one row per design point."""
    func = "design"
    n_points = check_int(n_points, "n_points", func, 1, 10**7)
    seed = check_seed(seed, func)
    try:
        ranges = list(ranges)
        spans = [tuple(float(v) for v in p.plausible) for p in ranges]
        ok = all(len(s) == 2 and math.isfinite(s[0]) and math.isfinite(s[1]) for s in spans)
        ok = ok and all(
            s[0] <= s[1] and isinstance(p.name, str) for p, s in zip(ranges, spans, strict=True)
        )
    except (TypeError, ValueError, AttributeError):
        ok = False
    if not ok:
        what = "a list of parameter-table rows, each with a plausible range (low, high)"
        raise refusal("design", "ranges", what, ranges)
    if not ranges:
        return pd.DataFrame(index=range(n_points))
    unit = qmc.LatinHypercube(d=len(ranges), seed=np.random.default_rng(seed)).random(n_points)
    cols = {}
    for j, (p, (lo, hi)) in enumerate(zip(ranges, spans, strict=True)):
        u = unit[:, j]
        x = (
            np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo)))
            if lo > 0 and hi / lo >= 100  # two decades or more: log-uniform
            else lo + u * (hi - lo)
        )
        cols[p.name] = np.round(x).astype(int) if p.kind == "int" else x
    return pd.DataFrame(cols)


def _atlas_eval(
    *,
    index: int,
    reading: str,
    evaluate: Callable,
    overrides: dict,
    targets: dict,
    quick: bool,
    base_seed: int,
    seed: int = 0,
    **point,
) -> pd.DataFrame:
    """One design point under one reading: every claim's value and whether it holds.

    The run's seed depends on the design point only (common random numbers across
    readings), not on the sweep's per-point ``seed``."""
    run_seed = point_seed({"index": index}, 0, base_seed)
    values = evaluate(quick=quick, seed=run_seed, **point, **overrides[reading])
    rows = []
    for claim, (target, tolerance) in targets.items():
        m = measured(values[claim]) if claim in values else Measurement(math.nan, False, "")
        determined = m.stationary and math.isfinite(m.value)
        rows.append(
            {
                "claim": claim,
                "measured": m.value,
                "stationary": bool(m.stationary),
                "holds": float(abs(m.value - target) <= tolerance) if determined else math.nan,
                "note": m.note,
            }
        )
    return pd.DataFrame(rows)


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n`` (NaN, NaN for n = 0)."""
    func = "wilson"
    n = check_int(n, "n", func, 0)
    k = check_int(k, "k", func, 0, n)
    confidence = check_real(confidence, "confidence", func, 0.0, 1.0, True, True)
    if n == 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends: no 1e-17 residue
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def verdict(holds_share: float, points: int) -> str:
    """``reproduced`` (holds at ≥ 90 % of the determined points), ``refuted`` (≤ 10 %),
    ``depends`` (in between), ``undetermined`` (no stationary point at all)."""
    points = check_int(points, "points", "verdict", 0)
    if points == 0:
        return "undetermined"
    holds_share = check_real(holds_share, "holds_share", "verdict", 0.0, 1.0)
    if holds_share >= REPRODUCED_SHARE:
        return "reproduced"
    if holds_share <= REFUTED_SHARE:
        return "refuted"
    return "depends"


def _features(points: pd.DataFrame, names: list, with_readings: bool) -> pd.DataFrame:
    x = points[names].astype(float).copy()
    if with_readings:
        for r in sorted(set(points["reading"]) - {"default"}):
            x[f"reading {r}"] = (points["reading"] == r).astype(float)
    return x


def decided_by(points: pd.DataFrame, names: list, with_readings: bool) -> tuple[str, str]:
    """Which parameters decide a claim, and where it flips: a depth-2 decision tree.

    A ``sklearn.tree.DecisionTreeClassifier`` (depth 2, ``random_state=0``) is fitted to
    ``holds`` against the design's parameters (and, over all readings, one indicator per
    reading). Returns ``(parameters, flip)``: the features the tree splits on, by importance,
    and the root split as text (``"decision_time ≤ 0.0031: holds at 2/9; above: 14/15"``).
    """
    x = _features(points, names, with_readings)
    y = points["holds"].to_numpy(dtype=int)
    if x.shape[1] == 0 or len(set(y)) < 2:
        return "", ""
    tree = DecisionTreeClassifier(max_depth=TREE_DEPTH, random_state=0).fit(x.to_numpy(), y)
    order = np.argsort(-tree.feature_importances_, kind="stable")
    used = [x.columns[i] for i in order if tree.feature_importances_[i] > 0]
    root = tree.tree_.feature[0]
    if root < 0:
        return "", ""
    name, thr = x.columns[root], float(tree.tree_.threshold[0])
    below = x.iloc[:, root].to_numpy() <= thr
    left = f"{int(y[below].sum())}/{int(below.sum())}"
    right = f"{int(y[~below].sum())}/{int((~below).sum())}"
    if name.startswith("reading "):
        flip = f"{name}: holds at {right} under it, {left} without it"
    else:
        flip = f"{name} ≤ {thr:.4g}: holds at {left}; above: {right}"
    return ", ".join(used), flip


def summarise_atlas(points: pd.DataFrame, names: list) -> pd.DataFrame:
    """Per (claim, reading) and per claim over all readings: the atlas table."""
    rows = []
    for claim, by_claim in points.groupby("claim", sort=False):
        groups = [(r, g, False) for r, g in by_claim.groupby("reading", sort=False)]
        for reading, group, with_readings in [("all", by_claim, True), *groups]:
            det = group[group["holds"].notna()]
            n, k = len(det), int(det["holds"].sum())
            share = k / n if n else math.nan
            low, high = wilson(k, n)
            v = verdict(share, n)
            used, flip = decided_by(det, names, with_readings) if v == "depends" else ("", "")
            rows.append(
                {
                    "claim": claim,
                    "reading": reading,
                    "points": n,
                    "undetermined": int(len(group) - n),
                    "holds_share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "verdict": v,
                    "decided_by": used,
                    "flip": flip,
                }
            )
    return pd.DataFrame(rows)


IN_PROCESS_SECONDS = 30.0
"""An atlas planned to take less (``AtlasSpec.seconds_per_evaluation`` × evaluations) runs
in the calling process when ``n_workers`` is None; a longer one on worker processes."""


def planned_seconds(spec: AtlasSpec, params, quick: bool, n_points: int | None = None) -> float:
    """Planned seconds on one core of an atlas of ``n_points`` (default: the spec's quick or
    full number) × the readings of ``params``: ``seconds_per_evaluation`` each, a full
    evaluation ten times a quick one."""
    points = n_points or (spec.quick_points if quick else spec.full_points)
    evaluations = points * len(plausible_space(params)[1])
    return evaluations * spec.seconds_per_evaluation * (1 if quick else 10)


def run_atlas(
    spec: AtlasSpec,
    params,
    targets: dict,
    *,
    quick: bool = True,
    n_points: int | None = None,
    client=None,
    seed: int = 0,
    n_workers: int | None = None,
    progress: bool = True,
    cache_dir=None,
    func: str = "run_atlas",
) -> pd.DataFrame:
    """The atlas of any claims: ``targets`` maps a claim id to ``(value, tolerance)``.

    :func:`atlas` calls it with a paper's table; tests call it with synthetic claims.
    ``cache_dir``: keep each evaluation there (the sweep engine's cache, data not code), keyed
    by :func:`source_digest`, so a re-run after any code or claims-table change recomputes.
    """
    if not isinstance(spec, AtlasSpec):
        raise refusal(func, "spec", "a workbench.claims.AtlasSpec", spec)
    targets = _check_targets(targets, func)
    quick = check_bool(quick, "quick", func)
    seed = check_seed(seed, func)
    default_n = spec.quick_points if quick else spec.full_points
    n_points = default_n if n_points is None else check_int(n_points, "n_points", func, 2, 100_000)
    ranges, readings = plausible_space(params)
    evaluations = n_points * len(readings)
    each = spec.work_per_evaluation * (1 if quick else 10)
    check_work(
        func,
        "n_points",
        n_points,
        evaluations * each,
        f"{evaluations} evaluations ({len(readings)} readings) of about {each:.3g} steps each",
    )
    planned = planned_seconds(spec, params, quick, n_points)
    if n_workers is None and client is None and planned < IN_PROCESS_SECONDS:
        n_workers = 1  # worker processes would spend longer starting than computing
    names = [p.name for p in ranges]
    grid = design(ranges, n_points, seed)
    grid.insert(0, "index", np.arange(n_points))
    points = [
        {"reading": r, **{k: v.item() if hasattr(v, "item") else v for k, v in row.items()}}
        for r in readings
        for row in grid.to_dict("records")
    ]
    # the evaluation order: reading by reading, or point by point with batches of a point's
    # readings when they share runs; the most expensive points first when the spec says
    # what a point costs (the rows are put back in reading order after)
    order = list(range(len(points)))
    chunk = min(
        check_int(spec.readings_per_batch, "spec.readings_per_batch", func, 1, 1000), len(readings)
    )
    if chunk > 1:
        order.sort(key=lambda k: (k % n_points, k // n_points))
    else:
        chunk = None
    if spec.cost is not None:
        rows = grid.drop(columns="index").to_dict("records")
        cost = [_point_cost(spec.cost, row, func) for row in rows]
        order.sort(key=lambda k: -cost[k % n_points])  # stable: a point's readings stay together
    # every discrete row at its default, then the reading's one change
    defaults = {p.name: p.default for p in params.rows if p.plausible is not None}
    defaults = {k: v for k, v in defaults.items() if k not in names}
    fixed = {
        "evaluate": spec.evaluate,  # module-level: pickled by reference to workers
        "overrides": {r: {**defaults, **change} for r, change in readings.items()},
        "targets": targets,
        "quick": quick,
        "base_seed": seed,
    }
    evaluated = sweep(
        _atlas_eval,
        [points[k] for k in order],
        fixed=fixed,
        client=client,
        n_workers=n_workers,
        progress=progress,
        desc=f"atlas ({len(points)} evaluations)",
        cache_dir=cache_dir,
        code_version=None if cache_dir is None else source_digest(),
        chunk_size=chunk,
    )
    if order != sorted(order):  # back to reading by reading (a point's claims keep their order)
        position = {(p["reading"], p["index"]): k for k, p in enumerate(points)}
        key = [position[ri] for ri in zip(evaluated["reading"], evaluated["index"], strict=True)]
        attrs = evaluated.attrs
        evaluated = evaluated.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)
        evaluated.attrs = attrs
    evaluated = evaluated.drop(columns=[c for c in ("replication", "seed") if c in evaluated])
    return atlas_table(evaluated, params)


def atlas_table(points: pd.DataFrame, params) -> pd.DataFrame:
    """The atlas of evaluated ``points`` over ``params``' plausible space, as :func:`atlas`
    returns it (an inner step: it trusts its inputs; P2's kept atlas calls it too).

    Parameters
    ----------
    points : pandas.DataFrame
        One row per (reading, design point, claim), as ``attrs["points"]`` holds them.
    params : workbench.params.Params
        The paper's table, whose plausible ranges and readings the points were drawn from.

    Returns
    -------
    pandas.DataFrame
        :func:`summarise_atlas`'s table, with the points, ranges, readings and method in
        its ``attrs``.
    """
    ranges, readings = plausible_space(params)
    table = summarise_atlas(points, [p.name for p in ranges])
    table.attrs["points"] = points
    table.attrs["ranges"] = {p.name: tuple(p.plausible) for p in ranges}
    table.attrs["readings"] = readings
    table.attrs["method"] = f"decision tree, depth {TREE_DEPTH}"
    return table


def _point_cost(cost, point: dict, func: str) -> float:
    """``cost(**point)`` (:attr:`AtlasSpec.cost`), a positive finite number."""
    value = cost(**point)
    return check_real(value, "spec.cost(point)", func, 0.0, None, low_open=True)


def _check_targets(targets, func: str) -> dict:
    """``{claim id: (value, tolerance)}`` with finite values and tolerances >= 0."""
    try:
        out = {str(c): (float(v), float(t)) for c, (v, t) in dict(targets).items()}
        ok = bool(out) and all(
            math.isfinite(v) and math.isfinite(t) and t >= 0 for v, t in out.values()
        )
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ParameterError(
            f"The 'targets' parameter of {func} must map claim ids to (value, tolerance) pairs "
            f"of finite numbers (tolerance >= 0), at least one. Got {describe(targets)} instead."
        )
    return out


def default_cache_dir() -> Path | None:
    """Where notebooks keep atlas evaluations: ``$WORKBENCH_CACHE/atlas`` (default
    ``~/.cache/workbench/atlas``, created if missing), outside the repository so
    ``git status`` stays clean; None (computed without a cache, one warning) when it cannot
    be written."""
    return usable_cache_dir("atlas")


def atlas(
    paper: str,
    *,
    quick: bool = True,
    n_points: int | None = None,
    client=None,
    seed: int = 0,
    n_workers: int | None = None,
    progress: bool = True,
    cache_dir=None,
) -> pd.DataFrame:
    """Each claim's verdict across the paper's plausible space and readings.

    The plausible space is what the paper's parameter table declares (``Param.plausible``,
    each with its reason in ``Param.why``): ranges for values the paper lost, sets for the
    readings its text admits. Values the paper states stay fixed.

    **Design.** A scrambled Latin hypercube (``scipy.stats.qmc``, seeded by ``seed``) of
    ``n_points`` over the ranges (log-uniform where a range spans two decades), crossed with
    the readings: ``"default"`` and each discrete row's other values one at a time. Every
    design point is evaluated under every reading with the same seed (common random numbers),
    through :func:`workbench.sweep.sweep`: locally on joblib processes, or on a Dask cluster
    (``client`` = a ``distributed.Client`` or a scheduler address ``"tcp://host:8786"``).
    With neither ``n_workers`` nor ``client``, an atlas planned to take under
    :data:`IN_PROCESS_SECONDS` (``ATLAS.seconds_per_evaluation`` × evaluations) runs in the
    calling process.

    **Holds.** At one evaluation a claim holds when its measured value is within the claims
    table's ``tolerance`` of the paper's ``value``. A measurement on a non-stationary run (or
    NaN) is *undetermined*: it counts neither for nor against the claim.

    **Verdict rules**, per (claim, reading) on the determined evaluations (``points``):
    ``holds_share`` = the share where it holds, with a Wilson 95 % interval
    (``ci_low``, ``ci_high``); ``reproduced`` if ``holds_share`` ≥ 0.9, ``refuted`` if ≤ 0.1,
    ``depends`` in between, ``undetermined`` if no evaluation was stationary. The row with
    ``reading == "all"`` pools every reading.

    **decided_by** (only for ``depends``): a depth-2 scikit-learn decision tree fitted to
    "holds" against the design's parameters (and, for ``all``, one indicator per reading);
    ``decided_by`` lists the features it splits on by importance and ``flip`` gives the root
    split (the parameter value where the claim flips, and the counts on both sides).

    Returns one row per (claim, reading): ``claim, reading, points, undetermined,
    holds_share, ci_low, ci_high, verdict, decided_by, flip``. ``attrs["points"]`` holds every
    evaluation. The same seed gives the same frame, on any number of workers. With
    ``cache_dir`` (e.g. :func:`default_cache_dir`, as the notebooks do) evaluations are kept
    and reused until any source file or claims table changes.
    """
    p = get_paper(paper)
    spec = getattr(p.part("claims"), "ATLAS", None)
    if spec is None:
        raise ParameterError(f"atlas: paper {paper} declares no ATLAS in {p.package}.claims")
    table = load_claims(paper).set_index("id")
    ids = list(spec.claims) or list(table.index[table["source"] == "paper"])
    unknown = sorted(set(ids) - set(table.index))
    if unknown:
        raise KeyError(f"atlas: {paper} ATLAS names claims not in its table: {unknown}")
    targets = {i: (table.at[i, "value"], table.at[i, "tolerance"]) for i in ids}
    frame = run_atlas(
        spec,
        p.params,
        targets,
        quick=quick,
        n_points=n_points,
        client=client,
        seed=seed,
        n_workers=n_workers,
        progress=progress,
        cache_dir=cache_dir,
        func="atlas",
    )
    frame.insert(0, "paper", paper)
    return frame


def atlas_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The overall rows (``reading == "all"``) of an atlas, for people."""
    cols = ["claim", "points", "holds_share", "ci_low", "ci_high", "verdict", "flip"]
    need_frame(frame, ["reading", *cols], "frame", "atlas_summary")
    out = frame[frame["reading"] == "all"][cols].copy()
    return out.reset_index(drop=True)


LETTERS = {"reproduced": "✔", "refuted": "✘", "depends": "~", "undetermined": "?"}


def atlas_grid(frame: pd.DataFrame) -> tuple[list, list, np.ndarray]:
    """``(readings, claims, share)`` of an atlas drawn as a heatmap: ``"all"`` first, then the
    readings and claims in the frame's order, ``holds_share`` as a claims × readings array."""
    readings = ["all", *[r for r in dict.fromkeys(frame["reading"]) if r != "all"]]
    claims = list(dict.fromkeys(frame["claim"]))
    share = (
        frame.pivot(index="claim", columns="reading", values="holds_share")
        .reindex(index=claims, columns=readings)
        .to_numpy(dtype=float)
    )
    return readings, claims, share


def label_cells(ax, frame: pd.DataFrame, number: Callable, fontsize: float) -> None:
    """Each cell of :func:`atlas_grid`'s heatmap labelled with its verdict's letter and its
    share (``number(share)``; the letter alone where the share is NaN)."""
    readings, claims, share = atlas_grid(frame)
    verdicts = frame.set_index(["claim", "reading"])["verdict"]
    for i, c in enumerate(claims):
        for j, r in enumerate(readings):
            v = verdicts.get((c, r))
            if v is not None:
                s = share[i, j]
                text = LETTERS[v] + ("" if math.isnan(s) else number(s))
                ax.text(j, i, text, ha="center", va="center", fontsize=fontsize)


def plot_atlas(frame: pd.DataFrame):
    """Claims × readings, coloured by ``holds_share``; each claim's flip point beside it."""
    cols = ["claim", "reading", "holds_share", "verdict", "flip"]
    if need_frame(frame, cols, "frame", "plot_atlas").empty:
        raise ParameterError("The 'frame' parameter of plot_atlas must hold an atlas. Got none.")
    unknown = sorted({str(v) for v in frame["verdict"]} - set(VERDICTS))
    if unknown:
        raise ParameterError(
            f"The 'frame' parameter of plot_atlas must hold verdicts among {list(VERDICTS)}. "
            f"Got {unknown} instead."
        )
    readings, claims, share = atlas_grid(frame)
    fig = WorkbenchFigure(figsize=(2.6 + 1.05 * len(readings) + 4.2, 1.2 + 0.42 * len(claims)))
    ax = fig.add_axes([0.22, 0.28, 0.42, 0.62])
    im = ax.imshow(share, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(readings)), readings, rotation=35, ha="right", fontsize=9)
    ax.set_yticks(range(len(claims)), claims, fontsize=9)
    label_cells(ax, frame, lambda s: f"{s:.2f}", fontsize=8)
    overall = frame[frame["reading"] == "all"].set_index("claim")
    for i, c in enumerate(claims):
        flip = overall.at[c, "flip"] if c in overall.index else ""
        if flip:
            ax.annotate(
                flip,
                (1.02, 1 - (i + 0.5) / len(claims)),
                xycoords="axes fraction",
                fontsize=8,
                va="center",
            )
    cax = fig.add_axes([0.22, 0.08, 0.42, 0.03])
    fig.colorbar(im, cax=cax, orientation="horizontal", label="holds_share")
    paper = frame["paper"].iloc[0] if "paper" in frame else ""
    ax.set_title(
        f"{paper} claim atlas: share of the plausible space where each claim holds", fontsize=10
    )
    return fig
