"""The grid-chain and QBD kernels (``workbench.kernels.markov``) against their dense twins
(tests/naive_markov.py) and against theory, on small chains: each kernel alone, so that a
one-token change inside one of them is seen even where P3's solver would still converge
(benchmarks/mutation.py, target ``markov``)."""

import naive_markov as nv
import numpy as np
import pytest

from workbench.kernels.markov import (
    adi_half_step_x,
    adi_half_step_y,
    adi_precondition,
    adi_shifts,
    grid_chain_stencil,
    qbd_rate_matrix,
    stationary_gmres,
    stencil_left_multiply,
    stencil_residual,
    stencil_to_coo,
)


def _rates(seed, k1, k2, extra=True):
    """Random birth and death rates of two coordinates, every one distinct, and extras."""
    rng = np.random.default_rng(seed)
    up1, down1 = rng.uniform(0.5, 3.0, k1 + 1), rng.uniform(0.5, 3.0, k1 + 1)
    up2, down2 = rng.uniform(0.5, 3.0, k2 + 1), rng.uniform(0.5, 3.0, k2 + 1)
    e1, e2 = rng.uniform(0.5, 2.0, 2) if extra else (0.0, 0.0)
    return up1, down1, float(e1), up2, down2, float(e2)


SHAPES = [(0, 0, 1), (1, 3, 2), (3, 1, 3), (3, 4, 4), (5, 2, 5)]


@pytest.mark.parametrize("k1, k2, seed", SHAPES)
def test_stencil_is_the_coupled_chain(k1, k2, seed):
    args = _rates(seed, k1, k2)
    got = grid_chain_stencil(*args)
    want = nv.stencil_dense(*args)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def _dense_from_coo(stencil):
    rows, cols, vals = stencil_to_coo(*stencil)
    n = stencil[0].size
    q = np.zeros((n, n))
    np.add.at(q, (rows, cols), vals)
    return q, rows, cols, vals


@pytest.mark.parametrize("k1, k2, seed", SHAPES)
def test_coo_is_the_generator_with_one_entry_per_rate(k1, k2, seed):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    q, rows, cols, vals = _dense_from_coo(stencil)
    np.testing.assert_allclose(q, nv.generator(*stencil), rtol=1e-14, atol=0)
    # one diagonal entry per state and one entry per non-zero rate, no duplicates
    n = stencil[0].size
    assert len(rows) == n + sum(int(np.count_nonzero(s)) for s in stencil)
    assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) == len(rows)
    np.testing.assert_allclose(q.sum(axis=1), 0.0, atol=1e-12)


def test_coo_leaves_out_zero_rates():
    up1, down1 = np.array([1.0, 0.0, 2.0]), np.array([0.0, 1.5, 0.0])
    up2, down2 = np.array([0.0, 3.0]), np.array([0.0, 0.0])
    stencil = grid_chain_stencil(up1, down1, 0.0, up2, down2, 0.0)
    rows, cols, vals = stencil_to_coo(*stencil)
    assert np.all(vals[rows != cols] != 0.0)
    q, *_ = _dense_from_coo(stencil)
    np.testing.assert_allclose(q, nv.generator(*stencil), rtol=1e-14, atol=0)


@pytest.mark.parametrize("k1, k2, seed", SHAPES)
def test_left_multiply_and_residual_are_v_times_q(k1, k2, seed):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    q = nv.generator(*stencil)
    v = np.random.default_rng(seed + 10).uniform(-1.0, 1.0, stencil[0].shape)
    out = np.full(v.shape, np.nan)
    stencil_left_multiply(v, *stencil, out)
    want = v.reshape(-1) @ q
    np.testing.assert_allclose(out.reshape(-1), want, rtol=1e-12, atol=1e-13)
    res, flow = stencil_residual(v, *stencil)
    assert res == pytest.approx(np.abs(want).sum(), rel=1e-12)
    assert flow == pytest.approx(np.abs(v.reshape(-1)) @ -np.diag(q), rel=1e-12)


