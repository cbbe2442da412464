"""The one result every paper's ``simulate`` returns.

Contract (every paper package)::

    simulate(<model parameters>, *, <run length in the paper's own unit>, replications=...,
             seed=0, confidence=0.95, ...) -> SimulationResult

``<run length>`` is keyword-only and named for its unit: ``jobs`` (P4), ``events`` (P3),
``requests`` (P1), ``slots`` (P2), ``periods`` (P5); ``warmup`` is the fraction of it dropped
before estimating. Replications are independent runs, each started empty; every interval is
a Student-t interval over the replication means.

A :class:`SimulationResult` has

- ``metric`` (the headline quantity's name), ``estimate`` (alias ``mean``), ``ci_low``,
  ``ci_high``, ``half_width``, ``confidence``, ``replications``;
- ``summary``: one row per estimated quantity (``quantity, estimate, half_width, ci_low,
  ci_high, replications``), readable in a notebook;
- ``frame``: the tidy per-replication values (one row per replication), or a paper's
  per-request records where it has them (``records``);
- any estimated quantity by attribute or key: ``result.blocking``, ``result["beta1"]``
  (the estimate) and ``result.interval("beta1")`` (its interval);
- ``notes``: caveats (infinite variance, too few replications, ...);
- ``stationarity``: the output-analysis verdict on the run
  (:class:`workbench.output_analysis.Stationarity`), with ``stationary`` as a shortcut: a mean
  is a steady-state number only when it is True; ``converged``: False when a precision-driven
  run stopped at its replication cap before reaching its target.

Intervals are clipped to each quantity's range where the simulator declares one (``bounds``:
a time is never negative, a probability stays in [0, 1]); ``half_width`` is the Student-t one.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from workbench.stats import t_half_width
from workbench.validation import check_int, refusal

__all__ = ["SimulationResult"]  # summarise, bounded_interval: the simulators' helpers


def bounded_interval(
    mean: float, half_width: float, low: float = -math.inf, high: float = math.inf
) -> tuple[float, float]:
    """The interval ``mean ± half_width`` clipped to the quantity's range ``[low, high]``.

    Clipping keeps the coverage of the Student-t interval (the true mean lies in the range),
    and the estimate, an average of values in the range, always lies inside.
    """
    f = "bounded_interval"
    for name, value in (("mean", mean), ("half_width", half_width), ("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise refusal(f, name, "a real number", value)
        if math.isnan(value):
            raise refusal(f, name, "a real number, not NaN", value)
    if not low <= mean <= high:
        raise refusal(f, "mean", f"inside [low, high] = [{low:g}, {high:g}]", mean)
    if half_width < 0:
        raise refusal(f, "half_width", "a real number >= 0", half_width)
    if not math.isfinite(half_width):
        return low, high  # an unbounded interval: the whole range
    return max(low, mean - half_width), min(high, mean + half_width)


def summarise(
    reps: pd.DataFrame,
    quantities: Sequence[str],
    confidence: float,
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> pd.DataFrame:
    """Mean and Student-t interval of each column of ``reps`` over its rows (replications).

    ``bounds`` maps a quantity to its range ``(low, high)``; its interval is clipped to it.
    """
    bounds = dict(bounds or {})
    rows = []
    for q in quantities:
        x = reps[q].to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        mean = float(x.mean()) if x.size else math.nan
        half = t_half_width(x, confidence)
        if math.isnan(half) or math.isnan(mean):  # fewer than two replications: no interval
            low, high = math.nan, math.nan
        else:
            low, high = bounded_interval(mean, half, *bounds.get(q, (-math.inf, math.inf)))
        rows.append(
            {
                "quantity": q,
                "estimate": mean,
                "half_width": half,
                "ci_low": low,
                "ci_high": high,
                "replications": int(x.size),
            }
        )
    return pd.DataFrame(rows)


def _headline(column: str) -> property:
    """The property ``column`` of the headline quantity's summary row, as a float."""

    def read(self) -> float:
        return float(self._row(self.metric)[column])

    read.__name__ = column
    return property(read)


