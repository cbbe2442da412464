"""Rules on a paper package's code: cached kernels, imports, what importing it loads.

Inside the repository ruff and import-linter keep the rest (sizes, layers, circles everywhere;
``pyproject.toml``); these rules also hold a package checked from outside it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable

import grimp

from workbench.paper.graph_rules import jit_keywords

#: what importing a paper package must not load (the views and the atlas load them on demand;
#: scikit-learn is not listed: P2 clusters with it; workbench.claims is checked without it)
HEAVY = ("matplotlib", "seaborn", "ipywidgets", "workbench.sweep")
#: the modules that must import with ipywidgets made unimportable
HEADLESS_PARTS = ("params", "model", "simulation", "figures", "claims")


def _trees(target):
    for path in target.files():
        yield path, ast.parse(path.read_text(), filename=str(path))


def kernels_cached(target):
    """Every compiled kernel is ``@njit(cache=True)`` (a cold start compiles once, not per
    process)."""
    for path, tree in _trees(target):
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            keywords = jit_keywords(node)
            if keywords is not None and "cache" not in keywords:
                where = f"{target.rel(path)}:{node.lineno}"
                yield where, f"{node.name} is compiled without cache=True"


def in_function_imports(target):
    """No import inside a function body (it hides a dependency and an import circle)."""
    seen = set()
    for path, tree in _trees(target):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if (
                        isinstance(sub, (ast.Import, ast.ImportFrom))
                        and (path, sub.lineno) not in seen
                    ):
                        seen.add((path, sub.lineno))
                        yield f"{target.rel(path)}:{sub.lineno}", f"import inside {node.name}"


def import_circles(target):
    """No import circle between the package's modules (grimp, import-linter's graph; imports
    inside functions count)."""
    top = target.package.partition(".")[0]  # grimp builds graphs of top-level packages
    graph = grimp.build_graph(top, cache_dir=None)
    for importer, imported in sorted(graph.nominate_cycle_breakers(target.package)):
        yield target.package, f"import circle through {importer} → {imported}"


def _run(target, code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=target.python_env(),
        timeout=300,
    )


def import_light(target):
    """Importing the package loads neither matplotlib, seaborn, ipywidgets nor the sweep
    engine."""
    code = f"import sys, {target.package}\nprint([m for m in {HEAVY!r} if m in sys.modules])"
    out = _run(target, code)
    if out.returncode:
        yield target.package, f"does not import: {out.stderr.strip()[-600:]}"
    elif out.stdout.strip() != "[]":
        yield target.package, f"importing it loads {out.stdout.strip()}"


def headless(target):
    """With ipywidgets made unimportable, the model side (params, model, simulation,
    figures, claims) still imports; only views needs it."""
    parts = [p for p in HEADLESS_PARTS if (target.dir / f"{p}.py").exists()]
    code = "import sys; sys.modules['ipywidgets'] = None\n" + "\n".join(
        f"import {target.package}.{p}" for p in parts
    )
    out = _run(target, code)
    if out.returncode:
        yield target.package, f"the model side needs ipywidgets: {out.stderr.strip()[-600:]}"


RULES: dict[str, Callable] = {
    "kernels.cached": kernels_cached,
    "imports.in_function": in_function_imports,
    "imports.circle": import_circles,
    "imports.light": import_light,
    "imports.headless": headless,
}
