"""Erlang-B: the kernel against its naive twin, known values, extremes and bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import erlang_b_exact

from workbench import ParameterError, erlang_b
from workbench.erlang import erlang_b_many
from workbench.kernels.erlang import erlang_b_table_kernel


@settings(deadline=None, max_examples=200)
@given(c=st.integers(1, 120), a=st.fractions(0, 300, max_denominator=50))
def test_kernel_matches_exact_rational_twin(c, a):
    expected = float(erlang_b_exact(c, a))
    assert erlang_b(c, float(a)) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    ("c", "a", "expected"),
    [
        (1, 1.0, 0.5),
        (2, 1.0, 0.2),
        (10, 5.0, 0.018384570336648),  # standard traffic tables
        (24, 24.0, 0.146483),  # P_max(24) in the P4 paper's eq. 9
        (100, 80.0, 0.004),
    ],
)
def test_known_values(c, a, expected):
    assert erlang_b(c, a) == pytest.approx(expected, rel=2e-2 if c == 100 else 1e-5)


def test_huge_systems_do_not_overflow():
    # the factorial form overflows at c ~ 170; the recursion is exact to rounding at 10^6
    b = erlang_b(10**6, 10**6)
    assert b == pytest.approx(math.sqrt(2 / (math.pi * 10**6)), rel=2e-3)  # critical-load asymptote
    assert erlang_b(10**6, 5e5) == 0.0 or erlang_b(10**6, 5e5) < 1e-300
    heavy = erlang_b(1000, 1e6)
    assert heavy == pytest.approx(1 - 1000 / 1e6, rel=1e-4)  # overload: B -> 1 - c/a


def test_zero_load_and_monotonicity():
    assert erlang_b(5, 0.0) == 0.0
    table = erlang_b_table_kernel(50, 20.0)
    assert table[0] == 1.0
    assert np.all(np.diff(table) < 0)  # more servers, less blocking
    loads = np.linspace(0, 100, 50)
    assert np.all(np.diff([erlang_b(20, a) for a in loads]) > 0)


def test_vectorised_form_matches_scalar():
    c = np.array([1, 5, 24, 300])
    a = np.array([0.5, 4.0, 24.0, 250.0])
    assert np.allclose(erlang_b_many(c, a), [erlang_b(ci, ai) for ci, ai in zip(c, a, strict=True)])


@pytest.mark.parametrize(
    ("servers", "load", "name"),
    [
        (0, 1.0, "servers"),
        (-3, 1.0, "servers"),
        (2.5, 1.0, "servers"),
        (True, 1.0, "servers"),
        (3, -1.0, "load"),
        (3, float("nan"), "load"),
        (3, float("inf"), "load"),
        (3, "1", "load"),
    ],
)
def test_bad_input_names_function_parameter_and_value(servers, load, name):
    with pytest.raises(ParameterError, match=rf"'{name}' parameter of erlang_b must be .*Got"):
        erlang_b(servers, load)


def test_bad_input_in_vectorised_form():
    with pytest.raises(ParameterError, match="'load' parameter of erlang_b_many"):
        erlang_b_many([1, 2], [1.0, -1.0])
    with pytest.raises(ParameterError, match="'servers' parameter of erlang_b_many"):
        erlang_b_many([0, 2], [1.0, 1.0])


@pytest.mark.parametrize(
    ("servers", "loads", "name"),
    [
        (None, [1.0], "servers"),
        (True, "2", "servers"),
        ([1, 2], [1j, 2], "load"),
        ([[1], [2, 3]], 1.0, "servers"),
        ([1, 2, 3], [1.0, 2.0], "load"),  # shapes do not broadcast
        (1e308, 1.0, "servers"),
        ([1, 2], ["a", "b"], "load"),
    ],
)
def test_erlang_b_many_refuses_bad_input_by_name(servers, loads, name):
    with pytest.raises(ParameterError, match=rf"The '{name}' parameter of erlang_b_many must"):
        erlang_b_many(servers, loads)


def test_huge_float_is_reported_as_given_not_as_a_309_digit_int():
    with pytest.raises(ParameterError) as info:
        erlang_b(1e308, 1.0)
    assert str(info.value).endswith("Got 1e+308 instead.")


def test_check_choice_refuses_arrays_bools_and_lists_by_name():
    import numpy as np

    from workbench.validation import check_choice

    for bad in (np.array(["a"]), True, [1], None):
        with pytest.raises(ParameterError, match="The 'x' parameter of f must be one of"):
            check_choice(bad, "x", "f", ("a", "b", 1))
    assert check_choice(np.str_("b"), "x", "f", ("a", "b")) == "b"


def test_a_huge_broadcast_is_refused_before_it_is_allocated():
    # (10^5, 1) against (1, 10^5): 10^10 results, 240 GB of arrays: refused at once
    with pytest.raises(ParameterError, match="'load' parameter of erlang_b_many.*memory budget"):
        erlang_b_many(np.ones((100_000, 1), np.int64), np.ones((1, 100_000)))


def test_public_names_are_the_functions_and_the_bound():
    import workbench.erlang as erlang

    assert erlang.__all__ == ["erlang_b", "erlang_b_many", "pollaczek_khinchine", "MAX_SERVERS"]


def test_pollaczek_khinchine_against_mm1_and_md1():
    from workbench.erlang import pollaczek_khinchine
    from workbench.validation import UnstableRegimeError

    lam, mu = 0.7, 1.0  # M/M/1: E[S] = 1/mu, E[S^2] = 2/mu^2, sojourn 1/(mu - lam)
    assert pollaczek_khinchine(lam, 1 / mu, 2 / mu**2) == pytest.approx(1 / (mu - lam))
    # M/D/1 (Kleinrock): W = D + rho D / (2 (1 - rho))
    assert pollaczek_khinchine(0.5, 1.0, 1.0) == pytest.approx(1.0 + 0.5 / (2 * 0.5))
    with pytest.raises(UnstableRegimeError, match="ρ"):
        pollaczek_khinchine(1.0, 1.0, 2.0)
    with pytest.raises(ParameterError, match="second_moment"):
        pollaczek_khinchine(0.1, 1.0, 0.5)
