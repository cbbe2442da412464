"""The claim atlas's verdict logic on synthetic claims with known answers, and every paper's
declared plausible space (workbench.atlas.atlas)."""

import dataclasses
import os

import atlas_targets
import numpy as np
import pandas as pd
import pytest
from atlas_targets import FLIP_AT, PARAMS, SPEC, TARGETS
from scipy import stats

from workbench.atlas import design, plausible_space, run_atlas, verdict, wilson
from workbench.params import Param
from workbench.registry import PAPERS
from workbench.validation import ParameterError


@pytest.fixture(scope="module")
def table():
    return run_atlas(SPEC, PARAMS, TARGETS, quick=True, seed=3, n_workers=1, progress=False)


def _row(table, claim, reading="all"):
    return table[(table["claim"] == claim) & (table["reading"] == reading)].iloc[0]


def test_plausible_space_is_ranges_and_one_at_a_time_readings():
    ranges, readings = plausible_space(PARAMS)
    assert [p.name for p in ranges] == ["x", "y"]
    assert readings == {"default": {}, "r=b": {"r": "b"}}


def test_design_covers_each_range_once_per_stratum():
    ranges, _ = plausible_space(PARAMS)
    d = design(ranges, 40, seed=1)
    for name in ("x", "y"):  # Latin hypercube: one point in each of the 40 strata
        assert sorted(np.floor(d[name] * 40).astype(int)) == list(range(40))
    pd.testing.assert_frame_equal(d, design(ranges, 40, seed=1))
    assert not d.equals(design(ranges, 40, seed=2))


def test_a_claim_that_holds_everywhere_is_reproduced(table):
    for reading in ("all", "default", "r=b"):
        row = _row(table, "always", reading)
        assert row["verdict"] == "reproduced" and row["holds_share"] == 1.0
    assert _row(table, "always")["points"] == 80  # 40 points x 2 readings


def test_a_claim_that_holds_nowhere_is_refuted(table):
    row = _row(table, "never")
    assert row["verdict"] == "refuted" and row["holds_share"] == 0.0 and row["ci_high"] < 0.1


def test_a_claim_that_flips_names_its_parameter_within_one_grid_step(table):
    row = _row(table, "flip")
    assert row["verdict"] == "depends"
    assert row["decided_by"].split(", ")[0] == "x"
    threshold = float(row["flip"].split("≤ ")[1].split(":")[0])
    assert abs(threshold - FLIP_AT) <= 1 / 40  # one stratum of the 40-point design
    assert row["ci_low"] < row["holds_share"] < row["ci_high"]


def test_a_claim_that_hinges_on_a_reading_names_the_reading(table):
    assert _row(table, "reading", "default")["verdict"] == "reproduced"
    assert _row(table, "reading", "r=b")["verdict"] == "refuted"
    row = _row(table, "reading")
    assert row["verdict"] == "depends" and row["decided_by"] == "reading r=b"


def test_non_stationary_points_are_undetermined_never_agreement(table):
    row = _row(table, "unstable")
    assert row["verdict"] == "undetermined" and row["points"] == 0
    assert row["undetermined"] == 80


def test_same_seed_same_frame_on_any_number_of_workers(table):
    again = run_atlas(SPEC, PARAMS, TARGETS, quick=True, seed=3, n_workers=2, progress=False)
    pd.testing.assert_frame_equal(table, again)
    pd.testing.assert_frame_equal(table.attrs["points"], again.attrs["points"])


@pytest.mark.parametrize(("seconds", "backend"), [(0.01, "in-process"), (60.0, "processes")])
def test_a_long_atlas_runs_on_workers_a_short_one_in_this_process(table, seconds, backend):
    """Without n_workers: a short atlas is not worth starting workers, a long one (P2's quick
    atlas: 16 evaluations of about 20 s) uses every core; the numbers are the same."""
    spec = dataclasses.replace(SPEC, seconds_per_evaluation=seconds)
    got = run_atlas(spec, PARAMS, TARGETS, quick=True, seed=3, progress=False)
    assert got.attrs["points"].attrs["sweep"]["backend"] == backend
    pd.testing.assert_frame_equal(table, got)


def test_readings_that_share_runs_go_to_one_worker_together_same_table(table):
    """P2's readings share runs (BL3's serve every reading): a point's readings are then
    evaluated one after the other in one worker, whose run cache serves them; the table
    and the points frame are those of the reading-by-reading order."""
    log = atlas_targets.log_path(os.getpid())
    log.unlink(missing_ok=True)
    spec = dataclasses.replace(SPEC, evaluate=atlas_targets.evaluate_logged, readings_per_batch=2)
    got = run_atlas(spec, PARAMS, TARGETS, quick=True, seed=3, n_workers=2, progress=False)
    pd.testing.assert_frame_equal(table, got)
    pd.testing.assert_frame_equal(table.attrs["points"], got.attrs["points"])
    lines = [ln.split() for ln in log.read_text().splitlines()]
    log.unlink()
    assert len(lines) == 80  # 40 points x 2 readings
    by_point = {}
    for pid, x, r in lines:
        by_point.setdefault(x, []).append((pid, r))
    assert len(by_point) == 40
    assert all(
        len({pid for pid, _ in v}) == 1 and sorted(r for _, r in v) == ["a", "b"]
        for v in by_point.values()
    )
    assert len({pid for pid, _, _ in lines}) == 2  # both workers had points


