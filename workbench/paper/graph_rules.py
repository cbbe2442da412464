"""Rules read from the package's call graph and its tests: every compiled kernel is compared
with a slow twin by some test, and every stochastic public function takes a seed.

Both rules are static (the files are parsed, nothing runs): a function "reaches" the names
its body mentions (nested functions and lambdas included) and, through them, the package's
functions of those names.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from workbench.registry import ROOT

#: calls that draw random numbers (numpy's generators and global state, the standard library)
RANDOM_CALLS = {"default_rng", "SeedSequence", "RandomState", "Generator", "PCG64"}
RANDOM_MODULES = {"random"}  # np.random.<draw>, random.<draw>
#: a parameter by which a caller fixes the random stream
SEED_NAMES = {"seed", "seeds", "rng", "seed_sequence", "random_state"}


@lru_cache(maxsize=512)
def _parse(path: str, mtime: float) -> ast.Module:
    return ast.parse(Path(path).read_text(), filename=path)


def parse(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once per version of the file."""
    return _parse(str(path), path.stat().st_mtime)


def _mentions(node) -> set[str]:
    """Every name and attribute ``node`` mentions, nested functions and lambdas included."""
    out = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.add(sub.attr)
    return out


def _draws(node) -> bool:
    """Does ``node`` call a random source itself (``default_rng``, ``np.random.x``,
    ``random.x``)?"""
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        name = getattr(func, "id", getattr(func, "attr", ""))
        if name in RANDOM_CALLS:
            return True
        if isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name, ast.Attribute)):
            owner = getattr(func.value, "id", getattr(func.value, "attr", ""))
            if owner in RANDOM_MODULES:
                return True
    return False


def _bound(node) -> set[str]:
    """The keywords a ``@takes(Model, "N", "seed", ...)`` decorator binds to the function
    (:func:`workbench.params.takes`): its string arguments."""
    out = set()
    for dec in node.decorator_list:
        if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "takes":
            out |= {a.value for a in dec.args if isinstance(a, ast.Constant)}
    return out


def jit_keywords(node) -> set[str] | None:
    """The keywords of the function's numba decorator (``@njit(cache=True)``: ``{"cache"}``;
    a bare ``@njit``: none); None when it is not compiled."""
    for dec in node.decorator_list:
        func = dec.func if isinstance(dec, ast.Call) else dec
        if getattr(func, "id", getattr(func, "attr", "")) in ("njit", "jit"):
            return {k.arg for k in dec.keywords} if isinstance(dec, ast.Call) else set()
    return None


class Function:
    """One function of the package: where, what it mentions, whether it draws or is seeded."""

    def __init__(self, node, path: Path):
        self.name = node.name
        self.path = path
        self.line = node.lineno
        self.jitted = jit_keywords(node) is not None
        args = node.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        self.seeded = bool(SEED_NAMES & (set(names) | _bound(node)))
        #: takes ``**kwargs`` and some reached function reads a "seed" key (``p["seed"]``)
        self.kwargs = args.kwarg is not None
        self.reads_seed = any(
            isinstance(sub, ast.Constant) and sub.value in SEED_NAMES for sub in ast.walk(node)
        )
        self.mentions = _mentions(node) - {node.name}
        self.draws = _draws(node)


def functions(target) -> dict[str, list[Function]]:
    """name -> the package's top-level functions and methods of that name."""
    out: dict[str, list[Function]] = {}
    for path in target.files():
        for node in parse(path).body:
            nodes = [node]
            if isinstance(node, ast.ClassDef):
                nodes = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            for n in nodes:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(n.name, []).append(Function(n, path))
    return out


def reach(start: set[str], graph: dict[str, list[Function]], stop=lambda f: False) -> set:
    """The package functions reached from the names ``start`` (a function ``stop`` accepts is
    reached but not walked through)."""
    seen, todo = set(), list(start)
    while todo:
        name = todo.pop()
        for f in graph.get(name, ()):
            if f in seen:
                continue
            seen.add(f)
            if not stop(f):
                todo += f.mentions
    return seen


def public_names(target) -> set[str]:
    """The names in ``__all__`` of the package and of each of its modules."""
    out = set()
    for path in target.files():
        for node in parse(path).body:
            targets = getattr(node, "targets", [getattr(node, "target", None)])  # = or +=
            if isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                getattr(t, "id", "") == "__all__" for t in targets
            ):
                with contextlib.suppress(ValueError):  # not a literal list: not read
                    out |= set(ast.literal_eval(node.value))
    return out


