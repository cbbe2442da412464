"""Scenario and trace files read defensively (issue 43, the arena's files): each reproducer
of the issue is refused by name, and hostile, malformed and huge files
(``fuzz_surfaces.hostile_files``, which the project's fuzzer runs in forked children under
its time and memory limits) end in a ``ScenarioError`` or a valid scenario, fast.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import numpy as np
import pytest
from fuzz_surfaces import (
    ACCEPTED_FILES,
    LAUGHS,
    TRACE_ROWS,
    TWO_CENTERS,
    hostile_file_cases,
    hostile_files,
    load_file,
    run_case,
)

from workbench import ParameterError, arena
from workbench.arena import ScenarioError

GOOD = TWO_CENTERS


def _with(path, value):
    d = copy.deepcopy(GOOD)
    *head, last = path
    target = d
    for key in head:
        target = target[key]
    target[last] = value
    return d


def _refused(d, *says):
    with pytest.raises(ScenarioError) as err:
        arena.scenario_from_dict(d)
    text = str(err.value)
    for s in says:
        assert s in text, text
    return text


# -- numbers: physical ranges, named --------------------------------------------------------

RANGES = [
    (("nodes", 0, "power_idle"), 1e308, "nodes[0].power_idle", "1e+308"),
    (("nodes", 0, "power_busy"), 1e308, "nodes[0].power_busy", "1e+308"),
    (("links", 0, "delay"), 1e308, "links[0].delay", "1e+308"),
    (("links", 0, "energy_per_bit"), 1e308, "links[0].energy_per_bit", "1e+308"),
    (("links", 0, "bandwidth"), 1e308, "links[0].bandwidth", "1e+308"),
    (("nodes", 0, "speed"), 1e308, "nodes[0].speed", "1e+308"),
    (("workload", 0, "rate"), 1e308, "workload[0].rate", "1e+308"),
    (("workload", 0, "input_bits"), 1e308, "workload[0].input_bits", "1e+308"),
    (
        ("workload", 0, "size"),
        {"dist": "weibull", "shape": 0.005, "scale": 1.0},
        "workload[0].size.shape",
        "got 0.005",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "weibull", "shape": 1e-3, "scale": 1.0},
        "workload[0].size.shape",
        "got 0.001",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "exponential", "mean": 1e155},
        "workload[0].size.mean",
        "got 1e+155",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "exponential", "mean": 1e300},
        "workload[0].size.mean",
        "got 1e+300",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "pareto", "scale": 1e300, "alpha": 2.5},
        "workload[0].size.scale",
        "got 1e+300",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "pareto", "scale": 1.0, "alpha": 1.5},
        "workload[0].size.alpha",
        "got 1.5",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "lognormal", "mean": 1.0, "scv": 1e6},
        "workload[0].size.scv",
        "got 1000000.0",
    ),
    (
        ("workload", 0, "size"),
        {"dist": "weibull", "shape": 0.06, "scale": 1e-12},
        "workload[0].size",
        "squared coefficient of variation must be at most 10000",
    ),
    (("nodes", 0, "servers"), True, "nodes[0].servers", "not a boolean"),
    (("nodes", 0, "capacity"), True, "nodes[0].capacity", "not a boolean"),
    (("workload", 0, "rate"), True, "workload[0].rate", "not a boolean"),
    (("links", 0, "delay"), False, "links[0].delay", "not a boolean"),
]


@pytest.mark.parametrize(
    "path, value, where, got", RANGES, ids=[f"{r[2]}={r[1]!r:.20}" for r in RANGES]
)
def test_every_number_has_a_physical_range_and_is_refused_by_name(path, value, where, got):
    """Issue 43: powers and delays of 1e308 gave NaN; Weibull shape 0.005, exponential mean
    1e155, size mean 1e300 passed, then OverflowError; ``servers: true`` became 1 server;
    rates of 1e308 gave numpy's 'Probabilities do not sum to 1'."""
    _refused(_with(path, value), where, got)


