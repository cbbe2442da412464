"""P_j's Erlang sums (workbench/fog/acceptance.py) where tests/test_mut_fog_model.py does not
look: the ends of θ, the empty and one-phase sums, the uniformisation's window at each of its
edges (K's 1e-17 quantiles, the Poisson window, the five-million-term refusal), the partial
fractions' guards and clamps, against closed forms (Erlang, hypoexponential laws), quadrature
of two gamma laws and bounds from theory; and P_j's closed form with rates far apart, against
the same phase-type law in 60-digit arithmetic (tests/naive_fog.py: ps_accept_decimal)
(benchmarks/mutation.py, target ``fog_model``).

Inputs at the edges are crafted: the comments give the window each one builds (with
μ_hi ≥ μ_lo, x = μ_hi·θ, K ~ NegBin(n_lo, μ_lo/μ_hi) extra stages, spread = 12√(x+1) + 50).
"""

import math

import pytest
from naive_fog import hypoexponential_cdf, ps_accept_decimal
from scipy import integrate, stats

from workbench.fog import accept_probability, erlang_sum_cdf, erlang_sum_cdf_partial_fractions
from workbench.validation import ParameterError

BOTH = [erlang_sum_cdf, erlang_sum_cdf_partial_fractions]


def convolution_cdf(theta, n, mu, n2, mu2, lo, hi, points=None):
    """P(Erlang(n, μ) + Erlang(n', μ') < θ) by quadrature: ∫ f_{Erlang(n, μ)}(s)·
    F_{Erlang(n', μ')}(θ − s) ds over [lo, hi], where the first law has its mass."""

    def integrand(s):
        return stats.gamma.pdf(s, n, scale=1 / mu) * stats.gamma.cdf(theta - s, n2, scale=1 / mu2)

    return integrate.quad(integrand, lo, hi, points=points, epsabs=0, epsrel=1e-13, limit=500)[0]


# ------------------------------------------------------------------- the ends of θ and n


@pytest.mark.parametrize("func", BOTH)
@pytest.mark.parametrize("n, n2", [(0, 0), (3, 4), (2, 0), (0, 1)])
def test_erlang_sums_at_theta_zero_and_infinity(func, n, n2):
    # W ≥ 0, so P(W < 0) = 0 even when W = 0 (n = n' = 0); P(W < ∞) = 1
    assert func(0.0, n, 2.0, n2, 1.0) == 0.0
    assert func(math.inf, n, 2.0, n2, 1.0) == 1.0


@pytest.mark.parametrize("func", BOTH)
def test_nothing_to_wait_for_is_accepted_at_any_positive_theta(func):
    # n = n' = 0: W = 0 < θ for every θ > 0, even when μθ underflows to 0 (5e-324 · 1e-6)
    assert func(0.5, 0, 1.0, 0, 2.0) == 1.0
    assert func(5e-324, 0, 1e-6, 0, 1e-6) == 1.0


@pytest.mark.parametrize("func", BOTH)
@pytest.mark.parametrize("theta", [0.05, 0.4, 1.5])
def test_one_phase_is_the_exponential_law(func, theta):
    assert func(theta, 1, 2.0, 0, 5.0) == pytest.approx(-math.expm1(-2.0 * theta), rel=1e-13)
    assert func(theta, 0, 2.0, 1, 5.0) == pytest.approx(-math.expm1(-5.0 * theta), rel=1e-13)


def test_equal_rates_held_in_two_objects_are_one_erlang_law():
    mu, mu2 = 2.0, float("2.0")  # equal values, distinct objects
    assert mu == mu2 and mu is not mu2
    for theta in (0.3, 1.5, 6.0):
        want = stats.gamma.cdf(theta, 7, scale=0.5)
        assert erlang_sum_cdf_partial_fractions(theta, 3, mu, 4, mu2) == pytest.approx(
            want, rel=1e-12
        )
        assert erlang_sum_cdf(theta, 3, mu, 4, mu2) == pytest.approx(want, rel=1e-12)


