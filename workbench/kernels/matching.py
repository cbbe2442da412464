"""Many-to-one deferred acceptance (Gale-Shapley, proposer side) and its hedged rounds.

Preferences arrive as integer arrays, most preferred first; a row may end early with -1
padding (the entries after the first -1 are ignored).  Every receiver keeps its tentatively
held proposers in a binary max-heap keyed by its rank of them, so a proposal costs
O(log capacity) and the whole run O(L log c) for L acceptable pairs.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def check_prefs_kernel(prefs, n_other):
    """First malformed row of a -1 padded preference array: (row, problem) or (-1, 0).

    Problems: 1 = an entry after the -1 padding, 2 = an index outside [0, n_other - 1]
    (or a negative other than -1), 3 = a repeated index.  One O(U E) pass.
    """
    seen = np.full(n_other, -1, dtype=np.int64)  # seen[x] = last row that listed x
    for i in range(prefs.shape[0]):
        padded = False
        for k in range(prefs.shape[1]):
            x = prefs[i, k]
            if x == -1:
                padded = True
                continue
            if padded:
                return i, 1
            if x < 0 or x >= n_other:
                return i, 2
            if seen[x] == i:
                return i, 3
            seen[x] = i
    return -1, 0


@njit(cache=True)
def _receiver_ranks(receiver_prefs, n_proposers):
    """rank[e, u] = position of u in receiver e's list, or -1 if e does not accept u."""
    n_receivers = receiver_prefs.shape[0]
    rank = np.full((n_receivers, n_proposers), -1, dtype=np.int64)
    for e in range(n_receivers):
        for k in range(receiver_prefs.shape[1]):
            u = receiver_prefs[e, k]
            if u < 0:
                break
            rank[e, u] = k
    return rank


@njit(cache=True)
def _sift_down(keys, vals, base, size, i):
    """Restore the max-heap keys[base : base + size] below position i."""
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        child = left
        right = left + 1
        if right < size and keys[base + right] > keys[base + left]:
            child = right
        if keys[base + child] <= keys[base + i]:
            return
        a = base + i
        b = base + child
        keys[a], keys[b] = keys[b], keys[a]
        vals[a], vals[b] = vals[b], vals[a]
        i = child


@njit(cache=True)
def _sift_up(keys, vals, base, i):
    while i > 0:
        parent = (i - 1) // 2
        if keys[base + parent] >= keys[base + i]:
            return
        a = base + i
        b = base + parent
        keys[a], keys[b] = keys[b], keys[a]
        vals[a], vals[b] = vals[b], vals[a]
        i = parent


@njit(cache=True)
def deferred_acceptance_kernel(proposer_prefs, receiver_prefs, capacities):
    """Proposer-optimal stable matching of a many-to-one market.

    Parameters
    ----------
    proposer_prefs : int64[U, E]
        Receiver indices, most preferred first, -1 padded.
    receiver_prefs : int64[E, U]
        Proposer indices, most preferred first, -1 padded.
    capacities : int64[E]
        Non-negative number of proposers each receiver may hold.

    Returns
    -------
    int64[U]
        The receiver of every proposer, -1 if unmatched.

    Notes
    -----
    A pair is acceptable only if each side lists the other; a proposer skips receivers
    that do not list it.  Free proposers are served from a stack; the result does not
    depend on the order (the proposer-optimal stable matching is unique).
    """
    n_prop = proposer_prefs.shape[0]
    n_recv = receiver_prefs.shape[0]
    rank = _receiver_ranks(receiver_prefs, n_prop)
    # flat heaps: receiver e owns keys[offset[e] : offset[e] + capacities[e]]
    offset = np.zeros(n_recv + 1, dtype=np.int64)
    for e in range(n_recv):
        offset[e + 1] = offset[e] + capacities[e]
    keys = np.empty(offset[n_recv], dtype=np.int64)
    vals = np.empty(offset[n_recv], dtype=np.int64)
    held = np.zeros(n_recv, dtype=np.int64)
    nxt = np.zeros(n_prop, dtype=np.int64)  # next list position each proposer will try
    match = np.full(n_prop, -1, dtype=np.int64)
    stack = np.empty(n_prop, dtype=np.int64)
    top = 0
    for u in range(n_prop - 1, -1, -1):
        stack[top] = u
        top += 1
    width = proposer_prefs.shape[1]
    while top > 0:
        top -= 1
        u = stack[top]
        while nxt[u] < width:
            e = proposer_prefs[u, nxt[u]]
            if e < 0:
                nxt[u] = width
                break
            nxt[u] += 1
            r = rank[e, u]
            if r < 0 or capacities[e] == 0:
                continue
            base = offset[e]
            if held[e] < capacities[e]:
                keys[base + held[e]] = r
                vals[base + held[e]] = u
                _sift_up(keys, vals, base, held[e])
                held[e] += 1
                match[u] = e
                break
            if r < keys[base]:  # e prefers u to the worst proposer it holds
                loser = vals[base]
                match[loser] = -1
                stack[top] = loser
                top += 1
                keys[base] = r
                vals[base] = u
                _sift_down(keys, vals, base, held[e], 0)
                match[u] = e
                break
    return match


@njit(cache=True)
def hedge_rounds_kernel(first, hedge_prefs, receiver_prefs, capacities, needs_hedge, max_receivers):
    """The hedge rounds after a first-round match ``first`` (int64[U], -1 if unmatched).

    Each round (up to ``max_receivers - 1`` of them) runs deferred acceptance among the
    proposers with ``needs_hedge`` set, over the receivers' still-vacant capacity, each
    proposer's ``hedge_prefs`` row shortened by the receivers it already holds.
    ``hedge_prefs`` may be shorter lists than the first round's (e.g. only the cloudlets
    where the reliability constraint holds).  Returns int64[U, max_receivers], -1 padded.
    """
    n_prop = hedge_prefs.shape[0]
    width = hedge_prefs.shape[1]
    out = np.full((n_prop, max_receivers), -1, dtype=np.int64)
    residual = capacities.copy()
    for u in range(n_prop):
        out[u, 0] = first[u]
        if first[u] >= 0:
            residual[first[u]] -= 1
    n_recv = receiver_prefs.shape[0]
    taken = np.zeros(n_recv, dtype=np.bool_)
    for col in range(1, max_receivers):
        prefs = np.full((n_prop, width), -1, dtype=np.int64)
        any_active = False
        for u in range(n_prop):
            if not needs_hedge[u]:
                continue
            for e in range(n_recv):
                taken[e] = False
            for c in range(col):
                if out[u, c] >= 0:
                    taken[out[u, c]] = True
            k = 0
            for j in range(width):
                e = hedge_prefs[u, j]
                if e < 0:
                    break
                if not taken[e] and residual[e] > 0:
                    prefs[u, k] = e
                    k += 1
            if k > 0:
                any_active = True
        if not any_active:
            break
        extra = deferred_acceptance_kernel(prefs, receiver_prefs, residual)
        for u in range(n_prop):
            if extra[u] >= 0:
                out[u, col] = extra[u]
                residual[extra[u]] -= 1
    return out
