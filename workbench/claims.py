"""Each paper's published claims, checked against what the workbench computes.

``data/claims/<paper>.csv`` lists the claims, one row each:

- ``id, figure, quantity, where``: what is claimed and where the paper says it;
- ``value``: the number the paper states (an indicator 1/0 for a yes/no statement);
- ``source``: ``paper`` when ``value`` is a number the paper states (``where`` cites it), or
  ``workbench`` when the paper gives no number and ``value`` is the workbench's own result
  (then the row is a regression guard, not a check of the paper, and says so);
- ``tolerance``: absolute, stated with the row;
- ``expect``: ``agree`` when the workbench reproduces ``value`` within ``tolerance``, or
  ``disagree`` when it departs from the paper: then ``workbench_value`` is what the workbench
  computes instead (same tolerance) and the note and the notebook say why; or
  ``undetermined`` when a run behind the row is not a steady state at the defaults (the
  note says which): the check then holds while it stays undetermined.

- ``quote`` (optional column): for ``source=paper`` rows, the paper's words, verbatim and in
  the paper's language (several excerpts joined by " … ").

Each paper package maps claim ids to ``measure(quick: bool) -> float`` in ``claims.CLAIMS``;
a simulated measure returns a :class:`Measurement` instead, which carries whether the runs it
rests on were stationary. A measurement on a non-stationary run is *undetermined*: it never
counts as agreement (``agrees`` is False and ``stationary`` False, whatever the number).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd

from workbench.registry import paper as get_paper
from workbench.validation import check_bool, refusal

SOURCES = ("paper", "workbench")

# the claim atlas, which needs the sweep engine, lives in workbench.atlas (it imports this)
__all__ = ["load_claims", "check_claims", "Measurement", "AtlasSpec"]


class Measurement(NamedTuple):
    """A claim's measured value and whether every run behind it was a steady state."""

    value: float
    stationary: bool = True
    note: str = ""


def measured(out) -> Measurement:
    """A claim function's output as a :class:`Measurement` (a bare number: a steady state)."""
    if isinstance(out, Measurement):
        return Measurement(float(out.value), bool(out.stationary), str(out.note))
    return Measurement(float(out))


def load_claims(paper: str) -> pd.DataFrame:
    """The claims table of one paper (``p3``, ``p4``, ...)."""
    path = get_paper(paper).claims_path
    frame = pd.read_csv(path, comment="#", skipinitialspace=True)
    if "source" not in frame:
        frame["source"] = "paper"
    bad = sorted(set(frame["source"]) - set(SOURCES))
    if bad:
        raise ValueError(f"{path.name}: source must be one of {SOURCES}, got {bad}")
    frame.insert(0, "paper", paper)
    return frame


def need_frame(frame, columns, name: str, func: str) -> pd.DataFrame:
    """``frame`` if it is a DataFrame with every column in ``columns``, else a ParameterError."""
    if not isinstance(frame, pd.DataFrame) or any(c not in frame for c in columns):
        what = f"a pandas DataFrame with the columns {', '.join(columns)}"
        raise refusal(func, name, what, frame)
    return frame


def kind(row) -> str:
    """``claim`` (checks a number the paper states) or ``regression`` (the workbench's own)."""
    try:
        source, expect = row["source"], row["expect"]
    except (KeyError, TypeError, IndexError):
        what = "a claims-table row with the fields source and expect"
        raise refusal("kind", "row", what, row) from None
    if source == "workbench" or expect in ("disagree", "undetermined"):
        return "regression"
    return "claim"


def check_claims(paper: str, quick: bool = True) -> pd.DataFrame:
    """Measure every claim; adds ``measured``, ``error``, ``agrees``, ``as_expected``, ``kind``."""
    quick = check_bool(quick, "quick", "check_claims")
    measures = get_paper(paper).claims
    frame = load_claims(paper)
    missing = set(frame["id"]) - set(measures)
    if missing:
        raise KeyError(f"check_claims: no measurement for claims {sorted(missing)} of {paper}")
    results = [measured(measures[i](quick=quick)) for i in frame["id"]]
    frame["measured"] = [m.value for m in results]
    frame["stationary"] = [m.stationary for m in results]
    frame["measure_note"] = [m.note for m in results]
    frame["error"] = (frame["measured"] - frame["value"]).abs()
    frame["agrees"] = (frame["error"] <= frame["tolerance"]) & frame["stationary"]
    if "workbench_value" not in frame:
        frame["workbench_value"] = float("nan")
    # an expected disagreement must still reproduce the workbench's own number
    frame["as_expected"] = (
        frame["agrees"]
        .where(
            frame["expect"] == "agree",
            ~frame["agrees"]
            & frame["stationary"]
            & ((frame["measured"] - frame["workbench_value"]).abs() <= frame["tolerance"]),
        )
        .where(frame["expect"] != "undetermined", ~frame["stationary"])
    )
    frame["kind"] = frame.apply(kind, axis=1)
    return frame


