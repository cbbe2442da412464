"""P2's slot kernel: what the twin comparisons leave open (from the mutation run).

``tests/test_proactive_simulation.py`` compares the kernel with its slow twin on drawn
scenarios. Here the kernel runs on networks built by hand, small enough that each task's
times follow from the model's text (a request per slot, an upload from a slot boundary at
the Shannon rate of eq. 2, the CPU's FIFO, τ_EP), and its counters and stop rules
(the queue limit, the drain limit) are checked against what every task's record says.
"""

import math

import numpy as np
import pytest

from workbench.caching import lru_hits
from workbench.proactive import kernels as K
from workbench.proactive.params import POLICY_CODES

BAND, NOISE, POWER = 1e6, 1e-9, 0.1
CPU, KAPPA, TAU = 1e9, 100.0, 0.004
SLOT = 0.01


def _run(
    gains,
    arrival,
    user,
    bits,
    *,
    scheme=K.BL3,
    task_type=None,
    n_types=None,
    cacheable=None,
    storage=0,
    cache_rank=None,
    covered=None,
    n_slots=200,
    drain=400,
    x_max=1,
    max_queue=64,
    budget=0.05,
    cache_aware=False,
    hedge_check=False,
    warm=False,
    least_wait=False,
    rbar0=None,
    tau=TAU,
):
    """The kernel on a hand-built network: ``gains`` (U, E) linear path gains, no fading."""
    gains = np.asarray(gains, dtype=float)
    n_users, n_cloudlets = gains.shape
    arrival = np.asarray(arrival, dtype=float)
    user = np.asarray(user, dtype=np.int64)
    order = np.lexsort((arrival, user))  # grouped by user, arrivals sorted within
    arrival, user = arrival[order], user[order]
    bits = np.asarray(bits, dtype=float)[order]
    n = arrival.size
    task_type = np.zeros(n, dtype=np.int64) if task_type is None else np.asarray(task_type)
    task_type = task_type.astype(np.int64)[order]
    n_types = int(task_type.max()) + 1 if n_types is None else n_types
    cacheable = np.zeros(n_types, dtype=bool) if cacheable is None else np.asarray(cacheable)
    if cache_rank is None:
        cache_rank = np.tile(np.arange(n_types, dtype=np.int64), (n_cloudlets, 1))
    covered = np.ones_like(gains, dtype=bool) if covered is None else np.asarray(covered)
    if rbar0 is None:
        rbar0 = BAND * np.log2(1.0 + POWER * gains / NOISE)
    user_start = np.searchsorted(user, np.arange(n_users + 1)).astype(np.int64)
    radio = K.Radio(
        gains, covered, np.full(n_users, POWER), NOISE, BAND, False, np.uint64(7), rbar0
    )
    cloudlets = K.Cloudlets(
        np.full(n_cloudlets, CPU),
        KAPPA,
        tau,
        budget,
        np.full(n_cloudlets, storage, dtype=np.int64),
        np.asarray(cache_rank, dtype=np.int64),
        cacheable.astype(bool),
    )
    stream = K.TaskStream(arrival, user, task_type, bits, user_start)
    schedule = K.Schedule(
        scheme,
        SLOT,
        n_slots,
        drain,
        x_max,
        max_queue,
        cache_aware,
        hedge_check,
        warm,
        least_wait,
    )
    out = K.simulate_slots_kernel(radio, cloudlets, stream, schedule)
    return out, dict(arrival=arrival, user=user, bits=bits, task_type=task_type)


def _rate(gain):
    """Eq. 2 for a user alone on the band: B log2(1 + P g / N)."""
    return BAND * math.log2(1.0 + POWER * gain / NOISE)


def _counters(out):
    return {name: int(out.counters[getattr(K, name)]) for name in K.COUNTERS}


def test_every_counter_has_its_own_slot():
    assert sorted(getattr(K, name) for name in K.COUNTERS) == list(range(K.N_COUNTERS))
    # the run passes params' code of a policy; the kernel compares it with its own
    codes = {"proposed": K.PROPOSED, "BL1": K.BL1, "BL2": K.BL2, "BL3": K.BL3}
    assert codes == POLICY_CODES
    assert len({K.OK, K.QUEUE_OVERFLOW, K.NOT_DRAINED}) == 3 and K.OK == 0


