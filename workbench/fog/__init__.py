"""P1 — fog offloading to reduce IoT service delay.

Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading", IEEE
Internet of Things Journal 5(1), 2018 (arXiv 1804.07376).

The model in words
------------------
Three layers: IoT nodes, fog nodes on an arbitrary graph, cloud servers; every link has a
propagation delay X and a rate R, and a request of size ς pays ς/R per hop. Requests are
Light or Heavy, Poisson per IoT node. An IoT node processes a request itself (p^I), sends it
to its fog node (p^F) or to the cloud (p^C). A fog node keeps W = c·z + c'·z' (requests in
the node times EWMA estimates of the processing times, z ← (1−α)z + α·new_z). An arriving
request is accepted when W < θ; otherwise it is forwarded to the neighbour with the
smallest announced W + RTT/2 while it has been forwarded fewer than e_M times, else sent to
the cloud. Neighbours announce W periodically, directly (distributed mode) or through a
Central Node (central mode), so tables can be stale. A cloud server is m_k processing units.

What the paper states (Sec. IV): the service delay of IoT node i (eq. 2)
d_i = p^I·A_i + p^F·(X^IF + Y^IF + L_ij) + p^C·(X^IC + Y^IC + H_k + X^CI + Y^CI), with the
recursion L_ij(x) of eq. 6 through best(j); a fog node is a two-class chain (n, n') with
departures Q·μ and (1−Q)·μ', Q = q·n/(q·n + (1−q)·n'), W̄ = Σ (n/μ + n'/μ')·P(n, n');
P_j = P(W < θ) with W a sum of Erlang laws; arrival rates through the δ/β flow equations
(1/deg(ĵ) routing) solved as a fixed point; the cloud units are M/G/1 queues
(Pollaczek–Khinchine). In words: offloading beats fog without offloading, all-to-cloud and
Light-only fog processing; θ can be tuned to an optimum; the model agrees with simulation.

What was recovered and what was not: the model's equations in words and structure; the
numerical section (simulator settings, topology, figures) was lost, so every number in
the workbench comes from its own scenario, and the claims table says so.

What the workbench finds (see ``data/claims/p1.csv`` and the notebook):

- the q = 0.5 chain is processor sharing (product form), not FIFO: FIFO holds 24% more
  requests in the one-node example; but W̄ (mean work) is the same for every
  work-conserving order, so W̄ is exactly the FIFO queueing wait;
- eq. 6 charges an accepted request W̄, the work it finds, and so omits its own processing
  time (48% too low for one fog node with 40 ms mean processing); ``own_processing=True``
  adds it, and the model is then exact without offloading;
- with offloading the chain ignores that admission truncates the queue, so P_j is
  pessimistic; in the default scenario the two errors largely cancel (eq. 6 within ~3–6%,
  corrected model 17–26% high);
- under overload (a fog node offered several times what it can serve) the chain's fixed
  point sits near saturation and its W̄ is far above θ, while an admitted request finds
  less than θ of work: 40 or 1,000 fog nodes with 100 IoT nodes each at 4 req/s give a
  model delay about twice the simulated one (120 against 62 ms), the whole gap being
  the fog share times W̄ minus the simulated wait;
- modelling the θ test itself (``admission="threshold"``: all offered requests meet the
  node, which admits them only in states with n/μ + n'/μ' < θ, a finite chain) and adding
  the own processing time brings the model within 2% of the simulation in every case of
  the agreement table, the overloaded layer included;
- the paper's partial-fraction route for P_j loses every digit as μ' → μ; the workbench
  uses uniformisation (a sum of positive terms), exact at μ = μ';
- q changes no delay of the model: the server is work-conserving and the work memoryless,
  so P_j and W̄ are the same for every q (closed form); q only moves the counts E n, E n';
- the paper's load-variance statement holds in the workbench's ring of ten fog nodes: with
  the same total load, fog-to-fog offloading gains about 0.3% when every node is offered
  ρ = 0.94 and about 4% when the nodes alternate between ρ = 0.29 and 1.58 (it also gains
  about 4% when every node is lightly loaded, where the paper calls it unnecessary: at
  θ = 20 ms one Heavy request in service already refuses arrivals).
- one θ per fog node (``tuning``: coordinate descent on simulated delay with common random
  numbers, re-measured on fresh seeds) buys nothing over the best uniform θ (10 ms) at
  load 1.2: it moves one quiet node of ten to 15 ms, +0.003 ms on fresh seeds (paired 95%
  CI [+0.001, +0.005]), while the chain model's per-node choices (100 ms at quiet nodes,
  2 ms at busy ones) cost +0.98 ms;
- the claim atlas (48 points of the plausible space × the two readings of eq. 6's routing
  and of H̄_k): the interior θ optimum and the load-variance statement hold everywhere;
  eq. 6's missing own processing, the q = 0.5 chain as FIFO and the overloaded layer's
  model are refuted everywhere; the model's agreement at the best θ (20 of 48 points) and
  "heavy load everywhere: no significant gain" (15 of 48; flips at θ ≈ 21 ms, above which
  offloading hurts) hinge on lost values.

The workbench's choices [choice]
--------------------------------
Default scenario (:func:`default_scenario`): 10 fog nodes on a connected random
geometric layer, 4–24 IoT nodes per fog node at 4 requests/s (75% Light), p^I = p^C = 0.1,
one cloud with 8 units. Links: IoT–fog U[1, 2] ms at 54 Mbit/s, fog–fog U[0.5, 1.2] ms at
100 Mbit/s, fog–cloud U[15, 35] ms at U[1, 10] Gbit/s. Fog processing 5 ms (Light) and
30 ms (Heavy), the cloud 20 times faster; requests 2 KB and 100 KB, responses the same
size. θ = 20 ms, e_M = 1, α = 0.5, T_a = 50 ms; the queue is FIFO at q = 0.5 (as the paper
says) and class-weighted otherwise; cloud units take requests uniformly at random (as the
model's m_k M/G/1 units assume); the first 10% of a run's requests are its warm-up
(``warmup=0.1``, a fraction of the run). Readings of
a silent text are parameters with the paper's words in their help: ``ewma_period`` (the
EWMA at every departure, the default, or "periodically") and ``cloud_sojourn`` (one H̄_k per
cloud server, H̄_k = Δ̄_k as the paper writes, the default, or per type). Every simulation
runs the shared output analysis on each request's delay (``overload="raise"`` refuses a run
that is not a steady state; a fog node keeping every request is checked with the load its
neighbours forward to it).

Modules: ``params`` (PARAMS), ``model`` (:class:`P1Params`, the parameter object every
public function of the model and the simulation takes), ``chain`` (one fog node's (n, n')
chain, W̄, counts), ``acceptance`` (P_j: Erlang sums, q = 0.5 closed forms), ``network``
(flows, the λ_j fixed point, ``analyze``), ``delays`` (cloud servers by
Pollaczek–Khinchine, eq. 6, eq. 2), ``scenario`` (graphs, files, validation), ``kernels``
(the numba event loop), ``simulation`` (simulate, with the shared output analysis: each
request's delay is tested for a steady state), ``tuning`` (θ per fog node), ``cases``
(named scenarios and the load-variance study), ``study`` (the delay studies),
``figures``, ``claims``, ``views`` (ipywidgets; not imported here). ``analyze`` returns a
``delays.NetworkAnalysis``, ``solve_chain`` a ``chain.ChainSolution``.
"""

