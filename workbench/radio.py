"""Uplink radio model: path loss, Rayleigh fading, coverage, noise and SINR-based rates.

Users upload task inputs to edge cloudlets over a shared band: every transmitting user
interferes with every other at every cloudlet (full frequency reuse).  Units: distances in
metres, powers in watts (``dbm_to_watt`` converts), gains linear, rates in bit/s.

References
----------
Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
EURASIP JWCN 2018: eq. 2 (uplink SINR and rate) and the simulation setup
(path loss 140.7 + 36.7 log10(d[km]) dB, Rayleigh fading, noise -174 dBm/Hz with a 9 dB
noise figure).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.kernels.radio import distance_path_loss_kernel, uplink_rate_kernel
from workbench.validation import (
    ParameterError,
    check_budget,
    check_real,
    check_seed,
    refusal,
)

__all__ = [
    "uplink_rate",
    "path_loss_db",
    "rayleigh_fading",
    "channel_gains",
    "coverage",
    "dbm_to_watt",
    "noise_power",
]

PATH_LOSS_INTERCEPT_DB = 140.7
PATH_LOSS_SLOPE_DB = 36.7
MIN_DISTANCE_M = 1.0


def _real_array(value, name, func, what, ndim=None, shape=None, low=None, low_open=False):
    """Finite float64 array of the given rank/shape with every entry >= (or >) ``low``."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        arr = None
    ok = (
        arr is not None
        and arr.dtype != bool
        and (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating))
        and (ndim is None or arr.ndim == ndim)
        and (shape is None or arr.shape == shape)
    )
    if not ok:
        raise refusal(func, name, what, value)
    arr = np.asarray(arr, dtype=np.float64, order="C")  # keeps 0-d scalars 0-d
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" at index {idx[0] if len(idx) == 1 else idx}" if arr.ndim else ""
        raise refusal(func, name, what, got=f"{float(arr[idx])!r}{where}")
    return arr


def dbm_to_watt(dbm):
    """Power in W of a level in dBm: 10 ** ((dbm - 30) / 10).

    Parameters
    ----------
    dbm : float or array_like
        Power levels in dBm.

    Returns
    -------
    float or numpy.ndarray
        The powers in W, of the input's shape."""
    # above 3100 dBm the power overflows the float range (10**307 W)
    arr = _real_array(dbm, "dbm", "dbm_to_watt", "a finite real number or array <= 3100")
    if np.any(arr > 3100.0):
        raise refusal(
            "dbm_to_watt",
            "dbm",
            "a finite real number or array <= 3100 (higher levels overflow the float range)",
            dbm,
        )
    out = 10.0 ** ((arr - 30.0) / 10.0)
    return float(out) if out.ndim == 0 else out


def noise_power(bandwidth_hz, noise_figure_db=9.0, density_dbm_hz=-174.0) -> float:
    """Thermal noise power in W over a band: density + 10 log10(bandwidth) + noise figure.

    Parameters
    ----------
    bandwidth_hz : float
        Bandwidth in Hz, > 0.
    noise_figure_db : float
        Receiver noise figure in dB, in [0, 30] (default 9 dB; a receiver adds noise, so
        never below 0 dB).
    density_dbm_hz : float
        Noise power spectral density in dBm/Hz, in [-200, -100] (default -174 dBm/Hz, kT
        at 290 K).

    Returns
    -------
    float
        The noise power in W.
    """
    func = "noise_power"
    b = check_real(bandwidth_hz, "bandwidth_hz", func, 0.0, low_open=True)
    nf = check_real(noise_figure_db, "noise_figure_db", func, 0.0, 30.0)
    n0 = check_real(density_dbm_hz, "density_dbm_hz", func, -200.0, -100.0)
    return 10.0 ** ((n0 + 10.0 * math.log10(b) + nf - 30.0) / 10.0)


def path_loss_db(distance_m):
    """Path loss in dB: 140.7 + 36.7 log10(d / 1000) for a distance d in metres.

    The model is written for d in km.  Distances below 1 m are clipped to 1 m (a user on
    top of a cloudlet would otherwise get an unbounded gain); the loss there is 30.6 dB.

    Parameters
    ----------
    distance_m : float or array_like
        Distances in metres, >= 0.

    Returns
    -------
    float or numpy.ndarray
        The loss in dB: a float for a scalar, an array of the same shape for an array.
    """
    d = _real_array(distance_m, "distance_m", "path_loss_db", "non-negative distances in m", low=0)
    d = np.maximum(d, MIN_DISTANCE_M)
    out = PATH_LOSS_INTERCEPT_DB + PATH_LOSS_SLOPE_DB * np.log10(d / 1000.0)
    return float(out) if out.ndim == 0 else out


def rayleigh_fading(shape, seed) -> np.ndarray:
    """Rayleigh-fading power gains |h|^2: iid Exp(1) (mean 1) of the given shape.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the draw.
    seed : int
        A non-negative seed: same seed, same numbers.

    Returns
    -------
    numpy.ndarray
        The power gains, of ``shape``.
    """
    func = "rayleigh_fading"
    seed = check_seed(seed, func)
    what = "a non-negative int or a tuple of them"
    try:
        dims = (shape,) if np.isscalar(shape) else tuple(shape)
    except TypeError:
        dims = None
    if dims is None or any(
        isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in dims
    ):
        raise refusal(func, "shape", what, shape)
    size = math.prod(int(d) for d in dims)
    check_budget(func, "shape", shape, 8.0 * size, "the fading draws")
    return np.random.default_rng(seed).exponential(1.0, size=tuple(int(d) for d in dims))