def test_two_huge_rates_are_refused_not_a_numpy_error():
    d = _with(("workload", 0, "rate"), 1e308)
    d["workload"][1]["rate"] = 1e308
    _refused(d, "workload[0].rate", "workload[1].rate")


def test_a_wide_but_legal_law_still_loads():
    """The ranges are physical, not timid: c² = 100 and a Weibull of shape 0.3 load."""
    for size in (
        {"dist": "hyperexponential", "mean": 0.1, "scv": 100.0},
        {"dist": "weibull", "shape": 0.3, "scale": 0.1},
    ):
        sc = arena.scenario_from_dict(_with(("workload", 0, "size"), size))
        assert 0 < sc.workload[0].size.moment(1) < 1


# -- the clock at tiny rates ----------------------------------------------------------------


@pytest.mark.parametrize("rate", [1e-12, 1e-15])
def test_tiny_rates_against_short_tasks_are_refused_at_load(rate):
    """Issue 43: rates 1e-12 and 1e-15 with tasks of size 0.1 gave mean delays 0.118 and
    0.0 (float64 time at 1e13 s cannot hold 0.1 s)."""
    d = {
        "nodes": [{"id": "A", "role": "edge"}],
        "workload": [
            {"source": "A", "rate": rate, "size": {"dist": "deterministic", "value": 0.1}}
        ],
    }
    _refused(d, "workload", "resolves its shortest time", "the mean service of workload[0]")


def test_slow_but_resolvable_rates_run_and_give_the_right_delay():
    """1e-4 tasks/s with tasks of 0.1 s (a run of 1e7 s): resolved to 1e-6, the delay is 0.1."""
    d = {
        "nodes": [{"id": "A", "role": "edge"}],
        "workload": [
            {"source": "A", "rate": 1e-4, "size": {"dist": "deterministic", "value": 0.1}}
        ],
    }
    r = arena.simulate(
        scenario=d, policy="local", requests=1_000, replications=2, overload="transient"
    )
    assert r.mean_delay == pytest.approx(0.1, rel=1e-6) and r.p99_delay == pytest.approx(
        0.1, rel=1e-6
    )


def test_a_long_run_that_would_lose_the_clock_is_refused_by_draw_tasks():
    from workbench.arena.compile import draw_tasks

    d = {
        "nodes": [{"id": "A", "role": "edge", "servers": 100}],
        "workload": [
            {"source": "A", "rate": 0.1, "size": {"dist": "deterministic", "value": 1e-6}}
        ],
    }
    sc = arena.scenario_from_dict(d)  # 100 tasks: 1e3 s, steps of 2e-13 s: fine at load
    with pytest.raises(ParameterError, match="'requests' parameter of simulate"):
        draw_tasks(sc, 1_000_000, 1, 2, np.random.default_rng(0))  # 1e7 s: steps of 2e-9


# -- reachability ---------------------------------------------------------------------------


def test_a_source_with_no_path_to_a_server_is_refused_at_load():
    """Issue 43: a node with no path to its target was served there with zero delay."""
    d = copy.deepcopy(GOOD)
    d["nodes"].append({"id": "lonely", "role": "device", "servers": 0})
    d["workload"].append(
        {"source": "lonely", "rate": 1.0, "size": {"dist": "exponential", "mean": 1.0}}
    )
    _refused(d, "workload[2].source", "'lonely' serves nothing")


def test_a_source_that_cannot_reach_the_cloud_is_refused_at_load():
    d = copy.deepcopy(GOOD)
    d["links"] = d["links"][:1]  # the cloud has no link left
    _refused(d, "workload[0].source", "path of links to the cloud 'cloud'")


def test_a_device_whose_tasks_need_a_relay_is_refused_by_name():
    """A node that serves nothing places its tasks on its nearest serving neighbour; one
    with only non-serving neighbours has no such home."""
    d = copy.deepcopy(GOOD)
    d["nodes"] += [
        {"id": "relay", "role": "device", "servers": 0},
        {"id": "phone", "role": "device", "servers": 0},
    ]
    d["links"] += [{"a": "relay", "b": "A"}, {"a": "phone", "b": "relay"}]
    d["workload"].append(
        {"source": "phone", "rate": 1.0, "size": {"dist": "exponential", "mean": 1.0}}
    )
    _refused(d, "workload[2].source", "a direct link to a node that serves")


