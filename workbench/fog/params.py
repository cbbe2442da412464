"""The parameter table of the IoT–fog–cloud offloading model (P1): every parameter once.

Times are in seconds, rates in 1/s, request sizes in bytes and link rates in bit/s. The
figures show delays in milliseconds. Ranges bound rates and times to [1e-6, 1e6]: values
outside are typos, and the bounds keep every formula finite.

References
----------
Yousefpour, Ishigaki, Gour, Jue, "On reducing IoT service delay via fog offloading",
IEEE Internet of Things Journal 5(1), 2018: Sec. III (policy: θ, e_M, α, W = c·z + c'·z'),
Sec. IV (analytic model: eq. 2, the (n, n') chain with fairness q, P_j, δ/β flows, the
Pollaczek–Khinchine cloud).
"""

from __future__ import annotations

import math
import numbers

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params
from workbench.validation import refusal

__all__ = [
    "PARAMS",
    "MODES",
    "POLICIES",
    "ADMISSION_MODELS",
    "check_count",
    "RATE_MAX",
    "MAX_CHAIN_STATES",
]

RATE_MIN, RATE_MAX = 1e-6, 1e6
# One run keeps about 20 float64/int64 values per request (random inputs and the per-request
# records): 2e7 requests are about 3 GB, the most a shared 2-core machine should hold.
MAX_REQUESTS_PER_RUN = 2 * 10**7
# The truncated (n, n') chain: beyond this many states a sparse solve takes seconds and
# hundreds of MB; closer to ρ = 1 than that allows, the chain is refused (bounded work).
MAX_CHAIN_STATES = 400_000

MODES = ("distributed", "central", "oracle")
POLICIES = ("offload", "no_offload", "all_cloud", "light_only")
NEIGHBOUR_RULES = ("best", "uniform")
ADMISSION_MODELS = ("chain", "threshold")
CLOUD_SOJOURN_READINGS = ("pooled", "per_class")