from workbench.fog.acceptance import (
    accept_probability,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    ps_closed_form,
)
from workbench.fog.chain import mean_in_system, mean_work, solve_chain
from workbench.fog.model import P1Params
from workbench.fog.network import analyze, fog_loads
from workbench.fog.params import PARAMS
from workbench.fog.scenario import (
    ScenarioError,
    default_scenario,
    geometric_scenario,
    grid_scenario,
    load_scenario,
    ring_scenario,
    save_scenario,
    validate,
    with_fog_delay,
    with_traffic,
)
from workbench.fog.simulation import run_once, simulate, simulate_to_precision
from workbench.fog.tuning import compare_thetas, tune_theta_per_node

__all__ = [
    "P1Params",
    "PARAMS",
    "ScenarioError",
    "accept_probability",
    "analyze",
    "compare_thetas",
    "default_scenario",
    "erlang_sum_cdf",
    "erlang_sum_cdf_partial_fractions",
    "fog_loads",
    "geometric_scenario",
    "grid_scenario",
    "load_scenario",
    "mean_in_system",
    "mean_work",
    "ps_closed_form",
    "ring_scenario",
    "run_once",
    "save_scenario",
    "simulate",
    "simulate_to_precision",
    "solve_chain",
    "tune_theta_per_node",
    "validate",
    "with_fog_delay",
    "with_traffic",
]
