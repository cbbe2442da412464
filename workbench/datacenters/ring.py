"""The ring of J centers in the scaling limit: the paper's pairwise reduction.

References
----------
Fricker, Guillemin, Robert, Thompson (2016), Section 2.4 (ring of data centers).
"""

from __future__ import annotations

from itertools import groupby

import numpy as np
import pandas as pd

from workbench.datacenters.limit import limit_analysis
from workbench.datacenters.params import DEFAULTS, Ring

__all__ = ["ring_limit"]


def ring_limit(load, c, mu, p) -> pd.DataFrame:
    """Pairwise reduction of the ring in the scaling limit, where it applies.

    A center is *saturated* if its own load exceeds its capacity, or if the overflow it
    receives from saturated neighbours does. Saturated centers form runs around the ring:

    - run of one center j: beta_j = (1 - 2 p_j)(1 - c_j mu_j / lambda_j);
    - run of two (j, j+1): the two-center idle-server walk with (p1, p2) = (p_j, p_{j+1})
      gives pi00, P(m=0), P(n=0); beta_j = (1 - 2 p_j) P(m=0) + p_j pi00, and symmetrically;
      the outer neighbours j-1 and j+2 must absorb the pair's overflow;
    - run of three or more: the reduction does not apply (a walk in N^3 would be needed);
      beta is NaN and ``reduction`` says so.

    Parameters
    ----------
    load : sequence of J floats (3 <= J <= 64)
        Arrival rate of each center per unit N, lambda_j / N.
    c, mu, p : float or sequence of J floats
        Capacity per unit N, service rate, forwarding probability to each neighbour
        (at most 1/2).

    Returns
    -------
    pandas.DataFrame
        One row per center: ``center``, ``saturated``, ``reduction`` ('underloaded',
        'isolated', 'pair', 'not applicable (run of k)') and ``beta``.

    References
    ----------
    Fricker et al. (2016), Section 2.4, conditions (E_j) and (5).
    """
    return pairwise_reduction(Ring.of("ring_limit", load, c, mu, p, per_unit=True))


def pairwise_reduction(ring: Ring) -> pd.DataFrame:
    """:func:`ring_limit` of a checked ring per unit N (it trusts ``ring``: the public
    functions build it at their door with :meth:`~workbench.datacenters.params.Ring.of`).

    Parameters
    ----------
    ring : Ring
        Loads per unit N, capacities ``c``, service rates and forwarding probabilities.

    Returns
    -------
    pandas.DataFrame
        As :func:`ring_limit`'s.
    """
    lam, c, mu, p = ring.rates, ring.servers, ring.mu, ring.p
    n = lam.size
    cap = c * mu
    sat = lam > cap
    # overflow of isolated saturated centers; grow the saturated set to a fixed point
    for _ in range(n):
        spill = np.where(sat, p * np.maximum(lam - cap, 0.0), 0.0)
        inflow = lam + np.roll(spill, 1) + np.roll(spill, -1)
        new = sat | (inflow > cap)
        if np.array_equal(new, sat):
            break
        sat = new
    reduction = np.array(["underloaded"] * n, dtype=object)
    beta = np.zeros(n)
    # from an unsaturated center, so that no run wraps past the end (all saturated: one run)
    start = int(np.argmin(sat))
    order = [(start + k) % n for k in range(n)]
    runs = [list(run) for saturated, run in groupby(order, key=sat.__getitem__) if saturated]
    for run in runs:
        if len(run) == 1:
            j = run[0]
            reduction[j] = "isolated"
            beta[j] = (1 - 2 * p[j]) * (1 - cap[j] / lam[j])
        elif len(run) == 2:
            j, k = run
            pair = DEFAULTS.trusted(
                load=(lam[j], lam[k]), c=(c[j], c[k]), mu=(mu[j], mu[k]), p=(p[j], p[k])
            )
            sol = limit_analysis(pair)
            a, b = sol.p_saturated
            left, right = (j - 1) % n, (k + 1) % n
            ok = (lam[left] + p[j] * lam[j] * a < cap[left]) and (
                lam[right] + p[k] * lam[k] * b < cap[right]
            )
            if sol.regime == "E" and ok:
                reduction[j] = reduction[k] = "pair"
                beta[j] = (1 - 2 * p[j]) * a + p[j] * sol.pi00
                beta[k] = (1 - 2 * p[k]) * b + p[k] * sol.pi00
            else:
                reduction[j] = reduction[k] = "not applicable (run of 3)"
                beta[j] = beta[k] = np.nan
        else:
            for j in run:
                reduction[j] = f"not applicable (run of {len(run)})"
                beta[j] = np.nan
    return pd.DataFrame(
        {"center": range(n), "saturated": sat, "reduction": reduction, "beta": beta}
    )
