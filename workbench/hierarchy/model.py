"""The decision rules of the hierarchy and the queueing theory that checks the simulator.

Decision rules (Yin, Chen & Hu 2019)
------------------------------------
- eq. 1  :func:`shannon_rate`      wireless offload rate ``W log2(1 + P H / (ω + I))``
- eqs. 3-5 :func:`local_overhead`  ``γ_t D/F_i + γ_e κ F_i² D``
- eqs. 6-8 :func:`offload_overhead` ``γ_t (B/W + D/F_j) + γ_e P B/W``
- eq. 10  the same with the next hop's queued work: ``γ_t (B/W + (D + ΣD_j)/F_j) + ...``
- eq. 9  :func:`decide`            offload iff the offload overhead is strictly lower
- eq. 11 :func:`red_thresholds`    ``min(1, t̄)·min_th``, ``max(1, t̄)·max_th``
- eq. 12 :func:`eq12_queue_estimate` mean number of queued tasks from the mean time

Theory used as test oracle
--------------------------
- :func:`size_moments`: mean and second moment of the Normal(μ, σ) size truncated at 0;
- :func:`workbench.erlang.pollaczek_khinchine` (the shared copy): M/G/1 mean sojourn time
  (pure local: every generating server is one; pure cloud: the centre is one, plus the links).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from workbench.hierarchy.params import PARAMS
from workbench.hierarchy.topology import P5Params
from workbench.params import takes
from workbench.validation import ParameterError, check_array, check_real, describe, refusal

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

__all__ = [
    "P5Params",
    "shannon_rate",
    "local_overhead",
    "offload_overhead",
    "decide",
    "red_thresholds",
    "eq12_queue_estimate",
    "size_moments",
    "static_route",
    "utilisation_bound",
]


def shannon_rate(bandwidth, power, gain, noise, interference=0.0) -> float:
    """Wireless offload rate, eq. 1: ``W log2(1 + P H / (ω + Σ P_m H_m))``.

    Parameters
    ----------
    bandwidth : float
        Channel bandwidth W > 0.
    power, gain : float
        Transmit power P_i >= 0 and channel gain H_i >= 0 of the sender.
    noise : float
        Background interference power ω_i > 0.
    interference : float
        ``Σ P_m H_m`` of the other senders offloading at the same time (>= 0).

    Returns
    -------
    float
        The rate, in the unit of ``bandwidth`` times bit/s/Hz.

    References
    ----------
    Yin, Chen, Hu, FGCS 90 (2019), eq. 1 (after Chen et al., ref. [23]).
    """
    f = "shannon_rate"
    bandwidth, power = _table(f, bandwidth=bandwidth, power=power)
    gain = check_real(gain, "gain", f, 0.0, None)
    noise = check_real(noise, "noise", f, 0.0, None, low_open=True)
    interference = check_real(interference, "interference", f, 0.0, None)
    noise_total = noise + interference
    if power > 0.0 and gain > 0.0:
        log_snr = math.log2(power) + math.log2(gain) - math.log2(noise_total)
        if log_snr > 60.0:  # P H / ω overflows before log2(1 + x) = log2(x) to 1e-18
            return bandwidth * log_snr
    return bandwidth * math.log2(1.0 + power * gain / noise_total)


def time_weights(compute) -> tuple[np.ndarray, np.ndarray]:
    """``(γ_t, γ_e)`` with ``γ_t : γ_e = F : 1`` and ``γ_t + γ_e = 1`` (paper, Sec. 5.1)."""
    f = np.asarray(compute, dtype=float)
    return f / (f + 1.0), 1.0 / (f + 1.0)


def _nonneg(func, **values):
    """Finite values >= 0: scalars, or arrays checked elementwise (the views pass grids)."""
    out = []
    for name, v in values.items():
        arr = check_array(v, name, func, ndim=None, low=0.0)
        out.append(float(arr) if arr.ndim == 0 else arr)
    return out


def _finite(func, name, value, result):
    """``result`` if every element is finite, else a ParameterError: inputs each in range
    whose result overflows the float range (1e308 x 20) are refused, not answered with inf."""
    if np.all(np.isfinite(result)):
        return result
    raise ParameterError(
        f"The '{name}' parameter of {func} is too large: the result overflows the float "
        f"range (inf). Got {describe(value)} instead."
    )


def _table(func, **values):
    """Check values against the parameter table's ranges (same names, same bounds)."""
    return [PARAMS[name].check(v, func) for name, v in values.items()]


