"""The parameters of the proactive edge-computing model, declared once.

:data:`PARAMS` is the table; :class:`P2Params`, built from it, is the paper's parameter
object. Every public function of :mod:`workbench.proactive` takes the object or its keywords
(:func:`workbench.params.takes`), validated once at that door; the functions it calls trust
the object. The notebook's controls are built from the same rows.

The paper's table of default parameters did not survive; every default marked
``source="choice"`` is the workbench's own value, chosen to be physically plausible for a
dense small-cell deployment (see the package docstring). ``source="paper"`` marks values
the paper states in its figure captions or its text.
"""

from __future__ import annotations

from workbench.params import (
    CONFIDENCE,
    REPLICATIONS,
    SEED,
    Param,
    Params,
    ParamsModel,
)
from workbench.validation import ParameterError, check_budget

__all__ = ["PARAMS", "POLICIES", "P2Params"]

POLICIES = ("proposed", "BL1", "BL2", "BL3")
"""The schemes the paper compares (the keyword is ``policy``, the shared name)."""
POLICY_CODES = {name: code for code, name in enumerate(POLICIES)}
MAX_TASKS = 5_000_000  # tasks per replication: bounds the memory of one run (~40 B each)
MAX_QUEUE = 4096  # copies waiting at one cloudlet; more means the offered load is unstable
MAX_WORK = 5e9
"""Run-time bound: slots × users × cloudlets over all replications of one call (about a
minute of the slot loop on one core)."""

