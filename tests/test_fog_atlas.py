"""P1's claim atlas: atlas_point measures every source=paper claim at one plausible point."""

from __future__ import annotations

import math
import time

import pytest

from workbench.claims import Measurement, load_claims
from workbench.fog.claims import ATLAS, CLAIMS, atlas_point
from workbench.fog.params import PARAMS
from workbench.validation import ParameterError


@pytest.fixture(scope="module")
def at_defaults():
    atlas_point(quick=True, seed=3)  # compile the kernel and build the cached cases
    start = time.perf_counter()
    out = atlas_point(quick=True, seed=3)
    return out, time.perf_counter() - start


def test_atlas_covers_the_papers_own_claims():
    table = load_claims("p1")
    assert set(ATLAS.claims) == set(table.loc[table["source"] == "paper", "id"])
    assert set(ATLAS.claims) <= set(CLAIMS)


def test_quick_point_measures_every_claim_in_about_a_second(at_defaults):
    out, seconds = at_defaults
    assert set(out) == set(ATLAS.claims)
    assert all(isinstance(m, Measurement) and m.stationary for m in out.values())
    assert seconds < 3.0  # about 0.6 s alone on one core; generous on a shared machine
    # at the table's defaults the measures are the claims' own (short runs, another seed)
    table = load_claims("p1").set_index("id")
    for claim in ("eq6_error_no_offload", "fifo_count_vs_chain", "model_error_overloaded"):
        assert abs(out[claim].value - table.at[claim, "workbench_value"]) < 0.1, claim
    assert out["theta_optimum_interior"].value == 1.0
    assert out["offload_gain_variance"].value == 1.0


def test_plausible_rows_have_reasons_and_readings_change_only_the_model():
    rows = [p for p in PARAMS.rows if p.plausible is not None]
    assert {p.name for p in rows} >= {"cloud_sojourn", "neighbour", "ewma_period", "theta"}
    assert all('"' in p.why for p in rows)  # each rests on the paper's words, quoted
    default = atlas_point(quick=True, seed=5)
    per_class = atlas_point(quick=True, seed=5, cloud_sojourn="per_class", neighbour="uniform")
    # the simulated side is the same (common random numbers): only model errors move
    for claim in ("fifo_count_vs_chain", "offload_gain_heavy_even", "theta_optimum_interior"):
        assert per_class[claim].value == default[claim].value


def test_a_point_without_a_steady_state_is_undetermined_not_a_number():
    out = atlas_point(
        quick=True, seed=1, lam_light=80.0, lam_heavy=15.0, mu_light=100.0, mu_heavy=15.0
    )
    node = out["fifo_count_vs_chain"]
    assert math.isnan(node.value) and not node.stationary and "ρ" in node.note


def test_unknown_or_invalid_point_values_are_refused():
    with pytest.raises(ParameterError, match="atlas_point"):
        atlas_point(quick=True, seed=0, own_processing=True)  # a fixed row: no plausible set
    with pytest.raises(ParameterError, match="theta"):
        atlas_point(quick=True, seed=0, theta=-1.0)
