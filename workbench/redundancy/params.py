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
    "LOST",
]

MAX_WORKERS = 100_000
RATE_MIN, RATE_MAX = 1e-6, 1e6  # scales and rates outside this are typos
# One run holds about 60 bytes per job (interarrivals, job times, waits, flags, the number
# seen, system times): 10**7 jobs peak near 0.6 GB. Longer runs: more replications.
MAX_JOBS_PER_RUN = 10**7
# n_jobs * replications: 2e8 jobs are about a minute on one core; beyond that the caller
# should split the study.
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

# the paper's words the plausible ranges below rest on (Sec. VI-A, Sec. VII), verbatim
_TABLE1_WORDS = (
    '"We conclude that it is better to concentrate computing resources on a few jobs when the '
    'job arrival rate and the cloud time are small." (Sec. VI-A; Table I has only the columns '
    '"Large" and "Small", with no values)'
)


def _ours(what: str) -> dict:
    """The source and reason of a row that is no value of the paper: a setting of ``what``."""
    return {
        "source": "choice",
        "why": f"Not a value of the paper: a setting of the workbench's own {what}; no claim of "
        "the paper rests on it, so it has no plausible range.",
    }


def _lost(name, symbol, meaning, default, plausible, why, unit="", kind="real", **kw) -> Param:
    """A value the paper uses but does not state ([choice]), with the range a careful reader
    would accept (``plausible``) and the reason (``why``, quoting the paper)."""
    low = 1 if kind == "int" else 0.0
    high = MAX_WORKERS if kind == "int" else RATE_MAX
    return Param(
        name,
        symbol,
        meaning,
        unit=unit,
        kind=kind,
        low=low,
        high=high,
        low_open=kind != "int",
        default=default,
        slider=plausible,
        help=f"[choice] {meaning}: the paper does not state it.",
        source="choice",
        plausible=plausible,
        why=why,
        **kw,
    )


