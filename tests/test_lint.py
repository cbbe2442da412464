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
