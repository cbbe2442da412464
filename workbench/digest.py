"""What every kept result is keyed by: one digest of the code, and one cache folder.

:func:`code_digest` hashes every source file of the package and every claims table (what
any output can depend on), optionally leaving out parts that cannot change an output (the
course-site builder leaves itself out). :func:`source_digest` is the full digest, computed
once per process. The atlas's evaluations, the results cache (:mod:`workbench.memo`) and the
site's executed notebooks are all keyed by it, so a change to the code or to a claims table
recomputes them, and nothing else does.

:func:`cache_dir` is ``$WORKBENCH_CACHE/<kind>`` (default ``~/.cache/workbench/<kind>``),
outside the repository so ``git status`` stays clean.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__: list[str] = []  # used by the atlas, the results cache and the site builder

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parent
_FULL: list[str] = []


def code_digest(
    leave_out: tuple[str, ...] = (), *, kernels_only: bool = False, package: Path = PACKAGE
) -> str:
    """A hex digest of the package's ``.py`` files and ``data/**/*.csv``.

    ``leave_out``: paths relative to the repository (a folder leaves out everything under
    it, e.g. ``"workbench/site"``) or bare file names (``"widgets.py"``).
    ``kernels_only``: only the ``.py`` files that use numba (what compiled kernels can
    depend on: :mod:`workbench._kernel_cache`). ``package``: another copy of the package."""
    repo = package.parent
    h = hashlib.blake2b(digest_size=16)
    files = sorted(package.rglob("*.py"))
    if not kernels_only:
        files += sorted((repo / "data").rglob("*.csv"))
    for path in files:
        rel = path.relative_to(repo)
        if "__pycache__" in rel.parts or any(
            rel.as_posix() == p or rel.as_posix().startswith(p.rstrip("/") + "/") or rel.name == p
            for p in leave_out
        ):
            continue
        data = path.read_bytes()
        if kernels_only and b"numba" not in data:
            continue
        h.update(rel.as_posix().encode())
        h.update(data)
    return h.hexdigest()


def source_digest() -> str:
    """The digest of all the code and claims tables (computed once per process)."""
    if not _FULL:
        _FULL.append(code_digest())
    return _FULL[0]


def cache_dir(kind: str) -> Path:
    """``$WORKBENCH_CACHE/<kind>`` (default ``~/.cache/workbench/<kind>``), created if
    missing."""
    root = os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench"
    path = Path(root).expanduser() / kind
    path.mkdir(parents=True, exist_ok=True)
    return path
