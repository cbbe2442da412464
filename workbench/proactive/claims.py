"""The claims of P2 measured by the workbench: ``CLAIMS[claim_id](quick) -> Measurement``.

The ids match ``data/claims/p2.csv``. Every measurement runs :func:`simulate` with
``overload="transient"`` and carries the output analysis' verdict: a claim measured on a
run that is not a steady state says so and never counts as agreement.

- **Gains** are 1 − proposed/BL2 of the quantity's mean over paired replications (the
  replication r of every scheme and every parameter value sees the same network, tasks and
  fading).
- **Yes/no statements** of the paper are 0/1 rows checked exactly. "A is below B" is 1 when
  the paired 95% Student-t interval of the per-replication differences A − B lies below 0
  (a difference the replications resolve), else 0: a tie is not a "yes".
- **Fig. 4** is measured at every density E ∈ {10, 20, ..., 60} (U = 3E); the largest gain
  over densities is taken over points where both schemes ran stationary, and a density
  where BL2 is not stationary while the proposed scheme is reads "BL2 unbounded" in the
  note, with the largest gain counting its finite run.

Runs (:data:`RUNS`, :func:`run_for`): a warm-up of :data:`WARMUP_TASKS` tasks per user (the
caches start empty, as in the paper), then ``quick=True`` 8 replications × 1000 measured
slots (the test suite) or ``quick=False`` 8 × 8000; :func:`atlas_point` measures the same
claims at any point of the plausible space (the claim atlas, :data:`ATLAS`), with a smaller
quick setting.
Tolerances in the CSV are twice the standard deviation of the quick measurement over root
seeds (:func:`seed_spread`), so that they are as wide as the seed-to-seed spread and no
wider.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.claims import AtlasSpec, Measurement, load_claims
from workbench.params import takes
from workbench.proactive.params import PARAMS, P2Params
from workbench.proactive.runs import IGNORED_READINGS
from workbench.proactive.simulation import run_length, simulate
from workbench.stats import t_half_width
from workbench.validation import ParameterError, UnstableRegimeError, check_bool, reject_unknown

__all__ = ["CLAIMS", "ATLAS", "atlas_point", "measure", "seed_spread"]

WARMUP_TASKS = 30
"""Warm-up per replication in tasks per user: ``ceil(30 / (λ_u δ))`` slots (4000 at the
default λ_u = 1.5). The hit rate of the popularity caches, which start empty as in the
paper, is the slowest transient of the model; after this warm-up it is within 0.01 of a run
ten times longer, and a quarter of it is visibly too short (tests/test_transients.py)."""
RUNS = {
    True: {"measured": 1000, "replications": 8},
    False: {"measured": 8000, "replications": 8},
    "atlas": {"measured": 500, "replications": 3},
}
"""Measured slots and replications: the claims' quick and full runs, the quick atlas."""


@takes(P2Params, "lam", "slot", positional=True)
def warmup_slots(p) -> int:
    """Slots of :data:`WARMUP_TASKS` tasks per user at λ_u = ``lam``: ceil(30 / (λ_u δ)).

    Returns
    -------
    int
        The claims' warm-up in slots.
    """
    return int(np.ceil(WARMUP_TASKS / (p.lam * p.slot) - 1e-9))


