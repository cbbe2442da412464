"""A slow, obvious twin of the arena's engine: plain Python objects and ``heapq``.

Same inputs (a compiled Net and drawn Tasks), same rules (module docstring of
``workbench.arena.kernels`` and ``workbench.arena.policies``), same tie order (events ordered
by time, then by the order they were scheduled), for every built-in policy and a user
policy (its Python function, called on arrays built here). Returns each task's finish time
and the node that completed it (-1: lost).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

BIG = 2**40


class Twin:
    def __init__(self, net, tk, policy, p: float = 1.0, m: int = 1, **par):
        """``policy``: a built-in name, or a Python function ``decide(task, cand, state,
        par, u, out)`` with ``par`` (its parameters) and ``state`` (length) in ``par``."""
        self.net, self.tk, self.policy, self.p, self.m = net, tk, policy, p, m
        self.par = par
        n_nodes = len(net.servers)
        self.red_avg = [0.0] * n_nodes
        self.fwd = [0] * len(tk.t)
        self.ustate = np.zeros(max(par.get("state", 0), 1))
        self.n_in = [0] * n_nodes
        self.busy = [0] * n_nodes
        self.queue = [deque() for _ in range(n_nodes)]
        self.heap, self.seq = [], 0
        self.copies = []  # per copy: dict(task, node, state, work)
        self.task_copies = {}
        n = len(tk.t)
        self.finish = [math.nan] * n
        self.where = [-1] * n

    def push(self, t, kind, arg):
        heapq.heappush(self.heap, (t, self.seq, kind, arg))
        self.seq += 1

    # -- the policies, written from their definitions --------------------------------------
    def candidates(self, k):
        net = self.net
        out = [k] if net.servers[k] > 0 and k != net.cloud else []
        nbrs = net.nbr_idx[net.nbr_ptr[k] : net.nbr_ptr[k + 1]]
        return out + [int(b) for b in nbrs if net.servers[b] > 0 and b != net.cloud]

    def room(self, j):
        return self.net.servers[j] > 0 and self.n_in[j] < self.net.capacity[j]

    def wait(self, j, mean):
        """The estimated wait of one more task at j: the work ahead over its servers."""
        net = self.net
        c = net.servers[j]
        if c >= BIG or net.speed[j] == math.inf:
            return 0.0
        if c <= 0:
            return math.inf
        return max(self.n_in[j] + 1 - c, 0) * mean / (c * net.speed[j])

    def wait_within(self, j, mean, limit):
        """Is that wait at most limit, counted in whole tasks ahead (floor(limit/s))?"""
        net = self.net
        c = net.servers[j]
        if c >= BIG or net.speed[j] == math.inf or mean <= 0:
            return True
        if c <= 0:
            return False
        return self.n_in[j] + 1 - c <= math.floor(limit * c * net.speed[j] / mean + 1e-9)

    def best_neighbour(self, k, j, mean):
        """Least estimated wait plus link delay from k, over the serving neighbours of k,
        then of its home j (neither k, j nor the cloud); the first of equals."""
        net = self.net
        best, score = -1, math.inf
        for src in (k, j) if j != k else (k,):
            for b in net.nbr_idx[net.nbr_ptr[src] : net.nbr_ptr[src + 1]]:
                b = int(b)
                if b in (j, k) or b == net.cloud or net.servers[b] == 0:
                    continue
                s = self.wait(b, mean) + net.delay[k, b]
                if s < score:
                    best, score = b, s
        return best

    def decide(self, i, k, hops, now):
        """(targets, mode): mode 0 placed, 1 forwarded, 2 served from a cache."""
        net, u, pol = self.net, self.tk.u[i], self.policy
        home = int(net.home[k])
        mean = net.mean_size[self.tk.source[i]]
        if callable(pol):
            return self.user(i, k, now), 0
        if pol == "threshold":
            if (
                home != net.cloud
                and self.room(home)
                and self.wait_within(home, mean, self.par["theta"])
            ):
                return [home], 0
            if hops < self.par["e_max"]:
                b = self.best_neighbour(k, home, mean)
                if b >= 0:
                    return [b], 1
            return [net.cloud], 0
        if pol == "red":
            self.red_avg[home] = (1 - self.par["w_q"]) * self.red_avg[home] + self.par[
                "w_q"
            ] * self.n_in[home]
            avg, lo, hi, mp = (
                self.red_avg[home],
                self.par["min_th"],
                self.par["max_th"],
                self.par["max_p"],
            )
            p = 0.0 if avg < lo else (mp * (avg - lo) / (hi - lo) if avg < hi else 1.0)
            if u[0] < p or not self.room(home):
                up = int(net.parent[home])
                return [up if up >= 0 else net.cloud], 0
            return [home], 0
        if pol == "hedge_cache":
            if 0 <= self.tk.kind[i] < self.par["cache_size"] and home != net.cloud:
                return [home], 2
            if net.servers[home] == 0:
                b = self.best_neighbour(k, home, mean)
                return [b if b >= 0 else net.cloud], 0
            if not self.wait_within(home, mean, self.par["deadline"]):
                b = self.best_neighbour(k, home, mean)
                if b >= 0:
                    return [home, b], 0
            return [home], 0
        if pol == "power_of_d":
            c = self.candidates(k)
            if not c:
                return [net.cloud], 0
            picks = [c[min(int(u[a] * len(c)), len(c) - 1)] for a in range(self.par["d"])]
            ok = [b for b in picks if self.room(b)]
            if not ok:
                return [net.cloud], 0
            return [min(ok, key=lambda b: self.n_in[b] / (net.servers[b] * net.speed[b]))], 0
        return self.targets(i, k), 0

    def user(self, i, k, now):
        """The user's Python function on the arrays the engine would build."""
        net, tk = self.net, self.tk
        cands = self.candidates(k) + ([net.cloud] if net.cloud >= 0 else [])
        cand = np.array(
            [
                [
                    b,
                    self.n_in[b],
                    math.inf if net.servers[b] >= BIG else net.servers[b],
                    net.speed[b],
                    net.delay[k, b],
                    tk.bits[i] * net.invbw[k, b],
                ]
                for b in cands
            ]
        ).T
        src = tk.source[i]
        task = np.array([now, tk.t[i], src, tk.kind[i], math.inf, math.nan, k])
        out = np.zeros(tk.size.shape[1], np.int64)
        count = self.policy(
            task, cand, self.ustate, np.array(self.par.get("par", [0.0])), tk.u[i], out
        )
        return [cands[int(x)] for x in out[:count]]

    def targets(self, i, k):
        net, u = self.net, self.tk.u[i]
        home = int(net.home[k])
        if self.policy == "local":
            return [home]
        if self.policy == "random":
            c = self.candidates(k)
            return [c[min(int(u[0] * len(c)), len(c) - 1)]]
        if self.policy == "jsq":
            ok = [b for b in self.candidates(k) if self.room(b)]
            if not ok:
                return [net.cloud]
            return [min(ok, key=lambda b: self.n_in[b] / (net.servers[b] * net.speed[b]))]
        if self.policy == "overflow":
            if self.room(home):
                return [home]
            if u[0] >= self.p:
                return [-1]
            nb = net.nbr_idx[net.nbr_ptr[home] : net.nbr_ptr[home + 1]]
            ok = [int(b) for b in nb if b != net.cloud and self.room(b)]
            return [ok[min(int(u[1] * len(ok)), len(ok) - 1)]] if ok else [-1]
        # replicate: distinct servers, home first, then the serving neighbours of k and of
        # the home (each by delay); one copy per idle server, or one waiting copy if room
        order = [home] if net.servers[home] > 0 and home != net.cloud else []
        for src in (k, home):
            for b in net.nbr_idx[net.nbr_ptr[src] : net.nbr_ptr[src + 1]]:
                b = int(b)
                if b != net.cloud and net.servers[b] > 0 and b not in order:
                    order.append(b)
        out = []
        for b in order:
            room = net.capacity[b] - self.n_in[b]
            idle = net.servers[b] - self.busy[b]
            take = min(idle, room) if idle > 0 else min(1, room)
            out += [b] * max(0, min(take, self.m - len(out)))
        return out or [net.cloud]

    # -- the mechanics ---------------------------------------------------------------------
    def start(self, c, now):
        node = self.copies[c]["node"]
        self.busy[node] += 1
        self.copies[c]["state"] = "serving"
        self.push(now + self.copies[c]["work"], "depart", c)

    def free(self, node, now):
        self.busy[node] -= 1
        while self.queue[node]:
            c = self.queue[node].popleft()
            if self.copies[c]["state"] == "waiting":
                self.start(c, now)
                return

    def admit(self, c, node, now):
        net = self.net
        if self.n_in[node] >= net.capacity[node] or net.servers[node] == 0:
            self.copies[c]["state"] = "lost"
            return
        self.n_in[node] += 1
        cp = self.copies[c]
        cp["node"] = node
        speed = net.speed[node]
        cp["work"] = 0.0 if speed == math.inf else self.tk.size[cp["task"], cp["index"]] / speed
        if self.busy[node] < net.servers[node]:
            self.start(c, now)
        else:
            cp["state"] = "waiting"
            self.queue[node].append(c)

    def arrive(self, i, now, k=None, c_old=None):
        """Task i decided at node k (its source, or where a forward brought copy c_old)."""
        net = self.net
        k = int(self.tk.node[i]) if k is None else k
        hops = 0 if c_old is None else self.fwd[i]
        targets, mode = self.decide(i, k, hops, now)
        self.fwd[i] += mode == 1
        if mode == 2 and c_old is None:  # from the cache at the target: done on arrival
            b = targets[0]
            self.task_copies[i] = []
            self.where[i] = b
            self.finish[i] = now + net.delay[k, b] + self.tk.bits[i] * net.invbw[k, b]
            return
        if c_old is not None:  # a forwarded task keeps its one copy
            targets = targets[:1]
        ids = []
        for j, b in enumerate(targets or [-1]):
            if c_old is not None:
                c = c_old
            else:
                c = len(self.copies)
                self.copies.append(
                    {"task": i, "index": j, "node": b, "state": "transit", "work": 0}
                )
                ids.append(c)
            self.copies[c]["node"] = b
            self.copies[c]["state"] = "transit"
            self.copies[c]["decide"] = mode == 1
            if b < 0:
                self.copies[c]["state"] = "lost"
                continue
            dt = net.delay[k, b] + self.tk.bits[i] * net.invbw[k, b]
            if dt > 0 or mode == 1:
                self.push(now + dt, "reach", c)
            else:
                self.admit(c, b, now)
        if c_old is None:
            self.task_copies[i] = ids

    def depart(self, c, now):
        cp = self.copies[c]
        if cp["state"] != "serving":
            return
        cp["state"] = "done"
        node, i = cp["node"], cp["task"]
        self.n_in[node] -= 1
        self.free(node, now)
        if self.where[i] >= 0:
            return
        self.where[i], self.finish[i] = node, now
        for o in self.task_copies[i]:
            other = self.copies[o]
            if o == c:
                continue
            if other["state"] == "transit":
                other["state"] = "cancelled"
            elif other["state"] == "waiting":
                other["state"] = "cancelled"
                self.n_in[other["node"]] -= 1
            elif other["state"] == "serving":
                other["state"] = "cancelled"
                self.n_in[other["node"]] -= 1
                self.free(other["node"], now)

    def run(self):
        n = len(self.tk.t)
        self.push(self.tk.t[0], "arrive", 0)
        while self.heap:
            now, _, kind, arg = heapq.heappop(self.heap)
            if kind == "arrive":
                if arg + 1 < n:
                    self.push(self.tk.t[arg + 1], "arrive", arg + 1)
                self.arrive(arg, now)
            elif kind == "reach":
                cp = self.copies[arg]
                if cp["state"] == "cancelled":
                    continue
                if cp.get("decide"):
                    self.arrive(cp["task"], now, k=cp["node"], c_old=arg)
                else:
                    self.admit(arg, cp["node"], now)
            else:
                self.depart(arg, now)
        return self.finish, self.where


