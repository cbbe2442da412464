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
import pandas as pd

from workbench.clustering import Clusters, cluster_users
from workbench.params import takes
from workbench.proactive.params import PARAMS, P2Params
from workbench.radio import channel_gains, dbm_to_watt, noise_power, path_loss_db
from workbench.validation import (
    ParameterError,
    UnstableRegimeError,
    array_or_none,
    check_array,
    check_int,
    check_real,
    refusal,
)

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
    "coverage_calibration",
    "interference_free_rates",
]

#: the rows that draw a network (:func:`make_scenario`), in its order
SCENARIO_KEYS = (
    "n_cloudlets",
    "n_users",
    "area",
    "n_tasks",
    "zipf",
    "n_profiles",
    "cacheable_ratio",
    "power_dbm",
    "noise_dbm_hz",
    "noise_figure_db",
    "bandwidth",
    "coverage_db",
)
#: the rows of the training phase (:func:`train`), in its order
TRAIN_KEYS = ("lam", "training_time", "theta", "sigma_d")


def _bools(value, name, func):
    """A bool or an array of bools (numpy bool dtype); 'False' or 2 is not one."""
    arr = array_or_none(value) if not isinstance(value, str) else None
    if arr is None or arr.dtype != bool:
        raise refusal(func, name, "True/False or an array of booleans", value)
    return arr


def _listed(value, name, func) -> list:
    """A number or a flat list of numbers as a list (each checked by the caller); a ragged or
    nested list is refused here, before numpy sees it."""
    arr = array_or_none(value) if not isinstance(value, str) else None
    if arr is None or arr.ndim > 1:
        raise refusal(func, name, "a number or a flat list of numbers", value)
    return list(np.atleast_1d(arr))


def _broadcast(func, named: dict):
    """Broadcast the named arrays together, or say which shapes do not fit."""
    try:
        return np.broadcast_arrays(*named.values())
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in named.items())
        first = next(iter(named))
        raise ParameterError(
            f"The '{first}' parameter of {func} must broadcast with the other arrays "
            f"(numpy rules). Got the shapes {shapes} instead."
        ) from None


def _delay(func, names, bits, rate, cpu, kappa, wait, tau_ep, cached):
    """Eq. 4, the arrays validated under ``func``'s own parameter ``names`` (keys: the eq.'s
    terms); ``kappa`` and ``tau_ep`` come from a validated object."""
    bits = check_array(bits, names["bits"], func, ndim=None, low=0.0)
    rate = check_array(rate, names["rate"], func, ndim=None, low=0.0, low_open=True)
    cpu = check_array(
        cpu, names["cpu"], func, ndim=None, low=PARAMS["cpu"].low, high=PARAMS["cpu"].high
    )
    wait = check_array(wait, names["wait"], func, ndim=None, low=0.0)
    y = _bools(cached, "cached", func)
    arrays = {
        names["bits"]: bits,
        names["rate"]: rate,
        names["cpu"]: cpu,
        names["wait"]: wait,
        "cached": y,
    }
    bits, rate, cpu, wait, y = _broadcast(func, arrays)
    with np.errstate(over="ignore"):
        out = np.where(y, 0.0, kappa * bits / cpu + bits / rate + wait) + tau_ep
    if not np.all(np.isfinite(out)):
        raise ParameterError(
            f"The '{names['rate']}' parameter of {func} must give a finite delay L / r "
            f"(the data or the rate is extreme). Got {rate.min()!r} for {bits.max()!r} bits "
            "instead."
        )
    return float(out) if out.ndim == 0 else out


_DELAY_NAMES = {"bits": "bits", "rate": "link_rate", "cpu": "cpu", "wait": "wait"}


@takes(P2Params, "bits", "link_rate", "cpu", "kappa", "wait", "tau_ep", "cached", positional=True)
def task_delay(p, bits, link_rate, cpu, wait=0.0, cached=False):
    """Delay of one task at one cloudlet (eq. 4), vectorised over numpy broadcasting.

    Parameters
    ----------
    bits : float or array
        Task data size L_a [bit], >= 0.
    link_rate : float or array
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
        Whether the result is cached at the cloudlet (y_ea = 1). Arrays must broadcast
        together.

    Returns
    -------
    float or numpy.ndarray
        (κ L / c_e + L / r_ue + W_ea)(1 − y_ea) + τ_EP.

    References
    ----------
    Elbamby et al. (2018), eqs. 1-4.
    """
    return _delay("task_delay", _DELAY_NAMES, bits, link_rate, cpu, p.kappa, wait, p.tau_ep, cached)


