"""``python -m workbench new-paper NAME``: write a new paper package that keeps the contract.

The package is a toy M/M/1 queue (a numba kernel for Lindley's recursion, its analytic mean
1/(μ − λ), a parameter table, ``simulate`` / ``simulate_to_precision`` on the shared output
analysis and the shared precision loop, a figure, a slider view, one claim with its ATLAS,
three exercises, fuzz examples), with its notebook (saved clean, a ``parameters`` cell), its
claims table, its tests and the kernel's slow twin. It passes
:func:`workbench.paper.check_paper` and the suite as written; replace the model and keep the
skeleton.

Into the repository (default): ``workbench/NAME/`` (with ``paper.json``, its registry line:
the registry discovers it, nothing to paste), ``notebooks/<id>_NAME.ipynb``,
``data/claims/<id>.csv``, ``tests/test_NAME.py`` and ``tests/naive_NAME.py``. With ``--out
DIR``: a distribution of its own, ``DIR/pyproject.toml`` naming the package ``NAME`` in the
entry-point group ``workbench.papers``, the package ``DIR/NAME/`` with its ``paper.json``,
and its notebook, claims table, tests and twin beside it; ``python -m pip install -e DIR``
registers it (:func:`install_command`), and nothing else does.

A name that is a Python keyword, a module of the standard library, an installed top-level
package or a module of the workbench is refused (:class:`ScaffoldError`), and so is a taken
paper id or a file that exists; nothing is written then, and nothing is left behind when
writing fails.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import keyword
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat

from workbench.notebook_hooks import CANONICAL_METADATA
from workbench.registry import ARENA, PAPER_ID, PAPERS, ROOT
from workbench.scaffold import files, package
from workbench.validation import ParameterError, refusal

__all__ = ["new_paper", "check_name", "install_command", "ScaffoldError"]

NAME = re.compile(r"[a-z][a-z0-9_]*")
MAX_TITLE = 300
CITATION = "<authors, venue, year>"


class ScaffoldError(ParameterError):
    """``new-paper`` refuses a name, an id, a title or a place: nothing was written."""


def _installed_top_level() -> set[str]:
    try:
        return set(importlib.metadata.packages_distributions())
    except Exception:  # a broken distribution's metadata: find_spec still looks
        return set()


def check_name(name, *, in_repository: bool = True) -> str:
    """``name`` as a new paper package's name, or :class:`ScaffoldError` saying why not: a
    lowercase identifier that is no Python keyword, no module of the standard library, no
    installed top-level package (``numpy``, ``workbench``) and, in the repository, no module
    of ``workbench`` (``erlang``)."""
    if not (isinstance(name, str) and NAME.fullmatch(name)):
        what = (
            "a lowercase identifier (a letter, then letters, digits or underscores: "
            "queueing, p6demo)"
        )
        raise refusal("new_paper", "name", what, name, ScaffoldError)
    why = ""
    if keyword.iskeyword(name):
        why = "a Python keyword: no module can have it"
    elif name in sys.stdlib_module_names:
        why = "a module of the standard library: the package would shadow it"
    elif name in _installed_top_level() or importlib.util.find_spec(name) is not None:
        why = "an installed or importable top-level package: the package would shadow it"
    elif in_repository and (ROOT / "workbench" / name).exists():
        why = "a module or folder of workbench already"
    elif in_repository and importlib.util.find_spec(f"workbench.{name}") is not None:
        why = "a module of workbench already"
    if why:
        raise ScaffoldError(f"The 'name' parameter of new_paper cannot be {name!r}: {why}.")
    return name


def _check_title(title, name: str) -> str:
    if not isinstance(title, str):
        raise refusal("new_paper", "title", "a string", title, ScaffoldError)
    title = " ".join(title.split())  # one line: newlines and tabs become spaces
    if len(title) > MAX_TITLE:
        raise refusal(
            "new_paper",
            "title",
            f"at most {MAX_TITLE} characters",
            got=f"{len(title)}",
            error=ScaffoldError,
        )
    return title or f"{name} (a new paper)"


def _check_id(paper_id, default: str) -> str:
    if paper_id is None:
        return default
    if not (isinstance(paper_id, str) and PAPER_ID.fullmatch(paper_id)):
        what = "a letter followed by letters, digits or underscores (p6)"
        raise refusal("new_paper", "paper_id", what, paper_id, ScaffoldError)
    return paper_id


def _docstring_text(title: str) -> str:
    """The title as the text of a Python docstring: backslashes and quotes escaped, wrapped
    to the line length ruff checks."""
    safe = title.replace("\\", "\\\\").replace('"', '\\"')
    return "\n".join(textwrap.wrap(safe, width=92, break_on_hyphens=False))


def _fill(text: str, pkg: str, pid: str, name: str, title: str = "") -> str:
    return (
        text.replace("__PKG__", pkg)
        .replace("__PID__", pid)
        .replace("__NAME__", name)
        .replace("__TITLE__", title)
    )


def _notebook(pkg: str, pid: str, name: str, title: str) -> str:
    nb = nbformat.v4.new_notebook(metadata={k: dict(v) for k, v in CANONICAL_METADATA.items()})
    for i, (kind, source, tags) in enumerate(files.CELLS):
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        # markdown cells take the title as it is (nbformat escapes it in the JSON)
        cell = make(_fill(source, pkg, pid, name, title), id=f"cell-{i:02d}")
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    return nbformat.writes(nb) + "\n"


def _ruff() -> list[str] | None:
    """How to run ruff: on PATH, beside this interpreter (a venv not activated), or as a
    module; None when it is not installed."""
    found = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    return None


def _tidy(paths, settings: Path) -> None:
    """Sort the imports and format the written files with the ruff settings of
    ``settings`` (the repository's, or the new distribution's own), when ruff is installed:
    the order depends on the package's name and on what is first-party there."""
    ruff = _ruff()
    if ruff is None:
        return
    # no cache: nothing but the paper's files is left in its folder
    config = ["--no-cache", *(["--config", str(settings)] if settings.exists() else [])]
    names = [str(p) for p in paths]
    # run from the settings' folder: ruff finds first-party packages (src) from there
    quiet = {"check": False, "capture_output": True, "cwd": settings.parent}
    subprocess.run([*ruff, "check", "-q", "--fix", "--select", "I", *config, *names], **quiet)
    subprocess.run([*ruff, "format", "-q", *config, *names], **quiet)


