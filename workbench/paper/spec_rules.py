"""Rules on what a paper package declares: its table, simulate, figures, views, claims, ...

Each rule is ``rule(target) -> iterable of (where, message)``; nothing yielded: it holds.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Mapping

from workbench.claims import AtlasSpec
from workbench.paper.target import PARTS
from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params
from workbench.results import SimulationResult
from workbench.validation import ParameterError

SHARED = {p.name: p for p in (SEED, REPLICATIONS, CONFIDENCE, WARMUP)}
RUN_LENGTHS = {"events", "jobs", "periods", "slots", "requests"}
# keyword names the shared vocabulary replaces (README, "Shared names")
RETIRED_KEYWORDS = {"scheme": "policy", "arrival_rate": "lam", "rate": "lam"}
#: a row whose meaning names a physical quantity has a unit (unless it says it is a ratio)
DIMENSIONAL = re.compile(
    r"\b(rates?|times?|delay|latency|duration|deadline|interval|period|size|power|energy|"
    r"distance|bandwidth|throughput|frequency|speed|bits|bytes|memory|capacity)\b"
)
DIMENSIONLESS = re.compile(
    r"\b(fraction|probability|ratio|share|coefficient|multiplier|weight|index|count|number|"
    r"factor|exponent|level|tolerance|per unit|threshold)\b"
)
#: keyword names of the shared vocabulary that are physical quantities (README, "Shared names")
DIMENSIONAL_NAMES = {"lam", "mu", "rate", "delay", "deadline", "bandwidth", "power", "energy"}


def skeleton(target):
    """Every module of the skeleton exists and imports."""
    for part in PARTS:
        if not (target.dir / f"{part}.py").exists():
            yield f"{target.package}.{part}", "missing: every paper package has this module"
        elif part != "views" and target.part(part) is None:
            yield f"{target.package}.{part}", f"does not import: {target.errors[part]}"
    if target.module is not None and "simulate_to_precision" not in getattr(
        target.module, "__all__", ()
    ):
        yield target.package, "__all__ does not export simulate_to_precision"


def _table(target) -> Params | None:
    table = target.declared("params", "PARAMS")
    return table if isinstance(table, Params) else None


def params_table(target):
    """``params.PARAMS`` is a non-empty Params of described rows with valid defaults."""
    table = _table(target)
    if table is None or not len(table):
        yield f"{target.package}.params", "PARAMS is missing or not a non-empty Params table"
        return
    for p in table.values():
        if not (isinstance(p, Param) and p.symbol and p.meaning):
            yield f"PARAMS[{p.name!r}]", "a row needs a symbol and a meaning"
        if p.source not in ("paper", "choice"):
            yield f"PARAMS[{p.name!r}]", f"source is {p.source!r}, not 'paper' or 'choice'"
        if p.default is not None:
            try:
                p.check(p.default, "check_paper")
            except Exception as err:
                yield f"PARAMS[{p.name!r}]", f"the default is refused: {err}"


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def params_ranges(target):
    """Every real or int row has a finite range (``low`` < ``high``, both numbers; a value
    beyond, like θ = ∞, only through ``extra``), and a unit when it is a physical quantity
    (its meaning names one: rate, time, delay, size, power, ...; or it is ``lam``, ``mu``)."""
    for p in (_table(target) or {}).values():
        if p.kind not in ("real", "int"):
            continue
        where = f"PARAMS[{p.name!r}]"
        if not (_finite(p.low) and _finite(p.high)):
            yield (
                where,
                (
                    f"no finite range: low={p.low!r}, high={p.high!r} (declare both bounds; "
                    "a value beyond them, like inf, goes in extra=)"
                ),
            )
        elif not p.low < p.high:
            yield where, f"an empty range: low={p.low!r} is not below high={p.high!r}"
        meaning = p.meaning.lower()
        physical = (DIMENSIONAL.search(meaning) and not DIMENSIONLESS.search(meaning)) or (
            p.name.split("_")[0] in DIMENSIONAL_NAMES
        )
        if physical and not (isinstance(p.unit, str) and p.unit.strip()):
            yield where, f"{p.meaning!r} is a physical quantity but has no unit"


def _as_value(p: Param, x):
    if p.pair:
        return (x, x)
    if p.length:
        return (x,) * p.length[0]
    return x


def _outside(p: Param):
    """Values just below ``low`` and just above ``high`` (None where unbounded)."""
    if p.kind not in ("real", "int"):
        return ()
    out = []
    for bound, sign, is_open in ((p.low, -1, p.low_open), (p.high, 1, p.high_open)):
        if bound is not None:
            step = 1 if p.kind == "int" else max(abs(bound) * 1e-6, 1e-9)
            out.append(bound + sign * step * (not is_open))
    return out


def params_sliders(target):
    """A slider never offers a value validation refuses, and holds its row's default; a value
    just outside a row's range is refused with the shared message naming the parameter."""
    table = _table(target) or {}
    for p in table.values():
        for bad in _outside(p):
            try:
                p.check(_as_value(p, bad), "f")
            except ParameterError as err:
                if f"The '{p.name}' parameter of f must" not in str(err):
                    yield f"PARAMS[{p.name!r}]", f"{bad!r} refused without the shared message"
            else:
                yield f"PARAMS[{p.name!r}]", f"{bad!r}, outside its range, is accepted"
        if p.kind not in ("real", "int") or (p.slider or (p.low, p.high)) == (None, None):
            continue
        try:
            lo, hi = p.slider_span
        except ValueError:
            continue  # unbounded and no slider: not a slider parameter
        for bound in (lo, hi):
            try:
                p.check(_as_value(p, bound), "check_paper")
            except Exception as err:
                yield f"PARAMS[{p.name!r}]", f"the slider offers {bound!r}, refused: {err}"
        if p.default is not None and not (p.pair or p.length) and not lo <= p.default <= hi:
            yield f"PARAMS[{p.name!r}]", f"default {p.default!r} outside the slider [{lo}, {hi}]"