@pytest.mark.parametrize("k1, k2, seed", SHAPES)
@pytest.mark.parametrize("shift", [0.7, 4.0])
def test_adi_half_steps_solve_their_line_systems(k1, k2, seed, shift):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    qx, qy = nv.generator_parts(*stencil)
    rng = np.random.default_rng(seed + 20)
    z, g = rng.uniform(-1.0, 1.0, (2, *stencil[0].shape))
    for along, step in (("x", adi_half_step_x), ("y", adi_half_step_y)):
        out = np.full(z.shape, np.nan)
        cp = np.full(z.shape, np.nan)
        step(z, g, *stencil, shift, out, cp)
        want = nv.adi_half_step(z.reshape(-1), g.reshape(-1), qx, qy, shift, along)
        np.testing.assert_allclose(out.reshape(-1), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k1, k2, seed", SHAPES[1:])
def test_adi_cycle_is_the_dense_peaceman_rachford_cycle(k1, k2, seed):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    qx, qy = nv.generator_parts(*stencil)
    shifts = np.array([5.0, 1.5, 0.4])
    g = np.random.default_rng(seed + 30).uniform(-1.0, 1.0, stencil[0].shape)
    z = np.full(g.shape, np.nan)
    tmp, cp = np.empty(g.shape), np.empty(g.shape)
    adi_precondition(g, *stencil, shifts, z, tmp, cp)
    want = nv.adi_cycle(g.reshape(-1), qx, qy, shifts)
    np.testing.assert_allclose(z.reshape(-1), want, rtol=1e-10, atol=1e-12)


def test_adi_shifts_are_geometric_midpoints_largest_first():
    low, high = 0.3, 30.0
    for count in (1, 2, 5):
        s = adi_shifts(low, high, count)
        j = np.arange(count)
        want = low * (high / low) ** ((count - j - 0.5) / count)
        np.testing.assert_allclose(s, want, rtol=1e-14)
    s = adi_shifts(low, high, 4)
    ratios = s[:-1] / s[1:]
    np.testing.assert_allclose(ratios, (high / low) ** 0.25, rtol=1e-12)
    assert s[0] == pytest.approx(high * (low / high) ** (1 / 8))  # half a step below high
    assert adi_shifts(2.0, 8.0, 1)[0] == pytest.approx(4.0)  # the geometric mean


def _shift_range(stencil):
    total = sum(stencil)
    return max(total.min(), 1e-3), 4.0 * total.max()


@pytest.mark.parametrize(
    "k1, k2, seed, restart", [(3, 4, 1, 30), (5, 2, 2, 3), (6, 6, 3, 2), (4, 3, 4, 1)]
)
def test_gmres_finds_the_stationary_law(k1, k2, seed, restart):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    want = nv.stationary(nv.generator(*stencil)).reshape(stencil[0].shape)
    shifts = adi_shifts(*_shift_range(stencil), 4)
    guess = np.ones(stencil[0].shape)
    guess[0, 0] = 3.0  # the pinned state is the guess's most likely one
    pi, res, flow, its, conv = stationary_gmres(*stencil, guess, shifts, 1e-12, restart, 500)
    assert conv
    assert its >= 1
    np.testing.assert_allclose(pi, want, rtol=1e-8, atol=1e-13)
    assert pi.min() >= 0.0 and pi.sum() == pytest.approx(1.0, abs=1e-14)
    assert (res, flow) == stencil_residual(pi, *stencil)
    assert res <= 1e-12 * flow
    assert guess[0, 0] == 3.0  # the guess is not changed in place


def test_gmres_from_the_exact_law_stops_at_once():
    stencil = grid_chain_stencil(*_rates(5, 3, 3))
    exact = nv.stationary(nv.generator(*stencil)).reshape(stencil[0].shape)
    shifts = adi_shifts(*_shift_range(stencil), 4)
    pi, res, flow, its, conv = stationary_gmres(*stencil, 7.0 * exact, shifts, 1e-9, 10, 5)
    assert conv and its == 0
    np.testing.assert_allclose(pi, exact, rtol=1e-12)


def test_gmres_reports_no_convergence_when_out_of_restarts():
    stencil = grid_chain_stencil(*_rates(6, 8, 8))
    shifts = adi_shifts(*_shift_range(stencil), 1)
    guess = np.ones(stencil[0].shape)
    pi, res, flow, its, conv = stationary_gmres(*stencil, guess, shifts, 1e-15, 1, 2)
    assert not conv
    assert its == 2  # one Arnoldi step per restart
    assert res > 1e-15 * flow
    assert pi.min() >= 0.0 and pi.sum() == pytest.approx(1.0, abs=1e-14)


def test_gmres_product_form_chain_is_the_product_of_two_truncated_laws():
    # no coupling: pi(x, y) = pi1(x) pi2(y), each a truncated birth-death law
    up1, down1, _, up2, down2, _ = _rates(7, 4, 3, extra=False)
    stencil = grid_chain_stencil(up1, down1, 0.0, up2, down2, 0.0)

    def birth_death(up, down):
        p = np.ones(len(up))
        for i in range(1, len(up)):
            p[i] = p[i - 1] * up[i - 1] / down[i]
        return p / p.sum()

    want = np.outer(birth_death(up1, down1), birth_death(up2, down2))
    shifts = adi_shifts(*_shift_range(stencil), 4)
    pi, *_, conv = stationary_gmres(*stencil, np.ones(want.shape), shifts, 1e-13, 20, 50)
    assert conv
    np.testing.assert_allclose(pi, want, rtol=1e-9)


def test_qbd_rate_matrix_of_mm1_is_the_load():
    # M/M/1 as a one-phase QBD: R = lambda / mu, G = 1
    lam, mu = 0.6, 1.0
    r, its, err = qbd_rate_matrix(
        np.array([[lam]]), np.array([[-(lam + mu)]]), np.array([[mu]]), 1e-14, 100
    )
    assert r[0, 0] == pytest.approx(lam / mu, rel=1e-12)
    assert err < 1e-13
    assert 1 <= its < 20


def _qbd(seed, n=3, load=0.7):
    """A random level-independent QBD whose drift is down (positive recurrent)."""
    rng = np.random.default_rng(seed)
    a_up = np.diag(rng.uniform(0.2, 1.0, n)) * load
    a_down = np.diag(rng.uniform(1.0, 2.0, n))
    switch = rng.uniform(0.1, 1.0, (n, n))
    np.fill_diagonal(switch, 0.0)
    a_local = switch - np.diag(switch.sum(axis=1) + a_up.sum(axis=1) + a_down.sum(axis=1))
    return a_up, a_local, a_down


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_qbd_rate_matrix_is_the_minimal_solution(seed):
    a_up, a_local, a_down = _qbd(seed)
    r, its, err = qbd_rate_matrix(a_up, a_local, a_down, 1e-13, 60)
    np.testing.assert_allclose(r, nv.qbd_rate_matrix(a_up, a_local, a_down), atol=1e-11)
    np.testing.assert_allclose(a_up + r @ a_local + r @ r @ a_down, 0.0, atol=1e-12)
    assert max(abs(np.linalg.eigvals(r))) < 1.0
    assert err < 1e-13 and 1 <= its < 60


def test_qbd_rate_matrix_stops_at_max_iter_and_reports_the_error():
    a_up, a_local, a_down = _qbd(4, load=3.0)  # near critical: slow to converge
    r1, its1, err1 = qbd_rate_matrix(a_up, a_local, a_down, 1e-300, 1)
    r2, its2, err2 = qbd_rate_matrix(a_up, a_local, a_down, 1e-300, 2)
    assert (its1, its2) == (1, 2)
    assert 0.0 < err2 < err1 < 1.0


@pytest.mark.parametrize("k1, k2", [(300, 1), (1, 300)])
def test_stencil_of_a_long_grid(k1, k2):
    # past 256 a Python int is a new object each time: `x is k1` is not `x == k1`
    args = _rates(8, k1, k2)
    stencil = grid_chain_stencil(*args)
    for a, b in zip(stencil, nv.stencil_dense(*args), strict=True):
        np.testing.assert_array_equal(a, b)
    v = np.random.default_rng(9).uniform(0.0, 1.0, stencil[0].shape)
    want = v.reshape(-1) @ nv.generator(*stencil)
    out = np.empty(v.shape)
    stencil_left_multiply(v, *stencil, out)
    np.testing.assert_allclose(out.reshape(-1), want, rtol=1e-12, atol=1e-12)
    assert stencil_residual(v, *stencil)[0] == pytest.approx(np.abs(want).sum(), rel=1e-12)
    qx, qy = nv.generator_parts(*stencil)
    g = np.random.default_rng(10).uniform(-1.0, 1.0, v.shape)
    for along, step in (("x", adi_half_step_x), ("y", adi_half_step_y)):
        out, cp = np.empty(v.shape), np.empty(v.shape)
        step(v, g, *stencil, 2.0, out, cp)
        want = nv.adi_half_step(v.reshape(-1), g.reshape(-1), qx, qy, 2.0, along)
        np.testing.assert_allclose(out.reshape(-1), want, rtol=1e-10, atol=1e-12)


def _gmres_twin(qx, qy, pi0, shifts, tol, restart, max_restarts):
    """Restarted GMRES on pi Q = 0, sum(pi) = 1, right-preconditioned by one ADI cycle, as the
    kernel's docstring states it: the equation of the initial guess's most likely state is
    replaced by the normalisation, a cycle stops when the least-squares residual is at most
    0.1 tol flow / sqrt(n) (solved here by ``lstsq`` instead of Givens rotations), and the
    run when ||pi Q||_1 <= tol sum_s pi(s) q(s). Flat arrays; returns (pi, residual, flow,
    iterations, converged)."""
    q = qx + qy
    out_rate = -np.diag(q)
    n = len(pi0)
    x = pi0 / pi0.sum()
    pin = int(np.argmax(x))

    def apply(v):
        w = v @ q
        w[pin] += v.sum()
        return w

    def residual(v):
        return np.abs(v @ q).sum(), np.abs(v) @ out_rate

    iterations, (res, flow) = 0, residual(x)
    converged = bool(res <= tol * flow)
    for _ in range(max_restarts):
        if converged:
            break
        r = -apply(x)
        r[pin] += 1.0
        beta = np.linalg.norm(r)
        if beta == 0.0:
            converged = True
            break
        basis, hess = [r / beta], np.zeros((restart + 1, restart))
        rhs = np.zeros(restart + 1)
        rhs[0] = beta
        inner_tol = 0.1 * tol * flow / np.sqrt(n)
        for k in range(restart):
            w = apply(nv.adi_cycle(basis[k], qx, qy, shifts))
            for i in range(k + 1):
                hess[i, k] = w @ basis[i]
                w = w - hess[i, k] * basis[i]
            hn = np.linalg.norm(w)
            hess[k + 1, k] = hn
            if hn > 0.0:
                basis.append(w / hn)
            iterations += 1
            used = k + 1
            h = hess[: used + 1, :used]
            y = np.linalg.lstsq(h, rhs[: used + 1], rcond=None)[0]
            if np.linalg.norm(rhs[: used + 1] - h @ y) <= inner_tol or hn == 0.0:
                break
        x = x + nv.adi_cycle(sum(y[i] * basis[i] for i in range(used)), qx, qy, shifts)
        res, flow = residual(x)
        converged = bool(res <= tol * flow)
    x = np.maximum(x, 0.0)
    x = x / x.sum()
    res, flow = residual(x)
    return x, res, flow, iterations, converged


# cases where the twin's steps are the kernel's (after many restarts round-off may part them)
@pytest.mark.parametrize(
    "k1, k2, seed, n_shifts, restart, tol",
    [
        (3, 4, 1, 4, 30, 1e-8),
        (5, 2, 2, 2, 3, 1e-8),
        (6, 6, 3, 4, 5, 1e-6),
        (4, 3, 4, 2, 5, 1e-6),
        (6, 6, 3, 2, 30, 1e-8),
    ],
)
def test_gmres_takes_the_steps_of_its_dense_twin(k1, k2, seed, n_shifts, restart, tol):
    stencil = grid_chain_stencil(*_rates(seed, k1, k2))
    qx, qy = nv.generator_parts(*stencil)
    shifts = adi_shifts(*_shift_range(stencil), n_shifts)
    guess = np.random.default_rng(seed).uniform(0.5, 1.5, stencil[0].shape)
    got = stationary_gmres(*stencil, guess, shifts, tol, restart, 50)
    want = _gmres_twin(qx, qy, guess.reshape(-1), shifts, tol, restart, 50)
    assert got[3:] == want[3:]  # the Arnoldi steps and the verdict
    np.testing.assert_allclose(got[0].reshape(-1), want[0], rtol=1e-9, atol=1e-14)
    assert got[1] == pytest.approx(want[1], rel=0.05, abs=1e-15)  # round-off at 1e-10
    assert got[2] == pytest.approx(want[2], rel=1e-12)


def test_gmres_clips_round_off_negatives():
    # a strong drift towards the far corner: the near states hold ~1e-30, below round-off
    up, down = np.full(7, 20.0), np.full(7, 0.05)
    stencil = grid_chain_stencil(up, down, 5.0, up, down, 5.0)
    shifts = adi_shifts(*_shift_range(stencil), 4)
    pi, res, flow, its, conv = stationary_gmres(
        *stencil, np.ones(stencil[0].shape), shifts, 1e-10, 20, 50
    )
    assert conv
    assert pi.min() == 0.0 and np.count_nonzero(pi == 0.0) > 0  # clipped, not negative
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)
    want = nv.stationary(nv.generator(*stencil)).reshape(pi.shape)
    np.testing.assert_allclose(pi, want, atol=1e-12)


