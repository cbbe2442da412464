"""Templates of a new paper's notebook, claims table and tests (see workbench.scaffold)."""

#: the notebook's cells: (kind, source, tags)
CELLS = (
    (
        "markdown",
        "# __PID__ — __TITLE__\n\n"
        "A toy M/M/1 queue written by `python -m workbench new-paper`: replace the model, keep "
        "the skeleton. Every control comes from the parameter table; every figure and view "
        "from the package.",
        (),
    ),
    (
        "code",
        "%matplotlib inline\n"
        "import __PKG__ as model\n"
        "from __PKG__.figures import FIGURES\n"
        "from __PKG__.views import VIEWS\n"
        "from workbench.exercises import show\n"
        "from workbench.widgets import claims_table, glossary",
        (),
    ),
    (
        "code",
        "QUICK = True  # quick figures and claims\nSEED = 0  # seed of every simulation",
        ("parameters",),
    ),
    ("markdown", "### Symbols", ()),
    ("code", "glossary(model.PARAMS)", ()),
    ("markdown", "## 1. Mean sojourn time against the load (analytic, instant)", ()),
    ("code", 'VIEWS["sojourn"]()', ()),
    ("markdown", "## 2. Theory and simulation", ()),
    ("code", 'spec = FIGURES["sojourn"]\nspec.plot(spec.frame(quick=QUICK, seed=SEED))', ()),
    ("code", "model.simulate(jobs=20_000, seed=SEED)", ()),
    ("markdown", "## 3. Claims", ()),
    ("code", 'claims_table("__PID__", quick=QUICK)', ()),
    ("markdown", "## 4. Exercises", ()),
    ("code", 'show("__PID__", 1)', ()),
    ("code", 'show("__PID__", 2)', ()),
    ("code", 'show("__PID__", 3)', ()),
)

CLAIMS_CSV = """\
# __PID__ (scaffold). value = the paper's number (1/0 for a qualitative statement).
# source=workbench: the paper gives no number; value is the workbench's own (a regression guard).
# quote: for source=paper rows, the paper's words verbatim (several excerpts joined by ' … ').
id,figure,quantity,value,source,tolerance,where,expect,workbench_value,note,quote
sojourn_matches_theory,sojourn,E[T] simulated / 1/(μ − λ),1.0,workbench,0.1,M/M/1,agree,,a toy,
"""

TESTS = '''"""Tests of __PKG__: the kernel against its slow twin (naive___NAME__.py), the
simulation against the theory, the precision loop, same seed same numbers, refusals. The
contract (workbench.paper.check_paper) is checked by ``python -m workbench check-paper``
and, for a registered paper, by the suite's tests/test_contract.py."""

from __future__ import annotations

import numpy as np
import pytest

from __PKG__ import mean_sojourn, simulate, simulate_to_precision
from __PKG__.kernels import lindley_kernel
from naive___NAME__ import lindley_slow
from workbench.validation import ParameterError, UnstableRegimeError


@pytest.mark.parametrize("n", [1, 2, 500])
def test_kernel_equals_its_slow_twin(n):
    rng = np.random.default_rng(n)
    a, s = rng.exponential(1.0, n), rng.exponential(0.8, n)
    np.testing.assert_allclose(lindley_kernel(a, s), lindley_slow(a, s), rtol=1e-9, atol=1e-12)


def test_mean_sojourn_is_one_over_mu_minus_lambda():
    assert mean_sojourn(0.5, 1.0) == pytest.approx(2.0)
    assert mean_sojourn(3.0, 4.0) == pytest.approx(1.0)


def test_simulation_agrees_with_the_theory():
    result = simulate(lam=0.5, mu=1.0, jobs=20_000, replications=10, seed=3)
    assert abs(result.mean - 2.0) <= 3 * result.half_width + 0.02, result


def test_simulate_to_precision_reaches_its_target_through_the_shared_loop():
    result = simulate_to_precision(
        lam=0.5, mu=1.0, jobs=20_000, rel_half_width=0.02, seed=2, progress=False
    )
    assert result.converged and result.half_width <= 0.02 * result.mean, result
    assert abs(result.mean - 2.0) <= 3 * result.half_width + 0.02, result
    with pytest.raises(ParameterError, match="'rel_half_width' parameter"):
        simulate_to_precision(rel_half_width=0.0, progress=False)
    with pytest.raises(ParameterError, match="'half_width' parameter"):
        simulate_to_precision(rel_half_width=0.05, half_width=0.1, progress=False)


def test_same_seed_same_numbers():
    one = simulate(jobs=5_000, replications=3, seed=7).mean
    assert simulate(jobs=5_000, replications=3, seed=7).mean == one
    assert simulate(jobs=5_000, replications=3, seed=8).mean != one


def test_an_unstable_regime_and_bad_values_are_refused():
    with pytest.raises(UnstableRegimeError):
        simulate(lam=1.2, mu=1.0, jobs=5_000, replications=2)
    with pytest.raises(ParameterError, match="'lam' parameter"):
        simulate(lam=-1.0)
'''

TWIN = '''"""The slow, obvious twin of __PKG__.kernels (every kernel has one; check-paper's
kernels.twin rule looks for a test that compares them)."""

from __future__ import annotations

import numpy as np


def lindley_slow(interarrival, service):
    """Follow each job: it starts at max(its arrival, the previous departure)."""
    arrival = np.cumsum(interarrival) - interarrival[0]
    out, free = [], 0.0
    for a, s in zip(arrival, service, strict=True):
        start = max(a, free)
        free = start + s
        out.append(free - a)
    return np.array(out)
'''

#: the distribution of a paper outside the repository (``new-paper NAME --out DIR``):
#: installing it is what registers the paper (its entry point in ``workbench.papers``)
PYPROJECT = """\
# The distribution of the paper package __NAME__, written by `python -m workbench new-paper`.
# Installing it registers the paper: its entry point in the group workbench.papers names the
# package, and the registry reads __NAME__/paper.json (notebook and claims table relative to
# this folder). Install it editable, with the pip of the workbench's environment:
#     python -m pip install -e .
# No dependency is declared: the package runs in the environment the workbench is installed
# in (numpy, numba, pandas, ...), and the workbench comes from its checkout, not the index.

[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "__NAME__"
version = "0.1.0"
description = __DESCRIPTION__
requires-python = ">=3.11"
dependencies = []

[project.entry-points."workbench.papers"]
__NAME__ = "__NAME__"

[tool.setuptools]
packages = ["__NAME__"]

[tool.setuptools.package-data]
__NAME__ = ["paper.json"]

# the workbench's own ruff rules, so that `ruff check .` and `ruff format --check .` here
# agree with new-paper, which formatted these files with them
[tool.ruff]
line-length = 100
extend-include = ["*.ipynb"]

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP", "PIE", "PLE", "NPY", "PLC0415", "PLR0915"]
ignore = ["E741"]

[tool.ruff.lint.pylint]
max-statements = 80

[tool.ruff.lint.per-file-ignores]
"*.ipynb" = ["E501"]
"__NAME__/kernels.py" = ["PLR0915"]
"""