def test_a_link_written_twice_is_refused():
    d = copy.deepcopy(GOOD)
    d["links"].append({"a": "B", "b": "A", "delay": 0.5})
    _refused(d, "links[2]", "links[0] joins them already")


# -- budgets --------------------------------------------------------------------------------


def test_thirty_thousand_nodes_are_refused_before_allocating_with_the_estimate():
    """Issue 43: 30,000 nodes asked numpy for a 6.7 GiB array."""
    from workbench.arena.compile import compile_scenario

    n = 30_000
    d = {
        "nodes": [{"id": f"n{i}", "role": "edge"} for i in range(n)],
        "workload": [{"source": "n0", "rate": 1.0, "size": {"dist": "exponential", "mean": 0.5}}],
    }
    t0 = time.perf_counter()
    sc = arena.scenario_from_dict(d)
    with pytest.raises(ParameterError, match=r"'nodes' parameter of compile_scenario .* 64\.8 GB"):
        compile_scenario(sc)
    with pytest.raises(ParameterError, match="memory budget"):
        arena.simulate(scenario=sc, policy="local", requests=1_000, replications=2)
    assert time.perf_counter() - t0 < 20


def test_sixty_four_copies_of_ten_million_tasks_are_refused_before_allocating():
    """Issue 43: ``m=64`` with ``requests=10**7`` (both in range) asked for 4.8 GiB."""
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match=r"'requests' parameter of simulate .* GB"):
        arena.simulate(scenario=GOOD, policy="replicate", m=64, requests=10**7, replications=2)
    assert time.perf_counter() - t0 < 20


# -- files ----------------------------------------------------------------------------------


def _write(tmp_path, name, content) -> Path:
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    return p


def test_a_billion_laughs_file_fails_at_once(tmp_path):
    """Issue 43: 633 bytes of nested aliases ran 81 s, then MemoryError."""
    p = _write(tmp_path, "laughs.yaml", LAUGHS)
    t0 = time.perf_counter()
    with pytest.raises(ScenarioError, match=r"laughs\.yaml.*aliases expand it to more than"):
        arena.load_scenario(p)
    assert time.perf_counter() - t0 < 2


def test_a_few_aliases_are_fine(tmp_path):
    text = json.dumps(GOOD)  # JSON is YAML; then share one size law through an anchor
    d = copy.deepcopy(GOOD)
    d["workload"][1]["size"] = "ALIAS"
    text = (
        json.dumps(d)
        .replace('"ALIAS"', "*law")
        .replace(
            '"size": {"dist": "exponential", "mean": 1.0}',
            '"size": &law {"dist": "exponential", "mean": 1.0}',
        )
    )
    sc = arena.load_scenario(_write(tmp_path, "shared.yaml", text))
    assert sc.workload[1].size == sc.workload[0].size


def test_aliases_are_counted_flat_and_in_merge_keys(tmp_path):
    """More than MAX_ALIASES uses of anchors (flat, nothing nested to expand) is refused;
    exactly MAX_ALIASES is read; a merge key ``<<: *x`` is an alias too."""
    from workbench.arena.scenario import MAX_ALIASES

    def extra(n, merge=False):
        use = "{<<: *v, w: 1}" if merge else "*v"
        return json.dumps(GOOD)[:-1] + ', "pad": [&v {a: 1}' + f", {use}" * n + "]}"

    with pytest.raises(
        ScenarioError, match=rf"more than {MAX_ALIASES} aliases \({MAX_ALIASES + 1}\)"
    ):
        arena.load_scenario(_write(tmp_path, "many.yaml", extra(MAX_ALIASES + 1)))
    with pytest.raises(ScenarioError, match=rf"more than {MAX_ALIASES} aliases"):
        arena.load_scenario(_write(tmp_path, "merge.yaml", extra(MAX_ALIASES + 1, merge=True)))
    with pytest.raises(ScenarioError) as ok:  # read: only the unknown key 'pad' is refused
        arena.load_scenario(_write(tmp_path, "enough.yaml", extra(MAX_ALIASES)))
    assert f"more than {MAX_ALIASES} aliases" not in str(ok.value)
    assert "pad: Extra inputs are not permitted" in str(ok.value)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_key_written_twice_is_refused(tmp_path, suffix):
    """Issue 43: a duplicated key kept the last block silently."""
    body = json.dumps(GOOD)
    twice = body[:-1] + ', "workload": ' + json.dumps(GOOD["workload"][:1]) + "}"
    p = _write(tmp_path, f"twice{suffix}", twice)
    with pytest.raises(ScenarioError, match=r"twice\.(yaml|json).*'workload' is written twice"):
        arena.load_scenario(p)
    nested = _write(
        tmp_path, f"nested{suffix}", body.replace('"delay": 0.05', '"delay": 0.05, "delay": 9')
    )
    with pytest.raises(ScenarioError, match="'delay' is written twice"):
        arena.load_scenario(nested)


