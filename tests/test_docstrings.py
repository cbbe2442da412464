"""Public functions and records say what they take and return (numpydoc, checked by numpydoc).

The modules listed here have numpydoc ``Parameters`` / ``Returns`` on every name of their
``__all__``; :func:`numpydoc.validate.validate` checks them (the rule is kept by the tool, not
by a hand-written parser). A module joins the list once its public names are written so.
"""

import importlib
import inspect

import pytest
from numpydoc.validate import validate

#: numpydoc's codes this rule keeps: no docstring, a parameter missing or unknown, no Returns
CHECKS = {
    "GL08": "no docstring",
    "PR01": "parameters not documented",
    "PR02": "unknown parameters documented",
    "RT01": "no Returns section",
}

DOCUMENTED = (
    "workbench.erlang",
    "workbench.radio",
    "workbench.red",
    "workbench.caching",
    "workbench.matching",
    "workbench.clustering",
    "workbench.output_analysis",
    "workbench.precision",
    "workbench.params",
    "workbench.sweep",
)


def departures(qualified: str) -> list[str]:
    """numpydoc's complaints about ``qualified`` (``module.name``) that :data:`CHECKS` keeps."""
    return [f"{code} {msg}" for code, msg in validate(qualified)["errors"] if code in CHECKS]


def _public(module: str) -> list[str]:
    mod = importlib.import_module(module)
    return [
        f"{module}.{name}"
        for name in mod.__all__
        if inspect.isfunction(getattr(mod, name)) or inspect.isclass(getattr(mod, name))
    ]


@pytest.mark.parametrize("module", DOCUMENTED)
def test_public_names_have_numpydoc_parameters_and_returns(module):
    found = {name: d for name in _public(module) if (d := departures(name))}
    assert not found, found


def _undocumented(rate, servers):
    """A planted departure: parameters and result not described."""
    return rate * servers


def _documented(rate, servers):
    """A function written to the rule.

    Parameters
    ----------
    rate : float
        Arrivals per second.
    servers : int
        Servers.

    Returns
    -------
    float
        The offered load.
    """
    return rate * servers


def test_the_rule_names_a_planted_departure():
    here = __name__
    assert departures(f"{here}._documented") == []
    found = departures(f"{here}._undocumented")
    assert any(d.startswith("PR01") and "rate" in d for d in found), found
    assert any(d.startswith("RT01") for d in found), found
