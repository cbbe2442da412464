"""Synthetic claims with known verdicts, for tests/test_atlas.py (importable by workers)."""

import math

from workbench.claims import AtlasSpec, Measurement
from workbench.params import Param, Params

FLIP_AT = 0.4

PARAMS = Params(
    Param(
        "x",
        "x",
        "a lost value",
        low=0.0,
        high=1.0,
        default=0.5,
        source="choice",
        plausible=(0.0, 1.0),
        why="synthetic: the claim 'flip' holds below 0.4",
    ),
    Param(
        "y",
        "y",
        "an irrelevant lost value",
        low=0.0,
        high=1.0,
        default=0.5,
        source="choice",
        plausible=(0.0, 1.0),
        why="synthetic: no claim depends on it",
    ),
    Param(
        "r",
        "r",
        "a reading",
        kind="choice",
        choices=("a", "b", "c"),
        default="a",
        source="choice",
        plausible=("a", "b"),
        why="synthetic: 'reading' holds under a only",
    ),
    Param("z", "z", "a stated value", low=0.0, high=1.0, default=0.3),
)

TARGETS = {c: (1.0, 0.0) for c in ("always", "never", "flip", "reading", "unstable")}


def evaluate(*, quick, seed, x, y, r):
    """Every claim's indicator at one point: 1 where it holds (the target is 1)."""
    return {
        "always": 1.0,
        "never": 0.0,
        "flip": 1.0 if x < FLIP_AT else 0.0,
        "reading": 1.0 if r == "a" else 0.0,
        "unstable": Measurement(math.nan, False, "synthetic: no steady state"),
    }


SPEC = AtlasSpec(evaluate=evaluate, quick_points=40)


def log_path(parent_pid: int):
    """Where :func:`evaluate_logged` writes for the test process ``parent_pid``."""
    import tempfile
    from pathlib import Path

    return Path(tempfile.gettempdir()) / f"atlas_targets_{parent_pid}.log"


def evaluate_logged(*, quick, seed, x, y, r):
    """:func:`evaluate`, and a line "pid x r" appended to :func:`log_path` of the process
    that started the workers (workers kept from an earlier test do not see a new
    environment variable): which process evaluated which point and reading, in order."""
    import os

    with open(log_path(os.getppid()), "a") as log:
        log.write(f"{os.getpid()} {x!r} {r}\n")
    return evaluate(quick=quick, seed=seed, x=x, y=y, r=r)
