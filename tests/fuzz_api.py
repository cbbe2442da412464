"""Fuzz every public name of the workbench with bad and edge values (issue: the public API).

Walks the public surface: the top-level package, every module or package directly under
``workbench`` that declares an ``__all__`` (claims, validation, output analysis, sweep, the
building blocks, a new package as soon as it exists), every paper package in the registry,
and every deeper module with an ``__all__`` that its package does not load when imported: a
separate entry point such as ``workbench.arena.env`` (:func:`entry_points`).
:data:`NOT_WALKED` and :data:`NOT_WALKED_ROLES` name the few left out and why. For every
callable and every parameter it makes calls that change that one argument of a valid
baseline call:

- **invalid** values from the paper's parameter table (just outside the declared range, NaN,
  ±inf, a string, a bool, None, a huge integer) or, for a parameter the table does not
  declare, type-wrong values (None, a string, an object, -1, NaN);
- **valid** values inside the declared range (they must work, or refuse with the library's
  own error when the combination is unstable or empty);
- an **unknown keyword** (a misspelling must never be ignored);
- **edge** values (:func:`edge_values`): confidences next to 1 and 0, precision targets of
  1e-308, ragged lists and 0-d arrays where an array goes, ±inf and 1e308 where a number
  goes, an object mutated after construction. They may work or be refused, never raw.

Each call runs in a forked child with a time limit, so a hang inside a compiled kernel is
caught and counted. Outcomes:

- ``clean``: the library's own error (:class:`workbench.ParameterError` and its subclasses),
  or Python's own signature check refusing an unknown keyword of an explicit signature;
- ``ok``: a result with no NaN/inf, no negative time and no probability outside [0, 1];
- ``raw``: any other exception; ``hang``: over the time limit (wall time less the time the
  child waited for a core: ``fuzz_surfaces.wait_answer``); ``garbage``: a bad result;
  ``crash``: the child died of a signal (SIGSEGV) without answering.

A name that needs an argument neither its signature nor its table gives a value for uses the
:data:`EXAMPLES` catalog; a name with no baseline at all is reported as ``skipped``, never
silently passed over. ``tests/test_fuzz_api.py`` runs a fixed sample in CI;
``benchmarks/fuzz_api.py`` runs everything and prints the totals. The surfaces a walk of
``__all__`` does not reach (files, callbacks, caches, scaffold, registry, CLI) are fuzzed by
``tests/fuzz_surfaces.py``.
"""

from __future__ import annotations

import importlib
import inspect
import io
import math
import multiprocessing
import numbers
import os
import pickle
import random
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, is_dataclass
from pathlib import Path

import fuzz_surfaces
import numpy as np
import pandas as pd

