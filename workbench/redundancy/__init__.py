"""P4 — Redundancy management for fast service in edge computing.

Pei Peng & Emina Soljanin, "Redundancy Management for Fast Service (Rates) in Edge Computing
Systems", arXiv 2303.00486.

The model
---------
An edge site has N workers. They are split into c = ⌊N/m⌋ groups of m workers each
(N mod m workers stay idle). Jobs arrive as a Poisson process of rate λ. A job that finds a
free group is copied to all m workers of that group and is done as soon as the first copy
finishes, so its time at the edge is the minimum of m independent service times, T_job(m).
A job that finds every group busy is not queued: it goes to the cloud and takes T_cl.
Seen from the groups this is an M/G/c/c loss system, hence

    P_b      = ErlangB(c, λ E[T_job(m)])                 (eq. 4; insensitive: only the mean
                                                          of T_job matters)
    E[T_sys] = (1 − P_b) E[T_job(m)] + P_b T_cl          (eq. 1)

Replication (large m) makes each job faster but leaves fewer groups, so more jobs are
blocked; the paper asks for the m that minimises E[T_sys]. One worker's service time is
shifted exponential S-Exp(Δ, μ), E[T_job(m)] = Δ + 1/(mμ) (eq. 2), or Pareto(β, α),
E[T_job(m)] = βmα/(mα − 1) (eq. 3). The workbench adds Weibull(k, s), which the paper
leaves as future work (E[T_job(m)] in closed form, checked by quadrature).

What the paper states, and what a reproduction finds
----------------------------------------------------
- Algorithm 1 (BPO) picks the m with the least blocking (m = 1 for S-Exp, Theorem 1; m = 1
  or 2 for Pareto, Lemma 1). Algorithm 2 (ASTO) picks the m with the least E[T_sys], with
  shortcuts from Theorem 2 (S-Exp) and Lemma 2 (Pareto).
- The paper calls λ_m(c) ≈ c / E[T_job] the 'maximum stable arrival rate' and above it
  replaces eq. 1 by its eqs. 8-9 (with P_max(c) = ErlangB(c, c)). A loss system is stable at
  every load: eq. 1 with the exact Erlang-B holds for every λ, eq. 8 overstates E[T_sys]
  above λ_m, and a simulation sides with Erlang-B. Both are available: ``formula="exact"``
  (default) and ``formula="paper"`` (what ASTO uses, as printed).
- Written with factorials, eq. 4 overflows past c ≈ 170; the workbench uses the stable
  recursion B(k) = a B(k−1) / (k + a B(k−1)).
- Pareto with mα ≤ 2 has infinite variance: simulated means converge slowly and a
  t-interval under-covers; every simulation result says so in its notes.
- Lemma 2's proof uses P_b(N) where P_b(1) is meant; the ASTO shortcut for Pareto is the
  workbench's transcription (the paper prints the algorithm for S-Exp only).
- Fig. 6's caption says T_cl = 10 where the curves are for 100; Fig. 7's caption writes
  m = ⌊N/c⌋ where the text has c = ⌊N/m⌋.

The workbench's choices ([choice], the paper does not state them)
-----------------------------------------------------------------
- Fig. 3's arrival rate: λ = 3 (for Pareto(1, 1.2), m = 2 minimises P_b only above λ ≈ 1.2).
- Table I's 'small' and 'large': baseline N = 24, λ = 1.5, T_cl = 15; levels λ ∈ {0.05, 5},
  T_cl ∈ {1.5, 100}, N ∈ {4, 100}, α ∈ {1.05, 3}. An allocation is S (spread) if m* = 1,
  C (concentrate) if at most two groups remain, else B (balance).
- Simulation: runs start empty; a fraction ``warmup`` of each run is dropped (by default
  0.1, and none when a run has at most 1000 jobs, as in the paper's 500-arrival runs);
  Student-t intervals over independent replications. Every argument of ``simulate`` is
  keyword-only; the run length is ``jobs``.
- A waiting room with w FCFS places (M/G/c/c+w) and Weibull service: the paper's two
  future-work directions.

Layout
------
params (PARAMS), kernels (numba), model (analytic), simulation (simulate), studies (the
figures' frames, no drawing), figures (FIGURES: frames + plots), claims (CLAIMS, ATLAS),
exercises (EXERCISES), views (VIEWS, the only module importing ipywidgets; not imported
here).
"""

from workbench.redundancy.model import (
    P4Params,
    Pareto,
    ServiceTime,
    SExp,
    Weibull,
    asto,
    blocking,
    bpo,
    groups,
    job_time,
    lambda_max,
    make_service,
    metrics_by_m,
    optimal_m,
    optimal_m_blocking,
    optimum_vs_workers,
    policy_m,
    simulated_station_table,
    station_table,
    system_time,
)
from workbench.redundancy.params import FORMULAS, PARAMS, POLICIES
from workbench.redundancy.simulation import (
    room_fill_jobs,
    running_mean_trace,
    simulate,
    simulate_to_precision,
    warmup_jobs,
)

__all__ = [
    "PARAMS",
    "P4Params",
    "FORMULAS",
    "POLICIES",
    "ServiceTime",
    "SExp",
    "Pareto",
    "Weibull",
    "make_service",
    "groups",
    "job_time",
    "blocking",
    "lambda_max",
    "system_time",
    "metrics_by_m",
    "optimal_m",
    "optimal_m_blocking",
    "optimum_vs_workers",
    "bpo",
    "asto",
    "policy_m",
    "station_table",
    "simulate",
    "simulate_to_precision",
    "running_mean_trace",
    "simulated_station_table",
    "room_fill_jobs",
    "warmup_jobs",
]
