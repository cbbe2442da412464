"""Simulation output analysis shared by every paper's ``simulate``: is the run a steady state?

A simulated mean is a number only when the run reached a steady state. Every simulator in the
workbench hands this module, per replication, the series of its headline per-observation
quantity (each request's delay, each job's system time, ...) in arrival order, warm-up
included, and gets back a :class:`Stationarity` verdict that travels with its
:class:`~workbench.results.SimulationResult`.

Method
------
1. **Warm-up: MSER-5** (White 1997; Hoad, Robinson & Davies 2010, who found it the most
   reliable of the automatic truncation rules they compared). The series is cut into batches of
   five; the truncation point ``d`` minimises ``SSE(d) / (k - d)^2`` over the batch means that
   remain. It is applied once, to the average of the replications' series (after each fixed
   warm-up), and the same cut is used in every replication: a cut chosen on each series alone
   prefers to remove early outliers and biases a skewed series' halves. The estimate itself
   keeps each paper's documented fixed warm-up; MSER only decides what the trend test sees.
2. **Trend: batch means of the two halves, plus the von Neumann ratio.** The kept series (after
   the larger of the fixed warm-up and the MSER point) is cut into ``b`` (up to 32, at least 8)
   batch means. Two statistics per replication:

   - the difference of the means of the two halves, over its batch-means standard error
     (Welch's t; a drift or a growing queue moves the second half);
   - the von Neumann ratio of successive batch means (a random walk, or a mean that keeps
     moving, leaves neighbouring batches alike: strong positive lag-one correlation).

   Replications are independent. The half-means statistic is combined over them by Stouffer's
   z (an overloaded queue grows in every replication); the von Neumann statistic must be
   significant in every replication (intersection-union: its largest p-value), since summing it
   would turn the mild correlation of batch means in a stationary but strongly correlated
   queue into an alarm. The run is flagged when the smaller p-value, Bonferroni-doubled, falls
   below ``alpha`` (1e-3 by default: a paper figure has a few hundred points, and a false alarm
   on a stable point is as wrong as a missed overload).

   When MSER's point falls past the middle (the warm-up may never end), the trend test runs on
   everything after the fixed warm-up instead of on the short tail MSER would keep.

Known limit: a stable queue whose relaxation time is a sizeable part of the run (M/M/1 at
ρ = 0.95 with 10^4 customers spans about six relaxation times) is flagged in a fraction of
runs: such a run is too short to show its steady state, and the note says to lengthen it.

Why this and not one test: the half-means test alone misses a random walk (its halves differ,
but so do its batches); the von Neumann ratio alone reacts to batches that are too short for a
strongly correlated but stationary series; MSER alone says nothing about a run that drifts
from the start. Heidelberger–Welch's Cramér–von Mises test would do as well but needs a
spectral estimate at frequency zero, which is fragile on the short runs a slider view makes.

Intervals are clipped to each quantity's range (:func:`bounded_interval`): a time is never
negative, a probability stays in [0, 1]. The Student-t half-width is reported unchanged.

The replication engine (:func:`replicate`, :func:`finish`) runs independent replications from
one :class:`numpy.random.SeedSequence`, applies the detector and the model's load bound;
:mod:`workbench.precision` grows a run until its interval is narrow enough, as JMT does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from workbench.params import CONFIDENCE
from workbench.progress import finish_bar, open_bar
from workbench.results import SimulationResult
from workbench.seeding import replication_seeds
from workbench.validation import (
    EmptyRunError,
    ParameterError,
    UnstableRegimeError,
    check_choice,
    check_int,
    check_real,
    refusal,
)

__all__ = [
    "OVERLOAD",
    "Stationarity",
    "Replication",
    "mser5",
    "detect",
    "check_overload",
    "require_observations",
    "replicate",
    "finish",
]

OVERLOAD = ("raise", "transient")
METHOD = "MSER-5 + half-means/von Neumann batch-means trend test"
MAX_BATCHES = 32
MIN_BATCHES = 8
MIN_BATCH_SIZE = 8


@dataclass(frozen=True)
class Stationarity:
    """The detector's verdict on one simulated run (all its replications).

    Parameters
    ----------
    stationary : bool
        Whether the run passed: no trend and a warm-up that ended within the run.
    method : str
        The detector used.
    truncation : int
        Observations cut at the start of a replication (the larger of the fixed warm-up
        and the MSER-5 point; the largest over replications).
    observations : int
        Observations tested, summed over replications.
    first_half, second_half : float
        The pooled means of the two halves of the kept series.
    p_value : float
        The combined trend test's p-value.
    rho : float or None
        The model's load bound, when the caller gave one.
    note : str
        What was detected ("" when nothing was).
    tested : bool
        False when too few observations remained after the warm-up for the trend test
        (the run then counts as stationary, and ``note`` says so).
    """

    stationary: bool
    method: str = METHOD
    truncation: int = 0
    observations: int = 0
    first_half: float = math.nan
    second_half: float = math.nan
    p_value: float = math.nan
    rho: float | None = None
    note: str = ""
    tested: bool = True

    def as_dict(self) -> dict:
        return {
            "stationary": self.stationary,
            "truncation": self.truncation,
            "first_half": self.first_half,
            "second_half": self.second_half,
            "p_value": self.p_value,
            "rho": self.rho,
            "note": self.note,
        }


class Replication(NamedTuple):
    """What one replication hands the engine: its quantities, its series, its warm-up.

    Parameters
    ----------
    row : dict
        The replication's measured quantities (name -> value).
    series : numpy.ndarray
        The headline metric observation by observation, for the stationarity detector.
    warmup : int
        Observations of ``series`` that are the model's own warm-up (cut before testing).
    records : pandas.DataFrame or None
        Per-task records, when the caller asked for them.
    """

    row: dict
    series: np.ndarray
    warmup: int = 0
    records: pd.DataFrame | None = None


# ------------------------------------------------------------------------------------------
# Input checks (the engine's own arguments; a paper's simulate checks its model's)
# ------------------------------------------------------------------------------------------


def _check_text(value, name: str, func: str) -> str:
    if not isinstance(value, str):
        raise refusal(func, name, "a str", value)
    return value


def _check_series(value, name: str, func: str) -> np.ndarray:
    """A 1-D array of real numbers (NaN allowed: dropped by the detector)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise refusal(func, name, "a 1-D array of real numbers", value) from None
    if arr.ndim != 1 or isinstance(value, (str, bytes)) or value is None:
        raise refusal(func, name, "a 1-D array of real numbers", value)
    return arr


