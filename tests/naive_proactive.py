"""Slow, obvious twin of the P2 slot kernel: plain Python lists, dicts and the naive
matching and radio twins, following the rules written in workbench.proactive.kernels."""

import math
from collections import OrderedDict

import numpy as np
from naive_building_blocks import (
    deferred_acceptance_naive,
    hedged_matching_naive,
    uplink_rate_naive,
)

MASK = (1 << 64) - 1


class XorShift:
    """xorshift64*, the same generator as the kernel's, on Python integers."""

    def __init__(self, state):
        self.x = int(state)

    def next(self):
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.x = x
        return (x * 2685821657736338717) & MASK


def simulate_naive(
    scheme,
    path_gain,
    covered,
    power,
    noise_w,
    bandwidth,
    fading,
    fading_seed,
    cpu,
    kappa,
    tau_ep,
    budget,
    slot,
    n_slots,
    max_drain_slots,
    x_max,
    storage,
    cache_rank,
    cacheable,
    arrival,
    task_user,
    task_type,
    task_bits,
    user_start,
    rbar0,
    table,
    cache_aware=False,
    hedge_check=False,
    warm_caches=False,
    least_wait=False,
):
    """Returns (done_time, server, from_cache, copies) as lists.

    ``hedge_check``: the paper matches a user again "to an additional cloudlet such that
    the reliability constraint is satisfied" -- a hedge goes only where its Φ >= 0.
    """
    U, E = path_gain.shape
    n = len(arrival)
    caching = scheme in (0, 1)
    lru = scheme == 1
    hedging = scheme != 3 and x_max > 1
    rng = XorShift(fading_seed)
    done = [math.nan] * n
    server = [-1] * n
    from_cache = [False] * n
    copies = [0] * n
    state = ["waiting"] * n
    left = [float(b) for b in task_bits]
    head = [int(user_start[u]) for u in range(U)]
    busy = [False] * U
    queues = [[] for _ in range(E)]
    uploading = [None] * E
    cpu_free = [0.0] * E
    caches = [OrderedDict() for _ in range(E)]  # task -> ready time (LRU order for BL1)
    if warm_caches and scheme == 0:  # the s_e best-ranked cacheable results, computed
        for e in range(E):
            best = sorted(
                (a for a in range(len(cacheable)) if cacheable[a]),
                key=lambda a, e=e: cache_rank[e, a],
            )
            for a in best[:storage]:
                caches[e][a] = 0.0
    rbar = [[float(rbar0[u, e]) for e in range(E)] for u in range(U)]
    n_done = 0
    s = 0
    while s < n_slots + max_drain_slots:
        if s >= n_slots and n_done == n:
            break
        t0 = s * slot
        reqs = [
            (u, head[u]) for u in range(U) if head[u] < user_start[u + 1] and arrival[head[u]] <= t0
        ]
        if reqs:
            wait = []
            for e in range(E):
                w = 0.0
                if uploading[e] is not None:
                    t = uploading[e]
                    w += left[t] / rbar[task_user[t]][e]
                for t in queues[e]:
                    if state[t] == "queued":
                        w += task_bits[t] / rbar[task_user[t]][e]
                wait.append(w)
            nr = len(reqs)
            phi = [[0.0] * nr for _ in range(E)]
            ready_at = [[False] * nr for _ in range(E)]
            prefs = np.full((nr, E), -1, dtype=np.int64)
            for i, (u, t) in enumerate(reqs):
                a, bits = task_type[t], task_bits[t]
                key = {}
                for e in range(E):
                    if not covered[u, e]:
                        phi[e][i] = -math.inf
                        continue
                    if scheme == 3:
                        key[e] = -rbar[u][e]
                        phi[e][i] = rbar[u][e]
                        continue
                    hit = caching and a in caches[e] and caches[e][a] <= t0
                    ready_at[e][i] = hit
                    own = kappa * bits / cpu[e] + bits / rbar[u][e]
                    key[e] = tau_ep if hit and cache_aware else own + tau_ep
                    phi[e][i] = budget - tau_ep if hit else budget - own - wait[e] - tau_ep
                ranked = sorted(key, key=lambda e: (key[e], e))
                prefs[i, : len(ranked)] = ranked
            rprefs = np.full((E, nr), -1, dtype=np.int64)
            for e in range(E):
                ok = [i for i in range(nr) if covered[reqs[i][0], e]]
                ranked = sorted(ok, key=lambda i: (-phi[e][i], i))
                rprefs[e, : len(ranked)] = ranked
            caps = np.ones(E, dtype=np.int64)
            first = deferred_acceptance_naive(prefs, rprefs, caps)
            flags = np.array(
                [
                    hedging and first[i] >= 0 and not ready_at[first[i]][i] and phi[first[i]][i] < 0
                    for i in range(nr)
                ],
                dtype=bool,
            )
            if flags.any():
                hedge_prefs = None
                if hedge_check:
                    hedge_prefs = np.full((nr, E), -1, dtype=np.int64)
                    for i in range(nr):
                        ok = [int(e) for e in prefs[i] if e >= 0 and phi[e][i] >= 0.0]
                        hedge_prefs[i, : len(ok)] = ok
                matched = hedged_matching_naive(prefs, rprefs, caps, flags, x_max, hedge_prefs)
            else:
                matched = np.asarray(first).reshape(-1, 1)
            for i, (u, t) in enumerate(reqs):
                e0 = int(matched[i][0])
                if e0 < 0:
                    continue
                head[u] += 1
                holders = [int(e) for e in matched[i] if e >= 0 and ready_at[int(e)][i]]
                if holders:  # served from the first matched cloudlet holding the result
                    e0 = holders[0]
                    if lru:
                        caches[e0].move_to_end(task_type[t])
                    from_cache[t] = True
                    server[t] = e0
                    done[t] = t0 + tau_ep
                    state[t] = "done"
                    n_done += 1
                    continue
                state[t] = "queued"
                es = [int(e) for e in matched[i] if e >= 0]
                if least_wait:  # only the match with the least estimated wait, first on ties
                    es = [min(es, key=lambda e, es=es: (wait[e], es.index(e)))]
                for e in es:
                    queues[e].append(t)
                    copies[t] += 1
        while True:  # every free user starts its preferred head-of-queue copy
            for e in range(E):
                while queues[e] and state[queues[e][0]] != "queued":
                    queues[e].pop(0)
            offers = {}  # user -> idle cloudlets whose head copy is theirs
            for e in range(E):
                if uploading[e] is None and queues[e] and not busy[task_user[queues[e][0]]]:
                    offers.setdefault(task_user[queues[e][0]], []).append(e)
            if not offers:
                break
            for u, es in offers.items():

                def own(e, u=u):
                    t = queues[e][0]
                    return kappa * task_bits[t] / cpu[e] + task_bits[t] / rbar[u][e]

                e = min(es, key=lambda e: (own(e), e))
                t = queues[e].pop(0)
                state[t] = "uploading"
                server[t] = e
                uploading[e] = t
                busy[u] = True
                a = task_type[t]
                if caching and cacheable[a]:
                    cache = caches[e]
                    if a in cache:
                        if lru:
                            cache.move_to_end(a)
                    elif storage > 0:
                        if len(cache) < storage:
                            cache[a] = math.inf
                        elif lru:
                            cache.popitem(last=False)
                            cache[a] = math.inf
                        else:
                            worst = max(cache, key=lambda x: cache_rank[e, x])
                            if cache_rank[e, a] < cache_rank[e, worst]:
                                del cache[worst]
                                cache[a] = math.inf
        serving = np.full(U, -1, dtype=np.int64)
        for e in range(E):
            if uploading[e] is not None:
                serving[task_user[uploading[e]]] = e
        gain = path_gain.copy()
        if fading:
            for u in range(U):
                for e in range(E):
                    gain[u, e] = path_gain[u, e] * table[rng.next() >> (64 - 14)]
        rates = uplink_rate_naive(gain, power, noise_w, serving, bandwidth)
        for e in range(E):
            t = uploading[e]
            if t is None:
                continue
            r = rates[task_user[t]]
            if left[t] <= r * slot:  # nothing left (a task of 0 bits): done at once, even at r = 0
                finish = t0 + (left[t] / r if left[t] > 0 else 0.0)
                left[t] = 0.0
                cpu_free[e] = max(cpu_free[e], finish) + kappa * task_bits[t] / cpu[e]
                done[t] = cpu_free[e] + tau_ep
                state[t] = "done"
                n_done += 1
                busy[task_user[t]] = False
                uploading[e] = None
                a = task_type[t]
                if caching and a in caches[e] and caches[e][a] > cpu_free[e]:
                    caches[e][a] = cpu_free[e]
            else:
                left[t] -= r * slot
        nu = 1.0 / (s + 1)
        received = [
            sum(gain[v, e] * power[v] for v in range(U) if serving[v] >= 0) for e in range(E)
        ]
        for u in range(U):
            for e in range(E):
                if not covered[u, e]:
                    continue
                own = gain[u, e] * power[u]
                interference = received[e] - own if serving[u] >= 0 else received[e]
                interference = max(interference, 0.0)
                r = bandwidth * math.log1p(own / (noise_w + interference)) / math.log(2.0)
                rbar[u][e] = nu * r + (1.0 - nu) * rbar[u][e]
        s += 1
    return done, server, from_cache, copies


