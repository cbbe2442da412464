"""Fuzz the whole public API once and print the totals (the CI test runs a fixed sample).

    .venv/bin/python benchmarks/fuzz_api.py [--sample N] [--timeout S] [--csv OUT]

Every name in every public ``__all__`` under ``workbench`` (claims, validation, output
analysis, sweep, the building blocks, the registry's paper packages, any new package), every
parameter, with the declared-invalid values of its table, type-wrong values, valid values
inside the declared range, edge values (extreme confidences and precision targets, ragged
and 0-d arrays, infinities, mutated objects) and an unknown keyword; each call in a forked
child with a time limit. See ``tests/fuzz_api.py`` for what counts as clean.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fuzz_api  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=0, help="only this many cases (0: all)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per call")
    ap.add_argument("--csv", default="", help="write every outcome to this CSV")
    args = ap.parse_args()
    t0 = time.perf_counter()
    all_cases, skipped = fuzz_api.cases()
    selected = fuzz_api.sample(all_cases, args.sample) if args.sample else all_cases
    frame = fuzz_api.run(selected, timeout=args.timeout, progress=True)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    bad = fuzz_api.failures(frame)
    print(
        f"\n{len(frame)} calls in {time.perf_counter() - t0:.0f} s over "
        f"{frame[['module', 'name']].drop_duplicates().shape[0]} public names"
    )
    print(frame.groupby(["kind", "outcome"]).size().unstack(fill_value=0).to_string())
    print(f"\ncontract broken by {len(bad)} calls")
    for _, r in bad.head(60).iterrows():
        print(
            f"- {r['module']}.{r['name']}({r['param']}={r['value']}) [{r['kind']}] "
            f"{r['outcome']}: {(str(r['detail']).splitlines() or [''])[0][:160]}"
        )
    if skipped:
        print(f"\n{len(skipped)} names skipped (no example value):")
        for s in skipped:
            print(f"- {s}")
    return 1 if len(bad) or skipped else 0


if __name__ == "__main__":
    sys.exit(main())
