"""Mutation testing of the workbench: how many one-token changes does the suite notice?

One command writes a report per target (``benchmarks/mutation/<target>.md``) and one row per
target in ``benchmarks/mutation/summary.csv``::

    nice -n 10 .venv/bin/python benchmarks/mutation.py erlang red   # or --all
    nice -n 10 .venv/bin/python benchmarks/mutation.py erlang --before   # the suite without
                                                  # the tests/test_mut_*.py files written for it
    nice -n 15 .venv/bin/python benchmarks/mutation.py events --sample 300 --seed 1
                                                  # a seeded random sample, reported as one

Mutants are cosmic-ray's (its operators and its parso-based rewriting: an arithmetic,
comparison, boolean or unary operator replaced, a number moved by one, a loop run zero
times, an exception type swapped, ``break``/``continue`` swapped). Operators that only
produce crashes on floats (``*`` -> ``|``, ``<<``, ...) and the removal of decorators (on
``@njit`` it is equivalent by design: the kernel is the same Python code) are left out: they
would raise the score without testing anything.

Each mutant runs in a scratch copy of the repository, with only the tests that guard its
target (``benchmarks/mutation/targets.toml``) and execute the mutated line, under a timeout,
and with
``NUMBA_DISABLE_JIT=1``: a mutated kernel would otherwise be recompiled for every mutant
(seconds each, and numba's cache index keys a source file by its time stamp and size, which a
one-token change can leave equal), while the kernels' tests run in milliseconds as Python. A
parent process imports numpy, scipy, pandas, numba, pytest and hypothesis once and forks one
child per mutant, which imports the (mutated) workbench and runs pytest; cosmic-ray's own
runner starts a fresh interpreter per mutant, about 6 s more each on this machine.

A target whose sources compile nothing themselves (a simulation module: Python over the
kernels) may say ``jit = true``: its tests then run on the compiled kernels, each compiled
once per worker into the scratch copy's numba cache, by an untimed run of the unmutated tests
before the first mutant (no mutant pays a compile against its timeout), so statistical tests
that take minutes as Python take seconds. A target with ``@njit`` code of its own is
refused ``jit = true``.

Which test executes which line comes from a baseline run of the unmutated tests under a line
tracer (the lines a class-, module- or session-scoped fixture runs, once, are credited to
every test that uses it, not only to the first); a second, untraced baseline run times each
test. A mutant's tests then run fastest
first and stop at the first failure (``-x``), so a killed mutant usually costs its fastest
guarding test. Each test a mutant runs has its own limit, the target's ``timeout`` (a floor,
default 30 s) plus ``timeout_factor`` (default 5) times the test's untraced seconds, and the
whole run the same over all its tests and the session's start-up: an infinite loop ends in
seconds, not after a multiple of the (traced) baseline. ``--compare-order`` measures this
against the former order and timeout on the same mutants, interleaved. Both baseline runs
are stored per test file under a digest of what they read (``$WORKBENCH_CACHE/mutation``;
``--fresh-baseline`` runs them again). The worker freezes what it imported out of the
garbage collector before forking (pytest collects twice per session).

A mutant is *killed* when the tests fail, error at collection or exceed the timeout; it
*survives* when they pass. A surviving mutant that no test can kill because the program means
the same thing is declared *equivalent* in ``benchmarks/mutation/equivalents.toml``, reviewed
by hand, with its reason. Its key names the file, the enclosing function, the operator and the
line before and after the change, so it survives line moves; a key that matches no mutant any
more is reported as stale. A mutant that does not compile is *incompetent* and left out.
The score is killed / (mutants - equivalent - incompetent).

``--sample N --seed S`` scores a seeded sample: the report and ``summary.csv`` give the
sample's score and its Wilson 95 % interval for the whole target (``score_low_pct``,
``score_high_pct``). ``--recheck`` (``--survivors``) reruns what the stored run did not kill,
chosen by key (a sample is not drawn again: a line added since moves every position); in a
sample a stored survivor whose key no mutant has any more is kept as stored, while a full
run runs the mutants of the lines changed since and drops their old ones. ``--extend --sample N
--seed S`` widens the stored sample to N mutants: ``random.Random(S).sample`` of the mutants
not in it are added (a uniform sample, then a uniform sample of the rest, is a uniform sample
of the union), and only they and the stored survivors run; the newly drawn ones, scored
before any test is written for them, are the held-out estimate of the mutants not yet drawn
(``held_out_*``), which the sample's own score is not. ``seconds`` in the
summary is the work behind the outcomes: each mutant's own seconds, from whichever run
measured it, summed, parallel jobs adding up (``seconds_last_run``: the last wall time, baselines
included). ``--summary`` rewrites ``summary.csv`` and every report from the stored
``<target>.{before,after}.json`` runs (after merging runs made on other branches).

Hypothesis runs derandomised, without its example database (a run is reproducible) and
without shrinking (a falsifying example is enough to kill a mutant).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pytest import hookimpl as pytest_hookimpl

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks" / "mutation"
TARGETS = HERE / "targets.toml"
EQUIVALENTS = HERE / "equivalents.toml"

# cosmic-ray operators (by the part of the name after "core/") left out of every run
SKIPPED_OPERATORS = ("RemoveDecorator",)
# binary-operator replacements into bitwise or shift operators: a float operand raises a
# TypeError at once, so every such mutant of numeric code is killed by any call
SKIPPED_REPLACEMENTS = ("BitOr", "BitAnd", "BitXor", "LShift", "RShift")

# the first call of a test session pays for these imports; the parent pays once
_PRELOAD = ("numpy", "scipy", "scipy.stats", "scipy.special", "pandas", "numba", "pytest")
_PRELOAD_OPTIONAL = ("hypothesis", "networkx", "sklearn", "matplotlib", "pydantic", "yaml")


@dataclass
class Mutant:
    path: str  # relative to the repository root
    function: str
    operator: str
    occurrence: int
    line: int
    before: str
    after: str
    end_line: int = 0  # the mutated node spans lines line..end_line
    stmt_line: int = 0  # first line of the statement (or compound header) holding the node
    key: str = ""
    outcome: str = ""  # killed | survived | timeout | error | equivalent-killed
    detail: str = ""
    seconds: float = 0.0
    reason: str = ""  # for equivalents
    index: int = 0  # position in the target's full list of mutants
    other: dict = field(default_factory=dict)  # --compare-order: the run in file order


@dataclass
class Target:
    name: str
    sources: list[str]
    tests: list[str]
    timeout: float = 30.0  # floor of a mutant's timeout, in seconds
    timeout_factor: float = 5.0  # x the untraced seconds of the tests a mutant runs
    note: str = ""
    jit: bool = False  # the kernels compiled (a target with no compiled code of its own)
    mutants: list[Mutant] = field(default_factory=list)


def load_targets(path: Path = TARGETS) -> dict[str, Target]:
    data = tomllib.loads(path.read_text())
    return {
        name: Target(
            name=name,
            sources=list(cfg["sources"]),
            tests=list(cfg["tests"]),
            timeout=float(cfg.get("timeout", 30.0)),
            timeout_factor=float(cfg.get("timeout_factor", 5.0)),
            note=cfg.get("note", ""),
            jit=_jit_flag(name, cfg),
        )
        for name, cfg in data.items()
    }


def _jit_flag(name: str, cfg: dict) -> bool:
    """A target's ``jit``: true runs its tests on compiled kernels, for Python code over them
    (a simulation module); refused for a target whose sources compile code themselves, whose
    mutants the compiled code would hide."""
    jit = cfg.get("jit", False)
    if not isinstance(jit, bool):
        raise ValueError(f"targets.toml [{name}]: jit must be true or false; got {jit!r}")
    if jit:
        compiled = [s for s in cfg["sources"] if _compiles(ROOT / s)]
        if compiled:
            raise ValueError(
                f"targets.toml [{name}]: jit = true, but {compiled} compile code with @njit "
                "(a mutant there would be hidden by the compiled kernel)"
            )
    return jit


def _compiles(path: Path) -> bool:
    """Whether a source decorates a function with numba's ``njit`` or ``jit`` (bare, called,
    or as ``numba.njit``): its words in a docstring or a comment do not count."""
    import ast

    def name(node) -> str:
        node = node.func if isinstance(node, ast.Call) else node
        return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")

    return any(
        name(d) in ("njit", "jit")
        for f in ast.walk(ast.parse(path.read_text()))
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for d in f.decorator_list
    )


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text())
    out = {}
    for item in data.get("equivalent", []):
        if item["key"] in out:
            raise SystemExit(f"{path}: the key {item['key']!r} is declared twice")
        if not item.get("reason", "").strip():
            raise SystemExit(f"{path}: the key {item['key']!r} has no reason")
        out[item["key"]] = item["reason"].strip()
    return out


def _operators():
    import cosmic_ray.plugins

    for name in cosmic_ray.plugins.operator_names():
        short = name.split("/", 1)[1]
        if short in SKIPPED_OPERATORS:
            continue
        if short.startswith("ReplaceBinaryOperator_") and short.split("_")[-1] in (
            SKIPPED_REPLACEMENTS
        ):
            continue
        cls = cosmic_ray.plugins.get_operator(name)
        if cls.arguments():  # parameterised operators (variable insertion): not configured
            continue
        yield name, cls()


def _changed_lines(original: str, mutated: str) -> tuple[int, str, str]:
    """First changed line (1-based) and the text before/after it, stripped."""
    a, b = original.splitlines(), mutated.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            before = " / ".join(x.strip() for x in a[i1:i2])
            after = " / ".join(x.strip() for x in b[j1:j2])
            return i1 + 1, before, after
    return 0, "", ""


def _statement_starts(source: str) -> dict[int, int]:
    """line -> first line of the innermost statement whose text covers it. For a compound
    statement (if, for, while, with, def, ...) only its header counts: the lines before its
    body."""
    import ast

    starts: dict[int, int] = {}

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                body = getattr(child, "body", None)
                last = child.end_lineno or child.lineno
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    last = max(child.lineno, body[0].lineno - 1)
                for ln in range(child.lineno, last + 1):
                    starts[ln] = child.lineno  # inner statements overwrite outer ones
            visit(child)

    visit(ast.parse(source))
    return starts


def _cache_dir() -> Path:
    """``$WORKBENCH_CACHE/mutation`` (default ``~/.cache/workbench/mutation``)."""
    base = os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench"
    return Path(base) / "mutation"


def enumerate_mutants(target: Target) -> list[Mutant]:
    """Every mutant of the target's source files, keyed so that a key survives line moves.
    cosmic-ray parses the module again for each mutant (minutes for a large one): the list is
    kept in :func:`_cache_dir` under a digest of the sources and the operators."""
    import hashlib
    from importlib.metadata import version

    digest = hashlib.sha256(
        json.dumps([version("cosmic-ray"), SKIPPED_OPERATORS, SKIPPED_REPLACEMENTS]).encode()
    )
    for rel in target.sources:
        digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    stored = _cache_dir() / f"mutants-{target.name}-{digest.hexdigest()[:20]}.json"
    if stored.exists():
        return [Mutant(**d) for d in json.loads(stored.read_text())]
    mutants = _enumerate(target)
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps([asdict(m) for m in mutants]))
    return mutants


def _enumerate(target: Target) -> list[Mutant]:
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.ast.ast_query import ASTQuery
    from cosmic_ray.mutating import mutate_code

    mutants = []
    for rel in target.sources:
        source = (ROOT / rel).read_text()
        module_ast = get_ast(source)
        starts = _statement_starts(source)
        for name, operator in _operators():
            positions = [
                (node, start, end)
                for node in ast_nodes(module_ast)
                for start, end in operator.mutation_positions(node)
            ]
            for occurrence, (node, start, end) in enumerate(positions):
                mutated = mutate_code(source, operator, occurrence)
                if mutated is None or mutated == source:
                    continue
                line, before, after = _changed_lines(source, mutated)
                if before.startswith("@"):  # decorator options (cache=True): not semantics
                    continue
                mutants.append(
                    Mutant(
                        path=rel,
                        function=ASTQuery(node).get_definition_name() or "<module>",
                        operator=name.split("/", 1)[1],
                        occurrence=occurrence,
                        line=start[0],
                        before=before,
                        after=after,
                        end_line=max(end[0], start[0], line),
                        stmt_line=starts.get(start[0], start[0]),
                    )
                )
    seen: dict[str, int] = {}
    for m in mutants:
        base = f"{m.path} | {m.function} | {m.operator} | {m.before} -> {m.after}"
        seen[base] = seen.get(base, 0) + 1
        m.key = base if seen[base] == 1 else f"{base} #{seen[base]}"
    mutants.sort(key=lambda m: (m.path, m.line, m.operator, m.occurrence))
    return mutants


def _scratch_copy() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="wb-mutation-"))
    skip = {".git", ".venv", ".numba_cache", "docs", ".hypothesis", "mutation"}
    ignore = shutil.ignore_patterns(*skip, "__pycache__", "*.pyc", "_build")
    for item in ROOT.iterdir():
        if item.name in skip:
            continue
        if item.is_dir():
            shutil.copytree(item, scratch / item.name, ignore=ignore)
        else:
            shutil.copy2(item, scratch / item.name)
    return scratch


def _prepare_parent(jit: bool = False) -> None:
    """Environment and imports shared by every forked child (the JIT off unless ``jit``)."""
    os.environ.update(
        {
            "NUMBA_DISABLE_JIT": "0" if jit else "1",
            "WORKBENCH_RESULTS_CACHE": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "MPLBACKEND": "agg",
        }
    )
    os.environ.pop("PYTHONPATH", None)
    sys.dont_write_bytecode = True
    # only a scratch copy may provide `workbench` (and the tests' helper modules)
    sys.path[:] = [
        p
        for p in sys.path
        if p and not (Path(p) / "workbench").is_dir() and Path(p).resolve() != ROOT / "tests"
    ]
    for name in list(sys.modules):
        if name == "workbench" or name.startswith("workbench."):
            del sys.modules[name]
    import importlib

    for name in _PRELOAD:
        importlib.import_module(name)
    for name in _PRELOAD_OPTIONAL:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    # pytest's entry-point plugins: their first import costs a second or two per child
    import contextlib
    import io

    import pytest

    with tempfile.TemporaryDirectory() as empty, contextlib.redirect_stdout(io.StringIO()):
        pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", empty])


class _LineRecorder:
    """pytest plugin: which lines of the target's files each test executes (the lines run
    outside any test, at import and collection, under ``<import>``).

    A fixture of a wider scope than the function (class, module, package, session) runs its
    setup once, inside the first test that asks for it, and hands its cached value to the
    others: its lines are recorded under the fixture and credited to every test that uses
    it (the test's ``fixturenames``), so a mutant there runs all of them, not only the
    first."""

    def __init__(self, files: dict[str, str]):
        self.files = files  # absolute path -> path relative to the scratch root
        self.current = "<import>"
        self.seen: dict[tuple[str, str], set] = {}  # (test, file) -> line numbers
        self.uses: dict[str, set] = {}  # test -> the wider-scoped fixtures it uses

    @staticmethod
    def _fixture_key(fixturedef) -> str:
        return f"<fixture {fixturedef.baseid}::{fixturedef.argname} #{id(fixturedef)}>"

    @pytest_hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function":
            yield
            return
        outer, self.current = self.current, self._fixture_key(fixturedef)
        try:
            yield
        finally:
            self.current = outer

    def _global(self, frame, event, arg):
        rel = self.files.get(frame.f_code.co_filename)
        if rel is None:
            return None
        add = self.seen.setdefault((self.current, rel), set()).add
        add(frame.f_lineno)

        def local(frame, event, arg):  # a closure: the cheapest trace function in Python
            add(frame.f_lineno)
            return local

        return local

    def pytest_configure(self, config):
        sys.settrace(self._global)

    def pytest_runtest_protocol(self, item, nextitem):
        self.current = item.nodeid
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        self.uses[item.nodeid] = {
            self._fixture_key(defs[name][-1])
            for name in getattr(item, "fixturenames", ())
            if defs.get(name) and defs[name][-1].scope != "function"
        }
        sys.settrace(self._global)  # a test may have replaced the trace function

    def pytest_runtest_logfinish(self, nodeid, location):
        self.current = "<import>"

    def lines(self) -> dict[str, list]:
        """test -> its (file, line) pairs, its wider-scoped fixtures' lines included."""
        fixtures: dict[str, set] = {}
        tests: dict[str, set] = {"<import>": set()}
        for (who, rel), seen in self.seen.items():
            into = fixtures if who.startswith("<fixture ") else tests
            into.setdefault(who, set()).update((rel, ln) for ln in seen)
        for test, keys in self.uses.items():
            for key in keys:
                tests.setdefault(test, set()).update(fixtures.get(key, ()))
        return {test: sorted(pairs) for test, pairs in tests.items()}

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps(self.lines()))


