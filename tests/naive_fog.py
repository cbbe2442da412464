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