@takes(
    P2Params,
    "bits",
    "rate_est",
    "cpu",
    "kappa",
    "queue_wait_est",
    "tau_ep",
    "budget",
    "cached",
    positional=True,
)
def reliability_margin(p, bits, rate_est, cpu, queue_wait_est=0.0, cached=False):
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
        Σ_{i ∈ Q_e} L'_i / r̄_ie [s]: the estimated time to upload what is queued (0: an
        empty queue).
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
    names = {"bits": "bits", "rate": "rate_est", "cpu": "cpu", "wait": "queue_wait_est"}
    delay = _delay(
        "reliability_margin", names, bits, rate_est, cpu, p.kappa, queue_wait_est, p.tau_ep, cached
    )
    return p.budget - delay


def ewma_rates(rates, initial=None):
    """The rate estimates r̄(t) of eq. 10 with the learning rate ν(t) = 1/t.

    r̄(t) = ν(t) r(t − 1) + (1 − ν(t)) r̄(t − 1), t = 1, 2, ...; with ν(t) = 1/t,
    r̄(t) is the mean of r(0) ... r(t − 1) whatever the initial value r̄(0).

    Parameters
    ----------
    rates : array_like, shape (T, ...)
        Observed rates r(0) ... r(T − 1) (any trailing shape, e.g. (U, E) per slot),
        finite and >= 0; T at most 10^6 rows of at most 10^8 numbers in all.
    initial : array_like or None
        r̄(0), finite and >= 0, broadcastable to one row (default: zeros); it is
        forgotten at t = 1 since ν(1) = 1.

    Returns
    -------
    numpy.ndarray, shape (T + 1, ...)
        r̄(0) ... r̄(T).

    References
    ----------
    Elbamby et al. (2018), eq. 10 and Remark 1 (ν(t) → 0 gives the time-average rate).
    """
    func = "ewma_rates"
    raw = array_or_none(rates)  # an array as it is: the bound is checked before any copy
    if raw is not None and raw.size > 10**8:
        raise ParameterError(
            f"The 'rates' parameter of {func} must hold at most 10^8 numbers (memory bound). "
            f"Got {raw.size:,} instead."
        )
    r = check_array(rates, "rates", func, ndim=None, low=0.0)
    if r.ndim == 0:
        raise refusal(
            "ewma_rates", "rates", "an array with one row per slot", got=f"the scalar {rates!r}"
        )
    first = 0.0 if initial is None else check_array(initial, "initial", func, ndim=None, low=0.0)
    try:
        first = np.broadcast_to(first, r.shape[1:])
    except ValueError:
        raise ParameterError(
            f"The 'initial' parameter of {func} must broadcast to one row of shape "
            f"{r.shape[1:]}. Got the shape {np.shape(initial)} instead."
        ) from None
    out = np.empty((r.shape[0] + 1, *r.shape[1:]))
    out[0] = first
    for t in range(1, r.shape[0] + 1):
        nu = 1.0 / t
        out[t] = nu * r[t - 1] + (1.0 - nu) * out[t - 1]
    return out


