"""P2's outputs recorded once and compared exactly later: a speed-up must change no number.

Run: ``python benchmarks/p2_identity.py record FILE [--atlas] [--claims]`` with the code
before a change, then ``python benchmarks/p2_identity.py check FILE [--atlas] [--claims]``
after it. Recorded:
``run_scenario``'s per-task frame and counters for the four schemes and the readings
(fading off, cache_start popular, hedge_upload least_wait, hedge_check/cache_aware off,
X_max = 3) at E = 10, 30 and 40; ``simulate``'s per-replication frame, records and summary
for several seeds and schemes; with ``--atlas`` one quick ``atlas_point`` at the defaults
(every claim's value, verdict and note); with ``--claims`` the claims table at the defaults
(``check_claims("p2", quick=True)``: every claim's measured value, verdict and note, about
a CPU-minute). ``check`` compares with DataFrame.equals and
exact float equality (NaN equal to NaN) and exits 1 on the first difference.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys

import numpy as np

from workbench.proactive import draw_tasks, make_scenario, run_scenario, simulate, train

RUNS = [
    # (E, lam, slots, seed, scheme, extra run_scenario keywords)
    *[(30, 1.5, 1500, 3, s, {}) for s in ("proposed", "BL1", "BL2", "BL3")],
    *[(10, 2.0, 1500, 5, s, {}) for s in ("proposed", "BL1", "BL2", "BL3")],
    *[(40, 1.5, 800, 6, s, {}) for s in ("proposed", "BL2", "BL3")],
    (30, 1.5, 1500, 3, "proposed", {"fading": False}),
    (30, 1.5, 1500, 3, "BL2", {"fading": False}),
    (30, 1.5, 1500, 3, "proposed", {"cache_start": "popular"}),
    (30, 1.5, 1500, 3, "BL2", {"hedge_upload": "least_wait"}),
    (30, 1.5, 1500, 3, "proposed", {"hedge_check": False, "cache_aware": False}),
    (30, 2.0, 1500, 3, "BL1", {"x_max": 3, "hedge_check": False}),
]
SIMS = [
    # (scheme, seed, extra simulate keywords)
    ("proposed", 0, {"n_cloudlets": 20, "n_users": 60}),
    ("BL2", 0, {"n_cloudlets": 20, "n_users": 60}),
    ("BL3", 1, {}),
    ("BL1", 2, {"lam": 1.0}),
    ("proposed", 3, {"storage": 2, "zipf": 1.2}),
]


def _kernel_runs() -> list:
    out = []
    for e, lam, slots, seed, scheme, extra in RUNS:
        scenario = make_scenario(n_cloudlets=e, n_users=3 * e, seed=seed)
        training = train(scenario, lam=lam, seed=seed)
        tasks = draw_tasks(scenario, lam, 1e6, slots * 0.005, seed=seed)
        run = run_scenario(
            scheme, scenario, training, tasks, slots=slots, fading_seed=seed + 11, **extra
        )
        out.append((run.tasks, run.counters))
    return out


def _sims() -> list:
    out = []
    for scheme, seed, extra in SIMS:
        r = simulate(
            policy=scheme, seed=seed, slots=2400, replications=2, overload="transient", **extra
        )
        out.append((r.frame, r.records, r.summary, tuple(r.notes), r.stationarity.note))
    return out


def _atlas() -> dict:
    from workbench.proactive.claims import atlas_point
    from workbench.proactive.params import PARAMS

    point = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    return {k: tuple(m) for k, m in atlas_point(quick=True, seed=0, **point).items()}


def _claims() -> dict:
    from workbench.claims import check_claims

    return {"claims table": check_claims("p2", quick=True)}


def collect(atlas: bool, claims: bool = False) -> dict:
    got = {"kernel": _kernel_runs(), "simulate": _sims()}
    if atlas:
        got["atlas"] = _atlas()
    if claims:
        got["claims"] = _claims()
    return got


def _equal(a, b) -> bool:
    if hasattr(a, "equals"):
        return type(a) is type(b) and a.equals(b)
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("file")
    parser.add_argument("--atlas", action="store_true")
    parser.add_argument("--claims", action="store_true")
    a = parser.parse_args()
    got = collect(a.atlas, a.claims)
    if a.mode == "record":
        with open(a.file, "wb") as f:
            pickle.dump(got, f)
        print(f"recorded {sum(len(v) for v in got.values())} outputs to {a.file}")
        return 0
    with open(a.file, "rb") as f:
        want = pickle.load(f)
    bad = 0
    for part, items in got.items():
        ref = want[part]
        keys = list(items) if isinstance(items, dict) else range(len(items))
        for k in keys:
            if not _equal(ref[k], items[k]):
                print(f"DIFFERENT: {part} {k}")
                bad += 1
        print(f"{part}: {len(keys)} outputs compared, {bad} different so far")
    print("IDENTICAL" if not bad else f"{bad} DIFFERENT")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
