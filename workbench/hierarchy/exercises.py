"""The notebook's exercises (posed with ``workbench.exercises.show("p5", n)``).

Every answer is computed from the package's model when the exercise is shown (the speeds,
bandwidth and data size are the parameter table's defaults), never typed as a literal.
"""

from __future__ import annotations

from workbench.erlang import pollaczek_khinchine
from workbench.exercises import Question
from workbench.hierarchy.model import red_thresholds, size_moments, static_route
from workbench.hierarchy.params import PARAMS
from workbench.hierarchy.topology import P5Params

__all__ = ["EXERCISES"]

_F_B = PARAMS["compute_bottom"].default
_F_C = PARAMS["compute_top"].default
_T = PARAMS["period"].default
_SERVERS = tuple(str(s) for s in range(7))

# exercise 1: pure local at one bottom server with spread (Poisson) arrivals
_PK_LAM, _PK_SIZE = 3.0, 7.0  # not λ = 2: the calibration table shows that answer
# exercise 2: pure cloud at a load beyond the paper's grid
_CLOUD_LAM, _CLOUD_SIZE = 12.0, 9.0
# exercise 4: eq. 11 at the paper's (min_th, max_th) and a short mean execution time
_MIN_TH, _MAX_TH, _T_EXE = 5.0, 20.0, 0.083  # not 0.07: a claim note shows that answer


def _pure_local_time() -> float:
    m1, m2 = size_moments(_PK_SIZE, 1.0)
    return pollaczek_khinchine(_PK_LAM / _T, m1 / _F_B, m2 / _F_B**2)


def _pure_local_solution(answer: float) -> str:
    m1, m2 = size_moments(_PK_SIZE, 1.0)
    es, es2 = m1 / _F_B, m2 / _F_B**2
    rho = _PK_LAM / _T * es
    return (
        f"S = D/F_b: E[S] = {es:.4f} s, E[S²] = {es2:.6f} s², ρ = λE[S] = {rho:.3f}. "
        f"Pollaczek–Khinchine: E[T] = E[S] + λE[S²]/(2(1 − ρ)) = {answer:.4f} s: queueing adds "
        f"only {answer / es - 1:.0%} to the execution at this light load."
    )


def _centre_load() -> float:
    m1, _ = size_moments(_CLOUD_SIZE, 1.0)
    return 4 * _CLOUD_LAM / _T * m1 / _F_C


def _cloud_answer() -> str:
    return "yes" if _centre_load() < 1.0 else "no"


def _cloud_solution(answer: str) -> str:
    m1, _ = size_moments(_CLOUD_SIZE, 1.0)
    work = 4 * _CLOUD_LAM / _T * m1
    verdict = (
        "the queue grows without bound (no steady state)"
        if answer == "no"
        else "the centre keeps up"
    )
    return (
        f"The centre receives 4 × {_CLOUD_LAM:g} tasks/s of mean size {m1:.2f} work units: "
        f"{work:.0f} work units/s against F_c = {_F_C:g}, ρ = {_centre_load():.2f}: {verdict}."
    )


def _route_from_3() -> str:
    return str(int(static_route(P5Params())[3]))


def _route_solution(answer: str) -> str:
    return (
        f"Server {answer}. Each hop up is faster (F = {_F_B:g} → "
        f"{PARAMS['compute_middle'].default:g} → {_F_C:g}) and moving B = βD over "
        f"{PARAMS['bandwidth'].default:g} Mbit/s is short, so the blind rule (eq. 8) offloads at "
        "every hop: it sends every task to the centre, as the paper's Fig. 6 shows, whatever "
        "queues there."
    )


def _lower_threshold() -> float:
    return red_thresholds(_MIN_TH, _MAX_TH, _T_EXE)[0]


def _threshold_solution(answer: float) -> str:
    return (
        f"min' = min(1, t̄)·min_th = min(1, {_T_EXE:g})·{_MIN_TH:g} = {answer:.3g} s: "
        f"the expected time of {_MIN_TH:g} average tasks. A bottom queue must hold that much "
        "expected work before RED forwards anything up."
    )


EXERCISES = (
    Question(
        key="pure_local_pk",
        text=(
            f"Pure local, λ = {_PK_LAM:g} tasks/s per bottom server, μ = {_PK_SIZE:g} work "
            f"units, F_b = {_F_B:g} work units/s, spread arrivals (each bottom server is then "
            "an M/G/1 queue): predict the mean completion time [s]."
        ),
        answer=_pure_local_time,
        tolerance=0.002,
        hint="The service time is S = D/F_b; find E[S], E[S²] and ρ = λE[S], then use "
        "Pollaczek–Khinchine.",
        solution=_pure_local_solution,
    ),
    Question(
        key="pure_cloud_capacity",
        text=(
            f"Pure cloud at λ = {_CLOUD_LAM:g}, μ = {_CLOUD_SIZE:g}: can the centre "
            f"(F_c = {_F_C:g} work units/s) carry the load of the four bottom servers?"
        ),
        answer=_cloud_answer,
        choices=("yes", "no"),
        hint="Add up the work per second that reaches the centre and compare it with F_c.",
        solution=_cloud_solution,
    ),
    Question(
        key="blind_rule_route",
        text=(
            "Original rule (eq. 8, blind to queues), at the table's speeds and data sizes: at "
            "which server does a task generated at server 3 run?"
        ),
        answer=_route_from_3,
        choices=_SERVERS,
        hint="Compare D/F_i with B/W + D/F_j at each hop; with B = βD both sides scale with D.",
        solution=_route_solution,
    ),
    Question(
        key="red_lower_threshold",
        text=(
            f"Eq. 11 with min_th = {_MIN_TH:g}, max_th = {_MAX_TH:g} and a mean execution "
            f"time of the queued tasks t̄ = {_T_EXE:g} s: what is the scaled lower threshold "
            "min' [s]?"
        ),
        answer=_lower_threshold,
        tolerance=0.01,
        hint="Eq. 11 scales the lower threshold by min(1, t̄).",
        solution=_threshold_solution,
    ),
)
