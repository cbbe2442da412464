"""What every kept result is keyed by: one digest of what it reads, and one cache folder.

A kept result (the results cache :mod:`workbench.memo`, the atlas's evaluations, the site's
executed notebooks) is keyed by everything its output can read:

- the package's code (every ``workbench/**/*.py``);
- every data file (``data/**``: the scenarios, the claims tables, traces);
- a registered paper package outside the repository (an installed distribution's entry
  point, :func:`workbench.registry.installed`): every file of the package, its
  ``paper.json`` included, and its claims table;
- the versions of the libraries that compute the numbers (:data:`LIBRARIES`) and Python's.

:func:`code_digest` hashes them, optionally leaving out parts that cannot change an output
(the course-site builder leaves itself out); :func:`source_digest` is the full digest,
computed once per process. numba's compiled kernels are keyed apart, by the
files that use numba and the versions of numba and numpy (:mod:`workbench._kernel_cache`).

:func:`cache_dir` is ``$WORKBENCH_CACHE/<kind>`` (default ``~/.cache/workbench/<kind>``),
outside the repository so ``git status`` stays clean; :func:`usable_cache_dir` is the same
folder, or None with one warning when it cannot be written (the caller then computes
without the cache).
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from pathlib import Path

__all__: list[str] = []  # used by the atlas, the results cache and the site builder

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parent
#: the data folder every output may read (scenarios, claims tables, traces)
DATA = REPO / "data"
#: the libraries whose version can change a number the workbench computes
LIBRARIES = ("numpy", "numba", "scipy", "pandas")
#: what numba's compiled kernels read besides their source files
KERNEL_LIBRARIES = ("numpy", "numba")
_FULL: list[str] = []
_WARNED: set[str] = set()


class CacheDirError(OSError):
    """The cache folder cannot be created or written."""


def library_versions(names: tuple[str, ...] = LIBRARIES) -> str:
    """``name=version`` of each library (read from its metadata, without importing it) and
    of Python, one per line."""
    from importlib import metadata

    lines = [f"python={sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}"]
    for name in names:
        try:
            lines.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name}=absent")
    return "\n".join(lines)


def _external_paper_files() -> list[tuple[str, Path]]:
    """``(label, file)`` of every registered paper outside ``workbench/``: its package's
    files (its ``paper.json`` among them) and its claims table."""
    import importlib.util

    out: list[tuple[str, Path]] = []
    try:
        from workbench.registry import PAPERS
    except Exception:  # noqa: BLE001 - a broken registry reads no paper: nothing to key by
        return out
    for p in PAPERS.values():
        if p.package.startswith("workbench."):
            continue
        try:
            spec = importlib.util.find_spec(p.package)
        except (ImportError, ValueError):
            spec = None
        roots = list(getattr(spec, "submodule_search_locations", None) or [])
        if spec is not None and not roots and spec.origin:
            out.append((f"paper:{p.id}:module", Path(spec.origin)))
        for root in roots:
            for path in sorted(Path(root).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    out.append((f"paper:{p.id}:{path.relative_to(root).as_posix()}", path))
        out.append((f"paper:{p.id}:claims", p.claims_path))
    return [o for o in out if o[1].is_file()]


def code_digest(
    leave_out: tuple[str, ...] = (),
    *,
    kernels_only: bool = False,
    package: Path = PACKAGE,
) -> str:
    """A hex digest of what an output can read (see the module docstring).

    ``leave_out``: paths relative to the repository (a folder leaves out everything under
    it, e.g. ``"workbench/site"``) or bare file names (``"widgets.py"``).
    ``kernels_only``: only the ``.py`` files that use numba and the versions of
    :data:`KERNEL_LIBRARIES` (what compiled kernels can depend on:
    :mod:`workbench._kernel_cache`). ``package``: another copy of the package (its data:
    the ``data/`` folder beside it; this package's is :data:`DATA`)."""
    repo = package.parent
    data = DATA if package == PACKAGE else repo / "data"
    h = hashlib.blake2b(digest_size=16)
    h.update(library_versions(KERNEL_LIBRARIES if kernels_only else LIBRARIES).encode())
    files = [(p.relative_to(repo).as_posix(), p) for p in sorted(package.rglob("*.py"))]
    if not kernels_only:
        files += [
            ("data/" + p.relative_to(data).as_posix(), p)
            for p in sorted(data.rglob("*"))
            if p.is_file()
        ]
        if package == PACKAGE:
            files += _external_paper_files()
    for rel, path in files:
        parts = rel.split("/")
        if "__pycache__" in parts or any(
            rel == p or rel.startswith(p.rstrip("/") + "/") or parts[-1] == p for p in leave_out
        ):
            continue
        content = path.read_bytes()
        if kernels_only and b"numba" not in content:
            continue
        h.update(f"\0{rel}\0{len(content)}\0".encode())
        h.update(content)
    return h.hexdigest()


def source_digest() -> str:
    """The digest of everything an output reads (computed once per process)."""
    if not _FULL:
        _FULL.append(code_digest())
    return _FULL[0]


def cache_dir(kind: str) -> Path:
    """``$WORKBENCH_CACHE/<kind>`` (default ``~/.cache/workbench/<kind>``), created if
    missing; a :class:`CacheDirError` naming the folder when it cannot be created."""
    root = os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench"
    path = Path(root).expanduser() / kind
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheDirError(
            f"the workbench's cache folder {str(path)!r} cannot be created "
            f"({exc.strerror or exc}); set WORKBENCH_CACHE to a writable folder"
        ) from exc
    return path


def usable_cache_dir(kind: str) -> Path | None:
    """:func:`cache_dir`, or None when it cannot be created or written: the caller computes
    without the cache. Warns once per process and cache root, not at every call."""
    try:
        path = cache_dir(kind)
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return path
    except OSError as exc:
        root = str(os.environ.get("WORKBENCH_CACHE") or "~/.cache/workbench")
        if root not in _WARNED:
            _WARNED.add(root)
            why = str(exc) if isinstance(exc, CacheDirError) else f"{path}: {exc}"
            warnings.warn(
                f"workbench: computing without a cache ({why})", RuntimeWarning, stacklevel=3
            )
        return None
