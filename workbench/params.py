"""Parameters declared once, as data.

Each paper package has a ``params.py`` with one :class:`Params` table. A :class:`Param` row
holds the name, the symbol and meaning a student reads, the unit, the valid range, the
default, the slider span and step, and a help text. The same row

- validates a public function's argument (:meth:`Params.check`), with the shared message
  *The 'lam' parameter of simulate must be a finite real number in the range (0, 1e+06].
  Got -1 instead.*;
- builds the notebook control (:func:`workbench.widgets.control`): label, tooltip, range;
- drives the fuzz tests (``tests/strategies.py``): valid values inside, invalid outside.

so validation, sliders and tests cannot disagree. A public function validates once and
calls private code that never re-validates.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

import pandas as pd

from workbench.validation import (
    ParameterError,
    check_choice,
    check_int,
    check_pair,
    check_real,
    check_seed,
    describe,
    same_choice,
)

__all__ = ["Param", "Params", "SEED", "REPLICATIONS", "CONFIDENCE", "WARMUP"]

KINDS = ("real", "int", "choice", "bool", "seed")


@dataclass(frozen=True)
class Param:
    """One parameter: what it means, where it is valid, how a slider shows it.

    Parameters
    ----------
    name : str
        The Python keyword (``lam``).
    symbol : str
        What a student reads (``λ``); plain Unicode, used in labels and legends.
    meaning : str
        A few words (``arrival rate``).
    unit : str
        ``"1/s"``, ``"s"``, ``""`` for dimensionless.
    kind : {"real", "int", "choice", "bool", "seed"}
    low, high : float or None
        Valid range (None: unbounded on that side).
    low_open, high_open : bool
        Whether the bound itself is excluded.
    default : Any
        The paper's value where it states one, else the workbench's choice (see ``source``).
    slider : (float, float) or None
        The span a slider offers (inside the valid range); defaults to ``(low, high)``.
    step : float or None
        Slider step.
    choices : tuple
        For ``kind="choice"``.
    pair : bool
        The value is a pair, one per center (P3); each element is checked.
    length : (int, int) or None
        The value is a sequence with a length in this range (one value per center of a ring);
        each element is checked.
    extra : tuple
        Admissible values outside the range, each with a meaning the help states (θ = ∞:
        the paper's no-offloading limit). Validation accepts them; fuzz tests do not count
        them as invalid.
    help : str
        One sentence for the tooltip and the glossary.
    source : str
        Where the default comes from: ``"paper"`` (stated, cite it in ``help``), ``"choice"``
        (the paper does not state it: the workbench's choice, marked in the notebook).
    plausible : tuple or None
        For a value the paper does not state, or a reading of its text: what a careful reader
        would accept. ``(low, high)`` for a real or int row (inside the valid range, the default
        inside it), or the accepted values of a choice or bool row (the default among them).
        ``None``: the paper states the value, it stays fixed. The claim atlas
        (:func:`workbench.atlas.atlas`) samples these ranges and crosses them with these
        readings.
    why : str
        Why that range or set: the reason, with the paper's words it rests on quoted verbatim
        (in the paper's language).
    """

    name: str
    symbol: str
    meaning: str
    unit: str = ""
    kind: str = "real"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    default: Any = None
    slider: tuple | None = None
    step: float | None = None
    choices: tuple = ()
    pair: bool = False
    length: tuple | None = None
    extra: tuple = ()
    help: str = ""
    source: str = "paper"
    plausible: tuple | None = None
    why: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {KINDS}")
        for side in ("low", "high"):  # a NaN bound compares False: it would admit anything
            bound = getattr(self, side)
            if bound is not None and (
                isinstance(bound, bool) or not isinstance(bound, Real) or math.isnan(bound)
            ):
                raise ParameterError(
                    f"The '{side}' parameter of Param({self.name!r}) must be a real number "
                    f"(not NaN) or None. Got {describe(bound)} instead."
                )
        if self.low is not None and self.high is not None and not self.low <= self.high:
            raise ParameterError(
                f"The 'high' parameter of Param({self.name!r}) must be at least its low bound "
                f"{self.low!r}. Got {self.high!r} instead."
            )
        if self.plausible is not None:
            self._check_plausible()

    def _check_plausible(self) -> None:
        where = f"Param {self.name!r}: plausible"
        if not self.why:
            raise ValueError(f"{where} needs a 'why' (the reason, with the paper's words)")
        values = tuple(self.plausible)
        if self.kind in ("real", "int"):
            if len(values) != 2 or not values[0] < values[1]:
                raise ValueError(f"{where} must be (low, high) with low < high, got {values}")
            for v in values:
                self.check(v, f"Param {self.name!r} plausible range")
            if self.default is not None and not values[0] <= self.default <= values[1]:
                raise ValueError(f"{where} {values} must contain the default {self.default!r}")
        elif self.kind in ("choice", "bool"):
            if len(values) < 2:
                raise ValueError(f"{where} must list at least two readings, got {values}")
            for v in values:
                self.check(v, f"Param {self.name!r} plausible set")
            if not any(same_choice(v, self.default) for v in values):
                raise ValueError(f"{where} {values} must contain the default {self.default!r}")
        else:
            raise ValueError(f"{where}: a {self.kind} row has no plausible range")

    @property
    def continuous(self) -> bool:
        """A plausible range (sampled by the atlas), not a set of readings."""
        return self.plausible is not None and self.kind in ("real", "int")

    @property
    def label(self) -> str:
        """``λ arrival rate [1/s]``: symbol, meaning and unit, for controls and axes."""
        unit = f" [{self.unit}]" if self.unit else ""
        return f"{self.symbol} {self.meaning}{unit}"

    @property
    def axis_label(self) -> str:
        """``λ [1/s]``: symbol and unit, for figure axes."""
        return f"{self.symbol} [{self.unit}]" if self.unit else self.symbol

    @property
    def slider_span(self) -> tuple:
        lo, hi = self.slider if self.slider is not None else (self.low, self.high)
        if lo is None or hi is None:
            raise ValueError(f"Param {self.name!r} needs a slider span (it is unbounded)")
        return lo, hi

    def with_(self, **changes) -> Param:
        """A copy with some fields changed (e.g. another function's tighter range)."""
        return replace(self, **changes)

    def check(self, value, func: str):
        """Validate one value for function ``func``; return it normalised."""
        if self.pair:
            items = check_pair(value, self.name, func)
            return tuple(self._check_one(v, func) for v in items)
        if self.length is not None:
            lo, hi = self.length
            what = f"a sequence of {lo} to {hi} values"
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                raise ParameterError(
                    f"The '{self.name}' parameter of {func} must be {what}. "
                    f"Got {describe(value)} instead."
                )
            if not lo <= len(value) <= hi:
                raise ParameterError(
                    f"The '{self.name}' parameter of {func} must be {what}. "
                    f"Got {len(value)} values instead."
                )
            return tuple(self._check_one(v, func) for v in value)
        return self._check_one(value, func)

    def _check_one(self, value, func: str):
        if self.extra and _is_extra(value, self.extra):
            return float(value) if self.kind == "real" else value
        if self.kind == "real":
            return check_real(
                value, self.name, func, self.low, self.high, self.low_open, self.high_open
            )
        if self.kind == "int":
            low = None if self.low is None else math.ceil(self.low + (1 if self.low_open else 0))
            high = (
                None if self.high is None else math.floor(self.high - (1 if self.high_open else 0))
            )
            return check_int(value, self.name, func, low, high)
        if self.kind == "seed":
            return check_seed(value, func, self.name)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ParameterError(
                    f"The '{self.name}' parameter of {func} must be True or False. "
                    f"Got {value!r} instead."
                )
            return value
        return check_choice(value, self.name, func, self.choices)


def _is_extra(value, extra: tuple) -> bool:
    """``value`` is one of the declared extra values (bools are never numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return any(value == e for e in extra)


SEED = Param("seed", "seed", "random seed", kind="seed", default=0, help="Same seed, same numbers.")
REPLICATIONS = Param(
    "replications",
    "R",
    "independent replications",
    kind="int",
    low=2,
    high=10_000,
    default=10,
    slider=(2, 100),
    step=1,
    help="Independent runs; the confidence interval is a Student-t interval over them.",
)
CONFIDENCE = Param(
    "confidence",
    "1−α",
    "confidence level",
    low=0.5,
    high=0.9999,
    default=0.95,
    slider=(0.8, 0.99),
    step=0.01,
    help="Coverage of the confidence interval on simulated means. At most 0.9999: closer to 1 "
    "the Student-t quantile (and the interval) grows without bound.",
)


@dataclass(frozen=True)
class Params(Mapping):
    """A paper's parameter table: a read-only mapping ``name -> Param``."""

    rows: tuple = field(default_factory=tuple)

    def __init__(self, *params: Param):
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"Params: duplicate names in {names}")
        object.__setattr__(self, "rows", tuple(params))

    def __getitem__(self, name: str) -> Param:
        for p in self.rows:
            if p.name == name:
                return p
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (p.name for p in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __hash__(self) -> int:
        return hash(self.rows)

    def check(self, func: str, **values) -> dict:
        """Validate ``values`` (by name) for ``func``; returns the normalised values."""
        return {name: self[name].check(v, func) for name, v in values.items()}

    def defaults(self, *names: str) -> dict:
        """Defaults of ``names`` (all parameters when none given)."""
        return {n: self[n].default for n in (names or tuple(self))}

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame: the notebook's glossary of symbols."""
        rows = []
        for p in self.rows:
            rng = p.choices if p.kind == "choice" else _range(p)
            rows.append(
                {
                    "symbol": p.symbol,
                    "meaning": p.meaning,
                    "unit": p.unit or "–",
                    "valid": rng,
                    "default": "–" if p.default is None else p.default,
                    "source": p.source,
                    "help": p.help,
                    "name": p.name,
                    "plausible": "–" if p.plausible is None else p.plausible,
                    "why": p.why,
                }
            )
        return pd.DataFrame(rows)


def _range(p: Param) -> str:
    if p.kind in ("bool",):
        return "True/False"
    if p.kind == "seed":
        return "[0, 2^63)"
    lo = "-∞" if p.low is None else f"{p.low:g}"
    hi = "∞" if p.high is None else f"{p.high:g}"
    left = "(" if p.low is None or p.low_open else "["
    right = ")" if p.high is None or p.high_open else "]"
    return f"{left}{lo}, {hi}{right}"


WARMUP = Param(
    "warmup",
    "w",
    "warm-up fraction dropped",
    low=0.0,
    high=0.9,
    default=0.1,
    slider=(0.0, 0.5),
    step=0.05,
    help="The fraction of each replication's run length dropped before estimating (one form "
    "for every paper); the stationarity detector's MSER-5 cut comes on top of it.",
    source="choice",
)


# The precision loop (workbench.precision): one row each, shared by every paper's
# simulate_to_precision.
MAX_REPLICATIONS = Param(
    "max_replications",
    "R_max",
    "most replications a precision run adds",
    kind="int",
    low=2,
    high=1000,
    default=200,
    slider=(10, 1000),
    step=10,
    help="simulate_to_precision stops here with converged=False and a note when the target "
    "half-width is not reached.",
    source="choice",
)
REL_HALF_WIDTH = Param(
    "rel_half_width",
    "ε",
    "target relative half-width",
    low=1e-6,
    high=1.0,
    default=0.02,
    slider=(0.005, 0.1),
    step=0.005,
    help="Half-width of the headline interval over its estimate (JMT's rule: 2 %). Below "
    "1e-6 the replications it would take (about (t·s/(ε·mean))² ) exceed any budget.",
    source="choice",
)
INITIAL_REPLICATIONS = Param(
    "initial",
    "R₀",
    "replications of a precision run's first step",
    kind="int",
    low=2,
    high=1000,
    default=5,
    step=1,
    help="The first step; then the number the spread predicts, at most doubling per step.",
    source="choice",
)
