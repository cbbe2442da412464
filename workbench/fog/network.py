"""The network model: flows, the λ_j fixed point and :func:`analyze`.

:func:`analyze` applies the paper's flow equations to a scenario graph (see
:mod:`workbench.fog.scenario`): δ_j0 = I_j, β_j,l+1 = (1−P_j)·δ_jl,
δ_j,l+1 = Σ_{ĵ ∈ nbr(j)} β_ĵ,l+1 / deg(ĵ), C_j = (1−P_j)·δ_j,e_M, v_j = Σ_l δ_jl,
λ_j = P_j·v_j with P_j = P_j(λ_j, λ'_j) solved as a fixed point (the chain's P_j, or the
workbench's threshold-admission chain); the delays then follow from
:mod:`workbench.fog.delays` (cloud servers, eq. 6, eq. 2).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 2, 6, 22–28 (flows).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.fog.acceptance import ps_accept
from workbench.fog.chain import stationary_law
from workbench.fog.delays import NetworkAnalysis, network_delays
from workbench.fog.model import P1Params
from workbench.fog.params import MAX_CHAIN_STATES, check_count
from workbench.params import takes
from workbench.validation import ParameterError, UnstableRegimeError, refusal

__all__ = ["analyze", "fog_loads"]

#: the fields of an analysis kept in ``NetworkAnalysis.settings``
SETTINGS = (
    "theta",
    "e_max",
    "q",
    "policy",
    "neighbour",
    "own_processing",
    "admission",
    "cloud_sojourn",
)


def _accept_vec(theta, lam, lam2, mu, mu2):
    """P(W < θ) per fog node (0 where ρ ≥ 1: such a node would never accept); any q."""
    rho = lam / mu + lam2 / mu2
    out = np.zeros_like(rho)
    ok = rho < 1
    # the same for every q (see accept_probability): the closed form of the q = 0.5 chain
    out[ok] = ps_accept(theta[ok], lam[ok] / mu[ok], lam2[ok] / mu2[ok], mu[ok], mu2[ok])
    return out


def _mean_work_vec(lam, lam2, mu, mu2):
    rho = lam / mu + lam2 / mu2
    if np.any(rho >= 1):
        j = int(np.argmax(rho))
        raise UnstableRegimeError(
            f"analyze: fog node {j} is unstable, ρ = {rho[j]:.6g} ≥ 1 with the requests it "
            "accepts (no offloading can relieve it under this policy)."
        )
    # the same for every q (see mean_work): the M/G/1 mean work, P-K for hyperexponential
    return (lam / mu**2 + lam2 / mu2**2) / (1 - rho)


def _fixed_point(step, size, max_iterations, name):
    """Iterate P ← step(P) from P = 1 until no entry moves by 1e-10; returns (P, iterations).

    After 20 iterations each step moves only half-way (damping against a 2-cycle).
    """
    p = np.ones(size)
    for iterations in range(1, max_iterations + 1):
        new = step(p)
        change = np.max(np.abs(new - p))
        p = 0.5 * p + 0.5 * new if iterations > 20 else new
        if change < 1e-10:
            return p, iterations
    raise ParameterError(
        f"analyze: the fixed point for {name} did not converge in {max_iterations} "
        f"iterations (last change {change:.3g})."
    )


def _bracketed_root(func, size, width=1e-13, max_steps=200):
    """Roots in [0, 1] of an increasing vectorised ``func`` (func(0) ≤ 0 ≤ func(1)).

    Regula falsi with the Illinois modification (superlinear, about ten evaluations where
    bisection to the same accuracy takes forty), never leaving the bracket.
    """
    lo, hi = np.zeros(size), np.ones(size)
    f_lo, f_hi = func(lo), func(hi)
    x = np.where(f_hi <= 0, 1.0, np.where(f_lo >= 0, 0.0, 0.5))
    side = np.zeros(size)
    for _ in range(max_steps):
        open_ = (f_lo < 0) & (f_hi > 0) & (hi - lo > width)
        if not open_.any():
            break
        with np.errstate(invalid="ignore", divide="ignore"):
            x_new = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        x_new = np.where(np.isfinite(x_new) & (x_new > lo) & (x_new < hi), x_new, 0.5 * (lo + hi))
        x = np.where(open_, x_new, x)
        f_x = func(x)
        go_hi = open_ & (f_x > 0)
        go_lo = open_ & (f_x <= 0)
        # Illinois: halve the stale end's value when the same end moves twice in a row
        f_lo = np.where(go_hi & (side == 1), 0.5 * f_lo, f_lo)
        f_hi = np.where(go_lo & (side == -1), 0.5 * f_hi, f_hi)
        hi, f_hi = np.where(go_hi, x, hi), np.where(go_hi, f_x, f_hi)
        lo, f_lo = np.where(go_lo, x, lo), np.where(go_lo, f_x, f_lo)
        side = np.where(go_hi, 1, np.where(go_lo, -1, side))
        exact = open_ & (f_x == 0)
        lo, hi = np.where(exact, x, lo), np.where(exact, x, hi)
    done_lo, done_hi = f_lo >= 0, f_hi <= 0
    return np.where(done_lo, lo, np.where(done_hi, hi, x))


def _threshold_node(v, v2, mu, mu2, q, theta):
    """A fog node that admits only while n/μ + n'/μ' < θ: (P(admit), mean work admitted find).

    Offered Poisson rates v, v'; departures as in the (n, n') chain. The admitting states
    A and the states one admission above them form a closed finite chain, solved exactly.
    """
    if theta <= 0:
        return 0.0, 0.0
    n_max, m_max = math.ceil(theta * mu) + 1, math.ceil(theta * mu2) + 1
    if (n_max + 1) * (m_max + 1) > 2 * MAX_CHAIN_STATES:
        raise ParameterError(
            f"analyze: θ = {theta:g} s admits up to {n_max} Light and {m_max} Heavy requests "
            f"(μ = {mu:g}, μ' = {mu2:g}): more than {MAX_CHAIN_STATES:,} states for the "
            "threshold-admission chain (bounded work); lower θ or use admission='chain'."
        )
    n, m = np.indices((n_max + 1, m_max + 1))
    n, m = n.ravel(), m.ravel()
    admits = n / mu + m / mu2 < theta
    grid = admits.reshape(n_max + 1, m_max + 1)
    above = np.zeros_like(grid)
    above[1:, :] |= grid[:-1, :]
    above[:, 1:] |= grid[:, :-1]
    keep = admits | above.ravel()
    n, m, admits = n[keep], m[keep], admits[keep]
    pi = stationary_law(n, m, admits, v, v2, mu, mu2, q)
    accept = float(pi[admits].sum())
    work = float((pi[admits] * (n[admits] / mu + m[admits] / mu2)).sum() / accept)
    return min(accept, 1.0), work


def _threshold_nodes(theta, v, v2, mu, mu2, q):
    """:func:`_threshold_node` per fog node; θ = ∞ accepts everything (work computed apart)."""
    accept, work = np.ones(theta.size), np.zeros(theta.size)
    for j in np.flatnonzero(np.isfinite(theta)):
        accept[j], work[j] = _threshold_node(v[j], v2[j], mu[j], mu2[j], q, theta[j])
    return accept, work


def _flows(accept, inflow, share, e_max):
    """δ_jl for l = 0..e_M, cloud share C_j, for one class. ``share[ĵ, j]`` = 1/deg(ĵ).

    A fog node without a neighbour (a lone fog node) sends its rejects to the cloud at once,
    as eq. 6 (``nxt = via_cloud``) and the simulator do: every offered request is accounted
    for, Σ_j (λ_j + C_j) = Σ_j I_j (flow conservation).
    """
    lone = share.sum(axis=1) == 0
    deltas = [inflow]
    cloud = np.zeros_like(inflow, dtype=float)
    for _ in range(e_max):
        beta = (1 - accept) * deltas[-1]
        cloud = cloud + np.where(lone, beta, 0.0)
        deltas.append(share.T @ np.where(lone, 0.0, beta))
    cloud = cloud + (1 - accept) * deltas[-1]
    return np.array(deltas), cloud


@takes(
    P1Params,
    "scenario",
    *SETTINGS[:6],
    "max_iterations",
    "acceptance",
    *SETTINGS[6:],
    positional=True,
)
def analyze(p, *, max_iterations=500, acceptance=None) -> NetworkAnalysis:
    """The paper's analytic model on a scenario: flows, fixed point, P-K cloud, eq. 2.

    Parameters
    ----------
    scenario : networkx.Graph or Compiled, optional
        A scenario (:mod:`workbench.fog.scenario`); None: :func:`~workbench.fog.default_scenario`.
    theta : float or array
        θ of every fog node (an array: one per fog node) [s]; ``math.inf``: never offload.
    e_max : int
        Offload limit e_M.
    q : float
        Fairness of the fog chain.
    policy : {"offload", "no_offload", "all_cloud", "light_only"}
        The paper's policy or one of its baselines.
    neighbour : {"best", "uniform"}
        Where eq. 6 sends an offloaded request: the paper's best(j) (smallest W̄ + RTT/2) or
        a uniformly chosen neighbour (what the flow equations assume).
    own_processing : bool, default False
        False: an accepted request spends W̄_j in the node, as eq. 6 states. True (the
        workbench's correction): W̄_j + its own mean processing time 1/μ_c. W̄_j is the
        work an arrival finds, i.e. its queueing wait; eq. 6 omits its own processing.
    acceptance : float array of length n_fog, optional
        P_j of every fog node from an earlier analysis of the same traffic, θ, e_M, q and
        policy (``NetworkAnalysis.fog["accept_light"]``): the fixed point is skipped. It
        depends on no link delay, so one fixed point serves every delay variant
        (``own_processing``, ``neighbour``, the links' delays).
    admission : {"chain", "threshold"}, default "chain"
        "chain": the paper's model, a Poisson stream λ_j = P_j·v_j into the unbounded
        (n, n') chain with P_j = P(W < θ) from its law. "threshold" (the workbench's
        correction): every offered request (v_j, v'_j) meets the node, which admits it only
        in states with n/μ + n'/μ' < θ; the chain is then finite, P_j is the stationary
        mass of the admitting states (PASTA) and W̄_j the mean work an admitted request
        finds. Only the offloading policy differs.
    cloud_sojourn : {"pooled", "per_class"}, default "pooled"
        H̄_k of a cloud server: "pooled" as the paper writes it, H̄_k = Δ̄_k, one mean
        sojourn (P-K wait + the class mixture's E[S]) for both types; "per_class": the P-K
        wait plus the type's own mean processing time (what the simulator measures per type;
        the same mean over all cloud requests).
    max_iterations : int, default 500
        Bound on the fixed-point iterations (1 to 100,000).

    Returns
    -------
    NetworkAnalysis

    Raises
    ------
    UnstableRegimeError
        A fog node (under no_offload / light_only) or a cloud unit with load ≥ 1.
    EmptyRunError
        No IoT node sends any request (every rate 0): there is no delay to average.

    References
    ----------
    Yousefpour et al., IEEE IoT J. 5(1) 2018, eqs. 2, 6, 22–31.
    """
    func = "analyze"
    net = p.network
    max_iterations = check_count(max_iterations, "max_iterations", func, high=100_000)
    if max_iterations < 1:
        raise refusal(func, "max_iterations", "an int in the range [1, 100000]", got=max_iterations)
    net.require_traffic(func, "so there is no service delay to average")
    settings = p.pick(*SETTINGS)
    threshold = p.admission == "threshold" and p.policy == "offload"
    if p.policy != "offload":
        settings["e_max"] = 0
    e_max = settings["e_max"]
    p_light, p_heavy, iterations = _acceptance(
        p, e_max, threshold, max_iterations, acceptance, func
    )
    fog = _fog_state(p, e_max, threshold, p_light, p_heavy)
    return network_delays(net, fog, settings, iterations)


def _flows_both(net, p_light, p_heavy, e_max):
    """:func:`_flows` of both classes: (δ Light, C Light, δ Heavy, C Heavy)."""
    inflow = net.fog_inflow  # (n_fog, 2): I_j, I'_j
    share = net.neighbour_share  # (n_fog, n_fog) 1/deg(ĵ) on edges
    d0, c0 = _flows(p_light, inflow[:, 0], share, e_max)
    d1, c1 = _flows(p_heavy, inflow[:, 1], share, e_max)
    return d0, c0, d1, c1


def _fog_state(p, e_max, threshold, p_light, p_heavy):
    """The fog nodes' flows, rates, loads and mean work W̄_j at the fixed point's P_j."""
    net, theta_arr = p.network, p.thetas
    mu, mu2 = net.fog_mu[:, 0], net.fog_mu[:, 1]
    d0, c0, d1, c1 = _flows_both(net, p_light, p_heavy, e_max)
    v0, v1 = d0.sum(axis=0), d1.sum(axis=0)
    lam, lam2 = p_light * v0, p_heavy * v1
    if threshold:
        finite = np.isfinite(theta_arr)
        wbar = np.empty(net.n_fog)
        wbar[finite] = _threshold_nodes(
            theta_arr[finite], v0[finite], v1[finite], mu[finite], mu2[finite], p.q
        )[1]
        keep = ~finite  # θ = ∞: the node keeps everything, the unbounded chain
        wbar[keep] = _mean_work_vec(lam[keep], lam2[keep], mu[keep], mu2[keep])
    else:
        wbar = _mean_work_vec(lam, lam2, mu, mu2)
    rho = lam / mu + lam2 / mu2
    return dict(  # in the order of NetworkAnalysis.fog's columns
        v_light=v0,
        v_heavy=v1,
        lam_light=lam,
        lam_heavy=lam2,
        rho=rho,
        accept_light=p_light,
        accept_heavy=p_heavy,
        mean_work=wbar,
        cloud_light=c0,
        cloud_heavy=c1,
        theta=theta_arr,
    )


def _acceptance(p, e_max, threshold, max_iterations=500, acceptance=None, func="analyze"):
    """P_j per class of every fog node (the fixed point under offloading), and iterations."""
    net, theta_arr, q, policy = p.network, p.thetas, p.q, p.policy
    nf = net.n_fog
    mu, mu2 = net.fog_mu[:, 0], net.fog_mu[:, 1]

    iterations = 0
    if policy == "offload" and acceptance is not None:
        try:
            p = np.asarray(acceptance, dtype=float)
        except (TypeError, ValueError):
            p = np.full(nf + 1, np.nan)
        if p.shape != (nf,) or not np.all((p >= 0) & (p <= 1)):
            raise refusal(
                func,
                "acceptance",
                f"{nf} probabilities in [0, 1] (one per fog node)",
                acceptance,
            )
        p_light = p_heavy = p
    elif threshold:

        def threshold_step(p):
            d0, _, d1, _ = _flows_both(net, p, p, e_max)
            return _threshold_nodes(theta_arr, d0.sum(axis=0), d1.sum(axis=0), mu, mu2, q)[0]

        p, iterations = _fixed_point(threshold_step, nf, max_iterations, "P_j")
        p_light = p_heavy = p
    elif policy == "offload":

        def chain_step(p):
            d0, _, d1, _ = _flows_both(net, p, p, e_max)
            v0, v1 = d0.sum(axis=0), d1.sum(axis=0)
            # per node, P = accept(P·v, P·v') with P − accept increasing in P: a root in [0, 1]
            root = _bracketed_root(
                lambda x: x - _accept_vec(theta_arr, x * v0, x * v1, mu, mu2), nf
            )
            return np.where(np.isinf(theta_arr), 1.0, root)  # θ = ∞ accepts all

        p, iterations = _fixed_point(chain_step, nf, max_iterations, "λ_j")
        p_light = p_heavy = p
    elif policy == "no_offload":
        p_light = p_heavy = np.ones(nf)
    elif policy == "all_cloud":
        p_light = p_heavy = np.zeros(nf)
    else:
        p_light, p_heavy = np.ones(nf), np.zeros(nf)
    return p_light, p_heavy, iterations


@takes(P1Params, "scenario", "theta", "e_max", "q", "policy", positional=True)
def fog_loads(p) -> np.ndarray:
    """ρ_j = λ_j/μ_j + λ'_j/μ'_j of every fog node with the traffic it really keeps.

    Parameters
    ----------
    scenario, theta, e_max, q, policy
        As in :func:`analyze`.

    Returns
    -------
    numpy.ndarray
        ρ_j per fog node, in the scenario's order.

    Forwarded traffic included: a node with θ = ∞ (or under no_offload / light_only) keeps
    what its neighbours forward to it as well as its own IoT traffic. The neighbours'
    acceptance is the threshold-admission model's (within 2% of the simulator in the
    workbench's agreement table), the chain model's where θ is too large for that finite
    chain. A node with a finite θ admits only while its estimated work is below θ, so its
    ρ_j here is the model's estimate, not a stability bound; the nodes that keep every
    request are the ones whose ρ_j ≥ 1 means a queue without bound.
    """
    net = p.network
    e_max = p.e_max if p.policy == "offload" else 0
    try:
        p0, p1, _ = _acceptance(p, e_max, p.policy == "offload", func="fog_loads")
    except ParameterError:  # θ too large for the threshold chain: the paper's chain model
        p0, p1, _ = _acceptance(p, e_max, False, func="fog_loads")
    d0, _, d1, _ = _flows_both(net, p0, p1, e_max)
    return p0 * d0.sum(axis=0) / net.fog_mu[:, 0] + p1 * d1.sum(axis=0) / net.fog_mu[:, 1]
