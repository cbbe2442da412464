"""Parameter checks shared by every public function.

Every violation reads the same way::

    The 'servers' parameter of erlang_b must be an int in the range [1, inf). Got 0 instead.

and is raised as :class:`ParameterError`, a ``ValueError`` subclass, before any kernel runs.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import numbers
import os
from collections.abc import Hashable, Iterable, Mapping

import numpy as np

# What a user meets: the errors and the two budgets. The check_* helpers below are what every
# public function validates with; they stay importable (and validate their own arguments) but
# are not part of the public surface.
__all__ = [
    "ParameterError",
    "UnstableRegimeError",
    "EmptyRunError",
    "MEMORY_BUDGET",
    "WORK_BUDGET",
]


class ParameterError(ValueError):
    """A public function received a parameter outside its valid range."""


class UnstableRegimeError(ParameterError):
    """The requested model is unstable (rho >= 1): it is reported, never simulated forever."""


class EmptyRunError(ParameterError):
    """A simulated run measured nothing (no request completed after the warm-up)."""


def _budget_from_env(var: str = "WORKBENCH_MEMORY_BUDGET", default: float = 4e9) -> float:
    raw = os.environ.get(var, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


#: Bytes one call may allocate before it is refused (4 GB; env ``WORKBENCH_MEMORY_BUDGET``).
MEMORY_BUDGET = _budget_from_env()

#: Elementary steps one call may take before it is refused (6e9; env
#: ``WORKBENCH_WORK_BUDGET``). A step is about 10 ns of compiled kernel time on one core, so
#: the default is about a minute; each entry point converts its own unit (a simulated
#: request, an Erlang-B recursion step, an atlas evaluation, a node pair) into steps.
WORK_BUDGET = _budget_from_env("WORKBENCH_WORK_BUDGET", 6e9)


def suggestion(name, known) -> str:
    """``" Did you mean 'x'?"`` for the known name closest to a misspelled ``name``, else ""."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def reject_unknown(func: str, kwargs: Mapping, known: Iterable[str]) -> None:
    """Refuse keyword arguments ``func`` does not take, suggesting the closest known name.

    A misspelled keyword passed through ``**params`` would otherwise be ignored silently and
    the call would return the default's result.
    """
    if not isinstance(kwargs, Mapping):
        raise refusal("reject_unknown", "kwargs", "a mapping of keyword arguments", kwargs)
    try:
        known = sorted({str(k) for k in known})
    except TypeError:
        raise refusal("reject_unknown", "known", "an iterable of parameter names", known) from None
    unknown = [k for k in kwargs if k not in known]
    if unknown:
        hint = suggestion(unknown[0], known)
        raise ParameterError(
            f"{func} got an unexpected keyword argument {unknown[0]!r}.{hint} "
            f"It takes: {', '.join(known)}."
        )


def check_budget(func: str, name: str, value, nbytes: float, what: str = "") -> None:
    """Refuse a call whose estimated allocation ``nbytes`` exceeds :data:`MEMORY_BUDGET`.

    Checked before anything is allocated; ``name``/``value`` are the parameter that sets the
    size, ``what`` says what would be allocated.
    """
    budget = MEMORY_BUDGET
    if not (nbytes <= budget):  # also refuses a NaN estimate
        detail = f" ({what})" if what else ""
        raise ParameterError(
            f"The '{name}' parameter of {func} would need about {nbytes / 1e9:.3g} GB{detail}, "
            f"more than the memory budget of {budget / 1e9:.3g} GB (set "
            f"WORKBENCH_MEMORY_BUDGET to change it). Got {describe(value)} instead."
        )


def check_work(func: str, name: str, value, work: float, what: str = "") -> None:
    """Refuse a call whose estimated work ``work`` (elementary steps) exceeds
    :data:`WORK_BUDGET`, before it starts.

    ``name``/``value`` are the parameter that sets the amount, ``what`` says how the estimate
    is made (e.g. "events x replications").
    """
    budget = WORK_BUDGET
    try:
        work = float(work)
    except (TypeError, ValueError, OverflowError):
        work = math.inf
    if not (work <= budget):  # also refuses a NaN estimate
        detail = f" ({what})" if what else ""
        raise ParameterError(
            f"The '{name}' parameter of {func} would need about {work:.3g} steps of work"
            f"{detail}, more than the work budget of {budget:.3g} (set WORKBENCH_WORK_BUDGET "
            f"to raise it). Got {describe(value)} instead."
        )


