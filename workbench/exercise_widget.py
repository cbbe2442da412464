"""The exercise widget every notebook poses (through :func:`workbench.exercises.show`)."""

from __future__ import annotations

import html
import numbers

import ipywidgets as w

from workbench.numfmt import format_number, parse_number

__all__ = ["Exercise", "exercise"]


class Exercise(w.VBox):
    """A prediction exercise: a number (or a choice), checked within a tolerance.

    The answer box is a text box read by :func:`parse_number`: ``"0,75"`` and ``"0.75"`` are
    the same answer, and text that is no number is refused with a sentence saying so (never
    read as 0). ``tolerance`` is absolute; 0 asks for the exact value.
    """

    def __init__(self, question, answer, tolerance=0.0, hint="", solution="", choices=None):
        self.answer = answer
        self.tolerance = float(tolerance)
        self.choices = None if choices is None else list(choices)
        if self.choices is None:
            self.entry = w.Text(
                description="your answer",
                placeholder="e.g. 0.5 or 0,5",
                style={"description_width": "initial"},
                layout=w.Layout(width="300px"),
                continuous_update=False,
            )
        else:
            self.entry = w.Dropdown(
                options=["—", *self.choices],
                description="your answer",
                style={"description_width": "initial"},
                layout=w.Layout(width="auto", max_width="600px"),
            )
        self.button = w.Button(description="Check", button_style="info")
        self.feedback = w.HTML("")
        self.button.on_click(lambda _b: self.check())
        parts = [w.HTML(f"<p>{question}</p>"), w.HBox([self.entry, self.button]), self.feedback]
        for title, text in (("Hint", hint), ("Solution (try first)", solution)):
            if text:  # folded (an Accordion opens nothing) until the student opens it
                parts.append(w.Accordion(children=[w.HTML(f"<p>{text}</p>")], titles=(title,)))
        super().__init__(children=parts)
        self.add_class("wb-exercise")

    def _value(self, value):
        """The typed answer as a number (choices: as chosen); ValueError with a sentence."""
        if self.choices is not None:
            return value
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
        return parse_number(value)

    def is_correct(self, value) -> bool:
        try:
            value = self._value(value)
        except ValueError:
            return False
        if self.choices is not None:
            return value == self.answer
        return abs(value - float(self.answer)) <= self.tolerance * (1 + 1e-9) + 1e-12

    def check(self, value=None) -> bool:
        """Check ``value`` (default: what is typed); shows and returns the verdict."""
        value = self.entry.value if value is None else value
        try:
            self._value(value)
        except ValueError as exc:
            ok, why = False, html.escape(str(exc))
        else:
            ok = self.is_correct(value)
            if ok:
                why = "Correct"
            elif self.choices is not None:
                why = "Not this one — try again"
            elif self.tolerance == 0:
                why = "Not the exact value — try again (or open the hint)"
            else:
                why = (
                    f"Not within ±{format_number(self.tolerance)} of the answer "
                    "— try again (or open the hint)"
                )
        mark = "<span style='color:#080'>✔" if ok else "<span style='color:#b00'>✘"
        self.feedback.value = f"{mark} {why}.</span>"
        return ok


def exercise(question, answer, tolerance=0.0, hint="", solution="", choices=None) -> Exercise:
    """A prediction exercise with a self-check, a hint and a folded solution.

    ``answer`` is computed by the library (never typed in by hand), ``tolerance`` is absolute;
    with ``choices`` the answer is one of them. Notebooks pose exercises through
    :func:`workbench.exercises.show`, which builds this widget from the package's
    ``exercises.py``.
    """
    return Exercise(question, answer, tolerance, hint, solution, choices)
