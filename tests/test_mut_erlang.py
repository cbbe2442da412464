"""Erlang-B and Pollaczek-Khinchine: checks written to kill the mutants the suite let live
(benchmarks/mutation/erlang.md), each from the formula or the documented contract."""

import numpy as np
import pytest

import workbench.erlang as erlang
import workbench.validation as validation
from workbench import ParameterError
from workbench.erlang import erlang_b, erlang_b_many, pollaczek_khinchine


def test_the_documented_server_bound_is_1e8_in_both_forms():
    # docstring: "Number of servers c, 1 <= c <= 1e8"; the refusal quotes the range
    rng = r"in the range \[1, 100000000\]\. Got 100000001 instead\."
    with pytest.raises(
        ParameterError, match="'servers' parameter of erlang_b must be an int " + rng
    ):
        erlang_b(10**8 + 1, 1.0)
    with pytest.raises(ParameterError, match="'servers' parameter of erlang_b_many .*" + rng):
        erlang_b_many([3, 10**8 + 1], 1.0)


def test_the_server_bound_is_inclusive_in_the_vectorised_form(monkeypatch):
    monkeypatch.setattr(erlang, "MAX_SERVERS", 50)  # the same rule, at a bound that runs fast
    np.testing.assert_allclose(erlang_b_many([50], [1.0]), [erlang_b(50, 1.0)])
    with pytest.raises(ParameterError, match=r"range \[1, 50\]\. Got 51 instead"):
        erlang_b_many([50, 51], 1.0)
    # the first offending value is the one reported, even after a value at the bound
    with pytest.raises(ParameterError, match=r"Got 2\.5 instead"):
        erlang_b_many([50, 2.5, 0], 1.0)


def test_vectorised_form_without_a_single_server():
    # B(2, 1) = (1/2) / (1 + 1 + 1/2) = 1/5, B(3, 1) = (1/6) / (8/3) = 1/16
    np.testing.assert_allclose(erlang_b_many([2, 3], [1.0, 1.0]), [0.2, 1 / 16], rtol=1e-15)


@pytest.mark.parametrize("bad", [2.4, 2.6, 3.5])
def test_a_fractional_server_count_is_refused_and_reported_first(bad):
    # 2.4 rounds down, 2.6 and 3.5 (to even) round up: a fraction either way is refused,
    # and the message names the first offending value, not a later one (0)
    with pytest.raises(
        ParameterError,
        match=rf"'servers' parameter of erlang_b_many must be an int in the range "
        rf"\[1, 100000000\]\. Got {bad} instead\.",
    ):
        erlang_b_many([1, 7, bad, 0], 1.0)
    with pytest.raises(ParameterError, match=rf"Got {bad} instead"):
        erlang_b_many([bad], 1.0)


def test_zero_load_is_accepted_in_the_vectorised_form():
    np.testing.assert_array_equal(erlang_b_many([1, 2], [0.0, 0.0]), [0.0, 0.0])
    np.testing.assert_allclose(erlang_b_many([1, 2], [0.0, 1.0]), [0.0, 0.2], rtol=1e-15)


def test_the_first_negative_load_is_reported_with_the_range():
    with pytest.raises(
        ParameterError,
        match=r"'load' parameter of erlang_b_many must be a finite real number in the range "
        r"\[0, inf\)\. Got -2\.0 instead\.",
    ):
        erlang_b_many([1, 2, 3, 4], [0.0, 0.5, -2.0, -3.0])


def test_scalars_give_a_zero_d_array_and_arrays_keep_their_shape():
    got = erlang_b_many(3, 1.0)
    assert got.shape == ()
    assert float(got) == pytest.approx(1 / 16, rel=1e-15)
    assert erlang_b_many(np.full((2, 3), 2), np.ones((2, 1))).shape == (2, 3)


