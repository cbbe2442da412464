"""User clustering by location and task popularity (spectral clustering, eigengap k).

Users that are close to each other *and* request similar tasks are grouped, so that a
cloudlet can proactively compute and cache the tasks popular in its cluster.

References
----------
Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
EURASIP JWCN 2018, eqs. 11-13 (distance similarity, popularity similarity and their
theta-weighted blend) and the spectral clustering of the users that follows them.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg
from sklearn.cluster import SpectralClustering
from threadpoolctl import threadpool_limits

from workbench.kernels.similarity import similarity_kernel
from workbench.validation import (
    ParameterError,
    check_int,
    check_pair,
    check_real,
    check_seed,
    refusal,
)

__all__ = ["similarity", "cluster_users", "Clusters"]

SIGMA_MIN = 1e-150
"""Smallest kernel width: below it 2 sigma^2 underflows to 0 and S_d is 0/0."""


class Clusters(NamedTuple):
    """Result of :func:`cluster_users`.

    Parameters
    ----------
    labels : numpy.ndarray of int, shape (U,)
        The cluster of each user, 0 .. k - 1.
    k : int
        The number of clusters (given, or chosen by the eigengap heuristic).
    eigenvalues : numpy.ndarray
        Ascending eigenvalues of the normalised Laplacian (the eigengap chooses ``k``).
    """

    labels: np.ndarray
    """Cluster label 0 .. k-1 of every user, shape (U,)."""
    k: int
    """Number of clusters (given, or chosen by the eigengap heuristic)."""
    eigenvalues: np.ndarray
    """Ascending eigenvalues of the normalised Laplacian of the similarity matrix."""


def _matrix(value, name, func, what, rows=None, nonneg=False):
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        arr = None
    if (
        arr is None
        or arr.dtype == bool
        or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating))
        or arr.ndim != 2
        or (rows is not None and arr.shape[0] != rows)
    ):
        raise refusal(func, name, what, value)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if nonneg:
        bad |= arr < 0
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise refusal(func, name, what, got=f"{float(arr[i, j])!r} at index ({i}, {j})")
    return arr


def _inputs(positions, counts, sigma, theta, func):
    x = _matrix(positions, "positions", func, "a 2-D array (U, D) of finite coordinates")
    n = x.shape[0]
    c = _matrix(
        counts,
        "counts",
        func,
        f"a 2-D array ({n}, K) of non-negative finite task counts",
        rows=n,
        nonneg=True,
    )
    sigma = check_real(sigma, "sigma", func, SIGMA_MIN)  # 2 sigma^2 must not underflow to 0
    theta = check_real(theta, "theta", func, 0.0, 1.0)
    # cosine is scale-free: divide each row by its maximum so squares cannot overflow
    peak = c.max(axis=1, keepdims=True) if c.shape[1] else np.zeros((n, 1))
    c = np.ascontiguousarray(np.divide(c, peak, out=np.zeros_like(c), where=peak > 0))
    return x, c, sigma, theta


def similarity(positions, counts, sigma, theta) -> np.ndarray:
    """User-user similarity theta * S_d + (1 - theta) * S_p.

    Parameters
    ----------
    positions : array_like, shape (U, D)
        User coordinates (e.g. metres).
    counts : array_like, shape (U, K)
        Non-negative number of requests of every user for each of K tasks.
    sigma : float
        Width of the distance kernel, same unit as ``positions`` (>= ``SIGMA_MIN`` = 1e-150,
        where 2 sigma^2 is still a positive number).
    theta : float
        Weight of location versus popularity, in [0, 1] (1: location only).

    Returns
    -------
    numpy.ndarray, shape (U, U)
        Symmetric, unit diagonal, entries in [0, 1], where

        - S_d[i, j] = exp(-||x_i - x_j||^2 / (2 sigma^2)) (Gaussian distance similarity);
        - S_p[i, j] = <c_i, c_j> / (||c_i|| ||c_j||), the cosine of the users' count
          vectors.  A user with no requests at all (all-zero counts) has cosine 0 with
          every other user and 1 with itself.

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018, eqs. 11-13.
    """
    x, c, sigma, theta = _inputs(positions, counts, sigma, theta, "similarity")
    return similarity_kernel(x, c, sigma, theta)


def _normalised_laplacian_spectrum(affinity: np.ndarray) -> np.ndarray:
    """Ascending eigenvalues of L = I - D^-1/2 A D^-1/2."""
    deg = affinity.sum(axis=1)
    inv = 1.0 / np.sqrt(deg)  # deg >= 1: the diagonal of the affinity is 1
    lap = np.eye(affinity.shape[0]) - inv[:, None] * affinity * inv[None, :]
    return np.clip(scipy.linalg.eigh(lap, eigvals_only=True), 0.0, 2.0)


def cluster_users(positions, counts, sigma, theta, k=None, k_range=None, seed=0) -> Clusters:
    """Spectral clustering of users on the :func:`similarity` matrix.

    Parameters
    ----------
    positions, counts, sigma, theta
        As in :func:`similarity`.
    k : int or None
        Number of clusters, 1 <= k <= U.  None: choose it by the eigengap heuristic.
    k_range : (int, int) or None
        Smallest and largest k the eigengap heuristic may choose; default (2, U // 2)
        (needs U >= 4).  Ignored when ``k`` is given.
    seed : int
        Seed of the k-means label assignment (same seed, same labels).

    Returns
    -------
    Clusters
        ``labels`` (U,) in 0 .. k-1, the number ``k`` of clusters and the ascending
        ``eigenvalues`` of the normalised Laplacian.

    Notes
    -----
    The clustering is scikit-learn's ``SpectralClustering(affinity="precomputed")`` on the
    similarity matrix W.  The eigengap heuristic takes the eigenvalues
    0 = l_1 <= l_2 <= ... of the normalised Laplacian L = I - D^-1/2 W D^-1/2 and picks
    the k in ``k_range`` with the largest gap l_{k+1} - l_k: a graph with k well-separated
    groups has k eigenvalues near 0 and then a jump.  It is used rather than, say, the
    silhouette score because it reads k off the same affinity (and the same Laplacian) the
    clustering uses, costs one symmetric eigendecomposition, and needs no clustering run
    per candidate k (the silhouette needs one fit for each k).

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018, eqs. 11-13 and the clustering step after them.  von Luxburg, "A
    tutorial on spectral clustering", Statistics and Computing 17, 2007, Sec. 8.3.
    """
    func = "cluster_users"
    x, c, sigma, theta = _inputs(positions, counts, sigma, theta, func)
    n = x.shape[0]
    seed = check_seed(seed, func)
    if k is not None:
        k = check_int(k, "k", func, 1, max(n, 1))
    else:
        if k_range is None:
            if n < 4:
                raise ParameterError(
                    f"The 'positions' parameter of {func} must have at least 4 users when k "
                    f"is chosen automatically (k in [2, U // 2]). Got {n} users instead."
                )
            lo, hi = 2, n // 2
        else:
            lo, hi = check_pair(k_range, "k_range", func)
            lo = check_int(lo, "k_range[0]", func, 1, max(n - 1, 1))
            hi = check_int(hi, "k_range[1]", func, lo, max(n - 1, 1))
    w = similarity_kernel(x, c, sigma, theta)
    # one thread for BLAS and OpenMP: the matrices are small (U <= a few hundred), and a
    # process forked after the pools started (multiprocessing "fork", a fuzzing harness)
    # deadlocks in them
    with threadpool_limits(limits=1):
        return _cluster(w, n, k, lo if k is None else 0, hi if k is None else 0, seed)


def _cluster(w, n, k, lo, hi, seed) -> Clusters:
    eig = _normalised_laplacian_spectrum(w) if n else np.zeros(0)
    if k is None and n < 2:  # k_range is (1, 1): no eigenvalue after the first, no gap
        k = lo
    elif k is None:
        gaps = eig[lo : hi + 1] - eig[lo - 1 : hi]  # gap after the k-th eigenvalue
        k = lo + int(np.argmax(gaps))
    if k == 1:
        return Clusters(np.zeros(n, dtype=np.int64), 1, eig)
    # scikit-learn takes 32-bit seeds: a larger one is hashed (reproducibly) into that range
    state = seed if seed < 2**32 else int(np.random.SeedSequence(seed).generate_state(1)[0])
    model = SpectralClustering(n_clusters=k, affinity="precomputed", random_state=state)
    with warnings.catch_warnings():
        # disconnected similarity graphs (far-apart groups) are fine for the clustering
        warnings.filterwarnings("ignore", message="Graph is not fully connected")
        warnings.filterwarnings("ignore", message="k >= N")  # k = U: dense solver, fine
        labels = model.fit_predict(w)
    return Clusters(labels.astype(np.int64), int(k), eig)
