"""The arena's workloads: common random numbers across policies, size laws whose moments
are as declared, arrival processes beyond Poisson (MMPP-2, batches) and task traces."""

import json
import math

import numpy as np
import pytest

from workbench import ParameterError, arena
from workbench.arena import ScenarioError
from workbench.arena.compile import draw_tasks
from workbench.seeding import replication_seeds

ONE_NODE = {
    "name": "one node",
    "nodes": [{"id": "A", "role": "edge", "servers": 2, "capacity": 20}],
    "workload": [{"source": "A", "rate": 12.0, "size": {"dist": "exponential", "mean": 0.1}}],
}


def _pair(policy, other, **params):
    kw = dict(scenario=ONE_NODE, requests=3_000, replications=3, seed=7)
    a = arena.simulate(policy=policy, **kw, **params).frame
    b = arena.simulate(policy=other, **kw).frame
    return a, b


@pytest.mark.parametrize("policy, params", [("random", {}), ("hedge_cache", {"deadline": 0.0})])
def test_policies_that_behave_alike_give_the_same_numbers(policy, params):
    """On one node ``random`` and ``hedge_cache`` (no neighbour to hedge to) place every
    task at home, like ``local``: with common random numbers every replication's numbers
    are the same, not merely close (hedge_cache asks for two size columns: its first
    column must be local's only one)."""
    a, b = _pair(policy, "local", **params)
    cols = ["mean_delay", "p99_delay", "loss_share", "energy_per_task", "utilisation:A"]
    assert len(a) == 3 and a["mean_delay"].nunique() == 3  # three distinct replications
    assert np.array_equal(a[cols].to_numpy(), b[cols].to_numpy())


def test_the_workload_does_not_depend_on_the_policy_s_draws():
    """More copies or more uniforms add columns; the arrivals, sources, types, the first
    size column and the first uniforms stay the same."""
    sc = arena.load_scenario("p2_proactive")
    small = draw_tasks(sc, 5_000, 1, 2, np.random.default_rng(3))
    big = draw_tasks(sc, 5_000, 3, 5, np.random.default_rng(3))
    for field in ("t", "node", "source", "bits", "kind"):
        assert np.array_equal(getattr(small, field), getattr(big, field)), field
    assert np.array_equal(small.size[:, 0], big.size[:, 0])
    assert np.array_equal(small.u, big.u[:, :2])
    # ... and the extra columns are fresh draws, not copies of the first
    assert not np.array_equal(big.size[:, 0], big.size[:, 1])
    assert not np.array_equal(big.u[:, 0], big.u[:, 4])
    assert (small.kind >= 0).all() and len(np.unique(small.source)) == 3
    other = draw_tasks(sc, 5_000, 1, 2, np.random.default_rng(4))
    assert not np.array_equal(small.t, other.t)  # another seed, other tasks


def test_the_seed_may_be_a_seed_sequence_or_an_int():
    sc = arena.scenario_from_dict(ONE_NODE)
    ss = np.random.SeedSequence(11)
    a = draw_tasks(sc, 100, 1, 2, ss)
    b = draw_tasks(sc, 100, 1, 2, np.random.SeedSequence(11))
    c = draw_tasks(sc, 100, 1, 2, 11)
    assert np.array_equal(a.t, b.t) and np.array_equal(a.t, c.t)
    with pytest.raises(ParameterError, match="'rng' parameter"):
        draw_tasks(sc, 100, 1, 2, "seven")


# -- size laws: the moments the estimates need, at the declared mean and c² -------------------

LAWS = [
    {"dist": "exponential", "mean": 0.1},
    {"dist": "deterministic", "value": 0.1},
    {"dist": "shifted_exponential", "shift": 0.05, "rate": 20.0},
    {"dist": "pareto", "scale": 0.06, "alpha": 4.5},
    {"dist": "weibull", "shape": 0.7, "scale": 0.08},
    {"dist": "hyperexponential", "mean": 0.1, "scv": 4.0},
    {"dist": "lognormal", "mean": 0.1, "scv": 4.0},
]


def _law(d):
    sc = arena.scenario_from_dict(
        {**ONE_NODE, "workload": [{**ONE_NODE["workload"][0], "size": d}]}
    )
    return sc.workload[0].size


