"""Random early detection (RED) as a general, validated primitive.

A RED queue keeps a moving average ``avg`` of its size and drops (or marks, or -- in the
edge hierarchy of :mod:`workbench.hierarchy` -- forwards) each arriving item with a
probability that grows with ``avg``:

.. math::

    p_b = \\max_p \\frac{\\bar q - \\min_{th}}{\\max_{th} - \\min_{th}}, \\qquad
    p_a = \\frac{p_b}{1 - \\mathrm{count}\\, p_b}

between the two thresholds, 0 below ``min_th`` and 1 from ``max_th`` on (or, *gentle*, a
second ramp from ``max_p`` to 1 between ``max_th`` and ``2 max_th``). ``count`` is the
number of arrivals since the last drop, which spreads drops evenly instead of in bursts.

Functions
---------
drop_probability(avg, min_th, max_th, max_p, count=0, gentle=False)
    ``p_a`` for one arrival (``count`` as incremented for this arrival).
ewma(avg, sample, w_q) / ewma_series(samples, w_q, avg0=0)
    The moving average, one step or over a whole sequence.
red_run(samples, uniforms, ...)
    The whole algorithm over a sequence of arrivals (average, count, drops).

References
----------
S. Floyd and V. Jacobson, "Random early detection gateways for congestion avoidance",
IEEE/ACM Transactions on Networking 1(4), 397-413, 1993 (Sec. 4, Fig. 2).
S. Floyd, "Recommendation on using the 'gentle_' variant of RED", 2000.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from workbench.kernels import red as _k
from workbench.validation import (
    check_array,
    check_bool,
    check_int,
    check_real,
    refusal,
)

__all__ = ["drop_probability", "ewma", "ewma_series", "red_run"]


def _check_thresholds(func: str, min_th, max_th, max_p) -> tuple[float, float, float]:
    """Validate ``0 <= min_th < max_th`` and ``max_p`` in (0, 1]; return them as floats."""
    min_th = check_real(min_th, "min_th", func, 0.0, None)
    max_th = check_real(max_th, "max_th", func, 0.0, None, low_open=True)
    if min_th >= max_th:
        raise refusal(
            func,
            "max_th",
            f"a finite real number in the range (min_th, inf) = ({min_th:g}, inf)",
            max_th,
        )
    max_p = check_real(max_p, "max_p", func, 0.0, 1.0, low_open=True)
    return min_th, max_th, max_p


def _check_w_q(func: str, w_q) -> float:
    return check_real(w_q, "w_q", func, 0.0, 1.0, low_open=True)


def drop_probability(avg, min_th, max_th, max_p, count=0, *, gentle: bool = False):
    """RED's drop probability ``p_a`` for one arrival (array ``avg`` allowed).

    Parameters
    ----------
    avg : float or array_like
        The moving average of the queue size (>= 0).
    min_th, max_th : float
        Thresholds, ``0 <= min_th < max_th``.
    max_p : float
        ``p_b`` at ``max_th``, in (0, 1].
    count : int, default 0
        Arrivals since the last drop, already incremented for this arrival (Floyd &
        Jacobson's ``count``); 0 gives ``p_b``.
    gentle : bool, default False
        Second ramp from ``max_p`` to 1 between ``max_th`` and ``2 max_th``.

    Returns
    -------
    float or ndarray
        0 below ``min_th``; ``p_b / (1 - count p_b)`` capped at 1 between; 1 at or above
        ``max_th`` (``2 max_th`` when gentle).

    References
    ----------
    Floyd & Jacobson (1993), Sec. 4 and Fig. 2.
    """
    func = "drop_probability"
    min_th, max_th, max_p = _check_thresholds(func, min_th, max_th, max_p)
    count = check_int(count, "count", func, 0, 2**62)
    gentle = check_bool(gentle, "gentle", func)
    if isinstance(avg, numbers.Real) or (isinstance(avg, np.ndarray) and avg.ndim == 0):
        a = check_real(avg, "avg", func, 0.0, None)
        return float(_k.red_drop_probability(a, min_th, max_th, max_p, count, gentle))
    arr = check_array(avg, "avg", func, ndim=None, low=0.0)
    return np.array(
        [_k.red_drop_probability(a, min_th, max_th, max_p, count, gentle) for a in arr.ravel()]
    ).reshape(arr.shape)


def ewma(avg, sample, w_q) -> float:
    """One step of RED's moving average: ``(1 - w_q) avg + w_q sample``.

    Parameters
    ----------
    avg : float
        The average before the sample (a queue length, >= 0).
    sample : float
        The new queue-length sample, >= 0.
    w_q : float
        The averaging weight, in (0, 1].

    Returns
    -------
    float
        The average after the sample.

    References
    ----------
    Floyd & Jacobson (1993), Sec. 4 (``w_q`` in (0, 1]).
    """
    func = "ewma"
    avg = check_real(avg, "avg", func, 0.0, None)
    sample = check_real(sample, "sample", func, 0.0, None)
    return float(_k.red_ewma(avg, sample, _check_w_q(func, w_q)))


def ewma_series(samples, w_q, avg0: float = 0.0) -> np.ndarray:
    """The moving average after each of ``samples`` (started at ``avg0``).

    Parameters
    ----------
    samples : array_like of float
        Queue-length samples, in order, each >= 0.
    w_q : float
        The averaging weight, in (0, 1].
    avg0 : float
        The average before the first sample (default 0).

    Returns
    -------
    numpy.ndarray
        The average after each sample, of ``len(samples)``."""
    func = "ewma_series"
    x = check_array(samples, "samples", func, low=0.0)
    w_q = _check_w_q(func, w_q)
    avg = check_real(avg0, "avg0", func, 0.0, None)
    out = np.empty(x.size)
    for k in range(x.size):
        avg = _k.red_ewma(avg, x[k], w_q)
        out[k] = avg
    return out


def red_run(samples, uniforms, min_th, max_th, max_p, w_q, *, gentle: bool = False) -> pd.DataFrame:
    """RED over a sequence of arrivals: average, drop probability and decision per arrival.

    Parameters
    ----------
    samples : array_like
        Queue size seen by each arrival (>= 0).
    uniforms : array_like
        One U(0, 1) draw per arrival; the arrival is dropped when its draw is below ``p_a``.
    min_th, max_th, max_p, w_q, gentle
        As in :func:`drop_probability` and :func:`ewma`.

    Returns
    -------
    DataFrame
        Columns ``sample``, ``avg``, ``p_a``, ``dropped``.
    """
    func = "red_run"
    q = check_array(samples, "samples", func, low=0.0)
    u = check_array(uniforms, "uniforms", func, low=0.0, high=1.0, high_open=True)
    if u.size != q.size:
        raise refusal(
            func, "uniforms", f"an array with one draw per sample ({q.size})", got=f"{u.size} draws"
        )
    min_th, max_th, max_p = _check_thresholds(func, min_th, max_th, max_p)
    w_q = _check_w_q(func, w_q)
    gentle = check_bool(gentle, "gentle", func)
    avgs, probs = np.empty(q.size), np.empty(q.size)
    drops = np.empty(q.size, dtype=np.int64)
    _k.red_run(q, u, min_th, max_th, max_p, w_q, gentle, avgs, drops, probs)
    return pd.DataFrame({"sample": q, "avg": avgs, "p_a": probs, "dropped": drops.astype(bool)})