def _check_callable(value, name: str, func: str):
    if not callable(value):
        raise refusal(func, name, "a callable one(seed_sequence, index) -> Replication", value)
    return value


# ------------------------------------------------------------------------------------------
# The detector
# ------------------------------------------------------------------------------------------


def _mser_statistic(batch_means: np.ndarray) -> np.ndarray:
    """MSER(d) = SSE of batch_means[d:] / (k - d)^2 for d = 0 .. k - 1."""
    b = batch_means[::-1]
    m = np.arange(1, b.size + 1, dtype=float)
    s1 = np.cumsum(b)[::-1]
    s2 = np.cumsum(b * b)[::-1]
    m = m[::-1]
    sse = np.maximum(s2 - s1 * s1 / m, 0.0)
    return sse / (m * m)


def mser5(series) -> int:
    """The MSER-5 truncation point of ``series``, in observations (a multiple of 5).

    Batch means of five consecutive observations; ``d`` minimises the MSER statistic over the
    batches that leave at least five behind. Ties go to the earliest point. A result past the
    middle of the series means the warm-up did not end within the run.

    Parameters
    ----------
    series : array_like of float
        One replication's observations, in order.

    Returns
    -------
    int
        The number of observations to cut at the start.
    """
    y = _check_series(series, "series", "mser5")
    k = y.size // 5
    if k < 10:
        return 0
    means = y[: 5 * k].reshape(k, 5).mean(axis=1)
    stat = _mser_statistic(means)[: k - 5]
    return int(np.argmin(stat)) * 5


