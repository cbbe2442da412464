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

import os
from pathlib import Path

from workbench.digest import PACKAGE, cache_dir, code_digest

__all__: list[str] = []

_BASE = "WORKBENCH_NUMBA_BASE"  # the user's cache base, remembered for child processes


def kernel_digest(package: Path = PACKAGE) -> str:
    """A hex digest of the package's ``.py`` files that use numba (their paths and bytes)."""
    return code_digest(kernels_only=True, package=package)


def configure() -> str:
    """Point numba's cache at ``<base>/<kernel digest>``; returns the folder."""
    from numba.core import config

    base = os.environ.get(_BASE) or os.environ.get("NUMBA_CACHE_DIR") or str(cache_dir("numba"))
    folder = str(Path(base) / kernel_digest())
    os.environ[_BASE] = base
    os.environ["NUMBA_CACHE_DIR"] = folder  # numba re-reads its environment now and then
    config.CACHE_DIR = folder
    return folder


FOLDER = configure()
