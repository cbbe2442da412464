"""check_paper finds departures: a scaffolded package broken in one way fails that rule, by
name (and a whole scaffolded package passes every rule: tests/test_scaffold.py).

One package is scaffolded per session; each test works on a copy of it under its own name.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from workbench.paper import RULES, PaperContractError, Target, check_paper
from workbench.scaffold import new_paper
from workbench.validation import ParameterError

TEMPLATE = "toy_template"


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


def _tests(pkg: Path) -> Path:
    return pkg.parent / f"test_{pkg.name}.py"


def _delete_twin_test(pkg: Path) -> None:
    """Delete the test comparing the kernel with its slow twin (issue 40's third mistake)."""
    path = _tests(pkg)
    text = path.read_text()
    start = text.index('@pytest.mark.parametrize("n"')
    end = text.index("def test_mean_sojourn")
    path.write_text(text[:start] + text[end:])


NOISY = """

def noisy_sojourn(lam: float, mu: float) -> float:
    \"\"\"E[T] times an Exp(1) draw from an unseeded generator.\"\"\"
    import numpy

    return mean_sojourn(lam, mu) * numpy.random.default_rng().exponential()


__all__ += ["noisy_sojourn"]
"""


def _pose_twice(nb):
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and ", 3)" in "".join(cell["source"]):
            cell["source"] = "".join(cell["source"]).replace(", 3)", ", 2)")


# rule -> how to break a scaffolded package in that one way (pkg: its folder)
BREAKS = {
    "claims.declared": lambda pkg, nb, csv: _edit(
        pkg / "claims.py", "ATLAS = AtlasSpec(", "_NOT_THE_ATLAS = AtlasSpec("
    ),
    # simulate's signature is generated from the table (workbench.params.takes): an own
    # parameter of the body that is not keyword-only is a positional one
    "simulate.keywords": lambda pkg, nb, csv: _edit(
        pkg / "simulation.py", "def simulate(p) ->", "def simulate(p, extra=None) ->"
    ),
    # a hand-written signature (the figure's frame) whose seed departs from the shared one
    "params.by_hand": lambda pkg, nb, csv: _edit(
        pkg / "figures.py",
        "quick: bool = True, seed: int = 0)",
        "quick: bool = True, seed: int = 1)",
    ),
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
    "exercises.computed": lambda pkg, nb, csv: _edit(
        pkg / "exercises.py", "answer=_load_ratio,", "answer=lambda: 5.5,"
    ),
    "exercises.hidden": lambda pkg, nb, csv: _edit(
        pkg / "exercises.py", 'hint="E[T] = 1/(μ − λ).",', 'hint="E[T] = 1/(μ − λ): 5.5 times.",'
    ),
    "notebook.exercises": lambda pkg, nb, csv: _notebook(nb, _pose_twice),
    # issue 40's first mistake: a rate declared without a range (E[T] then came out < 0)
    "params.ranges": lambda pkg, nb, csv: _edit(
        pkg / "params.py", '"low": 0.0, "low_open": True, "high": 1e3, ', ""
    ),
    "kernels.twin": lambda pkg, nb, csv: _delete_twin_test(pkg),
    "seeds.public": lambda pkg, nb, csv: _append(pkg / "model.py", NOISY),
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
        pkg / "model.py", "def utilisation(p)", "def utilisation(p, arrival_rate=None)"
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
        pkg / "params.py",
        'choices=("raise", "transient"),\n        default="raise",',
        'choices=("raise", "transient"),\n        default="transient",',
    ),
    "notebook.thin": lambda pkg, nb, csv: _notebook(
        nb, lambda n: n["cells"][4].update(source="glossary(model.PARAMS)\n" + "1\n" * 20)
    ),
}


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    """One scaffolded package (new-paper runs ruff: once, not once per test)."""
    folder = tmp_path_factory.mktemp("template")
    new_paper(TEMPLATE, out=folder)
    return folder


