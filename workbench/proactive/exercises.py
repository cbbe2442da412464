"""The P2 notebook's prediction exercises: the question, a hint, and the answer computed
from the model when the exercise is shown (``show("p2", n)`` poses exercise n).

Each answer calls the package's own functions (eq. 4's :func:`task_delay`, eq. 15's
:func:`reliability_margin`, the scenario's cacheable types, the M/M/1 upload queue), so a
change of the model changes the answer with it; no answer is typed as a literal.
"""

from __future__ import annotations

from workbench.exercises import Question
from workbench.proactive.model import (
    cacheable_mass,
    isolated_cloudlet_delay,
    make_scenario,
    reliability_margin,
    task_delay,
)

__all__ = ["EXERCISES"]

# Exercise 1-2: one request (the numbers the question states)
BITS, LINK, CPU, KAPPA, WAIT, TAU_EP, BUDGET = 2e6, 40e6, 1e10, 100.0, 0.010, 0.005, 0.05
# Exercise 4: the cloudlets in one user's range (calibrated coverage, E = 30) and s_e
IN_RANGE, SMALL_STORE = 6, 2
# Exercise 5: one user alone at one cloudlet
LONE_RATE, LONE_BITS, LONE_LAM = 20e6, 1e6, 10.0


def _delay_ms() -> float:
    return 1e3 * task_delay(BITS, LINK, CPU, KAPPA, WAIT, TAU_EP)


def _hedged() -> str:
    phi = reliability_margin(BITS, LINK, CPU, KAPPA, WAIT, TAU_EP, BUDGET)
    return "yes" if phi < 0 else "no"


EX3_RATIO = 0.4  # not the default third: the claims table's notes quote 0.33 cacheable


def _expected_cacheable_share() -> float:
    """The expected cacheable mass over networks: each type is cacheable with probability
    |A_c|/A, so by linearity the expectation is |A_c|/A whatever the popularity law."""
    return float(make_scenario(seed=0, cacheable_ratio=EX3_RATIO).cacheable.mean())


def _places_in_range() -> int:
    return IN_RANGE * SMALL_STORE


def _upload_sojourn_ms() -> float:
    """M/M/1 sojourn of the upload queue alone: the isolated-cloudlet delay minus its
    computing time and τ_EP (κ = 0, τ_EP = 0 leave only the queue)."""
    return 1e3 * isolated_cloudlet_delay(
        lam=LONE_LAM, link_rate=LONE_RATE, mean_bits=LONE_BITS, cpu=CPU, kappa=0.0, tau_ep=0.0
    )


def _solution_1(a: float) -> str:
    up, cpu = 1e3 * BITS / LINK, 1e3 * KAPPA * BITS / CPU
    return (
        f"Upload L/r = {up:.0f} ms, computing κL/c_e = {cpu:.0f} ms, the queue ahead "
        f"{1e3 * WAIT:.0f} ms and τ_EP = {1e3 * TAU_EP:.0f} ms: D = {a:.0f} ms."
    )


def _solution_2(a: str) -> str:
    phi = 1e3 * reliability_margin(BITS, LINK, CPU, KAPPA, WAIT, TAU_EP, BUDGET)
    return f"Φ = D_th·ε − D = {1e3 * BUDGET:.0f} − {_delay_ms():.0f} = {phi:.0f} ms, so '{a}': " + (
        "the request is matched to a second, vacant cloudlet (a hedge)."
        if a == "yes"
        else "the request is not hedged."
    )


def _solution_3(a: float) -> str:
    one = cacheable_mass(make_scenario(seed=0, cacheable_ratio=EX3_RATIO))
    return (
        f"{a:.2f}: each of the A types is cacheable with probability |A_c|/A, so by "
        f"linearity the expected share of requests for a cacheable task is |A_c|/A = "
        f"{a:.2f}, whatever the Zipf law. One network is not the average: in the default "
        f"network (seed 0) the cacheable two fifths hold {one:.3f} of the requests "
        f"(cacheable_mass), because which types are drawn matters when a few types are "
        f"popular. No caching scheme can serve more than that share from the caches."
    )


def _solution_4(a: int) -> str:
    return (
        f"{IN_RANGE} × {SMALL_STORE} = {a} places, fewer than the 33 cacheable types: "
        f"s_e still matters (Fig. 5). Were every cloudlet to cover every user (a 146 m "
        f"radius), 30 × {SMALL_STORE} = {30 * SMALL_STORE} places would hold every "
        f"cacheable result and s_e would stop mattering."
    )


def _solution_5(a: float) -> str:
    mu = LONE_RATE / LONE_BITS
    return (
        f"μ = r / L̄ = {mu:.0f} uploads/s, so the M/M/1 sojourn is 1/(μ − λ) = "
        f"1/({mu:.0f} − {LONE_LAM:.0f}) s = {a:.0f} ms."
    )


EXERCISES = (
    Question(
        key="task_delay",
        text="A 2 Mbit task, uplink 40 Mbit/s, κ = 100 cycles/bit, c_e = 10<sup>10</sup> "
        "cycles/s, 10 ms of queue ahead, τ<sub>EP</sub> = 5 ms. What is its delay by eq. 4, "
        "in ms?",
        answer=_delay_ms,
        tolerance=1.0,
        hint="Add the upload L/r, the computing κL/c<sub>e</sub>, the wait and τ<sub>EP</sub>.",
        solution=_solution_1,
    ),
    Question(
        key="hedged",
        text="With the latency budget D<sub>th</sub>·ε = 50 ms, is that request hedged (Φ < 0)?",
        answer=_hedged,
        tolerance=0.0,
        hint="Φ = D<sub>th</sub>·ε minus the estimated delay (eq. 15).",
        solution=_solution_2,
        choices=("yes", "no"),
    ),
    Question(
        key="cacheable_share",
        text="Two fifths of the 100 task types, drawn at random for each network, are "
        "cacheable; users request types by a Zipf law (z = 0.8). Averaged over networks, what "
        "share of all requests asks for a cacheable task? (No scheme's hit rate can exceed "
        "it.)",
        answer=_expected_cacheable_share,
        tolerance=0.02,
        hint="Each type is cacheable with the same probability; the share is a sum of "
        "popularities, and an expectation of a sum is the sum of expectations.",
        solution=_solution_3,
    ),
    Question(
        key="places_in_range",
        text="Users rank cloudlets by eq. 4, so a cloudlet holding their result costs "
        "τ<sub>EP</sub> only and they fetch it from any covering cloudlet. With the calibrated "
        "coverage a user has about 6 cloudlets in range at E = 30; each stores s<sub>e</sub> "
        "= 2 results. How many distinct results can the caches within one user's range hold "
        "at most?",
        answer=_places_in_range,
        tolerance=0.0,
        hint="Each covering cloudlet adds s<sub>e</sub> places.",
        solution=_solution_4,
    ),
    Question(
        key="upload_queue",
        text="One user alone at a cloudlet: r = 20 Mbit/s, L̄ = 1 Mbit, λ<sub>u</sub> = 10 "
        "tasks/s, exponential task sizes. What is the mean time in the upload queue plus the "
        "upload (M/M/1), in ms?",
        answer=_upload_sojourn_ms,
        tolerance=2.0,
        hint="μ = r / L̄ uploads per second; the M/M/1 sojourn is 1/(μ − λ).",
        solution=_solution_5,
    ),
)
