"""P3's simulation module, where the first mutation run of ``datacenters_simulation`` found
no test: each replication's row and loss series (two centers and ring), the class-2 note,
the intervals' ranges, the run's bounds on work and memory, the precision loop's target and
bar, the ring's table and ``warm_up``. Oracles: the slow twins of one replication written
from the model's text (tests/naive_datacenters.py: two_center_replication, ring_replication,
loss_series), the exact two-center chain (balance equations, Little's law, conservation of
requests), the bounds' own definitions (a planted memory budget, the work bound at its
edge) and, for ``warm_up``, the kernels a fresh interpreter has compiled after it."""

import os
import subprocess
import sys
import typing
from types import SimpleNamespace

import naive_datacenters as naive
import numpy as np
import pytest

from workbench import EmptyRunError, ParameterError, validation
from workbench import datacenters as dc
from workbench.datacenters import simulation as sim
from workbench.output_analysis import detect
from workbench.seeding import replication_seeds

# two unequal centers, both overloaded: every fate happens to both classes
NET = dict(lam=(4.0, 2.5), servers=(3, 2), mu=(1.0, 0.8), p=(0.6, 0.3))
RING = dict(lam=(3.0, 0.6, 2.2, 1.4), servers=(2, 3, 1, 2), mu=(1.0, 0.5, 1.5, 0.8))
RING_P = (0.4, 0.1, 0.5, 0.25)
LIMIT = 2**16  # the docstring's longest series per replication
FRAME = [
    "beta1",
    "beta2",
    "arrivals1",
    "arrivals2",
    "local1",
    "local2",
    "remote1",
    "remote2",
    "rejected1",
    "rejected2",
    "loss_rate",
    "mean_busy1",
    "mean_busy2",
    "p_full1",
    "p_full2",
    "p_both_full",
    "time",
]


def _same_verdict(got, series, warm, label):
    """The result's stationarity is the detector's verdict on the twin's series."""
    ref = detect(series, warmup=warm, alpha=1e-3, label=label)
    assert (got.stationary, got.truncation, got.observations) == (
        ref.stationary,
        ref.truncation,
        ref.observations,
    )
    for name in ("first_half", "second_half", "p_value"):
        assert getattr(got, name) == pytest.approx(getattr(ref, name), rel=1e-12, nan_ok=True)


def test_each_replication_is_the_slow_twin_of_the_two_center_chain():
    """Every column of every replication, and the class-1 loss series the detector saw."""
    events, warmup, seed = 3000, 0.15, 7
    res = dc.simulate(**NET, events=events, replications=3, seed=seed, warmup=warmup)
    skip = int(warmup * events)
    series, warm = [], []
    for r, child in enumerate(replication_seeds(seed, 3)):
        row, s, w = naive.two_center_replication(
            **NET, events=events, warmup=skip, seed_seq=child, limit=LIMIT
        )
        got = res.frame.iloc[r]
        for q in FRAME:
            assert got[q] == pytest.approx(row[q], rel=1e-12), (r, q)
        series.append(s)
        warm.append(w)
    assert (res.frame[["rejected1", "rejected2", "remote1", "remote2"]] > 0).all().all()
    _same_verdict(res.stationarity, series, warm, "beta1")


def test_each_ring_replication_is_the_slow_twin_of_the_ring():
    """Every quantity of every ring replication, its loss series, and the table's rows."""
    events, warmup, seed = 3000, 0.2, 4
    res = dc.simulate_ring(
        **RING, p=RING_P, events=events, replications=3, seed=seed, warmup=warmup
    )
    cap = np.array(RING["servers"], np.int64)
    series, warm = [], []
    for r, child in enumerate(replication_seeds(seed, 3)):
        lam, mu, p = np.array(RING["lam"]), np.array(RING["mu"]), np.array(RING_P)
        skip = int(warmup * events)
        row, s, w, _ = naive.ring_replication(lam, cap, mu, p, events, skip, child, LIMIT)
        got = res.frame.iloc[r]
        for q, value in row.items():
            assert got[q] == pytest.approx(value, rel=1e-12), (r, q)
        series.append(s)
        warm.append(w)
    _same_verdict(res.stationarity, series, warm, "beta")
    assert res.info["centers"] == 4 and res.metric == "beta"
    summary = res.summary.set_index("quantity")
    table = dc.ring_table(res)
    assert list(table["center"]) == [0, 1, 2, 3]
    for j in range(4):
        b = summary.loc[f"beta{j}"]
        assert table.loc[j, "beta"] == b["estimate"] == res.frame[f"beta{j}"].mean()
        assert (table.loc[j, "ci_low"], table.loc[j, "ci_high"]) == (b["ci_low"], b["ci_high"])
        assert table.loc[j, "half_width"] == b["half_width"]
        assert table.loc[j, "p_full"] == res.frame[f"p_full{j}"].mean()
        assert table.loc[j, "mean_busy"] == res.frame[f"mean_busy{j}"].mean()