def _scaffold(template, tmp_path, monkeypatch, rule: str) -> tuple[str, Path, Path, Path]:
    """A copy of the template under the name ``toy_<rule>``: package, notebook, claims, tests
    and twin, every mention of the template's name replaced."""
    name = "toy_" + re.sub(r"\W", "_", rule)
    for src in template.iterdir():
        dst = tmp_path / src.name.replace(TEMPLATE, name)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)
    for path in [*tmp_path.glob("*.*"), *(tmp_path / name).glob("*.py")]:
        path.write_text(path.read_text().replace(TEMPLATE, name))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, tmp_path / name, tmp_path / f"{name}.ipynb", tmp_path / f"{name}.csv"


def test_every_rule_has_a_break():
    assert set(BREAKS) == set(RULES), sorted(set(RULES) ^ set(BREAKS))


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_check_paper_names_the_departure(rule, template, tmp_path, monkeypatch):
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, rule)
    BREAKS[rule](pkg, nb, csv)
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=[rule])
    assert report.failed_rules == [rule], str(report)
    with pytest.raises(PaperContractError, match=re.escape(f"[{rule}]")):
        report.raise_if_failed()


def test_a_model_keyword_copied_by_hand_is_named_even_with_the_tables_default(
    template, tmp_path, monkeypatch
):
    # the copy equals the table today (mu = 1.0) and would drift tomorrow: it is the copy that
    # departs, not its value
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, "by_hand_copy")
    _edit(
        pkg / "figures.py",
        "quick: bool = True, seed: int = 0)",
        "quick: bool = True, seed: int = 0, mu: float = 1.0)",
    )
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["params.by_hand"])
    assert report.failed_rules == ["params.by_hand"], str(report)
    (finding,) = report.findings
    assert finding.where.endswith("figures.py: sojourn_frame"), finding
    assert "mu=1.0 by hand" in finding.message, finding


def test_the_claims_table_takes_the_expectations_check_claims_reads(
    template, tmp_path, monkeypatch
):
    # workbench.claims reads agree, disagree and undetermined (P2 has undetermined rows)
    name, _, nb, csv = _scaffold(template, tmp_path, monkeypatch, "expect")
    _edit(csv, ",M/M/1,agree,", ",M/M/1,undetermined,")
    assert check_paper(name, notebook=nb, claims_csv=csv, rules=["claims.table"]).ok
    _edit(csv, ",M/M/1,undetermined,", ",M/M/1,maybe,")
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["claims.table"])
    assert report.failed_rules == ["claims.table"] and "'maybe'" in str(report), str(report)


def test_an_unregistered_package_without_notebook_or_claims_is_told_so(
    template, tmp_path, monkeypatch
):
    name, *_ = _scaffold(template, tmp_path, monkeypatch, "unregistered")
    report = check_paper(name, rules=["notebook.parameters", "claims.table"])
    assert report.failed_rules == ["claims.table", "notebook.parameters"]
    assert "register the paper or pass notebook=" in str(report)


def test_the_three_planted_mistakes_of_issue_40_are_named(template, tmp_path, monkeypatch):
    """A rate without a range, a claim quoting TODO, the kernel's slow-twin test deleted: all
    three in one package, each named by its rule, where it is."""
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, "issue40")
    BREAKS["params.ranges"](pkg, nb, csv)
    _edit(csv, ",1.0,workbench,0.1,M/M/1,agree,,a toy,", ",1.0,paper,0.1,Sec. 2,agree,,a toy,TODO")
    _delete_twin_test(pkg)
    # every rule but the two that start a child interpreter (seconds each, nothing to find)
    rules = [r for r in RULES if r not in ("imports.light", "imports.headless")]
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=rules)
    assert report.failed_rules == ["claims.quotes", "kernels.twin", "params.ranges"], str(report)
    found = {f.rule: f for f in report.findings}
    ranges = [f.where for f in report.findings if f.rule == "params.ranges"]
    assert ranges == ["PARAMS['lam']", "PARAMS['mu']"] and "no finite range" in str(report)
    assert "placeholder ('TODO')" in found["claims.quotes"].message
    assert found["kernels.twin"].where.endswith("kernels.py:12"), found["kernels.twin"]
    assert "lindley_kernel" in found["kernels.twin"].message


