"""The mutation machinery keeps working: a few fixed mutants of the erlang target, run through
``benchmarks/mutation.py`` exactly as the full run does (cosmic-ray's rewriting, the guarding
tests chosen by line coverage, forked children, both the code-swap and the fresh-import path),
must be killed, and a declared equivalent must come back as such (the runner does not call
everything killed). The full run is a benchmark: ``benchmarks/mutation.py --all``."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KILLED = [
    # the recursion itself (the kernel against its exact twin)
    "workbench/kernels/erlang.py | erlang_b_kernel | ReplaceBinaryOperator_Mul_Add | "
    "b = load * b / (k + load * b) -> b = load + b / (k + load * b)",
    "workbench/kernels/erlang.py | erlang_b_kernel | ZeroIterationForLoop | "
    "for k in range(1, servers + 1): -> for k in []:",
    # killed only by tests/test_mut_erlang.py (table kernel, vectorised bound, P-K)
    "workbench/kernels/erlang.py | erlang_b_table_kernel | NumberReplacer | b = 1.0 -> b = 2.0",
    "workbench/erlang.py | erlang_b_many | ReplaceComparisonOperator_Lt_NotEq | "
    "or s.min() < 1 -> or s.min() != 1",
    "workbench/erlang.py | pollaczek_khinchine | ReplaceBinaryOperator_Mul_Div | "
    "rho = lam * mean_service -> rho = lam / mean_service",
    # validation
    'workbench/erlang.py | erlang_b | NumberReplacer | servers = check_int(servers, "servers", '
    '"erlang_b", 1, MAX_SERVERS) -> servers = check_int(servers, "servers", "erlang_b", 0, '
    "MAX_SERVERS)",
    # a module constant: runs at import, so the child imports the mutated files afresh
    "workbench/erlang.py | <module> | NumberReplacer | MAX_SERVERS = 10**8 -> MAX_SERVERS = 10** 7",
]
EQUIVALENT = (
    "workbench/kernels/erlang.py | erlang_b_many_kernel | NumberReplacer | "
    "for i in range(loads.shape[0]): -> for i in range(loads.shape[ -1]):"
)


def test_sampled_mutants_are_killed_and_the_equivalent_one_survives():
    args = [sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "erlang", "--json"]
    for key in [*KILLED, EQUIVALENT]:
        args += ["--key", key]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    outcomes = json.loads(run.stdout.strip().splitlines()[-2])
    got = {o["key"]: o["outcome"] for o in outcomes}
    assert set(got) == {*KILLED, EQUIVALENT}, "a sampled key matches no mutant any more"
    assert {k: got[k] for k in KILLED} == dict.fromkeys(KILLED, "killed")
    assert got[EQUIVALENT] == "equivalent"


def test_a_target_runs_on_compiled_kernels_only_when_it_compiles_nothing_itself(monkeypatch):
    """``jit = true`` (a simulation module's tests on compiled kernels) is refused for sources
    with ``@njit`` code, whose mutants the compiled kernel would hide, and for a non-bool."""
    import importlib.util

    import pytest

    spec = importlib.util.spec_from_file_location("mutation", ROOT / "benchmarks" / "mutation.py")
    mutation = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutation", mutation)  # its dataclasses look it up
    spec.loader.exec_module(mutation)
    simulation = {"sources": ["workbench/redundancy/simulation.py"]}
    assert mutation._jit_flag("s", {**simulation, "jit": True}) is True
    assert mutation._jit_flag("s", simulation) is False
    with pytest.raises(ValueError, match=r"kernels/erlang.py.*@njit"):
        mutation._jit_flag("k", {"sources": ["workbench/kernels/erlang.py"], "jit": True})
    with pytest.raises(ValueError, match="jit must be true or false"):
        mutation._jit_flag("s", {**simulation, "jit": "yes"})
    assert mutation.load_targets()["redundancy_simulation"].jit
