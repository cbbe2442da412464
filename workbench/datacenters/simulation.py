"""Seeded simulation of the two-center network and of the ring, with confidence intervals.

Both follow the workbench's contract: every argument keyword-only, or a
:class:`~workbench.datacenters.P3Params` (defaults and ranges from its table), and a
:class:`workbench.results.SimulationResult` back. ``lam`` is the absolute arrival rate of
each center. :func:`simulate_to_precision` adds replications until a target precision (the
shared loop of :func:`workbench.output_analysis.to_precision`).

Each replication starts empty, discards its first ``warmup`` fraction of events and runs the
jitted jump-chain kernel on uniforms drawn from its own stream (child r of
``numpy.random.SeedSequence(seed)``, through the shared engine of
:mod:`workbench.output_analysis`): same seed, same numbers. Every loop is bounded: a
replication is exactly ``events`` jumps of the chain.

Output analysis
---------------
Both networks are loss systems with finitely many states: stable at every load, so the
stationarity detector must stay silent (a flag would be a false alarm, or a warm-up too
short for the run). What it sees is the *per-arrival loss indicator* in arrival order,
warm-up included: for :func:`simulate`, 1 for each class-1 request lost and 0 for each one
served (its mean is the headline β₁); for :func:`simulate_ring`, the same over the requests
of every center (its mean is the headline β). This is the series whose mean is the
estimate, one observation per request as for the other papers' per-request delays; the
time-weighted occupancies (``p_full``, ``mean_busy``) are functions of the same chain. A
series longer than 65,536 arrivals is handed over as means of consecutive blocks of
arrivals (at most 32,768 of them), so the memory kept per replication stays bounded.
Intervals are clipped to each quantity's range (probabilities in [0, 1], rates and means
>= 0).
"""

from __future__ import annotations

import math
import time
from functools import partial

import numpy as np
import pandas as pd

from workbench.datacenters.exact import solve_exact
from workbench.datacenters.kernels import (
    ARRIVALS,
    CLASS_STRIDE,
    OCC_BOTH_FULL,
    OCC_BUSY1,
    OCC_BUSY2,
    OCC_FULL1,
    OCC_FULL2,
    OCC_TIME,
    REJECTED_AT_ONCE,
    REJECTED_FORWARDED,
    RING_BUSY,
    RING_FULL,
    RING_TIME,
    SERVED_LOCALLY,
    SERVED_REMOTELY,
    Centers,
    simulate_ring_kernel,
    simulate_two_centers_kernel,
)
from workbench.datacenters.limit import limit_analysis
from workbench.datacenters.params import CENTERS, DEFAULTS, P3Params, Ring
from workbench.output_analysis import Replication, block_series, finish, replicate
from workbench.params import takes
from workbench.precision import precision_keywords, to_precision
from workbench.results import SimulationResult
from workbench.validation import (
    ParameterError,
    check_budget,
    check_choice,
    refusal,
)

__all__ = [
    "simulate",
    "simulate_to_precision",
    "simulate_ring",
    "ring_table",
    "warm_up",
    "QUANTITIES",
]

QUANTITIES = (
    "beta1",
    "beta2",
    "loss_rate",
    "mean_busy1",
    "mean_busy2",
    "p_full1",
    "p_full2",
    "p_both_full",
)


def _bounds(quantities) -> dict:
    """Each quantity's range: rates and mean numbers of busy servers >= 0, else
    probabilities."""
    nonnegative = ("loss_rate", "mean_busy")
    return {q: (0.0, math.inf) if q.startswith(nonnegative) else (0.0, 1.0) for q in quantities}


#: longest series handed to the detector per replication (longer runs: block means)
MAX_SERIES = 2**16
OVERLOAD = ("raise", "transient")
#: two-center events (events × replications) one call may simulate
MAX_WORK = 10**9


def _check_run(func, events, replications, centers=2) -> None:
    """Bound a call before any work: its event count (``MAX_WORK`` events × centers / 2, about
    a minute on one core) and its memory (two uniforms and a fate byte per event of one
    replication, plus the series the detector keeps for every replication)."""
    work = events * replications * centers / 2
    if work > MAX_WORK:
        raise ParameterError(
            f"The run of {func} is too long: events * replications = {events:,} * "
            f"{replications:,} over {centers} centers is about {work:.3g} two-center events, "
            f"more than the {MAX_WORK:.0e} the workbench simulates in one call (about a "
            "minute on one core); use fewer replications or events, or split the study."
        )
    check_budget(
        func,
        "events",
        events,
        17.0 * events + 8.0 * replications * min(events, MAX_SERIES),
        "one replication's random inputs and every replication's loss series",
    )


