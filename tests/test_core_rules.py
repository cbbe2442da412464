"""The rules the paper contract sets (workbench.paper.code_rules), applied to the whole
package: the core, the building blocks, the arena, the site builder and the scaffold too."""

from __future__ import annotations

import ast
from pathlib import Path

from workbench.paper import code_rules

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"


class _Tree:
    """The whole package as a contract target (code_rules reads files() and rel())."""

    package = "workbench"

    def files(self):
        return sorted(PACKAGE.rglob("*.py"))

    def rel(self, path):
        return str(Path(path).relative_to(PACKAGE.parent))


def test_no_module_over_700_lines_and_no_function_over_150_anywhere():
    found = [*code_rules.module_size(_Tree()), *code_rules.function_size(_Tree())]
    assert not found, "\n".join(f"{where}: {what}" for where, what in found)


def test_every_compiled_kernel_anywhere_is_cached():
    found = list(code_rules.kernels_cached(_Tree()))
    assert not found, found


def test_no_import_circle_in_the_package_counting_imports_inside_functions():
    graph = code_rules.tree_import_graph(PACKAGE)
    assert len(graph) > 100 and graph["workbench.memo"] >= {"workbench.digest"}
    assert "workbench.controls" in graph["workbench.static_views"]  # an in-function import
    circles = code_rules.cycles(graph)
    assert not circles, "\n".join(" → ".join(c) for c in circles)


def test_the_graph_sees_a_circle_through_a_function_level_import(tmp_path):
    """The checker itself: a circle closed only by an import inside a function is found,
    and so is one through a relative import of a sibling."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from pkg import a\n    return a\n")
    (pkg / "sub" / "__init__.py").write_text("from .c import g\n")
    (pkg / "sub" / "c.py").write_text("from . import g as _g\ndef g():\n    pass\n")
    graph = code_rules.tree_import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.sub"] == {"pkg.sub.c"} and graph["pkg.sub.c"] == {"pkg.sub"}
    assert sorted(map(tuple, code_rules.cycles(graph))) == [
        ("pkg.a", "pkg.b", "pkg.a"),
        ("pkg.sub", "pkg.sub.c", "pkg.sub"),
    ]


def test_no_module_sets_attributes_on_figures_or_uses_private_widget_state():
    """Modules talk through explicit objects: no ``fig.wb_*`` attribute, no ipywidgets'
    private ``_dom_classes``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and (
                node.attr.startswith("wb_") or node.attr == "_dom_classes"
            ):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} .{node.attr}")
    assert not found, found
