"""The arena's theory (workbench.arena.model) against slow twins, its claims table, and the
paper contract applied to the arena."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shared_results import shared

from workbench.arena import claims as C
from workbench.arena import model
from workbench.validation import ParameterError

ROOT = Path(__file__).resolve().parents[1]


def _mm1k_by_linear_algebra(lam, mu, places):
    """Solve πQ = 0 for the birth-death generator of M/M/1/K (a slow, obvious twin)."""
    n = places + 1
    q = np.zeros((n, n))
    for k in range(n):
        if k < places:
            q[k, k + 1] = lam
        if k > 0:
            q[k, k - 1] = mu
        q[k, k] = -q[k].sum()
    a = np.vstack([q.T, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(a, b, rcond=None)[0]
    return pi


@pytest.mark.parametrize(
    ("lam", "size", "theta"), [(8.0, 0.1, 0.25), (3.0, 0.5, 2.0), (20.0, 0.1, 0.0)]
)
def test_threshold_delay_is_mm1k_with_the_overflow(lam, size, theta):
    places = int(theta / size + 1e-12) + 1
    pi = _mm1k_by_linear_algebra(lam, 1 / size, places)
    blocked = pi[-1]
    kept_stay = (np.arange(places + 1) @ pi) / (lam * (1 - blocked))
    expected = (1 - blocked) * kept_stay + blocked * 0.07
    assert model.threshold_delay(lam, size, theta, 0.07) == pytest.approx(expected, rel=1e-9)


def test_erlang_c_delay_against_the_factorial_formula():
    c, lam, mu = 3, 2.25, 1.0
    a = lam / mu
    top = a**c / math.factorial(c) * c / (c - a)
    p_wait = top / (sum(a**k / math.factorial(k) for k in range(c)) + top)
    assert model.erlang_c_delay(c, lam, mu) == pytest.approx(p_wait / (c * mu - lam) + 1 / mu)


def test_power_of_d_delay_against_the_tail_sum_and_its_limits():
    rho, d = 0.8, 2
    tail = sum(rho ** ((d**k - 1) / (d - 1)) for k in range(1, 60))
    assert model.power_of_d_delay(rho, d) == pytest.approx(tail / rho, rel=1e-12)
    assert model.power_of_d_delay(rho, 1) == pytest.approx(1 / (1 - rho))  # random
    assert model.power_of_d_delay(rho, 3) < model.power_of_d_delay(rho, 2) < 1 / (1 - rho)


def test_mm1_and_energy_by_hand():
    assert model.mm1_delay(1.8, 1.0, 3) == pytest.approx(2.5)
    # ρ = 0.5: (100 W × 0.5 + 40 W × 0.5) / 0.5 /s + 2e5 bit × 3e-7 J/bit
    assert model.energy_per_task(0.5, 1.0, 40.0, 100.0, 2e5, 3e-7) == pytest.approx(140.06)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: model.mm1_delay(3.0, 1.0, 3), "mm1_delay"),
        (lambda: model.erlang_c_delay(2, 2.0, 1.0), "erlang_c_delay"),
        (lambda: model.power_of_d_delay(1.0, 2), "'rho' parameter of power_of_d_delay"),
        (lambda: model.threshold_delay(1.0, 1e-9, 10.0, 0.1), "threshold_delay"),
        (lambda: model.energy_per_task(2.0, 1.0, 1.0, 2.0), "energy_per_task"),
        (lambda: model.mm1_delay(-1.0, 1.0), "'lam' parameter of mm1_delay"),
    ],
)
def test_bad_input_is_refused_with_the_function_named(call, words):
    with pytest.raises(ParameterError, match=words):
        call()


def test_the_claims_table_states_the_theory():
    table = pd.read_csv(ROOT / "data" / "claims" / "arena.csv", comment="#").set_index("id")
    assert set(table.index) == set(C.CLAIMS)
    assert (table["source"] == "workbench").all()  # the arena states no paper's number
    for claim, theory in C.THEORY.items():
        assert table.loc[claim, "value"] == pytest.approx(theory(), rel=1e-5), claim


def test_every_arena_claim_holds_at_the_quick_setting():
    from workbench.claims import check_claims

    frame = shared(check_claims, "arena", quick=True)  # test_claims.py's, the notebook's
    bad = frame[~frame["as_expected"]]
    assert bad.empty, bad[["id", "value", "measured", "tolerance", "measure_note"]].to_string()
    assert frame["stationary"].all()


def test_the_arena_keeps_the_paper_contract():
    from workbench.paper import check_paper

    report = check_paper(
        "workbench.arena",
        notebook=str(ROOT / "notebooks" / "arena.ipynb"),
        claims_csv=str(ROOT / "data" / "claims" / "arena.csv"),
    )
    assert not report.findings, "\n".join(map(str, report.findings))


def test_arena_simulate_to_precision_meets_its_target_and_refuses_transient():
    from workbench import arena

    r = arena.simulate_to_precision(
        scenario=C.star(3, 1, 1.8),
        policy="random",
        requests=5_000,
        rel_half_width=0.03,
        progress=False,
    )
    assert r.converged and r.half_width <= 0.03 * r.mean
    assert abs(r.mean - model.mm1_delay(1.8, 1.0, 3)) <= 1.5 * r.half_width
    with pytest.raises(ParameterError, match="'overload' parameter of simulate_to_precision"):
        arena.simulate_to_precision(scenario="neutral", policy="jsq", overload="transient")