def test_one_user_one_cloudlet_by_hand():
    """Tasks far apart: each is requested at the first slot boundary at or after its
    arrival, uploads from there at the Shannon rate, computes κL/c and is done τ_EP later."""
    g = 1e-6
    arrival = [0.0, 0.213, 0.5004, 0.9]
    bits = [3e4, 1e5, 5e4, 2e5]
    out, t = _run([[g]], arrival, [0, 0, 0, 0], bits)
    r = _rate(g)
    start = np.ceil(np.asarray(arrival) / SLOT - 1e-9) * SLOT
    end = start + np.asarray(bits) / r
    done = end + KAPPA * np.asarray(bits) / CPU + TAU
    np.testing.assert_allclose(out.upload_start, start, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.upload_end, end, rtol=1e-12)
    np.testing.assert_allclose(out.done, done, rtol=1e-12)
    assert (out.server == 0).all() and (out.copies == 1).all() and not out.from_cache.any()
    c = _counters(out)
    assert c["TASKS"] == c["TASKS_DONE"] == c["UPLOADS"] == c["COPIES"] == 4
    assert c["MATCHED_REQUESTS"] == 4 and c["UNMATCHED_REQUESTS"] == 0
    assert c["STATUS"] == K.OK and c["SLOTS_RUN"] == 200
    assert c["WITHDRAWN"] == c["HEDGED_TASKS"] == c["FROM_CACHE"] == c["PENDING_HITS"] == 0


def test_a_backlog_is_served_in_order_one_request_per_slot():
    """Three tasks at t = 0: one request per slot, so they queue at slots 0, 1, 2; each
    upload takes 2.5 slots and starts at the first boundary after the previous one ends;
    the CPU is FIFO (a long computation delays the next task's)."""
    g = 1e-6
    r = _rate(g)
    bits = np.full(3, 2.5 * SLOT * r)
    out, _ = _run([[g]], [0.0, 0.0, 0.0], [0, 0, 0], bits)
    np.testing.assert_allclose(out.upload_start, [0.0, 0.03, 0.06], atol=1e-12)
    np.testing.assert_allclose(out.upload_end, [0.025, 0.055, 0.085], rtol=1e-9)
    compute = KAPPA * bits[0] / CPU
    assert compute > 0.005
    cpu_done = [0.025 + compute]
    for end in (0.055, 0.085):
        cpu_done.append(max(end, cpu_done[-1]) + compute)
    np.testing.assert_allclose(out.done, np.asarray(cpu_done) + TAU, rtol=1e-9)


def test_a_user_far_from_the_other_cloudlet_ranks_by_its_own_delay():
    """BL2 with two cloudlets and one user: eq. 14 ranks the better link first."""
    out, _ = _run([[1e-9, 1e-6]], [0.0, 0.5], [0, 0], [1e4, 1e4], scheme=K.BL2)
    assert (out.server == 1).all()
    out, _ = _run([[1e-6, 1e-9]], [0.0, 0.5], [0, 0], [1e4, 1e4], scheme=K.BL2)
    assert (out.server == 0).all()


def test_interference_slows_two_users_sharing_the_band():
    """Two users uploading at once to two cloudlets: eq. 2 with the other's received
    power as interference, B log2(1 + P g_uu / (N + P g_vu))."""
    gains = np.array([[1e-6, 2e-8], [3e-8, 2e-6]])
    bits = [2e5, 2e5]
    out, _ = _run(gains, [0.0, 0.0], [0, 1], bits, scheme=K.BL3)
    assert out.server.tolist() == [0, 1]
    r0 = BAND * math.log2(1 + POWER * 1e-6 / (NOISE + POWER * 3e-8))
    r1 = BAND * math.log2(1 + POWER * 2e-6 / (NOISE + POWER * 2e-8))
    # user 1 is done inside slot 3; from slot 4 on user 0 has the band alone
    assert 3 * SLOT < 2e5 / r1 < 4 * SLOT < 2e5 / r0
    left = 2e5 - 4 * SLOT * r0
    np.testing.assert_allclose(out.upload_end, [4 * SLOT + left / _rate(1e-6), 2e5 / r1])


