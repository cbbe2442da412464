"""User-user similarity: Gaussian distance kernel blended with task-popularity cosine."""

import numpy as np
from numba import njit


@njit(cache=True)
def similarity_kernel(positions, counts, sigma, theta):
    """theta * S_d + (1 - theta) * S_p for every pair of users.

    Parameters
    ----------
    positions : float64[U, D]
        User coordinates.
    counts : float64[U, K]
        Non-negative task-request counts of every user.
    sigma : float
        Width of the Gaussian distance kernel (> 0).
    theta : float
        Weight of the distance similarity, in [0, 1].

    Returns
    -------
    float64[U, U]
        Symmetric, unit diagonal.  S_d = exp(-||x_i - x_j||^2 / (2 sigma^2)); S_p is the
        cosine of the count vectors, 0 between a user with no requests and anyone else.
    """
    n, dims = positions.shape
    n_tasks = counts.shape[1]
    norms = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(n_tasks):
            s += counts[i, k] * counts[i, k]
        norms[i] = np.sqrt(s)
    two_s2 = 2.0 * sigma * sigma
    out = np.empty((n, n))
    for i in range(n):
        out[i, i] = 1.0
        for j in range(i + 1, n):
            d2 = 0.0
            for k in range(dims):
                diff = positions[i, k] - positions[j, k]
                d2 += diff * diff
            s_d = np.exp(-d2 / two_s2)
            s_p = 0.0
            if norms[i] > 0.0 and norms[j] > 0.0:
                dot = 0.0
                for k in range(n_tasks):
                    dot += counts[i, k] * counts[j, k]
                s_p = dot / (norms[i] * norms[j])
                if s_p > 1.0:  # rounding for parallel vectors
                    s_p = 1.0
            v = theta * s_d + (1.0 - theta) * s_p
            out[i, j] = v
            out[j, i] = v
    return out
