"""Slow, obvious twin of the fog network kernel (workbench.fog.kernels.simulate_network).

Plain Python: a heapq of (time, sequence, event) tuples, one dict per request, deques for
the queues. It takes the same pre-drawn requests and must give the same records request by
request on small networks.
"""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

MODES = ("distributed", "central", "oracle")
POLICIES = ("offload", "no_offload", "all_cloud", "light_only")


def naive_network(net, req, *, theta, e_max, q, alpha, mode, policy, period, central):
    """Return a dict of per-request arrays (tier, place, hops, t_done, d_*) like the kernel."""
    n = req.gen_time.size
    nf = net.n_fog
    fog_mean = 1.0 / net.fog_mu
    size_bits = net.size_bits
    units = [int(m) for m in net.cloud_units]
    unit_free = [[0.0] * m for m in units]

    neighbours = []  # per fog node: list of (neighbour, prop, inv)
    for j in range(nf):
        a, b = net.nbr_ptr[j], net.nbr_ptr[j + 1]
        neighbours.append(
            [(int(net.nbr_idx[e]), net.nbr_prop[e], net.nbr_inv[e]) for e in range(a, b)]
        )
    table = [dict() for _ in range(nf)]  # table[m][j] = what m last heard from j
    count = [[0, 0] for _ in range(nf)]
    estimate = [[fog_mean[j, 0], fog_mean[j, 1]] for j in range(nf)]
    queues = [[deque(), deque()] for _ in range(nf)]
    busy_with = [None] * nf

    rec = {
        k: np.zeros(n) for k in ("t_done", "d_up", "d_fwd", "d_fc", "d_wait", "d_proc", "d_back")
    }
    tier = np.full(n, -1)
    place = np.full(n, -1)
    hops = np.zeros(n, dtype=int)
    joined = np.zeros(n)

    events = []
    seq = [0]

    def push(t, what):
        heapq.heappush(events, (t, seq[0], what))
        seq[0] += 1

    announcing = mode != "oracle" and policy == "offload" and e_max > 0
    if announcing:
        for j in range(nf):
            push(req.announce_phase[j], ("announce", j))

    def w_of(j):
        return count[j][0] * estimate[j][0] + count[j][1] * estimate[j][1]

    def return_from_fog(r, j):
        i = req.origin[r]
        f = net.iot_fog[i]
        s = size_bits[req.rtype[r]]
        return net.ff_prop[j, f] + s * net.ff_inv[j, f] + net.iot_prop[i] + s * net.iot_inv[i]

    def start_service(r, j, now):
        busy_with[j] = r
        rec["d_wait"][r] = now - joined[r]
        rec["d_proc"][r] = req.work[r] * fog_mean[j, req.rtype[r]]
        push(now + rec["d_proc"][r], ("fog_done", r, j))

    g = 0
    outstanding = 0
    while g < n or outstanding > 0:
        if g < n and (not events or req.gen_time[g] < events[0][0]):
            r = g
            g += 1
            now = req.gen_time[r]
            i, c = req.origin[r], req.rtype[r]
            s = size_bits[c]
            if req.route[r] == 0:
                rec["d_proc"][r] = req.work[r] * net.iot_local_mean[i, c]
                rec["t_done"][r] = now + rec["d_proc"][r]
                tier[r], place[r] = 0, i
                continue
            outstanding += 1
            j = net.iot_fog[i]
            rec["d_up"][r] = net.iot_prop[i] + s * net.iot_inv[i]
            if req.route[r] == 1:
                push(now + rec["d_up"][r], ("fog_arrive", r, j))
            else:
                rec["d_fc"][r] = net.fc_prop[j] + s * net.fc_inv[j]
                push(now + rec["d_up"][r] + rec["d_fc"][r], ("cloud_arrive", r, net.fog_cloud[j]))
            continue

        now, _, what = heapq.heappop(events)
        kind = what[0]
        if kind == "fog_arrive":
            _, r, j = what
            c = req.rtype[r]
            s = size_bits[c]
            accept = {
                "offload": w_of(j) < theta[j],
                "no_offload": True,
                "all_cloud": False,
                "light_only": c == 0,
            }[policy]
            if accept:
                count[j][c] += 1
                joined[r] = now
                if busy_with[j] is None:
                    start_service(r, j, now)
                else:
                    queues[j][c].append(r)
            elif policy == "offload" and hops[r] < e_max and neighbours[j]:
                costs = []
                for m, prop, _inv in neighbours[j]:
                    seen = w_of(m) if mode == "oracle" else table[j].get(m, 0.0)
                    costs.append(seen + prop)
                k = int(np.argmin(costs))  # first minimum, as the kernel
                m, prop, inv = neighbours[j][k]
                hops[r] += 1
                rec["d_fwd"][r] += prop + s * inv
                push(now + prop + s * inv, ("fog_arrive", r, m))
            else:
                rec["d_fc"][r] = net.fc_prop[j] + s * net.fc_inv[j]
                push(now + rec["d_fc"][r], ("cloud_arrive", r, net.fog_cloud[j]))
        elif kind == "fog_done":
            _, r, j = what
            c = req.rtype[r]
            count[j][c] -= 1
            estimate[j][c] = (1 - alpha) * estimate[j][c] + alpha * rec["d_proc"][r]
            rec["d_back"][r] = return_from_fog(r, j)
            rec["t_done"][r] = now + rec["d_back"][r]
            tier[r], place[r] = 1, j
            outstanding -= 1
            busy_with[j] = None
            light, heavy = queues[j]
            if light or heavy:
                if not heavy:
                    pick = 0
                elif not light:
                    pick = 1
                elif q == 0.5:
                    pick = 0 if joined[light[0]] <= joined[heavy[0]] else 1
                else:
                    wl, wh = count[j]
                    pick = 0 if req.select_u[r] < q * wl / (q * wl + (1 - q) * wh) else 1
                start_service(queues[j][pick].popleft(), j, now)
        elif kind == "cloud_arrive":
            _, r, k = what
            c = req.rtype[r]
            s = size_bits[c]
            u = min(int(req.unit_u[r] * units[k]), units[k] - 1)
            start = max(now, unit_free[k][u])
            rec["d_wait"][r] = start - now
            rec["d_proc"][r] = req.work[r] * net.cloud_mean[k, c]
            unit_free[k][u] = start + rec["d_proc"][r]
            i = req.origin[r]
            f = net.iot_fog[i]
            rec["d_back"][r] = (
                net.cf_prop[k, f] + s * net.cf_inv[k, f] + net.iot_prop[i] + s * net.iot_inv[i]
            )
            rec["t_done"][r] = unit_free[k][u] + rec["d_back"][r]
            tier[r], place[r] = 2, k
            outstanding -= 1
        elif kind == "announce":
            _, j = what
            w = w_of(j)
            for m, prop, _inv in neighbours[j]:
                delay = (
                    prop
                    if mode == "distributed"
                    else (net.ff_prop[j, central] + net.ff_prop[central, m])
                )
                push(now + delay, ("receive", m, j, w))
            if g < n or outstanding > 0:
                push(now + period, ("announce", j))
        else:
            _, m, j, w = what
            table[m][j] = w
    return {"tier": tier, "place": place, "hops": hops, **rec}


