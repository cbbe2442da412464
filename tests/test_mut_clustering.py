"""Spectral clustering: checks written to kill mutants the suite let live
(benchmarks/mutation/clustering.md), from the documented ranges of k and k_range."""

import warnings

import numpy as np
import pytest
from sklearn.cluster import SpectralClustering
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_info, threadpool_limits

from workbench import ParameterError
from workbench.clustering import cluster_users, similarity

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


# --- input checks: every refused shape or type is a ParameterError naming the parameter ---


class _Unconvertible:
    def __array__(self, *args, **kwargs):
        raise TypeError("no array view")


@pytest.mark.parametrize(
    ("positions", "counts", "name"),
    [
        ([[0.0, 1.0], [2.0]], [[1.0], [1.0]], "positions"),  # ragged: ValueError in numpy
        (_Unconvertible(), [[1.0], [1.0]], "positions"),  # TypeError in numpy
        ([["a", "b"], ["c", "d"]], [[1.0], [1.0]], "positions"),  # not numbers
        ([[0.0, 1.0], [2.0, 3.0]], [[1 + 2j], [1.0]], "counts"),  # complex is not a count
        (np.zeros((2, 2, 1)), [[1.0], [1.0]], "positions"),  # 3-D
        ([[0.0, 1.0], [2.0, 3.0]], [[1.0], [1.0], [1.0]], "counts"),  # one row too many
    ],
)
def test_inputs_of_the_wrong_kind_are_refused_by_name(positions, counts, name):
    with pytest.raises(ParameterError, match=rf"The '{name}' parameter of similarity must be"):
        similarity(positions, counts, 1.0, 0.5)


def test_the_first_bad_entry_is_named():
    x = [[0.0, 0.0], [np.nan, 1.0], [2.0, np.inf]]
    with pytest.raises(ParameterError, match=r"Got nan at index \(1, 0\)"):
        similarity(x, np.ones((3, 1)), 1.0, 0.5)


def test_many_users_and_no_tasks():
    # 300 users (past CPython's small-int cache) pass the row check; K = 0 tasks means no
    # popularity information: S_p is the identity and the similarity theta * S_d + (1 - theta) I
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, (300, 2))
    assert similarity(x, np.ones((300, 1)), 3.0, 0.0) == pytest.approx(np.ones((300, 300)))
    s = similarity(x[:5], np.zeros((5, 0)), 3.0, 0.25)
    d2 = ((x[:5, None, :] - x[None, :5, :]) ** 2).sum(axis=2)
    assert s == pytest.approx(0.25 * np.exp(-d2 / 18.0) + 0.75 * np.eye(5), abs=1e-15)


def test_users_with_no_requests_raise_no_warning():
    counts = np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 on an empty row would warn "invalid value"
        s = similarity(np.zeros((3, 1)), counts, 1.0, 0.0)
    assert s == pytest.approx(np.eye(3))


# --- the spectrum: against the normalised Laplacian built with matrix products (a twin) ---


@pytest.mark.parametrize("case", range(4))
def test_eigenvalues_are_the_normalised_laplacian_spectrum(case):
    rng = np.random.default_rng(46 + case)  # seed 46 makes eigh return a value below 0
    x, c = rng.uniform(0, 100, (8, 2)), rng.integers(0, 5, (8, 3)).astype(float)
    w = similarity(x, c, 30.0, 0.5)
    # L = I - D^-1/2 W D^-1/2 with D the degrees, self-loops included (unit diagonal)
    half = np.diag(1.0 / np.sqrt([sum(row) for row in w.tolist()]))
    twin = np.linalg.eigvalsh(np.eye(8) - half @ w @ half)
    eig = cluster_users(x, c, 30.0, 0.5, k=1).eigenvalues
    assert eig == pytest.approx(np.sort(twin), abs=1e-12)
    assert eig.min() >= 0.0  # a Laplacian spectrum: rounding below 0 is clipped


# --- the clustering itself ---


