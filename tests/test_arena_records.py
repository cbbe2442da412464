"""``simulate(records=True)``: one row per measured task, consistent with the summary."""

import numpy as np
import pytest

from workbench import arena
from workbench.validation import ParameterError


@pytest.mark.parametrize(
    ("scenario", "policy", "params"),
    [
        ("p2_proactive", "hedge_cache", {"deadline": 0.05}),
        ("p4_redundancy", "replicate", {"m": 3}),
        ("p3_datacenters", "overflow", {"p": 0.5}),
    ],
)
def test_records_add_up_to_the_summary(scenario, policy, params):
    n, reps = 4_000, 2
    r = arena.simulate(
        scenario=scenario,
        policy=policy,
        requests=n,
        replications=reps,
        seed=5,
        overload="transient",
        records=True,
        **params,
    )
    rec = r.records
    warm = int(0.1 * n)
    assert len(rec) == reps * (n - warm)
    assert set(rec.columns) >= {
        "arrival",
        "source",
        "node",
        "start",
        "finish",
        "delay",
        "energy",
        "outcome",
        "copies",
    }
    sc = arena.load_scenario(scenario)
    cloud = [x.id for x in sc.nodes if x.role == "cloud"]
    for k, part in rec.groupby("replication"):
        row = r.frame.iloc[k]
        done = part[part["outcome"] != "lost"]
        assert done["delay"].mean() == pytest.approx(row["mean_delay"], rel=1e-12)
        assert np.quantile(done["delay"], 0.9) == pytest.approx(row["p90_delay"], rel=1e-12)
        assert (part["outcome"] == "lost").mean() == pytest.approx(row["loss_share"], abs=1e-12)
        assert part["node"].isin(cloud).mean() == pytest.approx(row["cloud_share"], abs=1e-12)
        assert part["copies"].mean() == pytest.approx(row["copies_per_task"], rel=1e-12)
        assert row["measured"] == len(done)
        # times in order: arrival <= start <= finish for served tasks; lost ones have none
        served = part[part["outcome"] == "served"]
        assert (served["arrival"] <= served["start"]).all()
        assert (served["start"] <= served["finish"]).all()
        assert part.loc[part["outcome"] == "lost", "finish"].isna().all()
        assert (part.loc[part["outcome"] == "lost", "node"] == "").all()
    if policy == "hedge_cache":
        assert (rec["outcome"] == "cached").mean() > 0.1  # P2's cache serves popular types
        # a cache hit takes only the device's link: 2 ms and 4e5 bits at 50 Mbit/s
        assert np.allclose(rec.loc[rec["outcome"] == "cached", "delay"], 0.002 + 4e5 / 5e7)
    if policy == "overflow":
        assert (rec["outcome"] == "lost").any()


def test_records_are_off_by_default_and_checked():
    r = arena.simulate(
        scenario="neutral", policy="jsq", requests=1_000, replications=2, overload="transient"
    )
    assert r.records is None
    with pytest.raises(ParameterError, match="records"):
        arena.simulate(
            scenario="neutral", policy="jsq", requests=1_000, replications=2, records="yes"
        )
