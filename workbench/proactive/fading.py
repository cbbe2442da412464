"""Rayleigh block fading of the P2 slot kernel: the draws and their generator.

Power fading is Exp(1): the quantiles at the midpoints of 2^14 equal-probability cells,
picked by a xorshift64* generator (three shifts and a multiply per draw, far cheaper than
a logarithm, and reproducible bit for bit by a plain-Python twin). Every slot draws one
value per (user, cloudlet) link, in (user, cloudlet) order, from one generator.

Stepping the generator link after link is a chain of dependent shifts, each waiting for
the last. :func:`fade` breaks the chain at the users: xorshift64's state update (without
the output multiply) is linear over GF(2), so E steps are one 64 × 64 bit matrix, applied
as 16 look-ups in a table of its columns taken four at a time (:func:`jump_table`); the
state at every user's first link follows by one such jump a user, and four users' links
are then drawn side by side. The draws are the same, bit for bit, as one chain's.
"""

import numpy as np
from numba import njit

FADING_BITS = 14
FADING_TABLE = -np.log1p(-(np.arange(2**FADING_BITS) + 0.5) / 2**FADING_BITS)
_XS_MULT = np.uint64(2685821657736338717)
_SHIFT = np.uint64(64 - FADING_BITS)


@njit(cache=True, inline="always")
def _step(x):
    """One xorshift64 state update (linear over GF(2); the output multiply is apart)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    return x ^ (x >> np.uint64(27))


@njit(cache=True)
def xorshift_next(state):
    """Advance the xorshift64* state (uint64[1], nonzero) and return the next output."""
    state[0] = _step(state[0])
    return state[0] * _XS_MULT


@njit(cache=True)
def fading_draw(state, table):
    """One Exp(1) power-fading draw: the table entry the generator's top bits select."""
    return table[np.int64(xorshift_next(state) >> np.uint64(64 - FADING_BITS))]


@njit(cache=True)
def jump_table(steps):
    """uint64[256]: entry 16 j + v is M^steps applied to the state whose bits 4j .. 4j+3
    are v and the others 0 (M: one xorshift64 state update); :func:`jump` uses it."""
    cols = np.empty(64, dtype=np.uint64)
    for i in range(64):
        x = np.uint64(1) << np.uint64(i)
        for _ in range(steps):
            x = _step(x)
        cols[i] = x
    out = np.zeros(256, dtype=np.uint64)
    for j in range(16):
        for v in range(16):
            acc = np.uint64(0)
            for b in range(4):
                if (v >> b) & 1:
                    acc ^= cols[4 * j + b]
            out[16 * j + v] = acc
    return out


@njit(cache=True)
def jump(table, x):
    """The xorshift64 state the :func:`jump_table` ``table``'s steps after ``x``."""
    y = np.uint64(0)
    for j in range(16):
        y ^= table[16 * j + np.int64((x >> np.uint64(4 * j)) & np.uint64(15))]
    return y


@njit(cache=True)
def fade(gain, path_gain, rng_state, table, user_jump, starts):
    """One slot of block fading: gain = path gain × an Exp(1) draw on every link, the draws
    in (user, cloudlet) order as :func:`fading_draw` would give them one by one.

    ``user_jump``: :func:`jump_table` of E steps; ``starts``: uint64[U] scratch (each
    user's first state). Four users' chains run side by side (independent shifts).
    """
    n_users, n_cloudlets = gain.shape
    x = rng_state[0]
    for u in range(n_users):
        starts[u] = x
        x = jump(user_jump, x)
    rng_state[0] = x
    u = 0
    while u + 4 <= n_users:
        a, b, c, d = starts[u], starts[u + 1], starts[u + 2], starts[u + 3]
        for e in range(n_cloudlets):
            a, b, c, d = _step(a), _step(b), _step(c), _step(d)
            gain[u, e] = path_gain[u, e] * table[(a * _XS_MULT) >> _SHIFT]
            gain[u + 1, e] = path_gain[u + 1, e] * table[(b * _XS_MULT) >> _SHIFT]
            gain[u + 2, e] = path_gain[u + 2, e] * table[(c * _XS_MULT) >> _SHIFT]
            gain[u + 3, e] = path_gain[u + 3, e] * table[(d * _XS_MULT) >> _SHIFT]
        u += 4
    for v in range(u, n_users):  # the users left over by fours: one chain each
        for e in range(n_cloudlets):
            gain[v, e] = path_gain[v, e] * fading_draw(starts[v : v + 1], table)