def check_runs(func: str, replications: int, run_length: float, steps: float, unit: str) -> None:
    """:func:`check_work` for ``replications`` runs of ``run_length`` ``unit`` each, at about
    ``steps`` steps per unit (measured for each simulator)."""
    check_work(
        func,
        "replications",
        replications,
        float(replications) * float(run_length) * steps,
        f"{replications} replications x {run_length:g} {unit} x about {steps:g} steps each",
    )


def check_bool(value, name: str, func: str) -> bool:
    """A real bool (or numpy bool): the string 'False' or the number 2 is not one."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise refusal(func, name, "a bool (True or False)", value)


def _fmt_bound(x: float, side: str) -> str:
    if x is None:
        return "-inf" if side == "low" else "inf"
    return str(x) if isinstance(x, int) else f"{x:g}"


def _range_text(low, high, low_open: bool, high_open: bool) -> str:
    left = "(" if (low is None or low_open) else "["
    right = ")" if (high is None or high_open) else "]"
    return f"{left}{_fmt_bound(low, 'low')}, {_fmt_bound(high, 'high')}{right}"


def describe(value) -> str:
    """A bad value as an error message shows it: small ones verbatim, big arrays by shape."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        return repr(value)
    if arr.dtype != object and arr.size > 8:
        return f"an array of shape {arr.shape} and dtype {arr.dtype}"
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:100]}...({len(text)} characters)"


def refusal(
    func: str,
    name: str,
    what: str,
    value=None,
    error=ParameterError,
    kind: str = "parameter",
    *,
    got: str | None = None,
) -> ParameterError:
    """The error every check raises, of class ``error``: "The 'name' parameter of func must be
    what. Got value instead.", the value as :func:`describe` shows it, or as ``got`` says
    when the check knows better (the offending element and its index, a shape, a count);
    ``kind``: "field" for a field of a record."""
    shown = describe(value) if got is None else got
    return error(f"The '{name}' {kind} of {func} must be {what}. Got {shown} instead.")


def check_type(value, name: str, func: str, types, what: str):
    """``value`` if it is an instance of ``types``, else a :class:`ParameterError` saying
    ``what`` it must be (e.g. "a string", "a matplotlib Figure")."""
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise refusal(func, name, what, value)
    if not isinstance(value, types):
        raise refusal(func, name, what, value)
    return value


