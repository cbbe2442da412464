"""P1's and P5's outputs recorded once and compared exactly later: a change to the shared
event queue (``workbench/kernels/events.py``) must change no number.

Run ``python benchmarks/queue_identity.py record FILE`` with the code before a change, then
``python benchmarks/queue_identity.py check FILE`` after it (with a fresh numba cache folder:
``workbench._kernel_cache`` makes one per kernel digest). Recorded:

- P1, every array the network kernel returns, for every mode and policy, on a ring, a grid
  and a geometric layer (announcements on and off, the EWMA on and off), three seeds each;
  and the result frame of ``fog.simulate`` for two seeds;
- P5, every array the hierarchy kernel returns, for every model, on the symmetric, skewed
  and Barabási-Albert trees, three seeds each; and the result frame of
  ``hierarchy.simulate`` for every paper model, two seeds.

``check`` compares with exact equality (NaN equal to NaN, same dtype) and exits 1 on the
first difference.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
os.environ["WORKBENCH_RESULTS_CACHE"] = "0"  # compute every frame, never read one back
sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from workbench import fog, hierarchy  # noqa: E402
from workbench.fog import kernels as FK  # noqa: E402
from workbench.fog.model import P1Params  # noqa: E402
from workbench.fog.params import MODES, POLICIES  # noqa: E402
from workbench.fog.scenario import compile_scenario  # noqa: E402
from workbench.fog.simulation import draw_requests, kernel_arguments  # noqa: E402
from workbench.hierarchy.params import MODELS, PAPER_MODELS  # noqa: E402
from workbench.hierarchy.simulation import _draw_tasks, _run_kernel  # noqa: E402

SEEDS = (1, 2, 3)
_P5_KW = {"decision_time": 0.005}  # decisions that take time: the decision path runs


def _p1_cases():
    nets = {
        "ring": compile_scenario(fog.ring_scenario(6, 4)),
        "grid": compile_scenario(fog.grid_scenario(3, 3, 5)),
        "geometric": compile_scenario(fog.geometric_scenario(25, 0.3, 20, seed=7)),
    }
    for name, net in nets.items():
        for mode in MODES:
            for policy in POLICIES:
                for ewma in (0.0, 0.05):
                    for seed in SEEDS:
                        req = draw_requests(net, 6000, np.random.default_rng(seed), 0.05)
                        p = P1Params(
                            scenario=net,
                            theta=0.02,
                            e_max=2,
                            q=0.5,
                            alpha=0.5,
                            mode=mode,
                            policy=policy,
                            announce_period=0.05,
                            ewma_period=ewma,
                        )
                        args = kernel_arguments(p, req)
                        key = f"p1 {name} {mode} {policy} ewma={ewma} seed={seed}"
                        yield key, lambda a=args: FK.simulate_network(*a)
    for seed in (0, 1):
        yield (
            f"p1 frame seed={seed}",
            lambda s=seed: (
                fog.simulate(
                    scenario=fog.default_scenario(), requests=5000, replications=3, seed=s
                ).frame
            ),
        )


def _p5_cases():
    topos = {
        "symmetric": hierarchy.symmetric_tree(),
        "skewed": hierarchy.skewed_tree(),
        "barabasi_albert": hierarchy.barabasi_albert(3),
    }
    for name, topo in topos.items():
        for model in MODELS:
            for seed in SEEDS:
                tasks = _draw_tasks(
                    topo, 8.0, 7.0, 1.0, 200, 1.0, 0.1, np.random.default_rng(seed), "spread"
                )
                key = f"p5 {name} {model} seed={seed}"
                yield key, lambda m=model, t=topo, d=tasks: _run_kernel(m, t, d, **_P5_KW)
    for model in PAPER_MODELS:
        for seed in (0, 1):
            yield (
                f"p5 frame {model} seed={seed}",
                lambda m=model, s=seed: (
                    hierarchy.simulate(model=m, lam=6.0, periods=300, replications=3, seed=s).frame
                ),
            )


def _arrays(out):
    """Every array and number in a kernel's output, flattened with names."""
    if isinstance(out, pd.DataFrame):
        return {"frame": out}
    if hasattr(out, "_asdict"):
        out = out._asdict()
    if isinstance(out, dict):
        return {str(k): v for k, v in out.items()}
    if isinstance(out, tuple):
        return {str(i): v for i, v in enumerate(out)}
    return {"value": out}


def _same(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        try:
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        except AssertionError:
            return False
        return True
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("record", "check"))
    ap.add_argument("file")
    args = ap.parse_args()
    cases = [*_p1_cases(), *_p5_cases()]
    if args.action == "record":
        rec = {key: _arrays(run()) for key, run in cases}
        with open(args.file, "wb") as f:
            pickle.dump(rec, f)
        print(f"recorded {len(rec)} runs to {args.file}")
        return 0
    with open(args.file, "rb") as f:
        rec = pickle.load(f)
    if set(rec) != {key for key, _ in cases}:
        print("the recorded runs are not this script's cases")
        return 1
    for key, run in cases:
        got = _arrays(run())
        for name, want in rec[key].items():
            if not _same(want, got[name]):
                print(f"DIFFERENT: {key}, output {name}")
                return 1
    print(f"all {len(cases)} runs identical, bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
