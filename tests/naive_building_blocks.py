"""Slow, obviously-correct pure-Python twins of the building-block kernels.

Each twin re-implements one kernel literally (plain lists, dicts and loops, no numpy in
the algorithm) so that the tests can compare the kernel with it on many random inputs.
Tests only; deliberately slow.

Sections (one per kernel module; append new ones at the end):

- ``workbench.kernels.radio``: :func:`uplink_rate_naive`, :func:`path_loss_db_naive`
- ``workbench.kernels.similarity``: :func:`similarity_naive`
- ``workbench.kernels.caches``: :func:`lru_naive`, :func:`lfu_naive`, :func:`popularity_naive`
- ``workbench.kernels.matching``: :func:`deferred_acceptance_naive`,
  :func:`hedged_matching_naive`, :func:`blocking_pairs`
"""

from __future__ import annotations

import math

# =======================================================================================
# workbench.kernels.radio -- twin of uplink_rate_kernel (eq. 2 of Elbamby et al. 2018)
# =======================================================================================


def uplink_rate_naive(gain, power, noise_power, serving, bandwidth):
    """Rates by the literal double sum: for user u, add up every other transmitter."""
    n_users = len(power)
    rates = []
    for u in range(n_users):
        e = int(serving[u])
        if e == -1:
            rates.append(0.0)
            continue
        interference = 0.0
        for v in range(n_users):
            if v != u and int(serving[v]) != -1:
                interference += float(gain[v][e]) * float(power[v])
        sinr = float(gain[u][e]) * float(power[u]) / (noise_power + interference)
        rates.append(bandwidth * math.log2(1.0 + sinr))
    return rates


def path_loss_db_naive(distance_m):
    """140.7 + 36.7 log10(d in km), d clipped below at 1 m."""
    return 140.7 + 36.7 * math.log10(max(distance_m, 1.0) / 1000.0)


# =======================================================================================
# workbench.kernels.similarity -- twin of similarity_kernel (eqs. 11-13 of Elbamby et al. 2018)
# =======================================================================================


def similarity_naive(positions, counts, sigma, theta):
    """theta * exp(-d^2 / 2 sigma^2) + (1 - theta) * cosine(counts), entry by entry."""
    n = len(positions)
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            d2 = sum(
                (float(a) - float(b)) ** 2 for a, b in zip(positions[i], positions[j], strict=True)
            )
            s_d = math.exp(-d2 / (2.0 * sigma * sigma))
            if i == j:
                s_p = 1.0
            else:
                dot = sum(float(a) * float(b) for a, b in zip(counts[i], counts[j], strict=True))
                ni = math.sqrt(sum(float(a) ** 2 for a in counts[i]))
                nj = math.sqrt(sum(float(b) ** 2 for b in counts[j]))
                s_p = 0.0 if ni == 0.0 or nj == 0.0 else dot / (ni * nj)
            out[i][j] = theta * s_d + (1.0 - theta) * s_p
    return out


# =======================================================================================
# workbench.kernels.caches -- twins of lru_hits_kernel, lfu_hits_kernel,
# popularity_hits_kernel
# =======================================================================================


def lru_naive(trace, capacity):
    """LRU with a plain list, least recent first; list.remove on every hit."""
    cache = []
    hits = []
    for x in trace:
        if x in cache:
            hits.append(True)
            cache.remove(x)
            cache.append(x)
        else:
            hits.append(False)
            if len(cache) == capacity:
                cache.pop(0)
            cache.append(x)
    return hits


def lfu_naive(trace, capacity):
    """In-cache LFU: dict object -> [count, last request]; evict min (count, last)."""
    cache = {}
    hits = []
    for t, x in enumerate(trace):
        if x in cache:
            hits.append(True)
            cache[x][0] += 1
            cache[x][1] = t
        else:
            hits.append(False)
            if len(cache) == capacity:
                victim = min(cache, key=lambda y: (cache[y][0], cache[y][1]))
                del cache[victim]
            cache[x] = [1, t]
    return hits


def popularity_naive(trace, capacity, rank, cacheable=None):
    """Popularity cache: a dict object -> insertion time; replace the least popular."""
    cache = {}
    hits = []
    for t, x in enumerate(trace):
        if x in cache:
            hits.append(True)
            continue
        hits.append(False)
        if cacheable is not None and not cacheable[x]:
            continue
        if len(cache) < capacity:
            cache[x] = t
            continue
        # least popular = largest rank; among equal ranks the one cached first
        worst = max(cache, key=lambda y: (rank[y], -cache[y]))
        if rank[x] < rank[worst]:
            del cache[worst]
            cache[x] = t
    return hits


