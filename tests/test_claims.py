"""Every published claim of every paper, measured by the workbench (data/claims/*.csv)."""

import pytest

from workbench.claims import check_claims, load_claims
from workbench.reproduce import PAPERS

CASES = [(p, cid) for p in PAPERS for cid in load_claims(p)["id"]]
_RESULTS: dict[str, object] = {}


def _results(paper):
    if paper not in _RESULTS:
        _RESULTS[paper] = check_claims(paper, quick=True).set_index("id")
    return _RESULTS[paper]


@pytest.mark.parametrize(("paper", "claim"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_claim(paper, claim):
    row = _results(paper).loc[claim]
    detail = (
        f"{row['quantity']}: paper {row['value']}, measured {row['measured']:.6g}, "
        f"tolerance {row['tolerance']}, expect {row['expect']}"
    )
    # agree: within tolerance of the paper; disagree: off the paper's number, on our own
    # workbench_value (the rule lives in workbench.claims.check_claims)
    if row["expect"] == "disagree" and row["agrees"]:
        detail = "now agrees with the paper, update the claims table: " + detail
    assert row["as_expected"], detail
