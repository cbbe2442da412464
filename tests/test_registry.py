"""Every registered paper against the shared contract of a paper package.

The skeleton (workbench.registry): params, model, simulation, figures, views, claims; the
model side never imports ipywidgets; the parameter table, the sliders and validation agree.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.claims import load_claims
from workbench.params import Param, Params
from workbench.plots import FigureSpec
from workbench.registry import ARENA, PAPERS, course
from workbench.results import SimulationResult
from workbench.validation import ParameterError

REPO = Path(__file__).resolve().parents[1]
IDS = list(PAPERS)
HEADLESS_PARTS = ("params", "model", "simulation", "figures", "claims")


@pytest.mark.parametrize("pid", IDS)
def test_model_side_never_imports_ipywidgets(pid):
    """With ipywidgets made unimportable, the model side still imports (seaborn probes for
    ipywidgets and tolerates its absence; our code must not need it)."""
    topic = PAPERS[pid].topic
    parts = "; ".join(f"import workbench.{topic}.{p}" for p in HEADLESS_PARTS)
    code = f"import sys; sys.modules['ipywidgets'] = None; import workbench.{topic}; {parts}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, f"{topic} needs ipywidgets: {out.stderr[-800:]}"
    views = subprocess.run(
        [sys.executable, "-c", code.replace(parts, f"import workbench.{topic}.views")],
        capture_output=True,
        text=True,
    )
    assert views.returncode != 0, "the check cannot fail: views imported without ipywidgets"


@pytest.mark.parametrize("pid", IDS)
def test_figures_claims_views_follow_the_skeleton(pid):
    p = PAPERS[pid]
    assert p.figures and all(isinstance(s, FigureSpec) for s in p.figures.values())
    for name, spec in p.figures.items():
        assert {"quick"} <= set(inspect.signature(spec.frame).parameters), name
    assert set(load_claims(pid)["id"]) == set(p.claims), "claims table and CLAIMS differ"
    assert p.views and all(callable(v) for v in p.views.values())
    assert (REPO / p.notebook).exists()


@pytest.mark.parametrize("pid", IDS)
def test_simulate_follows_the_shared_contract(pid):
    sig = inspect.signature(PAPERS[pid].simulate)
    for name in ("seed", "replications", "confidence"):
        assert name in sig.parameters, f"{pid} simulate lacks {name!r}"
        assert sig.parameters[name].default is not inspect.Parameter.empty
    assert sig.return_annotation in (SimulationResult, "SimulationResult"), sig.return_annotation


@pytest.mark.parametrize("pid", IDS)
def test_every_paper_has_the_output_analysis_contract(pid):
    """One overload policy, one precision loop, and no result without a stationarity verdict."""
    module = PAPERS[pid].module
    sig = inspect.signature(PAPERS[pid].simulate)
    assert "overload" in sig.parameters, f"{pid} simulate lacks 'overload'"
    default = sig.parameters["overload"].default
    if default is None:  # None = the parameter table's default
        default = PAPERS[pid].params["overload"].default
    assert default == "raise"
    assert sig.parameters["overload"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "simulate_to_precision" in module.__all__, f"{pid} exports no simulate_to_precision"
    prec = inspect.signature(module.simulate_to_precision)
    assert {"rel_half_width", "seed"} <= set(prec.parameters), f"{pid}: {list(prec.parameters)}"
    with pytest.raises(ParameterError, match="'overload' parameter"):
        PAPERS[pid].simulate(**_minimal_args(pid), overload="ignore")


def _minimal_args(pid: str) -> dict:
    """Required arguments of a paper's simulate, from its table's defaults."""
    table = PAPERS[pid].params
    sig = inspect.signature(PAPERS[pid].simulate)
    args = {}
    for p in sig.parameters.values():
        if p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD:
            if p.name == "service":
                from workbench.redundancy import SExp

                args[p.name] = SExp(1.0, 1.0)
            elif p.name == "scenario":
                from workbench.fog import default_scenario

                args[p.name] = default_scenario(0)
            else:
                args[p.name] = table[p.name].default
    return args


@pytest.mark.parametrize("pid", IDS)
def test_parameter_table_sliders_and_validation_agree(pid):
    table = PAPERS[pid].params
    assert isinstance(table, Params) and len(table) > 0
    for param in table.values():
        assert isinstance(param, Param) and param.symbol and param.meaning, param.name
        assert param.source in ("paper", "choice"), param.name
        if param.default is not None:
            param.check(param.default, "test")  # the default is a valid value
        if param.kind in ("real", "int") and (param.slider or (param.low, param.high)) != (
            None,
            None,
        ):
            try:
                lo, hi = param.slider_span
            except ValueError:
                continue  # unbounded and no slider: not a slider parameter
            for bound in (lo, hi):  # a slider never offers a value validation refuses
                param.check(_as_value(param, bound), "test")
            if param.default is not None and not (param.pair or param.length):
                assert lo <= param.default <= hi, f"{param.name}: default outside the slider span"
        # just outside the valid range is refused with the shared message
        for bad, bound in ((_below(param), param.low), (_above(param), param.high)):
            if bound is None or bad is None:
                continue
            with pytest.raises(ParameterError, match=rf"The '{param.name}' parameter of f must"):
                param.check(_as_value(param, bad), "f")


def _as_value(p: Param, x):
    """``x`` as a whole value of ``p``: a pair, a shortest sequence, or itself."""
    if p.pair:
        return (x, x)
    if p.length:
        return (x,) * p.length[0]
    return x


def _below(p: Param):
    if p.kind not in ("real", "int") or p.low is None:
        return None
    return p.low - (1 if p.kind == "int" else max(abs(p.low) * 1e-6, 1e-9)) * (not p.low_open)


def _above(p: Param):
    if p.kind not in ("real", "int") or p.high is None:
        return None
    return p.high + (1 if p.kind == "int" else max(abs(p.high) * 1e-6, 1e-9)) * (not p.high_open)


def test_every_notebook_is_a_registered_paper_or_the_index():
    on_disk = {p.name for p in (REPO / "notebooks").glob("*.ipynb")}
    registered = {Path(p.notebook).name for p in (*PAPERS.values(), ARENA)}
    assert on_disk - registered == {"00_index.ipynb"}
    assert [p.id for p in course()] == sorted(PAPERS, key=lambda i: (PAPERS[i].order, i))


def test_a_declared_extra_value_outside_the_range_is_accepted_and_nothing_else():
    import math

    theta = Param("theta", "θ", "threshold", "s", low=0.0, high=1e6, extra=(math.inf,))
    assert theta.check(math.inf, "f") == math.inf
    for bad in (-math.inf, math.nan, 2e6, True):
        with pytest.raises(ParameterError, match="'theta' parameter of f"):
            theta.check(bad, "f")
