"""The workload's parts: task-size laws, arrival processes and task traces.

The scenario schema (:mod:`workbench.arena.scenario`) uses these models for its ``size``,
``arrivals`` and ``trace`` keys; :mod:`workbench.arena.compile` draws from them. Every
number has a physical range; a size law's mean is at most :data:`MAX_WORK` and its squared
coefficient of variation at most :data:`MAX_SCV`, so no moment overflows. Trace files are
read once per version of the file (:func:`read_trace`), every bad cell named with its row,
column, rule and value.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from pathlib import Path
from typing import Annotated, Literal, NamedTuple, get_args

import numpy as np
import pandas as pd
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from workbench.validation import ParameterError

__all__ = [
    "ScenarioError",
    "read_trace",
    "TraceTable",
    "TRACES_DIR",
    "DISTS",
    "PROCESSES",
    "MAX_WORK",
    "MAX_SCV",
]

TRACES_DIR = Path(__file__).resolve().parents[2] / "data" / "traces"

#: the largest mean work of a task (work units: seconds at speed 1)
MAX_WORK = 1e6
#: the largest squared coefficient of variation of a size law
MAX_SCV = 1e4
#: rows of a trace file
MAX_TRACE_ROWS = 10**7


class ScenarioError(ParameterError):
    """A scenario file or dict that does not follow the schema."""


def no_bool(v):
    """``true``/``false`` are not numbers (pydantic would read true as 1)."""
    if isinstance(v, (bool, np.bool_)):
        raise ValueError(f"must be a number, not a boolean ({v!r})")
    return v


def inf_text(v):
    """YAML's .inf (and "inf") as a float infinity."""
    if isinstance(v, str) and v.strip().lower() in (".inf", "inf", "infinity", "+inf"):
        return math.inf
    return v


def real_field(low=None, high=None, *, low_open=False, inf=False):
    """A float in a range (``inf``: also ``.inf``), never a bool or NaN."""
    kw = {}
    if low is not None:
        kw["gt" if low_open else "ge"] = low
    if high is not None and not inf:
        kw["le"] = high
    checks = [BeforeValidator(no_bool)]
    if inf:  # the range's top, or .inf (a bound of pydantic's would refuse inf)
        span = f"{'(' if low_open else '['}{low:g}, {high:g}]"

        def finite_to_high(v):
            if math.isnan(v) or (math.isfinite(v) and v > high):
                raise ValueError(f"must be a number in {span} or .inf")
            return v

        checks += [BeforeValidator(inf_text), AfterValidator(finite_to_high)]
    return Annotated[float, Field(allow_inf_nan=inf, **kw), *checks]


def int_field(low, high):
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(no_bool)]


Work = real_field(0, MAX_WORK, low_open=True)
Bits = real_field(0, 1e12)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- size laws ------------------------------------------------------------------------------


def _exp(x: float) -> float:
    return math.inf if x > 700 else math.exp(x)


class _Law(Strict):
    """A size law: ``moment(k)`` is E[S^k] (``inf`` when it diverges)."""

    def moment(self, k: int) -> float:  # pragma: no cover - every law overrides it
        raise NotImplementedError

    @property
    def moments(self) -> tuple[float, float]:
        """(E[S], E[S²])."""
        return self.moment(1), self.moment(2)

    @property
    def cv2(self) -> float:
        """The squared coefficient of variation E[S²] / E[S]² - 1 (0 for a zero mean)."""
        m1, m2 = self.moments
        return m2 / (m1 * m1) - 1.0 if m1 > 0 else 0.0

    @model_validator(mode="after")
    def _moments_in_range(self):
        m1, m2 = self.moments
        if not m1 <= MAX_WORK:
            raise ValueError(f"the mean size must be at most {MAX_WORK:g}; this law's is {m1:.4g}")
        if m1 > 0 and not self.cv2 <= MAX_SCV:
            raise ValueError(
                f"the size's squared coefficient of variation must be at most {MAX_SCV:g} "
                f"(E[S²] finite and representable); this law's is {self.cv2:.4g}"
            )
        return self


class Exponential(_Law):
    dist: Literal["exponential"]
    mean: Work

    def moment(self, k: int) -> float:
        return math.factorial(k) * self.mean**k


