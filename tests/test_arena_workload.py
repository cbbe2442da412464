"""The arena's workloads: common random numbers across policies, size laws whose moments
are as declared, arrival processes beyond Poisson (MMPP-2, batches) and task traces."""

import math

import numpy as np
import pytest

from workbench import ParameterError, arena
from workbench.arena.compile import draw_tasks

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