def test_a_ring_center_with_no_or_one_arrival():
    """Center 1 has so low a rate that replications see 0 or 1 of its requests, while its
    neighbours keep it full with their overflow: its loss fraction is 0 without arrivals
    (nothing lost) and 1 when its one request was lost."""
    lam, p = np.array([2.0, 1e-3, 2.0]), np.array([0.5, 0.0, 0.5])
    cap, mu = np.ones(3, np.int64), np.full(3, 0.5)
    res = dc.simulate_ring(lam=lam, servers=1, mu=0.5, p=p, events=4000, replications=12, seed=0)
    seen = set()
    for r, child in enumerate(replication_seeds(0, 12)):
        row, _, _, arrivals = naive.ring_replication(lam, cap, mu, p, 4000, 400, child, LIMIT)
        assert res.frame.iloc[r]["beta1"] == row["beta1"], r
        seen.add((arrivals[1], row["beta1"]))
    assert {(0, 0.0), (1, 1.0)} <= seen, seen


def test_the_two_center_estimates_match_the_exact_chain():
    """Long replications against the stationary law of the chain (its balance equations):
    full and both-full probabilities, mean busy servers, β₁ and β₂ (Section 2.1), and the
    loss rate λ₁β₁ + λ₂β₂ (requests are conserved)."""
    lam, servers, mu, p = NET["lam"], NET["servers"], NET["mu"], NET["p"]
    c1, c2 = servers
    pi = naive.stationary(naive.generator_two_centers(lam, servers, mu, p)).reshape(c1 + 1, c2 + 1)
    b1, b2 = naive.blocking_two_centers(lam, servers, mu, p)
    exact = {
        "beta1": b1,
        "beta2": b2,
        "loss_rate": lam[0] * b1 + lam[1] * b2,
        "p_full1": pi[c1, :].sum(),
        "p_full2": pi[:, c2].sum(),
        "p_both_full": pi[c1, c2],
        "mean_busy1": (pi.sum(axis=1) * np.arange(c1 + 1)).sum(),
        "mean_busy2": (pi.sum(axis=0) * np.arange(c2 + 1)).sum(),
    }
    res = dc.simulate(**NET, events=400_000, replications=4, seed=2)
    for q, value in exact.items():
        assert res[q] == pytest.approx(value, rel=0.02), q
        low, high = res.interval(q)
        assert low - 0.01 * value <= value <= high + 0.01 * value, q
    # Little's law at each center: busy servers = accepted rate / μ
    rates = res.frame[["local1", "remote2", "local2", "remote1"]].sum() / res.frame["time"].sum()
    assert res["mean_busy1"] * mu[0] == pytest.approx(rates["local1"] + rates["remote2"], rel=0.01)
    assert res["mean_busy2"] * mu[1] == pytest.approx(rates["local2"] + rates["remote1"], rel=0.01)


def test_a_class_2_without_arrivals_lost_nothing_and_the_note_counts_those_runs():
    """λ₂ so low that some replications see no class-2 request after the warm-up: β₂ is 0
    there, and the note says how many of the replications that was."""
    lam = (3.0, 0.004)
    net = dict(lam=lam, servers=(3, 2), mu=(1.0, 1.0), p=(0.5, 0.5))
    res = dc.simulate(**net, events=2000, replications=8, seed=3)
    empty = 0
    for r, child in enumerate(replication_seeds(3, 8)):
        row, _, _ = naive.two_center_replication(
            **net, events=2000, warmup=200, seed_seq=child, limit=LIMIT
        )
        assert res.frame.iloc[r]["beta2"] == row["beta2"]
        empty += row["arrivals2"] == 0
    assert 0 < empty < 8  # both kinds of replication
    assert res.notes[0].startswith(
        f"{empty} of 8 replications had no class-2 arrival after the warm-up: β₂ = 0 there"
    )
    full = dc.simulate(**NET, events=2000, replications=2)
    assert not any("class-2" in n for n in full.notes)