def test_memory_refusal_counts_three_8_byte_arrays_per_element(monkeypatch):
    # servers (int64), loads (float64) and the result (float64): 24 bytes per element;
    # (100, 1) against (1, 100) is 10^4 elements, 2.4e5 bytes
    servers, loads = np.ones((100, 1), np.int64), np.ones((1, 100))
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 2.41e5)
    assert erlang_b_many(servers, loads).shape == (100, 100)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 2.39e5)
    with pytest.raises(ParameterError, match="memory budget"):
        erlang_b_many(servers, loads)


def test_work_refusal_counts_two_steps_per_server(monkeypatch):
    # the recursion does one multiply-add and one division per server: 10 x 1000 servers
    # is 2e4 steps
    servers = np.full(10, 1000)
    monkeypatch.setattr(validation, "WORK_BUDGET", 2.1e4)
    assert erlang_b_many(servers, 900.0).shape == (10,)
    monkeypatch.setattr(validation, "WORK_BUDGET", 1.9e4)
    with pytest.raises(ParameterError, match=r"about 2e\+04 steps of work"):
        erlang_b_many(servers, 900.0)


def test_pollaczek_khinchine_with_a_service_time_other_than_one():
    # M/M/1 with mu = 2, lam = 1: E[S] = 1/2, E[S^2] = 2/mu^2 = 1/2, sojourn 1/(mu - lam) = 1
    assert pollaczek_khinchine(1.0, 0.5, 0.5) == pytest.approx(1.0, rel=1e-15)
    # M/D/1 with D = 0.25, lam = 2 (rho = 1/2): W = D + lam D^2 / (2 (1 - rho)) = 0.375
    assert pollaczek_khinchine(2.0, 0.25, 0.0625) == pytest.approx(0.375, rel=1e-15)
    # an idle queue: no arrivals, the sojourn is the service time
    assert pollaczek_khinchine(0.0, 3.0, 9.0) == 3.0


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((-0.5, 1.0, 2.0), "lam"),
        ((0.5, -1.0, 2.0), "mean_service"),
        ((0.1, 1.0, -0.5), "second_moment"),
    ],
)
def test_pollaczek_khinchine_refuses_negative_inputs_by_range(args, name):
    with pytest.raises(
        ParameterError,
        match=rf"'{name}' parameter of pollaczek_khinchine must be a finite real number in the "
        r"range \[0, inf\)",
    ):
        pollaczek_khinchine(*args)


@pytest.mark.parametrize("load", [0.0, 0.7, 24.0])
def test_table_kernel_matches_the_factorial_form_at_every_k(load):
    from fractions import Fraction

    from naive import erlang_b_exact

    from workbench.kernels.erlang import erlang_b_table_kernel

    table = erlang_b_table_kernel(30, load)
    assert table.shape == (31,)
    exact = [float(erlang_b_exact(k, Fraction(load))) for k in range(31)]
    np.testing.assert_allclose(table, exact, rtol=1e-13, atol=0.0)


def test_pollaczek_khinchine_refuses_every_load_at_or_above_one():
    from workbench.validation import UnstableRegimeError

    for lam in (1.0, 1.5, 40.0):  # rho = lam * E[S] with E[S] = 1
        with pytest.raises(UnstableRegimeError, match="unstable"):
            pollaczek_khinchine(lam, 1.0, 2.0)


def test_pollaczek_khinchine_variance_check():
    # E[S] = 1.5: E[S^2] must be at least 2.25; the message quotes that bound
    with pytest.raises(ParameterError, match=r"at least mean_service² \(2\.25\)"):
        pollaczek_khinchine(0.1, 1.5, 2.1)
    assert pollaczek_khinchine(0.1, 1.5, 2.25) == pytest.approx(1.5 + 0.1 * 2.25 / (2 * 0.85))
    # a deterministic service time whose square picked up rounding is still deterministic
    d = 0.1 * 3  # 0.30000000000000004, d * d = 0.09000000000000002 > 0.09
    assert pollaczek_khinchine(1.0, d, 0.09) == pytest.approx(d + 0.09 / (2 * (1 - d)))
