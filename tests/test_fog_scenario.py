"""Scenario graphs: generators, files, and errors that name the node/edge and attribute."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from workbench.fog import (
    ScenarioError,
    default_scenario,
    geometric_scenario,
    grid_scenario,
    load_scenario,
    ring_scenario,
    save_scenario,
    validate,
    with_traffic,
)
from workbench.fog.params import PARAMS
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.validation import ParameterError


@pytest.mark.parametrize(
    "make",
    [
        lambda s: default_scenario(s),
        lambda s: ring_scenario(6, 5, seed=s),
        lambda s: grid_scenario(2, 3, 4, seed=s),
        lambda s: geometric_scenario(12, 0.35, "uneven", seed=s),
    ],
)
def test_generators_are_valid_and_seeded(make):
    a, b, c = make(1), make(1), make(2)
    validate(a)
    assert nx.utils.graphs_equal(a, b)
    delays = lambda g: sorted(d["delay"] for *_, d in g.edges(data=True))  # noqa: E731
    assert delays(a) != delays(c)


def test_ring_and_grid_shapes():
    net = compile_scenario(ring_scenario(7, 3))
    assert net.n_fog == 7 and net.n_iot == 21 and set(np.diff(net.nbr_ptr)) == {2}
    net = compile_scenario(grid_scenario(3, 3, 2))
    assert sorted(np.diff(net.nbr_ptr)) == [2, 2, 2, 2, 3, 3, 3, 3, 4]


def test_shortest_paths_and_transmission_sums():
    g = ring_scenario(5, 1, seed=3)
    net = compile_scenario(g)
    fog = nx.subgraph(g, [n for n, d in g.nodes(data=True) if d["role"] == "fog"])
    for a in range(5):
        for b in range(5):
            path = nx.shortest_path(fog, f"fog{a}", f"fog{b}", weight="delay")
            hops = list(zip(path[:-1], path[1:], strict=True))
            assert net.ff_prop[a, b] == pytest.approx(sum(g.edges[e]["delay"] for e in hops))
            assert net.ff_inv[a, b] == pytest.approx(sum(1 / g.edges[e]["rate"] for e in hops))


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
def test_round_trip_files(tmp_path, suffix):
    g = default_scenario(4)
    path = save_scenario(g, tmp_path / f"s{suffix}")
    h = load_scenario(path)
    a, b = compile_scenario(g), compile_scenario(h)
    assert a.fog_names == b.fog_names
    for field in ("ff_prop", "iot_rate", "cloud_units", "fc_inv", "iot_p"):
        assert np.allclose(getattr(a, field), getattr(b, field))


def broken(change):
    g = ring_scenario(4, 2)
    change(g)
    return g


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda g: g.add_edge("iot0", "fog2", delay=1e-3, rate=1e6), ["iot0", "2 links"]),
        (lambda g: g.remove_edge("iot1", "fog0"), ["iot1", "0 links"]),
        (lambda g: g.edges["fog0", "fog1"].update(rate=-5.0), ["fog0", "fog1", "rate"]),
        (lambda g: g.edges["fog0", "fog1"].pop("delay"), ["fog0", "fog1", "delay"]),
        (lambda g: g.nodes["fog3"].pop("mu_heavy"), ["fog3", "mu_heavy"]),
        (lambda g: g.nodes["iot2"].update(p_iot=0.7, p_cloud=0.6), ["iot2", "p_iot + p_cloud"]),
        (lambda g: g.nodes["cloud0"].update(units=2.5), ["cloud0", "units"]),
        (lambda g: g.nodes["iot0"].update(role="sensor"), ["iot0", "role"]),
        (lambda g: g.graph.pop("size_heavy"), ["size_heavy"]),
        (lambda g: g.nodes["iot0"].update(rate_light=float("nan")), ["iot0", "rate_light"]),
        (lambda g: g.remove_edges_from([("fog0", "fog1"), ("fog2", "fog3")]), ["not connected"]),
    ],
)
def test_errors_name_the_defect(change, words):
    g = broken(change)
    with pytest.raises(ScenarioError) as err:
        validate(g)
    for w in words:
        assert w in str(err.value)


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match=".graphml or .json"):
        load_scenario(tmp_path / "x.txt")
    g = ring_scenario(3, 1)
    g.edges["fog0", "fog1"]["rate"] = 0.0
    nx.write_graphml(g, tmp_path / "zero.graphml")
    with pytest.raises(ScenarioError, match="rate"):
        load_scenario(tmp_path / "zero.graphml")


def test_with_traffic_scales_and_mixes():
    g = ring_scenario(3, 2, lam_per_iot=1.0)
    h = with_traffic(g, load=2.0, light_fraction=0.5, p_iot=0.3)
    d = h.nodes["iot0"]
    assert d["rate_light"] == pytest.approx(1.0) and d["rate_heavy"] == pytest.approx(1.0)
    assert d["p_iot"] == 0.3 and g.nodes["iot0"]["p_iot"] == 0.1


def test_build_scenario_takes_its_traffic_defaults_from_the_table():
    table = {k: PARAMS[k].default for k in ("light_fraction", "p_iot", "p_cloud")}
    d = build_scenario(nx.path_graph(2), 1, lam_per_iot=2.0).nodes["iot0"]
    assert d["rate_light"] == 2.0 * table["light_fraction"]
    assert (d["p_iot"], d["p_cloud"]) == (table["p_iot"], table["p_cloud"])
    d = build_scenario(nx.path_graph(2), 1, lam_per_iot=2.0, light_fraction=0.5, p_iot=0.3)
    assert (d.nodes["iot0"]["rate_light"], d.nodes["iot0"]["p_iot"]) == (1.0, 0.3)
    # the table's p^C counts in the p^I + p^C ≤ 1 check when only p^I is given
    p_iot = 1.0 - table["p_cloud"] / 2
    with pytest.raises(ParameterError, match="p_cloud.*build_scenario.*p\\^I \\+ p\\^C"):
        build_scenario(nx.path_graph(2), 1, p_iot=p_iot)
    with pytest.raises(ParameterError, match="p_cloud.*ring_scenario.*p\\^I \\+ p\\^C"):
        ring_scenario(3, 1, p_iot=p_iot)


def test_with_fog_delay_refuses_a_negative_delay():
    from workbench.fog.scenario import with_fog_delay
    from workbench.validation import ParameterError

    with pytest.raises(ParameterError, match="fog_delay.*with_fog_delay|with_fog_delay.*fog_delay"):
        with_fog_delay(default_scenario(0), -0.001)