def test_queue_overflow_stops_the_run_with_its_status():
    g = 1e-6
    bits = np.full(6, 5 * SLOT * _rate(g))  # each upload takes five slots
    out, _ = _run([[g]] * 6, np.zeros(6), np.arange(6), bits, max_queue=3, n_slots=50)
    c = _counters(out)
    # slot 0: six requests, one matched (one cloudlet, capacity one a slot) ...
    assert c["STATUS"] == K.QUEUE_OVERFLOW
    # queued at slots 0, 1, 2 (the first upload starts at once), 3: fourth copy overflows
    assert c["SLOTS_RUN"] == 5
    assert c["TASKS_DONE"] == 0


def test_a_run_that_cannot_drain_says_so():
    g = 1e-6
    bits = [49.5 * SLOT * _rate(g)]  # 49.5 slots of upload
    out, _ = _run([[g]], [0.0], [0], bits, n_slots=10, drain=20)
    c = _counters(out)
    assert c["STATUS"] == K.NOT_DRAINED and c["SLOTS_RUN"] == 30 and c["TASKS_DONE"] == 0
    assert math.isnan(out.done[0])
    out, _ = _run([[g]], [0.0], [0], bits, n_slots=10, drain=60)
    c = _counters(out)
    assert c["STATUS"] == K.OK and c["TASKS_DONE"] == 1
    # the loop stops at the first slot boundary after the last task is done
    assert out.upload_end[0] == pytest.approx(0.495) and c["SLOTS_RUN"] == 50


def test_lru_cache_hits_by_hand():
    """BL1, one user, one cloudlet holding one result: a repeated cacheable task is served
    from the cache at the next slot boundary + τ_EP once its first copy is computed."""
    g = 1e-6
    types = [0, 0, 1, 1, 0]
    arrival = [0.0, 0.2, 0.4, 0.6, 0.8]
    out, _ = _run(
        [[g]],
        arrival,
        [0] * 5,
        [1e4] * 5,
        scheme=K.BL1,
        task_type=types,
        cacheable=[True, True],
        storage=1,
    )
    assert out.from_cache.tolist() == [False, True, False, True, False]
    np.testing.assert_allclose(out.done[[1, 3]], np.array([0.2, 0.6]) + TAU, atol=1e-12)
    assert out.copies.tolist() == [1, 0, 1, 0, 1]
    # the cache saw every request in order; hits as an LRU cache of one would have them
    assert out.cache_seq.tolist() == [0, 1, 2, 3, 4]
    assert out.cache_hit.tolist() == lru_hits(np.array(types), 1).tolist()
    c = _counters(out)
    assert c["FROM_CACHE"] == 2 and c["UPLOADS"] == 3 and c["PENDING_HITS"] == 0


def test_counters_add_up_on_a_loaded_hedged_run():
    rng = np.random.default_rng(1)
    n_users, n_cloudlets, n = 8, 3, 120
    gains = 10 ** rng.uniform(-7.5, -6.0, size=(n_users, n_cloudlets))
    user = rng.integers(0, n_users, n)
    arrival = rng.uniform(0.0, 1.5, n)
    types = rng.integers(0, 6, n)
    for scheme in (K.PROPOSED, K.BL1, K.BL2):
        out, t = _run(
            gains,
            arrival,
            user,
            rng.uniform(2e4, 6e4, n),
            scheme=scheme,
            task_type=types,
            n_types=6,
            cacheable=[True, True, True, False, False, True],
            storage=2,
            x_max=3,
            n_slots=160,
            budget=0.02,
        )
        c = _counters(out)
        assert c["STATUS"] == K.OK
        assert c["TASKS"] == c["TASKS_DONE"] == n == c["MATCHED_REQUESTS"]
        assert c["FROM_CACHE"] == out.from_cache.sum() and c["UPLOADS"] == n - c["FROM_CACHE"]
        assert c["COPIES"] == out.copies.sum() == c["UPLOADS"] + c["WITHDRAWN"]
        assert c["HEDGED_TASKS"] == (out.copies > 1).sum() > 0
        assert c["PENDING_HITS"] == (out.cache_hit & ~out.from_cache).sum()
        assert (out.copies <= 3).all()
        # a task is requested at the first boundary after its arrival or later
        up = ~out.from_cache
        assert (out.upload_start[up] >= t["arrival"][up] - 1e-12).all()
        assert (out.done >= t["arrival"] + TAU - 1e-12).all()
        if scheme == K.BL2:
            assert c["FROM_CACHE"] == 0
        else:
            assert c["FROM_CACHE"] > 0


