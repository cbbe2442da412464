"""P2's claim atlas: the plausible space declared in the table, and atlas_point."""

import math

from workbench.claims import Measurement, load_claims
from workbench.proactive.claims import ATLAS, atlas_point
from workbench.proactive.figures import READING_ROWS, reading_steps
from workbench.proactive.params import PARAMS


def test_atlas_covers_exactly_the_papers_own_claims():
    table = load_claims("p2")
    assert set(ATLAS.claims) == set(table.loc[table["source"] == "paper", "id"])
    assert ATLAS.evaluate is atlas_point


def test_every_lost_value_and_reading_has_a_reason_quoting_the_paper():
    rows = {r.name: r for r in PARAMS.rows if r.plausible is not None}
    # the readings of the text and the lost values behind the claims' disagreements
    assert {"cache_aware", "hedge_check", "coverage_db", "lam", "budget"} <= set(rows)
    for r in rows.values():
        assert r.source == "choice" or r.kind == "bool", r.name
        assert '"' in r.why or "not in the recovered text" in r.why, r.name
    # the readings table is built from the same rows: the earlier reading, then one at a time
    steps = reading_steps()
    assert len(steps) == len(READING_ROWS) + 1
    for (_, before), (label, after), name in zip(steps[:-1], steps[1:], READING_ROWS, strict=True):
        assert [k for k in after if after[k] != before[k]] == [name] and name in label
    assert steps[0][1] == {"hedge_check": False, "cache_aware": False, "coverage_db": 110.0}
    assert steps[-1][1] == {n: PARAMS[n].default for n in READING_ROWS}


def test_atlas_point_measures_every_claim_at_the_defaults():
    point = {r.name: r.default for r in PARAMS.rows if r.plausible is not None}
    got = atlas_point(quick=True, seed=0, **point)
    assert set(got) == set(ATLAS.claims)
    for claim, m in got.items():
        assert isinstance(m, Measurement), claim
        assert m.stationary and math.isfinite(m.value), (claim, m)
    # yes/no claims are 0/1; the caching claim that holds everywhere holds here too
    assert got["fig6_mean_falls_with_cacheable_ratio"].value == 1.0
    assert got["fig3_bl2_tail_below_bl3"].value in (0.0, 1.0)