def _flow_ratio(q, x):
    """||x Q||_1 and sum_s |x(s)| q(s) of a flat x, from the dense generator."""
    return np.abs(x @ q).sum(), np.abs(x) @ -np.diag(q)


def test_gmres_stops_at_once_on_a_guess_already_within_tol():
    # fast rates (a flow of about 50): tol * flow and tol / flow, tol % flow part widely
    up1, down1, e1, up2, down2, e2 = _rates(11, 3, 3)
    stencil = grid_chain_stencil(10 * up1, 10 * down1, 10 * e1, 10 * up2, 10 * down2, 10 * e2)
    q = nv.generator(*stencil)
    exact = nv.stationary(q).reshape(stencil[0].shape)
    noise = np.random.default_rng(12).uniform(-1.0, 1.0, exact.shape)
    guess = exact * (1.0 + 1e-6 * noise)
    x = guess / guess.sum()
    res, flow = _flow_ratio(q, x.reshape(-1))
    assert flow > 10.0 and res > 0.0
    tol = 3.0 * res / flow  # the guess meets it: ||x Q||_1 = tol flow / 3
    shifts = adi_shifts(*_shift_range(stencil), 4)
    pi, got_res, got_flow, its, conv = stationary_gmres(*stencil, guess, shifts, tol, 10, 5)
    assert conv and its == 0
    np.testing.assert_allclose(pi, x, rtol=1e-14)
    assert got_res == pytest.approx(res, rel=1e-6) and got_flow == pytest.approx(flow, rel=1e-12)
    # a tolerance the guess misses by a factor 3 takes steps
    _, _, _, its, conv = stationary_gmres(*stencil, guess, shifts, res / flow / 3.0, 10, 5)
    assert conv and its >= 1


