"""The arena engine reuses its state buffers between runs of the same sizes: a run must not
see anything of the run before it, and the arrays it returned must not change later."""

import numpy as np

from workbench.arena.compile import compile_scenario, draw_tasks
from workbench.arena.kernels import Policy, _buffers, engine
from workbench.arena.policies import N_PAR, no_user
from workbench.arena.simulation import _PAR_INDEX, POLICIES
from workbench.arena.studies import mesh_scenario


def _run(sc, name, seed, n=2000, m=1, **params):
    net = compile_scenario(sc)
    tk = draw_tasks(sc, n, m, 2, np.random.default_rng(seed))
    par = np.zeros(N_PAR)
    for k, v in params.items():
        par[_PAR_INDEX[k]] = v
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
    buffers = _buffers(net, tk)
    _, _, other = _run(small, "replicate", seed=2, m=1)
    assert _buffers(net, tk) is buffers  # same sizes: the same buffers, refilled
    assert not np.array_equal(other[0], kept[0], equal_nan=True)  # B differs from A
    _, _, again = _run(sc, "jsq", seed=1)
    _assert_same(first, kept)  # A's results survived B
    _assert_same(again, kept)  # and A on B's buffers is A
