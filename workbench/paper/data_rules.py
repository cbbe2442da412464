"""Rules on a paper's notebook and claims table."""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable

import pandas as pd

from workbench.claims import SOURCES
from workbench.notebook_hooks import CANONICAL_METADATA

MAX_CELL_LINES = 15  # thin cells that call the library
#: the ways of showing claims or exercises other than the shared helpers
OTHER_WAYS = ("check_claims(", "readable(", "load_claims(", "exercise(", "Exercise(")
CLAIM_COLUMNS = ("id", "figure", "quantity", "value", "source", "tolerance", "where", "expect")
#: the expectations workbench.claims.check_claims reads (its module docstring): agree,
#: disagree (with workbench_value), undetermined (a run behind the row is not stationary)
EXPECTS = ("agree", "disagree", "undetermined")
#: a quote or a place that is not the paper's words yet: TODO, TBD, ..., lorem ipsum, <...>
PLACEHOLDER = re.compile(
    r"\b(todo|tbd|tba|fixme|xxx|lorem|ipsum)\b|^[\W_]*$|^<[^>]*>$|^(quote|n/?a|none|nan|"
    r"placeholder|the paper's words)$",
    re.IGNORECASE,
)
MIN_QUOTE_CHARS = 8


def placeholder(text, min_chars: int = MIN_QUOTE_CHARS) -> str:
    """Why ``text`` is no quote ("" when it is one): empty, too short, or a placeholder."""
    text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
    text = text.strip()
    if not text:
        return "empty"
    if PLACEHOLDER.search(text):
        return f"a placeholder ({text[:40]!r})"
    if len(text) < min_chars:
        return f"too short to be the paper's words ({text!r})"
    return ""


def notebook_cells(target):
    """(cells, problem): the notebook's cells, or why there is none."""
    if target.notebook is None:
        return None, "no notebook: register the paper or pass notebook="
    if not target.notebook.exists():
        return None, f"no notebook at {target.notebook}"
    try:
        return json.loads(target.notebook.read_text())["cells"], ""
    except (ValueError, KeyError) as err:
        return None, f"not a notebook: {err}"


