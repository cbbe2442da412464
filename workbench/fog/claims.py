"""P1 claims: what the paper states in words, measured on the workbench's scenarios.

The paper's numerical section (its simulator settings, topology and figures) was not
recovered. A ``source=paper`` row of ``data/claims/p1.csv`` quotes the paper's words
verbatim (column ``quote``) and measures what they state; a statement the recovered text
does not make is ``source=workbench`` and says so. Every simulated measure returns a
:class:`workbench.claims.Measurement` carrying whether all the runs behind it were
stationary (a non-stationary measurement never counts as agreement).

The claim atlas (:func:`workbench.atlas.atlas`, ``ATLAS``) measures the ``source=paper``
claims again at points of the plausible space the parameter table declares (the values the
paper lost, and its two readings of best(j) and H̄_k): :func:`atlas_point`.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018: Sec. III-B (θ tuned to an optimal value; load
variance), Sec. IV-E (eq. 6, W̄_j already includes the request's own processing), Sec. IV-G
(q = 0.5 "equivalent to" taking the head of the queue), the abstract (simulation supports
the model).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from workbench.claims import AtlasSpec, Measurement
from workbench.fog.cases import (
    load_variance_gains,
    load_variance_runs,
    one_fog_scenario,
    overloaded_scenario,
    with_fog_rates,
)
from workbench.fog.chain import mean_in_system
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
from workbench.validation import ParameterError, UnstableRegimeError, check_bool

__all__ = ["CLAIMS", "ATLAS", "atlas_point", "load_variance_gains"]

THETAS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15)


def _sim(quick, seed=0, scenario=None, runs=None, **kw):
    """A claim's simulation: ``runs`` = (requests, replications), by default 20,000 × 4 quick
    and 60,000 × 10 full."""
    g = default_scenario(0) if scenario is None else scenario
    n, reps = runs or ((20_000, 4) if quick else (60_000, 10))
    return simulate(
        scenario=g, requests=n, replications=reps, seed=seed, overload="transient", **kw
    )


def _measure(value, *runs) -> Measurement:
    """A claim's value with the verdict of every run it rests on."""
    bad = [r.stationarity.note for r in runs if not r.stationary]
    return Measurement(float(value), not bad, "; ".join(bad))


@functools.lru_cache(maxsize=2)
def _best_offload(quick):
    runs = [_sim(quick, seed=11, theta=t, e_max=1) for t in THETAS]
    delays = [r.mean for r in runs]
    k = int(np.argmin(delays))
    return THETAS[k], delays[k], runs


def _gap_to(policy, seed, quick):
    theta, best, runs = _best_offload(quick)
    other = _sim(quick, seed=seed, policy=policy)
    return _measure((best - other.mean) / other.mean, other, *runs)


def offload_beats_no_offload(quick=True) -> Measurement:
    """(best offloading − fog without offloading) / fog without offloading, simulated."""
    return _gap_to("no_offload", 12, quick)


def offload_beats_all_cloud(quick=True) -> Measurement:
    """(best offloading − all to the cloud) / all to the cloud, simulated."""
    return _gap_to("all_cloud", 13, quick)


def offload_vs_light_only(quick=True) -> Measurement:
    """Relative gap (best offloading − Light-only fog) / Light-only fog, simulated."""
    return _gap_to("light_only", 14, quick)


def theta_optimum_interior(quick=True) -> Measurement:
    """1 if the best θ on the grid is neither 0 (all to cloud) nor the largest θ."""
    theta, _, runs = _best_offload(quick)
    return _measure(float(THETAS[0] < theta < THETAS[-1]), *runs)


@functools.lru_cache(maxsize=2)
def _one_node(quick):
    """The one-node case and its simulation without offloading (both errors read it)."""
    g = one_fog_scenario()
    return g, _sim(quick, seed=15, scenario=g, policy="no_offload")


def _one_node_error(quick, **model_kw) -> Measurement:
    g, sim = _one_node(quick)
    model = analyze(g, policy="no_offload", **model_kw).mean_delay
    return _measure((model - sim.mean) / sim.mean, sim)


def eq6_error_without_offloading(quick=True) -> Measurement:
    """(model as in eq. 6 − simulation)/simulation for one fog node keeping everything."""
    return _one_node_error(quick)


def corrected_error_without_offloading(quick=True) -> Measurement:
    """The same with the request's own processing added (+1/μ)."""
    return _one_node_error(quick, own_processing=True)


def fifo_count_vs_chain(quick=True) -> Measurement:
    """(FIFO simulation's mean number in node − the q = 0.5 chain's) / the chain's."""
    g = one_fog_scenario()
    res = _sim(quick, seed=16, scenario=g, policy="no_offload")
    in_node = float(res.info["nodes"]["mean_in_node"].iloc[0])
    chain = sum(mean_in_system(6.0, 2.0, 50.0, 10.0))
    return _measure((in_node - chain) / chain, res)


def model_error_at_best_theta(quick=True) -> Measurement:
    """(eq. 6 model − simulation)/simulation for offloading at the simulated best θ."""
    theta, best, runs = _best_offload(quick)
    model = analyze(default_scenario(0), theta=theta, e_max=1).mean_delay
    return _measure((model - best) / best, runs[THETAS.index(theta)])


