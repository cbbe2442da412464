"""The mutation machinery keeps working: a few fixed mutants of the erlang target, run through
``benchmarks/mutation.py`` exactly as the full run does (cosmic-ray's rewriting, the guarding
tests chosen by line coverage, forked children, both the code-swap and the fresh-import path),
must be killed, and a declared equivalent must come back as such (the runner does not call
everything killed). The full run is a benchmark: ``benchmarks/mutation.py --all``."""

import importlib.util
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.fixture
def mutation(monkeypatch):
    """``benchmarks/mutation.py`` as a module."""
    spec = importlib.util.spec_from_file_location("mutation", ROOT / "benchmarks" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutation", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_a_target_runs_on_compiled_kernels_only_when_it_compiles_nothing_itself(mutation):
    """``jit = true`` (a simulation module's tests on compiled kernels) is refused for sources
    with ``@njit`` code, whose mutants the compiled kernel would hide, and for a non-bool."""
    simulation = {"sources": ["workbench/redundancy/simulation.py"]}
    assert mutation._jit_flag("s", {**simulation, "jit": True}) is True
    assert mutation._jit_flag("s", simulation) is False
    with pytest.raises(ValueError, match=r"kernels/erlang.py.*@njit"):
        mutation._jit_flag("k", {"sources": ["workbench/kernels/erlang.py"], "jit": True})
    with pytest.raises(ValueError, match="jit must be true or false"):
        mutation._jit_flag("s", {**simulation, "jit": "yes"})
    assert mutation.load_targets()["redundancy_simulation"].jit


def test_only_a_decorator_makes_a_source_compiled(mutation, tmp_path):
    """``@njit`` in a docstring or a comment is no compiled code; a decorator is, bare,
    called or reached through ``numba``."""
    said = tmp_path / "said.py"
    said.write_text(
        '"""Python over the ``@njit`` kernels."""\n\n\ndef f():  # not @njit\n    pass\n'
    )
    assert not mutation._compiles(said)
    for deco in ("@njit", "@njit(cache=True)", "@numba.njit(cache=True)", "@numba.jit"):
        src = tmp_path / "k.py"
        src.write_text(f"import numba\nfrom numba import njit\n\n\n{deco}\ndef f():\n    pass\n")
        assert mutation._compiles(src), deco


TOY_SOURCE = """\
def build():
    x = 1
    return x + 1


def other():
    return 5
"""
TOY_TESTS = """\
import pytest
import src_toy


@pytest.fixture(scope="module")
def shared():
    return src_toy.build()


def test_first(shared):
    assert shared == 2


def test_second(shared):
    assert shared == 2


class TestInClass:
    @pytest.fixture(scope="class")
    def once(self):
        return src_toy.other()

    def test_a(self, once):
        assert once == 5

    def test_b(self, once):
        assert once == 5


def test_alone():
    assert src_toy.other() == 5
"""


def test_a_wider_scoped_fixtures_lines_are_credited_to_every_test_using_it(
    mutation, tmp_path, monkeypatch
):
    """A module- or class-scoped fixture runs once, inside the first test that asks for it;
    the line recorder credits its lines to every test that uses it (a mutant there then
    runs them all), and to no other test."""
    (tmp_path / "src_toy.py").write_text(TOY_SOURCE)
    (tmp_path / "test_toy.py").write_text(TOY_TESTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the toy run needs none
    for name in ("src_toy", "test_toy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    recorder = mutation._LineRecorder({str(tmp_path / "src_toy.py"): "src_toy.py"})
    tracer = sys.gettrace()
    try:
        args = [str(tmp_path / "test_toy.py"), "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        args += ["-o", "addopts=", "--rootdir", str(tmp_path), "-p", "no:randomly"]
        code = pytest.main(args, plugins=[recorder])
    finally:
        sys.settrace(tracer)
    assert code == 0
    recorder.dump(tmp_path / "lines.json")  # what the runner reads
    lines = json.loads((tmp_path / "lines.json").read_text())
    build, other = {("src_toy.py", 2), ("src_toy.py", 3)}, {("src_toy.py", 7)}

    def credited(test):
        return {tuple(x) for x in lines.get(f"test_toy.py::{test}", [])}

    assert build <= credited("test_first") and build <= credited("test_second")
    assert other <= credited("TestInClass::test_a") and other <= credited("TestInClass::test_b")
    assert not build & credited("test_alone") and other <= credited("test_alone")
    assert not other & credited("test_first") and not build & credited("TestInClass::test_b")


def test_a_test_module_that_does_not_import_kills_the_mutant(mutation, tmp_path):
    """pytest, given node ids of a module that fails to import, reports the collection
    error and then exits 4 (no collector): the mutant broke the import, a kill; exit 4
    without a collection error is the runner's own mapping gone wrong."""
    (tmp_path / "broken.py").write_text("def f(*, a):\n    pass\n\n\nraise ImportError('x')\n")
    (tmp_path / "test_broken.py").write_text("import broken\n\n\ndef test_a():\n    pass\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
        + ["-o", "addopts=", "--rootdir", str(tmp_path), "test_broken.py::test_a"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    assert run.returncode == 4
    assert mutation._outcome(4, run.stdout + run.stderr)[0] == "killed"
    assert mutation._outcome(4, "ERROR: found no collectors for t.py::x")[0] == "error"
    assert mutation._outcome(5, "no tests ran")[0] == "error"
    assert mutation._outcome(0, "1 passed")[0] == "survived"


def _wilson(k, n, z=1.959963984540054):
    """Wilson's score interval by its textbook formula, in percent."""
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return 100 * (centre - half), 100 * (centre + half)


def test_wilson_interval_is_the_textbook_one(mutation):
    for k, n in ((148, 187), (3, 3), (0, 10), (186, 195)):
        low, high = mutation.wilson_pct(k, n)
        want = _wilson(k, n)
        assert (low, high) == pytest.approx(want, abs=0.051)


def _stored_toy_run(
    mutation, monkeypatch, tmp_path, stored, current, work, *, sample=None, equivalents=None
):
    """A stored "after" run of a toy target (``stored``) in ``tmp_path/mutation``, and the
    runner patched to list ``current`` as the target's mutants and to run them through
    ``work`` in place of its forked workers. Returns the folder and the stored run's head."""
    here = tmp_path / "mutation"
    here.mkdir()
    head = {"target": "toy", "variant": "after", "tests": ["tests/test_mutation_sample.py"]}
    head |= {"baseline_s": 1.0, "timeout_s": 30.0, "seconds": 100}
    if sample is not None:
        head["sample"] = sample
    (here / "toy.after.json").write_text(json.dumps(head | {"mutants": stored}))
    target = mutation.Target(name="toy", sources=["toy.py"], tests=[head["tests"][0]])
    base = {"seconds": {}, "lines": {"<import>": []}, "untraced_s": 1.0, "traced_s": 1.0}
    monkeypatch.setattr(mutation, "HERE", here)
    monkeypatch.setattr(mutation, "load_targets", lambda: {"toy": target})
    monkeypatch.setattr(mutation, "load_equivalents", lambda *a: dict(equivalents or {}))
    monkeypatch.setattr(mutation, "_prepare_parent", lambda jit: None)
    monkeypatch.setattr(mutation, "baseline", lambda *a, **k: base | {"startup_s": 0.0})
    listed = [
        mutation.Mutant("toy.py", "f", "Op", 0, i + 1, "a", "b", key=k)
        for i, k in enumerate(current)
    ]
    monkeypatch.setattr(mutation, "enumerate_mutants", lambda _t: listed)
    monkeypatch.setattr(mutation, "_scratch_copy", lambda: Path(mutation.tempfile.mkdtemp()))
    monkeypatch.setattr(mutation, "_work", work)
    return here, head


def test_a_removed_declaration_makes_a_stored_equivalent_a_survivor_to_rerun(mutation):
    """A recheck reruns what the stored run did not kill as the equivalents file is now: a
    survivor declared since is carried as equivalent, and a mutant stored as equivalent
    whose declaration was removed (a test kills it) is rerun, not reported unrun; a killed
    mutant stays killed whatever the file declares."""
    stored = [
        {"key": "k", "outcome": "killed"},
        {"key": "s", "outcome": "survived"},
        {"key": "declared since", "outcome": "survived"},
        {"key": "still declared", "outcome": "equivalent"},
        {"key": "removed since", "outcome": "equivalent"},
    ]
    now = {"declared since": "why", "still declared": "why", "k": "a wrong declaration"}
    got = {m["key"]: m["outcome"] for m in mutation.as_declared(stored, now)}
    assert got == {
        "k": "killed",
        "s": "survived",
        "declared since": "equivalent",
        "still declared": "equivalent",
        "removed since": "survived",
    }
    current = [mutation.Mutant("t.py", "f", "Op", 0, 1, "a", "b", key=m["key"]) for m in stored]
    rerun, carried = mutation.rerun_plan(
        mutation.as_declared(stored, now), ("killed", "timeout", "equivalent"), current
    )
    assert rerun == {"s", "removed since"}
    assert sorted(m["key"] for m in carried) == ["declared since", "k", "still declared"]


def test_a_sampled_recheck_keeps_every_stored_survivor(mutation, tmp_path, monkeypatch):
    """``--recheck --sample 3 --seed 1`` after a line was added at the top of the source
    (every position moves by one): drawing the sample again by position would miss two of
    the stored survivors. They are all rerun by key; one whose line changed (no mutant has
    its key now) is kept as it was stored. The summary's ``seconds`` is the work behind the
    outcomes (each mutant's own seconds, the carried ones from the run that measured them),
    not the recheck's wall time, and the sample's score carries its Wilson 95 % interval."""
    keys = [f"toy.py | f | Op | a{i} -> b{i}" for i in range(6)]
    before_positions = sorted(random.Random(1).sample(range(6), 3))
    stored_keys = [keys[i] for i in before_positions]
    current = ["toy.py | f | Op | new -> line", *keys]  # a line added: positions + 1
    redrawn = {current[i] for i in random.Random(1).sample(range(7), 3)}
    assert len(set(stored_keys[1:]) - redrawn) == 2, "the case must plant the lost survivors"
    gone = "toy.py | g | Op | old -> gone"
    stored = [
        {"key": stored_keys[0], "line": 1, "outcome": "killed", "seconds": 7.0},
        {"key": stored_keys[1], "line": 2, "outcome": "survived", "seconds": 20.0},
        {"key": stored_keys[2], "line": 5, "outcome": "survived", "seconds": 20.0},
        {"key": gone, "line": 9, "outcome": "survived", "seconds": 30.0, "detail": "exit 0"},
    ]

    def work(scratch, target, share, *args, **kw):
        for m in share:
            m.outcome, m.seconds = ("killed", 2.0) if m.key == stored_keys[1] else ("survived", 3.0)
        return share

    sample = {"n": 4, "of": 7, "seed": 1}
    here, head = _stored_toy_run(
        mutation, monkeypatch, tmp_path, stored, current, work, sample=sample
    )
    assert mutation.main(["toy", "--recheck", "--sample", "3", "--seed", "1"]) == 0
    after = json.loads((here / "toy.after.json").read_text())
    outcomes = {m["key"]: m["outcome"] for m in after["mutants"]}
    assert outcomes == {
        stored_keys[0]: "killed",
        stored_keys[1]: "killed",
        stored_keys[2]: "survived",
        gone: "survived",
    }
    assert after["sample"] == head["sample"]
    [row] = list(mutation.csv.DictReader((here / "summary.csv").open()))
    assert (row["mutants"], row["killed"], row["survived"]) == ("4", "2", "2")
    assert row["seconds"] == str(7 + 2 + 3 + 30)
    assert int(row["seconds_last_run"]) < 60
    low, high = _wilson(2, 4)
    assert float(row["score_low_pct"]) == pytest.approx(low, abs=0.051)
    assert float(row["score_high_pct"]) == pytest.approx(high, abs=0.051)
    report = (here / "toy.md").read_text()
    assert f"[{row['score_low_pct']} %, {row['score_high_pct']} %]" in report
    (here / "summary.csv").unlink()
    assert mutation.main(["--summary"]) == 0
    assert list(mutation.csv.DictReader((here / "summary.csv").open())) == [row]


# a child process that loads the runner from argv[1] and works in the scratch copy argv[2]
RUNNER_CHILD = """\
import importlib.util
import json
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("mutation", sys.argv[1])
mutation = importlib.util.module_from_spec(spec)
sys.modules["mutation"] = mutation
spec.loader.exec_module(mutation)
scratch = Path(sys.argv[2])
mutation.ROOT = scratch
"""
JIT_TOY_KERNEL = """\
from numba import njit


@njit(cache=True)
def double(x):
    return 2.0 * x
"""
JIT_TOY_SOURCE = """\
from toykern import double


def f(x):
    return double(x) + 0.0
"""
JIT_TOY_TEST = """\
import src_toy
import toykern


def test_f():
    value = src_toy.f(2.0)
    with open("kernel_origin.txt", "a") as out:
        out.write("cache\\n" if toykern.double.stats.cache_hits else "compiled\\n")
    assert value == 4.0
"""
JIT_TOY_RUN = (
    RUNNER_CHILD
    + """\
target = mutation.Target("toy", ["src_toy.py"], ["test_toy.py"], jit=True)
[mutant] = [m for m in mutation._enumerate(target) if m.after.endswith("+ 1.0")]
lines = {"<import>": set(), "test_toy.py::test_f": {("src_toy.py", 5)}}
seconds = {"test_toy.py::test_f": 0.5}
done = mutation._work(scratch, target, [mutant], ["test_toy.py"], lines, seconds, 0.5, False, 1)
print(json.dumps([m.outcome for m in done]))
"""
)


def test_a_jit_targets_first_mutant_finds_its_kernels_compiled(tmp_path):
    """A ``jit = true`` worker's scratch copy starts with an empty numba cache: its first
    mutant would pay every compile against its timeout (minutes for the arena's engine) and
    could be counted killed by a timeout. The worker compiles the kernels first, untimed, so
    the first mutant's tests load them from the cache."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "toykern.py").write_text(JIT_TOY_KERNEL)
    (scratch / "src_toy.py").write_text(JIT_TOY_SOURCE)
    (scratch / "test_toy.py").write_text(JIT_TOY_TEST)
    (tmp_path / "run.py").write_text(JIT_TOY_RUN)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "NUMBA_DISABLE_JIT": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    run = subprocess.run(
        [sys.executable, str(tmp_path / "run.py"), str(ROOT / "benchmarks" / "mutation.py")]
        + [str(scratch)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == ["killed"]
    origins = (scratch / "kernel_origin.txt").read_text().split()
    assert origins == ["compiled", "cache"], origins


UNREACHED_SOURCE = """\
def f(x):
    return x + 1.0


def g(x, y):
    return x < -y
"""
UNREACHED_TEST = """\
import src_toy


def test_f():
    assert src_toy.f(2.0) == 3.0
"""
UNREACHED_RUN = (
    RUNNER_CHILD
    + """\
target = mutation.Target("toy", ["src_toy.py"], ["test_toy.py"])
mutants = [m for m in mutation._enumerate(target) if m.line == 6]
lines = {
    "<import>": {("src_toy.py", 1), ("src_toy.py", 5)},
    "test_toy.py::test_f": {("src_toy.py", 2)},
}
seconds = {"test_toy.py::test_f": 0.1}
done = mutation._work(scratch, target, mutants, ["test_toy.py"], lines, seconds, 0.1, False, 9)
print(json.dumps({m.after.strip(): m.outcome for m in done}))
"""
)


def test_a_mutant_that_does_not_compile_is_incompetent_even_where_no_test_runs(tmp_path):
    """A mutant is first compiled, then tested: ``x < not y`` is no program, so it is
    incompetent (left out of the score) also on a line no test runs, not a survivor. The
    other mutants of that line survive: no test runs them."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "src_toy.py").write_text(UNREACHED_SOURCE)
    (scratch / "test_toy.py").write_text(UNREACHED_TEST)
    (tmp_path / "run.py").write_text(UNREACHED_RUN)
    run = subprocess.run(
        [sys.executable, str(tmp_path / "run.py"), str(ROOT / "benchmarks" / "mutation.py")]
        + [str(scratch)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got.pop("return x < not y") == "incompetent"
    assert len(got) >= 5 and set(got.values()) == {"survived"}, got


def test_extend_widens_a_stored_sample_running_only_the_new_and_the_survivors(
    mutation, tmp_path, monkeypatch
):
    """``--extend --sample 6 --seed 2`` on a stored sample of 3 (a kill, a survivor and one
    declared equivalent since) draws 3 of the 5 others with ``random.Random(2).sample``,
    runs them and the survivor, carries the kill and the equivalent, and reports a sample
    of 6 that says how it was drawn. The newly drawn ones (one of them survives) are the
    held-out estimate, kept with the outcomes they had when drawn: a test written since does
    not raise it, a declared equivalent leaves it. A full stored run or a size the target
    cannot give is refused by name."""
    keys = [f"toy.py | f | Op | a{i} -> b{i}" for i in range(8)]
    killed, survivor, equivalent = keys[1], keys[4], keys[6]
    stored = [
        {"key": killed, "line": 2, "outcome": "killed", "seconds": 5.0},
        {"key": survivor, "line": 5, "outcome": "survived", "seconds": 9.0},
        {"key": equivalent, "line": 7, "outcome": "survived", "seconds": 9.0},
    ]
    log = tmp_path / "ran.txt"  # the workers are forked: they tell what they ran here
    others = [k for k in keys if k not in (killed, survivor, equivalent)]
    new = set(random.Random(2).sample(others, 3))
    lives = min(new)  # the one newly drawn mutant no test kills

    def work(scratch, target, share, *args, **kw):
        with log.open("a") as out:
            for m in share:
                out.write(m.key + "\n")
                m.outcome, m.seconds = ("survived" if m.key == lives else "killed"), 1.0
        return share

    sample, same = {"n": 3, "of": 8, "seed": 1}, {equivalent: "same thing"}
    here, _ = _stored_toy_run(
        mutation, monkeypatch, tmp_path, stored, keys, work, sample=sample, equivalents=same
    )
    assert mutation.main(["toy", "--extend", "--sample", "6", "--seed", "2"]) == 0
    assert sorted(log.read_text().splitlines()) == sorted(new | {survivor})
    after = json.loads((here / "toy.after.json").read_text())
    outcomes = {m["key"]: m["outcome"] for m in after["mutants"]}
    assert outcomes == {killed: "killed", equivalent: "equivalent", lives: "survived"} | (
        dict.fromkeys((new - {lives}) | {survivor}, "killed")
    )
    held_out = {k: ("survived" if k == lives else "killed") for k in new}
    assert after["sample"] == {
        "n": 6,
        "of": 8,
        "seed": 1,
        "extended": [{"from": 3, "seed": 2, "held_out": held_out}],
    }
    [row] = list(mutation.csv.DictReader((here / "summary.csv").open()))
    assert (row["mutants"], row["killed"], row["equivalent"]) == ("6", "4", "1")
    # 2 of the 3 held out killed: Wilson's 95 % interval of 2/3 is [20.8 %, 93.9 %]
    held = (row["held_out_n"], row["held_out_score_pct"], row["held_out_low_pct"])
    assert held + (row["held_out_high_pct"],) == ("3", "66.7", "20.8", "93.9")
    report = (here / "toy.md").read_text()
    assert "`--extend --sample 6`" in report and "ran 3 newly drawn" in report
    assert "**Held out:** the 3 mutants" in report and "of the 5 not drawn before" in report
    # a test written for the held-out survivor since: the sample's score rises, not the estimate
    stored_after = json.loads((here / "toy.after.json").read_text())
    for m in stored_after["mutants"]:
        m["outcome"] = "killed" if m["key"] == lives else m["outcome"]
    (here / "toy.after.json").write_text(json.dumps(stored_after))
    assert mutation.main(["toy", "--report"]) == 0
    [row] = list(mutation.csv.DictReader((here / "summary.csv").open()))
    assert (row["score_pct"], row["held_out_score_pct"]) == ("100.0", "66.7")
    # declared equivalent since: it leaves the held-out count
    monkeypatch.setattr(
        mutation, "load_equivalents", lambda *a: dict.fromkeys((equivalent, lives), "same")
    )
    (here / "toy.after.json").write_text(json.dumps(after))
    assert mutation.main(["toy", "--report"]) == 0
    [row] = list(mutation.csv.DictReader((here / "summary.csv").open()))
    assert (row["held_out_n"], row["held_out_score_pct"]) == ("3", "100.0")
    with pytest.raises(SystemExit, match="the stored sample has 6 mutants and 2 others"):
        mutation.main(["toy", "--extend", "--sample", "9", "--seed", "3"])
    (here / "toy.after.json").write_text(json.dumps(after | {"sample": None}))
    with pytest.raises(SystemExit, match="needs a stored sample"):
        mutation.main(["toy", "--extend", "--sample", "7", "--seed", "3"])


def test_a_full_runs_recheck_runs_the_mutants_of_lines_changed_since(
    mutation, tmp_path, monkeypatch
):
    """A full stored run whose source changed since (one line rewritten): ``--recheck``
    reruns its survivor, runs the new line's mutants for the first time and drops the old
    line's (a survivor among them too), so the report covers the source as it is."""
    kept, old = ["t.py | f | Op | a -> b", "t.py | f | Op | c -> d"], "t.py | g | Op | old -> x"
    old_kill = "t.py | g | Op | old -> y"
    new = ["t.py | g | Op | new -> x", "t.py | g | Op | new -> y"]
    stored = [
        {"key": kept[0], "line": 1, "outcome": "killed", "seconds": 1.0},
        {"key": kept[1], "line": 2, "outcome": "survived", "seconds": 9.0},
        {"key": old, "line": 3, "outcome": "survived", "seconds": 9.0},
        {"key": old_kill, "line": 3, "outcome": "killed", "seconds": 1.0},
    ]
    log = tmp_path / "ran.txt"

    def work(scratch, target, share, *args, **kw):
        with log.open("a") as out:
            for m in share:
                out.write(m.key + "\n")
                m.outcome, m.seconds = ("survived" if m.key == new[1] else "killed"), 1.0
        return share

    here, _ = _stored_toy_run(mutation, monkeypatch, tmp_path, stored, kept + new, work)
    assert mutation.main(["toy", "--recheck"]) == 0
    assert sorted(log.read_text().splitlines()) == sorted([kept[1], *new])
    after = json.loads((here / "toy.after.json").read_text())
    outcomes = {m["key"]: m["outcome"] for m in after["mutants"]}
    assert outcomes == {kept[0]: "killed", kept[1]: "killed", new[0]: "killed", new[1]: "survived"}
    assert after["lines_changed"] == {"new": 2, "gone": 2}
    report = (here / "toy.md").read_text()
    assert "ran the 2 mutants of the changed lines for the first time" in report


def test_a_line_no_test_was_seen_to_run_runs_every_test_when_compiled(mutation):
    """Without the JIT a line no guarding test runs is a survivor at once ([]). In a
    ``jit = true`` target the tracer cannot see a function numba compiles at run time (the
    arena's adapter of a user policy): such a line runs every guarding test, fastest first,
    rather than survive unseen. A traced line keeps only its own tests."""
    lines = {
        "<import>": {("s.py", 1)},
        "t.py::slow": {("s.py", 5)},
        "t.py::fast": {("s.py", 5), ("s.py", 6)},
    }
    seconds = {"t.py::slow": 2.0, "t.py::fast": 0.5}
    unseen = mutation.Mutant("s.py", "f", "Op", 0, 9, "a", "b", end_line=9, stmt_line=9)
    seen = mutation.Mutant("s.py", "f", "Op", 0, 6, "a", "b", end_line=6, stmt_line=6)
    assert mutation._select(unseen, lines, seconds) == []
    assert mutation._select(unseen, lines, seconds, jit=True) == ["t.py::fast", "t.py::slow"]
    assert mutation._select(seen, lines, seconds, jit=True) == ["t.py::fast"]


def test_a_repository_edited_during_the_baseline_stops_the_run(mutation, tmp_path, monkeypatch):
    """A run's baseline (the lines each test runs, its times) and its mutants are read from
    the repository before the workers copy it, minutes or hours later: an edit in between
    would pair a baseline with another source. The run stops and says so."""
    for folder in ("workbench", "tests", "data"):
        (tmp_path / folder).mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "workbench" / "toy.py").write_text("x = 1\n")
    (tmp_path / "tests" / "test_toy.py").write_text("def test_x():\n    pass\n")
    target = mutation.Target(name="toy", sources=["workbench/toy.py"], tests=["tests/test_toy.py"])
    base = {"seconds": {}, "lines": {"<import>": []}, "untraced_s": 1.0, "traced_s": 1.0}

    def edited(*args, **kw):
        (tmp_path / "workbench" / "toy.py").write_text("x = 2\n")
        return base | {"startup_s": 0.0}

    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "enumerate_mutants", lambda _t: [])
    monkeypatch.setattr(mutation, "baseline", lambda *a, **k: base | {"startup_s": 0.0})
    assert mutation.run_target(target, {}, before=False, verbose=False)["tests"] == target.tests
    monkeypatch.setattr(mutation, "baseline", edited)
    with pytest.raises(SystemExit, match="the repository changed while the baseline ran"):
        mutation.run_target(target, {}, before=False, verbose=False)