@pytest.mark.parametrize(
    ("cache_aware", "hedge_check", "flags", "budget"),
    [
        (True, True, {}, 0.03),
        (False, False, {"least_wait": True}, 0.03),
        (False, True, {"warm_caches": True}, 0.004),
    ],
)
def test_slow_twin_with_partial_coverage_on_a_small_network(
    cache_aware, hedge_check, flags, budget
):
    """The slow twin (tests/naive_proactive.py) where most links are not covered: a user
    proposes, hedges and is estimated on its covered cloudlets only. A budget below τ_EP
    makes every Φ negative, a cache hit's budget − τ_EP included: eq. 9 then admits no
    hedge."""
    from naive_proactive import simulate_twin

    from workbench.proactive import draw_tasks, make_scenario, run_scenario, train

    sc = make_scenario(n_cloudlets=5, n_users=15, seed=4)
    assert 0.1 < sc.covered.mean() < 0.6 and sc.covered.any(axis=1).all()
    tr = train(sc, lam=8.0, seed=4)
    tasks = draw_tasks(sc, 8.0, 1e6, 300 * 0.005, seed=4)
    readings = dict(cache_aware=cache_aware, hedge_check=hedge_check)
    run_flags = {}
    if flags.get("least_wait"):
        run_flags["hedge_upload"] = "least_wait"
    if flags.get("warm_caches"):
        run_flags["cache_start"] = "popular"
    for scheme in ("proposed", "BL1", "BL2", "BL3"):
        kw = dict(slots=300, fading_seed=7, budget=budget, storage=2, x_max=2)
        run = run_scenario(scheme, sc, tr, tasks, **kw, **readings, **run_flags)
        done, server, from_cache, copies = simulate_twin(
            scheme,
            sc,
            tr,
            tasks,
            fading_seed=7,
            n_slots=300,
            budget=budget,
            storage=2,
            **readings,
            **flags,
        )
        t = run.tasks
        assert np.allclose(t["done"], done, rtol=1e-9, atol=0), scheme
        assert t["server"].tolist() == server, scheme
        assert t["copies"].tolist() == copies, scheme
        assert t["from_cache"].tolist() == from_cache, scheme
        assert covered_pairs(sc, t)
        if hedge_check and budget < 0.005:
            assert (t["copies"] <= 1).all(), scheme
        elif scheme != "BL3" and not flags.get("least_wait"):
            assert (t["copies"] > 1).any(), scheme


def covered_pairs(sc, t):
    """Every task was served by a cloudlet covering its user."""
    return bool(sc.covered[t["user"].to_numpy(), t["server"].to_numpy()].all())


def test_a_cloudlet_takes_the_request_it_ranks_first():
    """BL3: cloudlet 0 covers users 0 and 1 (user 2 only reaches cloudlet 1) and ranks
    their simultaneous requests by the estimated link rate: the better link is matched in
    slot 0, the other request waits for slot 1."""
    covered = np.array([[True, False], [True, False], [False, True]])
    for better in (0, 1):
        gains = np.array([[1e-7, 1e-9], [1e-7, 1e-9], [1e-9, 1e-6]])
        gains[better, 0] = 1e-6
        out, _ = _run(gains, [0.0, 0.0, 0.0], [0, 1, 2], [1e3] * 3, covered=covered)
        assert out.server.tolist() == [0, 0, 1]
        first = out.upload_start[better]
        later = out.upload_start[1 - better]
        assert first == 0.0 and later >= SLOT
        c = _counters(out)
        assert c["UNMATCHED_REQUESTS"] == 1 and c["MATCHED_REQUESTS"] == 3


