"""One exclusive file lock, for work that two processes must not do side by side."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock

__all__: list[str] = []  # used by the results cache and the course site, not by users


def locked(path: Path) -> FileLock:
    """An exclusive lock on ``path`` + ``.lock``, used as ``with locked(path): ...``: two
    processes (two site builds, the test suite and a build, a notebook and a test) wanting
    the same cached output wait for each other instead of both computing it. Released when
    the block ends, or by the system when the process dies."""
    path = Path(path)
    lock = path.with_name(path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(lock)
