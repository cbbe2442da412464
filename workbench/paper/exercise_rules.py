"""Rules on a paper's exercises: enough of them, answers computed from the model (never typed
in), never shown in the question, the hint or the notebook, posed in order by ``show``."""

from __future__ import annotations

import builtins
import dis
import functools
import math
import re
import types
from collections.abc import Callable

from workbench.exercises import Question
from workbench.paper.data_rules import cell_source, code_cells, notebook_cells

MIN_EXERCISES = 3  # a notebook that teaches has at least three exercises


def questions(target) -> list:
    found = target.declared("exercises", "EXERCISES")
    return [q for q in found if isinstance(q, Question)] if isinstance(found, tuple) else []


def exercises_declared(target):
    """EXERCISES is a tuple of at least three Questions with distinct keys."""
    found = target.declared("exercises", "EXERCISES")
    where = f"{target.package}.exercises"
    if not isinstance(found, tuple) or not found:
        why = target.errors.get("exercises", "EXERCISES is missing or not a non-empty tuple")
        yield where, why
        return
    if not all(isinstance(q, Question) for q in found):
        yield where, "EXERCISES holds something else than Questions"
    if len(found) < MIN_EXERCISES:
        yield where, f"{len(found)} exercises: a notebook that teaches has at least {MIN_EXERCISES}"
    keys = [getattr(q, "key", None) for q in found]
    if len(set(keys)) != len(keys):
        yield where, f"duplicate keys {sorted({k for k in keys if keys.count(k) > 1})}"


def _names(code: types.CodeType) -> set[str]:
    out = set(code.co_names) | set(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names(const)
    return out


def _combines(code: types.CodeType, numbers: int) -> bool:
    """Does ``code`` do arithmetic (the question's own values combined: 6 places × 2)?"""
    return numbers >= 2 and any(i.opname.startswith("BINARY_") for i in dis.get_instructions(code))


def _computes(func) -> bool:
    """Does ``func`` call something of the model (a function, a class or a module that is
    not a builtin), or combine two or more named values, rather than return a number typed
    in?"""
    while isinstance(func, functools.partial):
        func = func.func
    if not isinstance(func, types.FunctionType):
        return callable(func) and not isinstance(func, types.BuiltinFunctionType)
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or (), strict=True))
    numbers = 0
    for name in _names(func.__code__):
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
        elif name in func.__globals__:
            value = func.__globals__[name]
        else:
            continue  # a builtin or an attribute name
        if value is getattr(builtins, name, object()):
            continue
        if callable(value) or isinstance(value, types.ModuleType):
            return True
        numbers += isinstance(value, (int, float))
    return _combines(func.__code__, numbers)


def exercises_computed(target):
    """Every answer is computed from the model when asked (it calls the package's code, not a
    number typed in), and gives a finite number or one of the choices; tolerances are finite
    and >= 0."""
    for n, q in enumerate(questions(target), start=1):
        where = f"{target.package}.exercises: exercise {n} ({q.key})"
        if not callable(q.answer) or not _computes(q.answer):
            yield where, "the answer is not computed: answer= must call the model"
            continue
        if not (isinstance(q.tolerance, (int, float)) and 0 <= q.tolerance < math.inf):
            yield where, f"tolerance {q.tolerance!r} is not a finite number >= 0"
        try:
            value = _answer(q)
        except Exception as err:
            yield where, f"the answer raised {type(err).__name__}: {err}"
            continue
        if q.choices is not None:
            if value not in q.choices:
                yield where, f"the answer {value!r} is not one of the choices {q.choices}"
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            yield where, f"the answer is {type(value).__name__}, not a number"
        elif not math.isfinite(value):
            yield where, f"the answer is {value!r}"


def spellings(value: float) -> set[str]:
    """How a number could be printed: 0.75, 0,75, 31.25, 0.388 (a one-digit number such as
    2 or 0.4 is no evidence and is left out)."""
    out = set()
    for digits in (2, 3, 4):
        text = f"{value:.{digits}g}"
        if len(text.strip("-0.")) >= 2 and "e" not in text:
            out |= {text, text.replace(".", ",")}
    return out


def _shown(value, text: str) -> list[str]:
    return [s for s in spellings(value) if re.search(rf"(?<![\d.,\w]){re.escape(s)}(?!\d)", text)]


#: (answer function, its module's file) -> its value: computed once per process for the
#: three rules that read it (an edited package is another file or another function)
_ANSWERS: dict = {}


def _answer(q):
    key = (q.answer, getattr(getattr(q.answer, "__code__", None), "co_filename", None))
    if key not in _ANSWERS:
        _ANSWERS[key] = q.answer()
    return _ANSWERS[key]


def _numeric(target):
    for n, q in enumerate(questions(target), start=1):
        if q.choices is not None or not callable(q.answer):
            continue
        try:
            value = float(_answer(q))
        except Exception:
            continue  # exercises.computed names it
        if math.isfinite(value):
            yield n, q, value


def exercises_hidden(target):
    """No question and no hint shows its answer (2 to 4 significant digits, a decimal point
    or comma)."""
    for n, q, value in _numeric(target):
        for part in ("text", "hint"):
            found = _shown(value, str(getattr(q, part, "")))
            if found:
                yield f"{target.package}.exercises: exercise {n}", f"its {part} shows {found}"


def notebook_exercises(target):
    """The notebook poses exercises 1, 2, ... in order, each in a cell holding only its
    ``show(id, n)`` call, and none of its cells shows a numeric answer."""
    cells, _ = notebook_cells(target)
    if cells is None:
        return  # notebook.parameters names it
    where = target.rel(target.notebook)
    pid = re.escape(target.paper_id)
    code = code_cells(cells)
    posed = [int(m) for _, src in code for m in re.findall(rf"show\([\"']{pid}[\"'], (\d+)\)", src)]
    count = len(questions(target))
    if posed != list(range(1, count + 1)):
        yield where, f"poses exercises {posed}, not 1 to {count} in order"
    for i, src in code:
        if "show(" in src and not re.fullmatch(rf"\s*show\([\"']{pid}[\"'], \d+\)\s*", src):
            yield f"{where} cell {i}", "an exercise cell holds its show(id, n) call only"
    source = "\n".join(cell_source(c) for c in cells)
    for n, _, value in _numeric(target):
        found = _shown(value, source)
        if found:
            yield where, f"shows exercise {n}'s answer {found}"


RULES: dict[str, Callable] = {
    "exercises.declared": exercises_declared,
    "exercises.computed": exercises_computed,
    "exercises.hidden": exercises_hidden,
    "notebook.exercises": notebook_exercises,
}
