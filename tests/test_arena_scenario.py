"""Scenario files: every shipped file loads; each malformed key gets a clear error."""

import copy
import json

import pytest
import yaml

from workbench import ParameterError, arena
from workbench.arena import ScenarioError

GOOD = {
    "name": "two-centers",
    "nodes": [
        {
            "id": "A",
            "role": "edge",
            "servers": 10,
            "speed": 1.0,
            "capacity": 10,
            "power_idle": 50,
            "power_busy": 120,
        },
        {"id": "B", "role": "edge", "servers": 10, "speed": 1.0, "capacity": 10},
        {"id": "cloud", "role": "cloud", "servers": ".inf"},
    ],
    "links": [
        {"a": "A", "b": "B", "delay": 0.002, "bandwidth": 1.0e8, "energy_per_bit": 0.0},
        {"a": "A", "b": "cloud", "delay": 0.05},
    ],
    "workload": [
        {
            "source": "A",
            "rate": 15.0,
            "size": {"dist": "exponential", "mean": 1.0},
            "input_bits": 0,
        },
        {"source": "B", "rate": 8.0, "size": {"dist": "exponential", "mean": 1.0}},
    ],
}


def _bad(path, value):
    d = copy.deepcopy(GOOD)
    *head, last = path
    target = d
    for key in head:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return d


CASES = [
    (("nodes", 1, "servers"), -1, "nodes[1].servers", "-1"),
    (("nodes", 1, "servers"), 2.5, "nodes[1].servers", "2.5"),
    (("nodes", 0, "capacity"), 4, "nodes[0]", "capacity (4) must be at least servers (10)"),
    (("nodes", 0, "role"), "server", "nodes[0].role", "'server'"),
    (("nodes", 0, "speed"), 0, "nodes[0].speed", "greater than 0"),
    (("nodes", 0, "power_idle"), -5, "nodes[0].power_idle", "-5"),
    (("nodes", 0, "colour"), "red", "nodes[0].colour", "Extra inputs"),
    (("nodes", 1, "id"), "A", "nodes[1].id", "duplicate node id 'A'"),
    (("links", 0, "b"), "C", "links[0].b", "'C'"),
    (("links", 0, "delay"), -0.1, "links[0].delay", "-0.1"),
    (("links", 0, "bandwidth"), 0, "links[0].bandwidth", "greater than or equal to 1000"),
    (("workload", 1, "rate"), 0, "workload[1].rate", "greater than 0"),
    (("workload", 0, "source"), "Z", "workload[0].source", "'Z'"),
    (("workload", 0, "size"), {"dist": "gamma", "mean": 1}, "workload[0].size", "gamma"),
    (
        ("workload", 0, "size"),
        {"dist": "pareto", "scale": 1, "alpha": 0.9},
        "workload[0].size.alpha",
        "0.9",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "weibull", "shape": 1},
        "workload[0].size.scale",
        "Field required",
    ),
    (("workload", 0, "types"), {"count": 0}, "workload[0].types.count", "0"),
    (("workload",), KeyError, "workload", "Field required"),
    (("nodes",), [], "nodes", "at least 1"),
]


@pytest.mark.parametrize("path, value, where, says", CASES)
def test_each_malformed_key_names_its_path_rule_and_value(path, value, where, says):
    with pytest.raises(ScenarioError) as err:
        arena.scenario_from_dict(_bad(path, value))
    text = str(err.value)
    assert where in text and says in text, text
    assert isinstance(err.value, ParameterError)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_bad_file_is_named_and_nothing_is_built(tmp_path, suffix):
    path = tmp_path / f"bad{suffix}"
    data = _bad(("nodes", 1, "servers"), -3)
    path.write_text(json.dumps(data) if suffix == ".json" else yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match=r"bad\.(yaml|json).*\n.*nodes\[1\]\.servers.*-3"):
        arena.load_scenario(path)
    good = tmp_path / f"good{suffix}"
    good.write_text(json.dumps(GOOD) if suffix == ".json" else yaml.safe_dump(GOOD))
    sc = arena.load_scenario(good)
    assert [n.id for n in sc.nodes] == ["A", "B", "cloud"]
    assert sc.nodes[2].servers == float("inf") and sc.nodes[1].capacity == 10


def test_unreadable_yaml_and_missing_files_are_clear(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("nodes: [ {id: A\n")
    with pytest.raises(ScenarioError, match="broken.yaml.*not readable"):
        arena.load_scenario(path)
    with pytest.raises(ScenarioError, match="no file.*shipped scenarios"):
        arena.load_scenario(tmp_path / "absent.yaml")


def test_every_shipped_scenario_loads_and_the_papers_are_there():
    names = arena.shipped()
    assert {
        "neutral",
        "p1_fog",
        "p2_proactive",
        "p3_datacenters",
        "p4_redundancy",
        "p5_hierarchy",
    } <= set(names)
    for name in names:
        sc = arena.load_scenario(name)
        assert sc.name == name and sc.description


def test_simulate_validates_its_arguments():
    with pytest.raises(ParameterError, match="policy"):
        arena.simulate(scenario=GOOD, policy="fastest", requests=1000, replications=2)
    with pytest.raises(ParameterError, match="takes the parameters"):
        arena.simulate(scenario=GOOD, policy="local", m=2, requests=1000, replications=2)
    with pytest.raises(ParameterError, match="'m' parameter of simulate"):
        arena.simulate(scenario=GOOD, policy="replicate", m=0, requests=1000, replications=2)
    with pytest.raises(ParameterError, match="'requests' parameter"):
        arena.simulate(scenario=GOOD, policy="local", requests=10, replications=2)
    with pytest.raises(ParameterError, match="min_th < max_th"):
        arena.simulate(scenario=GOOD, policy="red", min_th=5, max_th=4, requests=1000)
    no_cloud = {**GOOD, "nodes": GOOD["nodes"][:2], "links": GOOD["links"][:1]}
    with pytest.raises(ParameterError, match="cloud"):
        arena.simulate(scenario=no_cloud, policy="cloud", requests=1000, replications=2)
    with pytest.raises(ParameterError, match="does not compile"):

        @arena.policy
        def broken(queue, servers, speed, delay, u):
            return "left"