def _functions(module):
    """Functions and methods defined in ``module`` (not imported into it)."""
    for obj in list(vars(module).values()):
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            yield obj.__qualname__, obj
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            for meth in vars(obj).values():
                f = getattr(meth, "__func__", meth)
                if inspect.isfunction(f) and f.__module__ == module.__name__:
                    yield f.__qualname__, f


def same(a, b) -> bool:
    """Equal defaults (bools only equal bools; floats to 1e-12; NaN equals NaN)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def params_by_hand(target):
    """A model keyword's default is written once, in the table.

    A function that takes the paper's parameter object (:func:`workbench.params.takes`) has
    its keywords and defaults generated from the table. Any other function that gives a
    table keyword a default (other than ``None``, "the table's") keeps a copy that can drift,
    and is named. The shared run keywords (``seed``, ``replications``, ``confidence``,
    ``warmup``) may be written by hand, with the shared default: ``seed=0`` is how every
    frame keeps the published numbers."""
    table = _table(target) or {}
    for path, module in target.modules():
        for qualname, func in _functions(module):
            if getattr(func, "params_model", None) is not None:
                continue
            for name, p in inspect.signature(func).parameters.items():
                if p.default is inspect.Parameter.empty or p.default is None:
                    continue
                where = f"{target.rel(path)}: {qualname}"
                if name in SHARED:
                    row = table[name] if name in table else SHARED[name]
                    if not same(p.default, row.default):
                        yield (
                            where,
                            f"{name}={p.default!r} but the shared default is {row.default!r}",
                        )
                elif name in table:
                    yield (
                        where,
                        f"writes the table keyword {name}={p.default!r} by hand: take it "
                        "through workbench.params.takes (or without a default from a caller "
                        "that has the object)",
                    )


def simulate_keywords(target):
    """simulate / simulate_to_precision: keyword-only, with the shared keywords."""
    for name in ("simulate", "simulate_to_precision"):
        func = target.declared("simulation", name)
        where = f"{target.package}.simulation.{name}"
        if not callable(func):
            yield where, "missing"
            continue
        params = inspect.signature(func).parameters
        positional = [
            n
            for n, p in params.items()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and not _is_object(func, n, p)
        ]
        if positional:
            yield where, f"takes {positional} positionally: every argument is keyword-only"
        needed = {"seed", "confidence", "overload"}
        needed |= {"max_replications"} if name == "simulate_to_precision" else {"replications"}
        if name == "simulate_to_precision":
            needed |= {"rel_half_width"}
        if not needed <= set(params):
            yield where, f"lacks {sorted(needed - set(params))}"
        for key in ("seed", "replications", "confidence"):
            if key in params and params[key].default is inspect.Parameter.empty:
                yield where, f"{key!r} has no default"
        if name == "simulate" and not RUN_LENGTHS & set(params):
            yield where, f"no run-length keyword (one of {sorted(RUN_LENGTHS)})"
    if hasattr(target.part("simulation") or object(), "simulate_until"):
        yield f"{target.package}.simulation", "simulate_until is retired: simulate_to_precision"


def _is_object(func, name, p) -> bool:
    """The parameter object's own slot, ``f(params, /, *, ...)``, from
    :func:`workbench.params.takes`: the one positional argument a simulator may take."""
    return (
        getattr(func, "params_model", None) is not None
        and p.kind is p.POSITIONAL_ONLY
        and name == "params"
    )


def simulate_warmup(target):
    """simulate takes ``warmup``, a fraction of the run length in [0, 0.9]."""
    func = target.declared("simulation", "simulate")
    if func is None:
        return
    if "warmup" not in inspect.signature(func).parameters:
        yield f"{target.package}.simulation.simulate", "no 'warmup' fraction"
        return
    table = _table(target) or {}
    row = table["warmup"] if "warmup" in table else WARMUP
    if not (row.kind == "real" and row.low == 0 and row.high is not None and row.high <= 0.9):
        yield "PARAMS['warmup']", "warmup must be a fraction of the run length in [0, 0.9]"


def simulate_result(target):
    """simulate returns a SimulationResult, overload defaults to "raise" and "ignore" is
    refused with the library's ParameterError."""
    func = target.declared("simulation", "simulate")
    if func is None:
        return
    where = f"{target.package}.simulation.simulate"
    sig = inspect.signature(func)
    if sig.return_annotation not in (SimulationResult, "SimulationResult"):
        yield where, f"returns {sig.return_annotation!r}, not SimulationResult"
    over = sig.parameters.get("overload")
    if over is None:
        return
    default = over.default
    table = _table(target) or {}
    if default is None and "overload" in table:
        default = table["overload"].default
    if default != "raise":
        yield where, f"overload defaults to {default!r}, not 'raise'"
    args, missing = baseline(target, "simulate", func)
    if missing:
        return  # examples.cover names them
    try:
        func(**args, overload="ignore")
    except ParameterError as err:
        if "'overload' parameter" not in str(err):
            yield where, f"overload='ignore' refused with another message: {err}"
    except Exception as err:
        yield where, f"overload='ignore' raised {type(err).__name__}, not ParameterError"
    else:
        yield where, "overload='ignore' was accepted"


