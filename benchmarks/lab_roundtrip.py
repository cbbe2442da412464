"""Open, run and close every notebook in JupyterLab, then ask git whether anything changed.

    .venv/bin/python benchmarks/lab_roundtrip.py --repo /path/to/checkout [--only p1_fog]

For each notebook of ``<repo>/notebooks``: ``git clone --local`` the repo into a temporary
folder (so ``git status`` sees exactly what JupyterLab wrote), start JupyterLab on the clone's
notebooks as ``run.sh lab`` does (the workbench's options, the clone's own ``workbench`` on
``PYTHONPATH``; Lab autosaves every 10 s here), open the notebook in headless Chromium, Run
All, wait until the kernel is idle, wait for Lab's next autosave of the file, save once more
(Ctrl+S's command), shut the kernel down and close the tab, stop the server, and print
``git status --porcelain`` of the clone (with the diff's first lines when it is dirty).
A summary line ends the output; the exit status is 1 when any notebook left the tree dirty
(2 when a notebook could not be run at all).

The machinery (servers, Chromium) is this script's own repo's ``tests/browser_support.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from classroom_screenshots import open_notebook  # this folder: one way to open a notebook in Lab

HERE = Path(__file__).resolve().parents[1]
NUMBA_CACHE = Path(tempfile.gettempdir()) / "wb-classroom-numba"
RUN_ALL_TIMEOUT_MS = 420_000
AUTOSAVE_TIMEOUT_S = 90.0
DIFF_LINES = 40


def _git(clone: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True)
    return done.stdout


def roundtrip(page, server, notebook: str, served: Path) -> dict:
    """Open, Run All, autosave, save, shut down, close. Returns timings and what happened."""
    t0 = time.monotonic()
    info: dict = {}
    open_notebook(page, server, notebook, "wb-roundtrip")
    page.evaluate(
        """async () => { const w = window.jupyterapp.shell.currentWidget;
            await w.context.ready; await w.sessionContext.ready; }"""
    )
    page.wait_for_function(
        """() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;
            const k = s.session && s.session.kernel; return !!k && k.status === 'idle'; }""",
        timeout=120_000,
    )
    info["kernel_s"] = round(time.monotonic() - t0, 1)
    page.evaluate(
        """() => { window.__wbRunAll = 'running';
            window.jupyterapp.commands.execute('notebook:run-all-cells').then(
                (ok) => { window.__wbRunAll = ok === false ? 'failed' : 'done'; },
                (e) => { window.__wbRunAll = 'error: ' + e; }); }"""
    )
    page.wait_for_function("() => window.__wbRunAll !== 'running'", timeout=RUN_ALL_TIMEOUT_MS)
    info["run_all"] = page.evaluate("() => window.__wbRunAll")
    page.wait_for_function(
        """() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;
            const k = s.session && s.session.kernel; return !!k && k.status === 'idle'; }""",
        timeout=RUN_ALL_TIMEOUT_MS,
    )
    info["run_all_s"] = round(time.monotonic() - t0, 1)
    info["errors"] = page.evaluate(
        """() => { const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
            let n = 0;
            for (let i = 0; i < cells.length; i++) { const c = cells.get(i);
                for (let j = 0; c.type === 'code' && j < c.outputs.length; j++)
                    if (c.outputs.get(j).toJSON().output_type === 'error') n++; }
            return n; }"""
    )
    mtime = served.stat().st_mtime_ns  # the autosave that comes after the run
    deadline = time.monotonic() + AUTOSAVE_TIMEOUT_S
    while served.stat().st_mtime_ns == mtime and time.monotonic() < deadline:
        time.sleep(0.5)  # JupyterLab's own autosave, no user action
    info["autosaved"] = served.stat().st_mtime_ns != mtime
    info["autosave_s"] = round(time.monotonic() - t0, 1)
    info["saved"] = page.evaluate(
        """() => window.jupyterapp.commands.execute('docmanager:save').then(
            () => 'saved', (e) => 'error: ' + e)"""
    )
    page.evaluate(
        """async () => { const w = window.jupyterapp.shell.currentWidget;
            await Promise.race([w.sessionContext.shutdown(),
                                new Promise((resolve) => setTimeout(resolve, 10000))]);
            w.close(); }"""
    )
    with contextlib.suppress(Exception):  # "save your changes?" if the model is dirty again
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
        info["close_dialog"] = "answered 'Save'"
    page.wait_for_timeout(1500)
    info["total_s"] = round(time.monotonic() - t0, 1)
    return info


def _stop(signum, _frame):
    raise SystemExit(f"stopped by signal {signum}")  # the finally blocks stop the servers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="checkout to clone and test")
    ap.add_argument("--only", nargs="+", default=[], metavar="NOTEBOOK", help="name stems")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    notebooks = sorted((repo / "notebooks").glob("*.ipynb"))
    if args.only:
        notebooks = [nb for nb in notebooks if nb.stem in args.only or nb.name in args.only]
    signal.signal(signal.SIGTERM, _stop)
    os.environ["NUMBA_CACHE_DIR"] = str(NUMBA_CACHE)
    os.environ["WB_ARTIFACTS_DIR"] = tempfile.mkdtemp(prefix="wb-roundtrip-art-")
    os.environ.pop("MPLBACKEND", None)
    for path in (HERE / "tests", HERE):
        sys.path.insert(0, str(path))
    import browser_support as bs
    import pytest

    commit = _git(repo, "rev-parse", "--short", "HEAD").strip()
    print(f"lab_roundtrip: {repo} at {commit}, {len(notebooks)} notebooks", flush=True)
    t_start = time.monotonic()
    dirty, broken = [], []
    tmp = Path(tempfile.mkdtemp(prefix="wb-roundtrip-"))
    try:
        with bs.chromium() as browser:
            for nb in notebooks:
                clone = tmp / f"clone-{nb.stem}"
                subprocess.run(
                    [
                        "git",
                        "-c",
                        "advice.detachedHead=false",
                        "clone",
                        "--quiet",
                        "--local",
                        str(repo),
                        str(clone),
                    ],
                    check=True,
                )
                os.environ["PYTHONPATH"] = str(clone)  # the clone's hooks and package
                info: dict = {}
                try:
                    with bs.lab_server(clone / "notebooks", tmp / f"home-{nb.stem}") as server:
                        context = browser.new_context(viewport={"width": 1400, "height": 1000})
                        try:
                            info = roundtrip(
                                context.new_page(), server, nb.name, clone / "notebooks" / nb.name
                            )
                        finally:
                            context.close()
                except (Exception, pytest.fail.Exception) as err:
                    info["failed"] = f"{type(err).__name__}: {str(err)[:300]}"
                    broken.append(nb.name)
                status = _git(clone, "status", "--porcelain")
                print(f"== {nb.name}: {info}", flush=True)
                print(f"git status --porcelain: {status.strip() or '(clean)'}", flush=True)
                if status.strip():
                    dirty.append(nb.name)
                    diff = _git(clone, "diff").splitlines()
                    print("\n".join(diff[:DIFF_LINES]))
                    if len(diff) > DIFF_LINES:
                        print(f"... ({len(diff) - DIFF_LINES} more diff lines)")
                shutil.rmtree(clone, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(os.environ["WB_ARTIFACTS_DIR"], ignore_errors=True)
    clean = len(notebooks) - len(dirty)
    print(
        f"SUMMARY: {clean}/{len(notebooks)} notebooks leave git status clean after open, "
        f"run all, autosave, save, close; dirty: {dirty or 'none'}; not run: "
        f"{broken or 'none'}; {time.monotonic() - t_start:.0f} s"
    )
    return 1 if dirty else (2 if broken else 0)


if __name__ == "__main__":
    sys.exit(main())
