"""P4 — Redundancy management for fast service in edge computing.

Pei Peng & Emina Soljanin, "Redundancy Management for Fast Service (Rates) in Edge Computing
Systems", arXiv 2303.00486.

N edge workers are split into c = floor(N/m) groups of m replicas. A Poisson(lam) job goes to
a free group, is copied to its m workers and finishes when the first copy does; with no free
group it goes to the cloud and takes ``t_cloud``. The edge is an M/G/c/c loss system, so

    P_b = ErlangB(c, lam * E[T_job(m)])                 (eq. 4, any service law: insensitive)
    E[T_sys] = (1 - P_b) E[T_job(m)] + P_b t_cloud      (eq. 1)

A loss system is stable at every load, so eq. 1 with the exact Erlang-B holds for all lam
(``formula="exact"``). The paper instead treats lam > lam_m(c) ~ c / E[T_job] as unstable and
switches to its eqs. 8-9 (``formula="paper"``); the notebook shows where the two part ways and
that the simulation sides with Erlang-B.

Reading order: service families -> analytic metrics -> algorithms (BPO, ASTO, exhaustive
optimum) -> simulation -> figures and claims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import integrate

from workbench.erlang import erlang_b
from workbench.kernels.erlang import erlang_b_kernel
from workbench.kernels.events import multiserver_fcfs
from workbench.stats import t_interval
from workbench.validation import (
    ParameterError,
    check_choice,
    check_int,
    check_real,
    check_seed,
)

FORMULAS = ("exact", "paper")
MAX_WORKERS = 100_000
PARAM_MIN, PARAM_MAX = 1e-6, 1e6  # service parameters and rates outside this are typos


# --------------------------------------------------------------------------------------
# Service-time families: one worker's time on one copy of a job
# --------------------------------------------------------------------------------------


class ServiceTime:
    """A worker's service-time law; subclasses give survival, sampling and moments.

    ``job_time_mean(m)`` is E[min of m iid copies] = integral of S(t)^m dt, computed by
    quadrature unless a subclass knows the closed form.
    """

    name = "service"

    def survival(self, t):  # pragma: no cover - abstract
        raise NotImplementedError

    def params(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def job_time_mean(self, m: int) -> float:
        m = check_int(m, "m", f"{type(self).__name__}.job_time_mean", 1)

        def tail(t):
            return float(self.survival(t)) ** m

        # integrate in units of the median of the min, so that tiny or huge scales are alike
        med = 1.0
        while tail(med) < 0.5:
            med /= 2.0
        while tail(med) > 0.5:
            med *= 2.0
        head, _ = integrate.quad(lambda u: tail(med * u), 0.0, 1.0, limit=200)
        rest, _ = integrate.quad(lambda u: tail(med * u), 1.0, np.inf, limit=200)
        return float(med * (head + rest))

    def sample_job_times(self, m: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` job times, each the min of m copies."""
        copies = self.sample(m * size, rng).reshape(size, m)
        return copies.min(axis=1)

    def variance_finite(self, m: int) -> bool:
        return True

    def label(self) -> str:
        inner = ", ".join(f"{v:g}" for v in self.params().values())
        return f"{self.name}({inner})"

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.params().items())))


class SExp(ServiceTime):
    """Shifted exponential S-Exp(delta, mu): delta + Exp(mu). Min of m copies: delta + Exp(m mu)."""

    name = "S-Exp"

    def __init__(self, delta: float, mu: float):
        self.delta = check_real(delta, "delta", "SExp", 0.0, PARAM_MAX)
        self.mu = check_real(mu, "mu", "SExp", PARAM_MIN, PARAM_MAX)

    def params(self) -> dict:
        return {"delta": self.delta, "mu": self.mu}

    def survival(self, t):
        t = np.asarray(t, dtype=float)
        return np.where(t < self.delta, 1.0, np.exp(-self.mu * (t - self.delta)))

    def job_time_mean(self, m: int) -> float:
        """Eq. (2): delta + 1/(m mu)."""
        m = check_int(m, "m", "SExp.job_time_mean", 1)
        return self.delta + 1.0 / (m * self.mu)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.delta + rng.exponential(1.0 / self.mu, size)

    def sample_job_times(self, m, size, rng):
        return self.delta + rng.exponential(1.0 / (m * self.mu), size)