class Deterministic(_Law):
    dist: Literal["deterministic"]
    value: real_field(0, MAX_WORK)

    def moment(self, k: int) -> float:
        return self.value**k


class ShiftedExponential(_Law):
    dist: Literal["shifted_exponential"]
    shift: real_field(0, MAX_WORK)
    rate: real_field(1 / MAX_WORK, 1e12)

    def moment(self, k: int) -> float:
        m = 1 / self.rate  # E[(s + X)^k] = sum_j C(k, j) s^(k-j) j! m^j
        terms = (
            math.comb(k, j) * self.shift ** (k - j) * math.factorial(j) * m**j for j in range(k + 1)
        )
        return sum(terms)


class Pareto(_Law):
    """Pareto of scale ``scale`` and tail index ``alpha`` > 2 (finite variance; E[S^k] is
    infinite for k >= alpha)."""

    dist: Literal["pareto"]
    scale: Work
    alpha: real_field(2, 1e3, low_open=True)

    def moment(self, k: int) -> float:
        a, b = self.alpha, self.scale
        return a * b**k / (a - k) if a > k else math.inf


class Weibull(_Law):
    dist: Literal["weibull"]
    shape: real_field(0.05, 1e3)
    scale: Work

    def moment(self, k: int) -> float:
        return _exp(k * math.log(self.scale) + math.lgamma(1 + k / self.shape))


class Hyperexponential(_Law):
    """Two exponential phases with balanced means (p1/μ1 = p2/μ2): the law of mean ``mean``
    and squared coefficient of variation ``scv`` >= 1 with the fewest parameters; every
    moment finite (Whitt's H2 fit)."""

    dist: Literal["hyperexponential"]
    mean: Work
    scv: real_field(1, MAX_SCV)

    @property
    def phases(self) -> tuple[float, float, float]:
        """(p1, mean of phase 1, mean of phase 2)."""
        p1 = 0.5 * (1 + math.sqrt((self.scv - 1) / (self.scv + 1)))
        return p1, self.mean / (2 * p1), self.mean / (2 * (1 - p1))

    def moment(self, k: int) -> float:
        p1, m1, m2 = self.phases
        return math.factorial(k) * (p1 * m1**k + (1 - p1) * m2**k)


class Lognormal(_Law):
    """exp(N(μ, σ²)) with σ² = ln(1 + scv), μ = ln(mean) - σ²/2: mean ``mean`` and squared
    coefficient of variation ``scv``; every moment finite."""

    dist: Literal["lognormal"]
    mean: Work
    scv: real_field(0, MAX_SCV, low_open=True)

    def moment(self, k: int) -> float:
        s2 = math.log1p(self.scv)
        return _exp(k * (math.log(self.mean) - s2 / 2) + k * k * s2 / 2)


Size = Annotated[
    Exponential
    | Deterministic
    | ShiftedExponential
    | Pareto
    | Weibull
    | Hyperexponential
    | Lognormal,
    Field(discriminator="dist"),
]


def _tags(union, key: str) -> tuple[str, ...]:
    """The tag ``key`` of each model of a tagged union (``Annotated[A | B, Field(...)]``)."""
    return tuple(get_args(m.model_fields[key].annotation)[0] for m in get_args(get_args(union)[0]))


#: the size distributions (each law's ``dist``)
DISTS = _tags(Size, "dist")


# -- arrival processes ----------------------------------------------------------------------


class PoissonArrivals(Strict):
    process: Literal["poisson"] = "poisson"


class MMPP2(Strict):
    """A Markov-modulated Poisson process of two phases (module docstring): the rates
    ``rate × (peak_ratio, 1) / (high_share × peak_ratio + 1 - high_share)``, the mean
    sojourns ``cycle × (high_share, 1 - high_share)``; it starts in its stationary phase."""

    process: Literal["mmpp2"]
    peak_ratio: real_field(1, 1e4)
    high_share: real_field(0, 1, low_open=True)
    cycle: real_field(0, 1e6, low_open=True)

    @field_validator("high_share")
    @classmethod
    def _share(cls, v):
        if v >= 1:
            raise ValueError("high_share must be below 1 (the low phase takes the rest)")
        return v

    def rates(self, lam: float) -> tuple[float, float]:
        """(high, low) arrival rates for the mean rate ``lam``."""
        low = lam / (self.high_share * self.peak_ratio + 1 - self.high_share)
        return self.peak_ratio * low, low

    @property
    def sojourns(self) -> tuple[float, float]:
        """Mean times in the (high, low) phase."""
        return self.cycle * self.high_share, self.cycle * (1 - self.high_share)


