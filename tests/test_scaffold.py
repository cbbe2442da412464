"""``python -m workbench new-paper`` writes a paper that works with no hand edit: check_paper
finds nothing, ruff finds nothing, its notebook runs headless, its own tests pass; in the
repository it registers itself, outside it ``pip install -e`` registers it (its entry point).
Bad names, ids and titles are refused, and nothing is left behind. Timed, step by step
(docs/adding-a-paper.md)."""

from __future__ import annotations

import ast
import json
import os
import shlex
import subprocess
import sys
import sysconfig
import time
import tomllib
import venv
from pathlib import Path

import nbformat
import pytest

import workbench.scaffold as scaffold
from workbench.registry import ENTRY_POINTS, discover
from workbench.scaffold import ScaffoldError, new_paper

REPO = Path(__file__).resolve().parents[1]


def _env() -> dict:
    """The repository's workbench first; the paper itself only from its installation."""
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("WORKBENCH_PAPERS", None)
    env["PYTHONPATH"] = str(REPO)
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba_cache"))
    return env


def _environment(folder: Path) -> Path:
    """A throwaway environment that sees this one's packages (a ``.pth`` line naming its
    site-packages, as ``--system-site-packages`` does for a base interpreter), so that pip
    installs the paper there and never into the environment others share. Its python."""
    venv.create(folder, with_pip=False, symlinks=True)
    python = folder / "bin" / "python"
    ask = [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    site = Path(subprocess.run(ask, capture_output=True, text=True, check=True).stdout.strip())
    (site / "_shared_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _run(args, env, cwd, python=sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900
    )


#: executes a notebook with the interpreter it runs under (the kernel is that interpreter):
#: prints the number of images drawn
EXECUTE = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3").execute()
print(sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
          for o in c.outputs))
