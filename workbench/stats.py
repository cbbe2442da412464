"""Confidence intervals for simulated numbers, shared by every paper's simulator."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
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


def mean_ci(frame: pd.DataFrame, by, value: str, confidence: float = 0.95) -> pd.DataFrame:
    """Group ``frame`` by ``by`` and give each group's mean of ``value`` with a Student-t interval.

    One row per group (in the groups' sorted order): the ``by`` columns, ``mean``,
    ``half_width`` (NaN for a group of fewer than two rows), ``ci_low``, ``ci_high`` and ``n``.
    Rows whose ``value`` is NaN are left out of their group. Use it for replications of a
    simulated quantity (each row one independent replication).
    """
    by = [by] if isinstance(by, str) else list(by)
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        x = group[value].to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        mean = float(x.mean()) if x.size else math.nan
        half = t_half_width(x, confidence)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "mean": mean,
                "half_width": half,
                "ci_low": mean - half,
                "ci_high": mean + half,
                "n": int(x.size),
            }
        )
    return pd.DataFrame(rows, columns=[*by, "mean", "half_width", "ci_low", "ci_high", "n"])