def _scipy(d):
    """The same law from scipy.stats (an independent formula for its moments)."""
    from scipy import stats

    if d["dist"] == "exponential":
        return stats.expon(scale=d["mean"])
    if d["dist"] == "shifted_exponential":
        return stats.expon(loc=d["shift"], scale=1 / d["rate"])
    if d["dist"] == "pareto":
        return stats.pareto(d["alpha"], scale=d["scale"])
    if d["dist"] == "weibull":
        return stats.weibull_min(d["shape"], scale=d["scale"])
    if d["dist"] == "lognormal":
        s2 = np.log1p(d["scv"])
        return stats.lognorm(np.sqrt(s2), scale=d["mean"] * np.exp(-s2 / 2))
    return None


@pytest.mark.parametrize("d", LAWS, ids=[d["dist"] for d in LAWS])
def test_each_size_law_has_the_moments_it_declares(d):
    """Theory: E[S^k] for k = 1..4 against scipy.stats' law (or the mixture's own sum for
    the hyperexponential); the declared mean and c² are the law's; and 400,000 draws of
    the sampler match E[S] and E[S²] within 5 standard errors (from E[S²], E[S⁴])."""
    law = _law(d)
    ref = _scipy(d)
    for k in (1, 2, 3, 4):
        if ref is not None:
            assert law.moment(k) == pytest.approx(ref.moment(k), rel=1e-9), k
        elif d["dist"] == "deterministic":
            assert law.moment(k) == pytest.approx(0.1**k, rel=1e-12)
        else:  # balanced hyperexponential: p1 m1 = p2 m2 = mean / 2
            p1, m1, m2 = law.phases
            assert p1 * m1 == pytest.approx(0.05) and (1 - p1) * m2 == pytest.approx(0.05)
            mix = p1 * math.factorial(k) * m1**k + (1 - p1) * math.factorial(k) * m2**k
            assert law.moment(k) == pytest.approx(mix, rel=1e-12)
    if "mean" in d:
        assert law.moment(1) == pytest.approx(d["mean"], rel=1e-12)
    if "scv" in d:
        assert law.cv2 == pytest.approx(d["scv"], rel=1e-12)
    from workbench.arena.compile import sample_sizes

    n = 400_000
    x = sample_sizes(law, n, np.random.default_rng(5))
    for k in (1, 2):
        se = np.sqrt(max(law.moment(2 * k) - law.moment(k) ** 2, 0.0) / n)
        assert abs(np.mean(x**k) - law.moment(k)) <= 5 * se + 1e-15, (k, np.mean(x**k))


# -- arrival processes beyond Poisson -------------------------------------------------------


def _one_source(arrivals, rate=10.0):
    w = {**ONE_NODE["workload"][0], "rate": rate, "arrivals": arrivals}
    return arena.scenario_from_dict({**ONE_NODE, "workload": [w]})


