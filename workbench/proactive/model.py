"""The analytic side of the proactive edge-computing model, the scenario and the training.

- :func:`task_delay` — eq. 4: upload + computing + queue wait, or τ_EP alone when cached;
- :func:`reliability_margin` — Φ of eq. 15, the slack of the linearised reliability
  constraint (eq. 9); a request with Φ < 0 at its cloudlet is hedged;
- :func:`ewma_rates` — the rate estimate of eq. 10 with ν(t) = 1/t (a running mean);
- :func:`rank_cloudlets` — a user's preference over cloudlets by its own delay (eq. 14);
- :func:`zipf_popularity`, :func:`make_scenario` — cloudlets, users, popularity profiles;
- :func:`train` — the training phase: strongest-cloudlet attachment, request counts,
  similarity and spectral clustering, per-cluster popularity order ξ and each cloudlet's
  preferred cluster;
- :func:`isolated_cloudlet_delay` — the M/M/1 mean delay of one user at one cloudlet, the
  theory the simulator is checked against;
- :func:`cacheable_mass` — the fraction of requests whose result may be cached at all, an
  upper bound of any scheme's hit rate.

References
----------
Elbamby, Bennis, Saad, Latva-aho, Hong, "Proactive edge computing in fog networks with
latency and reliability guarantees", EURASIP J. Wireless Commun. Netw. 2018:209.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from workbench.clustering import Clusters, cluster_users
from workbench.proactive.params import PARAMS
from workbench.radio import channel_gains, dbm_to_watt, noise_power, path_loss_db
from workbench.validation import ParameterError, UnstableRegimeError

__all__ = [
    "task_delay",
    "reliability_margin",
    "ewma_rates",
    "rank_cloudlets",
    "zipf_popularity",
    "Scenario",
    "make_scenario",
    "Training",
    "train",
    "isolated_cloudlet_delay",
    "cacheable_mass",
    "interference_free_rate",
]


def _array(value, name, func, low=0.0):
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ParameterError(
            f"The '{name}' parameter of {func} must be finite real numbers >= {low:g}. "
            f"Got {value!r} instead."
        )
    return arr


def task_delay(bits, rate, cpu, kappa, wait=0.0, tau_ep=0.005, cached=False):
    """Delay of one task at one cloudlet (eq. 4), vectorised over numpy broadcasting.

    Parameters
    ----------
    bits : float or array
        Task data size L_a [bit], >= 0.
    rate : float or array
        Uplink rate r_ue [bit/s], > 0.
    cpu : float or array
        Cloudlet CPU speed c_e [cycles/s], > 0.
    kappa : float
        Processing density κ [cycles/bit].
    wait : float or array
        Queue wait W_ea [s] ahead of the task.
    tau_ep : float
        Cloudlet latency τ_EP [s].
    cached : bool or array of bool
        Whether the result is cached at the cloudlet (y_ea = 1).

    Returns
    -------
    float or numpy.ndarray
        (κ L / c_e + L / r_ue + W_ea)(1 − y_ea) + τ_EP.

    References
    ----------
    Elbamby et al. (2018), eqs. 1-4.
    """
    func = "task_delay"
    bits = _array(bits, "bits", func)
    rate = _array(rate, "rate", func, low=np.nextafter(0.0, 1.0))
    cpu = _array(cpu, "cpu", func, low=np.nextafter(0.0, 1.0))
    wait = _array(wait, "wait", func)
    kappa = PARAMS.check(func, kappa=kappa)["kappa"]
    tau_ep = PARAMS.check(func, tau_ep=tau_ep)["tau_ep"]
    y = np.asarray(cached, dtype=bool)
    out = np.where(y, 0.0, kappa * bits / cpu + bits / rate + wait) + tau_ep
    return float(out) if out.ndim == 0 else out


def reliability_margin(bits, rate_est, cpu, kappa, queue_wait_est, tau_ep, budget, cached=False):
    """Φ_eu of eq. 15: the slack of the reliability constraint linearised by Markov (eq. 9).

    Markov's inequality turns Pr(D ≥ D_th) ≤ ε into E[D] ≤ D_th ε; written with the
    estimated rates it reads

        Φ = D_th ε − κ L / c_e − Σ_{i ∈ Q_e} L'_i / r̄_ie − τ_EP − L / r̄_ue ≥ 0.

    A cached task costs only τ_EP, so its margin is D_th ε − τ_EP.

    Parameters
    ----------
    bits, cpu, kappa, tau_ep
        As in :func:`task_delay`.
    rate_est : float or array
        Estimated rate r̄_ue [bit/s], > 0 (eq. 10).
    queue_wait_est : float or array
        Σ_{i ∈ Q_e} L'_i / r̄_ie [s]: the estimated time to upload what is queued.
    budget : float
        D_th·ε [s].
    cached : bool or array of bool

    Returns
    -------
    float or numpy.ndarray
        Φ [s]; the cloudlet prefers users with larger Φ (eq. 16).

    References
    ----------
    Elbamby et al. (2018), eqs. 6b, 7-9, 15-16.
    """
    func = "reliability_margin"
    budget = PARAMS.check(func, budget=budget)["budget"]
    delay = task_delay(bits, rate_est, cpu, kappa, queue_wait_est, tau_ep, cached)
    return budget - delay


def ewma_rates(rates, initial=None):
    """The rate estimates r̄(t) of eq. 10 with the learning rate ν(t) = 1/t.

    r̄(t) = ν(t) r(t − 1) + (1 − ν(t)) r̄(t − 1), t = 1, 2, ...; with ν(t) = 1/t,
    r̄(t) is the mean of r(0) ... r(t − 1) whatever the initial value r̄(0).

    Parameters
    ----------
    rates : array_like, shape (T, ...)
        Observed rates r(0) ... r(T − 1) (any trailing shape, e.g. (U, E) per slot).
    initial : array_like or None
        r̄(0) (default: zeros); it is forgotten at t = 1 since ν(1) = 1.

    Returns
    -------
    numpy.ndarray, shape (T + 1, ...)
        r̄(0) ... r̄(T).

    References
    ----------
    Elbamby et al. (2018), eq. 10 and Remark 1 (ν(t) → 0 gives the time-average rate).
    """
    r = _array(rates, "rates", "ewma_rates")
    if r.ndim == 0:
        raise ParameterError(
            "The 'rates' parameter of ewma_rates must be an array with one row per slot. "
            f"Got the scalar {rates!r} instead."
        )
    out = np.empty((r.shape[0] + 1, *r.shape[1:]))
    out[0] = 0.0 if initial is None else initial
    for t in range(1, r.shape[0] + 1):
        nu = 1.0 / t
        out[t] = nu * r[t - 1] + (1.0 - nu) * out[t - 1]
    return out


def rank_cloudlets(bits, rate_est, cpu, kappa, tau_ep, cached=None, covered=None):
    """A user's preference order over cloudlets by its own delay estimate (eq. 14).

    The user does not see queues, so it ranks by κ L / c_e + L / r̄_ue + τ_EP, or τ_EP
    where the result is cached. Ties go to the lower cloudlet index.

    Returns
    -------
    numpy.ndarray of int64
        Cloudlet indices, most preferred first, covered cloudlets only.

    References
    ----------
    Elbamby et al. (2018), eq. 14.
    """
    rate_est = np.atleast_1d(np.asarray(rate_est, dtype=float))
    n = rate_est.size
    cached = np.zeros(n, bool) if cached is None else np.asarray(cached, bool)
    covered = np.ones(n, bool) if covered is None else np.asarray(covered, bool)
    d = task_delay(bits, rate_est, cpu, kappa, 0.0, tau_ep, cached)
    order = np.argsort(np.atleast_1d(d), kind="stable")
    return order[covered[order]].astype(np.int64)


def zipf_popularity(n_tasks, zipf):
    """Request probabilities ∝ 1/i^z of the i-th most popular of ``n_tasks`` tasks."""
    args = PARAMS.check("zipf_popularity", n_tasks=n_tasks, zipf=zipf)
    w = 1.0 / np.arange(1, args["n_tasks"] + 1) ** args["zipf"]
    return w / w.sum()


class Scenario(NamedTuple):
    """One drawn network (see :func:`make_scenario`)."""

    cloudlet_xy: np.ndarray
    """(E, 2) cloudlet positions [m]."""
    user_xy: np.ndarray
    """(U, 2) user positions [m]."""
    path_gain: np.ndarray
    """(U, E) linear path gain 10^(−PL/10) (no fading)."""
    covered: np.ndarray
    """(U, E) True where the cloudlet is in the user's coverage."""
    profiles: np.ndarray
    """(n_profiles, A) request probabilities of each popularity profile."""
    profile_of_user: np.ndarray
    """(U,) profile index of every user."""
    cacheable: np.ndarray
    """(A,) True for task types whose results may be cached."""
    power_w: float
    noise_w: float