# =======================================================================================
# workbench.kernels.matching -- twins of deferred_acceptance_kernel and of the hedge rounds
# (workbench.matching.hedged_matching)
# =======================================================================================


def _acceptable(row):
    """The listed entries of a -1 padded preference row."""
    out = []
    for v in row:
        if int(v) == -1:
            break
        out.append(int(v))
    return out


def deferred_acceptance_naive(proposer_prefs, receiver_prefs, capacities):
    """Round-by-round Gale-Shapley: every free proposer proposes at once each round.

    Each receiver then keeps its ``capacity`` best among the proposers it held and the new
    ones (by position in its list) and rejects the rest.  Pairs not listed by both sides
    are skipped.  The simultaneous rounds reach the same proposer-optimal matching as the
    kernel's one-proposal-at-a-time loop.
    """
    p_lists = [_acceptable(row) for row in proposer_prefs]
    r_lists = [_acceptable(row) for row in receiver_prefs]
    n_recv = len(r_lists)
    next_idx = [0] * len(p_lists)
    held = [[] for _ in range(n_recv)]
    match = [-1] * len(p_lists)
    while True:
        proposals = [[] for _ in range(n_recv)]
        anyone = False
        for u, lst in enumerate(p_lists):
            if match[u] != -1:
                continue
            while next_idx[u] < len(lst):
                e = lst[next_idx[u]]
                next_idx[u] += 1
                if u in r_lists[e] and capacities[e] > 0:
                    proposals[e].append(u)
                    anyone = True
                    break
        if not anyone:
            return match
        for e in range(n_recv):
            if not proposals[e]:
                continue
            pool = sorted(held[e] + proposals[e], key=r_lists[e].index)
            held[e] = pool[: capacities[e]]
            for u in pool[capacities[e] :]:
                match[u] = -1
            for u in held[e]:
                match[u] = e


def hedged_matching_naive(
    proposer_prefs, receiver_prefs, capacities, needs_hedge, max_receivers, hedge_prefs=None
):
    """First round for all, then up to ``max_receivers - 1`` rounds for flagged proposers.

    ``hedge_prefs`` (default ``proposer_prefs``) are the lists used in the hedge rounds.

    Each hedge round: flagged proposers keep, in order, the listed receivers they do not
    hold yet and that still have room; everybody else has an empty list; the receivers'
    capacities are what is left.  Returns a list of rows of length ``max_receivers``.
    """
    n_prop = len(proposer_prefs)
    first = deferred_acceptance_naive(proposer_prefs, receiver_prefs, capacities)
    rows = [[first[u]] for u in range(n_prop)]
    left = list(capacities)
    for e in first:
        if e != -1:
            left[e] -= 1
    for _ in range(1, max_receivers):
        prefs = []
        for u in range(n_prop):
            keep = []
            if needs_hedge[u]:
                lst = _acceptable((proposer_prefs if hedge_prefs is None else hedge_prefs)[u])
                keep = [e for e in lst if e not in rows[u] and left[e]]
            prefs.append(keep)
        extra = deferred_acceptance_naive(prefs, receiver_prefs, left)
        for u in range(n_prop):
            rows[u].append(extra[u])
            if extra[u] != -1:
                left[extra[u]] -= 1
    return rows


def blocking_pairs(proposer_prefs, receiver_prefs, capacities, match):
    """Every (u, e) listed by both sides with u unmatched or preferring e to its match,
    and e under capacity or preferring u to one of the proposers it holds."""
    p_lists = [_acceptable(row) for row in proposer_prefs]
    r_lists = [_acceptable(row) for row in receiver_prefs]
    holders = [[u for u in range(len(match)) if match[u] == e] for e in range(len(r_lists))]
    pairs = []
    for u, lst in enumerate(p_lists):
        for e in lst:
            if u not in r_lists[e] or match[u] == e:
                continue
            u_wants = match[u] == -1 or lst.index(e) < lst.index(match[u])
            e_wants = len(holders[e]) < capacities[e] or any(
                r_lists[e].index(u) < r_lists[e].index(w) for w in holders[e]
            )
            if u_wants and e_wants:
                pairs.append((u, e))
    return pairs
