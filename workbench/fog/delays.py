"""The service delay of the network model: cloud servers (P-K), eq. 6 and eq. 2.

Given the fog nodes' acceptance P_j and mean work W̄_j (:mod:`workbench.fog.network`, the
fixed point), this module computes:

- each cloud server k as m_k M/G/1 units, Λ_k = (l_k + l'_k)/m_k, with the class mixture of
  exponential processing times, H̄_k = E[S] + Λ·E[S²]/(2(1 − Λ·E[S])) (Pollaczek–Khinchine,
  vectorised over the servers; the scalar formula is :func:`workbench.erlang.pollaczek_khinchine`);
- L_ij(x) of eq. 6 per first fog node and home fog node, through best(j) (or a uniform
  neighbour), e_M forwards at most;
- d_i of eq. 2 per IoT node and class, and the averages (:class:`NetworkAnalysis`).

References
----------
Yousefpour et al., IEEE IoT J. 5(1) 2018, eq. 2 (service delay), eq. 6 (L_ij(x)),
eqs. 29–31 (cloud servers, P-K).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.validation import UnstableRegimeError

__all__ = ["NetworkAnalysis", "network_delays"]


@dataclass(frozen=True)
class NetworkAnalysis:
    """The analytic model evaluated on one scenario.

    Parameters
    ----------
    mean_delay : float
        Service delay averaged over requests (eq. 2 weighted by each IoT node's rate), [s]:
        what the simulator's per-request mean estimates.
    mean_delay_per_iot : float
        The paper's objective: eq. 2 averaged over IoT nodes with equal weight, [s].
    fog : DataFrame
        One row per fog node: I, I', v, v', λ, λ', ρ, P (acceptance, per class), W̄, best,
        cloud share C, C'.
    cloud : DataFrame
        One row per cloud server: l, l', units, Λ, load, H (mean sojourn) per class.
    iot : DataFrame
        One row per IoT node: rates and delay d (overall, Light, Heavy).
    iterations : int
        Outer iterations of the λ_j fixed point.
    settings : dict
        The keywords of :func:`workbench.fog.analyze` the analysis ran with.
    """

    mean_delay: float
    mean_delay_per_iot: float
    fog: pd.DataFrame
    cloud: pd.DataFrame
    iot: pd.DataFrame
    iterations: int
    settings: dict = field(default_factory=dict)


def _cloud_servers(net, c0, c1, cloud_sojourn):
    """Every cloud server's traffic, load and mean sojourn H̄_k per class (P-K units).

    A cloud server gets the IoT traffic sent straight there plus its fog nodes' cloud
    shares C_j, C'_j. Returns a dict: ``l0``, ``l1`` (per class), ``per_unit`` (Λ_k),
    ``load`` (Λ_k·E[S]) and ``h`` (n_cloud, 2).
    """
    nc = net.n_cloud
    l0 = net.cloud_direct[:, 0] + np.bincount(net.fog_cloud, weights=c0, minlength=nc)
    l1 = net.cloud_direct[:, 1] + np.bincount(net.fog_cloud, weights=c1, minlength=nc)
    units = net.cloud_units.astype(float)
    zc = net.cloud_mean  # (n_cloud, 2) mean processing times Z, Z'
    per_unit = (l0 + l1) / units
    tot = np.where(l0 + l1 > 0, l0 + l1, 1.0)
    es = (l0 * zc[:, 0] + l1 * zc[:, 1]) / tot
    es2 = (l0 * 2 * zc[:, 0] ** 2 + l1 * 2 * zc[:, 1] ** 2) / tot
    load = per_unit * es
    if np.any(load >= 1):
        k = int(np.argmax(load))
        raise UnstableRegimeError(
            f"analyze: cloud server {k} is unstable, load per unit Λ·E[S] = {load[k]:.6g} ≥ 1."
        )
    wait_q = per_unit * es2 / (2 * (1 - load))
    if cloud_sojourn == "pooled":  # H̄_k = Δ̄_k: one mean sojourn for both types
        h = np.repeat((es + wait_q)[:, None], 2, axis=1)
    else:  # per type: P-K wait + the type's own mean processing
        h = zc + wait_q[:, None]
    return dict(l0=l0, l1=l1, per_unit=per_unit, load=load, h=h)


def _best_neighbours(net, wbar):
    """best(j): the neighbour with the smallest W̄ + propagation delay (−1 without one)."""
    return np.array(
        [
            net.nbr_idx[s:e][np.argmin(wbar[net.nbr_idx[s:e]] + net.nbr_prop[s:e])] if e > s else -1
            for s, e in zip(net.nbr_ptr[:-1], net.nbr_ptr[1:], strict=True)
        ]
    )


def _fog_levels(net, accept, wbar, h, best, e_max, neighbour, own_processing):
    """Eq. 6: L(x) per (start fog j, home fog f), per class, without the last hop f -> i."""
    nf = net.n_fog
    out_delay = {}
    for c, p_acc in enumerate(accept):
        size = net.size_bits[c]
        back = net.ff_prop + size * net.ff_inv  # fog j -> fog f
        to_cloud = net.fc_prop + size * net.fc_inv  # fog j -> its cloud h(j)
        cloud_back = net.cf_prop[net.fog_cloud] + size * net.cf_inv[net.fog_cloud]  # [j, f]
        via_cloud = (to_cloud + h[net.fog_cloud, c])[:, None] + cloud_back
        stay = wbar + (1.0 / net.fog_mu[:, c] if own_processing else 0.0)
        served_here = stay[:, None] + back
        level = p_acc[:, None] * served_here + (1 - p_acc[:, None]) * via_cloud
        for _ in range(e_max):
            hop = net.nbr_prop + size * net.nbr_inv  # per CSR entry
            nxt = np.empty_like(level)
            for j in range(nf):
                s, e = net.nbr_ptr[j], net.nbr_ptr[j + 1]
                if e == s:  # no neighbour: straight to the cloud
                    nxt[j] = via_cloud[j]
                elif neighbour == "best":
                    k = np.flatnonzero(net.nbr_idx[s:e] == best[j])[0] + s
                    nxt[j] = hop[k] + level[best[j]]
                else:
                    nxt[j] = np.mean(hop[s:e, None] + level[net.nbr_idx[s:e]], axis=0)
            level = p_acc[:, None] * served_here + (1 - p_acc[:, None]) * nxt
        out_delay[c] = level  # L_ij(0) for first fog j, home f, minus the last hop
    return out_delay


def _iot_delays(net, out_delay, h):
    """Eq. 2 per IoT node and class, shape (n_iot, 2)."""
    f = net.iot_fog
    k = net.fog_cloud[f]
    d = np.zeros((net.n_iot, 2))
    for c in (0, 1):
        size = net.size_bits[c]
        link = net.iot_prop + size * net.iot_inv
        fog_part = link + out_delay[c][f, f] + link
        cloud_part = (
            link
            + net.fc_prop[f]
            + size * net.fc_inv[f]
            + h[k, c]
            + net.cf_prop[k, f]
            + size * net.cf_inv[k, f]
            + link
        )
        d[:, c] = (
            net.iot_p[:, 0] * net.iot_local_mean[:, c]
            + net.iot_p[:, 1] * fog_part
            + net.iot_p[:, 2] * cloud_part
        )
    return d


def network_delays(net, fog, settings, iterations) -> NetworkAnalysis:
    """Cloud servers (P-K), eq. 6 and eq. 2 from the fog nodes' P_j and W̄_j.

    Parameters
    ----------
    net : Compiled
        The scenario.
    fog : dict of numpy.ndarray
        The fog-node arrays of the fixed point, in the order of the ``fog`` frame's columns:
        ``v_light``, ``v_heavy``, ``lam_light``, ``lam_heavy``, ``rho``, ``accept_light``,
        ``accept_heavy``, ``mean_work``, ``cloud_light``, ``cloud_heavy``, ``theta``.
    settings : dict
        The validated keywords of :func:`workbench.fog.analyze` (``e_max`` already 0 for a
        baseline).
    iterations : int
        The fixed point's iterations, kept in the result.

    Returns
    -------
    NetworkAnalysis
        The delays per IoT node, fog node and cloud server, and their means.
    """
    cloud = _cloud_servers(net, fog["cloud_light"], fog["cloud_heavy"], settings["cloud_sojourn"])
    h = cloud["h"]
    wbar = fog["mean_work"]
    best = _best_neighbours(net, wbar)
    out_delay = _fog_levels(
        net,
        (fog["accept_light"], fog["accept_heavy"]),
        wbar,
        h,
        best,
        settings["e_max"],
        settings["neighbour"],
        settings["own_processing"],
    )
    d = _iot_delays(net, out_delay, h)
    rates = net.iot_rate
    total = rates.sum(axis=1)
    d_mix = np.where(total > 0, (d * rates).sum(axis=1) / np.where(total > 0, total, 1), 0.0)
    mean_delay = float((d * rates).sum() / rates.sum())
    inflow = net.fog_inflow
    fog_frame = pd.DataFrame(
        {
            "fog": np.arange(net.n_fog),
            "name": net.fog_names,
            "I_light": inflow[:, 0],
            "I_heavy": inflow[:, 1],
            **fog,
        }
    )
    fog_frame.insert(fog_frame.columns.get_loc("mean_work") + 1, "best", best)
    cloud_frame = pd.DataFrame(
        {
            "cloud": np.arange(net.n_cloud),
            "name": net.cloud_names,
            "l_light": cloud["l0"],
            "l_heavy": cloud["l1"],
            "units": net.cloud_units,
            "per_unit_rate": cloud["per_unit"],
            "load": cloud["load"],
            "H_light": h[:, 0],
            "H_heavy": h[:, 1],
        }
    )
    iot = pd.DataFrame(
        {
            "iot": np.arange(net.n_iot),
            "name": net.iot_names,
            "fog": net.iot_fog,
            "rate_light": rates[:, 0],
            "rate_heavy": rates[:, 1],
            "delay": d_mix,
            "delay_light": d[:, 0],
            "delay_heavy": d[:, 1],
        }
    )
    active = total > 0
    return NetworkAnalysis(
        mean_delay=mean_delay,
        mean_delay_per_iot=float(d_mix[active].mean()) if active.any() else 0.0,
        fog=fog_frame,
        cloud=cloud_frame,
        iot=iot,
        iterations=iterations,
        settings=dict(settings),
    )
