"""A slow, obvious twin of the hierarchy kernel: Python objects, heapq, one task at a time.

Same draws in, same decisions out: used to compare the numba kernel task by task.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque

import numpy as np


def red_probability(avg, lo, hi, max_p, count, gentle):
    if avg < lo:
        return 0.0
    if avg < hi:
        p_b = max_p * (avg - lo) / (hi - lo)
    elif gentle and avg < 2 * hi:
        p_b = max_p + (1 - max_p) * (avg - hi) / hi
    else:
        return 1.0
    if count * p_b >= 1 - p_b:
        return 1.0
    return p_b / (1 - count * p_b)


class Server:
    def __init__(self, sid, speed):
        self.sid, self.speed = sid, speed
        self.queue = deque()  # tasks waiting (not in service)
        self.current = None  # task in service
        self.doing = None  # "decide" | "execute"
        self.ends = 0.0
        self.red_avg, self.red_count = 0.0, -1
        self.n_here, self.area, self.last = 0, 0.0, 0.0

    def ahead(self, now, work, in_decision="full"):
        """Queued work plus what is left of the task in service (a decision: as told)."""
        total = sum(work[k] for k in self.queue)
        if self.current is not None:
            if self.doing in ("execute", "send") or in_decision == "remaining":
                total += (self.ends - now) * self.speed
            elif in_decision == "full":
                total += work[self.current]
        return total

    def count_change(self, now, delta):
        self.area += self.n_here * (now - self.last)
        self.last = now
        self.n_here += delta


def simulate_naive(
    model,
    topo,
    tasks,
    *,
    min_th=5.0,
    max_th=20.0,
    max_p=0.5,
    w_q=0.125,
    gentle=False,
    decision_time=0.001,
    power=0.5,
    kappa=1e-11,
    down_offload=False,
    in_decision="full",
    offload_busy=True,
    eq11_unit=1.0,
):
    flags = {
        "pure_local": (False, False, False, False),
        "pure_cloud": (True, False, False, False),
        "original": (False, False, True, False),
        "without_enhancement_1": (False, True, True, False),
        "without_enhancement_2": (False, False, True, True),
        "advanced": (False, True, True, True),
    }
    cloud_forward, use_red, overhead, queue_aware = flags[model]
    n, m = topo.n, tasks.arrival.size
    work, data = tasks.work, tasks.data
    servers = [Server(s, topo.compute[s]) for s in range(n)]
    gamma_t = [f / (f + 1) for f in topo.compute]
    gamma_e = [1 / (f + 1) for f in topo.compute]
    finish = [None] * m
    executed_at = [-1] * m
    visits = [0] * m
    waited = [0.0] * m
    deciding = [0.0] * m
    transfer = [0.0] * m
    red = [0] * m
    down = [0] * m
    pinned = [False] * m
    joined = [0.0] * m
    events = []
    seq = itertools.count()
    for k in range(m):
        # generated arrivals go after anything already scheduled at the same instant
        heapq.heappush(events, (tasks.arrival[k], 1, k, "arrive", k, int(tasks.origin[k])))

    def schedule(t, kind, a, b):
        heapq.heappush(events, (t, 0, next(seq), kind, a, b))

    def start(srv, now):
        k = srv.queue.popleft()
        waited[k] += now - joined[k]
        srv.current = k
        if overhead and topo.parent[srv.sid] >= 0 and not pinned[k]:
            srv.doing, srv.ends = "decide", now + decision_time
            deciding[k] += decision_time
        else:
            srv.doing, srv.ends = "execute", now + work[k] / srv.speed
            executed_at[k] = srv.sid
        schedule(srv.ends, "done", srv.sid, k)

    def hop(k, frm, to, link, now):
        t = data[k] / topo.bandwidth[link]
        transfer[k] += t
        schedule(now + t, "arrive", k, to)

    while events:
        now, _, _, kind, a, b = heapq.heappop(events)
        if kind == "arrive":
            k, s = a, b
            visits[k] += 1
            srv = servers[s]
            up = int(topo.parent[s])
            if not pinned[k] and cloud_forward and up >= 0:
                hop(k, s, up, s, now)
                continue
            if not pinned[k] and use_red and up >= 0:
                sample = srv.ahead(now, work, in_decision) / srv.speed
                srv.red_avg = (1 - w_q) * srv.red_avg + w_q * sample
                serving = srv.current is not None and srv.doing != "send"
                present = list(srv.queue) + ([srv.current] if serving else [])
                if present:
                    t_exe = sum(work[j] for j in present) / len(present) / srv.speed
                else:
                    t_exe = work[k] / srv.speed
                u = eq11_unit
                lo = min(1.0, t_exe / u) * min_th * u
                hi = max(1.0, t_exe / u) * max_th * u
                drop = False
                if srv.red_avg >= lo:
                    srv.red_count += 1
                    p = red_probability(srv.red_avg, lo, hi, max_p, srv.red_count, gentle)
                    if tasks.uniforms[k, visits[k] - 1] < p:
                        drop, srv.red_count = True, 0
                else:
                    srv.red_count = -1
                if drop:
                    red[k] += 1
                    hop(k, s, up, s, now)
                    continue
            if not pinned[k] and down_offload and up < 0:
                best_t = (srv.ahead(now, work, in_decision) + work[k]) / srv.speed
                best = -1
                for c in topo.children(s):
                    t_c = (
                        data[k] / topo.bandwidth[c]
                        + (servers[c].ahead(now, work, in_decision) + work[k]) / servers[c].speed
                    )
                    if t_c < best_t:
                        best_t, best = t_c, c
                if best >= 0:
                    pinned[k] = True
                    down[k] = 1
                    hop(k, s, best, best, now)
                    continue
            srv.count_change(now, +1)
            joined[k] = now
            srv.queue.append(k)
            if srv.current is None:
                start(srv, now)
        else:
            s, k = a, b
            srv = servers[s]
            if srv.doing == "decide":
                up = int(topo.parent[s])
                local = (
                    gamma_t[s] * work[k] / srv.speed + gamma_e[s] * kappa * srv.speed**2 * work[k]
                )
                t_hop = data[k] / topo.bandwidth[s]
                queued = servers[up].ahead(now, work, in_decision) if queue_aware else 0.0
                offload = gamma_t[s] * (t_hop + (work[k] + queued) / servers[up].speed) + (
                    gamma_e[s] * power * t_hop
                )
                if offload < local:
                    srv.count_change(now, -1)
                    hop(k, s, up, s, now)
                    if offload_busy and t_hop > 0:
                        srv.doing, srv.ends = "send", now + t_hop
                        schedule(srv.ends, "done", s, k)
                        continue
                    srv.current = None
                    if srv.queue:
                        start(srv, now)
                else:
                    srv.doing, srv.ends = "execute", now + work[k] / srv.speed
                    executed_at[k] = s
                    schedule(srv.ends, "done", s, k)
            elif srv.doing == "send":
                srv.current = None
                if srv.queue:
                    start(srv, now)
            else:
                finish[k] = now
                srv.count_change(now, -1)
                srv.current = None
                if srv.queue:
                    start(srv, now)
    for srv in servers:
        srv.count_change(now, 0)
    return {
        "finish": np.array(finish, dtype=float),
        "exec_server": np.array(executed_at),
        "visits": np.array(visits),
        "wait": np.array(waited),
        "decide": np.array(deciding),
        "transfer": np.array(transfer),
        "red_forwards": np.array(red),
        "went_down": np.array(down),
        "area": np.array([srv.area for srv in servers]),
    }


def static_route_naive(parent, compute, bandwidth, *, beta, power, kappa, size=1.0):
    """Where the paper's original rule (eqs. 5, 8, 9) runs a task of work ``size`` entering at
    each server: climb while the offload overhead γ_t(B/W + D/F_up) + γ_e·P·B/W (B = βD) is
    strictly below the local one γ_t·D/F + γ_e·κ·F²·D, with γ_t = F/(F+1), γ_e = 1/(F+1)."""
    route = []
    for s in range(len(parent)):
        here = s
        while parent[here] != -1:
            up = parent[here]
            f = compute[here]
            g_t, g_e = f / (f + 1), 1 / (f + 1)
            data = beta * size
            local = g_t * size / f + g_e * kappa * f * f * size
            offload = g_t * (data / bandwidth[here] + size / compute[up])
            offload += g_e * power * data / bandwidth[here]
            if not offload < local:
                break
            here = up
        route.append(here)
    return route


def utilisation_bound_naive(
    parent,
    compute,
    bandwidth,
    weight,
    *,
    model,
    lam,
    period,
    mean_size,
    beta,
    power,
    kappa,
    decision_time,
    offload_busy,
):
    """The largest worker time per second a model's routing puts on a server, task path by
    task path: executions, a decision τ_d at every server a task is decided at (the original
    rule: each one it climbs through below the centre), and where handing over an offload
    occupies the worker, the transfer β·E[D]/W of every task sent up."""
    n = len(parent)
    rate = [lam * weight[s] / period for s in range(n)]
    root = parent.index(-1)
    total = sum(rate) * mean_size / sum(compute)
    if model == "pure_local":
        return max(rate[s] * mean_size / compute[s] for s in range(n))
    if model == "pure_cloud":
        return sum(rate) * mean_size / compute[root]
    if model == "advanced":
        return total
    if model == "without_enhancement_2":
        return max(total, max(r * decision_time for r in rate))
    route = static_route_naive(parent, compute, bandwidth, beta=beta, power=power, kappa=kappa)
    load = [0.0] * n
    for s in range(n):
        if rate[s] == 0:
            continue
        here = s
        while True:
            if here == route[s]:
                load[here] += rate[s] * mean_size / compute[here]
                if model == "original" and parent[here] != -1:
                    load[here] += rate[s] * decision_time
                break
            if model == "original":
                load[here] += rate[s] * decision_time
                if offload_busy:
                    load[here] += rate[s] * beta * mean_size / bandwidth[here]
            here = parent[here]
    return max(load)