def simulate_twin(
    scheme,
    sc,
    tr,
    tasks,
    *,
    fading_seed,
    n_slots,
    budget,
    storage,
    fading=True,
    cache_aware=True,
    hedge_check=True,
    **flags,
):
    """:func:`simulate_naive` on a scenario, training and tasks of workbench.proactive at
    the table's radio and CPU defaults (B = 10 MHz, c_e = 1e10 cycles/s, κ = 100, τ_EP =
    δ = 5 ms, X_max = 2, 2000 drain slots), the run :func:`run_scenario` makes of them."""
    from workbench.proactive import kernels as K
    from workbench.proactive.model import interference_free_rates
    from workbench.proactive.params import POLICY_CODES
    from workbench.proactive.runs import _xorshift_state

    U, E = sc.path_gain.shape
    return simulate_naive(
        POLICY_CODES[scheme],
        sc.path_gain,
        sc.covered,
        np.full(U, sc.power_w),
        sc.noise_w,
        10e6,
        fading,
        int(_xorshift_state(fading_seed)),
        np.full(E, 1e10),
        100.0,
        0.005,
        budget,
        0.005,
        n_slots,
        2000,
        2,
        storage,
        tr.cache_rank,
        sc.cacheable,
        tasks.arrival,
        tasks.user,
        tasks.task_type,
        tasks.bits,
        tasks.user_start,
        interference_free_rates(sc, 10e6),
        K.FADING_TABLE,
        cache_aware,
        hedge_check,
        **flags,
    )