def make_scenario(
    n_cloudlets=30,
    n_users=90,
    area=100.0,
    n_tasks=100,
    zipf=0.8,
    n_profiles=3,
    cacheable_ratio=1 / 3,
    power_dbm=20.0,
    noise_dbm_hz=-174.0,
    noise_figure_db=9.0,
    bandwidth=10e6,
    coverage_db=84.0,
    seed=0,
) -> Scenario:
    """Draw cloudlets, users, popularity profiles and the cacheable tasks.

    Cloudlets and users are uniform in an ``area`` × ``area`` square. Each profile ranks
    the A tasks by an independent uniform permutation and requests the i-th ranked one
    with probability ∝ 1/i^z; every user gets one profile uniformly at random. Exactly
    round(ratio · A) task types, chosen uniformly, are cacheable. A user covered by no
    cloudlet is moved to cover its nearest one (its coverage is forced to include it) so
    that every task can be served; :func:`make_scenario` says so in ``covered``.

    References
    ----------
    Elbamby et al. (2018), Sec. 2 and Sec. 4 (uniform nodes, Zipf profiles assigned at
    random, one third of the tasks cacheable).
    """
    func = "make_scenario"
    a = PARAMS.check(
        func, n_cloudlets=n_cloudlets, n_users=n_users, area=area, n_tasks=n_tasks,
        zipf=zipf, n_profiles=n_profiles, cacheable_ratio=cacheable_ratio,
        power_dbm=power_dbm, noise_dbm_hz=noise_dbm_hz, noise_figure_db=noise_figure_db,
        bandwidth=bandwidth, coverage_db=coverage_db, seed=seed,
    )  # fmt: skip
    return _make_scenario(**a)