@pytest.mark.parametrize(("budget", "hedged"), [(0.003, False), (0.02, True)])
def test_a_hedge_to_a_cloudlet_holding_the_result_needs_eq_9(budget, hedged):
    """The proposed scheme, one user, two cloudlets with warm caches: cloudlet 1 holds the
    task's result, but the user (not cache-aware) prefers cloudlet 0, its better link.
    Φ < 0 there, so eq. 9 asks for a hedge, and with ``hedge_check`` only to a cloudlet
    where Φ ≥ 0; at the holder Φ = budget − τ_EP: a budget below τ_EP forbids the hedge
    (the task uploads to cloudlet 0), a larger one lets it hit the cache at once."""
    out, _ = _run(
        [[1e-6, 1e-8]],
        [0.0],
        [0],
        [5e5],
        scheme=K.PROPOSED,
        task_type=[0],
        n_types=2,
        cacheable=[True, True],
        storage=1,
        cache_rank=[[1, 0], [0, 1]],
        x_max=2,
        budget=budget,
        hedge_check=True,
        warm=True,
    )
    assert out.from_cache[0] == hedged
    if hedged:
        assert out.server[0] == 1 and out.done[0] == pytest.approx(TAU)
    else:
        assert out.server[0] == 0 and out.copies[0] == 1


@pytest.mark.parametrize(("slack", "copies"), [(0.0, 1), (-(2.0**-10), 2)])
def test_a_request_exactly_on_its_budget_is_not_hedged(slack, copies):
    """Eq. 9 holds at Φ = 0 (the delay budget met exactly): only Φ < 0 asks for a hedge.
    BL2, one user, two empty cloudlets; r̄(0) and τ_EP chosen so that Φ is exact in binary:
    κL/c = 1 s, L/r̄ = 0.25 s at cloudlet 0, τ_EP = 2^-8 s."""
    bits, tau = 1e7, 2.0**-8
    rbar0 = np.array([[4e7, 2e7]])
    own = KAPPA * bits / CPU + bits / rbar0[0, 0]
    assert own == 1.25
    budget = own + tau + slack
    assert (budget - own - 0.0 - tau == 0.0) == (slack == 0.0)
    out, _ = _run(
        [[1e-6, 1e-6]],
        [0.0],
        [0],
        [bits],
        scheme=K.BL2,
        x_max=2,
        budget=budget,
        rbar0=rbar0,
        tau=tau,
    )
    assert out.copies[0] == copies
    assert _counters(out)["HEDGED_TASKS"] == (copies > 1)


def test_a_task_of_zero_bits_is_uploaded_at_once_even_on_a_link_rounding_to_zero():
    """Eq. 4 gives a task of 0 bits no upload time (task_delay(0, ...) is τ_EP): its upload
    ends at the slot boundary it starts, then τ_EP. Here P g / N = 1e-22, whose 1 + SINR is 1
    in floating point, so the kernel's rate B log2(1 + SINR) is 0; the run used to keep the
    task uploading until the drain limit (NOT_DRAINED). r̄(0) is the interference-free rate
    by log1p (> 0), as run_scenario gives it. Two such tasks at t = 0: one request per slot."""
    g = 1e-30
    sinr = POWER * g / NOISE
    assert BAND * math.log2(1.0 + sinr) == 0.0
    rbar0 = np.array([[BAND * math.log1p(sinr) / math.log(2.0)]])
    out, _ = _run([[g]], [0.0, 0.0], [0, 0], [0.0, 0.0], rbar0=rbar0, n_slots=10, drain=20)
    c = _counters(out)
    assert c["STATUS"] == K.OK and c["TASKS_DONE"] == c["UPLOADS"] == 2
    np.testing.assert_allclose(out.upload_start, [0.0, SLOT], atol=1e-15)
    np.testing.assert_array_equal(out.upload_end, out.upload_start)
    np.testing.assert_allclose(out.done, out.upload_start + TAU, rtol=1e-15)
    assert c["SLOTS_RUN"] == 10


def test_half_a_bit_takes_half_a_bit_over_the_shannon_rate():
    """A task smaller than one bit still uploads for L / r (eq. 4's L / r by hand), and a
    task of 0 bits on a good link takes no upload time."""
    g = 1e-6
    r = _rate(g)
    out, _ = _run([[g]], [0.0, 0.5], [0, 0], [0.5, 0.0])
    np.testing.assert_allclose(out.upload_start, [0.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(out.upload_end, [0.5 / r, 0.5], rtol=1e-12)
    assert out.upload_end[0] > 0.0
    np.testing.assert_allclose(out.done, [0.5 / r + KAPPA * 0.5 / CPU + TAU, 0.5 + TAU])
