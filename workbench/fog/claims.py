"""P1 claims: what the paper states in words, measured on the workbench's scenarios.

The paper's numerical section (its simulator settings, topology and figures) was not
recovered. A ``source=paper`` row of ``data/claims/p1.csv`` quotes the paper's words
verbatim (column ``quote``) and measures what they state; a statement the recovered text
does not make is ``source=workbench`` and says so. Every simulated measure returns a
:class:`workbench.claims.Measurement` carrying whether all the runs behind it were
stationary (a non-stationary measurement never counts as agreement).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018: Sec. III-B (θ tuned to an optimal value; load
variance), Sec. IV-E (eq. 6, W̄_j already includes the request's own processing), Sec. IV-G
(q = 0.5 "equivalent to" taking the head of the queue), the abstract (simulation supports
the model).
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.claims import Measurement
from workbench.fog.cases import load_variance_gains, one_fog_scenario, overloaded_scenario
from workbench.fog.chain import mean_in_system
from workbench.fog.network import analyze
from workbench.fog.scenario import compile_scenario, default_scenario
from workbench.fog.simulation import simulate

__all__ = ["CLAIMS", "load_variance_gains"]

THETAS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15)


def _sim(quick, seed=0, scenario=None, **kw):
    g = default_scenario(0) if scenario is None else scenario
    n, reps = (20_000, 4) if quick else (60_000, 10)
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


def eq6_error_without_offloading(quick=True) -> Measurement:
    """(model as in eq. 6 − simulation)/simulation for one fog node keeping everything."""
    g = one_fog_scenario()
    sim = _sim(quick, seed=15, scenario=g, policy="no_offload")
    return _measure((analyze(g, policy="no_offload").mean_delay - sim.mean) / sim.mean, sim)


def corrected_error_without_offloading(quick=True) -> Measurement:
    """The same with the request's own processing added (+1/μ)."""
    g = one_fog_scenario()
    sim = _sim(quick, seed=15, scenario=g, policy="no_offload")
    model = analyze(g, policy="no_offload", own_processing=True).mean_delay
    return _measure((model - sim.mean) / sim.mean, sim)


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


def _overloaded(quick, **model_kw):
    g = compile_scenario(overloaded_scenario(40))
    n, reps = (60_000, 2) if quick else (200_000, 6)
    sim = simulate(scenario=g, theta=0.02, e_max=1, requests=n, replications=reps, seed=18,
                   overload="transient")  # fmt: skip
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