class Pareto(ServiceTime):
    """Pareto(beta, alpha): scale beta, tail index alpha > 1.

    The min of m copies is Pareto(beta, m alpha).
    """

    name = "Pareto"

    def __init__(self, beta: float, alpha: float):
        self.beta = check_real(beta, "beta", "Pareto", PARAM_MIN, PARAM_MAX)
        # alpha <= 1 has an infinite mean: E[T_job(1)] and the whole model break down
        self.alpha = check_real(alpha, "alpha", "Pareto", 1.0, 1000.0, low_open=True)

    def params(self) -> dict:
        return {"beta": self.beta, "alpha": self.alpha}

    def survival(self, t):
        t = np.asarray(t, dtype=float)
        return np.where(t < self.beta, 1.0, (self.beta / np.maximum(t, self.beta)) ** self.alpha)

    def job_time_mean(self, m: int) -> float:
        """Eq. (3): beta m alpha / (m alpha - 1)."""
        m = check_int(m, "m", "Pareto.job_time_mean", 1)
        return self.beta * m * self.alpha / (m * self.alpha - 1.0)

    def sample(self, size, rng):
        return self.beta * rng.random(size) ** (-1.0 / self.alpha)

    def sample_job_times(self, m, size, rng):
        # 1 - U instead of U keeps the draw away from 0 ** negative
        return self.beta * (1.0 - rng.random(size)) ** (-1.0 / (m * self.alpha))

    def variance_finite(self, m: int) -> bool:
        return m * self.alpha > 2.0


class Weibull(ServiceTime):
    """Weibull(shape k, scale s) — a family the paper leaves as future work (Sec. VIII-2).

    E[T_job(m)] is computed numerically from the survival function (min of m copies is
    Weibull(k, s m^(-1/k)); the closed form s m^(-1/k) Gamma(1 + 1/k) checks the quadrature).
    Shape k < 1 is heavy-tailed-ish (sub-exponential): replication pays off the most there.
    """

    name = "Weibull"

    def __init__(self, shape: float, scale: float):
        self.shape = check_real(shape, "shape", "Weibull", 0.2, 20.0)
        self.scale = check_real(scale, "scale", "Weibull", PARAM_MIN, PARAM_MAX)

    def params(self) -> dict:
        return {"shape": self.shape, "scale": self.scale}

    def survival(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)
        return np.exp(-((t / self.scale) ** self.shape))

    def closed_form_mean(self, m: int) -> float:
        return self.scale * m ** (-1.0 / self.shape) * math.gamma(1.0 + 1.0 / self.shape)

    def sample(self, size, rng):
        return self.scale * rng.weibull(self.shape, size)

    def sample_job_times(self, m, size, rng):
        return self.scale * m ** (-1.0 / self.shape) * rng.weibull(self.shape, size)


SERVICE_FAMILIES = {"S-Exp": SExp, "Pareto": Pareto, "Weibull": Weibull}


def make_service(family: str, a: float, b: float) -> ServiceTime:
    """``make_service("Pareto", 1.5, 1.2)``: build a family from its two parameters."""
    check_choice(family, "family", "make_service", SERVICE_FAMILIES)
    return SERVICE_FAMILIES[family](a, b)


def _check_service(service, func: str) -> ServiceTime:
    if not isinstance(service, ServiceTime):
        raise ParameterError(
            f"The 'service' parameter of {func} must be a ServiceTime (SExp, Pareto or Weibull). "
            f"Got {service!r} instead."
        )
    return service


