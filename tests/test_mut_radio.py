"""Uplink radio: checks written to kill the mutants the suite let live
(benchmarks/mutation/radio.md), against the naive twins and eq. 2 of Elbamby et al. (2018)."""

import math

import numpy as np
import pytest
from naive_building_blocks import path_loss_db_naive, uplink_rate_naive

from workbench.kernels.radio import uplink_sinr_kernel
from workbench.radio import channel_gains


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_gains_when_users_cloudlets_and_coordinates_differ_in_number(dims):
    # 3 users, 4 cloudlets, `dims` coordinates: every axis of the result has its own length
    rng = np.random.default_rng(7)
    users, cloudlets = rng.uniform(0, 500, (3, dims)), rng.uniform(0, 500, (4, dims))
    g = channel_gains(users, cloudlets, fading=False)
    assert g.shape == (3, 4)
    for u in range(3):
        for e in range(4):
            d = math.dist(users[u], cloudlets[e])
            want = 10.0 ** (-path_loss_db_naive(d) / 10.0)
            assert g[u, e] == pytest.approx(want, rel=1e-12, abs=0.0)


def test_sinr_kernel_gives_zero_to_silent_users_and_eq_2_to_the_others():
    gain = np.array([[1e-9, 2e-9, 3e-9], [4e-9, 5e-9, 6e-9], [7e-9, 8e-9, 9e-9]])
    power = np.array([0.2, 0.1, 0.3])
    serving = np.array([2, -1, 0])  # user 1 is silent: no SINR, no interference
    sinr = uplink_sinr_kernel(gain, power, 1e-12, serving)
    assert sinr[1] == 0.0
    rates = uplink_rate_naive(gain, power, 1e-12, serving, 1.0)
    np.testing.assert_allclose(2.0 ** np.array(rates) - 1.0, sinr, rtol=1e-12)


def test_noise_power_is_density_plus_bandwidth_plus_noise_figure_in_dbm():
    from workbench.radio import noise_power

    # -174 dBm/Hz + 60 dB (1 MHz) + 9 dB = -105 dBm = 10^-13.5 W (defaults: 9 dB, -174 dBm/Hz);
    # compared with abs=0: the powers are ~1e-13 W, below pytest.approx's default abs 1e-12
    assert noise_power(1e6) == pytest.approx(10.0**-13.5, rel=1e-12, abs=0.0)
    for b, nf, n0 in [(1.0, 0.0, -174.0), (180e3, 5.0, -170.0), (20e6, 30.0, -200.0)]:
        want = 10.0 ** ((n0 + 10.0 * math.log10(b) + nf - 30.0) / 10.0)
        assert noise_power(b, nf, n0) == pytest.approx(want, rel=1e-12, abs=0.0)
    # -174 dBm/Hz is kT at 290 K (-173.98 dBm/Hz) rounded: k T B over 10 MHz, to 0.03 dB
    ktb = 1.380649e-23 * 290.0 * 10e6
    assert 10 * math.log10(noise_power(10e6, 0.0) / ktb) == pytest.approx(0.0, abs=0.03)


def test_noise_density_range_is_minus_200_to_minus_100_inclusive():
    from workbench import ParameterError
    from workbench.radio import noise_power

    assert noise_power(1e6, 9.0, -200.0) == pytest.approx(10.0**-16.1, rel=1e-12, abs=0.0)
    assert noise_power(1e6, 9.0, -100.0) == pytest.approx(10.0**-6.1, rel=1e-12, abs=0.0)
    for bad in (-200.5, -99.5):
        with pytest.raises(ParameterError, match=r"range \[-200, -100\]\. Got"):
            noise_power(1e6, 9.0, bad)


def test_dbm_to_watt_up_to_3100_and_scalar_types():
    from workbench import ParameterError
    from workbench.radio import dbm_to_watt, path_loss_db

    assert dbm_to_watt(3100.0) == pytest.approx(1e307, rel=1e-12)
    with pytest.raises(ParameterError, match=r"'dbm' parameter of dbm_to_watt .* <= 3100"):
        dbm_to_watt(3100.5)
    for f in (dbm_to_watt, path_loss_db):
        assert type(f(20.0)) is float and type(f(np.float64(20.0))) is float
        assert isinstance(f(np.array([20.0])), np.ndarray)


