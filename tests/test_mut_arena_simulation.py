"""The arena's run module: mutants of ``workbench/arena/simulation.py`` that the arena's tests
let survive (``benchmarks/mutation.py arena_simulation``).

Every number a replication reports is written again from the module's docstring by a slow
summary (tests/naive_arena.py: ``summary_naive``) over the recording twin's run of the same
tasks (``RecordingTwin``): delays and their quantiles, the shares of lost, cloud and
forwarded tasks, copies, the energy per task, each node's utilisation and power, and the
records task by task. The scenario has a device, rooms that overflow, a cloud of infinite
servers, and unequal powers, links and energy per bit, so that no two terms agree by
accident.
"""

import math

import numpy as np
import pytest
from naive_arena import RecordingTwin, summary_naive

from workbench import arena
from workbench.arena.compile import draw_tasks
from workbench.arena.simulation import POLICIES, _policy, checked_net
from workbench.output_analysis import detect
from workbench.seeding import replication_seeds


def _chain(capacity=3, lam=3.0):
    """A device ``d`` whose home is ``e0``, three edges in a line ``e0 - e1 - e2`` (one or
    two servers, rooms of ``capacity``), a cloud of infinite servers behind ``e1``: every
    node draws its own busy and idle power, every link its own delay, bandwidth and energy
    per bit."""
    nodes = [
        {
            "id": f"e{k}",
            "role": "edge",
            "servers": 1 + k % 2,
            "capacity": capacity,
            "power_idle": 10.0 + 3 * k,
            "power_busy": 40.0 + 11 * k,
        }
        for k in range(3)
    ]
    nodes.append(
        {"id": "c", "role": "cloud", "servers": ".inf", "speed": 2.0, "power_idle": 900.0}
        | {"power_busy": 60.0}
    )
    nodes.append({"id": "d", "role": "device", "servers": 0, "power_idle": 0.5, "power_busy": 7.0})
    pairs = [
        ("d", "e0", 0.5, 5e6, 2e-7),
        ("e0", "e1", 1.0, 2e6, 1e-7),
        ("e1", "e2", 2.0, 1e6, 3e-7),
        ("e1", "c", 9.0, 1e7, 5e-8),
    ]
    links = [
        {"a": a, "b": b, "delay": 0.01 * d, "bandwidth": bw, "energy_per_bit": e}
        for a, b, d, bw, e in pairs
    ]
    size = {"dist": "weibull", "shape": 0.8, "scale": 0.5}
    sources = ["d", "e0", "e1", "e2"]
    work = [
        {"source": s, "rate": lam * (1 + 0.3 * k), "input_bits": 1000.0 * (k + 1), "size": size}
        for k, s in enumerate(sources)
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _twins(sc, name, params, n, seed, reps, warm):
    """The recording twin's run of each replication's tasks (child r of the seed)."""
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
    start = full.pop("cancel", "completion") == "start"
    for child in replication_seeds(seed, reps):
        tk = draw_tasks(sc, n, ch.copies, ch.uniforms, child)
        twin = RecordingTwin(net, tk, name, warm=warm, cancel_on_start=start, **full)
        yield net, tk, twin.run()


_CASES = [
    ("local", {}),
    ("threshold", {"theta": 0.3, "e_max": 2}),
    ("replicate", {"m": 3}),
    ("replicate", {"m": 2, "cancel": "start"}),
    ("overflow", {"p": 0.6}),
]


def _check(sc, name, params, n, seed, warmup):
    """Two replications of ``n`` tasks against the twin's: every quantity, the count of
    completed tasks, each node's utilisation and power (the slow summary), the records
    task by task, and the stationarity verdict, which must be the detector's on the twin's
    delays in arrival order with its completed warm-up tasks cut."""
    reps = 2
    r = arena.simulate(
        scenario=sc,
        policy=name,
        requests=n,
        replications=reps,
        seed=seed,
        warmup=warmup,
        overload="transient",
        records=True,
        **params,
    )
    warm = round(warmup * n)
    assert r.info["warmup"] == warm
    ids = [x.id for x in sc.nodes] + [""]
    series, cut = [], []
    for k, (net, tk, out) in enumerate(_twins(sc, name, params, n, seed, reps, warm)):
        want = summary_naive(sc, net, tk, out, warm)
        got = r.frame.iloc[k]
        for col, value in want.items():
            assert got[col] == pytest.approx(value, rel=1e-9, abs=1e-12), col
        assert set(r.frame.columns) >= set(want)
        rec = r.records[r.records["replication"] == k]
        finish, where, copies, hops, energy, _, _, _, started = out
        keep = slice(warm, n)
        assert rec["task"].tolist() == list(range(warm, n))
        assert np.array_equal(rec["arrival"], tk.t[keep])
        assert rec["source"].tolist() == [ids[j] for j in tk.node[keep]]
        assert np.array_equal(rec["type"], tk.kind[keep])
        assert rec["node"].tolist() == [ids[j] for j in where[keep]]
        assert np.array_equal(rec["copies"], copies[keep])
        assert np.array_equal(rec["hops"], hops[keep])
        np.testing.assert_allclose(rec["energy"], energy[keep], rtol=1e-12, atol=0.0)
        np.testing.assert_array_equal(rec["start"], started[keep])
        np.testing.assert_array_equal(rec["finish"], finish[keep])
        np.testing.assert_array_equal(rec["delay"], np.asarray(finish[keep]) - tk.t[keep])
        outcome = [
            "lost" if w < 0 else ("cached" if math.isnan(s) else "served")
            for w, s in zip(where[keep], started[keep], strict=True)
        ]
        assert rec["outcome"].tolist() == outcome
        series.append(
            np.array([f - t for f, t, w in zip(finish, tk.t, where, strict=True) if w >= 0])
        )
        cut.append(sum(w >= 0 for w in where[:warm]))
    assert r.stationarity == detect(series, warmup=cut, unit="s", label="mean_delay")
    return r


@pytest.mark.parametrize(("name", "params"), _CASES)
def test_each_replications_row_is_the_docstrings_summary_of_the_twins_run(name, params):
    """1,200 tasks measured from task 120 on the chain, for policies that keep, forward,
    replicate (cancelled on completion and on start) and overflow into losses."""
    _check(_chain(), name, params, 1_200, 7, 0.1)


@pytest.mark.parametrize("name", ["jsq", "local"])
def test_a_window_shorter_than_a_second_is_measured_like_any_other(name):
    """348 arrivals a second: 200 tasks measured from task 20 span about half a second
    (utilisation and power are per second of that window, not NaN)."""
    r = _check(_chain(lam=60.0), name, {}, 200, 3, 0.1)
    window = r.records.groupby("replication")["arrival"].agg(lambda t: t.max() - t.min())
    assert window.between(0.2, 0.9).all()