class Batch(Strict):
    """Batches of tasks at Poisson epochs of rate ``rate / mean_batch``."""

    process: Literal["batch"]
    mean_batch: real_field(1, 1e4)
    batch_law: Literal["geometric", "deterministic"] = "geometric"

    @model_validator(mode="after")
    def _whole(self):
        if self.batch_law == "deterministic" and not float(self.mean_batch).is_integer():
            raise ValueError(
                f"mean_batch must be a whole number of tasks for batch_law deterministic; "
                f"got {self.mean_batch!r}"
            )
        return self


Arrivals = Annotated[PoissonArrivals | MMPP2 | Batch, Field(discriminator="process")]
#: the arrival processes (each one's ``process``)
PROCESSES = _tags(Arrivals, "process")


class TraceTable(NamedTuple):
    """A trace file's rows.

    Parameters
    ----------
    time : numpy.ndarray of float64
        Arrival times in the file's seconds, non-decreasing.
    source : numpy.ndarray of int64
        Each row's node, an index into ``nodes``.
    nodes : tuple of str
        The node ids the file names, in order of first use.
    size : numpy.ndarray of float64
        Each task's size (s of work at speed 1).
    kind : numpy.ndarray of int64
        Each task's type (-1: none).
    deadline : numpy.ndarray of float64
        Each task's relative deadline (s; ``inf``: none).
    first_row : dict
        Node id -> the first row (1-based) naming it, for error messages.
    """

    time: np.ndarray
    source: np.ndarray
    nodes: tuple
    size: np.ndarray
    kind: np.ndarray
    deadline: np.ndarray
    first_row: dict

    @property
    def period(self) -> float:
        """The span a looped trace repeats with: the last time plus the mean gap."""
        n = len(self.time)
        if n < 2:
            return max(float(self.time[-1]), 1.0) if n else 1.0
        gap = (self.time[-1] - self.time[0]) / (n - 1)
        return float(self.time[-1] + (gap if gap > 0 else 1.0))


def short(v, limit: int = 200) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def read_text(p: Path, what: str, limit: int) -> str:
    """A UTF-8 file's text, every failure a :class:`ScenarioError` naming the file."""
    name = f"{what} {str(p)!r}"
    try:
        if p.is_dir():
            raise ScenarioError(f"{name}: is a folder, not a file")
        size = p.stat().st_size
        if size > limit:
            raise ScenarioError(f"{name}: is {size:,} bytes, more than the {limit:,} allowed")
        data = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{name}: not readable: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{name}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None


# -- traces --------------------------------------------------------------------------------

TRACE_COLUMNS = ("time", "source", "size", "type", "deadline")


def resolve_trace(v: str, base) -> Path:
    if "\x00" in v or not v.strip():
        raise ValueError(f"must name a CSV file; got {v!r}")
    p = Path(v).expanduser()
    tries = [p] if p.is_absolute() else [Path(base or ".") / p, Path.cwd() / p, TRACES_DIR / p]
    for q in tries:
        if q.is_file():
            return q.resolve()
    for q in tries:
        if q.exists():
            raise ValueError(f"must name a CSV file; {str(q)!r} is a folder")
    raise ValueError(f"must name an existing CSV file; looked for {[str(q) for q in tries]}")


