"""Spectral clustering: checks written to kill mutants the suite let live
(benchmarks/mutation/clustering.md), from the documented ranges of k and k_range."""

import numpy as np
import pytest

from workbench import ParameterError
from workbench.clustering import cluster_users

N = 10  # users


def _users():
    rng = np.random.default_rng(0)
    return rng.uniform(0, 100, (N, 2)), rng.integers(0, 5, (N, 3)).astype(float)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": N + 1}, rf"'k' parameter of cluster_users must be an int in the range \[1, {N}\]"),
        ({"k_range": (0, 3)}, rf"'k_range\[0\]' .* in the range \[1, {N - 1}\]\. Got 0"),
        ({"k_range": (N, N)}, rf"'k_range\[0\]' .* in the range \[1, {N - 1}\]\. Got {N}"),
        ({"k_range": (3, N)}, rf"'k_range\[1\]' .* in the range \[3, {N - 1}\]\. Got {N}"),
        ({"k_range": (3, 2)}, r"'k_range\[1\]' .* in the range \[3, 9\]\. Got 2"),
    ],
)
def test_k_and_k_range_are_refused_outside_their_documented_ranges(kwargs, message):
    x, c = _users()
    with pytest.raises(ParameterError, match=message):
        cluster_users(x, c, 80.0, 0.5, **kwargs)


def test_the_ends_of_the_ranges_are_accepted():
    x, c = _users()
    assert len(set(cluster_users(x, c, 80.0, 0.5, k=N).labels)) == N
    assert cluster_users(x, c, 80.0, 0.5, k_range=(1, N - 1)) is not None