def test_erlang_sum_takes_a_billion_phases_of_either_class_and_no_more():
    # P(Erlang(1e9, 1) < 1) = P(Poisson(1) ≥ 1e9): 0 in double precision
    assert erlang_sum_cdf(1.0, 10**9, 1.0, 0, 1.0) == 0.0
    assert erlang_sum_cdf(1.0, 0, 1.0, 10**9, 1.0) == 0.0
    with pytest.raises(ParameterError, match="'n2' parameter of erlang_sum_cdf"):
        erlang_sum_cdf(1.0, 0, 1.0, 10**9 + 1, 1.0)


@pytest.mark.parametrize("swap", [False, True])
def test_partial_fractions_take_a_million_phases_in_all_and_no_more(swap):
    def call(n_big):
        args = (0, 1.0, n_big, 1e4) if not swap else (n_big, 1e4, 0, 1.0)
        return erlang_sum_cdf_partial_fractions(100.0, *args)

    # one class empty: the sum is Erlang(1e6, 1e4), mean 100 s
    assert call(10**6) == pytest.approx(stats.gamma.cdf(100.0, 10**6, scale=1e-4), rel=1e-10)
    with pytest.raises(ParameterError, match=r"n \+ n2 ≤ 1e6"):
        call(10**6 + 1)


# ----------------------------------------------------- the uniformised window at its edges


def test_erlang_sum_rounded_above_one_is_one():
    # head + body rounds to 1 + 2⁻⁵² here; P(W ≥ 50) ≤ P(Erlang(4, 1) ≥ 50) ≈ 4e-18
    got = erlang_sum_cdf(50.0, 1, 3.0, 4, 1.0)
    assert got <= 1.0
    assert got == pytest.approx(1.0, abs=1e-15)


def test_erlang_sum_whose_window_is_one_term_at_the_top_of_k():
    # μ' = 0.999999 μ: K ~ Geometric, P(K ≥ 2) = 1e-12, P(K ≥ 3) = 1e-18, so K's 1 − 1e-17
    # quantile is 2; x = 241.286 puts the window's start at floor(x − spread) − 2 = 2: a
    # window of the one term K = 2 (mass 1e-12, all stages far below x) above a head P(K < 2)
    got = erlang_sum_cdf(241.286, 1, 1.0, 1, 0.999999)
    # P(W ≥ θ) ≤ P(Erlang(2, μ') ≥ θ) ≈ 1e-102
    assert stats.gamma.sf(241.286, 2, scale=1 / 0.999999) < 1e-100
    assert got == pytest.approx(1.0, abs=1e-15)


def test_erlang_sum_whose_window_starts_inside_k_counts_each_stage_once():
    # Exp(1) + Exp(1e-4) at θ = 1e4: K ~ Geometric(1e-4) (mean 1e4) and the window starts
    # at K = 8748 (x − spread − 2), where P(K = k) ≈ 4e-5: the head is P(K < 8748) alone
    want = hypoexponential_cdf(1e4, 1.0, 1e-4)
    assert erlang_sum_cdf(1e4, 1, 1.0, 1, 1e-4) == pytest.approx(want, rel=1e-12)
    assert erlang_sum_cdf(1e4, 1, 1e-4, 1, 1.0) == pytest.approx(want, rel=1e-12)


def test_erlang_sum_with_a_wide_k_sums_only_the_poisson_window():
    # Erlang(3e6, 1e6) + Erlang(100, 1) at θ = 103: x = 1.03e8, K ~ NegBin(100, 1e-6) (mean
    # 1e8, sd 1e7: its 1e-17 quantiles are 3.7e7 and 2.1e8), so the window is the Poisson
    # one, about 2.4e5 terms; a window widened toward K's quantiles has more than 5e6
    # (quadrature over the wide law: ∫ f_{Erlang(100, 1)}(t)·F_{Erlang(3e6, 1e6)}(θ − t) dt)
    want = convolution_cdf(103.0, 100, 1.0, 3 * 10**6, 1e6, 0.0, 103.0, points=[99.95, 100.05])
    assert erlang_sum_cdf(103.0, 3 * 10**6, 1e6, 100, 1.0) == pytest.approx(want, rel=1e-9)