def check_int(value, name: str, func: str, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as a Python int if it is an integer in ``[low, high]``."""
    rng = _range_text(low, high, False, False)
    what = f"an int in the range {rng}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise refusal(func, name, what, value)
    whole = value
    if not isinstance(value, numbers.Integral):
        # accept floats that are exact integers (e.g. 24.0 from a slider) but nothing else
        whole = float(value)
        if not (math.isfinite(whole) and whole.is_integer()):
            raise refusal(func, name, what, value)
    whole = int(whole)
    if (low is not None and whole < low) or (high is not None and whole > high):
        raise refusal(func, name, what, value)  # as given (1e308, not its 309-digit integer)
    return whole


def check_real(
    value,
    name: str,
    func: str,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float in the given (half-)open interval."""
    low, high = _bounds("check_real", low, high)
    rng = _range_text(low, high, low_open, high_open)
    what = f"a finite real number in the range {rng}"
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise refusal(func, name, what, value)
    try:
        f = float(value)
    except OverflowError:  # an int beyond the float range (10**400)
        raise refusal(func, name, what, value) from None
    below = low is not None and (f < low or (low_open and f == low))
    above = high is not None and (f > high or (high_open and f == high))
    if not math.isfinite(f) or below or above:
        raise refusal(func, name, what, value)
    return f


def _bounds(func: str, low, high):
    """The bounds of a range check: None or real numbers (a complex or text bound is a bug in
    the caller, refused with a ParameterError naming it)."""
    for label, b in (("low", low), ("high", high)):
        if b is not None and (isinstance(b, bool) or not isinstance(b, numbers.Real)):
            raise refusal(func, label, "None or a real number", b)
        if b is not None and isinstance(b, numbers.Integral):
            try:
                float(b)
            except OverflowError:
                raise refusal(func, label, "None or a real number", b) from None
    return low, high


def check_choice(value, name: str, func: str, choices) -> str:
    choices = tuple(choices)
    try:
        ok = isinstance(value, Hashable) and any(same_choice(value, c) for c in choices)
    except (TypeError, ValueError):  # arrays and other values that compare elementwise
        ok = False
    if not ok:
        raise refusal(func, name, f"one of {choices}", value)
    return value


def same_choice(value, choice) -> bool:
    """Equal and of the same kind: True is not the choice 1, an array is no choice at all."""
    if isinstance(value, bool) or isinstance(choice, bool):
        return type(value) is type(choice) and value == choice
    if isinstance(value, numbers.Number) and isinstance(choice, numbers.Number):
        return bool(value == choice)
    return isinstance(value, type(choice)) and bool(value == choice)


def check_seed(seed, func: str, name: str = "seed") -> int:
    """Seeds are non-negative ints (a ``numpy.random.Generator`` is built from them)."""
    return check_int(seed, name, func, 0, 2**63 - 1)


def check_pair(value, name: str, func: str) -> tuple:
    """A pair (x1, x2) as used by the two-center models; elements are checked by the caller."""
    try:
        items = tuple(value)
    except TypeError:
        what = "a pair (value for center 1, value for center 2)"
        raise refusal(func, name, what, value) from None
    if len(items) != 2:
        raise refusal(func, name, "a pair (value for center 1, value for center 2)", value)
    return items


def check_array(
    value,
    name: str,
    func: str,
    *,
    ndim: int | None = 1,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    length: int | tuple[int, int] | None = None,
    dtype=float,
) -> np.ndarray:
    """``value`` as a numpy array of finite numbers in a range, or a :class:`ParameterError`.

    ``ndim`` is the required number of dimensions (None: any), ``length`` the required size
    (an int, or an inclusive range ``(low, high)``) of a 1-D array. ``dtype=int`` also
    requires whole numbers (``2.0`` passes, ``2.5`` does not). Text, ``None``, ragged lists,
    booleans and complex numbers are refused; the message names the function, the parameter,
    the valid range and the value received.
    """
    low, high = _bounds("check_array", low, high)
    rng = _range_text(low, high, low_open, high_open)
    kind = "integers" if dtype is int else "finite real numbers"
    shape = {None: "an array", 0: "a number", 1: "a 1-D array", 2: "a 2-D array"}.get(
        ndim, f"an array with {ndim} dimensions"
    )
    if isinstance(length, tuple):
        size = f" of {length[0]} to {length[1]} elements"
    elif length is not None:
        size = f" of {length} elements"
    else:
        size = ""
    what = f"{shape}{size} of {kind} in the range {rng}"
    raw = array_or_none(value)
    if raw is None or raw.dtype.kind not in "iuf":  # booleans (kind "b") are refused too
        raise refusal(func, name, what, value)
    arr = raw.astype(float)
    if ndim is not None and arr.ndim != ndim:
        raise refusal(func, name, what, value)
    if length is not None:
        lo, hi = length if isinstance(length, tuple) else (length, length)
        if arr.ndim != 1 or not lo <= arr.size <= hi:
            raise refusal(func, name, what, value)
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= (arr < low) | ((arr == low) if low_open else False)
    if high is not None:
        bad |= (arr > high) | ((arr == high) if high_open else False)
    if dtype is int:
        bad |= arr != np.round(arr)
    if np.any(bad):
        raise refusal(func, name, what, value)
    return arr.astype(np.int64) if dtype is int else arr


def array_or_none(value) -> np.ndarray | None:
    """``value`` as a numpy array, or None for what is no array of numbers: a ragged list,
    booleans inside a list (numpy would read (2, True) as (2, 1)), text, objects."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):  # ragged lists, ints beyond int64 ...
        return None
    if isinstance(value, (list, tuple)) and arr.dtype.kind in "iuf":
        flat = np.ravel(np.asarray(value, dtype=object))
        if any(isinstance(v, (bool, np.bool_)) for v in flat):
            return None
    return arr


def broadcast(
    value,
    name: str,
    func: str,
    n: int,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    dtype=float,
) -> np.ndarray:
    """A scalar repeated ``n`` times, or one value per element (exactly ``n`` of them).

    Each value is checked as :func:`check_array` does (finite, in range); the message names
    the function, the parameter, what is accepted and the value received.
    """
    n = check_int(n, "n", "broadcast", 0, 10**9)
    bounds = {"low": low, "high": high, "low_open": low_open, "high_open": high_open}
    raw = array_or_none(value)
    if raw is not None and raw.ndim == 0:
        arr = check_array(value, name, func, ndim=0, dtype=dtype, **bounds)
        return np.full(n, arr, dtype=arr.dtype)
    with contextlib.suppress(ParameterError):  # a wrong length or value: the message below
        if raw is not None:
            return check_array(value, name, func, length=n, dtype=dtype, **bounds)
    rng = _range_text(low, high, low_open, high_open)
    what = f"a number or {n} numbers (one per element), each in the range {rng}"
    raise refusal(func, name, what, value)
