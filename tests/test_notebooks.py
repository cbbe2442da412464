"""Every paper notebook runs headless top to bottom, is committed clean, and stays thin.

The notebooks folder is ``notebooks/`` (``WB_NOTEBOOKS_DIR`` overrides it). Each notebook is
executed with papermill on the venv's ``python3`` kernel, with ``notebooks/`` as working
directory, as the course site executes it (:mod:`workbench.site.execute`, cached by a digest
of the code); any cell error fails the test with the cell's traceback.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

from workbench.registry import PAPERS

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = Path(os.environ.get("WB_NOTEBOOKS_DIR", REPO / "notebooks")).resolve()
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
MAX_CELL_LINES = 15  # project rule: thin cells that call the library
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# a cell that draws one of the paper's static figures: it must leave an image, never the
# text "<Figure size 860x400 with 1 Axes>" (what a bare Figure shows without a PNG formatter)
STATIC_FIGURE_CELL = re.compile(r"FIGURES\[|\.plot\(|\bplot_\w+\(")


def static_figure_cells(nb) -> list[int]:
    """Indices of the code cells that draw a static figure (not a slider view)."""
    return [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and STATIC_FIGURE_CELL.search(c.source)
    ]


def figure_problems(nb) -> list[str]:
    """Static-figure cells without an image, and any figure shown as bare text."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = data.get("text/plain", "")
            if str(text).startswith("<Figure size") and "image/png" not in data:
                problems.append(f"cell {i} shows {text!r} instead of an image")
    for i in static_figure_cells(nb):
        outs = nb.cells[i].get("outputs", [])
        if not any("image/png" in o.get("data", {}) for o in outs):
            problems.append(f"cell {i} ({nb.cells[i].source.splitlines()[0]!r}) drew no image")
    return problems


def _ids(paths):
    return [p.stem for p in paths]


def _code_cells(path: Path):
    nb = nbformat.read(path, as_version=4)
    return nb, [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def test_notebooks_folder_is_not_empty():
    assert NOTEBOOKS, (
        f"no *.ipynb in {NOTEBOOKS_DIR}: every paper needs its notebook, and an empty "
        "folder would silently skip the notebook and browser tests"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_is_committed_without_outputs(path):
    _, cells = _code_cells(path)
    dirty = [
        f"cell {i} ({len(c.outputs)} outputs, execution_count={c.execution_count})"
        for i, c in cells
        if c.outputs or c.execution_count is not None
    ]
    assert not dirty, (
        f"{path.name} is committed with outputs; clear them "
        f"(jupyter nbconvert --clear-output --inplace {path.name}): {', '.join(dirty)}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_cells_are_short(path):
    _, cells = _code_cells(path)
    long_cells = [
        f"cell {i} has {n} lines"
        for i, c in cells
        if (n := len(c.source.rstrip().splitlines())) > MAX_CELL_LINES
    ]
    assert not long_cells, (
        f"{path.name}: code cells must be at most {MAX_CELL_LINES} lines (thin cells calling "
        f"the workbench library; move the logic into the package): {', '.join(long_cells)}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_executes_without_error(path):
    """Run through papermill at its defaults, exactly as the course site runs it (slider
    views drawn at their defaults as pictures): the executed copy is cached by a digest of
    the code, so the site build (tests/test_site.py) reuses it instead of a second run.
    The live widgets are driven by the browser tests."""
    from papermill.exceptions import PapermillExecutionError

    from workbench.site.execute import execute_cached

    try:
        executed = execute_cached(path, quick=True, seed=0, log=lambda *_: None)
    except PapermillExecutionError as err:
        pytest.fail(f"{path.name} failed while executing:\n{ANSI.sub('', str(err))}", pytrace=False)
    nb = nbformat.read(executed, as_version=4)
    problems = figure_problems(nb)
    assert not problems, f"{path.name}: figures that did not render: " + "; ".join(problems)
    paper = "arena" if path.stem == "arena" else path.name[:2]
    if re.fullmatch(r"p\d|arena", paper):  # no output, table or widget shows an answer early
        from exercise_leaks import leaks_in, shown_texts

        leaks = leaks_in(nb, paper, shown_texts(nb))
        assert not leaks, f"{path.name}: answers shown before their exercise: " + "; ".join(leaks)


# every registered paper's notebook (a new paper's too, without editing this file)
PAPER_NOTEBOOKS = [
    p for p in NOTEBOOKS if p.name in {q.notebook_path.name for q in PAPERS.values()}
]


@pytest.mark.parametrize("path", PAPER_NOTEBOOKS, ids=_ids(PAPER_NOTEBOOKS))
def test_notebook_takes_papermill_parameters(path):
    """One cell tagged ``parameters`` of literal assignments (QUICK, SEED, …), used by the
    cells after it, so ``papermill -p QUICK False`` changes what runs."""
    import ast

    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    nb = load_notebook_node(str(path))  # papermill's loader gives every cell its tags
    tagged = [
        i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])
    ]
    assert len(tagged) == 1, f"{path.name}: {len(tagged)} cells tagged 'parameters'"
    cell = nb.cells[tagged[0]]
    assert cell.cell_type == "code"
    names = {}
    for stmt in ast.parse(cell.source).body:
        assert isinstance(stmt, ast.Assign), f"{path.name}: parameters cell assigns only"
        names[stmt.targets[0].id] = ast.literal_eval(stmt.value)
    assert {"QUICK", "SEED"} <= set(names), f"{path.name}: parameters lack QUICK or SEED"
    later = "\n".join(c.source for c in nb.cells[tagged[0] + 1 :] if c.cell_type == "code")
    for name in names:
        assert re.search(rf"\b{name}\b", later), f"{path.name}: parameter {name} is never used"
    run = parameterize_notebook(nb, {"SEED": 3, "QUICK": False})
    injected = run.cells[tagged[0] + 1]
    assert "injected-parameters" in injected.metadata.get("tags", [])
    assert "SEED = 3" in injected.source and "QUICK = False" in injected.source
