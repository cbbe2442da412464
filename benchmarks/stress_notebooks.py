"""Execute notebooks many times in a row and count stalls (a kernel that stops answering).

    .venv/bin/python benchmarks/stress_notebooks.py --runs 50 notebooks/p4_redundancy.ipynb

Each run starts a fresh kernel (ipc transport) and executes every cell with nbclient; a
cell that produces no reply within ``--cell-timeout`` seconds is a stall (the cell is named).
Each run's kernel is shut down after it (nbclient leaves a given kernel manager's kernel
running otherwise: 100 leaked kernels once starved a run into a false "stall"). Prints one
line a
run and a summary with the ipykernel version, so runs with ipykernel 6 and 7 compare.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ipykernel
import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError


def _slowest_cell(nb) -> str:
    """`` (slowest cell i: t s)`` from nbclient's execution timestamps."""
    from datetime import datetime

    worst, where = 0.0, -1
    for i, cell in enumerate(nb.cells):
        ex = cell.get("metadata", {}).get("execution", {})
        start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
        if start and end:
            sec = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
            if sec > worst:
                worst, where = sec, i
    return f" (slowest cell {where}: {worst:.1f} s)"


def run_once(path: Path, cell_timeout: float) -> tuple[str, float]:
    nb = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    with tempfile.TemporaryDirectory(prefix="wb-stress-", dir="/tmp") as runtime:
        km = AsyncKernelManager(
            kernel_name="python3",
            transport="ipc",
            connection_file=os.path.join(runtime, "kernel.json"),
        )
        client = NotebookClient(nb, km=km, timeout=cell_timeout, startup_timeout=120)
        client.owns_km = True  # else nbclient leaves the kernel of a given manager running
        t0 = time.perf_counter()
        try:
            asyncio.run(client.async_execute(env=env, cwd=str(path.parent)))
            status = "ok" + _slowest_cell(nb)
        except CellTimeoutError as err:
            status = "STALL in: " + " ".join(str(err).split())[:160]
        except DeadKernelError:
            status = "dead kernel"
        except CellExecutionError as err:
            status = f"error: {str(err).strip().splitlines()[-1][:120]}"
        return status, time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--cell-timeout", type=float, default=180.0)
    args = parser.parse_args(argv)
    print(f"ipykernel {ipykernel.__version__}, {args.runs} runs each", flush=True)
    bad = 0
    for path in args.notebooks:
        statuses, seconds = [], []
        for i in range(args.runs):
            status, sec = run_once(path.resolve(), args.cell_timeout)
            statuses.append(status)
            seconds.append(sec)
            print(f"{path.name} run {i + 1}: {status} in {sec:.1f} s", flush=True)
        stalls = sum(s.startswith("STALL") for s in statuses)
        oks = sum(s.startswith("ok") for s in statuses)
        others = len(statuses) - stalls - oks
        bad += stalls + others
        print(
            f"SUMMARY {path.name}: {oks}/{args.runs} ok, {stalls} stalls, "
            f"{others} other failures; median {statistics.median(seconds):.1f} s, "
            f"max {max(seconds):.1f} s",
            flush=True,
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
