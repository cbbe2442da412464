"""The precision loop shared by every paper's ``simulate_to_precision``.

One mechanism for the five papers: the same keywords (``rel_half_width`` *or*
``half_width``, ``max_replications``, ``initial``, ``progress``), validated by the same
table rows (:data:`workbench.params.REL_HALF_WIDTH`, :data:`~workbench.params.MAX_REPLICATIONS`,
:data:`~workbench.params.INITIAL_REPLICATIONS`), and the same stopping rule
(:func:`to_precision`): start with ``initial`` replications, then project the number the
current half-width needs (``n · (h / target)²``, at most doubling per step) until the target
is met or ``max_replications`` is reached. A paper's ``simulate_to_precision`` validates its
own model, calls :func:`precision_target` and hands its replication to :func:`to_precision`.
"""

from __future__ import annotations

import functools
import inspect
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.output_analysis import Replication, finish, replicate
from workbench.params import (
    INITIAL_REPLICATIONS,
    MAX_REPLICATIONS,
    REL_HALF_WIDTH,
    with_parameter_docs,
)
from workbench.progress import finish_bar, open_bar
from workbench.validation import ParameterError, check_real, check_type, refusal, reject_unknown

__all__ = ["PrecisionTarget", "precision_keywords", "precision_target", "to_precision"]


@dataclass(frozen=True)
class PrecisionTarget:
    """A validated precision request: one target (relative or absolute) and the budget.

    Parameters
    ----------
    value : float
        The target half-width of the headline interval.
    absolute : bool
        Whether ``value`` is in the quantity's unit (else relative to the estimate).
    max_replications : int
        The budget: the run stops there, converged or not.
    initial : int
        Replications run before the first look at the interval.
    progress : bool or callable
        A progress bar, or ``progress(done, projected, half_width)`` after every step.
    unit : str
        The quantity's unit, for messages."""

    value: float  # the target half-width: relative to the estimate, or absolute
    absolute: bool
    max_replications: int
    initial: int
    progress: object  # bool, or a callable progress(done, projected, half_width)
    unit: str = ""

    @property
    def shown(self) -> str:
        if self.absolute:
            return f"±{self.value:.3g}{(' ' + self.unit) if self.unit else ''}"
        return f"±{self.value:.1%}"

    def achieved(self, result) -> float:
        """The headline interval's half-width, measured as the target is (inf: no interval)."""
        half = result.half_width
        if not math.isfinite(half):
            return math.inf
        if self.absolute:
            return half
        mean = abs(result.estimate)
        if mean == 0.0:
            return 0.0 if half == 0.0 else math.inf
        return half / mean


def precision_target(
    func: str,
    *,
    rel_half_width=None,
    half_width=None,
    max_replications=None,
    initial=None,
    progress=True,
    default_half_width: float | None = None,
    max_half_width: float | None = None,
    unit: str = "",
    overload="raise",
) -> PrecisionTarget:
    """Validate the precision keywords of ``func`` (every paper's, in one place).

    Give ``rel_half_width`` or ``half_width``, not both; with neither the target is
    ``default_half_width`` (absolute) when the paper declares one, else the table's relative
    default (2 %). ``max_replications`` and ``initial`` default to the shared table's rows;
    ``initial`` is capped at ``max_replications``.

    Parameters
    ----------
    func : str
        The public function whose keywords these are (named in errors).
    rel_half_width, half_width : float or None
        The target, relative to the estimate or in the quantity's unit.
    max_replications, initial : int or None
        The budget and the first batch.
    progress : bool or callable
        A progress bar, or ``progress(done, projected, half_width)`` after every step.
    default_half_width, max_half_width : float or None
        The paper's absolute default target and the widest target it accepts.
    unit : str
        The quantity's unit, for messages.
    overload : str
        The run's ``overload`` keyword: a precision needs a steady state, so only "raise"
        (a transient run has no precision to reach).

    Returns
    -------
    PrecisionTarget
        The validated request.
    """
    if overload != "raise":
        what = (
            "'raise': a transient run has no precision to reach "
            "(use simulate(overload='transient'))"
        )
        raise refusal(func, "overload", what, overload)
    if rel_half_width is not None and half_width is not None:
        raise refusal(
            func,
            "half_width",
            "None when 'rel_half_width' is given (one target, relative or absolute: not both)",
            got=f"half_width={half_width!r}, rel_half_width={rel_half_width!r}",
        )
    if half_width is None and rel_half_width is None and default_half_width is not None:
        half_width = default_half_width
    if half_width is not None:
        value = check_real(half_width, "half_width", func, 0.0, max_half_width, low_open=True)
        absolute = True
    else:
        value = _checked(REL_HALF_WIDTH, rel_half_width, func)
        absolute = False
    top = _checked(MAX_REPLICATIONS, max_replications, func)
    first = min(_checked(INITIAL_REPLICATIONS, initial, func), top)
    if not (isinstance(progress, (bool, np.bool_)) or callable(progress)):
        what = "True/False or a callable progress(done, projected, half_width)"
        raise refusal(func, "progress", what, progress)
    return PrecisionTarget(value, absolute, top, first, progress, unit)


