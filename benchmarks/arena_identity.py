"""The arena engine's outputs recorded once and compared exactly later: a speed-up must
change no number.

Run ``python benchmarks/arena_identity.py record FILE`` with the code before a change, then
``python benchmarks/arena_identity.py check FILE`` after it. Recorded: every output array of
the compiled engine (finish, where, copies, hops, energy_tx, busy areas, span, counters) for
every built-in policy and a user policy, on every shipped scenario, a mesh with a cloud, a
small-capacity mesh (many losses) and the SimPy benchmark's ring, several seeds each.
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
sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
from bench_arena_simpy import ring  # noqa: E402  (the SimPy benchmark's ring, this folder)

from workbench import arena  # noqa: E402
from workbench.arena.compile import compile_scenario, draw_tasks  # noqa: E402
from workbench.arena.kernels import Policy, engine  # noqa: E402
from workbench.arena.scenario import load_scenario, shipped  # noqa: E402
from workbench.arena.simulation import _policy  # noqa: E402
from workbench.arena.studies import mesh_scenario  # noqa: E402


@arena.policy
def shortest_delay(queue, servers, speed, delay, u):
    best, j = np.inf, -1
    for c in range(queue.shape[0]):
        w = queue[c] / (servers[c] * speed[c]) + delay[c]
        if w < best or (w == best and u < 0.5):
            best, j = w, c
    return j


POLICIES = [
    ("local", {}),
    ("cloud", {}),
    ("random", {}),
    ("jsq", {}),
    ("power_of_d", {"d": 2}),
    ("power_of_d", {"d": 3}),
    ("threshold", {"theta": 0.25, "e_max": 2}),
    ("threshold", {"theta": 0.0, "e_max": 0}),
    ("overflow", {"p": 0.5}),
    ("overflow", {"p": 1.0}),
    ("replicate", {"m": 2}),
    ("replicate", {"m": 3}),
    ("red", {}),
    ("red", {"min_th": 1.0, "max_th": 3.0, "max_p": 0.5, "w_q": 0.2}),
    ("hedge_cache", {}),
    ("hedge_cache", {"cache_size": 2, "deadline": 0.5}),
    (shortest_delay, {}),
]


def _scenarios():
    out = [(name, load_scenario(name)) for name in shipped()]
    out += [
        ("mesh", mesh_scenario()),
        ("mesh_small", mesh_scenario(capacity=2, lam=4.0)),
        ("mesh_nocloud", mesh_scenario(cloud=False)),
        ("ring", ring(20)),
    ]
    return out


def _engine_policy(ch):
    """The engine's Policy for a resolved policy (a fresh state and error array)."""
    return Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))


def collect(n=3000) -> dict:
    got = {}
    run = engine()
    for sname, sc in _scenarios():
        net = compile_scenario(sc)
        for pol, params in POLICIES:
            try:
                ch = _policy(pol, dict(params), "identity")
            except Exception as exc:  # noqa: BLE001 - a policy the scenario cannot run
                got[(sname, str(pol), str(params))] = repr(exc)
                continue
            for seed in (1, 7):
                tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(seed))
                out = run(net, tk, _engine_policy(ch), n // 10, ch.user)
                got[(sname, ch.name, str(params), seed)] = tuple(np.asarray(x).copy() for x in out)
    # the SimPy benchmark's scenario and size
    sc = ring(50)
    net = compile_scenario(sc)
    ch = _policy("random", {}, "identity")
    tk = draw_tasks(sc, 20_000, 1, 2, np.random.default_rng(1))
    out = run(net, tk, _engine_policy(ch), 0, ch.user)
    got[("ring50", "random_bench")] = tuple(np.asarray(x).copy() for x in out)
    return got


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind == "f":  # the bits: NaN equals NaN, -0.0 differs from 0.0
            if not np.array_equal(x.reshape(-1).view(np.uint64), y.reshape(-1).view(np.uint64)):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "check"))
    ap.add_argument("file")
    args = ap.parse_args(argv)
    got = collect()
    if args.mode == "record":
        with open(args.file, "wb") as f:
            pickle.dump(got, f)
        n_err = sum(isinstance(v, str) for v in got.values())
        print(f"recorded {len(got)} runs ({n_err} policy/scenario pairs refused) to {args.file}")
        return 0
    with open(args.file, "rb") as f:
        ref = pickle.load(f)
    if set(ref) != set(got):
        print("different run sets")
        return 1
    for key in ref:
        if not _same(ref[key], got[key]):
            print(f"DIFFERENT: {key}")
            return 1
    print(f"identical: {len(ref)} runs, every output bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
