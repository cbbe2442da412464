"""P4 package layout: public names, figure and claim ids, the parameter table, no widgets."""

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import workbench.redundancy as rd
from workbench.claims import load_claims
from workbench.redundancy.claims import CLAIMS
from workbench.redundancy.figures import FIGURES
from workbench.redundancy.params import FAMILY_PARAMS, PARAMS
from workbench.results import SimulationResult

ROOT = Path(__file__).resolve().parent.parent


def test_public_names_used_by_outside_checks():
    for name in ("SExp", "Pareto", "Weibull", "system_time", "asto", "bpo", "optimal_m"):
        assert callable(getattr(rd, name)), name
    params = inspect.signature(rd.simulate).parameters
    assert {"jobs", "seed", "replications", "confidence", "warmup"} <= set(params)
    res = rd.simulate(
        N=24,
        m=2,
        lam=1.5,
        t_cloud=15.0,
        service=rd.SExp(3.0, 0.2),
        jobs=200,
        seed=1,
        replications=3,
    )
    assert isinstance(res, SimulationResult) and res.run_length == 200
    assert res["blocking"] == res.blocking and res.replications == 3


def test_figure_names_and_claim_ids_are_kept():
    assert list(FIGURES) == [
        "fig3",
        "fig4",
        "fig5",
        "fig6",
        "fig7",
        "table1",
        "ext_eq8",
        "ext_waiting_room",
        "ext_weibull",
        "ext_heavy_tail",
    ]
    csv = load_claims("p4")
    assert set(csv["id"]) == set(CLAIMS)


def test_model_simulation_figures_and_claims_do_not_import_widgets():
    code = (
        "import sys, workbench.redundancy, workbench.redundancy.simulation, "
        "workbench.redundancy.params, workbench.redundancy.model; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'IPython')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", list(PARAMS))
def test_every_slider_span_and_default_is_valid(name):
    p = PARAMS[name]
    if p.kind in ("choice", "bool", "seed") or p.slider is None and p.default is None:
        return
    lo, hi = p.slider_span
    assert p.check(lo, "test") == lo and p.check(hi, "test") == hi
    if p.default is not None:
        assert lo <= p.default <= hi, (name, p.default, (lo, hi))


def test_each_family_has_its_own_named_parameters():
    for family, names in FAMILY_PARAMS.items():
        defaults = {n: PARAMS[n].default for n in names}
        service = rd.make_service(family, **defaults)
        assert service.params() == defaults
    symbols = [PARAMS[n].symbol for n in PARAMS]
    assert len(symbols) == len(set(symbols)), "one symbol per idea"