def _counts(t, window):
    return np.bincount((t // window).astype(np.int64))[:-1]  # whole windows only


def test_mmpp2_has_its_mean_rate_and_its_burstiness():
    """Theory for an MMPP-2 with rates λ1, λ2 and leaving rates r1, r2 (π1 = r2/(r1 + r2)):
    mean rate π1 λ1 + π2 λ2, and counts over long windows with index of dispersion
    Var/mean = 1 + 2 (λ1 - λ2)² π1 π2 / ((r1 + r2) λ̄) (5.36 here; 1 for Poisson)."""
    proc = {"process": "mmpp2", "peak_ratio": 8.0, "high_share": 0.2, "cycle": 1.0}
    sc = _one_source(proc)
    (l1, l2), (m1, m2) = sc.workload[0].arrivals.rates(10.0), sc.workload[0].arrivals.sojourns
    r1, r2 = 1 / m1, 1 / m2
    p1, p2 = r2 / (r1 + r2), r1 / (r1 + r2)
    assert p1 * l1 + p2 * l2 == pytest.approx(10.0, rel=1e-12) and l1 / l2 == pytest.approx(8)
    idc = 1 + 2 * (l1 - l2) ** 2 * p1 * p2 / ((r1 + r2) * 10.0)
    tk = draw_tasks(sc, 400_000, 1, 1, np.random.default_rng(2))
    span = tk.t[-1]
    se = math.sqrt(idc * 10.0 * span) / span  # the rate's standard error over the run
    assert abs(len(tk.t) / span - 10.0) < 4 * se
    c = _counts(tk.t, 20.0)
    assert c.var() / c.mean() == pytest.approx(idc, rel=0.12)
    assert idc > 5
    # a Poisson source of the same rate has index 1: the test tells the two apart
    tp = draw_tasks(_one_source({"process": "poisson"}), 400_000, 1, 1, np.random.default_rng(2))
    cp = _counts(tp.t, 20.0)
    assert cp.var() / cp.mean() == pytest.approx(1.0, abs=0.15)


@pytest.mark.parametrize("law", ["geometric", "deterministic"])
def test_batches_have_their_mean_rate_and_batch_sizes(law):
    """Batches at Poisson epochs of rate λ / m: the task rate is λ, a batch's tasks arrive
    at once, batch sizes are geometric with mean m (P(1) = 1/m) or exactly m."""
    m = 4.0
    sc = _one_source({"process": "batch", "mean_batch": m, "batch_law": law})
    tk = draw_tasks(sc, 200_000, 1, 1, np.random.default_rng(9))
    _, sizes = np.unique(tk.t, return_counts=True)
    sizes = sizes[1:-1]  # the last batch may be cut at n tasks
    if law == "deterministic":
        assert (sizes == 4).all()
    else:
        se = math.sqrt((1 - 1 / m) * m * m / len(sizes))  # a geometric's sd / sqrt(count)
        assert abs(sizes.mean() - m) < 4 * se
        assert (sizes == 1).mean() == pytest.approx(1 / m, abs=0.01)
    eb2 = (2 - 1 / m) * m * m if law == "geometric" else m * m  # E[B²]
    span = tk.t[-1]
    se = math.sqrt(10.0 / m * eb2 * span) / span
    assert abs(len(tk.t) / span - 10.0) < 4 * se


def test_mixed_processes_merge_in_time_with_each_source_s_rate():
    sc = arena.load_scenario("neutral")
    d = sc.model_dump()
    d["workload"][0]["arrivals"] = {
        "process": "mmpp2",
        "peak_ratio": 5,
        "high_share": 0.2,
        "cycle": 2.0,
    }
    d["workload"][1]["arrivals"] = {"process": "batch", "mean_batch": 3}
    sc = arena.scenario_from_dict(d)
    a = draw_tasks(sc, 100_000, 1, 2, np.random.default_rng(1))
    b = draw_tasks(sc, 100_000, 2, 3, np.random.default_rng(1))
    assert np.array_equal(a.t, b.t) and np.array_equal(a.node, b.node)  # common numbers
    assert (np.diff(a.t) >= 0).all()
    shares = np.bincount(a.source, minlength=4) / len(a.t)
    expect = np.array([w.rate for w in sc.workload]) / sc.total_rate
    assert shares == pytest.approx(expect, abs=0.02)


# -- traces ---------------------------------------------------------------------------------


def _trace_scenario(tmp_path, text, **entry):
    (tmp_path / "tasks.csv").write_text(text, encoding="utf-8")
    d = {
        **ONE_NODE,
        "nodes": [*ONE_NODE["nodes"], {"id": "B", "role": "edge"}],
        "links": [{"a": "A", "b": "B", "delay": 0.01}],
        "workload": [{"trace": "tasks.csv", **entry}],
    }
    (tmp_path / "sc.json").write_text(json.dumps(d))
    return arena.load_scenario(tmp_path / "sc.json")


TRACE = "# a comment\ntime,source,size,type,deadline\n0.5,A,0.2,3,\n1.0,B,0.1,,0.4\n1.0,A,0.3,0,1\n"


def test_a_trace_is_replayed_row_by_row(tmp_path):
    sc = _trace_scenario(tmp_path, TRACE, input_bits=100.0)
    tk = draw_tasks(sc, 3, 2, 2, np.random.default_rng(0))
    assert tk.t.tolist() == [0.5, 1.0, 1.0]
    assert tk.node.tolist() == [0, 1, 0]
    assert tk.size.tolist() == [[0.2, 0.2], [0.1, 0.1], [0.3, 0.3]]  # every copy: its size
    assert tk.kind.tolist() == [3, -1, 0] and tk.bits.tolist() == [100.0] * 3
    assert sc.workload[0].table.deadline.tolist() == [math.inf, 0.4, 1.0]
    with pytest.raises(ScenarioError, match=r"workload\[0\]\.trace: a run of 4 tasks .* has 3"):
        draw_tasks(sc, 4, 1, 2, np.random.default_rng(0))
    # looped: the period is the last time plus the mean gap (1.0 + 0.25)
    loop = _trace_scenario(tmp_path, TRACE, loop=True)
    assert loop.workload[0].rate == pytest.approx(3 / 1.25)
    tk = draw_tasks(loop, 30, 1, 2, np.random.default_rng(0))
    assert tk.t[0] == 0 and (np.diff(tk.t) >= 0).all()
    assert np.allclose(tk.t[3:] - tk.t[:-3], 1.25)  # every row once per period
    assert sorted(set(tk.size[:, 0].tolist())) == [0.1, 0.2, 0.3]
    # a trace is sped up, not thinned
    fast = _trace_scenario(tmp_path, TRACE, loop=True, speedup=2.0)
    assert fast.workload[0].speedup == 2.0 and fast.total_rate == pytest.approx(2 * 3 / 1.25)


def test_a_trace_and_a_poisson_source_together(tmp_path):
    rows = "time,source,size\n" + "".join(f"{0.1 * i:.1f},B,0.05\n" for i in range(2000))
    (tmp_path / "tasks.csv").write_text(rows)
    d = {
        **ONE_NODE,
        "nodes": [*ONE_NODE["nodes"], {"id": "B", "role": "edge"}],
        "links": [{"a": "A", "b": "B", "delay": 0.01}],
        "workload": [*ONE_NODE["workload"], {"trace": str(tmp_path / "tasks.csv")}],
    }
    sc = arena.scenario_from_dict(d)
    tk = draw_tasks(sc, 2000, 1, 2, np.random.default_rng(4))
    assert (np.diff(tk.t) >= 0).all()
    traced = tk.source == 1
    assert (tk.node[traced] == 1).all() and (tk.size[traced, 0] == 0.05).all()
    assert np.allclose(tk.t[traced], 0.1 * np.arange(traced.sum()))  # the rows, in order
    assert traced.mean() == pytest.approx(10 / 22, abs=0.04)  # 10/s against 12/s
    with pytest.raises(ScenarioError, match="past the end of"):
        draw_tasks(sc, 5000, 1, 2, np.random.default_rng(4))


def test_the_shipped_trace_is_what_its_generator_writes_and_it_runs():
    import importlib.util

    from workbench.arena.scenario import TRACES_DIR

    spec = importlib.util.spec_from_file_location("gen", TRACES_DIR / "make_edge_burst.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    lines = [x for x in (TRACES_DIR / "edge_burst.csv").read_text().splitlines() if x[0] != "#"]
    assert lines == gen.rows()
    sc = arena.load_scenario(TRACES_DIR / "edge_burst.yaml")
    tb = sc.workload[0].table
    assert len(tb.time) == 6000 and set(tb.nodes) == {"e1", "e2", "e3", "e4"}
    assert sc.total_rate == pytest.approx(78, rel=0.05)  # 0.9 × 60 + 0.1 × 240 tasks/s
    r = arena.simulate(scenario=sc, policy="jsq", requests=5_000, replications=2)
    assert r.frame["mean_delay"].nunique() == 2  # a looped trace starts at another row
    assert 0.1 < r.mean_delay < 1.0 and r.loss_share < 0.01


def test_heavy_tails_are_flagged_where_the_third_moment_is_infinite():
    """A Pareto of alpha <= 3 has E[S³] = inf: a queue's waiting time then has an infinite
    variance and the plain mean's interval does not cover (benchmarks/arena_coverage.py);
    the scenario names those sources so a caller can refuse them."""
    pareto = {"dist": "pareto", "scale": 0.1, "alpha": 2.5}
    two = {
        **ONE_NODE,
        "workload": [ONE_NODE["workload"][0], {**ONE_NODE["workload"][0], "size": pareto}],
    }
    assert arena.scenario_from_dict(two).heavy_tails == ["workload[1].size"]
    assert _law({"dist": "pareto", "scale": 0.06, "alpha": 3.0}).moment(3) == math.inf
    for d in ({"dist": "pareto", "scale": 0.06, "alpha": 3.2}, *LAWS[5:]):
        sc = arena.scenario_from_dict(
            {**ONE_NODE, "workload": [{**ONE_NODE["workload"][0], "size": d}]}
        )
        assert sc.heavy_tails == [], d


def test_replication_r_runs_on_child_r_of_the_seed():
    """records of replication r are the tasks ``draw_tasks`` makes from child r of
    ``SeedSequence(seed)``: the replication's seed is passed through, not re-drawn."""
    sc = arena.scenario_from_dict(ONE_NODE)
    n, reps, seed = 1_500, 3, 11
    kw = dict(policy="local", requests=n, replications=reps, seed=seed, records=True)
    r = arena.simulate(scenario=sc, **kw)
    for k, child in enumerate(replication_seeds(seed, reps)):
        tk = draw_tasks(sc, n, 1, 2, child)
        rec = r.records[r.records["replication"] == k]
        assert rec["task"].iloc[0] == r.info["warmup"] and len(rec) == n - r.info["warmup"]
        assert np.array_equal(rec["arrival"].to_numpy(), tk.t[rec["task"].to_numpy()])
