"""P1's analytic model where tests/test_fog_model.py does not look: :func:`analyze` on small
networks against its slow twin written from the paper's equations (tests/naive_fog.py:
flows, the λ_j fixed point, P-K cloud servers, eq. 6 by recursion, eq. 2 per IoT node),
for every policy, neighbour rule, admission and cloud sojourn (benchmarks/mutation.py,
target ``fog_model``)."""

import math

import networkx as nx
import numpy as np
import pytest
from naive_fog import naive_analyze

from workbench.fog import analyze, fog_loads
from workbench.fog.scenario import build_scenario, compile_scenario


def small_network():
    """Four fog nodes (a path with a chord: degrees 1, 3, 2, 2), two cloud servers, IoT
    nodes with uneven rates (so the per-request and per-IoT means differ), every p^I, p^F,
    p^C positive, loads high enough that the fog nodes offload."""
    layer = nx.Graph([(0, 1), (1, 2), (2, 3), (1, 3)])
    g = build_scenario(
        layer, [3, 5, 2, 4], n_cloud=2, p_iot=0.1, p_cloud=0.2, seed=3, lam_per_iot=20.0
    )
    iot = [n for n, d in g.nodes(data=True) if d["role"] == "iot"]
    for k, n in enumerate(iot):
        g.nodes[n]["rate_light"] *= 0.5 + 0.25 * (k % 4)
        g.nodes[n]["rate_heavy"] *= 1.5 - 0.25 * (k % 3)
    return g


G = small_network()
NET = compile_scenario(G)

CASES = [
    dict(theta=0.02, e_max=2),
    dict(theta=0.02, e_max=2, neighbour="uniform"),
    dict(theta=0.01, e_max=1, own_processing=True, cloud_sojourn="per_class"),
    dict(theta=0.015, e_max=2, admission="threshold"),
    dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=3),
    dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=2, admission="threshold"),
    dict(theta=0.0, e_max=1),
    dict(theta=0.02, e_max=2, policy="light_only"),
    dict(theta=0.02, e_max=2, policy="all_cloud"),
    dict(theta=0.02, e_max=2, policy="no_offload", own_processing=True),
]


def _check_against_twin(a, want):
    assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)
    assert a.mean_delay_per_iot == pytest.approx(want["mean_delay_per_iot"], rel=1e-9)
    fog, cloud, iot = a.fog, a.cloud, a.iot
    for c, name in enumerate(("light", "heavy")):
        assert fog[f"accept_{name}"].to_numpy() == pytest.approx(want["accept"][c], abs=1e-9)
        assert fog[f"v_{name}"].to_numpy() == pytest.approx(want["v"][c], rel=1e-9)
        assert fog[f"lam_{name}"].to_numpy() == pytest.approx(want["lam"][c], rel=1e-9)
        assert fog[f"cloud_{name}"].to_numpy() == pytest.approx(
            want["cloud_share"][c], rel=1e-9, abs=1e-12
        )
        assert cloud[f"l_{name}"].to_numpy() == pytest.approx(want["cloud_load"][:, c], rel=1e-9)
        assert cloud[f"H_{name}"].to_numpy() == pytest.approx(want["h"][:, c], rel=1e-9)
        assert iot[f"delay_{name}"].to_numpy() == pytest.approx(want["delay"][:, c], rel=1e-9)
    assert fog["rho"].to_numpy() == pytest.approx(want["rho"], rel=1e-9)
    assert fog["mean_work"].to_numpy() == pytest.approx(want["mean_work"], rel=1e-8)
    assert list(fog["best"]) == list(want["best"])
    units = NET.cloud_units
    per_unit = want["cloud_load"].sum(axis=1) / units
    assert cloud["per_unit_rate"].to_numpy() == pytest.approx(per_unit, rel=1e-9)
    assert list(cloud["units"]) == list(units)


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{v}" for v in kw.values()))
def test_analyze_matches_the_slow_twin_of_the_papers_equations(kw):
    a = analyze(G, **kw)
    _check_against_twin(a, naive_analyze(NET, **kw))
    # the settings the analysis ran with (a baseline forwards nothing)
    baseline = kw.get("policy", "offload") != "offload"
    assert a.settings["e_max"] == (0 if baseline else kw["e_max"])
    assert a.settings["policy"] == kw.get("policy", "offload")