def test_no_users_and_one_user():
    empty = cluster_users(np.zeros((0, 2)), np.zeros((0, 3)), 1.0, 0.5, k=1)
    assert (empty.labels.shape, empty.k, empty.eigenvalues.shape) == ((0,), 1, (0,))
    one = cluster_users([[1.0, 2.0]], [[3.0]], 1.0, 0.5, k=1)
    assert (one.labels.tolist(), one.k, one.eigenvalues.tolist()) == ([0], 1, [0.0])
    ranged = cluster_users([[1.0, 2.0]], [[3.0]], 1.0, 0.5, k_range=(1, 1))
    assert (ranged.labels.tolist(), ranged.k) == ([0], 1)
    with pytest.raises(ParameterError, match=r"'k' parameter .* range \[1, 1\]\. Got 2"):
        cluster_users([[1.0, 2.0]], [[3.0]], 1.0, 0.5, k=2)
    with pytest.raises(ParameterError, match=r"'k_range\[1\]' .* range \[1, 1\]\. Got 2"):
        cluster_users([[1.0, 2.0], [5.0, 5.0]], [[3.0], [1.0]], 1.0, 0.5, k_range=(1, 2))
    with pytest.raises(ParameterError, match=r"'k_range\[0\]' .* range \[1, 1\]\. Got 2"):
        cluster_users([[1.0, 2.0], [5.0, 5.0]], [[3.0], [1.0]], 1.0, 0.5, k_range=(2, 2))


def _groups(sizes, spread=1.0):
    """Users in far-apart spots (1000 apart), ``sizes[g]`` users at spot g."""
    rng = np.random.default_rng(len(sizes))
    truth = np.repeat(np.arange(len(sizes)), sizes)
    x = np.column_stack([truth * 1000.0, np.zeros(truth.size)])
    return x + rng.normal(0, spread, x.shape), np.ones((truth.size, 1)), truth


@pytest.mark.parametrize(
    ("sizes", "k"),
    [
        ((2, 2), 2),  # U = 4, the fewest users the automatic k takes
        ((4, 4), 2),  # the smallest k of the default range
        ((2, 2, 2, 2), 4),  # the largest, U // 2
        ((2, 2, 1, 1, 1, 1), None),  # six groups: the largest gap is past U // 2
    ],
)
def test_eigengap_k_in_the_default_range(sizes, k):
    x, c, truth = _groups(sizes)
    result = cluster_users(x, c, 10.0, 1.0)
    if k is None:
        assert 2 <= result.k <= len(truth) // 2
        return
    assert result.k == k
    if k == len(sizes):
        assert adjusted_rand_score(truth, result.labels) == 1.0
    else:
        assert len(set(result.labels.tolist())) == k


def test_two_clusters_are_two():
    x, c, truth = _groups((3, 3))
    result = cluster_users(x, c, 10.0, 1.0, k=2)
    assert result.k == 2 and adjusted_rand_score(truth, result.labels) == 1.0


def test_the_seed_is_scikit_learns_random_state_below_2_to_the_32():
    rng = np.random.default_rng(3)
    x, c = rng.uniform(0, 100, (12, 2)), rng.integers(0, 5, (12, 3)).astype(float)
    w = similarity(x, c, 30.0, 0.5)
    for seed in (0, 1, 7, 2**31 + 5, 2**32 - 1):  # seeds whose label numbering differs
        model = SpectralClustering(n_clusters=4, affinity="precomputed", random_state=seed)
        expected = model.fit_predict(w)
        assert cluster_users(x, c, 30.0, 0.5, k=4, seed=seed).labels.tolist() == (
            expected.tolist()
        ), seed
    default = cluster_users(x, c, 30.0, 0.5, k=4).labels
    assert np.array_equal(default, cluster_users(x, c, 30.0, 0.5, k=4, seed=0).labels)
    for big in (2**32, 2**40 + 3):  # out of scikit-learn's range: mapped into it, repeatably
        first = cluster_users(x, c, 30.0, 0.5, k=4, seed=big).labels
        assert np.array_equal(first, cluster_users(x, c, 30.0, 0.5, k=4, seed=big).labels)


def test_blas_runs_single_threaded_while_clustering(monkeypatch):
    import workbench.clustering as mod

    seen = []
    spectrum = mod._normalised_laplacian_spectrum

    def recording(affinity):
        seen.extend(info["num_threads"] for info in threadpool_info())
        return spectrum(affinity)

    monkeypatch.setattr(mod, "_normalised_laplacian_spectrum", recording)
    x, c, _ = _groups((2, 2))
    with threadpool_limits(limits=2):  # more than one thread outside
        cluster_users(x, c, 10.0, 1.0, k=1)
    assert seen and set(seen) == {1}
