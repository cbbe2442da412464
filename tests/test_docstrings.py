"""Public functions and records say what they take and return (numpydoc, checked by numpydoc).

The modules listed here, and every module of the packages listed, have numpydoc
``Parameters`` / ``Returns`` on every name of their ``__all__``;
:func:`numpydoc.validate.validate` checks them (the rule is kept by the tool, not by a
hand-written parser). A module or package joins the list once its public names are written so.
"""

import importlib
import inspect
import pkgutil

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

#: packages whose every module keeps the rule (a new module joins by being written so)
DOCUMENTED_PACKAGES = (
    "workbench.fog",
    "workbench.proactive",
    "workbench.datacenters",
    "workbench.redundancy",
    "workbench.hierarchy",
    "workbench.arena",
)


def _modules() -> list[str]:
    found = list(DOCUMENTED)
    for package in DOCUMENTED_PACKAGES:
        path = importlib.import_module(package).__path__
        found += [package] + [f"{package}.{m.name}" for m in pkgutil.iter_modules(path)]
    return found


def departures(qualified: str) -> list[str]:
    """numpydoc's complaints about ``qualified`` (``module.name``) that :data:`CHECKS` keeps."""
    return [f"{code} {msg}" for code, msg in validate(qualified)["errors"] if code in CHECKS]


def _public(module: str) -> list[str]:
    mod = importlib.import_module(module)
    return [
        f"{module}.{name}"
        for name in getattr(mod, "__all__", ())
        if inspect.isfunction(getattr(mod, name)) or inspect.isclass(getattr(mod, name))
    ]


@pytest.mark.parametrize("module", _modules())
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


def test_table_doc_writes_the_rows_a_body_does_not_describe():
    from workbench.params import table_doc
    from workbench.redundancy import P4Params

    doc = table_doc(_documented.__doc__, P4Params, ["lam", "rate", "servers"][:1], with_object=True)
    lines = doc.splitlines()
    assert "params : P4Params, optional" in lines
    at = lines.index("lam : float")
    assert "arrival rate [1/s], in (0, 1e+06] (default 1.5)." in lines[at + 1]
    assert lines.index("rate : float") > at  # the body's own entries stay, after the table's
    assert lines.count("lam : float") == 1
    bare = table_doc("One line.", P4Params, ["lam"], with_object=False)
    assert bare.splitlines()[:4] == ["One line.", "", "Parameters", "----------"]
    again = table_doc(doc, P4Params, ["lam"], with_object=True)
    assert again == doc  # documented rows are not written twice


def test_table_doc_names_the_object_as_the_public_signature_does():
    """A body that documents its object under its own name (``par``) documents the public
    ``params`` slot: renamed, and not written a second time."""
    from workbench.params import table_doc
    from workbench.redundancy import P4Params

    body = (
        "Doc.\n\nParameters\n----------\npar : P4Params\n    The object.\nlam : float\n    Rate.\n"
    )
    lines = table_doc(body, P4Params, ["lam"], with_object=True, object_name="par").splitlines()
    assert "params : P4Params" in lines and "par : P4Params" not in lines
    assert sum(line.startswith("params :") for line in lines) == 1