PARAMS = Params(
    Param(
        "policy",
        "scheme",
        "task distribution and caching scheme",
        kind="choice",
        choices=POLICIES,
        default="proposed",
        help="proposed: clustered popularity caching + Φ matching + hedging; BL1: hedging + "
        "local LRU caching; BL2: hedging, no caching; BL3: no caching, no hedging, link "
        "quality ranking.",
    ),
    Param(
        "n_cloudlets",
        "E",
        "cloudlets",
        kind="int",
        low=1,
        high=300,
        default=30,
        slider=(5, 60),
        step=1,
        help="Number of edge servers, uniform in the square area (E = 30 in the paper's "
        "Figs. 3, 5-7).",
    ),
    Param(
        "n_users",
        "U",
        "user nodes",
        kind="int",
        low=1,
        high=900,
        default=90,
        slider=(5, 180),
        step=1,
        help="Number of user nodes (UNs), uniform in the area (U/E = 3 in the paper).",
    ),
    Param(
        "area",
        "a",
        "side of the square area",
        "m",
        low=1.0,
        high=10_000.0,
        default=100.0,
        slider=(20.0, 400.0),
        step=10.0,
        source="choice",
        help="Cloudlets and users are uniform in an a × a square.",
        plausible=(50.0, 200.0),
        why=(
            'The area is lost; the paper places cloudlets and users "uniformly distributed over the'
            ' network area" and expects "dense deployments of servers and low density of UNs per '
            'server". 50-200 m squares keep E = 30 a dense small-cell deployment (0.75 to 12 '
            "cloudlets per hectare)."
        ),
    ),
    Param(
        "bandwidth",
        "B",
        "bandwidth",
        "Hz",
        low=1e3,
        high=1e9,
        default=10e6,
        slider=(1e6, 40e6),
        step=1e6,
        source="choice",
        help="Shared uplink band; every transmitting user interferes at every cloudlet.",
        plausible=(5e6, 20e6),
        why=(
            'Lost: "Cloudlets share the same frequency band with bandwidth B". 5-20 MHz are the '
            "usual small-cell carriers."
        ),
    ),
    Param(
        "power_dbm",
        "P_u",
        "user transmit power",
        "dBm",
        low=-30.0,
        high=40.0,
        default=20.0,
        slider=(0.0, 30.0),
        step=1.0,
        source="choice",
        help="Transmit power of every user node.",
        plausible=(10.0, 23.0),
        why=(
            "Lost: the transmit power P_u of eq. 2 is not in the recovered text; 10-23 dBm "
            "spans IoT devices to a handset's maximum uplink power."
        ),
    ),
    Param(
        "noise_dbm_hz",
        "N_0",
        "noise power density",
        "dBm/Hz",
        low=-200.0,
        high=-100.0,
        default=-174.0,
        slider=(-180.0, -150.0),
        step=1.0,
        source="choice",
        help="Thermal noise density; a 9 dB receiver noise figure is added.",
    ),
    Param(
        "noise_figure_db",
        "NF",
        "receiver noise figure",
        "dB",
        low=0.0,
        high=30.0,
        default=9.0,
        slider=(0.0, 15.0),
        step=1.0,
        source="choice",
        help="Added to the thermal noise over the band.",
        plausible=(5.0, 10.0),
        why=(
            'Lost: "σ² being the noise variance"; receiver noise figures of small cells are 5-10 '
            "dB."
        ),
    ),
    Param(
        "coverage_db",
        "PL_max",
        "coverage path-loss threshold",
        "dB",
        low=30.0,
        high=200.0,
        default=84.0,
        slider=(75.0, 115.0),
        step=1.0,
        source="choice",
        help="A cloudlet covers a user when the path loss 140.7 + 36.7 log10(d/km) is at most "
        "this (the paper: 'coverage is decided based on a threshold path loss value'; value "
        "lost). Calibrated (coverage_calibration): 84 dB, a 28.5 m radius, gives a user X_max = "
        "2 cloudlets on average at the sparsest density E = 10 (41% have fewer), as Sec. 4.2 "
        "describes: 'At low network density conditions, there are not enough available "
        "cloudlets for each UN'. 110 dB (146 m) covers every user from every cloudlet.",
        plausible=(80.0, 110.0),
        why=(
            'Lost: "coverage is decided based on a threshold path loss value". The low end leaves '
            'users at E = 10 with fewer than two cloudlets in range, as Sec. 4.2 says: "At low '
            'network density conditions, there are not enough available cloudlets for each UN"; 110'
            " dB (146 m) covers every user from every cloudlet (the earlier reading)."
        ),
    ),
    Param(
        "fading",
        "fading",
        "Rayleigh block fading",
        kind="bool",
        default=True,
        source="paper",
        help="The paper: 'the channel h_ue includes path loss and block fading'; True redraws "
        "iid Exp(1) power fading (Rayleigh, the workbench's choice of law) on every link every "
        "slot (False: path loss only, for checks).",
    ),
    Param(
        "cpu",
        "c_e",
        "cloudlet CPU speed",
        "cycles/s",
        low=1e6,
        high=1e13,
        default=1e10,
        slider=(1e9, 5e10),
        step=1e9,
        source="choice",
        help="Computing capability of each cloudlet.",
        plausible=(5e9, 2e10),
        why=(
            'Lost: "Each cloudlet has a CPU computing capability of c_e cycles/s". 5-20 Gcycles/s '
            "is a few server cores."
        ),
    ),
    Param(
        "kappa",
        "κ",
        "processing density",
        "cycles/bit",
        low=0.0,
        high=1e5,
        default=100.0,
        slider=(0.0, 1000.0),
        step=10.0,
        source="choice",
        help="CPU cycles needed per bit of task data.",
        plausible=(50.0, 200.0),
        why=(
            'Lost: "processing density of κ cycles per bit of task data". 50-200 cycles/bit keeps '
            "the computing time κL̄/c_e (2.5-40 ms) below the latency budget."
        ),
    ),
    Param(
        "mean_bits",
        "L̄",
        "mean task data size",
        "bit",
        low=1.0,
        high=1e9,
        default=1e6,
        slider=(1e5, 4e6),
        step=1e5,
        source="choice",
        help="Task data sizes are exponential with this mean.",
        plausible=(5e5, 2e6),
        why=(
            'Lost: "Tasks have a task data size L_a that is drawn from an exponential distribution '
            'of mean L̄_a". 0.5-2 Mbit keeps every scheme stationary at λ_u ≤ 2 tasks/s.'
        ),
    ),
    Param(
        "lam",
        "λ_u",
        "task arrival rate per user",
        "1/s",
        low=0.0,
        high=1e4,
        low_open=True,
        default=1.5,
        slider=(0.1, 3.0),
        step=0.1,
        source="choice",
        help="Load per user: 'UNs have computing tasks that arrive following a Poisson process "
        "with mean λ_u' (value lost). 1.5 tasks/s is calibrated to what the paper describes, "
        "not to its gains (workbench.proactive.calibration): queues that matter ('the large "
        "delay values due to long queues in the cloudlet's side') and BL2's delay rising with "
        "density, then easing ('BL2 suffers from increased delay due to having higher "
        "interference in denser networks [...] This effect is slightly alleviated as the "
        "number of cloudlets further increases'). 1 task/s keeps each uplink about 5 % busy.",
        plausible=(0.5, 2.0),
        why=(
            'Lost: "UNs have computing tasks that arrive following a Poisson process with mean '
            'λ_u". Up to 2 tasks/s every scheme runs stationary at the defaults (flagged from 2.5 '
            "on); the paper reports steady delays."
        ),
    ),
    Param(
        "n_tasks",
        "A",
        "task types",
        kind="int",
        low=1,
        high=100_000,
        default=100,
        slider=(10, 500),
        step=10,
        source="choice",
        help="Number of distinct computing tasks users may request.",
        plausible=(50, 200),
        why=(
            "Lost: the number of task types is not in the recovered text, which only says "
            '"cloudlets proactively cache the pre-computed results of the most popular '
            'cacheable computing tasks". 50-200 types keep a third cacheable well above s_e.'
        ),
    ),
    Param(
        "zipf",
        "z",
        "Zipf exponent",
        low=0.0,
        high=5.0,
        default=0.8,
        slider=(0.0, 2.0),
        step=0.1,
        source="choice",
        help="The i-th most popular task of a profile is requested ∝ 1/i^z.",
        plausible=(0.5, 1.2),
        why=(
            'Lost at Figs. 3-6: "Popularity is assumed to vary among tasks following a Zipf-like '
            'popularity model with parameter z"; Fig. 7 varies it. 0.5-1.2 are the usual request-'
            "popularity exponents."
        ),
    ),
    Param(
        "n_profiles",
        "n_prof",
        "popularity profiles",
        kind="int",
        low=1,
        high=100,
        default=3,
        slider=(1, 10),
        step=1,
        help="Distinct Zipf popularity orders, assigned to users at random (three in the paper).",
    ),
    Param(
        "cacheable_ratio",
        "|A_c|/A",
        "cacheable ratio",
        low=0.0,
        high=1.0,
        default=1.0 / 3.0,
        slider=(0.0, 1.0),
        step=0.05,
        help="Fraction of task types (chosen uniformly) whose results may be cached "
        "(one third in the paper).",
    ),
    Param(
        "storage",
        "s_e",
        "cloudlet storage",
        "results",
        kind="int",
        low=0,
        high=10_000,
        default=10,
        slider=(0, 40),
        step=1,
        help="Computing results each cloudlet can cache (10 in the paper's Figs. 3, 6, 7).",
    ),
    Param(
        "tau_ep",
        "τ_EP",
        "cloudlet latency",
        "s",
        low=0.0,
        high=10.0,
        default=0.005,
        slider=(0.0, 0.05),
        step=0.001,
        source="choice",
        help="Cloudlet processing plus result downlink latency; all a cached task costs.",
        plausible=(0.001, 0.01),
        why=(
            'Lost: "τ_EP is the cloudlet latency which accounts for the downlink transmission of '
            'computed data and the cloudlet processing latency". 1-10 ms.'
        ),
    ),
    Param(
        "budget",
        "D_th·ε",
        "latency budget",
        "s",
        low=0.0,
        high=100.0,
        low_open=True,
        default=0.05,
        slider=(0.005, 0.3),
        step=0.005,
        source="choice",
        help="Right-hand side of the Markov linearisation E[D] ≤ D_th·ε (eq. 9): a request "
        "with Φ < 0 at its cloudlet is hedged.",
        plausible=(0.02, 0.1),
        why=(
            'Lost: the reliability target Pr(D ≥ D_th) ≤ ε has no recovered values; "UNs whose '
            'requests exceed a delay threshold use the notion of hedged-requests". 20-100 ms '
            "(D_th·ε) is the low-latency range the paper aims at."
        ),
    ),
    Param(
        "cache_aware",
        "y_ea known",
        "users rank by eq. 4 knowing the caches",
        kind="bool",
        default=True,
        source="paper",
        help="True (the default, eq. 14 read literally): users rank cloudlets by eq. 4's delay "
        "D_ea, which is τ_EP where the result is cached: 'e ≻_u e′ ⇔ D_ea(t) < D_e′a(t)'. "
        "False (the other reading of Sec. 3.3: 'UNs consider the transmission and computing "
        "delay of their own task data in calculating their preference profiles'): users "
        "ignore the caches and hit only when the matched cloudlet holds the result.",
        plausible=(True, False),
        why=(
            'Two readings of the text. Eq. 14: "e ≻_u e′ ⇔ D_ea(t) < D_e′a(t)" with eq. 4\'s '
            "D_ea = "
            'τ_EP where the result is cached (True); Sec. 3.3: "UNs consider the transmission and '
            'computing delay of their own task data in calculating their preference profiles" '
            "(False: users blind to the caches)."
        ),
    ),
    Param(
        "cache_start",
        "caches at t = 0",
        "how the proposed scheme's caches start",
        kind="choice",
        choices=("empty", "popular"),
        default="empty",
        source="choice",
        help="empty (the default): as the network operation begins in the paper, 'The cache "
        "storage "
        "of each cloudlet is assumed to be empty at the beginning of the network operation. "
        "[...] Once a cloudlet's storage is full, a new arriving request that is more popular "
        "than the least popular task currently in the cache will replace it.' Under that "
        "rule a cache only ever trades a result for a more popular one, so it ends holding "
        "the s_e most popular results it has seen; the tail types reach a cloudlet slowly "
        "(hit rate 0.16 after 500 slots against 0.25-0.28 in steady state at the defaults), "
        "so every run warms up 30 tasks per user, after which the hit rate is within 0.01 of "
        "a run ten times longer (tests/test_transients.py). popular: every cache starts full "
        "of its s_e most popular cacheable results by its preferred cluster's order ξ, "
        "computed; an absorbing state of the rule that an empty start does not reach (users "
        "who know the caches never upload a result cached in range, so caches diversify). "
        "BL1's LRU caches always start empty.",
    ),
    Param(
        "hedge_upload",
        "hedged upload",
        "which matched cloudlet a hedged request uploads to",
        kind="choice",
        choices=("first_free", "least_wait"),
        default="first_free",
        source="choice",
        help="first_free (the default): the request queues at every matched cloudlet and "
        "the copy that starts first is uploaded, the others withdrawn. least_wait: it is "
        "uploaded to the matched cloudlet with the smallest estimated waiting time w_ea "
        "(eq. 15's queue term) and queued there only.",
        plausible=("first_free", "least_wait"),
        why=(
            'Two readings of Sec. 2: "The UN will upload the task data to the cloudlet that '
            "frees its queue first, i.e., the one with the smallest waiting time w_ea, and "
            'discard the request to the other one": the queue that actually frees first '
            "(first_free) or the smallest waiting time the UN can know when it is matched, the "
            "estimate w_ea (least_wait)."
        ),
    ),
    Param(
        "hedge_check",
        "Φ ≥ 0 at hedge",
        "an extra cloudlet must meet eq. 9",
        kind="bool",
        default=True,
        source="paper",
        help="True (the default, Sec. 2): a request with Φ < 0 is hedged only to vacant "
        "cloudlets where its own Φ ≥ 0: 'if the constraint in (9) is not met for one cloudlet, "
        "UN can be matched to an additional cloudlet such that the reliability constraint is "
        "satisfied'. False: to any vacant covered cloudlet (the workbench's earlier reading).",
        plausible=(True, False),
        why=(
            'Two readings of the text. Sec. 2: "if the constraint in (9) is not met for one '
            "cloudlet, UN can be matched to an additional cloudlet such that the reliability "
            'constraint is satisfied" (True: the hedge must meet eq. 9); Sec. 3.3 only says a '
            "request with Φ < 0 is matched again to a vacant cloudlet (False)."
        ),
    ),
    Param(
        "x_max",
        "X_max",
        "cloudlets per request",
        kind="int",
        low=1,
        high=10,
        default=2,
        slider=(1, 4),
        step=1,
        source="choice",
        help="Most cloudlets one request may be queued at (first match plus hedges).",
        plausible=(2, 3),
        why=(
            'Lost: "UNs leverage hedged requests to offload the task to multiple cloudlet if the '
            'estimated delay time exceeds a certain threshold". Two or three cloudlets per request '
            "(one hedge or two)."
        ),
    ),
    Param(
        "theta",
        "θ",
        "distance weight of the similarity",
        low=0.0,
        high=1.0,
        default=0.5,
        slider=(0.0, 1.0),
        step=0.05,
        source="choice",
        help="S = θ S_d + (1 − θ) S_p (eq. 13).",
        plausible=(0.2, 0.8),
        why=(
            'Lost: "θ is a parameter that prioritizes the impact of distance and task popularity". '
            "0.2-0.8 keeps both similarities in the blend."
        ),
    ),
    Param(
        "sigma_d",
        "σ_d",
        "distance similarity width",
        "m",
        low=1e-3,
        high=1e5,
        default=20.0,
        slider=(5.0, 100.0),
        step=5.0,
        source="choice",
        help="Neighbourhood size of the Gaussian distance similarity (eq. 11).",
        plausible=(10.0, 50.0),
        why=(
            'Lost: "σ_d is a similarity parameter to control the neighborhood size". 10-50 m: a '
            "neighbourhood of a few cloudlets in a 100 m area."
        ),
    ),
    Param(
        "training_time",
        "T_train",
        "training period",
        "s",
        low=0.0,
        high=1e5,
        default=100.0,
        slider=(0.0, 500.0),
        step=10.0,
        source="choice",
        help="Length of the training phase whose request counts drive the clustering.",
        plausible=(50.0, 300.0),
        why=(
            "Lost: \"a given UN's interests are likely to remain unchanged for a number of time "
            'instants N_t (≫1)". 50-300 s of requests (50-300 per user at λ_u = 1).'
        ),
    ),
    Param(
        "slot",
        "δ",
        "slot length",
        "s",
        low=1e-5,
        high=1.0,
        default=0.005,
        slider=(0.001, 0.02),
        step=0.001,
        source="choice",
        help="Matching, uploads and rate estimates advance once per slot.",
    ),
    Param(
        "warmup",
        "warm-up",
        "share of the run dropped as warm-up",
        low=0.0,
        high=0.9,
        default=1.0 / 6.0,
        slider=(0.0, 0.5),
        step=0.05,
        source="choice",
        help="Fraction of the simulated slots (from the start) whose arriving tasks are not "
        "counted: the caches start empty and fill with the first requests, the rate "
        "estimates settle. The default 1/6 of 24,000 slots is 4000 slots = 20 s = 30 tasks per "
        "user at λ_u = 1.5, after which the hit rate is within 0.01 of its long-run value "
        "(tests/test_transients.py).",
    ),
    Param(
        "slots",
        "n_slots",
        "simulated slots",
        kind="int",
        low=10,
        high=50_000_000,
        default=24_000,
        slider=(1000, 100_000),
        step=1000,
        help="Slots with arrivals per replication, warm-up included (then the system "
        "drains): 24,000 = 4000 warm-up + 20,000 measured at the defaults.",
        source="choice",
    ),
    REPLICATIONS.with_(default=5, high=1000),
    SEED,
    CONFIDENCE,
)


