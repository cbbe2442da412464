"""The public API under bad input: only the library's own errors, no hang, no garbage.

A fixed sample (every public name at least once, then seeded random cases) of the cases
``tests/fuzz_api.py`` generates from the registry and the parameter tables, so a new public
name is covered without editing this file. ``benchmarks/fuzz_api.py`` runs all of them.
"""

from __future__ import annotations

import fuzz_api
import pytest

SAMPLE = 300
TIMEOUT = 20.0  # s per refusal; calls that run the model get three times as long
KINDS = ("invalid", "unknown", "edge")

# Failures of issue 29 that belong to the output-analysis half of it (another branch:
# precision targets of 1e-308 overflow in output_analysis.to_precision, an infinite mean in
# bounded_interval, results.summarise, an internal helper still in results.__all__). Listed
# so the walk stays honest about them; remove an entry once its fix is merged.
KNOWN_ELSEWHERE: set[tuple[str, str]] = set()  # (name, parameter) fixed in another module


@pytest.fixture(scope="module")
def generated():
    return fuzz_api.cases()


def test_every_public_name_has_a_baseline_call(generated):
    _, skipped = generated
    assert not skipped, "public names the fuzz cannot call (add an example value):\n" + "\n".join(
        skipped
    )


def test_the_sample_covers_every_public_name(generated):
    all_cases, _ = generated
    chosen = fuzz_api.sample(all_cases, SAMPLE, kinds=KINDS)
    names = {(c.module, c.name) for c in all_cases if c.kind == "invalid"}
    assert names <= {(c.module, c.name) for c in chosen}
    assert len(names) > 50  # the walk found the public surface
    walked = set(fuzz_api.modules())  # validation's __all__ holds only errors and budgets
    assert {"workbench.claims", "workbench.validation", "workbench.output_analysis"} <= walked
    assert "workbench.claims" in {c.module for c in all_cases}
    assert any(c.kind == "edge" and c.value_repr == "<mutated after construction>" for c in chosen)


@pytest.mark.slow
def test_bad_input_gets_the_librarys_own_error_and_never_hangs(generated):
    all_cases, _ = generated
    chosen = fuzz_api.sample(all_cases, SAMPLE, kinds=KINDS)
    frame = fuzz_api.run(chosen, timeout=TIMEOUT)
    bad = fuzz_api.failures(frame)
    bad = bad[[(r.name, r.param) not in KNOWN_ELSEWHERE for r in bad.itertuples()]]
    lines = [
        f"{r.module}.{r.name}({r.param}={r.value}) [{r.kind}] {r.outcome}: "
        + (str(r.detail).splitlines() or [""])[0][:200]
        for r in bad.itertuples()
    ]
    assert not lines, f"{len(lines)} of {len(frame)} calls broke the contract:\n" + "\n".join(lines)


def test_the_garbage_check_catches_what_it_must():
    import math

    import pandas as pd

    assert fuzz_api.garbage({"mean_delay": math.nan})
    assert fuzz_api.garbage({"blocking": 1.2})
    assert fuzz_api.garbage(pd.DataFrame({"wait": [0.1, -0.5]}))
    assert not fuzz_api.garbage(pd.DataFrame({"ci_low": [math.nan, 0.1], "servers": [math.inf, 2]}))
    assert not fuzz_api.garbage({"mean_delay": 0.3, "blocking": 0.2})
