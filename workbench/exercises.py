"""Classroom exercises, declared in each paper package and posed in its notebook.

Each paper package has an ``exercises.py`` with ``EXERCISES``, a tuple of :class:`Question`.
A question holds its text (the prediction asked for, never the answer), a hint, and the answer
as a *callable* that computes it from the model when the exercise is shown, so the answer
follows the code and is never a literal typed into a notebook. The notebook cell that poses
exercise ``n`` is just ``show("p5", n)``.

>>> from workbench.exercises import show
>>> show("p4", 1)          # the question, an answer box, Check, a hint, a folded solution

Every notebook uses the same widget (:class:`workbench.widgets.Exercise`): the answer box reads
a decimal point or a decimal comma, refuses text visibly, and the solution is folded until the
student opens it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.registry import paper as get_paper
from workbench.validation import ParameterError, check_int

__all__ = ["Question", "exercises", "answer", "show"]


@dataclass(frozen=True)
class Question:
    """One exercise.

    Parameters
    ----------
    key : str
        A stable id (``"pooling"``).
    text : str
        The question (HTML allowed). It states what to predict and in which unit; it never
        contains the answer.
    answer : callable
        ``answer() -> float`` (or one of ``choices``), computed from the package's model.
    tolerance : float
        Absolute tolerance of the check; 0 for an exact value or a choice.
    hint : str
        A nudge towards the method, without the answer.
    solution : callable or str
        ``solution(answer) -> str``: the worked solution, shown folded, formatted with the
        computed answer (or a plain string that does not need it).
    choices : tuple of str, optional
        For a multiple-choice question: the options; ``answer()`` returns one of them.
    """

    key: str
    text: str
    answer: Callable[[], object]
    tolerance: float = 0.0
    hint: str = ""
    solution: Callable[[object], str] | str = ""
    choices: tuple | None = field(default=None)

    def value(self):
        """The answer, computed now from the model."""
        return self.answer()

    def solution_text(self, value=None) -> str:
        value = self.value() if value is None else value
        return self.solution(value) if callable(self.solution) else str(self.solution)


def exercises(paper: str) -> tuple[Question, ...]:
    """The exercises of one paper (``"p1"`` … ``"p5"``), in the notebook's order."""
    p = get_paper(paper)
    return tuple(p.part("exercises").EXERCISES)


def _question(paper: str, number: int) -> Question:
    qs = exercises(paper)
    number = check_int(number, "number", "show", 1, len(qs))
    return qs[number - 1]


def answer(paper: str, number: int):
    """The computed answer of exercise ``number`` (1-based) of ``paper``: for tests and
    lecturers, never shown in a notebook cell."""
    return _question(paper, number).value()


def show(paper: str, number: int):
    """The exercise widget for exercise ``number`` (1-based) of ``paper``.

    Raises :class:`~workbench.validation.ParameterError` for an unknown paper or number.
    """
    from workbench.widgets import Exercise  # ipywidgets only when a notebook asks for it

    q = _question(paper, number)
    value = q.value()
    if q.choices is not None and value not in q.choices:
        raise ParameterError(
            f"show: exercise {number} of {paper} computed {value!r}, not one of its choices "
            f"{q.choices}"
        )
    title = f"<b>Exercise {number}.</b> {q.text}"
    return Exercise(title, value, q.tolerance, q.hint, q.solution_text(value), q.choices)
