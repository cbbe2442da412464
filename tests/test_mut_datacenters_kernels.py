"""P3's kernels where their twin tests were silent: mutants of
``workbench/datacenters/kernels.py`` that ``tests/test_datacenters_simulation.py``'s twin tests
let survive (``benchmarks/mutation.py datacenters_kernels``).

The oracles: the idle-server walk solved densely with its level cut far in its geometric
tail, and its rate matrix R by the plain functional iteration on blocks read off the dense
generator (tests/naive_datacenters.py); the simulators' slow twins on draws that land
exactly on the boundaries between events (the intervals are half-open: [0, λ1), [λ1, λ1 +
λ2), ...), at the top end of [0, 1), and with warm-ups at or past the run's end.
"""

import naive_datacenters as naive
import numpy as np
import pytest

from workbench.datacenters.kernels import (
    Centers,
    idle_walk_qbd,
    simulate_ring_kernel,
    simulate_two_centers_kernel,
)


@pytest.mark.parametrize(
    ("walk", "phases", "levels"),
    [
        ((1.5, 2.0, 1.0, 1.0, 0.6, 0.3), 12, 55),
        ((2.0, 1.6, 1.0, 1.0, 0.0, 1.0), 10, 75),
        ((1.2, 2.5, 1.0, 1.0, 1.0, 0.0), 14, 40),
        ((3.0, 2.2, 1.8, 1.1, 0.5, 0.5), 8, 55),
    ],
)
def test_idle_walk_qbd_matches_the_dense_walk_and_its_rate_matrix(walk, phases, levels):
    """Every output: P(m = k), P(n = 0), P(m = 0, n = 0) against the dense walk (m cut at
    ``phases`` as in the QBD, n at ``levels``, where its tail is below 1e-14), and the
    largest row sum of R against R from the functional iteration."""
    marg, p_level0, pi00, rho, iterations, g_error = idle_walk_qbd(*walk, phases, 1e-14, 200)
    ref_marg, ref_level0, ref_pi00 = naive.idle_walk_dense(*walk, phases, levels)
    assert marg.shape == (phases + 1,)
    np.testing.assert_allclose(marg, ref_marg, atol=1e-11)
    assert p_level0 == pytest.approx(ref_level0, abs=1e-11)
    assert pi00 == pytest.approx(ref_pi00, abs=1e-11)
    r = naive.idle_walk_rate_matrix(*walk, phases)
    assert rho == pytest.approx(r.sum(axis=1).max(), abs=1e-12)
    assert 0 < iterations < 200 and 0 <= g_error < 1e-12


def _draw_on(cut, total):
    """The uniform x with x * total == cut exactly (cut / total, nudged by an ulp where the
    division rounds): a draw on the boundary ``cut`` of the event intervals."""
    x = cut / total
    while x * total < cut:
        x = np.nextafter(x, 1.0)
    while x * total > cut:
        x = np.nextafter(x, 0.0)
    return x


def _two_center_boundary_draws(lam1, lam2, mu1, mu2, cap1, cap2, n_events, seed):
    """Draws whose event falls on a boundary [λ1 | λ2 | departures 1 | departures 2], with
    integer rates so that every partial sum is exact, run against the twin step by step."""
    rng = np.random.default_rng(seed)
    u = np.empty(n_events)
    v = np.full(n_events, 0.5)
    l1 = l2 = 0
    for k in range(n_events):
        total = lam1 + lam2 + l1 * mu1 + l2 * mu2
        cuts = [c for c in (0.0, lam1, lam1 + lam2, lam1 + lam2 + l1 * mu1) if c < total]
        cut = cuts[rng.integers(len(cuts))]
        u[k] = _draw_on(cut, total)
        step = (lam1, lam2, mu1, mu2, 0.5, 0.5, cap1, cap2, l1, l2, u[k : k + 1], v[k : k + 1], 0)
        l1, l2 = (int(s) for s in naive.simulate_two_centers(*step)[2])
    return u, v


def test_two_center_draws_on_event_boundaries_take_the_upper_event():
    """u λ_total on a boundary picks the event above it, and u_forward = p forwards not
    (both intervals half-open, as the twin reads them); integer rates and p = 1/2, so the
    boundaries are exact."""
    lam1, lam2, mu1, mu2, cap1, cap2 = 2.0, 1.0, 1.0, 1.0, 2, 2
    u, v = _two_center_boundary_draws(lam1, lam2, mu1, mu2, cap1, cap2, 120, 4)
    args = (lam1, lam2, mu1, mu2, 0.5, 0.5, cap1, cap2, 0, 0)
    lost = np.full(u.size, 9, np.uint8)
    got = simulate_two_centers_kernel(Centers(*args), u, v, 0, lost)
    ref = naive.simulate_two_centers(*args, u, v, 0)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[2], ref[2])
    np.testing.assert_array_equal(lost[: got[3]], ref[3])
    assert got[0][3] + got[0][4] + got[0][9] + got[0][10] > 0  # overflow happened