def paper_fog_node(arrival, rtype, proc, *, theta, alpha, z0, period=0.0):
    """One fog node's admission, written from the paper's text (Sec. III-B, III-D).

    "If the estimated waiting time is smaller than a threshold θ_j at fog node j, the fog
    node will accept the task. The task enters the queue and the estimated waiting time is
    updated. If not, the fog node offloads this request". "fog node j stores the current
    number of type Light and Heavy requests in the queue c_j and c'_j ... multiply the
    estimated processing time of each task type by the number of tasks of that type",
    W = c·z + c'·z'; after a task is processed, z ← (1−α)·z + α·new_z with new_z its
    measured processing time. One server, first come first served (q = 0.5).

    ``arrival`` (sorted), ``rtype`` (0 Light, 1 Heavy) and ``proc`` (the processing time a
    request would take) per request; returns True where the request was accepted. With
    ``period`` T > 0, "fog node j periodically measures processing times of recently
    processed tasks (new_z_j)": at each multiple of T, new_z is the mean processing time of
    the type's tasks finished in the period just ended (no update without one).
    """
    z = list(z0)
    measured = [[], []]  # this period's processing times, per type
    next_tick = [period]

    def tick(now):
        if period > 0 and now >= next_tick[0]:
            for c in (0, 1):
                if measured[c]:
                    z[c] = (1 - alpha) * z[c] + alpha * (sum(measured[c]) / len(measured[c]))
                    measured[c].clear()
            next_tick[0] = period * (math.floor(now / period) + 1)

    count = [0, 0]
    waiting = deque()  # accepted, not yet in service: (type, processing time)
    in_service = None  # (finish time, type, processing time)
    accepted = np.zeros(len(arrival), dtype=bool)

    def finish_until(t):
        nonlocal in_service
        while in_service is not None and in_service[0] < t:
            done, c, p = in_service
            tick(done)
            count[c] -= 1
            if period > 0:
                measured[c].append(p)
            else:
                z[c] = (1 - alpha) * z[c] + alpha * p
            in_service = None
            if waiting:
                c2, p2 = waiting.popleft()
                in_service = (done + p2, c2, p2)

    for r, t in enumerate(arrival):
        finish_until(t)
        tick(t)
        c = rtype[r]
        w = count[0] * z[0] + count[1] * z[1]
        if w < theta:
            accepted[r] = True
            count[c] += 1
            if in_service is None:
                in_service = (t + proc[r], c, proc[r])
            else:
                waiting.append((c, proc[r]))
    return accepted


