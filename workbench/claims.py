"""Each paper's published claims, checked against what the workbench computes.

``data/claims/<paper>.csv`` lists the claims (id, figure, quantity, value, tolerance, where,
expect, workbench_value, note). ``value`` is the paper's number (an indicator 1/0 for a
qualitative statement). ``expect`` is ``agree`` when the workbench reproduces it within
``tolerance`` (absolute), or ``disagree`` when the workbench departs from the paper: then
``workbench_value`` is what the workbench computes instead (same tolerance), and the note and
the notebook say why. Each paper module maps claim ids to a
function ``measure(quick: bool) -> float`` in ``CLAIMS``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from workbench.reproduce import paper_module

DATA = Path(__file__).resolve().parent.parent / "data"


def load_claims(paper: str) -> pd.DataFrame:
    """The claims table of one paper (``p3``, ``p4``, ...)."""
    path = DATA / "claims" / f"{paper}.csv"
    frame = pd.read_csv(path, comment="#", skipinitialspace=True)
    frame.insert(0, "paper", paper)
    return frame


def check_claims(paper: str, quick: bool = True) -> pd.DataFrame:
    """Measure every claim; adds ``measured``, ``error`` and ``agrees`` columns."""
    module = paper_module(paper)
    frame = load_claims(paper)
    missing = set(frame["id"]) - set(module.CLAIMS)
    if missing:
        raise KeyError(f"check_claims: no measurement for claims {sorted(missing)} of {paper}")
    frame["measured"] = [float(module.CLAIMS[i](quick=quick)) for i in frame["id"]]
    frame["error"] = (frame["measured"] - frame["value"]).abs()
    frame["agrees"] = frame["error"] <= frame["tolerance"]
    if "workbench_value" not in frame:
        frame["workbench_value"] = float("nan")
    # an expected disagreement must still reproduce the workbench's own number
    frame["as_expected"] = frame["agrees"].where(
        frame["expect"] == "agree",
        ~frame["agrees"]
        & ((frame["measured"] - frame["workbench_value"]).abs() <= frame["tolerance"]),
    )
    return frame
