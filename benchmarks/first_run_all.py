"""Each notebook's first Run All on a fresh clone, kernels compiled at setup.

    git clone --branch BRANCH /path/to/workbench /tmp/fresh
    .venv/bin/python benchmarks/first_run_all.py --repo /tmp/fresh --setup --out times.json

``--repo`` is a checkout whose ``.numba_cache`` and results cache are empty (a fresh clone):
the script never reads this checkout's caches. With ``--setup`` it first runs the setup step
of ``run.sh`` that compiles the kernels (``python -m workbench compile``, both cores), and
times it. Then it executes each notebook of ``<repo>/notebooks`` as a lecturer's first "Run
All" would, one at a time: a fresh kernel (the notebook's own defaults, ``QUICK = True``,
live widgets as in JupyterLab), every cell in order, nothing kept from the notebooks run
before it except what a lecturer's machine keeps too (the compiled kernels and the results
cache, ``<repo>/.wbcache`` unless ``--results-cache`` says otherwise).

Each run happens in a child process (nbclient and its kernel), so its CPU time is the
child's and the kernel's user + system time (``RUSAGE_CHILDREN``: the kernel is waited for
when nbclient shuts it down) and includes the kernel's start and its imports. The machine
may be shared: CPU seconds are the figure to compare, wall time is printed with the
1-minute load average at the start and the end of the run. Rows of the README's Measured
table come from this script's output (``--markdown``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNNER = r"""
import asyncio, json, os, resource, sys, time
from datetime import datetime
import nbformat
from nbclient import NotebookClient

path, cell_timeout = sys.argv[1], float(sys.argv[2])
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, kernel_name="python3", timeout=cell_timeout, startup_timeout=180,
                        allow_errors=False)
error = ""
try:
    client.execute(cwd=os.path.dirname(path))
except Exception as exc:  # reported, not raised: the next notebook still runs
    error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}"
worst, where = 0.0, -1
for i, cell in enumerate(nb.cells):
    ex = cell.get("metadata", {}).get("execution", {})
    start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    if start and end:
        sec = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
        if sec > worst:
            worst, where = sec, i
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"error": error, "slowest_cell": where, "slowest_cell_s": round(worst, 1),
                  "kernel_cpu_s": round(kids.ru_utime + kids.ru_stime, 1)}))
"""


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(cmd: list[str], env: dict, cwd: Path, timeout: float) -> dict:
    """Run ``cmd``; its wall and CPU seconds (it and its waited-for descendants), the load."""
    load0, cpu0, t0 = os.getloadavg()[0], _cpu_children(), time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    return {
        "returncode": done.returncode,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "load_start": round(load0, 1),
        "load_end": round(os.getloadavg()[0], 1),
        "stdout": done.stdout,
        "stderr": done.stderr[-2000:],
    }


def environment(repo: Path, results_cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "WORKBENCH_STATIC")}
    env["PYTHONPATH"] = str(repo)
    env["NUMBA_CACHE_DIR"] = str(repo / ".numba_cache")
    env["WORKBENCH_CACHE"] = str(results_cache)
    return env


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a fresh clone")
    ap.add_argument("--setup", action="store_true", help="compile the kernels first (timed)")
    ap.add_argument("--results-cache", type=Path, help="default: <repo>/.wbcache")
    ap.add_argument("--only", nargs="*", help="notebook stems (default: every notebook)")
    ap.add_argument("--cell-timeout", type=float, default=1800.0)
    ap.add_argument("--out", type=Path, help="write the results as JSON")
    ap.add_argument("--markdown", type=Path, help="print the table of a --out file and exit")
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    repo = args.repo.resolve()
    cache = (args.results_cache or repo / ".wbcache").resolve()
    env = environment(repo, cache)
    stale = [p for p in (repo / ".numba_cache", cache) if p.exists() and any(p.iterdir())]
    if args.setup and stale:
        print(f"warning: not empty, so not a fresh clone: {', '.join(map(str, stale))}")
    results: dict = {"repo": str(repo), "python": sys.executable, "cpus": os.cpu_count()}
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    results["commit"] = commit.stdout.strip()
    if args.setup:
        r = _timed([sys.executable, "-m", "workbench", "compile"], env, repo, 3600)
        r.pop("stdout")
        results["setup"] = r
        print(
            f"setup (workbench compile): {r['cpu_s']} CPU-s, {r['wall_s']} s wall, "
            f"load {r['load_start']}–{r['load_end']}, exit {r['returncode']}",
            flush=True,
        )
    notebooks = sorted((repo / "notebooks").glob("*.ipynb"))
    if args.only:
        notebooks = [p for p in notebooks if p.stem in args.only]
    results["notebooks"] = []
    with tempfile.TemporaryDirectory(prefix="wb-first-run-") as tmp:
        runner = Path(tmp) / "runner.py"
        runner.write_text(RUNNER)
        for nb in notebooks:
            cmd = [sys.executable, str(runner), str(nb), str(args.cell_timeout)]
            r = _timed(cmd, env, repo, args.cell_timeout * 4)
            last = (r.pop("stdout").strip().splitlines() or ["{}"])[-1]
            try:
                r.update(json.loads(last))
            except json.JSONDecodeError:
                r["error"] = f"runner failed: {r['stderr'][-300:]}"
            r.pop("stderr")
            r["notebook"] = nb.name
            results["notebooks"].append(r)
            print(
                f"{nb.name}: {r['cpu_s']} CPU-s, {r['wall_s']} s wall (load "
                f"{r['load_start']}–{r['load_end']}), slowest cell {r.get('slowest_cell')} "
                f"{r.get('slowest_cell_s')} s{'; ' + r['error'] if r.get('error') else ''}",
                flush=True,
            )
            if args.out:
                args.out.write_text(json.dumps(results, indent=1))
    failed = [r["notebook"] for r in results["notebooks"] if r.get("error") or r["returncode"]]
    return 1 if failed else 0


def markdown(results: dict) -> str:
    rows = [
        "| step | CPU-s | wall s | load (1 min) at start–end | slowest cell |",
        "| --- | --- | --- | --- | --- |",
    ]
    if "setup" in results:
        s = results["setup"]
        rows.append(
            f"| setup: `python -m workbench compile` | {s['cpu_s']:.0f} | "
            f"{s['wall_s']:.0f} | {s['load_start']:g}–{s['load_end']:g} | |"
        )
    for r in results["notebooks"]:
        rows.append(
            f"| `{r['notebook']}` Run All | {r['cpu_s']:.0f} | {r['wall_s']:.0f} | "
            f"{r['load_start']:g}–{r['load_end']:g} | "
            f"{r.get('slowest_cell')}: {r.get('slowest_cell_s')} s |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