# --------------------------------------------------- the analytic model, written from the paper


def _ps_accept_expm(theta, lam, lam2, mu, mu2):
    """P(W < θ) of the q = 0.5 chain: W is a geometric sum (ratio ρ) of hyperexponential
    works, the phase-type law (ρα, G = T + ρ·t·α), and P(W ≥ θ) = ρα·exp(Gθ)·1, here by
    uniformisation (a Poisson mixture of powers of I + G/Λ, all terms positive). 0 when
    ρ ≥ 1."""
    if math.isinf(theta):
        return 1.0
    if theta <= 0:
        return 0.0
    r1, r2 = lam / mu, lam2 / mu2
    rho = r1 + r2
    if rho >= 1:
        return 0.0
    if rho == 0:
        return 1.0
    if math.log(rho) - min(mu, mu2) * (1 - rho) * theta < -745:
        # W is below a geometric sum of Exp(min(μ, μ')) works: P(W ≥ θ) ≤ ρ·e^{−μ(1−ρ)θ}
        return 1.0
    a1, a2 = r1 / rho, r2 / rho
    rate = max(mu, mu2)
    # P = I + G/Λ, G = [[-μ + ρμa1, ρμa2], [ρμ'a1, -μ' + ρμ'a2]]
    p11, p12 = 1 + (-mu + rho * mu * a1) / rate, rho * mu * a2 / rate
    p21, p22 = rho * mu2 * a1 / rate, 1 + (-mu2 + rho * mu2 * a2) / rate
    x = rate * theta
    u1 = u2 = 1.0  # P^k·1
    weight = math.exp(-x)  # Poisson(k; Λθ), k = 0
    tail, k = 0.0, 0
    while k < x + 12 * math.sqrt(x + 1) + 60:
        tail += weight * (a1 * u1 + a2 * u2)
        u1, u2 = p11 * u1 + p12 * u2, p21 * u1 + p22 * u2
        k += 1
        weight *= x / k
    return 1.0 - rho * tail


def dense_chain_law(states, admits, lam, lam2, mu, mu2, q):
    """π of the two-class fog-node chain on ``states`` (a list of (n, n') closed under the
    moves below), by a dense least-squares solve of πG = 0, Σπ = 1. From a state where
    ``admits(n, n')`` holds, Light and Heavy requests arrive at λ and λ'; a busy node serves
    Light work with share q·n / (q·n + (1 − q)·n') at rate μ, Heavy work with the rest at μ'."""
    index = {s: i for i, s in enumerate(states)}
    size = len(states)
    gen = np.zeros((size, size))
    for (n, m), i in index.items():
        if admits(n, m):
            gen[i, index[(n + 1, m)]] += lam
            gen[i, index[(n, m + 1)]] += lam2
        if n + m > 0:
            light = q * n / (q * n + (1 - q) * m)
            if n > 0:
                gen[i, index[(n - 1, m)]] += light * mu
            if m > 0:
                gen[i, index[(n, m - 1)]] += (1 - light) * mu2
    gen -= np.diag(gen.sum(axis=1))
    a = np.vstack([gen.T, np.ones(size)])
    rhs = np.zeros(size + 1)
    rhs[-1] = 1.0
    return np.linalg.lstsq(a, rhs, rcond=None)[0]