@pytest.mark.parametrize(
    ("quote", "why"),
    [
        ("", "empty"),
        ("TODO", "a placeholder"),
        ("TODO: quote Sec. 4 of the paper here", "a placeholder"),
        ("TBD, from the paper's Fig. 2", "a placeholder"),
        ("...", "a placeholder"),
        ("…", "a placeholder"),
        ("Lorem ipsum dolor sit amet", "a placeholder"),
        ("<the paper's words>", "a placeholder"),
        ("ok", "too short"),
    ],
)
def test_a_placeholder_quote_is_named(quote, why, template, tmp_path, monkeypatch):
    name, _, nb, csv = _scaffold(template, tmp_path, monkeypatch, "quote")
    _edit(csv, ",1.0,workbench,0.1,M/M/1,agree,,a toy,", f',1.0,paper,0.1,Sec. 2,agree,,,"{quote}"')
    report = check_paper(name, notebook=nb, claims_csv=csv, rules="claims.quotes")
    assert report.failed_rules == ["claims.quotes"], str(report)
    assert f"the quote of a source=paper row is {why}" in str(report), str(report)
    _edit(csv, f'"{quote}"', '"The mean sojourn time of the M/M/1 queue is 1/(mu - lambda)."')
    assert check_paper(name, notebook=nb, claims_csv=csv, rules="claims.quotes").ok


def test_a_physical_quantity_without_a_unit_is_named(template, tmp_path, monkeypatch):
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, "unit")
    _edit(pkg / "params.py", '{"unit": "1/s", ', "{")
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["params.ranges"])
    assert [f.where for f in report.findings] == ["PARAMS['lam']", "PARAMS['mu']"], str(report)
    assert "'arrival rate' is a physical quantity but has no unit" in str(report)


def test_fewer_than_three_exercises_are_named(template, tmp_path, monkeypatch):
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, "two")
    _append(pkg / "exercises.py", "\nEXERCISES = EXERCISES[:2]\n")
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["exercises.declared"])
    assert "2 exercises: a notebook that teaches has at least 3" in str(report), str(report)


def test_a_seeded_helper_does_not_make_its_caller_stochastic(template, tmp_path, monkeypatch):
    """A public function that calls simulate with a fixed seed is deterministic: no finding;
    one that draws from a generator it seeds itself, without a seed argument, is named."""
    name, pkg, nb, csv = _scaffold(template, tmp_path, monkeypatch, "seeded")
    _append(
        pkg / "simulation.py",
        "\n\ndef fixed_run(lam: float) -> float:\n    return simulate(lam=lam, seed=3).mean\n"
        '\n\n__all__ += ["fixed_run"]\n',
    )
    assert check_paper(name, notebook=nb, claims_csv=csv, rules=["seeds.public"]).ok
    _append(
        pkg / "simulation.py",
        "\n\ndef hidden_seed(lam: float) -> float:\n"
        "    return float(np.random.default_rng(42).exponential(1 / lam))\n"
        '\n\n__all__ += ["hidden_seed"]\n',
    )
    report = check_paper(name, notebook=nb, claims_csv=csv, rules=["seeds.public"])
    assert [f.message.split()[0] for f in report.findings] == ["hidden_seed"], str(report)


def test_unknown_rules_and_packages_and_wrong_types_are_refused_by_name():
    with pytest.raises(ParameterError, match="'rules' parameter of check_paper.*no.such.rule"):
        check_paper("p4", rules=["no.such.rule"])
    with pytest.raises(ParameterError, match="'rules' parameter of check_paper.*Got 5"):
        check_paper("p4", rules=5)
    with pytest.raises(ParameterError, match="'module_or_name' parameter of check_paper"):
        check_paper(5)
    with pytest.raises(ParameterError, match="'package' parameter of Target.*Got 5"):
        Target(5, "p4", None, None, False)
    with pytest.raises(ParameterError, match="'notebook' parameter of Target"):
        Target("workbench.redundancy", "p4", 5, None, False)
    with pytest.raises(ModuleNotFoundError):
        check_paper("no_such_package_anywhere")
