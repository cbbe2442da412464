"""The figures of P2: each a tidy frame (``<name>_frame``) and a drawing of it (``plot_<name>``).

``FIGURES`` maps figure names to :class:`workbench.plots.FigureSpec` (``<name>_frame(quick)``
then ``plot_<name>(frame)``). The parameter studies (:func:`parameter_study`) evaluate
every scheme at every value with the same replication streams, so that at every grid point
and replication all schemes see the same network, tasks and fading (paired comparisons);
intervals are Student-t over the replications.

Run lengths: ``quick=True`` runs 3 replications × (warm-up + 1000 measured) slots,
``quick=False`` 5 × (warm-up + 20,000); the warm-up is the claims' 30 tasks per user at the
default load (the empty caches' transient, tests/test_transients.py).
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd

from workbench.caching import lfu_hits, lru_hits, popularity_cache_hits
from workbench.matching import hedged_matching
from workbench.memo import cached_call
from workbench.params import takes
from workbench.plots import PALETTE, FigureSpec, ci_errorbar, figure, unstable_legend
from workbench.proactive.calibration import load_frame, plot_load
from workbench.proactive.claims import measured_at, scheme_run, warmup_slots
from workbench.proactive.model import (
    interference_free_rates,
    isolated_cloudlet_delay,
    make_scenario,
    rank_cloudlets,
    reliability_margin,
    train,
    zipf_popularity,
)
from workbench.proactive.params import PARAMS, POLICIES, P2Params
from workbench.proactive.runs import draw_tasks, run_scenario
from workbench.proactive.simulation import run_length, simulate
from workbench.seeding import figure_seed
from workbench.stats import t_half_width
from workbench.validation import (
    ParameterError,
    check_bool,
    check_int,
    check_real,
)

__all__ = [
    "FIGURES",
    "reading_steps",
    "readings_table",
    "parameter_study",
    "draw_study",
    "ccdf_study",
    "delay_ccdf_frame",
    "plot_delay_ccdf",
    "density_frame",
    "plot_density",
    "storage_frame",
    "plot_storage",
    "storage_pooled_frame",
    "plot_storage_pooled",
    "cacheable_frame",
    "plot_cacheable",
    "zipf_frame",
    "plot_zipf",
    "slot_matching",
    "map_frame",
    "plot_map",
    "drift_frame",
    "plot_drift",
    "mm1_check",
]

SCHEME_COLORS = {"proposed": PALETTE[2], "BL1": PALETTE[0], "BL2": PALETTE[1], "BL3": PALETTE[7]}
SCHEME_LABELS = {
    "proposed": "proposed",
    "BL1": "BL1 (hedging + LRU)",
    "BL2": "BL2 (hedging, no cache)",
    "BL3": "BL3 (no cache, no hedging)",
}
_QUANTITY_LABELS = {
    "mean_delay": "average delay [ms]",
    "p90_delay": "90th percentile delay [ms]",
    "p99_delay": "99th percentile delay [ms]",
    "hit_rate": "cache hit rate",
    "hedged_fraction": "hedged requests (share)",
}
_MS = {"mean_delay", "p90_delay", "p99_delay"}
NO_CACHE = ("BL2", "BL3")
CACHE_ONLY = ("storage", "cacheable_ratio", "zipf")


_WARM = warmup_slots()
RUNS = {
    True: run_length(1000, _WARM) | {"replications": 3},
    False: run_length(20_000, _WARM) | {"replications": 5},
}
"""The figures' run lengths: quick (3 × 1000 measured slots) and full (5 × 20,000)."""


STUDY_SEED = 0
"""The paper figures' base seed (shifted by the caller's ``seed``)."""


def _run_length(quick: bool, seed: int = 0) -> dict:
    """The figures' run (:data:`RUNS`) and root seed, ``figure_seed(STUDY_SEED, seed)``."""
    return dict(RUNS[bool(quick)]) | {"seed": figure_seed(STUDY_SEED, seed)}


def _shared_doc(section: str):
    """Append ``section``, a numpydoc section several functions share, to a docstring."""

    def add(func):
        func.__doc__ = f"{inspect.cleandoc(func.__doc__ or '')}\n\n{section}"
        return func

    return add


_FRAME_DOC = """Parameters
----------
quick : bool
    3 replications × (warm-up + 1000 measured slots), a study at fewer values; else 5 ×
    (warm-up + 20,000) (:data:`RUNS`).
seed : int
    The caller's seed (the notebook's ``SEED``), shifting :data:`STUDY_SEED`; 0 gives the
    published frame.

Returns
-------
pandas.DataFrame
    The study's frame (:func:`parameter_study`, Fig. 3 :func:`ccdf_study`)."""

_PLOT_DOC = """Parameters
----------
frame : pandas.DataFrame
    The figure's frame (``<name>_frame``).
fast : bool
    Fixed margins instead of the constrained layout (slider views: a faster redraw).

Returns
-------
matplotlib.figure.Figure"""