def _ring_boundary_draws(lam, mu, p, cap, n_events, seed):
    rng = np.random.default_rng(seed)
    n = lam.size
    u = np.empty(n_events)
    v = np.empty(n_events)
    state = np.zeros(n, np.int64)
    for k in range(n_events):
        rates = np.concatenate([lam, state * mu])
        total = float(rates.sum())
        cuts = [0.0] + [c for c in np.cumsum(rates)[:-1] if c < total]
        cut = cuts[rng.integers(len(cuts))]
        u[k] = _draw_on(cut, total)
        j = rng.integers(n)
        v[k] = (p[j], 2 * p[j], rng.random())[rng.integers(3)]
        state = naive.simulate_ring(lam, mu, p, cap, state, u[k : k + 1], v[k : k + 1], 0)[2]
    return u, v


def test_ring_draws_on_event_boundaries_take_the_upper_event():
    """The ring's event and neighbour intervals are half-open too: u λ_total on a boundary
    is the event above it, u_forward = p_j goes right (not left), 2 p_j is rejected."""
    lam = np.array([1.0, 2.0, 1.0, 1.0])
    mu = np.ones(4)
    p = np.array([0.25, 0.5, 0.25, 0.125])
    cap = np.array([1, 2, 1, 1], np.int64)
    u, v = _ring_boundary_draws(lam, mu, p, cap, 150, 3)
    lost = np.full(u.size, 9, np.uint8)
    got = simulate_ring_kernel(lam, mu, p, cap, np.zeros(4, np.int64), u, v, 0, lost)
    ref = naive.simulate_ring(lam, mu, p, cap, np.zeros(4, np.int64), u, v, 0)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[2], ref[2])
    np.testing.assert_array_equal(lost[: got[3]], ref[3])
    assert got[0][:, 2].sum() > 0 and got[0][:, 3].sum() > 0 and got[0][:, 4].sum() > 0


@pytest.mark.parametrize("extra", [0, 7])
def test_a_warm_up_as_long_as_the_run_counts_every_arrival_as_warm_up(extra):
    """warmup >= events (300 here, an int object of its own): nothing is recorded and every
    arrival written to ``lost`` is a warm-up one, in both kernels, as in their twins."""
    rng = np.random.default_rng(11)
    events = 300
    warmup = int(np.int64(events + extra))
    u, v = rng.random(events), rng.random(events)
    args = (4.0, 3.0, 1.0, 1.0, 0.5, 0.5, 3, 3, 0, 0)
    lost = np.zeros(events, np.uint8)
    counts, occ, _, n1, warm1 = simulate_two_centers_kernel(Centers(*args), u, v, warmup, lost)
    ref = naive.simulate_two_centers(*args, u, v, warmup)
    assert counts.sum() == 0 and occ.sum() == 0.0
    assert n1 == ref[3].size > 0 and warm1 == ref[4] == n1
    lam, mu = np.array([2.0, 3.0, 1.5]), np.ones(3)
    p, cap = np.array([0.3, 0.2, 0.4]), np.array([2, 2, 2], np.int64)
    lost = np.zeros(events, np.uint8)
    counts, occ, _, n_arr, warm = simulate_ring_kernel(
        lam, mu, p, cap, np.zeros(3, np.int64), u, v, warmup, lost
    )
    ref = naive.simulate_ring(lam, mu, p, cap, np.zeros(3, np.int64), u, v, warmup)
    assert counts.sum() == 0 and occ.sum() == 0.0
    assert n_arr == ref[3].size > 0 and warm == ref[4] == n_arr


def test_the_ring_marks_the_end_of_a_long_warm_up():
    """A warm-up of 300 events (past the small integers CPython shares) in a run of 1000:
    the arrivals before it are counted as warm-up, the statistics start after it."""
    rng = np.random.default_rng(5)
    lam, mu = np.array([2.0, 3.0, 1.5, 2.5]), np.array([1.0, 1.2, 0.8, 1.0])
    p, cap = np.array([0.3, 0.2, 0.4, 0.1]), np.array([2, 3, 2, 2], np.int64)
    u, v = rng.random(1000), rng.random(1000)
    warmup = int(np.int64(300))
    lost = np.zeros(1000, np.uint8)
    got = simulate_ring_kernel(lam, mu, p, cap, np.zeros(4, np.int64), u, v, warmup, lost)
    ref = naive.simulate_ring(lam, mu, p, cap, np.zeros(4, np.int64), u, v, warmup)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)
    assert got[4] == ref[4] > 0 and got[3] == ref[3].size


