"""Cache replays: kernels against twins, an OrderedDict LRU, libCacheSim, and bad input."""

from collections import OrderedDict

import libcachesim as lcs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_building_blocks import lfu_naive, lru_naive, popularity_naive

from workbench import ParameterError
from workbench.caching import lfu_hits, lru_hits, popularity_cache_hits

traces = st.lists(st.integers(0, 12), max_size=200)
capacities = st.integers(1, 8)


def ordered_dict_lru(trace, capacity):
    cache = OrderedDict()
    hits = []
    for x in trace:
        if x in cache:
            cache.move_to_end(x)
            hits.append(True)
        else:
            hits.append(False)
            cache[x] = None
            if len(cache) > capacity:
                cache.popitem(last=False)
    return hits


def zipf_trace(n, n_objects, alpha, seed):
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, n_objects + 1) ** alpha
    return rng.choice(n_objects, size=n, p=w / w.sum())


@settings(deadline=None, max_examples=300)
@given(traces, capacities)
def test_lru_matches_list_twin_and_ordered_dict(trace, capacity):
    got = lru_hits(trace, capacity).tolist()
    assert got == lru_naive(trace, capacity)
    assert got == ordered_dict_lru(trace, capacity)


@settings(deadline=None, max_examples=300)
@given(traces, capacities)
def test_lfu_matches_twin(trace, capacity):
    assert lfu_hits(trace, capacity).tolist() == lfu_naive(trace, capacity)


@settings(deadline=None, max_examples=300)
@given(traces, capacities, st.integers(0, 2**32 - 1), st.booleans())
def test_popularity_cache_matches_twin(trace, capacity, seed, with_mask):
    rng = np.random.default_rng(seed)
    rank = rng.integers(0, 8, 13)  # ties on purpose
    mask = rng.random(13) < 0.7 if with_mask else None
    got = popularity_cache_hits(trace, capacity, rank, mask).tolist()
    expected = popularity_naive(trace, capacity, rank.tolist(), None if mask is None else mask)
    assert got == expected


def test_large_and_sparse_object_ids_are_remapped():
    rng = np.random.default_rng(3)
    small = zipf_trace(5000, 300, 0.9, 3)
    big = (rng.permutation(300).astype(np.int64) * 10**12 + 7)[small]  # same pattern
    for f in (lru_hits, lfu_hits):
        assert np.array_equal(f(small, 40), f(big, 40))
    assert lru_hits(small, 40).tolist() == lru_naive(small.tolist(), 40)


@pytest.mark.parametrize("capacity", [1, 7, 100, 1000])
def test_lru_hit_count_equals_libcachesim(capacity):
    trace = zipf_trace(30_000, 2000, 0.8, capacity)
    cache = lcs.LRU(capacity)
    expected = [cache.get(lcs.Request(obj_id=int(x), obj_size=1)) for x in trace]
    got = lru_hits(trace, capacity)
    assert int(got.sum()) == sum(expected)
    assert got.tolist() == expected  # request by request, not only the count


def test_hand_examples():
    t = [1, 2, 3, 1, 4, 1, 2, 5]
    # LRU, capacity 2: {1,2} -3-> {2,3} -1-> {3,1} -4-> {1,4}, then 1 hits
    assert lru_hits(t, 2).astype(int).tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    assert lru_hits(t, 3).astype(int).tolist() == [0, 0, 0, 1, 0, 1, 0, 0]
    # LFU, capacity 2, all counts 1 until t=5 so ties evict the least recent;
    # then 1 has count 2 and survives: {1,4} -1 hit-> -2-> {1,2} -5-> {1,5}
    assert lfu_hits(t, 2).astype(int).tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    assert lfu_hits(t + [1], 2)[-1] and not lru_hits(t + [1], 2)[-1]
    # popularity (rank = id): fills with {1, 2}; 3, 4, 5 are less popular than 2
    rank = np.arange(6)
    assert popularity_cache_hits(t, 2, rank).astype(int).tolist() == [0, 0, 0, 1, 0, 1, 1, 0]
    # a more popular newcomer replaces the least popular cached object
    assert popularity_cache_hits([5, 4, 0, 4, 5], 2, rank).astype(int).tolist() == [
        0,
        0,
        0,
        1,
        0,
    ]
    # non-cacheable objects never enter
    mask = np.array([False, True, True, True, True, True])
    assert popularity_cache_hits([0, 0, 1, 1], 2, rank, mask).tolist() == [
        False,
        False,
        False,
        True,
    ]


def test_lfu_keeps_frequent_objects_that_lru_drops():
    hot = [0, 0, 0, 0]
    scan = list(range(1, 50))
    trace = hot + scan + [0]
    assert lfu_hits(trace, 2)[-1]
    assert not lru_hits(trace, 2)[-1]


def test_empty_trace_and_capacity_above_objects():
    assert lru_hits([], 3).size == 0
    assert lfu_hits(np.array([], dtype=np.int64), 1).size == 0
    assert popularity_cache_hits([], 1, [0]).size == 0
    t = [4, 4, 9, 4, 9]
    assert lru_hits(t, 10**9).tolist() == [False, True, False, True, True]


@pytest.mark.parametrize("func", [lru_hits, lfu_hits])
def test_bad_capacity_exact_message(func):
    with pytest.raises(ParameterError) as info:
        func([1, 2], 0)
    assert str(info.value) == (
        f"The 'capacity' parameter of {func.__name__} must be an int in the range [1, inf). "
        "Got 0 instead."
    )


@pytest.mark.parametrize(
    ("trace", "detail"),
    [
        ([1, -2, 3], "Got -2 at position 1 instead."),
        ([1.0, 2.0], "Got [1.0, 2.0] instead."),
        ([[1, 2]], "Got [[1, 2]] instead."),
        ([True, False], "Got [True, False] instead."),
        ("abc", "Got 'abc' instead."),
    ],
)
def test_bad_trace_exact_message(trace, detail):
    with pytest.raises(ParameterError) as info:
        lru_hits(trace, 2)
    assert str(info.value) == (
        "The 'trace' parameter of lru_hits must be a 1-D array of non-negative integer "
        f"object ids. {detail}"
    )


def test_bad_popularity_arguments():
    with pytest.raises(
        ParameterError,
        match=r"'trace' parameter of popularity_cache_hits must "
        r"be a 1-D array of object ids in \[0, 2\] .* Got 3 at position 1",
    ):
        popularity_cache_hits([0, 3], 1, [0, 1, 2])
    with pytest.raises(ParameterError, match=r"'rank' parameter .* Got \[0, -1\] instead"):
        popularity_cache_hits([0, 1], 1, [0, -1])
    with pytest.raises(ParameterError, match=r"'rank' parameter .* Got \[0\.5, 1\.0\] instead"):
        popularity_cache_hits([0, 1], 1, [0.5, 1.0])
    with pytest.raises(ParameterError, match=r"'cacheable' parameter .* 2 booleans"):
        popularity_cache_hits([0, 1], 1, [0, 1], cacheable=[1, 1])


def test_ids_above_int64_and_huge_capacities_are_handled():
    big = np.array([2**63 + 5, 1, 2**63 + 5], dtype=np.uint64)
    with pytest.raises(ParameterError, match="'trace' parameter of lru_hits .* below 2\\*\\*63"):
        lru_hits(big, 2)
    assert lru_hits([1, 2, 1], 2**70).tolist() == [False, False, True]
