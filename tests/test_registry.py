"""The registry: its papers, their discovery, and lines that cannot register.

Every rule a paper keeps (package, notebook, claims table, ...) runs in
tests/test_contract.py through workbench.paper.check_paper.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_dist import fake_install

from workbench import registry
from workbench.claims import load_claims
from workbench.params import Param
from workbench.registry import (
    ARENA,
    COMPANION_NOTEBOOKS,
    PAPERS,
    Paper,
    RegistryError,
    course,
    discover,
    papers_from_json,
)
from workbench.validation import ParameterError

REPO = Path(__file__).resolve().parents[1]
IDS = list(PAPERS)


@pytest.mark.parametrize("pid", IDS)
def test_the_registry_finds_every_part(pid):
    p = PAPERS[pid]
    assert p.notebook_path.exists() and p.claims_path.exists()
    assert set(load_claims(pid)["id"]) == set(p.claims)
    assert p.simulate is p.part("simulation").simulate and p.figures and p.views


def test_a_paper_declared_in_json_joins_the_registry(tmp_path):
    (tmp_path / "papers.json").write_text(
        '[{"id": "px", "topic": "toy", "title": "T", "citation": "C", "notebook": "toy.ipynb",'
        ' "package": "toy", "claims_csv": "toy.csv"}]'
    )
    (px,) = papers_from_json(tmp_path / "papers.json")
    assert px.package == "toy" and px.claims_path == tmp_path / "toy.csv"
    assert px.notebook_path == tmp_path / "toy.ipynb"
    (tmp_path / "bad.json").write_text('[{"id": "py", "colour": "red"}]')
    with pytest.raises(RegistryError, match="colour"):
        papers_from_json(tmp_path / "bad.json")


LINE = {"id": "px", "topic": "toy", "title": "T", "citation": "C", "notebook": "n.ipynb"}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[{"id": "px",', "not valid JSON"),
        ("\udcff", "not valid JSON"),
        ('{"papers": 3}', "unknown Paper fields"),
        ("3", "a list of paper objects"),
        ("[3]", "a paper line is a JSON object"),
        (json.dumps([{**LINE, "order": "first"}]), "'order' field of Paper must be an int"),
        (json.dumps([{**LINE, "order": True}]), "'order' field of Paper must be an int"),
        (json.dumps([{**LINE, "title": 5}]), "'title' field of Paper must be a non-empty string"),
        (json.dumps([{**LINE, "id": "p 6"}]), "'id' field of Paper must be a letter"),
        (json.dumps([{"id": "px"}]), "missing"),
    ],
)
def test_a_line_that_cannot_register_is_a_named_error(tmp_path, text, named):
    path = tmp_path / "papers.json"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(RegistryError, match=named) as err:
        papers_from_json(path)
    assert str(path) in str(err.value)  # it names the file
    with pytest.raises(RegistryError, match="'path' parameter of papers_from_json"):
        papers_from_json(5)


def _cli(*command, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _with_site(site: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}


def test_a_malformed_paper_json_of_an_installed_paper_is_one_line_for_every_command(tmp_path):
    """Not a traceback: ``python -m workbench: error: <its paper.json>: ...`` and exit 2."""
    folder = fake_install(tmp_path, "brokenx", '[{"id": "px", "order": "first"')
    env = _with_site(tmp_path)
    for command in (["papers"], ["check-paper", "p4"]):
        out = _cli(*command, env=env)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        line = f"python -m workbench: error: {folder / 'paper.json'}: not valid JSON (Expecting"
        assert out.stderr.startswith(line) and out.stderr.count("\n") == 1, out.stderr


def test_the_retired_variable_is_an_error_naming_its_replacement(tmp_path, monkeypatch):
    """WORKBENCH_PAPERS registered outside papers before entry points: set, it is refused
    (never ignored), and the message says what to do instead; blank, it named nothing."""
    (tmp_path / "papers.json").write_text(json.dumps([LINE]))
    env = {**os.environ, "WORKBENCH_PAPERS": str(tmp_path / "papers.json")}
    out = _cli("papers", env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    for part in ("WORKBENCH_PAPERS=", "no longer read", "workbench.papers", "pip install -e"):
        assert part in out.stderr, out.stderr
    monkeypatch.setenv("WORKBENCH_PAPERS", " ")
    registry._refuse_retired_variable()
    monkeypatch.setenv("WORKBENCH_PAPERS", "papers.json")
    with pytest.raises(RegistryError, match="WORKBENCH_PAPERS=papers.json is no longer read"):
        registry._refuse_retired_variable()


def test_an_installed_package_registers_through_its_entry_point(tmp_path, monkeypatch):
    """A plugin's distribution names its package in ``workbench.papers``: the registry reads
    the package's paper.json (paths from the package's parent folder) without importing it."""
    fake_install(tmp_path, "queuesx", {**LINE, "topic": "queuesx", "notebook": "q.ipynb"})
    fake_install(tmp_path, "brokenx", None)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError, match="entry point brokenx = 'brokenx'.*no paper.json"):
        registry.installed()
    (tmp_path / "brokenx-0.1.dist-info" / "entry_points.txt").write_text("")
    (px,) = registry.installed()
    with pytest.raises(RegistryError, match="'group' parameter of installed"):
        registry.installed(5)
    assert px.package == "queuesx" and px.notebook_path == tmp_path / "q.ipynb"
    assert px.claims_path == tmp_path / "data" / "claims" / "px.csv"
    assert "queuesx" not in sys.modules  # located, not imported
    out = _cli("papers", env=_with_site(tmp_path))
    assert out.returncode == 0 and "queuesx" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ("ghost = nosuchpaperx", "entry point ghost = 'nosuchpaperx'.*not an importable package"),
        ("ghost = nosuchpaperx.part", "entry point ghost = 'nosuchpaperx.part'.*does not import"),
    ],
)
def test_an_entry_point_naming_no_package_is_a_named_error(tmp_path, monkeypatch, entry, named):
    fake_install(tmp_path, "namedx", {**LINE, "topic": "namedx"}, entry=entry)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError, match=named):
        registry.installed()


def test_an_installed_paper_with_a_taken_id_is_refused(tmp_path, monkeypatch):
    fake_install(tmp_path, "takenx", {**LINE, "id": "p4", "topic": "takenx"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PAPERS", dict(PAPERS))
    with pytest.raises(RegistryError, match=r"paper id 'p4' is taken \(workbench.redundancy\)"):
        registry._register(registry.installed(), "entry points")
    assert registry.PAPERS == PAPERS


def test_a_package_with_a_paper_json_is_discovered(tmp_path):
    """new-paper's registration: workbench/<topic>/paper.json, paths from the repository."""
    folder = tmp_path / "workbench" / "toy"
    folder.mkdir(parents=True)
    (folder / "paper.json").write_text(json.dumps({**LINE, "notebook": "notebooks/px_toy.ipynb"}))
    (px,) = discover(tmp_path)
    assert px.package == "workbench.toy" and px.order == 0
    assert px.notebook_path == tmp_path / "notebooks" / "px_toy.ipynb"
    (folder / "paper.json").write_text(json.dumps({**LINE, "topic": "other"}))
    with pytest.raises(RegistryError, match="topic is 'other', its folder 'toy'"):
        discover(tmp_path)
    assert discover(tmp_path / "nothing_here") == []