def test_the_chosen_case_offloads_and_differs_per_iot():
    # the cases above are only telling if the fog nodes reject part of their traffic and
    # the two averages differ
    a = analyze(G, theta=0.02, e_max=2)
    assert 0.05 < a.fog["accept_light"].min() and a.fog["accept_light"].max() < 0.999
    assert a.mean_delay != pytest.approx(a.mean_delay_per_iot, rel=1e-3)
    assert a.iterations > 1


def test_the_acceptance_of_an_earlier_analysis_skips_the_fixed_point():
    a = analyze(G, theta=0.02, e_max=2)
    again = analyze(G, theta=0.02, e_max=2, own_processing=True, acceptance=a.fog["accept_light"])
    assert again.iterations == 0
    _check_against_twin(again, naive_analyze(NET, theta=0.02, e_max=2, own_processing=True))


def test_a_lone_fog_node_sends_its_rejects_to_the_cloud():
    layer = nx.Graph()
    layer.add_node(0)
    g = build_scenario(layer, 12, p_iot=0.0, p_cloud=0.1, lam_per_iot=20.0, seed=1)
    net = compile_scenario(g)
    for kw in (dict(theta=0.01, e_max=2), dict(theta=0.01, e_max=2, admission="threshold")):
        a = analyze(g, **kw)
        want = naive_analyze(net, **kw)
        assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)
        fog = a.fog.iloc[0]
        # every request that enters is kept or sent to the cloud: nothing forwarded, none lost
        for c in ("light", "heavy"):
            assert fog[f"v_{c}"] == pytest.approx(fog[f"I_{c}"], rel=1e-12)
            assert fog[f"lam_{c}"] + fog[f"cloud_{c}"] == pytest.approx(fog[f"I_{c}"], rel=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        dict(theta=0.015, e_max=2),
        dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=2),
        dict(theta=0.02, e_max=2, policy="light_only"),
    ],
)
def test_fog_loads_are_the_threshold_models_kept_traffic(kw):
    admission = "threshold" if kw.get("policy", "offload") == "offload" else "chain"
    want = naive_analyze(NET, admission=admission, **kw)["rho"]
    assert fog_loads(G, **kw) == pytest.approx(want, rel=1e-9)


def test_fog_loads_fall_back_to_the_chain_where_theta_is_too_large_for_threshold():
    theta = 1e5  # the threshold chain would need more than MAX_CHAIN_STATES states
    want = naive_analyze(NET, theta=theta, e_max=1)["rho"]
    assert fog_loads(G, theta=theta, e_max=1) == pytest.approx(want, rel=1e-9)
    # θ never binds: every node keeps its own traffic, P = 1
    keep = (NET.fog_inflow / NET.fog_mu).sum(axis=1)
    assert fog_loads(G, theta=theta, e_max=1) == pytest.approx(keep, rel=1e-6)


def test_cloud_servers_are_pollaczek_khinchine_per_unit():
    # all_cloud: every request goes to the cloud; per unit an M/G/1 with the class mixture
    a = analyze(G, policy="all_cloud")
    for k, row in a.cloud.iterrows():
        z = NET.cloud_mean[k]
        lam = np.array([row["l_light"], row["l_heavy"]]) / NET.cloud_units[k]
        es = lam @ z / lam.sum()
        es2 = lam @ (2 * z**2) / lam.sum()
        load = lam.sum() * es
        assert row["load"] == pytest.approx(load, rel=1e-12)
        assert row["H_light"] == pytest.approx(es + lam.sum() * es2 / (2 * (1 - load)), rel=1e-12)
    # everything offered reaches a cloud server
    total = NET.iot_rate[:, 0] @ (NET.iot_p[:, 1] + NET.iot_p[:, 2])
    assert a.cloud["l_light"].sum() == pytest.approx(total, rel=1e-12)
