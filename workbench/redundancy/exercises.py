"""The notebook's classroom exercises: predictions checked within a tolerance.

``EXERCISES`` is a tuple of :class:`workbench.exercises.Question`, in the notebook's order; the
notebook poses exercise n with ``show("p4", n)``. Every answer is a callable that computes it
from the model when the exercise is shown, so no answer is typed anywhere: the question text
states what to predict, never the value.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems": eq. (4) (Erlang-B), eq. (1), eqs. (8)-(9), Sec. VII (Pareto(1.5, 1.2)).
"""

from __future__ import annotations

from functools import partial

from workbench.exercises import Question
from workbench.redundancy import model as rd

__all__ = ["EXERCISES"]

#: the system of exercises 1-4: Fig. 4's S-Exp(3, 0.2) on N = 24 workers
SEXP = rd.SExp(3.0, 0.2)
#: exercise 2's heavy tail: Pareto with α = 1.5 whose fastest of m = 3 copies has the same
#: mean as S-Exp(3, 0.2)'s (β · 3α / (3α − 1) = E[T_job(3)])
INSENSITIVITY_ALPHA = 1.5
INSENSITIVITY_PARETO = rd.Pareto(
    SEXP.job_time_mean(3) * (3 * INSENSITIVITY_ALPHA - 1) / (3 * INSENSITIVITY_ALPHA),
    INSENSITIVITY_ALPHA,
)


#: exercises 1-2's arrival rate: not the views' and station table's default λ = 1.5 /s, where
#: the diagram view's title would show exercise 1's answer
LAM_EX1 = 2.0


def _insensitivity() -> str:
    pareto = INSENSITIVITY_PARETO
    same = abs(rd.blocking(24, 3, LAM_EX1, pareto) - rd.blocking(24, 3, LAM_EX1, SEXP)) < 1e-12
    return "it stays the same" if same else "it changes"


def _eq8_gap() -> float:
    return rd.system_time(24, 4, 6.0, 15.0, SEXP, "paper") - rd.system_time(24, 4, 6.0, 15.0, SEXP)


EXERCISES = (
    Question(
        key="erlang_b",
        text=f"N = 24 workers, m = 3 replicas, λ = {LAM_EX1:g} /s, S-Exp(Δ = 3 s, μ = 0.2 /s). "
        "Predict the blocking probability P_b (a number between 0 and 1).",
        answer=partial(rd.blocking, 24, 3, LAM_EX1, SEXP),
        tolerance=0.01,
        hint="c = ⌊24/3⌋ groups; E[T_job(3)] = Δ + 1/(3μ); the offered load is "
        "a = λ E[T_job(3)]; P_b = ErlangB(c, a) = (a^c/c!) / Σ_j a^j/j!.",
        solution=lambda a: (
            f"c = 8 groups, E[T_job(3)] = 3 + 1/0.6 = {SEXP.job_time_mean(3):.3f} s, "
            f"a = {LAM_EX1 * SEXP.job_time_mean(3):.2f} erlang, ErlangB(8, a) = {a:.4f}."
        ),
    ),
    Question(
        key="insensitivity",
        text=f"Keep N = 24, m = 3, λ = {LAM_EX1:g} /s, but replace S-Exp(3, 0.2) by a heavy-tailed "
        f"Pareto law with the same E[T_job(3)] = {SEXP.job_time_mean(3):.3f} s "
        f"(β = {INSENSITIVITY_PARETO.beta:.3f} s, α = {INSENSITIVITY_PARETO.alpha:g}). "
        "What happens to P_b?",
        answer=_insensitivity,
        hint="In a loss system (no queue), what does the Erlang-B formula depend on?",
        solution=lambda a: (
            f"Answer: {a}. Erlang-B is insensitive: P_b depends on the service law only "
            "through its mean (the offered load a = λ E[T_job]). E[T_sys] is the same too; "
            "only the spread of individual times changes. Check it in the simulation view: "
            "the same P_b for both laws."
        ),
        choices=("it rises", "it falls", "it stays the same", "it changes"),
    ),
    Question(
        key="stability",
        text="N = 24, m = 4, S-Exp(3, 0.2), T_cl = 15 s. The paper calls "
        f"λ_m = {rd.lambda_max(24, 4, SEXP):.2f} /s the 'maximum stable arrival rate'. "
        "At λ = 6 /s, four times λ_m, predict E[T_sys] in seconds.",
        answer=partial(rd.system_time, 24, 4, 6.0, 15.0, SEXP),
        tolerance=0.3,
        hint="Does a loss system (no waiting room) have a queue that can grow? A blocked job "
        "takes T_cl; use eq. 1 with the exact Erlang-B at a = λ E[T_job(4)].",
        solution=lambda a: (
            "A loss system is stable at every load: E[T_sys] = (1 − P_b) E[T_job] + "
            f"P_b T_cl = {a:.3f} s, below T_cl. Nothing blows up: more jobs simply go to the "
            "cloud."
        ),
    ),
    Question(
        key="eq8",
        text="Same system at λ = 6 /s. The paper's eq. 8 instead serves only λ_m (1 − P_max) "
        "jobs per second at the edge. By how many seconds does eq. 8 overstate E[T_sys]?",
        answer=_eq8_gap,
        tolerance=0.05,
        hint="Compute rd.system_time(24, 4, 6.0, 15.0, svc, 'paper') − rd.system_time(...); "
        "or read it off the 'eq. 8 vs Erlang-B' figure at λ = 6.",
        solution=lambda a: (
            f"Eq. 8 gives {a:.3f} s more. It treats λ_m as a capacity, but the edge still "
            "serves λ(1 − P_b) jobs per second with P_b from Erlang-B; the simulation agrees "
            "with Erlang-B, not with eq. 8."
        ),
    ),
    Question(
        key="optimal_m",
        text="N = 24, λ = 1.5 /s, T_cl = 15 s, Pareto(β = 1.5 s, α = 1.2). "
        "Which m minimises E[T_sys]? (an integer)",
        answer=partial(rd.optimal_m, 24, 1.5, 15.0, rd.Pareto(1.5, 1.2)),
        hint="With α = 1.2 one copy has infinite variance: a second copy cuts the straggler "
        "tail a lot (the min of m copies is Pareto(β, mα)). Blocking grows slowly at this "
        "load.",
        solution=lambda a: (
            f"m* = {a}. Replication pays for heavy tails; the trade-off view shows the whole curve."
        ),
    ),
)