def figures_views(target):
    """FIGURES: FigureSpec(<name>_frame(quick), plot_<name>); VIEWS: <name>_view."""
    figures = target.declared("figures", "FIGURES")
    if not isinstance(figures, Mapping) or not figures:
        yield f"{target.package}.figures", "FIGURES is missing or empty"
        figures = {}
    for key, spec in figures.items():
        # workbench.plots loads matplotlib: the spec is recognised by its class, not imported
        if (type(spec).__module__, type(spec).__name__) != ("workbench.plots", "FigureSpec"):
            yield f"FIGURES[{key!r}]", "not a workbench.plots.FigureSpec"
            continue
        if spec.frame.__name__ != f"{key}_frame":
            yield f"FIGURES[{key!r}]", f"frame is {spec.frame.__name__}, not {key}_frame"
        if spec.plot.__name__ != f"plot_{key}":
            yield f"FIGURES[{key!r}]", f"plot is {spec.plot.__name__}, not plot_{key}"
        if "quick" not in inspect.signature(spec.frame).parameters:
            yield f"FIGURES[{key!r}]", "frame takes no 'quick'"
    views = target.declared("views", "VIEWS")
    if not isinstance(views, Mapping) or not views:
        why = target.errors.get("views", "VIEWS is missing or empty")
        yield f"{target.package}.views", why
        views = {}
    for key, view in views.items():
        if not callable(view) or getattr(view, "__name__", "") != f"{key}_view":
            yield f"VIEWS[{key!r}]", f"is {getattr(view, '__name__', view)!r}, not {key}_view"