def _make_scenario(
    n_cloudlets, n_users, area, n_tasks, zipf, n_profiles, cacheable_ratio, power_dbm,
    noise_dbm_hz, noise_figure_db, bandwidth, coverage_db, seed,
) -> Scenario:  # fmt: skip
    gen = np.random.default_rng(np.random.SeedSequence(seed))
    cloudlet_xy = gen.uniform(0.0, area, size=(n_cloudlets, 2))
    user_xy = gen.uniform(0.0, area, size=(n_users, 2))
    d = np.sqrt(((user_xy[:, None, :] - cloudlet_xy[None, :, :]) ** 2).sum(-1))
    pl = path_loss_db(d)
    covered = pl <= coverage_db
    nearest = np.argmin(pl, axis=1)
    covered[np.arange(n_users), nearest] = True  # nobody is left without a server
    gain = channel_gains(user_xy, cloudlet_xy, fading=False)
    base = 1.0 / np.arange(1, n_tasks + 1) ** zipf
    base /= base.sum()
    profiles = np.empty((n_profiles, n_tasks))
    for j in range(n_profiles):
        profiles[j, gen.permutation(n_tasks)] = base
    profile_of_user = gen.integers(0, n_profiles, size=n_users)
    cacheable = np.zeros(n_tasks, dtype=bool)
    cacheable[gen.choice(n_tasks, size=round(cacheable_ratio * n_tasks), replace=False)] = True
    return Scenario(
        cloudlet_xy, user_xy, gain, covered, profiles, profile_of_user.astype(np.int64),
        cacheable, dbm_to_watt(power_dbm), noise_power(bandwidth, noise_figure_db, noise_dbm_hz),
    )  # fmt: skip