def delay_agent_choice(table, cand, n, node, cloud, bins, mask=None):
    """The slow twin of ``arena.agents._least``: the candidate (of the first ``n``, those
    ``mask`` allows) whose cell (kind: the deciding node 0, the cloud node 2, another node 1;
    backlog = tasks held / (servers * speed), 0 for unbounded servers, binned at ``bins``)
    has the least value."""
    width = len(bins) + 1
    values = []
    for a in range(n):
        if mask is not None and not mask[a]:
            continue
        servers = cand[2, a]
        backlog = 0.0 if math.isinf(servers) else cand[1, a] / (servers * cand[3, a])
        level = sum(1 for th in bins if backlog >= th)
        kind = 2 if cand[0, a] == cloud else (0 if cand[0, a] == node else 1)
        values.append((table[kind * width + level], a))
    return min(values)[1] if values else -1  # ties: the first candidate (min on (value, a))


def room_mask_twin(net, n_in, nodes, n, width):
    """The action mask's room rule in words: 1 for each of the first ``n`` candidates that
    has servers and holds fewer tasks than its capacity, every one of the ``n`` when none
    has, and 0 from ``n`` to ``width``."""
    room = [int(net.servers[b] > 0 and n_in[b] < net.capacity[b]) for b in nodes[:n]]
    if not any(room):
        room = [1] * n
    return room + [0] * (width - n)


