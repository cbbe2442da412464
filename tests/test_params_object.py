"""One parameter object per paper (workbench.params: Params.model and takes), and P4 on it.

The object is built from a table, validated by the rows' own checks (so the errors are the
ParameterError users already catch, naming the function), frozen, and bound to a public
function's keywords by ``takes`` without a second copy of the signature.
"""

from __future__ import annotations

import ast
import inspect
import pickle
import textwrap

import pytest
from pydantic import ValidationError

from workbench import redundancy as rd
from workbench.paper import graph_rules
from workbench.params import Param, Params, ParamsModel, takes
from workbench.validation import ParameterError

TABLE = Params(
    Param("n", "n", "servers", kind="int", low=1, high=50, default=4, help="Servers."),
    Param("k", "k", "group size", kind="int", low=1, high=50, default=2, help="Group."),
    Param(
        "lam",
        "λ",
        "arrival rate",
        unit="1/s",
        low=0.0,
        high=10.0,
        low_open=True,
        default=1.5,
        help="Poisson rate.",
        source="choice",
        plausible=(0.5, 3.0),
        why='"the rate" (Sec. 2)',
    ),
    Param("mode", "mode", "mode", kind="choice", choices=("a", "b"), default="a"),
    Param("frac", "f", "fraction", low=0.0, high=0.9, default=None, help="None: the rule."),
)
CHECKED = []


def _count_check(value, func):
    CHECKED.append(func)
    if not isinstance(value, str):
        raise ParameterError(f"The 'tag' parameter of {func} must be a str. Got {value!r}.")
    return value


class _KUpToN(ParamsModel):
    def check_relations(self, func, fields):
        if "k" in fields and "n" in fields:
            TABLE["k"].with_(high=self.n).check(self.k, func)


Toy = TABLE.model("Toy", extra={"tag": (str, "x", _count_check)}, base=_KUpToN)