_RUN = ("slots", "warmup", "replications", "seed")
#: the model's rows a study may fix or vary (not the scheme, the run or the interval level)
_MODEL_ROWS = tuple(n for n in PARAMS if n not in ("policy", "confidence", *_RUN))


@takes(P2Params, "vary", "values", "policies", *_RUN, "couple_users", *_MODEL_ROWS, positional=True)
def parameter_study(p, vary: str, values, policies=POLICIES, couple_users=False) -> pd.DataFrame:
    """Delay percentiles and hit rate of the schemes ``policies`` as one parameter varies.

    The other model rows stay fixed at the object's values.

    Parameters
    ----------
    vary : str
        A name of :data:`~workbench.proactive.params.PARAMS` (e.g. ``"storage"``).
    values : sequence
        Its values.
    policies : sequence of str
        Schemes of :data:`~workbench.proactive.params.POLICIES`.
    slots, warmup, replications, seed
        Run length (warm-up included), warm-up fraction, independent replications, root
        seed (as in :func:`~workbench.proactive.simulation.simulate`). Replication r uses
        the r-th stream of the root seed at every value and for every scheme (common random
        numbers: the same networks, tasks and fading).
    couple_users : bool
        Keep U = 3 E (the paper's density study varies E at a fixed U/E).

    Returns
    -------
    pandas.DataFrame
        One row per (value, scheme, quantity): ``mean``, ``ci_low``, ``ci_high`` over the
        replications (Student-t 95%, clipped to the quantity's range) and ``stationary``
        (the output analysis of that point's run; a point found non-stationary is a
        finite-horizon number, drawn hollow).
    """
    func = "parameter_study"
    if not isinstance(vary, str) or vary not in _MODEL_ROWS:
        raise ParameterError(
            f"The 'vary' parameter of {func} must name a model parameter. Got {vary!r} instead."
        )
    values = list(values) if np.ndim(values) <= 1 and np.size(values) <= 1000 else None
    if not values:
        raise ParameterError(
            f"The 'values' parameter of {func} must hold between 1 and 1000 values (run-time "
            f"bound). Got {np.size(values) if values is None else 0} values instead."
        )
    schemes = tuple(PARAMS["policy"].check(x, func) for x in policies)
    couple_users = check_bool(couple_users, "couple_users", func)
    fixed = {k: getattr(p, k) for k in p.model_fields_set if k in _MODEL_ROWS and k != vary}
    # schemes without a cache do not see storage, cacheable ratio or Zipf exponent (the
    # streams are common): run them at the first value only and repeat their rows
    once = vary in CACHE_ONLY
    out, cache = [], {}
    for value in values:
        point = {vary: value} | ({"n_users": 3 * int(value)} if couple_users else {})
        for scheme in schemes:
            key = (scheme, values[0] if once and scheme in NO_CACHE else value)
            if key not in cache:
                q = p.with_(func, None, **(point | {vary: key[1], "policy": scheme}))
                cache[key] = simulate(q, keep_records=False, overload="transient")
            r = cache[key]
            for q in ("mean_delay", "p90_delay", "p99_delay", "hit_rate", "hedged_fraction"):
                low, high = r.interval(q)
                out.append(
                    {
                        "vary": vary,
                        "value": value,
                        "scheme": scheme,
                        "quantity": q,
                        "mean": float(r[q]),
                        "ci_low": low,
                        "ci_high": high,
                        "replications": r.replications,
                        "stationary": r.stationary,
                        "note": r.stationarity.note,
                    }
                )
    frame = pd.DataFrame(out)
    frame.attrs["fixed"] = fixed | {k: getattr(p, k) for k in _RUN} | {"policies": schemes}
    return frame


def draw_study(frame: pd.DataFrame, quantities=("mean_delay", "p99_delay"), title="", fast=False):
    """One panel per quantity against the varied parameter, one line per scheme.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`parameter_study`.
    quantities : sequence of str
        The quantities drawn, one panel each (``mean_delay``, ``p99_delay``, ``hit_rate``
        ...).
    title : str
        The figure's title ("" for none).
    fast : bool
        Fixed margins instead of the constrained layout (slider views).

    Returns
    -------
    matplotlib.figure.Figure
    """
    vary = frame["vary"].iloc[0]
    param = PARAMS[vary]
    fig, axes = figure(ncols=len(quantities), width=4.6, height=3.4, fast=fast)
    axes = np.atleast_1d(axes)
    for ax, q in zip(axes, quantities, strict=True):
        sub = frame[frame["quantity"] == q]
        scale = 1e3 if q in _MS else 1.0
        for scheme, g in sub.groupby("scheme", sort=False):
            x = g["value"].to_numpy(float)
            ci_errorbar(
                ax,
                x,
                g["mean"] * scale,
                g["ci_low"] * scale,
                g["ci_high"] * scale,
                stationary=g["stationary"] if "stationary" in g else None,
                fmt="o-",
                color=SCHEME_COLORS[scheme],
                label=SCHEME_LABELS[scheme],
            )
        ax.set_xlabel(param.label)
        ax.set_ylabel(_QUANTITY_LABELS[q])
        ax.set_ylim(bottom=0)
        if param.kind == "int":
            ax.xaxis.get_major_locator().set_params(integer=True)
    where = dict(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))  # off the data
    if "stationary" in frame and not frame["stationary"].all():
        unstable_legend(axes[-1], **where)
    else:
        axes[-1].legend(**where)
    reps = int(frame["replications"].max())
    fig.suptitle(f"{title}  ({reps} replications, 95% CI)" if title else "", fontsize=10)
    return fig


