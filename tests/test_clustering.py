"""User similarity and spectral clustering: kernel vs twin, planted clusters, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_building_blocks import similarity_naive
from sklearn.metrics import adjusted_rand_score

from workbench import ParameterError
from workbench.clustering import cluster_users, similarity


@st.composite
def users(draw):
    n = draw(st.integers(1, 10))
    dims = draw(st.integers(1, 3))
    n_tasks = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.uniform(-500, 500, (n, dims))
    counts = rng.integers(0, 6, (n, n_tasks)) * (rng.random((n, 1)) < 0.85)  # some all-zero
    return x, counts


@settings(deadline=None, max_examples=300)
@given(users(), st.floats(1.0, 1000.0), st.floats(0.0, 1.0))
def test_similarity_matches_twin(data, sigma, theta):
    x, counts = data
    s = similarity(x, counts, sigma, theta)
    assert s == pytest.approx(np.array(similarity_naive(x, counts, sigma, theta)), abs=1e-12)
    assert np.array_equal(s, s.T)
    assert np.all(np.diag(s) == 1.0)
    assert np.all((s >= 0) & (s <= 1))


def test_similarity_hand_values():
    x = [[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]
    counts = [[1, 0], [1, 1], [0, 0]]  # user 2 requests nothing
    s = similarity(x, counts, sigma=5.0, theta=0.25)
    s_d = math.exp(-25 / 50)
    assert s[0, 1] == pytest.approx(0.25 * s_d + 0.75 / math.sqrt(2), rel=1e-14)
    assert s[0, 2] == pytest.approx(0.25 * 1.0 + 0.75 * 0.0)  # cosine 0 with a zero user
    assert s[2, 2] == 1.0
    # scale-free popularity part, also for huge counts
    big = similarity(x, np.array(counts) * 1e200, 5.0, 0.0)
    assert big[0, 1] == pytest.approx(1 / math.sqrt(2), rel=1e-14)


def planted(seed, n_groups=4, per_group=20, spread=25.0):
    """Well-separated location blobs, each with its own task-popularity profile."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, 2000, (n_groups, 2))
    while min(np.linalg.norm(a - b) for i, a in enumerate(centers) for b in centers[i + 1 :]) < 400:
        centers = rng.uniform(0, 2000, (n_groups, 2))
    truth = np.repeat(np.arange(n_groups), per_group)
    x = centers[truth] + rng.normal(0, spread, (truth.size, 2))
    profiles = rng.dirichlet(np.full(8, 0.3), n_groups)
    counts = np.array([rng.multinomial(40, profiles[g]) for g in truth])
    perm = rng.permutation(truth.size)
    return x[perm], counts[perm], truth[perm]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("theta", [1.0, 0.6])
def test_planted_clusters_recovered_with_eigengap_k(seed, theta):
    x, counts, truth = planted(seed)
    result = cluster_users(x, counts, sigma=80.0, theta=theta, seed=seed)
    assert result.k == 4
    assert adjusted_rand_score(truth, result.labels) >= 0.9
    assert result.eigenvalues.shape == (truth.size,)
    assert np.all(np.diff(result.eigenvalues) >= -1e-12)


def test_popularity_alone_separates_colocated_groups():
    rng = np.random.default_rng(5)
    truth = np.repeat([0, 1, 2], 15)
    x = rng.normal(0, 10, (45, 2))  # everybody in one spot
    profiles = np.eye(3)[:, [0, 1, 2, 0, 1, 2]] + 0.02
    counts = np.array([rng.multinomial(30, profiles[g] / profiles[g].sum()) for g in truth])
    result = cluster_users(x, counts, sigma=50.0, theta=0.0)
    assert result.k == 3
    assert adjusted_rand_score(truth, result.labels) >= 0.9


def test_given_k_range_and_seed():
    x, counts, truth = planted(3, n_groups=3, per_group=10)
    fixed = cluster_users(x, counts, 80.0, 1.0, k=3, seed=4)
    assert fixed.k == 3 and set(fixed.labels.tolist()) == {0, 1, 2}
    assert np.array_equal(fixed.labels, cluster_users(x, counts, 80.0, 1.0, k=3, seed=4).labels)
    assert cluster_users(x, counts, 80.0, 1.0, k_range=(4, 8)).k >= 4
    assert cluster_users(x, counts, 80.0, 1.0, k=1).labels.tolist() == [0] * 30


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"sigma": 0.0},
            "The 'sigma' parameter of cluster_users must be a finite real number in the range "
            "[1e-150, inf). Got 0.0 instead.",
        ),
        (
            {"theta": 1.5},
            "The 'theta' parameter of cluster_users must be a finite real number in the range "
            "[0, 1]. Got 1.5 instead.",
        ),
        (
            {"k": 0},
            "The 'k' parameter of cluster_users must be an int in the range [1, 5]. Got 0 instead.",
        ),
        (
            {"counts": [[1, 0]] * 4 + [[-1, 2]]},
            "The 'counts' parameter of cluster_users must be a 2-D array (5, K) of non-negative"
            " finite task counts. Got -1.0 at index (4, 0) instead.",
        ),
        (
            {"positions": [[0.0, np.inf]] + [[1.0, 1.0]] * 4},
            "The 'positions' parameter of cluster_users must be a 2-D array (U, D) of finite "
            "coordinates. Got inf at index (0, 1) instead.",
        ),
        (
            {"positions": [[0.0, 0.0]] * 3, "counts": [[1]] * 3},
            "The 'positions' parameter of cluster_users must have at least 4 users when k is "
            "chosen automatically (k in [2, U // 2]). Got 3 users instead.",
        ),
    ],
)
def test_bad_input_exact_message(kwargs, message):
    args = {
        "positions": np.arange(10.0).reshape(5, 2),
        "counts": np.ones((5, 2)),
        "sigma": 1.0,
        "theta": 0.5,
    }
    args.update(kwargs)
    with pytest.raises(ParameterError) as info:
        cluster_users(**args)
    assert str(info.value) == message


def test_similarity_bad_shapes():
    with pytest.raises(
        ParameterError,
        match=r"'counts' parameter of similarity must be a 2-D "
        r"array \(2, K\)",
    ):
        similarity([[0.0], [1.0]], [[1, 2, 3]], 1.0, 0.5)
    with pytest.raises(
        ParameterError,
        match=r"'positions' parameter of similarity .* Got "
        r"\[0\.0, 1\.0\] instead",
    ):
        similarity([0.0, 1.0], [[1], [2]], 1.0, 0.5)


def test_tiny_sigma_with_co_located_users_is_refused_not_divided_by_zero():
    x = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    with pytest.raises(ParameterError, match="'sigma' parameter of similarity"):
        similarity(x, np.ones((4, 3)), 1e-200, 0.5)
    s = similarity(x, np.ones((4, 3)), 1e-150, 1.0)  # the smallest width still works
    assert s[0, 1] == 1.0 and s[0, 2] == 0.0


def _cluster_in_child(queue):
    x = np.random.default_rng(1).random((40, 2))
    queue.put(cluster_users(x, np.ones((40, 3)), 0.2, 0.5, seed=1).k)


def test_clustering_works_in_a_forked_process():
    # the BLAS/OpenMP pools started in the parent deadlocked a forked child (a fuzzing
    # harness forks per call); clustering runs single-threaded
    import multiprocessing

    x = np.random.default_rng(0).random((40, 2))
    cluster_users(x, np.ones((40, 3)), 0.2, 0.5, seed=0)  # start the pools in this process
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_cluster_in_child, args=(queue,))
    child.start()
    child.join(30)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive and queue.get(timeout=5) >= 2
