"""Beyond the paper: one θ per fog node, tuned by simulation and checked on fresh seeds.

The paper uses one threshold θ for every fog node. Fog nodes carry very different loads, so
each node may have its own best θ. :func:`tune_theta_per_node` searches θ_j on a grid by
coordinate descent on the *simulated* mean service delay, with common random numbers: every
candidate vector runs on the very same requests (one long run drawn from ``seed``), so two
candidates differ only by their θ and the comparison is not drowned in sampling noise. It
starts from the best uniform θ, moves one node at a time to its best grid value with the
others held, and stops after a sweep over all nodes that moves none (or after ``sweeps``).
It also runs the same search on the analytic model (:func:`workbench.fog.analyze` with the
request's own processing time), to show where the model would send each node.

A θ vector tuned on one run is tuned to that run's noise as well; :func:`compare_thetas`
therefore re-measures candidate policies on fresh, independent replications (the same seeds
for every policy, so the differences are paired) with Student-t intervals.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III-B (the θ test), eqs. 2 and 6 (the
service delay the model predicts).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from workbench.fog import kernels as K
from workbench.fog.model import P1Params, theta_per_fog
from workbench.fog.network import analyze
from workbench.fog.params import ADMISSION_MODELS, PARAMS
from workbench.fog.simulation import (
    STEPS_PER_REQUEST,
    check_work,
    draw_requests,
    kernel_arguments,
    simulate,
    warmup_requests,
)
from workbench.params import takes
from workbench.stats import t_interval
from workbench.validation import (
    ParameterError,
    check_array,
    check_choice,
    check_int,
    check_runs,
    refusal,
)

__all__ = [
    "THETA_GRID",
    "MAX_TUNING_EVALUATIONS",
    "MAX_TUNING_REQUESTS",
    "tune_theta_per_node",
    "compare_thetas",
    "per_node_table",
    "policy_table",
    "MODEL_LABELS",
]

# the θ grid of the best-θ studies (per load and per node) [s]
THETA_GRID = (0.0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.06, 0.1)
# bounds on one search's work: candidate vectors tried, and requests simulated in all
MAX_TUNING_EVALUATIONS = 5_000
MAX_TUNING_REQUESTS = 10**9


def _check_grid(grid, func):
    """θ values of a search: at least two different ones in [0, 1e6], sorted, no duplicate."""
    values = np.unique(
        check_array(grid, "grid", func, low=0.0, high=PARAMS["theta"].high, length=(2, 10**6))
    )
    if values.size < 2:
        raise ParameterError(
            f"The 'grid' parameter of {func} must hold at least two different θ values. "
            f"Got {list(grid)!r} instead."
        )
    return values


def _check_models(models, func):
    if isinstance(models, str):
        models = (models,)
    if not hasattr(models, "__iter__") or getattr(models, "ndim", 1) != 1:
        raise refusal(
            func,
            "models",
            f"a sequence of admission models from {ADMISSION_MODELS} (possibly empty)",
            models,
        )
    return tuple(dict.fromkeys(check_choice(m, "models", func, ADMISSION_MODELS) for m in models))


def _coordinate_descent(objective, n_nodes, n_values, sweeps):
    """Minimise ``objective(indices)`` over index vectors: best uniform, then one node at a time.

    Returns the index vector, its value, the best uniform index and value, the number of
    distinct vectors evaluated, the sweeps run and the moves made. A node moves only to a
    strictly smaller value (among equal values the smallest index, i.e. the smallest θ).
    """

    @functools.cache  # a vector tried twice (the current one among a node's values) runs once
    def value(idx: tuple):
        return float(objective(np.array(idx)))

    uniform = [value((k,) * n_nodes) for k in range(n_values)]
    k_uniform = int(np.argmin(uniform))
    idx = [k_uniform] * n_nodes
    current = uniform[k_uniform]
    moves = []
    sweeps_run = 0
    for sweep in range(sweeps):
        sweeps_run = sweep + 1
        moved = False
        for j in range(n_nodes):
            best_k, best = idx[j], current
            for k in range(n_values):
                v = value((*idx[:j], k, *idx[j + 1 :]))
                if v < best:
                    best_k, best = k, v
            if best_k != idx[j]:
                moves.append((sweep, j, idx[j], best_k, best))
                idx[j], current, moved = best_k, best, True
        if not moved:
            break
    return dict(
        index=np.array(idx),
        value=current,
        uniform_index=k_uniform,
        uniform_value=uniform[k_uniform],
        evaluations=value.cache_info().currsize,
        sweeps_run=sweeps_run,
        moves=moves,
    )


def _simulated_objective(p, warmup):
    """Mean delay after the warm-up of one run; every θ vector sees the same requests.

    ``warmup``: the number of requests dropped (:func:`workbench.fog.simulation.warmup_requests`).
    """
    rng = np.random.default_rng(p.seed)
    requests = draw_requests(p.network, p.requests, rng, p.announce_period)
    offload = p.trusted(policy="offload")

    def delay(theta):
        out = K.simulate_network(*kernel_arguments(offload, requests, theta=theta))
        return float(np.mean(out.t_done[warmup:] - requests.gen_time[warmup:]))

    return delay


#: the settings of a search, as :func:`workbench.fog.simulate` takes them (the paper's policy)
SEARCH = ("scenario", "grid", "e_max", "q", "alpha", "mode", "announce_period")


@takes(P1Params, *SEARCH, "requests", "seed", "sweeps", "models", "warmup", positional=True)
def tune_theta_per_node(p, *, grid=THETA_GRID, sweeps=3, models=("chain",)) -> pd.DataFrame:
    """The best θ of every fog node on a grid, by simulation (common random numbers) and model.

    Coordinate descent over the fog nodes' θ on ``grid``, minimising the mean service delay
    of one simulated run of ``requests`` requests (after the ``warmup`` fraction) drawn from
    ``seed``: every candidate runs on the same requests, exactly the inputs of
    ``run_once(scenario, requests=requests, seed=seed)``. It starts from the best uniform
    θ and stops after a sweep that moves no node, or after ``sweeps`` sweeps. The same search
    runs on the analytic model for each admission model in ``models`` (with the request's
    own processing time, ``own_processing=True``).

    The tuned vector is tuned to this run's noise too: re-measure it on fresh seeds with
    :func:`compare_thetas` before believing a difference.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled, optional
        A scenario (:mod:`workbench.fog.scenario`); None: :func:`~workbench.fog.default_scenario`.
    grid : sequence of float
        θ values to choose from [s], finite, at least two (sorted, duplicates dropped).
    e_max, q, alpha, mode, announce_period
        As in :func:`workbench.fog.simulate` (the policy is the paper's offloading).
    requests : int, optional
        Length of the one tuning run (``None``: the table's default, 50,000; the workbench's
        per-node figure tunes on 200,000).
    seed : int
        Seed of the tuning run (``numpy.random.default_rng(seed)``, as :func:`run_once`).
    sweeps : int
        Most sweeps over all nodes (1 to 20).
    models : sequence of {"chain", "threshold"}
        Analytic models to tune as well (``admission=`` of :func:`analyze`); ``()`` for none.
        "chain" is the paper's chain (fast); "threshold" models the θ test itself (slower).
    warmup : float, optional
        Fraction of the tuning run dropped before averaging (``None``: the table's, 0.1).

    Returns
    -------
    pandas.DataFrame
        One row per fog node: ``fog``, ``name``, ``inflow_light``, ``inflow_heavy`` (I_j,
        I'_j: requests per second arriving from its own IoT nodes), ``offered_load`` (ρ_j =
        I_j/μ_j + I'_j/μ'_j, its load if it kept all of them), ``theta_uniform`` (the best
        uniform θ by simulation), ``theta_tuned`` (by simulation), and per model
        ``theta_<model>_model`` and ``theta_<model>_model_uniform`` [s]. ``attrs`` hold the
        tuning run's delays [s] (``delay_uniform``, ``delay_tuned``, per model
        ``<model>_model_delay_uniform``, ``<model>_model_delay_tuned``), ``evaluations``,
        ``sweeps_run``, ``moves`` (sweep, node, θ before, θ after, delay) and the settings.

    Raises
    ------
    ParameterError
        A parameter out of range, or a search above :data:`MAX_TUNING_EVALUATIONS`
        candidate vectors or :data:`MAX_TUNING_REQUESTS` simulated requests.
    UnstableRegimeError
        A cloud server could be overloaded (see :func:`workbench.fog.simulate`).

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III-B (θ), eqs. 2, 6.
    """
    func = "tune_theta_per_node"
    net = p.network
    v = p.pick(*SEARCH[2:], "requests", "seed")
    skip = warmup_requests(p)
    values = _check_grid(grid, func)
    sweeps = check_int(sweeps, "sweeps", func, 1, 20)
    models = _check_models(models, func)
    nf, ng = net.n_fog, len(values)
    worst = ng + sweeps * nf * (ng - 1)  # candidate vectors the search may try
    if worst > MAX_TUNING_EVALUATIONS or worst * v["requests"] > MAX_TUNING_REQUESTS:
        raise ParameterError(
            f"{func}: the search may try {worst} θ vectors ({nf} fog nodes, {ng} grid values, "
            f"{sweeps} sweeps) of {v['requests']} requests each; the bounds are "
            f"{MAX_TUNING_EVALUATIONS} vectors and {MAX_TUNING_REQUESTS:.0e} requests in all. "
            "Use a coarser grid, fewer sweeps or shorter runs."
        )
    check_work(net, v["requests"], func)

    sim_delay = _simulated_objective(p, skip)
    found = _coordinate_descent(lambda idx: sim_delay(values[idx]), nf, ng, sweeps)
    inflow = net.fog_inflow
    frame = pd.DataFrame(
        {
            "fog": np.arange(nf),
            "name": net.fog_names,
            "inflow_light": inflow[:, 0],
            "inflow_heavy": inflow[:, 1],
            "offered_load": inflow[:, 0] / net.fog_mu[:, 0] + inflow[:, 1] / net.fog_mu[:, 1],
            "theta_uniform": values[found["uniform_index"]],
            "theta_tuned": values[found["index"]],
        }
    )
    attrs = dict(
        delay_uniform=found["uniform_value"],
        delay_tuned=found["value"],
        evaluations=found["evaluations"],
        sweeps_run=found["sweeps_run"],
        moves=[(s, net.fog_names[j], values[a], values[b], d) for s, j, a, b, d in found["moves"]],
        settings=dict(v, grid=tuple(values), sweeps=sweeps, models=models),
    )
    for model in models:

        def model_delay(idx, model=model):
            at = p.trusted(theta=values[idx], own_processing=True, admission=model)
            return analyze(at).mean_delay

        m = _coordinate_descent(model_delay, nf, ng, sweeps)
        frame[f"theta_{model}_model"] = values[m["index"]]
        frame[f"theta_{model}_model_uniform"] = values[m["uniform_index"]]
        attrs[f"{model}_model_delay_uniform"] = m["uniform_value"]
        attrs[f"{model}_model_delay_tuned"] = m["value"]
    frame.attrs.update(attrs)
    return frame


@takes(
    P1Params,
    "scenario",
    "thetas",
    "reference",
    *SEARCH[2:],
    "requests",
    "replications",
    "seed",
    "confidence",
    "warmup",
    positional=True,
)
def compare_thetas(p, *, thetas: Mapping | None = None, reference=None) -> pd.DataFrame:
    """Mean service delay of several θ policies on the same fresh replications, paired.

    Every policy runs :func:`workbench.fog.simulate` with the same ``seed``, so replication
    r of every policy sees the same requests and the differences between policies are
    paired: their Student-t interval is much narrower than the two means' intervals. The
    replications' streams (``SeedSequence(seed).spawn``) are independent of any tuning run
    drawn with ``default_rng(s)`` (:func:`tune_theta_per_node`), whatever ``s``.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled, optional
        As in :func:`workbench.fog.simulate`.
    thetas : mapping of str to float or sequence
        Policy name → θ for all fog nodes or one θ per fog node [s].
    reference : str, optional
        The policy the others are compared with (default: the first).
    e_max, q, alpha, mode, announce_period, requests, replications, seed, confidence, warmup
        As in :func:`workbench.fog.simulate` (``requests=None``: the table's 50,000; the
        workbench's per-node figure verifies on 200,000 requests with seed 1).

    Returns
    -------
    pandas.DataFrame
        One row per policy: ``policy``, ``theta`` (the θ values in ms, as text), ``delay``,
        ``ci_low``, ``ci_high`` [s] (mean over replications and its interval), and
        ``difference``, ``difference_low``, ``difference_high`` [s]: the paired difference
        policy − reference and its interval (0 for the reference itself); ``reference``,
        ``replications``, ``n_requests``, ``confidence``.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eq. 2 (the service delay measured).
    """
    func = "compare_thetas"
    net = p.network
    if not isinstance(thetas, Mapping) or not thetas:
        raise refusal(
            func,
            "thetas",
            "a non-empty mapping from policy names to θ (one value, or one per fog node)",
            thetas,
        )
    vectors = {str(name): theta_per_fog(th, net.n_fog, func) for name, th in thetas.items()}
    reference = next(iter(vectors)) if reference is None else reference
    reference = check_choice(reference, "reference", func, tuple(vectors))
    # every policy runs its own replications: the work of all of them, refused at once
    check_runs(func, len(vectors) * p.replications, p.requests, STEPS_PER_REQUEST, "requests")
    delays = {}
    for name, theta in vectors.items():
        res = simulate(p.trusted(theta=theta))
        delays[name] = res.frame["delay"].to_numpy(dtype=float)
    rows = []
    for name, theta in vectors.items():
        d = delays[name]
        lo, hi = t_interval(d, p.confidence)
        diff = d - delays[reference]
        dlo, dhi = t_interval(diff, p.confidence)
        rows.append(
            dict(
                policy=name,
                theta=" ".join(f"{1e3 * t:g}" for t in theta),
                delay=float(d.mean()),
                ci_low=lo,
                ci_high=hi,
                difference=float(diff.mean()),
                difference_low=dlo,
                difference_high=dhi,
                reference=reference,
                replications=p.replications,
                n_requests=p.requests,
                confidence=p.confidence,
            )
        )
    return pd.DataFrame(rows)


# ------------------------------------------------- tables of the per-node θ figure

MODEL_LABELS = {"chain": "model (+1/μ)", "threshold": "model (threshold +1/μ)"}
"""The analytic models of the per-node θ study, by admission model (column labels)."""


def per_node_table(frame):
    """The per-node part of the per-node θ figure's frame as a readable table (θ in ms).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`workbench.fog.figures.best_theta_per_node_frame`.

    Returns
    -------
    pandas.DataFrame
        One row per fog node: its traffic, load and θ by each search.
    """
    nodes = frame[frame["part"] == "node"]
    out = pd.DataFrame(
        {
            "fog node": nodes["name"],
            "Light in [1/s]": nodes["inflow_light"].round(1),
            "Heavy in [1/s]": nodes["inflow_heavy"].round(1),
            "offered load ρ_j": nodes["offered_load"].round(3),
            "θ uniform (sim) [ms]": 1e3 * nodes["theta_uniform"],
            "θ tuned (sim) [ms]": 1e3 * nodes["theta_tuned"],
        }
    )
    for model, label in MODEL_LABELS.items():
        col = f"theta_{model}_model"
        if col in nodes and nodes[col].notna().all():
            out[f"θ {label} [ms]"] = 1e3 * nodes[col]
    return out.sort_values("offered load ρ_j").reset_index(drop=True)


def policy_table(frame):
    """The verified policies of the per-node θ figure: delays and paired differences.

    A policy that was not run on the tuning run (the paper's θ, a model-tuned vector) reads
    "–" there, and an interval that does not exist (the reference against itself) reads
    "–", never NaN.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`workbench.fog.figures.best_theta_per_node_frame`.

    Returns
    -------
    pandas.DataFrame
        One row per policy, delays and differences as text.
    """
    pol = frame[frame["part"] == "policy"]

    def interval(low, high, sign=""):
        return [
            "–" if not (np.isfinite(a) and np.isfinite(b)) else f"[{a:{sign}.3f}, {b:{sign}.3f}]"
            for a, b in zip(low, high, strict=True)
        ]

    def number(values):
        return ["–" if not np.isfinite(x) else f"{x:.3f}" for x in values]

    return pd.DataFrame(
        {
            "policy": pol["policy"],
            "mean delay [ms]": pol["delay"].round(3),
            "95% CI [ms]": interval(pol["ci_low"], pol["ci_high"]),
            "− best uniform [ms]": pol["difference"].round(3),
            "paired 95% CI [ms]": interval(pol["difference_low"], pol["difference_high"], "+"),
            "on the tuning run [ms]": number(pol["tuning_run_delay"]),
        }
    ).reset_index(drop=True)
