"""``python -m workbench new-paper`` writes a paper that works: check_paper finds nothing, its
notebook runs headless, its own tests pass. Timed, step by step (docs/adding-a-paper.md)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from workbench.scaffold import new_paper
from workbench.validation import ParameterError

REPO = Path(__file__).resolve().parents[1]


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
    made = _run(["-m", "workbench", "new-paper", "p6demo", "--out", str(tmp_path)], before, REPO)
    assert made.returncode == 0, made.stderr
    timings["scaffold"] = time.perf_counter() - t0

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


def test_new_paper_refuses_a_bad_name_and_never_overwrites(tmp_path):
    with pytest.raises(ParameterError, match="lowercase identifier"):
        new_paper("Bad-Name", out=tmp_path)
    new_paper("once", out=tmp_path)
    with pytest.raises(ParameterError, match="overwrite"):
        new_paper("once", out=tmp_path)


def test_into_the_repository_it_lays_out_the_skeleton_and_prints_the_registry_line(
    tmp_path, monkeypatch
):
    import workbench.scaffold as scaffold

    monkeypatch.setattr(scaffold, "ROOT", tmp_path)  # a stand-in for the checkout
    written = new_paper("queueing", title="A queueing paper")
    pid = f"p{max(int(p[1:]) for p in scaffold.PAPERS if p[1:].isdigit()) + 1}"
    assert written["package"] == tmp_path / "workbench" / "queueing"
    assert written["notebook"] == tmp_path / "notebooks" / f"{pid}_queueing.ipynb"
    assert written["claims"] == tmp_path / "data" / "claims" / f"{pid}.csv"
    assert written["tests"] == tmp_path / "tests" / "test_queueing.py"
    assert (
        "from workbench.queueing.params import PARAMS"
        in (written["package"] / "model.py").read_text()
    )
    assert f'"{pid}",\n    "queueing",' in written["registry_line"]