class RecordingTwin(Twin):
    """The twin with the engine's other outputs, and the cancel-on-start variant.

    Per task: its copies, the links its copies crossed (``hops``), their transmission
    energy (input bits times the path's energy per bit, for every copy sent to another
    node, and for a cache hit) and when its completing copy started service (nan: lost or
    from a cache). Per node: the busy server-seconds between the arrivals of tasks ``warm``
    and ``n - 1``, as the overlap of every copy's service interval (start to completion or
    cancellation) with that window. The counters: copies made and copies cancelled.
    ``cancel_on_start``: the first copy to start service cancels its siblings that wait or
    travel, including those not sent yet (they are never sent).
    """

    def __init__(self, net, tk, policy, warm=0, cancel_on_start=False, **kw):
        super().__init__(net, tk, policy, **kw)
        n = len(tk.t)
        self.warm, self.cancel_on_start = warm, cancel_on_start
        self.hops, self.energy = [0] * n, [0.0] * n
        self.n_copies, self.started = [0] * n, [math.nan] * n
        self.made = self.cancelled = 0
        self.open = {}  # copy in service -> (node, start)
        self.intervals = []  # (node, start, end) of every service, ended or cut
        self.lost_at = {}  # copy -> when it was lost

    def lost_times(self):
        """Per task: when its last copy was lost, if all its copies were (nan: not lost)."""
        out = [math.nan] * len(self.tk.t)
        for i, ids in self.task_copies.items():
            if ids and all(c in self.lost_at for c in ids):
                out[i] = max(self.lost_at[c] for c in ids)
        return out

    def admit(self, c, node, now):
        super().admit(c, node, now)
        if self.copies[c]["state"] == "lost":
            self.lost_at[c] = now

    def _sent(self, i, k, b):
        if b != k:
            self.hops[i] += int(self.net.hops[k, b])
            self.energy[i] += self.tk.bits[i] * self.net.epb[k, b]

    def arrive(self, i, now, k=None, c_old=None):
        net = self.net
        k = int(self.tk.node[i]) if k is None else k
        hops = 0 if c_old is None else self.fwd[i]
        targets, mode = self.decide(i, k, hops, now)
        self.fwd[i] += mode == 1
        if mode == 2 and c_old is None:  # a cache hit: one copy, done on arrival
            b = targets[0]
            self.task_copies[i] = []
            self.n_copies[i] = 1
            self.made += 1
            self.hops[i] += int(net.hops[k, b])
            self.energy[i] += self.tk.bits[i] * net.epb[k, b]
            self.where[i] = b
            self.finish[i] = now + net.delay[k, b] + self.tk.bits[i] * net.invbw[k, b]
            return
        targets = (targets or [-1])[:1] if c_old is not None else targets or [-1]
        if c_old is not None:
            ids = [c_old]
        else:  # all copies exist before the first is sent (cancel-on-start sees them)
            ids = list(range(len(self.copies), len(self.copies) + len(targets)))
            for j, b in enumerate(targets):
                self.copies.append({"task": i, "index": j, "node": b, "state": "transit"})
            self.task_copies[i] = ids
            self.n_copies[i] = len(ids)
            self.made += len(ids)
        for c, b in zip(ids, targets, strict=True):
            cp = self.copies[c]
            if cp["state"] == "cancelled":  # a sibling started service already
                continue
            cp.update(node=b, state="transit", decide=mode == 1)
            if b < 0:
                cp["state"] = "lost"
                self.lost_at[c] = now
                continue
            self._sent(i, k, b)
            dt = net.delay[k, b] + self.tk.bits[i] * net.invbw[k, b]
            if dt > 0 or mode == 1:
                self.push(now + dt, "reach", c)
            else:
                self.admit(c, b, now)

    def start(self, c, now):
        cp = self.copies[c]
        cp["start"] = now
        self.open[c] = (cp["node"], now)
        super().start(c, now)
        if not self.cancel_on_start:
            return
        for o in self.task_copies[cp["task"]]:
            other = self.copies[o]
            if o == c or other["state"] not in ("waiting", "transit"):
                continue
            if other["state"] == "waiting":
                self.n_in[other["node"]] -= 1
            other["state"] = "cancelled"
            self.cancelled += 1

    def depart(self, c, now):
        i = self.copies[c]["task"]
        first = self.where[i] < 0 and self.copies[c]["state"] == "serving"
        before = {o: self.copies[o]["state"] for o in self.task_copies[i]}
        super().depart(c, now)
        for o, s in before.items():
            if s != "cancelled" and self.copies[o]["state"] == "cancelled":
                self.cancelled += 1
            if o in self.open and self.copies[o]["state"] != "serving":
                node, t0 = self.open.pop(o)
                self.intervals.append((node, t0, now))
        if first:
            self.started[i] = self.copies[c]["start"]

    def run(self):
        """Returns what the engine returns: per task finish, where, copies, hops and
        transmission energy, per node the busy server-seconds of the window, the window's
        length, ``[copies made, cancelled]`` and per task its completing copy's start."""
        super().run()
        assert not self.open, "the twin drained with copies still in service"
        t = self.tk.t
        lo, hi = t[self.warm], t[-1]
        area = [0.0] * len(self.net.servers)
        for node, a, b in self.intervals:
            area[node] += max(0.0, min(b, hi) - max(a, lo))
        return (
            self.finish,
            self.where,
            self.n_copies,
            self.hops,
            self.energy,
            area,
            hi - lo,
            [self.made, self.cancelled],
            self.started,
        )


