"""P1 classroom exercises: predict, then check (posed in the notebook by ``show("p1", n)``).

Every answer is computed from the package when the exercise is shown: the one-node
exercises from the closed forms of the (n, n') chain of a node busier than the One fog
node view's default (λ = 80/s Light requests, not its 60/s), the last one from a short
simulation of the default scenario. No answer is typed anywhere.

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, Sec. IV-G (the chain, W̄, P_j), eq. 6 (the fog
term of the delay), Sec. III-B (θ and e_M).
"""

from __future__ import annotations

import math

from workbench.exercises import Question
from workbench.fog.acceptance import accept_probability, ps_closed_form
from workbench.fog.chain import mean_work
from workbench.fog.params import PARAMS
from workbench.fog.scenario import default_scenario
from workbench.fog.simulation import run_once

__all__ = ["EXERCISES", "NODE"]

NODE = {k: PARAMS[k].default for k in ("lam_light", "lam_heavy", "mu_light", "mu_heavy")}
NODE["lam_light"] = 80.0  # busier than the view's default (60/s), whose title shows E n
"""The one fog node of exercises 1–3: the table's defaults (10/s, 200/s, 100/3 per s) with
λ = 80/s Light requests, not the One fog node view's default 60/s (the view's title and
its "empty node" line would show the answers before the exercises)."""

FORWARDS_REQUESTS = 2_000
"""Requests of the short run behind exercise 4 (a few milliseconds)."""


def _loads():
    r1 = NODE["lam_light"] / NODE["mu_light"]
    r2 = NODE["lam_heavy"] / NODE["mu_heavy"]
    return r1, r2, r1 + r2


def mean_light_in_node() -> float:
    """E n of the node at q = 0.5 (closed form ρ₁/(1 − ρ))."""
    return ps_closed_form(math.inf, **NODE)["mean_light"]


def accept_near_zero_theta() -> float:
    """P_j = P(W < θ) at θ = 1 ns: the probability of an empty node."""
    return accept_probability(1e-9, **NODE)


def light_time_in_node_ms() -> float:
    """A Light request's mean time in the node under FIFO without offloading [ms]: W̄ + 1/μ."""
    return 1e3 * (mean_work(**NODE) + 1.0 / NODE["mu_light"])


def forwards_at_zero_theta() -> float:
    """Mean fog-to-fog forwards of a request sent to the fog, θ = 0 and e_M = 2 (simulated)."""
    run = run_once(default_scenario(0), theta=0.0, e_max=2, requests=FORWARDS_REQUESTS)
    fog = run.records[run.records["route"] == "fog"]
    return float(fog["hops"].mean())


def _node_text() -> str:
    lam, lam2, mu, mu2 = (NODE[k] for k in ("lam_light", "lam_heavy", "mu_light", "mu_heavy"))
    return (
        f"A fog node receives λ = {lam:g}/s Light requests (μ = {mu:g}/s) and λ' = {lam2:g}/s "
        f"Heavy requests (μ' = {mu2:.4g}/s, a mean of {1e3 / mu2:g} ms), q = 0.5 (the "
        "<i>One fog node</i> view with its λ slider moved to 80/s)."
    )


def _solution_mean_light(a) -> str:
    r1, r2, rho = _loads()
    return (
        f"ρ₁ = λ/μ = {r1:.3g}, ρ₂ = λ'/μ' = {r2:.3g}, ρ = {rho:.3g}; the total count is "
        f"geometric and the classes split binomially, so E n = ρ₁/(1 − ρ) = {a:.4g}. Check it "
        "with the <i>One fog node</i> view at λ = 80/s (the heatmap's title)."
    )


def _solution_accept(a) -> str:
    return (
        f"Only an empty node has W < θ for a tiny θ: P(n = n' = 0) = 1 − ρ = {a:.4g}, the "
        "dotted line in the view's right panel at λ = 80/s."
    )


def _solution_time(a) -> str:
    r1, r2, rho = _loads()
    wbar = 1e3 * mean_work(**NODE)
    own = 1e3 / NODE["mu_light"]
    return (
        f"The FIFO wait is the work found, W̄ = (ρ₁/μ + ρ₂/μ')/(1 − ρ) = {wbar:.4g} ms; plus "
        f"its own processing 1/μ = {own:.4g} ms gives {a:.4g} ms. Eq. 6 charges only W̄: the "
        "missing own processing time."
    )


def _solution_forwards(a) -> str:
    return (
        f"{a:g}: no fog node accepts (W < 0 never holds), so every request is forwarded e_M = 2 "
        "times and then sent to the cloud, pure extra delay. Compare "
        "<code>analyze(default_scenario(0), theta=0, e_max=2)</code> with <code>e_max=0</code>."
    )


EXERCISES = (
    Question(
        key="mean_light",
        text=_node_text() + " Predict the mean number of <b>Light</b> requests in the node, E n.",
        answer=mean_light_in_node,
        tolerance=0.01,
        hint="ρ₁ = λ/μ, ρ = ρ₁ + ρ₂, and the total count is geometric as in M/M/1.",
        solution=_solution_mean_light,
    ),
    Question(
        key="accept_small_theta",
        text="The same node. As θ → 0⁺, what does P_j = P(W < θ) tend to?",
        answer=accept_near_zero_theta,
        tolerance=0.005,
        hint="Only an empty node has W < θ for a tiny θ. What is P(empty)?",
        solution=_solution_accept,
    ),
    Question(
        key="light_time_fifo",
        text="The same node, no offloading (θ = ∞), FIFO. Predict the mean time a <b>Light</b> "
        "request spends in the node, in ms (its wait plus its own processing).",
        answer=light_time_in_node_ms,
        tolerance=0.5,
        hint="FIFO wait = mean work found = W̄ = (ρ₁/μ + ρ₂/μ')/(1 − ρ); then add 1/μ.",
        solution=_solution_time,
    ),
    Question(
        key="forwards_zero_theta",
        text="The default scenario with θ = 0 and e_M = 2: how many fog-to-fog forwards does a "
        "request sent to the fog take, on average, before it reaches the cloud?",
        answer=forwards_at_zero_theta,
        tolerance=0.01,
        hint="W ≥ 0 is never below θ = 0: does any fog node accept?",
        solution=_solution_forwards,
    ),
)
