"""Deferred acceptance: checks written to kill mutants the suite let live
(benchmarks/mutation/matching.md), against the round-based twin and the documented formats."""

import numpy as np
import pytest
from naive_building_blocks import deferred_acceptance_naive, hedged_matching_naive

from workbench import ParameterError
from workbench.kernels.matching import (
    check_prefs_kernel,
    deferred_acceptance_kernel,
)
from workbench.matching import deferred_acceptance, hedged_matching


def _market(rng, n_prop, n_recv, low, high):
    p = np.array([rng.permutation(n_recv) for _ in range(n_prop)], dtype=np.int64)
    r = np.array([rng.permutation(n_prop) for _ in range(n_recv)], dtype=np.int64)
    return p, r, rng.integers(low, high + 1, n_recv)


def test_large_capacities_match_the_twin():
    # a receiver holding 4 or more proposers uses more than the root and two children of
    # its heap: the heap's sift-down and sift-up below the first level are exercised
    rng = np.random.default_rng(40)
    for _ in range(12):
        n_prop, n_recv = int(rng.integers(8, 16)), int(rng.integers(1, 3))
        p, r, cap = _market(rng, n_prop, n_recv, 4, 9)
        assert deferred_acceptance(p, r, cap).tolist() == deferred_acceptance_naive(p, r, cap)


def test_hedge_rounds_with_large_capacities_match_the_twin():
    rng = np.random.default_rng(41)
    for _ in range(20):
        p, r, cap = _market(rng, int(rng.integers(8, 20)), 3, 3, 6)
        flags = rng.random(p.shape[0]) < 0.6
        got = hedged_matching(p, r, cap, flags, 3)
        assert got.tolist() == hedged_matching_naive(p, r, cap, flags.tolist(), 3)


@pytest.mark.parametrize("bad", [3, 4, 10**6])
def test_every_index_past_the_other_side_is_refused(bad):
    # 3 is the first index past [0, 2]; larger ones must be refused just the same
    with pytest.raises(ParameterError, match=r"with an index outside \[0, 2\]"):
        deferred_acceptance([[0, bad, 1]], [[0], [0], [0]])


def test_kernel_ignores_entries_after_the_first_minus_one():
    # the kernel's documented format: a row ends at its first -1, what follows is ignored
    p = np.array([[0, -1, 1], [1, 0, -1]], dtype=np.int64)
    r = np.array([[1, -1, 0], [0, 1, -1]], dtype=np.int64)
    cap = np.ones(2, dtype=np.int64)
    # proposer 0 lists only receiver 0, which accepts only proposer 1: 0 stays unmatched
    assert deferred_acceptance_kernel(p, r, cap).tolist() == [-1, 1]


def test_prefs_check_kernel_returns_its_documented_codes():
    ok = np.array([[1, 0, -1], [-1, -1, -1]], dtype=np.int64)
    assert tuple(check_prefs_kernel(ok, 3)) == (-1, 0)
    assert tuple(check_prefs_kernel(np.array([[0, 1], [1, 1]], dtype=np.int64), 2)) == (1, 3)


def test_one_receiver_keeps_its_best_ranked_proposers():
    # with a single receiver the stable matching is plain: it holds the `cap` proposers it
    # ranks best; every arrival order of ranks exercises the heap's sift-up and sift-down
    rng = np.random.default_rng(42)
    # ranks in arrival order 7 4 6 2 5 0 1 3 with room for 5: the fifth arrival (rank 5)
    # goes below rank 4 in the heap, and two replacements later rank 4 is at the root while
    # rank 5 is held lower down, unless every sift keeps the heap order
    hand = np.argsort([7, 4, 6, 2, 5, 0, 1, 3])
    for case in range(300):
        n_prop, cap = int(rng.integers(6, 13)), int(rng.integers(4, 8))
        ranking = rng.permutation(n_prop)  # receiver's list, best first
        if case == 0:
            n_prop, cap, ranking = 8, 5, hand
        p = np.zeros((n_prop, 1), dtype=np.int64)
        got = deferred_acceptance(p, ranking[None, :], [cap])
        assert set(np.flatnonzero(got == 0).tolist()) == set(ranking[:cap].tolist())


