"""The vectorised log1p of P2's rate estimates against the C library's, on 10^7 inputs and more.

Run: ``python benchmarks/bench_p2_log1p.py [--n N] [--both-builds]``.

Compares :func:`workbench.proactive.log1p.log1p_many` (the variant
:func:`~workbench.proactive.log1p.platform_variant` picks) bit for bit with the C library's
scalar ``log1p`` called value by value from numba (what the slot kernel called before) on
``N`` inputs (default 2·10^7): log-uniform SINRs from 10^-9 to 10^10, uniform values in
(-0.3, 0.5) (the unreduced branch), random bit patterns (every finite and special double)
and the special values; prints the number of differences (0 expected), the time per value
of both, and how many values NumPy's own array ``np.log1p`` gives differently (its SIMD
loops are not the C library's). ``--both-builds`` runs the same check again in a
subprocess with ``GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA,-AVX2``, where glibc picks its
baseline build instead of its FMA build, so both variants are checked. Exits 1 on any
difference.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np
from numba import njit

from workbench.proactive import log1p as L

CHUNK = 2_000_000
NAMES = {L.PLATFORM: "the C library's own calls", L.PLAIN: "plain", L.FUSED: "fused"}


@njit(cache=True)
def _c_library(x, out):
    for i in range(x.size):
        out[i] = np.log1p(x[i])


def _inputs(rng, n: int) -> np.ndarray:
    parts = [10.0 ** rng.uniform(-9, 10, n // 2), rng.uniform(-0.3, 0.5, n // 4)]
    parts.append(rng.integers(0, 2**64, n - n // 2 - n // 4, dtype=np.uint64).view(np.float64))
    return np.concatenate(parts)


def check(n: int, seed: int = 0) -> int:
    variant = L.platform_variant(L.PROBE)
    print(f"variant: {NAMES[variant]} ({os.environ.get('GLIBC_TUNABLES', 'default build')})")
    rng = np.random.default_rng(seed)
    special = np.array(
        [
            0.0,
            -0.0,
            5e-324,
            2.0**-1074,
            2.0**-54,
            2.0**-29,
            2.0**-20,
            -1.0,
            -0.5,
            2.0**53,
            1e308,
            np.inf,
            -np.inf,
            np.nan,
        ]
    )
    done = bad = numpy_bad = 0
    t_many = t_c = 0.0
    for start in range(0, n, CHUNK):
        x = _inputs(rng, min(CHUNK, n - start))
        if start == 0:
            x = np.concatenate([special, x])
        got, want = np.empty_like(x), np.empty_like(x)
        if start == 0:  # compile / load both
            L.log1p_many(x[:10], 10, got, variant)
            _c_library(x[:10], want)
        t0 = time.process_time()
        L.log1p_many(x, x.size, got, variant)
        t_many += time.process_time() - t0
        t0 = time.process_time()
        _c_library(x, want)
        t_c += time.process_time() - t0
        same = (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))
        bad += int((~same).sum())
        with np.errstate(all="ignore"):
            ref = np.log1p(x)
        numpy_same = (ref.view(np.int64) == want.view(np.int64)) | (np.isnan(ref) & np.isnan(want))
        numpy_bad += int((~numpy_same).sum())
        done += x.size
    print(f"{done:,} inputs: {bad} different from the C library's log1p")
    print(
        f"time per value: {1e9 * t_many / done:.1f} ns vectorised, {1e9 * t_c / done:.1f} ns "
        f"the C library's calls (x{t_c / t_many:.1f})"
    )
    print(f"NumPy's array np.log1p differs from the C library's on {numpy_bad:,} of them")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000_000)
    parser.add_argument("--both-builds", action="store_true")
    a = parser.parse_args()
    bad = check(a.n)
    if a.both_builds:
        env = dict(os.environ, GLIBC_TUNABLES="glibc.cpu.hwcaps=-FMA,-AVX2")
        bad += subprocess.run([sys.executable, __file__, "--n", str(a.n)], env=env).returncode
    print("IDENTICAL" if not bad else "DIFFERENT")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