@takes(P2Params, "bits", "rate_est", "cpu", "kappa", "tau_ep", "cached", "covered", positional=True)
def rank_cloudlets(p, bits, rate_est, cpu, cached=None, covered=None):
    """A user's preference order over cloudlets by its own delay estimate (eq. 14).

    The user ranks by eq. 4 without the queue it cannot see: κ L / c_e + L / r̄_ue + τ_EP,
    or τ_EP where ``cached`` says the result is held (users who know the caches). Ties go
    to the lower cloudlet index.

    Parameters
    ----------
    bits : float
        Task data size L_a [bit], >= 0.
    rate_est : array_like, shape (E,)
        Estimated rates r̄_ue [bit/s] to every cloudlet, > 0.
    cpu : float or array_like, shape (E,)
    kappa, tau_ep
        As in :func:`task_delay`.
    cached, covered : None or array_like of bool, shape (E,)
        Where the result is held (default nowhere) and which cloudlets cover the user
        (default all); one entry per cloudlet.

    Returns
    -------
    numpy.ndarray of int64
        Cloudlet indices, most preferred first, covered cloudlets only.

    References
    ----------
    Elbamby et al. (2018), eq. 14.
    """
    func = "rank_cloudlets"
    rate_est = np.atleast_1d(
        check_array(rate_est, "rate_est", func, ndim=None, low=0.0, low_open=True)
    )
    if rate_est.ndim != 1:
        raise refusal(
            func,
            "rate_est",
            "a 1-D array (one rate per cloudlet)",
            got=f"the shape {rate_est.shape}",
        )
    n = rate_est.size
    masks = {}
    for name, value in (("cached", cached), ("covered", covered)):
        if value is None:
            masks[name] = np.full(n, name == "covered")
            continue
        arr = _bools(value, name, func)
        if arr.shape != (n,):
            raise ParameterError(
                f"The '{name}' parameter of {func} must hold one boolean per cloudlet ({n}). "
                f"Got the shape {arr.shape} instead."
            )
        masks[name] = arr
    if np.ndim(bits) != 0:
        raise refusal(func, "bits", "one task's size (a number)", bits)
    names = {"bits": "bits", "rate": "rate_est", "cpu": "cpu", "wait": "wait"}
    d = _delay(func, names, bits, rate_est, cpu, p.kappa, 0.0, p.tau_ep, masks["cached"])
    order = np.argsort(np.atleast_1d(d), kind="stable")
    return order[masks["covered"][order]].astype(np.int64)


@takes(P2Params, "n_tasks", "zipf", positional=True)
def zipf_popularity(p):
    """Request probabilities ∝ 1/i^z of the i-th most popular of ``n_tasks`` tasks.

    Returns
    -------
    numpy.ndarray, shape (A,)
        The probabilities, most popular first, summing to 1.
    """
    w = 1.0 / np.arange(1, p.n_tasks + 1) ** p.zipf
    return w / w.sum()


class Scenario(NamedTuple):
    """One drawn network (see :func:`make_scenario`).

    Parameters
    ----------
    cloudlet_xy : numpy.ndarray, shape (E, 2)
        Cloudlet positions [m].
    user_xy : numpy.ndarray, shape (U, 2)
        User positions [m].
    path_gain : numpy.ndarray, shape (U, E)
        Linear path gain 10^(−PL/10), without fading.
    covered : numpy.ndarray of bool, shape (U, E)
        True where the cloudlet is in the user's coverage.
    profiles : numpy.ndarray, shape (n_profiles, A)
        Request probabilities of each popularity profile.
    profile_of_user : numpy.ndarray of int, shape (U,)
        The profile of every user.
    cacheable : numpy.ndarray of bool, shape (A,)
        True for the task types whose results may be cached.
    power_w : float
        A user's transmit power [W].
    noise_w : float
        The receiver noise power over the band [W].
    """

    cloudlet_xy: np.ndarray
    user_xy: np.ndarray
    path_gain: np.ndarray
    covered: np.ndarray
    profiles: np.ndarray
    profile_of_user: np.ndarray
    cacheable: np.ndarray
    power_w: float
    noise_w: float