class Training(NamedTuple):
    """Outcome of the training phase (see :func:`train`)."""

    attach: np.ndarray
    """(U,) the strongest covered cloudlet of every user."""
    counts: np.ndarray
    """(U, A) requests of every user during training."""
    clusters: Clusters
    """Spectral clustering of the users (labels, k, eigenvalues)."""
    cluster_order: np.ndarray
    """(k, A) task types of each cluster, most requested cacheable first (ξ_i)."""
    preferred_cluster: np.ndarray
    """(E,) the cluster each cloudlet served most during training."""
    cache_rank: np.ndarray
    """(E, A) rank of every task in its cloudlet's preferred-cluster order (0 = most
    popular); the popularity cache replaces by it."""


def train(scenario: Scenario, arrival_rate=1.0, training_time=100.0, theta=0.5, sigma_d=20.0,
          seed=0) -> Training:  # fmt: skip
    """The training phase: attachment, request counts, clustering, ξ and preferred clusters.

    1. Every user attaches to the covered cloudlet with the strongest (path) gain.
    2. Each user's requests over ``training_time`` are counted (Poisson number,
       multinomial over its profile).
    3. The users are clustered by spectral clustering on θ S_d + (1 − θ) S_p
       (:func:`workbench.clustering.cluster_users`, eigengap k in [2, U/2]); S_p is the
       cosine of the users' counts of *cacheable* tasks, as in the paper. With fewer than
       four users (or no cacheable task) all users form one cluster.
    4. ξ_i orders the cacheable tasks by the total count of cluster i (ties: lower task
       index); non-cacheable tasks follow.
    5. Each cloudlet prefers the cluster whose members' requests it received most; a
       cloudlet no user attached to prefers the cluster of its nearest user.

    References
    ----------
    Elbamby et al. (2018), Sec. 3.1 and Algorithm 1 (eqs. 11-13, Remark 2).
    """
    func = "train"
    if not isinstance(scenario, Scenario):
        raise ParameterError(
            f"The 'scenario' parameter of {func} must be a Scenario from make_scenario. "
            f"Got {type(scenario).__name__} instead."
        )
    a = PARAMS.check(
        func, arrival_rate=arrival_rate, training_time=training_time, theta=theta,
        sigma_d=sigma_d, seed=seed,
    )  # fmt: skip
    return _train(scenario, **a)


def _train(scenario, arrival_rate, training_time, theta, sigma_d, seed) -> Training:
    gen = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    n_users, n_cloudlets = scenario.path_gain.shape
    n_tasks = scenario.cacheable.size
    gain = np.where(scenario.covered, scenario.path_gain, -1.0)
    attach = np.argmax(gain, axis=1).astype(np.int64)
    counts = np.zeros((n_users, n_tasks))
    n_req = gen.poisson(arrival_rate * training_time, size=n_users)
    for u in range(n_users):
        counts[u] = gen.multinomial(n_req[u], scenario.profiles[scenario.profile_of_user[u]])
    cache_counts = counts[:, scenario.cacheable]
    if n_users >= 4 and cache_counts.shape[1] > 0:
        clusters = cluster_users(scenario.user_xy, cache_counts, sigma_d, theta, seed=seed)
    else:
        clusters = Clusters(np.zeros(n_users, np.int64), 1, np.zeros(0))
    k = clusters.k
    totals = np.zeros((k, n_tasks))
    np.add.at(totals, clusters.labels, counts)
    # cacheable first by count (descending), then the rest; stable sort keeps index order
    key = np.where(scenario.cacheable[None, :], -totals, np.inf)
    cluster_order = np.argsort(key, axis=1, kind="stable").astype(np.int64)
    served = np.zeros((n_cloudlets, k))
    np.add.at(served, (attach, clusters.labels), counts.sum(axis=1))
    d2 = ((scenario.cloudlet_xy[:, None, :] - scenario.user_xy[None, :, :]) ** 2).sum(-1)
    nearest_label = clusters.labels[np.argmin(d2, axis=1)]
    preferred = np.where(served.sum(axis=1) > 0, np.argmax(served, axis=1), nearest_label)
    preferred = preferred.astype(np.int64)
    rank = np.empty((k, n_tasks), dtype=np.int64)
    for i in range(k):
        rank[i, cluster_order[i]] = np.arange(n_tasks)
    return Training(attach, counts, clusters, cluster_order, preferred, rank[preferred])


