"""P4's claim atlas: the lost values as data, and one evaluate function for every claim."""

import time

import pytest

from workbench.atlas import plausible_space
from workbench.claims import load_claims
from workbench.redundancy.claims import (
    ATLAS,
    CLAIMS,
    DEFAULTS,
    LAMS_LOW,
    MEASURES,
    atlas_point,
    fig4_lams,
)
from workbench.redundancy.params import LOST, PARAMS
from workbench.validation import ParameterError

SIMULATED = "fig4_pareto_asto_gain_vs_benchmark_sim500"


def test_every_lost_value_and_reading_is_declared_with_its_reason():
    ranges, readings = plausible_space(PARAMS)
    assert {p.name for p in ranges} == {p.name for p in LOST}
    assert set(readings) == {"default", "formula=paper"}
    for p in PARAMS.values():
        if p.plausible is not None:
            assert p.source == "choice" or p.name == "formula", p.name
            assert '"' in p.why, f"{p.name}: the reason quotes the paper"
        elif p.source == "choice":
            assert p.why, f"{p.name}: a [choice] row says why it has no plausible range"


def test_the_atlas_covers_every_paper_row_and_nothing_else():
    table = load_claims("p4")
    assert set(ATLAS.claims) == set(table.loc[table["source"] == "paper", "id"])
    assert set(CLAIMS) == set(MEASURES) == set(table["id"])


def test_the_fig4_grid_is_the_claims_grid_at_the_default():
    assert list(LAMS_LOW) == [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    assert fig4_lams(0.1)[0] == 0.1 and fig4_lams(0.1)[-1] == 2.0


def test_atlas_point_at_the_defaults_measures_what_claims_measure():
    quick = atlas_point(quick=True, seed=0)
    assert set(quick) == set(ATLAS.claims)
    for claim, value in quick.items():
        if claim != SIMULATED:
            assert value == CLAIMS[claim](True), claim
    assert quick[SIMULATED].stationary and 0.6 < quick[SIMULATED].value < 0.9


def test_atlas_point_is_quick_and_moves_with_the_lost_values():
    atlas_point(quick=True, seed=1)
    t0 = time.perf_counter()
    low = atlas_point(quick=True, seed=1, fig3_lam=0.5, formula="paper", table1_N_large=200)
    # about 0.6 s on a loaded machine; the bound leaves room for a very loaded one
    assert time.perf_counter() - t0 < 5.0
    assert low["fig3_pareto_pb_min_at_m2"] == 1.0  # Fig. 3's claim flips below λ ≈ 1.4
    assert atlas_point(quick=True, seed=1, fig3_lam=3.0)["fig3_pareto_pb_min_at_m2"] == 2.0
    assert DEFAULTS["fig3_lam"] == 3.0


def test_atlas_point_refuses_a_value_that_is_not_lost():
    with pytest.raises(TypeError, match="lam"):
        atlas_point(quick=True, seed=0, lam=1.0)


@pytest.mark.parametrize(
    "values, name",
    [({"formula": "eq9"}, "formula"), ({"fig3_lam": -1.0}, "fig3_lam"), ({"seed": -1}, "seed")],
)
def test_atlas_point_checks_each_value_at_its_door(values, name):
    """A value outside its row's range is refused by atlas_point itself, before any work."""
    with pytest.raises(ParameterError, match=f"'{name}' parameter of atlas_point"):
        atlas_point(**{"quick": True, "seed": 0, **values})
