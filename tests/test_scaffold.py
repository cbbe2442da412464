"""``python -m workbench new-paper`` writes a paper that works with no hand edit: check_paper
finds nothing, ruff finds nothing, its notebook runs headless, its own tests pass; in the
repository it registers itself. Bad names, ids and titles are refused, and nothing is left
behind. Timed, step by step (docs/adding-a-paper.md)."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import workbench.scaffold as scaffold
from workbench.registry import discover
from workbench.scaffold import ScaffoldError, new_paper

REPO = Path(__file__).resolve().parents[1]


def _ruff(*args) -> subprocess.CompletedProcess:
    """ruff with the repository's settings (the one beside this interpreter)."""
    ruff = scaffold._ruff()
    assert ruff is not None, "ruff is a test dependency (pyproject.toml, [test])"
    config = ["--config", str(REPO / "pyproject.toml")]
    return subprocess.run([*ruff, *args, *config], capture_output=True, text=True, timeout=120)


def _env(out: Path) -> dict:
    env = dict(os.environ)
    env["WORKBENCH_PAPERS"] = str(out / "papers.json")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(out), env.get("PYTHONPATH", "")])
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba_cache"))
    return env


def _run(args, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900
    )


def _execute(path: Path, env: dict) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3")
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(client.async_execute(env=env, cwd=str(path.parent)))
    finally:
        loop.close()
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert images, "the notebook's figure cell drew no image"


def test_a_new_paper_passes_check_paper_its_notebook_and_its_tests(tmp_path):
    env, timings = _env(tmp_path), {}
    t0 = time.perf_counter()
    before = {k: v for k, v in env.items() if k != "WORKBENCH_PAPERS"}  # papers.json comes next
    title = 'Redundancy "done right": a C:\\path, """quotes""" and a title long enough to wrap'
    made = _run(
        ["-m", "workbench", "new-paper", "p6demo", "--out", str(tmp_path), "--title", title],
        before,
        REPO,
    )
    assert made.returncode == 0, made.stderr
    timings["scaffold"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    for args in (["check", str(tmp_path)], ["format", "--check", str(tmp_path)]):
        linted = _ruff(*args)
        assert linted.returncode == 0, linted.stdout + linted.stderr
    timings["ruff"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    checked = _run(["-m", "workbench", "check-paper", "p6demo"], env, REPO)
    assert checked.returncode == 0 and "no departure" in checked.stdout, checked.stdout
    timings["check_paper"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    _execute(tmp_path / "p6demo.ipynb", env)
    timings["notebook"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    tests = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_p6demo.py"], env, tmp_path)
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
    def broken(paths):
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
    title = 'A "quoted" title\nwith C:\\new\\table, """triple quotes""" and <b>markup</b>'
    written = new_paper("escaped", out=tmp_path, title=title)
    flat = " ".join(title.split())
    init = (written["package"] / "__init__.py").read_text()
    doc = ast.get_docstring(ast.parse(init))
    assert " ".join(doc.split("\n\n")[0].split()) == flat
    assert all(len(line) <= 100 for line in init.splitlines())
    (entry,) = json.loads(written["registry"].read_text())
    assert entry["title"] == flat and entry["id"] == "escaped"
    nb = nbformat.read(written["notebook"], as_version=4)
    assert nb.cells[0].source.startswith(f"# escaped — {flat}")


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