def _checked(row, value, func: str):
    """``value``, or the shared row's default when None, checked by the row."""
    return row.check(row.default if value is None else value, func)


_KEYWORDS = ("rel_half_width", "half_width", "max_replications", "initial", "progress")
_TYPES = (float | None, float | None, int | None, int | None, bool | Callable)


def precision_keywords(
    *,
    unit: str = "s",
    default_half_width: float | None = None,
    max_half_width: float | None = None,
    initial: int | None = None,
    progress: bool = True,
    overload: str | None = None,
):
    """Give a paper's ``simulate_to_precision`` the shared precision keywords, once.

    ``@precision_keywords(unit="s")`` on ``def simulate_to_precision(p, *, target, own...)``
    gives the public function the keywords ``rel_half_width``, ``half_width``,
    ``max_replications``, ``initial`` and ``progress`` after its own, validates them with
    :func:`precision_target` and calls the body with the :class:`PrecisionTarget`; their
    ``Parameters`` entries are added to its docstring. Under :func:`workbench.params.takes`
    the keywords are the body's own (not the paper's table's).

    Parameters
    ----------
    unit : str
        The headline quantity's unit (messages and the entries).
    default_half_width, max_half_width : float or None
        The paper's absolute default target and the widest it accepts
        (:func:`precision_target`).
    initial : int or None
        The paper's default first step (None: the shared table's 5).
    progress : bool
        The default of ``progress``.
    overload : {None, "keyword", "params"}
        Where the run's ``overload`` is read for the refusal of a transient run: the body's
        own ``overload`` keyword, the parameter object's field, or nowhere (the paper's
        ``overload`` means something else, or a transient run has its own answer).

    Returns
    -------
    callable
        A decorator: it turns ``def f(p, *, target, own...)`` into the public function.
    """
    if overload not in (None, "keyword", "params"):
        raise refusal("precision_keywords", "overload", "None, 'keyword' or 'params'", overload)
    first = INITIAL_REPLICATIONS.default if initial is None else initial
    shown = f"±{default_half_width:g} {unit}" if default_half_width else "±2 %"
    said = {
        "rel_half_width, half_width : float, optional": "The target: the headline interval's "
        "half-width at most ``rel_half_width`` times the estimate, or at most ``half_width`` "
        f"[{unit}]; give one (neither: {shown}).",
        "max_replications : int, optional": "Where the loop stops (the shared table's 200); "
        "then ``converged=False`` and a note.",
        "initial : int, optional": f"Replications of the first step ({first}), at most "
        "``max_replications``; then as many as the spread predicts, at most doubling.",
        "progress : bool or callable": f"True shows a progress bar ({progress}); "
        "``progress(done, projected, half_width)`` is called after each step.",
    }
    entries = {
        head.split(",")[0].split(" ")[0]: [
            head,
            *textwrap.wrap(text, 88, initial_indent="    ", subsequent_indent="    "),
        ]
        for head, text in said.items()
    }

    def wrap(body):
        sig = inspect.signature(body)
        if "target" not in sig.parameters:
            raise TypeError(f"precision_keywords: {body.__name__} takes no 'target' keyword")
        own = [q for q in sig.parameters.values() if q.name != "target"]
        added = [
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a)
            for n, d, a in zip(_KEYWORDS, (None, None, None, first, progress), _TYPES, strict=True)
        ]
        spread = [q for q in own if q.kind is q.VAR_KEYWORD]
        named = [q for q in own if q.kind is not q.VAR_KEYWORD]
        default_overload = sig.parameters["overload"].default if overload == "keyword" else None

        @functools.wraps(body)
        def door(p, /, *args, **kwargs):
            asked = {n: kwargs.pop(n) for n in _KEYWORDS if n in kwargs}
            if overload == "keyword":
                run = kwargs.get("overload", default_overload)
            else:
                run = p.overload if overload == "params" else "raise"
            if asked.get("initial") is None:
                asked["initial"] = first
            asked.setdefault("progress", progress)
            target = precision_target(
                body.__name__,
                **asked,
                default_half_width=default_half_width,
                max_half_width=max_half_width,
                unit=unit,
                overload=run,
            )
            return body(p, *args, target=target, **kwargs)

        door.__signature__ = sig.replace(parameters=[*named, *added, *spread])
        hints = {k: v for k, v in body.__annotations__.items() if k != "target"}
        door.__annotations__ = hints | {q.name: q.annotation for q in added}
        door.__doc__ = with_parameter_docs(body.__doc__, entries)
        return door

    return wrap


