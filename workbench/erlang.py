"""Erlang-B blocking probability (public, validated)."""

from __future__ import annotations

import numpy as np

from workbench.kernels.erlang import erlang_b_kernel, erlang_b_many_kernel
from workbench.validation import check_int, check_real

MAX_SERVERS = 10**8


def erlang_b(servers, load) -> float:
    """Blocking probability of the M/G/c/c loss system (Erlang's B formula).

    Parameters
    ----------
    servers : int
        Number of servers c, 1 <= c <= 1e8.
    load : float
        Offered load a = lambda * E[S] >= 0 (any value: a loss system is stable at every load).

    Notes
    -----
    Computed by the recursion B(k) = a B(k-1) / (k + a B(k-1)), exact to rounding for any c
    and a; insensitive to the service distribution beyond its mean.

    References
    ----------
    Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
    systems", eq. (4), written there with factorials.
    """
    servers = check_int(servers, "servers", "erlang_b", 1, MAX_SERVERS)
    load = check_real(load, "load", "erlang_b", 0.0)
    return float(erlang_b_kernel(servers, load))


def erlang_b_many(servers, loads) -> np.ndarray:
    """Vectorised :func:`erlang_b` over broadcastable arrays of servers and loads."""
    s, a = np.broadcast_arrays(np.asarray(servers), np.asarray(loads, dtype=float))
    if s.size and (not np.all(np.isfinite(a)) or a.min() < 0):
        bad = a[~(np.isfinite(a) & (a >= 0))].flat[0]
        check_real(float(bad), "loads", "erlang_b_many", 0.0)
    if s.size and (s.min() < 1 or s.max() > MAX_SERVERS or np.any(s != np.round(s))):
        bad = s[(s < 1) | (s > MAX_SERVERS) | (s != np.round(s))].flat[0]
        check_int(bad.item(), "servers", "erlang_b_many", 1, MAX_SERVERS)
    flat = erlang_b_many_kernel(s.astype(np.int64).ravel(), a.astype(float).ravel())
    return flat.reshape(s.shape)
