"""numba's on-disk cache of compiled kernels, keyed by the kernels' code.

numba keys a cached kernel by its own source file only: "Cache invalidation fails to
recognize changes in symbols defined in another file" (numba's caching notes, known
limitations). The workbench's kernels call one another across files (every simulator inlines
the event queue of :mod:`workbench.kernels.events`, the arena's loop calls its policies), so
after a change to such a file a kernel cached before it would load, stale, with no warning.

Imported first by :mod:`workbench`, this module points numba at a folder named after a
digest of every source file of the package that uses numba and of the versions of numba and
numpy: ``<base>/<digest>``, where ``<base>`` is ``$NUMBA_CACHE_DIR`` as the user set it
(``run.sh`` sets ``.numba_cache``) or ``$WORKBENCH_CACHE/numba``. A change to any kernel file
or an upgrade of numba or numpy then compiles afresh, once; a change elsewhere (a notebook
view, a table) keeps the compiled kernels. The choice is passed to child processes
(kernels, workers) through the environment, so they share the folder.

When ``$WORKBENCH_CACHE`` cannot be written, ``import workbench`` still works: one warning,
and the kernels are compiled into a folder of this process (removed at exit) instead of
numba's fallback, a ``__pycache__`` beside the sources keyed by each file alone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from workbench.digest import PACKAGE, code_digest, usable_cache_dir

__all__: list[str] = []

_BASE = "WORKBENCH_NUMBA_BASE"  # the user's cache base, remembered for child processes


def kernel_digest(package: Path = PACKAGE) -> str:
    """A hex digest of the package's ``.py`` files that use numba (their paths and bytes)
    and of the versions of numba and numpy."""
    return code_digest(kernels_only=True, package=package)


def configure() -> str:
    """Point numba's cache at ``<base>/<kernel digest>``; returns the folder."""
    from numba.core import config

    base = os.environ.get(_BASE) or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        usable = usable_cache_dir("numba")  # None: one warning, then a folder of our own
        base = str(usable) if usable is not None else _private_folder()
    folder = str(Path(base) / kernel_digest())
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # NUMBA_CACHE_DIR as the user set it, but not writable
        warnings.warn(
            f"workbench: numba's cache folder {folder!r} cannot be created ({exc}); "
            "compiling into a folder of this process",
            RuntimeWarning,
            stacklevel=2,
        )
        base = _private_folder()
        folder = str(Path(base) / kernel_digest())
    os.environ[_BASE] = base
    os.environ["NUMBA_CACHE_DIR"] = folder  # numba re-reads its environment now and then
    config.CACHE_DIR = folder
    return folder


def _private_folder() -> str:
    """A folder of this process' own for compiled kernels, removed when it exits."""
    folder = tempfile.mkdtemp(prefix="workbench-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


FOLDER = configure()
