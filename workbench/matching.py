"""Stable many-to-one matching: deferred acceptance and the hedged second round.

Users (proposers) rank cloudlets (receivers) and cloudlets rank users; a cloudlet serves
at most its capacity of users.  :func:`deferred_acceptance` returns the proposer-optimal
stable matching (Gale & Shapley 1962; Roth 1984 for capacities), the same matching as the
resident-optimal solution of the hospital-resident problem.  :func:`hedged_matching` adds
the task-duplication ("hedging") round of Elbamby et al., "Proactive edge computing with
latency and reliability guarantees", EURASIP JWCN 2018, in which users whose latency
target one cloudlet cannot meet are also matched to cloudlets with spare capacity.

Preference lists
----------------
Row ``i`` of a preference array lists indices of the other side, most preferred first.
A full row is a permutation of ``0 .. n - 1``.  A *partial* row lists only the acceptable
partners and is padded with -1 after them (``[2, 0, -1, -1]``: only 2 and 0, in that
order); a row of -1 accepts nobody.  A pair can be matched only if each side lists the
other.  Anything else (repeats, indices out of range, -1 followed by an index, non-integer
entries, a wrong shape) raises :class:`~workbench.validation.ParameterError`.
"""

from __future__ import annotations

import numbers

import numpy as np

from workbench.kernels.matching import (
    check_prefs_kernel,
    deferred_acceptance_kernel,
    hedge_rounds_kernel,
)
from workbench.validation import (
    array_or_none,
    check_budget,
    check_int,
    refusal,
)

__all__ = ["deferred_acceptance", "hedged_matching"]


def _prefs(value, name: str, func: str, shape: tuple[int, int] | None) -> np.ndarray:
    """Check one preference array and return it as C-contiguous int64."""
    size = "a 2-D" if shape is None else f"a {shape[0]} x {shape[1]}"
    what = (
        f"{size} integer array whose rows list distinct indices of the other side, most "
        "preferred first, optionally padded with trailing -1"
    )
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):  # ragged nested lists
        arr = None
    if arr is None or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise refusal(func, name, what, value)
    if arr.ndim != 2 or (shape is not None and arr.shape != shape):
        raise refusal(func, name, what, got=f"an array of shape {arr.shape}")
    n_other = arr.shape[1]
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    row, problem = check_prefs_kernel(arr, n_other)
    if problem:
        bad = {
            1: "an index after the -1 padding",
            2: f"an index outside [0, {n_other - 1}]",
            3: "a repeated index",
        }[problem]
        raise refusal(func, name, what, got=f"row {row} = {arr[row].tolist()} with {bad}")
    return arr


def _capacities(value, n_receivers: int, func: str) -> np.ndarray:
    what = f"None, an int >= 0 or {n_receivers} non-negative integers"
    if value is None:
        return np.ones(n_receivers, dtype=np.int64)
    big = np.iinfo(np.int64).max
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        c = check_int(value, "capacities", func, 0)
        return np.full(n_receivers, min(c, big), dtype=np.int64)  # more than U is U
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        arr = np.asarray(None)
    ok = (
        arr.dtype != bool
        and np.issubdtype(arr.dtype, np.integer)
        and arr.shape == (n_receivers,)
        and (arr.size == 0 or arr.min() >= 0)
    )
    if not ok:
        raise refusal(func, "capacities", what, value)
    return np.ascontiguousarray(np.minimum(arr, big), dtype=np.int64)


def _market(proposer_prefs, receiver_prefs, capacities, func):
    p = _prefs(proposer_prefs, "proposer_prefs", func, None)
    n_prop, n_recv = p.shape
    r = _prefs(receiver_prefs, "receiver_prefs", func, (n_recv, n_prop))
    c = _capacities(capacities, n_recv, func)
    return p, r, np.minimum(c, n_prop)  # more room than proposers changes nothing