def test_erlang_sum_whose_k_lies_above_the_window_is_zero():
    # Exp(1e6) + Erlang(1e9, 1e3) at θ = 1e5: the second law's mean is 1e6 s; K's lower 1e-17
    # quantile (1e12 extra stages) lies far above the window (x = 1e11), which therefore
    # holds no term: the answer is P(K below that quantile) ≤ 1e-17, without the 7.6e6 terms
    got = erlang_sum_cdf(1e5, 1, 1e6, 10**9, 1e3)
    assert 0.0 <= got <= 1e-17


def test_erlang_sum_whose_k_lies_below_the_window_is_one():
    # Exp(1e6) + Exp(1) at θ = 1e5: P(W ≥ θ) ≈ e^{-1e5}; K ~ Geometric(1e-6) ends (1e-17) at
    # 3.9e7 extra stages, far below the window's start (x = 1e11): no term, the head is 1
    assert erlang_sum_cdf(1e5, 1, 1e6, 1, 1.0) == 1.0


def test_erlang_sum_whose_window_ends_below_n_plus_n2_is_zero():
    # 200 stages and x = 57.2: ceil(x + spread) = 199, one stage short of n + n' (the window
    # ends at K = -1); W ≥ Erlang(200, μ) stochastically (μ ≥ μ'), so P(W < θ) ≤ 7.7e-49
    bound = stats.gamma.cdf(57.2, 200, scale=1.0)
    assert bound < 1e-45
    assert 0.0 <= erlang_sum_cdf(57.2, 100, 1.0, 100, 0.5) <= bound


# ----------------------------------------------------------- the five-million-term refusal
#
# Exp(1e6) + Erlang(1e6, 23.04): x = 1e6·θ ≈ 4.34e10, K ~ NegBin(1e6, 2.304e-5) has its
# 1e-17 quantiles at 4.30e10 and 4.38e10, so the window is the Poisson one, of
# ceil(x + spread) − floor(x − spread) + 1 terms: 5,000,001 at θ = 43401.006962 (refused),
# 5,000,000 at θ = 43401.0243215 (summed). Both θ sit where the fractional parts of x ± spread
# are within 3e-5 of an integer, so that a spread smaller or larger by 12·(√(x+1) − √x) ≈
# 3e-5 moves the count by one.


def test_erlang_sum_refuses_five_million_and_one_terms():
    with pytest.raises(ParameterError, match="needs 5,000,001 terms"):
        erlang_sum_cdf(43401.006962, 1, 1e6, 10**6, 23.04)


def test_erlang_sum_sums_five_million_terms():
    theta = 43401.0243215
    # E F(θ − A) with A ~ Exp(1e6): F(θ) − f(θ)·E A + f'(θ)·E A²/2, the last term below 1e-15
    # (F, f: the Erlang(1e6, 23.04) law, of sd 43 s); the five million terms' own rounding
    # and pmf errors leave 3e-9 of relative error
    law = stats.gamma(10**6, scale=1 / 23.04)
    want = law.cdf(theta) - law.pdf(theta) * 1e-6
    assert erlang_sum_cdf(theta, 1, 1e6, 10**6, 23.04) == pytest.approx(want, rel=1e-8)


# ------------------------------------------------------ the partial fractions' clamps


def test_partial_fractions_round_a_small_negative_sum_to_zero():
    # the sum comes out as -7.8e-11 here; P(W < 0.02) ≈ 0.02⁵/5! ≈ 2.7e-11
    got = erlang_sum_cdf_partial_fractions(0.02, 1, 1.0, 4, 1.01)
    assert got >= 0.0
    assert got == pytest.approx(erlang_sum_cdf(0.02, 1, 1.0, 4, 1.01), abs=1e-9)