def to_precision(
    one: Callable[[np.random.SeedSequence, int], Replication],
    *,
    func: str,
    target: PrecisionTarget | None = None,
    rel_half_width: float | None = None,
    half_width: float | None = None,
    max_replications: int | None = None,
    initial: int | None = None,
    seed=0,
    progress=True,
    desc: str = "",
    **finish_kwargs,
):
    """Add replications until the headline interval is narrow enough, or stop with a reason.

    ``target``: a :class:`PrecisionTarget` (a paper's ``simulate_to_precision`` builds it
    with :func:`precision_target`); without it the keywords ``rel_half_width`` ...
    ``progress`` are validated here the same way. A run the detector finds non-stationary
    stops at once with :class:`UnstableRegimeError` (its precision would be meaningless). A
    run that reaches ``max_replications`` first is returned with ``converged=False`` and a
    note saying the precision reached.

    Parameters
    ----------
    one : callable
        ``one(seed_sequence, index) -> Replication``, one replication of the model.
    func : str
        The public function that runs (named in errors and notes).
    target : PrecisionTarget or None
        The validated request; without it the next keywords are validated here.
    rel_half_width, half_width, max_replications, initial, progress
        See :func:`precision_target`.
    seed : int or numpy.random.SeedSequence
        The run's seed (replication ``i`` draws from its ``i``-th child).
    desc : str
        The progress bar's label.
    **finish_kwargs
        :func:`workbench.output_analysis.finish`'s description of the result.

    Returns
    -------
    SimulationResult
        The result, with ``converged`` and the replications it took.
    """
    func = check_type(func, "func", "to_precision", str, "a str")
    what = "a callable one(seed_sequence, index) -> Replication"
    one = check_type(one, "one", func, Callable, what)
    desc = check_type(desc, "desc", func, str, "a str")
    reject_unknown(func, finish_kwargs, _FINISH_KEYWORDS)
    missing = [k for k in _FINISH_REQUIRED if k not in finish_kwargs]
    if missing:
        raise ParameterError(
            f"{func} needs the result's description for finish(): {', '.join(missing)} "
            f"missing (see workbench.output_analysis.finish)."
        )
    if target is None:
        target = precision_target(
            func,
            rel_half_width=rel_half_width,
            half_width=half_width,
            max_replications=max_replications,
            initial=initial,
            progress=progress,
        )
    elif not isinstance(target, PrecisionTarget):
        raise refusal(func, "target", "a PrecisionTarget or None", target)
    top, goal = target.max_replications, target.value
    finish_kwargs = {**finish_kwargs, "overload": "raise"}
    reps: list[Replication] = []
    bar = open_bar(top, desc or f"{func} to {target.shown}", target.progress is True)
    n = target.initial
    try:
        while True:
            new = replicate(one, replications=n - len(reps), seed=seed, start=len(reps))
            reps.extend(new)
            result = finish(reps, func=func, **finish_kwargs)
            achieved = target.achieved(result)
            # the replications the spread predicts (inf when the target is below what the
            # spread can reach, e.g. 1e-308: then the loop runs to max_replications)
            ratio = achieved / goal  # inf when the target is far below the spread
            need = len(reps) * ratio * ratio if achieved > 0 else len(reps)
            if bar is not None:
                bar.update(len(new))
            if callable(target.progress):
                target.progress(len(reps), int(min(max(need, len(reps)), top)), result.half_width)
            if achieved <= goal or len(reps) >= top:
                break
            step = min(need, 2.0 * len(reps))
            n = int(min(top, max(len(reps) + 1, math.ceil(step))))
    finally:
        finish_bar(bar)
    converged = achieved <= goal
    got = f"±{achieved:.3g}" if target.absolute else f"±{achieved:.1%}"
    note = (
        f"precision {got} reached with {len(reps)} replications (target {target.shown})"
        if converged
        else (
            f"did not converge: {got} after {len(reps)} replications (target "
            f"{target.shown}); raise max_replications or the run length"
        )
    )
    return result.with_(converged=converged, notes=(*result.notes, note))


# finish()'s description of a result, read from its signature (func: to_precision's own)
_FINISH = inspect.signature(finish).parameters
_FINISH_KEYWORDS = tuple(k for k, p in _FINISH.items() if p.kind is p.KEYWORD_ONLY and k != "func")
_FINISH_REQUIRED = tuple(
    k for k in _FINISH_KEYWORDS if _FINISH[k].default is inspect.Parameter.empty
)
