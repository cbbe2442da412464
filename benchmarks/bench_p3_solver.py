"""P3 exact chain: workbench solver vs a straightforward scipy.sparse assembly + spsolve.

Usage::

    NUMBA_CACHE_DIR=.numba_cache python benchmarks/bench_p3_solver.py [--size 1000]

Prints, on the chain of the worked example (``workbench.datacenters.EXAMPLE``) scaled to
C1 = C2 = size (lambda = (1.5, 0.8) size, mu = 1, p = (0.6, 0.3)): the wall time of
``solve_exact`` (with its default negligible-tail window, and on the full grid), of the scipy
baseline, their ratio, the largest absolute difference of the stationary distributions and of
beta, and the residuals ||pi Q||_1.
At size 1000 (1,002,001 states) the baseline takes minutes and ~14 GB of memory.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from workbench.datacenters import solve_exact
from workbench.kernels.markov import grid_chain_stencil, stencil_residual


def scipy_baseline(lam, servers, mu, p):
    """Assemble Q with scipy.sparse from its transition list and solve Q^T pi = 0 with the
    last equation replaced by sum(pi) = 1, by SuperLU (``spsolve``)."""
    (l1, l2), (c1, c2), (m1, m2), (p1, p2) = lam, servers, mu, p
    w = c2 + 1
    n = (c1 + 1) * w
    x, y = np.divmod(np.arange(n), w)
    rows, cols, vals = [], [], []

    def add(mask, dx, dy, rate):
        idx = np.nonzero(mask)[0]
        rows.append(idx)
        cols.append(idx + dx * w + dy)
        vals.append(np.broadcast_to(rate, mask.shape)[idx])

    add(x < c1, 1, 0, l1 + p2 * l2 * (y == c2))
    add(y < c2, 0, 1, l2 + p1 * l1 * (x == c1))
    add(x > 0, -1, 0, x * m1)
    add(y > 0, 0, -1, y * m2)
    rows, cols, vals = (np.concatenate(v) for v in (rows, cols, vals))
    q = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    q = q - sp.diags(np.asarray(q.sum(axis=1)).ravel())
    a = q.T.tolil()
    a[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[-1] = 1.0
    return spl.spsolve(a.tocsc(), b).reshape(c1 + 1, c2 + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.size
    lam, servers, mu, p = (1.5 * n, 0.8 * n), (n, n), (1.0, 1.0), (0.6, 0.3)
    solve_exact(lam, (20, 20), mu, p)  # load the jitted kernels from cache
    results = {}
    for label, tail in (("workbench (tail window)", 1e-40), ("workbench (full grid)", 0.0)):
        best, sol = np.inf, None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            sol = solve_exact(lam, servers, mu, p, tail=tail)
            best = min(best, time.perf_counter() - t0)
        results[label] = (best, sol)
        print(
            f"{label:26s} {best:8.3f} s  beta=({sol.beta[0]:.12f}, {sol.beta[1]:.12f})  "
            f"iterations={sol.iterations}  ||piQ||_1={sol.residual:.2e}  "
            f"relative={sol.relative_residual:.2e}  window={sol.window}"
        )
    t0 = time.perf_counter()
    ref = scipy_baseline(lam, servers, mu, p)
    t_ref = time.perf_counter() - t0
    stencil = grid_chain_stencil(
        np.full(n + 1, lam[0]),
        np.arange(n + 1.0),
        p[1] * lam[1],
        np.full(n + 1, lam[1]),
        np.arange(n + 1.0),
        p[0] * lam[0],
    )
    res_ref, flow_ref = stencil_residual(ref, *stencil)
    b_ref = (
        (1 - p[0]) * ref[-1].sum() + p[0] * ref[-1, -1],
        (1 - p[1]) * ref[:, -1].sum() + p[1] * ref[-1, -1],
    )
    print(
        f"{'scipy.sparse + spsolve':26s} {t_ref:8.3f} s  beta=({b_ref[0]:.12f}, "
        f"{b_ref[1]:.12f})  ||piQ||_1={res_ref:.2e}  relative={res_ref / flow_ref:.2e}"
    )
    print(f"states: {(n + 1) ** 2:,}")
    for label, (t, sol) in results.items():
        diff = np.abs(sol.full_distribution() - ref).max()
        dbeta = max(abs(sol.beta[0] - b_ref[0]), abs(sol.beta[1] - b_ref[1]))
        print(
            f"{label:26s} speed-up x{t_ref / t:7.1f}   max|pi - pi_ref| = {diff:.1e}   "
            f"max|beta - beta_ref| = {dbeta:.1e}"
        )


if __name__ == "__main__":
    main()
