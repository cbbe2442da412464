"""The slowest transient of a model is shorter than the warm-up its claims and atlas use.

P2 (proactive edge computing): the caches start empty, as in the paper, and fill with the
results requested at each cloudlet; the hit rate is the slowest quantity to settle (the
queues relax within a few hundred slots at the loads of the table, the rate estimates are
running means). The claims and both atlas settings warm up ``claims.WARMUP_TASKS`` tasks per
user; the hit rate just after that warm-up must be within 0.01 of the hit rate ten times
later, and a quarter of the warm-up must visibly not be enough (the test can fail).
"""

import numpy as np
import pytest

from workbench.proactive import claims as C
from workbench.proactive import draw_tasks, make_scenario, run_scenario, train
from workbench.proactive.params import PARAMS

LAM = PARAMS["lam"].default
SLOT = PARAMS["slot"].default


def _hit_rates(scheme, seed, windows):
    """Hit rate of the tasks arriving in each [start, end) slot window of one long run."""
    n_slots = max(end for _, end in windows)
    scenario = make_scenario(seed=seed)
    training = train(scenario, lam=LAM, seed=seed)
    tasks = draw_tasks(scenario, LAM, PARAMS["mean_bits"].default, n_slots * SLOT, seed)
    t = run_scenario(scheme, scenario, training, tasks, slots=n_slots, fading_seed=seed).tasks
    slot = (t["arrival"] / SLOT).to_numpy()
    return [t["from_cache"][(slot >= a) & (slot < b)].mean() for a, b in windows]


@pytest.mark.parametrize("scheme", ["proposed", "BL1"])
def test_p2_hit_rate_settles_within_the_claims_warm_up(scheme):
    warm = round(C.run_for(True, LAM)["warmup"] * C.run_for(True, LAM)["slots"])
    assert warm == int(np.ceil(C.WARMUP_TASKS / (LAM * SLOT) - 1e-9))
    windows = [(warm // 4, warm // 2), (warm, 2 * warm), (10 * warm, 11 * warm)]
    rates = np.array([_hit_rates(scheme, seed, windows) for seed in (1, 2, 3)]).mean(axis=0)
    early, at_warm_up, ten_times_later = rates
    assert abs(at_warm_up - ten_times_later) <= 0.01, rates
    assert ten_times_later - early > 0.03, rates  # a quarter of the warm-up is too short


def test_p2_every_run_setting_warms_up_as_the_claims():
    for setting in (True, False, "atlas"):
        for lam in PARAMS["lam"].plausible:
            run = C.run_for(setting, lam)
            warm = round(run["warmup"] * run["slots"])
            assert warm * lam * SLOT >= C.WARMUP_TASKS - 1e-9
            assert run["slots"] - warm >= C.RUNS[setting]["measured"]
            assert run["warmup"] <= 0.9  # the shared form's bound
