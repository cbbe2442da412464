"""The P5 claims table against the workbench's measurements (quick mode), with the mechanism."""

from pathlib import Path

import pandas as pd
import pytest
from shared_results import shared

from workbench.claims import check_claims
from workbench.hierarchy.claims import CLAIMS
from workbench.hierarchy.simulation import run_models

CSV = Path(__file__).resolve().parents[1] / "data" / "claims" / "p5.csv"


@pytest.fixture(scope="module")
def table():
    return shared(check_claims, "p5", quick=True)  # test_claims.py's, the notebook's


def test_every_claim_has_a_measure():
    assert set(pd.read_csv(CSV, comment="#")["id"]) == set(CLAIMS)


def test_claims_as_expected(table):
    bad = table[~table["as_expected"]]
    assert bad.empty, bad[["id", "measured", "value", "workbench_value", "stationary"]]
    # every grid measure rests on stationary points only
    assert table["stationary"].all()


def test_every_paper_row_quotes_the_paper_in_chinese():
    frame = pd.read_csv(CSV, comment="#", skipinitialspace=True)
    paper = frame[frame["source"] == "paper"]
    assert len(paper) >= 8
    for quote in paper["quote"]:
        assert isinstance(quote, str) and any("\u4e00" <= ch <= "\u9fff" for ch in quote)
    # calibration targets and consequences of the model are not evidence
    own = frame.set_index("id")["source"]
    assert own["linear_growth_in_mu"] == own["fig8_mu_little_effect_on_queue"] == "workbench"
    assert own["without_enh1_worse_than_pure_cloud"] == "workbench"


def _mech(**kw):
    r = run_models(
        lam=8, task_size=7, models=("advanced", "without_enhancement_2"), seed=3, periods=600, **kw
    )
    models = ("advanced", "without_enhancement_2")
    mid = {m: r[f"{m}/share_s1"] + r[f"{m}/share_s2"] for m in models}
    return r, mid


def test_red_verdict_by_its_mechanism():
    """No RED gain at the defaults because RED does not fire: it forwards < 0.5 % of tasks, the
    two models run the same shares at the middle tier and tie within 1 %; both runs are
    stationary (no gain is asserted at an unstable point). Reading eq. 11 in milliseconds
    moves RED's lower threshold from 0.35 s to 5 ms: RED then forwards > 5 % of tasks and
    the advanced model puts more work on the middle tier."""
    r, mid = _mech()
    assert r["advanced/stationary"] == r["without_enhancement_2/stationary"] == 1.0
    assert r["advanced/red_forward_rate"] < 0.005
    assert abs(mid["advanced"] - mid["without_enhancement_2"]) < 0.01
    ratio = r["without_enhancement_2/mean_time"] / r["advanced/mean_time"]
    assert abs(ratio - 1.0) < 0.01
    r_ms, mid_ms = _mech(eq11_unit="ms")
    assert r_ms["advanced/stationary"] == 1.0
    assert r_ms["advanced/red_forward_rate"] > 0.05
    assert mid_ms["advanced"] > mid_ms["without_enhancement_2"] + 0.01


def test_readings_and_lost_values_are_declared_with_the_papers_words():
    """Issue 21: every reading and lost value has a plausible range or set and a reason that
    quotes the Chinese text; READINGS is a view of those rows."""
    from workbench.hierarchy.params import PARAMS, READINGS

    for name in (
        "decision_time",
        "in_decision",
        "offload_busy",
        "arrivals",
        "eq11_unit",
        "w_q",
        "max_p",
        "compute_bottom",
        "compute_middle",
        "compute_top",
        "data_per_work",
    ):
        row = PARAMS[name]
        assert row.plausible is not None and row.source == "choice", name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in row.why), f"{name}: no Chinese quote"
        assert READINGS[name] == (row.plausible, row.why)
    assert PARAMS["w_q"].plausible == (0.01, 0.5) and PARAMS["max_p"].plausible == (0.1, 1.0)
    assert PARAMS["lam"].plausible is None and PARAMS["min_th"].plausible is None


