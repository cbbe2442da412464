"""The arena's own claims: the engine against queueing theory and the papers' packages, and
what the mechanisms do on the winner map's scenario.

The arena is not a paper, so every row of ``data/claims/arena.csv`` is ``source=workbench``:
its value is a closed form of :mod:`workbench.arena.model` (or a paper package's exact
solution), a regression guard of the engine, never a paper's number. ``CLAIMS[id](quick)``
measures one; a run the stationarity detector flags makes its claim undetermined.

``ATLAS`` evaluates the two mechanism claims (pooling by ``jsq`` beats ``random`` and beats
``local``) over the plausible space of the winner map: load, link delay and task-size
variability.
"""

from __future__ import annotations

from workbench import datacenters as p3
from workbench import redundancy as p4
from workbench.arena import model
from workbench.arena.params import ArenaParams
from workbench.arena.scenario import load_scenario, scenario_from_dict
from workbench.arena.simulation import simulate
from workbench.arena.studies import map_scenario
from workbench.claims import AtlasSpec, Measurement
from workbench.params import takes
from workbench.validation import check_bool

__all__ = ["CLAIMS", "ATLAS", "ATLAS_CLAIMS", "atlas_point", "star"]

#: (requests, replications) of a claim's runs, quick and full
RUNS = {True: (40_000, 4), False: (200_000, 8)}
#: (requests, replications) of an atlas point's runs, quick and full
ATLAS_RUNS = {True: (8_000, 3), False: (40_000, 6)}


def star(n_nodes: int, servers: int, lam: float, mean: float = 1.0):
    """A device without servers spreading Poisson tasks over identical edge nodes.

    Parameters
    ----------
    n_nodes : int
        The edge nodes, each linked to the device by a link without delay.
    servers : int
        Servers per edge node.
    lam : float
        The device's arrival rate (tasks/s).
    mean : float
        The mean of the exponential task sizes (s of work at speed 1).

    Returns
    -------
    Scenario
        The scenario ``"star"``.
    """
    nodes = [{"id": "dev", "role": "device", "servers": 0}]
    nodes += [{"id": f"n{k}", "role": "edge", "servers": servers} for k in range(n_nodes)]
    links = [{"a": "dev", "b": f"n{k}", "delay": 0.0} for k in range(n_nodes)]
    work = [{"source": "dev", "rate": lam, "size": {"dist": "exponential", "mean": mean}}]
    return scenario_from_dict({"name": "star", "nodes": nodes, "links": links, "workload": work})


def _claim_run(quick, scenario, policy, **kw):
    n, reps = RUNS[bool(quick)]
    run = dict(requests=n, replications=reps, seed=1, overload="transient")
    return simulate(scenario=scenario, policy=policy, **run, **kw)


def _m(value, *runs) -> Measurement:
    bad = [r for r in runs if not r.stationary]
    return Measurement(value, not bad, "; ".join(r.stationarity.note for r in bad))


def random_is_mm1(quick=True) -> Measurement:
    r = _claim_run(quick, star(3, 1, 1.8), "random")
    return _m(r.mean_delay, r)


def local_is_erlang_c(quick=True) -> Measurement:
    sc = scenario_from_dict(
        {
            "name": "mmc",
            "nodes": [{"id": "x", "role": "edge", "servers": 3}],
            "workload": [{"source": "x", "rate": 2.25, "size": {"dist": "exponential", "mean": 1}}],
        }
    )
    r = _claim_run(quick, sc, "local")
    return _m(r.mean_delay, r)


def power_of_two_near_mean_field(quick=True) -> Measurement:
    r = _claim_run(quick, star(100, 1, 80.0), "power_of_d", d=2)
    return _m(r.mean_delay, r)


def threshold_is_mm1k_with_cloud(quick=True) -> Measurement:
    sc = scenario_from_dict(
        {
            "name": "one fog node",
            "nodes": [
                {"id": "f", "role": "fog", "servers": 1},
                {"id": "cloud", "role": "cloud", "servers": float("inf"), "speed": 5.0},
            ],
            "links": [{"a": "f", "b": "cloud", "delay": 0.05}],
            "workload": [
                {"source": "f", "rate": 8.0, "size": {"dist": "exponential", "mean": 0.1}}
            ],
        }
    )
    r = _claim_run(quick, sc, "threshold", theta=0.25, e_max=0)
    return _m(r.mean_delay, r)


