"""Caches: checks written to kill the mutants the suite let live
(benchmarks/mutation/caching.md), from the documented contract and a relabelled twin."""

import numpy as np
import pytest
from naive_building_blocks import lfu_naive, lru_naive, popularity_naive

from workbench import ParameterError
from workbench.caching import lfu_hits, lru_hits, popularity_cache_hits

INT64_MAX = 2**63 - 1


class Opaque:
    """An array-like whose conversion raises TypeError."""

    def __array__(self, dtype=None, copy=None):
        raise TypeError("no")


@pytest.mark.parametrize("func", [lru_hits, lfu_hits])
def test_unsigned_ids_up_to_int64_max_are_objects_and_above_are_refused(func):
    ok = np.array([5, INT64_MAX, 5, INT64_MAX], dtype=np.uint64)
    assert func(ok, 2).tolist() == [False, False, True, True]
    assert func(np.array([1, 2, 1], dtype=np.uint64), 2).tolist() == [False, False, True]
    # the first id above 2**63 - 1 is the one reported, with its position
    bad = np.array([5, INT64_MAX, 2**63, 2**64 - 1], dtype=np.uint64)
    with pytest.raises(
        ParameterError, match=r"below 2\*\*63\. Got 9223372036854775808 at position 2"
    ):
        func(bad, 2)


@pytest.mark.parametrize("func", [lru_hits, lfu_hits])
def test_the_first_negative_id_is_reported(func):
    with pytest.raises(ParameterError, match=r"Got -1 at position 2 instead"):
        func([0, 3, -1, -5], 2)


@pytest.mark.parametrize(
    "trace", [5, np.array(5), [[1, 2]], [[1], [2, 3]], Opaque(), np.zeros((2, 2), np.int64)]
)
def test_a_trace_that_is_not_a_1_d_integer_array_is_refused(trace):
    for func in (lru_hits, lfu_hits):
        with pytest.raises(ParameterError, match=f"'trace' parameter of {func.__name__}"):
            func(trace, 2)
    with pytest.raises(ParameterError, match="'trace' parameter of popularity_cache_hits"):
        popularity_cache_hits(trace, 2, [0, 1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    "rank", [3, np.array(3), [[0, 1, 2]], [], np.array([], dtype=np.int64), [0, -1, 2]]
)
def test_rank_must_be_a_non_empty_1_d_array_of_non_negative_ints(rank):
    with pytest.raises(ParameterError, match="'rank' parameter of popularity_cache_hits"):
        popularity_cache_hits([0, 0], 1, rank)


def test_an_id_beyond_the_ranked_objects_is_reported_first():
    with pytest.raises(ParameterError, match=r"in \[0, 2\] .* Got 5 at position 1 instead"):
        popularity_cache_hits([0, 5, 3, 4], 1, [0, 1, 2])


@pytest.mark.parametrize(
    "mask", [["a", "b", "c"], [1, 0, 1], [1.0, 0.0, 1.0], [True, False], [True, False, True, True]]
)
def test_cacheable_must_be_one_boolean_per_ranked_object(mask):
    with pytest.raises(ParameterError, match="'cacheable' parameter of popularity_cache_hits"):
        popularity_cache_hits([0, 1], 1, [0, 1, 2], cacheable=mask)


def test_a_cache_of_300_holds_300_objects():
    # every object requested twice, all fit: 300 cold misses, then 300 hits
    trace = np.tile(np.arange(300), 2)
    want = [False] * 300 + [True] * 300
    assert lfu_hits(trace, 300).tolist() == want
    assert lru_hits(trace, 300).tolist() == want
    assert popularity_cache_hits(trace, 300, np.arange(300)).tolist() == want


def _zipf_case(rng):
    """A skewed trace over a few more objects than slots: hits, evictions and heap moves."""
    capacity = int(rng.integers(2, 9))
    n_objects = int(rng.integers(capacity + 1, 3 * capacity + 4))
    weights = 1.0 / np.arange(1, n_objects + 1) ** rng.uniform(0.3, 1.5)
    trace = rng.choice(n_objects, size=int(rng.integers(10, 60)), p=weights / weights.sum())
    return trace.astype(np.int64), capacity, rng.permutation(n_objects)


def test_skewed_traces_replay_like_the_twins():
    # frequencies and ranks spread over the heap: a sift from the wrong parent or the wrong
    # start leaves a heap whose root is not the victim the policy names
    rng = np.random.default_rng(7)
    for _ in range(300):
        trace, capacity, rank = _zipf_case(rng)
        t = trace.tolist()
        assert lfu_hits(trace, capacity).tolist() == lfu_naive(t, capacity), (t, capacity)
        assert lru_hits(trace, capacity).tolist() == lru_naive(t, capacity), (t, capacity)
        want = popularity_naive(t, capacity, rank.tolist())
        assert popularity_cache_hits(trace, capacity, rank).tolist() == want, (t, rank)


def test_a_full_cache_of_300_slots_evicts_like_the_twins():
    # more objects than slots: the caches fill (300 slots) and then evict
    rng = np.random.default_rng(3)
    weights = 1.0 / np.arange(1, 451) ** 0.8
    trace = rng.choice(450, size=1500, p=weights / weights.sum())
    rank = rng.permutation(450)
    t = trace.tolist()
    assert lfu_hits(trace, 300).tolist() == lfu_naive(t, 300)
    assert lru_hits(trace, 300).tolist() == lru_naive(t, 300)
    assert popularity_cache_hits(trace, 300, rank).tolist() == popularity_naive(
        t, 300, rank.tolist()
    )


@pytest.mark.parametrize("func", [lru_hits, lfu_hits])
def test_the_id_minus_one_alone_and_an_empty_boolean_trace_are_refused(func):
    with pytest.raises(ParameterError, match=r"Got -1 at position 1 instead"):
        func([0, -1], 2)
    with pytest.raises(ParameterError, match=f"'trace' parameter of {func.__name__}"):
        func(np.array([], dtype=bool), 2)


@pytest.mark.parametrize("rank", [[[0], [1, 2]], Opaque()])
def test_a_rank_numpy_cannot_read_is_refused(rank):
    # a ragged list (ValueError) and an object whose conversion raises TypeError
    with pytest.raises(ParameterError, match="'rank' parameter of popularity_cache_hits"):
        popularity_cache_hits([0, 0], 1, rank)


def test_the_popularity_cache_needs_a_slot():
    with pytest.raises(ParameterError, match=r"'capacity' parameter .* \[1, inf\)\. Got 0"):
        popularity_cache_hits([0, 1], 0, [0, 1])
