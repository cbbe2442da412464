"""Every claim row of every paper (data/claims/*.csv), measured by the workbench.

Rows whose value is a number the paper states are *claim* checks. Rows that hold the
workbench's own number (the paper gives none, or the workbench disagrees with the paper and
pins what it computes instead) are *regression* guards: they say so in their test id.
"""

import pytest

from workbench.claims import check_claims, kind, load_claims
from workbench.registry import PAPERS

CASES = [(p, row["id"], kind(row)) for p in PAPERS for _, row in load_claims(p).iterrows()]
_RESULTS: dict[str, object] = {}


def _results(paper):
    if paper not in _RESULTS:
        _RESULTS[paper] = check_claims(paper, quick=True).set_index("id")
    return _RESULTS[paper]


@pytest.mark.parametrize(
    ("paper", "claim", "kind"), CASES, ids=[f"{p}-{k}-{c}" for p, c, k in CASES]
)
def test_claim(paper, claim, kind):
    row = _results(paper).loc[claim]
    detail = (
        f"{row['quantity']}: paper {row['value']}, measured {row['measured']:.6g}, "
        f"tolerance {row['tolerance']}, expect {row['expect']} ({kind})"
    )
    if row["expect"] == "disagree" and row["agrees"]:
        detail = "now agrees with the paper, update the claims table: " + detail
    assert row["as_expected"], detail


@pytest.mark.parametrize("paper", list(PAPERS))
def test_paper_values_cite_where_the_paper_states_them(paper):
    table = load_claims(paper)
    stated = table[table["source"] == "paper"]
    uncited = stated[stated["where"].isna() | (stated["where"].astype(str).str.len() < 3)]
    assert uncited.empty, f"{paper}: rows with a paper value but no citation: {list(uncited['id'])}"
