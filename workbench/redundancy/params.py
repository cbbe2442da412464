"""The parameter table of the replicated edge system (P4): every parameter once.

Each service family has its own named parameters with its own valid range (S-Exp: Δ, μ;
Pareto: β, α > 1; Weibull: k, s). The waiting places of the M/G/c/c+w extension are ``w``,
not to be confused with the Weibull shape ``k``.

The ranges bound every rate and scale to [1e-6, 1e6] (values outside are typos, and they
keep every formula finite: no overflow, no NaN).

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", arXiv 2303.00486, Sec. III (system model), eqs. (2)-(3) (service families),
Sec. VII (the values of the figures).
"""

from __future__ import annotations

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, Param, Params

__all__ = [
    "PARAMS",
    "FAMILY_PARAMS",
    "FORMULAS",
    "POLICIES",
    "MAX_JOBS_PER_RUN",
    "MAX_TOTAL_JOBS",
    "WARMUP_FRACTION",
    "SHORT_RUN",
]

MAX_WORKERS = 100_000
RATE_MIN, RATE_MAX = 1e-6, 1e6  # scales and rates outside this are typos
# One run holds about 60 bytes per job (interarrivals, job times, waits, flags, the number
# seen, system times): 10**7 jobs peak near 0.6 GB. Longer runs: more replications.
MAX_JOBS_PER_RUN = 10**7
# n_jobs * replications: 2e8 jobs are about a minute on one core (3.3 s per 1e7 Pareto jobs
# measured); beyond that the caller should split the study.
MAX_TOTAL_JOBS = 2 * 10**8
#: warm-up fraction of a run longer than SHORT_RUN jobs when none is given
WARMUP_FRACTION = 0.1
#: runs of at most this many jobs keep every job (the paper measures its 500-job runs whole)
SHORT_RUN = 1000

FORMULAS = ("exact", "paper")
POLICIES = ("benchmark", "bpo", "asto", "optimal")
# family -> its two parameter names, in the order the constructor takes them
FAMILY_PARAMS = {
    "S-Exp": ("delta", "mu"),
    "Pareto": ("beta", "alpha"),
    "Weibull": ("shape", "scale"),
}
FAMILIES = tuple(FAMILY_PARAMS)