@takes(P2Params, "policies", *_RUN, "points", *_MODEL_ROWS, positional=True)
def ccdf_study(p, policies=POLICIES, points=80) -> pd.DataFrame:
    """Delay CCDF Pr(D > d) per scheme with a Student-t interval over replications.

    Every scheme runs on the same streams; the run and the model are
    :func:`~workbench.proactive.simulation.simulate`'s.

    Parameters
    ----------
    policies : sequence of str
        Schemes of :data:`~workbench.proactive.params.POLICIES`, at least one.
    points : int
        Delays d on the grid, from 0 to the largest scheme's 99.9th percentile.

    Returns
    -------
    pandas.DataFrame
        One row per (scheme, d): ``ccdf``, ``ci_low``, ``ci_high`` and ``stationary``; the
        percentiles per scheme in ``frame.attrs["percentiles"]``.
    """
    func = "ccdf_study"
    points = check_int(points, "points", func, 2, 10_000)
    schemes = tuple(PARAMS["policy"].check(x, func) for x in policies)
    if not schemes:
        raise ParameterError(f"The 'policies' parameter of {func} must name at least one scheme.")
    results = {s: simulate(p.trusted(policy=s), overload="transient") for s in schemes}
    top = max(float(r.records["delay"].quantile(0.999)) for r in results.values())
    grid = np.linspace(0.0, top, points)
    parts, pct = [], {}
    for s, r in results.items():
        per_rep = np.array(
            [
                (g["delay"].to_numpy()[:, None] > grid[None, :]).mean(axis=0)
                for _, g in r.records.groupby("replication")
            ]
        )
        mean = per_rep.mean(axis=0)
        half = np.array([t_half_width(per_rep[:, j], 0.95) for j in range(points)])
        low, high = np.maximum(mean - half, 0.0), np.minimum(mean + half, 1.0)
        parts.append(
            pd.DataFrame({"scheme": s, "delay": grid, "ccdf": mean, "ci_low": low, "ci_high": high})
        )
        pct[s] = {q: r[q] for q in ("mean_delay", "p90_delay", "p99_delay", "hit_rate")}
    frame = pd.concat(parts, ignore_index=True)
    frame["stationary"] = frame["scheme"].map({s: r.stationary for s, r in results.items()})
    frame.attrs["percentiles"] = pct
    frame.attrs["replications"] = p.replications
    return frame


@_shared_doc(_PLOT_DOC)
def plot_delay_ccdf(frame: pd.DataFrame, fast=False):
    """Fig. 3: the delay CCDF per scheme (log scale), shaded 95% intervals."""
    fig, ax = figure(width=6.0, height=3.8, fast=fast)
    for s, g in frame.groupby("scheme", sort=False):
        x = g["delay"] * 1e3
        steady = bool(g["stationary"].all()) if "stationary" in g else True
        label = SCHEME_LABELS[s] + ("" if steady else " (not stationary)")
        ax.plot(x, g["ccdf"], color=SCHEME_COLORS[s], label=label, ls="-" if steady else ":")
        ax.fill_between(
            x,
            np.maximum(g["ci_low"], 1e-4),
            np.maximum(g["ci_high"], 1e-4),
            color=SCHEME_COLORS[s],
            alpha=0.2,
            lw=0,
        )
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 1.05)
    ax.axhline(0.1, color="0.6", ls=":", lw=0.8)
    ax.axhline(0.01, color="0.6", ls=":", lw=0.8)
    ax.set_xlabel("delay d [ms]")
    ax.set_ylabel("Pr(D > d)")
    ax.legend(fontsize=7)
    reps = frame.attrs.get("replications", "")
    ax.set_title(f"Delay tail, E = 30, U = 90, s_e = 10 ({reps} replications, 95% CI)", fontsize=9)
    return fig