def test_gmres_restart_budget_is_a_cap_not_a_count():
    # a converged run returns at once however many restarts it was allowed (a mutant that
    # runs through them does not return in any time a test waits for)
    stencil = grid_chain_stencil(*_rates(13, 3, 4))
    want = nv.stationary(nv.generator(*stencil)).reshape(stencil[0].shape)
    shifts = adi_shifts(*_shift_range(stencil), 4)
    budget = 2**62
    pi, res, flow, its, conv = stationary_gmres(*stencil, 5.0 * want, shifts, 1e-9, 10, budget)
    assert conv and its == 0
    np.testing.assert_allclose(pi, want, rtol=1e-12)
    guess = np.ones(want.shape)
    pi, res, flow, its, conv = stationary_gmres(*stencil, guess, shifts, 1e-10, 10, budget)
    assert conv and 1 <= its <= 200
    np.testing.assert_allclose(pi, want, rtol=1e-7)


def test_gmres_exactly_pinned_law_is_converged_below_round_off():
    # three states in a line, 0 <-> 1 at rates 2 and 1, 1 <-> 2 at rates 2^-54 and 2^-53:
    # the law (1/4, 1/2, 1/4) is exact in floats, and so is its pinned system (the equations
    # of states 0 and 2, and sum(pi) = 1 in place of state 1's), but ||pi Q||_1 is 2^-55:
    # the rate out of state 1, 1 + 2^-54, rounds to 1. A tolerance below round-off (0, or
    # 1e-20) is unmet; the pinned system holds exactly, so the run stops, converged, with
    # the law, taking no step (GMRES has nothing to solve)
    a0, b1, a1, b2 = 2.0, 1.0, 2.0**-54, 2.0**-53
    zero = np.zeros(1)
    stencil = grid_chain_stencil(
        np.array([a0, a1, 0.0]), np.array([0.0, b1, b2]), 0.0, zero, zero, 0.0
    )
    # a birth-death law: pi1 / pi0 = a0 / b1 = 2, pi2 / pi1 = a1 / b2 = 1 / 2
    law = np.array([[0.25], [0.5], [0.25]])
    np.testing.assert_allclose(law.reshape(-1) @ nv.generator(*stencil), 0.0, atol=1e-16)
    for tol in (0.0, 1e-20):
        pi, res, flow, its, conv = stationary_gmres(*stencil, law, np.array([2.0, 0.5]), tol, 5, 3)
        assert conv and its == 0
        np.testing.assert_array_equal(pi, law)
        assert res == 2.0**-55 and flow == 1.0 + 0.5 * 2.0**-54 + 0.25 * 2.0**-53


