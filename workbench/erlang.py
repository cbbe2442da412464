"""Erlang-B blocking probability (public, validated)."""

from __future__ import annotations

import math

import numpy as np

from workbench.kernels.erlang import erlang_b_kernel, erlang_b_many_kernel
from workbench.validation import (
    ParameterError,
    UnstableRegimeError,
    check_budget,
    check_int,
    check_real,
    check_work,
    refusal,
)

__all__ = ["erlang_b", "erlang_b_many", "pollaczek_khinchine", "MAX_SERVERS"]

MAX_SERVERS = 10**8


def erlang_b(servers, load) -> float:
    """Blocking probability of the M/G/c/c loss system (Erlang's B formula).

    Parameters
    ----------
    servers : int
        Number of servers c, 1 <= c <= 1e8.
    load : float
        Offered load a = lambda * E[S] >= 0 (any value: a loss system is stable at every load).

    Returns
    -------
    float
        The probability that an arrival finds all ``servers`` busy, in [0, 1).

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


def erlang_b_many(servers, load) -> np.ndarray:
    """Vectorised :func:`erlang_b` over broadcastable arrays of servers and offered loads.

    Parameters
    ----------
    servers : array_like of int
        Numbers of servers c, each 1 <= c <= 1e8.
    load : array_like of float
        Offered loads a = lambda * E[S] >= 0, broadcastable with ``servers``.

    Returns
    -------
    numpy.ndarray
        Erlang-B blocking probabilities, of the broadcast shape."""
    f = "erlang_b_many"
    s = _numeric_array(servers, "servers", f, "an array of ints in the range [1, 1e8]")
    a = _numeric_array(load, "load", f, "an array of finite real numbers >= 0")
    try:
        shape = np.broadcast_shapes(s.shape, a.shape)
    except ValueError:
        raise ParameterError(
            f"The 'load' parameter of {f} must broadcast against 'servers' (shape "
            f"{np.shape(servers)}). Got shape {np.shape(load)} instead."
        ) from None
    # the broadcast inputs (int64, float64) and the result (float64): 24 bytes per element
    check_budget(f, "load", load, 24.0 * math.prod(shape), "the broadcast arrays and result")
    s, a = np.broadcast_arrays(s, a)
    a = a.astype(float)
    if s.size and (not np.all(np.isfinite(a)) or a.min() < 0):
        bad = a[~(np.isfinite(a) & (a >= 0))].flat[0]
        check_real(float(bad), "load", f, 0.0)
    if s.size and (
        not np.all(np.isfinite(s))
        or s.min() < 1
        or s.max() > MAX_SERVERS
        or np.any(s != np.round(s))
    ):
        bad = s[~np.isfinite(s) | (s < 1) | (s > MAX_SERVERS) | (s != np.round(s))].flat[0]
        check_int(bad.item(), "servers", f, 1, MAX_SERVERS)
    check_work(
        f,
        "servers",
        servers,
        2.0 * float(s.sum(dtype=float)),
        "the Erlang-B recursion: about 2 steps per server, summed over the elements",
    )
    flat = erlang_b_many_kernel(s.astype(np.int64).ravel(), a.ravel())
    return flat.reshape(s.shape)


def _numeric_array(value, name: str, func: str, what: str) -> np.ndarray:
    """A real-valued array, refusing None, strings, bools and complex numbers by name."""
    try:
        arr = np.asarray(value) if not isinstance(value, (str, bytes)) else np.asarray([value])
    except ValueError:  # ragged nesting
        arr = np.asarray([None])
    if arr.dtype.kind not in "iuf" or arr.dtype == bool:
        raise refusal(func, name, what, value)
    return arr


def pollaczek_khinchine(lam, mean_service, second_moment) -> float:
    """Mean sojourn time of an M/G/1 FIFO queue (Pollaczek–Khinchine).

    ``E[S] + λ E[S²] / (2 (1 − ρ))`` with ``ρ = λ E[S]``.

    Parameters
    ----------
    lam : float
        Poisson arrival rate λ > 0 (per time unit).
    mean_service : float
        Mean service time E[S] > 0 (the same time unit).
    second_moment : float
        Second moment E[S²] of the service time, at least E[S]².

    Returns
    -------
    float
        The mean time in the system, waiting and service.

    Raises
    ------
    UnstableRegimeError
        When ρ ≥ 1 (no steady state).
    ParameterError
        When E[S²] < E[S]² (a negative variance) or a value is out of range.
    """
    f = "pollaczek_khinchine"
    lam = check_real(lam, "lam", f, 0.0, None)
    mean_service = check_real(mean_service, "mean_service", f, 0.0, None)
    second_moment = check_real(second_moment, "second_moment", f, 0.0, None)
    rho = lam * mean_service
    if rho >= 1.0:
        raise UnstableRegimeError(
            f"{f}: the queue is unstable (ρ = λ·E[S] = {rho:.6g} ≥ 1): it has no steady state."
        )
    if second_moment < mean_service * mean_service * (1 - 1e-12):  # (x**2 raises at 1e308)
        raise refusal(
            f,
            "second_moment",
            f"at least mean_service² ({mean_service * mean_service:g}): "
            "a variance is never negative",
            second_moment,
        )
    try:
        out = mean_service + lam * second_moment / (2.0 * (1.0 - rho))
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ParameterError(
            f"The 'second_moment' parameter of {f} is too large: the mean sojourn time "
            f"overflows the float range. Got {second_moment!r} (lam={lam!r}, "
            f"mean_service={mean_service!r}) instead."
        )
    return out
