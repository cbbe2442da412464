"""Uplink SINR and Shannon rates with co-channel interference.

Every transmitting user interferes at every cloudlet: the received power at cloudlet e is
summed once over all transmitters, and a user's interference is that total minus its own
contribution, so a slot costs O(U E) instead of O(U^2).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def uplink_sinr_kernel(gain, power, noise_power, serving):
    """SINR of every transmitting user at its serving cloudlet (0 for silent users).

    Parameters
    ----------
    gain : float64[U, E]
        Linear channel power gains.
    power : float64[U]
        Transmit powers in W.
    noise_power : float
        Receiver noise power in W (> 0).
    serving : int64[U]
        Serving cloudlet of each user, -1 if the user is silent this slot.
    """
    n_users, n_cloudlets = gain.shape
    received = np.zeros(n_cloudlets)
    for v in range(n_users):
        if serving[v] >= 0:
            for e in range(n_cloudlets):
                received[e] += gain[v, e] * power[v]
    sinr = np.zeros(n_users)
    for u in range(n_users):
        e = serving[u]
        if e < 0:
            continue
        own = gain[u, e] * power[u]
        interference = received[e] - own
        if interference < 0.0:  # rounding when the user's own signal dominates
            interference = 0.0
        sinr[u] = own / (noise_power + interference)
    return sinr


@njit(cache=True)
def uplink_rate_kernel(gain, power, noise_power, serving, bandwidth):
    """Shannon rates bandwidth * log2(1 + SINR) in bit/s; 0 for silent users."""
    sinr = uplink_sinr_kernel(gain, power, noise_power, serving)
    rate = np.zeros(sinr.shape[0])
    for u in range(sinr.shape[0]):
        if serving[u] >= 0:
            rate[u] = bandwidth * np.log2(1.0 + sinr[u])
    return rate


@njit(cache=True)
def distance_path_loss_kernel(user_xy, cloudlet_xy, intercept_db, slope_db, min_distance_m):
    """Path loss intercept + slope * log10(d / 1 km) in dB for every user-cloudlet pair."""
    n_users = user_xy.shape[0]
    n_cloudlets = cloudlet_xy.shape[0]
    dims = user_xy.shape[1]
    out = np.empty((n_users, n_cloudlets))
    for u in range(n_users):
        for e in range(n_cloudlets):
            d2 = 0.0
            for k in range(dims):
                diff = user_xy[u, k] - cloudlet_xy[e, k]
                d2 += diff * diff
            d = max(np.sqrt(d2), min_distance_m)
            out[u, e] = intercept_db + slope_db * np.log10(d / 1000.0)
    return out