def _quantile(values, q):
    """numpy's default quantile (linear between order statistics), by hand."""
    xs = sorted(values)
    h = (len(xs) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def summary_naive(sc, net, tk, out, warm):
    """One replication's row of ``arena.simulate``, written from its module docstring task by
    task and node by node: ``out`` is what the engine returns (a ``RecordingTwin``'s run),
    the measured tasks are ``warm`` to ``n - 1``. The nodes' energy is spent between the
    first and the last measured arrival; it is shared per task as power over the arrival
    rate measured in that window, ``n - 1 - warm`` arrivals after the first."""
    finish, where, copies, _, energy_tx, area, span, _, _ = out
    n = len(tk.t)
    measured = range(warm, n)
    done = [i for i in measured if where[i] >= 0]
    delays = [finish[i] - tk.t[i] for i in done]
    cloud = next((k for k, x in enumerate(sc.nodes) if x.role == "cloud"), -1)
    row = {
        "mean_delay": sum(delays) / len(delays) if delays else math.nan,
        "p90_delay": _quantile(delays, 0.9) if delays else math.nan,
        "p99_delay": _quantile(delays, 0.99) if delays else math.nan,
        "loss_share": (len(measured) - len(done)) / len(measured),
        "cloud_share": sum(where[i] == cloud for i in done) / len(measured) if cloud >= 0 else 0.0,
        "forwarded_share": sum(where[i] not in (net.home[tk.node[i]], cloud) for i in done)
        / len(measured),
        "copies_per_task": sum(copies[i] for i in measured) / len(measured),
        "measured": len(done),
    }
    joules = 0.0
    for k, node in enumerate(sc.nodes):
        infinite = math.isinf(node.servers)
        idle = 0.0 if infinite else node.servers * span - area[k]
        spent = node.power_busy * area[k] + node.power_idle * idle
        joules += spent
        busy = area[k] / span
        row[f"utilisation:{node.id}"] = (
            busy if infinite or node.servers == 0 else busy / node.servers
        )
        row[f"power:{node.id}"] = spent / span
    arrivals = max(n - 1 - warm, 1)
    row["energy_per_task"] = joules / arrivals + sum(energy_tx[i] for i in measured) / len(measured)
    return row


def device_to_unbounded_edge(edge: str, delay: float, rate: float, mean: float) -> dict:
    """A scenario (as a dict for ``arena.scenario_from_dict``): a device ``d`` whose tasks
    (Poisson ``rate``, exponential work of ``mean`` s) cross one link of ``delay`` s to an
    edge named ``edge`` of unbounded servers: every copy starts on arrival."""
    return {
        "nodes": [
            {"id": "d", "role": "device", "servers": 0},
            {"id": edge, "role": "edge", "servers": ".inf"},
        ],
        "links": [{"a": "d", "b": edge, "delay": delay}],
        "workload": [{"source": "d", "rate": rate, "size": {"dist": "exponential", "mean": mean}}],
    }
