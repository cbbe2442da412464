"""The arena engine reuses its state buffers between runs of the same sizes: a run must not
see anything of the run before it, and the arrays it returned must not change later."""

import numpy as np

from workbench.arena import kernels
from workbench.arena.compile import compile_scenario, draw_tasks
from workbench.arena.kernels import Policy, _buffers, engine
from workbench.arena.policies import N_PAR, SLOTS, no_user
from workbench.arena.simulation import POLICIES
from workbench.arena.studies import mesh_scenario


def _run(sc, name, seed, n=2000, m=1, **params):
    net = compile_scenario(sc)
    tk = draw_tasks(sc, n, m, 2, np.random.default_rng(seed))
    par = np.zeros(N_PAR)
    for k, v in params.items():
        par[SLOTS[k]] = v
    return net, tk, engine()(net, tk, Policy(POLICIES[name].code, par), 0, no_user)


def _copy(out):
    return [np.copy(x) for x in out]


def _assert_same(a, b):
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y, equal_nan=True)


def test_a_run_on_reused_buffers_equals_the_same_run_on_fresh_ones():
    """Run A, then B (other policy, seed and a small capacity: losses, other counters; same
    sizes, so B reuses A's buffers), then A again: the second A equals the first, and the
    first A's arrays were not overwritten by B."""
    sc, small = mesh_scenario(), mesh_scenario(capacity=2, lam=4.0)
    net, tk, first = _run(sc, "jsq", seed=1)
    kept = _copy(first)
    (buffers,) = kernels._BUFFERS.values()  # the run gave its buffers back to the pool
    _, _, other = _run(small, "replicate", seed=2, m=1)
    assert next(iter(kernels._BUFFERS.values())) is buffers  # same sizes: reused, refilled
    assert not np.array_equal(other[0], kept[0], equal_nan=True)  # B differs from A
    _, _, again = _run(sc, "jsq", seed=1)
    _assert_same(first, kept)  # A's results survived B
    _assert_same(again, kept)  # and A on B's buffers is A


def test_buffers_in_use_are_never_handed_to_a_second_run():
    """A run takes its buffers out of the pool (a thread abandoned after a timeout may
    still be writing them): a second run meanwhile gets fresh ones."""
    sc = mesh_scenario()
    net, tk, _ = _run(sc, "jsq", seed=1)
    dims, held = _buffers(net, tk)  # as a running run holds them
    _, other = _buffers(net, tk)
    assert other is not held
    assert all(not np.shares_memory(a, b) for a, b in zip(held, other, strict=True))