@pytest.mark.parametrize("per_batch", [1, 2])
def test_the_most_expensive_points_go_first_same_table(table, per_batch):
    """With what a point costs declared (P2: its runs' slots, 1 / λ_u), the points are
    evaluated most expensive first, a point's readings together; the table and the points
    frame are those of the reading-by-reading order."""
    log = atlas_targets.log_path(os.getppid())  # evaluated in this process: its parent's
    log.unlink(missing_ok=True)
    spec = dataclasses.replace(
        SPEC,
        evaluate=atlas_targets.evaluate_logged,
        readings_per_batch=per_batch,
        cost=lambda x, y: 1.0 + x,
    )
    got = run_atlas(spec, PARAMS, TARGETS, quick=True, seed=3, n_workers=1, progress=False)
    pd.testing.assert_frame_equal(table, got)
    pd.testing.assert_frame_equal(table.attrs["points"], got.attrs["points"])
    lines = [ln.split() for ln in log.read_text().splitlines()]
    log.unlink()
    xs = [float(x) for _, x, _ in lines]
    assert len(xs) == 80 and xs == sorted(xs, reverse=True)  # 40 points x 2 readings
    assert all(xs[k] == xs[k + 1] for k in range(0, 80, 2))  # a point's two readings in a row
    bad = dataclasses.replace(SPEC, cost=lambda x, y: x - 0.5)  # negative for half the points
    with pytest.raises(ParameterError, match=r"spec\.cost\(point\).*run_atlas"):
        run_atlas(bad, PARAMS, TARGETS, quick=True, seed=3, n_workers=1, progress=False)


def test_verdict_rules_and_wilson_interval():
    assert verdict(0.9, 10) == "reproduced" and verdict(0.89, 100) == "depends"
    assert verdict(0.1, 10) == "refuted" and verdict(float("nan"), 0) == "undetermined"
    low, high = wilson(8, 10)  # textbook value: (0.490, 0.943)
    assert abs(low - 0.490) < 1e-3 and abs(high - 0.943) < 1e-3
    assert wilson(0, 24)[0] == 0.0 and wilson(24, 24)[1] == 1.0
    assert abs(wilson(0, 24)[1] - 0.138) < 1e-3  # z² / (n + z²) = 3.84 / 27.84


def test_wilson_equals_scipys_wilson_interval():
    """The formula by hand equals scipy's ``binomtest(k, n).proportion_ci(method="wilson")``
    to 1e-12 (scipy's, which also computes a p-value, is 7 times slower: kept as the oracle;
    benchmarks/bench_kept_libraries.py)."""
    for n in (1, 2, 7, 30, 113):
        for k in range(n + 1):
            for confidence in (0.5, 0.9, 0.95, 0.99):
                ci = stats.binomtest(k, n).proportion_ci(confidence, method="wilson")
                got = wilson(k, n, confidence)
                assert got == pytest.approx((ci.low, ci.high), abs=1e-12), (k, n, confidence)


def test_plausible_needs_a_reason_and_must_contain_the_default():
    with pytest.raises(ValueError, match="why"):
        Param("x", "x", "x", low=0, high=1, default=0.5, plausible=(0, 1))
    with pytest.raises(ValueError, match="contain the default"):
        Param("x", "x", "x", low=0, high=1, default=0.5, plausible=(0.6, 1), why="w")
    with pytest.raises(ValueError, match="contain the default"):
        Param(
            "r",
            "r",
            "r",
            kind="choice",
            choices=("a", "b", "c"),
            default="a",
            plausible=("b", "c"),
            why="w",
        )


@pytest.mark.parametrize("paper_id", sorted(PAPERS))
def test_every_paper_declares_its_plausible_space_with_reasons(paper_id):
    p = PAPERS[paper_id]
    ranges, readings = plausible_space(p.params)
    spec = p.part("claims").ATLAS
    assert callable(spec.evaluate)
    for row in p.params.rows:
        if row.plausible is not None:
            assert row.source == "choice" or row.kind in ("choice", "bool"), (
                f"{paper_id}: {row.name} is a value the paper states; it stays fixed"
            )
            assert len(row.why) > 20
    assert ranges or len(readings) > 1, f"{paper_id}: no plausible range or reading declared"


def test_cli_writes_the_atlas_table_points_and_figure(tmp_path):
    """``python -m workbench claims p3 --atlas`` on a 2-point design: CSVs and PNG written,
    one row per (claim, reading) plus the ``all`` rows, every verdict one of the four."""
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "claims",
            "p3",
            "--atlas",
            "--points",
            "2",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    folder = tmp_path / "atlas"
    table = pd.read_csv(folder / "p3_atlas.csv")
    points = pd.read_csv(folder / "p3_atlas_points.csv")
    assert (folder / "p3_atlas.png").stat().st_size > 10_000
    readings = set(points["reading"])
    assert set(table["reading"]) == readings | {"all"}
    assert len(table) == table["claim"].nunique() * (len(readings) + 1)
    assert set(table["verdict"]) <= {"reproduced", "refuted", "depends", "undetermined"}
    assert len(points) == 2 * len(readings) * table["claim"].nunique()
    assert not points.duplicated(["claim", "reading", "index"]).any()


def test_a_cached_atlas_is_reused_and_equal(tmp_path, monkeypatch):
    """Second run from the cache: same frame; the key includes the sources' digest."""
    from workbench.atlas import atlas, source_digest

    first = atlas("p3", n_points=2, n_workers=1, progress=False, cache_dir=tmp_path)
    again = atlas("p3", n_points=2, n_workers=1, progress=False, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(first, again)
    assert any(tmp_path.rglob("*.json")), "nothing was cached"
    assert len(source_digest()) == 32