def _one_two_centers(lam, servers, mu, p, events, skip, seed_seq, index) -> Replication:
    """One replication: the estimates, the conservation counts and the class-1 loss series."""
    gen = np.random.default_rng(seed_seq)
    u_event = gen.random(events)
    u_forward = gen.random(events)
    lost1 = np.empty(events, np.uint8)
    centers = Centers(
        lam1=float(lam[0]),
        lam2=float(lam[1]),
        mu1=float(mu[0]),
        mu2=float(mu[1]),
        p1=float(p[0]),
        p2=float(p[1]),
        cap1=int(servers[0]),
        cap2=int(servers[1]),
        busy1=0,
        busy2=0,
    )
    counts, occ, _, n1, warm1 = simulate_two_centers_kernel(
        centers, u_event, u_forward, skip, lost1
    )
    row = {}
    rejected = []
    for i in (1, 2):
        base = CLASS_STRIDE * (i - 1)
        arrivals = counts[base + ARRIVALS]
        rej = counts[base + REJECTED_AT_ONCE] + counts[base + REJECTED_FORWARDED]
        rejected.append(rej)
        # class 1 is the headline: a run without class-1 arrivals raises (EmptyRunError);
        # a class 2 without arrivals lost none of them (said in the notes)
        row[f"beta{i}"] = rej / arrivals if arrivals else (math.nan if i == 1 else 0.0)
        row[f"arrivals{i}"] = int(arrivals)
        row[f"local{i}"] = int(counts[base + SERVED_LOCALLY])
        row[f"remote{i}"] = int(counts[base + SERVED_REMOTELY])
        row[f"rejected{i}"] = int(rej)
    t = occ[OCC_TIME]
    row["loss_rate"] = (rejected[0] + rejected[1]) / t
    row["mean_busy1"] = occ[OCC_BUSY1] / t
    row["mean_busy2"] = occ[OCC_BUSY2] / t
    row["p_full1"] = occ[OCC_FULL1] / t
    row["p_full2"] = occ[OCC_FULL2] / t
    row["p_both_full"] = occ[OCC_BOTH_FULL] / t
    row["time"] = t
    series, warm = block_series(lost1[:n1], warm1, MAX_SERIES)
    return Replication(row, series, warm)


def _two_centers_run(par, func, *, metric, overload, replications):
    """The replication function and the arguments of ``finish`` for the two centers."""
    lam, events, warmup = par.lam, par.events, par.warmup
    _check_run(func, events, replications)
    model = {"lam": lam, "servers": par.servers, "mu": par.mu, "p": par.p}
    one = partial(_one_two_centers, lam, par.servers, par.mu, par.p, events, int(warmup * events))
    return one, {
        "func": func,
        "metric": metric,
        "quantities": QUANTITIES,
        "confidence": par.confidence,
        "run_length": events,
        "run_unit": "events",
        "overload": overload,
        "bounds": _bounds(QUANTITIES),
        "count": "arrivals1",
        "empty_what": "class-1 arrivals after the warm-up (β₁ is a fraction of them)",
        "empty_hint": (
            f"λ₁ = {lam[0]:g} is too small for {events:,} events with λ₂ = {lam[1]:g}: raise "
            "λ₁ or the number of events."
        ),
        "info": model | {"warmup": warmup, "seed": par.seed},
    }


@takes(P3Params, *CENTERS, "events", "replications", "seed", "confidence", "warmup")
def simulate(par, *, overload: str = "raise") -> SimulationResult:
    """Simulate the two-center network; blocking probabilities with confidence intervals.

    Parameters
    ----------
    par : P3Params, or its keywords
        The fields below (every one keyword-only; defaults from
        :data:`~workbench.datacenters.PARAMS`).
    lam, servers, mu, p : pairs
        As in :func:`workbench.datacenters.blocking_exact` (``lam`` absolute).
    events : int
        Events (arrivals and departures) per replication, in [1000, 5e7].
    replications : int
        Independent replications (each starts empty and discards its warm-up), in [2, 1000].
    seed : int
        Root of the replications' streams: same seed, same numbers.
    confidence : float
        Confidence level of the Student-t intervals (clipped to each quantity's range), in
        [0.5, 0.999].
    warmup : float
        Fraction of each replication's events discarded, in [0, 0.9].
    overload : {"raise", "transient"}
        What to do if the stationarity detector finds the run is not a steady state (the
        network is a finite loss system, stable at every load: this means the warm-up was
        too short for the run): raise :class:`workbench.validation.UnstableRegimeError`, or
        return the finite-horizon numbers with ``stationary=False`` and a note.

    Returns
    -------
    SimulationResult
        Metric ``beta1``; quantities beta2, loss_rate (requests lost per unit time),
        mean_busy1, mean_busy2, p_full1, p_full2, p_both_full. ``result.frame`` holds one row
        per replication, including the fate counts (arrivals, served locally, served by the
        other center, rejected) and the simulated time; ``result.stationarity`` is the
        detector's verdict on the class-1 loss indicators. A run with no class-1 arrival
        after the warm-up raises :class:`workbench.validation.EmptyRunError`.

    References
    ----------
    Fricker et al. (2016), Section 2.1 (the model simulated).
    """
    overload = check_choice(overload, "overload", "simulate", OVERLOAD)
    one, kwargs = _two_centers_run(
        par, "simulate", metric="beta1", overload=overload, replications=par.replications
    )
    reps = replicate(one, replications=par.replications, seed=par.seed)
    return finish(reps, notes=_class2_note(reps), **kwargs)


