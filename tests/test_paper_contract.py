"""check_paper finds departures: a scaffolded package broken in one way fails that rule, by
name (and a whole scaffolded package passes every rule: tests/test_scaffold.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workbench.paper import RULES, PaperContractError, check_paper
from workbench.scaffold import new_paper


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def _notebook(path: Path, change) -> None:
    nb = json.loads(path.read_text())
    change(nb)
    path.write_text(json.dumps(nb, indent=1))


def _untag(nb):
    for cell in nb["cells"]:
        cell["metadata"].pop("tags", None)


def _with_output(nb):
    nb["cells"][4]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}]
    nb["cells"][4]["execution_count"] = 3


def _own_claims(nb):
    nb["cells"][11]["source"] = "from workbench.claims import check_claims\ncheck_claims('x')"


LONG_FUNCTION = "\n\ndef _long():\n" + "    x = 1\n" * 160 + "    return x\n"

# rule -> how to break a scaffolded package in that one way (pkg: its folder)
BREAKS = {
    "claims.declared": lambda pkg, nb, csv: _edit(
        pkg / "claims.py", "ATLAS = AtlasSpec(", "_NOT_THE_ATLAS = AtlasSpec("
    ),
    "simulate.keywords": lambda pkg, nb, csv: _edit(
        pkg / "simulation.py", "def simulate(\n    *,\n", "def simulate(\n"
    ),
    "params.defaults": lambda pkg, nb, csv: _edit(
        pkg / "simulation.py", "jobs: int = 100_000,", "jobs: int = 50_000,"
    ),
    "size.module": lambda pkg, nb, csv: _append(pkg / "model.py", "# padding\n" * 800),
    "size.function": lambda pkg, nb, csv: _append(pkg / "model.py", LONG_FUNCTION),
    "imports.in_function": lambda pkg, nb, csv: _append(
        pkg / "model.py", "\n\ndef _pi():\n    import math\n\n    return math.pi\n"
    ),
    "imports.circle": lambda pkg, nb, csv: _append(
        pkg / "params.py", f"\nfrom {pkg.name}.model import mean_sojourn  # noqa\n"
    ),
    "imports.light": lambda pkg, nb, csv: _append(
        pkg / "model.py", "\nimport matplotlib  # noqa\n"
    ),
    "imports.headless": lambda pkg, nb, csv: _append(
        pkg / "claims.py", "\nimport ipywidgets  # noqa\n"
    ),
    "notebook.parameters": lambda pkg, nb, csv: _notebook(nb, _untag),
    "notebook.clean": lambda pkg, nb, csv: _notebook(nb, _with_output),
    "notebook.one_way": lambda pkg, nb, csv: _notebook(nb, _own_claims),
    "claims.table": lambda pkg, nb, csv: _append(
        csv, "unmeasured,sojourn,x,1.0,workbench,0.1,here,agree,,,\n"
    ),
    "claims.quotes": lambda pkg, nb, csv: _edit(csv, ",1.0,workbench,", ",1.0,paper,"),
    "exercises.declared": lambda pkg, nb, csv: _append(pkg / "exercises.py", "\nEXERCISES = ()\n"),
    "figures_views.naming": lambda pkg, nb, csv: _edit(
        pkg / "views.py", 'VIEWS = {"sojourn": sojourn_view}', 'VIEWS = {"load": sojourn_view}'
    ),
    "examples.cover": lambda pkg, nb, csv: _append(
        pkg / "__init__.py", "\n\ndef scaled(x):\n    return 2 * x\n\n\n__all__ += ['scaled']\n"
    ),
    "params.sliders": lambda pkg, nb, csv: _edit(
        pkg / "params.py", "slider=(0.05, 2.0)", "slider=(0.0, 2.0)"
    ),
    "vocabulary.keywords": lambda pkg, nb, csv: _edit(
        pkg / "model.py", "def utilisation(lam: float,", "def utilisation(arrival_rate: float,"
    ),
    "simulate.warmup": lambda pkg, nb, csv: _edit(
        pkg / "params.py", "    WARMUP,\n", "    WARMUP.with_(high=1.0),\n"
    ),
    "params.table": lambda pkg, nb, csv: _edit(
        pkg / "params.py", '"mu",\n        "μ",', '"mu",\n        "",'
    ),
    "kernels.cached": lambda pkg, nb, csv: _edit(pkg / "kernels.py", "@njit(cache=True)", "@njit"),
    "skeleton.modules": lambda pkg, nb, csv: (pkg / "examples.py").unlink(),
    # the default is "transient": a non-stationary run would pass silently
    "simulate.result": lambda pkg, nb, csv: _edit(
        pkg / "simulation.py", 'overload: str = "raise",', 'overload: str = "transient",'
    ),
    "notebook.thin": lambda pkg, nb, csv: _notebook(
        nb, lambda n: n["cells"][4].update(source="glossary(model.PARAMS)\n" + "1\n" * 20)
    ),
}


def _scaffold(tmp_path, monkeypatch, rule: str) -> tuple[str, Path, Path, Path]:
    name = "toy_" + re.sub(r"\W", "_", rule)
    written = new_paper(name, out=tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, written["package"], written["notebook"], written["claims"]


def test_every_rule_has_a_break():
    assert set(BREAKS) == set(RULES), sorted(set(RULES) ^ set(BREAKS))


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_check_paper_names_the_departure(rule, tmp_path, monkeypatch):
    name, pkg, nb, csv = _scaffold(tmp_path, monkeypatch, rule)
    BREAKS[rule](pkg, nb, csv)
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=[rule])
    assert report.failed_rules == [rule], str(report)
    with pytest.raises(PaperContractError, match=re.escape(f"[{rule}]")):
        report.raise_if_failed()


def test_the_claims_table_takes_the_expectations_check_claims_reads(tmp_path, monkeypatch):
    # workbench.claims reads agree, disagree and undetermined (P2 has undetermined rows)
    name, _, nb, csv = _scaffold(tmp_path, monkeypatch, "expect")
    _edit(csv, ",M/M/1,agree,", ",M/M/1,undetermined,")
    assert check_paper(name, notebook=nb, claims_csv=csv, rules=["claims.table"]).ok
    _edit(csv, ",M/M/1,undetermined,", ",M/M/1,maybe,")
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["claims.table"])
    assert report.failed_rules == ["claims.table"] and "'maybe'" in str(report), str(report)


def test_an_unregistered_package_without_notebook_or_claims_is_told_so(tmp_path, monkeypatch):
    name, *_ = _scaffold(tmp_path, monkeypatch, "unregistered")
    report = check_paper(name, rules=["notebook.parameters", "claims.table"])
    assert report.failed_rules == ["claims.table", "notebook.parameters"]
    assert "register the paper or pass notebook=" in str(report)


def test_unknown_rules_and_packages_are_refused():
    with pytest.raises(KeyError, match="unknown rules"):
        check_paper("p4", rules=["no.such.rule"])
    with pytest.raises(ModuleNotFoundError):
        check_paper("no_such_package_anywhere")