def _takes_bound(target) -> dict[str, set[str]]:
    """name -> the keywords a ``@takes`` function binds, read from its generated signature
    (a decorator may name them through a tuple, ``@takes(Model, *FIELDS)``, which
    :func:`_bound` cannot read)."""
    out: dict[str, set[str]] = {}
    for _path, module in target.modules():
        for name, obj in vars(module).items():
            if getattr(obj, "params_model", None) is not None:
                out.setdefault(name, set()).update(inspect.signature(obj).parameters)
    return out


def stochastic_seed(target):
    """A public function that draws random numbers (itself or through the package's helpers)
    takes a seed: ``seed`` (or ``rng``, ``seed_sequence``), so the same seed gives the same
    numbers. A function that calls a seeded one is not stochastic itself (its numbers are
    fixed by the seed it passes)."""
    graph = functions(target)
    for name, keywords in _takes_bound(target).items():
        for f in graph.get(name, ()):
            f.seeded = f.seeded or bool(SEED_NAMES & keywords)
    for f in [f for fs in graph.values() for f in fs if f.kwargs and not f.seeded]:
        f.seeded = any(g.reads_seed for g in reach(f.mentions, graph))
    for name in sorted(public_names(target)):
        for f in graph.get(name, ()):
            if f.seeded:
                continue
            drawing = [g for g in reach({name}, graph, stop=lambda g: g.seeded) if g.draws]
            drawing = [g for g in drawing if not g.seeded]
            if drawing:
                via = ", ".join(sorted({f"{g.name} ({g.path.name}:{g.line})" for g in drawing}))
                yield (
                    f"{target.rel(f.path)}:{f.line}",
                    f"{name} draws random numbers (via {via}) but takes no seed",
                )


def test_files(target) -> list[Path]:
    """The test modules that may test the package: the repository's ``tests/`` and, for a
    package outside it, the ``test_*.py`` beside the package (where new-paper writes them)."""
    folders = {ROOT / "tests", target.dir.parent, target.dir.parent / "tests"}
    return sorted({p for d in folders if d.is_dir() for p in d.glob("test_*.py")})


def _imports(tree) -> tuple[set[str], set[str]]:
    """(modules imported, names bound from modules whose last part starts with ``naive``)."""
    modules, twins = set(), set()
    for node in ast.walk(tree):  # an import inside a test counts too
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            if node.module.rsplit(".", 1)[-1].startswith("naive"):
                twins |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                modules.add(a.name)
                if a.name.rsplit(".", 1)[-1].startswith("naive"):
                    twins.add(a.asname or a.name)
    return modules, twins


def _closure(node, local: dict) -> set[str]:
    """Names a test mentions, through the helpers and fixtures of its own module."""
    names, todo, seen = set(), [node], set()
    while todo:
        n = todo.pop()
        if n.name in seen:
            continue
        seen.add(n.name)
        found = _mentions(n) | {a.arg for a in n.args.args}
        names |= found
        todo += [local[x] for x in found if x in local]
    return names


def twin_tested(target) -> set[str]:
    """The package's functions some test compares with a slow twin: a ``test_*`` function
    that reaches them and mentions a name imported from a ``naive*`` module."""
    graph = functions(target)
    covered: set[str] = set()
    for path in test_files(target):
        tree = parse(path)
        modules, twins = _imports(tree)
        if not twins or not any(
            m == target.package or m.startswith(target.package + ".") for m in modules
        ):
            continue
        local = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        for name, node in local.items():
            if not name.startswith("test"):
                continue
            names = _closure(node, local)
            if names & twins:
                covered |= {f.name for f in reach(names & set(graph), graph)}
    return covered


def kernels_twin(target):
    """Every public compiled kernel of the package (``@njit``, a name without ``_``) is
    compared with a slow, obvious twin (a function of a ``naive*`` test module) by some test:
    directly, or through the package function that calls it."""
    graph = functions(target)
    kernels = sorted(
        {(f.name, f.path, f.line) for fs in graph.values() for f in fs if f.jitted},
        key=lambda k: (str(k[1]), k[2]),
    )
    covered = None
    for name, path, line in kernels:
        if name.startswith("_"):
            continue
        covered = twin_tested(target) if covered is None else covered
        if name not in covered:
            yield (
                f"{target.rel(path)}:{line}",
                f"no test compares the kernel {name} with a slow twin (a function of a "
                "naive*.py test module)",
            )


RULES: dict[str, Callable] = {
    "kernels.twin": kernels_twin,
    "seeds.public": stochastic_seed,
}
