"""One P2 atlas point at the defaults, as a whole process (for an outside timer).

Run: ``python benchmarks/bench_p2_point.py [--full] [--seed S]``: ``atlas_point(quick=True)``
(or ``quick=False`` with ``--full``) at every plausible parameter's default; prints each
claim's value, so that two versions of the code can be timed and compared in one go.
"""

from __future__ import annotations

import argparse

from workbench.proactive.claims import atlas_point
from workbench.proactive.params import PARAMS

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args()
    point = {p.name: p.default for p in PARAMS.rows if p.plausible is not None}
    for claim, m in atlas_point(quick=not a.full, seed=a.seed, **point).items():
        print(f"{claim}: {m.value!r} {m.stationary} {m.note}")
