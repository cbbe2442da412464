"""P5 — an edge hierarchy that offloads both ways, with random early detection.

The model in words
------------------
Servers form the network's own hierarchy: bottom edge servers (where users' tasks appear)
connect through middle servers to one central server, the strongest. Each server has one
FIFO queue and one worker of speed F; a task I = {B, D} needs D units of work and carries B
Mbit of input, which a link of bandwidth W moves in B/W. Every server decides for itself,
online, whether to run a task or push it one hop up:

- the *original overhead rule* (eqs. 3-9) compares the overhead of running here,
  γ_t D/F_i + γ_e κ F_i² D, with that of offloading, γ_t (B/W + D/F_j) + γ_e P B/W, and
  offloads when the latter is strictly lower;
- *enhancement 1* (eq. 10) lets the sender see the receiver's queue: the offload time
  becomes B/W + (D + ΣD_j)/F_j;
- *enhancement 2* puts a random early detection (RED) filter at each server's entrance:
  an arriving task is forwarded up before it joins the queue with RED's probability,
  computed from a moving average of the *expected time to finish the queue* (not its
  length), with the thresholds scaled by the mean execution time queued (eq. 11);
- the *advanced model* uses both: RED at the entrance, the queue-aware overhead rule at the
  head of the queue.

Pure local (every task runs where it appears) and pure cloud (every task goes straight to
the centre) are the baselines; "without enhancement 1/2" remove one enhancement.

What the paper states
---------------------
Yin, Chen, Hu, "An advanced decision model enabling two-way initiative offloading in edge
computing", Future Generation Computer Systems 90 (2019) 39-48: a symmetric 3-tier tree of
7 servers (0 centre; 1, 2 middle; 3-6 bottom, generating tasks), 100 Mbps links,
γ_t : γ_e = available compute : 1, Poisson(λ) tasks per period per bottom server, sizes
Normal(μ, 1); sweeps μ = 1..9 at λ = 8 and λ = 2..10 at μ = 7; RED thresholds (5, 20) and
(5, 40). Claims: the advanced model is best everywhere; RED's queue jumping gains > 20 %;
without enhancement 1 is worse than pure cloud; pure local is worst; skewed load (1:2:3:4)
and five Barabási–Albert topologies change results by < 10 %; the two RED threshold pairs
differ by 0.2 % overall.

What was not recovered, the readings, and how the defaults were chosen
----------------------------------------------------------------------
The server speeds (the paper's Fig. 3), the period length, the input sizes B, RED's w_q and
max_p, the transmit power and the length of a decision are not in the available text; in
several places the text admits more than one model. Each such place is a parameter whose
row in ``PARAMS`` carries ``plausible`` (the range or the readings a careful reader would
accept) and ``why`` (the reason, quoting the paper's Chinese text); ``READINGS`` is a view of
those rows, and :data:`~workbench.hierarchy.claims.ATLAS` evaluates the paper's claims over
that space (``workbench.atlas.atlas("p5")``):

- ``decision_time`` τ_d: deciding occupies the single worker (Sec. 4.2) but no length is
  given: 1 ms, one tenth of the shortest mean execution on the grid (a "lightweight"
  decision);
- ``offload_busy``: the same sentence counts handling an offload as worker time: the worker
  is busy for the transfer B/W of each task it sends up (RED's forwards at the entrance
  never use the worker);
- ``in_decision``: a task under decision counts at the next hop in full (RED's "worst case"),
  as zero (eq. 10 speaks of queued requests), or as the decision time left;
- ``arrivals``: the generator "periodically pushes" each period's Poisson(λ) tasks: at the
  start of the period (``batch``) or spread over it (a Poisson process);
- ``eq11_unit``: eq. 11's min(1, t̄) depends on the unit of t̄ (s, ms or periods);
- ``w_q`` 0.125 (the average's memory is one period's push at λ = 8) and ``max_p`` 0.5 (the
  middle of 0.1..1): the paper says it changed both from the packet values, not to what.

The speeds and the arrival reading are calibrated (:mod:`~workbench.hierarchy.calibration`)
against what the paper DESCRIBES, never against the comparative claims: the advanced model's
mean time linear in μ and in λ (Sec. 5.2.1), eq. 12's queue length flat in μ and growing with
λ (Fig. 8), and pure cloud and pure local carrying every grid point. With speeds 1 : 2 : 4 by
tier and T = 1 s, the least compute meeting every target is 100 / 200 / 400 work units/s
with batch arrivals (spread arrivals fail Fig. 8 at every speed tried). B = 0.1 Mbit per work
unit (the blind rule then sends every task to the centre, as the paper's Fig. 6 says), P =
0.5 W, links are pure delays. Sizes are truncated at 0 by redrawing. Eq. 12 is garbled; the
workbench's reading is in :func:`~workbench.hierarchy.model.eq12_queue_estimate`. In a
Barabási–Albert graph the hierarchy is the BFS tree from the highest-degree node, the
graphs are the first five seeds giving different shapes, and the total generation rate is
held at 4λ.

Output analysis: every run goes through :mod:`workbench.output_analysis` (the detector on the
per-task completion times in arrival order). ``simulate`` refuses, with ``overload="raise"``,
a model whose load bound is >= 1 (exact for the static models; it counts decisions and
hand-overs) and a run whose measured server load reaches 1 or which the detector flags;
``overload="transient"`` returns the finite-run numbers flagged ``stationary=False``.

Keywords: ``lam`` is λ, tasks per period per bottom server; the paper's μ, the mean task
size in work units, is the keyword ``task_size`` (not a service rate: a task of size D runs
D / F_i seconds at server i; the figures' CSV columns keep the paper's symbol, ``mu``); the
run length is ``periods``. The parameters are one validated object, :class:`P5Params`
(a field per row of ``PARAMS``): :func:`simulate` and the other public functions take it
or its keywords, every argument of :func:`simulate` keyword-only.

One step beyond: ``down_offload=True`` lets the centre send an arriving task *down* to the
child that would finish it first (the paper's future work, the real two-way offloading).
"""

from workbench.erlang import pollaczek_khinchine
from workbench.hierarchy.calibration import calibrate, calibration_table
from workbench.hierarchy.model import (
    P5Params,
    decide,
    eq12_queue_estimate,
    local_overhead,
    offload_overhead,
    red_thresholds,
    shannon_rate,
    size_moments,
)
from workbench.hierarchy.params import MODELS, PAPER_MODELS, PARAMS, READINGS, TOPOLOGIES
from workbench.hierarchy.simulation import run_models, simulate, simulate_to_precision
from workbench.hierarchy.topology import (
    Topology,
    barabasi_albert,
    from_parents,
    skewed_tree,
    symmetric_tree,
)

__all__ = [
    "P5Params",
    "simulate",
    "simulate_to_precision",
    "run_models",
    "calibrate",
    "calibration_table",
    "READINGS",
    "PARAMS",
    "MODELS",
    "PAPER_MODELS",
    "TOPOLOGIES",
    "Topology",
    "symmetric_tree",
    "skewed_tree",
    "barabasi_albert",
    "from_parents",
    "shannon_rate",
    "local_overhead",
    "offload_overhead",
    "decide",
    "red_thresholds",
    "eq12_queue_estimate",
    "size_moments",
    "pollaczek_khinchine",
]