@takes(P2Params, *SCENARIO_KEYS, "seed", positional=True)
def make_scenario(p) -> Scenario:
    """Draw cloudlets, users, popularity profiles and the cacheable tasks.

    Cloudlets and users are uniform in an ``area`` × ``area`` square. Each profile ranks
    the A tasks by an independent uniform permutation and requests the i-th ranked one
    with probability ∝ 1/i^z; every user gets one profile uniformly at random. Exactly
    round(ratio · A) task types, chosen uniformly, are cacheable. A user covered by no
    cloudlet is moved to cover its nearest one (its coverage is forced to include it) so
    that every task can be served; :func:`make_scenario` says so in ``covered``.

    Parameters
    ----------
    n_cloudlets, n_users, area, n_tasks, zipf, n_profiles, cacheable_ratio
        E, U, the side of the square, A, z, the number of profiles and |A_c|/A.
    power_dbm, noise_dbm_hz, noise_figure_db, bandwidth, coverage_db
        The radio: P_u, the noise density and figure, B and the coverage threshold.
    seed : int
        Same seed, same network.

    Returns
    -------
    Scenario
        Positions, path gains, coverage, profiles and the cacheable types.

    References
    ----------
    Elbamby et al. (2018), Sec. 2 and Sec. 4 (uniform nodes, Zipf profiles assigned at
    random, one third of the tasks cacheable).
    """
    n_cloudlets, n_users, n_tasks = p.n_cloudlets, p.n_users, p.n_tasks
    gen = np.random.default_rng(np.random.SeedSequence(p.seed))
    cloudlet_xy = gen.uniform(0.0, p.area, size=(n_cloudlets, 2))
    user_xy = gen.uniform(0.0, p.area, size=(n_users, 2))
    d = np.sqrt(((user_xy[:, None, :] - cloudlet_xy[None, :, :]) ** 2).sum(-1))
    pl = path_loss_db(d)
    covered = pl <= p.coverage_db
    nearest = np.argmin(pl, axis=1)
    covered[np.arange(n_users), nearest] = True  # nobody is left without a server
    gain = channel_gains(user_xy, cloudlet_xy, fading=False)
    base = zipf_popularity(p)
    profiles = np.empty((p.n_profiles, n_tasks))
    for j in range(p.n_profiles):
        profiles[j, gen.permutation(n_tasks)] = base
    profile_of_user = gen.integers(0, p.n_profiles, size=n_users)
    cacheable = np.zeros(n_tasks, dtype=bool)
    cacheable[gen.choice(n_tasks, size=round(p.cacheable_ratio * n_tasks), replace=False)] = True
    return Scenario(
        cloudlet_xy,
        user_xy,
        gain,
        covered,
        profiles,
        profile_of_user.astype(np.int64),
        cacheable,
        dbm_to_watt(p.power_dbm),
        noise_power(p.bandwidth, p.noise_figure_db, p.noise_dbm_hz),
    )


def check_scenario(func: str, scenario) -> None:
    """``scenario`` must be a consistent :class:`Scenario` (as :func:`make_scenario` draws)."""

    def fail(why):
        raise ParameterError(
            f"The 'scenario' parameter of {func} must be a Scenario from make_scenario ({why})."
        )

    if not isinstance(scenario, Scenario):
        fail(f"got {type(scenario).__name__}")
    try:
        cxy, uxy, gain, cov, prof, pou, cacheable = (np.asarray(x) for x in scenario[:7])
        power, noise = float(scenario.power_w), float(scenario.noise_w)
    except (TypeError, ValueError):
        fail("a field is not an array or a number")
    if cxy.ndim != 2 or cxy.shape[1] != 2 or uxy.ndim != 2 or uxy.shape[1] != 2:
        fail("positions must be (E, 2) and (U, 2) arrays")
    n_e, n_u = cxy.shape[0], uxy.shape[0]
    if n_e < 1 or n_u < 1:
        fail("at least one cloudlet and one user")
    if prof.ndim != 2 or prof.shape[1] < 1:
        fail("profiles must be an (n_profiles, A) array")
    n_a = prof.shape[1]
    if gain.shape != (n_u, n_e) or cov.shape != (n_u, n_e) or cov.dtype != bool:
        fail(f"path_gain must be (U, E) = ({n_u}, {n_e}) floats and covered as many booleans")
    if not all(np.issubdtype(x.dtype, np.number) for x in (cxy, uxy, gain, prof)):
        fail("positions, gains and profiles must be numbers")
    if not (np.all(np.isfinite(cxy)) and np.all(np.isfinite(uxy))):
        fail("positions must be finite")
    if not (np.all(np.isfinite(gain)) and np.all(gain > 0) and np.all(gain <= 1)):
        fail("path gains must lie in (0, 1]")
    if not np.all(cov.any(axis=1)):
        fail("every user must be covered by at least one cloudlet")
    if np.any(~np.isfinite(prof)) or np.any(prof < 0) or not np.allclose(prof.sum(axis=1), 1):
        fail("every profile must be a probability vector")
    if pou.shape != (n_u,) or not np.issubdtype(pou.dtype, np.integer):
        fail("profile_of_user must hold U ints")
    if pou.min() < 0 or pou.max() >= prof.shape[0]:
        fail(f"profile_of_user must lie in [0, {prof.shape[0] - 1}]")
    if cacheable.shape != (n_a,) or cacheable.dtype != bool:
        fail(f"cacheable must hold A = {n_a} booleans")
    if not (math.isfinite(power) and power > 0 and math.isfinite(noise) and noise > 0):
        fail("power_w and noise_w must be finite and > 0")


