"""The arena notebook's classroom exercises: predictions checked within a tolerance.

``EXERCISES`` is a tuple of :class:`workbench.exercises.Question`; the notebook poses
exercise n with ``show("arena", n)``. Each answer is computed from the arena's theory
(:mod:`workbench.arena.model`) when the exercise is shown, so no value is typed anywhere.
"""

from __future__ import annotations

from workbench.arena import model
from workbench.exercises import Question

__all__ = ["EXERCISES"]

#: exercise 1: three one-server nodes, tasks of mean 1 s, 2.1 tasks/s spread at random
RANDOM_NODES, RANDOM_RATE = 3, 2.1
#: exercise 2: the same work pooled on one node of three servers
POOLED_SERVERS = 3
#: exercise 3: power of two choices at load 0.9 over very many one-server nodes
POD_RHO = 0.9
#: exercise 4: P1's threshold on one node: 6 tasks/s of mean 0.1 s, θ = 0.25 s, cloud 0.07 s
#: (the claims table, shown before it, has the answer at 8 tasks/s)
TH_LAM, TH_SIZE, TH_THETA, TH_CLOUD = 6.0, 0.1, 0.25, 0.07


EXERCISES = (
    Question(
        key="random_split",
        text=(
            f"A device spreads {RANDOM_RATE:g} tasks/s at random over {RANDOM_NODES} identical "
            "edge nodes of one server each; a task's size is exponential with mean 1 s. "
            "Predict the mean delay of a task in seconds (policy <code>random</code>)."
        ),
        answer=lambda: model.mm1_delay(RANDOM_RATE, 1.0, RANDOM_NODES),
        tolerance=0.05,
        hint="Splitting a Poisson stream at random gives each node a Poisson stream of its own.",
        solution=lambda v: (
            f"Each node is M/M/1 with λ = {RANDOM_RATE / RANDOM_NODES:g} /s and μ = 1 /s, so "
            f"E[T] = 1/(μ − λ) = {v:.3f} s."
        ),
    ),
    Question(
        key="pooling",
        text=(
            f"Now the same {RANDOM_RATE:g} tasks/s go to one node of {POOLED_SERVERS} servers "
            "(policy <code>local</code>). Predict the mean delay in seconds."
        ),
        answer=lambda: model.erlang_c_delay(POOLED_SERVERS, RANDOM_RATE, 1.0),
        tolerance=0.03,
        hint="An M/M/c queue: a task waits only when every server is busy (Erlang's C formula).",
        solution=lambda v: (
            f"Erlang C with c = {POOLED_SERVERS}, a = {RANDOM_RATE:g}: E[T] = C(c, a)/(cμ − λ) "
            f"+ 1/μ = {v:.3f} s, well below the split nodes': pooling removes the idle server "
            "next to a queue."
        ),
    ),
    Question(
        key="power_of_two",
        text=(
            f"Very many one-server nodes run at load ρ = {POD_RHO:g} (mean size 1 s). Each task "
            "samples two nodes and joins the shorter queue (<code>power_of_d</code>, d = 2). "
            "Predict its mean delay in seconds."
        ),
        answer=lambda: model.power_of_d_delay(POD_RHO, 2),
        tolerance=0.05,
        hint=(
            "In the mean-field limit the share of nodes with at least k tasks is "
            "ρ^((2^k − 1)/(2 − 1)); add them up for the mean queue and use Little's law."
        ),
        solution=lambda v: (
            f"E[Q] = Σ_k ρ^(2^k − 1) and E[T] = E[Q]/ρ = {v:.3f} s, against 1/(1 − ρ) = "
            f"{1 / (1 - POD_RHO):.1f} s when each task picks one node at random."
        ),
    ),
    Question(
        key="threshold",
        text=(
            f"P1's threshold rule on one one-server fog node: {TH_LAM:g} tasks/s of exponential "
            f"size with mean {TH_SIZE:g} s; the node keeps a task when (tasks present) × "
            f"{TH_SIZE:g} s ≤ θ = {TH_THETA:g} s, otherwise the task goes to the cloud, where it "
            f"takes {TH_CLOUD:g} s in all. Predict the mean delay in seconds."
        ),
        answer=lambda: model.threshold_delay(TH_LAM, TH_SIZE, TH_THETA, TH_CLOUD),
        tolerance=0.003,
        hint="How many tasks can the node hold? Then it is an M/M/1/K queue with an overflow.",
        solution=lambda v: (
            f"K = ⌊θ/s⌋ + 1 = {int(TH_THETA / TH_SIZE) + 1} places, ρ = {TH_LAM * TH_SIZE:g}: "
            "the M/M/1/K blocking P_K sends that share to the cloud; the kept tasks stay "
            f"E[N]/(λ(1 − P_K)). In all {v:.4f} s."
        ),
    ),
)
