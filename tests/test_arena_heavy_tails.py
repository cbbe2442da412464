"""A plain mean delay of a heavy-tailed workload is refused the way an unstable run is."""

import math

import pytest

from workbench import ParameterError, arena
from workbench.arena import HeavyTailError
from workbench.arena.studies import compare

ALPHA = 1 + math.sqrt(1 + 1 / 4.0)  # c² = 1 / (α (α - 2)) = 4: α ≈ 2.118, E[S³] infinite


def _one_node(size: dict, name: str = "one node") -> dict:
    return {
        "name": name,
        "nodes": [{"id": "A", "role": "edge", "servers": 1, "capacity": 200}],
        "workload": [{"source": "A", "rate": 7.0, "size": size}],
    }


PARETO = _one_node({"dist": "pareto", "scale": 0.1 * (ALPHA - 1) / ALPHA, "alpha": ALPHA})
RUN = dict(policy="local", requests=2_000, replications=2, seed=3)


def test_a_plain_mean_of_an_infinite_third_moment_is_refused_by_name():
    with pytest.raises(HeavyTailError) as err:
        arena.simulate(scenario=PARETO, **RUN)
    msg = str(err.value)
    for part in (
        "simulate",
        "'one node'",
        "workload[0] (source 'A')",
        f"alpha = {ALPHA:g}",
        "E[S³] is infinite",
        "c² = 4",
        "{dist: hyperexponential, mean: 0.1, scv: 4}",
        "heavy_tails='flag'",
        "p99_delay",
    ):
        assert part in msg, part
    assert isinstance(err.value, ParameterError)


def test_flagged_numbers_come_with_the_sources_and_a_note():
    r = arena.simulate(scenario=PARETO, heavy_tails="flag", **RUN)
    assert r.info["heavy_tails"] == ["workload[0].size"]
    heavy = [n for n in r.notes if n.startswith("heavy tails:")]
    assert len(heavy) == 1 and "read the quantiles" in heavy[0]
    assert math.isfinite(r.mean_delay) and math.isfinite(r.p99_delay)


def test_below_c2_one_the_advice_is_a_lognormal():
    sc = _one_node({"dist": "pareto", "scale": 0.1, "alpha": 2.5})  # c² = 0.8
    with pytest.raises(HeavyTailError, match=r"\{dist: lognormal, mean: 0\.1667, scv: 0\.8\}"):
        arena.simulate(scenario=sc, **RUN)


def test_the_boundary_is_alpha_three():
    """E[S³] = α b³ / (α − 3) is finite only above α = 3."""
    with pytest.raises(HeavyTailError, match="alpha = 3 <= 3"):
        arena.simulate(scenario=_one_node({"dist": "pareto", "scale": 0.06, "alpha": 3.0}), **RUN)
    r = arena.simulate(scenario=_one_node({"dist": "pareto", "scale": 0.06, "alpha": 3.2}), **RUN)
    assert r.info["heavy_tails"] == [] and not [n for n in r.notes if "heavy" in n]


def test_precision_and_comparisons_refuse_it_too():
    with pytest.raises(HeavyTailError):
        arena.simulate_to_precision(scenario=PARETO, policy="local", progress=False)
    with pytest.raises(HeavyTailError):
        compare(PARETO, ["local", "random"], requests=2_000, replications=2)


def test_a_bad_heavy_tails_value_is_named():
    with pytest.raises(ParameterError, match="heavy_tails") as err:
        arena.simulate(scenario=PARETO, heavy_tails="ignore", **RUN)
    assert not isinstance(err.value, HeavyTailError) and "'flag'" in str(err.value)


@pytest.mark.parametrize("name", sorted(arena.shipped()))
def test_no_shipped_scenario_is_refused(name):
    """The shipped scenarios (and so the claims, notebooks and examples that run them) use
    laws with every moment finite."""
    assert arena.load_scenario(name).heavy_tails == []