def check_training(func: str, scenario: Scenario, training) -> None:
    """``training`` must be the :class:`Training` of ``scenario`` (same U, E and A)."""

    def fail(why):
        raise ParameterError(
            f"The 'training' parameter of {func} must be a Training of this scenario from "
            f"train ({why})."
        )

    if not isinstance(training, Training):
        fail(f"got {type(training).__name__}")
    n_u, n_e = scenario.path_gain.shape
    n_a = scenario.cacheable.size
    attach, rank = np.asarray(training.attach), np.asarray(training.cache_rank)
    pref = np.asarray(training.preferred_cluster)
    if attach.shape != (n_u,) or not np.issubdtype(attach.dtype, np.integer):
        fail(f"attach must hold U = {n_u} ints")
    if (
        attach.min() < 0
        or attach.max() >= n_e
        or not np.all(scenario.covered[np.arange(n_u), attach])
    ):
        fail("every user must attach to a cloudlet that covers it")
    if rank.shape != (n_e, n_a) or not np.issubdtype(rank.dtype, np.integer):
        fail(f"cache_rank must be an (E, A) = ({n_e}, {n_a}) int array")
    if not np.array_equal(np.sort(rank, axis=1), np.broadcast_to(np.arange(n_a), rank.shape)):
        fail("every row of cache_rank must rank the A tasks 0 .. A - 1")
    if pref.shape != (n_e,):
        fail(f"preferred_cluster must hold E = {n_e} values")


class Training(NamedTuple):
    """Outcome of the training phase (see :func:`train`).

    Parameters
    ----------
    attach : numpy.ndarray of int, shape (U,)
        The strongest covered cloudlet of every user.
    counts : numpy.ndarray, shape (U, A)
        Requests of every user during training.
    clusters : workbench.clustering.Clusters
        Spectral clustering of the users (labels, k, eigenvalues).
    cluster_order : numpy.ndarray of int, shape (k, A)
        Task types of each cluster, most requested cacheable first (ξ_i).
    preferred_cluster : numpy.ndarray of int, shape (E,)
        The cluster each cloudlet served most during training.
    cache_rank : numpy.ndarray of int, shape (E, A)
        Rank of every task in its cloudlet's preferred-cluster order (0 = most popular);
        the popularity cache replaces by it.
    """

    attach: np.ndarray
    counts: np.ndarray
    clusters: Clusters
    cluster_order: np.ndarray
    preferred_cluster: np.ndarray
    cache_rank: np.ndarray


