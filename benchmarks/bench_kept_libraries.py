"""Hand-written pieces against the kept libraries issue 45 names, interleaved in one process
(the load of other processes falls on both).

- the file lock: ``fcntl.flock`` by hand against ``filelock.FileLock`` (``workbench.locks``
  now): one uncontended acquire and release, and where it is taken: a results-cache miss
  (``workbench.memo.cached_call`` of a trivial function; a hit takes no lock);
- the Wilson interval: the score formula (``workbench.atlas.wilson``, kept) against
  ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``, equal to 1e-12 on the
  counts timed, and where it is called: one atlas summary (``summarise_atlas``: 10 claims ×
  4 readings × 64 points, one call per claim and reading beside the decision trees).

Usage::

    python benchmarks/bench_kept_libraries.py [--rounds 7] [--calls 2000]

Prints the median time per call of each, and the ratio library / by hand.
"""

from __future__ import annotations

import argparse
import fcntl
import itertools
import os
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from workbench import atlas, memo
from workbench.atlas import summarise_atlas, wilson
from workbench.locks import locked


def _flock(path: Path) -> None:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        fcntl.flock(handle, fcntl.LOCK_UN)


def _filelock(path: Path) -> None:
    with locked(path):
        pass


def _wilson_scipy(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


def _square(x):
    return x * x


_MISSES = itertools.count()  # a new argument each call: always a miss


def _memo_miss(lock) -> None:
    memo.locked = lock
    try:
        memo.cached_call(_square, float(next(_MISSES)))
    finally:
        memo.locked = locked


def _flock_locked(path):
    @contextmanager
    def held():
        lock = Path(path).with_name(Path(path).name + ".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        with open(lock, "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    return held()


def _points() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for claim in range(10):
        for reading in range(4):
            x = rng.uniform(size=64)
            holds = (x < claim / 10) if claim % 3 else np.ones(64, bool)
            rows += [
                {"claim": f"c{claim}", "reading": f"r{reading}", "x": v, "holds": float(h)}
                for v, h in zip(x, holds, strict=True)
            ]
    return pd.DataFrame(rows)


def _summary(use, points: pd.DataFrame) -> None:
    atlas.wilson = use
    try:
        summarise_atlas(points, ["x"])
    finally:
        atlas.wilson = wilson


def _per_call(func, args_list, calls: int) -> float:
    start = time.perf_counter()
    for i in range(calls):
        func(*args_list[i % len(args_list)])
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    # the atlas's counts: points of one reading, quick (8) and full (64)
    grid = [(k, n) for n in (8, 64) for k in range(n + 1)]
    worst = max(
        max(abs(a - b) for a, b in zip(wilson(k, n), _wilson_scipy(k, n), strict=True))
        for k, n in grid
    )
    print(f"wilson: largest difference from scipy's on {len(grid)} (k, n): {worst:.1e}")
    points = _points()
    calls = {"atlas summary": max(1, args.calls // 200), "results cache miss": args.calls // 4}
    with tempfile.TemporaryDirectory() as folder:
        os.environ["WORKBENCH_CACHE"] = folder
        target = Path(folder) / "result"
        pairs = {
            "file lock": ((_flock, [(target.with_name("result.lock"),)]), (_filelock, [(target,)])),
            "results cache miss": ((_memo_miss, [(_flock_locked,)]), (_memo_miss, [(locked,)])),
            "wilson": ((wilson, grid), (_wilson_scipy, grid)),
            "atlas summary": (
                (_summary, [(wilson, points)]),
                (_summary, [(_wilson_scipy, points)]),
            ),
        }
        for name, ((old, old_args), (new, new_args)) in pairs.items():
            times_old, times_new = [], []
            for _ in range(args.rounds):
                n = calls.get(name, args.calls)
                times_old.append(_per_call(old, old_args, n))
                times_new.append(_per_call(new, new_args, n))
            t_old, t_new = statistics.median(times_old), statistics.median(times_new)
            print(
                f"{name}: by hand {t_old * 1e6:.1f} µs, library {t_new * 1e6:.1f} µs "
                f"per call; library / by hand {t_new / t_old:.2f}"
            )


if __name__ == "__main__":
    main()