def interference_free_rate(distance_m, bandwidth=10e6, power_dbm=20.0, noise_dbm_hz=-174.0,
                           noise_figure_db=9.0) -> float:  # fmt: skip
    """Shannon rate [bit/s] of a lone user at ``distance_m`` without fading or interference."""
    func = "interference_free_rate"
    a = PARAMS.check(func, bandwidth=bandwidth, power_dbm=power_dbm,
                     noise_dbm_hz=noise_dbm_hz, noise_figure_db=noise_figure_db)  # fmt: skip
    gain = 10.0 ** (-path_loss_db(distance_m) / 10.0)
    snr = (
        dbm_to_watt(a["power_dbm"])
        * gain
        / noise_power(a["bandwidth"], a["noise_figure_db"], a["noise_dbm_hz"])
    )
    return float(a["bandwidth"] * math.log2(1.0 + snr))


def isolated_cloudlet_delay(arrival_rate, rate, mean_bits, cpu, kappa, tau_ep, slot=0.0):
    """Mean delay of one user alone at one cloudlet: an M/M/1 upload queue, then the CPU.

    With Poisson arrivals (λ), exponential sizes (mean L̄) and a fixed rate r, the upload
    queue is M/M/1 with service rate μ = r / L̄, sojourn 1/(μ − λ). The computing time
    κ L / c_e follows (no CPU queue when κ/c_e ≪ 1/r), then τ_EP. Slotted matching adds
    about half a slot on average (a request waits for the next slot boundary) and each
    upload starts at a slot boundary (about half a slot more when the queue was empty).

    Returns
    -------
    float
        1/(μ − λ) + κ L̄ / c_e + τ_EP + slot (the slot term is the first-order correction
        of the slotted simulator).

    Raises
    ------
    UnstableRegimeError
        If λ L̄ / r ≥ 1.
    """
    func = "isolated_cloudlet_delay"
    a = PARAMS.check(func, arrival_rate=arrival_rate, mean_bits=mean_bits, cpu=cpu,
                     kappa=kappa, tau_ep=tau_ep)  # fmt: skip
    rate = float(_array(rate, "rate", func, low=np.nextafter(0.0, 1.0)))
    slot = float(_array(slot, "slot", func))
    mu = rate / a["mean_bits"]
    if a["arrival_rate"] >= mu:
        raise UnstableRegimeError(
            f"The 'arrival_rate' parameter of {func} must be below the upload service rate "
            f"r / L̄ = {mu:.4g} 1/s for a stable queue (load {a['arrival_rate'] / mu:.3g}). "
            f"Got {a['arrival_rate']!r} instead."
        )
    return (
        1.0 / (mu - a["arrival_rate"]) + a["kappa"] * a["mean_bits"] / a["cpu"] + a["tau_ep"] + slot
    )


def cacheable_mass(scenario: Scenario) -> float:
    """Fraction of requests for a cacheable task, averaged over the users.

    No caching scheme can serve more than this fraction from caches.
    """
    per_profile = scenario.profiles[:, scenario.cacheable].sum(axis=1)
    return float(per_profile[scenario.profile_of_user].mean())