def test_the_course_order_is_the_teaching_order(monkeypatch):
    """The course as the README's table teaches it: loss systems first (P4), then loss
    networks (P3), networks of queues (P1), trees of servers (P5), building blocks (P2)."""
    assert [p.id for p in course()][:5] == ["p4", "p3", "p1", "p5", "p2"]
    # by order, ties broken by id, whatever the registration order
    lines = [("c", 1), ("b", 2), ("a", 2), ("d", 0)]
    made = {i: Paper(i, "t", "T", "C", "n.ipynb", order) for i, order in lines}
    monkeypatch.setattr(registry, "PAPERS", made)
    assert [p.id for p in course()] == ["d", "c", "a", "b"]


def test_every_notebook_is_a_registered_paper_or_the_index():
    on_disk = {p.name for p in (REPO / "notebooks").glob("*.ipynb")}
    registered = {Path(p.notebook).name for p in (*PAPERS.values(), ARENA)}
    registered |= {Path(x).name for x in COMPANION_NOTEBOOKS}
    assert on_disk - registered == {"00_index.ipynb"}


def test_a_declared_extra_value_outside_the_range_is_accepted_and_nothing_else():
    import math

    theta = Param("theta", "θ", "threshold", "s", low=0.0, high=1e6, extra=(math.inf,))
    assert theta.check(math.inf, "f") == math.inf
    for bad in (-math.inf, math.nan, 2e6, True):
        with pytest.raises(ParameterError, match="'theta' parameter of f"):
            theta.check(bad, "f")
