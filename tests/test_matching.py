"""Deferred acceptance and hedged matching: twin, stability, the `matching` package, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matching.games import HospitalResident
from naive_building_blocks import blocking_pairs, deferred_acceptance_naive, hedged_matching_naive

from workbench import ParameterError
from workbench.matching import deferred_acceptance, hedged_matching


def _random_market(rng, n_prop, n_recv, partial=False, max_cap=3):
    """Random full (permutation) or partial (-1 padded) preferences and capacities."""
    p = np.array([rng.permutation(n_recv) for _ in range(n_prop)], dtype=np.int64)
    r = np.array([rng.permutation(n_prop) for _ in range(n_recv)], dtype=np.int64)
    p, r = p.reshape(n_prop, n_recv), r.reshape(n_recv, n_prop)
    if partial:
        for row in p:
            row[rng.integers(0, n_recv + 1) :] = -1
        for row in r:
            row[rng.integers(0, n_prop + 1) :] = -1
    cap = rng.integers(0, max_cap + 1, n_recv)
    return p, r, cap


@st.composite
def markets(draw):
    n_prop = draw(st.integers(0, 9))
    n_recv = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    partial = draw(st.booleans())
    return _random_market(np.random.default_rng(seed), n_prop, n_recv, partial)


@settings(deadline=None, max_examples=300)
@given(markets())
def test_kernel_matches_round_based_twin(market):
    p, r, cap = market
    assert deferred_acceptance(p, r, cap).tolist() == deferred_acceptance_naive(p, r, cap)


@settings(deadline=None, max_examples=300)
@given(markets())
def test_no_blocking_pair_and_capacities_respected(market):
    p, r, cap = market
    m = deferred_acceptance(p, r, cap)
    assert blocking_pairs(p, r, cap, m.tolist()) == []
    counts = np.bincount(m[m >= 0], minlength=len(cap))
    assert np.all(counts <= cap)
    for u, e in enumerate(m):  # only mutually acceptable pairs
        if e >= 0:
            assert e in p[u] and u in r[e]


def _package_solution(p, r, cap):
    """Resident-optimal HospitalResident solution of the `matching` package, as (U,) array."""
    n_prop, n_recv = p.shape
    acc_p = [[int(e) for e in row if e >= 0] for row in p]
    acc_r = [[int(u) for u in row if u >= 0] for row in r]
    # the package wants mutual lists and non-empty ones: drop one-sided entries first
    res = {u: [e for e in acc_p[u] if u in acc_r[e]] for u in range(n_prop)}
    hos = {e: [u for u in acc_r[e] if e in res[u]] for e in range(n_recv)}
    res = {u: lst for u, lst in res.items() if lst}
    hos = {e: lst for e, lst in hos.items() if lst and cap[e] > 0}
    res = {u: [e for e in lst if e in hos] for u, lst in res.items()}
    res = {u: lst for u, lst in res.items() if lst}
    hos = {e: [u for u in lst if u in res] for e, lst in hos.items()}
    out = np.full(n_prop, -1)
    if not res:
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game = HospitalResident.create_from_dictionaries(res, hos, {e: int(cap[e]) for e in hos})
        solution = game.solve(optimal="resident")
    for hospital, residents in solution.items():
        for resident in residents:
            out[resident.name] = hospital.name
    return out


@pytest.mark.parametrize("partial", [False, True], ids=["full", "partial"])
def test_equals_matching_package_resident_optimal(partial):
    rng = np.random.default_rng(7 + partial)
    for _ in range(60):
        n_prop, n_recv = int(rng.integers(1, 25)), int(rng.integers(1, 8))
        p, r, cap = _random_market(rng, n_prop, n_recv, partial, max_cap=4)
        assert deferred_acceptance(p, r, cap).tolist() == _package_solution(p, r, cap).tolist()


def test_equals_matching_package_medium_instance():
    rng = np.random.default_rng(2018)
    p, r, _ = _random_market(rng, 120, 30)
    cap = np.full(30, 3)
    assert np.array_equal(deferred_acceptance(p, r, cap), _package_solution(p, r, cap))


def test_textbook_one_to_one_example():
    # Proposers both like receiver 0 best; receiver 0 prefers proposer 1.
    assert deferred_acceptance([[0, 1], [0, 1]], [[1, 0], [0, 1]]).tolist() == [1, 0]
    # Proposer-optimal, not receiver-optimal: each proposer gets its first choice.
    m = deferred_acceptance([[0, 1], [1, 0]], [[1, 0], [0, 1]])
    assert m.tolist() == [0, 1]


def test_partial_lists_and_defaults():
    # proposer 1 accepts nobody; receiver 1 does not accept proposer 0
    p = [[1, 0], [-1, -1], [1, -1]]
    r = [[0, 1, 2], [2, -1, -1]]
    assert deferred_acceptance(p, r).tolist() == [0, -1, 1]
    assert deferred_acceptance(p, r, capacities=0).tolist() == [-1, -1, -1]
    assert deferred_acceptance(np.zeros((0, 3), dtype=int), np.zeros((3, 0), dtype=int)).size == 0


@settings(deadline=None, max_examples=200)
@given(markets(), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_hedged_matching_matches_twin(market, x_max, seed):
    p, r, cap = market
    flags = np.random.default_rng(seed).random(p.shape[0]) < 0.5
    got = hedged_matching(p, r, cap, flags, x_max)
    expected = hedged_matching_naive(p, r, cap, flags.tolist(), x_max)
    assert got.tolist() == expected
    # invariants: first column is deferred acceptance, no repeats, capacities respected
    assert got[:, 0].tolist() == deferred_acceptance(p, r, cap).tolist()
    for u, row in enumerate(got):
        held = row[row >= 0]
        assert len(set(held.tolist())) == held.size
        if not flags[u]:
            assert held.size <= 1
        assert np.all(row[held.size :] == -1)  # -1 only pads at the end
    load = np.bincount(got[got >= 0], minlength=len(cap))
    assert np.all(load <= cap)


def test_hedged_matching_hand_example():
    p = [[0, 1, 2], [0, 1, 2], [2, 1, 0]]
    r = [[1, 0, 2], [0, 1, 2], [0, 1, 2]]
    got = hedged_matching(p, r, [1, 1, 2], [True, False, True], max_receivers=3)
    # round 1: 1 -> 0, 0 -> 1 (bumped from 0), 2 -> 2; hedge: 0 takes 2's last seat
    assert got.tolist() == [[1, 2, -1], [0, -1, -1], [2, -1, -1]]
    assert hedged_matching(p, r, [1, 1, 2]).tolist() == [[1, -1], [0, -1], [2, -1]]


MSG = "must be a 2-D integer array whose rows list distinct indices of the other side"


@pytest.mark.parametrize(
    ("prefs", "detail"),
    [
        ([[0, 0], [1, 0]], "Got row 0 = [0, 0] with a repeated index instead."),
        ([[0, 2], [1, 0]], "Got row 0 = [0, 2] with an index outside [0, 1] instead."),
        ([[0, 1], [-1, 0]], "Got row 1 = [-1, 0] with an index after the -1 padding instead."),
        ([[0, -3], [1, 0]], "Got row 0 = [0, -3] with an index outside [0, 1] instead."),
        ([[0, 1.5], [1, 0]], "Got [[0, 1.5], [1, 0]] instead."),
        ([0, 1], "Got an array of shape (2,) instead."),
        ([[0], [1, 0]], "Got [[0], [1, 0]] instead."),
        ([[True, False], [False, True]], "Got [[True, False], [False, True]] instead."),
    ],
)
def test_malformed_proposer_prefs(prefs, detail):
    expected = (
        "The 'proposer_prefs' parameter of deferred_acceptance must be a 2-D integer array "
        "whose rows list distinct indices of the other side, most preferred first, optionally "
        f"padded with trailing -1. {detail}"
    )
    with pytest.raises(ParameterError) as info:
        deferred_acceptance(prefs, [[0, 1], [1, 0]])
    assert str(info.value) == expected


def test_malformed_receiver_prefs_and_capacities():
    with pytest.raises(
        ParameterError,
        match=r"'receiver_prefs' parameter of deferred_acceptance "
        r"must be a 2 x 3 integer array .* Got an array of shape \(3, 2\)",
    ):
        deferred_acceptance([[0, 1], [1, 0], [0, 1]], [[0, 1], [1, 0], [0, 1]])
    with pytest.raises(ParameterError, match=r"'receiver_prefs' .* row 1 = \[1, 1\] with a rep"):
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 1]])
    with pytest.raises(ParameterError) as info:
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 0]], capacities=-1)
    assert str(info.value) == (
        "The 'capacities' parameter of deferred_acceptance must be an int in the range "
        "[0, inf). Got -1 instead."
    )
    with pytest.raises(
        ParameterError,
        match=r"'capacities' .* 2 non-negative integers\. "
        r"Got \[1, -1\] instead\.",
    ):
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 0]], capacities=[1, -1])
    with pytest.raises(ParameterError, match=r"'capacities' .* Got \[1\.5, 1\] instead\."):
        deferred_acceptance([[0, 1], [1, 0]], [[0, 1], [1, 0]], capacities=[1.5, 1])


def test_malformed_hedge_arguments():
    p, r = [[0, 1], [1, 0]], [[0, 1], [1, 0]]
    with pytest.raises(ParameterError) as info:
        hedged_matching(p, r, max_receivers=0)
    assert str(info.value) == (
        "The 'max_receivers' parameter of hedged_matching must be an int in the range "
        "[1, inf). Got 0 instead."
    )
    with pytest.raises(
        ParameterError,
        match=r"'needs_hedge' parameter of hedged_matching must "
        r"be None or 2 booleans\. Got \[1, 0\] instead\.",
    ):
        hedged_matching(p, r, needs_hedge=[1, 0])


def test_capacities_beyond_int64_mean_unlimited():
    p, r = [[0, 1], [0, 1]], [[1, 0], [0, 1]]
    assert deferred_acceptance(p, r, 2**70).tolist() == [0, 0]
    big = np.array([2**64 - 1, 0], dtype=np.uint64)
    assert deferred_acceptance(p, r, big).tolist() == [0, 0]


def test_hedge_prefs_restrict_the_hedge_rounds_only():
    # proposer 0 needs a hedge; its hedge list allows receiver 2 only, though 1 is vacant
    p = [[0, 1, 2], [0, 1, 2]]
    r = [[0, 1], [0, 1], [0, 1]]
    cap = [1, 2, 1]
    full = hedged_matching(p, r, cap, [True, False], 2)
    assert full.tolist() == [[0, 1], [1, -1]]  # hedge to its next listed vacant receiver
    got = hedged_matching(p, r, cap, [True, False], 2, hedge_prefs=[[2, -1, -1], [0, 1, 2]])
    assert got.tolist() == [[0, 2], [1, -1]]  # same first round, hedge only where allowed
    none = hedged_matching(p, r, cap, [True, False], 2, hedge_prefs=[[-1] * 3, [0, 1, 2]])
    assert none.tolist() == [[0, -1], [1, -1]]
    assert got.tolist() == hedged_matching_naive(
        p, r, cap, [True, False], 2, [[2, -1, -1], [0, 1, 2]]
    )
    with pytest.raises(ParameterError, match="'hedge_prefs' parameter of hedged_matching"):
        hedged_matching(p, r, cap, [True, False], 2, hedge_prefs=[[0, 1]])