_ABSENT = object()  # "not a parameter of this function" (None is a bad value to report)


def _check_system(func, N, m=_ABSENT, lam=_ABSENT, t_cloud=_ABSENT):
    out = [check_int(N, "N", func, 1, MAX_WORKERS)]
    if m is not _ABSENT:
        out.append(check_int(m, "m", func, 1, out[0]))
    if lam is not _ABSENT:
        out.append(check_real(lam, "lam", func, 0.0, PARAM_MAX, low_open=True))
    if t_cloud is not _ABSENT:
        out.append(check_real(t_cloud, "t_cloud", func, 0.0, PARAM_MAX))
    return out


# --------------------------------------------------------------------------------------
# Analytic metrics
# --------------------------------------------------------------------------------------


def groups(N: int, m: int) -> int:
    """Number of replication groups c = floor(N/m); N mod m workers stay idle."""
    N, m = _check_system("groups", N, m)
    return N // m


def job_time(m: int, service: ServiceTime) -> float:
    """E[T_job(m)], the mean of the fastest of m copies (eqs. 2-3)."""
    return _check_service(service, "job_time").job_time_mean(m)


def blocking(N: int, m: int, lam: float, service: ServiceTime) -> float:
    """P_b = ErlangB(c, lam E[T_job(m)]) with c = floor(N/m) (eq. 4, stable recursion)."""
    N, m, lam = _check_system("blocking", N, m, lam)
    _check_service(service, "blocking")
    return erlang_b(N // m, lam * service.job_time_mean(m))


def lambda_max(N: int, m: int, service: ServiceTime) -> float:
    """The paper's 'maximum stable arrival rate' lam_m(c), as written in Sec. V-C.

    S-Exp: mu N c / (delta mu N + c); Pareto: (alpha N c - c^2) / (beta alpha N); both equal
    c / E[T_job(N/c)] (with the non-integer N/c when m does not divide N). Other families:
    c / E[T_job(m)]. A loss system has no stability limit: this is where eq. 8 takes over.
    """
    N, m = _check_system("lambda_max", N, m)
    _check_service(service, "lambda_max")
    c = N // m
    if isinstance(service, SExp):
        return service.mu * N * c / (service.delta * service.mu * N + c)
    if isinstance(service, Pareto):
        return (service.alpha * N * c - c * c) / (service.beta * service.alpha * N)
    return c / service.job_time_mean(m)


def system_time(N, m, lam, t_cloud, service, formula: str = "exact") -> float:
    """Mean system time E[T_sys] of one job (edge or cloud).

    Parameters
    ----------
    N, m : int
        Workers and replication factor (1 <= m <= N); c = floor(N/m) groups.
    lam : float
        Poisson arrival rate, > 0.
    t_cloud : float
        Time of a job sent to the cloud, >= 0.
    service : ServiceTime
        SExp, Pareto or Weibull.
    formula : {"exact", "paper"}
        ``exact``: eq. 1 with Erlang-B at every load. ``paper``: eq. 1 below lam_m, eqs. 8-9
        above it, as in Algorithm 2 (ASTO).
    """
    N, m, lam, t_cloud = _check_system("system_time", N, m, lam, t_cloud)
    _check_service(service, "system_time")
    check_choice(formula, "formula", "system_time", FORMULAS)
    return _system_time(N, m, lam, t_cloud, service, formula)


def _system_time(N, m, lam, t_cloud, service, formula):
    c = N // m
    tj = service.job_time_mean(m)
    if formula == "paper":
        lam_m = lambda_max(N, m, service)
        if lam > lam_m:
            p_max = float(erlang_b_kernel(c, float(c)))  # eq. 9
            served = lam_m / lam * (1.0 - p_max)
            return served * tj + (1.0 - served) * t_cloud  # eq. 8
    pb = float(erlang_b_kernel(c, lam * tj))
    return (1.0 - pb) * tj + pb * t_cloud


def metrics_by_m(N, lam, t_cloud, service, ms=None) -> pd.DataFrame:
    """Tidy table over m: c, E[T_job], P_b, lam_m, E[T_sys] (exact and paper)."""
    N, lam, t_cloud = _check_system("metrics_by_m", N, lam=lam, t_cloud=t_cloud)
    _check_service(service, "metrics_by_m")
    ms = range(1, N + 1) if ms is None else [check_int(v, "ms", "metrics_by_m", 1, N) for v in ms]
    rows = []
    for m in ms:
        tj = service.job_time_mean(m)
        rows.append(
            {
                "m": m,
                "c": N // m,
                "job_time": tj,
                "blocking": float(erlang_b_kernel(N // m, lam * tj)),
                "lambda_max": lambda_max(N, m, service),
                "system_time_exact": _system_time(N, m, lam, t_cloud, service, "exact"),
                "system_time_paper": _system_time(N, m, lam, t_cloud, service, "paper"),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Algorithms: BPO (Alg. 1), ASTO (Alg. 2), exhaustive optimum
# --------------------------------------------------------------------------------------


def optimal_m(N, lam, t_cloud, service, formula: str = "exact") -> int:
    """Exhaustive argmin over m = 1..N of E[T_sys] (smallest m on ties)."""
    N, lam, t_cloud = _check_system("optimal_m", N, lam=lam, t_cloud=t_cloud)
    _check_service(service, "optimal_m")
    check_choice(formula, "formula", "optimal_m", FORMULAS)
    return _argmin_m(N, lam, t_cloud, service, formula)


def _argmin_m(N, lam, t_cloud, service, formula):
    times = [_system_time(N, m, lam, t_cloud, service, formula) for m in range(1, N + 1)]
    return int(np.argmin(times)) + 1


def optimal_m_blocking(N, lam, service) -> int:
    """Exhaustive argmin over m of P_b (smallest m on ties)."""
    N, lam = _check_system("optimal_m_blocking", N, lam=lam)
    _check_service(service, "optimal_m_blocking")
    pb = [erlang_b_kernel(N // m, lam * service.job_time_mean(m)) for m in range(1, N + 1)]
    return int(np.argmin(pb)) + 1


def bpo(N, lam, service) -> int:
    """Algorithm 1 (BPO): the replication factor minimising blocking, as the paper states it.

    S-Exp: m = 1 (Theorem 1). Pareto: m = 1 if alpha >= 1.5, else the better of m = 1 and
    m = 2 (Lemma 1). Other families: the exhaustive argmin of P_b (the paper has no rule).
    """
    N, lam = _check_system("bpo", N, lam=lam)
    _check_service(service, "bpo")
    if isinstance(service, SExp):
        return 1
    if isinstance(service, Pareto):
        if service.alpha >= 1.5 or N < 2:
            return 1
        p1 = erlang_b_kernel(N, lam * service.job_time_mean(1))
        p2 = erlang_b_kernel(N // 2, lam * service.job_time_mean(2))
        return 1 if p1 <= p2 else 2
    return optimal_m_blocking(N, lam, service)


def asto(N, lam, t_cloud, service) -> int:
    """Algorithm 2 (ASTO) as the paper writes it.

    S-Exp: the Theorem 2 shortcuts (m = 1 when t_cloud >= T1; m = N when t_cloud <= delta +
    1/mu and lam <= lam1), else the argmin over m of the paper's E[T_sys] (eq. 1 / eq. 8).
    Pareto: the same structure with Lemma 2's conditions (the paper prints the algorithm for
    S-Exp only; this transcription is ours). Other families: the argmin alone.
    """
    N, lam, t_cloud = _check_system("asto", N, lam=lam, t_cloud=t_cloud)
    _check_service(service, "asto")
    if N >= 3:
        shortcut = _asto_shortcut(N, lam, t_cloud, service)
        if shortcut is not None:
            return shortcut
    return _argmin_m(N, lam, t_cloud, service, "paper")


def _asto_shortcut(N, lam, t_cloud, service):
    def pb(c):  # P_b with c groups of N/c replicas, as eqs. 5-6 write it
        return float(erlang_b_kernel(c, lam * _job_time_of_groups(N, c, service)))

    p_n, p_1, p_half = pb(N), pb(1), pb(N // 2)
    if isinstance(service, SExp):
        d, mu = service.delta, service.mu
        t1 = (1 - 1 / N - p_n + p_1 / N) / (mu * (p_half - p_n)) + d if p_half > p_n else np.inf
        lam1 = N * mu / ((N - 2) * (d * N * mu + 1))
        if t_cloud >= t1:
            return 1
        if t_cloud <= d + 1 / mu and lam <= lam1:
            return N
    elif isinstance(service, Pareto):
        b, a = service.beta, service.alpha
        if p_half > p_n:
            t1 = b * a * ((1 - p_n) / (a - 1) - (1 - p_1) / (a * N - 1)) / (p_half - p_n)
            if t_cloud >= t1:
                return 1
        if t_cloud <= b * a / (a - 1) and lam <= (a - 1) * N / (b * a * N * (N - 2)):
            return N
    return None


def _job_time_of_groups(N, c, service):
    """E[T_job] with c groups of N/c replicas (eqs. 2-3, 'c' form; N/c may be fractional)."""
    m = N / c
    if isinstance(service, SExp):
        return service.delta + 1.0 / (m * service.mu)
    if isinstance(service, Pareto):
        return service.beta * m * service.alpha / (m * service.alpha - 1.0)
    return service.job_time_mean(N // c)


def policy_m(policy: str, N, lam, t_cloud, service) -> int:
    """The m chosen by a named policy: asto, bpo, benchmark (m = 1), optimal (exact argmin)."""
    check_choice(policy, "policy", "policy_m", POLICIES)
    if policy == "asto":
        return asto(N, lam, t_cloud, service)
    if policy == "bpo":
        return bpo(N, lam, service)
    if policy == "benchmark":
        return 1
    return optimal_m(N, lam, t_cloud, service)


POLICIES = ("benchmark", "bpo", "asto", "optimal")

# --------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------


@dataclass
class SimulationResult:
    """Simulated mean system time with a confidence interval over independent replications.

    ``variance_finite`` is False when a job's time has infinite variance (Pareto with
    m alpha <= 2): the replication means then converge at rate n^(1 - 1/(m alpha)), not
    n^(-1/2), and the t-interval below under-covers — treat it as indicative only.
    """

    mean: float
    ci_low: float
    ci_high: float
    blocking: float
    blocking_ci_low: float
    blocking_ci_high: float
    mean_wait: float
    replications: int
    n_jobs: int
    confidence: float
    variance_finite: bool
    note: str = ""
    replication_means: np.ndarray = field(repr=False, default=None)

    def __getitem__(self, key):  # dict-style access for outside checks
        return getattr(self, key)

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "replication_means"}
        return d


def simulate(
    N,
    m,
    lam,
    t_cloud,
    service,
    n_jobs: int = 20_000,
    seed: int = 0,
    *,
    replications: int = 20,
    waiting_room: int = 0,
    warmup: int | None = None,
    confidence: float = 0.95,
) -> SimulationResult:
    """Simulate the replicated edge system and return the mean system time with its CI.

    Parameters
    ----------
    N, m, lam, t_cloud, service
        As in :func:`system_time`.
    n_jobs : int
        Arrivals per replication (the paper uses 500 arrivals x 100 runs).
    seed : int
        Same seed, same numbers.
    replications : int
        Independent runs, each started empty; the CI is a Student-t interval over their means.
    waiting_room : int
        0 is the paper's loss system (M/G/c/c). k > 0 adds k FCFS waiting places (M/G/c/c+k),
        the extension the paper names as future work (Sec. VIII-1).
    warmup : int, optional
        Jobs discarded at the start of each run (default n_jobs // 10).
    """
    f = "simulate"
    N, m, lam, t_cloud = _check_system(f, N, m, lam, t_cloud)
    _check_service(service, f)
    n_jobs = check_int(n_jobs, "n_jobs", f, 10, 10**8)
    seed = check_seed(seed, f)
    replications = check_int(replications, "replications", f, 2, 100_000)
    waiting_room = check_int(waiting_room, "waiting_room", f, 0, 10**6)
    warmup = n_jobs // 10 if warmup is None else check_int(warmup, "warmup", f, 0, n_jobs - 1)
    confidence = check_real(confidence, "confidence", f, 0.5, 1.0, high_open=True)

    rng = np.random.default_rng(seed)
    means = np.empty(replications)
    blocked_frac = np.empty(replications)
    waits = np.empty(replications)
    for r in range(replications):
        t_sys, wait, blocked = _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng)
        t_sys, wait, blocked = t_sys[warmup:], wait[warmup:], blocked[warmup:]
        means[r] = t_sys.mean()
        blocked_frac[r] = blocked.mean()
        waits[r] = wait[~blocked].mean() if (~blocked).any() else 0.0
    lo, hi = t_interval(means, confidence)
    blo, bhi = t_interval(blocked_frac, confidence)
    finite = service.variance_finite(m)
    note = (
        ""
        if finite
        else f"{service.label()} with m={m}: job times have infinite variance (m*alpha <= 2); "
        "the mean converges slowly and the t-interval under-covers."
    )
    return SimulationResult(
        mean=float(means.mean()),
        ci_low=lo,
        ci_high=hi,
        blocking=float(blocked_frac.mean()),
        blocking_ci_low=blo,
        blocking_ci_high=bhi,
        mean_wait=float(waits.mean()),
        replications=replications,
        n_jobs=n_jobs,
        confidence=confidence,
        variance_finite=finite,
        note=note,
        replication_means=means,
    )


def _one_run(N, m, lam, t_cloud, service, n_jobs, waiting_room, rng):
    """One run started empty: per-job system time, wait (NaN if blocked) and blocked flag."""
    inter = rng.exponential(1.0 / lam, n_jobs)
    jobs = service.sample_job_times(m, n_jobs, rng)
    wait, blocked = multiserver_fcfs(inter, jobs, N // m, waiting_room)[:2]
    blocked = blocked.astype(bool)
    return np.where(blocked, t_cloud, wait + jobs), wait, blocked


def running_mean_trace(N, m, lam, t_cloud, service, n_jobs=200_000, seed=0, points=200):
    """Running mean of the system time along one long run (how fast does it settle?)."""
    f = "running_mean_trace"
    N, m, lam, t_cloud = _check_system(f, N, m, lam, t_cloud)
    _check_service(service, f)
    n_jobs = check_int(n_jobs, "n_jobs", f, 100, 10**8)
    points = check_int(points, "points", f, 2, 10**6)
    rng = np.random.default_rng(check_seed(seed, f))
    t_sys = _one_run(N, m, lam, t_cloud, service, n_jobs, 0, rng)[0]
    running = np.cumsum(t_sys) / np.arange(1, n_jobs + 1)
    idx = np.unique(np.geomspace(1, n_jobs, points).astype(int)) - 1
    return pd.DataFrame({"jobs": idx + 1, "running_mean": running[idx]})


__all__ = [
    "SExp",
    "Pareto",
    "Weibull",
    "ServiceTime",
    "make_service",
    "groups",
    "job_time",
    "blocking",
    "lambda_max",
    "system_time",
    "metrics_by_m",
    "optimal_m",
    "optimal_m_blocking",
    "bpo",
    "asto",
    "policy_m",
    "simulate",
    "SimulationResult",
    "running_mean_trace",
]