class _Relations(ParamsModel):
    def warmup_slots(self) -> int:
        """The slots of the warm-up: ``warmup · slots`` rounded to the nearest slot."""
        return int(round(self.warmup * self.slots))

    def check_relations(self, func: str, fields) -> None:
        """The run's bounds between fields, for a function that takes them: the run-time
        bound, the tasks and memory of one replication (a warm-up of at most 0.9 of at least
        10 slots always leaves a measured slot)."""
        fields = set(fields)
        if {"slots", "n_users", "n_cloudlets", "replications"} <= fields:
            self.check_work(func, self.replications, "replications")
        if {"lam", "n_users", "n_cloudlets", "n_tasks", "slots", "slot"} <= fields:
            horizon = self.slots * self.slot
            tasks = self.lam * self.n_users * horizon
            if tasks > MAX_TASKS:
                raise ParameterError(
                    f"The 'slots' parameter of {func} must keep the tasks of one replication "
                    f"below {MAX_TASKS:,} (λ_u · U · slots · δ, memory bound). Got about "
                    f"{tasks:,.0f} tasks instead."
                )
            # the slot kernel's (E, max_queue) queues and (U, E) matrices, the (E, A) caches
            nbytes = (
                8.0
                * (
                    self.n_cloudlets * MAX_QUEUE
                    + 6 * self.n_users * self.n_cloudlets
                    + 3 * self.n_cloudlets * self.n_tasks
                )
                + 120.0 * tasks
            )
            check_budget(func, "slots", self.slots, nbytes, "one replication's tasks and state")

    def check_work(self, func: str, replications: int, name: str) -> None:
        """Refuse a call whose slot loop would exceed :data:`MAX_WORK` before running it."""
        per = self.slots * self.n_users * self.n_cloudlets
        if per * replications > MAX_WORK:
            which = name if per <= MAX_WORK else "slots"
            raise ParameterError(
                f"The '{which}' parameter of {func} must keep {name} × slots × "
                f"U × E at most {MAX_WORK:.0e} (run-time bound, about a minute). Got "
                f"{replications} × {per:.3g} = {per * replications:.3g} instead."
            )


P2Params = PARAMS.model(
    "P2Params",
    base=_Relations,
    doc="""P2's parameters, one validated object: a field per row of ``PARAMS``.

    Every public function of the model, the simulation and the figures takes it or its
    keywords (:func:`workbench.params.takes`); ``p.warmup_slots()`` is the warm-up in slots.
    """,
)
