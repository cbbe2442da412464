"""A slow, obvious twin of the arena's engine: plain Python objects and ``heapq``.

Same inputs (a compiled Net and drawn Tasks), same rules (module docstring of
``workbench.arena.kernels``), same tie order (events ordered by time, then by the order they
were scheduled), for the policies local, random, jsq, overflow and replicate. Returns each
task's finish time and the node that completed it (-1: lost).
"""

from __future__ import annotations

import heapq
import math
from collections import deque


class Twin:
    def __init__(self, net, tk, policy: str, p: float = 1.0, m: int = 1):
        self.net, self.tk, self.policy, self.p, self.m = net, tk, policy, p, m
        n_nodes = len(net.servers)
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

    def arrive(self, i, now):
        k = int(self.tk.node[i])
        ids = []
        for j, b in enumerate(self.targets(i, k)):
            c = len(self.copies)
            self.copies.append({"task": i, "index": j, "node": b, "state": "transit", "work": 0})
            ids.append(c)
            if b < 0:
                self.copies[c]["state"] = "lost"
                continue
            dt = self.net.delay[k, b] + self.tk.bits[i] * self.net.invbw[k, b]
            if dt > 0:
                self.push(now + dt, "reach", c)
            else:
                self.admit(c, b, now)
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
                if self.copies[arg]["state"] != "cancelled":
                    self.admit(arg, self.copies[arg]["node"], now)
            else:
                self.depart(arg, now)
        return self.finish, self.where
