"""P5's decision rules where tests/test_hierarchy_model.py does not look: eq. 1 past the float
range, each rule's bounds read from its refusals, eq. 12's floor and the utilisation bound of
each model against a load counted task path by task path (benchmarks/mutation.py, target
``hierarchy_model``)."""

import math

import numpy as np
import pytest

from workbench import ParameterError
from workbench.hierarchy.model import (
    decide,
    eq12_queue_estimate,
    local_overhead,
    offload_overhead,
    red_thresholds,
    shannon_rate,
)

# ----------------------------------------------------------------------------- eq. 1


@pytest.mark.parametrize(
    "power, gain, noise, interference",
    [
        (2.0, 1e300, 1e-10, 3e-10),  # P H / (ω + I) = 5e309: past the float range
        (0.5, 4.0, 5e-324, 0.0),  # a power below 1 W, a subnormal noise
        (3.0, 0.5, 5e-324, 0.0),  # a gain below 1
    ],
)
def test_shannon_rate_past_the_float_range_is_the_log_of_the_snr(power, gain, noise, interference):
    # log2(1 + x) = log2(x) to 1e-18 relative once x > 2^60: the rate is W·log2(P H / (ω + I)),
    # written as a sum of logarithms because the ratio itself overflows
    want = 10.0 * (math.log2(power) + math.log2(gain) - math.log2(noise + interference))
    assert want > 60 * 10.0
    assert shannon_rate(10.0, power, gain, noise, interference) == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("power, gain", [(0.0, 1e300), (1e3, 0.0), (0.0, 0.0)])
def test_shannon_rate_without_power_or_gain_is_zero(power, gain):
    # log2(1 + 0) = 0, even with a noise that would overflow the SNR of any positive signal
    assert shannon_rate(10.0, power, gain, 5e-324) == 0.0


def test_shannon_rate_below_unit_gain_is_eq1():
    assert shannon_rate(10.0, 3.0, 0.5, 1.0) == pytest.approx(10 * math.log2(2.5), rel=1e-14)
    assert shannon_rate(10.0, 0.75, 2.0, 0.5) == pytest.approx(10 * math.log2(4.0), rel=1e-14)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(gain=-0.5), "gain"),
        (dict(interference=-0.5), "interference"),
        (dict(noise=-0.5), "noise"),
    ],
)
def test_shannon_rate_refuses_negative_powers(kwargs, name):
    args = dict(bandwidth=10.0, power=1.0, gain=1.0, noise=1.0) | kwargs
    with pytest.raises(ParameterError, match=f"'{name}' parameter of shannon_rate"):
        shannon_rate(**args)


# ------------------------------------------------------------------- eqs. 5, 8, 9, 10


@pytest.mark.parametrize("compute", [0.5, 1e6])
def test_local_overhead_takes_every_speed_up_to_a_million(compute):
    want = 0.5 * 7.0 / compute + 0.5 * 1e-3 * compute**2 * 7.0
    assert local_overhead(7.0, compute, 0.5, 0.5, kappa=1e-3) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("compute", [0.0, -0.5, 1e6 + 0.5])
def test_local_overhead_refuses_a_speed_outside_zero_to_a_million(compute):
    with pytest.raises(
        ParameterError, match=r"'compute' parameter of local_overhead.*\(0, 1e\+06\]"
    ):
        local_overhead(7.0, compute, 0.5, 0.5, kappa=1e-3)


@pytest.mark.parametrize("compute", [0.5, 1e6])
def test_offload_overhead_takes_every_next_speed_up_to_a_million(compute):
    want = 0.5 * (0.007 + 7.0 / compute) + 0.5 * 2.0 * 0.007
    got = offload_overhead(7.0, 0.7, 100.0, compute, 0.5, 0.5, 2.0)
    assert got == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("compute", [0.0, -0.5, 1e6 + 0.5])
def test_offload_overhead_refuses_a_next_speed_outside_zero_to_a_million(compute):
    match = r"'compute_next' parameter of offload_overhead.*\(0, 1e\+06\]"
    with pytest.raises(ParameterError, match=match):
        offload_overhead(7.0, 0.7, 100.0, compute, 0.5, 0.5, 2.0)


def test_overheads_of_arrays_are_elementwise():
    work = np.array([0.0, 1.0, 7.0])
    loc = local_overhead(work, 20.0, np.array([0.5, 0.25, 0.75]), 0.5, kappa=1e-3)
    assert loc == pytest.approx([0.0, 0.25 / 20 + 0.2, 0.75 * 7 / 20 + 1.4], rel=1e-14)
    off = offload_overhead(work, 0.1 * work, 100.0, 40.0, 0.5, 0.5, 2.0, queued_next=[4.0])
    want = 0.5 * (0.001 * work + (work + 4.0) / 40.0) + 0.5 * 2.0 * 0.001 * work
    assert off == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("name", ["local", "offload"])
