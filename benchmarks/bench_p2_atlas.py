"""P2's slot kernel before and after a revision, in one run, and one atlas point's time.

Run: ``python benchmarks/bench_p2_atlas.py [--before REV] [--slots N] [--point [--rounds R]]``.

1. The kernel of ``workbench/proactive/kernels.py`` at ``REV`` (default: the commit before
   the vectorised rate estimates) is loaded from git beside the current one; both run the
   same inputs (network, training, tasks, fading seed) for the four schemes at λ_u = 1 and
   1.5 and at E = 10 and 40; every output is asserted bit for bit equal (NaN where NaN) and
   the median CPU time per slot of 3 runs of each is printed with the ratio.
2. ``--point``: one full atlas evaluation (``atlas_point(quick=False)``, 22 simulations of 8
   replications) at the defaults, on the kernel at ``REV`` and on the current one, taken in
   turns ``R`` times (default 2) in this process (the in-process run caches emptied before
   each), CPU time and wall time each; every claim's value is asserted equal on both. Then
   one ``quick=True`` evaluation on the current kernel.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from workbench.proactive import draw_tasks, make_scenario, train
from workbench.proactive import kernels as K
from workbench.proactive.model import interference_free_rates
from workbench.proactive.params import MAX_QUEUE, POLICY_CODES
from workbench.proactive.runs import _xorshift_state

BEFORE = "8df446b"
"""The last commit before the rate estimates' vectorised log1p (issue 42); c2b6827 is the
one before the first P2 speed-up (issue 31)."""
ROOT = Path(__file__).resolve().parents[1]


def load_kernels(rev: str):
    """workbench/proactive/kernels.py at ``rev`` as a module (git show into a temp file)."""
    text = subprocess.run(
        ["git", "show", f"{rev}:workbench/proactive/kernels.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "p2_kernels_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("p2_kernels_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kernel_args(scheme, scenario, training, tasks, n_slots, fading_seed=1):
    """The positional arguments ``_run_scenario`` passes at the defaults."""
    n_users, n_cloudlets = scenario.path_gain.shape
    return (
        POLICY_CODES[scheme],
        scenario.path_gain,
        scenario.covered,
        np.full(n_users, scenario.power_w),
        scenario.noise_w,
        10e6,
        True,
        _xorshift_state(fading_seed),
        np.full(n_cloudlets, 1e10),
        100.0,
        0.005,
        0.05,
        0.005,
        int(n_slots),
        max(2000, n_slots),
        2,
        np.full(n_cloudlets, 10, dtype=np.int64),
        training.cache_rank,
        scenario.cacheable,
        tasks.arrival,
        tasks.user,
        tasks.task_type,
        tasks.bits,
        tasks.user_start,
        interference_free_rates(scenario, 10e6),
        MAX_QUEUE,
        True,
        True,
    )


_OLD_ORDER = (
    "scheme",
    "path_gain",
    "covered",
    "power",
    "noise_w",
    "bandwidth",
    "fading",
    "fading_seed",
    "cpu",
    "kappa",
    "tau_ep",
    "budget",
    "slot",
    "n_slots",
    "max_drain_slots",
    "x_max",
    "storage",
    "cache_rank",
    "cacheable",
    "arrival",
    "task_user",
    "task_type",
    "task_bits",
    "user_start",
    "rbar0",
    "max_queue",
    "cache_aware",
    "hedge_check",
)


def run_current(args, mod=K):
    """The kernel of ``mod`` (default: the current one) on the old positional arguments;
    a kernel that takes four named records (since 74bc555) gets them built from these."""
    if not hasattr(mod, "Radio"):
        return mod.simulate_slots_kernel(*args)
    given = dict(zip(_OLD_ORDER, args, strict=True))
    radio = mod.Radio(*(given[f] for f in mod.Radio._fields))
    cloudlets = mod.Cloudlets(*(given[f] for f in mod.Cloudlets._fields))
    tasks = mod.TaskStream(*(given[f] for f in mod.TaskStream._fields))
    schedule = mod.Schedule(*(given.get(f, False) for f in mod.Schedule._fields))
    return mod.simulate_slots_kernel(radio, cloudlets, tasks, schedule)


def same(a, b) -> bool:
    return all(
        np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b, strict=True)
    )


def compare(old, n_slots: int) -> float:
    """Assert equal outputs and print the per-slot times; the total time ratio."""
    total = {"before": 0.0, "after": 0.0}
    for lam, e in ((1.0, 30), (1.5, 30), (1.5, 10), (1.5, 40)):
        scenario = make_scenario(n_cloudlets=e, n_users=3 * e, seed=1)
        training = train(scenario, lam=lam, seed=1)
        tasks = draw_tasks(scenario, lam, 1e6, n_slots * 0.005, seed=1)
        for scheme in ("proposed", "BL1", "BL2", "BL3"):
            args = kernel_args(scheme, scenario, training, tasks, n_slots)
            times = {}
            outs = {}
            for name, kern in (
                ("before", lambda *a: run_current(a, old)),
                ("after", lambda *a: run_current(a)),
            ):
                kern(*kernel_args(scheme, scenario, training, tasks, 20))  # compile / load
                runs = []
                for _ in range(3):
                    t0 = time.process_time()
                    outs[name] = kern(*args)
                    runs.append(time.process_time() - t0)
                times[name] = float(np.median(runs))
                total[name] += times[name]
            assert same(outs["before"], outs["after"]), (lam, e, scheme)
            slots = outs["after"][-1][K.SLOTS_RUN]
            print(
                f"  λ_u={lam:4.2f} E={e:2d} {scheme:8s} before {1e6 * times['before'] / slots:6.1f}"
                f" µs/slot, after {1e6 * times['after'] / slots:6.1f}  "
                f"x{times['before'] / times['after']:.2f}  (outputs identical)"
            )
    ratio = total["before"] / total["after"]
    print(
        f"kernel total: before {total['before']:.2f} s, after {total['after']:.2f} s, x{ratio:.2f}"
    )
    return ratio


def _clear_run_caches() -> None:
    """Empty the in-process caches of runs, networks and tasks (each side computes all)."""
    from workbench.proactive import claims, simulation

    claims._run.cache_clear()
    simulation._network.cache_clear()
    simulation._tasks.cache_clear()


def time_point(old, rounds: int = 2) -> float:
    """One full atlas evaluation at the defaults on ``old``'s kernel and the current one,
    in turns; the ratio of the median CPU times."""
    from workbench.proactive import runs
    from workbench.proactive.claims import atlas_point
    from workbench.proactive.params import PARAMS

    point = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    sides = {"before": old, "after": K}
    cpu = {name: [] for name in sides}
    values = {}
    for mod in sides.values():  # compile / load every kernel
        runs.K = mod
        atlas_point(quick=True, seed=99, **point)
    try:
        for _ in range(rounds):
            for name, mod in sides.items():
                runs.K = mod
                _clear_run_caches()
                t0, w0 = time.process_time(), time.perf_counter()
                got = atlas_point(quick=False, seed=0, **point)
                cpu[name].append(time.process_time() - t0)
                wall = time.perf_counter() - w0
                values[name] = {k: tuple(m) for k, m in got.items()}
                print(
                    f"  atlas_point(quick=False) {name:6s}: {cpu[name][-1]:5.1f} CPU-s, "
                    f"{wall:5.1f} s wall"
                )
            assert same_values(values["before"], values["after"]), "the claims moved"
    finally:
        runs.K = K
    ratio = float(np.median(cpu["before"]) / np.median(cpu["after"]))
    print(
        f"one full atlas evaluation at the defaults: before {np.median(cpu['before']):.1f} "
        f"CPU-s, after {np.median(cpu['after']):.1f} CPU-s (median of {rounds}), x{ratio:.2f}; "
        f"all {len(values['after'])} claims identical"
    )
    _clear_run_caches()
    t0 = time.perf_counter()
    atlas_point(quick=True, seed=0, **point)
    print(f"atlas_point(quick=True) at the defaults: {time.perf_counter() - t0:.1f} s wall")
    return ratio


def same_values(a: dict, b: dict) -> bool:
    """Two atlas points' claims equal: values exactly (NaN equal to NaN), verdicts, notes."""
    if a.keys() != b.keys():
        return False
    for k in a:
        (va, *ra), (vb, *rb) = a[k], b[k]
        if not (va == vb or (np.isnan(va) and np.isnan(vb))) or ra != rb:
            return False
    return True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--slots", type=int, default=3000)
    parser.add_argument("--point", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    a = parser.parse_args()
    print(f"P2 slot kernel: {a.before} against the work tree, {a.slots} slots with arrivals")
    old = load_kernels(a.before)
    compare(old, a.slots)
    if a.point:
        time_point(old, a.rounds)
    sys.exit(0)