class _Timer:
    """pytest plugin: the seconds each test takes (setup, call and teardown), untraced."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps(self.seconds))


# a child's exit status when one test exceeded its own limit (an infinite loop, most often)
_TEST_TIMEOUT_EXIT = 98


class _Order:
    """pytest plugin: run only the tests ``select`` names, in its order (fastest first), each
    within its ``limits`` in seconds: a test that exceeds its limit ends the session at once
    (SIGALRM; with the JIT off a kernel's loop is Python code, which the signal interrupts)."""

    def __init__(self, select: list[str], limits: dict[str, float] | None = None):
        self.position = {nodeid: i for i, nodeid in enumerate(select)}
        self.limits = limits or {}

    @pytest_hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        limit = self.limits.get(item.nodeid)
        if limit is not None:

            def expire(signum, frame):
                print(f"\n{item.nodeid}: no result within {limit:.0f} s", flush=True)
                os._exit(_TEST_TIMEOUT_EXIT)

            signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            yield
        finally:
            if limit is not None:
                signal.setitimer(signal.ITIMER_REAL, 0.0)

    @pytest_hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        keep = sorted(
            (it for it in items if it.nodeid in self.position),
            key=lambda it: self.position[it.nodeid],
        )
        dropped = [it for it in items if it.nodeid not in self.position]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _enter(scratch: Path) -> None:
    """Make ``scratch`` the repository this process imports and runs tests from."""
    os.chdir(scratch)
    os.environ["NUMBA_CACHE_DIR"] = str(scratch / ".numba_cache")
    os.environ["WORKBENCH_CACHE"] = str(scratch / ".wbcache")
    if str(scratch) not in sys.path:
        sys.path[:0] = [str(scratch), str(scratch / "tests")]
    try:  # before any test module is imported: @settings copies the defaults it finds
        from hypothesis import Phase, settings

        # a falsifying example is enough: shrinking it only costs time per killed mutant
        phases = [Phase.explicit, Phase.reuse, Phase.generate]
        settings.register_profile("mutation", database=None, derandomize=True, phases=phases)
        settings.load_profile("mutation")
    except ImportError:
        pass


def _purge(scratch: Path) -> None:
    """Forget every module imported from ``scratch`` (the next import reads the disk)."""
    for name, mod in list(sys.modules.items()):
        if str(getattr(mod, "__file__", None) or "").startswith(str(scratch)):
            del sys.modules[name]


def _swap_code(old_mod, mutated: str, path: Path) -> bool:
    """Run the mutated source in a fresh namespace and move the code of its functions into
    the functions already imported (every reference to them, from any module, then runs the
    mutant). False when nothing changed that way (e.g. a module-level constant)."""
    import types

    ns = {
        "__name__": old_mod.__name__,
        "__file__": str(path),
        "__package__": old_mod.__package__,
        "__spec__": old_mod.__spec__,
        "__builtins__": __builtins__,
    }
    exec(compile(mutated, str(path), "exec"), ns)  # noqa: S102 -- the mutant itself
    changed = False

    def swap(old, new):
        nonlocal changed
        old = getattr(old, "__wrapped__", old)
        new = getattr(new, "__wrapped__", new)
        if isinstance(old, (staticmethod, classmethod)):
            old, new = old.__func__, getattr(new, "__func__", None)
        if not (isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType)):
            return
        if old.__code__ != new.__code__ or old.__defaults__ != new.__defaults__:
            changed = True
        old.__code__, old.__defaults__ = new.__code__, new.__defaults__
        old.__kwdefaults__ = new.__kwdefaults__

    for name, old in vars(old_mod).items():
        new = ns.get(name)
        if new is None or getattr(old, "__module__", None) != old_mod.__name__:
            continue
        if isinstance(old, type) and isinstance(new, type):
            for attr, value in vars(old).items():
                if attr in vars(new):
                    swap(value, vars(new)[attr])
        else:
            swap(old, new)
    return changed


