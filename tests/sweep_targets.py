"""Module-level functions for tests/test_sweep.py: worker processes import them by name."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd


def noisy(x, y=0.0, *, seed):
    """Two draws from the seed: equal frames mean equal seeds and equal arithmetic."""
    rng = np.random.default_rng(seed)
    return {"mean": x + y + rng.normal(), "u": rng.random()}


def product(x, y):
    """A scalar and no seed parameter."""
    return x * y


def draws(n, scale=1.0, seed=0):
    """A DataFrame with ``n`` rows (zero rows allowed)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"k": np.arange(n), "draw": scale * rng.standard_normal(n)})


def counting(x, *, counter_dir, seed):
    """Record each call as a file; misbehave at x == the value in the ``fail``/``crash`` files.

    The triggers live in files, not arguments, so the failing and the resumed run share one
    cache key.
    """
    d = Path(counter_dir)
    (d / f"call-{x}-{uuid.uuid4().hex}").touch()
    if (d / "slow").exists():  # seconds each call takes, so a test can catch one running
        time.sleep(float((d / "slow").read_text()))
    for trigger in ("fail", "crash", "interrupt"):
        f = d / trigger
        if f.exists() and int(f.read_text()) == x:
            if trigger == "fail":
                raise ValueError(f"boom at {x}")
            if trigger == "crash":
                os._exit(7)
            raise KeyboardInterrupt
    return {"value": float(np.random.default_rng(seed).random()), "x2": x * x}


def calls(counter_dir, x=None) -> int:
    """How many times ``counting`` ran (at ``x``, or in total)."""
    pattern = "call-*" if x is None else f"call-{x}-*"
    return len(list(Path(counter_dir).glob(pattern)))


class Unpicklable(Exception):
    def __init__(self, handle):
        super().__init__("cannot travel")
        self.handle = handle

    def __reduce__(self):
        raise TypeError("not picklable")


def raises_unpicklable(x, seed):
    if x == 2:
        raise Unpicklable(lambda: None)
    return x


def sleeper(x, *, pid_dir, seed):
    """Record this worker's pid, then compute for a long time (the parent gets killed)."""
    import time

    (Path(pid_dir) / f"{os.getpid()}").touch()
    time.sleep(600)
    return x


def mm1_result(lam, *, seed):
    """A SimulationResult of an M/M/1 queue by Lindley's recursion (unstable for lam >= 1)."""
    from workbench.output_analysis import Replication, finish, replicate

    def one(seed_sequence, index):
        rng = np.random.default_rng(seed_sequence)
        a, s = rng.exponential(1 / lam, 3_000), rng.exponential(1.0, 3_000)
        w = np.zeros(a.size)
        for i in range(1, a.size):
            w[i] = max(0.0, w[i - 1] + s[i - 1] - a[i])
        return Replication({"sojourn": float((w + s)[300:].mean())}, w + s, 300)

    reps = replicate(one, replications=3, seed=seed)
    return finish(
        reps,
        func="mm1",
        metric="sojourn",
        quantities=["sojourn"],
        confidence=0.95,
        run_length=3_000,
        run_unit="customers",
        overload="transient",
    )