# The walk is driven by the package itself: the top-level package, every module or package
# directly under ``workbench`` with an ``__all__`` (a new package, e.g. an arena, is walked
# without editing this file) and the registry's paper packages. Only these are left out,
# each for a stated reason:
NOT_WALKED = {
    "workbench.widgets": "notebook controls: driven by test_widgets and the browser tests",
    "workbench.layout": "notebook page layout: driven by test_layout and the browser tests",
    "workbench.controls": "notebook controls: driven by test_widgets and the browser tests",
    "workbench.interactive": "notebook views: driven by test_widgets and the browser tests",
    "workbench.exercise_widget": "the exercise widget: test_exercises and the browser tests",
    "workbench.tables": "notebook tables: test_numfmt, test_widgets and the notebooks",
    "workbench.site": "builds the course site (minutes): test_site",
    "workbench.static_views": "widgets drawn as static HTML for the course site: test_site",
    "workbench.scaffold": "writes a package into a folder: test_scaffold and test_paper_contract",
    "workbench.paper": "check_paper (seconds a call) is driven by test_paper_contract, which "
    "breaks a package once per rule",
    "workbench.precision": "the precision loop: walked through every paper's simulate_to_precision",
    "workbench.fog.cases": "P1's named study cases, built by its claims and figures (test_fog_*)",
    "workbench.proactive.calibration": "P2's load calibration (minutes): "
    "test_proactive_calibration",
    "workbench.proactive.log1p": "P2's compiled log1p kernels on plain arrays: compared with "
    "numpy.log1p in test_proactive_speed",
    "workbench.proactive.quick_atlas": "P2's kept atlas, rewritten from the live atlas: "
    "test_proactive_quick_atlas",
}
# the modules every paper package has by contract (``check_paper``), each driven elsewhere
NOT_WALKED_ROLES = {
    "claims": "the claim atlas evaluates its points: test_claims and each paper's claim tests",
    "examples": "the catalog of valid values this walk itself calls with",
    "exercises": "the exercises' checks: test_exercises",
    "figures": "frames and drawings of the figures: the figure tests draw every frame",
    "views": "notebook views: test_widgets and the browser tests",
    "studies": "the figures' studies (minutes each): the figure tests and reproduce",
    "study": "the figures' studies (minutes each): the figure tests and reproduce",
    "diagram": "drawings of the model: the figure tests",
    "diagrams": "drawings of the model: the figure tests",
    "kernels": "compiled kernels take plain arrays and trust them: the public functions over "
    "them validate (walked here), and each kernel is compared with its slow twin "
    "(tests/naive*.py)",
}
# names a package's own modules export to each other (``inner_modules``) that trust their
# inputs: inner code called only by a walked public function with values it has checked
# (issue 45: validation at the door). A name of an ``__all__`` the walk reaches is called,
# or listed here with its door, or the test of skipped names fails.
INNER: dict[tuple[str, str], str] = {
    ("workbench.arena.baselines", "agent_runs"): "an agent's episodes: evaluate() checks them",
    ("workbench.arena.baselines", "agent_table"): "evaluate()'s table of agent_runs' result",
    ("workbench.arena.baselines", "first_available"): "a baseline's rule, called by the env "
    "with its own observation and mask",
    ("workbench.arena.compile", "compile_scenario"): "the engine's arrays of a validated "
    "Scenario: simulate() and the envs",
    ("workbench.arena.compile", "draw_tasks"): "a replication's tasks: simulate() and the envs",
    ("workbench.arena.compile", "sample_sizes"): "task sizes of a validated source: draw_tasks",
    ("workbench.arena.compile", "stream"): "a replication's generator from the run's "
    "SeedSequence: draw_tasks and the envs",
    ("workbench.arena.baselines", "versus"): "evaluate()'s table against the kept map",
    ("workbench.arena.scenario", "read_trace"): "a trace file's reader inside the scenario's "
    "validation (TraceSource), which turns its ValueError into a ScenarioError naming the key "
    "path: load_scenario, scenario_from_dict (and the trace surfaces of fuzz_surfaces)",
    ("workbench.arena.workload", "read_trace"): "the same reader (arena.scenario re-exports it)",
    ("workbench.arena.scenario", "Scenario"): "the validated scenario's class: built by "
    "load_scenario and scenario_from_dict (walked: a ScenarioError naming each key path); "
    "pydantic calls a custom __init__ for model_validate too, so wrapping it would lose the "
    "trace folder those pass as context",
    ("workbench.arena.pairs", "mark_winners"): "the winner of a frame simulate()/the map built",
    ("workbench.arena.pairs", "paired_interval"): "replication pairs of one frame: mark_winners",
    ("workbench.arena.pairs", "replications_of"): "a frame row's replications: mark_winners",
    ("workbench.arena.simulation", "heavy_tail_notes"): "the door's heavy-tail check, named "
    "after the door (func): simulate()",
    ("workbench.fog.chain", "node_load"): "a node's load, named after the door (func): the "
    "model's public functions",
    ("workbench.fog.chain", "stationary_law"): "the (n, n') chain on a state set the model "
    "built: solve_chain and the network model",
    ("workbench.fog.delays", "network_delays"): "the network model's delays from its fixed "
    "point: analyze_network",
    ("workbench.fog.model", "theta_per_fog"): "θ checked and spread, named after the door "
    "(func): the model's public functions",
    ("workbench.fog.params", "check_count"): "a count check named after the door (func)",
    ("workbench.fog.tuning", "per_node_table"): "a readable table of the frame "
    "figures.best_theta_per_node_frame built (a figure frame: walked by the figure tests)",
    ("workbench.fog.tuning", "policy_table"): "a readable table of the frame "
    "figures.best_theta_per_node_frame built (a figure frame: walked by the figure tests)",
    ("workbench.proactive.runs", "check_tasks"): "a task trace check named after the door "
    "(func): simulate()",
    ("workbench.redundancy.model", "check_total_jobs"): "the run size check named after the "
    "door (func): simulate()",
}
# values a parameter admits by design although they look wrong for its type, with the reason
ADMITS: dict[tuple[str, str, str], tuple[Callable[[object], bool], str]] = {
    ("workbench.numfmt", "format_value", "value"): (
        lambda v: True,
        "a table cell: numbers formatted, the rest shown as str, None as a dash",
    ),
    ("workbench.numfmt", "format_number", "value"): (
        lambda v: isinstance(v, float) and math.isnan(v),
        "a missing number reads as a dash (–) in tables and readouts",
    ),
    ("workbench.numfmt", "parse_number", "text"): (
        lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool),
        "a number is taken as typed (a widget may hand one over)",
    ),
}
# run lengths a baseline call takes at the table's minimum, so a call costs seconds at most
RUN_LENGTHS = (
    "jobs",
    "trace_jobs",
    "protocol_jobs",
    "events",
    "requests",
    "slots",
    "periods",
    "replications",
    "max_replications",
    "training_time",
)
# names whose values must be >= 0 / in [0, 1] when a call returns them
TIME_WORDS = ("time", "delay", "wait", "sojourn", "latency")
PROB_WORDS = ("prob", "blocking", "beta", "share", "hit_rate", "hit_ratio")
SKIP_SUFFIXES = ("Solution", "Analysis", "Result", "Error", "Stationarity", "Replication")
# plot_* draw a figure frame their package built: their inputs are fuzzed through the frame
# functions, and the figure tests draw every frame
SKIP_PREFIXES = ("plot_",)
SLOW_CPU = 20.0  # s of CPU: a call over it counts as slow (CPU: the machine may be shared)