def test_decide_refuses_a_negative_overhead(name):
    args = dict(local=1.0, offload=1.0) | {name: -0.5}
    with pytest.raises(ParameterError, match=f"'{name}' parameter of decide"):
        decide(**args)


def test_decide_takes_zero_overheads():
    assert decide(0.5, 0.0) == 1 and decide(0.0, 0.0) == 0


# ----------------------------------------------------------------------- eqs. 11, 12


def test_red_thresholds_refuse_a_negative_mean_time():
    with pytest.raises(ParameterError, match="'mean_exec_time' parameter of red_thresholds"):
        red_thresholds(5, 20, -0.5)
    assert red_thresholds(5, 20, 0.0) == (0.0, 20.0)


def test_eq12_with_one_server_and_slow_speeds():
    # T = (n + 1) s / (2 F): n = 2 T F / s − 1
    assert eq12_queue_estimate(3.0, 2.0, 0.5) == pytest.approx(0.5, rel=1e-14)
    assert eq12_queue_estimate(3.0, 2.0, [0.5]) == pytest.approx(0.5, rel=1e-14)
    # a mean size below 1: T = (n + 1) s Σ(1/F) / (2k) with k = 2, Σ 1/F = 2.5
    assert eq12_queue_estimate(1.0, 0.5, [0.5, 2.0]) == pytest.approx(4 / 1.25 - 1, rel=1e-14)


def test_eq12_is_never_negative():
    # a mean time shorter than one task's own (n = 0) gives n = 0, not a negative count
    assert eq12_queue_estimate(0.0, 2.0, [1.0, 3.0]) == 0.0
    assert eq12_queue_estimate(0.1, 2.0, 1.0) == 0.0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(mean_time=-0.5), "mean_time"),
        (dict(mean_size=0.0), "mean_size"),
        (dict(mean_size=-0.5), "mean_size"),
    ],
)
def test_eq12_refuses_a_negative_time_or_size(kwargs, name):
    args = dict(mean_time=1.0, mean_size=2.0, compute=[1.0]) | kwargs
    with pytest.raises(ParameterError, match=f"'{name}' parameter of eq12_queue_estimate"):
        eq12_queue_estimate(**args)


@pytest.mark.parametrize("compute", [[], [0.0], [-0.5], [1.0, -1.0], [[]], "fast"])
def test_eq12_names_what_a_speed_must_be(compute):
    match = "'compute' parameter of eq12_queue_estimate must be one or more finite positive"
    with pytest.raises(ParameterError, match=match):
        eq12_queue_estimate(1.0, 2.0, compute)


def test_a_constant_size_has_no_spread():
    from workbench.hierarchy.model import size_moments

    assert size_moments(task_size=3.0, sigma=0.0) == (3.0, 9.0)


# ------------------------------------------------------------- the original rule's route


def _random_tree(rng, n, bandwidth=(20.0, 200.0)):
    parents = [-1] + [int(rng.integers(0, s)) for s in range(1, n)]
    compute = rng.uniform(5.0, 120.0, n)
    return parents, compute, rng.uniform(*bandwidth, n)


def test_static_route_is_the_original_rule_on_random_trees():
    # eqs. 5, 8, 9 climbed by hand on random trees; both overheads are proportional to D, so
    # the route of a task of size 3.7 is that of size 1. The trees are drawn so that some
    # decisions are close (offload / local within a factor of two either way)
    from naive_hierarchy import static_route_naive

    from workbench.hierarchy.model import static_route
    from workbench.hierarchy.topology import from_parents

    rng = np.random.default_rng(5)
    ratios = []
    for _ in range(40):
        parents, compute, bandwidth = _random_tree(rng, int(rng.integers(2, 8)))
        beta, power, kappa = rng.uniform(0.0, 2.0), rng.uniform(0.0, 5.0), rng.uniform(0, 3e-3)
        topo = from_parents(parents, compute, bandwidth)
        got = static_route(topology=topo, data_per_work=beta, power=power, kappa=kappa)
        want = static_route_naive(parents, compute, bandwidth, beta=beta, power=power, kappa=kappa)
        assert list(got) == want
        assert want == static_route_naive(
            parents, compute, bandwidth, beta=beta, power=power, kappa=kappa, size=3.7
        )
        for s in range(1, len(parents)):
            f, up = compute[s], compute[parents[s]]
            local = f / (f + 1) / f + kappa * f * f / (f + 1)
            off = f / (f + 1) * (beta / bandwidth[s] + 1 / up) + power * beta / bandwidth[s] / (
                f + 1
            )
            ratios.append(off / local)
    ratios = np.array(ratios)
    assert np.any((ratios > 1) & (ratios < 2)) and np.any((ratios > 0.5) & (ratios < 1))