@functools.lru_cache(maxsize=1)
def _overloaded_net():
    """The overloaded layer (40 fog × 100 IoT), compiled once (its graph is slow to build)."""
    return compile_scenario(overloaded_scenario(40))


def _overloaded(quick, **model_kw):
    g = _overloaded_net()
    runs = (60_000, 2) if quick else (200_000, 6)
    sim = _sim(quick, seed=18, scenario=g, runs=runs, theta=0.02, e_max=1)
    model = analyze(g, theta=0.02, e_max=1, **model_kw).mean_delay
    return _measure((model - sim.mean) / sim.mean, sim)


def model_error_overloaded(quick=True) -> Measurement:
    """(eq. 6 model − simulation)/simulation on an overloaded fog layer (θ = 20 ms, e_M = 1).

    40 fog nodes with 100 IoT nodes each at 4 req/s: each node is offered 320 requests/s
    and serves about 89/s (see :func:`workbench.fog.cases.overloaded_scenario`).
    """
    return _overloaded(quick)


def threshold_model_error_overloaded(quick=True) -> Measurement:
    """The same error for the threshold-admission model with the own processing time."""
    return _overloaded(quick, admission="threshold", own_processing=True)


def offload_gain_heavy_even(quick=True) -> Measurement:
    """Offloading's relative gain when every fog node is heavily (and equally) loaded."""
    row = load_variance_gains(quick).set_index("spread").loc["even"]
    return Measurement(float(row["gain"]), bool(row["stationary"]), str(row["note"]))


def offload_gain_variance(quick=True) -> Measurement:
    """1 if offloading gains more with the load spread unevenly than evenly (same total)."""
    frame = load_variance_gains(quick).set_index("spread")
    value = float(frame.loc["uneven", "gain"] > frame.loc["even", "gain"])
    notes = [n for n in frame["note"] if n]
    return Measurement(value, bool(frame["stationary"].all()), "; ".join(notes))


CLAIMS = {
    "offload_beats_no_offload": offload_beats_no_offload,
    "offload_beats_all_cloud": offload_beats_all_cloud,
    "offload_vs_light_only": offload_vs_light_only,
    "theta_optimum_interior": theta_optimum_interior,
    "eq6_error_no_offload": eq6_error_without_offloading,
    "corrected_error_no_offload": corrected_error_without_offloading,
    "fifo_count_vs_chain": fifo_count_vs_chain,
    "model_error_best_theta": model_error_at_best_theta,
    "model_error_overloaded": model_error_overloaded,
    "threshold_model_error_overloaded": threshold_model_error_overloaded,
    "offload_gain_heavy_even": offload_gain_heavy_even,
    "offload_gain_variance": offload_gain_variance,
}


# ------------------------------------------------------------------- the claim atlas

ATLAS_RUNS = {True: (8_000, 2), False: (60_000, 10)}
"""(requests, replications) of each atlas simulation, quick and full."""
OVERLOADED_RUNS = {True: (20_000, 2), False: (200_000, 6)}


def _atlas_settings(params, seed, quick):
    """The point as one P1Params: every row with a plausible range or reading at the
    point's value (the others at their defaults), and the atlas's run length."""
    rows = [p.name for p in PARAMS.rows if p.plausible is not None]
    unknown = sorted(set(params) - set(rows))
    if unknown:
        raise ParameterError(
            f"atlas_point: {unknown} are not rows with a plausible range or reading ({rows})."
        )
    values = {**params, "seed": seed}
    point = P1Params.of("atlas_point", values, fields=tuple(values))
    n, reps = ATLAS_RUNS[quick]
    return point.trusted(requests=n, replications=reps, overload="transient")


def _failed(ids, err) -> dict:
    return {i: Measurement(float("nan"), False, f"{type(err).__name__}: {err}") for i in ids}


def _atlas_theta_grid(p) -> dict:
    """theta_optimum_interior and model_error_best_theta on the default scenario at p."""
    ids = ("theta_optimum_interior", "model_error_best_theta")
    g = with_traffic(
        default_scenario(0),
        load=p.load,
        light_fraction=p.light_fraction,
        p_iot=p.p_iot,
        p_cloud=p.p_cloud,
    )
    g = compile_scenario(with_fog_rates(with_fog_delay(g, p.fog_delay), p.mu_light, p.mu_heavy))
    try:
        runs = [simulate(p.trusted(scenario=g, theta=t)) for t in THETAS]
        k = int(np.argmin([r.mean for r in runs]))
        best = runs[k].mean
        model_delay = analyze(p.trusted(scenario=g, theta=THETAS[k])).mean_delay
    except (ParameterError, UnstableRegimeError) as err:
        return _failed(ids, err)
    return {
        "theta_optimum_interior": _measure(float(THETAS[0] < THETAS[k] < THETAS[-1]), *runs),
        "model_error_best_theta": _measure((model_delay - best) / best, runs[k]),
    }


