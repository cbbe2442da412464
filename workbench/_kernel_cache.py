"""numba's on-disk cache of compiled kernels, keyed by the kernels' code.

numba keys a cached kernel by its own source file only: "Cache invalidation fails to
recognize changes in symbols defined in another file" (numba's caching notes, known
limitations). The workbench's kernels call one another across files (every simulator inlines
the event queue of :mod:`workbench.kernels.events`, the arena's loop calls its policies), so
after a change to such a file a kernel cached before it would load, stale, with no warning.

Imported first by :mod:`workbench`, this module points numba at a folder named after a
digest of every source file of the package that uses numba: ``<base>/<digest>``, where
``<base>`` is ``$NUMBA_CACHE_DIR`` as the user set it (``run.sh`` sets ``.numba_cache``) or
``$WORKBENCH_CACHE/numba``. A change to any kernel file then compiles afresh, once; a change
elsewhere (a notebook view, a table) keeps the compiled kernels. The choice is passed to
child processes (kernels, workers) through the environment, so they share the folder.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__: list[str] = []

_PACKAGE = Path(__file__).resolve().parent
_BASE = "WORKBENCH_NUMBA_BASE"  # the user's cache base, remembered for child processes


def kernel_digest(package: Path = _PACKAGE) -> str:
    """A hex digest of the package's ``.py`` files that use numba (their paths and bytes)."""
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        data = path.read_bytes()
        if b"numba" in data:
            h.update(path.relative_to(package).as_posix().encode())
            h.update(data)
    return h.hexdigest()


def configure() -> str:
    """Point numba's cache at ``<base>/<kernel digest>``; returns the folder."""
    from numba.core import config

    base = os.environ.get(_BASE) or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        root = os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench"
        base = str(Path(root).expanduser() / "numba")
    folder = str(Path(base) / kernel_digest())
    os.environ[_BASE] = base
    os.environ["NUMBA_CACHE_DIR"] = folder  # numba re-reads its environment now and then
    config.CACHE_DIR = folder
    return folder


FOLDER = configure()
