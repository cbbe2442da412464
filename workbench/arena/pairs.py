"""Paired comparisons of contenders on the same tasks: the policies the winner map compares,
the paired interval of a difference over replications, and the rule that names a winner only
when it is separated from every other contender (else the tied set).

Kept apart from :mod:`workbench.arena.studies` (the map's sweeps) so that
:func:`workbench.arena.evaluate` can pair an agent with the built-in policies without loading
the sweep engine.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from workbench.arena.params import ArenaParams
from workbench.params import takes

__all__ = ["CONTENDERS", "POINT", "mark_winners", "paired_interval", "replications_of"]

#: the policies compared on the map, with their parameters
CONTENDERS = {
    "local": {},
    "jsq": {},
    "power_of_d": {"d": 2},
    "threshold": {"theta": 0.05, "e_max": 1},
    "overflow": {"p": 1.0},
    "replicate": {"m": 2},
    "red": {"min_th": 4.0, "max_th": 12.0, "max_p": 0.2, "w_q": 0.05},
    "cloud": {},
}


@takes(ArenaParams, "a", "b", "confidence", positional=True)
def paired_interval(p, a, b) -> tuple[float, float, float]:
    """Mean of ``a − b`` over paired replications and its Student-t interval.

    Parameters
    ----------
    a, b : array_like of float
        One value per replication, replication r of both on the same tasks.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``; ``low`` and ``high`` are NaN with fewer than two pairs.
    """
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if d.size < 2:
        return (float(d.mean()) if d.size else math.nan), math.nan, math.nan
    mean = float(d.mean())
    half = float(
        stats.t.ppf(0.5 + p.confidence / 2, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    )
    return mean, mean - half, mean + half


def replications_of(row, q: str) -> np.ndarray:
    """The per-replication values of a quantity in a frame row.

    Parameters
    ----------
    row : pandas.Series
        A row with the columns ``q@0``, ``q@1``, ...
    q : str
        The quantity (``"mean_delay"``).

    Returns
    -------
    numpy.ndarray
        The values in replication order.
    """
    cols = sorted(
        (c for c in row.index if c.startswith(f"{q}@")), key=lambda c: int(c.split("@")[1])
    )
    return row[cols].to_numpy(dtype=float)


POINT = ["load", "link_delay", "scv", "cloud_rtt"]


@takes(ArenaParams, "frame", "confidence", positional=True)
def mark_winners(p, frame: pd.DataFrame) -> pd.DataFrame:
    """Name each point's winner only when it is separated from every other contender.

    Contenders are the stationary runs losing at most 1 % of the tasks. The best has the
    least mean delay; for each other contender the paired interval of (its mean delay −
    the best's) over the replications (the same seeds) says whether it is separated.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per policy and point (or scenario): ``policy``, ``mean_delay``,
        ``mean_delay@r``, ``loss_share``, ``stationary`` and the point's columns.

    Returns
    -------
    pandas.DataFrame
        A copy with, on every row of a point: ``winner`` (the best's name when every
        interval excludes 0, else ``""``), ``tied_with`` (the best and every contender not
        separated from it, ``", "``-joined), ``margin``, ``margin_low``, ``margin_high``
        (the runner-up − best paired mean and interval), and per row ``contender`` and
        ``in_lead`` (the winner or a member of the tied set).
    """
    frame = frame.copy()
    keys = [k for k in [*POINT, "scenario"] if k in frame.columns]  # a map's point, or a scenario
    frame["contender"] = frame["stationary"].astype(bool) & (frame["loss_share"] <= 0.01)
    for col in ("winner", "tied_with"):
        frame[col] = ""
    for col in ("margin", "margin_low", "margin_high"):
        frame[col] = math.nan
    frame["in_lead"] = False
    for _, part in frame.groupby(keys, sort=False):
        ok = part[part["contender"]].sort_values("mean_delay")
        if ok.empty:
            continue
        best = ok.iloc[0]
        lead = replications_of(best, "mean_delay")
        tied = [best["policy"]]
        for _, other in ok.iloc[1:].iterrows():
            _, low, _ = paired_interval(p, a=replications_of(other, "mean_delay"), b=lead)
            if not low > 0:
                tied.append(other["policy"])
        idx = part.index
        if len(ok) > 1:
            runner_up = replications_of(ok.iloc[1], "mean_delay")
            m, lo, hi = paired_interval(p, a=runner_up, b=lead)
            frame.loc[idx, ["margin", "margin_low", "margin_high"]] = [m, lo, hi]
        if len(tied) == 1:
            frame.loc[idx, "winner"] = best["policy"]
        else:
            frame.loc[idx, "tied_with"] = ", ".join(tied)
        frame.loc[idx, "in_lead"] = part["policy"].isin(tied).to_numpy()
    return frame
