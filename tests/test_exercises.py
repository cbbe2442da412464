"""Every paper's exercises in their widget: the computed answer accepted, others refused.

``<package>/exercises.py`` declares ``EXERCISES``; the notebook poses each with
``show(paper, n)``. What a paper's exercises must be (at least three, answers computed,
never shown in the question, hint or notebook, posed in order) is the contract's
(``workbench.paper.exercise_rules``, run by tests/test_contract.py). Here: for every exercise
the widget accepts the computed answer (also typed with a decimal comma), refuses a value ten
tolerances away (or 10 % for exact answers) and text, visibly; the answers against the
papers' formulas worked by hand; and no view shown before an exercise gives its answer away.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from workbench.exercises import answer, exercises, show
from workbench.paper import check_paper, exercise_rules
from workbench.registry import ARENA, PAPERS
from workbench.registry import paper as registered
from workbench.validation import ParameterError
from workbench.widgets import Exercise

ROOT = Path(__file__).resolve().parent.parent


def _count(pid) -> int:
    try:
        return len(exercises(pid))
    except ModuleNotFoundError:  # reported by check_paper's exercises.declared
        return 0


#: every notebook that teaches: the papers and the arena
TEACHING = [*sorted(PAPERS), ARENA.id]
CASES = [(pid, n) for pid in TEACHING for n in range(1, 1 + _count(pid))]


def test_the_arena_keeps_the_exercise_rules_of_the_contract():
    """The papers' exercises are checked with the rest of the contract (tests/test_contract.py);
    the arena teaches too, with the same rules: at least three, computed, never shown."""
    check_paper(ARENA.id, rules=list(exercise_rules.RULES)).raise_if_failed()


@pytest.mark.parametrize(("paper_id", "number"), CASES)
def test_widget_accepts_the_computed_answer_and_refuses_others(paper_id, number):
    q = exercises(paper_id)[number - 1]
    value = answer(paper_id, number)
    widget = show(paper_id, number)
    assert isinstance(widget, Exercise)
    if q.choices is not None:
        assert value in q.choices
        assert widget.check(value)
        assert not any(widget.check(c) for c in q.choices if c != value)
        return
    value = float(value)
    assert math.isfinite(value)
    assert widget.check(repr(value)) and widget.check(repr(value).replace(".", ","))
    assert widget.check(value + 0.5 * q.tolerance)
    far = 10 * q.tolerance if q.tolerance > 0 else 0.1 * abs(value) + 1e-6
    assert not widget.check(value + far) and not widget.check(value - far)
    assert not widget.check("abc") and "not a number" in widget.feedback.value
    assert "±0<" not in widget.feedback.value and "±0 " not in widget.feedback.value


def test_decimal_comma_and_text_in_the_answer_box():
    w = Exercise("q", 1.5, 0.01)
    assert w.check("1,5") and w.check(" 1.5 ") and not w.check("1,6")
    assert not w.check("1.000,5") and "decimal separator" in w.feedback.value
    exact = Exercise("q", 2, 0)
    assert not exact.check("3") and "exact" in exact.feedback.value


def test_show_refuses_an_unknown_exercise():
    with pytest.raises(ParameterError, match="number"):
        show("p4", 99)


def _erlang_b_textbook(c: int, a: float) -> float:
    """B(c, a) by the textbook recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1."""
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def test_answers_against_the_papers_formulas_worked_by_hand():
    """Oracles written from the papers' models, not from the exercise code."""
    # P1: rho = 80/200 + 10/(100/3) = 0.7; the q = 1/2 chain's Light count rho_L / (1 - rho)
    assert answer("p1", 1) == pytest.approx(0.4 / 0.3, rel=1e-9)
    # P1 FIFO M/G/1 (Pollaczek-Khinchine) on the two-class mixture, in ms:
    # E[S^2] = (80 * 2/200^2 + 10 * 2 * 0.03^2) / 90, W = 90 E[S^2] / (2 * 0.3), + 1/200 s
    es2 = (80 * 2 / 200**2 + 10 * 2 * 0.03**2) / 90
    assert answer("p1", 3) == pytest.approx(1e3 * (90 * es2 / (2 * 0.3) + 1 / 200), rel=1e-9)
    # P3 without cooperation: class 1 alone is an Erlang loss system B(20, 34)
    assert answer("p3", 2) == pytest.approx(_erlang_b_textbook(20, 34.0), rel=1e-9)
    # P4 eq. 1: c = N/m = 8 groups, load lambda E[T_job(3)] = 2 (3 + 1/(3 * 0.2)) = 9.33
    assert answer("p4", 1) == pytest.approx(_erlang_b_textbook(8, 2.0 * (3 + 1 / 0.6)), rel=1e-9)
    # P5 eq. 11: min' = min_th * t_avg = 5 * 0.083 s
    assert answer("p5", 4) == pytest.approx(5 * 0.083, rel=1e-9)


@pytest.mark.parametrize("paper_id", TEACHING)
def test_no_view_before_an_exercise_shows_its_answer(paper_id):
    """Build every view a notebook shows before an exercise, at its defaults, and search its
    title, status line and every text its figure draws for the exercise's answer."""
    import importlib

    from exercise_leaks import exercise_cells, found, numeric_answers, view_cells, view_texts

    nb = json.loads(registered(paper_id).notebook_path.read_text())
    views = importlib.import_module(f"{registered(paper_id).package}.views").VIEWS
    posed = exercise_cells(nb["cells"], paper_id)
    answers = numeric_answers(paper_id)
    shown: dict[int, list] = {}
    for index, name in view_cells(nb["cells"]):
        if not any(index < posed[n] for n in answers):
            continue
        view = views[name]()
        view.wait(120)
        refiner = getattr(view, "refiner", None)
        if refiner is not None:
            refiner.stop()  # the first look is what Run All shows
        shown[index] = [(f"view {name!r}", t) for t in view_texts(view)]
    problems = []
    for number, value in answers.items():
        before = [t for i, texts in shown.items() if i < posed[number] for t in texts]
        problems += [f"exercise {number}'s answer {s} in {c}" for s, c in found(value, before)]
    assert not problems, f"{paper_id}: " + "; ".join(problems)


def test_leak_finder_finds_a_planted_answer():
    """The search the notebook and view checks rely on finds an answer where it is shown."""
    from exercise_leaks import found, spellings

    assert {"0.75", "0,75"} <= spellings(0.7499999999999999)
    assert found(0.7499999999999999, [("title", "ρ = 0.60: E n = 0.75, E n' = 0.45")])
    assert not found(0.7499999999999999, [("title", "ρ = 0.60: E n = 0.751 and 10.75")])
    assert not spellings(2.0) and not spellings(0.4)  # one digit: no evidence
    assert not spellings(12.0) and "12.59" in spellings(12.585995248759259)
    assert "0.22" not in spellings(0.2243918988554832) and "0.224" in spellings(0.22439)
    assert "0.45" in spellings(0.45)
