"""The public API under bad input: only the library's own errors, no hang, no garbage.

A fixed sample (every public name at least once, then seeded random cases) of the cases
``tests/fuzz_api.py`` generates from the registry and the parameter tables, so a new public
name is covered without editing this file; and the cheap cases of every surface that walk
does not reach (``tests/fuzz_surfaces.py``: files, callbacks, caches, scaffold, registry,
CLI). ``benchmarks/fuzz_api.py`` runs all of them.
"""

from __future__ import annotations

import os
import signal
import time

import fuzz_api
import fuzz_surfaces
import pytest

from workbench import ParameterError

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


# ------------------------------------------------------------------ the other surfaces

# Cases of the suite's surface sample known to break the contract, each with the reason
# (none since issue 43's fixes were merged): an entry here is a visible, named exception.
KNOWN_SURFACES: dict[str, str] = {}


def _returns(verdict: str) -> str:
    return verdict


def _refuses() -> str:
    raise ParameterError("The 'x' parameter of f must be 1. Got 2 instead.")


def _raises() -> str:
    return {}["missing"]


def _sleeps() -> str:
    time.sleep(120)
    return ""


def _segfaults() -> str:
    os.kill(os.getpid(), signal.SIGSEGV)
    return ""


def _allocates() -> str:
    return str(len(bytearray(8 * 2**30)))


def _spins() -> str:
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    return ""


def test_the_surface_harness_tells_each_outcome_apart(monkeypatch):
    """Each outcome from a child that does exactly that: a hang and a crash (SIGSEGV) are
    seen from outside, a MemoryError comes from the address-space limit, slow from CPU."""
    monkeypatch.setattr(fuzz_surfaces, "SLOW_CPU", 0.2)
    made = {
        "ok": (_returns, ("",)),
        "garbage": (_returns, ("a planted value",)),
        "clean": (_refuses, ()),
        "raw": (_raises, ()),
        "hang": (_sleeps, ()),
        "crash": (_segfaults, ()),
        "memory": (_allocates, ()),
        "slow": (_spins, ()),
    }
    # generous limits: the machine may be loaded; only the sleeper reaches its limit
    cases = [
        fuzz_surfaces.SurfaceCase("files", name, func, args, timeout=5.0 if name == "hang" else 60)
        for name, (func, args) in made.items()
    ]
    frame = fuzz_surfaces.run(cases).set_index("case")
    for name in ("ok", "garbage", "clean", "raw", "hang", "crash"):
        assert frame.at[name, "outcome"] == name, frame.loc[name].to_dict()
    assert frame.at["memory", "outcome"] == "raw"
    assert frame.at["memory", "detail"].startswith("MemoryError")
    assert frame.at["slow", "outcome"] == "ok" and frame.at["slow", "slow"]
    assert not frame.at["ok", "slow"]
    table = fuzz_surfaces.totals(frame.reset_index())
    assert table.loc["files", "calls"] == 8 and table.loc["total", "slow"] == 1
    assert list(table.columns) == ["calls", *fuzz_surfaces.OUTCOMES, "slow"]


def test_the_surfaces_sample_breaks_no_contract_but_the_known_ones():
    chosen = fuzz_surfaces.sample(fuzz_surfaces.cases())
    assert {c.category for c in chosen} == set(fuzz_surfaces.CATEGORIES)
    frame = fuzz_surfaces.run(chosen)
    bad = fuzz_surfaces.failures(frame)
    lines = [
        f"[{r.category}] {r.case}: {r.outcome}: " + (str(r.detail).splitlines() or [""])[0][:200]
        for r in bad.itertuples()
        if f"[{r.category}] {r.case}" not in KNOWN_SURFACES
    ]
    assert not lines, f"{len(lines)} of {len(frame)} surface cases broke the contract:\n" + (
        "\n".join(lines)
    )
    # the caches are this branch's: a planted value or pickle is recomputed, never served
    caches = frame[frame["category"] == "caches"]
    assert len(caches) >= 2 and set(caches["outcome"]) == {"ok"}