def naive_threshold_node(v, v2, mu, mu2, q, theta):
    """(P(admit), mean work an admitted request finds) of a node that admits while
    n/μ + n'/μ' < θ: the finite chain on every state reachable from (0, 0), a dense solve."""
    if theta <= 0:
        return 0.0, 0.0
    states = [(0, 0)]
    seen = {(0, 0)}
    k = 0
    while k < len(states):  # breadth first: arrivals only from admitting states
        n, m = states[k]
        k += 1
        if n / mu + m / mu2 < theta:
            for s in ((n + 1, m), (n, m + 1)):
                if s not in seen:
                    seen.add(s)
                    states.append(s)
    index = {s: i for i, s in enumerate(states)}
    pi = dense_chain_law(states, lambda n, m: n / mu + m / mu2 < theta, v, v2, mu, mu2, q)
    admit = [i for (n, m), i in index.items() if n / mu + m / mu2 < theta]
    accept = sum(pi[i] for i in admit)
    work = sum(pi[index[s]] * (s[0] / mu + s[1] / mu2) for s in states if index[s] in admit)
    return float(accept), float(work / accept)


def naive_analyze(
    net,
    *,
    theta,
    e_max,
    q=0.5,
    policy="offload",
    neighbour="best",
    own_processing=False,
    admission="chain",
    cloud_sojourn="pooled",
):
    """The paper's analytic model on a compiled scenario, one node and one path at a time.

    Flows (eqs. 22–28): δ_j0 = I_j, δ_j,l+1 = Σ_{ĵ ~ j} (1 − P_ĵ) δ_ĵl / deg(ĵ), C_j the
    rejects of the last level; λ_j = P_j·v_j with P_j = P(W_j < θ_j) at λ_j, a fixed point
    (each node's scalar equation by brentq, the network by plain iteration). W̄_j by
    Pollaczek–Khinchine for the hyperexponential work; cloud servers by P-K (eqs. 29–31);
    L_ij(x) of eq. 6 by recursion on x, e_M forwards at most; d_i of eq. 2 per IoT node.
    """
    from scipy import optimize

    nf, nc, ni = net.n_fog, net.n_cloud, net.n_iot
    theta = np.broadcast_to(np.asarray(theta, dtype=float), (nf,))
    mu = net.fog_mu
    nbrs = [
        [(int(net.nbr_idx[e]), e) for e in range(net.nbr_ptr[j], net.nbr_ptr[j + 1])]
        for j in range(nf)
    ]
    inflow = np.zeros((nf, 2))
    for i in range(ni):
        inflow[net.iot_fog[i]] += net.iot_rate[i] * net.iot_p[i, 1]
    if policy != "offload":
        e_max = 0
    threshold = admission == "threshold" and policy == "offload"

    def flows(p, c):
        levels = [inflow[:, c].copy()]
        cloud = np.zeros(nf)
        for _ in range(e_max):
            nxt = np.zeros(nf)
            for j in range(nf):
                out = (1 - p[j]) * levels[-1][j]
                if not nbrs[j]:
                    cloud[j] += out  # a lone node sends its rejects to the cloud
                for k, _e in nbrs[j]:
                    nxt[k] += out / len(nbrs[j])
            levels.append(nxt)
        cloud += (1 - p) * levels[-1]
        return np.array(levels).sum(axis=0), cloud

    if policy == "offload":
        p = np.ones(nf)
        for it in range(5000):
            v0, v1 = flows(p, 0)[0], flows(p, 1)[0]
            new = np.empty(nf)
            for j in range(nf):
                if math.isinf(theta[j]):
                    new[j] = 1.0
                elif threshold:
                    new[j] = naive_threshold_node(v0[j], v1[j], mu[j, 0], mu[j, 1], q, theta[j])[0]
                else:

                    def gap(x, j=j, a=v0[j], b=v1[j]):
                        return x - _ps_accept_expm(theta[j], x * a, x * b, *mu[j])

                    new[j] = 1.0 if gap(1.0) <= 0 else optimize.brentq(gap, 0.0, 1.0, xtol=1e-15)
            change = np.max(np.abs(new - p))
            p = new if it < 50 else 0.5 * (p + new)
            if change < 1e-13:
                break
        p_acc = np.array([p, p])
    elif policy == "no_offload":
        p_acc = np.ones((2, nf))
    elif policy == "all_cloud":
        p_acc = np.zeros((2, nf))
    else:  # light_only
        p_acc = np.array([np.ones(nf), np.zeros(nf)])
    (v0, c0), (v1, c1) = flows(p_acc[0], 0), flows(p_acc[1], 1)
    v, cl = np.array([v0, v1]), np.array([c0, c1])
    lam = p_acc * v
    rho = lam[0] / mu[:, 0] + lam[1] / mu[:, 1]
    wbar = np.empty(nf)
    for j in range(nf):
        if threshold and math.isfinite(theta[j]):
            wbar[j] = naive_threshold_node(v0[j], v1[j], mu[j, 0], mu[j, 1], q, theta[j])[1]
        else:  # the M/G/1 work, hyperexponential service: E[S²]/2 per arrival, over 1 − ρ
            wbar[j] = (lam[0, j] / mu[j, 0] ** 2 + lam[1, j] / mu[j, 1] ** 2) / (1 - rho[j])

    # cloud servers: m_k M/G/1 units, the class mixture of exponential times
    load = np.zeros((nc, 2))
    for i in range(ni):
        load[net.fog_cloud[net.iot_fog[i]]] += net.iot_rate[i] * net.iot_p[i, 2]
    for j in range(nf):
        load[net.fog_cloud[j]] += cl[:, j]
    h = np.zeros((nc, 2))
    for k in range(nc):
        z = net.cloud_mean[k]
        tot = load[k].sum()
        rate = tot / net.cloud_units[k]
        es = (load[k] @ z) / tot if tot > 0 else 0.0
        es2 = (load[k] @ (2 * z**2)) / tot if tot > 0 else 0.0
        wait = rate * es2 / (2 * (1 - rate * es))
        h[k] = es + wait if cloud_sojourn == "pooled" else z + wait

    best = [
        min(nbrs[j], key=lambda ke, j=j: wbar[ke[0]] + net.nbr_prop[ke[1]])[0] if nbrs[j] else -1
        for j in range(nf)
    ]

    def link(bits, prop, inv):
        return prop + bits * inv

    def via_cloud(j, f, c, bits):
        k = net.fog_cloud[j]
        return (
            link(bits, net.fc_prop[j], net.fc_inv[j])
            + h[k, c]
            + link(bits, net.cf_prop[k, f], net.cf_inv[k, f])
        )

    def big_l(j, f, x, c):
        bits = net.size_bits[c]
        stay = wbar[j] + (1 / mu[j, c] if own_processing else 0.0)
        here = stay + link(bits, net.ff_prop[j, f], net.ff_inv[j, f])
        if x == e_max or not nbrs[j]:
            away = via_cloud(j, f, c, bits)
        elif neighbour == "best":
            e = next(e for k, e in nbrs[j] if k == best[j])
            away = link(bits, net.nbr_prop[e], net.nbr_inv[e]) + big_l(best[j], f, x + 1, c)
        else:
            away = np.mean(
                [
                    link(bits, net.nbr_prop[e], net.nbr_inv[e]) + big_l(k, f, x + 1, c)
                    for k, e in nbrs[j]
                ]
            )
        return p_acc[c, j] * here + (1 - p_acc[c, j]) * away

    d = np.zeros((ni, 2))
    for i in range(ni):
        f = net.iot_fog[i]
        for c in (0, 1):
            bits = net.size_bits[c]
            up = link(bits, net.iot_prop[i], net.iot_inv[i])
            fog_part = up + big_l(f, f, 0, c) + up
            cloud_part = up + via_cloud(f, f, c, bits) + up
            d[i, c] = (
                net.iot_p[i, 0] * net.iot_local_mean[i, c]
                + net.iot_p[i, 1] * fog_part
                + net.iot_p[i, 2] * cloud_part
            )
    rates = net.iot_rate
    active = rates.sum(axis=1) > 0
    per_iot = [(d[i] @ rates[i]) / rates[i].sum() for i in range(ni) if active[i]]
    return dict(
        accept=p_acc,
        v=v,
        lam=lam,
        rho=rho,
        cloud_share=cl,
        mean_work=wbar,
        best=np.array(best),
        cloud_load=load,
        h=h,
        delay=d,
        mean_delay=float((d * rates).sum() / rates.sum()),
        mean_delay_per_iot=float(np.mean(per_iot)),
    )