def read_trace(path) -> TraceTable:
    """A trace file's rows, validated (module docstring), kept while the file is unchanged.

    Parameters
    ----------
    path : str or path
        The CSV file.

    Returns
    -------
    TraceTable
        Its rows.

    Raises
    ------
    ValueError
        Naming the file, the row (1-based, after the header), the column, the rule and
        the value.
    """
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise ValueError(f"file {str(p)!r} not readable: {exc.strerror or exc}") from None
    return _parsed(str(p), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _parsed(path: str, mtime_ns: int, size: int) -> TraceTable:
    """A trace file's table, kept per version of the file (its modification time and size)."""
    return _parse_trace(Path(path))


def _float(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        return math.nan


def _parse_trace(p: Path) -> TraceTable:
    try:
        text = read_text(p, "trace file", 64 * MAX_TRACE_ROWS)
    except ScenarioError as exc:
        raise ValueError(str(exc)) from None
    name = f"file {str(p)!r}"
    lines = (
        line for line in io.StringIO(text) if line.strip() and not line.lstrip().startswith("#")
    )
    reader = csv.reader(lines, strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise ValueError(f"{name}: must have a header row ({', '.join(TRACE_COLUMNS)})") from None
    except csv.Error as exc:
        raise ValueError(f"{name}: not CSV: {exc}") from None
    for h in header:
        if h not in TRACE_COLUMNS:
            raise ValueError(f"{name}: column {h!r} must be one of {list(TRACE_COLUMNS)}")
        if header.count(h) > 1:
            raise ValueError(f"{name}: column {h!r} appears twice")
    for h in ("time", "source", "size"):
        if h not in header:
            raise ValueError(f"{name}: must have the column {h!r} (columns: {header})")
    cols: dict[str, list] = {h: [] for h in header}
    width = len(header)
    try:
        for i, row in enumerate(reader, start=1):
            if len(row) != width:
                raise ValueError(
                    f"{name}, row {i}: must have {width} fields ({header}); got {row!r}"
                )
            if i > MAX_TRACE_ROWS:
                raise ValueError(f"{name}: must have at most {MAX_TRACE_ROWS:,} rows")
            for h, v in zip(header, row, strict=True):
                cols[h].append(v.strip())
    except csv.Error as exc:
        raise ValueError(f"{name}: not CSV: {exc}") from None
    n = len(cols["time"])
    if n == 0:
        raise ValueError(f"{name}: must have at least one row after the header")

    def numbers(col, low, high, *, low_open=False, empty=None):
        raw = cols[col]
        text = raw if empty is None else ["nan" if v == "" else v for v in raw]
        try:
            out = np.array(text, dtype=float)
        except ValueError:  # some cell is not a number: find it below
            out = np.array([_float(v) for v in text])
        ok = np.isfinite(out) & ((out > low) if low_open else (out >= low)) & (out <= high)
        if empty is not None:
            blank = np.array([v == "" for v in raw], dtype=bool)
            out[blank] = empty
            ok |= blank
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            left = "(" if low_open else "["
            blank = ", or empty" if empty is not None else ""
            raise ValueError(
                f"{name}, row {i + 1}, column {col!r}: must be a number in "
                f"{left}{low:g}, {high:g}]{blank}; got {short(raw[i], 60)}"
            )
        return out

    time = numbers("time", 0.0, 1e12)
    back = np.flatnonzero(np.diff(time) < 0)
    if back.size:
        i = int(back[0]) + 2
        raise ValueError(
            f"{name}, row {i}, column 'time': must not be earlier than the row before "
            f"({time[i - 2]:g}); got {time[i - 1]:g}"
        )
    size = numbers("size", 0.0, MAX_WORK)
    kind = np.full(n, -1, np.int64)
    if "type" in cols:
        kt = numbers("type", 0.0, 1e6, empty=-1.0)
        whole = (kt == np.floor(kt)) | (kt == -1.0)
        if not whole.all():
            i = int(np.flatnonzero(~whole)[0])
            raise ValueError(
                f"{name}, row {i + 1}, column 'type': must be an integer in [0, 1e6], or "
                f"empty; got {cols['type'][i]!r}"
            )
        kind = kt.astype(np.int64)
    deadline = np.full(n, math.inf)
    if "deadline" in cols:
        deadline = numbers("deadline", 0.0, 1e9, low_open=True, empty=math.inf)
    # the node ids in order of first use, and the row (1-based) where each first appears
    source, ids = pd.factorize(np.array(cols["source"], dtype=object))
    first = dict(zip(ids, (np.unique(source, return_index=True)[1] + 1).tolist(), strict=True))
    for v, i in first.items():
        if not v or len(v) > 100:
            raise ValueError(
                f"{name}, row {i}, column 'source': must be a node id (1-100 "
                f"characters); got {short(v, 60)}"
            )
    source = source.astype(np.int64)
    for a in (time, size, kind, deadline, source):
        a.setflags(write=False)
    return TraceTable(time, source, tuple(ids), size, kind, deadline, first)
