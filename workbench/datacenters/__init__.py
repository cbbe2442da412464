"""P3 — offloading between two cooperating data centers (and a ring of J centers).

Fricker, Guillemin, Robert, Thompson, "Analysis of an offloading scheme for data centers in
the framework of fog computing", ACM TOMPECS 1(4), 2016 (arXiv 1507.05746).

The model
---------
Two data centers i = 1, 2 serve their own customers. Center i has C_i identical servers,
requests arrive as a Poisson process of rate λ_i and hold a server for an exponential time
of rate μ_i; there is no waiting room. A request that finds all servers of its own center
busy is *forwarded* to the other center with probability p_i (and served there if a server
is free, otherwise lost), or lost at once with probability 1 − p_i. The numbers of busy
servers (ℓ1, ℓ2) form a Markov chain on {0..C1} × {0..C2}:

- (ℓ1, ℓ2) → (ℓ1 + 1, ℓ2) at rate λ1 (if ℓ1 < C1) plus p2 λ2 (if moreover ℓ2 = C2);
- (ℓ1, ℓ2) → (ℓ1 − 1, ℓ2) at rate ℓ1 μ1; and the same with the roles of 1 and 2 exchanged.

The chain has no product form. A class-i request is lost with probability

    β_i = (1 − p_i) P(ℓ_i = C_i) + p_i P(ℓ1 = C1, ℓ2 = C2).

What the paper states, and what is recovered here
-------------------------------------------------
- The chain and the loss probabilities above (its Section 2).
- The scaling limit: arrivals λ_i N, capacities C_i = c_i N, N → ∞. Condition (E),
  λ1 > c1 μ1 and λ2 + p1 (λ1 − c1 μ1) > c2 μ2 (or the mirror condition), is when both
  centers are saturated with positive probability. Outside it: (A) both underloaded,
  β = 0; (B1) center 1 overloaded and center 2 absorbing its overflow,
  β1 = (1 − p1)(1 − c1 μ1 / λ1), β2 = 0; (B2) the mirror case.
- Under (E) the numbers of *idle* servers (m, n) form a random walk in the quarter plane:
  m grows at c1 μ1 and falls at λ1 + p2 λ2 1{n = 0}; n grows at c2 μ2 and falls at
  λ2 + p1 λ1 1{m = 0}. The blocking follows from π00 = P(m = 0, n = 0) alone: the walk's
  mean drifts vanish, so
  P(m = 0) = [(λ1 − c1 μ1) + p2 (λ2 − c2 μ2) − p2 π00 (λ2 + p1 λ1)] / (λ1 (1 − p1 p2)),
  P(n = 0) symmetrically, and β1 = (1 − p1) P(m = 0) + p1 π00, β2 likewise. The
  workbench derived these drift relations itself and checks π00 against large finite
  chains.
- The paper's explicit π00 (through elliptic integrals) and its numerical section are not
  available to the workbench, and the paper's text states no numbers: every number in
  ``data/claims/p3.csv`` is the workbench's own.
- A ring of J centers, where a full center forwards to each neighbour with probability
  p_j: the paper reduces it to the two-center analysis when at most two neighbours are
  congested (its Section 2.4).

The workbench's choices
-----------------------
- [choice] Worked example: λ = (1.5, 0.8), c = μ = (1, 1), p = (0.6, 0.3) per unit N (a
  point inside (E)); it gives π00 ≈ 0.0425, β ≈ (0.162, 0.072) in the limit and
  β ≈ (0.175, 0.101) for the exact chain at N = 200.
- [choice] The exact chain is solved by GMRES preconditioned with alternating-direction
  sweeps on a window of the grid outside which, by comparison with Erlang systems, the
  mass is below 1e-40; the residual ‖πQ‖₁ over the whole grid is reported.
- [choice] π00 comes from the walk solved as a quasi-birth-death process (exact in one
  coordinate, truncated in the other with the truncation error reported), not from a
  closed formula.
- [choice] Rates are bounded to [1e-6, 1e6], capacities per unit N to [1e-3, 1e3],
  servers to 5000 per center.
- [choice] The simulation runs the jump chain with conditional (expected) holding times;
  intervals are Student-t over independent replications.
- Beyond the paper: the forwarding probabilities minimising the loss and the max–min fair
  ones (:func:`workbench.datacenters.studies.optimal_forwarding`), and how slowly the exact
  values approach the limit
  (:func:`workbench.datacenters.studies.convergence_table`).

Layout
------
params (PARAMS, and P3Params, the parameter object every public function of the model, the
simulation and the studies takes, or its keywords; Ring, a ring's centers checked), exact
(the finite chain), limit (the scaling limit and its regimes), ring (the ring's pairwise
reduction), model (the three gathered), kernels (the walk's QBD and the simulators; the
generic grid-chain and QBD solvers are in :mod:`workbench.kernels.markov`), simulation
(simulate, simulate_to_precision, simulate_ring, warm_up), exercises (EXERCISES).
Not imported with the package, because they import matplotlib or the sweep engine: studies
(convergence_table, optimal_forwarding, cooperation_study, regime_study), figures (FIGURES),
diagram (draw_model), claims (CLAIMS, ATLAS), views (the notebook's sliders).

Arrival rates are ``lam`` (absolute, requests per second at a center) everywhere except in
the scaling limit, whose functions take ``load`` = λ/N, the arrival rate per unit of the
scale N.
"""

from workbench.datacenters.model import (
    ExactSolution,
    LimitSolution,
    UncertifiedSolutionError,
    blocking_exact,
    blocking_limit,
    limit_analysis,
    regime,
    ring_limit,
    solve_exact,
    station_table,
)
from workbench.datacenters.params import EXAMPLE, PARAMS, P3Params
from workbench.datacenters.simulation import (
    ring_table,
    simulate,
    simulate_ring,
    simulate_to_precision,
    warm_up,
)

__all__ = [
    "PARAMS",
    "P3Params",
    "EXAMPLE",
    "blocking_exact",
    "solve_exact",
    "ExactSolution",
    "station_table",
    "regime",
    "blocking_limit",
    "limit_analysis",
    "LimitSolution",
    "ring_limit",
    "UncertifiedSolutionError",
    "warm_up",
    "simulate",
    "simulate_to_precision",
    "simulate_ring",
    "ring_table",
]
