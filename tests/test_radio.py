"""Uplink radio model: SINR/rate kernel against its twin and a hand case, helpers, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_building_blocks import path_loss_db_naive, uplink_rate_naive

from workbench import ParameterError
from workbench.radio import (
    channel_gains,
    coverage,
    dbm_to_watt,
    noise_power,
    path_loss_db,
    rayleigh_fading,
    uplink_rate,
)


def test_two_user_sinr_by_hand():
    # user 0 -> cloudlet 0, user 1 -> cloudlet 1, both interfering with each other
    gain = np.array([[1e-9, 4e-10], [2e-10, 5e-9]])
    power = np.array([0.2, 0.1])
    n0, bw = 1e-12, 1e6
    sinr0 = (1e-9 * 0.2) / (1e-12 + 2e-10 * 0.1)  # = 2e-10 / 2.1e-11
    sinr1 = (5e-9 * 0.1) / (1e-12 + 4e-10 * 0.2)  # = 5e-10 / 8.1e-11
    assert sinr0 == pytest.approx(9.523809523809524)
    assert sinr1 == pytest.approx(6.172839506172839)
    expected = [bw * math.log2(1 + sinr0), bw * math.log2(1 + sinr1)]
    got = uplink_rate(gain, power, n0, [0, 1], bw)
    assert got == pytest.approx(expected, rel=1e-12)
    # both users on cloudlet 0: the interferer's gain towards cloudlet 0 is used
    got = uplink_rate(gain, power, n0, [0, 0], bw)
    s1 = (2e-10 * 0.1) / (1e-12 + 1e-9 * 0.2)
    assert got == pytest.approx([bw * math.log2(1 + sinr0), bw * math.log2(1 + s1)], rel=1e-12)
    # user 1 silent: user 0 is noise-limited, user 1 gets 0
    got = uplink_rate(gain, power, n0, [0, -1], bw)
    assert got.tolist() == [pytest.approx(bw * math.log2(1 + 200.0), rel=1e-12), 0.0]


@st.composite
def slots(draw):
    n_users = draw(st.integers(1, 12))
    n_cloudlets = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    gain = 10.0 ** rng.uniform(-14, -6, (n_users, n_cloudlets))
    power = rng.uniform(0, 0.5, n_users) * (rng.random(n_users) < 0.9)
    serving = rng.integers(-1, n_cloudlets, n_users)
    return gain, power, serving


@settings(deadline=None, max_examples=300)
@given(slots(), st.floats(1e-15, 1e-9), st.floats(1e3, 1e8))
def test_rate_kernel_matches_double_sum_twin(slot, n0, bw):
    gain, power, serving = slot
    got = uplink_rate(gain, power, n0, serving, bw)
    expected = uplink_rate_naive(gain.tolist(), power.tolist(), n0, serving.tolist(), bw)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert np.all(got[serving == -1] == 0.0)


def test_more_interferers_lower_the_rate():
    rng = np.random.default_rng(1)
    gain = rng.exponential(1e-10, (6, 2))
    power = np.full(6, 0.2)
    serving = np.array([0, -1, -1, -1, -1, -1])
    rates = []
    for k in range(1, 6):
        serving[k] = 1  # one more user transmitting, to the other cloudlet
        rates.append(uplink_rate(gain, power, 1e-13, serving, 1e6)[0])
    assert np.all(np.diff(rates) < 0)


def test_path_loss_values_and_clipping():
    assert path_loss_db(1000.0) == pytest.approx(140.7)
    assert path_loss_db(100.0) == pytest.approx(140.7 - 36.7)
    assert path_loss_db(0.0) == path_loss_db(1.0) == pytest.approx(140.7 - 3 * 36.7)
    d = np.array([0.2, 3.0, 57.0, 250.0, 2000.0])
    assert path_loss_db(d) == pytest.approx([path_loss_db_naive(x) for x in d], rel=1e-12)


def test_gains_from_positions():
    users = np.array([[0.0, 0.0], [30.0, 40.0]])
    cloudlets = np.array([[0.0, 0.0], [100.0, 0.0]])
    g = channel_gains(users, cloudlets, fading=False)
    d = np.array([[0.0, 100.0], [50.0, math.hypot(70, 40)]])
    pl = [[path_loss_db_naive(x) for x in row] for row in d]
    assert g == pytest.approx(10.0 ** (-np.array(pl) / 10), rel=1e-12)
    faded = channel_gains(users, cloudlets, seed=5)
    assert np.array_equal(faded, channel_gains(users, cloudlets, seed=5))
    assert faded == pytest.approx(g * rayleigh_fading((2, 2), 5), rel=1e-12)
    assert not np.array_equal(faded, channel_gains(users, cloudlets, seed=6))


def test_rayleigh_fading_is_exp1_and_seeded():
    h = rayleigh_fading(200_000, 11)
    assert np.array_equal(h, rayleigh_fading(200_000, 11))
    assert h.mean() == pytest.approx(1.0, abs=0.01)
    assert h.var() == pytest.approx(1.0, abs=0.02)
    assert np.mean(h > 1.0) == pytest.approx(math.exp(-1), abs=0.005)
    assert rayleigh_fading((3, 4), 0).shape == (3, 4)


def test_coverage_noise_and_units():
    pl = path_loss_db(np.array([[50.0, 150.0], [400.0, 80.0]]))
    assert coverage(pl).tolist() == [[True, False], [False, True]]  # 110 dB ~ 146 m
    assert coverage(pl, threshold_db=200).all()
    assert dbm_to_watt(30.0) == pytest.approx(1.0)
    assert dbm_to_watt(np.array([0.0, 23.0])) == pytest.approx([1e-3, 0.19952623149688797])
    # -174 dBm/Hz + 70 dB (10 MHz) + 9 dB = -95 dBm
    assert noise_power(10e6) == pytest.approx(dbm_to_watt(-95.0), rel=1e-12, abs=0)
    assert noise_power(1e6, noise_figure_db=0) == pytest.approx(
        dbm_to_watt(-114.0), rel=1e-12, abs=0
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"noise_power": 0.0},
            "The 'noise_power' parameter of uplink_rate must be a finite real number in the "
            "range (0, inf). Got 0.0 instead.",
        ),
        (
            {"bandwidth": float("nan")},
            "The 'bandwidth' parameter of uplink_rate must be a finite real number in the "
            "range (0, inf). Got nan instead.",
        ),
        (
            {"serving": [0, 2]},
            "The 'serving' parameter of uplink_rate must be 2 integers in [-1, 1] (-1 = silent)."
            " Got 2 at index 1 instead.",
        ),
        (
            {"serving": [0.0, 1.0]},
            "The 'serving' parameter of uplink_rate must be 2 integers in [-1, 1] (-1 = silent)."
            " Got [0.0, 1.0] instead.",
        ),
        (
            {"power": [0.1, float("inf")]},
            "The 'power' parameter of uplink_rate must be 2 non-negative powers in W. "
            "Got inf at index 1 instead.",
        ),
        (
            {"power": [0.1]},
            "The 'power' parameter of uplink_rate must be 2 non-negative powers in W. "
            "Got [0.1] instead.",
        ),
        (
            {"gain": [[1e-9, -1e-9], [1e-9, 1e-9]]},
            "The 'gain' parameter of uplink_rate must be a 2-D array of non-negative linear "
            "gains. Got -1e-09 at index (0, 1) instead.",
        ),
        (
            {"gain": [[1e300, 1e300], [1e300, 1e300]], "power": [1e10, 1e10]},
            "The 'gain' parameter of uplink_rate must be a 2-D array of non-negative linear "
            "gains whose received powers gain * power sum to finite values. Got sums that "
            "overflow instead.",
        ),
    ],
)
def test_uplink_rate_bad_input_exact_message(change, message):
    kwargs = {
        "gain": [[1e-9, 1e-10], [1e-10, 1e-9]],
        "power": [0.1, 0.1],
        "noise_power": 1e-13,
        "serving": [0, 1],
        "bandwidth": 1e6,
    }
    kwargs.update(change)
    with pytest.raises(ParameterError) as info:
        uplink_rate(**kwargs)
    assert str(info.value) == message


def test_helpers_bad_input():
    with pytest.raises(ParameterError) as info:
        path_loss_db(-5.0)
    assert str(info.value) == (
        "The 'distance_m' parameter of path_loss_db must be non-negative distances in m. "
        "Got -5.0 instead."
    )
    with pytest.raises(ParameterError, match=r"'seed' parameter of rayleigh_fading .* Got -1"):
        rayleigh_fading(3, -1)
    with pytest.raises(ParameterError, match=r"'shape' parameter of rayleigh_fading"):
        rayleigh_fading((2, -1), 0)
    with pytest.raises(
        ParameterError,
        match=r"'cloudlet_xy' parameter of channel_gains must "
        r"have 2 coordinates",
    ):
        channel_gains([[0.0, 0.0]], [[1.0, 2.0, 3.0]])
    with pytest.raises(
        ParameterError,
        match=r"'user_xy' parameter of channel_gains .* Got nan "
        r"at index \(0, 1\)",
    ):
        channel_gains([[0.0, np.nan]], [[1.0, 2.0]])
    with pytest.raises(
        ParameterError,
        match=r"'bandwidth_hz' parameter of noise_power .* "
        r"\(0, inf\)\. Got -1 instead",
    ):
        noise_power(-1)


def test_overflowing_sinr_is_refused_not_an_infinite_rate():
    with pytest.raises(ParameterError, match="'noise_power' parameter of uplink_rate"):
        uplink_rate(np.array([[1.0]]), np.array([1.0]), 1e-320, np.array([0]), 1e6)


def test_noise_power_refuses_impossible_noise_figures_and_densities():
    with pytest.raises(
        ParameterError, match=r"'noise_figure_db' parameter of noise_power .*\[0, 30\]"
    ):
        noise_power(1e6, noise_figure_db=-1.0)
    with pytest.raises(ParameterError, match="'density_dbm_hz' parameter of noise_power"):
        noise_power(1e6, density_dbm_hz=-1.0)
