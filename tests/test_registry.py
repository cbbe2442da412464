"""The registry, and every registered paper's notebook and claims table against the contract.

The package rules (skeleton, table and sliders, simulate, headless model side, ...) run in
tests/test_contract.py; all of them are workbench.paper.check_paper's rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.claims import load_claims
from workbench.paper import check_paper, data_rules
from workbench.params import Param
from workbench.registry import ARENA, PAPERS, course, papers_from_json
from workbench.validation import ParameterError

REPO = Path(__file__).resolve().parents[1]
IDS = list(PAPERS)


@pytest.mark.parametrize("rule", list(data_rules.RULES))
@pytest.mark.parametrize("pid", IDS)
def test_notebook_and_claims_table_keep_the_contract(pid, rule):
    """The notebook (parameters cell, saved clean, thin cells, claims and exercises shown one
    way) and the claims table (columns, ids = CLAIMS, quotes), via check_paper."""
    check_paper(pid, rules=[rule]).raise_if_failed()


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
    with pytest.raises(ValueError, match="colour"):
        papers_from_json(tmp_path / "bad.json")


def test_every_notebook_is_a_registered_paper_or_the_index():
    on_disk = {p.name for p in (REPO / "notebooks").glob("*.ipynb")}
    registered = {Path(p.notebook).name for p in (*PAPERS.values(), ARENA)}
    assert on_disk - registered == {"00_index.ipynb"}
    assert [p.id for p in course()] == sorted(PAPERS, key=lambda i: (PAPERS[i].order, i))


def test_a_declared_extra_value_outside_the_range_is_accepted_and_nothing_else():
    import math

    theta = Param("theta", "θ", "threshold", "s", low=0.0, high=1e6, extra=(math.inf,))
    assert theta.check(math.inf, "f") == math.inf
    for bad in (-math.inf, math.nan, 2e6, True):
        with pytest.raises(ParameterError, match="'theta' parameter of f"):
            theta.check(bad, "f")