@takes(Toy, "n", "k", "lam")
def rate(p, *, scale: float = 1.0) -> float:
    return scale * p.lam * (p.n // p.k)


@takes(Toy, "lam", "tag")
def tagged(p) -> str:
    return p.tag


@takes(Toy, "n", "lam", "mode", positional=True)
def shape(p) -> tuple:
    return p.n, p.lam, p.mode, p.k


@takes(Toy, "n")
def spread(p, *, scale: float = 1.0, **more) -> tuple:
    return p, more


def test_a_body_with_var_keywords_gets_the_rows_among_them_validated():
    p, more = spread(n=3, lam=2, colour="red")
    assert (p.n, p.lam, p.k) == (3, 2.0, 2)  # lam validated into the object (a float)
    assert more == {"lam": 2.0, "colour": "red"}  # the row validated, the rest as given
    assert type(more["lam"]) is float
    assert list(inspect.signature(spread).parameters) == ["params", "n", "scale", "more"]
    with pytest.raises(ParameterError, match=r"'lam' parameter of spread .*\(0, 10\]. Got 11"):
        spread(lam=11)
    with pytest.raises(ParameterError, match="'mode' parameter of spread"):
        spread(Toy(), mode="c")  # a change to an object too
    with pytest.raises(ParameterError, match=r"'k' parameter of spread .*\[1, 3\]"):
        spread(n=3, k=4)  # a row given through **more is one the function uses
    assert spread(n=3)[0].k == 2  # a row not given is not its business
    with pytest.raises(TypeError, match=r"rate\(\) got an unexpected keyword argument 'lam2'"):
        rate(lam2=1.0)  # without **: refused as before


def test_the_model_has_one_field_per_row_with_its_metadata():
    fields = Toy.model_fields
    assert list(fields) == ["n", "k", "lam", "mode", "frac", "tag"]
    assert {n: f.default for n, f in fields.items()} == {
        "n": 4,
        "k": 2,
        "lam": 1.5,
        "mode": "a",
        "frac": None,
        "tag": "x",
    }
    lam = fields["lam"]
    assert lam.title == "arrival rate" and lam.description == "Poisson rate."
    meta = lam.json_schema_extra
    assert meta["symbol"] == "λ" and meta["unit"] == "1/s" and meta["valid"] == "(0, 10]"
    assert meta["plausible"] == (0.5, 3.0) and meta["why"] == '"the rate" (Sec. 2)'
    assert fields["mode"].json_schema_extra["valid"] == ("a", "b")
    assert Toy.TABLE is TABLE


def test_a_bad_value_raises_the_rows_own_error_naming_the_caller():
    with pytest.raises(ParameterError) as direct:
        TABLE["lam"].check(-1, "rate")
    with pytest.raises(ParameterError) as bound:
        rate(lam=-1)
    assert str(bound.value) == str(direct.value)  # the same words as before the object
    with pytest.raises(ParameterError, match="'lam' parameter of Toy .*Got -1"):
        Toy(lam=-1)
    with pytest.raises(ParameterError, match="'mode' parameter of shape"):
        shape(4, 1.0, "c")
    with pytest.raises(ParameterError, match="'n' parameter of shape .*int"):
        shape(2.5)
    assert not isinstance(direct.value, ValidationError)


def test_keywords_the_object_and_an_object_with_changes_give_the_same_call():
    assert rate(lam=2.0, n=9, k=3) == rate(Toy(lam=2.0, n=9, k=3)) == 6.0
    assert rate(Toy(n=9, k=3), lam=2.0) == 6.0
    assert rate(Toy(lam=2.0), scale=2.0) == 2 * 2.0 * 2
    assert rate() == 1.5 * 2  # the table's defaults
    assert shape(9, 2.5, "b") == shape(n=9, lam=2.5, mode="b") == (9, 2.5, "b", 2)
    assert shape(Toy(n=7)) == (7, 1.5, "a", 2)


def test_the_signature_is_generated_from_the_table():
    sig = inspect.signature(rate)
    assert list(sig.parameters) == ["params", "n", "k", "lam", "scale"]
    kinds = {n: p.kind for n, p in sig.parameters.items()}
    assert kinds["params"] is inspect.Parameter.POSITIONAL_ONLY
    assert {kinds[n] for n in ("n", "k", "lam", "scale")} == {inspect.Parameter.KEYWORD_ONLY}
    assert {n: sig.parameters[n].default for n in ("n", "k", "lam")} == {
        n: TABLE[n].default for n in ("n", "k", "lam")
    }
    assert sig.return_annotation in (float, "float")
    pos = inspect.signature(shape)
    assert [p.kind for p in pos.parameters.values()] == [
        inspect.Parameter.POSITIONAL_OR_KEYWORD
    ] * 3
    assert rate.params_model is Toy and shape.__name__ == "shape"


def test_wrong_calls_are_type_errors_naming_the_function():
    with pytest.raises(TypeError, match=r"rate\(\) got an unexpected keyword argument 'zzz'"):
        rate(zzz=1)
    with pytest.raises(TypeError, match=r"rate\(\) takes a Toy or keywords"):
        rate(4)
    with pytest.raises(TypeError, match="at most 3 positional"):
        shape(1, 1.0, "a", 4)
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        shape(4, n=5)
    with pytest.raises(TypeError, match=r"Toy\(\) got an unexpected keyword argument 'q'"):
        Toy(q=1)


def test_relations_cover_the_fields_a_function_takes():
    with pytest.raises(ParameterError, match=r"'k' parameter of rate .*\[1, 3\]. Got 4"):
        rate(n=3, k=4)
    with pytest.raises(ParameterError, match="'k' parameter of Toy"):
        Toy(n=3, k=4)
    with pytest.raises(ParameterError, match="'k' parameter of rate"):
        rate(Toy(n=8, k=4), n=3)  # a change re-checks the relation
    # shape does not take k: the default k = 2 above n = 1 is not its business
    assert shape(1) == (1, 1.5, "a", 2)


def test_an_object_is_validated_once_and_trusted_after():
    CHECKED.clear()
    p = Toy(tag="y")
    assert CHECKED == ["Toy"]
    rate(p)
    rate(p, scale=3.0)
    assert tagged(p) == "y"
    assert CHECKED == ["Toy"]  # passed alone: not validated again
    assert tagged(p, lam=1.0, tag="z") == "z"
    assert CHECKED == ["Toy", "tagged"]  # a change is validated, naming the caller
    with pytest.raises(ValidationError):
        p.lam = 5.0  # frozen: an object stays what was validated
    assert p.trusted(lam=99.0).lam == 99.0  # inner code's copy, not validated
    assert p.with_(lam=2.0).lam == 2.0
    with pytest.raises(ParameterError, match="'lam' parameter of Toy"):
        p.with_(lam=99.0)


def test_an_optional_row_takes_none_and_its_range():
    assert Toy(frac=None).frac is None and Toy(frac=0.5).frac == 0.5
    with pytest.raises(ParameterError, match="'frac' parameter of Toy .*\\[0, 0.9\\]"):
        Toy(frac=0.95)


def test_p4_functions_take_the_object_or_its_keywords():
    svc = rd.Pareto(1.5, 1.2)
    p = rd.P4Params(N=24, m=3, lam=2.0, t_cloud=15.0, service=svc, formula="paper")
    assert rd.system_time(p) == rd.system_time(24, 3, 2.0, 15.0, svc, "paper")
    assert rd.asto(p) == rd.asto(24, 2.0, 15.0, svc)
    assert rd.policy_m(p.with_(policy="bpo")) == rd.bpo(24, 2.0, svc)
    kw = {"N": 12, "m": 2, "lam": 1.0, "t_cloud": 5.0, "jobs": 2_000, "replications": 2}
    a = rd.simulate(rd.P4Params(**kw, service=svc, seed=3))
    b = rd.simulate(**kw, service=svc, seed=3)
    assert (a.mean, a.blocking, a.half_width) == (b.mean, b.blocking, b.half_width)
    with pytest.raises(ParameterError, match=r"'m' parameter of system_time .*\[1, 24\]"):
        rd.system_time(p, m=25)
    with pytest.raises(ParameterError, match="'service' parameter of P4Params"):
        rd.P4Params(service="Pareto")
    assert rd.P4Params().service == rd.SExp(3.0, 0.2)  # the table's default law


def test_the_seed_rule_reads_the_keywords_takes_binds():
    src = textwrap.dedent(
        """
        @takes(Model, "N", "seed")
        def seeded(p):
            pass

        @takes(Model, "N")
        def unseeded(p):
            pass
        """
    )
    nodes = [n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)]
    flags = {n.name: graph_rules.Function(n, None).seeded for n in nodes}
    assert flags == {"seeded": True, "unseeded": False}


def test_objects_and_their_trusted_copies_pickle_and_compare_by_value():
    p = rd.P4Params(lam=2.0, service=rd.Pareto(1.5, 1.2))
    q = p.trusted(m=3)
    assert q == p.with_(m=3) and p.m == 2  # a copy: the original is unchanged
    assert pickle.loads(pickle.dumps(q)) == q
    assert type(q) is rd.P4Params and rd.P4Params.__module__ == "workbench.redundancy.model"


def test_takes_refuses_what_is_no_parameter_object():
    with pytest.raises(ParameterError, match="'model' parameter of takes .*Params.model"):
        takes(TABLE)
    with pytest.raises(ParameterError, match="'positional' parameter of takes"):
        takes(Toy, "n", positional="yes")