@takes(P2Params, "policy", "n_requests", "seed", *_MODEL_ROWS, positional=True)
def slot_matching(p, n_requests=12) -> dict:
    """One slot of the matching on a fresh scenario, from the public model functions.

    ``n_requests`` users (uniformly chosen) request a task from their profile; queues are
    empty and rates are the interference-free ones; with caching, every cloudlet holds
    the s_e most popular cacheable results of its preferred cluster (its converged
    state). Users rank by eq. 4 without the queue (eq. 14; a cloudlet holding the result
    costs τ_EP when ``cache_aware``), cloudlets by Φ (eq. 15) (BL3: both by link rate); a
    request with Φ < 0 at its first match is hedged (not in BL3), with ``hedge_check`` only
    to cloudlets where its Φ ≥ 0; a request is ``cached`` when a matched cloudlet holds the
    result. ``seed`` draws the network, its training and the requests; the other rows are
    the model's.

    Parameters
    ----------
    n_requests : int
        Users requesting in the slot, in [1, U].

    Returns
    -------
    dict
        ``scenario``, ``training``, ``users`` (requesting users), ``tasks`` (their task
        types), ``matched`` (rows of cloudlets per requesting user, -1 padded), ``phi``
        (E × requests) and ``cached`` (bool per row).
    """
    func = "slot_matching"
    scheme = p.policy
    n_requests = check_int(n_requests, "n_requests", func, 1, p.n_users)
    sc = make_scenario(p)
    tr = train(p, scenario=sc)
    gen = np.random.default_rng([p.seed, 9])
    n_users, n_cloudlets = sc.path_gain.shape
    users = np.sort(gen.choice(n_users, size=n_requests, replace=False))
    rates = interference_free_rates(p, scenario=sc)
    caching = scheme in ("proposed", "BL1") and p.storage > 0
    held = tr.cache_rank < p.storage  # (E, A): the s_e best-ranked results
    prefs = np.full((users.size, n_cloudlets), -1, dtype=np.int64)
    hprefs = np.full((users.size, n_cloudlets), -1, dtype=np.int64)
    phi = np.zeros((n_cloudlets, users.size))
    held_by = np.zeros((users.size, n_cloudlets), bool)
    types = np.empty(users.size, dtype=np.int64)
    for i, u in enumerate(users):
        a = gen.choice(sc.cacheable.size, p=sc.profiles[sc.profile_of_user[u]])
        types[i] = a
        bits = gen.exponential(p.mean_bits)
        y = held[:, a] & sc.cacheable[a] if caching else np.zeros(n_cloudlets, bool)
        if scheme == "BL3":
            order = np.argsort(-rates[u], kind="stable")
            phi[:, i] = rates[u]
        else:
            seen = y if p.cache_aware else None  # users see caches only if cache_aware
            order = rank_cloudlets(p, bits=bits, rate_est=rates[u], cpu=p.cpu, cached=seen)
            phi[:, i] = reliability_margin(
                p, bits=bits, rate_est=rates[u], cpu=p.cpu, queue_wait_est=0.0, cached=y
            )
        order = order[sc.covered[u, order]]
        prefs[i, : order.size] = order
        ok = order[phi[order, i] >= 0] if p.hedge_check else order
        hprefs[i, : ok.size] = ok
        held_by[i] = y
    rprefs = np.argsort(-phi, axis=1, kind="stable").astype(np.int64)
    first = hedged_matching(prefs, rprefs, None, None, 1)[:, 0]
    rows = np.arange(users.size)
    # a request served from a cache at its first match is not hedged; BL3 never hedges
    hit0 = (first >= 0) & held_by[rows, first]
    flags = (first >= 0) & ~hit0 & (phi[first, rows] < 0) & (scheme != "BL3")
    matched = hedged_matching(prefs, rprefs, None, flags, p.x_max, hedge_prefs=hprefs)
    cached = ((matched >= 0) & held_by[rows[:, None], matched]).any(axis=1)
    return {
        "scenario": sc,
        "training": tr,
        "users": users,
        "tasks": types,
        "matched": matched,
        "phi": phi,
        "cached": cached,
    }


READING_ROWS = ("hedge_check", "cache_aware", "coverage_db")
"""The rows whose plausible values the readings table walks through, in this order."""


def reading_steps() -> list[tuple[str, dict]]:
    """The readings of the text, added one at a time, from the parameter table.

    The first step takes every row of :data:`READING_ROWS` at its other plausible value
    (the bool readings' non-default value, the coverage threshold at the top of its
    plausible range: every cloudlet covers every user), the workbench's earlier reading;
    each next step sets one row to its default, the last step is the defaults. The reasons
    are the rows' ``why`` (:data:`~workbench.proactive.params.PARAMS`).

    Returns
    -------
    list of (str, dict)
        Each step's label and the values of :data:`READING_ROWS` it sets.
    """
    rows = [PARAMS[name] for name in READING_ROWS]
    other = {
        r.name: (
            max(r.plausible) if r.kind == "real" else next(v for v in r.plausible if v != r.default)
        )
        for r in rows
    }
    text = ", ".join(
        f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in other.items()
    )
    steps = [(f"earlier workbench ({text})", dict(other))]
    current = dict(other)
    for r in rows:
        current[r.name] = r.default
        shown = f"{r.default:g}" if isinstance(r.default, float) else str(r.default)
        steps.append((f"+ {r.name} = {shown}", dict(current)))
    label, last = steps[-1]
    steps[-1] = (f"{label} (defaults)", last)
    return steps