def _class2_note(reps) -> list[str]:
    empty = sum(r.row["arrivals2"] == 0 for r in reps)
    if not empty:
        return []
    return [
        f"{empty} of {len(reps)} replications had no class-2 arrival after the warm-up: "
        "β₂ = 0 there (nothing was lost), not a measured probability"
    ]


@takes(P3Params, *CENTERS, "events", "seed", "confidence", "warmup")
@precision_keywords(unit="", overload="keyword")
def simulate_to_precision(
    par, *, target, metric: str = "beta1", overload: str = "raise"
) -> SimulationResult:
    """Add replications of :func:`simulate` until ``metric``'s interval is narrow enough.

    The workbench's shared precision loop (:func:`workbench.precision.to_precision`): it
    starts with ``initial`` replications and projects the number needed from the current
    half-width, until the half-width is at most ``rel_half_width`` times the estimate, or at
    most ``half_width`` (absolute) when that is given instead; with neither, the target is
    ± 2 % of the estimate. It stops at ``max_replications`` with ``converged=False`` and a
    note. A run the stationarity detector finds non-stationary stops with
    :class:`workbench.validation.UnstableRegimeError`. Replication r is that of
    ``simulate(..., seed=seed)``: same seed, same numbers.

    Parameters
    ----------
    par : P3Params, or its keywords
        ``lam``, ``servers``, ``mu``, ``p``, ``events``, ``seed``, ``confidence``,
        ``warmup``, as in :func:`simulate` (every argument keyword-only).
    metric : str
        A quantity of :func:`simulate` (``beta1``, ``beta2``, ``loss_rate``, ...); an
        absolute ``half_width`` is in its unit.
    overload : {"raise"}
        A run the stationarity detector flags stops the loop with
        :class:`workbench.validation.UnstableRegimeError` (the precision of a run that is no
        steady state means nothing); ``"transient"`` is refused here (use :func:`simulate`).

    Returns
    -------
    SimulationResult
        As :func:`simulate`'s, with ``info["target"]`` the target half-width.
    """
    func = "simulate_to_precision"
    metric = check_choice(metric, "metric", func, QUANTITIES)
    cap = target.max_replications
    one, kwargs = _two_centers_run(par, func, metric=metric, overload="raise", replications=cap)
    result = to_precision(
        one, target=target, seed=par.seed, desc=f"{metric} {target.shown}", **kwargs
    )
    return result.with_(info={**result.info, "target": target.value})


def _one_ring(ring, events, skip, seed_seq, index) -> Replication:
    n = ring.rates.size
    gen = np.random.default_rng(seed_seq)
    lost = np.empty(events, np.uint8)
    counts, occ, _, n_arr, warm = simulate_ring_kernel(
        ring.rates,
        ring.mu,
        ring.p,
        ring.servers,
        np.zeros(n, np.int64),
        gen.random(events),
        gen.random(events),
        skip,
        lost,
    )
    rejected = counts[:, REJECTED_AT_ONCE] + counts[:, REJECTED_FORWARDED]
    arrivals = counts[:, ARRIVALS]
    betas = rejected / np.maximum(arrivals, 1)
    t = occ[0, RING_TIME]
    total = int(arrivals.sum())
    row = {"beta": rejected.sum() / total if total else math.nan}
    row |= {f"beta{j}": betas[j] for j in range(n)}
    row |= {f"p_full{j}": occ[j + 1, RING_FULL] / t for j in range(n)}
    row |= {f"mean_busy{j}": occ[j + 1, RING_BUSY] / t for j in range(n)}
    row["arrivals"] = total
    series, warm = block_series(lost[:n_arr], warm, MAX_SERIES)
    return Replication(row, series, warm)


