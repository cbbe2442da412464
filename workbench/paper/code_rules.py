"""Rules on a paper package's code: sizes, imports, what importing it loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 150
#: what importing a paper package must not load (the views and the atlas load them on demand;
#: scikit-learn is not listed: P2 clusters with it; workbench.claims is checked without it)
HEAVY = ("matplotlib", "seaborn", "ipywidgets", "workbench.sweep")
#: the modules that must import with ipywidgets made unimportable
HEADLESS_PARTS = ("params", "model", "simulation", "figures", "claims")


def _trees(target):
    for path in target.files():
        yield path, ast.parse(path.read_text(), filename=str(path))


def module_size(target):
    """No module over 700 lines."""
    for path in target.files():
        lines = path.read_text().count("\n")
        if lines > MAX_MODULE_LINES:
            yield target.rel(path), f"{lines} lines (at most {MAX_MODULE_LINES})"


def function_size(target):
    """No function over 150 lines (compiled event loops in kernels.py excepted: one loop over
    events by design; their Python twin in the tests is the readable version)."""
    for path, tree in _trees(target):
        if path.name == "kernels.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    yield (
                        f"{target.rel(path)}:{node.lineno}",
                        f"{node.name} is {n} lines (at most {MAX_FUNCTION_LINES})",
                    )


def _jit_calls(tree):
    """Every numba decorator in ``tree``: (line, name, its keywords)."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            func = call.func if call else dec
            name = getattr(func, "id", getattr(func, "attr", ""))
            if name in ("njit", "jit"):
                yield node.lineno, node.name, {k.arg for k in call.keywords} if call else set()


def kernels_cached(target):
    """Every compiled kernel is ``@njit(cache=True)`` (a cold start compiles once, not per
    process)."""
    for path, tree in _trees(target):
        for line, name, keywords in _jit_calls(tree):
            if "cache" not in keywords:
                yield f"{target.rel(path)}:{line}", f"{name} is compiled without cache=True"


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


def import_graph(target) -> dict[str, set[str]]:
    """module stem -> the package's modules it imports (also inside functions)."""
    pkg = target.package
    stems = {p.stem for p in target.files()} - {"__init__"}
    graph = {}
    for path, tree in _trees(target):
        if path.stem == "__init__":
            continue
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:  # relative: from .x import y
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith(pkg + "."):
                    deps.add(node.module[len(pkg) + 1 :].split(".")[0])
                elif node.module == pkg:
                    deps |= {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith(pkg + "."):
                        deps.add(a.name[len(pkg) + 1 :].split(".")[0])
        graph[path.stem] = deps & stems
    return graph


def cycles(graph: dict) -> list[list[str]]:
    """Every circle of a directed graph found by a depth-first walk."""
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


def import_circles(target):
    """No import circle between the package's modules."""
    for circle in cycles(import_graph(target)):
        yield target.package, "import circle " + " → ".join(circle)


def tree_import_graph(root) -> dict[str, set[str]]:
    """Dotted module name -> the modules of the same tree it imports, at the top or inside a
    function, for every module under the package folder ``root`` (subpackages included; an
    import of a package counts as an import of its ``__init__``)."""
    root = Path(root)
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + [node.module or ""]).strip(".") if node.level else node.module
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    deps.add(sub if sub in modules else mod)
            elif isinstance(node, ast.Import):
                deps |= {alias.name for alias in node.names}
        graph[name] = {d for d in deps if d in modules} - {name}
    return graph


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
    "size.module": module_size,
    "size.function": function_size,
    "kernels.cached": kernels_cached,
    "imports.in_function": in_function_imports,
    "imports.circle": import_circles,
    "imports.light": import_light,
    "imports.headless": headless,
}