def _positions(value, name, func):
    return _real_array(value, name, func, "a 2-D array of finite coordinates in m", ndim=2)


def channel_gains(user_xy, cloudlet_xy, seed=None, fading=True) -> np.ndarray:
    """Linear uplink power gains (U, E): 10^(-PL/10) times Rayleigh fading.

    Parameters
    ----------
    user_xy : array_like, shape (U, D)
        User positions in metres.
    cloudlet_xy : array_like, shape (E, D)
        Cloudlet positions in metres (same D).
    seed : int or None
        Seed of the fading draw.  None draws fresh OS entropy (not reproducible); ignored
        when ``fading`` is False.
    fading : bool
        Multiply the path gain by iid Exp(1) Rayleigh power fading (default True).

    Returns
    -------
    numpy.ndarray, shape (U, E)
        The linear power gain from each user to each cloudlet.

    Notes
    -----
    Path loss as in :func:`path_loss_db` (distances clipped below at 1 m).
    """
    func = "channel_gains"
    users = _positions(user_xy, "user_xy", func)
    cloudlets = _positions(cloudlet_xy, "cloudlet_xy", func)
    if cloudlets.shape[1] != users.shape[1]:
        raise ParameterError(
            f"The 'cloudlet_xy' parameter of {func} must have {users.shape[1]} coordinates "
            f"per row, like 'user_xy'. Got an array of shape {cloudlets.shape} instead."
        )
    if not isinstance(fading, (bool, np.bool_)):
        raise refusal(func, "fading", "True or False", fading)
    pl = distance_path_loss_kernel(
        users, cloudlets, PATH_LOSS_INTERCEPT_DB, PATH_LOSS_SLOPE_DB, MIN_DISTANCE_M
    )
    gain = 10.0 ** (-pl / 10.0)
    if fading:
        seed = None if seed is None else check_seed(seed, func)
        gain *= np.random.default_rng(seed).exponential(1.0, size=gain.shape)
    return gain


def coverage(path_loss_db, threshold_db=110.0) -> np.ndarray:
    """Boolean (U, E) coverage: True where the path loss is at most ``threshold_db``.

    Parameters
    ----------
    path_loss_db : array_like, shape (U, E)
        Path losses in dB (:func:`path_loss_db`).
    threshold_db : float
        The largest loss at which a user is covered, in dB (default 110 dB).

    Returns
    -------
    numpy.ndarray of bool, shape (U, E)
        Whether each user is covered by each cloudlet."""
    func = "coverage"
    t = check_real(threshold_db, "threshold_db", func)
    pl = _real_array(path_loss_db, "path_loss_db", func, "a 2-D array of path losses in dB", 2)
    return pl <= t


def uplink_rate(gain, power, noise_power, serving, bandwidth) -> np.ndarray:
    """Uplink Shannon rate of every user under co-channel interference.

    Parameters
    ----------
    gain : array_like, shape (U, E)
        Linear channel power gains from user u to cloudlet e (>= 0).
    power : array_like, shape (U,)
        Transmit powers in W (>= 0).
    noise_power : float
        Receiver noise power in W (> 0), e.g. from :func:`noise_power`.
    serving : array_like of int, shape (U,)
        Cloudlet each user transmits to this slot, or -1 if it is silent.
    bandwidth : float
        Bandwidth in Hz (> 0).

    Returns
    -------
    numpy.ndarray, shape (U,)
        bandwidth * log2(1 + SINR_u) in bit/s, 0 for silent users, where

        SINR_u = gain[u, e] power[u] / (noise_power + sum_{v != u, serving[v] != -1}
        gain[v, e] power[v]),  e = serving[u]:

        every other transmitting user interferes, whichever cloudlet it serves.

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018, eq. 2.
    """
    func = "uplink_rate"
    g = _real_array(gain, "gain", func, "a 2-D array of non-negative linear gains", 2, low=0)
    n_users, n_cloudlets = g.shape
    p = _real_array(
        power, "power", func, f"{n_users} non-negative powers in W", shape=(n_users,), low=0
    )
    n0 = check_real(noise_power, "noise_power", func, 0.0, low_open=True)
    b = check_real(bandwidth, "bandwidth", func, 0.0, low_open=True)
    what = f"{n_users} integers in [-1, {n_cloudlets - 1}] (-1 = silent)"
    try:
        s = np.asarray(serving)
    except (ValueError, TypeError):
        s = None
    if (
        s is None
        or s.dtype == bool
        or not np.issubdtype(s.dtype, np.integer)
        or s.shape != (n_users,)
    ):
        raise refusal(func, "serving", what, serving)
    bad = (s < -1) | (s >= n_cloudlets)
    if bad.any():
        i = int(np.argmax(bad))
        raise refusal(func, "serving", what, got=f"{int(s[i])} at index {i}")
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite((g * p[:, None]).sum(axis=0)).all()
    if not finite:
        raise refusal(
            func,
            "gain",
            "a 2-D array of non-negative linear gains whose received powers gain * power sum "
            "to finite values",
            got="sums that overflow",
        )
    with np.errstate(over="ignore"):
        rates = uplink_rate_kernel(g, p, n0, np.ascontiguousarray(s, dtype=np.int64), b)
    if not np.all(np.isfinite(rates)):
        u = int(np.argmax(~np.isfinite(rates)))
        raise ParameterError(
            f"The 'noise_power' parameter of {func} must leave every SINR finite (received "
            f"power / noise overflows for user {u}). Got {n0!r} instead."
        )
    return rates
