"""Compile every paper's kernels once, into Numba's cache, before a notebook needs them.

Numba compiles a kernel on its first call and keeps it on disk
(:mod:`workbench._kernel_cache`); on a fresh clone that first call is in whichever notebook,
view or test gets there first: P3's notebook spent about 10 s compiling before its first
figure, P2's 11 s, the arena's 18 s, and two processes reaching the same kernel together
each compiled it. :func:`compile_kernels` makes the smallest valid call of each paper's
simulators and solvers (a few hundred requests or slots: the compile is the cost, not the
run), two groups of papers side by side on two processes, and leaves a mark in the cache
folder, which is named after the kernels' code: a second call with the same code returns at
once, and a changed kernel file compiles afresh. ``run.sh`` calls it after installing, so
the first notebook a user opens starts drawing at once.

A kernel called later with argument types these calls did not use (a user's own arena
policy, an array of another dtype) still compiles on its first call, as before.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from workbench.registry import PAPERS

__all__ = ["compile_kernels"]

MARK = "compiled"  # written in the kernel cache folder once every group has compiled


def _fog() -> None:
    from workbench import fog

    fog.run_once(fog.ring_scenario(3, 3), requests=200)


def _proactive() -> None:
    from workbench import caching, matching, proactive, radio

    for policy in proactive.POLICIES:
        proactive.simulate(
            policy=policy,
            n_cloudlets=3,
            n_users=6,
            slots=60,
            warmup=0.5,
            replications=2,
            keep_records=False,
            overload="transient",
        )
    trace = [0, 1, 2, 0, 1, 0]
    caching.lru_hits(trace, 2)
    caching.lfu_hits(trace, 2)
    caching.popularity_cache_hits(trace, 2, [0, 1, 2])
    matching.hedged_matching([[0, 1], [1, 0]], [[0, 1], [1, 0]])
    radio.uplink_rate([[1e-9, 2e-9], [2e-9, 1e-9]], [0.1, 0.1], 1e-13, [0, 1], 1e6)


def _datacenters() -> None:
    from workbench import datacenters as dc
    from workbench import erlang

    # the P3 notebook's own first call: both chain solvers (GMRES, sparse LU), the limit's
    # idle-server walk and the two-centre simulator
    dc.warm_up()
    ring = dict(lam=(4.0, 2.0, 3.0), servers=(4, 4, 4), mu=(1.0, 1.0, 1.0), p=(0.5, 0.5, 0.5))
    dc.simulate_ring(**ring, events=2000, replications=2, overload="transient")
    erlang.erlang_b(4, 2.0)
    erlang.erlang_b_many([2, 4], [1.0, 2.0])


def _redundancy() -> None:
    from workbench import redundancy as rd

    rd.simulate(
        N=4,
        m=2,
        lam=0.5,
        t_cloud=1.0,
        service=rd.SExp(0.1, 1.0),
        jobs=500,
        replications=2,
        overload="transient",
    )


def _hierarchy() -> None:
    from workbench import hierarchy, red

    hierarchy.simulate(periods=30, replications=2)
    red.drop_probability(5.0, 2.0, 10.0, 0.1)
    red.red_run([1.0, 4.0, 9.0], [0.5, 0.5, 0.5], 2.0, 10.0, 0.1, 0.2)


def _arena() -> None:
    from workbench import arena
    from workbench.arena.env import BatchEnv
    from workbench.arena.multi import ArenaParallelEnv

    scenario = arena.load_scenario("neutral")
    for name in arena.POLICIES:
        arena.simulate(
            scenario=scenario, policy=name, requests=300, replications=2, overload="transient"
        )
    # the engine paused at decisions (arena.env): one env and one batch of two, a few steps
    env = arena.ArenaEnv(scenario, tasks=20)
    _obs, info = env.reset(seed=0)
    for _ in range(5):
        _obs, _r, done, _t, info = env.step(int(info["action_mask"].argmax()))
        if done:
            break
    batch = BatchEnv(scenario, size=2, tasks=20)
    _obs, info = batch.reset(seed=0)
    batch.step(info["action_mask"].argmax(axis=1))
    many = ArenaParallelEnv(scenario, tasks=20)  # and the multi-agent env's slot
    many.reset(seed=0)
    many.step(dict.fromkeys(many.agents, 0))


def _discovered_step(paper):
    """The compile step of a paper the registry discovered (``new-paper`` writes it): its
    package's ``warm_up()``, named after its topic."""

    def step() -> None:
        paper.module.warm_up()

    step.__name__ = step.__qualname__ = f"_{paper.topic}"
    return step


# two groups of about the same compile time on a fresh cache (``python -m workbench compile``
# reports each step's seconds); the papers new-paper added, a third
_BUILT_IN = ((_arena, _datacenters), (_fog, _proactive, _hierarchy, _redundancy))
_DISCOVERED = tuple(
    _discovered_step(p)
    for p in PAPERS.values()
    if p.topic not in {s.__name__.lstrip("_") for g in _BUILT_IN for s in g}
)
GROUPS = _BUILT_IN + ((_DISCOVERED,) if _DISCOVERED else ())


def _run_group(group) -> list[tuple[str, float]]:
    out = []
    for step in group:
        t0 = time.perf_counter()
        step()
        out.append((step.__name__.lstrip("_"), time.perf_counter() - t0))
    return out


def compile_kernels(force: bool = False, n_workers: int = 2) -> list[tuple[str, float]]:
    """Compile every paper's kernels into Numba's cache (once per kernel code).

    Returns ``(paper package, seconds)`` for each group member run; an empty list when the
    cache folder already holds the mark of a complete compile (``force=True`` runs anyway).
    ``n_workers``: 1 runs the groups one after the other in this process.
    """
    from workbench._kernel_cache import FOLDER
    from workbench.validation import check_bool, check_int

    force = check_bool(force, "force", "compile_kernels")
    n_workers = check_int(n_workers, "n_workers", "compile_kernels", 1, 2)
    mark = Path(FOLDER) / MARK
    if mark.exists() and not force:
        return []
    if n_workers == 1:
        timings = [t for group in GROUPS for t in _run_group(group)]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_workers, backend="loky")(delayed(_run_group)(g) for g in GROUPS)
        timings = [t for part in parts for t in part]
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text("".join(f"{name} {s:.1f} s\n" for name, s in timings) + f"pid {os.getpid()}\n")
    return timings