@takes(P5Params, "work", "compute", "gamma_t", "gamma_e", "kappa", positional=True)
def local_overhead(p, work, compute, gamma_t, gamma_e):
    """Overhead of running a task here, eq. 5: ``γ_t D/F_i + γ_e κ F_i² D``.

    Parameters
    ----------
    work : float or array_like
        D >= 0, the task's work [work units].
    compute : float
        F_i > 0, this server's speed [work units/s].
    gamma_t, gamma_e : float or array_like
        The weights of time and energy, >= 0 (:func:`time_weights`).

    Returns
    -------
    float or numpy.ndarray
        The overhead, shaped as the inputs.
    """
    f = "local_overhead"
    work, gamma_t, gamma_e = _nonneg(f, work=work, gamma_t=gamma_t, gamma_e=gamma_e)
    compute = check_real(compute, "compute", f, 0.0, 1e6, low_open=True)
    out = gamma_t * work / compute + gamma_e * p.kappa * compute**2 * work
    return _finite(f, "work", work, out)


def offload_overhead(work, data, bandwidth, compute_next, gamma_t, gamma_e, power, queued_next=0.0):
    """Overhead of sending a task to the next hop, eq. 8 (``queued_next = 0``) or eq. 10.

    ``γ_t (B/W + (D + ΣD_j)/F_j) + γ_e P B/W`` with ``ΣD_j = queued_next``.

    Parameters
    ----------
    work, data : float or array_like
        D >= 0 [work units] and B >= 0 [Mbit], the task's work and input.
    bandwidth : float
        W, the link's bandwidth [Mbit/s] (the table's range).
    compute_next : float
        F_j > 0, the next hop's speed [work units/s].
    gamma_t, gamma_e : float or array_like
        The sender's weights of time and energy, >= 0 (:func:`time_weights`).
    power : float
        P, the transmit power [W] (the table's range).
    queued_next : float or array_like
        ΣD_j >= 0, the work queued at the next hop (eq. 10; 0: the blind eq. 8).

    Returns
    -------
    float or numpy.ndarray
        The overhead, shaped as the inputs.
    """
    f = "offload_overhead"
    work, data, gamma_t, gamma_e, queued_next = _nonneg(
        f, work=work, data=data, gamma_t=gamma_t, gamma_e=gamma_e, queued_next=queued_next
    )
    bandwidth, power = _table(f, bandwidth=bandwidth, power=power)
    compute_next = check_real(compute_next, "compute_next", f, 0.0, 1e6, low_open=True)
    hop = data / bandwidth
    out = gamma_t * (hop + (work + queued_next) / compute_next) + gamma_e * power * hop
    return _finite(f, "work", work, out)


def decide(local, offload) -> int:
    """Eq. 9: offload iff the offload overhead is strictly below the local one.

    Parameters
    ----------
    local, offload : float
        The two overheads, >= 0 (:func:`local_overhead`, :func:`offload_overhead`).

    Returns
    -------
    int
        1 to offload, 0 to run here.
    """
    local = check_real(local, "local", "decide", 0.0, None)
    offload = check_real(offload, "offload", "decide", 0.0, None)
    return int(offload < local)


