"""The exercises of the P3 notebook (``show("p3", n)``), answers computed from the model.

Every answer is a callable evaluated when the exercise is shown: the exact chain
(:func:`workbench.datacenters.exact.solve_exact`), Erlang's formula, the scaling limit
(:func:`workbench.datacenters.limit.limit_analysis`). No answer is typed anywhere, neither
here nor in the notebook; the questions and hints do not contain them.
"""

from __future__ import annotations

from workbench.datacenters.exact import solve_exact
from workbench.datacenters.limit import limit_analysis
from workbench.datacenters.params import DEFAULTS, EXAMPLE, example_at
from workbench.erlang import erlang_b
from workbench.exercises import Question

__all__ = ["EXERCISES"]

# the centers of the first three exercises: C = (20, 20), mu = (1, 1), lambda = (34, 14), not
# the notebook's worked example (30, 16), whose tables and figures would show the answers
_CENTERS = DEFAULTS.trusted(lam=(34.0, 14.0), servers=(20, 20), mu=(1.0, 1.0))


def _beta(p) -> tuple:
    """The exact blocking (beta1, beta2) of the exercises' centers at forwarding ``p``."""
    return solve_exact(_CENTERS.trusted(p=p)).beta


def _pooled_beta1() -> float:
    return _beta((1.0, 1.0))[0]


def _isolated_beta1() -> float:
    return _beta((0.0, 0.0))[0]


def _class2_direction() -> str:
    return "up" if _beta((1.0, 0.3))[1] > _beta((0.0, 0.3))[1] else "down"


def _limit_lost_fraction() -> float:
    b1, b2 = limit_analysis(DEFAULTS).beta
    l1, l2 = EXAMPLE["lam"]
    return (l1 * b1 + l2 * b2) / (l1 + l2)


_N_FAR = 1000  # the size the last exercise extrapolates to (the notebook's table stops at 500)


def _scaled_error_far() -> float:
    exact = solve_exact(example_at(_N_FAR)).beta[0]
    return _N_FAR * (exact - limit_analysis(DEFAULTS).beta[0])


def _direction_solution(answer: str) -> str:
    low, high = _beta((0.0, 0.3))[1], _beta((1.0, 0.3))[1]
    return (
        f"{answer.capitalize()}: β₂ goes from {low:.3f} (p₁ = 0) to {high:.3f} (p₁ = 1). Class "
        "1's overflow fills center 2, so class 2 pays for class 1's gain."
    )


EXERCISES = (
    Question(
        key="pooling",
        text="Two centers of C = 20 servers each, μ = 1, λ = (34, 14), full forwarding "
        "p = (1, 1). Predict β₁, the fraction of class-1 requests lost.",
        answer=_pooled_beta1,
        tolerance=0.02,
        hint="With p = (1, 1) and equal μ, a request is lost only when all 40 servers are "
        "busy: one Erlang loss system.",
        solution=lambda a: (
            f"One Erlang loss system of 40 servers offered 48 Erlang: B(40, 48) = "
            f"{erlang_b(40, 48.0):.3f}, and the exact chain gives β₁ = β₂ = {a:.3f} (pooling)."
        ),
    ),
    Question(
        key="no_cooperation",
        text="The same centers without cooperation, p = (0, 0). Predict β₁.",
        answer=_isolated_beta1,
        tolerance=0.02,
        hint="Each center is its own Erlang loss system: center 1 has 20 servers and is "
        "offered 34 Erlang.",
        solution=lambda a: (
            f"B(20, 34) = {a:.3f}: pooling (the previous exercise, {_pooled_beta1():.3f}) "
            f"cuts class 1's loss by {1 - _pooled_beta1() / a:.0%}."
        ),
    ),
    Question(
        key="who_pays",
        text="Same centers, p₂ = 0.3. Raise p₁ from 0 to 1: does class 2's loss β₂ go up or down?",
        answer=_class2_direction,
        choices=("up", "down"),
        hint="Where do class-1 requests go when center 1 is full?",
        solution=_direction_solution,
    ),
    Question(
        key="limit_loss",
        text="In the limit N → ∞ with λ/N = (1.5, 0.8), c = μ = (1, 1), p = (0.6, 0.3) "
        "(condition (E)): which fraction of all requests is lost?",
        answer=_limit_lost_fraction,
        tolerance=0.005,
        hint="Under (E) both centers are saturated: every server is busy in the limit. How "
        "many requests per unit N do the servers serve?",
        solution=lambda a: (
            f"Served: c₁μ₁ + c₂μ₂ = 2 of λ₁ + λ₂ = 2.3 per unit N, so (2.3 − 2)/2.3 = {a:.3f} "
            "is lost, whatever p is inside (E)."
        ),
    ),
    Question(
        key="slow_convergence",
        text=f"Section 5: at N = {_N_FAR}, predict N·(β₁(N) − β₁(∞)), the distance to the "
        "limit scaled by N.",
        answer=_scaled_error_far,
        tolerance=0.75,
        hint="If the error were O(1/N) this product would stay at its value for N = 10. "
        "Extrapolate how it grows in the table of section 5.",
        solution=lambda a: (
            f"{a:.2f}: it keeps growing, roughly like log N, so even with a million states the "
            f"exact β₁ is {a / _N_FAR:.4f} above the limit."
        ),
    ),
)