def deferred_acceptance(proposer_prefs, receiver_prefs, capacities=None) -> np.ndarray:
    """Proposer-optimal stable matching of users (proposers) to cloudlets (receivers).

    Parameters
    ----------
    proposer_prefs : array_like of int, shape (U, E)
        Row u ranks the receivers, most preferred first: a permutation of ``0 .. E-1``,
        or the acceptable receivers only followed by -1 padding.
    receiver_prefs : array_like of int, shape (E, U)
        Row e ranks the proposers in the same way.
    capacities : None, int or array_like of int, shape (E,)
        Number of proposers each receiver can hold (>= 0); default 1 (one-to-one).

    Returns
    -------
    numpy.ndarray of int64, shape (U,)
        Receiver matched to each proposer, -1 if unmatched.

    Notes
    -----
    Deferred acceptance: free proposers propose down their lists; a receiver tentatively
    holds its ``capacity`` best proposals so far and rejects the rest.  The result is
    stable (no proposer-receiver pair, each listing the other, where the proposer is
    unmatched or prefers the receiver and the receiver has room or prefers the proposer to
    one it holds) and is the best stable matching for every proposer.  It equals the
    resident-optimal solution of the hospital-resident problem.  Cost O(L log c) for L
    acceptable pairs and capacity c.

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018 (user-server matching).  Gale & Shapley, "College admissions
    and the stability of marriage", Amer. Math. Monthly 69, 1962.

    Examples
    --------
    >>> deferred_acceptance([[0, 1], [0, 1]], [[1, 0], [0, 1]]).tolist()
    [1, 0]
    """
    p, r, c = _market(proposer_prefs, receiver_prefs, capacities, "deferred_acceptance")
    return deferred_acceptance_kernel(p, r, c)


def hedged_matching(
    proposer_prefs,
    receiver_prefs,
    capacities=None,
    needs_hedge=None,
    max_receivers=2,
    hedge_prefs=None,
) -> np.ndarray:
    """Deferred acceptance, then hedge rounds that give flagged users extra cloudlets.

    Parameters
    ----------
    proposer_prefs, receiver_prefs, capacities
        As in :func:`deferred_acceptance`.
    needs_hedge : None or array_like of bool, shape (U,)
        Users that need a duplicate server (e.g. whose latency-reliability target one
        cloudlet cannot meet).  Default: nobody, which reduces to deferred acceptance.
    max_receivers : int
        X_max, the most receivers one proposer may hold in total (>= 1).
    hedge_prefs : None or array_like of int, shape (U, E)
        The lists flagged proposers use in the hedge rounds, in the format of
        ``proposer_prefs`` (default: ``proposer_prefs``).  Elbamby et al. match a user
        again "such that the reliability constraint is satisfied" (Sec. 2): pass each
        user's list restricted to the receivers where its constraint (eq. 9) holds.

    Returns
    -------
    numpy.ndarray of int64, shape (U, max_receivers)
        Column 0 is the first-round (deferred-acceptance) match; column j >= 1 the receiver
        won in hedge round j; -1 where there is none.  A row never repeats a receiver.

    Notes
    -----
    Round 1 matches everybody by :func:`deferred_acceptance`.  Each of the next
    ``max_receivers - 1`` rounds runs deferred acceptance again with only the flagged
    proposers, each proposing down its own list minus the receivers it already holds,
    over the capacity the receivers have left; receivers keep their rankings.  Every round
    is stable with respect to the residual market, so a hedge never displaces a user's
    first-round server.  With the default ``hedge_prefs``, a flagged proposer unmatched
    in a round gets nothing later either (every receiver that rejected it was full), so -1
    only pads rows at the end; with other hedge lists a proposer unmatched in round 1 may
    still win a hedge seat (a row such as ``[-1, 2]``).

    References
    ----------
    Elbamby et al., "Proactive edge computing with latency and reliability guarantees",
    EURASIP JWCN 2018 (task duplication, "hedging", over at most X_max servers).
    """
    func = "hedged_matching"
    p, r, c = _market(proposer_prefs, receiver_prefs, capacities, func)
    x_max = check_int(max_receivers, "max_receivers", func, 1)
    n_prop = p.shape[0]
    check_budget(func, "max_receivers", max_receivers, 8.0 * n_prop * x_max, "the result array")
    x_max = min(x_max, max(p.shape[1], 1))
    if needs_hedge is None:
        flags = np.zeros(n_prop, dtype=np.bool_)
    else:
        flags = array_or_none(needs_hedge)
        if flags is None or flags.dtype != bool or flags.shape != (n_prop,):
            raise refusal(func, "needs_hedge", f"None or {n_prop} booleans", needs_hedge)
        flags = np.ascontiguousarray(flags)
    h = p if hedge_prefs is None else _prefs(hedge_prefs, "hedge_prefs", func, p.shape)
    first = deferred_acceptance_kernel(p, r, c)
    out = hedge_rounds_kernel(first, h, r, c, flags, x_max)
    if out.shape[1] < max_receivers:  # more columns asked for than receivers exist
        pad = np.full((n_prop, max_receivers - out.shape[1]), -1, dtype=np.int64)
        out = np.hstack([out, pad])
    return out
