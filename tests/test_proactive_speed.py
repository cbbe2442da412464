"""The P2 slot kernel's speed-ups change no number.

The rate estimates (eq. 10) take their logarithms in one vectorised pass
(:mod:`workbench.proactive.log1p`): it must equal the C library's ``log1p``, which the
kernel called one link at a time before, bit for bit. The kernel itself is checked against
its slow twin (tests/naive_proactive.py) on loaded runs with calibrated (partial) coverage,
and its building blocks against the plain forms they replace. ``benchmarks/p2_identity.py``
and ``benchmarks/bench_p2_atlas.py`` compare whole outputs with the code before a change.
"""

import math
import platform

import numpy as np
import pytest
from naive_proactive import simulate_twin

from workbench.proactive import draw_tasks, make_scenario, run_scenario, train
from workbench.proactive import fading as F
from workbench.proactive import kernels as K
from workbench.proactive import log1p as L

SPECIAL = [
    0.0,
    -0.0,
    5e-324,
    1e-300,
    2.0**-54,
    2.0**-29,
    2.0**-20,
    0.41421356237309503,
    0.4142135623730951,
    -0.29289321881345254,
    -0.2929,
    -0.5,
    -1.0,
    -1.5,
    1.0,
    2.0**53,
    2.0**53 + 2.0,
    1e308,
    np.inf,
    -np.inf,
    np.nan,
]


def _sinr_sample(n: int, seed: int) -> np.ndarray:
    """SINRs from 1e-9 to 1e10 (silent users under interference to a user next to its
    cloudlet under the strongest fading draw), the unreduced range |x| < 0.41 and the
    special values."""
    rng = np.random.default_rng(seed)
    return np.concatenate([10.0 ** rng.uniform(-9, 10, n), rng.uniform(-0.3, 0.5, n // 4), SPECIAL])


def _bits_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))


def test_vectorised_log1p_equals_the_c_librarys_bit_for_bit():
    x = _sinr_sample(200_000, 0)
    variant = L.platform_variant(L.PROBE)
    got = np.empty_like(x)
    L.log1p_many(x, x.size, got, variant)
    want = np.array([math.log1p(v) if v > -1.0 else (-np.inf if v == -1.0 else np.nan) for v in x])
    assert _bits_equal(got, want).all(), x[~_bits_equal(got, want)][:5]
    platform_log = np.empty_like(x)
    L.log1p_many(x, x.size, platform_log, L.PLATFORM)  # what the kernel called before
    assert _bits_equal(platform_log, want).all()
    if platform.machine() == "x86_64" and platform.libc_ver()[0] == "glibc":
        assert variant in (L.PLAIN, L.FUSED)  # the vectorised loop, not the scalar calls


def test_probe_tells_the_two_builds_apart():
    # platform_variant picks a build only if the probe separates them at every input
    plain, fused = np.empty(L.PROBE.size), np.empty(L.PROBE.size)
    L.log1p_many(L.PROBE, L.PROBE.size, plain, L.PLAIN)
    L.log1p_many(L.PROBE, L.PROBE.size, fused, L.FUSED)
    assert (plain != fused).all()
    assert (np.abs(plain.view(np.int64) - fused.view(np.int64)) == 1).all()  # one last bit


def test_log1p_many_only_writes_the_first_n():
    x = _sinr_sample(1000, 1)
    out = np.full(x.size, -7.0)
    L.log1p_many(x, 100, out, L.platform_variant(L.PROBE))
    assert (out[100:] == -7.0).all() and (out[:100] != -7.0).all()


@pytest.mark.parametrize(("lam", "n_cloudlets", "n_slots"), [(1.5, 10, 400), (2.0, 12, 300)])
def test_kernel_equals_slow_twin_with_partial_coverage(lam, n_cloudlets, n_slots):
    # the calibrated coverage (about a fifth of the links): the estimates run over the
    # covered links only, user by user, serving and silent users alike
    n_users = 3 * n_cloudlets
    sc = make_scenario(n_cloudlets=n_cloudlets, n_users=n_users, seed=4)
    assert 0.1 < sc.covered.mean() < 0.5
    tr = train(sc, lam=lam, seed=4)
    tasks = draw_tasks(sc, lam, 1e6, n_slots * 0.005, seed=4)
    for scheme in ("proposed", "BL1", "BL2", "BL3"):
        run = run_scenario(
            scheme, sc, tr, tasks, slots=n_slots, fading_seed=7, budget=0.05, storage=10, x_max=2
        )
        done, server, from_cache, copies = simulate_twin(
            scheme, sc, tr, tasks, fading_seed=7, n_slots=n_slots, budget=0.05, storage=10
        )
        t = run.tasks
        assert run.counters["tasks_done"] == tasks.arrival.size > 80  # loaded, all served
        # the twin sums a user's interference term by term: its rates differ in the last bits
        assert np.allclose(t["done"], done, rtol=1e-12, atol=0), scheme
        assert t["server"].tolist() == server, scheme
        assert t["copies"].tolist() == copies, scheme
        assert t["from_cache"].tolist() == from_cache, scheme
        if scheme != "BL3":
            assert (t["copies"] > 1).any(), scheme  # the hedges read the estimates too


def test_stable_order_is_numpys_stable_argsort():
    rng = np.random.default_rng(0)
    out = np.empty(40, dtype=np.int64)
    for n in (0, 1, 2, 7, 40):
        keys = rng.integers(0, 5, size=40).astype(float)  # many ties
        keys[rng.random(40) < 0.2] = np.inf
        K.stable_order(keys, n, out)
        assert out[:n].tolist() == np.argsort(keys[:n], kind="mergesort").tolist()


@pytest.mark.parametrize(("n_users", "n_cloudlets"), [(7, 5), (12, 30), (3, 1)])
def test_fade_draws_what_one_generator_chain_draws(n_users, n_cloudlets):
    # four users' chains side by side, each user's first state by a GF(2) jump: the same
    # draws, link after link, as fading_draw stepping one generator through every link
    rng = np.random.default_rng(n_users)
    path_gain = rng.uniform(1e-12, 1e-9, size=(n_users, n_cloudlets))
    seed = np.uint64(rng.integers(1, 2**63))
    state, chain = np.array([seed]), np.array([seed])
    gain = np.zeros_like(path_gain)
    starts = np.empty(n_users, dtype=np.uint64)
    jumps = F.jump_table(n_cloudlets)
    for _slot in range(3):
        F.fade(gain, path_gain, state, F.FADING_TABLE, jumps, starts)
        want = np.array(
            [
                [path_gain[u, e] * F.fading_draw(chain, F.FADING_TABLE) for e in range(n_cloudlets)]
                for u in range(n_users)
            ]
        )
        assert np.array_equal(gain, want)
        assert state[0] == chain[0]


def test_jump_table_steps_the_generator():
    rng = np.random.default_rng(1)
    for steps in (0, 1, 2, 17, 64):
        table = F.jump_table(steps)
        for x in rng.integers(1, 2**63, size=20, dtype=np.uint64):
            state = np.array([x])
            for _ in range(steps):
                F.xorshift_next(state)
            assert F.jump(table, x) == state[0], steps