def quantile_naive(values, q):
    """The q-quantile of ``values`` by linear interpolation between order statistics: rank
    h = (n − 1) q, the value at floor(h) plus (h − floor(h)) of the step to the next one."""
    x = sorted(values)
    h = (len(x) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


def row_naive(tasks, counters, measured_from, cloudlets, horizon):
    """P2's per-replication row, task by task from the docstring of
    ``workbench.proactive.simulation._row``: the tasks arriving at or after ``measured_from``
    are measured; delay mean and percentiles over them; shares of cache hits and of tasks
    with two or more copies; withdrawn copies and pending hits per task of the whole run
    (the kernel's counters); the measured tasks' upload time over ``cloudlets`` × the span
    from ``measured_from`` to the later of ``horizon`` and their last upload's end."""
    rows = [t for t in tasks.to_dict("records") if t["arrival"] >= measured_from]
    delays = [t["delay"] for t in rows]
    busy, last = 0.0, horizon
    for t in rows:
        if not math.isnan(t["upload_start"]):  # a task served from a cache uploads nothing
            busy += t["upload_end"] - t["upload_start"]
            last = max(last, t["upload_end"])
    span = last - measured_from
    per_task = max(len(rows), 1)  # an empty run reports shares of 0
    per_count = max(counters["tasks"], 1)
    nan = float("nan")
    return {
        "uplink_utilisation": busy / (cloudlets * span) if span > 0 else 0.0,
        "mean_delay": sum(delays) / len(delays) if delays else nan,
        "p90_delay": quantile_naive(delays, 0.90) if delays else nan,
        "p99_delay": quantile_naive(delays, 0.99) if delays else nan,
        "hit_rate": sum(1 for t in rows if t["from_cache"]) / per_task,
        "hedged_fraction": sum(1 for t in rows if t["copies"] >= 2) / per_task,
        "withdrawn_per_task": counters["withdrawn"] / per_count,
        "pending_hit_rate": counters["pending_hits"] / per_count,
        "tasks": len(rows),
        "uploads": counters["uploads"],
        "copies": counters["copies"],
        "withdrawn": counters["withdrawn"],
        "slots_run": counters["slots_run"],
    }


def user_load_naive(scenario, policy, storage, lam, mean_bits, bandwidth):
    """The busiest user's upload load, user by user: λ_u (1 − c_u) L̄ / r_u with r_u the best
    interference-free Shannon rate B log2(1 + P g / σ²) over the cloudlets covering u, and c_u
    the popularity mass of the cacheable types in u's profile when the scheme caches
    (proposed and BL1 with storage) and 0 otherwise."""
    caches = policy in ("proposed", "BL1") and storage >= 1
    worst = 0.0
    for u in range(scenario.path_gain.shape[0]):
        best = 0.0
        for e in range(scenario.path_gain.shape[1]):
            if scenario.covered[u, e]:
                snr = scenario.power_w * scenario.path_gain[u, e] / scenario.noise_w
                best = max(best, bandwidth * math.log1p(snr) / math.log(2.0))  # log2(1 + snr)
        profile = scenario.profiles[scenario.profile_of_user[u]]
        cached = 0.0
        if caches:
            cached = sum(profile[a] for a in range(len(profile)) if scenario.cacheable[a])
        worst = max(worst, lam * (1.0 - cached) * mean_bits / best)
    return worst