def test_partial_fractions_return_what_the_cancellation_leaves_far_outside_zero_one():
    # near μ' = μ the alternating coefficients cancel: documented, returned as they come
    # (not clamped), while the stable route gives a probability
    above = erlang_sum_cdf_partial_fractions(20.0, 1, 1.0, 4, 0.999)
    assert 1.0 + 1e-9 < above <= 2.0  # 1.0000843
    below = erlang_sum_cdf_partial_fractions(0.01, 1, 1.0, 3, 0.999)
    assert -1.0 <= below < -1e-9  # -4.1e-9
    assert (
        0.0
        <= erlang_sum_cdf(0.01, 1, 1.0, 3, 0.999)
        < 1e-8
        < 1.0 - erlang_sum_cdf(20.0, 1, 1.0, 4, 0.999)
    )


def test_partial_fractions_report_how_close_the_rates_are():
    with pytest.raises(ParameterError, match=r"\|mu2 - mu\| = 1e-09, n \+ n2 = 40\)"):
        erlang_sum_cdf_partial_fractions(2.0, 20, 1.0, 20, 1.0 - 1e-9)


@pytest.mark.parametrize("swap", [False, True])
def test_partial_fractions_with_a_subnormal_power_of_the_slow_rate(swap):
    # μ = 2⁻¹³ and n = 82: μⁿ = 2⁻¹⁰⁶⁶ is subnormal (exact), μⁿ⁺¹ underflows to 0; the
    # fast Erlang(5, 1024 + 2⁻¹³) adds about 5 ms to a mean of 6.7e5 s
    slow, fast = 2.0**-13, 1024.0 + 2.0**-13
    want = convolution_cdf(7e5, 5, fast, 82, slow, 0.0, 0.1)
    args = (82, slow, 5, fast) if not swap else (5, fast, 82, slow)
    assert erlang_sum_cdf_partial_fractions(7e5, *args) == pytest.approx(want, rel=1e-8)


# ------------------------------------------------- P_j in closed form (the q = 0.5 chain)


@pytest.mark.parametrize(
    "theta, lam, lam2, mu, mu2",
    [
        (8e5, 3e4, 2.7e-5, 5e5, 3e-5),  # ρ = 0.06 + 0.9, μ/μ' = 1.7e10
        (2e5, 5e4, 8e-5, 1e6, 1e-4),  # ρ = 0.05 + 0.8, μ/μ' = 1e10
        (1e6, 1e5, 8e-7, 1e6, 1e-6),  # ρ = 0.1 + 0.8, μ/μ' = 1e12
        (1e6, 1e5, 8.9999e-7, 1e6, 1e-6),  # ρ = 1 − 1e-5: s + δ rounds to 0.0 here
    ],
)
def test_accept_probability_with_rates_ten_decades_apart(theta, lam, lam2, mu, mu2):
    # A = (T + ρtα)θ has eigenvalues near −μθ(1 − ρ₁) and −μ'θ(1 − ρ)/(1 − ρ₁): the one
    # near 0, taken as s + δ with s ≈ −δ ≈ −μθ/2, loses ulp(μθ) ≈ 1e-5 of absolute accuracy
    # (P_j was 8.5e-6 off in the first case); det A / (s − δ) keeps it
    want = ps_accept_decimal(theta, lam / mu, lam2 / mu2, mu, mu2)
    assert accept_probability(theta, lam, lam2, mu, mu2) == pytest.approx(want, abs=1e-12)


def test_accept_probability_as_theta_goes_to_zero_is_the_idle_probability():
    # P(W < θ) → P(W = 0) = 1 − ρ as θ → 0+; at θ = 5e-324 with μ = μ' = 1e-6 every entry
    # of A = (T + ρtα)θ underflows to 0 (e^A = I)
    assert accept_probability(5e-324, 1e-7, 2e-7, 1e-6, 1e-6) == pytest.approx(0.7, rel=1e-12)
    assert accept_probability(1e-12, 60.0, 10.0, 200.0, 100 / 3) == pytest.approx(0.4, rel=1e-9)