LOST = (
    _lost(
        "fig3_lam",
        "λ₃",
        "arrival rate of Fig. 3",
        3.0,
        (0.1, 5.0),
        "Fig. 3's caption gives \"The number of workers is $N=24$\" but no λ; the paper's "
        'other figures use "$\\lambda\\in\\{0.1,1,5\\}$" (Fig. 5) and λ up to 5 (Fig. 4), so '
        "any λ in [0.1, 5] is a reading of Fig. 3.",
        unit="1/s",
    ),
    _lost(
        "fig4_lam_low",
        "λ_lo",
        "lowest λ of Fig. 4's 'λ ≤ 2' average",
        0.25,
        (0.1, 0.5),
        '"When $\\lambda\\leq 2$, the ASTO algorithm can reduce the average system time by '
        "about $65\\%$ compared to the benchmark and by about $15\\%$ compared to the BPO "
        "algorithm.\" The range's lower end (where Fig. 4's axis starts) is not stated; the text "
        'also reads the figure at "$\\lambda\\leq 0.5$" and Fig. 5 uses λ = 0.1: the average '
        "starts somewhere in [0.1, 0.5] (8 rates evenly spaced up to 2).",
        unit="1/s",
    ),
    _lost(
        "table1_N",
        "N_I",
        "Table I's baseline number of workers",
        24,
        (12, 48),
        _TABLE1_WORDS + "; the figures use N = 24 (Figs. 3-6).",
        kind="int",
    ),
    _lost(
        "table1_lam",
        "λ_I",
        "Table I's baseline arrival rate",
        1.5,
        (0.5, 3.0),
        _TABLE1_WORDS + "; Figs. 6-7 use λ = 1.5.",
        unit="1/s",
    ),
    _lost(
        "table1_t_cloud",
        "T_I",
        "Table I's baseline cloud time",
        15.0,
        (8.0, 50.0),
        _TABLE1_WORDS + "; Figs. 4-6 use T_cl from 8 to 50 at their middle values.",
        unit="s",
    ),
    _lost(
        "table1_lam_small",
        "λ_s",
        "Table I's 'small' arrival rate",
        0.05,
        (0.01, 0.2),
        _TABLE1_WORDS + '; "when $\\lambda$ is small, the job-blocking probability is close to '
        "$0$\", and Fig. 5's smallest rate is 0.1.",
        unit="1/s",
    ),
    _lost(
        "table1_lam_large",
        "λ_L",
        "Table I's 'large' arrival rate",
        5.0,
        (3.0, 10.0),
        _TABLE1_WORDS + '; "When $\\lambda$ is large, more jobs will be sent to the cloud", '
        "and Fig. 5's largest rate is 5.",
        unit="1/s",
    ),
    _lost(
        "table1_t_cloud_small",
        "T_s",
        "Table I's 'small' cloud time",
        1.5,
        (0.5, 5.0),
        _TABLE1_WORDS + "; small means below a job's own time: \"when the cloud time "
        "$\\operatorname{\\mathbb{E}}[T_{\\text{cl}}]<"
        '\\operatorname{\\mathbb{E}}[T_{\\text{job}}(m=1)]$" '
        "(8 s for S-Exp(3, 0.2)).",
        unit="s",
    ),
    _lost(
        "table1_t_cloud_large",
        "T_L",
        "Table I's 'large' cloud time",
        100.0,
        (50.0, 200.0),
        _TABLE1_WORDS + '; Fig. 6 calls "$\\operatorname{\\mathbb{E}}[T_{\\text{cl}}]\\in\\{15,50,'
        '100\\}$" and "$m=1$ is not optimal even when '
        '$\\operatorname{\\mathbb{E}}[T_{\\text{cl}}]$ is large" (Pareto, at 100).',
        unit="s",
    ),
    _lost(
        "table1_N_small",
        "N_s",
        "Table I's 'small' number of workers",
        4,
        (2, 8),
        _TABLE1_WORDS + "; Fig. 7 starts at a few workers.",
        kind="int",
    ),
    _lost(
        "table1_N_large",
        "N_L",
        "Table I's 'large' number of workers",
        100,
        (60, 200),
        _TABLE1_WORDS + "; Fig. 7 goes to about a hundred workers.",
        kind="int",
    ),
    _lost(
        "table1_alpha_small",
        "α_s",
        "Table I's 'small' Pareto tail index",
        1.05,
        (1.05, 1.5),
        _TABLE1_WORDS + '; "when the tail parameter $\\alpha$ is small, the straggler problem '
        'in the edge system is severe", and Lemma 1 splits at "$\\alpha<1.5$".',
    ),
    _lost(
        "table1_alpha_large",
        "α_L",
        "Table I's 'large' Pareto tail index",
        3.0,
        (2.0, 5.0),
        _TABLE1_WORDS + '; Lemma 1: "when $\\alpha\\geq 1.5$, the job-blocking probability '
        '$P_{b}$ increases with $m$"; large means well above 1.5.',
    ),
)

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
        choices=tuple(FAMILY_PARAMS),
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
        **_ours("Weibull extension (the paper's future work)"),
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
        **_ours("Weibull extension (the paper's future work)"),
    ),
    Param(
        "formula",
        "formula",
        "E[T_sys] formula",
        kind="choice",
        choices=FORMULAS,
        default="exact",
        help="exact: eq. 1 with Erlang-B at every load; paper: eq. 8 above λ_m, as ASTO uses.",
        plausible=FORMULAS,
        why="Two readings of E[T_sys]: eq. 1 with Erlang-B, and the paper's own \"When "
        "$\\lambda>\\lambda_{m}$, the average system time from (1) does not hold since the "
        "blocking system is unstable. Therefore, we modify the expression of the average "
        'system time under this condition." (eq. 8), which its figures evaluate: "In Figure\u00a0'
        '5, we evaluate (1) and (8)".',
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
        help="FCFS places for jobs that find every group busy (M/G/c/c+w); 0 is the paper's "
        "loss system.",
        **_ours("waiting-room extension (the paper's future work)"),
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
        **_ours("simulation length"),
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
        **_ours("running-mean trace"),
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
        **_ours("simulation warm-up"),
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
        **_ours("precision target"),
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
        **_ours("trace resolution"),
    ),
    *LOST,
)