@takes(P2Params, "scenario", *TRAIN_KEYS, "seed", positional=True)
def train(p, scenario: Scenario) -> Training:
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

    Parameters
    ----------
    scenario : Scenario
        From :func:`make_scenario`.
    lam, training_time : float
        λ_u and the training period: each user's requests are Poisson(λ_u T_train).
    theta, sigma_d : float
        The similarity's distance weight θ and width σ_d (eqs. 11-13).
    seed : int
        Same seed, same counts and clusters. The training draws from its own stream: the
        same seed gives :func:`make_scenario` and :func:`~workbench.proactive.runs.draw_tasks`
        other numbers.

    Returns
    -------
    Training
        Attachment, counts, clusters, ξ per cluster, preferred cluster and cache ranks.

    References
    ----------
    Elbamby et al. (2018), Sec. 3.1 and Algorithm 1 (eqs. 11-13, Remark 2).
    """
    check_scenario("train", scenario)
    seed = p.seed
    gen = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    n_users, n_cloudlets = scenario.path_gain.shape
    n_tasks = scenario.cacheable.size
    gain = np.where(scenario.covered, scenario.path_gain, -1.0)
    attach = np.argmax(gain, axis=1).astype(np.int64)
    counts = np.zeros((n_users, n_tasks))
    n_req = gen.poisson(p.lam * p.training_time, size=n_users)
    for u in range(n_users):
        counts[u] = gen.multinomial(n_req[u], scenario.profiles[scenario.profile_of_user[u]])
    cache_counts = counts[:, scenario.cacheable]
    if n_users >= 4 and cache_counts.shape[1] > 0:
        clusters = cluster_users(scenario.user_xy, cache_counts, p.sigma_d, p.theta, seed=seed)
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


@takes(
    P2Params,
    "distance_m",
    "bandwidth",
    "power_dbm",
    "noise_dbm_hz",
    "noise_figure_db",
    positional=True,
)
def interference_free_rate(p, distance_m) -> float:
    """Shannon rate [bit/s] of a lone user at ``distance_m`` [m] without fading or
    interference: B log2(1 + P_u g(d) / σ²), the path gain g of the paper's path loss.

    Parameters
    ----------
    distance_m : float
        The user's distance to the cloudlet [m], in (0, 1e6].

    Returns
    -------
    float
        The rate [bit/s].
    """
    func = "interference_free_rate"
    distance_m = check_real(distance_m, "distance_m", func, 0.0, 1e6, low_open=True)
    gain = 10.0 ** (-path_loss_db(distance_m) / 10.0)
    snr = (
        dbm_to_watt(p.power_dbm)
        * gain
        / noise_power(p.bandwidth, p.noise_figure_db, p.noise_dbm_hz)
    )
    return float(p.bandwidth * math.log2(1.0 + snr))


@takes(P2Params, "scenario", "bandwidth", positional=True)
def interference_free_rates(p, scenario: Scenario) -> np.ndarray:
    """The (U, E) Shannon rates [bit/s] of every user at every cloudlet of ``scenario`` on
    the path gain alone (no fading, no interference): the rate estimates r̄(0) of eq. 10
    before any slot, and the best rate a user can have.

    Parameters
    ----------
    scenario : Scenario
        The users, cloudlets and path gains (:func:`make_scenario`).

    Returns
    -------
    numpy.ndarray, shape (U, E)
        B log2(1 + P_u g_ue / σ²).
    """
    check_scenario("interference_free_rates", scenario)
    snr = scenario.power_w * scenario.path_gain / scenario.noise_w
    return p.bandwidth * np.log1p(snr) / np.log(2.0)


@takes(P2Params, "lam", "link_rate", "mean_bits", "cpu", "kappa", "tau_ep", "slot_correction")
def isolated_cloudlet_delay(p, *, link_rate, slot_correction=0.0):
    """Mean delay of one user alone at one cloudlet: an M/M/1 upload queue, then the CPU.

    With Poisson arrivals (λ), exponential sizes (mean L̄) and a fixed rate r, the upload
    queue is M/M/1 with service rate μ = r / L̄, sojourn 1/(μ − λ). The computing time
    κ L / c_e follows (no CPU queue when κ/c_e ≪ 1/r), then τ_EP. Slotted matching adds
    about half a slot on average (a request waits for the next slot boundary) and each
    upload starts at a slot boundary (about half a slot more when the queue was empty).

    Parameters
    ----------
    lam, mean_bits, cpu, kappa, tau_ep
        λ_u, L̄, c_e, κ and τ_EP (rows of the parameter table).
    link_rate : float
        The user's fixed upload rate r [bit/s], > 0.
    slot_correction : float
        Added as it is [s]: 0 for the continuous M/M/1, the slot length δ for the
        first-order correction of the slotted simulator.

    Returns
    -------
    float
        1/(μ − λ) + κ L̄ / c_e + τ_EP + slot_correction.

    Raises
    ------
    UnstableRegimeError
        If λ L̄ / r ≥ 1.
    """
    func = "isolated_cloudlet_delay"
    rate = check_real(link_rate, "link_rate", func, 0.0, low_open=True)
    slot = check_real(slot_correction, "slot_correction", func, 0.0, 1.0)
    mu = rate / p.mean_bits
    if p.lam >= mu:
        raise refusal(
            func,
            "lam",
            f"below the upload service rate r / L̄ = {mu:.4g} 1/s for a stable queue "
            f"(load {p.lam / mu:.3g})",
            p.lam,
            error=UnstableRegimeError,
        )
    return 1.0 / (mu - p.lam) + p.kappa * p.mean_bits / p.cpu + p.tau_ep + slot


def cacheable_mass(scenario: Scenario) -> float:
    """Fraction of requests for a cacheable task, averaged over the users.

    No caching scheme can serve more than this fraction from caches.

    Parameters
    ----------
    scenario : Scenario
        A drawn network (:func:`make_scenario`).

    Returns
    -------
    float
        In [0, 1]: the users' mean request probability of a cacheable task type.
    """
    check_scenario("cacheable_mass", scenario)
    per_profile = scenario.profiles[:, scenario.cacheable].sum(axis=1)
    return float(per_profile[scenario.profile_of_user].mean())


@takes(P2Params, "thresholds_db", "densities", "x_max", "area", "seeds", positional=True)
def coverage_calibration(
    p,
    thresholds_db=(80.0, 82.0, 84.0, 86.0, 88.0, 90.0, 95.0, 100.0, 110.0),
    densities=(10, 20, 30, 40),
    seeds=20,
) -> pd.DataFrame:
    """How many cloudlets cover a user, per path-loss threshold and density (U = 3E).

    The paper's threshold is lost; Sec. 4.2 describes it: "At low network density
    conditions, there are not enough available cloudlets for each UN". The workbench's rule:
    at the sparsest density of Fig. 4 (E = 10), a user has on average X_max cloudlets in
    coverage (the number a hedged request needs), so hedging is often impossible there and
    easy at E = 30-40. ``frame.attrs["chosen"]`` is the threshold that meets it best, a whole
    number of dB from 60 to 140 (the lowest of equally close ones).

    Parameters
    ----------
    thresholds_db : sequence of float
        Path-loss thresholds, each in ``coverage_db``'s range. Default: 80 to 90 dB in steps
        of 2 dB, then 95, 100 and 110 dB (the table's plausible range, finer near 84 dB).
    densities : sequence of int
        Numbers of cloudlets E, each in ``n_cloudlets``' range (U = 3E). Default: Fig. 4's
        10, 20, 30 and 40.
    x_max, area
        X_max (the rule's target) and the side of the square.
    seeds : int
        Networks drawn per (threshold, E), seeds 0 .. seeds - 1. Default 20.

    Returns
    -------
    pandas.DataFrame
        One row per (threshold, E): ``radius_m`` (the distance at that path loss),
        ``covering`` (mean cloudlets covering a user, over ``seeds`` drawn networks),
        ``below_x_max`` (share of users covered by fewer than X_max cloudlets).
    """
    func = "coverage_calibration"
    levels = [
        PARAMS.check(func, coverage_db=x)["coverage_db"]
        for x in _listed(thresholds_db, "thresholds_db", func)
    ]
    sizes = [
        PARAMS.check(func, n_cloudlets=e)["n_cloudlets"]
        for e in _listed(densities, "densities", func)
    ]
    if not levels or not sizes or len(levels) * len(sizes) > 1000:
        raise ParameterError(
            f"The 'thresholds_db' parameter of {func} must give between 1 and 1000 (threshold, "
            f"E) pairs with 'densities'. Got {len(levels)} × {len(sizes)} instead."
        )
    seeds = check_int(seeds, "seeds", func, 1, 1000)
    rows = []
    for e in sizes:
        pl = path_loss_db(np.concatenate(_distances(e, p.area, seeds)))
        for db in levels:
            n = _covering(pl, db)
            rows.append(
                {
                    "coverage_db": db,
                    "radius_m": 1e3 * 10 ** ((db - 140.7) / 36.7),
                    "n_cloudlets": e,
                    "covering": float(n.mean()),
                    "below_x_max": float((n < p.x_max).mean()),
                }
            )
    frame = pd.DataFrame(rows)
    grid = np.arange(60.0, 141.0)
    sparse = [path_loss_db(d) for d in _distances(min(sizes), p.area, seeds)]
    users = sum(pl.shape[0] for pl in sparse)
    covering = [sum(_covering(pl, db).sum() for pl in sparse) / users for db in grid]
    frame.attrs["chosen"] = float(grid[int(np.argmin(np.abs(np.array(covering) - p.x_max)))])
    frame.attrs["rule"] = (
        f"mean covering cloudlets at E = {min(sizes)} closest to X_max = {p.x_max}"
    )
    return frame


def _distances(n_cloudlets: int, area: float, seeds: int) -> list:
    """The (3E, E) user–cloudlet distances [m] of the networks of seeds 0 .. seeds - 1,
    positions drawn as :func:`make_scenario` draws them (U = 3E)."""
    out = []
    for s in range(seeds):
        gen = np.random.default_rng(np.random.SeedSequence(s))
        c = gen.uniform(0.0, area, size=(n_cloudlets, 2))
        u = gen.uniform(0.0, area, size=(3 * n_cloudlets, 2))
        out.append(np.sqrt(((u[:, None, :] - c[None, :, :]) ** 2).sum(-1)))
    return out


def _covering(path_loss, coverage_db: float) -> np.ndarray:
    """The cloudlets covering each user (a row of ``path_loss``): those within the threshold
    and its nearest one (nobody is left uncovered, as in :func:`make_scenario`)."""
    nearest = path_loss == path_loss.min(axis=1, keepdims=True)
    return np.logical_or(path_loss <= coverage_db, nearest).sum(axis=1)