@takes(P2Params, "quick", "seed", "n_cloudlets", positional=True)
def readings_table(p, quick: bool = True) -> pd.DataFrame:
    """Which reading moves which gain: Fig. 3's numbers under each step of :func:`reading_steps`.

    One row per reading at E = ``n_cloudlets`` (U = 3E): the gains 1 − proposed/BL2 of the
    mean, 90th and 99th percentile delay, BL2's hedged share, BL2/BL3 99th percentile ratio,
    the proposed scheme's hit rate, whether every run was stationary. The replications are
    paired across readings (same networks, tasks and fading); kept by workbench.memo.

    Parameters
    ----------
    quick : bool
        The claims' quick runs (8 replications × 1000 measured slots) or the full ones.
    seed : int
        The root seed (the notebook's ``SEED``; 0: the published table).
    n_cloudlets : int
        E (U = 3E).

    Returns
    -------
    pandas.DataFrame
        One row per step of :func:`reading_steps`.
    """
    quick = check_bool(quick, "quick", "readings_table")
    return cached_call(_readings_rows, quick, p.seed, p.n_cloudlets)


def _readings_rows(quick: bool, seed: int, n_cloudlets: int) -> pd.DataFrame:
    # the claims' runs (caches at steady state: warm-up of 30 tasks per user, then 1000 or
    # 8000 measured slots, 8 replications) through their run cache: a run a step does not
    # change (BL3's under the first three steps) and the last step's, which are the claims'
    # own, are computed once
    ctx = measured_at(quick, seed)
    rows = []
    for name, reading in reading_steps():
        extra = reading | {"n_cloudlets": n_cloudlets, "n_users": 3 * n_cloudlets}
        r = {s: scheme_run(s, ctx, **extra) for s in ("proposed", "BL2", "BL3")}
        rows.append(
            {
                "reading": name,
                **{
                    f"gain {q}": 1 - r["proposed"][f"{q}_delay"] / r["BL2"][f"{q}_delay"]
                    for q in ("mean", "p90", "p99")
                },
                "BL2 hedged share": r["BL2"]["hedged_fraction"],
                "BL2/BL3 p99": r["BL2"]["p99_delay"] / r["BL3"]["p99_delay"],
                "hit rate": r["proposed"]["hit_rate"],
                "stationary": all(x.stationary for x in r.values()),
            }
        )
    return pd.DataFrame(rows)


MAP_SEED = 4
"""The map's network at ``seed=0``: one whose slot shows a hedge."""


@takes(P2Params, "quick", "policy", "seed", "n_requests", positional=True)
def map_frame(p, quick: bool = False, n_requests=15) -> pd.DataFrame:
    """Nodes and links of :func:`slot_matching`: rows of kind cloudlet, user, link.

    Parameters
    ----------
    quick : bool
        Unused (the map is one slot); the figures' shared signature.
    policy : str
        The scheme whose slot is drawn.
    seed : int
        The caller's seed (the notebook's ``SEED``): the network is
        ``figure_seed(MAP_SEED, seed)``, so ``seed=0`` draws network 4.
    n_requests : int
        Users requesting in the slot.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind``, ``x``, ``y`` [m], ``id``, ``cluster`` and, for a link, its end
        ``x2``, ``y2``; ``attrs`` the number of clusters and the scheme.
    """
    check_bool(quick, "quick", "map_frame")
    m = slot_matching(p.policy, n_requests=n_requests, seed=figure_seed(MAP_SEED, p.seed))
    sc, tr = m["scenario"], m["training"]
    rows = [
        {"kind": "cloudlet", "x": x, "y": y, "id": e, "cluster": tr.preferred_cluster[e]}
        for e, (x, y) in enumerate(sc.cloudlet_xy)
    ]
    rows += [
        {"kind": "user", "x": x, "y": y, "id": u, "cluster": tr.clusters.labels[u]}
        for u, (x, y) in enumerate(sc.user_xy)
    ]
    for i, u in enumerate(m["users"]):
        for j, e in enumerate(m["matched"][i]):
            if e >= 0:
                rows.append(
                    {
                        "kind": "hedge" if j else ("cached" if m["cached"][i] else "link"),
                        "x": sc.user_xy[u, 0],
                        "y": sc.user_xy[u, 1],
                        "x2": sc.cloudlet_xy[e, 0],
                        "y2": sc.cloudlet_xy[e, 1],
                        "id": u,
                        "cluster": tr.clusters.labels[u],
                    }
                )
    frame = pd.DataFrame(rows)
    frame.attrs["k"] = tr.clusters.k
    frame.attrs["scheme"] = p.policy
    return frame


