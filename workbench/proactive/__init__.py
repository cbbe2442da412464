"""P2 — proactive edge computing with latency and reliability guarantees.

Elbamby, Bennis, Saad, Latva-aho, Hong, "Proactive edge computing in fog networks with
latency and reliability guarantees", EURASIP Journal on Wireless Communications and
Networking 2018:209.

The model
---------
E cloudlets (edge servers with a CPU of c_e cycles/s and room for s_e computed results)
and U user nodes are spread uniformly over an area. Users generate computing tasks as
Poisson processes; a task is one of A types, the type drawn from the user's Zipf
popularity profile (three profiles, assigned to users at random); its input is L bits,
exponential with mean L̄, and needs κ cycles per bit. One third of the types are
*cacheable*: their result can be reused by anyone who asks for the same type.

A task offloaded to cloudlet e waits in e's queue, is uploaded at the Shannon rate of
eq. 2 (interference from every other transmitting user at e), is computed (κL/c_e) and
returned after the cloudlet latency τ_EP (eq. 4). If e already holds the result it costs
only τ_EP. Reliability, Pr(D ≥ D_th) ≤ ε, is replaced through Markov's inequality by
E[D] ≤ D_th ε, and with estimated rates r̄ (eq. 10, a running mean) by the per-request
margin Φ ≥ 0 (eqs. 9, 15).

The proposed scheme works on two time scales.

- Training (slow): users attach to their strongest cloudlet and their task counts are
  recorded; users are clustered by spectral clustering of θ S_d + (1 − θ) S_p (Gaussian
  distance and cosine popularity similarity, eqs. 11-13); each cluster's cacheable tasks
  are ordered by popularity (ξ_i) and each cloudlet adopts the order of the cluster whose
  members it served most.
- Operation (every slot): a cloudlet caches the results it computes until full, then a
  more popular result (by its ξ) replaces the least popular; users and cloudlets are
  matched one-to-one by deferred acceptance, users ranking cloudlets by their own delay
  (eq. 14), cloudlets ranking users by Φ (eq. 15); a matched request with Φ < 0 is
  matched again to a vacant cloudlet (a hedged request, at most X_max cloudlets) and the
  task is uploaded to whichever cloudlet frees first.

Baselines: BL1 hedging with per-cloudlet LRU caching; BL2 hedging without caching; BL3
neither, both sides ranking by link quality, one cloudlet per request.

What the paper states and what was recovered
--------------------------------------------
The system model, eqs. 1-16, the algorithms in words and the baselines are stated. Its
simulation results are stated in words: at E = 30, U/E = 3, s_e = 10 the proposed scheme
cuts the 90th / 99th percentile delay by 40% / 57% against BL2 (Fig. 3); up to 50% / 65%
in average / 99th percentile delay across network densities (Fig. 4, and the abstract);
growing s_e from 2 to 4 cuts the average / 99th percentile by about 20% / 30% (Fig. 5);
delays fall with the cacheable ratio (Fig. 6) and with the Zipf exponent, while the hit
rate grows (Fig. 7). The table of simulation parameters is lost: the values below are
the workbench's choices. Eq. 5 (the hedged delay) is lost; it is read as the minimum
over the copies, which the text describes.

The workbench's choices
-----------------------
- [choice] Defaults: 100 m × 100 m, E = 30, U = 90, B = 10 MHz, P_u = 20 dBm, noise
  −174 dBm/Hz with a 9 dB noise figure, path loss 140.7 + 36.7 log10(d/km) dB, Rayleigh
  block fading, c_e = 10^10 cycles/s, κ = 100 cycles/bit,
  L̄ = 1 Mbit, λ_u = 1 task/s, A = 100, z = 0.8, τ_EP = 5 ms, D_th ε = 50 ms, X_max = 2,
  θ = 0.5, σ_d = 20 m, ν(t) = 1/t, a 5 ms slot, a 100 s training period.
- [choice] Time is slotted (δ = 5 ms): a request waits for the next slot boundary, each
  cloudlet accepts at most one new request per slot (one-to-one matching), uploads start
  at slot boundaries and finish at their exact time; a cloudlet uploads one task at a
  time (its queue is what eq. 15 sums), then computes in FIFO order.
- [choice] A user uploads one task at a time; a cloudlet whose head copy belongs to a
  user busy elsewhere waits.
- A hedged request is queued at every matched cloudlet; when one copy starts uploading
  the others are withdrawn (the paper: "the UN will upload the task data to the cloudlet
  that frees its queue first ... and discard the request to the other one"), so hedging
  costs queue places, not duplicated uploads. [choice] Copies that could start in the same
  slot (equal waiting time) go to the one with the user's least own delay (eq. 14).
- Readings of the text, each a declared parameter with its quote (defaults follow the text):
  ``hedge_check=True`` hedges a request with Φ < 0 only to vacant cloudlets where its own
  Φ ≥ 0 ("UN can be matched to an additional cloudlet such that the reliability constraint
  is satisfied", Sec. 2); ``cache_aware=True`` lets users rank by eq. 4's D_ea, which is
  τ_EP where the result is cached (eq. 14). ``cache_aware=False`` reads Sec. 3.3's "UNs
  consider the transmission and computing delay of their own task data" as blind to the
  caches. A hit needs the result at a cloudlet the request is matched to (x_ea y_ea in
  eq. 4). [choice] A cloudlet's cache sees a request when it serves it (hit, or upload
  start); a new entry becomes usable once the result is computed.
- [calibrated] Coverage at path loss ≤ 84 dB (28.5 m): the paper's threshold is lost, and
  Sec. 4.2 says sparse networks leave users without "enough available cloudlets"; at the
  sparsest density of Fig. 4 (E = 10) a user then has X_max = 2 cloudlets in range on
  average (:func:`coverage_calibration`); 110 dB (146 m) would cover every user from
  every cloudlet.
- [choice] Caches start empty (Sec. 3.2); statistics count tasks arriving after the
  warm-up, the fraction ``warmup`` of the ``slots`` simulated (1/6 of 24,000 slots =
  4000 slots = 20 s = 30 tasks per user, the time the empty caches' hit rate takes to settle;
  :func:`~workbench.proactive.simulation.run_length` turns slots into the fraction).
- [choice] The rate estimate r̄_ue is the running mean (ν(t) = 1/t) of the rate user u
  would have had at e in each slot (its fading, the interference there); r̄(0) is the
  interference-free rate, forgotten after one slot.
- [choice] Fading draws come from a 2^14-point quantile table of Exp(1) picked by a
  xorshift64* generator (cheap, reproducible).
- [choice] BL1's "local popularity" is what LRU at each cloudlet sees; BL3 ranks by r̄.
- [choice] k is chosen by the eigengap of the normalised Laplacian in [2, U/2]
  (:func:`workbench.clustering.cluster_users`).

Output analysis
---------------
Every :func:`simulate` run goes through :mod:`workbench.output_analysis`: the per-task
delays in arrival order (the warm-up slots' tasks as the fixed warm-up) are tested for a
trend; ``overload="raise"`` (default) refuses a non-stationary run, ``"transient"``
returns it flagged. The matching, hedging and interference admit no closed stability
bound; the busiest user's own upload load is a necessary one (its transmitter alone),
checked first.
:func:`simulate_to_precision` adds replications until the mean delay's interval is narrow
enough.

Layout
------
params (PARAMS, P2Params), model (eqs. 4, 9/15, 10, 14, scenario, training, M/M/1 check, coverage
calibration), kernels (the jitted slot loop), runs (draw_tasks, run_scenario: one
replication), simulation (simulate, simulate_to_precision), figures (FIGURES,
readings_table), claims (CLAIMS), views (the notebook's sliders; imported only by the
notebook), exercises (EXERCISES).

Keyword names follow the workbench's shared vocabulary: the scheme under study is
``policy`` (one of ``POLICIES``: "proposed", "BL1", "BL2", "BL3"), the per-user arrival
rate λ_u is ``lam`` [tasks/s], the run length is ``slots`` and the warm-up ``warmup`` (a
fraction of the run). Every public function takes the parameter object :class:`P2Params`
or its keywords (``simulate`` and ``simulate_to_precision`` keywords only), validated once
at that door.
"""

from workbench.proactive.model import (
    Scenario,
    Training,
    cacheable_mass,
    coverage_calibration,
    ewma_rates,
    interference_free_rate,
    interference_free_rates,
    isolated_cloudlet_delay,
    make_scenario,
    rank_cloudlets,
    reliability_margin,
    task_delay,
    train,
    zipf_popularity,
)
from workbench.proactive.params import PARAMS, POLICIES, P2Params
from workbench.proactive.runs import draw_tasks, run_scenario
from workbench.proactive.simulation import run_length, simulate, simulate_to_precision

__all__ = [
    "PARAMS",
    "POLICIES",
    "P2Params",
    "Scenario",
    "Training",
    "cacheable_mass",
    "coverage_calibration",
    "draw_tasks",
    "ewma_rates",
    "interference_free_rate",
    "interference_free_rates",
    "isolated_cloudlet_delay",
    "make_scenario",
    "rank_cloudlets",
    "reliability_margin",
    "run_length",
    "run_scenario",
    "simulate",
    "simulate_to_precision",
    "task_delay",
    "train",
    "zipf_popularity",
]
