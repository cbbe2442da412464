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
    if row["expect"] == "agree":
        assert row["agrees"], detail
    else:  # a documented departure: the paper's number is not reproduced, ours is
        assert not row["agrees"], "now agrees with the paper, update the claims table: " + detail
        assert abs(row["measured"] - row["workbench_value"]) <= row["tolerance"], detail
