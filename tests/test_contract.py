"""One contract in five packages, checked by walking the registry.

Every paper package follows the same skeleton and the same names (README, "One contract").
These tests read the code (signatures, the AST, the import graph) and fail on a departure:

- a signature default that differs from the parameter table's default for the same name;
- ``simulate`` / ``simulate_to_precision`` not keyword-only, or without the shared keywords;
- figures not named ``<name>_frame`` / ``plot_<name>``, views not ``<name>_view``;
- a module over 700 lines or a function over 150 (compiled event loops in ``kernels.py``
  excepted: one loop over events by design);
- an import inside a function body, an import circle inside a package;
- importing a paper package loading matplotlib, seaborn, ipywidgets or the sweep engine;
- notebooks showing claims or exercises in another way than the one shared helper;
- keyword names outside the shared vocabulary.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP
from workbench.registry import PAPERS

ROOT = Path(__file__).resolve().parent.parent
SHARED = {p.name: p for p in (SEED, REPLICATIONS, CONFIDENCE, WARMUP)}
RUN_LENGTHS = {"events", "jobs", "periods", "slots", "requests"}
MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 150
# keyword names the shared vocabulary replaces (README, "Shared names")
RETIRED_KEYWORDS = {"scheme": "policy", "arrival_rate": "lam", "rate": "lam"}
IDS = sorted(PAPERS)


def _package_dir(paper_id) -> Path:
    return ROOT / "workbench" / PAPERS[paper_id].topic


def _modules(paper_id):
    pkg = PAPERS[paper_id].package
    for path in sorted(_package_dir(paper_id).glob("*.py")):
        name = pkg if path.stem == "__init__" else f"{pkg}.{path.stem}"
        yield path, importlib.import_module(name)


def _functions(module):
    """Functions and methods defined in ``module`` (not imported into it)."""
    for _, obj in vars(module).items():
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            yield obj.__qualname__, obj
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            for _, meth in vars(obj).items():
                f = getattr(meth, "__func__", meth)
                if inspect.isfunction(f) and f.__module__ == module.__name__:
                    yield f.__qualname__, f


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def divergent_defaults(paper_id) -> list[str]:
    """Every signature default whose keyword is a table row and whose value is not the row's
    default (``None`` means "the table's default" and always passes)."""
    table = PAPERS[paper_id].params
    out = []
    for path, module in _modules(paper_id):
        for qualname, func in _functions(module):
            for name, p in inspect.signature(func).parameters.items():
                if p.default is inspect.Parameter.empty or p.default is None:
                    continue
                row = table[name] if name in table else SHARED.get(name)
                if row is None:
                    continue
                if not _same(p.default, row.default):
                    out.append(
                        f"{path.relative_to(ROOT)}: {qualname}({name}={p.default!r}) but the "
                        f"table says {row.default!r}"
                    )
    return out


@pytest.mark.parametrize("paper_id", IDS)
def test_signature_defaults_equal_the_parameter_table(paper_id):
    bad = divergent_defaults(paper_id)
    assert not bad, f"{len(bad)} divergent defaults:\n" + "\n".join(bad)


@pytest.mark.parametrize("paper_id", IDS)
@pytest.mark.parametrize("name", ["simulate", "simulate_to_precision"])
def test_simulate_is_keyword_only_with_the_shared_keywords(paper_id, name):
    module = PAPERS[paper_id].part("simulation")
    func = getattr(module, name)
    params = inspect.signature(func).parameters
    positional = [
        n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    assert not positional, f"{paper_id}.{name} takes {positional} positionally"
    needed = {"seed", "confidence", "overload"}
    needed |= {"max_replications"} if name == "simulate_to_precision" else {"replications"}
    assert needed <= set(params), f"{paper_id}.{name} lacks {sorted(needed - set(params))}"
    if name == "simulate":
        assert RUN_LENGTHS & set(params), f"{paper_id}.simulate has no run-length keyword"
        assert "warmup" in params, f"{paper_id}.simulate has no 'warmup' fraction"
        table = PAPERS[paper_id].params
        row = table["warmup"] if "warmup" in table else WARMUP
        assert row.kind == "real" and row.low == 0 and row.high <= 0.9, (
            f"{paper_id}: warmup must be a fraction of the run length in [0, 0.9]"
        )
    assert not hasattr(module, "simulate_until")


@pytest.mark.parametrize("paper_id", IDS)
def test_figures_and_views_follow_one_naming(paper_id):
    p = PAPERS[paper_id]
    for key, spec in p.figures.items():
        assert spec.frame.__name__ == f"{key}_frame", (
            f"{paper_id} figure {key}: frame is {spec.frame.__name__}"
        )
        assert spec.plot.__name__ == f"plot_{key}", (
            f"{paper_id} figure {key}: plot is {spec.plot.__name__}"
        )
    for key, view in p.views.items():
        assert view.__name__ == f"{key}_view", f"{paper_id} view {key} is {view.__name__}"


def _too_long(paper_id) -> list[str]:
    out = []
    for path in sorted(_package_dir(paper_id).glob("*.py")):
        text = path.read_text()
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES:
            out.append(f"{path.relative_to(ROOT)}: {lines} lines")
        if path.name == "kernels.py":
            # a compiled event loop is one loop over events by design (splitting it would
            # pass its whole state between jitted calls); its Python twin in tests/naive_*.py
            # is the readable version
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    out.append(f"{path.relative_to(ROOT)}: {node.name} is {n} lines")
    return out


@pytest.mark.parametrize("paper_id", IDS)
def test_no_oversized_module_or_function(paper_id):
    bad = _too_long(paper_id)
    assert not bad, "\n".join(bad)


def _imports_in_functions(paper_id) -> list[str]:
    out = []
    for path in sorted(_package_dir(paper_id).glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)) and sub is not node:
                        out.append(f"{path.relative_to(ROOT)}:{sub.lineno} in {node.name}")
    return sorted(set(out))


@pytest.mark.parametrize("paper_id", IDS)
def test_no_import_inside_a_function(paper_id):
    bad = _imports_in_functions(paper_id)
    assert not bad, f"{len(bad)} in-function imports:\n" + "\n".join(bad)


def _import_graph(paper_id) -> dict[str, set[str]]:
    pkg = PAPERS[paper_id].package
    stems = {p.stem for p in _package_dir(paper_id).glob("*.py")} - {"__init__"}
    graph = {}
    for path in sorted(_package_dir(paper_id).glob("*.py")):
        if path.stem == "__init__":
            continue
        deps = set()
        # every import, also those inside functions (they only hide a circle)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith(pkg + "."):
                    deps.add(node.module[len(pkg) + 1 :].split(".")[0])
                elif node.module == pkg:
                    deps |= {a.name for a in node.names if a.name in stems}
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith(pkg + "."):
                        deps.add(a.name[len(pkg) + 1 :].split(".")[0])
        graph[path.stem] = deps & stems
    return graph


def _cycles(graph) -> list[list[str]]:
    found, state = [], {}

    def visit(node, stack):
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                found.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("paper_id", IDS)
def test_no_import_circle_inside_a_package(paper_id):
    cycles = _cycles(_import_graph(paper_id))
    assert not cycles, f"import circles: {cycles}"


@pytest.mark.parametrize("paper_id", IDS)
def test_importing_a_package_stays_light(paper_id):
    code = (
        f"import sys, {PAPERS[paper_id].package}\n"
        "heavy = ['matplotlib', 'seaborn', 'ipywidgets', 'workbench.sweep']\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"import {PAPERS[paper_id].package} loads {out.stdout}"


def _code_cells(paper_id) -> list[str]:
    nb = json.loads((ROOT / PAPERS[paper_id].notebook).read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("paper_id", IDS)
def test_notebooks_show_claims_and_exercises_one_way(paper_id):
    cells = _code_cells(paper_id)
    text = "\n".join(cells)
    for other in ("check_claims(", "readable(", "load_claims(", "exercise(", "Exercise("):
        assert other not in text, f"{paper_id} notebook calls {other}: use the shared helper"
    assert f'claims_table("{paper_id}"' in text
    assert f'show("{paper_id}", 1)' in text


@pytest.mark.parametrize("paper_id", IDS)
def test_keywords_follow_the_shared_vocabulary(paper_id):
    bad = []
    for path, module in _modules(paper_id):
        for qualname, func in _functions(module):
            if qualname.startswith("_") or ".__" in qualname:
                continue
            for name in inspect.signature(func).parameters:
                if name in RETIRED_KEYWORDS:
                    bad.append(f"{path.name}: {qualname}({name}=…) → {RETIRED_KEYWORDS[name]}")
    if paper_id == "p5":  # μ is P5's mean task size, not a service rate
        sim = PAPERS["p5"].part("simulation")
        if "mu" in inspect.signature(sim.simulate).parameters:
            bad.append("simulation.py: simulate(mu=…) → task_size")
    assert not bad, "\n".join(bad)