def test_intervals_are_clipped_to_each_quantitys_range_and_no_further():
    """Two replications (t = 12.7): the raw intervals of probabilities near 1 and near 0
    cross their range, as does the loss rate's near 0; rates and busy servers are not
    clipped at 1."""
    hot = dc.simulate(
        lam=(60.0, 0.5),
        servers=(2, 6),
        mu=(1.0, 1.0),
        p=(0.1, 0.0),
        events=2000,
        seed=1,
        replications=2,
    )
    s = hot.summary.set_index("quantity")
    mid, half = s["estimate"], s["half_width"]
    raw = {q: (mid[q] - half[q], mid[q] + half[q]) for q in s.index}
    assert raw["p_full1"][1] > 1.0 and hot.interval("p_full1")[1] == 1.0
    assert raw["p_full2"][0] < 0.0 < 1.0 < raw["p_full2"][1]
    assert hot.interval("p_full2") == (0.0, 1.0)
    for q in ("mean_busy1", "loss_rate"):
        assert hot.interval(q)[1] == raw[q][1] > 1.0, q
    calm = dc.simulate(
        lam=(1.0, 1.0),
        servers=(4, 4),
        mu=(1.0, 1.0),
        p=(0.5, 0.5),
        events=2000,
        seed=1,
        replications=2,
    )
    c = calm.summary.set_index("quantity")
    for q in ("loss_rate", "beta1", "p_full1"):
        assert c.loc[q, "estimate"] - c.loc[q, "half_width"] < 0.0, q
        assert calm.interval(q)[0] == 0.0, q


def test_a_long_run_hands_the_detector_block_means_of_its_losses():
    """More class-1 arrivals than 2**16 in a replication: the detector sees means of
    consecutive blocks (the docstring's rule), not every indicator."""
    net = dict(lam=(40.0, 5.0), servers=(30, 10), mu=(1.0, 1.0), p=(0.6, 0.3))
    events, seed = 200_000, 1
    res = dc.simulate(**net, events=events, replications=2, seed=seed)
    centers = sim.Centers(40.0, 5.0, 1.0, 1.0, 0.6, 0.3, 30, 10, 0, 0)
    series, warm = [], []
    for child in replication_seeds(seed, 2):
        gen = np.random.default_rng(child)
        u, v = gen.random(events), gen.random(events)
        lost = np.empty(events, np.uint8)
        _, _, _, n1, warm1 = sim.simulate_two_centers_kernel(centers, u, v, events // 10, lost)
        assert n1 > LIMIT
        s, w = naive.loss_series(list(lost[:n1]), warm1, LIMIT)
        assert LIMIT // 4 < s.size <= LIMIT // 2
        series.append(s)
        warm.append(w)
    _same_verdict(res.stationarity, series, warm, "beta1")


def _estimate(events, replications):
    """The docstring's memory estimate: two uniforms and a fate byte per event of one
    replication, and eight bytes per kept series entry of every replication."""
    return 17 * events + 8 * replications * min(events, LIMIT)


@pytest.mark.parametrize("events", [3000, 100_000])
def test_the_memory_estimate_is_the_inputs_and_the_kept_series(monkeypatch, events):
    """A budget of exactly the estimate runs; one byte less is refused, naming events."""
    need = _estimate(events, 3)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", need - 1)
    with pytest.raises(ParameterError, match="'events' parameter of simulate would need"):
        dc.simulate(**NET, events=events, replications=3)
    with pytest.raises(ParameterError, match="'events' parameter of simulate_ring would need"):
        dc.simulate_ring(**RING, p=RING_P, events=events, replications=3)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", need)
    assert dc.simulate(**NET, events=events, replications=3).replications == 3
    assert dc.simulate_ring(**RING, p=RING_P, events=events, replications=3).replications == 3


def test_work_is_refused_above_the_bound_and_not_at_it(monkeypatch):
    """10⁹ two-center events (events × replications × centers / 2) is the bound: exactly
    that much passes the work check (and is then stopped by a planted memory budget, so
    nothing runs); one replication more is too long, said with its figures."""
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 1.0)
    memory = "'events' parameter of {} would need"
    with pytest.raises(ParameterError, match=memory.format("simulate")):
        dc.simulate(**NET, events=50_000_000, replications=20)
    with pytest.raises(ParameterError, match="simulate is too long") as err:
        dc.simulate(**NET, events=50_000_000, replications=21)
    assert "50,000,000 * 21 over 2 centers is about 1.05e+09 two-center events" in str(err.value)
    ring = dict(lam=(1.0,) * 5, servers=2, mu=1.0, p=0.2)  # 5 centers: 2.5 two-center events
    with pytest.raises(ParameterError, match=memory.format("simulate_ring")):
        dc.simulate_ring(**ring, events=40_000_000, replications=10)
    with pytest.raises(ParameterError, match="simulate_ring is too long") as err:
        dc.simulate_ring(**ring, events=40_000_000, replications=11)
    assert "over 5 centers is about 1.1e+09" in str(err.value)
    with pytest.raises(ParameterError, match=memory.format("simulate_to_precision")):
        dc.simulate_to_precision(**NET, events=50_000_000, max_replications=20, progress=False)
    with pytest.raises(ParameterError, match="simulate_to_precision is too long"):
        dc.simulate_to_precision(**NET, events=50_000_000, max_replications=21, progress=False)