@_shared_doc(_PLOT_DOC)
def plot_map(frame: pd.DataFrame, fast=False):
    """Cloudlets (squares, coloured by preferred cluster), users coloured by cluster, and
    one slot's matching: solid = first match, dashed = hedge, green = served from cache."""
    fig, ax = figure(width=7.8, height=5.0, fast=fast)
    k = frame.attrs.get("k", int(frame["cluster"].max()) + 1)
    colors = [PALETTE[i % len(PALETTE)] for i in range(k)]
    for kind, style in (
        ("link", dict(color="0.2", lw=1.2)),
        ("hedge", dict(color="C3", lw=1.2, ls="--")),
        ("cached", dict(color=PALETTE[2], lw=2.0)),
    ):
        for _, r in frame[frame["kind"] == kind].iterrows():
            ax.plot([r["x"], r["x2"]], [r["y"], r["y2"]], **style)
    users = frame[frame["kind"] == "user"]
    ax.scatter(
        users["x"],
        users["y"],
        s=18,
        c=[colors[c] for c in users["cluster"]],
        edgecolors="k",
        linewidths=0.3,
    )
    cl = frame[frame["kind"] == "cloudlet"]
    ax.scatter(
        cl["x"],
        cl["y"],
        s=70,
        marker="s",
        c=[colors[c] for c in cl["cluster"]],
        edgecolors="k",
        linewidths=1.0,
    )
    ax.plot([], [], color="0.2", label="matched (upload)")
    ax.plot([], [], color="C3", ls="--", label="hedged copy")
    ax.plot([], [], color=PALETTE[2], lw=2, label="served from cache")
    ax.scatter([], [], marker="s", c="w", edgecolors="k", label="cloudlet (preferred cluster)")
    ax.scatter([], [], c="w", edgecolors="k", s=18, label="user (cluster colour)")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_aspect("equal")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if fast:  # fixed margins: room on the right for the legend
        fig.subplots_adjust(left=0.1, right=0.6)
    ax.set_title(f"One slot, {frame.attrs.get('scheme', '')}: k = {k} clusters", fontsize=9)
    return fig


DRIFT_SEED = 0
"""The drift trace's base seed (shifted by the caller's ``seed``)."""


