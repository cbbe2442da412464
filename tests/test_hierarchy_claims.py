"""The P5 claims table against the workbench's measurements (quick mode)."""

from pathlib import Path

import pandas as pd
import pytest

from workbench.hierarchy.claims import CLAIMS, claims_table


@pytest.fixture(scope="module")
def table():
    return claims_table(quick=True)


def test_every_claim_has_a_measure(table):
    assert set(table["id"]) == set(CLAIMS)


def test_claims_as_expected(table):
    path = Path(__file__).resolve().parents[1] / "data" / "claims" / "p5.csv"
    full = pd.read_csv(path, comment="#", skipinitialspace=True)
    for (_, row), tol in zip(table.iterrows(), full["tolerance"], strict=True):
        agrees = abs(row["measured"] - row["value"]) <= tol
        if row["expect"] == "agree":
            assert agrees, row.to_dict()
        else:
            assert not agrees and abs(row["measured"] - row["workbench_value"]) <= tol, (
                row.to_dict()
            )
