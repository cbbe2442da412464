"""Slow, obvious twins of the grid-chain and QBD kernels (``workbench.kernels.markov``),
written from its module docstring with dense numpy matrices: the generator Q of a chain on
the grid {0..K1} x {0..K2} (state (x, y) at index x*(K2+1)+y), its split Q = Q_x + Q_y into
moves along x and along y, one ADI half step as a dense solve, and the QBD rate matrix R by
the plain fixed-point iteration R = -(A_up + R^2 A_down) A_local^-1 from R = 0, and a
QBD's first passages between two levels by a dense solve of the absorbing chain.
"""

from __future__ import annotations

import numpy as np


def stencil_dense(up1, down1, extra1, up2, down2, extra2):
    """The stencil of two birth-death coordinates coupled on the boundary, written from the
    chain's moves, one grid row or column at a time: x moves up at ``up1[x]``, plus
    ``extra1`` while y is full; down at ``down1[x]``; y likewise, plus ``extra2`` while x
    is full. (right, left, up, down) of shape (K1+1, K2+1); a move off the grid is 0."""
    k1, k2 = len(up1) - 1, len(up2) - 1
    right, left, up, down = (np.zeros((k1 + 1, k2 + 1)) for _ in range(4))
    right[:k1, :] = np.asarray(up1, dtype=float)[:k1, None]
    right[:k1, k2] += extra1  # the overflow of the full y center
    left[1:, :] = np.asarray(down1, dtype=float)[1:, None]
    up[:, :k2] = np.asarray(up2, dtype=float)[None, :k2]
    up[k1, :k2] += extra2  # the overflow of the full x center
    down[:, 1:] = np.asarray(down2, dtype=float)[None, 1:]
    return right, left, up, down


def generator_parts(right, left, up, down):
    """(Q_x, Q_y): the dense generators of the moves along x and along y, each with its own
    diagonal, so that Q = Q_x + Q_y. A rate pointing off the grid is left out."""
    k1, k2 = right.shape[0] - 1, right.shape[1] - 1
    w = k2 + 1
    n = (k1 + 1) * w
    qx, qy = np.zeros((n, n)), np.zeros((n, n))
    for x in range(k1 + 1):
        for y in range(k2 + 1):
            i = x * w + y
            if x < k1:
                qx[i, i + w] += right[x, y]
                qx[i, i] -= right[x, y]
            if x > 0:
                qx[i, i - w] += left[x, y]
                qx[i, i] -= left[x, y]
            if y < k2:
                qy[i, i + 1] += up[x, y]
                qy[i, i] -= up[x, y]
            if y > 0:
                qy[i, i - 1] += down[x, y]
                qy[i, i] -= down[x, y]
    return qx, qy


def generator(right, left, up, down):
    """The dense generator Q = Q_x + Q_y of a stencil."""
    qx, qy = generator_parts(right, left, up, down)
    return qx + qy


def stationary(q):
    """pi Q = 0, sum(pi) = 1 by a dense least-squares solve."""
    n = q.shape[0]
    a = np.vstack([q.T, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    return np.linalg.lstsq(a, b, rcond=None)[0]


def adi_half_step(z, g, qx, qy, shift, along):
    """One half step of the row-vector iteration: ``out (sI - Q_x) = z (sI + Q_y) - g``
    for ``along="x"``, x and y swapped for ``along="y"``; z, g and out flat."""
    n = qx.shape[0]
    implicit, explicit = (qx, qy) if along == "x" else (qy, qx)
    eye = np.eye(n)
    rhs = z @ (shift * eye + explicit) - g
    return np.linalg.solve((shift * eye - implicit).T, rhs)


def adi_cycle(g, qx, qy, shifts):
    """One Peaceman-Rachford cycle over ``shifts`` from z = 0 (flat arrays)."""
    z = np.zeros(qx.shape[0])
    for s in shifts:
        z = adi_half_step(z, g, qx, qy, s, "x")
        z = adi_half_step(z, g, qx, qy, s, "y")
    return z


def qbd_rate_matrix(a_up, a_local, a_down, iterations=20_000):
    """Minimal R of A_up + R A_local + R^2 A_down = 0: the monotone iteration from R = 0."""
    inv = np.linalg.inv(a_local)
    r = np.zeros_like(a_local)
    for _ in range(iterations):
        nxt = -(a_up + r @ r @ a_down) @ inv
        if np.max(np.abs(nxt - r)) < 1e-15:
            return nxt
        r = nxt
    return r


def qbd_passage(a_up, a_local, a_down, levels):
    """(down, up) of a QBD started at level 0: down[i, j] the probability, from phase i, of
    reaching level -1 (entering it in phase j) before level ``levels``, and up[i, j] that of
    reaching level ``levels`` (in phase j) before level -1. A dense solve of the chain on
    levels 0..levels-1, the two others absorbing: -Q_TT h = Q_T,absorbing."""
    n = a_local.shape[0]
    size = levels * n
    q = np.zeros((size, size))
    to_down, to_up = np.zeros((size, n)), np.zeros((size, n))
    for level in range(levels):
        s = slice(level * n, (level + 1) * n)
        q[s, s] = a_local
        if level > 0:
            q[s, (level - 1) * n : level * n] = a_down
        else:
            to_down[s] = a_down
        if level < levels - 1:
            q[s, (level + 1) * n : (level + 2) * n] = a_up
        else:
            to_up[s] = a_up
    h = np.linalg.solve(-q, np.hstack([to_down, to_up]))
    return h[:n, :n], h[:n, n:]
