"""numba's cache folder follows the kernels' code (workbench._kernel_cache).

numba itself re-compiles a cached kernel only when the kernel's own file changes; the
workbench's kernels inline code from other files (the event queue), so the folder is named
after a digest of every file that uses numba."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from workbench import _kernel_cache

PACKAGE = Path(_kernel_cache.__file__).resolve().parent


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "workbench"
    shutil.copytree(PACKAGE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def test_a_change_to_a_shared_kernel_file_changes_the_folder_and_a_view_does_not(tmp_path):
    copy = _copy(tmp_path)
    before = _kernel_cache.kernel_digest(copy)
    assert before == _kernel_cache.kernel_digest(PACKAGE)
    # a view or a table: no numba in it, the compiled kernels stay valid
    (copy / "tables.py").write_text((copy / "tables.py").read_text() + "\n# a comment\n")
    assert _kernel_cache.kernel_digest(copy) == before
    # the event queue every simulator inlines: numba alone would keep the stale kernels
    events = copy / "kernels" / "events.py"
    events.write_text(events.read_text().replace("(pos - 1) >> 2", "(pos - 1) // 4"))
    assert _kernel_cache.kernel_digest(copy) != before


def test_numba_and_child_processes_use_the_digest_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("WORKBENCH_NUMBA_BASE",)}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "nc")
    code = (
        "import os, subprocess, sys, workbench; from numba.core import config; "
        "print(config.CACHE_DIR); sys.stdout.flush(); "
        "subprocess.run([sys.executable, '-c', 'import workbench; "
        "from numba.core import config; print(config.CACHE_DIR)'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    expected = str(tmp_path / "nc" / _kernel_cache.kernel_digest())
    assert out == [expected, expected]


def test_the_folder_follows_the_versions_of_numba_and_numpy_only(monkeypatch):
    """A kernel compiled by another numba or against another numpy is not loaded; another
    pandas or scipy (no kernel reads them) keeps the compiled kernels."""
    from importlib import metadata

    real, before = metadata.version, _kernel_cache.kernel_digest()
    for library, changes in (("numba", True), ("numpy", True), ("pandas", False), ("scipy", False)):
        with monkeypatch.context() as m:
            m.setattr(metadata, "version", lambda n, lib=library: "0.0" if n == lib else real(n))
            assert (_kernel_cache.kernel_digest() != before) is changes, library
