"""Fuzz the whole public API and the other surfaces once and print the totals (the CI test
runs a fixed sample).

    .venv/bin/python benchmarks/fuzz_api.py [--sample N] [--timeout S] [--csv OUT]
                                            [--only api|surfaces] [--category NAME ...]

Every name in every public ``__all__`` under ``workbench`` (claims, validation, output
analysis, sweep, the building blocks, the registry's paper packages, any new package), every
parameter, with the declared-invalid values of its table, type-wrong values, valid values
inside the declared range, edge values (extreme confidences and precision targets, ragged
and 0-d arrays, infinities, mutated objects) and an unknown keyword; each call in a forked
child with a time limit; the totals per kind of call (calls, clean, ok, raw, garbage, hang,
crash, and slow: over 20 s of CPU). ``--sample N`` is the budget on a loaded machine: every
public name once per kind of call, then seeded random calls up to N. A module added below a
package (``workbench.arena.env``) is walked without an edit: see ``fuzz_api.entry_points``.
See ``tests/fuzz_api.py`` for what counts as clean.

Then the surfaces that walk does not reach (``tests/fuzz_surfaces.py``): scenario files,
user policies, the caches, the scaffold and registry inputs and the command line, each case
in a forked child under a time and an address-space limit; the counts per category (calls,
clean, ok, raw, garbage, hang, crash, and slow across them: over 20 s of CPU).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fuzz_api  # noqa: E402
import fuzz_surfaces  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=0, help="only this many cases (0: all)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per call")
    ap.add_argument("--csv", default="", help="write every outcome to this CSV")
    ap.add_argument("--only", choices=("api", "surfaces"), help="one half of the fuzz")
    ap.add_argument(
        "--category",
        nargs="*",
        choices=fuzz_surfaces.CATEGORIES,
        help="surfaces: only these categories",
    )
    args = ap.parse_args()
    bad = 0 if args.only == "api" else surfaces(args)
    return (api(args) if args.only != "surfaces" else 0) or bad


def surfaces(args) -> int:
    t0 = time.perf_counter()
    chosen = [
        c
        for c in fuzz_surfaces.cases()
        if c.category in (args.category or fuzz_surfaces.CATEGORIES)
    ]
    frame = fuzz_surfaces.run(chosen, progress=True)
    if args.csv:
        frame.to_csv(args.csv.replace(".csv", "") + "-surfaces.csv", index=False)
    print(f"\n{len(frame)} surface cases in {time.perf_counter() - t0:.0f} s")
    print(fuzz_surfaces.totals(frame).to_string())
    bad = fuzz_surfaces.failures(frame)
    print(f"\ncontract broken by {len(bad)} surface cases")
    for r in bad.itertuples():
        print(
            f"- [{r.category}] {r.case}: {r.outcome}: "
            f"{(str(r.detail).splitlines() or [''])[0][:160]}"
        )
    return 1 if len(bad) else 0


def api(args) -> int:
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
    print(api_totals(frame).to_string())
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


def api_totals(frame):
    """Counts per kind of call: calls, each outcome, and slow (over 20 s of CPU)."""
    import pandas as pd

    outcomes = list(fuzz_surfaces.OUTCOMES)
    table = pd.crosstab(frame["kind"], frame["outcome"]).reindex(columns=outcomes, fill_value=0)
    table.insert(0, "calls", frame.groupby("kind").size().reindex(table.index))
    table["slow"] = frame.groupby("kind")["slow"].sum().reindex(table.index).astype(int)
    table.loc["total"] = table.sum()
    return table


if __name__ == "__main__":
    sys.exit(main())