# Nine centers whose loads, summed pairwise (numpy, with the JIT off) and one by one (the
# event walk), differ in the last bit, so that a draw at the top of [0, 1) can pass every
# bucket: the departure then goes to the last busy center, the one the twin picks.
_NINE = np.array(
    [
        0.2916392404998167,
        2.5398201108759113,
        0.29340102542459406,
        1.098498938531963,
        1.3478663226487166,
        2.9015800342738034,
        1.7304723424625255,
        0.8507073201957035,
        0.8008595708736004,
    ]
)


@pytest.mark.parametrize(
    "busy",
    [
        [0, 3, 0, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 0, 1, 0, 0, 0, 0, 2, 0],
    ],
)
def test_a_draw_at_the_top_of_the_unit_interval_ends_a_service_at_the_last_busy_center(busy):
    busy = np.array(busy, np.int64)
    mu, p, cap = np.ones(9), np.full(9, 0.2), np.full(9, 3, np.int64)
    u = np.array([np.nextafter(1.0, 0.0)])
    v = np.array([0.5])
    lost = np.zeros(1, np.uint8)
    got = simulate_ring_kernel(_NINE, mu, p, cap, busy, u, v, 0, lost)
    ref = naive.simulate_ring(_NINE, mu, p, cap, busy, u, v, 0)
    last = np.nonzero(busy)[0][-1]
    want = busy.copy()
    want[last] -= 1
    np.testing.assert_array_equal(ref[2], want)
    np.testing.assert_array_equal(got[2], want)
    assert got[3] == 0


@pytest.mark.parametrize(
    ("walk", "phases", "head"),
    [
        # m's tail decays like 1/4 per phase: far out, pi_0 is below round-off and the solve
        # leaves tiny negatives there, which must be clipped
        ((4.0, 2.0, 1.0, 1.0, 0.5, 0.5), 60, 20),
        # more phases than CPython's shared small integers
        ((6.0, 3.0, 1.0, 1.5, 0.2, 0.2), 260, 16),
    ],
)
def test_idle_walk_qbd_with_a_deep_light_tail_is_a_law_and_its_head_is_the_dense_walks(
    walk, phases, head
):
    """P(m = k) is a probability law (non-negative, summing to 1) however far the phases
    go, and its head is the dense walk's cut at ``head`` phases (the mass beyond is below
    (c1 μ1 / λ1)^head < 1e-12)."""
    marg, p_level0, pi00, *_ = idle_walk_qbd(*walk, phases, 1e-14, 200)
    assert marg.shape == (phases + 1,) and (marg >= 0).all()
    assert marg.sum() == pytest.approx(1.0, abs=1e-12)
    ref_marg, ref_level0, ref_pi00 = naive.idle_walk_dense(*walk, head, 50)
    np.testing.assert_allclose(marg[: head + 1], ref_marg, atol=1e-11)
    assert (p_level0, pi00) == pytest.approx((ref_level0, ref_pi00), abs=1e-11)


def test_a_class_one_arrival_as_the_last_warm_up_event_is_a_warm_up_arrival():
    """The warm-up is the first ``warmup`` events: a class-1 arrival as event warmup - 1
    (u = 0 picks it) is counted among the warm-up arrivals, as in the twin."""
    rng = np.random.default_rng(2)
    u, v = rng.random(400), rng.random(400)
    warmup = 300
    u[warmup - 1] = 0.0
    args = (4.0, 3.0, 1.0, 1.0, 0.5, 0.5, 3, 3, 0, 0)
    lost = np.zeros(400, np.uint8)
    got = simulate_two_centers_kernel(Centers(*args), u, v, warmup, lost)
    ref = naive.simulate_two_centers(*args, u, v, warmup)
    assert got[4] == ref[4]
    np.testing.assert_array_equal(got[0], ref[0])


def test_an_idle_ring_never_goes_below_zero_at_the_top_of_the_unit_interval():
    """Every center idle and a draw at the top of [0, 1): whatever the event walk makes of
    it, no center's count goes negative."""
    mu, p, cap = np.ones(9), np.full(9, 0.2), np.full(9, 3, np.int64)
    u, v = np.array([np.nextafter(1.0, 0.0)]), np.array([0.5])
    lost = np.zeros(1, np.uint8)
    got = simulate_ring_kernel(_NINE, mu, p, cap, np.zeros(9, np.int64), u, v, 0, lost)
    assert (got[2] >= 0).all() and got[2].sum() <= 1
