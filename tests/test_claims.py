"""Every claim row of every paper (data/claims/*.csv), measured by the workbench.

Rows whose value is a number the paper states are *claim* checks. Rows that hold the
workbench's own number (the paper gives none, or the workbench disagrees with the paper and
pins what it computes instead) are *regression* guards: they say so in their test id.
"""

import pytest
from shared_results import shared

from workbench.claims import check_claims, kind, load_claims
from workbench.registry import PAPERS

CASES = [(p, row["id"], kind(row)) for p in PAPERS for _, row in load_claims(p).iterrows()]
_RESULTS: dict[str, object] = {}


def _results(paper):
    if paper not in _RESULTS:
        # the notebook's claims table (workbench.tables.claims_table): computed once a run
        _RESULTS[paper] = shared(check_claims, paper, quick=True).set_index("id")
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


def test_a_measurement_on_a_non_stationary_run_never_counts_as_agreement(monkeypatch):
    import pandas as pd

    import workbench.claims as wc

    table = pd.DataFrame(
        {
            "paper": "p4",
            "id": ["a", "b", "c"],
            "figure": "1",
            "quantity": "q",
            "where": "x",
            "value": [1.0, 1.0, 2.0],
            "source": "paper",
            "tolerance": 0.1,
            "expect": ["agree", "agree", "disagree"],
            "workbench_value": [None, None, 5.0],
        }
    )
    measures = {
        "a": lambda quick: wc.Measurement(1.0, stationary=True),
        "b": lambda quick: wc.Measurement(1.0, stationary=False, note="grows"),
        "c": lambda quick: wc.Measurement(5.0, stationary=False),
    }
    monkeypatch.setattr(wc, "load_claims", lambda paper: table.copy())
    monkeypatch.setattr(wc, "get_paper", lambda paper: type("P", (), {"claims": measures}))
    out = wc.check_claims("p4")
    assert list(out["agrees"]) == [True, False, False]
    assert list(out["as_expected"]) == [True, False, False]
    assert list(out["stationary"]) == [True, False, False]
    assert wc.readable(out)["verdict"].str.startswith("undetermined").tolist() == [
        False,
        True,
        True,
    ]


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_paper_row_quotes_the_paper(paper):
    """A row that says the paper states something carries the paper's words (verbatim, in its
    language); a statement the paper does not make is the workbench's own."""
    frame = load_claims(paper)
    assert "quote" in frame, f"{paper}.csv has no quote column"
    rows = frame[frame["source"] == "paper"]
    quotes = rows["quote"].fillna("").astype(str).str.strip()
    missing = rows.loc[quotes.str.len() < 10, "id"].tolist()
    assert not missing, f"{paper}: source=paper rows without the paper's words: {missing}"
