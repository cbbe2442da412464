"""Seeded simulation of the two-center network and of the ring, with confidence intervals.

Both follow the workbench's contract::

    simulate(lam, servers, mu, p, *, events=..., replications=..., seed=0, confidence=0.95)
        -> workbench.results.SimulationResult

Each replication starts empty, discards its first ``warmup`` fraction of events and runs the
jitted jump-chain kernel on uniforms drawn from its own stream
(``numpy.random.SeedSequence(seed).spawn(replications)``): same seed, same numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

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
    simulate_ring_kernel,
    simulate_two_centers_kernel,
)
from workbench.datacenters.model import _ring_args
from workbench.datacenters.params import PARAMS
from workbench.results import SimulationResult
from workbench.stats import t_half_width
from workbench.validation import ParameterError, check_choice, check_int, check_real

__all__ = ["simulate", "simulate_until", "simulate_ring", "ring_table", "QUANTITIES"]

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


def _run_two_centers(lam, servers, mu, p, *, events, skip, stream) -> dict:
    """One replication: the estimates and the conservation counts."""
    gen = np.random.default_rng(stream)
    u_event = gen.random(events)
    u_forward = gen.random(events)
    counts, occ, _ = simulate_two_centers_kernel(
        lam[0], lam[1], mu[0], mu[1], p[0], p[1], servers[0], servers[1], 0, 0,
        u_event, u_forward, skip,
    )  # fmt: skip
    row = {}
    rejected = []
    for i in (1, 2):
        base = CLASS_STRIDE * (i - 1)
        arrivals = counts[base + ARRIVALS]
        rej = counts[base + REJECTED_AT_ONCE] + counts[base + REJECTED_FORWARDED]
        rejected.append(rej)
        row[f"beta{i}"] = rej / arrivals if arrivals else 0.0
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
    return row


def simulate(
    lam,
    servers,
    mu,
    p,
    *,
    events=200_000,
    replications=10,
    seed=0,
    confidence=0.95,
    warmup=0.1,
) -> SimulationResult:
    """Simulate the two-center network; blocking probabilities with confidence intervals.

    Parameters
    ----------
    lam, servers, mu, p : pairs
        As in :func:`workbench.datacenters.blocking_exact`.
    events : int
        Events (arrivals and departures) per replication, in [1000, 5e7].
    replications : int
        Independent replications (each starts empty and discards its warm-up), in [2, 1000].
    seed : int
        Root of the replications' streams: same seed, same numbers.
    confidence : float
        Confidence level of the Student-t intervals, in [0.5, 0.999].
    warmup : float
        Fraction of each replication's events discarded, in [0, 0.9].

    Returns
    -------
    SimulationResult
        Metric ``beta1``; quantities beta2, loss_rate (requests lost per unit time),
        mean_busy1, mean_busy2, p_full1, p_full2, p_both_full. ``result.frame`` holds one row
        per replication, including the fate counts (arrivals, served locally, served by the
        other center, rejected) and the simulated time.

    References
    ----------
    Fricker et al. (2016), Section 2.1 (the model simulated).
    """
    args = PARAMS.check(
        "simulate",
        lam=lam,
        servers=servers,
        mu=mu,
        p=p,
        events=events,
        replications=replications,
        seed=seed,
        confidence=confidence,
        warmup=warmup,
    )
    return _simulate(**args)


def _simulate(lam, servers, mu, p, *, events, replications, seed, confidence, warmup):
    skip = int(warmup * events)
    streams = np.random.SeedSequence(seed).spawn(replications)
    rows = [
        {"replication": r}
        | _run_two_centers(lam, servers, mu, p, events=events, skip=skip, stream=ss)
        for r, ss in enumerate(streams)
    ]
    return SimulationResult.from_replications(
        pd.DataFrame(rows),
        "beta1",
        QUANTITIES,
        confidence=confidence,
        run_length=events,
        run_unit="events",
        info={"lam": lam, "servers": servers, "mu": mu, "p": p, "warmup": warmup, "seed": seed},
    )


def simulate_until(
    lam,
    servers,
    mu,
    p,
    *,
    half_width=0.005,
    metric="beta1",
    events=100_000,
    batch=4,
    max_replications=200,
    seed=0,
    confidence=0.95,
    warmup=0.1,
    progress=True,
) -> SimulationResult:
    """Add replications of :func:`simulate` until ``metric``'s interval is narrow enough.

    Replications are run ``batch`` at a time until the Student-t half-width of ``metric``
    is at most ``half_width`` (at least ``batch`` replications, at most
    ``max_replications``: the work is bounded, and the result's notes say when the target
    was not reached). Replication r uses the same stream as in ``simulate(...,
    replications=R, seed=seed)``, so the numbers are those of that call with the R reached.

    Parameters
    ----------
    half_width : float
        Target half-width, in (0, 1].
    metric : str
        A quantity of :func:`simulate` (``beta1``, ``beta2``, ``loss_rate``, ...).
    batch : int
        Replications added per step, in [2, 100].
    max_replications : int
        Upper bound on the replications, in [2, 1000].
    progress : bool
        Show a progress bar with the current half-width.
    """
    func = "simulate_until"
    args = PARAMS.check(
        func,
        lam=lam,
        servers=servers,
        mu=mu,
        p=p,
        events=events,
        seed=seed,
        confidence=confidence,
        warmup=warmup,
    )
    target = check_real(half_width, "half_width", func, 0.0, 1.0, low_open=True)
    metric = check_choice(metric, "metric", func, QUANTITIES)
    batch = check_int(batch, "batch", func, 2, 100)
    cap = PARAMS["replications"].with_(name="max_replications").check(max_replications, func)
    if not isinstance(progress, bool):
        raise ParameterError(
            f"The 'progress' parameter of {func} must be True or False. Got {progress!r} instead."
        )
    from tqdm.auto import tqdm

    skip = int(args["warmup"] * args["events"])
    root = np.random.SeedSequence(args["seed"])
    rows: list[dict] = []
    half = float("inf")
    model = {k: args[k] for k in ("lam", "servers", "mu", "p")}
    with tqdm(total=cap, desc=f"{metric} ± {target:g}", disable=not progress) as bar:
        while len(rows) < cap and not half <= target:
            for ss in root.spawn(min(batch, cap - len(rows))):
                run = _run_two_centers(**model, events=args["events"], skip=skip, stream=ss)
                rows.append({"replication": len(rows)} | run)
            half = t_half_width([r[metric] for r in rows], args["confidence"])
            bar.update(len(rows) - bar.n)
            bar.set_postfix_str(f"half-width {half:.2g}")
    notes = []
    if not half <= target:
        notes.append(
            f"target half-width {target:g} not reached after {len(rows)} replications "
            f"(max_replications): reached {half:.2g}"
        )
    return SimulationResult.from_replications(
        pd.DataFrame(rows),
        metric,
        QUANTITIES,
        confidence=args["confidence"],
        run_length=args["events"],
        run_unit="events",
        notes=notes,
        info=model | {"warmup": args["warmup"], "seed": args["seed"], "target": target},
    )


def simulate_ring(
    lam,
    servers,
    mu,
    p,
    *,
    events=400_000,
    replications=8,
    seed=0,
    confidence=0.95,
    warmup=0.1,
) -> SimulationResult:
    """Simulate the ring of J centers; per-center blocking with confidence intervals.

    A request finding center j full is forwarded to center j-1 with probability p_j and to
    j+1 with probability p_j (so p_j <= 1/2), and rejected if its target is full too.

    Parameters
    ----------
    lam : sequence of J floats (3 <= J <= 64)
    servers : int or sequence of J ints in [1, 5000]
    mu : float or sequence of J floats
    p : float or sequence of J floats in [0, 0.5]
    events, replications, seed, confidence, warmup
        As in :func:`simulate`.

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
    lam, caps, mu, p = _ring_args(lam, servers, mu, p, func)
    run = PARAMS.check(
        func,
        events=events,
        replications=replications,
        seed=seed,
        confidence=confidence,
        warmup=warmup,
    )
    events = run["events"]
    skip = int(run["warmup"] * events)
    n = lam.size
    rows = []
    for r, ss in enumerate(np.random.SeedSequence(run["seed"]).spawn(run["replications"])):
        gen = np.random.default_rng(ss)
        counts, occ, _ = simulate_ring_kernel(
            lam, mu, p, caps, np.zeros(n, np.int64), gen.random(events), gen.random(events), skip
        )
        rejected = counts[:, REJECTED_AT_ONCE] + counts[:, REJECTED_FORWARDED]
        arrivals = counts[:, ARRIVALS]
        betas = rejected / np.maximum(arrivals, 1)
        t = occ[0, RING_TIME]
        row = {"replication": r, "beta": rejected.sum() / max(arrivals.sum(), 1)}
        row |= {f"beta{j}": betas[j] for j in range(n)}
        row |= {f"p_full{j}": occ[j + 1, RING_FULL] / t for j in range(n)}
        row |= {f"mean_busy{j}": occ[j + 1, RING_BUSY] / t for j in range(n)}
        rows.append(row)
    quantities = ["beta"] + [f"{q}{j}" for q in ("beta", "p_full", "mean_busy") for j in range(n)]
    return SimulationResult.from_replications(
        pd.DataFrame(rows),
        "beta",
        quantities,
        confidence=run["confidence"],
        run_length=events,
        run_unit="events",
        info={"centers": n},
    )


def ring_table(result: SimulationResult) -> pd.DataFrame:
    """One row per center of a :func:`simulate_ring` result: ``center``, ``beta``,
    ``half_width``, ``ci_low``, ``ci_high``, ``p_full`` and ``mean_busy``."""
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