def test_gmres_cycle_ends_on_an_exact_breakdown():
    # Two states, rates a = x1 (0 -> 1) and b = x0 (1 -> 0) for x the guess (0.6, 0.2)
    # normalised: the chain's law is x, with x0 a = x1 b the same product, so x Q = 0
    # exactly, but x0 + x1 is 1 - 2^-53. The pinned residual is then along the pinned state
    # alone, the Krylov basis is the two unit vectors, computed exactly, and the space is
    # exhausted at its dimension, step 2: a zero vector, which must end the cycle. A
    # tolerance no residual meets (-1) keeps every other stop away: one cycle of (at most)
    # 4 steps.
    guess = np.array([[0.6], [0.2]])
    x = guess / guess.sum()
    assert x.sum() == 1.0 - 2.0**-53
    zero = np.zeros(1)
    stencil = grid_chain_stencil(
        np.array([x[1, 0], 0.0]), np.array([0.0, x[0, 0]]), 0.0, zero, zero, 0.0
    )
    q = nv.generator(*stencil)
    np.testing.assert_array_equal(x.reshape(-1) @ q, 0.0)
    pi, res, flow, its, conv = stationary_gmres(*stencil, guess, np.array([2.0, 0.5]), -1.0, 4, 1)
    assert its == 2 and not conv  # the dimension of the space; tol -1 is never met
    assert np.all(np.isfinite(pi)) and np.isfinite(res)
    np.testing.assert_allclose(pi, x, rtol=1e-15)
    assert res <= 1e-16
    # tol = 0 is met by the guess itself (x Q = 0): no step
    pi, res, flow, its, conv = stationary_gmres(*stencil, guess, np.array([2.0, 0.5]), 0.0, 4, 1)
    assert conv and its == 0
    np.testing.assert_allclose(pi, x, rtol=1e-15)