def _number(x: float, yes_no: bool) -> str:
    if pd.isna(x):
        return "–"
    if yes_no:
        return "yes" if x >= 0.5 else "no"
    return f"{x:.4g}"


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """The checked claims as a table for people: yes/no for statements, whole sentences."""
    rows = []
    cols = ("id", "figure", "quantity", "value", "measured", "tolerance", "source", "agrees")
    need_frame(frame, (*cols, "as_expected"), "frame", "readable")
    for _, r in frame.iterrows():
        yes_no = r["tolerance"] == 0 and r["value"] in (0, 1) and float(r["measured"]) in (0, 1)
        rows.append(
            {
                "claim": r["id"],
                "figure": r["figure"],
                "what is claimed": r["quantity"],
                "paper": _number(r["value"], yes_no)
                + ("" if r["source"] == "paper" else " (workbench's own)"),
                "workbench": _number(r["measured"], yes_no),
                "tolerance": "exact" if r["tolerance"] == 0 else f"±{r['tolerance']:g}",
                "verdict": (
                    "undetermined (not stationary)"
                    if not r.get("stationary", True)
                    else ("agrees" if r["agrees"] else "disagrees")
                )
                + ("" if r["as_expected"] else " — UNEXPECTED"),
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ the atlas
#
# Which of a paper's conclusions survive every careful reading of it, and which hinge on a
# value the paper lost? The atlas evaluates every claim over the plausible space that the
# paper's parameter table declares (Param.plausible, Param.why) and sums up where it holds.


@dataclass(frozen=True)
class AtlasSpec:
    """How a paper's claims are evaluated away from the workbench's defaults.

    Parameters
    ----------
    evaluate : callable
        A module-level function ``evaluate(*, quick, seed, **params) -> {claim id: value}``
        (a value is a float or a :class:`Measurement`). ``params`` holds one value for every
        parameter-table row with a ``plausible`` range or set. It measures the same quantity
        as ``CLAIMS[id]``, so the value is compared with the claims table's ``value`` within
        its ``tolerance``.
    claims : tuple of str
        The claim ids the atlas covers; empty: every ``source=paper`` row of the table.
    quick_points, full_points : int
        Design points of the plausible continuous space, quick and full.
    """

    evaluate: Callable
    claims: tuple = ()
    quick_points: int = 8
    full_points: int = 64
    #: elementary steps (about 10 ns each) of one quick evaluation, a full one ten times as
    #: many; the atlas refuses a design whose total
    #: exceeds ``WORKBENCH_WORK_BUDGET`` (a full atlas needs it raised)
    work_per_evaluation: float = 3e7
    #: seconds one quick evaluation takes on one core (a full one ten times as many); an
    #: atlas planned above :data:`workbench.atlas.IN_PROCESS_SECONDS` runs on worker
    #: processes, a smaller one in the calling process (no worker start-up)
    seconds_per_evaluation: float = 0.5
    #: readings of one design point evaluated one after the other in one process (one batch
    #: on a worker), in :func:`plausible_space`'s order: where readings share runs (a run
    #: that does not depend on a reading is the same run under each), ``evaluate``'s own run
    #: cache then serves them. 1: every evaluation on its own. The table is the same either
    #: way; larger batches share more and balance the workers less well
    readings_per_batch: int = 1
    #: what one point costs to evaluate, relative to the others (``cost(**point)``, the
    #: point's sampled values by name -> a positive number), or None (all alike). The
    #: points then go to the workers most expensive first (longest processing time first):
    #: the last batches are short, so no worker waits long for the other at the end. The
    #: table is the same in any order
    cost: Callable | None = None