def test_bad_arrays_are_refused_by_name_with_the_first_bad_index():
    from workbench import ParameterError
    from workbench.radio import path_loss_db, uplink_rate

    with pytest.raises(ParameterError, match=r"Got -2\.0 at index 1 instead"):
        path_loss_db([1.0, -2.0, -3.0])
    with pytest.raises(ParameterError, match=r"'distance_m' parameter of path_loss_db"):
        path_loss_db(-0.5)
    with pytest.raises(ParameterError, match=r"'distance_m' parameter of path_loss_db"):
        path_loss_db([[1.0], [2.0, 3.0]])  # ragged: numpy raises ValueError

    class Opaque:  # an array-like whose conversion raises TypeError
        def __array__(self, dtype=None, copy=None):
            raise TypeError("no")

    with pytest.raises(ParameterError, match=r"'distance_m' parameter of path_loss_db"):
        path_loss_db(Opaque())
    gain, power, serving = np.full((2, 3), 1e-9), np.array([0.1, 0.2]), np.array([0, 2])
    assert uplink_rate(gain, power, 1e-13, serving, 1e6).shape == (2,)
    bad = [
        ({"gain": np.full((2, 3, 1), 1e-9)}, "'gain'"),
        ({"gain": np.full(3, 1e-9)}, "'gain'"),
        ({"power": np.array([0.1, 0.2, 0.3])}, "'power'"),
        ({"power": np.array([0.1, -0.5])}, "'power'"),
        ({"serving": np.array([0, 2, 1])}, "'serving'"),
        ({"serving": np.array([0])}, "'serving'"),
        ({"serving": [[0], [1, 2]]}, "'serving'"),
        ({"serving": Opaque()}, "'serving'"),
        ({"serving": np.array([-2, 0])}, r"'serving' .* Got -2 at index 0"),
        ({"serving": np.array([0, 3])}, r"'serving' .* Got 3 at index 1"),
        ({"serving": np.array([0, 4])}, r"'serving' .* Got 4 at index 1"),
    ]
    args = dict(gain=gain, power=power, noise_power=1e-13, serving=serving, bandwidth=1e6)
    for change, message in bad:
        with pytest.raises(ParameterError, match=message):
            uplink_rate(**(args | change))


def test_overflow_checks_look_at_every_cloudlet_and_name_the_user():
    from workbench import ParameterError
    from workbench.radio import uplink_rate

    # cloudlet 1 receives 2 x 1e308 W: the sum overflows although no single power does
    gain = np.array([[0.5, 1.0], [0.5, 1.0]])
    with pytest.raises(ParameterError, match="overflow"):
        uplink_rate(gain, np.array([1e308, 1e308]), 1.0, np.array([0, 0]), 1e6)
    # user 1's SINR alone overflows: the message names user 1
    with pytest.raises(ParameterError, match="overflows for user 1"):
        uplink_rate(np.array([[1e-9], [1.0]]), np.array([1.0, 1.0]), 1e-320, [-1, 0], 1.0)


def test_fading_shapes_and_the_memory_it_needs(monkeypatch):
    import workbench.validation as validation
    from workbench import ParameterError
    from workbench.radio import rayleigh_fading

    assert rayleigh_fading((2, 0), 1).shape == (2, 0)
    for bad in (None, (2, 2.0), (2, True)):
        with pytest.raises(ParameterError, match="'shape' parameter of rayleigh_fading"):
            rayleigh_fading(bad, 1)
    # 1000 float64 draws: 8000 bytes
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 8100.0)
    assert rayleigh_fading(1000, 1).shape == (1000,)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", 7900.0)
    with pytest.raises(ParameterError, match="memory budget"):
        rayleigh_fading(1000, 1)


def test_positions_need_the_same_number_of_coordinates_and_two_axes():
    from workbench import ParameterError
    from workbench.radio import channel_gains

    assert channel_gains([[0.0, 0.0]], [[1.0, 2.0], [3, 4], [5, 6]], fading=False).shape == (1, 3)
    for users, cloudlets in [
        ([[0.0, 0.0], [1, 1], [2, 2]], [[1.0]]),
        ([[0.0, 0.0]], [[1.0, 2.0, 3.0]]),
        ([0.0, 0.0], [[1.0, 2.0]]),
        ([[[0.0, 0.0]]], [[1.0, 2.0]]),
    ]:
        with pytest.raises(ParameterError, match="parameter of channel_gains"):
            channel_gains(users, cloudlets, fading=False)


def test_coverage_is_at_most_110_db_by_default():
    from workbench.radio import coverage

    assert coverage([[109.5, 110.0, 110.5]]).tolist() == [[True, True, False]]
