"""Deferred acceptance: the numba kernel against the `matching` package (HospitalResident).

A market of 1000 proposers (users) with full random preference lists over 300 receivers
(cloudlets) of capacity 4, and receivers ranking all proposers.  Both solvers compute the
proposer-optimal (resident-optimal) stable matching, so the script also checks that the
two matchings are identical.  The package builds and deep-copies linked player objects,
which needs a raised recursion limit at this size.

Usage::

    python benchmarks/bench_matching.py            # 1000 x 300, capacity 4
    python benchmarks/bench_matching.py --quick    # 300 x 100, capacity 4

Times are wall-clock seconds, best of a few runs for the kernel (warmed up first, input
validation included) and one run for the package (instance construction + solve).  Goal:
ratio >= 1000.  Exits with status 1 if the matchings differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))

import numpy as np  # noqa: E402
from matching.games import HospitalResident  # noqa: E402

from workbench.matching import deferred_acceptance  # noqa: E402

SEED = 2018


def market(n_prop: int, n_recv: int, seed: int):
    rng = np.random.default_rng(seed)
    p = np.argsort(rng.random((n_prop, n_recv)), axis=1)
    r = np.argsort(rng.random((n_recv, n_prop)), axis=1)
    return p, r


def package_solution(p, r, capacity):
    n_prop, n_recv = p.shape
    residents = {u: p[u].tolist() for u in range(n_prop)}
    hospitals = {e: r[e].tolist() for e in range(n_recv)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game = HospitalResident.create_from_dictionaries(
            residents, hospitals, dict.fromkeys(range(n_recv), capacity)
        )
        solution = game.solve(optimal="resident")
    out = np.full(n_prop, -1)
    for hospital, matched in solution.items():
        for resident in matched:
            out[resident.name] = hospital.name
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 x 100 market")
    args = parser.parse_args()
    n_prop, n_recv, capacity = (300, 100, 4) if args.quick else (1000, 300, 4)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))

    p, r = market(n_prop, n_recv, SEED)
    caps = np.full(n_recv, capacity)
    deferred_acceptance(p, r, caps)  # compile / load the cached kernel
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter()
        ours = deferred_acceptance(p, r, caps)
        best = min(best, time.perf_counter() - t0)

    t0 = time.perf_counter()
    theirs = package_solution(p, r, capacity)
    package_time = time.perf_counter() - t0

    same = np.array_equal(ours, theirs)
    print(f"market: {n_prop} proposers x {n_recv} receivers of capacity {capacity}")
    print(f"workbench deferred_acceptance: {best * 1e3:10.3f} ms (best of 7)")
    print(f"matching HospitalResident    : {package_time * 1e3:10.1f} ms")
    print(f"speed-up ratio               : {package_time / best:10.0f}x (goal >= 1000x)")
    print(f"identical matchings          : {same} ({int((ours >= 0).sum())} matched)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