def _common_truncation(cleaned: list) -> int | None:
    """MSER-5 on the replications' average series (after each fixed warm-up), or None when
    that point falls past the middle (the warm-up may never end: test all after the warm-up).

    One cut for every replication, chosen on their average rather than on each series: a
    per-replication cut prefers to remove early outliers, which leaves a skewed but stationary
    series with a larger second half in most replications, and Stouffer's sum over many
    replications turns that selection bias into a false alarm (measured: 22 % alarms on
    i.i.d. Pareto(α = 1.2) series, 100 replications × 500).
    """
    parts = [y[w:] for y, w in cleaned]
    length = min(p.size for p in parts)
    if length < 50:
        return 0
    avg = np.mean([p[:length] for p in parts], axis=0)
    d = mser5(avg)
    return None if d > length // 2 else d


def _batch_means(y: np.ndarray) -> np.ndarray | None:
    b = min(MAX_BATCHES, y.size // MIN_BATCH_SIZE)
    b -= b % 2
    if b < MIN_BATCHES:
        return None
    size = y.size // b
    return y[y.size - b * size :].reshape(b, size).mean(axis=1)


def block_series(values: np.ndarray, warmup: int, limit: int) -> tuple[np.ndarray, int]:
    """A run's observations as the detector's series, in bounded memory.

    ``values`` as floats when at most ``limit`` long, else the means of consecutive blocks
    of b = ⌈n / (limit / 2)⌉ observations (a trailing partial block dropped), with the
    warm-up counted in blocks, rounded up. An inner step of the simulations: it trusts its
    inputs (a 1-d array, 0 ≤ ``warmup``, 2 ≤ ``limit``).

    Parameters
    ----------
    values : numpy.ndarray
        One observation per job or arrival, in order.
    warmup : int
        The observations the run itself discards as warm-up.
    limit : int
        The longest series handed to :func:`detect`.

    Returns
    -------
    series : numpy.ndarray
        The observations or their block means (floats).
    warmup : int
        The warm-up in the series' own units.
    """
    n = values.size
    if n <= limit:
        return np.asarray(values, dtype=float), warmup
    b = -(-n // (limit // 2))
    k = n // b
    return values[: k * b].reshape(k, b).mean(axis=1), -(-warmup // b)


#: batch means that differ by at most this fraction of their size are a constant series
_CONSTANT = 1e-9


def _trend_z(means: np.ndarray) -> tuple[float, float]:
    """(half-means z, von Neumann z) of one replication's batch means."""
    b = means.size
    scale = float(np.max(np.abs(means)))
    if float(np.ptp(means)) <= _CONSTANT * scale:
        # a constant series (fixed-size tasks on an uncongested path): its batch means
        # differ only by rounding of the order of 1e-16 relative, which the half-means t and
        # the von Neumann ratio would read as a perfectly separated trend
        return 0.0, 0.0
    h = b // 2
    first, second = means[:h], means[h:]
    var = first.var(ddof=1) / h + second.var(ddof=1) / h
    diff = second.mean() - first.mean()
    if var <= 0.0:
        z_half = 0.0 if diff == 0.0 else math.copysign(40.0, diff)
    else:
        t = diff / math.sqrt(var)
        z_half = float(stats.norm.ppf(np.clip(stats.t.cdf(t, 2 * h - 2), 1e-300, 1 - 1e-16)))
    dev = means - means.mean()
    denom = float(dev @ dev)
    if denom <= 0.0:
        z_vn = 0.0
    else:
        ratio = float(np.sum(np.diff(means) ** 2)) / denom
        z_vn = (2.0 - ratio) / math.sqrt(4.0 * (b - 2) / (b * b - 1.0))
    return z_half, z_vn


def _fmt(x: float, unit: str) -> str:
    return f"{x:.3g}{(' ' + unit) if unit else ''}"


def _rescaled(cleaned: list) -> tuple[list, int]:
    """The series times a power of two (exact) that brings their largest magnitude after the
    warm-up near 1, and its exponent e (the series times 2^-e): the tests are scale-free, but
    sums of squares of values near 1e308 overflow (a trend there read as stationary) and those
    of values near 1e-308 underflow. The warm-up is never tested: it neither sets the factor
    (a huge first value would hide a tested part whose squares underflow) nor is scaled (it
    could overflow). The factor is applied by ``ldexp``: 2.0**-e itself overflows when the
    largest value is subnormal."""
    big = max((float(np.abs(y[w:]).max()) for y, w in cleaned if y.size > w), default=0.0)
    if big == 0.0 or 2.0**-256 <= big <= 2.0**256:
        return cleaned, 0
    e = math.frexp(big)[1]
    return [(np.concatenate([y[:w], np.ldexp(y[w:], -e)]), w) for y, w in cleaned], e


def detect(
    series: Sequence,
    *,
    warmup: int | Sequence[int] = 0,
    alpha: float = 1e-3,
    unit: str = "",
    label: str = "mean",
    rho: float | None = None,
) -> Stationarity:
    """Is the run whose replications produced ``series`` a steady state?

    Parameters
    ----------
    series : sequence of 1-D arrays
        One per replication: the headline per-observation quantity in arrival order, warm-up
        included. A single 1-D array is taken as one replication.
    warmup : int or sequence of int
        The fixed warm-up (observations) the estimator already drops, per replication or for
        all.
    alpha : float
        Level of the combined trend test.
    unit, label : str
        For the note ("mean grows with run length: 15 s in the first half, 46 s in the
        second").
    rho : float, optional
        The model's load bound, recorded (``rho >= 1`` flags the run whatever the series).

    Returns
    -------
    Stationarity
    """
    f = "detect"
    alpha = check_real(alpha, "alpha", f, 0.0, 0.5, low_open=True)
    unit = _check_text(unit, "unit", f)
    label = _check_text(label, "label", f)
    if rho is not None:
        rho = check_real(rho, "rho", f, 0.0, None)
    if isinstance(series, np.ndarray) and series.ndim == 1:
        series = [series]
    if (
        isinstance(series, (str, bytes))
        or not hasattr(series, "__iter__")
        or (isinstance(series, np.ndarray) and series.ndim == 0)
    ):
        raise refusal(f, "series", "a sequence of 1-D arrays, one per replication", series)
    arrays = [_check_series(s, "series", f) for s in series]
    if not arrays:
        raise ParameterError(f"The 'series' parameter of {f} must hold at least one replication.")
    if np.ndim(warmup) == 0:
        warmups = [check_int(warmup, "warmup", f, 0)] * len(arrays)
    else:
        warmups = [check_int(x, "warmup", f, 0) for x in warmup]
        if len(warmups) != len(arrays):
            raise refusal(
                f,
                "warmup",
                f"an int or one int per replication ({len(arrays)})",
                got=f"{len(warmups)} values",
            )
    notes = []
    if rho is not None and rho >= 1.0:
        notes.append(f"the model loads a server to ρ = {rho:.3g} >= 1: queues grow without bound")
    cut_max, kept_total, late = 0, 0, 0
    halves, zs = [], []
    cleaned = []
    for y, w in zip(arrays, warmups, strict=True):
        y = y[np.isfinite(y)]
        cleaned.append((y, min(max(w, 0), y.size)))
    cleaned, exponent = _rescaled(cleaned)
    d_common = _common_truncation(cleaned)
    for y, w in cleaned:
        d = w + d_common if d_common is not None and w + d_common < y.size else w
        kept = y[d:]
        cut_max = max(cut_max, d)
        kept_total += kept.size
        if kept.size >= 2:
            h = kept.size // 2
            halves.append((kept[:h].mean(), kept[h:].mean(), h, kept.size - h))
        means = _batch_means(kept)
        if means is not None:
            zs.append(_trend_z(means))
    first = second = math.nan
    if halves:
        n1 = sum(h[2] for h in halves)
        n2 = sum(h[3] for h in halves)
        first = sum(h[0] * h[2] for h in halves) / n1
        second = sum(h[1] * h[3] for h in halves) / n2
        first, second = math.ldexp(first, exponent), math.ldexp(second, exponent)
    p_value = math.nan
    tested = bool(zs)
    if zs:
        z = np.asarray(zs)
        root = math.sqrt(len(zs))
        p_half = 2.0 * stats.norm.sf(abs(z[:, 0].sum() / root))
        # every replication must look like a random walk (intersection-union: the largest
        # p-value): summing z over replications would turn the mild correlation of batch means
        # in a stationary but strongly correlated queue into a false alarm
        p_vn = float(stats.norm.sf(z[:, 1].min()))
        p_value = float(min(1.0, 2.0 * min(p_half, p_vn)))
        if p_value < alpha:
            trend = "grows" if second > first else "falls" if second < first else "drifts"
            notes.append(
                f"{label} {trend} with run length: {_fmt(first, unit)} in the first half, "
                f"{_fmt(second, unit)} in the second (trend test p = {p_value:.2g})"
            )
    if notes:  # for the note only: replications that alone say the warm-up never ends
        late = sum(1 for y, w in cleaned if y.size - w >= 50 and mser5(y[w:]) > (y.size - w) // 2)
    if notes and late:
        notes.append(f"MSER-5 finds no end to the warm-up in {late} of {len(arrays)} replications")
    if not tested:
        notes_short = "too few observations after the warm-up for the trend test"
    else:
        notes_short = ""
    stationary = not notes
    note = "; ".join(notes) if notes else notes_short
    return Stationarity(
        stationary=stationary,
        truncation=int(cut_max),
        observations=int(kept_total),
        first_half=float(first),
        second_half=float(second),
        p_value=p_value,
        rho=None if rho is None else float(rho),
        note=note,
        tested=tested,
    )


def check_overload(
    func: str,
    overload: str,
    *,
    rho: float | None = None,
    stationarity: Stationarity | None = None,
    what: str = "",
) -> list[str]:
    """Apply the ``overload`` policy: raise, or return the notes of a transient run.

    Parameters
    ----------
    func : str
        The public function the policy is applied for (named in the error).
    overload : {"raise", "transient"}
        ``"raise"`` raises :class:`UnstableRegimeError` when ``rho`` is at least 1 or the
        detector found the run non-stationary; ``"transient"`` returns notes instead.
    rho : float or None
        The model's load bound, when known.
    stationarity : Stationarity or None
        The detector's verdict, when the run was tested.
    what : str
        What was simulated, for the message.

    Returns
    -------
    list of str
        Notes saying the numbers are finite-horizon values, not steady-state means (empty
        for a stationary run).
    """
    func = _check_text(func, "func", "check_overload")
    overload = check_choice(overload, "overload", func, OVERLOAD)
    what = _check_text(what, "what", func)
    if rho is not None:
        rho = check_real(rho, "rho", func, 0.0, None)
    if stationarity is not None and not isinstance(stationarity, Stationarity):
        raise refusal(func, "stationarity", "a Stationarity or None", stationarity)
    notes = []
    prefix = f"{what}: " if what else ""
    if rho is not None and rho >= 1.0:
        if overload == "raise":
            raise UnstableRegimeError(
                f"{func}: {prefix}the model loads a server to ρ = {rho:.3g} >= 1, so queues "
                f"grow without bound and no steady-state mean exists. Lower the load, or pass "
                f"overload='transient' for the finite-horizon numbers."
            )
        notes.append(
            f"overloaded (ρ = {rho:.3g} >= 1): finite-horizon numbers that grow with the run "
            f"length, not steady-state means"
        )
    if stationarity is not None and not stationarity.stationary:
        if overload == "raise" and not (rho is not None and rho >= 1.0):
            raise UnstableRegimeError(
                f"{func}: {prefix}the run is not a steady state ({stationarity.note}). Lower "
                f"the load or lengthen the run, or pass overload='transient' for the "
                f"finite-horizon numbers."
            )
        notes.append(f"not stationary: {stationarity.note}")
    return notes


def require_observations(
    func: str,
    counts,
    *,
    what: str = "requests completed after the warm-up",
    hint: str = "",
) -> None:
    """Raise :class:`EmptyRunError` when a replication measured nothing (never return NaN).

    Parameters
    ----------
    func : str
        The public function that ran (named in the error).
    counts : array_like of int
        Observations measured by each replication.
    what : str
        What the observations are, for the message.
    hint : str
        How to get observations (a longer run, a lighter load), appended to the message.
    """
    func = _check_text(func, "func", "require_observations")
    what = _check_text(what, "what", func)
    hint = _check_text(hint, "hint", func)
    try:
        counts = np.atleast_1d(np.asarray(counts, dtype=float))
    except (TypeError, ValueError):
        raise refusal(func, "counts", "observation counts (numbers)", counts) from None
    if np.isnan(counts).any() or isinstance(counts, str):
        raise refusal(func, "counts", "observation counts (numbers)", counts)
    if counts.size == 0 or np.any(counts <= 0):
        empty = int(np.sum(counts <= 0)) if counts.size else 1
        raise EmptyRunError(
            f"{func}: {empty} of {max(counts.size, 1)} replications have no {what}, so there is "
            f"nothing to estimate. {hint or 'Raise the arrival rate or lengthen the run.'}"
        )


# ------------------------------------------------------------------------------------------
# The replication engine
# ------------------------------------------------------------------------------------------


def replicate(
    one: Callable[[np.random.SeedSequence, int], Replication],
    *,
    replications: int,
    seed=0,
    progress: bool = False,
    desc: str = "",
    start: int = 0,
) -> list[Replication]:
    """Run ``one(seed_sequence, index)`` for ``replications`` independent replications.

    The seeds are the children ``start .. start + replications - 1`` of
    ``SeedSequence(seed)``: the same seed gives the same replications, and a longer run
    (``start`` > 0) extends a shorter one with fresh, independent streams.

    Parameters
    ----------
    one : callable
        ``one(seed_sequence, index) -> Replication``, one replication of the model.
    replications : int
        How many replications to run.
    seed : int or numpy.random.SeedSequence
        The run's seed.
    progress : bool
        Show a progress bar.
    desc : str
        The progress bar's label.
    start : int
        Index of the first replication.

    Returns
    -------
    list of Replication
        One per index, in order.
    """
    f = "replicate"
    one = _check_callable(one, "one", f)
    replications = check_int(replications, "replications", f, 1, 10**6)
    start = check_int(start, "start", f, 0, 10**6)
    desc = _check_text(desc, "desc", f)
    if not isinstance(progress, (bool, np.bool_)):
        raise refusal(f, "progress", "a bool", progress)
    if not isinstance(seed, np.random.SeedSequence):
        seed = check_int(seed, "seed", f, 0, 2**128 - 1)
    children = replication_seeds(seed, replications, start)
    bar = open_bar(replications, desc, progress)
    out = []
    try:
        for i, child in enumerate(children):
            out.append(one(child, start + i))
            if bar is not None:
                bar.update(1)
    finally:
        finish_bar(bar)
    return out


def finish(
    reps: Sequence[Replication],
    *,
    func: str,
    metric: str,
    quantities: Sequence[str],
    confidence: float,
    run_length: int,
    run_unit: str,
    overload: str = "raise",
    bounds: Mapping[str, tuple[float, float]] | None = None,
    rho: float | None = None,
    notes: Sequence[str] = (),
    info: dict | None = None,
    unit: str = "",
    alpha: float = 1e-3,
    count: str | None = None,
    empty_what: str = "requests completed after the warm-up",
    empty_hint: str = "",
    records: pd.DataFrame | None = None,
    transient: Stationarity | None = None,
):
    """Detector, overload policy and empty-run check, then the :class:`SimulationResult`.

    Parameters
    ----------
    reps : sequence of Replication
        The replications of one run.
    func, metric, quantities
        The public function (named in errors and notes), the headline quantity and every
        quantity of the rows to report with an interval.
    confidence : float
        The intervals' confidence level.
    run_length, run_unit
        The length of a replication and its unit, for the result's description.
    overload : {"raise", "transient"}
        See :func:`check_overload`.
    bounds : mapping or None
        ``quantity -> (low, high)``: intervals clipped to a quantity's range.
    rho : float or None
        The model's load bound, when known.
    notes : sequence of str
        The caller's own notes, kept in the result.
    info : dict or None
        Extra fields of the result.
    unit : str
        The headline quantity's unit.
    alpha : float
        The detector's significance level.
    count : str or None
        A row quantity holding each replication's number of measured observations; without
        it the kept length of each series is used.
    empty_what, empty_hint
        The message of :func:`require_observations`.
    records : pandas.DataFrame or None
        Per-task records, kept in the result.
    transient : Stationarity or None
        A verdict of ``stationary=False`` the model gave before the run (P4's fill bound: a
        queue still filling its room in the measured part): the result is not stationary
        whatever the series say (the detector's figures are kept, its method and note come
        after the model's), under the same ``overload`` policy.

    Returns
    -------
    SimulationResult
        Means with intervals over replications, the stationarity verdict and the notes.
    """
    func = _check_text(func, "func", "finish")
    if isinstance(reps, (str, bytes)) or not isinstance(reps, Sequence) or not reps:
        raise refusal(func, "reps", "a non-empty sequence of Replication", reps)
    if not all(isinstance(r, Replication) for r in reps):
        raise refusal(func, "reps", "a non-empty sequence of Replication", reps)
    metric = _check_text(metric, "metric", func)
    if (
        isinstance(quantities, str)
        or not isinstance(quantities, Sequence)
        or not all(isinstance(q, str) for q in quantities)
    ):
        raise refusal(func, "quantities", "a sequence of quantity names", quantities)
    confidence = CONFIDENCE.check(confidence, func)
    run_length = check_int(run_length, "run_length", func, 1)
    run_unit = _check_text(run_unit, "run_unit", func)
    if bounds is not None and not isinstance(bounds, Mapping):
        raise refusal(func, "bounds", "a dict quantity -> (low, high), or None", bounds)
    if isinstance(notes, str) or not isinstance(notes, Sequence):
        raise refusal(func, "notes", "a sequence of str", notes)
    if info is not None and not isinstance(info, Mapping):
        raise refusal(func, "info", "a dict or None", info)
    if records is not None and not isinstance(records, pd.DataFrame):
        raise refusal(func, "records", "a DataFrame or None", records)
    for name, q in (("metric", metric), *(("quantities", q) for q in quantities)):
        if not all(isinstance(r.row, Mapping) and q in r.row for r in reps):
            have = sorted(map(str, reps[0].row)) if isinstance(reps[0].row, Mapping) else []
            raise refusal(func, name, f"quantities every replication's row has {have}", q)
    if count is not None and not all(isinstance(r.row, Mapping) and count in r.row for r in reps):
        raise refusal(func, "count", "the name of a quantity every replication's row has", count)
    # observations a replication measured: its row's count, or its kept series' length; a
    # series with no finite value after the warm-up measured nothing (a NaN mean otherwise)
    finite = [
        int(np.isfinite(_check_series(r.series, "series", func)[r.warmup :]).sum()) for r in reps
    ]
    if count is not None:
        counts = [r.row[count] if f else 0 for r, f in zip(reps, finite, strict=True)]
    else:
        counts = finite
    require_observations(func, counts, what=empty_what, hint=empty_hint)
    if transient is not None and (not isinstance(transient, Stationarity) or transient.stationary):
        raise refusal(func, "transient", "a Stationarity with stationary=False, or None", transient)
    verdict = detect(
        [r.series for r in reps],
        warmup=[r.warmup for r in reps],
        alpha=alpha,
        unit=unit,
        label=metric,
        rho=rho,
    )
    if transient is not None:  # the model's verdict first, the detector's figures kept
        verdict = replace(
            verdict,
            stationary=False,
            method=f"{transient.method}; {verdict.method}",
            note="; ".join(n for n in (transient.note, verdict.note) if n),
        )
    notes = [*notes, *check_overload(func, overload, rho=rho, stationarity=verdict)]
    frame = pd.DataFrame([r.row for r in reps])
    frame.insert(0, "replication", np.arange(len(reps)))
    if records is None:
        parts = [r.records for r in reps if r.records is not None]
        records = pd.concat(parts, ignore_index=True) if parts else None
    return SimulationResult.from_replications(
        frame,
        metric,
        quantities,
        confidence=confidence,
        run_length=run_length,
        run_unit=run_unit,
        notes=notes,
        records=records,
        info=info,
        bounds=bounds,
        stationarity=verdict,
    )
