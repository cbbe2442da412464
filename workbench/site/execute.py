"""Execute the notebooks for the site, once per version of the code.

Each notebook runs through papermill with its ``parameters`` cell (``QUICK``, ``SEED``) and
``WORKBENCH_STATIC=1`` (slider views drawn as pictures, :mod:`workbench.static_views`). The
executed copy is kept under ``<cache>/executed/`` named by a digest of everything that can
change its outputs: the ``workbench/`` sources, every data file (``data/**``), a registered
paper outside the repository, the versions of numpy, numba, scipy and pandas
(:func:`workbench.digest.code_digest`), the notebook itself and the parameters. A second
build with nothing changed reuses it without starting a kernel.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

from workbench import digest
from workbench.digest import cache_dir
from workbench.locks import locked

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
CELL_TIMEOUT = 900  # s


def cache_root() -> Path:
    """``$WORKBENCH_CACHE/site`` (default ``~/.cache/workbench/site``)."""
    return cache_dir("site")


def code_digest(leave_out: tuple[str, ...] = ()) -> str:
    """The digest of what every output reads (:func:`workbench.digest.code_digest`: code,
    data files, external papers, library versions), the site builder (``workbench/site/``)
    left out: it does not change what a notebook shows."""
    return digest.code_digest(leave_out=("workbench/site", *leave_out))


def notebook_digest(path: Path, code: str, parameters: dict) -> str:
    """The key of one executed notebook: ``code`` (:func:`code_digest`), the notebook's
    own bytes and its parameters."""
    h = hashlib.sha256(code.encode())
    h.update(path.read_bytes())
    h.update(repr(sorted(parameters.items())).encode())
    return h.hexdigest()[:20]


def kernel_env() -> dict:
    """The environment of the notebook kernels: this checkout first, views as pictures."""
    env = dict(os.environ)
    env["WORKBENCH_STATIC"] = "1"
    env["WORKBENCH_RESULTS_CACHE"] = "1"  # results kept for JupyterLab, Voila, the site
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba_cache"))
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return env


def execute_one(path: Path, target: Path, parameters: dict, log=print) -> Path:
    """Run ``path`` with papermill into ``target`` (written only when the run succeeded;
    a run of the same target elsewhere is waited for, then reused)."""
    import papermill

    with locked(target):
        if target.exists():
            log(f"site: {path.name} up to date (executed meanwhile)")
            return target
        t0 = time.perf_counter()
        tmp = target.with_suffix(f".running-{os.getpid()}.ipynb")
        try:
            papermill.execute_notebook(
                str(path),
                str(tmp),
                parameters=parameters,
                kernel_name="python3",
                cwd=str(path.parent),
                progress_bar=False,
                execution_timeout=CELL_TIMEOUT,
            )
            tmp.replace(target)
        finally:
            tmp.unlink(missing_ok=True)
        log(f"site: executed {path.name} in {time.perf_counter() - t0:.0f} s")
    return target


def _parameters(quick: bool, seed: int) -> dict:
    return {"QUICK": bool(quick), "SEED": int(seed)}


def executed_path(path: Path, quick: bool, seed: int = 0, code: str | None = None) -> Path:
    """Where the executed copy of ``path`` at ``quick``/``seed`` is cached (``code``: the
    :func:`code_digest`, when the caller has it already)."""
    folder = cache_root() / "executed"
    folder.mkdir(parents=True, exist_ok=True)
    digest = notebook_digest(path, code or code_digest(), _parameters(quick, seed))
    return folder / f"{path.stem}-{digest}.ipynb"


def _kernel_environment():
    """This process' environment plus :func:`kernel_env` (papermill's kernels inherit it),
    restored afterwards."""
    return mock.patch.dict(os.environ, kernel_env())


def execute_cached(path: Path, quick: bool, seed: int = 0, log=print) -> Path:
    """The executed copy of one notebook, run now unless cached: what the site shows and
    the test suite checks."""
    target = executed_path(path, quick, seed)
    if target.exists():
        return target
    with _kernel_environment():
        return execute_one(path, target, _parameters(quick, seed), log)


def planned_seconds(notebook: Path, quick: bool) -> float:
    """What a notebook's execution is planned to cost beyond its figures: its paper's claim
    atlas (``ATLAS.seconds_per_evaluation`` × evaluations), the longest cell of a notebook
    by far where it is large (P2's quick atlas: 16 evaluations of about 20 s); 0 without
    one."""
    from workbench.atlas import planned_seconds
    from workbench.registry import PAPERS, ROOT

    for p in PAPERS.values():
        if (ROOT / p.notebook).resolve() == notebook.resolve():
            spec = getattr(p.part("claims"), "ATLAS", None)
            return 0.0 if spec is None else planned_seconds(spec, p.params, quick)
    return 0.0


def execute_all(
    notebooks: list[Path], quick: bool, seed: int = 0, jobs: int = 2, log=print, then=None
) -> tuple[dict[str, Path], object]:
    """Executed copies of ``notebooks`` (stem -> path), from the cache when up to date, and
    the result of ``then()`` (or None).

    The notebooks to run are started longest-planned first (:func:`planned_seconds`) on
    ``jobs`` kernels at a time, so the longest does not start last; ``then`` is queued on the
    same slots after them, so a job that reads their results cache (the site's figures)
    finds it filled instead of computing the same figures beside them."""
    parameters = _parameters(quick, seed)
    code = code_digest()
    wanted, todo = {}, []
    for nb in notebooks:
        target = executed_path(nb, quick, seed, code)
        wanted[nb.stem] = target
        if target.exists():
            log(f"site: {nb.name} up to date (cached)")
        else:
            todo.append((nb, target))
    todo.sort(key=lambda job: -planned_seconds(job[0], quick))  # stable: teaching order next
    with _kernel_environment(), ThreadPoolExecutor(max(1, min(jobs, len(todo) + 1))) as pool:
        runs = [pool.submit(execute_one, nb, t, parameters, log) for nb, t in todo]
        after = None if then is None else pool.submit(then)
        for f in runs:
            f.result()
        return wanted, None if after is None else after.result()


def cached_figures(quick: bool, log=print) -> Path:
    """``python -m workbench reproduce all`` output (CSV + PNG), cached by the code digest."""
    # static views and widgets draw no figure of `reproduce`
    digest = code_digest(leave_out=("static_views.py", "widgets.py"))[:20]
    folder = cache_root() / "figures" / f"{'quick' if quick else 'full'}-{digest}"
    if (folder / ".complete").exists():
        log("site: figures up to date (cached)")
        return folder
    import subprocess
    import sys

    with locked(folder):
        if (folder / ".complete").exists():  # built meanwhile by another build
            log("site: figures up to date (built meanwhile)")
            return folder
        t0 = time.perf_counter()
        tmp = folder.with_name(f"{folder.name}.running-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        cmd = [sys.executable, "-m", "workbench", "reproduce", "all", "--out", str(tmp)]
        try:
            subprocess.run(
                cmd + ["--quick"] * quick,
                check=True,
                env=kernel_env(),
                cwd=REPO,
                stdout=subprocess.DEVNULL,
            )
            (tmp / ".complete").write_text("ok\n")
            shutil.rmtree(folder, ignore_errors=True)
            tmp.replace(folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    log(f"site: reproduced every figure in {time.perf_counter() - t0:.0f} s")
    return folder