# the centers are the ring's own keywords, not the object's pairs
@takes(P3Params, *CENTERS, "events", "replications", "seed", "confidence", "warmup")
def simulate_ring(par, *, lam, servers, mu, p, overload="raise") -> SimulationResult:
    """Simulate the ring of J centers; per-center blocking with confidence intervals.

    A request finding center j full is forwarded to center j-1 with probability p_j and to
    j+1 with probability p_j (so p_j <= 1/2), and rejected if its target is full too.

    Parameters
    ----------
    par : P3Params, or its keywords
        ``events``, ``replications``, ``seed``, ``confidence``, ``warmup``, as in
        :func:`simulate` (its pairs are the two-center model's: the ring's centers are
        given by the keywords below).
    lam : sequence of J floats (3 <= J <= 64)
        Absolute arrival rate of each center.
    servers : int or sequence of J ints in [1, 5000]
    mu : float or sequence of J floats
    p : float or sequence of J floats in [0, 0.5]
    events, replications, seed, confidence, warmup, overload
        As in :func:`simulate`; the stationarity detector sees the loss indicator of every
        request, in arrival order.

    Returns
    -------
    SimulationResult
        Metric ``beta`` (the fraction of all requests lost); quantities ``beta0`` ...
        (per center, centers numbered from 0), ``p_full0`` ..., ``mean_busy0`` ....
        :func:`ring_table` arranges them one row per center.

    References
    ----------
    Fricker et al. (2016), Section 2.4 (ring of data centers).
    """
    func = "simulate_ring"
    ring = Ring.of(func, lam, servers, mu, p)
    return run_ring(ring, par, check_choice(overload, "overload", func, OVERLOAD), func)


def run_ring(ring: Ring, par, overload: str, func: str) -> SimulationResult:
    """:func:`simulate_ring` of a checked ring (it trusts ``ring``, ``par`` and ``overload``:
    the public functions check them at their door).

    Parameters
    ----------
    ring : Ring
        The centers: absolute arrival rates, servers (int), service rates and forwarding
        probabilities.
    par : P3Params
        The run: ``events``, ``replications``, ``seed``, ``confidence``, ``warmup``.
    overload : {"raise", "transient"}
        As in :func:`simulate`.
    func : str
        The public function the errors name.

    Returns
    -------
    SimulationResult
        As :func:`simulate_ring`'s.
    """
    events = par.events
    n = ring.rates.size
    _check_run(func, events, par.replications, centers=n)
    one = partial(_one_ring, ring, events, int(par.warmup * events))
    reps = replicate(one, replications=par.replications, seed=par.seed)
    quantities = ["beta"] + [f"{q}{j}" for q in ("beta", "p_full", "mean_busy") for j in range(n)]
    return finish(
        reps,
        func=func,
        metric="beta",
        quantities=quantities,
        confidence=par.confidence,
        run_length=events,
        run_unit="events",
        overload=overload,
        bounds=_bounds(quantities),
        count="arrivals",
        empty_what="arrivals after the warm-up",
        empty_hint="Raise the arrival rates or the number of events.",
        info={"centers": n},
    )


def ring_table(result: SimulationResult) -> pd.DataFrame:
    """A :func:`simulate_ring` result, one row per center.

    Parameters
    ----------
    result : SimulationResult
        What :func:`simulate_ring` returned.

    Returns
    -------
    pandas.DataFrame
        ``center``, ``beta`` with its ``half_width``, ``ci_low`` and ``ci_high``, ``p_full``
        and ``mean_busy``.
    """
    if not isinstance(result, SimulationResult) or "centers" not in result.info:
        raise refusal(
            "ring_table",
            "result",
            "the SimulationResult of simulate_ring",
            got=f"{type(result).__name__}",
        )
    summary = result.summary.set_index("quantity")
    rows = []
    for j in range(result.info["centers"]):
        b = summary.loc[f"beta{j}"]
        rows.append(
            {
                "center": j,
                "beta": b["estimate"],
                "half_width": b["half_width"],
                "ci_low": b["ci_low"],
                "ci_high": b["ci_high"],
                "p_full": summary.loc[f"p_full{j}", "estimate"],
                "mean_busy": summary.loc[f"mean_busy{j}", "estimate"],
            }
        )
    return pd.DataFrame(rows)


def warm_up() -> str:
    """Load (or, on the very first run, compile) the jitted kernels; say which it was.

    The notebook calls it first, so that no solve time shown later includes compilation.

    Returns
    -------
    str
        Whether the kernels were compiled or loaded from the cache, and in what time.
    """
    t0 = time.perf_counter()
    small = DEFAULTS.trusted(lam=(3.0, 2.0), servers=(4, 4), mu=(1.0, 1.0), p=(0.5, 0.5))
    solve_exact(small)
    solve_exact(small.trusted(servers=(20, 2)))
    limit_analysis(DEFAULTS.trusted(load=(1.5, 0.8), c=(1.0, 1.0), mu=(1.0, 1.0), p=(0.6, 0.3)))
    simulate(small.trusted(events=1000, replications=2, seed=0, confidence=0.95, warmup=0.1))
    seconds = time.perf_counter() - t0
    if seconds > 2.0:
        return f"compiled the kernels in {seconds:.1f} s (first run only; cached from now on)"
    return f"kernels loaded from the cache in {seconds:.2f} s"