def vocabulary(target):
    """Public keywords use the shared names (lam, policy), not the retired ones."""
    for path, module in target.modules():
        for qualname, func in _functions(module):
            if qualname.startswith("_") or ".__" in qualname:
                continue
            for name in inspect.signature(func).parameters:
                if name in RETIRED_KEYWORDS:
                    yield f"{path.name}: {qualname}", f"{name}=… → {RETIRED_KEYWORDS[name]}"


def claims_declared(target):
    """CLAIMS maps ids to measure(quick); ATLAS is a workbench.claims.AtlasSpec."""
    claims = target.declared("claims", "CLAIMS")
    if not isinstance(claims, Mapping) or not claims:
        yield f"{target.package}.claims", "CLAIMS is missing or empty"
    else:
        for key, measure in claims.items():
            if not callable(measure) or "quick" not in inspect.signature(measure).parameters:
                yield f"CLAIMS[{key!r}]", "not a measure(quick) callable"
    atlas = target.declared("claims", "ATLAS")
    if not isinstance(atlas, AtlasSpec):
        yield f"{target.package}.claims", "ATLAS is missing (workbench.claims.AtlasSpec)"
    elif not callable(atlas.evaluate) or "<" in atlas.evaluate.__qualname__:
        yield f"{target.package}.claims.ATLAS", "evaluate must be a module-level function"


def baseline(target, name: str, func) -> tuple[dict, list]:
    """Keyword arguments of a valid call of ``func`` (public name ``name``) from the table's
    defaults and the package's EXAMPLES, and the required arguments nothing gives."""
    table, ex = _table(target) or {}, target.declared("examples", "EXAMPLES")
    ex = ex if isinstance(ex, Mapping) else {}
    args, missing = {}, []
    for p in inspect.signature(func).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        for key in (f"{name}.{p.name}", p.name):
            if key in ex:
                args[p.name] = ex[key]()
                break
        else:
            if p.name in table and table[p.name].default is not None:
                args[p.name] = table[p.name].default
            else:
                missing.append(p.name)
    return args, missing


def examples_cover(target):
    """examples.EXAMPLES gives every required argument of every public callable a value
    neither a default nor a table row gives (the API fuzz builds its calls from them)."""
    found = target.declared("examples", "EXAMPLES")
    if not isinstance(found, Mapping):
        yield f"{target.package}.examples", "EXAMPLES is missing (a dict of value builders)"
        return
    for key, build in found.items():
        if not callable(build):
            yield f"EXAMPLES[{key!r}]", "not a builder (a callable returning the value)"
    table = _table(target) or {}
    module = target.module
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        if not callable(obj) or isinstance(obj, type) or name.startswith("plot_"):
            continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            continue
        for p in sig.parameters.values():
            if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.name in table and table[p.name].default is not None:
                continue
            if f"{name}.{p.name}" not in found and p.name not in found:
                yield f"{target.package}.{name}", f"no example for the argument {p.name!r}"


RULES: dict[str, Callable] = {
    "skeleton.modules": skeleton,
    "params.table": params_table,
    "params.ranges": params_ranges,
    "params.sliders": params_sliders,
    "params.by_hand": params_by_hand,
    "simulate.keywords": simulate_keywords,
    "simulate.warmup": simulate_warmup,
    "simulate.result": simulate_result,
    "figures_views.naming": figures_views,
    "vocabulary.keywords": vocabulary,
    "claims.declared": claims_declared,
    "examples.cover": examples_cover,
}
