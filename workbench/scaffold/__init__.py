"""``python -m workbench new-paper NAME``: write a new paper package that keeps the contract.

The package is a toy M/M/1 queue (a numba kernel for Lindley's recursion, its analytic mean
1/(μ − λ), a parameter table, ``simulate`` / ``simulate_to_precision`` on the shared output
analysis and the shared precision loop, a figure, a slider view, one claim with its ATLAS,
one exercise, fuzz examples), with its notebook (saved clean, a ``parameters`` cell), its
claims table and its tests. It passes
:func:`workbench.paper.check_paper` as written; replace the model and keep the skeleton.

Into the repository (default): ``workbench/NAME/``, ``notebooks/<id>_NAME.ipynb``,
``data/claims/<id>.csv``, ``tests/test_NAME.py``; then add the printed ``Paper(...)`` line to
``workbench/registry.py``. With ``--out DIR``: a package ``NAME`` importable from ``DIR``, its
notebook, claims table and tests beside it, and ``DIR/papers.json`` (its registry line, read
when ``WORKBENCH_PAPERS`` names it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat

from workbench.notebook_hooks import CANONICAL_METADATA
from workbench.registry import PAPERS, ROOT
from workbench.scaffold import files, package
from workbench.validation import ParameterError

__all__ = ["new_paper", "registry_line"]


def _fill(text: str, pkg: str, pid: str, title: str) -> str:
    return text.replace("__PKG__", pkg).replace("__PID__", pid).replace("__TITLE__", title)


def _notebook(pkg: str, pid: str, title: str) -> str:
    nb = nbformat.v4.new_notebook(metadata={k: dict(v) for k, v in CANONICAL_METADATA.items()})
    for i, (kind, source, tags) in enumerate(files.CELLS):
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        cell = make(_fill(source, pkg, pid, title), id=f"cell-{i:02d}")
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    return nbformat.writes(nb) + "\n"


def _tidy(paths) -> None:
    """Sort the imports and format the written files with the repository's ruff settings
    (the order depends on the package's name), when ruff is installed."""
    ruff = shutil.which("ruff")
    if ruff is None:
        return
    settings = ROOT / "pyproject.toml"
    config = ["--config", str(settings)] if settings.exists() else []
    names = [str(p) for p in paths]
    subprocess.run([ruff, "check", "-q", "--fix", "--select", "I", *config, *names], check=False)
    subprocess.run([ruff, "format", "-q", *config, *names], check=False)


def _next_id() -> str:
    taken = {int(m.group(1)) for p in PAPERS for m in [re.fullmatch(r"p(\d+)", p)] if m}
    return f"p{max(taken, default=0) + 1}"


def registry_line(pid: str, name: str, title: str, notebook: str) -> str:
    """The ``Paper(...)`` entry to add to ``workbench/registry.py``."""
    return (
        f'Paper(\n    "{pid}",\n    "{name}",\n    "{title}",\n    "<authors, venue, year>",\n'
        f'    "{notebook}",\n    {len(PAPERS) + 1},\n    "<what the paper teaches>",\n),'
    )


def new_paper(name: str, *, out=None, paper_id: str | None = None, title: str = "") -> dict:
    """Write the package ``name`` and its notebook, claims table and tests; the paths written.

    ``out`` None: into the repository (package ``workbench.<name>``); else into ``out``
    (package ``<name>``, plus ``papers.json``). Existing files are never overwritten.
    """
    if not (isinstance(name, str) and re.fullmatch(r"[a-z][a-z0-9_]*", name)):
        raise ParameterError(f"new_paper: NAME must be a lowercase identifier, got {name!r}")
    if out is None:
        base, pkg, pid = ROOT, f"workbench.{name}", paper_id or _next_id()
        where = {
            "package": ROOT / "workbench" / name,
            "notebook": ROOT / "notebooks" / f"{pid}_{name}.ipynb",
            "claims": ROOT / "data" / "claims" / f"{pid}.csv",
            "tests": ROOT / "tests" / f"test_{name}.py",
        }
    else:
        base, pkg, pid = Path(out).resolve(), name, paper_id or name
        where = {
            "package": base / name,
            "notebook": base / f"{name}.ipynb",
            "claims": base / f"{name}.csv",
            "tests": base / f"test_{name}.py",
            "registry": base / "papers.json",
        }
    if pid in PAPERS:
        raise ParameterError(f"new_paper: paper id {pid!r} is taken ({PAPERS[pid].package})")
    taken = [str(p) for p in where.values() if p.exists()]
    if taken:
        raise ParameterError(f"new_paper: would overwrite {taken}")
    title = title or f"{name} (a new paper)"
    where["package"].mkdir(parents=True)
    for stem, text in package.PARTS.items():
        (where["package"] / f"{stem}.py").write_text(_fill(text, pkg, pid, title))
    for role in ("notebook", "claims", "tests"):
        where[role].parent.mkdir(parents=True, exist_ok=True)
    where["notebook"].write_text(_notebook(pkg, pid, title))
    where["claims"].write_text(_fill(files.CLAIMS_CSV, pkg, pid, title))
    where["tests"].write_text(_fill(files.TESTS, pkg, pid, title))
    _tidy([where["package"], where["notebook"], where["tests"]])
    notebook = str(where["notebook"].relative_to(base))
    if out is not None:
        entry = {
            "id": pid,
            "topic": name,
            "title": title,
            "citation": "<authors, venue, year>",
            "notebook": notebook,
            "package": pkg,
            "claims_csv": where["claims"].name,
        }
        where["registry"].write_text(json.dumps([entry], indent=1, ensure_ascii=False) + "\n")
    where["registry_line"] = registry_line(pid, name, title, notebook)
    return where