def test_the_centre_runs_what_reaches_it():
    # the centre has no next hop, even when a server below it is faster
    from workbench.hierarchy.model import static_route
    from workbench.hierarchy.topology import from_parents

    topo = from_parents([-1, 0, 1], [5.0, 50.0, 100.0], [100.0, 100.0, 100.0])
    assert list(static_route(topology=topo, data_per_work=0.1, power=0.5, kappa=1e-6)) == [0, 1, 2]


def test_size_moments_of_a_truncated_normal():
    from scipy import stats

    from workbench.hierarchy.model import size_moments

    for mu, sigma in [(3.0, 2.0), (0.5, 1.5), (7.0, 1.0)]:
        law = stats.truncnorm(-mu / sigma, np.inf, loc=mu, scale=sigma)
        mean, second = size_moments(task_size=mu, sigma=sigma)
        assert mean == pytest.approx(law.mean(), rel=1e-12)
        assert second == pytest.approx(law.moment(2), rel=1e-10)


def test_utilisation_bound_takes_a_mean_size_of_zero_and_up():
    from workbench.hierarchy.model import utilisation_bound

    assert utilisation_bound(model="advanced", mean_size=0.0) == 0.0
    half = utilisation_bound(model="advanced", mean_size=0.5)
    assert utilisation_bound(model="advanced", mean_size=1.0) == pytest.approx(2 * half)
    with pytest.raises(ParameterError, match="'mean_size' parameter of utilisation_bound"):
        utilisation_bound(model="advanced", mean_size=-0.5)


# ------------------------------------------------------------------ the utilisation bound


def test_utilisation_bound_of_every_model_counts_each_tasks_path():
    from naive_hierarchy import static_route_naive, utilisation_bound_naive

    from workbench.hierarchy.model import utilisation_bound
    from workbench.hierarchy.params import MODELS
    from workbench.hierarchy.topology import from_parents

    rng = np.random.default_rng(11)
    below = 0  # tasks run below the centre (their decisions and transfers are counted)
    for k in range(12):
        # slow links keep some tasks below the centre
        parents, compute, bandwidth = _random_tree(rng, int(rng.integers(3, 8)), (2.0, 40.0))
        weights = rng.choice([0.0, 0.5, 1.0, 2.0], len(parents))
        weights[-1] = 1.5
        topo = from_parents(parents, compute, bandwidth, weights)
        kw = dict(
            lam=float(rng.uniform(1.0, 20.0)),
            period=float(rng.uniform(0.5, 3.0)),
            beta=float(rng.uniform(0.0, 2.0)),
            power=float(rng.uniform(0.0, 5.0)),
            kappa=float(rng.uniform(0.0, 3e-3)),
            decision_time=[0.05, 0.002, 0.0][k % 3],
            offload_busy=bool(rng.integers(2)),
        )
        size = float(rng.uniform(0.5, 9.0))
        route = static_route_naive(
            parents, compute, bandwidth, beta=kw["beta"], power=kw["power"], kappa=kw["kappa"]
        )
        below += sum(1 for s, r in enumerate(route) if r != 0 and weights[s] > 0)
        for model in MODELS:
            got = utilisation_bound(
                model="".join(list(model)),  # built at run time (read from a file), not interned
                topology=topo,
                mean_size=size,
                lam=kw["lam"],
                period=kw["period"],
                data_per_work=kw["beta"],
                power=kw["power"],
                kappa=kw["kappa"],
                decision_time=kw["decision_time"],
                offload_busy=kw["offload_busy"],
            )
            want = utilisation_bound_naive(
                parents, compute, bandwidth, weights, model=model, mean_size=size, **kw
            )
            assert got == pytest.approx(want, rel=1e-12), model
    assert below >= 5


def test_original_rule_counts_a_decision_where_a_task_stops_and_none_above():
    # slow links keep every task where it is generated (servers 1 and 2): each server pays
    # its executions and one decision per task, nothing for the hops it did not take
    from workbench.hierarchy.model import static_route, utilisation_bound
    from workbench.hierarchy.topology import from_parents

    topo = from_parents([-1, 0, 1], [100.0, 10.0, 40.0], [1e-3, 1e-3, 1e-3], [0.0, 1.0, 1.0])
    kw = dict(topology=topo, data_per_work=1.0, power=0.5, kappa=1e-6)
    assert list(static_route(**kw)) == [0, 1, 2]
    rate, size, tau = 6.0 / 2.0, 3.0, 0.05  # λ = 6 per period of 2 s
    got = utilisation_bound(
        model="original", lam=6.0, period=2.0, mean_size=size, decision_time=tau, **kw
    )
    assert got == pytest.approx(rate * (size / 10.0 + tau), rel=1e-14)