def cell_source(cell) -> str:
    """A cell's source as one string (a notebook file may store it as a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def code_cells(cells) -> list[tuple[int, str]]:
    return [(i, cell_source(c)) for i, c in enumerate(cells) if c.get("cell_type") == "code"]


def notebook_parameters(target):
    """One code cell tagged ``parameters`` of literal assignments (QUICK and SEED among
    them), each used by a later cell, so ``papermill -p SEED 3`` changes what runs."""
    cells, problem = notebook_cells(target)
    where = target.rel(target.notebook) if target.notebook else target.package
    if cells is None:
        yield where, problem
        return
    tagged = [
        i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", [])
    ]
    if len(tagged) != 1:
        yield where, f"{len(tagged)} cells tagged 'parameters' (one is needed)"
        return
    cell = cells[tagged[0]]
    if cell.get("cell_type") != "code":
        yield where, "the 'parameters' cell is not a code cell"
        return
    names = []
    for stmt in ast.parse(cell_source(cell)).body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            yield f"{where} cell {tagged[0]}", "the parameters cell only assigns literals"
            continue
        try:
            ast.literal_eval(stmt.value)
        except ValueError:
            yield f"{where} cell {tagged[0]}", f"{stmt.targets[0].id} is not a literal"
        names.append(stmt.targets[0].id)
    if not {"QUICK", "SEED"} <= set(names):
        yield (
            f"{where} cell {tagged[0]}",
            f"parameters lack {sorted({'QUICK', 'SEED'} - set(names))}",
        )
    later = "\n".join(src for i, src in code_cells(cells) if i > tagged[0])
    for name in names:
        if not re.search(rf"\b{name}\b", later):
            yield f"{where} cell {tagged[0]}", f"parameter {name} is never used"


def notebook_saved_clean(target):
    """Saved as the Lab save hook writes it: no outputs, no execution counts, the canonical
    kernelspec and language_info (workbench.notebook_hooks)."""
    cells, problem = notebook_cells(target)
    if cells is None:
        return  # notebook.parameters names it
    where = target.rel(target.notebook)
    for i, c in enumerate(cells):
        if c.get("cell_type") == "code" and (c.get("outputs") or c.get("execution_count")):
            yield f"{where} cell {i}", "saved with outputs or an execution count"
    meta = json.loads(target.notebook.read_text()).get("metadata", {})
    for key, value in CANONICAL_METADATA.items():
        if meta.get(key) != value:
            yield where, f"metadata {key} is {meta.get(key)!r}, not the canonical {value!r}"


def notebook_thin(target):
    """Code cells of at most 15 lines: the logic lives in the package."""
    cells, _ = notebook_cells(target)
    for i, src in code_cells(cells or []):
        n = len(src.rstrip().splitlines())
        if n > MAX_CELL_LINES:
            yield f"{target.rel(target.notebook)} cell {i}", f"{n} lines (at most {MAX_CELL_LINES})"


def notebook_one_way(target):
    """Claims shown by ``claims_table(id)``, exercises by ``show(id, n)``, nothing else."""
    cells, _ = notebook_cells(target)
    if cells is None:
        return
    where = target.rel(target.notebook)
    text = "\n".join(src for _, src in code_cells(cells))
    for other in OTHER_WAYS:
        if other in text:
            yield where, f"calls {other}…): show claims and exercises with the shared helpers"
    pid = target.paper_id
    if not re.search(rf"claims_table\(\s*[\"']{re.escape(pid)}[\"']", text):
        yield where, f'never shows its claims with claims_table("{pid}")'
    if not re.search(rf"show\(\s*[\"']{re.escape(pid)}[\"']\s*,\s*1\b", text):
        yield where, f'never poses exercise 1 with show("{pid}", 1)'


def _claims(target):
    if target.claims_csv is None:
        return None, "no claims table: register the paper or pass claims_csv="
    if not target.claims_csv.exists():
        return None, f"no claims table at {target.claims_csv}"
    try:
        return pd.read_csv(target.claims_csv, comment="#", skipinitialspace=True), ""
    except (ValueError, pd.errors.ParserError) as err:
        return None, f"unreadable: {err}"


def claims_table(target):
    """The claims CSV has the shared columns, a source in {paper, workbench}, an expect in
    {agree, disagree, undetermined}, and exactly the ids of CLAIMS."""
    frame, problem = _claims(target)
    if frame is None:
        yield target.package, problem
        return
    where = target.rel(target.claims_csv)
    missing = [c for c in CLAIM_COLUMNS if c not in frame]
    if missing:
        yield where, f"lacks the columns {missing}"
        return
    if frame["id"].duplicated().any():
        yield where, f"duplicate ids {sorted(frame['id'][frame['id'].duplicated()])}"
    for col, allowed in (("source", set(SOURCES)), ("expect", set(EXPECTS))):
        bad = sorted(set(frame[col]) - allowed)
        if bad:
            yield where, f"{col} must be one of {sorted(allowed)}, got {bad}"
    tolerance = pd.to_numeric(frame["tolerance"], errors="coerce")
    bad = sorted(frame["id"][~(tolerance >= 0)])
    if bad:
        yield where, f"tolerance must be a number >= 0, not in rows {bad}"
    for rows, needed, why in (
        (frame["expect"] == "disagree", ("workbench_value", "note"), "a disagree row"),
        (frame["source"] == "workbench", ("note",), "a workbench-own value"),
    ):
        for col in needed:
            empty = frame[rows & (frame[col].isna() if col in frame else True)]
            if len(empty):
                yield (
                    where,
                    f"{why} needs '{col}' (it says what the workbench found): "
                    + str(sorted(empty["id"])),
                )
    claims = target.declared("claims", "CLAIMS")
    if isinstance(claims, dict):
        ids = set(frame["id"])
        if ids - set(claims):
            yield where, f"rows without a CLAIMS measure: {sorted(ids - set(claims))}"
        if set(claims) - ids:
            yield where, f"CLAIMS without a row: {sorted(set(claims) - ids)}"
    atlas = target.declared("claims", "ATLAS")
    unknown = sorted(set(getattr(atlas, "claims", ())) - set(frame["id"]))
    if unknown:
        yield where, f"ATLAS names claims not in the table: {unknown}"


def claims_quotes(target):
    """Every ``source=paper`` row quotes the paper (``quote``, verbatim) and says where."""
    frame, _ = _claims(target)
    if frame is None or "source" not in frame:
        return
    where = target.rel(target.claims_csv)
    paper = frame[frame["source"] == "paper"]
    if len(paper) and "quote" not in frame:
        yield where, "source=paper rows but no 'quote' column"
        return
    for _, row in paper.iterrows():
        why = placeholder(row.get("quote"))
        if why:
            yield f"{where}: {row['id']}", f"the quote of a source=paper row is {why}"
        why = placeholder(row.get("where"), min_chars=1)
        if why:
            yield f"{where}: {row['id']}", f"'where' of a source=paper row is {why}"


RULES: dict[str, Callable] = {
    "notebook.parameters": notebook_parameters,
    "notebook.clean": notebook_saved_clean,
    "notebook.thin": notebook_thin,
    "notebook.one_way": notebook_one_way,
    "claims.table": claims_table,
    "claims.quotes": claims_quotes,
}