def _paper_modules() -> list[str]:
    from workbench.registry import PAPERS

    return [f"workbench.{p.topic}" for p in PAPERS.values()]


def _walked_modules() -> list[str]:
    import pkgutil

    import workbench

    found = ["workbench"]
    for info in pkgutil.iter_modules(workbench.__path__):
        name = f"workbench.{info.name}"
        if info.name.startswith("_") or name in NOT_WALKED:
            continue
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if isinstance(getattr(mod, "__all__", None), (list, tuple)):
            found.append(name)
    return found


def _left_out(name: str) -> bool:
    parts = name.split(".")
    if any(p.startswith("_") or p in NOT_WALKED_ROLES for p in parts[1:]):
        return True
    return any(name == n or name.startswith(n + ".") for n in NOT_WALKED)


def _imports(path: Path, module: str, is_package: bool) -> set[str]:
    """The modules a source file imports when it runs (not inside a function: those load on
    a call), resolved to absolute names, with each import's parents and imported names."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = here.split(".")
                if child.level:
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                found.add(target)
                found.update(f"{target}.{a.name}" for a in child.names)
            visit(child)

    visit(tree)
    out = set()
    for name in found:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def _loaded_by(package: str) -> set[str]:
    """The modules under ``package`` that ``import package`` loads: its ``__init__``'s
    imports, followed through the package's own modules (read from source, so the answer
    does not depend on what this process imported before)."""
    import pkgutil

    pkg = importlib.import_module(package)
    sources = {package: (Path(pkg.__file__), True)}
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        spec = info.module_finder.find_spec(info.name.rpartition(".")[2], None)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            sources[info.name] = (Path(spec.origin), info.ispkg)
    loaded, todo = {package}, [package]
    while todo:
        name = todo.pop()
        path, is_package = sources[name]
        for dep in _imports(path, name, is_package):
            if dep in sources and dep not in loaded:
                loaded.add(dep)
                todo.append(dep)
    return loaded


def entry_points(package: str) -> list[str]:
    """The modules under ``package`` (at any depth) with an ``__all__`` that importing
    ``package`` does not load: public entry points of their own, imported by name
    (``from workbench.arena.env import ArenaEnv``). What the package loads is its
    implementation; its public names are in its own ``__all__``, walked with it."""
    import pkgutil

    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__path__"):
        return []
    loaded = _loaded_by(package)
    out = []
    for info in pkgutil.walk_packages(pkg.__path__, package + ".", onerror=lambda name: None):
        if info.name in loaded or _left_out(info.name):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:
            continue
        if isinstance(getattr(mod, "__all__", None), (list, tuple)):
            out.append(info.name)
    return out


#: module -> the names of its ``__all__`` the walk calls there: a module its package loads
#: (:func:`inner_modules`) is walked only for what the package does not export itself
ONLY: dict[str, set[str]] = {}


def inner_modules(package: str) -> list[str]:
    """The modules ``import package`` loads whose ``__all__`` names a callable the package
    does not export: public names of the package's own modules (other modules import them,
    ``from workbench.fog.chain import stationary_law``), walked there (:data:`ONLY`)."""

    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__path__"):
        return []
    exported = {id(getattr(pkg, n, None)) for n in getattr(pkg, "__all__", ())}
    out = []
    for name in sorted(_loaded_by(package) - {package}):
        if _left_out(name):
            continue
        mod = importlib.import_module(name)
        names = {
            n
            for n in getattr(mod, "__all__", ())
            if callable(getattr(mod, n, None)) and id(getattr(mod, n)) not in exported
        }
        if names:
            ONLY[name] = names
            out.append(name)
    return out


def modules() -> list[str]:
    """The public modules that import: every ``__all__`` directly under ``workbench``, the
    registry's paper packages, the entry points below them (:func:`entry_points`) and the
    names their own modules export beyond them (:func:`inner_modules`; :data:`NOT_WALKED`,
    :data:`NOT_WALKED_ROLES` name what is left out)."""
    top = [*_walked_modules(), *_paper_modules()]
    deeper = [
        m
        for name in top
        if name != "workbench"
        for m in (*entry_points(name), *inner_modules(name))
    ]
    out = []
    for name in (*top, *deeper):
        if name in out:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        out.append(name)
    return out


# ------------------------------------------------------------------------------------------
# Example values for parameters no table declares (built lazily, once per process)
# ------------------------------------------------------------------------------------------


def _prefs():
    rng = np.random.default_rng(0)
    proposers = np.array([rng.permutation(3) for _ in range(4)], dtype=np.int64)
    receivers = np.array([rng.permutation(4) for _ in range(3)], dtype=np.int64)
    return proposers, receivers


def _replication(seed_sequence, index):
    from workbench.output_analysis import Replication

    y = np.random.default_rng(seed_sequence).exponential(1.0, 400)
    return Replication({"x": float(y[40:].mean())}, y, 40)


def _replications():
    from workbench.output_analysis import replicate

    return replicate(_replication, replications=3, seed=0)


def _product(x, y):
    return x * y


def _params_model():
    from workbench.params import Param, Params

    return Params(Param("x", "x", "a value", low=0.0, high=1.0, default=0.5)).model("FuzzParams")


#: ``(module suffix or "*", parameter) -> builder``: a valid value for a baseline call of a
#: building block; a paper package declares its own in ``<package>.examples.EXAMPLES``.
EXAMPLES: dict[tuple[str, str], Callable[[], object]] = {
    ("*", "arrival_rate"): lambda: 0.5,
    ("erlang.pollaczek_khinchine", "lam"): lambda: 0.5,
    ("*", "mean_service"): lambda: 1.0,
    ("*", "second_moment"): lambda: 2.0,
    ("*", "second_moment_service"): lambda: 2.0,
    ("*", "rate"): lambda: 0.5,
    ("*", "servers"): lambda: 4,
    ("*", "load"): lambda: 2.0,
    ("radio", "distance_m"): lambda: 50.0,
    ("radio", "gain"): lambda: np.full((3, 2), 1e-9),
    ("radio", "power"): lambda: np.full(3, 0.1),
    ("radio", "noise_power"): lambda: 1e-13,
    ("radio", "serving"): lambda: np.array([0, 1, 0], dtype=np.int64),
    ("radio", "bandwidth"): lambda: 10e6,
    ("radio", "shape"): lambda: (3, 2),
    ("radio", "seed"): lambda: 0,
    ("radio", "user_xy"): lambda: np.array([[0.0, 0.0], [10.0, 5.0], [50.0, 50.0]]),
    ("radio", "cloudlet_xy"): lambda: np.array([[20.0, 20.0], [80.0, 80.0]]),
    ("radio", "path_loss_db"): lambda: np.array([[90.0, 120.0], [100.0, 105.0]]),
    ("radio", "dbm"): lambda: 20.0,
    ("radio", "bandwidth_hz"): lambda: 10e6,
    ("clustering", "positions"): lambda: np.random.default_rng(0).uniform(0, 100, (8, 2)),
    ("clustering", "counts"): lambda: np.random.default_rng(1).integers(0, 5, (8, 6)) + 0.0,
    ("clustering", "sigma"): lambda: 20.0,
    ("clustering", "theta"): lambda: 0.5,
    ("caching", "rank"): lambda: np.array([1, 0, 2, 3, 4], dtype=np.int64),
    ("matching", "proposer_prefs"): lambda: _prefs()[0],
    ("matching", "receiver_prefs"): lambda: _prefs()[1],
    ("red", "sample"): lambda: 6.0,
    ("red", "samples"): lambda: np.linspace(0.0, 30.0, 50),
    ("red", "uniforms"): lambda: np.random.default_rng(0).random(50),
    ("red", "w_q"): lambda: 0.1,
    ("red", "func"): lambda: "f",
    ("params.takes", "model"): lambda: _params_model(),
    ("sweep", "func"): lambda: _product,
    ("sweep", "grid"): lambda: {"x": [1, 2], "y": [3]},
    ("sweep", "point"): lambda: {"x": 1},
    ("output_analysis", "series"): lambda: np.random.default_rng(0).standard_normal(500),
    ("output_analysis", "func"): lambda: "f",
    ("output_analysis", "overload"): lambda: "raise",
    ("output_analysis", "counts"): lambda: [3, 4],
    ("output_analysis", "mean"): lambda: 1.0,
    ("output_analysis", "half_width"): lambda: 0.5,
    ("output_analysis", "one"): lambda: _replication,
    ("output_analysis", "replications"): lambda: 3,
    ("output_analysis", "reps"): _replications,
    ("output_analysis", "metric"): lambda: "x",
    ("output_analysis", "quantities"): lambda: ["x"],
    ("output_analysis", "confidence"): lambda: 0.95,
    ("output_analysis", "run_length"): lambda: 400,
    ("output_analysis", "run_unit"): lambda: "draws",
    ("caching", "trace"): lambda: np.array([1, 2, 1, 3, 1, 2, 4, 1], dtype=np.int64),
    ("caching", "capacity"): lambda: 2,
    ("red", "avg"): lambda: 8.0,
    ("red", "min_th"): lambda: 5.0,
    ("red", "max_th"): lambda: 15.0,
    ("red", "max_p"): lambda: 0.1,
}


def _atlas_frame():
    return pd.DataFrame(
        {
            "paper": "p4",
            "claim": ["c1", "c1"],
            "reading": ["all", "default"],
            "points": [4, 4],
            "undetermined": [0, 0],
            "holds_share": [0.5, 0.5],
            "ci_low": [0.15, 0.15],
            "ci_high": [0.85, 0.85],
            "verdict": ["depends", "depends"],
            "decided_by": ["x", "x"],
            "flip": ["x ≤ 1: holds at 0/2; above: 2/2", ""],
        }
    )


#: Valid values for the names the package-wide walk reaches beyond the papers and the
#: building blocks (claims, exercises, registry, results), looked up like :data:`EXAMPLES`.
WALK_EXAMPLES: dict[tuple[str, str], Callable[[], object]] = {
    ("claims", "paper"): lambda: "p4",
    ("atlas", "paper"): lambda: "p4",
    ("atlas", "frame"): _atlas_frame,
    ("exercises", "paper"): lambda: "p4",
    ("exercises", "number"): lambda: 1,
    ("registry", "paper_id"): lambda: "p4",
    ("results", "reps"): lambda: pd.DataFrame({"x": [1.0, 2.0, 4.0]}),
    ("results", "quantities"): lambda: ["x"],
    ("results", "confidence"): lambda: 0.95,
    ("registry", "path"): lambda: _papers_json(),
    ("seeding", "root"): lambda: 1,
    ("seeding", "n"): lambda: 3,
    ("seeding", "seed"): lambda: 7,
    ("seeding", "base"): lambda: 2019,
    ("arena", "path"): lambda: "neutral",
    ("arena", "scenario"): lambda: "neutral",
    ("arena", "policy"): lambda: "local",
    ("arena", "nodes"): lambda: _neutral()["nodes"],
    ("arena", "workload"): lambda: _neutral()["workload"],
    ("notation", "text"): lambda: "lam_u^2 [1/s]",
    ("notation", "param"): lambda: _a_param(),
    ("numfmt", "value"): lambda: 1234.5678,
    ("numfmt", "text"): lambda: "1,5",
    ("rendering", "fig"): lambda: _a_figure(),
    ("rendering", "buf"): lambda: io.BytesIO(),
    ("rendering", "png"): lambda: _a_png(),
}


def _a_param():
    """A declared parameter row (P4's arrival rate)."""
    from workbench.redundancy import PARAMS

    return next(iter(PARAMS.values()))


def _a_png() -> bytes:
    """A PNG written by :func:`workbench.rendering.save_png` (it records its text size)."""
    from workbench.rendering import save_png

    buf = io.BytesIO()
    save_png(_a_figure(), buf)
    return buf.getvalue()


def _a_figure():
    """A small themed figure with a labelled line."""
    from workbench.plots import figure

    fig, ax = figure()
    ax.plot([0, 1], [0, 1], label="lam_u")
    ax.set(xlabel="T_cl [s]", ylabel="P_b")
    return fig


def _papers_json() -> str:
    """An empty JSON list of extra papers (registry.papers_from_json)."""
    path = os.path.join(tempfile.gettempdir(), "wb-fuzz-papers.json")
    with open(path, "w") as f:
        f.write("[]")
    return path


def _neutral() -> dict:
    """The shipped neutral arena scenario as a dict."""
    import yaml

    from workbench.arena.scenario import SCENARIOS_DIR

    return yaml.safe_load((SCENARIOS_DIR / "neutral.yaml").read_text())


def example(module: str, name: str, func: str = ""):
    """A valid value for parameter ``name`` of ``func`` in ``module`` (KeyError if none).

    Looked up in the package's own ``examples.EXAMPLES`` (the nearest package up from
    ``module`` that has one) as ``"<func>.<name>"``, then ``"<name>"``; then here as
    ``("<suffix>.<func>", name)``, ``("<suffix>", name)`` for each suffix of the module's
    name below ``workbench``, the longest first (``arena.env``, ``env``, then the package
    ``arena``), then ``("*", name)``.
    """
    own = _package_examples(module)
    for key in (f"{func}.{name}", name):
        if key in own:
            return own[key]()
    parts = module.split(".")[1:]
    suffixes = [".".join(parts[i:]) for i in range(len(parts))]
    suffixes += [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    keys = [k for s in suffixes for k in ((f"{s}.{func}", name), (s, name))] + [("*", name)]
    for key in keys:
        for table in (EXAMPLES, WALK_EXAMPLES):
            if key in table:
                return table[key]()
    raise KeyError(name)


def _package_examples(module: str) -> Mapping:
    """A paper package's own examples (``<package>.examples.EXAMPLES``, the nearest
    package up from ``module`` that has them), else none."""
    while module.count("."):
        try:
            return importlib.import_module(f"{module}.examples").EXAMPLES
        except ModuleNotFoundError:
            module = module.rpartition(".")[0]
    return {}


# ------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------


@dataclass
class Case:
    module: str
    name: str
    param: str  # the argument changed ("" for the baseline, "**" for an unknown keyword)
    kind: str  # "invalid", "valid", "unknown", "baseline"
    value_repr: str
    args: dict = field(repr=False, default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.module}.{self.name}({self.param}={self.value_repr}) [{self.kind}]"


def _table(module) -> Mapping | None:
    """The parameter table of ``module``, else of the nearest package above it that has one
    (an entry point such as ``workbench.arena.env`` is governed by ``arena.PARAMS``)."""
    name = module.__name__
    while True:
        params = getattr(importlib.import_module(name), "PARAMS", None)
        if isinstance(params, Mapping):
            return params
        if name.count(".") < 2:  # workbench.<package>: no further up
            return None
        name = name.rpartition(".")[0]


def _table_for(mod, modname: str, obj) -> Mapping | None:
    """The parameter table that governs ``obj``: its package's, or, for a name re-exported
    from elsewhere (``hierarchy.pollaczek_khinchine`` is ``erlang``'s), its own module's."""
    owner = getattr(obj, "__module__", "") or ""
    if owner == modname or owner.startswith(modname + "."):
        return _table(mod)
    try:
        return _table(importlib.import_module(owner))
    except ImportError:
        return None


def _public_callables(modname: str):
    mod = importlib.import_module(modname)
    for name in getattr(mod, "__all__", []):
        if modname in ONLY and name not in ONLY[modname]:
            continue  # exported by its package: walked there
        obj = getattr(mod, name, None)
        if (
            obj is None
            or not callable(obj)
            or name.endswith(SKIP_SUFFIXES)
            or name.startswith(SKIP_PREFIXES)
        ):
            continue
        if inspect.isclass(obj) and (
            issubclass(obj, BaseException) or is_dataclass(obj) or hasattr(obj, "_fields")
        ):
            # result types are returned, not called (structured inputs are built by the
            # package's builders, which are fuzzed)
            if name not in ("Topology",):
                continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            continue
        yield mod, name, obj, sig


def _baseline(modname: str, mod, sig, func: str = "") -> tuple[dict, list[str]]:
    """Keyword arguments of a valid call, and the parameters nothing gave a value for."""
    table = _table(mod)
    args, missing = {}, []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.kind is p.POSITIONAL_ONLY:
            continue
        if p.name in RUN_LENGTHS and table is not None and p.name in table:
            low = table[p.name].low
            if low is not None:
                args[p.name] = int(math.ceil(low)) if table[p.name].kind == "int" else low
                continue
        if p.default is not p.empty:
            continue
        if table is not None and p.name in table and table[p.name].default is not None:
            args[p.name] = table[p.name].default
            continue
        try:
            args[p.name] = example(modname, p.name, func)
        except KeyError:
            missing.append(p.name)
    return args, missing


def _invalid_values(param, example=inspect.Parameter.empty) -> list:
    if param is None:
        return _wrong_types(example)
    return [v for v in _invalid_candidates(param) if not _admissible(v, param)]


def _wrong_types(example) -> list:
    """Values of the wrong type for a parameter no table declares, judged by a valid value
    (its example or its default): a string where a number goes, a number where a string goes,
    NaN where a finite number goes; never a value of the right type whose range is unknown."""
    if example is inspect.Parameter.empty or example is None:
        return [object()]
    if isinstance(example, (bool, np.bool_)):
        return [None, "x", 2, object()]
    if isinstance(example, numbers.Real):
        return [None, "x", object(), math.nan]
    if isinstance(example, str):
        return [None, 1, object()]
    if callable(example) and not isinstance(example, type):
        return [None, "x"]
    return [None, "x", -1]


def _admissible(value, param) -> bool:
    """A value the table declares valid outside its range (``Param.extra``, e.g. θ = ∞)."""
    extra = getattr(param, "extra", ())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return any(value == e for e in extra)


def _invalid_candidates(param) -> list:
    out = [None, "1", math.nan, math.inf]
    kind = param.kind
    if kind in ("real", "int"):
        if param.low is not None:
            out.append(param.low - max(1.0, abs(param.low)))
            if param.low_open:
                out.append(param.low)
        if param.high is not None:
            out.append(param.high + max(1.0, abs(param.high)))
            out.append(10**30)
        out += [True, -math.inf]
        if kind == "int":
            out.append(2.5)
    elif kind == "choice":
        out += ["no-such-choice", 1]
    elif kind == "bool":
        out += ["False", 2]
    elif kind == "seed":
        out += [-1, 2**64, 1.5]
    if param.pair:
        out.append((1, 2, 3))
    return out


class _Mutated:
    """A structured input changed after it was built and checked (a cycle in a hierarchy's
    parents): the object must refuse the change, or the call must catch it at use."""

    def __init__(self, build):
        self.build = build

    def __repr__(self) -> str:
        return "<mutated after construction>"


def _mutated_topology():
    from workbench import hierarchy

    t = hierarchy.symmetric_tree()
    try:
        t.parent[0] = 1  # centre -> a cycle 0 -> 1 -> 0
        t.parent[3] = 99  # an index out of range
    except ValueError:
        pass  # frozen: the Topology stays as it was checked
    return t


#: ``parameter -> builder`` of a mutated object (built in the child that makes the call)
MUTATED = {"topology": _mutated_topology}

RAGGED = [[1, 2], [3]]


def edge_values(name: str, example) -> list:
    """Values that are neither clearly valid nor clearly invalid: the library may take them
    or refuse them with its own error, never answer with a raw exception, NaN or a hang.

    Extreme confidences and precision targets, ragged lists and 0-d arrays where an array
    goes, infinities where a number goes, and objects mutated after construction."""
    out = []
    if "confidence" in name:
        out += [float(np.nextafter(1.0, 0.0)), 1e-300]
    if name in ("half_width", "rel_half_width"):
        out += [1e-308, 1e308]
    numeric_list = isinstance(example, (list, tuple)) and bool(example)
    numeric_list = numeric_list and all(isinstance(x, numbers.Real) for x in example)
    if numeric_list or (isinstance(example, np.ndarray) and example.ndim >= 1):
        out += [RAGGED, np.array(2.0)]
    elif isinstance(example, numbers.Real) and not isinstance(example, (bool, np.bool_)):
        out += [math.inf, -math.inf, 1e308]
    if name in MUTATED:
        out.append(_Mutated(MUTATED[name]))
    return out


def _valid_values(param) -> list:
    if param is None or param.kind not in ("real", "int", "choice"):
        return []
    if param.kind == "choice":
        return list(param.choices)
    try:
        lo, hi = param.slider_span
    except ValueError:
        return []
    vals = [lo + (hi - lo) * u for u in (0.1, 0.5, 0.9)]
    if param.kind == "int":
        vals = sorted({int(round(v)) for v in vals})
    return [(v, v) if param.pair else v for v in vals]


def cases() -> tuple[list[Case], list[str]]:
    """Every fuzz case of the public surface, and the names skipped for want of a baseline."""
    out, skipped = [], []
    for modname in modules():
        for mod, name, obj, sig in _public_callables(modname):
            if (modname, name) in INNER:
                continue
            base, missing = _baseline(modname, mod, sig, name)
            if missing:
                skipped.append(f"{modname}.{name}: no example value for {missing}")
                continue
            table = _table_for(mod, modname, obj)
            out.append(Case(modname, name, "", "baseline", "", dict(base)))
            takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
            if takes_kwargs:
                out.append(Case(modname, name, "**", "unknown", "1", {**base, "zzz_typo": 1}))
            for p in sig.parameters.values():
                if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.kind is p.POSITIONAL_ONLY:
                    continue
                row = table.get(p.name) if table is not None and p.name in table else None
                valid = base.get(p.name, p.default)
                admits = ADMITS.get((modname, name, p.name), (lambda v: False, ""))[0]
                for v in _invalid_values(row, valid):
                    if p.default is not p.empty and v is p.default:
                        continue  # the signature's own default (None: "unchanged") is valid
                    if admits(v):
                        continue
                    out.append(
                        Case(modname, name, p.name, "invalid", _short(v), {**base, p.name: v})
                    )
                for v in _valid_values(row):
                    out.append(Case(modname, name, p.name, "valid", _short(v), {**base, p.name: v}))
                for v in edge_values(p.name, valid):
                    out.append(Case(modname, name, p.name, "edge", _short(v), {**base, p.name: v}))
    return out, skipped


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------------------------------
# Running a case
# ------------------------------------------------------------------------------------------


def _numbers(obj, name: str = "", depth: int = 0, table: bool = False):
    """Yield ``(name, float, in_table)`` for every number in a result (bounded depth);
    ``in_table`` marks the cells of a tidy DataFrame, where NaN means "not applicable"."""
    if depth > 3:
        return
    if isinstance(obj, (bool, np.bool_)):
        return
    if isinstance(obj, numbers.Real):
        yield name, float(obj), table
    elif isinstance(obj, np.ndarray) and obj.dtype.kind in "fiu" and obj.size <= 10**6:
        for x in obj.ravel()[:10_000]:
            yield name, float(x), table
    elif isinstance(obj, pd.DataFrame):
        for col in obj.select_dtypes("number").columns:
            yield from _numbers(obj[col].to_numpy(), f"{name}.{col}", depth + 1, True)
    elif isinstance(obj, pd.Series) and obj.dtype.kind in "fiu":
        yield from _numbers(obj.to_numpy(), name, depth + 1, True)
    elif hasattr(obj, "summary") and hasattr(obj, "stationarity"):  # SimulationResult
        summary = obj.summary
        for _, r in summary.iterrows():
            for col in ("estimate", "ci_low", "ci_high"):
                yield f"{r['quantity']}.{col}", float(r[col]), False
    elif isinstance(obj, Mapping):
        for k, v in list(obj.items())[:200]:
            yield from _numbers(v, f"{name}.{k}", depth + 1)
    elif isinstance(obj, (tuple, list)) and len(obj) <= 200:
        fields = getattr(obj, "_fields", None)
        for i, v in enumerate(obj):
            yield from _numbers(v, f"{name}.{fields[i] if fields else i}", depth + 1)


def garbage(result) -> str:
    """Why a returned value is garbage ("" when it is not)."""
    for name, x, in_table in _numbers(result):
        low = name.lower()
        if math.isnan(x):
            if not in_table:
                return f"{name} = {x}"
            continue  # a tidy table's "not applicable"
        if math.isinf(x) and not (in_table or "half_width" in low or "ci_" in low):
            # tables may say "unbounded" (infinite servers, an interval of infinite variance)
            return f"{name} = {x}"
        if any(w in low for w in TIME_WORDS) and x < -1e-12:
            return f"negative time {name} = {x}"
        if any(w in low.rsplit(".", 1)[-1] for w in PROB_WORDS) and not (-1e-12 <= x <= 1 + 1e-9):
            return f"probability {name} = {x} outside [0, 1]"
    return ""


def _classify(case: Case) -> tuple[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    from workbench.validation import ParameterError

    mod = importlib.import_module(case.module)
    func = getattr(mod, case.name)
    case.args = {k: v.build() if isinstance(v, _Mutated) else v for k, v in case.args.items()}
    try:
        inspect.signature(func).bind(**case.args)
    except TypeError as err:  # Python's own signature check: an explicit refusal
        return "clean", f"signature: {err}"
    try:
        result = func(**case.args)
    except ParameterError as err:
        return "clean", f"{type(err).__name__}: {str(err)[:200]}"
    except Exception as err:  # noqa: BLE001 - counting exactly these
        tb = traceback.format_exc(limit=-3)
        return "raw", f"{type(err).__name__}: {str(err)[:200]}\n{tb}"
    why = garbage(result)
    return ("garbage", why) if why else ("ok", "")


def _cpu() -> float:
    """CPU seconds of this process (a forked child counts from zero) and its children."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _child(case: Case, conn) -> None:
    start = _cpu()
    try:
        out = _classify(case)
    except BaseException as err:  # noqa: BLE001
        out = ("raw", f"{type(err).__name__}: {err}")
    try:
        conn.send((*out, _cpu() - start))
    except (pickle.PicklingError, TypeError):
        conn.send((out[0], str(out[1]), _cpu() - start))
    conn.close()


def run_case(case: Case, timeout: float = 20.0) -> tuple[str, str, float]:
    """``(outcome, detail, seconds)`` of one case, in a forked child with a time limit
    (:func:`run_case_cpu` adds the CPU seconds the call used).

    A call that runs the model (baseline, valid values) gets three times the limit: its first
    run in a fresh process may load or compile kernels. A refusal must come at once.
    """
    return run_case_cpu(case, timeout)[:3]


def run_case_cpu(case: Case, timeout: float = 20.0) -> tuple[str, str, float, float]:
    """``(outcome, detail, seconds, cpu)``: :func:`run_case` and the CPU seconds of the call
    (NaN when the child did not answer)."""
    if case.kind in ("baseline", "valid", "edge"):
        timeout *= 3
    cpu = math.nan
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(case, child), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    if fuzz_surfaces.wait_answer(parent, proc.pid, timeout):
        try:
            outcome, detail, cpu = parent.recv()
        except EOFError:  # died without answering: a signal (SIGSEGV) is a crash
            proc.join(5)
            code = proc.exitcode
            outcome = "crash" if code is not None and code < 0 else "raw"
            detail = f"child died (exit {code})"
    else:
        outcome, detail = "hang", f"no answer within {timeout:g} s of its own time"
    seconds = time.perf_counter() - t0
    if proc.is_alive():
        proc.kill()
    proc.join(5)
    parent.close()
    if outcome == "raw" and proc.exitcode not in (0, None) and not detail:
        detail = f"child exit {proc.exitcode}"
    return outcome, detail, seconds, cpu


def sample(all_cases: list[Case], n: int, seed: int = 0, kinds=None) -> list[Case]:
    """A fixed sample: one case of each kind (of ``kinds``, default all) for every public
    name, every mutated object, then random cases of those kinds up to ``n``."""
    rng = random.Random(seed)
    kinds = tuple(kinds or ("baseline", "unknown", "invalid", "valid", "edge"))
    all_cases = [c for c in all_cases if c.kind in kinds]
    chosen, seen = [], set()
    for kind in kinds:
        for c in all_cases:
            key = (c.module, c.name, kind)
            if c.kind == kind and key not in seen:
                seen.add(key)
                chosen.append(c)
    # every object mutated after construction (few, and what a sample must not miss)
    chosen += [c for c in all_cases if c.value_repr == repr(_Mutated(None)) and c not in chosen]
    rest = [c for c in all_cases if c not in chosen]
    rng.shuffle(rest)
    return chosen + rest[: max(0, n - len(chosen))]


def run(selected: list[Case], timeout: float = 20.0, progress: bool = False) -> pd.DataFrame:
    rows = []
    for i, case in enumerate(selected):
        outcome, detail, seconds, cpu = run_case_cpu(case, timeout)
        rows.append(
            {
                "module": case.module,
                "name": case.name,
                "param": case.param,
                "kind": case.kind,
                "value": case.value_repr,
                "outcome": outcome,
                "seconds": seconds,
                "cpu": cpu,
                "slow": cpu > SLOW_CPU,
                "detail": detail,
            }
        )
        if progress and outcome in ("raw", "hang", "garbage", "crash"):
            print(
                f"  {outcome}: {case.label}: {(detail.splitlines() or [''])[0][:160]}", flush=True
            )
        if progress and (i + 1) % 50 == 0:
            print(f"{i + 1}/{len(selected)} {Counter(r['outcome'] for r in rows)}", flush=True)
    return pd.DataFrame(rows)


def failures(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows that break the contract: raw errors, hangs, garbage, and a misspelled keyword that
    was accepted (an ``unknown`` case that returned)."""
    bad = frame["outcome"].isin(["raw", "hang", "garbage", "crash"])
    bad |= (frame["kind"] == "unknown") & (frame["outcome"] == "ok")
    bad |= (frame["kind"] == "invalid") & (frame["outcome"] == "ok")
    return frame[bad]
