"""Reproducers of the independent fuzz (issue 43, "elsewhere"): each raw error is now the
library's own error naming the function, the parameter, the rule and the value, or the
right answer."""

from __future__ import annotations

import math

import fuzz_surfaces
import numpy as np
import pandas as pd
import pytest

from workbench import ParameterError, output_analysis


def _reps(n: int = 3, scale: float = 1.0) -> list:
    """Replications of i.i.d. exponential draws: their row holds ``x``, their mean."""
    out = []
    for i in range(n):
        y = np.random.default_rng(i).exponential(1.0, 400) * scale
        out.append(output_analysis.Replication({"x": float(y[40:].mean())}, y, 40))
    return out


def _finish(reps, **kw):
    args = {"func": "f", "metric": "x", "quantities": ["x"], "confidence": 0.95}
    args |= {"run_length": 400, "run_unit": "draws"}
    return output_analysis.finish(reps, **(args | kw))


def test_a_result_table_refuses_digits_out_of_range():
    res = _finish(_reps())
    shown = res.table(digits=2)
    assert shown.loc["x", "estimate"] == f"{res.estimate:.2g}"
    for bad in (-1, 0, 18, 2.5, True):
        with pytest.raises(ParameterError, match=r"'digits' parameter of SimulationResult.table"):
            res.table(digits=bad)


MISSING = [({"metric": "nope"}, "metric"), ({"quantities": ["x", "y"]}, "quantities")]


@pytest.mark.parametrize(("kw", "name"), MISSING)
def test_finish_names_a_missing_metric_or_quantity(kw, name):
    with pytest.raises(ParameterError, match=rf"'{name}' parameter of f .*\['x'\]"):
        _finish(_reps(), **kw)


def test_a_ring_with_a_ragged_fog_mu_is_refused_by_name():
    from workbench import fog

    for bad in ([[1, 2], [3]], [1, [2, 3]]):
        with pytest.raises(ParameterError, match=r"'fog_mu' parameter of ring_scenario"):
            fog.ring_scenario(3, 2, fog_mu=bad)
    ring = fog.ring_scenario(3, 2, fog_mu=[1.0, 2.0])
    assert {d["mu_light"] for _, d in ring.nodes(data=True) if d.get("role") == "fog"} == {1.0}


def test_format_number_writes_an_int_beyond_a_float():
    from workbench.numfmt import format_number

    assert format_number(10**400) == "1 × 10⁴⁰⁰"
    assert format_number(-(10**400), unit="s") == "−1 × 10⁴⁰⁰ s"
    assert format_number(123 * 10**398, digits=2) == "1.2 × 10⁴⁰⁰"
    assert format_number(10**308) == "1 × 10³⁰⁸"  # a float's range: as before


def test_plot_atlas_names_an_unknown_verdict():
    from workbench.atlas import plot_atlas

    row = {"paper": "p4", "claim": "c1", "reading": "all", "holds_share": 0.5}
    frame = pd.DataFrame([row | {"verdict": "weird", "flip": ""}])
    with pytest.raises(ParameterError, match=r"plot_atlas .*\['weird'\]"):
        plot_atlas(frame)


def test_a_param_refuses_a_nan_or_crossed_bound():
    from workbench.params import Param

    bad = [{"low": math.nan, "high": 10.0}, {"low": 0.0, "high": math.nan}]
    bad += [{"low": "1"}, {"low": 5.0, "high": 1.0}]
    for kw in bad:
        with pytest.raises(ParameterError, match=r"parameter of Param\('x'\)"):
            Param("x", "x", "a number", **kw)
    row = Param("x", "x", "a number", low=0.0, high=10.0)
    with pytest.raises(ParameterError):
        row.check(-5.0, "f")


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_detect_sees_a_trend_near_the_ends_of_the_float_range(scale):
    """A linear climb is a trend at any scale; sums of squares near 1e308 overflowed and
    the test read NaN as stationary."""
    rising = np.linspace(1.0, 1.7, 2000) * scale
    verdict = output_analysis.detect(rising)
    assert not verdict.stationary
    assert verdict.second_half > verdict.first_half > 0
    assert math.isclose(verdict.first_half, rising[:1000].mean(), rel_tol=1e-12)
    flat = np.random.default_rng(0).exponential(1.0, 2000) * scale
    assert output_analysis.detect(flat).stationary


def test_a_topology_altered_behind_its_back_is_refused_where_it_is_used():
    from workbench import hierarchy
    from workbench.hierarchy.model import static_route

    topology = hierarchy.symmetric_tree()
    object.__setattr__(topology, "parent", (0, 99, 0, 1, 1, 2, 2))
    with pytest.raises(ParameterError, match=r"parameter of simulate"):
        hierarchy.simulate(topology=topology, periods=20, seed=0)
    with pytest.raises(ParameterError, match=r"parameter of static_route"):
        static_route(topology, 1.0, 1.0)


def test_a_graphml_entity_bomb_is_a_scenario_error(tmp_path):
    """expat stops the expansion; its ParseError (a SyntaxError) must reach the user as the
    loader's own error."""
    from workbench.fog.scenario import ScenarioError, load_scenario

    path = tmp_path / "bomb.graphml"
    path.write_text(fuzz_surfaces._xml_bomb())
    with pytest.raises(ScenarioError, match=r"load_scenario: cannot read"):
        load_scenario(str(path))


def test_the_arenas_closed_forms_at_the_ends_of_the_float_range():
    """Issue 43: ``power_of_d_delay(1e-310, 64)`` and ``threshold_delay(0.5, 1e-308, 2, 1)``
    raised OverflowError, ``energy_per_task(1e-308, ...)`` returned inf."""
    from workbench.arena import energy_per_task, power_of_d_delay, threshold_delay

    # an empty system: every task finds its node idle, E[T] = 1/mu
    assert power_of_d_delay(1e-310, 64) == 1.0
    assert power_of_d_delay(1e-310, 64, mu=4.0) == 0.25
    # d = 2 at rho = 1/2: (1/2 + 1/2^3 + 1/2^7 + 1/2^15 + ...) / (1/2)
    series = sum(0.5 ** (2**k - 1) for k in range(1, 8))
    assert power_of_d_delay(0.5, 2) == pytest.approx(series / 0.5, rel=1e-12)
    with pytest.raises(ParameterError, match=r"threshold_delay: theta / mean_size .* inf"):
        threshold_delay(0.5, 1e-308, 2.0, 1.0)
    assert threshold_delay(5e-324, 1.0, 2.0, 1.0) == 1.0  # no queue: the task's own size
    with pytest.raises(ParameterError, match=r"'lam' parameter of energy_per_task .*1e-308"):
        energy_per_task(1e-308, 1.0, 5.0, 10.0)
    # (busy rho + idle (1 - rho)) / lam at rho = 1/2: (10/2 + 5/2) / 0.5
    assert energy_per_task(0.5, 1.0, 5.0, 10.0) == pytest.approx(15.0)
