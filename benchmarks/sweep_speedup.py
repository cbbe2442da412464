"""Sweep engine timings: the 1 -> 2 worker speed-up on Dask and on joblib, and the overhead.

    PYTHONPATH=$PWD python benchmarks/sweep_speedup.py [--evals 40] [--seconds 0.5]

1. The same sweep (``--evals`` evaluations of ~``--seconds`` s of real CPU work each,
   single-threaded numpy arithmetic, no sleep) on a local Dask cluster of 1 and of 2 worker
   processes (one thread each), and locally with ``n_workers=1`` (in this process) and
   ``n_workers=2`` (joblib's loky pool); prints each time and the 1 -> 2 speed-up.
2. The per-evaluation overhead of the engine on 200 trivial evaluations, ``n_workers=1`` and
   ``2``, for this engine and the hand-written one it replaced (``git show
   bbf540f:workbench/sweep.py``, loaded from git when the repository has that commit).

A speed-up needs two idle cores: on a shared machine it measures the load as well.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from workbench.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "bbf540f"


def cpu_work(x, *, seed, rounds):
    """``rounds`` rounds of single-threaded elementwise numpy arithmetic; also returns the
    CPU seconds it got (``cpu``), to tell a slow run from a crowded machine."""
    cpu = time.process_time()
    a = np.random.default_rng(seed).random(200_000)
    b = np.empty_like(a)
    for _ in range(rounds):  # in place: no allocation, so no page faults to measure (Dask
        np.multiply(a, a, out=b)  # sets MALLOC_TRIM_THRESHOLD_=65536, also for later loky
        b += 1.0  # workers: fresh temporaries then cost ~5x the CPU)
        np.sqrt(b, out=b)
        np.subtract(b, 0.999, out=a)
    return {"value": float(a.sum()), "cpu": time.process_time() - cpu}


def trivial(x, *, seed):
    return {"value": x + seed % 7}


def calibrate(seconds: float) -> int:
    """Rounds for ``seconds`` of CPU (CPU time: on a busy machine wall time is longer)."""
    per_round = cpu_work(0, seed=0, rounds=200)["cpu"] / 200
    return max(1, round(seconds / per_round))


def timed(**kw) -> tuple[float, float]:
    """``(wall seconds, CPU seconds the evaluations got)``."""
    t0 = time.perf_counter()
    df = sweep(progress=False, **kw)
    return time.perf_counter() - t0, float(df["cpu"].sum())


def speedups(evals: int, seconds: float) -> None:
    from distributed import Client, LocalCluster  # the optional extra: only this part needs it

    rounds = calibrate(seconds)
    job = {"func": cpu_work, "grid": {"x": list(range(evals))}, "fixed": {"rounds": rounds}}
    print(f"{evals} evaluations of ~{seconds} s CPU each ({rounds} rounds)")
    rows = []
    for n in (1, 2):
        with (
            LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
            ) as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            rows.append(("dask", n, timed(client=client, **job)))
    sweep(cpu_work, {"x": [0, 1]}, fixed={"rounds": 1}, n_workers=2, progress=False)  # start
    for n in (1, 2):  # the loky pool, as the Dask cluster is started before its timing
        rows.append(("local", n, timed(n_workers=n, **job)))
    for backend in ("dask", "local"):
        (t1, c1), (t2, c2) = (t for b, _, t in rows if b == backend)
        label = "Dask LocalCluster" if backend == "dask" else "joblib (1: in-process, 2: loky)"
        print(
            f"  {label:34s} 1 worker {t1:6.1f} s   2 workers {t2:6.1f} s   "
            f"speed-up {t1 / t2:4.2f}   (CPU/wall: {c1 / t1:.2f}, {c2 / t2:.2f})"
        )
    print(f"  load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


def old_engine():
    """The replaced engine, imported from git (None outside a clone with that commit)."""
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:workbench/sweep.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = Path(tempfile.mkdtemp())
    (folder / "old_sweep.py").write_text(source)
    sys.path.insert(0, str(folder))  # loky workers get the parent's sys.path
    spec = importlib.util.spec_from_file_location("old_sweep", folder / "old_sweep.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_sweep"] = module
    spec.loader.exec_module(module)
    return module.sweep


def overhead(old, n: int = 200, repeats: int = 3) -> None:
    engines = {"new (joblib)": sweep, f"old ({OLD_COMMIT})": old}
    print(f"per-evaluation overhead, {n} trivial evaluations (best of {repeats}, pool warm)")
    for name, engine in engines.items():
        if engine is None:
            print(f"  {name}: not available (no git history)")
            continue
        for workers in (1, 2):
            kw = {"grid": {"x": list(range(n))}, "n_workers": workers, "progress": False}
            engine(trivial, **kw)  # start the pool, warm the imports
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                engine(trivial, **kw)
                times.append(time.perf_counter() - t0)
            best = min(times)
            print(
                f"  {name:16s} n_workers={workers}: {best * 1e3:7.1f} ms in all, "
                f"{best / n * 1e6:7.1f} µs per evaluation "
                f"(median {statistics.median(times) / n * 1e6:.1f})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evals", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--skip-speedup", action="store_true")
    args = parser.parse_args()
    old = old_engine()  # first: loky's reusable pool must start with old_sweep on sys.path
    if not args.skip_speedup:
        speedups(args.evals, args.seconds)
    overhead(old)


if __name__ == "__main__":
    main()