@pytest.mark.parametrize(
    "a, b, guess",
    [
        (1.0, 3.0, (2.0, 1.0)),
        (1.0, 1.0, (3.0, 1.0)),
        (2.0, 3.0, (1.0, 1.0)),
        (0.5, 2.0, (1.0, 1.0)),
    ],
)
def test_gmres_zero_tol_is_met_by_an_exact_zero_residual(a, b, guess):
    # tol = 0 asks for pi Q = 0 to the last bit; on two states (rates a: 0 -> 1, b: 1 -> 0)
    # a cycle or two reach it. Budget by budget, the flag says whether the returned law meets
    # the tolerance, and once it does the law is (b, a) / (a + b).
    zero = np.zeros(1)
    stencil = grid_chain_stencil(np.array([a, 0.0]), np.array([0.0, b]), 0.0, zero, zero, 0.0)
    guess = np.array(guess).reshape(2, 1)
    for budget in range(1, 6):
        pi, res, flow, its, conv = stationary_gmres(
            *stencil, guess, np.array([2.0, 0.5]), 0.0, 4, budget
        )
        assert conv == (res == 0.0), budget
    assert conv
    np.testing.assert_allclose(pi.reshape(-1), np.array([b, a]) / (a + b), rtol=1e-15)


def _lr_error(a_up, a_local, a_down, steps):
    """max_i |1 - (G 1)_i| of logarithmic reduction's G after ``steps`` steps: the chance to
    climb 2^(steps+1) - 1 levels before one level down (Latouche & Ramaswami 1993)."""
    down, _ = nv.qbd_passage(a_up, a_local, a_down, 2 ** (steps + 1) - 1)
    return np.max(np.abs(1.0 - down.sum(axis=1)))


def _qbd_climbing_phase():
    """Two phases: phase 0 climbs (up 2, down 1), phase 1 falls (up 0.1, down 3), switching
    at rate 1: positive recurrent, but from phase 0 the level is left upwards first with
    probability above 1/2."""
    a_up, a_down = np.diag([2.0, 0.1]), np.diag([1.0, 3.0])
    switch = np.array([[0.0, 1.0], [1.0, 0.0]])
    a_local = switch - np.diag(switch.sum(axis=1) + a_up.sum(axis=1) + a_down.sum(axis=1))
    return a_up, a_local, a_down


