"""The analytic model: service families, E[T_job], P_b, E[T_sys], and the allocation rules.

Reading order: service families -> analytic metrics -> algorithms (BPO, ASTO, exhaustive
optimum). Public functions validate their arguments once (against
:data:`workbench.redundancy.params.PARAMS`) and call private helpers that never re-validate.

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
from workbench.redundancy.params import FAMILY_PARAMS, PARAMS
from workbench.results import SimulationResult
from workbench.validation import ParameterError, check_array, reject_unknown

__all__ = [
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
        return _job_time(self, m)

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
    are the same law; the parameter names of each family are in
    :data:`~workbench.redundancy.params.FAMILY_PARAMS`.
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
def _job_time(service: ServiceTime, m: int) -> float:
    return service._mean(m)


@functools.lru_cache(maxsize=256)
def _job_times(service: ServiceTime, m_max: int) -> np.ndarray:
    """E[T_job(m)] for m = 0..m_max (index 0 unused: NaN), cached as a read-only array."""
    out = np.array([math.nan] + [_job_time(service, m) for m in range(1, m_max + 1)])
    out.flags.writeable = False
    return out


def _service(service, func: str) -> ServiceTime:
    # the one check that is not a parameter range: the law itself was validated when built
    # (the abstract ServiceTime() has no law at all)
    if not isinstance(service, ServiceTime) or type(service).survival is ServiceTime.survival:
        raise ParameterError(
            f"The 'service' parameter of {func} must be a ServiceTime (SExp, Pareto or Weibull). "
            f"Got {service!r} instead."
        )
    return service


def _check_simulated(result, model: tuple, func: str) -> None:
    """``result`` is P4's :func:`simulate` result for the model ``(N, m, lam, t_cloud)``."""
    ran = result.info.get("model") if isinstance(result, SimulationResult) else None
    if ran is None or result.metric != "system_time":
        raise ParameterError(
            f"The 'result' parameter of {func} must be a SimulationResult of "
            f"workbench.redundancy.simulate. Got {type(result).__name__} instead."
        )
    if tuple(ran) != tuple(model):
        raise ParameterError(
            f"The 'result' parameter of {func} must come from a run of the same model "
            f"(N, m, lam, t_cloud) = {tuple(model)}. Got a run of {tuple(ran)} instead."
        )


def _m_upto(m, N: int, func: str) -> int:
    """m validated against its own range and the dependent bound m <= N."""
    return PARAMS["m"].with_(high=N).check(m, func)


# --------------------------------------------------------------------------------------
# Analytic metrics
# --------------------------------------------------------------------------------------


def groups(N: int, m: int) -> int:
    """Number of replication groups c = ⌊N/m⌋; N mod m workers stay idle."""
    N = PARAMS["N"].check(N, "groups")
    return N // _m_upto(m, N, "groups")


def job_time(m: int, service: ServiceTime) -> float:
    """E[T_job(m)], the mean of the fastest of m copies.

    References
    ----------
    Peng & Soljanin, eqs. (2)-(3).
    """
    m = PARAMS["m"].check(m, "job_time")
    return _job_time(_service(service, "job_time"), m)


