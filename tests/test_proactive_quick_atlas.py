"""P2's kept quick atlas (data/atlas/p2_quick.csv) is what this code computes.

The notebook shows the quick atlas from the kept file; here one design point of it (the
cheapest, the highest λ_u) is recomputed under the two readings that share their runs
((default, cache_aware=False): about 5 CPU-seconds) and checked equal to the kept rows,
value for value, and every kept row's design point is checked equal to the atlas' design.
The whole atlas (16 evaluations, about 2 CPU-minutes) is recomputed by
``python -m workbench.proactive.quick_atlas`` or the notebook's button.
"""

import numpy as np
import pandas as pd
import pytest

from workbench.atlas import _atlas_eval, design, plausible_space
from workbench.claims import load_claims
from workbench.proactive import quick_atlas as Q
from workbench.proactive.claims import ATLAS
from workbench.proactive.params import PARAMS

RANGES, READINGS = plausible_space(PARAMS)
NAMES = [p.name for p in RANGES]


@pytest.fixture(scope="module")
def kept():
    return Q.kept_points()


def _evaluate(index: int, reading: str, point: dict) -> pd.DataFrame:
    """One evaluation with the arguments workbench.atlas.atlas gives it."""
    defaults = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    defaults = {k: v for k, v in defaults.items() if k not in NAMES}
    table = load_claims("p2").set_index("id")
    targets = {c: (table.at[c, "value"], table.at[c, "tolerance"]) for c in ATLAS.claims}
    overrides = {reading: {**defaults, **READINGS[reading]}}
    return _atlas_eval(
        index=index,
        reading=reading,
        evaluate=ATLAS.evaluate,
        overrides=overrides,
        targets=targets,
        quick=True,
        base_seed=Q.KEPT_SEED,
        **point,
    )


def test_kept_rows_cover_the_design_every_reading_and_claim(kept):
    grid = design(RANGES, ATLAS.quick_points, Q.KEPT_SEED)
    assert set(kept["reading"]) == set(READINGS)
    assert len(kept) == ATLAS.quick_points * len(READINGS) * len(ATLAS.claims)
    for (reading, index), rows in kept.groupby(["reading", "index"]):
        assert rows["claim"].tolist() == list(ATLAS.claims), (reading, index)
        for name in NAMES:  # the design point, exactly
            assert (rows[name] == grid.at[index, name]).all(), (reading, index, name)


def test_one_design_point_recomputed_equals_the_kept_rows(kept):
    grid = design(RANGES, ATLAS.quick_points, Q.KEPT_SEED)
    index = int(np.argmax(grid["lam"]))  # the cheapest point: the shortest warm-up
    row = grid.to_dict("records")[index]
    point = {k: v.item() if hasattr(v, "item") else v for k, v in row.items()}  # as run_atlas
    for reading in ("default", "cache_aware=False"):
        got = _evaluate(index, reading, point)
        got.insert(0, "reading", reading)
        got.insert(1, "index", index)
        want = kept[(kept["reading"] == reading) & (kept["index"] == index)]
        want = want[got.columns].reset_index(drop=True)
        assert Q.differing_rows(want, got) == 0, (reading, index)
        assert got["stationary"].any()  # a point with numbers, not all undetermined


def test_the_kept_atlas_table_is_summarised_from_the_kept_rows(kept):
    frame = Q.kept_atlas()
    assert frame.attrs["points"].equals(kept)
    overall = frame[frame["reading"] == "all"].set_index("claim")
    for claim, rows in kept.groupby("claim"):
        determined = rows["holds"].dropna()
        assert overall.at[claim, "points"] == len(determined)
        if len(determined):
            assert overall.at[claim, "holds_share"] == determined.mean()


def test_differing_rows_counts_changed_values(kept):
    moved = kept.copy()
    assert Q.differing_rows(kept, moved) == 0
    moved.loc[3, "measured"] = moved.loc[3, "measured"] + 1e-12
    moved.loc[5, "note"] = "changed"
    assert Q.differing_rows(kept, moved) == 2
    assert Q.differing_rows(kept, moved.iloc[1:]) == len(kept)


def _buttons(box):
    import ipywidgets as w

    for child in box.children:
        if isinstance(child, w.Button):
            yield child
        elif isinstance(child, w.Box):
            yield from _buttons(child)


def test_the_panel_shows_the_kept_atlas_and_its_button_compares_a_live_one(monkeypatch):
    kept = Q.kept_atlas()
    moved = Q.kept_atlas()
    points = moved.attrs["points"]
    points.loc[7, "measured"] += 0.5
    live = iter([kept, moved])
    monkeypatch.setattr(Q, "_live", lambda seed, progress=True: next(live))
    panel = Q.atlas_panel(quick=True, seed=0)
    source = panel.children[0]
    assert "data/atlas/p2_quick.csv" in source.value
    (button,) = _buttons(panel)
    button.click()
    assert "identical to the kept result" in source.value
    button.click()
    assert f"differs from the kept result in 1 of {len(points)} rows" in source.value
    assert not button.disabled


def test_the_static_panel_has_no_button(monkeypatch):
    monkeypatch.setenv("WORKBENCH_STATIC", "1")
    panel = Q.atlas_panel(quick=True, seed=0)
    assert not list(_buttons(panel))
    assert "data/atlas/p2_quick.csv" in panel.children[0].value