def _run_child(
    scratch: Path,
    tests: list[str],
    log: Path,
    record: list[str] | None,
    patch=None,
    select: list[str] | None = None,
    limits: dict[str, float] | None = None,
) -> None:
    """In the forked child: run ``tests`` on the (mutated) scratch copy; never returns.
    ``patch`` (fast path) moves the mutant into the modules the worker imported; without it
    every module of the scratch copy is imported afresh from the (mutated) files.
    ``record`` (the baseline runs): the target's files, whose lines each test executes are
    written to ``.lines.json``; ``[]`` instead times each test, untraced, into
    ``.seconds.json``. ``select``: only these test ids, in this order, stopping at the first
    failure (a mutant's run), each within its ``limits`` (seconds)."""
    code = 99
    try:
        os.setsid()
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        _enter(scratch)
        swapped = False
        if patch is not None:
            try:
                swapped = patch()
            except Exception:  # noqa: BLE001 -- the mutant breaks at import: the slow path
                swapped = False
        if not swapped:
            _purge(scratch)
        import pytest

        plugins = []
        if record:
            recorder = _LineRecorder({str(scratch / r): r for r in record})
            plugins.append(recorder)
        elif record is not None:
            recorder = _Timer()
            plugins.append(recorder)
        if select is not None:
            plugins.append(_Order(select, limits))
        args = [*tests, "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        args += ["-o", "addopts=", "--no-header", "-W", "ignore::DeprecationWarning"]
        if record is None:
            args.append("-x")
        code = int(pytest.main(args, plugins=plugins))
        if record:
            sys.settrace(None)
            recorder.dump(scratch / ".lines.json")
        elif record is not None:
            recorder.dump(scratch / ".seconds.json")
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 -- any crash of the child is a kill, logged
        import traceback

        traceback.print_exc()
        code = 99
    os._exit(code)


def run_tests(
    scratch: Path,
    tests: list[str],
    timeout: float,
    record: list[str] | None = None,
    patch=None,
    select: list[str] | None = None,
    limits: dict[str, float] | None = None,
) -> tuple[str, str]:
    """(outcome, detail): 'survived' on exit 0, 'killed' on a failure or collection error,
    'timeout' after ``timeout`` seconds, 'error' when pytest found nothing to run."""
    log = scratch / ".mutant.log"
    pid = os.fork()
    if pid == 0:
        _run_child(scratch, tests, log, record, patch, select, limits)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout", f"no result within {timeout:.0f} s"
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    text = log.read_text(errors="replace") if log.exists() else ""
    return _outcome(code, text)


def _outcome(code: int, text: str) -> tuple[str, str]:
    """(outcome, detail) of a child's pytest exit ``code`` and log ``text``. A test module
    that does not import (the mutant broke an import or a signature the module runs at
    import) is a kill even when pytest, asked for node ids of that module, then finds no
    collector and exits 4; exit 4 or 5 without such an error means the test mapping is
    wrong."""
    tail = text.strip().splitlines()[-1:]
    detail = f"exit {code}: {tail[0][:160] if tail else ''}"
    if code == 0:
        return "survived", detail
    if code in (4, 5) and "ERROR collecting" not in text:
        return "error", detail
    if code == _TEST_TIMEOUT_EXIT:
        return "timeout", detail
    return "killed", detail


def _module_name(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _select(
    m: Mutant, lines: dict[str, list], seconds: dict[str, float], jit: bool = False
) -> list[str] | None:
    """The tests that execute a line of the mutated node or reach the statement holding it,
    fastest first (a killed mutant then stops early); None when the line runs at import (e.g.
    a module constant or a default argument): every test can see it. [] when no test runs
    it. The statement counts from its first line: a mutant of ``a or b`` written over two
    lines changes what runs when only ``a``'s line ran. ``jit`` (a target whose tests run
    compiled): a line no test was seen to run may be in a function numba compiles at run
    time (the arena's adapter of a user policy), which the tracer cannot see, so every test
    runs it."""
    first = min(m.stmt_line or m.line, m.line)
    span = {(m.path, ln) for ln in range(first, max(m.end_line, m.line) + 1)}
    if span & lines["<import>"]:
        return None
    hit = {nodeid for nodeid, seen in lines.items() if nodeid != "<import>" and span & seen}
    if not hit and jit:
        hit = set(seconds)
    return fastest_first(hit, seconds)


def fastest_first(nodeids, seconds: dict[str, float]) -> list[str]:
    """``nodeids`` by their untraced seconds in the baseline run, ties (and tests it did not
    time, last) in the order the baseline ran them."""
    position = {n: i for i, n in enumerate(seconds)}
    big = len(position)
    return sorted(nodeids, key=lambda n: (seconds.get(n, float("inf")), position.get(n, big), n))


def mutant_timeout(target: Target, selected: list[str], seconds: dict, startup: float) -> float:
    """The seconds a mutant's run may take before it counts as killed (an infinite loop):
    the target's floor plus its factor times what the selected tests and the session's
    start-up took in the untraced baseline run."""
    work = sum(seconds.get(n, 0.0) for n in selected) + startup
    return target.timeout + target.timeout_factor * work


def per_test_limits(target: Target, selected: list[str], seconds: dict) -> dict[str, float]:
    """Each selected test's own limit: the target's floor plus its factor times the test's
    untraced seconds. A mutant that loops forever in its first test ends within that."""
    return {n: target.timeout + target.timeout_factor * seconds.get(n, 0.0) for n in selected}


def _settle() -> None:
    """Before the worker forks its children: what every child would otherwise pay again.
    The objects imported so far are frozen out of the garbage collector (pytest collects
    twice at the end of each session: a second or more over numpy, scipy and pandas), and
    the ABC caches that ``pytest.approx`` fills on first use are warmed up."""
    import gc

    import numpy as np
    import pytest

    for x in (1.0, np.float64(1.0), np.arange(2.0), (1.0, 2.0), [1.0], {"a": 1.0}, 1):
        assert x == pytest.approx(x)
    gc.collect()
    gc.freeze()


def _warm(scratch: Path, target: Target, tests: list[str], seconds: dict, startup: float):
    """A ``jit = true`` target: compile its kernels into this copy's numba cache before the
    first mutant. A scratch copy starts with an empty cache, so the first mutant's tests
    would otherwise pay every compile (minutes for the arena's engine) against its timeout,
    and a surviving mutant could count as killed by timeout. The unmutated tests run once,
    untimed, in a child like a mutant's; every later child loads the kernels from the cache."""
    limit = max(900.0, 40.0 * (sum(seconds.values()) + startup))
    outcome, detail = run_tests(scratch, tests, limit)
    if outcome != "survived":
        raise SystemExit(
            f"{target.name}: warming the compiled kernels, the unmutated tests do not pass "
            f"({detail}):\n" + (scratch / ".mutant.log").read_text(errors="replace")[-3000:]
        )


def _work(
    scratch: Path,
    target: Target,
    mutants: list[Mutant],
    tests: list[str],
    lines: dict[str, set],
    seconds: dict[str, float],
    startup: float,
    verbose: bool,
    total: int,
    fast: bool = True,
    compare: float | None = None,
) -> list[Mutant]:
    import importlib

    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    originals = {rel: (scratch / rel).read_text() for rel in target.sources}
    # the fast path: the worker imports the target and its tests once; a child only swaps the
    # mutated functions' code in (the tests then collect from the imported modules)
    _enter(scratch)
    modules = {rel: importlib.import_module(_module_name(rel)) for rel in target.sources}
    for t in tests:
        importlib.import_module(Path(_file(t)).stem)
    if target.jit and mutants:
        _warm(scratch, target, tests, seconds, startup)
    _settle()
    everything = fastest_first(seconds, seconds)
    for m in mutants:
        t0 = time.monotonic()
        source = originals[m.path]
        operator = cosmic_ray.plugins.get_operator("core/" + m.operator)()
        path = scratch / m.path
        mutated = mutate_code(source, operator, m.occurrence)
        try:  # first: a mutant that does not compile is no program, tested or not
            compile(mutated, str(path), "exec")
        except SyntaxError as exc:  # e.g. `x < not 1`
            m.outcome, m.detail = "incompetent", f"does not compile: {exc.msg}"
            m.seconds = 0.0
            continue
        selected = _select(m, lines, seconds, target.jit)
        if selected == []:
            m.outcome, m.detail = "survived", "no guarding test executes this line"
        else:
            patch = None
            if fast and selected is not None:  # the line does not run at import

                def patch(mod=modules[m.path], mutated=mutated, path=path):
                    return _swap_code(mod, mutated, path)

            select = everything if selected is None else selected
            files = [t for t in tests if any(_belongs(n, t) for n in select)]
            timeout = mutant_timeout(target, select, seconds, startup)
            runs = [(select, timeout, per_test_limits(target, select, seconds))]
            if compare is not None:  # the same tests in the order they ran, the old timeout
                chosen = set(select)
                runs.append(([n for n in seconds if n in chosen], compare, None))
                if m.index % 2:  # alternate which runs first: drifting load hits both
                    runs.reverse()
            try:
                path.write_text(mutated)
                for tried, limit, each in runs:
                    t1 = time.monotonic()
                    got = run_tests(scratch, files, limit, patch=patch, select=tried, limits=each)
                    if tried is select:
                        m.outcome, m.detail = got
                    else:
                        m.other = {"outcome": got[0], "seconds": time.monotonic() - t1}
            finally:
                path.write_text(source)
        m.seconds = round(time.monotonic() - t0 - m.other.get("seconds", 0.0), 2)
        if verbose and m.other:
            print(
                f"[{target.name} #{m.index}/{total}] in file order: {m.other['outcome']:9s} "
                f"{m.other['seconds']:5.1f}s",
                flush=True,
            )
        if verbose:
            print(
                f"[{target.name} #{m.index}/{total}] {m.outcome:9s} {m.seconds:5.1f}s "
                f"{m.path}:{m.line} {m.operator}: {m.before} -> {m.after}",
                flush=True,
            )
    return mutants


def _file(entry: str) -> str:
    """The test file of a ``tests`` entry of targets.toml (a file or ``file::test``)."""
    return entry.split("::")[0]


def _belongs(nodeid: str, entry: str) -> bool:
    """Whether the test ``nodeid`` is one the ``tests`` entry ``entry`` runs."""
    if "::" not in entry:
        return nodeid.split("::")[0] == entry
    return nodeid == entry or nodeid.startswith((entry + "[", entry + "::"))


# bump when what a stored baseline holds changes
BASELINE_VERSION = 3  # 3: wider-scoped fixtures' lines credited to every test using them


def _baseline_keys(target: Target, tests: list[str]) -> dict[str, str]:
    """Per test file, a digest of what its baseline runs read: the package, the data, the
    tests' helper modules (every file of tests/ but the test files), the test file itself
    and the target's sources. Adding a test to one file only makes that file run again."""
    import hashlib

    common = hashlib.sha256(json.dumps([BASELINE_VERSION, target.sources, target.jit]).encode())
    files = [ROOT / "pyproject.toml"]
    for folder in ("workbench", "tests", "data"):
        files += sorted(p for p in (ROOT / folder).rglob("*") if p.is_file())
    for f in files:
        if "__pycache__" in f.parts or f.suffix == ".pyc" or f.name.startswith("test_"):
            continue
        common.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    keys = {}
    for t in tests:
        h = common.copy()
        h.update(t.encode() + b"\0" + (ROOT / _file(t)).read_bytes())
        keys[t] = h.hexdigest()[:20]
    return keys


def baseline(target: Target, tests: list[str], fresh: bool = False) -> dict:
    """The unmutated tests, run twice: untraced, timing each test (a mutant's tests then run
    fastest first and its timeout scales with their seconds), and under a line tracer,
    recording which lines of the target each test executes (a mutant runs only the tests
    that reach it). Both must pass.

    Kept per test file in ``$WORKBENCH_CACHE/mutation`` under :func:`_baseline_keys`: a rerun
    after editing ``equivalents.toml`` traces nothing again, one after adding tests to
    ``tests/test_mut_<target>.py`` traces that file only (tracing makes the kernels' Python
    many times slower: minutes for a large test file)."""
    keys = _baseline_keys(target, tests)
    stored = {t: _cache_dir() / f"{target.name}-{keys[t]}.json" for t in tests}
    todo = [t for t in tests if fresh or not stored[t].exists()]
    if todo:
        _baseline_run(target, todo, stored)
    out = {"seconds": {}, "lines": {"<import>": []}, "untraced_s": 0.0, "traced_s": 0.0}
    startup = 0.0
    for t in tests:
        part = json.loads(stored[t].read_text())
        if t not in todo:
            print(f"{target.name}: baseline of {t} from {stored[t]}", flush=True)
        out["seconds"] |= part["seconds"]
        out["lines"]["<import>"] += part["lines"].pop("<import>")
        out["lines"] |= part["lines"]
        out["untraced_s"] += part["untraced_s"]
        out["traced_s"] += part["traced_s"]
        startup = max(startup, part["startup_s"])
    out["startup_s"] = startup
    return out


def _baseline_run(target: Target, tests: list[str], stored: dict[str, Path]) -> None:
    """Run ``tests`` untraced and traced in a scratch copy; store each file's share."""
    scratch = _scratch_copy()
    out = {}
    try:
        runs = (("untraced", [], ".seconds.json"), ("traced", target.sources, ".lines.json"))
        for kind, record, name in runs:
            t0 = time.monotonic()
            limit = max(900.0, 40.0 * out.get("untraced_s", 0.0))
            outcome, detail = run_tests(scratch, tests, limit, record)
            out[f"{kind}_s"] = time.monotonic() - t0
            if outcome != "survived":
                raise SystemExit(
                    f"{target.name}: the unmutated tests do not pass ({detail}):\n"
                    + (scratch / ".mutant.log").read_text(errors="replace")[-3000:]
                )
            out["seconds" if kind == "untraced" else "lines"] = json.loads(
                (scratch / name).read_text()
            )
            print(f"{target.name}: {kind} baseline {out[f'{kind}_s']:.1f} s", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # collection, imports and the session around the tests
    startup = max(0.0, out["untraced_s"] - sum(out["seconds"].values()))
    total = sum(out["seconds"].values()) or 1.0
    for t in tests:
        mine = {n: v for n, v in out["seconds"].items() if _belongs(n, t)}
        share = sum(mine.values()) / total  # the run's seconds, split by the files' tests
        part = {
            "seconds": mine,
            "lines": {"<import>": out["lines"]["<import>"]}
            | {n: v for n, v in out["lines"].items() if _belongs(n, t)},
            "untraced_s": share * out["untraced_s"],
            "traced_s": share * out["traced_s"],
            "startup_s": startup,
        }
        stored[t].parent.mkdir(parents=True, exist_ok=True)
        stored[t].write_text(json.dumps(part))


def run_target(
    target: Target,
    equivalents: dict[str, str],
    *,
    before: bool,
    jobs: int = 1,
    limit: int | None = None,
    sample: tuple[int, int] | None = None,
    only: set[str] | None = None,
    match: str | None = None,
    verbose: bool = True,
    fast: bool = True,
    fresh: bool = False,
    compare: bool = False,
):
    """Run every mutant of ``target`` (``jobs`` scratch copies in parallel); returns run info
    and leaves the outcomes in ``target.mutants``."""
    tests = [t for t in target.tests if not (before and Path(t).name.startswith("test_mut_"))]
    tests = [t for t in tests if (ROOT / _file(t)).exists()]
    read = _baseline_keys(target, tests)
    base = baseline(target, tests, fresh=fresh)
    lines = {k: {tuple(x) for x in v} for k, v in base["lines"].items()}
    seconds, startup = base["seconds"], base["startup_s"]
    mutants = enumerate_mutants(target)
    if _baseline_keys(target, tests) != read:  # the workers copy the repository from here on
        raise SystemExit(
            f"{target.name}: the repository changed while the baseline ran (its lines, times "
            "and mutants would not be those of the copy the mutants run in): run it again"
        )
    for i, m in enumerate(mutants, 1):
        m.index = i
    every = len(mutants)
    info = {}
    if sample is not None:
        mutants = draw_sample(mutants, *sample)
        info["sample"] = {"n": len(mutants), "of": every, "seed": sample[1]}
    if only is not None:
        mutants = [m for m in mutants if m.key in only]
    if match is not None:
        mutants = [m for m in mutants if match in m.key]
    if limit is not None:
        mutants = mutants[:limit]
    total = every
    shares = [mutants[k::jobs] for k in range(jobs) if mutants[k::jobs]]  # no idle worker
    pids = []
    for k, share in enumerate(shares):
        out = Path(tempfile.mkstemp(prefix=f"wb-mutation-{k}-", suffix=".json")[1])
        pid = os.fork()
        if pid == 0:
            code = 0
            scratch = _scratch_copy()
            try:
                done = _work(
                    scratch,
                    target,
                    share,
                    tests,
                    lines,
                    seconds,
                    startup,
                    verbose,
                    total,
                    fast,
                    compare=max(60.0, 3.0 * base["traced_s"] + 10.0) if compare else None,
                )
                out.write_text(json.dumps([asdict(m) for m in done]))
            except BaseException:  # noqa: BLE001
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            os._exit(code)
        pids.append((pid, out))
    results = []
    for pid, out in pids:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{target.name}: a worker failed")
        results += [Mutant(**d) for d in json.loads(out.read_text())]
        out.unlink()
    results.sort(key=lambda m: m.index)
    for m in results:
        if m.key in equivalents:
            m.reason = equivalents[m.key]
            if m.outcome == "survived":
                m.outcome = "equivalent"
    target.mutants = results
    return {
        "tests": tests,
        "baseline_s": round(base["untraced_s"], 1),
        "traced_s": round(base["traced_s"], 1),
        "timeout_s": round(mutant_timeout(target, list(seconds), seconds, startup), 1),
        "timeout_rule": [target.timeout, target.timeout_factor],
        "old_timeout_s": round(max(60.0, 3.0 * base["traced_s"] + 10.0), 1),
    } | info


def rerun_plan(stored: list[dict], skip: tuple, current: list[Mutant]) -> tuple[set, list]:
    """What ``--survivors``/``--recheck`` reruns and what it carries over from the stored
    run: the keys of the stored mutants whose outcome is not in ``skip`` are rerun, the others
    carried. A stored mutant to rerun whose key no mutant of the source has now (its line
    changed since) cannot run: it is carried over as stored, marked, never dropped."""
    keys = {m.key for m in current}
    rerun = [m for m in stored if m["outcome"] not in skip]
    gone = [
        m | {"detail": "no mutant has this key now (its line changed): as stored"}
        for m in rerun
        if m["key"] not in keys
    ]
    carried = [m for m in stored if m["outcome"] in skip] + gone
    return {m["key"] for m in rerun if m["key"] in keys}, carried


def as_declared(stored: list[dict], equivalents: dict[str, str]) -> list[dict]:
    """The stored mutants with the equivalents file as it is now: a survivor declared since
    is equivalent, and one stored as equivalent whose declaration was removed since (a test
    kills it, or the reason was wrong) is a survivor again, to be rerun. A killed, timed-out
    or incompetent mutant keeps its outcome: a declaration speaks only for one no test
    kills."""
    return [
        m | {"outcome": "equivalent" if m["key"] in equivalents else "survived"}
        if m["outcome"] in ("survived", "equivalent")
        else m
        for m in stored
    ]


def _extend_plan(target: Target, n: int, seed: int, equivalents: dict[str, str]):
    """``--extend``: the keys to run and the stored mutants to carry when the stored sample
    grows to ``n``: the stored mutants and ``random.Random(seed).sample`` of the others
    (a uniform sample, then a uniform sample of the rest, is a uniform sample of the union).
    The new ones run, the stored survivors are rerun (tests may have been added), the
    stored kills and equivalents are carried. Returns the keys to run, the carried mutants,
    the widened sample's record and the newly drawn keys (the held-out ones)."""
    stored_run = json.loads((HERE / f"{target.name}.after.json").read_text())
    drawn = stored_run.get("sample")
    if not drawn:
        raise SystemExit(
            f"{target.name}: --extend needs a stored sample; the stored run has every mutant"
        )
    every = enumerate_mutants(target)
    stored = as_declared(stored_run["mutants"], equivalents)
    have = {m["key"] for m in stored}
    rest = [m.key for m in every if m.key not in have]
    if n <= len(stored) or n - len(stored) > len(rest):
        raise SystemExit(
            f"{target.name}: --extend --sample {n}: the stored sample has {len(stored)} "
            f"mutants and {len(rest)} others are left"
        )
    import random

    new = set(random.Random(seed).sample(rest, n - len(stored)))
    rerun, carried = rerun_plan(stored, ("killed", "timeout", "equivalent"), every)
    history = [*drawn.get("extended", []), {"from": len(stored), "seed": seed}]
    return (
        rerun | new,
        carried,
        {"n": n, "of": len(every), "seed": drawn["seed"], "extended": history},
        new,
    )


def draw_sample(mutants: list, n: int, seed: int) -> list:
    """A seeded random sample of ``n`` of ``mutants`` (all of them when ``n`` is not
    smaller), in their order: ``random.Random(seed).sample`` over their positions in the
    target's full sorted list (``--list``), so the same seed draws the same mutants."""
    import random

    if n >= len(mutants):
        return list(mutants)
    picked = sorted(random.Random(seed).sample(range(len(mutants)), n))
    return [mutants[i] for i in picked]


def compare_orders(mutants: list[Mutant], info: dict) -> dict:
    """``--compare-order``: the seconds per mutant with the tests fastest first and the new
    timeout against the file order and the old timeout, on the same mutants in one run."""
    ran = [m for m in mutants if m.other]
    new = sum(m.seconds for m in ran)
    old = sum(m.other["seconds"] for m in ran)
    same = sum(m.outcome == m.other["outcome"] for m in ran)
    differ = [
        (m.key, m.other["outcome"], m.outcome) for m in ran if m.outcome != m.other["outcome"]
    ]
    return {
        "mutants_run": len(ran),
        "seconds_per_mutant_file_order": round(old / max(len(ran), 1), 2),
        "seconds_per_mutant_fastest_first": round(new / max(len(ran), 1), 2),
        "speed_up": round(old / new, 2) if new else None,
        "same_outcome": same,
        "differ (key, file order, fastest first)": differ,
        "timeout_s": {"new, every test": info["timeout_s"], "old": info["old_timeout_s"]},
    }


def summarise(mutants) -> dict:
    """Counts and score of a list of mutants (dicts or :class:`Mutant`). ``killed``
    counts the timeouts too (``timeouts`` says how many of them): the counts to add up to
    ``mutants`` are killed, survived, equivalent, errors and incompetent."""
    outcomes = [m["outcome"] if isinstance(m, dict) else m.outcome for m in mutants]
    n = len(outcomes)
    killed = sum(o in ("killed", "timeout") for o in outcomes)
    equivalent = outcomes.count("equivalent")
    denom = n - equivalent - outcomes.count("incompetent")
    return {
        "mutants": n,
        "killed": killed,
        "timeouts": outcomes.count("timeout"),
        "survived": outcomes.count("survived"),
        "equivalent": equivalent,
        "errors": outcomes.count("error"),
        "incompetent": outcomes.count("incompetent"),
        "score_pct": round(100.0 * killed / denom, 1) if denom else 100.0,
    }


def _stored(m: Mutant) -> dict:
    """What a stored run keeps of a mutant (the key already holds the lines)."""
    keep = {"key": m.key, "line": m.line, "outcome": m.outcome, "seconds": m.seconds}
    if m.outcome != "killed":
        keep["detail"] = m.detail
    return keep


def write_report(target: Target, info: dict, variant: str, seconds: float) -> dict:
    """Store the run (``<target>.<variant>.json``) and rewrite the target's report."""
    HERE.mkdir(parents=True, exist_ok=True)
    head = {"target": target.name, "variant": variant, **info, "seconds": round(seconds)}
    body = ",\n".join(json.dumps(_stored(m)) for m in target.mutants)
    text = json.dumps(head)[:-1] + ', "mutants": [\n' + body + "\n]}\n"
    (HERE / f"{target.name}.{variant}.json").write_text(text)
    return rewrite_report(target.name)


def _runs(name: str, equivalents: dict[str, str]) -> dict[str, dict]:
    """The stored runs of a target, with the equivalents file as it is now applied."""
    runs = {}
    for variant in ("before", "after"):
        p = HERE / f"{name}.{variant}.json"
        if not p.exists():
            continue
        run = json.loads(p.read_text())
        run["mutants"] = as_declared(run["mutants"], equivalents)
        for m in run["mutants"]:
            m["declared"] = m["key"] in equivalents
            if m["outcome"] in ("survived", "equivalent"):
                m["reason"] = equivalents.get(m["key"], "")
        run["summary"] = summarise(run["mutants"]) | _cost_and_interval(run, equivalents)
        runs[variant] = run
    return runs


def _cost_and_interval(run: dict, equivalents: dict[str, str]) -> dict:
    """What a stored run cost and how far its sample pins the score.

    ``seconds``: each mutant's own seconds, summed over the mutants, each from the run that
    measured it (a rerun's carried mutants keep theirs): the work behind the outcomes,
    whatever reruns led to them, without the baselines. ``seconds_last_run``: the last
    invocation's wall seconds, baselines included. ``score_low_pct``/``score_high_pct``: for
    a sample, the Wilson 95 % interval of the killed share of the non-equivalent mutants
    (binomial: conservative for a sample drawn without replacement); empty for a full run,
    whose score is exact. ``held_out_*``: the last ``--extend``'s newly drawn mutants, with
    the outcomes they had when drawn (before any test was written for them), read with the
    equivalents file as it is now (:func:`as_declared`): their number, score and Wilson
    interval, an estimate for the mutants of the target not yet drawn. A sample's own
    score is not one: its survivors' tests were written for it."""
    s = summarise(run["mutants"])
    out = {
        "seconds": round(sum(float(m.get("seconds") or 0.0) for m in run["mutants"])),
        "seconds_last_run": round(run["seconds"]),
        "score_low_pct": "",
        "score_high_pct": "",
    }
    n = s["mutants"] - s["equivalent"] - s["incompetent"]
    if run.get("sample") and n > 0:
        out["score_low_pct"], out["score_high_pct"] = wilson_pct(s["killed"], n)
    out |= dict.fromkeys(
        ("held_out_n", "held_out_score_pct", "held_out_low_pct", "held_out_high_pct"), ""
    )
    held = [e["held_out"] for e in (run.get("sample") or {}).get("extended", []) if "held_out" in e]
    if held:
        drawn = [{"key": k, "outcome": o} for k, o in held[-1].items()]
        h = summarise(as_declared(drawn, equivalents))
        m = h["mutants"] - h["equivalent"] - h["incompetent"]
        out["held_out_n"], out["held_out_score_pct"] = h["mutants"], h["score_pct"]
        if m > 0:
            out["held_out_low_pct"], out["held_out_high_pct"] = wilson_pct(h["killed"], m)
    return out


def wilson_pct(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % score interval of ``k / n``, in percent to one decimal (scipy's: this
    process must not import ``workbench``, whose modules its children import from the
    scratch copy)."""
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return round(100.0 * ci.low, 1), round(100.0 * ci.high, 1)


def rewrite_report(name: str) -> dict:
    """``<target>.md`` and its rows of ``summary.csv`` from the stored runs; the latest
    summary."""
    runs = _runs(name, load_equivalents())
    _write_markdown(name, runs)
    for variant, run in runs.items():
        of = run.get("sample", {}).get("of", "")
        _update_summary(name, variant, run["summary"], of)
    return (runs.get("after") or runs["before"])["summary"]


def rewrite_summary() -> list[str]:
    """``summary.csv`` written afresh, and every report, from the stored runs
    (``<target>.{before,after}.json``) of every target: after merging runs made elsewhere,
    or after a change of what the summary holds. Returns the targets written."""
    names = sorted({p.name.split(".")[0] for p in HERE.glob("*.*.json")})
    path = HERE / "summary.csv"
    if path.exists():
        path.unlink()
    for name in names:
        rewrite_report(name)
    return names


def _write_markdown(name: str, runs: dict[str, dict]) -> None:
    latest = runs.get("after") or runs.get("before")
    lines = [f"# Mutation report: `{name}`", ""]
    lines += ["Written by `benchmarks/mutation.py`; do not edit by hand.", ""]
    lines += [
        "| tests | mutants | killed | (of which timeouts) | survived | equivalent | score "
        "| mutant-seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for variant, run in runs.items():
        s = run["summary"]
        which = "suite before `tests/test_mut_*`" if variant == "before" else "with them"
        lines.append(
            f"| {which} | {s['mutants']} | {s['killed']} | {s['timeouts']} | {s['survived']} | "
            f"{s['equivalent']} | {s['score_pct']} % | {s['seconds']} s |"
        )
    lines += [
        "",
        "Mutant-seconds: each mutant's own seconds, summed, from the run that measured it "
        "(a rerun's carried mutants keep theirs; parallel jobs add up; baselines excluded). "
        "The last run took "
        + " and ".join(f"{r['summary']['seconds_last_run']} s ({v})" for v, r in runs.items())
        + ", baselines included.",
    ]
    lines += ["", "Test files run per mutant: " + ", ".join(f"`{t}`" for t in latest["tests"])]
    if "timeout_rule" in latest:
        floor, factor = latest["timeout_rule"]
        lines += [
            f"(unmutated: {latest['baseline_s']} s, {latest['traced_s']} s traced; a mutant's "
            f"tests run fastest first and stop at the first failure, within {floor:g} s + "
            f"{factor:g} x their unmutated seconds and the start-up: "
            f"{latest['timeout_s']} s for all of them)."
        ]
    else:
        lines += [f"(unmutated: {latest['baseline_s']} s; timeout {latest['timeout_s']} s)."]
    if latest.get("sample"):
        sm = latest["sample"]
        lines += [
            f"**A sample:** {sm['n']} of the target's {sm['of']} mutants, drawn by "
            f"`random.Random({sm['seed']}).sample` over the positions of `--list` "
            + (
                f"(`--sample {sm['extended'][0]['from']} --seed {sm['seed']}`), then widened "
                + ", ".join(
                    f"by `random.Random({e['seed']}).sample` of the others" for e in sm["extended"]
                )
                + f" (`--extend --sample {sm['n']}`)"
                if sm.get("extended")
                else f"(`--sample {sm['n']} --seed {sm['seed']}`)"
            )
            + "; the score is the sample's. "
            "The whole target's score lies, with 95 % confidence (Wilson), in "
            + " and ".join(
                f"[{r['summary']['score_low_pct']} %, {r['summary']['score_high_pct']} %] ({v})"
                for v, r in runs.items()
                if r["summary"]["score_low_pct"] != ""
            )
            + "."
        ]
    held = latest["summary"]
    if held.get("held_out_n"):
        last = latest["sample"]["extended"][-1]
        lines += [
            f"**Held out:** the {held['held_out_n']} mutants drawn by the last `--extend` "
            f"(`random.Random({last['seed']}).sample` of the "
            f"{latest['sample']['of'] - last['from']} not "
            f"drawn before), scored before any test was written for them: "
            f"{held['held_out_score_pct']} % killed of the non-equivalent ones, "
            f"[{held['held_out_low_pct']} %, {held['held_out_high_pct']} %] with 95 % "
            "confidence (Wilson) for the mutants not yet drawn. The sample's own score is "
            "not such an estimate: its survivors' tests were written for it."
        ]
    if latest.get("lines_changed"):
        ch = latest["lines_changed"]
        lines += [
            f"The source changed since the stored full run: the last run ran the {ch['new']} "
            f"mutants of the changed lines for the first time and dropped the {ch['gone']} of "
            "their old versions, so the run covers every mutant of the source as it is."
        ]
    if latest.get("carried_from_before"):
        lines += [
            "The last run reran the mutants the stored run did not kill"
            + (f" and ran {latest['newly_drawn']} newly drawn" if latest.get("newly_drawn") else "")
            + "; the other "
            f"{latest['carried_from_before']} are carried over: killed (tests were only "
            f"added), or declared equivalent since (not rerun without `--with-equivalents`)."
        ]
    lines += [""]
    survivors = [m for m in latest["mutants"] if m["outcome"] == "survived"]
    lines += [f"## Survivors ({len(survivors)})", ""]
    lines += [f"- `{m['key']}` (line {m['line']})" for m in survivors] or ["None."]
    eq = [m for m in latest["mutants"] if m["outcome"] == "equivalent"]
    lines += ["", f"## Equivalent ({len(eq)})", ""]
    lines += [f"- `{m['key']}` (line {m['line']}): {m['reason']}" for m in eq] or ["None."]
    wrong = [m for m in latest["mutants"] if m.get("declared") and m["outcome"] != "equivalent"]
    if wrong:
        lines += ["", f"## Declared equivalent, but killed ({len(wrong)}): remove them", ""]
        lines += [f"- `{m['key']}`: {m.get('detail', m['outcome'])}" for m in wrong]
    inc = [m for m in latest["mutants"] if m["outcome"] == "incompetent"]
    if inc:
        lines += ["", f"## Incompetent: do not compile, left out of the score ({len(inc)})", ""]
        lines += [f"- `{m['key']}`" for m in inc]
    errs = [m for m in latest["mutants"] if m["outcome"] == "error"]
    if errs:
        lines += ["", f"## Errors ({len(errs)})", ""]
        lines += [f"- `{m['key']}`: {m['detail']}" for m in errs]
    (HERE / f"{name}.md").write_text("\n".join(lines) + "\n")


def _update_summary(name: str, variant: str, s: dict, sampled_from: int | str = "") -> None:
    """Replace the target's row of ``variant`` in ``summary.csv``. Columns: the counts and
    score of :func:`summarise`; ``seconds`` and ``seconds_last_run``, ``score_low_pct`` and
    ``score_high_pct`` of :func:`_cost_and_interval`; ``sampled_from``: the target's
    mutants when the run was a sample (empty for a full run). Columns are only ever added
    at the end (``--summary`` rewrites the file)."""
    path = HERE / "summary.csv"
    fields = [
        "target",
        "tests",
        "mutants",
        "killed",
        "timeouts",
        "survived",
        "equivalent",
        "errors",
        "incompetent",
        "score_pct",
        "seconds",
        "sampled_from",
        "score_low_pct",
        "score_high_pct",
        "seconds_last_run",
        "held_out_n",
        "held_out_score_pct",
        "held_out_low_pct",
        "held_out_high_pct",
    ]
    rows = []
    if path.exists():
        with path.open() as fh:
            rows = [r for r in csv.DictReader(fh) if (r["target"], r["tests"]) != (name, variant)]
    rows.append({"target": name, "tests": variant, **s, "sampled_from": sampled_from})
    rows.sort(key=lambda r: (r["target"], r["tests"] != "before"))
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def stale_equivalents(targets: dict[str, Target], equivalents: dict[str, str]) -> list[str]:
    """Declared equivalents whose key matches no mutant of any target (the code changed)."""
    keys = {m.key for t in targets.values() for m in enumerate_mutants(t)}
    return [k for k in equivalents if k not in keys]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("targets", nargs="*", help="target names of benchmarks/mutation/targets.toml")
    p.add_argument("--all", action="store_true", help="every target")
    p.add_argument(
        "--before",
        action="store_true",
        help="leave out the tests/test_mut_*.py files (the 'before' column)",
    )
    p.add_argument("--limit", type=int, help="the first N mutants only (a trial, not reported)")
    p.add_argument(
        "--sample",
        type=int,
        help="a seeded random sample of N mutants (reported, as a sample; see --seed)",
    )
    p.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    p.add_argument(
        "--extend",
        action="store_true",
        help="with --sample N --seed S: widen the stored sample of seed S to N mutants, "
        "running only the newly drawn ones and the stored survivors",
    )
    p.add_argument("--jobs", type=int, default=1, help="mutants run in parallel (scratch copies)")
    p.add_argument("--key", action="append", help="only this mutant (repeatable; not reported)")
    p.add_argument(
        "--survivors",
        action="store_true",
        help="the 'after' run: rerun only what the stored before run did not kill",
    )
    p.add_argument(
        "--recheck",
        action="store_true",
        help="rerun only what the stored after run did not kill (after adding tests)",
    )
    p.add_argument(
        "--with-equivalents",
        action="store_true",
        help="with --survivors/--recheck: rerun the mutants declared equivalent as well",
    )
    p.add_argument("--json", action="store_true", help="print each mutant's outcome as JSON")
    p.add_argument("--match", help="only the mutants whose key contains this (not reported)")
    p.add_argument(
        "--no-fast",
        action="store_true",
        help="import every mutant afresh instead of swapping its functions' code in (a check)",
    )
    p.add_argument(
        "--fresh-baseline",
        action="store_true",
        help="run the unmutated tests again even when a stored baseline matches the tree",
    )
    p.add_argument(
        "--compare-order",
        action="store_true",
        help="run each mutant also as before (its tests in file order, a timeout of 3 x the "
        "traced baseline + 10 s, at least 60 s), interleaved, and print both (a benchmark, "
        "not reported)",
    )
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument(
        "--report",
        action="store_true",
        help="rewrite the reports from the stored runs (after editing equivalents.toml)",
    )
    p.add_argument("--stale", action="store_true", help="list stale equivalence keys and exit")
    p.add_argument(
        "--summary",
        action="store_true",
        help="rewrite summary.csv and every report from all stored runs (e.g. after a merge)",
    )
    args = p.parse_args(argv)
    if args.extend and (args.sample is None or args.survivors or args.recheck or args.key):
        p.error("--extend widens a stored sample: give --sample N and --seed S, nothing else")
    targets = load_targets()
    equivalents = load_equivalents()
    if args.summary:
        print("\n".join(rewrite_summary()))
        return 0
    if args.stale:
        stale = stale_equivalents(targets, equivalents)
        print("\n".join(stale) or "no stale keys")
        return 1 if stale else 0
    names = list(targets) if args.all else args.targets
    unknown = [n for n in names if n not in targets]
    if unknown or not names:
        p.error(f"choose targets among {', '.join(targets)} (unknown: {unknown})")
    if args.report:
        for n in names:
            print(n, json.dumps(rewrite_report(n)))
        return 0
    if args.list:
        for n in names:
            for m in enumerate_mutants(targets[n]):
                print(f"{m.key}")
        return 0
    jit = {targets[n].jit for n in names}
    if len(jit) > 1:
        p.error("targets with jit = true (compiled kernels) and without run in separate calls")
    _prepare_parent(jit.pop())
    for n in names:
        t0 = time.monotonic()
        only = set(args.key) if args.key else None
        carried, changed = [], None
        if args.extend:
            only, carried, drawn, new = _extend_plan(
                targets[n], args.sample, args.seed, equivalents
            )
        elif args.survivors or args.recheck:
            # tests were only added since the stored run: a mutant it killed stays killed
            variant = "after" if args.recheck else "before"
            stored = json.loads((HERE / f"{n}.{variant}.json").read_text())["mutants"]
            # a mutant declared equivalent since is not rerun unless --with-equivalents
            # asks (a survivor of every guarding test costs the whole test files)
            skip = ("killed", "timeout")
            stored = as_declared(stored, equivalents)
            if not args.with_equivalents:
                skip += ("equivalent",)
            current = enumerate_mutants(targets[n])
            only, carried = rerun_plan(stored, skip, current)
            drawn = json.loads((HERE / f"{n}.{variant}.json").read_text()).get("sample")
            if not drawn:  # a full run stays one: the mutants of lines changed since run
                now = {m.key for m in current}
                new_keys = now - {m["key"] for m in stored}
                changed = {"new": len(new_keys), "gone": sum(m["key"] not in now for m in stored)}
                only |= new_keys
                carried = [m for m in carried if m["key"] in now]
        info = run_target(
            targets[n],
            equivalents,
            before=args.before,
            jobs=args.jobs,
            limit=args.limit,
            # a rerun picks the stored run's mutants by key: a sample drawn again by position
            # would miss those whose position moved (a line added to the source)
            sample=None if args.sample is None or only is not None else (args.sample, args.seed),
            match=args.match,
            only=only,
            fast=not args.no_fast,
            fresh=args.fresh_baseline,
            compare=args.compare_order,
        )
        seconds = time.monotonic() - t0
        rerun = args.survivors or args.recheck or args.extend
        if rerun:
            info["carried_from_before"] = len(carried)
            if changed:
                info["lines_changed"] = changed
            if drawn:  # the stored run was a sample: so is this one
                info["sample"] = drawn
            if args.extend:
                info["newly_drawn"] = drawn["n"] - drawn["extended"][-1]["from"]
                # scored before any test is written for them: the held-out estimate
                drawn["extended"][-1]["held_out"] = {
                    m.key: m.outcome for m in targets[n].mutants if m.key in new
                }
            old = [Mutant("", "", "", 0, m["line"], "", "", key=m["key"]) for m in carried]
            for m, c in zip(old, carried, strict=True):
                m.outcome, m.seconds = c["outcome"], c["seconds"]
                m.detail = c.get("detail") or (
                    "equivalent, not rerun" if c["outcome"] == "equivalent" else "killed before"
                )
            targets[n].mutants = sorted(
                targets[n].mutants + old, key=lambda m: (m.key.split(" | ")[0], m.line, m.key)
            )
        if args.json:
            outcomes = [{"key": m.key, "outcome": m.outcome} for m in targets[n].mutants]
            print(json.dumps(outcomes), flush=True)
        if args.compare_order:
            print(json.dumps(compare_orders(targets[n].mutants, info)), flush=True)
            continue
        if (args.limit is None and args.match is None and not args.key) or rerun:
            s = write_report(targets[n], info, "before" if args.before else "after", seconds)
        else:
            s = summarise(targets[n].mutants)
        print(f"{n}: {json.dumps(s)} in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