def red_thresholds(min_th, max_th, mean_exec_time) -> tuple[float, float]:
    """Eq. 11: RED's thresholds scaled by the mean execution time of the queued tasks.

    Short tasks (``t̄ < 1``) lower the lower threshold to the time of ``min_th`` tasks; long
    tasks widen the ramp so that a server does not refuse work too early.

    Parameters
    ----------
    min_th, max_th : float
        RED's thresholds before the scaling (rows of ``PARAMS``), ``min_th < max_th``.
    mean_exec_time : float
        ``t̄`` >= 0, the mean execution time of the queued tasks [s].

    Returns
    -------
    (float, float)
        ``(min(1, t̄) min_th, max(1, t̄) max_th)``.
    """
    f = "red_thresholds"
    p = P5Params.of(f, {"min_th": min_th, "max_th": max_th}, ("min_th", "max_th"))
    t = check_real(mean_exec_time, "mean_exec_time", f, 0.0, None)
    return min(1.0, t) * p.min_th, _finite(f, "mean_exec_time", t, max(1.0, t) * p.max_th)


def eq12_queue_estimate(mean_time, mean_size, compute) -> float:
    """The mean number of queued tasks per server implied by the mean completion time.

    Eq. 12 of the paper is garbled in the available text; the workbench reads it as: ``n_i``
    tasks queued at server ``i`` (speed ``F_i``, mean size ``s``) finish on average after
    ``(n_i + 1) s / (2 F_i)``, so the mean time over all queued tasks is
    ``Σ n_i (n_i + 1) s / (2 F_i) / Σ n_i``. With one common ``n`` on the ``k`` servers given,
    ``T = (n + 1) s Σ(1/F_i) / (2k)``, solved for ``n``.

    Parameters
    ----------
    mean_time : float
        T >= 0, the mean completion time [s].
    mean_size : float
        s > 0, the mean task size [work units].
    compute : float or array_like
        The speeds F_i > 0 of the ``k`` servers [work units/s].

    Returns
    -------
    float
        n >= 0, the estimated number of tasks queued per server.
    """
    fn = "eq12_queue_estimate"
    mean_time = check_real(mean_time, "mean_time", fn, 0.0, None)
    mean_size = check_real(mean_size, "mean_size", fn, 0.0, None, low_open=True)
    try:
        f = check_array(compute, "compute", fn, ndim=None, low=0.0, low_open=True).ravel()
    except ParameterError:
        f = np.zeros(0)
    if f.size == 0:
        raise refusal(fn, "compute", "one or more finite positive speeds", compute)
    k = f.size
    estimate = 2.0 * k * mean_time / (mean_size * np.sum(1.0 / f)) - 1.0
    return max(0.0, _finite(fn, "mean_time", mean_time, estimate))


@takes(P5Params, "task_size", "sigma", positional=True)
def size_moments(p) -> tuple[float, float]:
    """Mean and second moment of a task's size, Normal(μ, σ) truncated to ``D > 0``.

    Closed form with the inverse Mills ratio ``h = φ(a)/(1 − Φ(a))`` at ``a = −μ/σ``:
    ``E[D] = μ + σh`` and ``E[D²] = μ² + σ² + μσh``. ``h`` is computed as
    ``√(2/π) / erfcx(a/√2)``, finite for every ``μ > 0``, ``σ > 0`` (no overflow, no 0/0,
    unlike the ratio of ``φ`` and ``1 − Φ`` or a generic truncated-Normal routine).

    Parameters
    ----------
    task_size, sigma : float
        μ, the mean before truncation, and σ (0: the constant μ) [work units].

    Returns
    -------
    (float, float)
        ``(E[D], E[D²])``.
    """
    mu, sigma = p.task_size, p.sigma
    if sigma == 0:
        return mu, mu**2
    # μ > 0 makes a < 0 and erfcx(a/√2) >= 1 (up to inf): h lies in (0, √(2/π)]
    with np.errstate(over="ignore"):
        h = _SQRT_2_OVER_PI / float(special.erfcx(-mu / sigma / math.sqrt(2.0)))
    return mu + sigma * h, mu**2 + sigma**2 + mu * sigma * h