def test_a_user_unmatched_in_round_one_can_still_win_a_hedge():
    # proposer 0 accepts nobody in round 1, but its hedge list names receiver 1, which has a
    # seat left: the hedge round gives it that seat (column 1), as the twin does
    p, r, cap = [[-1, -1], [0, 1]], [[0, 1], [0, 1]], [1, 1]
    hedge = [[1, -1], [0, 1]]
    got = hedged_matching(p, r, cap, [True, False], 2, hedge_prefs=hedge)
    assert got.tolist() == [[-1, 1], [0, -1]]
    assert got.tolist() == hedged_matching_naive(p, r, cap, [True, False], 2, hedge)


class _Raising:
    """An object numpy cannot turn into an array: its __array__ raises ``exc``."""

    def __init__(self, exc):
        self.exc = exc

    def __array__(self, *args, **kwargs):
        raise self.exc("no array")

    def __repr__(self):
        return f"_Raising({self.exc.__name__})"


@pytest.mark.parametrize(
    "capacities",
    [[[1], [1, 2]], _Raising(ValueError), _Raising(TypeError), _Raising(OverflowError)],
)
def test_capacities_numpy_cannot_read_are_refused_by_name(capacities):
    with pytest.raises(ParameterError, match=r"The 'capacities' parameter of deferred_acceptance"):
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 0]], capacities)


def test_three_dimensional_preferences_are_refused_by_name():
    with pytest.raises(
        ParameterError, match=r"'proposer_prefs' .* Got an array of shape \(2, 2, 1\)"
    ):
        deferred_acceptance(np.zeros((2, 2, 1), dtype=int), [[0, 1], [1, 0]])


@pytest.mark.parametrize("capacities", [[1], [1, 1, 1], [[1, 1]], [[1], [1]], [-1, 1]])
def test_capacities_of_the_wrong_shape_or_sign_are_refused(capacities):
    with pytest.raises(ParameterError, match=r"'capacities' .* 2 non-negative integers"):
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 0]], capacities)


def test_one_receiver_with_a_negative_capacity_and_no_receivers():
    with pytest.raises(ParameterError, match=r"'capacities' .* 1 non-negative integers"):
        deferred_acceptance([[0], [0]], [[0, 1]], [-1])
    none = np.zeros((3, 0), dtype=int)
    empty = np.zeros(0, dtype=int)
    assert deferred_acceptance(none, none.T, empty).tolist() == [-1, -1, -1]
    got = hedged_matching(none, none.T, empty, [True, False, True], max_receivers=2)
    assert got.tolist() == [[-1, -1]] * 3


def test_the_result_array_is_held_to_the_memory_budget(monkeypatch):
    import workbench.validation

    p = r = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]  # 3 proposers: 8 bytes x 3 x max_receivers
    monkeypatch.setattr(workbench.validation, "MEMORY_BUDGET", 48.0)
    assert hedged_matching(p, r, 1, [True] * 3, 2).shape == (3, 2)  # 48 bytes: fits
    monkeypatch.setattr(workbench.validation, "MEMORY_BUDGET", 71.0)
    with pytest.raises(ParameterError, match=r"'max_receivers' .* about 7.2e-08 GB"):
        hedged_matching(p, r, 1, [True] * 3, 3)  # 72 bytes: one too many


@pytest.mark.parametrize("flags", [[True], [True, False, True], [[True, False]], ["a", "b"]])
def test_needs_hedge_of_the_wrong_shape_or_kind_is_refused(flags):
    with pytest.raises(ParameterError, match=r"'needs_hedge' .* None or 2 booleans"):
        hedged_matching([[0, 1], [1, 0]], [[0, 1], [1, 0]], needs_hedge=flags)
