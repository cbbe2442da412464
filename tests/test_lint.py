"""ruff checks and formats every .py and .ipynb (notebook outputs: tests/test_notebooks.py)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("ruff is part of the test extra but was not found next to the interpreter")
    return [exe]


@pytest.mark.parametrize("args", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(args):
    out = subprocess.run([*_ruff(), *args, "."], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_no_formatter_bypass():
    """The formatter decides every line's layout: no `fmt: skip`, `fmt: off` or `fmt: on`
    in the library, tests, benchmarks or notebooks (ruff has no rule for it)."""
    bypass = re.compile(r"#\s*fmt:\s*(skip|off|on)\b")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("workbench", "tests", "benchmarks", "notebooks")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".ipynb")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if bypass.search(line) and path.name != "test_lint.py"
    ]
    assert not found, found


def private_imports(root: Path) -> list[str]:
    """``from workbench.x import _name`` in the library under ``root``: a name one module
    needs from another is public there. A private module (``workbench._store``) is its
    package's internals, so its names and the module itself may be imported."""
    import ast

    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(
                "workbench"
            ):
                continue
            if any(part.startswith("_") for part in node.module.split(".")):
                continue
            for alias in node.names:
                parts = f"{node.module}.{alias.name}".split(".")
                submodule = root.parent.joinpath(*parts).with_suffix(".py")
                if alias.name.startswith("_") and not submodule.exists():
                    found.append(f"{path.relative_to(root.parent)}: {node.module}.{alias.name}")
    return found


def test_no_module_imports_another_modules_private_name(tmp_path):
    assert private_imports(ROOT / "workbench") == []
    # the walk sees such an import (a planted one)
    (tmp_path / "workbench").mkdir()
    (tmp_path / "workbench" / "a.py").write_text("from workbench.b import _helper, public\n")
    assert private_imports(tmp_path / "workbench") == ["workbench/a.py: workbench.b._helper"]