def _next_id() -> str:
    taken = {int(m.group(1)) for p in PAPERS for m in [re.fullmatch(r"p(\d+)", p)] if m}
    return f"p{max(taken, default=0) + 1}"


def _layout(name: str, out, paper_id) -> tuple[Path, str, str, dict]:
    if out is None:
        pid = _check_id(paper_id, _next_id())
        where = {
            "package": ROOT / "workbench" / name,
            "notebook": ROOT / "notebooks" / f"{pid}_{name}.ipynb",
            "claims": ROOT / "data" / "claims" / f"{pid}.csv",
            "tests": ROOT / "tests" / f"test_{name}.py",
            "twin": ROOT / "tests" / f"naive_{name}.py",
        }
        where["registry"] = where["package"] / "paper.json"
        return ROOT, f"workbench.{name}", pid, where
    if not isinstance(out, (str, Path)) or not str(out):
        raise refusal("new_paper", "out", "a folder path", out, ScaffoldError)
    base = Path(out).resolve()
    if base.exists() and not base.is_dir():
        raise ScaffoldError(f"The 'out' parameter of new_paper is a file, not a folder: {base}")
    where = {
        "package": base / name,
        "notebook": base / f"{name}.ipynb",
        "claims": base / f"{name}.csv",
        "tests": base / f"test_{name}.py",
        "twin": base / f"naive_{name}.py",
        "registry": base / name / "paper.json",
        "project": base / "pyproject.toml",
    }
    return base, name, _check_id(paper_id, name), where


def _entry(pid: str, name: str, title: str, notebook: str, claims: str) -> dict:
    """The paper's line in its ``paper.json``: paths relative to the repository (in it) or
    to the package's parent folder (outside; the package comes from the entry point)."""
    entry = {"id": pid, "topic": name, "title": title, "citation": CITATION}
    entry["notebook"] = notebook
    entry["order"] = max((p.order for p in PAPERS.values()), default=0) + 1
    entry["teaches"] = "<what the paper teaches>"
    entry["claims_csv"] = claims
    return entry


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: JSON's escapes are TOML's, and DEL, which JSON
    leaves as it is, must be escaped in TOML."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def install_command(out) -> str:
    """The one step that registers a paper written with ``--out``: an editable install of
    its folder by this interpreter's pip (editable, so that the notebook and claims table
    beside the package are found; without build isolation when setuptools is here, so no
    download is needed)."""
    if not isinstance(out, (str, Path)) or not str(out):
        raise refusal("install_command", "out", "a folder path", out, ScaffoldError)
    isolation = " --no-build-isolation" if importlib.util.find_spec("setuptools") else ""
    python, folder = shlex.quote(sys.executable), shlex.quote(str(Path(out).resolve()))
    return f"{python} -m pip install{isolation} -e {folder}"


