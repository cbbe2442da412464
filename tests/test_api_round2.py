"""The public API, round two: every reproducer of the independent fuzz, as a test.

Each one is a named workbench error (``ParameterError`` and its subclasses) or a sane result;
none may be a raw numpy/Python exception, NaN, inf, a hang or a silently accepted wrong value.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from workbench import (
    atlas,
    caching,
    claims,
    datacenters,
    erlang,
    fog,
    hierarchy,
    matching,
    notation,
    numfmt,
    output_analysis,
    proactive,
    radio,
    red,
    redundancy,
    sweep,
    validation,
)
from workbench.validation import ParameterError, UnstableRegimeError

RAGGED = [[1, 2], [3]]


def _prefs():
    return np.array([[0, 1, 2]] * 4), np.array([[0, 1, 2, 3]] * 3)


def _identity(x):
    return x


# ------------------------------------------------------------------ what is public


def test_helpers_a_user_does_not_call_left_the_public_lists():
    for module, name in [(atlas, n) for n in ("design", "wilson", "verdict", "plausible_space")] + [
        (claims, "kind"),
        (claims, "readable"),
    ]:
        assert name not in module.__all__
        assert callable(getattr(module, name))  # still reachable for the atlas and the tests
    for name in ("broadcast", "check_real", "check_array", "describe", "reject_unknown"):
        assert name not in validation.__all__
    assert {"ParameterError", "MEMORY_BUDGET", "WORK_BUDGET"} <= set(validation.__all__)
    assert {"check_claims", "load_claims"} <= set(claims.__all__)
    assert {"atlas", "plot_atlas"} <= set(atlas.__all__)
    for module in (claims, atlas, validation):
        assert all(hasattr(module, n) for n in module.__all__)


# ------------------------------------------------------------------ objects mutated later


def test_a_topology_cannot_be_changed_after_it_was_checked():
    t = hierarchy.symmetric_tree()
    for arr, i, v in ((t.parent, 0, 1), (t.parent, 3, 99), (t.compute, 0, -1.0)):
        with pytest.raises(ValueError, match="read-only"):
            arr[i] = v
    assert t.parent.tolist() == [-1, 0, 0, 1, 1, 2, 2]
    # the caller's own arrays stay theirs (the Topology holds checked copies)
    parents = np.array([-1, 0, 0])
    hierarchy.from_parents(parents, 40.0)
    parents[1] = 2
    assert parents[1] == 2


# ------------------------------------------------------------------ garbage results


def test_hierarchy_tiny_bandwidth_and_period_are_refused_by_their_ranges():
    kw = dict(model="advanced", lam=4, task_size=5, periods=100, replications=2)
    with pytest.raises(ParameterError, match="'bandwidth' parameter of simulate"):
        hierarchy.simulate(**kw, bandwidth=5e-324, overload="transient")
    with pytest.raises(ParameterError, match="'period' parameter of simulate"):
        hierarchy.simulate(**kw, period=5e-324)


def test_partial_fractions_give_a_probability_or_a_named_error():
    assert fog.erlang_sum_cdf_partial_fractions(1e-308, 2, 1.0, 1, 0.5) == 0.0
    with pytest.raises(ParameterError, match="'mu2' parameter .* erlang_sum_cdf"):
        fog.erlang_sum_cdf_partial_fractions(2.0, 20, 1.0, 20, 1.0 + 1e-9)


def test_overflowing_formulas_are_refused():
    with pytest.raises(ParameterError, match="'mean_time' parameter of eq12_queue_estimate"):
        hierarchy.eq12_queue_estimate(1e308, 1.0, [20.0, 20.0])
    with pytest.raises(ParameterError, match="'compute' parameter of eq12_queue_estimate"):
        hierarchy.eq12_queue_estimate(1.0, 1.0, [20.0, "20"])
    # the formula itself: T = (n + 1) s Σ(1/F) / (2k) solved for n, by hand
    assert hierarchy.eq12_queue_estimate(1.0, 1.0, [20.0, 20.0]) == pytest.approx(39.0)
    with pytest.raises(ParameterError, match="'mean_exec_time' parameter of red_thresholds"):
        hierarchy.red_thresholds(5.0, 20.0, 1e308)
    with pytest.raises(ParameterError, match="'dbm' parameter of dbm_to_watt"):
        radio.dbm_to_watt(1e308)
    assert radio.dbm_to_watt(30.0) == pytest.approx(1.0)
    with pytest.raises(UnstableRegimeError):
        erlang.pollaczek_khinchine(0.5, 1e308, 1e308)
    with pytest.raises(ParameterError, match="'second_moment' parameter .* overflows"):
        erlang.pollaczek_khinchine(0.9, 1.0, 1e308)


def test_wilson_and_verdict_refuse_impossible_counts():
    with pytest.raises(ParameterError, match="'n' parameter of wilson"):
        atlas.wilson(3, -1)
    with pytest.raises(ParameterError, match="'k' parameter of wilson"):
        atlas.wilson(math.nan, 10)
    with pytest.raises(ParameterError, match="'k' parameter of wilson"):
        atlas.wilson(11, 10)
    with pytest.raises(ParameterError, match="'holds_share' parameter of verdict"):
        atlas.verdict(math.nan, 5)
    low, high = atlas.wilson(5, 10)
    assert 0 < low < 0.5 < high < 1
    assert atlas.verdict(math.nan, 0) == "undetermined"


# ------------------------------------------------------------------ ragged lists


@pytest.mark.parametrize(
    "call",
    [
        lambda: validation.broadcast(RAGGED, "x", "f", 3),
        lambda: datacenters.simulate_ring(
            lam=(0.9, 0.9, 0.9), servers=RAGGED, mu=(0.1, 0.1, 0.1), p=(0.5, 0.5, 0.5)
        ),
        lambda: fog.analyze(fog.default_scenario(0, n_fog=3), theta=RAGGED),
        lambda: red.drop_probability(RAGGED, 5, 15, 0.1),
        lambda: proactive.rank_cloudlets(
            np.array([1e5]), np.array([1e7, 2e7]), 1e9, 1.0, 0.1, cached=RAGGED
        ),
        lambda: caching.popularity_cache_hits(
            np.array([1, 0, 2, 3]), 2, np.array([1, 0, 2, 3, 4]), cacheable=RAGGED
        ),
        lambda: matching.hedged_matching(*_prefs(), needs_hedge=RAGGED),
        lambda: proactive.coverage_calibration(thresholds_db=RAGGED),
    ],
    ids=[
        "broadcast",
        "simulate_ring",
        "fog.analyze",
        "red.drop_probability",
        "rank_cloudlets",
        "popularity_cache_hits",
        "hedged_matching",
        "coverage_calibration",
    ],
)
def test_ragged_lists_get_a_named_error(call):
    with pytest.raises(ParameterError):
        call()


# ------------------------------------------------------------------ 0-d arrays


def test_zero_d_arrays_where_a_list_goes():
    # a list of works is computed elementwise, like an array
    out = hierarchy.local_overhead([1.0, 2.0], 20.0, 0.5, 0.5)
    assert np.allclose(out, [hierarchy.local_overhead(w, 20.0, 0.5, 0.5) for w in (1.0, 2.0)])
    with pytest.raises(ParameterError, match="'models' parameter of run_models"):
        hierarchy.run_models(models=np.array(2.0))
    with pytest.raises(ParameterError, match="'fog_mu' parameter of ring_scenario"):
        fog.ring_scenario(3, 2, fog_mu=np.array(2.0))
    with pytest.raises(ParameterError, match="'models' parameter of tune_theta_per_node"):
        fog.tune_theta_per_node(fog.default_scenario(0, n_fog=3), models=np.array(2.0))


# ------------------------------------------------------------------ scenarios and files


def test_a_one_node_ring_is_a_valid_scenario():
    g = fog.ring_scenario(1, 2)
    assert not any(u == v for u, v in g.edges())
    fog.validate(g)


def test_scenario_files_give_named_errors(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(ParameterError, match="load_scenario"):
        fog.load_scenario(path)
    with pytest.raises(ParameterError, match="does not exist"):
        fog.save_scenario(fog.default_scenario(0, n_fog=3), tmp_path / "missing" / "s.json")


# ------------------------------------------------------------------ redundancy


def test_redundancy_refuses_an_abstract_law_and_a_foreign_result():
    with pytest.raises(ParameterError, match="'service' parameter of system_time"):
        redundancy.system_time(24, 2, 1.0, 5.0, redundancy.ServiceTime())
    service = redundancy.SExp(1.0, 1.0)
    res = redundancy.simulate(
        N=6, m=2, lam=1.0, t_cloud=5.0, service=service, jobs=2000, replications=2, seed=0
    )
    table = redundancy.simulated_station_table(6, 2, 1.0, 5.0, service, result=res)
    assert isinstance(table, pd.DataFrame)
    with pytest.raises(ParameterError, match="same model"):
        redundancy.simulated_station_table(12, 2, 1.0, 5.0, service, result=res)
    with pytest.raises(ParameterError, match="'result' parameter"):
        redundancy.simulated_station_table(6, 2, 1.0, 5.0, service, result=object())
    with pytest.raises(ParameterError, match="'jobs' parameter of warmup_jobs"):
        redundancy.warmup_jobs(10**9, 0.1)


# ------------------------------------------------------------------ sizes and the sweep


def test_huge_sizes_are_refused_before_allocating():
    with pytest.raises(ParameterError, match="'max_receivers' parameter .* memory budget"):
        matching.hedged_matching(*_prefs(), max_receivers=10**12)
    kw = dict(n_workers=1, progress=False)
    with pytest.raises(ParameterError, match="'chunk_size' parameter of sweep"):
        sweep.sweep(_identity, {"x": [1, 2]}, chunk_size=2**70, **kw)
    with pytest.raises(ParameterError, match="'replications' parameter of sweep"):
        sweep.sweep(_identity, {"x": [1, 2]}, replications=1e308, **kw)
    with pytest.raises(ParameterError, match="'grid' parameter of sweep"):
        sweep.sweep(_identity, np.array([]), **kw)


# ------------------------------------------------------------------ claims and atlas helpers


@pytest.mark.parametrize(
    "call",
    [
        lambda: atlas.design([], None),
        lambda: atlas.plausible_space(None),
        lambda: atlas.atlas_summary(None),
        lambda: atlas.plot_atlas(5),
        lambda: claims.readable(5),
        lambda: claims.kind({}),
        lambda: atlas.run_atlas(None, None, {}),
        lambda: claims.check_claims("p4", quick="yes"),
    ],
    ids=[
        "design",
        "plausible_space",
        "atlas_summary",
        "plot_atlas",
        "readable",
        "kind",
        "run_atlas",
        "check_claims",
    ],
)
def test_claims_and_atlas_helpers_validate(call):
    with pytest.raises(ParameterError):
        call()


# ------------------------------------------------------------------ validation helpers


def test_validation_helpers_validate_their_own_arguments():
    with pytest.raises(ParameterError, match="'high' parameter of check_real"):
        validation.check_real(0.5, "x", "f", high=1j)
    with pytest.raises(ParameterError, match="'x' parameter of f"):
        validation.check_real(10**400, "x", "f")
    with pytest.raises(ParameterError, match="'known' parameter of reject_unknown"):
        validation.reject_unknown("f", {"a": 1}, None)
    with pytest.raises(ParameterError, match="'n' parameter of broadcast"):
        validation.broadcast(1.0, "a", "f", -1)
    assert validation.broadcast([1, 2], "a", "f", 2).tolist() == [1.0, 2.0]


# ------------------------------------------------------------------ messages


def test_messages_name_the_parameter_given():
    with pytest.raises(ParameterError, match="'compute_bottom' parameter of barabasi_albert"):
        hierarchy.barabasi_albert(1, compute_bottom=1e6)


# ------------------------------------------------------------------ the work budget


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: fog.simulate(scenario=fog.default_scenario(0), replications=10_000), "simulate"),
        (
            lambda: fog.compare_thetas(
                fog.default_scenario(0), {"a": 0.01, "b": 0.02}, replications=10_000
            ),
            "compare_thetas",
        ),
        (lambda: proactive.simulate(slots=5 * 10**7), "simulate"),
        (lambda: proactive.simulate(replications=1000), "simulate"),
        (lambda: atlas.atlas("p4", n_points=100_000), "atlas"),
        (lambda: fog.default_scenario(0, 3000), "default_scenario"),
        (lambda: erlang.erlang_b_many(np.full(1000, 10**8), 9.9e7), "erlang_b_many"),
    ],
    ids=[
        "fog.simulate",
        "compare_thetas",
        "proactive.slots",
        "proactive.replications",
        "atlas",
        "default_scenario",
        "erlang_b_many",
    ],
)
def test_calls_above_the_work_budget_are_refused_before_they_start(call, name):
    import time

    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match=f"of {name}"):
        call()
    assert time.perf_counter() - t0 < 10.0


def test_the_work_budget_says_how_to_raise_it(monkeypatch):
    with pytest.raises(ParameterError, match="WORKBENCH_WORK_BUDGET") as err:
        fog.default_scenario(0, 3000)
    assert "steps" in str(err.value)
    monkeypatch.setattr(validation, "WORK_BUDGET", 1e12)
    validation.check_work("f", "n", 3000, 840.0 * 3000**2)  # within the raised budget
    monkeypatch.setattr(validation, "WORK_BUDGET", 10.0)
    with pytest.raises(ParameterError, match="work budget of 10"):
        erlang.erlang_b_many([20, 20], 5.0)


# found by the full fuzz over every public name (benchmarks/fuzz_api.py, this round)
def test_shannon_rate_at_a_huge_gain_is_finite_and_matches_log2_of_the_snr():
    from workbench.hierarchy import shannon_rate

    rate = shannon_rate(1e6, 0.1, 1e308, 1e-13)
    # log2(1 + x) = log2(x) to double precision once x > 2^60: W (log2 P + log2 H − log2 ω)
    expected = 1e6 * (math.log2(0.1) + math.log2(1e308) - math.log2(1e-13))
    assert math.isfinite(rate) and rate == pytest.approx(expected, rel=1e-12)
    # an ordinary SNR is still eq. 1 as written
    assert shannon_rate(1e6, 0.1, 1e-9, 1e-13) == pytest.approx(1e6 * math.log2(1 + 1e3))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: output_analysis.detect(np.array(2.0)), "detect"),
        (
            lambda: numfmt.parse_number("1", integer="x"),
            "parse_number",
        ),
        (lambda: numfmt.format_number(None), "format_number"),
        (lambda: notation.notation(None), "notation"),
    ],
    ids=["detect-0d", "parse_number-integer", "format_number-None", "notation-None"],
)
def test_fuzz_round_three_inputs_are_refused_by_name(call, name):
    with pytest.raises(ParameterError, match=name):
        call()


def test_prose_html_refuses_a_params_that_is_not_a_parameter_table():
    # found by the full fuzz walk (benchmarks/fuzz_api.py): any object was read as "no names"
    from workbench.notation import prose_html
    from workbench.proactive import PARAMS

    with pytest.raises(ParameterError, match=r"'params' parameter of prose_html .*Params table"):
        prose_html("lam_u", object())
    assert prose_html("lam_u", PARAMS) != prose_html("lam_u", None)  # the names are read