def test_unreadable_files_are_scenario_errors_naming_the_file(tmp_path):
    """Issue 43: a non-UTF-8 file, a folder or '' gave UnicodeDecodeError /
    IsADirectoryError."""
    bad = _write(tmp_path, "latin.yaml", "name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ScenarioError, match=r"latin\.yaml.*not UTF-8"):
        arena.load_scenario(bad)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    with pytest.raises(ScenarioError, match=r"folder\.yaml.*is a folder"):
        arena.load_scenario(folder)
    for empty in ("", "   "):
        with pytest.raises(ScenarioError, match="must name a file"):
            arena.load_scenario(empty)
    with pytest.raises(ScenarioError, match=r"empty\.yaml.*must be a mapping"):
        arena.load_scenario(_write(tmp_path, "empty.yaml", ""))
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as f:
        f.truncate(21 * 2**20)  # sparse: no disk written
    with pytest.raises(ScenarioError, match=r"huge\.yaml.*bytes, more than"):
        arena.load_scenario(huge)


# -- trace files ----------------------------------------------------------------------------

BAD_TRACES = [
    ("time,source,size\n0.0,A,abc\n", "row 1, column 'size'", "'abc'"),
    ("time,source,size\n0.0,A,-1\n", "row 1, column 'size'", "'-1'"),
    ("time,source,size\n0.0,A,1e300\n", "row 1, column 'size'", "1e300"),
    ("time,source,size\n0.0,A,nan\n", "row 1, column 'size'", "'nan'"),
    ("time,source,size\n1.0,A,1\n0.5,A,1\n", "row 2, column 'time'", "0.5"),
    ("time,source,size\ninf,A,1\n", "row 1, column 'time'", "'inf'"),
    ("time,source,size,type\n0,A,1,1.5\n", "row 1, column 'type'", "'1.5'"),
    ("time,source,size,deadline\n0,A,1,0\n", "row 1, column 'deadline'", "'0'"),
    ("time,source,size\n0,Z,1\n", "row 1, column 'source'", "'Z'"),
    ("time,source,size\n0,A\n", "row 1: must have 3 fields", "['0', 'A']"),
    ("time,source,sise\n0,A,1\n", "column 'sise' must be one of", "time"),
    ("time,source\n0,A\n", "must have the column 'size'", "source"),
    ("time,source,size,size\n0,A,1,1\n", "column 'size' appears twice", "size"),
    ("time,source,size\n", "at least one row", "header"),
    ("", "must have a header row", "time"),
]


@pytest.mark.parametrize("text, where, says", BAD_TRACES, ids=[b[1] for b in BAD_TRACES])
def test_each_bad_trace_cell_is_named_with_row_column_and_value(tmp_path, text, where, says):
    _write(tmp_path, "tasks.csv", text)
    d = {**GOOD, "workload": [{"trace": "tasks.csv"}]}
    sc_path = _write(tmp_path, "sc.json", json.dumps(d))
    with pytest.raises(ScenarioError) as err:
        arena.load_scenario(sc_path)
    msg = str(err.value)
    assert "sc.json" in msg and "workload[0].trace" in msg and "tasks.csv" in msg, msg
    assert where in msg and says in msg, msg


def test_trace_files_that_are_not_files_or_text(tmp_path):
    d = {**GOOD, "workload": [{"trace": "absent.csv"}]}
    _refused(d, "workload[0].trace", "must name an existing CSV file")
    (tmp_path / "dir.csv").mkdir()
    _refused({**GOOD, "workload": [{"trace": str(tmp_path / "dir.csv")}]}, "is a folder")
    p = _write(tmp_path, "latin.csv", "time,source,size\n0,caf\xe9,1\n".encode("latin-1"))
    _refused({**GOOD, "workload": [{"trace": str(p)}]}, "workload[0].trace", "not UTF-8")
    ok = _write(tmp_path, "ok.csv", TRACE_ROWS)
    sc = arena.scenario_from_dict({**GOOD, "workload": [{"trace": str(ok), "loop": True}]})
    assert sc.workload[0].table.nodes == ("A", "B")
    _refused({**GOOD, "workload": [{"trace": str(ok), "loop": "yes"}]}, "workload[0].loop")


# -- the fuzzer's cases ---------------------------------------------------------------------
# The hostile, malformed and huge files are fuzz_surfaces' (``hostile_files``): the fuzzer
# runs each in a forked child under its time and memory limits; here they run in this process.


def test_hostile_files_end_in_a_scenario_error_or_a_scenario_fast(tmp_path, monkeypatch):
    """Every case in this process (a child per case is the fuzzer's job): clean or ok, each
    within 2 s of CPU, and the valid ones load."""
    seen = {}
    for i, (label, name, content) in enumerate(hostile_files()):
        folder = tmp_path / str(i)
        folder.mkdir()
        monkeypatch.chdir(folder)
        t0 = time.process_time()  # CPU: the machine may be shared
        try:
            outcome, detail = "ok", load_file(label, name, content)
        except ScenarioError as err:
            outcome, detail = "clean", str(err)
        seen[label] = outcome
        assert time.process_time() - t0 < 2.0, label
        if outcome == "clean":
            assert name in detail or "sc.json" in detail, (label, detail)
    assert seen["valid"] == "ok" and seen["trace: valid"] == "ok"
    assert seen["trace: 200k rows"] == "ok"
    bad = {k for k, v in seen.items() if v == "ok"} - {"valid", "trace: valid", "trace: 200k rows"}
    assert not bad, bad  # every hostile or malformed file is refused
    assert set(ACCEPTED_FILES) == {"valid", "trace: valid", "trace: 200k rows"}


def test_the_fuzz_runner_reports_each_case_in_a_child():
    """The fuzzer's runner (``fuzz_surfaces.run_case``) on four of these cases (the test
    above loads them all in this process): a bomb and a deep file refused, a valid scenario
    and trace loaded, each in a child."""
    only = ("laughs", "deep json", "valid", "trace: valid")
    chosen = [c for c in hostile_file_cases() if c.name.split(": ", 1)[1] in only]
    rows = [run_case(c) for c in chosen]
    got = {r["case"].split(": ", 1)[1]: r["outcome"] for r in rows}
    assert got == {"laughs": "clean", "deep json": "clean", "valid": "ok", "trace: valid": "ok"}
    assert all(0 < r["seconds"] < 20 and r["cpu"] < 10 for r in rows), rows


def test_a_run_over_the_work_budget_is_refused_before_it_starts():
    """The hook for ``simulate`` (its replications known): 10^4 replications of 10^7 tasks
    x 1 copy is about 3.5e12 steps, past the work budget; one of 10^4 tasks is not."""
    from workbench.arena.compile import check_run

    sc = arena.scenario_from_dict(GOOD)
    with pytest.raises(ParameterError, match=r"'replications' parameter of simulate .* work"):
        check_run(sc, 10**7, 1, 2, replications=10**4)
    check_run(sc, 10**4, 1, 2, replications=10)
    with pytest.raises(ParameterError, match="memory budget"):
        check_run(sc, 10**7, 64, 2)