"""


def test_a_new_paper_installed_by_pip_passes_check_paper_its_notebook_and_its_tests(tmp_path):
    """The outside paper's one registration step, as new-paper prints it, then every check
    with the interpreter it was installed for; nothing but the installation puts the
    package on that interpreter's path."""
    out, env, timings = tmp_path / "paper", _env(), {}
    t0 = time.perf_counter()
    title = 'Redundancy "done right": a C:\\path, """quotes""" and a title long enough to wrap'
    made = _run(
        ["-m", "workbench", "new-paper", "p6demo", "--out", str(out), "--title", title], env, REPO
    )
    assert made.returncode == 0, made.stderr
    timings["scaffold"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    ruff = scaffold._ruff()
    assert ruff is not None, "ruff is a test dependency (pyproject.toml, [test])"
    for args in (["check", "."], ["format", "--check", "."]):  # its own settings, as a user
        linted = subprocess.run([*ruff, *args], cwd=out, capture_output=True, text=True)
        assert linted.returncode == 0, linted.stdout + linted.stderr
    timings["ruff"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    python = _environment(tmp_path / "env")
    (printed,) = [line for line in made.stdout.splitlines() if " -m pip install " in line]
    step = shlex.split(printed)
    assert step[0] == sys.executable and step[-2:] == ["-e", str(out)], printed
    installed = _run(step[1:], env, tmp_path, python)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = _run(["-m", "workbench", "papers"], env, tmp_path, python)
    assert "p6demo" in listed.stdout, listed.stdout + listed.stderr
    assert "p6demo" not in _run(["-m", "workbench", "papers"], env, tmp_path).stdout
    timings["install"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    checked = _run(["-m", "workbench", "check-paper", "p6demo"], env, REPO, python)
    assert checked.returncode == 0 and "no departure" in checked.stdout, checked.stdout
    timings["check_paper"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    executed = _run(["-c", EXECUTE, str(out / "p6demo.ipynb")], env, out, python)
    assert executed.returncode == 0, executed.stderr[-3000:]
    assert int(executed.stdout.split()[-1]) > 0, "the notebook's figure cell drew no image"
    timings["notebook"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_p6demo.py"]
    tests = _run(args, env, out, python)
    assert tests.returncode == 0, tests.stdout[-3000:]
    timings["its tests"] = time.perf_counter() - t0
    total = sum(timings.values())
    print(
        "new paper, scaffold to green: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        + f"; total {total:.1f} s"
    )


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("class", "a Python keyword"),
        ("json", "a module of the standard library"),
        ("numpy", "an installed or importable top-level package"),
        ("workbench", "an installed or importable top-level package"),
        ("Bad-Name", "must be a lowercase identifier"),
        ("", "must be a lowercase identifier"),
        (5, "must be a lowercase identifier"),
    ],
)
def test_a_bad_name_is_refused_by_name_and_nothing_is_written(tmp_path, name, why):
    out = tmp_path / "out"
    with pytest.raises(ScaffoldError, match=f"'name' parameter of new_paper.*{why}"):
        new_paper(name, out=out)
    assert not out.exists()


def test_a_workbench_module_a_taken_id_or_a_wrong_title_is_refused(tmp_path, monkeypatch):
    with pytest.raises(ScaffoldError, match="cannot be 'erlang': a module of workbench"):
        new_paper("erlang")
    out = tmp_path / "out"
    with pytest.raises(ScaffoldError, match="paper id 'p4' of new_paper is taken"):
        new_paper("toyname", out=out, paper_id="p4")
    with pytest.raises(ScaffoldError, match="'paper_id' parameter of new_paper"):
        new_paper("toyname", out=out, paper_id="p 6")
    with pytest.raises(ScaffoldError, match="'title' parameter of new_paper must be a string"):
        new_paper("toyname", out=out, title=["a", "list"])
    assert not out.exists()
    new_paper("toyname", out=out)  # the retry is not blocked
    with pytest.raises(ScaffoldError, match="overwrite"):
        new_paper("toyname", out=out)


def test_a_failure_while_writing_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(paths, settings):
        raise OSError("disk full")

    monkeypatch.setattr(scaffold, "_tidy", broken)
    with pytest.raises(OSError, match="disk full"):
        new_paper("halfway", out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    monkeypatch.setattr(scaffold, "ROOT", tmp_path / "repo")
    (tmp_path / "repo" / "tests").mkdir(parents=True)
    with pytest.raises(OSError, match="disk full"):
        new_paper("halfway")
    left = sorted(str(p.relative_to(tmp_path / "repo")) for p in (tmp_path / "repo").rglob("*"))
    assert left == ["tests"], left


def test_the_title_is_escaped_where_it_is_pasted(tmp_path):
    title = 'A "quoted" title\nwith C:\\new\\table, """triple quotes""", <b>markup</b>, \x7f'
    written = new_paper("escaped", out=tmp_path, title=title)
    flat = " ".join(title.split())
    init = (written["package"] / "__init__.py").read_text()
    doc = ast.get_docstring(ast.parse(init))
    assert " ".join(doc.split("\n\n")[0].split()) == flat
    assert all(len(line) <= 100 for line in init.splitlines())
    entry = json.loads(written["registry"].read_text())
    assert entry["title"] == flat and entry["id"] == "escaped"
    project = tomllib.loads(written["project"].read_text())["project"]
    assert project["description"] == flat
    nb = nbformat.read(written["notebook"], as_version=4)
    assert nb.cells[0].source.startswith(f"# escaped — {flat}")


def test_outside_the_repository_it_writes_a_distribution_with_its_entry_point(tmp_path):
    """No registry file: the folder is a distribution whose entry point names the package,
    and paper.json beside the package gives paths relative to the folder."""
    written = new_paper("outpaper", out=tmp_path, paper_id="p9", title="An outside paper")
    assert written["package"] == tmp_path / "outpaper"
    assert written["registry"] == tmp_path / "outpaper" / "paper.json"
    assert written["project"] == tmp_path / "pyproject.toml"
    assert not (tmp_path / "papers.json").exists()
    tops = {path.relative_to(tmp_path).parts[0] for path in written.values()}
    assert {path.name for path in tmp_path.iterdir()} == tops  # nothing else (a ruff cache)
    toml = tomllib.loads(written["project"].read_text())
    assert toml["project"]["name"] == "outpaper" and toml["project"]["dependencies"] == []
    assert toml["project"]["entry-points"] == {ENTRY_POINTS: {"outpaper": "outpaper"}}
    assert toml["tool"]["setuptools"]["packages"] == ["outpaper"]
    assert "paper.json" in toml["tool"]["setuptools"]["package-data"]["outpaper"]
    ours = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]
    theirs = toml["tool"]["ruff"]  # the workbench's rules but the repository's banned imports
    assert theirs["line-length"] == ours["line-length"]
    assert theirs["lint"]["select"] == [r for r in ours["lint"]["select"] if r != "TID251"]
    assert theirs["lint"]["ignore"] == ours["lint"]["ignore"]
    entry = json.loads(written["registry"].read_text())
    assert (entry["id"], entry["topic"]) == ("p9", "outpaper") and "package" not in entry
    assert (tmp_path / entry["notebook"]) == written["notebook"]
    assert (tmp_path / entry["claims_csv"]) == written["claims"]
    command = shlex.split(scaffold.install_command(tmp_path / "a folder"))
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert command[-2:] == ["-e", str(tmp_path / "a folder")]  # quoted for the shell
    with pytest.raises(ScaffoldError, match="'out' parameter of install_command"):
        scaffold.install_command(5)


def test_in_the_repository_it_registers_itself(tmp_path, monkeypatch):
    """No registry line to paste: workbench/NAME/paper.json, found by discovery."""
    monkeypatch.setattr(scaffold, "ROOT", tmp_path)  # a stand-in for the checkout
    written = new_paper("queueing", title="A queueing paper")
    pid = f"p{max(int(p[1:]) for p in scaffold.PAPERS if p[1:].isdigit()) + 1}"
    assert written["package"] == tmp_path / "workbench" / "queueing"
    assert written["notebook"] == tmp_path / "notebooks" / f"{pid}_queueing.ipynb"
    assert written["claims"] == tmp_path / "data" / "claims" / f"{pid}.csv"
    assert written["tests"] == tmp_path / "tests" / "test_queueing.py"
    assert written["twin"] == tmp_path / "tests" / "naive_queueing.py"
    assert written["registry"] == tmp_path / "workbench" / "queueing" / "paper.json"
    assert (
        "from workbench.queueing.params import PARAMS"
        in (written["package"] / "model.py").read_text()
    )
    (found,) = discover(tmp_path)
    assert (found.id, found.package, found.title) == (pid, "workbench.queueing", "A queueing paper")
    assert found.notebook_path == written["notebook"] and found.claims_path == written["claims"]


def test_in_the_repository_it_joins_the_papers_layer(tmp_path, monkeypatch):
    """lint-imports checks the layers exhaustively: the new package goes into the papers'
    layer of the checkout's pyproject.toml, with no hand edit (the rest of the file kept)."""
    real = (scaffold.ROOT / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(real)
    monkeypatch.setattr(scaffold, "ROOT", tmp_path)
    new_paper("queueing", title="A queueing paper")
    before, after = real.splitlines(), (tmp_path / "pyproject.toml").read_text().splitlines()
    i = before.index("    " + scaffold.PAPERS_LAYER)

    def members(line):
        return [m.strip() for m in line.strip().strip('",').split("|")]

    assert members(before[i + 1])[:5] == [
        "redundancy",
        "datacenters",
        "fog",
        "proactive",
        "hierarchy",
    ]
    assert members(after[i + 1]) == members(before[i + 1]) + ["queueing"]
    assert after[: i + 1] + after[i + 2 :] == before[: i + 1] + before[i + 2 :]