PARAMS = Params(
    Param(
        "lam_light",
        "λ",
        "Light arrival rate at a fog node",
        "1/s",
        low=0.0,
        high=RATE_MAX,
        default=60.0,
        slider=(0.0, 190.0),
        step=1.0,
        help="Poisson rate of Light requests entering the fog node's queue (Sec. IV-G).",
        source="choice",
        plausible=(40.0, 80.0),
        why="The one-fog-node claims' Light rate is the workbench's 6/s scaled by λ/60. The "
        'paper models "request type Light with rate λ_j" and gives no number (its Sec. V, the '
        "simulation settings, was lost); two thirds to four thirds of the default keep the "
        "node below ρ = 1 at the plausible μ, μ'.",
    ),
    Param(
        "lam_heavy",
        "λ'",
        "Heavy arrival rate at a fog node",
        "1/s",
        low=0.0,
        high=RATE_MAX,
        default=10.0,
        slider=(0.0, 32.0),
        step=0.5,
        help="Poisson rate of Heavy requests entering the fog node's queue (Sec. IV-G).",
        source="choice",
        plausible=(5.0, 15.0),
        why="The one-fog-node claims' Heavy rate is the workbench's 2/s scaled by λ'/10. The "
        'paper models "request type Heavy with rate λ\'_j" without a number (Sec. V was '
        "lost); half to one and a half times the default.",
    ),
    Param(
        "mu_light",
        "μ",
        "Light service rate at a fog node",
        "1/s",
        low=RATE_MIN,
        high=RATE_MAX,
        default=200.0,
        slider=(20.0, 400.0),
        step=5.0,
        help="Exponential processing of a Light request at a fog node, mean z = 1/μ (5 ms).",
        source="choice",
        plausible=(100.0, 400.0),
        why="Light processing z = 1/μ from 2.5 to 10 ms (the default 5 ms). The paper gives "
        'only an example: "requests sent by temperature sensors to fog nodes for calculating '
        'the average room temperature can be seen as light processing tasks". The atlas '
        "sets every fog node's μ (the one-node case's μ scaled by μ/200).",
    ),
    Param(
        "mu_heavy",
        "μ'",
        "Heavy service rate at a fog node",
        "1/s",
        low=RATE_MIN,
        high=RATE_MAX,
        default=100 / 3,
        slider=(5.0, 100.0),
        step=0.5,
        help="Exponential processing of a Heavy request at a fog node, mean z' = 1/μ' (30 ms).",
        source="choice",
        plausible=(15.0, 60.0),
        why="Heavy processing z' = 1/μ' from about 17 to 67 ms (the default 30 ms). The paper: "
        '"a license plate reading request in a recorded video of a vehicle, sent by a traffic '
        "camera to fog nodes is an example of a heavy processing task\". Every fog node's μ' "
        "(the one-node case's μ' scaled by μ'/(100/3)).",
    ),
    Param(
        "q",
        "q",
        "fairness",
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        default=0.5,
        slider=(0.05, 0.95),
        step=0.05,
        help="Share of the server Light requests get: Q = q·n/(q·n + (1−q)·n'); q = 0.5 "
        "treats every request alike (Sec. IV-G). q changes the mean counts E n, E n' but no "
        "delay of the model: P_j and W̄ are the same for every q (work-conserving server, "
        "memoryless service).",
        source="choice",
        plausible=(0.3, 0.7),
        why='The paper: "q∈(0,1) is the fairness parameter and its value depends on how the fog '
        'node selects jobs from its queue"; its simulations take the head of the queue, which '
        "it calls q = 0.5, so a careful reader stays near it. It weights the simulated queue's "
        "classes; the one-node claims keep 0.5 (they are about that chain).",
    ),
    Param(
        "theta",
        "θ",
        "offloading threshold",
        "s",
        low=0.0,
        high=RATE_MAX,
        default=0.02,
        slider=(0.0, 0.2),
        step=0.002,
        extra=(math.inf,),
        help="A fog node accepts a request when its estimated waiting time W < θ (Sec. III-B); "
        "θ = ∞ (pass math.inf) never offloads.",
        source="choice",
        plausible=(0.005, 0.05),
        why='The paper: "The value of θ_j could be adjusted in implementation based on the '
        "given traffic demands, to reach an optimal value that minimizes the average service "
        'delay." It states no θ. 5 to 50 ms brackets the simulated optimum (10 ms) of the '
        "default scenario; used where a claim fixes θ (overloaded layer, load variance).",
    ),
    Param(
        "e_max",
        "e_M",
        "offload limit",
        kind="int",
        low=0,
        high=50,
        default=1,
        slider=(0, 6),
        step=1,
        help="Fog-to-fog forwards a request may take before it goes to the cloud (Sec. III-B).",
        source="choice",
        plausible=(1, 3),
        why='The paper: "If the number of times the request has been offloaded (N_fwd) is less '
        "than the offload limit e_M for domain M ..., the request will be forwarded to a "
        'neighboring fog node." No value is given; 1 to 3 forwards (0 is no offloading).',
    ),
    Param(
        "alpha",
        "α",
        "EWMA weight",
        low=0.0,
        high=1.0,
        low_open=True,
        default=0.5,
        slider=(0.05, 1.0),
        step=0.05,
        help="Weight of the newest measured processing time in z ← (1−α)z + α·new_z (Sec. III-D).",
        source="choice",
        plausible=(0.1, 0.9),
        why='The paper: "a weight of α for new measured processing times and a weight of 1−α '
        'for the old measurements (current estimate)", without a value; any weight that '
        "neither ignores nor trusts only the newest measurement.",
    ),
    Param(
        "announce_period",
        "T_a",
        "announcement period",
        "s",
        low=1e-4,
        high=RATE_MAX,
        default=0.05,
        slider=(0.005, 1.0),
        step=0.005,
        help="Every T_a a fog node announces its W to its neighbours (directly or through "
        "the Central Node); the tables are stale in between.",
        source="choice",
        plausible=(0.01, 1.0),
        why='The paper: "Upon receiving an estimated waiting time sample, either from the '
        "Central Node or another fog node depending on the mode, the fog node updates the "
        'corresponding estimated waiting time in the Reachability table." It gives no '
        "period; 10 ms to 1 s (sampled log-uniformly).",
    ),
    Param(
        "mode",
        "mode",
        "announcement mode",
        kind="choice",
        choices=MODES,
        default="distributed",
        help="distributed: neighbours announce to each other; central: through a Central "
        "Node; oracle: always-fresh tables (an upper bound on what announcements achieve).",
    ),
    Param(
        "policy",
        "policy",
        "fog policy",
        kind="choice",
        choices=POLICIES,
        default="offload",
        help="offload: the paper's policy; no_offload: fog processes everything (θ = ∞); "
        "all_cloud: fog nodes relay every request to the cloud; light_only: fog processes "
        "Light requests and relays Heavy ones to the cloud.",
    ),
    Param(
        "neighbour",
        "best(j)",
        "neighbour rule of the analytic delay",
        kind="choice",
        choices=NEIGHBOUR_RULES,
        default="best",
        help="best: an offloaded request goes to the neighbour with the smallest W̄ + RTT/2 "
        "(eq. 6); uniform: to a neighbour chosen with probability 1/deg, as the flow "
        "equations assume.",
        plausible=("best", "uniform"),
        why='Two readings of the model: eq. 6 sends an offloaded request to best(j), "a fog '
        "node always selects the best neighbor with the smallest estimated waiting time plus "
        'half of the round-trip delay", while the flow equations take "The chances that fog '
        "node ĵ's best neighbor is fog node j ... is roughly 1/deg(ĵ)\".",
    ),
    Param(
        "own_processing",
        "+1/μ",
        "count the request's own processing",
        kind="bool",
        default=False,
        help="Eq. 6 charges an accepted request W̄_j, the work it finds (its queueing wait); "
        "False is the paper's model (\"the processing delay of the current task ... is "
        'already included in the calculation of W̄_j"); True adds its own mean processing '
        "time (the workbench's correction).",
    ),
    Param(
        "admission",
        "admission",
        "fog-node model of the θ test",
        kind="choice",
        choices=ADMISSION_MODELS,
        default="chain",
        help="chain: the paper's model (Poisson λ_j = P_j·v_j into the unbounded (n, n') "
        "chain, the paper's model); threshold: the node admits only while n/μ + n'/μ' < θ "
        "(a finite chain: the workbench's correction, right under overload).",
    ),
    Param(
        "cloud_sojourn",
        "H̄_k",
        "cloud sojourn reading",
        kind="choice",
        choices=CLOUD_SOJOURN_READINGS,
        default="pooled",
        help="pooled: one mean sojourn per cloud server for both types, as the paper writes "
        '"the average waiting time at a cloud server is equal to the average waiting time '
        "of one its processing units (H̄_k = Δ̄_k)\" (P-K wait + the mixture's E[S]); "
        "per_class: P-K wait + the type's own mean processing (what the simulator measures "
        "per type).",
        plausible=("pooled", "per_class"),
        why='The paper: "the average waiting time at a cloud server is equal to the average '
        'waiting time of one its processing units (H̄_k = Δ̄_k)", one H̄_k for both types '
        "(pooled); a reader may charge each type its own processing time instead (per "
        "class), the same mean over all cloud requests.",
    ),
    Param(
        "ewma_period",
        "T_z",
        "EWMA update period",
        "s",
        low=0.0,
        high=RATE_MAX,
        default=0.0,
        slider=(0.0, 1.0),
        step=0.01,
        help="0: z ← (1−α)z + α·new_z at every departure; T > 0: every T with new_z the mean "
        "processing time of the type's requests processed in the last period. The paper: "
        '"fog node j periodically measures processing times of recently processed tasks '
        '(new_z_j) and updates the estimated processing time of each task type (z_j)", '
        "without a period; the default (every departure) is the workbench's choice.",
        source="choice",
        plausible=(0.0, 0.5),
        why='The paper: "fog node j periodically measures processing times of recently '
        "processed tasks (new_z_j) and updates the estimated processing time of each task "
        'type (z_j)", without a period. 0 (every departure, the limit of a short period, the '
        "default) to half a second (ten announcement periods).",
    ),
    Param(
        "overload",
        "overload",
        "unstable runs",
        kind="choice",
        choices=("raise", "transient"),
        default="raise",
        help="raise: a run whose model load reaches ρ ≥ 1 or that the output analysis finds "
        "non-stationary raises UnstableRegimeError; transient: return the finite-horizon "
        "numbers, flagged stationary = False.",
        source="choice",
    ),
    Param(
        "load",
        "ϱ",
        "load multiplier",
        low=0.0,
        high=100.0,
        low_open=True,
        default=1.0,
        slider=(0.2, 1.6),
        step=0.05,
        help="Multiplies every IoT node's request rate.",
        source="choice",
        plausible=(0.6, 1.4),
        why='The paper speaks of load in words only: "if all fog nodes have low load, '
        "offloading is unnecessary; and if all fog nodes have heavy load, offloading will "
        "not help\" (its rates were lost with Sec. V). The default scenario's IoT rates "
        "× 0.6 to 1.4: from lightly loaded fog nodes to several overloaded ones.",
    ),
    Param(
        "light_fraction",
        "b",
        "Light share of requests",
        low=0.0,
        high=1.0,
        default=0.75,
        step=0.05,
        help="Probability that a generated request is Light (b_i of eq. 5).",
        source="choice",
        plausible=(0.5, 0.9),
        why='The paper: "We assume requests have two types: type Light (light processing) ... '
        'and type Heavy (heavy processing)", with sensor readings as Light and video '
        "analysis as Heavy examples, and no mix; a majority of Light requests, 50 to 90%.",
    ),
    Param(
        "p_iot",
        "p^I",
        "local processing probability",
        low=0.0,
        high=1.0,
        default=0.1,
        slider=(0.0, 0.9),
        step=0.05,
        help="Probability that an IoT node processes its own request (eq. 2).",
        source="choice",
        plausible=(0.0, 0.3),
        why='The paper: "We do not assume any distribution for p^I_i, p^F_i, and p^C_i, since '
        "their values will be defined by individual applications and based on QoS "
        'requirements and policies." Most requests go to the fog in its study (the policy '
        "is about the fog layer): up to 30% processed locally.",
    ),
    Param(
        "fog_delay",
        "Xᶠᶠ",
        "fog–fog link delay",
        "s",
        low=0.0,
        high=10.0,
        default=0.00085,
        slider=(0.0, 0.05),
        step=0.001,
        help="Propagation delay of every fog–fog link (the default scenario draws them in "
        "U[0.5, 1.2] ms; 0.85 ms is their mean). Offloading pays it per forward and on the "
        "way back.",
        source="choice",
        plausible=(0.0003, 0.003),
        why='The paper: "We use the tuple (X,R) for the edge weights, where X represents the '
        'propagation delay, and R the transmission rate between two nodes", with no values. '
        "Fog nodes of one domain are near each other: 0.3 to 3 ms per fog–fog link (set on "
        "every fog–fog link of the default scenario and the ring).",
    ),
    Param(
        "p_cloud",
        "p^C",
        "direct-to-cloud probability",
        low=0.0,
        high=1.0,
        default=0.1,
        slider=(0.0, 0.9),
        step=0.05,
        help="Probability that an IoT node sends its request straight to the cloud (eq. 2); "
        "p^F = 1 − p^I − p^C goes to the fog.",
        source="choice",
        plausible=(0.0, 0.3),
        why='The paper: "We do not assume any distribution for p^I_i, p^F_i, and p^C_i, since '
        "their values will be defined by individual applications and based on QoS "
        'requirements and policies." Up to 30% sent straight to the cloud.',
    ),
    Param(
        "requests",
        "n",
        "requests per replication",
        kind="int",
        low=100,
        high=MAX_REQUESTS_PER_RUN,
        default=50_000,
        slider=(1_000, 200_000),
        step=1_000,
        help="Requests generated per replication (the first `warmup` fraction is not counted).",
        source="choice",
    ),
    WARMUP,
    Param(
        "tol",
        "ε",
        "truncation tolerance",
        low=1e-15,
        high=1e-2,
        default=1e-10,
        help="Largest probability mass the truncated (n, n') chain may drop.",
        source="choice",
    ),
    SEED.with_(source="choice"),
    REPLICATIONS.with_(source="choice"),
    CONFIDENCE.with_(source="choice"),
)


def check_count(value, name, func, high=None):
    """A count (e_M, a number of phases) as a Python int: an int, never a float or a bool.

    ``2.0`` is refused: a count that arrives as a float is a typo or a computed value that
    should have been rounded on purpose.

    Parameters
    ----------
    value : int
        The count.
    name, func : str
        The parameter and the public function named in the error.
    high : int, optional
        The largest count allowed (None: no bound).

    Returns
    -------
    int
        ``value`` as a Python int, in [0, high].
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        top = "∞" if high is None else f"{high:g}"
        raise refusal(func, name, f"an int in the range [0, {top}]", value)
    param = PARAMS["e_max"].with_(name=name, high=high)
    return param.check(int(value), func)
