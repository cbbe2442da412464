"""Confidence intervals for simulated numbers, shared by every paper's simulator."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def t_half_width(samples, confidence: float = 0.95) -> float:
    """Half-width of the Student-t interval for the mean of independent replications.

    NaN for fewer than two samples (no interval can be stated).
    """
    x = np.asarray(samples, dtype=float)
    if x.size < 2:
        return math.nan
    return float(stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


def t_interval(samples, confidence: float = 0.95) -> tuple[float, float]:
    """``(low, high)`` Student-t interval for the mean of independent replications."""
    mean = float(np.mean(samples))
    half = t_half_width(samples, confidence)
    return mean - half, mean + half