@takes(P2Params, "quick", "n_tasks", "zipf", "capacity", "seed", "window", positional=True)
def drift_frame(p, quick: bool = False, capacity=10, window=500) -> pd.DataFrame:
    """Beyond the paper: LRU, LFU and the popularity cache when popularity drifts.

    One cloudlet's request trace: Zipf(z) over a random order of the tasks; halfway the
    order is redrawn (the users' interests change). The popularity cache keeps the order
    learnt before the change (a stale training phase); LRU and LFU adapt on their own.

    Parameters
    ----------
    quick : bool
        10,000 requests (else 40,000).
    n_tasks, zipf
        A and z of the trace.
    capacity : int
        The cache's size, in [1, A].
    seed : int
        The caller's seed (the notebook's ``SEED``), shifting :data:`DRIFT_SEED`.
    window : int
        Requests per window of the hit rate.

    Returns
    -------
    pandas.DataFrame
        ``policy``, ``request`` (the window's middle) and ``hit_rate``; ``attrs`` the
        change point, the capacity, z and the top-s_e mass.
    """
    func = "drift_frame"
    quick = check_bool(quick, "quick", func)
    n_tasks, zipf, seed = p.n_tasks, p.zipf, figure_seed(DRIFT_SEED, p.seed)
    capacity = check_int(capacity, "capacity", func, 1, n_tasks)
    n = 10_000 if quick else 40_000
    window = check_int(window, "window", func, 1, n // 2)
    gen = np.random.default_rng(seed)
    base = zipf_popularity(p)
    before, after = gen.permutation(n_tasks), gen.permutation(n_tasks)
    p1, p2 = np.empty(n_tasks), np.empty(n_tasks)
    p1[before], p2[after] = base, base
    trace = np.concatenate([gen.choice(n_tasks, n // 2, p=p1), gen.choice(n_tasks, n // 2, p=p2)])
    rank = np.argsort(before)  # the trained order: task before[i] has rank i
    hits = {
        "LRU": lru_hits(trace, capacity),
        "LFU": lfu_hits(trace, capacity),
        "popularity (trained before the change)": popularity_cache_hits(trace, capacity, rank),
    }
    windows = n // window
    middle = (np.arange(windows) + 0.5) * window
    rates = {
        k: h[: windows * window].reshape(windows, window).mean(axis=1) for k, h in hits.items()
    }
    frame = pd.concat(
        [pd.DataFrame({"policy": k, "request": middle, "hit_rate": r}) for k, r in rates.items()],
        ignore_index=True,
    )
    ideal = base[:capacity].sum()  # the same before and after: the order changes, not the law
    frame.attrs |= {"ideal": ideal, "change": n // 2, "capacity": capacity, "z": zipf}
    return frame


@_shared_doc(_PLOT_DOC)
def plot_drift(frame: pd.DataFrame, fast=False):
    """The hit rate per window of each cache, the change point and the top-s_e mass."""
    fig, ax = figure(width=6.0, height=3.4, fast=fast)
    for i, (name, g) in enumerate(frame.groupby("policy", sort=False)):
        ax.plot(g["request"], g["hit_rate"], color=PALETTE[i], label=name)
    ax.axvline(frame.attrs["change"], color="0.4", ls=":")
    ax.axhline(
        frame.attrs["ideal"], color="0.4", ls="--", lw=0.8, label="top-s_e mass (perfect knowledge)"
    )
    ax.set_xlabel("request number")
    ax.set_ylabel("hit rate per window")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    ax.set_title(
        f"Popularity drift: s_e = {frame.attrs['capacity']}, z = {frame.attrs['z']}", fontsize=9
    )
    return fig


@_shared_doc(_FRAME_DOC)
def delay_ccdf_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 3's data: the delay CCDF of the four schemes at the defaults."""
    return ccdf_study(**_run_length(quick, seed))


@_shared_doc(_FRAME_DOC)
def density_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 4's data: the four schemes against E with U = 3E."""
    values = (10, 20, 40) if quick else (10, 20, 30, 40, 50, 60)
    return parameter_study("n_cloudlets", values, couple_users=True, **_run_length(quick, seed))


@_shared_doc(_PLOT_DOC)
def plot_density(frame: pd.DataFrame, fast=False):
    """Fig. 4: mean and 99th percentile delay against E."""
    return draw_study(frame, title="Fig. 4: network density, U = 3E", fast=fast)


@_shared_doc(_FRAME_DOC)
def storage_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 5's data: delay against the storage s_e."""
    values = (0, 2, 4, 10) if quick else (0, 2, 4, 6, 8, 10, 15)
    return parameter_study(
        "storage", values, ("proposed", "BL1", "BL2"), **_run_length(quick, seed)
    )


@_shared_doc(_PLOT_DOC)
def plot_storage(frame: pd.DataFrame, fast=False):
    """Fig. 5: mean and 99th percentile delay against s_e."""
    return draw_study(frame, title="Fig. 5: storage", fast=fast)


@_shared_doc(_FRAME_DOC)
def storage_pooled_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 5 with users that know every cache (cache_aware=True)."""
    values = (0, 2, 4, 10) if quick else (0, 2, 4, 6, 8, 10, 15)
    return parameter_study(
        "storage", values, ("proposed", "BL1", "BL2"), cache_aware=True, **_run_length(quick, seed)
    )


@_shared_doc(_PLOT_DOC)
def plot_storage_pooled(frame: pd.DataFrame, fast=False):
    """Fig. 5 with cache-aware users: mean and 99th percentile delay against s_e."""
    return draw_study(frame, title="Fig. 5 if users knew every cache (cache_aware)", fast=fast)


@_shared_doc(_FRAME_DOC)
def cacheable_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 6's data: delay against the share of cacheable task types."""
    values = (0.0, 0.33, 1.0) if quick else (0.0, 0.2, 0.33, 0.5, 0.66, 0.8, 1.0)
    return parameter_study(
        "cacheable_ratio", values, ("proposed", "BL1", "BL2"), **_run_length(quick, seed)
    )


@_shared_doc(_PLOT_DOC)
def plot_cacheable(frame: pd.DataFrame, fast=False):
    """Fig. 6: mean and 99th percentile delay against the cacheable ratio."""
    return draw_study(frame, title="Fig. 6: cacheable ratio", fast=fast)


@_shared_doc(_FRAME_DOC)
def zipf_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Fig. 7's data: the 99th percentile delay and hit rate against z."""
    values = (0.4, 0.8, 1.6) if quick else (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.6, 2.0)
    return parameter_study("zipf", values, ("proposed", "BL1"), **_run_length(quick, seed))


@_shared_doc(_PLOT_DOC)
def plot_zipf(frame: pd.DataFrame, fast=False):
    """Fig. 7: 99th percentile delay and hit rate against z."""
    return draw_study(frame, ("p99_delay", "hit_rate"), title="Fig. 7: Zipf exponent", fast=fast)


#: each figure's caption; its frame is ``<name>_frame``, its drawing ``plot_<name>`` (the
#: calibration's ``load`` figure added after them)
CAPTIONS = {
    "delay_ccdf": "Fig. 3: delay CCDF of the four schemes at the defaults (E = 30, U = 90, "
    "s_e = 10).",
    "density": "Fig. 4: average and 99th percentile delay against E with U = 3E.",
    "storage": "Fig. 5: delay against the storage s_e; a user is served from the cache of the "
    "cloudlet it is matched to (ranked by its own upload delay).",
    "storage_pooled": "Fig. 5 when users rank a cloudlet holding their result by τ_EP: every "
    "covering cloudlet's cache serves them, the caches pool and s_e barely matters.",
    "cacheable": "Fig. 6: delay against the share of cacheable task types.",
    "zipf": "Fig. 7: 99th percentile delay and cache hit rate against z.",
    "map": "Cloudlets, users coloured by cluster and one slot's matching with hedges.",
    "drift": "Beyond the paper: LRU, LFU and the trained popularity cache when popularity drifts.",
}
FIGURES = {
    name: FigureSpec(globals()[f"{name}_frame"], globals()[f"plot_{name}"], caption)
    for name, caption in CAPTIONS.items()
} | {
    "load": FigureSpec(
        load_frame,
        plot_load,
        "The lost load: uplink utilisation, every gain and BL2 against density per λ_u.",
    )
}


#: the cloudlet of the M/M/1 check (figure and view): a CPU so fast that computing takes no
#: time, κ = 1 cycle/bit and a 5 ms end-point delay, so the upload queue alone is M/M/1
MM1_CLOUDLET = {"cpu": 1e10, "kappa": 1.0, "tau_ep": 0.005}


def mm1_delay_ms(lam, link_rate, mean_bits, slot) -> float:
    """The M/M/1 mean delay [ms] of one user alone at the :data:`MM1_CLOUDLET` (figure and
    view): uploads at ``link_rate`` of mean ``mean_bits``, ``lam`` tasks/s, slot ``slot``."""
    return 1e3 * isolated_cloudlet_delay(
        lam=lam, link_rate=link_rate, mean_bits=mean_bits, slot_correction=slot, **MM1_CLOUDLET
    )


@takes(
    P2Params,
    "loads",
    "check_bits",
    "check_slot",
    "check_slots",
    "check_replications",
    "seed",
    positional=True,
)
def mm1_check(
    p,
    loads=(0.3, 0.5, 0.7),
    check_bits=1e5,
    check_slot=1e-4,
    check_slots=400_000,
    check_replications=4,
) -> pd.DataFrame:
    """Analytic (M/M/1) against simulated mean delay of one user alone at one cloudlet.

    No fading, no interference, κ = 1 cycle/bit: the upload queue is M/M/1 with service
    rate r / L̄ (:func:`~workbench.proactive.model.isolated_cloudlet_delay`). The check runs
    its own small setting: mean task size ``check_bits`` (in L̄'s range), slot
    ``check_slot`` (in δ's range), ``check_slots`` slots with arrivals and
    ``check_replications`` replications (no warm-up: the queue starts empty and the
    M/M/1 mean is reached within a few hundred tasks).

    Parameters
    ----------
    loads : sequence of float
        Upload loads ρ = λ_u L̄ / r, each in (0, 1).
    check_bits : float
        Mean task size [bit], in L̄'s range.
    check_slot : float
        Slot length [s], in δ's range.
    check_slots : int
        Slots with arrivals per replication, in the range of ``slots``.
    check_replications : int
        Replications per load, in [2, 1000].

    Returns
    -------
    pandas.DataFrame
        One row per load: the M/M/1 mean delay, the simulated mean and its 95% half-width
        [ms].
    """
    func = "mm1_check"
    loads = [
        check_real(x, "loads", func, 0.0, 1.0, low_open=True, high_open=True)
        for x in np.atleast_1d(loads)
    ]
    bits_row, slot_row, slots_row = PARAMS["mean_bits"], PARAMS["slot"], PARAMS["slots"]
    mean_bits = check_real(check_bits, "check_bits", func, bits_row.low, bits_row.high)
    slot = check_real(check_slot, "check_slot", func, slot_row.low, slot_row.high)
    n_slots = check_int(check_slots, "check_slots", func, slots_row.low, slots_row.high)
    replications = check_int(check_replications, "check_replications", func, 2, 1000)
    seed = p.seed
    if len(loads) * replications * n_slots > 5e8:
        raise ParameterError(
            f"The 'check_slots' parameter of {func} must keep loads × check_replications × "
            f"check_slots at most 5e8 (run-time bound). Got "
            f"{len(loads) * replications * n_slots:.3g} instead."
        )
    lone = {"n_cloudlets": 1, "n_users": 1, "area": 60.0, "cacheable_ratio": 0.0}
    sc = make_scenario(**lone, seed=2)
    tr = train(sc, lam=1.0, training_time=10.0, seed=1)
    rate = float(interference_free_rates(sc)[0, 0])
    rows = []
    for rho in loads:
        lam = rho * rate / mean_bits
        means = []
        for r in range(replications):
            tasks = draw_tasks(sc, lam, mean_bits, n_slots * slot, seed * 1000 + r)
            run = run_scenario(
                "BL3",
                sc,
                tr,
                tasks,
                slots=n_slots,
                fading_seed=1,
                fading=False,
                slot=slot,
                kappa=1.0,
                storage=0,
            )
            means.append(run.tasks["delay"].mean())
        x = np.array(means)
        half = t_half_width(x, 0.95)
        rows.append(
            {
                "load ρ": rho,
                "M/M/1 theory [ms]": mm1_delay_ms(lam, rate, mean_bits, slot),
                "simulated [ms]": 1e3 * x.mean(),
                "± 95% [ms]": 1e3 * half,
            }
        )
    return pd.DataFrame(rows)