PARAMS = Params(
    Param(
        "N",
        "N",
        "edge workers",
        kind="int",
        low=1,
        high=MAX_WORKERS,
        default=24,
        slider=(2, 120),
        step=1,
        help="Workers at the edge; they form c = ⌊N/m⌋ groups of m (Sec. VII: N = 24).",
    ),
    Param(
        "m",
        "m",
        "replication factor",
        kind="int",
        low=1,
        high=MAX_WORKERS,
        default=2,
        slider=(1, 24),
        step=1,
        help="Copies of each job, one per worker of its group; 1 ≤ m ≤ N.",
    ),
    Param(
        "lam",
        "λ",
        "arrival rate",
        unit="1/s",
        low=0.0,
        high=RATE_MAX,
        low_open=True,
        default=1.5,
        slider=(0.05, 8.0),
        step=0.05,
        help="Poisson rate of job arrivals (Sec. VII: λ = 1.5 in Figs. 6-7).",
    ),
    Param(
        "t_cloud",
        "T_cl",
        "cloud time",
        unit="s",
        low=0.0,
        high=RATE_MAX,
        default=15.0,
        slider=(1.0, 100.0),
        step=1.0,
        help="Time of a job blocked at the edge and sent to the cloud (Fig. 4: T_cl = 15).",
    ),
    Param(
        "family",
        "F",
        "service-time family",
        kind="choice",
        choices=FAMILIES,
        default="S-Exp",
        help="Law of one worker's time on one copy: S-Exp and Pareto (paper), Weibull "
        "(the paper's future work).",
    ),
    Param(
        "delta",
        "Δ",
        "S-Exp shift",
        unit="s",
        low=0.0,
        high=RATE_MAX,
        default=3.0,
        slider=(0.0, 10.0),
        step=0.1,
        help="Minimum time of a copy: S-Exp(Δ, μ) = Δ + Exp(μ) (Fig. 4: Δ = 3).",
    ),
    Param(
        "mu",
        "μ",
        "S-Exp rate",
        unit="1/s",
        low=RATE_MIN,
        high=RATE_MAX,
        default=0.2,
        slider=(0.05, 5.0),
        step=0.05,
        help="Rate of the exponential part of S-Exp; the fastest of m copies has rate mμ "
        "(Fig. 4: μ = 0.2).",
    ),
    Param(
        "beta",
        "β",
        "Pareto scale",
        unit="s",
        low=RATE_MIN,
        high=RATE_MAX,
        default=1.5,
        slider=(0.1, 10.0),
        step=0.1,
        help="Minimum time of a copy under Pareto(β, α) (Fig. 4: β = 1.5).",
    ),
    Param(
        "alpha",
        "α",
        "Pareto tail index",
        low=1.0,
        high=1000.0,
        low_open=True,
        default=1.2,
        slider=(1.05, 5.0),
        step=0.05,
        help="Tail index of Pareto; α ≤ 1 has no mean, mα ≤ 2 infinite variance (Fig. 4: α = 1.2).",
    ),
    Param(
        "shape",
        "k",
        "Weibull shape",
        low=0.2,
        high=20.0,
        default=1.0,
        slider=(0.2, 5.0),
        step=0.05,
        help="k < 1: heavier tail than exponential (replication pays); k > 1: lighter.",
        source="choice",
    ),
    Param(
        "scale",
        "s",
        "Weibull scale",
        unit="s",
        low=RATE_MIN,
        high=RATE_MAX,
        default=5.0,
        slider=(0.1, 20.0),
        step=0.1,
        help="Scale of Weibull(k, s); the fastest of m copies is Weibull(k, s·m^(-1/k)).",
        source="choice",
    ),
    Param(
        "formula",
        "formula",
        "E[T_sys] formula",
        kind="choice",
        choices=FORMULAS,
        default="exact",
        help="exact: eq. 1 with Erlang-B at every load; paper: eq. 8 above λ_m, as ASTO uses.",
    ),
    Param(
        "policy",
        "policy",
        "allocation policy",
        kind="choice",
        choices=POLICIES,
        default="asto",
        help="benchmark (m = 1), BPO (Alg. 1), ASTO (Alg. 2), optimal (exact argmin).",
    ),
    Param(
        "waiting_room",
        "w",
        "waiting places",
        kind="int",
        low=0,
        high=10**6,
        default=0,
        slider=(0, 30),
        step=1,
        help="FCFS places for jobs that find every group busy (M/G/c/c+w); 0 is the paper's "
        "loss system.",
        source="choice",
    ),
    Param(
        "jobs",
        "n",
        "jobs per replication",
        kind="int",
        low=10,
        high=MAX_JOBS_PER_RUN,
        default=20_000,
        slider=(1_000, 200_000),
        step=1_000,
        help="Arrivals simulated in each run (the paper: 500 arrivals × 100 runs); at most "
        f"{MAX_JOBS_PER_RUN:.0e} per run (memory), longer runs are more replications.",
        source="choice",
    ),
    Param(
        "protocol_jobs",
        "n_p",
        "jobs per run of the paper's protocol",
        kind="int",
        low=10,
        high=MAX_JOBS_PER_RUN,
        default=500,
        slider=(100, 20_000),
        step=100,
        help="Arrivals per run in Fig. 4's simulation (Sec. VII: 500 arrivals, 100 runs).",
    ),
    Param(
        "trace_jobs",
        "n_t",
        "jobs of the running-mean trace",
        kind="int",
        low=100,
        high=MAX_JOBS_PER_RUN,
        default=200_000,
        help="Length of the one run whose running mean is traced.",
        source="choice",
    ),
    Param(
        "warmup",
        "n₀/n",
        "warm-up fraction",
        low=0.0,
        high=0.9,
        default=None,
        help=f"Fraction of each run dropped before estimating; default: {WARMUP_FRACTION:g}, "
        f"none for runs of at most {SHORT_RUN:,} jobs (the paper's 500-arrival runs start "
        "empty and are measured whole).",
        source="choice",
    ),
    REPLICATIONS.with_(high=10_000, default=20),
    CONFIDENCE,
    SEED,
    Param(
        "half_width",
        "h",
        "target CI half-width",
        unit="s",
        low=0.0,
        high=RATE_MAX,
        low_open=True,
        default=0.05,
        slider=(0.005, 1.0),
        step=0.005,
        help="Simulate until the confidence interval of E[T_sys] is at most ±h.",
        source="choice",
    ),
    Param(
        "points",
        "points",
        "trace points",
        kind="int",
        low=2,
        high=10**6,
        default=200,
        help="Points of the running-mean trace (log-spaced).",
        source="choice",
    ),
)
