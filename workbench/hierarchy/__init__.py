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

What was not recovered, and the workbench's choices ([choice])
--------------------------------------------------------------
The server speeds (the paper's Fig. 3), the period length, the input sizes B, RED's w_q and
max_p, the transmit power and the length of a decision are not in the available text.
[choice] speeds 20 / 40 / 100 work units/s (bottom / middle / centre), period 1 s, τ_d = 5
ms, w_q = 0.002 and max_p = 0.1 (Floyd & Jacobson's values), B = 0.1 Mbit per work unit, P =
0.5 W, links are pure delays (no contention). B only has to respect the paper's Fig. 6 (the
blind rule sends every task to the centre), which with these speeds holds for B < 1.48 Mbit
per work unit. B is not neutral: on the quick grid with τ_d = 5 ms, RED's gain is 64 % at B
= 10⁻⁶, 36 % at 0.1, 22 % at 0.2, 16 % at 0.3 and 6 % at 1 Mbit per work unit, so the "> 20
%" verdict holds for B up to about 0.2 Mbit per work unit (seed 2019); the other grid
verdicts are the same from 10⁻⁶ to 1 Mbit per work unit. B = 0 is degenerate: a task
forwarded in zero time is already "in decision" at the next hop, where the queue-aware rule
counts it in full, so the next sender sees a phantom load and keeps work on a slow bottom
server. P enters with weight γ_e = 1/(F + 1): it moves the queue-aware threshold by about
0.1 % (near the capacity limit even that can move a point). Sizes are truncated at 0 by
redrawing non-positive draws. Arrivals within a period are at uniform times (so each bottom
server sees a Poisson process; a batch at the start of each period is the other reading of
the paper's periodic generator). Eq. 12 is garbled; the workbench's reading is in
:func:`~workbench.hierarchy.model.eq12_queue_estimate`. In a Barabási–Albert graph the
hierarchy is the BFS tree from the highest-degree node, and the total generation rate is
held at 4λ. The five seeded graphs give only three distinct hierarchies (BA-1 = BA-4, BA-2 =
BA-3).

The decision time τ_d [choice]. A server has one worker, and while it is "making a
decision, executing a computation or handling an offloaded request" other requests wait in
its queue (Sec. 4.2); the paper puts the loss of "without enhancement 1" to pure cloud on
this "decision overhead" (Sec. 5.2.2). So each overhead decision at the head of a queue
occupies the worker for τ_d; the paper gives no length (no number and no ratio in Secs. 4-5,
and its overheads, eqs. 5-10, have no decision term). Default 5 ms. In the workbench the
paper's "> 20 % gain from RED's queue jumping" needs τ_d of about 3 ms or more (a queue of
pending decisions forms at the bottom servers and RED lets tasks skip it), and "without
enhancement 1 worse than pure cloud" needs any τ_d > 0; but τ_d also costs the advanced
model two decisions per task at light load, where pure cloud decides nothing and then wins.
τ_d = 0 ("decisions are free", the slider's left end) reverses these verdicts: the claims
table shows both.

With these speeds the whole hierarchy carries 260 work units/s, while the paper's grid asks
for up to 4·10·9 = 360: pure local (ρ = λμ/20 at each bottom server), pure cloud and the
original rule (everything at the centre) are overloaded over most of the grid. ``simulate``
refuses an overloaded model unless ``overload="transient"``; the figures then show the
finite-run transient, marked.

One step beyond: ``down_offload=True`` lets the centre send an arriving task *down* to the
child that would finish it first (the paper's future work, the real two-way offloading).
"""

from workbench.hierarchy.calibration import calibrate, calibration_table
from workbench.hierarchy.model import (
    decide,
    eq12_queue_estimate,
    local_overhead,
    offload_overhead,
    pollaczek_khinchine,
    red_thresholds,
    shannon_rate,
    size_moments,
)
from workbench.hierarchy.params import MODELS, PAPER_MODELS, PARAMS, READINGS, TOPOLOGIES
from workbench.hierarchy.simulation import run_models, run_once, simulate, simulate_to_precision
from workbench.hierarchy.topology import (
    Topology,
    barabasi_albert,
    from_parents,
    skewed_tree,
    symmetric_tree,
)

__all__ = [
    "simulate",
    "simulate_to_precision",
    "run_once",
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