def _atlas_one_node(p) -> dict:
    """eq6_error_no_offload and fifo_count_vs_chain on the one-node case scaled to p."""
    ids = ("eq6_error_no_offload", "fifo_count_vs_chain")
    rates = (6.0 * p.lam_light / 60.0, 2.0 * p.lam_heavy / 10.0)
    service = (50.0 * p.mu_light / 200.0, 10.0 * p.mu_heavy / (100 / 3))
    g = one_fog_scenario(rates, service)
    try:
        # the case at the table's policy values (q, α, T_a, θ, e_M), the point's readings
        case = P1Params(scenario=g, policy="no_offload").trusted(
            requests=p.requests, replications=p.replications, seed=p.seed, overload=p.overload
        )
        res = simulate(case)
        model_delay = analyze(
            case.trusted(q=p.q, neighbour=p.neighbour, cloud_sojourn=p.cloud_sojourn)
        ).mean_delay
        chain = sum(mean_in_system(*rates, *service))
    except (ParameterError, UnstableRegimeError) as err:
        return _failed(ids, err)
    in_node = float(res.info["nodes"]["mean_in_node"].iloc[0])
    return {
        "eq6_error_no_offload": _measure((model_delay - res.mean) / res.mean, res),
        "fifo_count_vs_chain": _measure((in_node - chain) / chain, res),
    }


def _atlas_overloaded(p, quick) -> dict:
    """model_error_overloaded on the overloaded layer with p's fog rates, θ and e_M."""
    base = _overloaded_net()
    mu = np.tile([p.mu_light, p.mu_heavy], (base.n_fog, 1))
    n, reps = OVERLOADED_RUNS[quick]
    at = p.trusted(scenario=dataclasses.replace(base, fog_mu=mu), requests=n, replications=reps)
    try:
        res = simulate(at)
        model_delay = analyze(at).mean_delay
    except (ParameterError, UnstableRegimeError) as err:
        return _failed(("model_error_overloaded",), err)
    return {"model_error_overloaded": _measure((model_delay - res.mean) / res.mean, res)}


def _atlas_load_variance(p) -> dict:
    """offload_gain_heavy_even and offload_gain_variance on the ring at p's policy values.

    The fog nodes keep the default processing rates: the claims are about nodes offered
    ρ = 0.94 (even) or 0.29 / 1.58 (uneven), which the counts of IoT nodes are chosen for.
    """
    ids = ("offload_gain_heavy_even", "offload_gain_variance")
    try:
        found = load_variance_runs(p, fog_delay=p.fog_delay)
    except (ParameterError, UnstableRegimeError) as err:
        return _failed(ids, err)
    gains = {spread: (r[0].mean - r[1].mean) / r[0].mean for spread, r in found.items()}
    return {
        "offload_gain_heavy_even": _measure(gains["even"], *found["even"]),
        "offload_gain_variance": _measure(
            float(gains["uneven"] > gains["even"]), *found["even"], *found["uneven"]
        ),
    }


def atlas_point(*, quick: bool, seed: int, **params) -> dict:
    """Every atlas claim's measured value at one point of the plausible space.

    The point applies to each claim's own case:

    - θ optimum and the model's error at the best θ: the default scenario with the point's
      traffic (load, Light share, p^I, p^C), fog–fog delay and fog processing rates; the
      simulations with its e_M, q, α, T_a and EWMA period; the model with its reading of
      best(j) (``neighbour``) and of H̄_k (``cloud_sojourn``);
    - eq. 6's error and the FIFO count without offloading: the one-node case (λ, λ', μ, μ'
      = 6, 2, 50, 10 per s) scaled by the point's λ/60, λ'/10, μ/200 and μ'/(100/3);
    - the overloaded layer: its 40 fog nodes at the point's μ, μ', θ, e_M and policy values;
    - load variance: the ring at the point's θ, e_M (against e_M = 0), fog–fog delay and
      policy values, the fog nodes at the default rates (the claims' ρ = 0.94 and 0.29/1.58).

    Parameters
    ----------
    quick : bool
        Runs of 8,000 requests × 2 (the overloaded layer 20,000 × 2), else 60,000 × 10.
    seed : int
        The seed of every simulation of the point (the notebook's ``SEED``).
    **params
        A value for rows of the parameter table with a plausible range or reading (the
        others at their defaults).

    Returns
    -------
    dict
        Claim id → :class:`workbench.claims.Measurement`, flagged ``stationary=False`` when
        a run behind it was not; a case the model cannot evaluate (a queue without steady
        state) gives NaN, not stationary, with the reason.
    """
    quick = check_bool(quick, "quick", "atlas_point")
    p = _atlas_settings(params, seed, quick)
    out = {}
    out.update(_atlas_theta_grid(p))
    out.update(_atlas_one_node(p))
    out.update(_atlas_overloaded(p, quick))
    out.update(_atlas_load_variance(p))
    return out


ATLAS = AtlasSpec(
    evaluate=atlas_point,
    claims=(
        "theta_optimum_interior",
        "eq6_error_no_offload",
        "fifo_count_vs_chain",
        "model_error_best_theta",
        "model_error_overloaded",
        "offload_gain_heavy_even",
        "offload_gain_variance",
    ),
)
