"""LRU replay: the numba kernel against libCacheSim's Python binding on one Zipf trace.

The trace has 10^6 requests over 10^5 objects with Zipf(0.8) popularity (object k drawn
with probability proportional to 1 / k^0.8, ids shuffled), replayed through an LRU cache
of 1000 unit-size objects.  libCacheSim gets the same trace in its binary
``oracleGeneral`` format (24-byte records: timestamp, object id, size, next access) and
replays it in C with ``LRU(...).process_trace(TraceReader(...))``, its fastest path; its
per-request Python API (``cache.get(Request(...))``) is timed too on the first 10^5
requests, for scale.  The hit counts of the three must agree.

Usage::

    python benchmarks/bench_caching.py            # 10^6 requests
    python benchmarks/bench_caching.py --quick    # 10^5 requests

Rates are requests per second of wall-clock time, best of 5 runs (kernel warmed up first;
``lru_hits`` includes input validation and the ``np.unique`` id remap).  Goal: ratio
(workbench rate / libCacheSim rate) >= 1.  Exits with status 1 if the hit counts differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))

import libcachesim as lcs  # noqa: E402
import numpy as np  # noqa: E402

from workbench.caching import lru_hits  # noqa: E402

SEED = 20180601
N_OBJECTS = 100_000
ALPHA = 0.8
CAPACITY = 1000
ORACLE_GENERAL = np.dtype([("time", "<u4"), ("obj_id", "<u8"), ("size", "<u4"), ("next", "<i8")])


def zipf_trace(n_requests: int, n_objects: int, alpha: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_objects + 1) ** alpha
    ids = rng.permutation(n_objects) + 1  # popularity unrelated to the id value
    return ids[rng.choice(n_objects, size=n_requests, p=weights / weights.sum())]


def write_oracle_general(trace: np.ndarray, path: str) -> None:
    rec = np.zeros(trace.size, dtype=ORACLE_GENERAL)
    rec["time"] = np.arange(trace.size)
    rec["obj_id"] = trace
    rec["size"] = 1
    rec["next"] = -1
    rec.tofile(path)


def best_of(fn, repeat=5):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 requests")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    trace = zipf_trace(n, N_OBJECTS, ALPHA, SEED)

    lru_hits(trace[:1000], CAPACITY)  # compile / load the cached kernel
    ours_time, hits = best_of(lambda: lru_hits(trace, CAPACITY))
    ours_hits = int(hits.sum())

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "zipf.oracleGeneral.bin")
        write_oracle_general(trace, path)

        def replay():
            reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE)
            miss_ratio, _ = lcs.LRU(CAPACITY).process_trace(reader)
            return round((1.0 - miss_ratio) * n)

        lcs_time, lcs_hits = best_of(replay)

    m = min(n, 100_000)

    def per_request():
        cache = lcs.LRU(CAPACITY)
        return sum(cache.get(lcs.Request(obj_id=int(x), obj_size=1)) for x in trace[:m])

    loop_time, loop_hits = best_of(per_request, repeat=1)
    ours_m = int(lru_hits(trace[:m], CAPACITY).sum())

    same = ours_hits == lcs_hits and ours_m == loop_hits
    print(f"trace: {n} requests, {N_OBJECTS} objects, Zipf({ALPHA}), LRU capacity {CAPACITY}")
    print(f"workbench lru_hits            : {n / ours_time:14,.0f} req/s  ({ours_hits} hits)")
    print(f"libCacheSim process_trace (C) : {n / lcs_time:14,.0f} req/s  ({lcs_hits} hits)")
    print(f"libCacheSim cache.get loop    : {m / loop_time:14,.0f} req/s  (first {m} requests)")
    print(f"ratio vs process_trace        : {lcs_time / ours_time:14.2f}x (goal >= 1x)")
    print(f"ratio vs cache.get loop       : {(loop_time / m) / (ours_time / n):14.0f}x")
    print(f"identical hit counts          : {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
