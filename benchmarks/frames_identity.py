"""Dump a paper's figure frames and claim measures, or check them against a dump, bit for bit.

    .venv/bin/python benchmarks/frames_identity.py --paper p4 dump OUT [--quick]
    .venv/bin/python benchmarks/frames_identity.py --paper p4 check OUT [--quick]

A refactoring that must not change behaviour (a new parameter shape, a module split) runs
``dump`` before it and ``check`` after. Every ``FIGURES[name].frame(quick)`` and every
``CLAIMS[id](quick)`` of the paper is computed at the table's defaults (seeded), with a fresh
result cache so nothing is read back from an earlier run; ``check`` compares each frame with
the dumped one exactly (same columns, index, dtypes and values, NaN where NaN) and each claim
measure by the bits of its floats. The paper is any id of :mod:`workbench.registry`.
"""

from __future__ import annotations

import argparse
import atexit
import math
import os
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _fresh_cache() -> None:
    """Point every result cache at an empty folder, removed at exit: a frame is computed,
    never read back."""
    folder = tempfile.mkdtemp(prefix="frames-identity-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["WORKBENCH_CACHE"] = folder


def _package(paper_id: str):
    import importlib

    from workbench.registry import paper

    p = paper(paper_id)
    return importlib.import_module(p.import_name or f"workbench.{p.topic}")


def collect(paper_id: str, quick: bool) -> dict:
    """``{"figure:<name>": DataFrame, "claim:<id>": value}`` at the defaults."""
    import importlib

    pkg = _package(paper_id)
    figures = importlib.import_module(f"{pkg.__name__}.figures").FIGURES
    claims = importlib.import_module(f"{pkg.__name__}.claims").CLAIMS
    out = {}
    for name, spec in figures.items():
        t0 = time.perf_counter()
        out[f"figure:{name}"] = spec.frame(quick=quick)
        print(f"  figure {name:24s} {time.perf_counter() - t0:7.2f} s", flush=True)
    for cid, measure in claims.items():
        t0 = time.perf_counter()
        out[f"claim:{cid}"] = measure(quick)
        print(f"  claim  {cid:24s} {time.perf_counter() - t0:7.2f} s", flush=True)
    return out


def _bits(value):
    """A claim's measure as comparable data: floats by their bits, objects by their fields."""
    if isinstance(value, float):
        return ("float", value.hex() if not math.isnan(value) else "nan")
    if isinstance(value, (int, str, bool)) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_bits(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _bits(v)) for k, v in value.items()))
    if hasattr(value, "__dataclass_fields__"):
        return (
            type(value).__name__,
            tuple((f, _bits(getattr(value, f))) for f in value.__dataclass_fields__),
        )
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return _bits(value.item())
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return (type(value).__name__, repr(value))


#: columns that are wall-clock measurements (P3's ``convergence`` table reports each solve's
#: time): compared for presence and dtype only, since they differ on every run
CLOCK_COLUMNS = frozenset({"seconds"})


def same_frame(a, b) -> str:
    """'' when the two frames are identical bit for bit (but :data:`CLOCK_COLUMNS`), else
    what differs."""
    import numpy as np
    import pandas as pd

    if not isinstance(a, pd.DataFrame) or not isinstance(b, pd.DataFrame):
        return "" if _bits(a) == _bits(b) else f"{a!r} != {b!r}"
    if list(a.columns) != list(b.columns):
        return f"columns {list(a.columns)} != {list(b.columns)}"
    if not a.index.equals(b.index):
        return "index differs"
    if list(a.dtypes) != list(b.dtypes):
        return f"dtypes {list(a.dtypes)} != {list(b.dtypes)}"
    for col in a.columns:
        if col in CLOCK_COLUMNS:
            continue
        x, y = a[col].to_numpy(), b[col].to_numpy()
        if x.dtype.kind == "f":
            if x.tobytes() != y.tobytes():
                rows = np.flatnonzero(~((x == y) | (np.isnan(x) & np.isnan(y))))
                return f"column {col!r} differs (rows {rows[:5].tolist()}, bits or NaNs)"
        elif [_bits(v) for v in x] != [_bits(v) for v in y]:
            return f"column {col!r} differs"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper", required=True, help="a paper id of the registry (p4)")
    ap.add_argument("action", choices=("dump", "check"))
    ap.add_argument("path", help="the dump file")
    ap.add_argument("--quick", action="store_true", help="the quick frames (as the tests)")
    args = ap.parse_args()
    _fresh_cache()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    t0 = time.perf_counter()
    now = collect(args.paper, args.quick)
    print(f"{len(now)} frames and measures in {time.perf_counter() - t0:.1f} s")
    path = Path(args.path)
    if args.action == "dump":
        path.write_bytes(pickle.dumps(now))
        print(f"dumped to {path}")
        return 0
    before = pickle.loads(path.read_bytes())
    bad = 0
    for key in sorted(set(before) | set(now)):
        if key not in now or key not in before:
            print(f"DIFF {key}: only in {'the dump' if key in before else 'this run'}")
            bad += 1
            continue
        why = same_frame(before[key], now[key])
        if why:
            print(f"DIFF {key}: {why}")
            bad += 1
    print(f"{len(before)} dumped, {len(now)} now, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
