"""The P2 slot kernel's speed-ups change no number: the kernel before them (loaded from git)
and the current one give bit-identical outputs on the same inputs and seeds."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.proactive import draw_tasks, make_scenario, train
from workbench.proactive import fading as F
from workbench.proactive import kernels as K

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def _old_kernels():
    try:
        import bench_p2_atlas as bench

        return bench, bench.load_kernels(bench.BEFORE)
    except (subprocess.CalledProcessError, FileNotFoundError, OSError) as err:
        pytest.skip(f"the kernel before the speed-up is not in this checkout's git ({err})")


@pytest.mark.parametrize(("lam", "n_cloudlets", "n_slots"), [(1.5, 10, 800), (2.0, 30, 300)])
def test_kernel_outputs_identical_to_the_kernel_before_the_speed_up(lam, n_cloudlets, n_slots):
    bench, old = _old_kernels()
    scenario = make_scenario(n_cloudlets=n_cloudlets, n_users=3 * n_cloudlets, seed=4)
    training = train(scenario, lam=lam, seed=4)
    tasks = draw_tasks(scenario, lam, 1e6, n_slots * 0.005, seed=4)
    for scheme in ("proposed", "BL1", "BL2", "BL3"):
        args = bench.kernel_args(scheme, scenario, training, tasks, n_slots, fading_seed=7)
        before, after = old.simulate_slots_kernel(*args), bench.run_current(args)
        assert bench.same(before, after), scheme
        assert after[-1][K.TASKS_DONE] == tasks.arrival.size > 100  # a loaded run, all served


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
        want = np.array([[path_gain[u, e] * F.fading_draw(chain, F.FADING_TABLE)
                          for e in range(n_cloudlets)] for u in range(n_users)])  # fmt: skip
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