def test_atlas_point_measures_every_atlas_claim_quickly():
    import time

    from workbench.claims import load_claims
    from workbench.hierarchy.claims import ATLAS, atlas_point
    from workbench.hierarchy.params import PARAMS

    table = load_claims("p5")
    assert set(ATLAS.claims) == set(table.loc[table["source"] == "paper", "id"])
    point = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    atlas_point(quick=True, seed=0, **point)  # compile / warm
    t0 = time.process_time()
    out = atlas_point(quick=True, seed=0, **point)
    assert time.process_time() - t0 < 1.5  # about 0.5 s on one core
    assert set(out) == set(ATLAS.claims)
    assert all(m.stationary for m in out.values())
    # at the defaults the atlas's small grid agrees with the claims' verdicts
    assert out["red_gain_over_20pct"].value == 0.0 and out["pure_local_worst"].value == 1.0
    assert out["red_thresholds_differ_0_2pct"].value < 0.004
    # eq. 11 read in ms makes RED fire: the note says how often
    ms = atlas_point(quick=True, seed=0, **(point | {"eq11_unit": "ms"}))
    assert float(ms["red_gain_over_20pct"].note.split("RED forwards ")[1].split("%")[0]) > 5


def test_a_flag_holds_at_a_grid_point_only_if_every_replication_holds_it(monkeypatch):
    """The full atlas's three replications of a point: a stationarity flag is "all" of the
    replications' flags, also when a run reports its flags as numpy floats (the flags then
    come out of ``==`` as numpy bools)."""
    import numpy as np

    from workbench.hierarchy import claims
    from workbench.hierarchy.model import P5Params

    calls = []

    def fake_runs(p, models, lam, task_size, seed):
        calls.append(models)
        stationary = np.float64(len(calls) > 8)  # the first replication (8 runs) is transient
        out = {}
        for m in models:
            out |= {f"{m}/{k}": np.float64(0.5) for k in ("mean_time", "share_s1", "share_s2")}
            out |= {f"{m}/rho_bound": np.float64(0.5), f"{m}/stationary": stationary}
            out |= {f"{m}/red_forward_rate": np.float64(0), f"{m}/time_per_work": np.float64(1)}
        return out

    monkeypatch.setattr(claims, "run_models", fake_runs)
    monkeypatch.setattr(claims, "ATLAS_FULL_GRID", ((4, 3),))
    runs = claims._atlas_runs(False, 0, P5Params())
    assert len(calls) == 3 * 8  # 3 replications x (the five models, (5, 40), 6 topologies)
    flags = ["all_ok", "wide_ok", *(f"{t}/ok" for t in ("skewed", *claims._BA))]
    assert runs[flags].dtypes.eq(bool).all()
    assert not runs[flags].to_numpy().any()  # one transient replication: no flag holds


def test_an_atlas_point_at_the_defaults_measures_what_the_claims_measure():
    """Claims measured once: the full atlas point at the defaults (the claims' quick 3 x 3
    grid, 300 periods x 3 replications, the studies' seeds) gives each atlas claim the value
    CLAIMS[id] measures from the figures' studies; only the path to the tables differs."""
    from workbench.hierarchy.claims import ATLAS, CLAIMS, atlas_point
    from workbench.hierarchy.figures import BASE_SEED
    from workbench.hierarchy.params import PARAMS

    point = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    out = atlas_point(quick=False, seed=BASE_SEED, **point)
    for cid in ATLAS.claims:
        claim = CLAIMS[cid](True, seed=0)  # the studies' seeds: BASE_SEED + 0
        assert out[cid].stationary == claim.stationary, cid
        assert out[cid].value == pytest.approx(claim.value, rel=1e-9, abs=1e-12), cid
