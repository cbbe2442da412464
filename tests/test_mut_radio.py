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
            assert g[u, e] == pytest.approx(want, rel=1e-12)


def test_sinr_kernel_gives_zero_to_silent_users_and_eq_2_to_the_others():
    gain = np.array([[1e-9, 2e-9, 3e-9], [4e-9, 5e-9, 6e-9], [7e-9, 8e-9, 9e-9]])
    power = np.array([0.2, 0.1, 0.3])
    serving = np.array([2, -1, 0])  # user 1 is silent: no SINR, no interference
    sinr = uplink_sinr_kernel(gain, power, 1e-12, serving)
    assert sinr[1] == 0.0
    rates = uplink_rate_naive(gain, power, 1e-12, serving, 1.0)
    np.testing.assert_allclose(2.0 ** np.array(rates) - 1.0, sinr, rtol=1e-12)
