"""The contract of a paper package, as code: :func:`check_paper` names every departure.

A paper package (``workbench.<topic>``, or any importable package declared to the registry,
see :mod:`workbench.registry`) declares:

- ``params.PARAMS``: the parameter table (:class:`workbench.params.Params`); signature
  defaults equal its defaults (or the signature is generated from it by
  :func:`workbench.params.takes`), its sliders offer only values validation accepts;
- ``simulation.simulate`` / ``simulate_to_precision``: keyword-only, with ``seed``,
  ``confidence``, ``overload`` (default ``"raise"``), and ``replications``, a run length
  (``jobs``, ``events``, ...) and a ``warmup`` fraction (``simulate``) or
  ``max_replications`` (``simulate_to_precision``); ``simulate`` returns a
  :class:`workbench.results.SimulationResult`;
- ``figures.FIGURES``: ``name -> FigureSpec(<name>_frame(quick), plot_<name>(frame))``;
- ``views.VIEWS``: ``name -> <name>_view()`` (the only module that imports ipywidgets);
- ``claims.CLAIMS``: claim id -> ``measure(quick)``, the same ids as the claims CSV, and
  ``claims.ATLAS`` (:class:`workbench.claims.AtlasSpec`);
- ``exercises.EXERCISES``: a tuple of :class:`workbench.exercises.Question`;
- ``examples.EXAMPLES``: ``"<param>"`` or ``"<function>.<param>"`` -> a builder of a valid
  value, for every argument of a public callable that neither a default nor a table row
  gives (the API fuzz reads them);
- a notebook with one cell tagged ``parameters`` (``QUICK``, ``SEED``), thin cells, saved
  without outputs, showing claims with ``claims_table(id)`` and exercises with
  ``show(id, n)`` only;
- a claims CSV whose ids are ``CLAIMS``'s and whose ``source=paper`` rows quote the paper.

Code rules: compiled kernels are cached, no import inside a function, no import circle, and
importing the package loads neither matplotlib, seaborn, ipywidgets nor the sweep engine.
(Sizes and layers are kept by ruff and import-linter, see ``pyproject.toml``.)

>>> from workbench.paper import check_paper
>>> check_paper("p4").raise_if_failed()          # a registered paper, by id
>>> check_paper("mypaper", notebook="mypaper.ipynb", claims_csv="mypaper.csv").findings

Importing this module loads neither ipywidgets nor matplotlib.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.paper import code_rules, data_rules, exercise_rules, graph_rules, spec_rules
from workbench.paper.target import Target, resolve
from workbench.validation import ParameterError, refusal

__all__ = ["Finding", "Report", "PaperContractError", "RULES", "check_paper", "Target"]

#: rule id -> check(target) -> iterable of (where, message); every rule the contract has
RULES = {
    **spec_rules.RULES,
    **code_rules.RULES,
    **graph_rules.RULES,
    **exercise_rules.RULES,
    **data_rules.RULES,
}


@dataclass(frozen=True)
class Finding:
    """One departure from the contract: which rule, where, and what."""

    rule: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.where}: {self.message}"


class PaperContractError(AssertionError):
    """Raised by :meth:`Report.raise_if_failed` (an AssertionError, so pytest shows it)."""


@dataclass
class Report:
    """What :func:`check_paper` found: ``findings`` (empty: the package keeps the contract)."""

    package: str
    paper_id: str
    rules: tuple
    findings: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def failed_rules(self) -> list:
        return sorted({f.rule for f in self.findings})

    def __str__(self) -> str:
        head = f"{self.package} ({self.paper_id}): {len(self.rules)} rules, "
        if self.ok:
            return head + "no departure"
        lines = [head + f"{len(self.findings)} departures"]
        return "\n".join([*lines, *(f"  {f}" for f in self.findings)])

    def raise_if_failed(self) -> Report:
        if self.findings:
            raise PaperContractError(str(self))
        return self


def _rules(rules) -> tuple:
    """The rule ids asked for: None (all), one id, or an iterable of ids of RULES."""
    if rules is None:
        return tuple(RULES)
    if isinstance(rules, str):
        rules = (rules,)
    if not isinstance(rules, Iterable) or not all(isinstance(r, str) for r in rules):
        what = "None, a rule id or an iterable of rule ids (see workbench.paper.RULES)"
        raise refusal("check_paper", "rules", what, rules)
    selected = tuple(rules)
    unknown = sorted(set(selected) - set(RULES))
    if unknown:
        raise ParameterError(
            f"The 'rules' parameter of check_paper must name rules of the contract "
            f"({', '.join(RULES)}). Got the unknown {unknown} instead."
        )
    return selected


def check_paper(
    module_or_name,
    *,
    notebook=None,
    claims_csv=None,
    paper_id: str | None = None,
    rules: Iterable[str] | None = None,
) -> Report:
    """Run the contract's rules on one paper package and name every departure.

    Parameters
    ----------
    module_or_name : module or str
        The package (a module object), its import name (``"workbench.fog"``,
        ``"p6demo"``), or a registered paper id (``"p1"``).
    notebook, claims_csv : path, optional
        The paper's notebook and claims table; by default the registry's (a package no
        registry line names has none: the rules that need them then report it).
    paper_id : str, optional
        The id its notebook calls the shared helpers with; default the registry's, else the
        package's last name.
    rules : iterable of str, optional
        Only these rules (ids of :data:`RULES`); default all.

    Returns
    -------
    Report
        ``findings``: a list of :class:`Finding` (rule, where, message), empty when the
        package keeps the contract. ``report.raise_if_failed()`` raises
        :class:`PaperContractError` listing them.
    """
    selected = _rules(rules)
    target = resolve(module_or_name, notebook=notebook, claims_csv=claims_csv, paper_id=paper_id)
    report = Report(target.package, target.paper_id, selected)
    for rule in selected:
        try:
            found = list(RULES[rule](target))
        except Exception as err:  # a rule that cannot even run is a departure of its own
            found = [(target.package, f"the check raised {type(err).__name__}: {err}")]
        report.findings += [Finding(rule, where, message) for where, message in found]
    return report