@pytest.mark.parametrize(
    "blocks", [_qbd(1), _qbd(2), _qbd_climbing_phase()], ids=["seed-1", "seed-2", "climbing-phase"]
)
def test_qbd_iterates_are_first_passages_below_a_doubling_ceiling(blocks):
    # with tol = 0 the run takes max_iter steps; after k of them G is the first passage one
    # level down before 2^(k+1) - 1 levels up, and R is built from that G; no step: G is the
    # first jump's (down before up), whose error is what is returned (not a placeholder)
    a_up, a_local, a_down = blocks
    for k in range(5):
        r, its, err = qbd_rate_matrix(a_up, a_local, a_down, 0.0, k)
        down, _ = nv.qbd_passage(a_up, a_local, a_down, 2 ** (k + 1) - 1)
        assert its == k
        assert err == pytest.approx(np.max(np.abs(1.0 - down.sum(axis=1))), rel=1e-8, abs=1e-15)
        want = a_up @ np.linalg.inv(-a_local - a_up @ down)
        np.testing.assert_allclose(r, want, rtol=1e-9, atol=1e-15)
    # no step from M/M/1: G is mu / (lambda + mu), the chance the first jump is down
    lam, mu = 0.6, 1.0
    r, its, err = qbd_rate_matrix(
        np.array([[lam]]), np.array([[-(lam + mu)]]), np.array([[mu]]), 1e-14, 0
    )
    assert its == 0 and err == pytest.approx(lam / (lam + mu), rel=1e-14)
    assert r[0, 0] == pytest.approx(lam / (lam + mu - lam * mu / (lam + mu)), rel=1e-14)


@pytest.mark.parametrize("seed", [1, 2])
def test_qbd_stops_at_the_first_step_with_error_below_tol(seed):
    a_up, a_local, a_down = _qbd(seed)
    errors = [_lr_error(a_up, a_local, a_down, k) for k in range(5)]
    assert all(e1 < 0.5 * e0 for e0, e1 in zip(errors[:-1], errors[1:], strict=False))
    # just above the error after k steps: stop there; just below it: one step more (the
    # chance to climb is about the largest entry of T, within a factor 0.8 of the error
    # here, and T's test waits for tol * 1e-3)
    for k in (1, 2, 3):
        for tol, want in ((1.1 * errors[k], k), (0.9 * errors[k], k + 1)):
            r, its, err = qbd_rate_matrix(a_up, a_local, a_down, tol, 60)
            assert its == want, (k, tol)
            assert err == pytest.approx(errors[want], rel=1e-6, abs=1e-15)
            assert err < tol


def test_qbd_below_round_off_stops_once_t_is_negligible():
    # tol 1e-20: G's error stays at round-off, above tol; the run stops after the first step
    # whose T (the chance to climb 2^(k+1) - 1 levels before going down) is below 1e-23,
    # long before max_iter
    a_up, a_local, a_down = _qbd(1)
    tops = [np.max(nv.qbd_passage(a_up, a_local, a_down, 2 ** (k + 1) - 1)[1]) for k in range(7)]
    want = next(k for k, top in enumerate(tops) if top < 1e-23)
    assert tops[want - 1] > 1e-20 and want < 10
    r, its, err = qbd_rate_matrix(a_up, a_local, a_down, 1e-20, 100)
    assert its == want
    assert err <= 1e-15
    np.testing.assert_allclose(r, nv.qbd_rate_matrix(a_up, a_local, a_down), atol=1e-12)


def test_qbd_zero_tol_takes_every_step():
    # tol = 0: neither error < 0 nor an entry of T < 0 can hold, not even once G's error is
    # exactly 0 (M/M/1: G = 1 exactly after a few steps) or T has underflowed to 0
    lam, mu = 0.6, 1.0
    mm1 = (np.array([[lam]]), np.array([[-(lam + mu)]]), np.array([[mu]]))
    for blocks in (mm1, _qbd(1)):
        r, its, err = qbd_rate_matrix(*blocks, 0.0, 15)
        assert its == 15
        assert err <= 1e-15
        np.testing.assert_allclose(r, nv.qbd_rate_matrix(*blocks), atol=1e-12)