def overflow_is_blocking_exact(quick=True) -> Measurement:
    r = _claim_run(quick, load_scenario("p3_datacenters"), "overflow", p=0.5)
    return _m(r.loss_share, r)


def replicate_is_p4_eq1(quick=True) -> Measurement:
    r = _claim_run(quick, load_scenario("p4_redundancy"), "replicate", m=2)
    return _m(r.mean_delay, r)


#: the deployment's declared numbers the atlas also walks (map_scenario's keywords)
DEPLOYMENT = ("cloud_rtt", "cloud_speed", "cloud_servers", "edge_servers", "edge_speed")


def _pooling(p: ArenaParams, quick: bool) -> dict:
    n, reps = ATLAS_RUNS[quick]
    sc = map_scenario(p)
    run = p.trusted(requests=n, replications=reps)  # declared run lengths, within the table
    runs = {
        name: simulate(run, scenario=sc, policy=name, overload="transient")
        for name in ("local", "random", "jsq")
    }
    jsq = runs["jsq"]
    out = {}
    for other, claim in (("random", "jsq_beats_random"), ("local", "jsq_beats_local")):
        o = runs[other]
        out[claim] = _m(float(jsq.ci_high < o.ci_low), jsq, o)
    return out


def jsq_beats_random(quick=True) -> Measurement:
    return atlas_point(quick=quick, seed=1)["jsq_beats_random"]  # at the table's defaults


def jsq_beats_local(quick=True) -> Measurement:
    return atlas_point(quick=quick, seed=1)["jsq_beats_local"]


CLAIMS = {
    "random_is_mm1": random_is_mm1,
    "local_is_erlang_c": local_is_erlang_c,
    "power_of_two_near_mean_field": power_of_two_near_mean_field,
    "threshold_is_mm1k_with_cloud": threshold_is_mm1k_with_cloud,
    "overflow_is_blocking_exact": overflow_is_blocking_exact,
    "replicate_is_p4_eq1": replicate_is_p4_eq1,
    "jsq_beats_random": jsq_beats_random,
    "jsq_beats_local": jsq_beats_local,
}

#: the theory values the table states, recomputed here so the table and the theory cannot
#: drift apart (tests/test_arena_claims.py compares them)
THEORY = {
    "random_is_mm1": lambda: model.mm1_delay(1.8, 1.0, 3),
    "local_is_erlang_c": lambda: model.erlang_c_delay(3, 2.25, 1.0),
    "power_of_two_near_mean_field": lambda: model.power_of_d_delay(0.8, 2),
    "threshold_is_mm1k_with_cloud": lambda: model.threshold_delay(8.0, 0.1, 0.25, 0.05 + 0.1 / 5),
    "overflow_is_blocking_exact": lambda: _pooled_blocking(),
    "replicate_is_p4_eq1": lambda: p4.system_time(24, 2, 1.5, 15.0, p4.SExp(3.0, 0.2)),
}


def _pooled_blocking() -> float:
    sc = load_scenario("p3_datacenters")
    lam = tuple(w.rate for w in sc.workload)
    b1, b2 = p3.blocking_exact(lam, (10, 10), (1.0, 1.0), (0.5, 0.5))
    return (lam[0] * b1 + lam[1] * b2) / sum(lam)


ATLAS_CLAIMS = ("jsq_beats_random", "jsq_beats_local")


@takes(ArenaParams, "quick", "seed", "load", "link_delay", "scv", *DEPLOYMENT)
def atlas_point(p, *, quick: bool) -> dict[str, Measurement]:
    """The mechanism claims at one point of the winner map's plausible space.

    Parameters
    ----------
    quick : bool
        The quick run lengths (:data:`ATLAS_RUNS`).
    seed : int
        The runs' seed; every policy runs on it (paired replications).

    Returns
    -------
    dict of str to Measurement
        ``jsq_beats_random`` and ``jsq_beats_local``: 1.0 when jsq's interval lies below
        the other's, 0.0 otherwise, undetermined when a run is not stationary.
    """
    return _pooling(p, check_bool(quick, "quick", "atlas_point"))


ATLAS = AtlasSpec(
    evaluate=atlas_point, claims=ATLAS_CLAIMS, quick_points=6, work_per_evaluation=3e7
)
"""Six quick points (three runs of 8,000 tasks × 3 replications each)."""