def test_the_precision_loop_records_its_target_and_shows_a_bar_by_default(capsys):
    res = dc.simulate_to_precision(**NET, events=5000, half_width=0.05, seed=1, progress=False)
    assert res.info["target"] == 0.05 and res.half_width <= 0.05
    assert res.info["lam"] == NET["lam"] and res.info["seed"] == 1 and res.info["warmup"] == 0.1
    capsys.readouterr()
    rel = dc.simulate_to_precision(**NET, events=5000, metric="p_full2", rel_half_width=0.2)
    assert rel.metric == "p_full2" and rel.info["target"] == 0.2
    assert rel.half_width <= 0.2 * rel.estimate
    assert "p_full2" in capsys.readouterr().err  # the bar, labelled with the metric


def test_a_precision_run_with_no_class_1_request_names_the_rate_to_raise():
    said = r"λ₁ = 1e-06 is too small for 5,000 events with λ₂ = 1e\+06: raise λ₁"
    with pytest.raises(EmptyRunError, match=said):
        dc.simulate_to_precision(
            lam=(1e-6, 1e6),
            servers=(5000, 1),
            mu=(1e6, 1e-6),
            p=(0.0, 1.0),
            events=5000,
            progress=False,
        )


def test_ring_table_takes_only_a_ring_result():
    two = dc.simulate(**NET, events=2000, replications=2)
    with pytest.raises(ParameterError, match="'result' parameter of ring_table"):
        dc.ring_table(two)


def test_the_public_signatures_resolve_for_documentation_tools():
    """Type hints are read by Sphinx and type checkers: each must evaluate."""
    hints = typing.get_type_hints(dc.simulate_to_precision)
    for name in ("rel_half_width", "half_width"):
        assert hints[name] == float | None
    for name in ("initial", "max_replications"):
        assert hints[name] == int | None


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (2.5, "compiled the kernels in 2.5 s"),
        (2.0, "loaded from the cache in 2.00 s"),
        (1.5, "loaded from the cache in 1.50 s"),
    ],
)
def test_warm_up_says_compiled_above_two_seconds(monkeypatch, seconds, said):
    clock = iter([1.0, 1.0 + seconds])  # t - t0 differs from t % t0 and t // t0
    monkeypatch.setattr(sim, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    assert said in dc.warm_up()


WARM = """
import numba
from workbench.datacenters import warm_up
from workbench.datacenters import kernels
from workbench.kernels import markov
warm_up()
for mod in (kernels, markov):
    for name, f in vars(mod).items():
        if isinstance(f, numba.core.registry.CPUDispatcher) and f.signatures:
            print(name)
"""


def test_warm_up_loads_every_kernel_the_notebook_times():
    """In a fresh interpreter: after warm_up, the exact chain's kernels (its stencil, the
    ADI shifts, GMRES, the residual and the sparse form of a thin window), the limit's QBD
    and the simulator are loaded, so no solve time the notebook shows is a compilation."""
    assert "kernels" in dc.warm_up()  # here too, so that a coverage run credits this test
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    # -B: the tree this test runs on is read from its source, never from a stale .pyc
    run = [sys.executable, "-B", "-c", WARM]
    out = subprocess.run(run, capture_output=True, text=True, env=env, check=True)
    loaded = set(out.stdout.split())
    solvers = {"grid_chain_stencil", "adi_shifts", "stationary_gmres", "stencil_residual"}
    thin = {"stencil_to_coo"}  # the sparse LU of a thin window (servers (20, 2))
    assert solvers | thin | {"idle_walk_qbd", "simulate_two_centers_kernel"} <= loaded, loaded
