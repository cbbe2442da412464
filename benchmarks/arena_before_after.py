"""The arena engine before and after a change, timed in one process against the same floors.

``arena_floor.py`` times the shipped engine against two hand-specialised loops (binary heap,
calendar queue) and the SimPy twin. This script adds the engine of an earlier commit to the
same interleaved rounds, so "before" and "after" are measured under the same load: the
earlier commit's ``workbench`` package is extracted with ``git archive`` into a temporary
folder and imported as ``workbench_before`` (its own imports rewritten), beside the checkout's
``workbench``. Both engines run the same tasks (the checkout's draw, passed through the older
records field by field) and must agree with each other and with both floors task by task.

Usage::

    python benchmarks/arena_before_after.py [--before REV] [--tasks N] [--repeats R]
                                            [--big N_BIG]

Prints CPU ns per task (best / median over the rounds) and the SimPy twin's time divided by
each, as in the speed issue's table; with ``--big``, the minor page faults of one call of each
engine on ``N_BIG`` tasks. Exits with status 1 if any variant disagrees with another.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import io
import multiprocessing
import os
import re
import subprocess
import sys
import tarfile
import tempfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)
sys.path.insert(0, os.path.join(_ROOT, "benchmarks"))

import numpy as np  # noqa: E402
from arena_floor import (  # noqa: E402
    _cpu,
    floor_ring,
    floor_ring_calendar,
    page_faults,
)
from bench_arena_simpy import ring, run_engine, simpy_twin  # noqa: E402

from workbench.arena.compile import compile_scenario, draw_tasks  # noqa: E402

_NAME = "workbench_before"


def extract(rev: str, into: str) -> str:
    """``workbench/`` at ``rev`` as the package ``workbench_before`` under ``into``."""
    blob = subprocess.run(
        ["git", "-C", _ROOT, "archive", "--format=tar", rev, "workbench"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    pkg = os.path.join(into, _NAME)
    os.rename(os.path.join(into, "workbench"), pkg)
    word = re.compile(r"\bworkbench\b(?=[.\s])")
    for folder, _, files in os.walk(pkg):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(word.sub(_NAME, text))
    return pkg


def as_before(record, cls):
    """The checkout's record as the earlier commit's type: the fields they share, by name."""
    fields = record if isinstance(record, dict) else record._asdict()
    return cls(**{f: fields[f] for f in cls._fields if f in fields})  # others: their defaults


def _cpu_of(call) -> float:
    """CPU seconds of one call in this process."""
    c0 = _cpu()
    call()
    return _cpu() - c0


def _answer(conn, worker):
    """The worker's next answer; an error, not a wait forever, when the worker has died."""
    while not conn.poll(1.0):
        if not worker.is_alive():
            raise RuntimeError(f"the earlier engine's process ended (exit code {worker.exitcode})")
    return conn.recv()


def _before_worker(conn, folder):
    """Serve the earlier engine in its own process (two packages' first-class user functions
    do not mix in one numba process): receive (net, tasks) fields, answer CPU ns per call."""
    sys.path.insert(0, folder)
    old_k = importlib.import_module(f"{_NAME}.arena.kernels")
    old_p = importlib.import_module(f"{_NAME}.arena.policies")
    eng = old_k.engine()
    pol = old_k.Policy(old_p.RANDOM, np.zeros(old_p.N_PAR))
    jobs = {}
    while True:
        msg = conn.recv()
        if msg is None:
            return
        kind, key, payload = msg
        if kind == "load":
            net, tk = payload
            jobs[key] = (as_before(net, old_k.Net), as_before(tk, old_k.Tasks))
            out = eng(*jobs[key], pol, 0, old_p.no_user)
            conn.send((out[0], out[1]))
        else:  # the CPU seconds or the page faults of one call
            call = functools.partial(eng, *jobs[key], pol, 0, old_p.no_user)
            conn.send(_cpu_of(call) if kind == "time" else page_faults(call))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default="8df446b", help="the earlier commit (default 8df446b)")
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--big", type=int, default=0, help="page faults on this many tasks")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="arena-before-")
    extract(a.before, tmp)
    ctx = multiprocessing.get_context("spawn")
    conn, child = ctx.Pipe()
    worker = ctx.Process(target=_before_worker, args=(child, tmp), daemon=True)
    worker.start()

    sc = ring(50)
    net = compile_scenario(sc)
    tk = draw_tasks(sc, a.tasks, 1, 2, np.random.default_rng(1))
    conn.send(("load", "main", (net._asdict(), tk._asdict())))
    out0 = _answer(conn, worker)
    args = (tk.t, tk.node, tk.size, tk.u, net.servers, net.capacity, net.speed)
    args += (net.nbr_ptr, net.nbr_idx, net.delay)
    out = run_engine(net, tk)
    same = {}
    for name, (finish, where) in (
        (f"engine at {a.before}", out0),
        ("floor, binary heap", floor_ring(*args)),
        ("floor, calendar queue", floor_ring_calendar(*args)),
    ):
        same[name] = np.array_equal(where, out[1]) and np.array_equal(
            finish, out[0], equal_nan=True
        )

    def before():
        conn.send(("time", "main", None))
        return _answer(conn, worker)

    def local(f):
        return functools.partial(_cpu_of, f)

    names = ("floor, binary heap", "floor, calendar queue", f"engine at {a.before}")
    names += ("engine (checkout)", "SimPy twin")
    fs = [local(lambda: floor_ring(*args)), local(lambda: floor_ring_calendar(*args)), before]
    fs += [local(lambda: run_engine(net, tk)), local(lambda: simpy_twin(net, tk))]
    ts = np.array([[f() for f in fs] for _ in range(a.repeats)]) / a.tasks * 1e9
    best, med = ts.min(axis=0), np.median(ts, axis=0)
    print(f"50-node ring, {a.tasks:,} tasks, CPU ns per task, {a.repeats} interleaved rounds")
    print(f"(the engine at {a.before} runs in a child process; the rest in this one)")
    print("| variant | ns/task (best / median) | SimPy ÷ it (best / median) |")
    print("|---|---|---|")
    for name, b, m in zip(names[:4], best[:4], med[:4], strict=True):
        print(f"| {name} | {b:.0f} / {m:.0f} | {best[4] / b:.0f}× / {med[4] / m:.0f}× |")
    print(f"| {names[4]} | {best[4]:,.0f} / {med[4]:,.0f} | 1× |")
    print(
        f"engine ÷ calendar floor: {best[3] / best[1]:.2f} (best), {med[3] / med[1]:.2f} (median);"
        f" before ÷ after: {best[2] / best[3]:.2f} (best), {med[2] / med[3]:.2f} (median)"
    )
    for name, ok in same.items():
        print(f"{name} identical to the checkout's engine, task by task: {ok}")
    if a.big:
        tkb = draw_tasks(sc, a.big, 1, 2, np.random.default_rng(2))
        conn.send(("load", "big", (net._asdict(), tkb._asdict())))
        _answer(conn, worker)
        faults = []
        for _ in range(3):
            conn.send(("faults", "big", None))
            faults.append(_answer(conn, worker))
        print(
            f"engine at {a.before}, {a.big:,} tasks: {min(faults):,} to {max(faults):,} page faults"
        )
        run_engine(net, tkb)
        faults = [page_faults(lambda: run_engine(net, tkb)) for _ in range(3)]
        print(f"engine (checkout), {a.big:,} tasks: {min(faults):,} to {max(faults):,} page faults")
    conn.send(None)
    worker.join(10)
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
