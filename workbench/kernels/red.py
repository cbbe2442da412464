"""Random early detection (RED): scalar kernels, no validation, no randomness.

Floyd & Jacobson (1993) keep an exponentially weighted moving average ``avg`` of a queue
size and drop (or mark) each arriving packet with a probability that rises with ``avg``:

- ``avg < min_th``: never;
- ``min_th <= avg < max_th``: ``p_b = max_p (avg - min_th) / (max_th - min_th)``, spread by
  the number ``count`` of packets accepted since the last drop into
  ``p_a = p_b / (1 - count p_b)`` (capped at 1), so drops come at roughly even intervals;
- ``avg >= max_th``: always.

The *gentle* variant (Floyd, 2000) replaces the cliff at ``max_th`` by a second ramp:
``p_b`` rises linearly from ``max_p`` at ``max_th`` to 1 at ``2 max_th``, and only
``avg >= 2 max_th`` drops every packet; the ``count`` spreading applies on both ramps.

The public, validated versions are in :mod:`workbench.red`.

References
----------
S. Floyd and V. Jacobson, "Random early detection gateways for congestion avoidance",
IEEE/ACM Transactions on Networking 1(4), 397-413, 1993 (Sec. 4 and Fig. 2).
S. Floyd, "Recommendation on using the 'gentle_' variant of RED", 2000.
"""

from numba import njit

__all__ = ["red_drop_probability", "red_ewma", "red_idle_decay"]


@njit(cache=True)
def red_drop_probability(avg, min_th, max_th, max_p, count, gentle):
    """Probability of dropping the arriving packet, given the average and ``count``.

    ``count`` is the value *after* the arrival was counted (Floyd & Jacobson increment it
    before computing ``p_a``); ``count = 0`` gives ``p_b`` itself.
    """
    if avg < min_th:
        return 0.0
    if avg < max_th:
        p_b = max_p * (avg - min_th) / (max_th - min_th)
    elif gentle and avg < 2.0 * max_th:
        p_b = max_p + (1.0 - max_p) * (avg - max_th) / max_th
    else:
        return 1.0
    denominator = 1.0 - count * p_b
    # count p_b >= 1: the spreading has run out of room, the packet is dropped
    if denominator <= p_b:
        return 1.0
    return p_b / denominator


@njit(cache=True)
def red_ewma(avg, sample, w_q):
    """One step of the moving average: ``(1 - w_q) avg + w_q sample``."""
    return (1.0 - w_q) * avg + w_q * sample


@njit(cache=True)
def red_idle_decay(avg, idle_slots, w_q):
    """The average after an idle period worth ``idle_slots`` small packets: ``(1-w_q)^m avg``."""
    return avg * (1.0 - w_q) ** idle_slots


@njit(cache=True)
def red_run(samples, uniforms, min_th, max_th, max_p, w_q, gentle, avgs, drops, probs):
    """RED over a sequence of arrivals, as Floyd & Jacobson's Fig. 2 pseudo-code.

    Arrival ``k`` sees the instantaneous queue size ``samples[k]``; the average is updated
    first, then the arrival is dropped when ``uniforms[k] < p_a``. Fills ``avgs`` (the
    average after the update), ``drops`` (1 dropped, 0 kept) and ``probs`` (``p_a``).
    """
    avg = 0.0
    count = -1
    for k in range(samples.shape[0]):
        avg = red_ewma(avg, samples[k], w_q)
        avgs[k] = avg
        dropped = False
        p_a = 0.0
        if avg >= min_th:
            count += 1
            p_a = red_drop_probability(avg, min_th, max_th, max_p, count, gentle)
            dropped = uniforms[k] < p_a
            if dropped:
                count = 0
        else:
            count = -1
        probs[k] = p_a
        drops[k] = 1 if dropped else 0
