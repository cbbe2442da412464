"""Erlang-B by the stable recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1.

Every iterate lies in [0, 1], so the recursion neither overflows (unlike the factorial form
a^c/c! / sum_j a^j/j!, which overflows near c = 170) nor loses precision; O(c) time.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def erlang_b_kernel(servers, load):
    """Blocking probability of an M/G/c/c system with ``servers`` servers and offered load."""
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b


@njit(cache=True)
def erlang_b_table_kernel(max_servers, load):
    """B(k, load) for k = 0..max_servers in one pass."""
    out = np.empty(max_servers + 1)
    b = 1.0
    out[0] = 1.0
    for k in range(1, max_servers + 1):
        b = load * b / (k + load * b)
        out[k] = b
    return out


@njit(cache=True)
def erlang_b_many_kernel(servers, loads):
    """Elementwise B(servers[i], loads[i]) for arrays of equal length."""
    out = np.empty(loads.shape[0])
    for i in range(loads.shape[0]):
        out[i] = erlang_b_kernel(servers[i], loads[i])
    return out