@takes(P2Params, "setting", "lam", "slot", positional=True)
def run_for(p, setting) -> dict:
    """``slots``, ``warmup`` and ``replications`` of a :data:`RUNS` setting at λ_u = ``lam``:
    :func:`warmup_slots`, then the setting's measured slots (at least a ninth of the
    warm-up, the shared form's largest warm-up share being 0.9).

    Parameters
    ----------
    setting : {True, False, "atlas"}
        A key of :data:`RUNS`: the claims' quick or full run, or the quick atlas'.

    Returns
    -------
    dict
        The keywords ``slots``, ``warmup`` and ``replications`` of :func:`simulate`.
    """
    r = RUNS[setting]
    warm = warmup_slots(p)
    measured = max(r["measured"], -(-warm // 9))
    return run_length(measured, warm) | {"replications": r["replications"]}


DENSITY_CLOUDLETS = (10, 20, 30, 40, 50, 60)
ZIPF_LOW_HIGH = (0.4, 1.2)
CACHEABLE_LOW_HIGH = (0.2, 0.8)


@lru_cache(maxsize=256)
def _run(scheme: str, run: tuple, seed: int, extra: tuple = ()):
    try:
        return simulate(
            policy=scheme,
            seed=seed,
            keep_records=False,
            overload="transient",
            **dict(run),
            **dict(extra),
        )
    except UnstableRegimeError as err:  # no numbers at all (queues overflowed)
        return _Failed(str(err))


class _Failed:
    """A run that gave no numbers: every quantity NaN, never stationary."""

    stationary = False

    def __init__(self, note: str):
        self.stationarity = type("Verdict", (), {"note": note})()
        self.frame = pd.DataFrame()

    def __getitem__(self, name):
        return float("nan")


def measured_at(quick, seed: int, params: dict | None = None):
    """Where the claims are measured: the :data:`RUNS` setting, root seed and parameters."""
    setting = quick if quick == "atlas" else bool(quick)
    return (setting, int(seed), tuple(sorted((params or {}).items())))


def scheme_run(policy, ctx, **extra):
    """The run of scheme ``policy`` at ``ctx`` (:func:`measured_at`) with ``extra``
    parameters on top, through the claims' run cache (a run a scheme cannot tell apart is
    computed once); the result, or a run that gave no numbers (every quantity NaN, never
    stationary)."""
    setting, seed, base = ctx
    if extra.get("n_cloudlets") == 30:
        extra = {k: v for k, v in extra.items() if k not in ("n_cloudlets", "n_users")}
    values = dict(base) | extra
    # a reading the scheme's run ignores leaves it the same run: one key, computed once
    # (BL3's runs serve every reading of an atlas point, BL2's two of them)
    values = {k: v for k, v in values.items() if k not in IGNORED_READINGS[policy]}
    run = run_for(setting, **{k: v for k, v in values.items() if k in ("lam", "slot")})
    return _run(policy, tuple(sorted(run.items())), seed, tuple(sorted(values.items())))


def _flag(results) -> tuple[bool, str]:
    bad = [r for r in results if not r.stationary]
    note = "; ".join(sorted({r.stationarity.note for r in bad}))
    return not bad, note


UNBOUNDED = "BL2 unbounded"
"""The note of a point where BL2 is not stationary and the proposed scheme is: BL2's delay
grows with the run, the gain tends to 1 (the value shown is the finite run's)."""


def _gain(quantity, ctx, **extra) -> Measurement:
    p, b = scheme_run("proposed", ctx, **extra), scheme_run("BL2", ctx, **extra)
    ok, note = _flag((p, b))
    if p.stationary and not b.stationary:
        note = f"{UNBOUNDED} (the proposed scheme is stationary): {note}"
    return Measurement(1.0 - p[quantity] / b[quantity], ok, note)


def density_point(e: int) -> dict:
    """The parameters of Fig. 4's density E: E cloudlets, U = 3E users."""
    return {"n_cloudlets": e, "n_users": 3 * e}


def density_gains(quantity, ctx) -> dict:
    """The gain in ``quantity`` at every density of Fig. 4: E -> :class:`Measurement`."""
    return {e: _gain(quantity, ctx, **density_point(e)) for e in DENSITY_CLOUDLETS}


def _max_gain(quantity, ctx) -> Measurement:
    """Largest gain over the densities whose two runs are stationary; the densities where
    BL2 is unbounded (the proposed scheme stationary) are named in the note with the
    largest gain when their finite runs count too, never left out silently."""
    gains = density_gains(quantity, ctx)
    kept = {e: g.value for e, g in gains.items() if g.stationary}
    unbounded = {e: g.value for e, g in gains.items() if g.note.startswith(UNBOUNDED)}
    other = sorted(set(gains) - set(kept) - set(unbounded))
    parts = []
    if unbounded:
        with_them = max([*kept.values(), *unbounded.values()])
        where = ", ".join(f"E={e}" for e in unbounded)
        parts.append(f"{UNBOUNDED} at {where}; max with them {with_them:.3f}")
    if other:
        parts.append("not stationary (proposed): " + ", ".join(f"E={e}" for e in other))
    note = "; ".join(parts)
    if not kept:
        return Measurement(float("nan"), False, note or "no density ran stationary")
    best = max(kept, key=kept.get)
    return Measurement(kept[best], True, f"max at E={best}" + (f"; {note}" if note else ""))


def _below(a, b, quantity) -> float:
    """1.0 when the paired 95% interval of a − b (per replication) lies below 0, else 0.0."""
    if isinstance(a, _Failed) or isinstance(b, _Failed):
        return float("nan")
    d = a.frame[quantity].to_numpy(float) - b.frame[quantity].to_numpy(float)
    return float(d.mean() + t_half_width(d, 0.95) < 0.0)


def _is_below(quantity, ctx, lhs, rhs) -> Measurement:
    """lhs, rhs: (scheme, extra params); 1 if lhs's quantity is resolvably below rhs's."""
    a, b = scheme_run(lhs[0], ctx, **lhs[1]), scheme_run(rhs[0], ctx, **rhs[1])
    ok, note = _flag((a, b))
    return Measurement(_below(a, b, quantity), ok, note)


def _density_falls(quantity, ctx) -> Measurement:
    """1 if the proposed scheme's quantity at E = 40 is resolvably below E = 10 (Welch)."""
    lo, hi = (scheme_run("proposed", ctx, **density_point(e)) for e in (10, 40))
    ok, note = _flag((lo, hi))
    if not ok and (isinstance(lo, _Failed) or isinstance(hi, _Failed)):
        return Measurement(float("nan"), False, note)
    x, y = hi.frame[quantity].to_numpy(float), lo.frame[quantity].to_numpy(float)
    half = 1.96 * np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    return Measurement(float(x.mean() - y.mean() + half < 0.0), ok, note)


def _storage_cut(quantity, ctx) -> Measurement:
    two, four = (scheme_run("proposed", ctx, storage=s) for s in (2, 4))
    ok, note = _flag((two, four))
    return Measurement(1.0 - four[quantity] / two[quantity], ok, note)


def _value(quantity, scheme, ctx, **extra) -> Measurement:
    r = scheme_run(scheme, ctx, **extra)
    return Measurement(float(r[quantity]), r.stationary, r.stationarity.note)


P, B1, B2, B3 = "proposed", "BL1", "BL2", "BL3"
LOW_C, HIGH_C = ({"cacheable_ratio": c} for c in CACHEABLE_LOW_HIGH)
LOW_Z, HIGH_Z = ({"zipf": z} for z in ZIPF_LOW_HIGH)

MEASURES = {
    "fig3_p90_gain_vs_bl2": lambda c: _gain("p90_delay", c),
    "fig3_p99_gain_vs_bl2": lambda c: _gain("p99_delay", c),
    "fig3_mean_gain_vs_bl2": lambda c: _gain("mean_delay", c),
    "fig3_bl2_tail_below_bl3": lambda c: _is_below("p99_delay", c, (B2, {}), (B3, {})),
    "fig3_bl1_mean_above_proposed": lambda c: _is_below("mean_delay", c, (P, {}), (B1, {})),
    "fig3_hedged_share_bl2": lambda c: _value("hedged_fraction", B2, c),
    **{
        f"fig4_mean_gain_E{e}": (lambda c, e=e: _gain("mean_delay", c, **density_point(e)))
        for e in DENSITY_CLOUDLETS
    },
    **{
        f"fig4_p99_gain_E{e}": (lambda c, e=e: _gain("p99_delay", c, **density_point(e)))
        for e in DENSITY_CLOUDLETS
    },
    "fig4_max_mean_gain": lambda c: _max_gain("mean_delay", c),
    "fig4_max_p99_gain": lambda c: _max_gain("p99_delay", c),
    "fig4_proposed_mean_falls_with_density": lambda c: _density_falls("mean_delay", c),
    "fig4_bl2_mean_above_bl3_at_E10": lambda c: _is_below(
        "mean_delay", c, (B3, density_point(10)), (B2, density_point(10))
    ),
    "fig4_bl2_mean_below_bl3_at_E40": lambda c: _is_below(
        "mean_delay", c, (B2, density_point(40)), (B3, density_point(40))
    ),
    "fig4_bl2_p99_below_bl3_at_E40": lambda c: _is_below(
        "p99_delay", c, (B2, density_point(40)), (B3, density_point(40))
    ),
    "fig5_mean_cut_2_to_4": lambda c: _storage_cut("mean_delay", c),
    "fig5_p99_cut_2_to_4": lambda c: _storage_cut("p99_delay", c),
    "fig6_mean_falls_with_cacheable_ratio": lambda c: _is_below(
        "mean_delay", c, (P, HIGH_C), (P, LOW_C)
    ),
    "fig6_p99_falls_with_cacheable_ratio": lambda c: _is_below(
        "p99_delay", c, (P, HIGH_C), (P, LOW_C)
    ),
    "fig7_hit_rate_rises_with_z": lambda c: _is_below("hit_rate", c, (P, LOW_Z), (P, HIGH_Z)),
    "fig7_p99_falls_with_z": lambda c: _is_below("p99_delay", c, (P, HIGH_Z), (P, LOW_Z)),
}


def measure(claim_id: str, quick: bool = True, seed: int = 0) -> Measurement:
    """One claim measured with the root seed ``seed`` (:data:`CLAIMS` uses seed 0).

    Parameters
    ----------
    claim_id : str
        An id of ``data/claims/p2.csv`` (a key of :data:`MEASURES`).
    quick : bool
        The quick run (8 replications × 1000 measured slots) or the full one (8 × 8000).
    seed : int
        The root seed of the runs.

    Returns
    -------
    Measurement
        The value, whether every run behind it was stationary, and a note.
    """
    return MEASURES[claim_id](measured_at(quick, seed))


def seed_spread(quick: bool = True, seeds=range(6), claims=None) -> pd.DataFrame:
    """Every claim over several root seeds, to set the claims' tolerances.

    Parameters
    ----------
    quick : bool
        The claims' quick or full runs.
    seeds : iterable of int
        The root seeds.
    claims : iterable of str, optional
        Claim ids (default: every claim of :data:`MEASURES`).

    Returns
    -------
    pandas.DataFrame
        One row per claim: mean, std, min, max, the suggested tolerance (twice the standard
        deviation, at least 0.01; 0 for a yes/no row), how many seeds measured a
        non-stationary point, the number of seeds and one ``seed_<s>`` column per seed.
    """
    ids = list(MEASURES) if claims is None else list(claims)
    seeds = list(seeds)
    got = {s: [measure(c, quick, s) for c in ids] for s in seeds}
    raw = pd.DataFrame({s: [m.value for m in got[s]] for s in seeds}, index=ids)
    unstable = pd.Series(
        {c: sum(not got[s][i].stationary for s in seeds) for i, c in enumerate(ids)}
    )
    yes_no = raw.isin([0.0, 1.0]).all(axis=1) & raw.notna().all(axis=1)
    std = raw.std(axis=1, ddof=1)
    out = pd.DataFrame(
        {
            "mean": raw.mean(axis=1),
            "std": std,
            "min": raw.min(axis=1),
            "max": raw.max(axis=1),
            "tolerance": np.where(yes_no, 0.0, np.maximum(np.ceil(200 * std) / 100, 0.01)),
            "unstable_seeds": unstable,
        }
    )
    out["seeds"] = len(seeds)
    return pd.concat([out, raw.add_prefix("seed_")], axis=1).round(4)


CLAIMS = {claim_id: (lambda quick, c=claim_id: measure(c, quick, 0)) for claim_id in MEASURES}

ATLAS_CLAIMS = tuple(row.id for row in load_claims("p2").itertuples() if row.source == "paper")
"""The claims the paper makes (the source=paper rows of data/claims/p2.csv)."""
_RUN_CONTROL = {"policy", "slots", "warmup", "replications", "seed", "confidence"}


def atlas_point(*, quick: bool, seed: int, **params) -> dict[str, Measurement]:
    """Every atlas claim's measured value at one point of the plausible space.

    The claims are measured exactly as :data:`CLAIMS` measures them (the same runs, with
    ``params`` on top).

    Parameters
    ----------
    quick : bool
        True: a small setting, because a P2 point is expensive (22 simulations: four
        schemes at E = 30, the densities E = 10, 20, 40, 50, 60, the storage,
        cacheable-ratio and Zipf pairs): 3 replications × (warm-up of 30 tasks per user +
        500 measured) slots, with little power for the yes/no claims. False: the claims'
        own quick length (8 replications, 1000 measured).
    seed : int
        The root seed of the runs.
    **params
        One value for each row of :data:`~workbench.proactive.params.PARAMS` with
        ``plausible`` (the lost values sampled by the atlas, the readings ``cache_aware``
        and ``hedge_check`` at the reading's value); any other model row may be given too.

    Returns
    -------
    dict
        Claim id -> :class:`~workbench.claims.Measurement`; a run that is not stationary
        (or gave no numbers, its queues overflowing) makes the claims resting on it
        undetermined.
    """
    func = "atlas_point"
    quick = check_bool(quick, "quick", func)
    reject_unknown(func, params, set(PARAMS) - _RUN_CONTROL)
    values = PARAMS.check(func, seed=seed, **params)
    seed = values.pop("seed")
    ctx = measured_at("atlas" if quick else True, seed, values)
    if not set(ATLAS_CLAIMS) <= set(MEASURES):  # pragma: no cover - a table/code mismatch
        raise ParameterError(f"{func}: ATLAS_CLAIMS names claims that MEASURES does not have")
    return {claim: MEASURES[claim](ctx) for claim in ATLAS_CLAIMS}


def _atlas_cost(*, lam: float, **point) -> float:
    """What an atlas point costs, relative to the others: its runs' slots, which grow as
    1 / λ_u (a warm-up of 30 tasks per user); a point's time follows them
    (``benchmarks/bench_p2_atlas.py --point`` times one)."""
    return float(run_for("atlas", lam)["slots"])


ATLAS = AtlasSpec(
    evaluate=atlas_point,
    claims=ATLAS_CLAIMS,
    quick_points=4,
    seconds_per_evaluation=20.0,
    readings_per_batch=2,
    cost=_atlas_cost,
)
"""The quick atlas samples 4 points (× the readings): a point is 22 steady-state simulations,
so a few points keep the notebook busy for minutes; the full atlas (64 points) is the
verdict. A point's readings go to a worker in pairs, (default, cache_aware=False) and
(hedge_upload=least_wait, hedge_check=False): each pair shares BL3's runs, the first also
BL2's (:data:`~workbench.proactive.runs.IGNORED_READINGS`), fewer runs than reading by
reading and a finer split than all four at once. The points go to the workers most
expensive first (:func:`_atlas_cost`), so that the last batches are the short ones."""
