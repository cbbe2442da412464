"""The analytic model: service families, E[T_job], P_b, E[T_sys], and the allocation rules.

Reading order: service families -> the parameter object (:class:`P4Params`) -> analytic
metrics -> algorithms (BPO, ASTO, exhaustive optimum) -> station tables. Every public
function takes a :class:`P4Params` or its keywords (:func:`workbench.params.takes`): the
values are validated once, when the object is built, and a function given an object trusts
it, so the functions call each other with the object and never re-validate.

References
----------
Peng & Soljanin, "Redundancy management for fast service (rates) in edge computing
systems", arXiv 2303.00486: eqs. (1)-(4) (the model), (5)-(9) (the 'c' form and the
overload formula), Algorithms 1 (BPO) and 2 (ASTO), Theorems 1-2, Lemmas 1-2.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from scipy import integrate

from workbench.kernels.erlang import erlang_b_kernel, erlang_b_many_kernel
from workbench.params import ParamsModel, takes
from workbench.redundancy.params import FAMILY_PARAMS, MAX_JOBS_PER_RUN, MAX_TOTAL_JOBS, PARAMS
from workbench.results import SimulationResult
from workbench.validation import ParameterError, check_array, refusal, reject_unknown

__all__ = [
    "P4Params",
    "DEFAULT_SERVICE",
    "check_total_jobs",
    "ServiceTime",
    "SExp",
    "Pareto",
    "Weibull",
    "SERVICE_FAMILIES",
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
    "simulated_station_table",
]


# --------------------------------------------------------------------------------------
# Service-time families: one worker's time on one copy of a job
# --------------------------------------------------------------------------------------


class ServiceTime:
    """A worker's service-time law; subclasses give survival, sampling and moments.

    ``job_time_mean(m)`` is E[min of m iid copies] = ∫ S(t)^m dt, by closed form where the
    family has one, else by quadrature (:meth:`quadrature_mean`); every value is cached per
    (family, parameters, m), so slider views recompute nothing they have seen.
    """

    name = "service"
    #: the constructor's parameter names (keys of the parameter table)
    param_names: tuple = ()

    def survival(self, t):  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def params(self) -> dict:
        return {name: getattr(self, name) for name in self.param_names}

    def job_time_mean(self, m: int) -> float:
        """E[T_job(m)], the mean of the fastest of ``m`` copies."""
        m = PARAMS["m"].check(m, f"{type(self).__name__}.job_time_mean")
        return _cached_mean(self, m)

    def _mean(self, m: int) -> float:
        """E[T_job(m)] of a validated m (subclasses with a closed form override this)."""
        return self.quadrature_mean(m)

    def quadrature_mean(self, m: int) -> float:
        """∫ S(t)^m dt by adaptive quadrature, whatever the family (checks closed forms)."""

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
        """``Pareto(β=1.5, α=1.2)``: the family with its parameters in symbols."""
        inner = ", ".join(f"{PARAMS[k].symbol}={v:g}" for k, v in self.params().items())
        return f"{self.name}({inner})"

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.params().items())))


class SExp(ServiceTime):
    """Shifted exponential S-Exp(Δ, μ) = Δ + Exp(μ); the min of m copies is Δ + Exp(mμ).

    Parameters
    ----------
    delta : float
        The shift Δ [s], a copy's least time, >= 0.
    mu : float
        The rate μ [1/s] of the exponential part, > 0.

    References
    ----------
    Peng & Soljanin, eq. (2): E[T_job] = Δ + 1/(mμ).
    """

    name = "S-Exp"
    param_names = FAMILY_PARAMS["S-Exp"]

    def __init__(self, delta: float, mu: float):
        ok = PARAMS.check("SExp", delta=delta, mu=mu)
        self.delta, self.mu = ok["delta"], ok["mu"]

    def survival(self, t):
        t = np.asarray(t, dtype=float)
        return np.where(t < self.delta, 1.0, np.exp(-self.mu * (t - self.delta)))

    def _mean(self, m: int) -> float:
        return self.delta + 1.0 / (m * self.mu)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.delta + rng.exponential(1.0 / self.mu, size)

    def sample_job_times(self, m, size, rng):
        return self.delta + rng.exponential(1.0 / (m * self.mu), size)


class Pareto(ServiceTime):
    """Pareto(β, α): scale β, tail index α > 1; the min of m copies is Pareto(β, mα).

    Parameters
    ----------
    beta : float
        The scale β [s], a copy's least time, > 0.
    alpha : float
        The tail index α, > 1 (α <= 1 has no mean; mα <= 2 an infinite variance).

    References
    ----------
    Peng & Soljanin, eq. (3): E[T_job] = βmα/(mα − 1).
    """

    name = "Pareto"
    param_names = FAMILY_PARAMS["Pareto"]

    def __init__(self, beta: float, alpha: float):
        # alpha <= 1 has an infinite mean: E[T_job(1)] and the whole model break down
        ok = PARAMS.check("Pareto", beta=beta, alpha=alpha)
        self.beta, self.alpha = ok["beta"], ok["alpha"]

    def survival(self, t):
        t = np.asarray(t, dtype=float)
        return np.where(t < self.beta, 1.0, (self.beta / np.maximum(t, self.beta)) ** self.alpha)

    def _mean(self, m: int) -> float:
        return self.beta * m * self.alpha / (m * self.alpha - 1.0)

    def sample(self, size, rng):
        return self.beta * rng.random(size) ** (-1.0 / self.alpha)

    def sample_job_times(self, m, size, rng):
        # 1 - U instead of U keeps the draw away from 0 ** negative
        return self.beta * (1.0 - rng.random(size)) ** (-1.0 / (m * self.alpha))

    def variance_finite(self, m: int) -> bool:
        return m * self.alpha > 2.0


class Weibull(ServiceTime):
    """Weibull(shape k, scale s), a family the paper leaves as future work (Sec. VIII-2).

    The min of m copies is Weibull(k, s m^(-1/k)), so E[T_job(m)] = s m^(-1/k) Γ(1 + 1/k);
    the quadrature of the survival function (:meth:`quadrature_mean`) checks it. k < 1 is
    heavier-tailed than exponential: replication pays off the most there.

    Parameters
    ----------
    shape : float
        The shape k, in [0.2, 20]; k < 1 is heavier-tailed than exponential.
    scale : float
        The scale s [s], > 0.
    """

    name = "Weibull"
    param_names = FAMILY_PARAMS["Weibull"]

    def __init__(self, shape: float, scale: float):
        ok = PARAMS.check("Weibull", shape=shape, scale=scale)
        self.shape, self.scale = ok["shape"], ok["scale"]

    def survival(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)
        return np.exp(-((t / self.scale) ** self.shape))

    def closed_form_mean(self, m: int) -> float:
        return self.scale * m ** (-1.0 / self.shape) * math.gamma(1.0 + 1.0 / self.shape)

    def _mean(self, m: int) -> float:
        # exact, and a vector of m costs no quadrature (slider views over N up to 300)
        return self.closed_form_mean(m)

    def sample(self, size, rng):
        return self.scale * rng.weibull(self.shape, size)

    def sample_job_times(self, m, size, rng):
        return self.scale * m ** (-1.0 / self.shape) * rng.weibull(self.shape, size)


SERVICE_FAMILIES = {"S-Exp": SExp, "Pareto": Pareto, "Weibull": Weibull}


def make_service(family: str, *args, **params) -> ServiceTime:
    """A service law from its family and parameters, positional or by name.

    ``make_service("Pareto", 1.5, 1.2)`` and ``make_service("Pareto", beta=1.5, alpha=1.2)``
    are the same law.

    Parameters
    ----------
    family : {"S-Exp", "Pareto", "Weibull"}
        The family.
    *args, **params
        Its two parameters, in the order or by the names of
        :data:`~workbench.redundancy.params.FAMILY_PARAMS` (each exactly once).

    Returns
    -------
    ServiceTime
        The law (:class:`SExp`, :class:`Pareto` or :class:`Weibull`).
    """
    family = PARAMS["family"].check(family, "make_service")
    names = FAMILY_PARAMS[family]
    reject_unknown("make_service", params, names)
    values = dict(zip(names, args, strict=False))
    if (
        len(args) > len(names)
        or set(values) & set(params)
        or len(values) + len(params) != len(names)
    ):
        raise ParameterError(
            f"The parameters of make_service for family {family!r} are {names}; "
            f"got {len(args)} positional and {sorted(params)} by name instead."
        )
    return SERVICE_FAMILIES[family](**values, **params)


@functools.lru_cache(maxsize=100_000)
def _cached_mean(service: ServiceTime, m: int) -> float:
    """E[T_job(m)] of a validated law and m, cached per (law, m)."""
    return service._mean(m)


@functools.lru_cache(maxsize=256)
def _job_times(service: ServiceTime, m_max: int) -> np.ndarray:
    """E[T_job(m)] for m = 0..m_max (index 0 unused: NaN), cached as a read-only array."""
    out = np.array([math.nan] + [_cached_mean(service, m) for m in range(1, m_max + 1)])
    out.flags.writeable = False
    return out


def _check_service(service, func: str) -> ServiceTime:
    # the one check that is not a parameter range: the law itself was validated when built
    # (the abstract ServiceTime() has no law at all)
    if not isinstance(service, ServiceTime) or type(service).survival is ServiceTime.survival:
        raise refusal(func, "service", "a ServiceTime (SExp, Pareto or Weibull)", service)
    return service


def _check_jobs(n_jobs, func: str) -> int:
    """The run length, with the memory of one run in the message when it is too long."""
    n_jobs = PARAMS["jobs"].with_(high=None).check(n_jobs, func)
    if n_jobs > MAX_JOBS_PER_RUN:
        raise ParameterError(
            f"The 'jobs' parameter of {func} must be an int in the range [10, "
            f"{MAX_JOBS_PER_RUN:.0e}]. Got {_short(n_jobs)} instead: one run holds about 60 "
            f"bytes per job in memory ({_short(60 * n_jobs // 10**9)} GB here); for longer "
            "simulations use more replications."
        )
    return n_jobs


def _short(n: int) -> str:
    """A huge int in a few characters (``1e+308``, not 309 digits)."""
    return f"{n:.3g}" if n < 10**300 else f"~1e{len(str(n)) - 1}"


class _Relations(ParamsModel):
    def check_relations(self, func: str, fields) -> None:
        """m <= N (a function that takes both); jobs × replications within the budget."""
        if "m" in fields and "N" in fields and self.m > self.N:
            PARAMS["m"].with_(high=self.N).check(self.m, func)  # raises, saying the range
        if "jobs" in fields and "replications" in fields:
            check_total_jobs(func, self.jobs, self.replications)


def check_total_jobs(func: str, jobs: int, replications: int) -> None:
    """Refuse a call whose ``jobs * replications`` exceeds ``MAX_TOTAL_JOBS``.

    Parameters
    ----------
    func : str
        The public function the error names.
    jobs, replications : int
        Jobs per run and runs; their product is the call's work (about a minute on one core
        at the bound).
    """
    total = jobs * replications
    if total > MAX_TOTAL_JOBS:
        raise ParameterError(
            f"The run of {func} is too long: jobs * replications = {jobs:,} * "
            f"{replications:,} = {_short(total)} jobs, more than the {MAX_TOTAL_JOBS:.0e} the "
            "workbench simulates in one call (about a minute of work on one core); use "
            "fewer replications or shorter runs, or split the study into several calls."
        )


_DEFAULT_FAMILY = PARAMS["family"].default
#: the default law: the table's default family with its rows' defaults
DEFAULT_SERVICE = SERVICE_FAMILIES[_DEFAULT_FAMILY](
    **{n: PARAMS[n].default for n in FAMILY_PARAMS[_DEFAULT_FAMILY]}
)

P4Params = PARAMS.model(
    "P4Params",
    # the object holds the law itself; the family and its parameters are its constructor's
    exclude=("family", *(n for names in FAMILY_PARAMS.values() for n in names)),
    extra={"service": (ServiceTime, DEFAULT_SERVICE, _check_service)},
    checks={"jobs": _check_jobs},
    base=_Relations,
    doc="""P4's parameters, one validated object: a row of PARAMS per field, and the service law.

    Every public function of the model and the simulation takes it, or its keywords
    (:func:`workbench.params.takes`).

    Parameters
    ----------
    service : ServiceTime
        One worker's service-time law (SExp, Pareto or Weibull; default S-Exp(3, 0.2)).
    """,
)


# --------------------------------------------------------------------------------------
# Analytic metrics
# --------------------------------------------------------------------------------------


@takes(P4Params, "N", "m", positional=True)
def groups(p) -> int:
    """Number of replication groups c = ⌊N/m⌋; N mod m workers stay idle.

    Returns
    -------
    int
        c, at least 1.
    """
    return p.N // p.m


@takes(P4Params, "m", "service", positional=True)
def job_time(p) -> float:
    """E[T_job(m)], the mean of the fastest of m copies.

    Returns
    -------
    float
        E[T_job(m)] in seconds.

    References
    ----------
    Peng & Soljanin, eqs. (2)-(3).
    """
    return _cached_mean(p.service, p.m)


@takes(P4Params, "N", "m", "lam", "service", positional=True)
def blocking(p) -> float:
    """P_b = ErlangB(c, λ E[T_job(m)]) with c = ⌊N/m⌋ (stable recursion).

    Returns
    -------
    float
        The probability that a job finds every group busy (sent to the cloud), in [0, 1].

    References
    ----------
    Peng & Soljanin, eq. (4), written there with factorials (which overflow past c ≈ 170).
    """
    return float(erlang_b_kernel(p.N // p.m, p.lam * _cached_mean(p.service, p.m)))


@takes(P4Params, "N", "m", "service", positional=True)
def lambda_max(p) -> float:
    """The paper's 'maximum stable arrival rate' λ_m(c), as written in Sec. V-C.

    S-Exp: μNc / (ΔμN + c); Pareto: (αNc − c²) / (βαN); both equal c / E[T_job(N/c)]
    (with the non-integer N/c when m does not divide N). Other families: c / E[T_job(m)].
    A loss system has no stability limit: this is only where eq. 8 takes over.

    Returns
    -------
    float
        λ_m(c) [1/s].
    """
    return _lambda_max(p.N, p.N // p.m, _cached_mean(p.service, p.m), p.service)


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", "formula", positional=True)
def system_time(p) -> float:
    """Mean system time E[T_sys] of one job (edge or cloud).

    Parameters
    ----------
    N, m : int
        Workers and replication factor (1 <= m <= N); c = ⌊N/m⌋ groups.
    lam : float
        Poisson arrival rate λ, > 0.
    t_cloud : float
        Time T_cl of a job sent to the cloud, >= 0.
    service : ServiceTime
        SExp, Pareto or Weibull.
    formula : {"exact", "paper"}
        ``exact``: eq. 1 with Erlang-B at every load. ``paper``: eq. 1 below λ_m, eqs. 8-9
        above it, as in Algorithm 2 (ASTO).

    Returns
    -------
    float
        E[T_sys] in seconds.

    References
    ----------
    Peng & Soljanin, eq. (1) E[T_sys] = (1 − P_b) E[T_job] + P_b T_cl; eqs. (8)-(9).
    """
    c = p.N // p.m
    tj = _cached_mean(p.service, p.m)
    if p.formula == "paper":
        lam_m = lambda_max(p)
        if p.lam > lam_m:
            p_max = float(erlang_b_kernel(c, float(c)))  # eq. 9
            served = lam_m / p.lam * (1.0 - p_max)
            return served * tj + (1.0 - served) * p.t_cloud  # eq. 8
    pb = float(erlang_b_kernel(c, p.lam * tj))
    return (1.0 - pb) * tj + pb * p.t_cloud


@takes(P4Params, "N", "lam", "t_cloud", "service", "ms", positional=True)
def metrics_by_m(p, ms=None) -> pd.DataFrame:
    """Tidy table over m: c, E[T_job], P_b, λ_m, E[T_sys] (exact and paper).

    Parameters
    ----------
    ms : sequence of int, optional
        The group sizes m, each in [1, N]; None: every m from 1 to N.

    Returns
    -------
    pandas.DataFrame
        One row per m.
    """
    N = p.N
    if ms is None:
        ms = range(1, N + 1)
    else:
        ms = [int(v) for v in check_array(ms, "ms", "metrics_by_m", low=1, high=N, dtype=int)]
    rows = []
    for m in ms:
        q = p.trusted(m=m)
        tj = _cached_mean(p.service, m)
        rows.append(
            {
                "m": m,
                "c": N // m,
                "job_time": tj,
                "blocking": float(erlang_b_kernel(N // m, p.lam * tj)),
                "lambda_max": lambda_max(q),
                "system_time_exact": system_time(q.trusted(formula="exact")),
                "system_time_paper": system_time(q.trusted(formula="paper")),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Algorithms: BPO (Alg. 1), ASTO (Alg. 2), exhaustive optimum
# --------------------------------------------------------------------------------------


@takes(P4Params, "N", "lam", "t_cloud", "service", "formula", positional=True)
def optimal_m(p) -> int:
    """Exhaustive argmin over m = 1..N of E[T_sys] by ``formula`` (smallest m on ties).

    Returns
    -------
    int
        The optimal replication factor m*.
    """
    _starts, times, _exact = _sweep([p.N], p.lam, p.t_cloud, p.service, p.formula)
    return int(np.argmin(times)) + 1


@takes(P4Params, "N", "lam", "service", positional=True)
def optimal_m_blocking(p) -> int:
    """Exhaustive argmin over m = 1..N of P_b (smallest m on ties).

    Returns
    -------
    int
        The replication factor with the least blocking.
    """
    N, lam, service = p.N, p.lam, p.service
    pb = [erlang_b_kernel(N // m, lam * _cached_mean(service, m)) for m in range(1, N + 1)]
    return int(np.argmin(pb)) + 1


@takes(P4Params, "Ns", "lam", "t_cloud", "service", "formula", positional=True)
def optimum_vs_workers(p, Ns) -> pd.DataFrame:
    """The optimal m and c = ⌊N/m⌋ for each N in ``Ns``, vectorised over (N, m).

    Same arithmetic as :func:`optimal_m` for each N (one Erlang-B recursion per (N, m)),
    in one compiled pass over all pairs; E[T_job(m)] comes from the per-service cache.

    Parameters
    ----------
    Ns : sequence of int
        The numbers of edge workers N, each in the table's range of ``N``.

    Returns
    -------
    pandas.DataFrame
        Columns N, m_opt, c_opt, formula, system_time (exact E[T_sys] at m_opt).
    """
    n_row = PARAMS["N"]
    Ns = check_array(
        list(Ns) if isinstance(Ns, range) else Ns,
        "Ns",
        "optimum_vs_workers",
        low=n_row.low,
        high=n_row.high,
        dtype=int,
    )
    Ns = [int(n) for n in Ns]
    cols = {"N": [], "m_opt": [], "c_opt": [], "formula": [], "system_time": []}
    if not Ns:
        return pd.DataFrame(cols)
    starts, times, exact = _sweep(Ns, p.lam, p.t_cloud, p.service, p.formula)
    for N, start in zip(Ns, starts, strict=True):
        m = int(np.argmin(times[start : start + N])) + 1
        cols["N"].append(N)
        cols["m_opt"].append(m)
        cols["c_opt"].append(N // m)
        cols["formula"].append(p.formula)
        cols["system_time"].append(float(exact[start + m - 1]))
    return pd.DataFrame(cols)


def _sweep(Ns, lam, t_cloud, service, formula):
    """E[T_sys] of every pair (N, m = 1..N) for N in ``Ns``, N by N, in one compiled pass:
    (the start of each N's block, E[T_sys] by ``formula``, E[T_sys] exact). The arithmetic
    of :func:`system_time`, operation for operation."""
    tj_all = _job_times(service, max(Ns))
    Ns_arr = np.asarray(Ns, dtype=np.int64)
    counts = Ns_arr
    n_of = np.repeat(Ns_arr, counts)  # (N, m) pairs, N by N
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    m_of = np.arange(n_of.size) - np.repeat(starts, counts) + 1
    c_of = n_of // m_of
    tj = tj_all[m_of]
    pb = erlang_b_many_kernel(c_of, lam * tj)
    exact = (1.0 - pb) * tj + pb * t_cloud
    times = exact
    if formula == "paper":
        lam_m = _lambda_max(n_of, c_of, tj, service)
        over = lam > lam_m
        if over.any():
            p_max = erlang_b_many_kernel(c_of[over], c_of[over].astype(float))
            served = lam_m[over] / lam * (1.0 - p_max)
            times = exact.copy()
            times[over] = served * tj[over] + (1.0 - served) * t_cloud
    return starts, times, exact


def _lambda_max(n, c, tj, service):
    """λ_m of N = ``n`` workers in ``c`` groups (numbers or arrays alike): the paper's forms
    for S-Exp and Pareto, else c / E[T_job] (``tj``)."""
    if isinstance(service, SExp):
        return service.mu * n * c / (service.delta * service.mu * n + c)
    if isinstance(service, Pareto):
        return (service.alpha * n * c - c * c) / (service.beta * service.alpha * n)
    return c / tj


@takes(P4Params, "N", "lam", "service", positional=True)
def bpo(p) -> int:
    """Algorithm 1 (BPO): the replication factor minimising blocking, as the paper states it.

    S-Exp: m = 1 (Theorem 1). Pareto: m = 1 if α >= 1.5, else the better of m = 1 and
    m = 2 (Lemma 1). Other families: the exhaustive argmin of P_b (the paper has no rule).

    Returns
    -------
    int
        BPO's replication factor.
    """
    N, lam, service = p.N, p.lam, p.service
    if isinstance(service, SExp):
        return 1
    if isinstance(service, Pareto):
        if service.alpha >= 1.5 or N < 2:
            return 1
        p1 = erlang_b_kernel(N, lam * _cached_mean(service, 1))
        p2 = erlang_b_kernel(N // 2, lam * _cached_mean(service, 2))
        return 1 if p1 <= p2 else 2
    return optimal_m_blocking(p)


@takes(P4Params, "N", "lam", "t_cloud", "service", positional=True)
def asto(p) -> int:
    """Algorithm 2 (ASTO) as the paper writes it.

    S-Exp: the Theorem 2 shortcuts (m = 1 when T_cl >= T1; m = N when T_cl <= Δ + 1/μ and
    λ <= λ1), else the argmin over m of the paper's E[T_sys] (eq. 1 / eq. 8). Pareto: the
    same structure with Lemma 2's conditions (the paper prints the algorithm for S-Exp only;
    this transcription is the workbench's). Other families: the argmin alone.

    Returns
    -------
    int
        ASTO's replication factor.
    """
    if p.N >= 3:
        shortcut = _asto_shortcut(p.N, p.lam, p.t_cloud, p.service)
        if shortcut is not None:
            return shortcut
    return optimal_m(p.trusted(formula="paper"))


def _asto_shortcut(N, lam, t_cloud, service):
    def pb(c):  # P_b with c groups of N/c replicas, as eqs. 5-6 write it
        return float(erlang_b_kernel(c, lam * _job_time_of_groups(N, c, service)))

    p_n, p_1, p_half = pb(N), pb(1), pb(N // 2)
    if isinstance(service, SExp):
        d, mu = service.delta, service.mu
        gap = mu * (p_half - p_n)  # may underflow to 0 at a subnormal λ: then no threshold
        t1 = (1 - 1 / N - p_n + p_1 / N) / gap + d if gap > 0 else np.inf
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
    return _cached_mean(service, N // c)


@takes(P4Params, "policy", "N", "lam", "t_cloud", "service", positional=True)
def policy_m(p) -> int:
    """The m chosen by a named policy: asto, bpo, benchmark (m = 1), optimal (exact argmin).

    Returns
    -------
    int
        The policy's replication factor.
    """
    if p.policy == "asto":
        return asto(p)
    if p.policy == "bpo":
        return bpo(p)
    if p.policy == "benchmark":
        return 1
    return optimal_m(p.trusted(formula="exact"))


# --------------------------------------------------------------------------------------
# Station table: utilisation, throughput, mean number and time per station
# --------------------------------------------------------------------------------------

_STATION_COLUMNS = (
    "station",
    "servers",
    "utilisation",
    "throughput [1/s]",
    "mean number",
    "mean time [s]",
)


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", positional=True)
def station_table(p) -> pd.DataFrame:
    """Per station, as a network analyser shows it: the edge groups, the cloud, the system.

    Edge: c = ⌊N/m⌋ groups (servers) of the M/G/c/c system; throughput λ(1 − P_b), mean
    number λ(1 − P_b) E[T_job] (Little), utilisation per group that number over c (and the
    busy fraction of all N workers, m copies per job, in the row below). Cloud: infinitely
    many servers, throughput λ P_b, time T_cl. System: throughput λ, time E[T_sys] (eq. 1).

    Returns
    -------
    pandas.DataFrame
        One row per station: servers, utilisation, throughput [1/s], mean number, mean
        time [s].
    """
    return _stations(p, blocking(p), _cached_mean(p.service, p.m))


@takes(P4Params, "N", "m", "lam", "t_cloud", "service", positional=True)
def simulated_station_table(p, *, result) -> pd.DataFrame:
    """The station table (:func:`station_table`) from a simulation of the same model.

    Uses the simulated fraction sent to the cloud P̂_b and the simulated E[T_sys]; the edge
    time is what eq. 1 leaves for it, (Ê[T_sys] − P̂_b T_cl) / (1 − P̂_b).

    Parameters
    ----------
    result : SimulationResult
        :func:`workbench.redundancy.simulate`'s result for these (N, m, λ, T_cl).

    Returns
    -------
    pandas.DataFrame
        The station table's rows, simulated.
    """
    f = "simulated_station_table"
    model = (p.N, p.m, p.lam, p.t_cloud)
    ran = result.info.get("model") if isinstance(result, SimulationResult) else None
    if ran is None or result.metric != "system_time":
        raise refusal(
            f,
            "result",
            "a SimulationResult of workbench.redundancy.simulate",
            got=type(result).__name__,
        )
    if tuple(ran) != model:
        raise ParameterError(
            f"The 'result' parameter of {f} must come from a run of the same model "
            f"(N, m, lam, t_cloud) = {model}. Got a run of {tuple(ran)} instead."
        )
    pb = result.blocking
    edge_time = (result.mean - pb * p.t_cloud) / (1.0 - pb) if pb < 1 else math.nan
    return _stations(p, pb, edge_time)


def _stations(p, pb, edge_time) -> pd.DataFrame:
    N, m, lam, t_cloud = p.N, p.m, p.lam, p.t_cloud
    c = N // m
    edge_rate = lam * (1.0 - pb)
    edge_number = edge_rate * edge_time
    cloud_rate = lam * pb
    rows = [
        ("edge groups", c, edge_number / c, edge_rate, edge_number, edge_time),
        (
            "edge workers (m copies per job)",
            N,
            m * edge_number / N,
            edge_rate,
            m * edge_number,
            edge_time,
        ),
        ("cloud", math.inf, math.nan, cloud_rate, cloud_rate * t_cloud, t_cloud),
        (
            "whole system",
            math.nan,
            math.nan,
            lam,
            edge_number + cloud_rate * t_cloud,
            (1.0 - pb) * edge_time + pb * t_cloud,
        ),
    ]
    return pd.DataFrame(rows, columns=list(_STATION_COLUMNS))