def new_paper(name: str, *, out=None, paper_id: str | None = None, title: str = "") -> dict:
    """Write the package ``name``, its notebook, claims table, tests and slow twin, and its
    registry line; return the paths written (role -> path).

    ``out`` None: into the repository (package ``workbench.<name>``, registered by
    ``workbench/<name>/paper.json``); else into ``out`` (package ``<name>`` with its
    ``paper.json``, and ``<out>/pyproject.toml`` declaring its entry point: registered once
    :func:`install_command` has installed the folder). Everything is checked before
    anything is written (:class:`ScaffoldError`); existing files are never overwritten; a
    failure while writing removes what was written.
    """
    name = check_name(name, in_repository=out is None)
    base, pkg, pid, where = _layout(name, out, paper_id)
    title = _check_title(title, name)
    if pid in PAPERS or pid == ARENA.id:
        taken = ARENA.package if pid == ARENA.id else PAPERS[pid].package
        raise ScaffoldError(f"The paper id {pid!r} of new_paper is taken ({taken}).")
    taken = [str(p) for p in where.values() if p.exists()]
    if taken:
        raise ScaffoldError(f"new_paper would overwrite {taken}: nothing written.")
    notebook = str(where["notebook"].relative_to(base))
    claims = str(where["claims"].relative_to(base))
    created: list[Path] = []
    try:
        _write(where, created, pkg, pid, name, title)
        entry = _entry(pid, name, title, notebook, claims)
        where["registry"].write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n")
        created.append(where["registry"])
        if out is None:  # last: nothing can fail after it
            _join_papers_layer(name)
    except BaseException:
        for path in reversed(created):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        raise
    return where


#: the line above the papers' layer of the import-linter contract in pyproject.toml
PAPERS_LAYER = "# the papers: none imports another"


def _join_papers_layer(name: str) -> bool:
    """Put ``name`` in the papers' layer of ``[tool.importlinter]`` in the repository's
    ``pyproject.toml`` (``lint-imports`` checks the layers exhaustively, so a package outside
    every layer fails it); False when the repository has no such layer."""
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        return False
    text = pyproject.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    marks = [i for i, line in enumerate(lines) if line.strip() == PAPERS_LAYER]
    if len(marks) != 1 or marks[0] + 1 >= len(lines):
        return False
    layer = lines[marks[0] + 1]
    found = re.fullmatch(r'(\s*")([^"]*)(",?\s*)', layer)
    if found is None:
        return False
    members = [m.strip() for m in found.group(2).split("|")]
    if name not in members:
        lines[marks[0] + 1] = f"{found.group(1)}{found.group(2)} | {name}{found.group(3)}"
        pyproject.write_text("".join(lines), encoding="utf-8")
    return True


def _write(where: dict, created: list, pkg: str, pid: str, name: str, title: str) -> None:
    """Write every file, recording each new path in ``created`` (for the clean-up)."""
    for role in ("package", "notebook", "claims", "tests", "twin"):
        for folder in reversed(where[role].parents):
            if not folder.exists():
                folder.mkdir()
                created.append(folder)
    if "project" in where:  # first: its ruff settings format the rest
        project = _fill(files.PYPROJECT, pkg, pid, name)
        where["project"].write_text(project.replace("__DESCRIPTION__", _toml_string(title)))
        created.append(where["project"])
    where["package"].mkdir()
    created.append(where["package"])
    for stem, text in package.PARTS.items():
        (where["package"] / f"{stem}.py").write_text(
            _fill(text, pkg, pid, name, _docstring_text(title))
        )
    for role, text in (
        ("notebook", _notebook(pkg, pid, name, title)),
        ("claims", _fill(files.CLAIMS_CSV, pkg, pid, name)),
        ("tests", _fill(files.TESTS, pkg, pid, name)),
        ("twin", _fill(files.TWIN, pkg, pid, name)),
    ):
        where[role].write_text(text)
        created.append(where[role])
    settings = where.get("project", ROOT / "pyproject.toml")
    _tidy([where["package"], where["notebook"], where["tests"], where["twin"]], settings)
