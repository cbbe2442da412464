"""Every name in workbench.fog.__all__ with declared-invalid and type-wrong values.

Bad values come from the parameter table (just outside each declared range, the wrong
kind) plus a few every function must refuse (None, a string, NaN, a bool where a number is
due). Only the library's own errors may come out, nothing may return NaN or a negative
time, and every call finishes quickly. A new public name needs an entry in ``VALID``.
"""

from __future__ import annotations

import inspect
import math
import time

import pytest

import workbench.fog as fog
from workbench import warm
from workbench.fog.params import PARAMS
from workbench.fog.scenario import ScenarioError
from workbench.validation import ParameterError

SMALL = fog.ring_scenario(3, 3)
RATES = dict(lam_light=10.0, lam_heavy=2.0, mu_light=50.0, mu_heavy=10.0)
VALID = {
    "accept_probability": dict(theta=0.02, **RATES),
    "analyze": dict(scenario=SMALL),
    "simulate": dict(scenario=SMALL, requests=1_000, replications=2),
    "simulate_to_precision": dict(
        scenario=SMALL, requests=1_000, max_replications=4, progress=False
    ),
    "run_once": dict(scenario=SMALL, requests=1_000),
    "erlang_sum_cdf": dict(theta=0.1, n=3, mu=50.0, n2=2, mu2=10.0),
    "erlang_sum_cdf_partial_fractions": dict(theta=0.1, n=3, mu=50.0, n2=2, mu2=10.0),
    "mean_in_system": dict(RATES),
    "mean_work": dict(RATES),
    "solve_chain": dict(RATES),
    "ps_closed_form": dict(theta=0.02, **RATES),
    "fog_loads": dict(scenario=SMALL),
    "default_scenario": dict(),
    "ring_scenario": dict(),
    "grid_scenario": dict(),
    "geometric_scenario": dict(n_fog=4),
    "with_traffic": dict(scenario=SMALL, load=1.0),
    "with_fog_delay": dict(scenario=SMALL, fog_delay=0.001),
    "validate": dict(scenario=SMALL),
    "save_scenario": dict(scenario=SMALL, path="unused.json"),
    "load_scenario": dict(path="unused.json"),
    "tune_theta_per_node": dict(
        scenario=fog.ring_scenario(2, 2), grid=[0.01, 0.02], requests=500, sweeps=1, models=()
    ),
    "compare_thetas": dict(scenario=SMALL, thetas={"a": 0.01}, requests=500, replications=2),
}
ALWAYS_BAD = [None, "x", math.nan, -math.inf]


@pytest.fixture(scope="module", autouse=True)
def _compiled_kernel():
    """Load (or compile) the simulation kernel before anything is timed: once, in the
    worker that runs this module (at import it ran in every worker, at collection); the
    same call as ``python -m workbench compile`` makes for P1."""
    warm._fog()


def declared_invalid(name):
    """Values the parameter table itself declares invalid for ``name``."""
    if name not in PARAMS:
        return []
    p = PARAMS[name]
    bad = ["0.1", [None]]
    if p.kind in ("real", "int"):
        if p.low is not None:
            bad.append(p.low - 1 if p.kind == "int" else p.low - abs(p.low) - 1.0)
        if p.high is not None and name != "theta":
            bad.append(p.high + 1 if p.kind == "int" else p.high * 2 + 1.0)
        bad.append(True)
        if p.kind == "int":
            bad.append(2.5)
    elif p.kind == "choice":
        bad.append("no such choice")
    elif p.kind == "bool":
        bad.extend(["False", 2])
    return bad


def cases():
    for name in sorted(fog.__all__):
        func = getattr(fog, name)
        if name == "PARAMS" or isinstance(func, type):
            continue
        for param, spec in inspect.signature(func).parameters.items():
            if param == "kw" or spec.kind is spec.POSITIONAL_ONLY:
                continue  # the P1Params slot: an object, not a keyword
            for bad in ALWAYS_BAD + declared_invalid(param):
                yield pytest.param(name, param, bad, id=f"{name}-{param}-{bad!r}")


def test_every_public_function_has_a_valid_call():
    public = {n for n in fog.__all__ if n != "PARAMS" and not isinstance(getattr(fog, n), type)}
    assert public <= set(VALID)


@pytest.mark.parametrize("name,param,bad", list(cases()))
def test_bad_values_get_the_librarys_own_errors(name, param, bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if name == "load_scenario":
        fog.save_scenario(SMALL, "unused.json")
    kwargs = {**VALID[name], param: bad}
    start = time.perf_counter()
    try:
        out = getattr(fog, name)(**kwargs)
    except (ParameterError, ScenarioError):
        out = None
    assert time.perf_counter() - start < 10.0
    values = [out] if isinstance(out, float) else []
    values += [out.mean_delay] if hasattr(out, "mean_delay") else []
    assert all(math.isfinite(v) and v >= 0 for v in values)
