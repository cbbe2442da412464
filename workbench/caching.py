"""Cache replacement replays: hit or miss of every request under LRU, LFU, popularity.

A *trace* is a 1-D sequence of non-negative integer object ids of any size: before the
kernel runs they are remapped to ``0 .. n_distinct - 1``, by a look-up table when the ids
are small and by ``numpy.unique`` otherwise.  The cache holds ``capacity`` objects of
equal size.  Each function returns a boolean array, True where the request was a hit;
``hits.mean()`` is the hit ratio.

References
----------
Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
EURASIP JWCN 2018 (proactive caching of the most popular task results at the edge);
LRU and LFU are the usual baselines.
"""

from __future__ import annotations

import numpy as np

from workbench.kernels.caches import lfu_hits_kernel, lru_hits_kernel, popularity_hits_kernel
from workbench.validation import array_or_none, check_int, refusal

__all__ = ["lru_hits", "lfu_hits", "popularity_cache_hits"]


def _trace(trace, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate a trace; return (distinct ids, trace remapped to dense ids)."""
    what = "a 1-D array of non-negative integer object ids"
    try:
        arr = np.asarray(trace)
    except (ValueError, TypeError):
        arr = None
    if (
        arr is None
        or arr.ndim != 1
        or arr.dtype == bool
        or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0)
    ):
        raise refusal(func, "trace", what, trace)
    if arr.size and arr.dtype.kind == "u" and arr.max() > np.iinfo(np.int64).max:
        i = int(np.argmax(arr > np.iinfo(np.int64).max))
        raise refusal(func, "trace", f"{what} below 2**63", got=f"{int(arr[i])} at position {i}")
    if arr.size and arr.min() < 0:
        i = int(np.argmax(arr < 0))
        raise refusal(func, "trace", what, got=f"{int(arr[i])} at position {i}")
    arr = arr.astype(np.int64, copy=False)
    top = int(arr.max()) if arr.size else -1
    if top < 4 * arr.size + 1024:  # ids are small: a look-up table beats sorting
        present = np.zeros(top + 1, dtype=np.bool_)
        present[arr] = True
        ids = np.flatnonzero(present)
        dense = (np.cumsum(present, dtype=np.int64) - 1)[arr]
        return ids, np.ascontiguousarray(dense)
    ids, dense = np.unique(arr, return_inverse=True)
    return ids, np.ascontiguousarray(dense.reshape(-1), dtype=np.int64)


def lru_hits(trace, capacity) -> np.ndarray:
    """Hits of a least-recently-used cache of ``capacity`` objects replaying ``trace``.

    Parameters
    ----------
    trace : array_like of int, shape (n,)
        Requested object ids, >= 0.
    capacity : int
        Number of objects the cache holds, >= 1.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the request found its object cached.  A miss inserts the object,
        evicting the least recently requested one when the cache is full.

    Notes
    -----
    O(1) per request: the cached objects form a doubly linked list in recency order
    (held in arrays) and a dense id -> slot array finds an object without hashing.
    """
    func = "lru_hits"
    ids, dense = _trace(trace, func)
    capacity = check_int(capacity, "capacity", func, 1)
    return lru_hits_kernel(dense, max(ids.size, 1), min(capacity, max(ids.size, 1)))


def lfu_hits(trace, capacity) -> np.ndarray:
    """Hits of a least-frequently-used cache of ``capacity`` objects replaying ``trace``.

    Parameters
    ----------
    trace : array_like of int, shape (n,)
        Requested object ids, >= 0.
    capacity : int
        Number of objects the cache holds, >= 1.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the request was a hit.

    Notes
    -----
    In-cache LFU: an object's count starts at 1 when it is inserted, grows with every hit
    and is forgotten when it is evicted.  A miss on a full cache evicts the object with
    the smallest count; **ties go to the least recently requested** of those (LRU among
    the least frequent).  O(log capacity) per request (binary heap on (count, last use)).
    """
    func = "lfu_hits"
    ids, dense = _trace(trace, func)
    capacity = check_int(capacity, "capacity", func, 1)
    return lfu_hits_kernel(dense, max(ids.size, 1), min(capacity, max(ids.size, 1)))


def popularity_cache_hits(trace, capacity, rank, cacheable=None) -> np.ndarray:
    """Hits of the paper's popularity-ranked cache replaying ``trace``.

    Parameters
    ----------
    trace : array_like of int, shape (n,)
        Requested object ids, each in ``[0, len(rank) - 1]``.
    capacity : int
        Number of objects the cache holds, >= 1.
    rank : array_like of int, shape (n_objects,)
        ``rank[x]`` is the popularity rank of object x, 0 = most popular (ties allowed).
    cacheable : None or array_like of bool, shape (n_objects,)
        Objects that may be cached at all; default: every object.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the request was a hit.

    Notes
    -----
    The cache fills with requested cacheable objects until it holds ``capacity`` of them.
    After that a missed cacheable object replaces the least popular cached object (the
    largest rank; among equal ranks the one cached first) only if it is strictly more
    popular; otherwise it is not cached.  Hits change nothing.  With a fixed ranking
    the cache converges to the ``capacity`` most popular requested objects.

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018 (popularity-based proactive caching of task results).
    """
    func = "popularity_cache_hits"
    try:
        r = np.asarray(rank)
    except (ValueError, TypeError):
        r = None
    if (
        r is None
        or r.ndim != 1
        or r.size == 0
        or r.dtype == bool
        or not np.issubdtype(r.dtype, np.integer)
        or r.min() < 0
    ):
        raise refusal(func, "rank", "a non-empty 1-D array of non-negative integer ranks", rank)
    n_objects = r.size
    ids, dense = _trace(trace, func)
    if ids.size and ids[-1] >= n_objects:
        arr = np.asarray(trace)
        i = int(np.argmax(arr >= n_objects))
        raise refusal(
            func,
            "trace",
            f"a 1-D array of object ids in [0, {n_objects - 1}] (indices into 'rank')",
            got=f"{int(arr[i])} at position {i}",
        )
    capacity = check_int(capacity, "capacity", func, 1)
    if cacheable is None:
        mask = np.ones(n_objects, dtype=np.bool_)
    else:
        mask = array_or_none(cacheable)
        if mask is None or mask.dtype != bool or mask.shape != (n_objects,):
            raise refusal(
                func,
                "cacheable",
                f"None or {n_objects} booleans (one per ranked object)",
                cacheable,
            )
    if ids.size == 0:
        return np.zeros(0, dtype=np.bool_)
    # only the requested objects matter: the kernel sees them densely, with their ranks
    rank_d = np.ascontiguousarray(r[ids], dtype=np.int64)
    mask_d = np.ascontiguousarray(mask[ids])
    return popularity_hits_kernel(dense, rank_d, mask_d, min(capacity, ids.size))