def event_bound_naive(net, req, *, e_max, mode, policy, period):
    """An upper bound on one run's events, request by request, as the simulator's
    ``event_bound`` documents it: every request makes at most e_M + 1 arrivals at fog nodes
    and one departure (plus one event for the loop's start); with announcements (the paper's
    offloading, e_M > 0, not the oracle) each fog node announces every T_a until the last
    request can be done: the last IoT uplink, then every fog request processed one after the
    other at the slowest fog rate, then e_M + 1 hops over the slowest fog link."""
    n = len(req.gen_time)
    events = 1
    for _ in range(n):
        events += e_max + 1  # the first arrival at a fog node and up to e_M forwards
        events += 1  # its departure
    if mode == "oracle" or policy != "offload" or e_max == 0 or n == 0:
        return events
    slowest = max(1.0 / mu for row in net.fog_mu for mu in row)
    work = 0.0
    for i in range(n):
        if req.route[i] == 1:  # routed to the fog (eq. 2's p^F)
            work += req.work[i]
    hop = 0.0
    if len(net.nbr_prop):
        hop = max(net.nbr_prop) + max(net.size_bits) * max(net.nbr_inv)
    end = req.gen_time[n - 1] + max(net.iot_prop) + work * slowest + (e_max + 1) * hop
    return events + net.n_fog * (math.floor(end / period) + 2)


