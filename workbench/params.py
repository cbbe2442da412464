"""Parameters declared once, as data.

Each paper package has a ``params.py`` with one :class:`Params` table. A :class:`Param` row
holds the name, the symbol and meaning a student reads, the unit, the valid range, the
default, the slider span and step, and a help text. The same row

- validates a public function's argument (:meth:`Params.check`), with the shared message
  *The 'lam' parameter of simulate must be a finite real number in the range (0, 1e+06].
  Got -1 instead.*;
- builds the notebook control (:func:`workbench.widgets.control`): label, tooltip, range;
- drives the fuzz tests (``tests/strategies.py``): valid values inside, invalid outside.

so validation, sliders and tests cannot disagree. :meth:`Params.model` builds from the table
the paper's parameter object (a frozen pydantic model, validated once when built) and
:func:`takes` binds a public function's keywords to it, so no signature is written twice
(``docs/parameters.md``).
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from inspect import Parameter
from numbers import Real
from typing import Any, ClassVar

import pandas as pd
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from workbench.validation import (
    ParameterError,
    check_choice,
    check_int,
    check_pair,
    check_real,
    check_seed,
    describe,
    refusal,
    same_choice,
    suggestion,
)

__all__ = [
    "Param",
    "Params",
    "ParamsModel",
    "takes",
    "SEED",
    "REPLICATIONS",
    "CONFIDENCE",
    "WARMUP",
]

#: the kinds of row, each with the type of its field in the parameter object
KINDS = {"real": float, "int": int, "choice": str, "bool": bool, "seed": int}


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
            raise ValueError(f"Param {self.name!r}: kind must be one of {tuple(KINDS)}")
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
            sized = hasattr(value, "__len__") and getattr(value, "ndim", 1) != 0  # not 0-d
            if isinstance(value, (str, bytes)) or not sized:
                raise refusal(func, self.name, what, value)
            if not lo <= len(value) <= hi:
                raise refusal(func, self.name, what, got=f"{len(value)} values")
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
                raise refusal(func, self.name, "True or False", value)
            return value
        return check_choice(value, self.name, func, self.choices)


def _is_extra(value, extra: tuple) -> bool:
    """``value`` is one of the declared extra values (bools are never numbers here)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and any(value == e for e in extra)


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
    """A paper's parameter table: a read-only mapping ``name -> Param``.

    Parameters
    ----------
    *params : Param
        The rows, in the order the glossary and the sliders show them."""

    rows: tuple = field(default_factory=tuple)

    def __init__(self, *params: Param):
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"Params: duplicate names in {names}")
        object.__setattr__(self, "rows", tuple(params))
        object.__setattr__(self, "_index", {p.name: p for p in params})

    def __getitem__(self, name: str) -> Param:
        return self._index[name]

    def __iter__(self) -> Iterator[str]:
        return (p.name for p in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __hash__(self) -> int:
        return hash(self.rows)

    def check(self, func: str, **values) -> dict:
        """Validate ``values`` (by name) for ``func``; returns the normalised values."""
        return {name: self[name].check(v, func) for name, v in values.items()}

    def model(self, name: str, *, exclude=(), extra=None, checks=None, base=None, doc=None) -> type:
        """The paper's parameter object: a frozen pydantic model, one field per row.

        ``exclude``: rows that are not fields (a law's parameters when the object holds
        the law). ``extra``: ``name -> (type, default, check)`` for fields with no row,
        ``check(value, func)`` returning the value or raising ``ParameterError``. ``base``:
        a subclass of :class:`ParamsModel` (its ``check_relations`` checks between fields).
        ``checks``: ``name -> check(value, func)`` replacing a row's own check (a bound
        whose message says more than the range). ``doc``: the class's docstring, to which
        :func:`table_doc` adds a numpydoc entry for every row it does not describe (the
        ``extra`` fields it must describe itself).
        """
        extra = dict(extra or {})
        fields = {p.name: _field(p) for p in self.rows if p.name not in exclude}
        fields.update({n: (t, Field(default=d)) for n, (t, d, _check) in extra.items()})
        # the caller's module, as namedtuple does: the class pickles by its qualified name
        module = sys._getframe(1).f_globals.get("__name__", __name__)
        model = create_model(name, __base__=base or ParamsModel, __module__=module, **fields)
        model.TABLE = self
        model.EXTRA_CHECKS = {n: check for n, (_t, _d, check) in extra.items()} | dict(checks or {})
        if doc is not None:
            rows = [n for n in model.model_fields if n in self and n not in extra]
            model.__doc__ = table_doc(doc, model, rows, with_object=False)
        return model

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame: the notebook's glossary of symbols."""
        rows = [
            {
                "symbol": p.symbol,
                "meaning": p.meaning,
                "unit": p.unit or "–",
                "valid": _valid(p),
                "default": "–" if p.default is None else p.default,
                "source": p.source,
                "help": p.help,
                "name": p.name,
                "plausible": "–" if p.plausible is None else p.plausible,
                "why": p.why,
            }
            for p in self.rows
        ]
        return pd.DataFrame(rows)


def _valid(p: Param) -> str | tuple:
    """The valid values as the glossary and the field metadata show them."""
    if p.kind == "choice":
        return p.choices
    if p.kind == "bool":
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


# ------------------------------------------------------------------------------------------
# One parameter object per paper: a pydantic model built from the table
# ------------------------------------------------------------------------------------------


class ParamsModel(BaseModel):
    """Base of a paper's parameter object (built by :meth:`Params.model`).

    Every field is a row of the paper's table (its type, range, unit, default, help and
    quoted reasons kept as field metadata, ``Model.model_fields[name].json_schema_extra``) or
    an extra field the paper declares (a service law). Building one validates every value
    given with the row's own check, so a bad value raises the same
    :class:`~workbench.validation.ParameterError` as before (the function, the parameter,
    the range, the value); the defaults are the table's. The object is frozen: once built
    it stays valid, and the functions that take it trust it.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, extra="forbid")

    TABLE: ClassVar[Params]
    #: name -> check(value, func) returning the value: the extra fields' (no row), and the
    #: rows whose own check is replaced
    EXTRA_CHECKS: ClassVar[dict] = {}

    def __init__(self, /, **values):
        _validate(type(self), values, type(self).__name__, self)

    @classmethod
    def of(cls, func: str, values: dict, fields=None):
        """The object from ``values`` (by name), errors naming ``func``; the checks between
        fields (:meth:`check_relations`) cover ``fields`` (all when None), the ones
        ``func`` uses."""
        obj = cls.__new__(cls)
        _validate(cls, values, func, obj, fields)
        return obj

    def with_(self, func: str | None = None, fields=None, **changes):
        """A copy with ``changes`` validated (errors name ``func``, default the class)."""
        func = func or type(self).__name__
        cls = type(self)
        unknown = sorted(set(changes) - set(cls.model_fields))
        if unknown:
            raise UnknownKeywordError(func, unknown[0], cls.model_fields)
        checked = {n: cls._check_value(n, v, func) for n, v in changes.items()}
        copy = self.model_copy(update=checked)
        copy.check_relations(func, fields or tuple(cls.model_fields))
        return copy

    def trusted(self, **changes):
        """A copy with ``changes`` not validated: for inner code whose values come from a
        validated object (``m`` over ``1..N`` of a validated ``N``)."""
        # model_copy(update=...) without its generality: inner loops call this per point
        cls = type(self)
        copy = cls.__new__(cls)
        setattr_ = object.__setattr__
        setattr_(copy, "__dict__", {**self.__dict__, **changes})
        setattr_(copy, "__pydantic_fields_set__", self.__pydantic_fields_set__ | changes.keys())
        setattr_(copy, "__pydantic_extra__", self.__pydantic_extra__)
        setattr_(copy, "__pydantic_private__", self.__pydantic_private__)
        return copy

    def check_relations(self, func: str, fields) -> None:
        """Checks between fields (``m <= N``) that concern ``fields``; a paper's model
        overrides it."""

    @field_validator("*", mode="plain")
    @classmethod
    def _check_field(cls, value, info: ValidationInfo):
        return cls._check_value(info.field_name, value, (info.context or {}).get("func"))

    @classmethod
    def _check_value(cls, name: str, value, func: str | None):
        func = func or cls.__name__
        if name in cls.EXTRA_CHECKS:
            return cls.EXTRA_CHECKS[name](value, func)
        row = cls.TABLE[name]
        if value is None and row.default is None:
            return None  # an optional row (None: the rule the help states)
        return row.check(value, func)

    @model_validator(mode="after")
    def _check_relations(self, info: ValidationInfo):
        context = info.context or {}
        fields = context.get("fields") or tuple(type(self).model_fields)
        self.check_relations(context.get("func", type(self).__name__), fields)
        return self


def _validate(cls, values: dict, func: str, obj, fields=None) -> None:
    unknown = sorted(set(values) - set(cls.model_fields))
    if unknown:
        raise UnknownKeywordError(func, unknown[0], cls.model_fields)
    try:
        cls.__pydantic_validator__.validate_python(
            values, self_instance=obj, context={"func": func, "fields": fields}
        )
    except ValidationError as exc:
        # the row's own ParameterError, as pydantic carried it: the user sees the same error
        error = exc.errors()[0].get("ctx", {}).get("error")
        if isinstance(error, ParameterError):
            raise error from None
        raise  # pragma: no cover - every field check raises ParameterError


def _field(p: Param):
    meta = {
        k: v
        for k, v in {
            "symbol": p.symbol,
            "unit": p.unit,
            "kind": p.kind,
            "valid": _valid(p),
            "source": p.source,
            "plausible": p.plausible,
            "why": p.why,
        }.items()
        if v not in ("", None, ())
    }
    kind = KINDS[p.kind]
    if p.pair or p.length is not None:
        kind = tuple
    if p.default is None:
        kind = kind | None
    return kind, Field(
        default=p.default, title=p.meaning, description=p.help, json_schema_extra=meta
    )


def takes(model: type[ParamsModel], *names: str, positional: bool = False):
    """Bind a public function's keywords to ``model``, declared once in the table.

    ``@takes(P4Params, "N", "lam")`` on ``def f(p, *, own=1)`` gives ``f`` the signature
    ``f(params=None, /, *, N=24, lam=1.5, own=1)``, defaults from the table: ``f(lam=0.7)``,
    ``f(P4Params(lam=0.7))`` and ``f(p, lam=0.7)`` all call the body with one validated
    object (errors name ``f``). An object passed alone is trusted, not validated again.
    ``names`` may also list the body's own parameters (after ``p``), to place them.
    ``positional=True``: ``names`` are positional-or-keyword in that order (``f(24, 1.5)``)
    and the object, when given, is the only positional argument. A body with ``**kw`` takes
    the keywords the signature does not name: those that are fields of ``model`` (a
    policy's parameters, rows of the same table) are validated into the object and handed
    on validated, the others as given, for the body to check.

    Parameters
    ----------
    model : type
        The paper's parameter class (built by :meth:`Params.model`).
    *names : str
        The table's fields the function takes, in the order of its signature, and the body's
        own parameters to place among them.
    positional : bool
        Whether ``names`` may be given by position.

    Returns
    -------
    callable
        A decorator: it turns ``def f(p, *, own...)`` into the public function.
    """
    if not (isinstance(model, type) and issubclass(model, ParamsModel)):
        raise refusal(
            "takes", "model", "a paper's parameter object (a class built by Params.model)", model
        )
    if not isinstance(positional, bool):
        raise refusal("takes", "positional", "True or False", positional)

    def wrap(body):
        signature = inspect.signature(body)
        own = dict(list(signature.parameters.items())[1:])
        fields = [n for n in names if n not in own]
        missing = [n for n in fields if n not in model.model_fields]
        if missing:
            raise ValueError(f"takes({model.__name__}): no field {missing} for {body.__name__}")
        kind = Parameter.POSITIONAL_OR_KEYWORD if positional else Parameter.KEYWORD_ONLY
        listed = []
        for n in names:
            if n in own:
                listed.append(own.pop(n).replace(kind=kind))
            else:
                info = model.model_fields[n]
                listed.append(Parameter(n, kind, default=info.default, annotation=info.annotation))
        head = [] if positional else [_OBJECT.replace(annotation=f"{model.__name__} | None")]
        sig = signature.replace(parameters=[*head, *listed, *own.values()])
        ordered = [p.name for p in listed]
        named = {n for n, p in sig.parameters.items() if p.kind is not p.VAR_KEYWORD}
        spread = len(named) < len(sig.parameters)  # the body takes **kw

        @functools.wraps(body)
        def door(*args, **kwargs):
            if not kwargs and len(args) == 1 and type(args[0]) is model:
                return body(args[0])  # an object alone: trusted, the inner calls' path
            func = body.__name__
            obj = None
            if args and isinstance(args[0], model):
                obj, args = args[0], args[1:]
            elif not positional and args:
                raise TypeError(
                    f"{func}() takes a {model.__name__} or keywords; got {len(args)} positional"
                )
            if len(args) > len(ordered):
                raise TypeError(f"{func}() takes at most {len(ordered)} positional arguments")
            for n, v in zip(ordered, args, strict=False):
                if n in kwargs:
                    raise TypeError(f"{func}() got multiple values for argument {n!r}")
                kwargs[n] = v
            values = {n: kwargs.pop(n) for n in fields if n in kwargs}
            unknown = set(kwargs) - named
            if unknown and not spread:
                raise UnknownKeywordError(func, sorted(unknown)[0], sig.parameters)
            rows = [n for n in kwargs if n in unknown and n in model.model_fields]
            values |= {n: kwargs[n] for n in rows}
            if obj is None:
                obj = model.of(func, values, [*fields, *rows])
            elif values:
                obj = obj.with_(func, [*fields, *rows], **values)
            return body(obj, **(kwargs | {n: getattr(obj, n) for n in rows}))

        door.__signature__ = sig
        door.params_model = model
        door.__doc__ = table_doc(
            body.__doc__,
            model,
            fields,
            with_object=not positional,
            object_name=next(iter(signature.parameters)),
        )
        return door

    return wrap


_DOCUMENTED = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::|$)")


def table_doc(
    doc: str | None,
    model: type[ParamsModel],
    fields,
    with_object: bool,
    object_name: str = "params",
) -> str:
    """``doc`` with a numpydoc entry for each of ``fields`` it does not describe, written from
    the table (meaning, unit, valid range, default), so a ``@takes`` function documents its
    table keywords without copying them.

    Parameters
    ----------
    doc : str or None
        The body's docstring; its own ``Parameters`` entries come first and win.
    model : type
        The paper's parameter class.
    fields : sequence of str
        The table's fields the function takes.
    with_object : bool
        Whether the function takes the object itself (``params``) first.
    object_name : str
        The body's name for the object (``p``, ``par``): an entry the body wrote under that
        name describes the public ``params`` slot and is renamed so.

    Returns
    -------
    str
        The docstring, dedented, with a ``Parameters`` section holding every field.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    documented = _documented(lines)
    at = documented.get((object_name,))
    if with_object and at is not None:
        lines[at] = "params" + lines[at][len(object_name) :]
    known = {n for names in documented for n in names}
    entries = []
    if with_object and at is None and "params" not in known:
        entries += [
            f"params : {model.__name__}, optional",
            "    The paper's parameter object; the keywords below replace its values.",
        ]
    for name in fields:
        if name in known:
            continue
        info = model.model_fields[name]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        kind = getattr(info.annotation, "__name__", None) or str(info.annotation)
        unit = f" [{extra['unit']}]" if extra.get("unit") else ""
        valid = f", in {extra['valid']}" if extra.get("valid") else ""
        entries += [
            f"{name} : {kind}",
            f"    {info.title or name}{unit}{valid} (default {info.default!r}).",
        ]
    return _with_entries(lines, entries)


def with_parameter_docs(doc: str | None, entries: dict[str, list[str]]) -> str:
    """``doc`` with the numpydoc ``Parameters`` entries of ``entries`` (a name and the lines
    of its entry) that it does not describe itself, so a shared mechanism documents the
    keywords it adds to a function without each function copying them.

    Parameters
    ----------
    doc : str or None
        The function's docstring; its own entries come first and win.
    entries : dict of str to list of str
        For each keyword, its entry's lines (``name : type`` and the indented description).

    Returns
    -------
    str
        The docstring, dedented, with the missing entries.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    known = {n for names in _documented(lines) for n in names}
    return _with_entries(lines, [x for n, e in entries.items() if n not in known for x in e])


def _header(lines: list[str], title: str | None = None, start: int = 0, default=None):
    """The index of the first section header at or after ``start`` (the line ``title``, or
    any unindented line when None, with its dashes under it), or ``default``."""
    return next(
        (
            i
            for i in range(start, len(lines) - 1)
            if lines[i] == title or (title is None and lines[i] and not lines[i].startswith(" "))
            if set(lines[i + 1]) == {"-"}
        ),
        default,
    )


def _documented(lines: list[str]) -> dict[tuple[str, ...], int]:
    """The names each entry of the ``Parameters`` section describes, and its line."""
    head = _header(lines, "Parameters")
    if head is None:
        return {}
    end = _header(lines, start=head + 2, default=len(lines))
    found = {}
    for i in range(head + 2, end):
        match = None if lines[i].startswith(" ") else _DOCUMENTED.match(lines[i])
        if match:
            found[tuple(n.strip().lstrip("*") for n in match.group(1).split(","))] = i
    return found


def _with_entries(lines: list[str], entries: list[str]) -> str:
    """``lines`` with ``entries`` first in the ``Parameters`` section (made before
    ``Returns``, or at the end, when there is none)."""
    if not entries:
        return "\n".join(lines)
    head = _header(lines, "Parameters")
    if head is not None:
        lines[head + 2 : head + 2] = entries
    else:
        at = _header(lines, "Returns", default=len(lines))
        block = ["Parameters", "-" * 10, *entries, ""]
        if at == len(lines):
            block = ["", *block[:-1]]
        lines[at:at] = block
    return "\n".join(lines)


_OBJECT = Parameter("params", Parameter.POSITIONAL_ONLY, default=None)


class UnknownKeywordError(ParameterError, TypeError):
    """A keyword a :func:`takes` function does not take: a ``TypeError``, as Python's own
    signature check raises, that suggests the closest name (a misspelling is never silently
    a default)."""

    def __init__(self, func: str, name: str, known):
        hint = suggestion(name, [k for k in known if k != "params"])
        super().__init__(f"{func}() got an unexpected keyword argument {name!r}.{hint}")