@takes(P5Params, "topology", "data_per_work", "power", "kappa", positional=True)
def static_route(p) -> np.ndarray:
    """Where the original rule (eqs. 5, 8, 9) runs a task from each server.

    Both overheads are proportional to D (B = βD), so the rule's choice does not depend on
    the size.

    Parameters
    ----------
    topology : str or Topology
        The hierarchy (a name builds it with the object's speeds and bandwidth).
    data_per_work, power, kappa : float
        β, P and κ of the overheads (rows of ``PARAMS``).

    Returns
    -------
    numpy.ndarray of int
        ``route[s]``: the server at which a task entering at ``s`` is executed.
    """
    topology, kappa = p.hierarchy(), p.kappa
    gt, ge = time_weights(topology.compute)
    route = np.empty(topology.n, dtype=int)
    for s in range(topology.n):
        here = s
        while topology.parent[here] >= 0:
            up = topology.parent[here]
            loc = local_overhead(1.0, topology.compute[here], gt[here], ge[here], kappa)
            off = offload_overhead(
                1.0,
                p.data_per_work,
                topology.bandwidth[here],
                topology.compute[up],
                gt[here],
                ge[here],
                p.power,
            )
            if not decide(loc, off):
                break
            here = up
        route[s] = here
    return route


@takes(
    P5Params,
    "model",
    "topology",
    "lam",
    "mean_size",
    "period",
    "data_per_work",
    "power",
    "kappa",
    "decision_time",
    "offload_busy",
    positional=True,
)
def utilisation_bound(p, mean_size=None) -> float:
    """The largest load (worker time per second) the model's routing forces on a server.

    1 or more: unstable. The load of a server is its executions plus, where the model
    decides, one decision ``τ_d`` per task it takes from its queue, plus, when handing an
    offload over occupies the worker, the transfer ``B/W`` of each task it sends up.

    - pure_local, pure_cloud, original: exact (static routing: each task's path is known);
    - without_enhancement_1: the blind rule's static route decides where tasks run (RED only
      moves them up earlier, skipping decisions), so the load of the server that executes
      them is exact; decision loads elsewhere are not counted (RED may skip them);
    - without_enhancement_2 (no RED): every generated task is decided at its origin, so
      ``λ τ_d / T`` there is a floor; with the whole hierarchy's work over its whole
      capacity: a necessary condition only;
    - advanced: the whole hierarchy's work over its whole capacity (necessary only).

    Where the bound is only necessary, ``simulate`` also measures each server's load and
    runs the stationarity detector.

    Parameters
    ----------
    model, topology, lam, period, data_per_work, power, kappa, decision_time, offload_busy
        Rows of ``PARAMS`` (``topology`` also a :class:`Topology`).
    mean_size : float, optional
        E[D] [work units]; None: that of the object's ``task_size`` and ``sigma``
        (:func:`size_moments`).

    Returns
    -------
    float
        The bound ρ.
    """
    if mean_size is None:
        mean_size = size_moments(p)[0]
    else:
        mean_size = check_real(mean_size, "mean_size", "utilisation_bound", 0.0, None)
    model, topology, decision_time = p.model, p.hierarchy(), p.decision_time
    rate = p.lam * topology.weight / p.period  # tasks per second generated at each server
    total = float(rate.sum() * mean_size / topology.compute.sum())
    if model == "pure_local":
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.max(rate * mean_size / topology.compute))
    if model == "pure_cloud":
        return float(rate.sum() * mean_size / topology.compute[topology.root])
    if model in ("original", "without_enhancement_1"):
        route = static_route(p.trusted(topology=topology))
        load = np.zeros(topology.n)
        for s in topology.generators:
            path = topology.path_up(s)
            end = path.index(int(route[s]))
            load[route[s]] += rate[s] * mean_size / topology.compute[route[s]]
            if model == "original":
                for x in path[: end + 1]:
                    if topology.parent[x] >= 0:
                        load[x] += rate[s] * decision_time
                for x in path[:end]:
                    if p.offload_busy:
                        load[x] += rate[s] * p.data_per_work * mean_size / topology.bandwidth[x]
        return float(np.max(load))
    if model == "without_enhancement_2":
        floor = float(np.max(rate * decision_time)) if decision_time > 0 else 0.0
        return max(total, floor)
    return total  # advanced