def illinois_root(func, width=1e-13, max_steps=200):
    """The root in [0, 1] of an increasing scalar ``func``, by regula falsi with the Illinois
    rule, one value at a time: (root, the points evaluated in order).

    f(0) ≥ 0 gives 0 and f(1) ≤ 0 gives 1 at once. Otherwise [lo, hi] brackets the root
    (f(lo) < 0 < f(hi)) while it is wider than ``width``: the next point is where the chord
    crosses zero, or the midpoint when that point is not strictly inside the bracket (a
    chord so steep that it rounds onto an end); it replaces the end of its sign, and when
    the same end is replaced twice in a row the other end's value is halved (Illinois). An
    exact zero is the root. At the end: the bracket's end whose value reached zero's side,
    else the last point.
    """
    points = [0.0, 1.0]
    lo, hi = 0.0, 1.0
    f_lo, f_hi = func(lo), func(hi)
    if f_lo >= 0:
        return lo, points
    if f_hi <= 0:
        return hi, points
    x, moved = 0.5, None
    for _ in range(max_steps):
        if not hi - lo > width:
            break
        chord = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        x = chord if math.isfinite(chord) and lo < chord < hi else 0.5 * (lo + hi)
        points.append(x)
        f_x = func(x)
        if f_x > 0:
            if moved == "hi":
                f_lo *= 0.5
            hi, f_hi, moved = x, f_x, "hi"
        else:
            if moved == "lo":
                f_hi *= 0.5
            lo, f_lo, moved = x, f_x, "lo"
        if f_x == 0:
            return x, points
    if f_lo >= 0:
        return lo, points
    if f_hi <= 0:
        return hi, points
    return x, points


def ps_accept_decimal(theta, r1, r2, mu, mu2, digits=60):
    """P(W < θ) of the q = 0.5 chain in ``digits``-digit decimal arithmetic: P(W ≥ θ) =
    ρα·e^{A}·1 with A = (T + ρ·t·α)θ (see :func:`_ps_accept_expm`), e^{A} by Putzer's formula
    from A's two real eigenvalues l₁ > l₂: (e^{l₁}(A − l₂I) − e^{l₂}(A − l₁I)) / (l₁ − l₂).
    No cancellation survives 60 digits for rates in [1e-6, 1e6] and θ ≤ 1e6. ρ₁, ρ₂ are taken
    as given (floats, converted exactly), with 0 < θ < ∞ and 0 < ρ₁ + ρ₂ < 1."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = digits
        th, r1, r2, mu, mu2 = (Decimal(float(v)) for v in (theta, r1, r2, mu, mu2))
        rho = r1 + r2
        a1, a2 = r1 / rho, r2 / rho
        a, b = (-mu + rho * mu * a1) * th, rho * mu * a2 * th
        c, d = rho * mu2 * a1 * th, (-mu2 + rho * mu2 * a2) * th
        half_sum = (a + d) / 2
        root = ((a - d) ** 2 / 4 + b * c).sqrt()
        l1, l2 = half_sum + root, half_sum - root
        e1, e2 = l1.exp(), l2.exp()

        def entry(x, on_diagonal):
            shift1, shift2 = (l1, l2) if on_diagonal else (0, 0)
            return (e1 * (x - shift2) - e2 * (x - shift1)) / (l1 - l2)

        e11, e12 = entry(a, True), entry(b, False)
        e21, e22 = entry(c, False), entry(d, True)
        return float(1 - rho * (a1 * (e11 + e12) + a2 * (e21 + e22)))


def hypoexponential_cdf(theta, mu, mu2):
    """P(Exp(μ) + Exp(μ') < θ), μ ≠ μ': 1 − (μ' e^{−μθ} − μ e^{−μ'θ}) / (μ' − μ)."""
    return 1 - (mu2 * math.exp(-mu * theta) - mu * math.exp(-mu2 * theta)) / (mu2 - mu)
