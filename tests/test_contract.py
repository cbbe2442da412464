"""One contract in every registered paper package, walked through workbench.paper.check_paper.

Every rule a paper keeps is a rule of ``workbench.paper.RULES`` (package, notebook, claims
table, exercises, kernels and their twins, seeds): the suite adds none of its own. Each
(paper, rule) pair is its own test, so a departure fails visibly with the rule's name and
where it is. A paper registered by discovery (``workbench/<topic>/paper.json``, what
``new-paper`` writes) is in ``PAPERS`` and so is checked here with no line to add.
``tests/test_paper_contract.py`` shows each rule fires on a package that breaks it.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from workbench.paper import RULES, check_paper
from workbench.registry import PAPERS

IDS = sorted(PAPERS)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("paper_id", IDS)
def test_paper_keeps_the_contract(paper_id, rule):
    check_paper(paper_id, rules=[rule]).raise_if_failed()


def test_p5_mu_is_not_a_simulate_keyword():
    """μ is P5's mean task size, not a service rate: its simulate says task_size."""
    sim = PAPERS["p5"].part("simulation")
    assert "mu" not in inspect.signature(sim.simulate).parameters


def test_the_claims_module_stays_light():
    """Every paper's claims module imports workbench.claims: it must not load the atlas's
    sweep engine, scikit-learn or matplotlib (workbench.atlas, which does, sits above it)."""
    code = (
        "import sys, workbench.claims\n"
        "heavy = ['matplotlib', 'seaborn', 'ipywidgets', 'sklearn', 'workbench.sweep']\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"import workbench.claims loads {out.stdout}"


def test_the_contract_checker_stays_light():
    """check_paper is importable where the papers are: without matplotlib or ipywidgets."""
    code = (
        "import sys, workbench.paper\n"
        "print([m for m in ('matplotlib', 'ipywidgets') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"import workbench.paper loads {out.stdout}"