@dataclass(frozen=True, repr=False, eq=False)
class SimulationResult:
    """Simulated estimates with confidence intervals over independent replications."""

    metric: str
    summary: pd.DataFrame
    frame: pd.DataFrame
    confidence: float
    run_length: int
    run_unit: str
    notes: tuple = ()
    records: pd.DataFrame | None = None
    info: dict = field(default_factory=dict)
    stationarity: object = None  # workbench.output_analysis.Stationarity
    converged: bool = True

    @classmethod
    def from_replications(
        cls,
        reps: pd.DataFrame,
        metric: str,
        quantities: Sequence[str],
        *,
        confidence: float,
        run_length: int,
        run_unit: str,
        notes: Sequence[str] = (),
        records: pd.DataFrame | None = None,
        info: dict | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        stationarity=None,
    ) -> SimulationResult:
        """Build from a per-replication frame; ``metric`` must be one of ``quantities``."""
        quantities = list(quantities)
        if metric not in quantities:
            quantities.insert(0, metric)
        return cls(
            metric=metric,
            summary=summarise(reps, quantities, confidence, bounds),
            frame=reps.reset_index(drop=True),
            confidence=confidence,
            run_length=int(run_length),
            run_unit=run_unit,
            notes=tuple(n for n in notes if n),
            records=records,
            info=dict(info or {}),
            stationarity=stationarity,
        )

    def with_(self, **changes) -> SimulationResult:
        """A copy with some fields changed (``converged``, ``notes``, ...)."""
        return replace(self, **changes)

    @property
    def stationary(self) -> bool:
        """True when the output analysis found a steady state (or the run was not tested:
        ``stationarity`` is None only for results built without the shared engine)."""
        return True if self.stationarity is None else bool(self.stationarity.stationary)

    # -- the headline quantity ------------------------------------------------------------
    def _row(self, quantity: str) -> dict:
        """The summary row of ``quantity`` as a dict (the rows are indexed once: a view reads
        a result's quantities dozens of times per move, too many for a pandas lookup each)."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            rows = {r["quantity"]: r for r in self.summary.to_dict("records")}
            object.__setattr__(self, "_rows", rows)  # a cache of the frozen summary
        hit = rows.get(quantity)
        if hit is None:
            raise KeyError(
                f"SimulationResult has no quantity {quantity!r}; it has "
                f"{list(self.summary['quantity'])}"
            )
        return hit

    estimate = _headline("estimate")
    ci_low = _headline("ci_low")
    ci_high = _headline("ci_high")
    half_width = _headline("half_width")

    @property
    def mean(self) -> float:
        return self.estimate

    @property
    def replications(self) -> int:
        return len(self.frame)

    @property
    def quantities(self) -> list[str]:
        return list(self.summary["quantity"])

    def interval(self, quantity: str | None = None) -> tuple[float, float]:
        row = self._row(quantity or self.metric)
        return float(row["ci_low"]), float(row["ci_high"])

    def __getitem__(self, quantity: str):
        if quantity in ("mean", "estimate", "ci_low", "ci_high", "half_width"):
            return getattr(self, quantity)
        return float(self._row(quantity)["estimate"])

    def __getattr__(self, name: str):
        # only reached for names that are not fields: an estimated quantity by name
        if name.startswith("_") or name in ("summary", "metric", "stationarity"):
            raise AttributeError(name)
        try:
            return float(self._row(name)["estimate"])
        except KeyError:
            raise AttributeError(
                f"SimulationResult has no attribute or quantity {name!r}"
            ) from None

    def as_dict(self) -> dict:
        out = {"metric": self.metric, "mean": self.estimate, "ci_low": self.ci_low}
        out.update(ci_high=self.ci_high, replications=self.replications)
        out.update(confidence=self.confidence, run_length=self.run_length)
        out.update(stationary=self.stationary, converged=self.converged)
        for _, row in self.summary.iterrows():
            out[row["quantity"]] = float(row["estimate"])
        return out

    # -- display --------------------------------------------------------------------------
    def table(self, digits: int = 4) -> pd.DataFrame:
        """The summary formatted for reading: estimate ± half-width and the interval, with
        ``digits`` significant digits (1 to 17)."""
        digits = check_int(digits, "digits", "SimulationResult.table", 1, 17)
        rows = [
            {
                "quantity": r["quantity"],
                "estimate": f"{r['estimate']:.{digits}g}",
                "± half-width": f"{r['half_width']:.2g}",
                f"{self.confidence:.0%} interval": (
                    f"[{r['ci_low']:.{digits}g}, {r['ci_high']:.{digits}g}]"
                ),
            }
            for _, r in self.summary.iterrows()
        ]
        return pd.DataFrame(rows).set_index("quantity")

    def _caption(self) -> str:
        state = "" if self.stationary else "; NOT STATIONARY (finite-horizon numbers)"
        if not self.converged:
            state += "; precision target not reached"
        return (
            f"{self.replications} replications × {self.run_length:,} {self.run_unit}, "
            f"Student-t {self.confidence:.0%} intervals{state}"
        )

    def __repr__(self) -> str:
        lines = [
            f"SimulationResult: {self.metric} = {self.estimate:.4g} "
            f"[{self.ci_low:.4g}, {self.ci_high:.4g}] ({self._caption()})",
            self.table().to_string(),
        ]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        notes = "".join(f"<p><i>Note: {n}</i></p>" for n in self.notes)
        return (
            f"<p><b>{self.metric} = {self.estimate:.4g}</b> "
            f"[{self.ci_low:.4g}, {self.ci_high:.4g}] — {self._caption()}</p>"
            f"{self.table().to_html()}{notes}"
        )