def blocking(N: int, m: int, lam: float, service: ServiceTime) -> float:
    """P_b = ErlangB(c, λ E[T_job(m)]) with c = ⌊N/m⌋ (stable recursion).

    References
    ----------
    Peng & Soljanin, eq. (4), written there with factorials (which overflow past c ≈ 170).
    """
    ok = PARAMS.check("blocking", N=N, lam=lam)
    N, lam = ok["N"], ok["lam"]
    m = _m_upto(m, N, "blocking")
    service = _service(service, "blocking")
    return float(erlang_b_kernel(N // m, lam * _job_time(service, m)))


def lambda_max(N: int, m: int, service: ServiceTime) -> float:
    """The paper's 'maximum stable arrival rate' λ_m(c), as written in Sec. V-C.

    S-Exp: μNc / (ΔμN + c); Pareto: (αNc − c²) / (βαN); both equal c / E[T_job(N/c)]
    (with the non-integer N/c when m does not divide N). Other families: c / E[T_job(m)].
    A loss system has no stability limit: this is only where eq. 8 takes over.
    """
    N = PARAMS["N"].check(N, "lambda_max")
    m = _m_upto(m, N, "lambda_max")
    return _lambda_max(N, m, _service(service, "lambda_max"))


def _lambda_max(N, m, service):
    c = N // m
    if isinstance(service, SExp):
        return service.mu * N * c / (service.delta * service.mu * N + c)
    if isinstance(service, Pareto):
        return (service.alpha * N * c - c * c) / (service.beta * service.alpha * N)
    return c / _job_time(service, m)


def system_time(N, m, lam, t_cloud, service, formula: str = "exact") -> float:
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

    References
    ----------
    Peng & Soljanin, eq. (1) E[T_sys] = (1 − P_b) E[T_job] + P_b T_cl; eqs. (8)-(9).
    """
    ok = PARAMS.check("system_time", N=N, lam=lam, t_cloud=t_cloud, formula=formula)
    m = _m_upto(m, ok["N"], "system_time")
    service = _service(service, "system_time")
    return _system_time(ok["N"], m, ok["lam"], ok["t_cloud"], service, ok["formula"])


def _system_time(N, m, lam, t_cloud, service, formula):
    c = N // m
    tj = _job_time(service, m)
    if formula == "paper":
        lam_m = _lambda_max(N, m, service)
        if lam > lam_m:
            p_max = float(erlang_b_kernel(c, float(c)))  # eq. 9
            served = lam_m / lam * (1.0 - p_max)
            return served * tj + (1.0 - served) * t_cloud  # eq. 8
    pb = float(erlang_b_kernel(c, lam * tj))
    return (1.0 - pb) * tj + pb * t_cloud


def metrics_by_m(N, lam, t_cloud, service, ms=None) -> pd.DataFrame:
    """Tidy table over m: c, E[T_job], P_b, λ_m, E[T_sys] (exact and paper)."""
    ok = PARAMS.check("metrics_by_m", N=N, lam=lam, t_cloud=t_cloud)
    N, lam, t_cloud = ok["N"], ok["lam"], ok["t_cloud"]
    service = _service(service, "metrics_by_m")
    if ms is None:
        ms = range(1, N + 1)
    else:
        ms = [int(v) for v in check_array(ms, "ms", "metrics_by_m", low=1, high=N, dtype=int)]
    rows = []
    for m in ms:
        tj = _job_time(service, m)
        rows.append(
            {
                "m": m,
                "c": N // m,
                "job_time": tj,
                "blocking": float(erlang_b_kernel(N // m, lam * tj)),
                "lambda_max": _lambda_max(N, m, service),
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
    ok = PARAMS.check("optimal_m", N=N, lam=lam, t_cloud=t_cloud, formula=formula)
    service = _service(service, "optimal_m")
    return _argmin_m(ok["N"], ok["lam"], ok["t_cloud"], service, ok["formula"])


def _argmin_m(N, lam, t_cloud, service, formula):
    times = [_system_time(N, m, lam, t_cloud, service, formula) for m in range(1, N + 1)]
    return int(np.argmin(times)) + 1


def optimal_m_blocking(N, lam, service) -> int:
    """Exhaustive argmin over m of P_b (smallest m on ties)."""
    ok = PARAMS.check("optimal_m_blocking", N=N, lam=lam)
    return _optimal_m_blocking(ok["N"], ok["lam"], _service(service, "optimal_m_blocking"))


def _optimal_m_blocking(N, lam, service):
    pb = [erlang_b_kernel(N // m, lam * _job_time(service, m)) for m in range(1, N + 1)]
    return int(np.argmin(pb)) + 1


def optimum_vs_workers(Ns, lam, t_cloud, service, formula="exact") -> pd.DataFrame:
    """The optimal m and c = ⌊N/m⌋ for each N in ``Ns``, vectorised over (N, m).

    Same arithmetic as :func:`optimal_m` for each N (one Erlang-B recursion per (N, m)),
    in one compiled pass over all pairs; E[T_job(m)] comes from the per-service cache.
    Columns: N, m_opt, c_opt, formula, system_time (exact E[T_sys] at m_opt).
    """
    ok = PARAMS.check("optimum_vs_workers", lam=lam, t_cloud=t_cloud, formula=formula)
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
    service = _service(service, "optimum_vs_workers")
    return _optimum_vs_workers(Ns, ok["lam"], ok["t_cloud"], service, ok["formula"])


def _optimum_vs_workers(Ns, lam, t_cloud, service, formula):
    cols = {"N": [], "m_opt": [], "c_opt": [], "formula": [], "system_time": []}
    if not Ns:
        return pd.DataFrame(cols)
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
        lam_m = _lambda_max_many(n_of, m_of, c_of, tj, service)
        over = lam > lam_m
        if over.any():
            p_max = erlang_b_many_kernel(c_of[over], c_of[over].astype(float))
            served = lam_m[over] / lam * (1.0 - p_max)
            times = exact.copy()
            times[over] = served * tj[over] + (1.0 - served) * t_cloud
    for N, start in zip(Ns, starts, strict=True):
        m = int(np.argmin(times[start : start + N])) + 1
        cols["N"].append(N)
        cols["m_opt"].append(m)
        cols["c_opt"].append(N // m)
        cols["formula"].append(formula)
        cols["system_time"].append(float(exact[start + m - 1]))
    return pd.DataFrame(cols)


def _lambda_max_many(n, m, c, tj, service):
    if isinstance(service, SExp):
        return service.mu * n * c / (service.delta * service.mu * n + c)
    if isinstance(service, Pareto):
        return (service.alpha * n * c - c * c) / (service.beta * service.alpha * n)
    return c / tj


def bpo(N, lam, service) -> int:
    """Algorithm 1 (BPO): the replication factor minimising blocking, as the paper states it.

    S-Exp: m = 1 (Theorem 1). Pareto: m = 1 if α >= 1.5, else the better of m = 1 and
    m = 2 (Lemma 1). Other families: the exhaustive argmin of P_b (the paper has no rule).
    """
    ok = PARAMS.check("bpo", N=N, lam=lam)
    return _bpo(ok["N"], ok["lam"], _service(service, "bpo"))


def _bpo(N, lam, service):
    if isinstance(service, SExp):
        return 1
    if isinstance(service, Pareto):
        if service.alpha >= 1.5 or N < 2:
            return 1
        p1 = erlang_b_kernel(N, lam * _job_time(service, 1))
        p2 = erlang_b_kernel(N // 2, lam * _job_time(service, 2))
        return 1 if p1 <= p2 else 2
    return _optimal_m_blocking(N, lam, service)


def asto(N, lam, t_cloud, service) -> int:
    """Algorithm 2 (ASTO) as the paper writes it.

    S-Exp: the Theorem 2 shortcuts (m = 1 when T_cl >= T1; m = N when T_cl <= Δ + 1/μ and
    λ <= λ1), else the argmin over m of the paper's E[T_sys] (eq. 1 / eq. 8). Pareto: the
    same structure with Lemma 2's conditions (the paper prints the algorithm for S-Exp only;
    this transcription is the workbench's). Other families: the argmin alone.
    """
    ok = PARAMS.check("asto", N=N, lam=lam, t_cloud=t_cloud)
    return _asto(ok["N"], ok["lam"], ok["t_cloud"], _service(service, "asto"))


def _asto(N, lam, t_cloud, service):
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
    return _job_time(service, N // c)


def policy_m(policy: str, N, lam, t_cloud, service) -> int:
    """The m chosen by a named policy: asto, bpo, benchmark (m = 1), optimal (exact argmin)."""
    ok = PARAMS.check("policy_m", policy=policy, N=N, lam=lam, t_cloud=t_cloud)
    service = _service(service, "policy_m")
    return _policy_m(ok["policy"], ok["N"], ok["lam"], ok["t_cloud"], service)


def _policy_m(policy, N, lam, t_cloud, service):
    if policy == "asto":
        return _asto(N, lam, t_cloud, service)
    if policy == "bpo":
        return _bpo(N, lam, service)
    if policy == "benchmark":
        return 1
    return _argmin_m(N, lam, t_cloud, service, "exact")


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


def station_table(N, m, lam, t_cloud, service) -> pd.DataFrame:
    """Per station, as a network analyser shows it: the edge groups, the cloud, the system.

    Edge: c = ⌊N/m⌋ groups (servers) of the M/G/c/c system; throughput λ(1 − P_b), mean
    number λ(1 − P_b) E[T_job] (Little), utilisation per group that number over c (and the
    busy fraction of all N workers, m copies per job, in the row below). Cloud: infinitely
    many servers, throughput λ P_b, time T_cl. System: throughput λ, time E[T_sys] (eq. 1).
    """
    ok = PARAMS.check("station_table", N=N, lam=lam, t_cloud=t_cloud)
    N, lam, t_cloud = ok["N"], ok["lam"], ok["t_cloud"]
    m = _m_upto(m, N, "station_table")
    service = _service(service, "station_table")
    pb = float(erlang_b_kernel(N // m, lam * _job_time(service, m)))
    return _stations(N, m, lam, t_cloud, pb, _job_time(service, m))


def _stations(N, m, lam, t_cloud, pb, edge_time) -> pd.DataFrame:
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
