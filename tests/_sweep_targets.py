"""What the Dask tests need: a function the cluster's workers import, and the skip rule.

The workers of tests/test_dask_cluster.py are separate ``dask worker`` processes: they import
this module by name (the test puts ``tests/`` on their PYTHONPATH).
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import numpy as np
import pytest


def slow_draws(x, *, seed, delay=0.3, log_dir=None):
    """A seeded numpy computation, then ``delay`` seconds of sleep (an evaluation of ~0.3 s).

    Each call leaves a file ``start-<x>-<pid>-<uuid>`` in ``log_dir`` when it starts, so a
    test can see which worker process is busy and count how often a point ran. Elementwise
    arithmetic only (no BLAS): the numbers are bit-identical in every process.
    """
    if log_dir is not None:
        (Path(log_dir) / f"start-{x}-{os.getpid()}-{uuid.uuid4().hex}").touch()
    rng = np.random.default_rng(seed)
    draws = np.sort(rng.standard_normal(50_000))
    time.sleep(delay)
    return {"mean": x + float(draws.mean()), "q90": float(draws[45_000]), "u": float(rng.random())}


def require_distributed():
    """``distributed``, or a skip with the reason; under ``CI`` (set and not 0/false/no) the
    missing extra is a failure instead, as for the browser tests."""
    try:
        import distributed
    except ImportError as exc:
        msg = (
            f"distributed (the optional 'dask' extra) cannot be imported: {exc}; "
            "install it with pip install 'workbench[dask]'"
        )
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{msg} [CI is set, so this is a failure, not a skip]", pytrace=False)
        pytest.skip(msg)
    return distributed
