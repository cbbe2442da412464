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


def _package(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_walk_finds_entry_points_the_package_does_not_load(tmp_path, monkeypatch):
    """A module below a package with an ``__all__`` that ``import package`` does not load
    (``workbench.arena.env``) is walked without an edit; what the package loads (directly
    or through its own modules) is its implementation, and contract roles and private
    modules are left out."""
    _package(
        tmp_path,
        {
            "fakewb/__init__.py": "from fakewb import core\n__all__ = ['f']\n"
            "def f():\n    from fakewb import lazy\n    return lazy\n",
            "fakewb/core.py": "from .helpers import h\n__all__ = ['g']\ndef g():\n    return h\n",
            "fakewb/helpers.py": "__all__ = ['h']\ndef h():\n    return 1\n",
            "fakewb/env.py": "__all__ = ['Env']\nclass Env:\n    pass\n",
            "fakewb/lazy.py": "__all__ = ['z']\ndef z():\n    return 0\n",
            "fakewb/figures.py": "__all__ = ['frame']\ndef frame():\n    return 0\n",
            "fakewb/_private.py": "__all__ = ['p']\ndef p():\n    return 0\n",
            "fakewb/noall.py": "def q():\n    return 0\n",
            "fakewb/sub/__init__.py": "__all__ = ['s']\ndef s():\n    return 0\n",
            "fakewb/sub/deep.py": "__all__ = ['d']\ndef d():\n    return 0\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = fuzz_api.entry_points("fakewb")
    assert sorted(found) == ["fakewb.env", "fakewb.lazy", "fakewb.sub", "fakewb.sub.deep"]


def test_the_walk_calls_what_a_packages_modules_export_beyond_it(tmp_path, monkeypatch):
    """A module the package loads is walked for the names of its ``__all__`` the package
    does not export (only those: the rest are walked as the package's), and every such
    name of the workbench is called or declared inner with its door (:data:`INNER`)."""
    _package(
        tmp_path,
        {
            "fakewb2/__init__.py": "from fakewb2.core import g\n__all__ = ['g']\n",
            "fakewb2/core.py": "__all__ = ['g', 'h', 'K']\ndef g():\n    return 0\n"
            "def h():\n    return 1\nK = 3\n",
            "fakewb2/plain.py": "__all__ = ['g2']\nfrom fakewb2.core import g as g2\n",
            "fakewb2/figures.py": "__all__ = ['frame']\ndef frame():\n    return 0\n",
        },
    )
    (tmp_path / "fakewb2" / "__init__.py").write_text(
        "from fakewb2.core import g\nfrom fakewb2 import plain, figures\n__all__ = ['g']\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(fuzz_api, "ONLY", {})
    assert fuzz_api.inner_modules("fakewb2") == ["fakewb2.core"]
    assert fuzz_api.ONLY == {"fakewb2.core": {"h"}}
    assert [n for _, n, _, _ in fuzz_api._public_callables("fakewb2.core")] == ["h"]
    walked = fuzz_api.modules()
    assert {"workbench.fog.chain", "workbench.hierarchy.model"} <= set(walked)
    assert "workbench.arena.kernels" not in walked  # compiled: the "kernels" role
    names = {(m, n) for m in fuzz_api.ONLY for n in fuzz_api.ONLY[m]}
    assert set(fuzz_api.INNER) <= names, "INNER names no exported name any more"
    cases, _ = fuzz_api.cases()
    called = {(c.module, c.name) for c in cases}
    assert ("workbench.hierarchy.model", "static_route") in called
    assert not called & set(fuzz_api.INNER)


def test_an_entry_point_takes_its_packages_examples_and_table():
    """``workbench.arena.env`` (or any module below ``arena``) gets the arena's example
    scenario and the arena's parameter table, so its baseline call needs no edit here."""
    import importlib

    from workbench import arena

    assert fuzz_api.example("workbench.arena.env", "scenario", "ArenaEnv") == "neutral"
    assert fuzz_api.example("workbench.arena.env", "policy", "evaluate") == "jsq"
    scenario_module = importlib.import_module("workbench.arena.scenario")
    assert fuzz_api._table(scenario_module) is arena.PARAMS


def test_the_api_runner_counts_each_calls_cpu_and_slow(monkeypatch):
    """The walk's runner reports the CPU a call used in its child (not the wall time of a
    shared machine) and flags it slow past ``SLOW_CPU``."""
    import matplotlib  # loaded here, so a child's CPU is the call's own

    from workbench import numfmt

    matplotlib.use("Agg")
    monkeypatch.setattr(fuzz_api, "SLOW_CPU", 0.2)
    monkeypatch.setattr(numfmt, "parse_number", lambda text: float(_spins() or 1.0))
    spin = fuzz_api.Case("workbench.numfmt", "parse_number", "", "baseline", "", {"text": "1"})
    quick = fuzz_api.Case("workbench.numfmt", "format_number", "", "baseline", "", {"value": 2.0})
    frame = fuzz_api.run([spin, quick], timeout=60.0).set_index("name")
    assert list(frame["outcome"]) == ["ok", "ok"]
    assert frame.loc["parse_number", "slow"] and 0.25 <= frame.loc["parse_number", "cpu"] < 30
    assert not frame.loc["format_number", "slow"] and frame.loc["format_number", "cpu"] < 0.2
