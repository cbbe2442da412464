"""Named cases shared by the P1 claims and figures: one fog node, an overloaded fog layer,
and the load-variance study (the same total load spread evenly or not).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. III-B ("Offloading helps when there is a
high degree of variance in the load among fog nodes"), Sec. IV-G (one fog node's chain).
"""

from __future__ import annotations

import functools

import networkx as nx
import pandas as pd

from workbench.fog.model import P1Params
from workbench.fog.scenario import (
    build_scenario,
    compile_scenario,
    geometric_scenario,
    ring_scenario,
    with_fog_delay,
)
from workbench.fog.simulation import simulate
from workbench.seeding import figure_seed

__all__ = [
    "one_fog_scenario",
    "with_fog_rates",
    "overloaded_scenario",
    "AGREEMENT_CASES",
    "EVEN_COUNTS",
    "UNEVEN_COUNTS",
    "load_variance_gains",
    "load_variance_runs",
]


def one_fog_scenario(rates=(6.0, 2.0), service=(50.0, 10.0)):
    """One fog node keeping its 10 IoT nodes' requests (p^I = p^C = 0).

    Parameters
    ----------
    rates : (float, float)
        The Poisson rates (λ, λ') of Light and Heavy requests at the node [1/s]; by default
        ten IoT nodes at 0.8 requests/s, 75% Light.
    service : (float, float)
        The node's processing rates (μ, μ') [1/s].

    Returns
    -------
    networkx.Graph
        The scenario: one fog node, its ten IoT nodes and a fast cloud.
    """
    lam, lam2 = (float(r) for r in rates)
    layer = nx.Graph()
    layer.add_node(0)
    return build_scenario(
        layer,
        10,
        lam_per_iot=(lam + lam2) / 10,
        light_fraction=lam / (lam + lam2),
        p_iot=0.0,
        p_cloud=0.0,
        fog_mu=tuple(service),
        cloud_mu=(1000.0, 200.0),
    )


def with_fog_rates(scenario, mu_light, mu_heavy) -> nx.Graph:
    """A copy of a scenario graph with every fog node's processing rates set to (μ, μ').

    Parameters
    ----------
    scenario : networkx.Graph
        A valid scenario (:mod:`workbench.fog.scenario`).
    mu_light, mu_heavy : float
        The processing rates μ and μ' of every fog node [1/s].

    Returns
    -------
    networkx.Graph
        The copy.
    """
    g = scenario.copy()
    for _, d in g.nodes(data=True):
        if d.get("role") == "fog":
            d["mu_light"], d["mu_heavy"] = float(mu_light), float(mu_heavy)
    return g


def overloaded_scenario(n_fog=40, lam_per_iot=4.0):
    """A fog layer far beyond its capacity: 100 IoT nodes per fog node at ``lam_per_iot`` req/s.

    Each fog node is offered 320 requests/s (at 4 req/s) against a capacity of about 89/s,
    so it accepts about one in seven; two clouds of 40 units (1,000 fog: ten) take the rest.

    Parameters
    ----------
    n_fog : int
        Fog nodes of the geometric layer (seed 1).
    lam_per_iot : float
        Requests per second of every IoT node [1/s].

    Returns
    -------
    networkx.Graph
        The scenario.
    """
    clouds = 2 if n_fog <= 100 else 10
    return geometric_scenario(
        n_fog,
        0.3 if n_fog <= 100 else 0.06,
        100,
        seed=1,
        lam_per_iot=lam_per_iot,
        n_cloud=clouds,
        cloud_units=40,
    )


# ---------------------------------------------- the agreement table (model vs simulation)

