"""Cache replacement replays: LRU, LFU and the popularity-ranked cache.

Object ids are dense, 0 <= id < n_objects (the public wrappers remap arbitrary ids with
``np.unique``), so "where is object x" is one array look-up.

- LRU keeps the cached objects in a doubly linked list threaded through slot arrays
  (``prev``/``nxt``), most recent at the head: O(1) per request.
- LFU and the popularity cache keep the cached objects in an indexed binary heap over
  the slots (``pos`` maps slot -> heap position): O(log capacity) per request.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def lru_hits_kernel(trace, n_objects, capacity):
    """Hit (True) or miss of every request of ``trace`` under LRU with ``capacity`` slots."""
    n = trace.shape[0]
    hits = np.zeros(n, dtype=np.bool_)
    slot_of = np.full(n_objects, -1, dtype=np.int64)
    obj_of = np.full(capacity, -1, dtype=np.int64)
    prev = np.full(capacity, -1, dtype=np.int64)
    nxt = np.full(capacity, -1, dtype=np.int64)
    head = -1  # most recently used slot
    tail = -1  # least recently used slot
    used = 0
    for i in range(n):
        x = trace[i]
        s = slot_of[x]
        if s >= 0:
            hits[i] = True
            if s != head:  # unlink s, relink at the head
                p = prev[s]
                q = nxt[s]
                nxt[p] = q
                if q >= 0:
                    prev[q] = p
                else:
                    tail = p
                prev[s] = -1
                nxt[s] = head
                prev[head] = s
                head = s
            continue
        if used < capacity:
            s = used
            used += 1
        else:  # evict the tail
            s = tail
            slot_of[obj_of[s]] = -1
            tail = prev[s]
            if tail >= 0:
                nxt[tail] = -1
            else:
                head = -1
        obj_of[s] = x
        slot_of[x] = s
        prev[s] = -1
        nxt[s] = head
        if head >= 0:
            prev[head] = s
        head = s
        if tail < 0:
            tail = s
    return hits


@njit(cache=True)
def _less(k1, k2, a, b):
    """Lexicographic (k1, k2)[a] < (k1, k2)[b]."""
    return k1[a] < k1[b] or (k1[a] == k1[b] and k2[a] < k2[b])


@njit(cache=True)
def _heap_swap(heap, pos, i, j):
    a = heap[i]
    b = heap[j]
    heap[i] = b
    heap[j] = a
    pos[b] = i
    pos[a] = j


@njit(cache=True)
def _heap_down(heap, pos, size, k1, k2, i):
    """Min-heap on slot keys (k1, k2): sift heap position i down."""
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        child = left
        if left + 1 < size and _less(k1, k2, heap[left + 1], heap[left]):
            child = left + 1
        if not _less(k1, k2, heap[child], heap[i]):
            return
        _heap_swap(heap, pos, i, child)
        i = child


@njit(cache=True)
def _heap_up(heap, pos, k1, k2, i):
    while i > 0:
        parent = (i - 1) // 2
        if not _less(k1, k2, heap[i], heap[parent]):
            return
        _heap_swap(heap, pos, i, parent)
        i = parent


@njit(cache=True)
def lfu_hits_kernel(trace, n_objects, capacity):
    """Hits under in-cache LFU; ties among the least frequent go to the least recent.

    Each cached slot has key (frequency, time of last request); the heap root is the
    victim.  A newly inserted object has frequency 1; the count is forgotten on eviction.
    """
    n = trace.shape[0]
    hits = np.zeros(n, dtype=np.bool_)
    slot_of = np.full(n_objects, -1, dtype=np.int64)
    obj_of = np.full(capacity, -1, dtype=np.int64)
    freq = np.zeros(capacity, dtype=np.int64)
    last = np.zeros(capacity, dtype=np.int64)
    heap = np.empty(capacity, dtype=np.int64)
    pos = np.empty(capacity, dtype=np.int64)
    used = 0
    for i in range(n):
        x = trace[i]
        s = slot_of[x]
        if s >= 0:
            hits[i] = True
            freq[s] += 1
            last[s] = i
            _heap_down(heap, pos, used, freq, last, pos[s])  # its key only grew
            continue
        if used < capacity:
            s = used
            heap[used] = s
            pos[s] = used
            used += 1
            obj_of[s] = x
            slot_of[x] = s
            freq[s] = 1
            last[s] = i
            _heap_up(heap, pos, freq, last, pos[s])
        else:
            s = heap[0]
            slot_of[obj_of[s]] = -1
            obj_of[s] = x
            slot_of[x] = s
            freq[s] = 1
            last[s] = i
            _heap_down(heap, pos, used, freq, last, 0)
    return hits


@njit(cache=True)
def popularity_hits_kernel(trace, rank, cacheable, capacity):
    """Hits of the popularity-ranked cache.

    ``rank[x]`` is object x's popularity rank (0 = most popular) and ``cacheable[x]``
    whether it may be stored.  A missed cacheable object is inserted while there is room;
    once full it replaces the least popular cached object (largest rank, ties: the one
    cached first) only if it is strictly more popular; otherwise nothing changes.
    """
    n = trace.shape[0]
    n_objects = rank.shape[0]
    hits = np.zeros(n, dtype=np.bool_)
    slot_of = np.full(n_objects, -1, dtype=np.int64)
    obj_of = np.full(capacity, -1, dtype=np.int64)
    # min-heap on (-rank, insertion time): the root is the least popular, oldest on ties
    neg_rank = np.zeros(capacity, dtype=np.int64)
    born = np.zeros(capacity, dtype=np.int64)
    heap = np.empty(capacity, dtype=np.int64)
    pos = np.empty(capacity, dtype=np.int64)
    used = 0
    for i in range(n):
        x = trace[i]
        if slot_of[x] >= 0:
            hits[i] = True
            continue
        if not cacheable[x]:
            continue
        if used < capacity:
            s = used
            heap[used] = s
            pos[s] = used
            used += 1
            obj_of[s] = x
            slot_of[x] = s
            neg_rank[s] = -rank[x]
            born[s] = i
            _heap_up(heap, pos, neg_rank, born, pos[s])
        elif rank[x] < -neg_rank[heap[0]]:
            s = heap[0]
            slot_of[obj_of[s]] = -1
            obj_of[s] = x
            slot_of[x] = s
            neg_rank[s] = -rank[x]
            born[s] = i
            _heap_down(heap, pos, used, neg_rank, born, 0)
    return hits
