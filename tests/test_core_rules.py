"""Rules on the whole package: cached kernels (workbench.paper.code_rules), the import
contracts (import-linter, configured in pyproject.toml) and what ruff refuses."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.paper import code_rules

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"


class _Tree:
    """The whole package as a contract target (code_rules reads files() and rel())."""

    package = "workbench"

    def files(self):
        return sorted(PACKAGE.rglob("*.py"))

    def rel(self, path):
        return str(Path(path).relative_to(PACKAGE.parent))


def test_every_compiled_kernel_anywhere_is_cached():
    found = list(code_rules.kernels_cached(_Tree()))
    assert not found, found


def _lint_imports(cwd, *args):
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("import-linter is part of the test extra but lint-imports was not found")
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [exe, "--no-cache", "--no-logo", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_the_import_contracts_are_kept():
    """pyproject.toml's layers (kernels and validation < building blocks < core < papers <
    arena < site and CLI) and no import circle in any package, imports in functions counted."""
    out = _lint_imports(PACKAGE.parent)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: 2 kept, 0 broken." in out.stdout, out.stdout


def test_import_linter_sees_a_circle_closed_inside_a_function(tmp_path):
    """The tool itself, on a planted package: a circle closed only by an import inside a
    function breaks the acyclic contract, and a layer importing upwards breaks the layers."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from pkg import high\n\n    return high\n")
    (pkg / "high.py").write_text("from pkg.low import f\n")
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = pkg\n"
        "[importlinter:contract:layers]\nname = layers\ntype = layers\n"
        "containers = pkg\nlayers =\n    high\n    low\n"
        "[importlinter:contract:acyclic]\nname = acyclic\ntype = acyclic_siblings\n"
        "ancestors = pkg\n"
    )
    out = _lint_imports(tmp_path, "--config", str(tmp_path / ".importlinter"))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "pkg.low -> pkg.high (l.2)" in out.stdout, out.stdout
    assert "Contracts: 0 kept, 2 broken." in out.stdout, out.stdout


def test_ruff_refuses_an_import_by_name_in_the_library():
    """import-linter cannot see ``importlib.import_module("workbench.atlas")``: the project's
    ruff configuration refuses it in the library (TID251), outside the registry's doors."""
    code = 'import importlib\n\natlas = importlib.import_module("workbench.atlas")\n'
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    for name, refused in (("workbench/claims.py", True), ("workbench/registry.py", False)):
        out = subprocess.run(
            [ruff, "check", "--stdin-filename", name, "-"],
            input=code,
            cwd=PACKAGE.parent,
            capture_output=True,
            text=True,
        )
        assert ("TID251" in out.stdout) is refused, (name, out.stdout)


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