AGREEMENT_CASES = (  # (label, scenario, simulate keywords)
    ("one fog node, θ = ∞ (M/G/1 FIFO)", "one_fog", dict(policy="no_offload")),
    ("all to cloud (P-K units)", "default", dict(policy="all_cloud")),
    ("fog, no offloading (θ = ∞)", "default", dict(policy="no_offload")),
    ("fog processes Light only", "default", dict(policy="light_only")),
    ("offloading θ = 10 ms, e_M = 1, distributed", "default", dict(theta=0.01, e_max=1)),
    (
        "offloading θ = 10 ms, e_M = 1, oracle tables",
        "default",
        dict(theta=0.01, e_max=1, mode="oracle"),
    ),
    ("offloading θ = 40 ms, e_M = 2, distributed", "default", dict(theta=0.04, e_max=2)),
    (
        "offloading θ = 40 ms, e_M = 2, T_a = 0.5 s (stale)",
        "default",
        dict(theta=0.04, e_max=2, announce_period=0.5),
    ),
    (
        "overloaded fog layer: 40 fog × 100 IoT at 4 req/s, θ = 20 ms",
        "overloaded",
        dict(theta=0.02, e_max=1),
    ),
    (
        "the same per node, 1,000 fog × 100 IoT (100,000 IoT nodes)",
        "overloaded_1000",
        dict(theta=0.02, e_max=1),
    ),
)


# ------------------------------------------------------- load variance (Sec. III-B)

EVEN_COUNTS = (26,) * 10
UNEVEN_COUNTS = (8, 44) * 5
"""Ten fog nodes on a ring, 260 IoT nodes in both: 26 each (every node offered ρ = 0.94),
or alternately 8 and 44 (ρ = 0.29 and 1.58): the same total load, spread evenly or not."""


@functools.lru_cache(maxsize=2)
def load_variance_gains(quick=True, seed: int = 0) -> pd.DataFrame:
    """Offloading's gain with the same total load spread evenly and unevenly over fog nodes.

    Gain = (delay with e_M = 0 − delay with e_M = 1) / delay with e_M = 0 at θ = 20 ms: what
    fog-to-fog offloading saves over sending a busy node's requests to the cloud. Both runs
    of a spread use the same seed (common random numbers: the requests do not depend on
    e_M): ``figure_seed(5, seed)``, ``seed`` the caller's (the notebook's ``SEED``).

    Returns
    -------
    pandas.DataFrame
        Rows ``spread``, ``delay_no_forward``, ``delay_forward`` [s], ``gain``,
        ``share_fog_no_forward``, ``share_fog_forward``, ``stationary``, ``note``.
    """
    n, reps = (20_000, 4) if quick else (60_000, 10)
    p = P1Params(
        theta=0.02,
        e_max=1,
        requests=n,
        replications=reps,
        seed=figure_seed(5, seed),
        overload="transient",
    )
    rows = []
    for spread, runs in load_variance_runs(p).items():
        d0, d1 = runs[0].mean, runs[1].mean
        notes = "; ".join(r.stationarity.note for r in runs if not r.stationary)
        rows.append(
            dict(
                spread=spread,
                delay_no_forward=d0,
                delay_forward=d1,
                gain=(d0 - d1) / d0,
                share_fog_no_forward=runs[0]["share_fog"],
                share_fog_forward=runs[1]["share_fog"],
                stationary=all(r.stationary for r in runs),
                note=notes,
            )
        )
    return pd.DataFrame(rows)


def load_variance_runs(p, fog_delay=None) -> dict:
    """The simulations behind the load-variance study, at the settings of ``p``.

    Parameters
    ----------
    p : P1Params
        The runs' settings (θ, e_M, run length, seed, ``overload``); its scenario is
        replaced by the ring of ten fog nodes with :data:`EVEN_COUNTS` or
        :data:`UNEVEN_COUNTS` IoT nodes.
    fog_delay : float, optional
        Every fog–fog link's delay [s]; None keeps the ring's own draws (seed 0).

    Returns
    -------
    dict
        ``{"even": [run, run], "uneven": [run, run]}``: :func:`workbench.fog.simulate`'s
        results with e_M = 0 and with ``p.e_max``, on the same seed.
    """
    out = {}
    for spread, counts in (("even", EVEN_COUNTS), ("uneven", UNEVEN_COUNTS)):
        g = ring_scenario(10, list(counts), seed=0)
        net = compile_scenario(g if fog_delay is None else with_fog_delay(g, fog_delay))
        out[spread] = [simulate(p.trusted(scenario=net, e_max=e)) for e in (0, p.e_max)]
    return out
