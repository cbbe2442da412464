"""P1 claims: what the paper states in words, measured on the workbench's default scenario.

The paper's numerical section (its simulator settings, topology and figures) was not
recovered, so it states no number the workbench could check: every row of
``data/claims/p1.csv`` is labelled as the workbench's own value, with a tolerance that
covers the simulation noise of both the quick and the full measurement.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018: Sec. III-B (θ tuned to an optimum), Sec. IV-G
(q = 0.5 "equivalent to" taking the head of the queue), Sec. IV-E (eq. 6, W̄_j already
includes the request's own processing), Sec. V (offloading beats the baselines; the model
is validated by simulation).
"""

from __future__ import annotations

import functools
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from workbench.fog.model import analyze, mean_in_system
from workbench.fog.scenario import build_scenario, compile_scenario, default_scenario
from workbench.fog.simulation import simulate

__all__ = ["CLAIMS", "claims_table"]

CLAIMS_CSV = Path(__file__).resolve().parents[2] / "data" / "claims" / "p1.csv"


def claims_table() -> pd.DataFrame:
    """``data/claims/p1.csv`` as a DataFrame (the notebook's claims section)."""
    return pd.read_csv(CLAIMS_CSV, comment="#", skipinitialspace=True)


THETAS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15)


def _sim(quick, seed=0, scenario=None, **kw):
    g = default_scenario(0) if scenario is None else scenario
    n, reps = (20_000, 4) if quick else (60_000, 10)
    return simulate(g, n_requests=n, replications=reps, seed=seed, **kw)


@functools.lru_cache(maxsize=2)
def _best_offload(quick):
    delays = [_sim(quick, seed=11, theta=t, e_max=1).mean for t in THETAS]
    k = int(np.argmin(delays))
    return THETAS[k], delays[k], delays


def offload_beats_no_offload(quick=True) -> float:
    """1 if offloading at its best θ has a lower simulated mean delay than θ = ∞."""
    _, best, _ = _best_offload(quick)
    return float(best < _sim(quick, seed=12, policy="no_offload").mean)


def offload_beats_all_cloud(quick=True) -> float:
    """1 if offloading at its best θ beats sending every fog request to the cloud."""
    _, best, _ = _best_offload(quick)
    return float(best < _sim(quick, seed=13, policy="all_cloud").mean)


def offload_vs_light_only(quick=True) -> float:
    """Relative gap (best offloading − Light-only fog) / Light-only fog, simulated."""
    _, best, _ = _best_offload(quick)
    light = _sim(quick, seed=14, policy="light_only").mean
    return (best - light) / light


def theta_optimum_interior(quick=True) -> float:
    """1 if the best θ on the grid is neither 0 (all to cloud) nor the largest θ."""
    theta, _, _ = _best_offload(quick)
    return float(THETAS[0] < theta < THETAS[-1])


def _one_fog():
    layer = nx.Graph()
    layer.add_node(0)
    return build_scenario(
        layer, 10, rate=0.8, light_fraction=0.75, p_iot=0.0, p_cloud=0.0, fog_mu=(50.0, 10.0),
        cloud_mu=(1000.0, 200.0),
    )  # fmt: skip


def eq6_error_without_offloading(quick=True) -> float:
    """(model as in eq. 6 − simulation)/simulation for one fog node keeping everything."""
    g = _one_fog()
    sim = _sim(quick, seed=15, scenario=g, policy="no_offload").mean
    return (analyze(g, policy="no_offload").mean_delay - sim) / sim


def corrected_error_without_offloading(quick=True) -> float:
    """The same with the request's own processing added (+1/μ)."""
    g = _one_fog()
    sim = _sim(quick, seed=15, scenario=g, policy="no_offload").mean
    return (analyze(g, policy="no_offload", own_processing=True).mean_delay - sim) / sim


def fifo_count_vs_chain(quick=True) -> float:
    """(FIFO simulation's mean number in node − the q = 0.5 chain's) / the chain's."""
    g = _one_fog()
    res = _sim(quick, seed=16, scenario=g, policy="no_offload")
    in_node = float(res.info["nodes"]["mean_in_node"].iloc[0])
    chain = sum(mean_in_system(6.0, 2.0, 50.0, 10.0))
    return (in_node - chain) / chain


def model_error_at_best_theta(quick=True) -> float:
    """(eq. 6 model − simulation)/simulation for offloading at the simulated best θ."""
    theta, best, _ = _best_offload(quick)
    return (analyze(default_scenario(0), theta=theta, e_max=1).mean_delay - best) / best


def model_error_overloaded(quick=True) -> float:
    """(eq. 6 model − simulation)/simulation on an overloaded fog layer (θ = 20 ms, e_M = 1).

    40 fog nodes with 100 IoT nodes each at 4 req/s: each node is offered 320 requests/s
    and serves about 89/s (see ``figures.overloaded_scenario``).
    """
    from workbench.fog.figures import overloaded_scenario

    g = compile_scenario(overloaded_scenario(40))
    n, reps = (60_000, 2) if quick else (200_000, 6)
    sim = simulate(g, theta=0.02, e_max=1, n_requests=n, replications=reps, seed=18).mean
    return (analyze(g, theta=0.02, e_max=1).mean_delay - sim) / sim


def threshold_model_error_overloaded(quick=True) -> float:
    """The same error for the threshold-admission model with the own processing time."""
    from workbench.fog.figures import overloaded_scenario

    g = compile_scenario(overloaded_scenario(40))
    n, reps = (60_000, 2) if quick else (200_000, 6)
    sim = simulate(g, theta=0.02, e_max=1, n_requests=n, replications=reps, seed=18).mean
    model = analyze(g, theta=0.02, e_max=1, admission="threshold", own_processing=True)
    return (model.mean_delay - sim) / sim


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
}
