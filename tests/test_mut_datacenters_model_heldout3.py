"""P3's exact chain and its scaling limit where a third held-out sample of mutants of
``workbench/datacenters/{exact,limit}.py`` found no test (session 10).

The oracles: the two-center generator built state by state (``tests/naive_datacenters``),
whose flow out of a window is summed directly; the idle-server walk's dense generator and
its solve; Poisson quantiles from scipy for the Erlang windows (an Erlang loss system's
law is a Poisson law truncated at its servers); the documented meaning of ``tail=0``
(the whole grid) and the documented memory bound ``MAX_STATES``. Rates and probabilities
are generic (no rate equals 1, no p is 0 or 1), so each formula is pinned where its terms
differ.
"""

import re

import naive_datacenters as naive
import numpy as np
import pytest
from scipy import stats

from workbench import datacenters as dc
from workbench.datacenters import exact as exact_module
from workbench.datacenters import limit as limit_module


def _outflow(pi_full, window, lam, servers, mu, p):
    """2 x the flow from the window's states to the states outside it, from the dense
    generator (each such transition counts once out of its state and once into a
    dropped one in ||pi Q||_1)."""
    (c1, c2) = servers
    (x0, x1), (y0, y1) = window
    q = naive.generator_two_centers(lam, servers, mu, p)
    inside = np.zeros((c1 + 1, c2 + 1), dtype=bool)
    inside[x0 : x1 + 1, y0 : y1 + 1] = True
    inside = inside.ravel()
    off = q.copy()
    np.fill_diagonal(off, 0.0)
    return 2.0 * float(pi_full.ravel()[inside] @ off[np.ix_(inside, ~inside)].sum(axis=1))


@pytest.mark.parametrize(
    ("window", "corner"),
    [
        # center 1's top edge inside the grid, center 2 full: a forwarded class-2 request
        # leaves the window too (rate λ1 + p2 λ2 out of (x1, C2))
        (((1, 3), (2, 6)), (3, 6)),
        # symmetric: center 2's top edge inside, center 1 full (rate λ2 + p1 λ1)
        (((2, 5), (1, 4)), (5, 4)),
    ],
)
def test_the_leak_is_the_flow_out_of_the_window_with_forwarding(window, corner):
    """_leak bounds the flow into the dropped states by charging every top-edge state the
    forwarding rate too; at the corner where the other center is full that bound is the
    exact flow. With all mass on that corner, the leak equals twice the flow out of the
    window summed from the dense generator, at generic rates (λ = 2.5, 3.5, p = 0.3, 0.6)."""
    lam, servers, mu, p = (2.5, 3.5), (5, 6), (1.5, 0.75), (0.3, 0.6)
    (x0, x1), (y0, y1) = window
    pi = np.zeros((x1 - x0 + 1, y1 - y0 + 1))
    pi[corner[0] - x0, corner[1] - y0] = 1.0
    full = np.zeros((servers[0] + 1, servers[1] + 1))
    full[corner] = 1.0
    want = _outflow(full, window, lam, servers, mu, p)
    assert want > 0
    got = exact_module._leak(pi, window, lam, servers, mu, p)
    assert got == pytest.approx(want, rel=1e-14)


def test_tail_zero_keeps_the_whole_grid_even_where_erlang_tails_underflow():
    """solve_exact's `tail`: "0 keeps the whole grid". At 800 servers fed 800 Erlangs the
    probability of few busy servers underflows to 0 in double precision, so a window cut
    at mass 0 would drop states; tail = 0 must not compute a window at all."""
    lam, servers, mu, p = (1200.0, 0.6), (800, 2), (1.5, 0.4), (0.35, 0.65)
    assert exact_module._windows(lam, servers, mu, p, 0.0) == [((0, 800), (0, 2))]
    sol = dc.solve_exact(lam, servers, mu, p, tail=0.0)
    assert sol.window == ((0, 800), (0, 2))
    assert sol.distribution.shape == (801, 3)


def _erlang_window(servers, load_low, load_high, tail):
    """[lo, hi] from Poisson laws truncated at `servers` (scipy): lo counts the k with
    P(L <= k) <= tail / 2 at the low load, hi is the last k with P(L >= k) >= tail / 2 at the
    high load."""
    k = np.arange(servers + 1)
    low = stats.poisson(load_low)
    lower = low.cdf(k) / low.cdf(servers)
    lo = int(np.count_nonzero(lower <= tail / 2))
    high = stats.poisson(load_high)
    upper = (high.cdf(servers) - high.cdf(k - 1)) / high.cdf(servers)
    hi = int(np.nonzero(upper >= tail / 2)[0][-1])
    return max(0, min(lo, hi)), hi


def test_the_own_traffic_window_uses_each_centers_own_load():
    """Neither center fills up on its own traffic (loads λ_i/μ_i = 20 and 30 on 80 and 90
    servers): solve_exact first tries the window of two independent Erlang systems fed by
    their own traffic, and certifies it. Its busy-server ranges are the Poisson quantiles
    at loads λ1/μ1 = 20 and λ2/μ2 = 30 (μ2 = 2, so λ2 μ2 = 120 would be another window)."""
    lam, servers, mu, p = (30.0, 60.0), (80, 90), (1.5, 2.0), (0.4, 0.7)
    tail = 1e-12
    own = (
        _erlang_window(80, 20.0, 20.0, tail),
        _erlang_window(90, 30.0, 30.0, tail),
    )
    assert own[1][0] > 0 and own[0][1] < 80 and own[1][1] < 90
    windows = exact_module._windows(lam, servers, mu, p, tail)
    assert windows[0] == own
    assert dc.solve_exact(lam, servers, mu, p, tail=tail).window == own


def test_the_walk_with_no_own_traffic_at_center_1_in_a_long_box():
    """λ1 = 0 inside (E): center 1 is fed only by center 2's overflow (d1 = -0.5,
    d1 + p2 d2 = 1.3 > 0). The walk's idle count m then rises at c1 μ1 = 0.5 and falls
    at p2 λ2 = 2.7 only when n = 0, so its law decays fast in m; in a box 1,800 idle
    servers long, the law on m <= 30 is the dense walk's on the box (30, 6) up to the tail
    beyond m = 30 (the start guess must stay finite over the whole box)."""
    load, c, mu, p = (0.0, 3.0), (0.5, 1.0), (1.0, 1.0), (0.0, 0.9)
    box = (1800, 6)
    pi, residual, _ = limit_module.walk_in_box(load, c, mu, p, box, 1e-10)
    law = pi[::-1, ::-1]
    q = naive.generator_idle_walk(load, c, mu, p, (30, 6))
    dense = naive.stationary(q).reshape(31, 7)
    np.testing.assert_allclose(law[:31], dense, rtol=0, atol=1e-9)
    assert abs(pi.sum() - 1.0) < 1e-12


@pytest.mark.parametrize(
    "lam, servers",
    [
        ((12.0, 10.0), (10, 50)),  # center 1 (10 servers, load 12) fills on its own traffic
        ((10.0, 320.0), (50, 300)),  # center 2 (300 servers, load 320) fills: past 256
    ],
)
def test_a_center_that_fills_on_its_own_traffic_gets_only_the_wide_window(lam, servers):
    """_windows: the own-traffic window is tried first only "when neither center fills up
    on its own traffic"; here one center's own window reaches its server count, so only
    the conservative window is solved (300 servers: no small-int identity can stand in for
    the comparison of counts)."""
    windows = exact_module._windows(lam, servers, (1.0, 1.0), (0.5, 0.5), 1e-12)
    own = [exact_module._window(c, a, a, 1e-12) for c, a in zip(servers, lam, strict=True)]
    assert any(w[1] == c for w, c in zip(own, servers, strict=True))
    assert len(windows) == 1
    (x0, x1), (y0, y1) = windows[0]
    assert x1 == servers[0] or y1 == servers[1]


@pytest.mark.parametrize(("target", "floor"), [(1e-10, 1e-8), (2e-8, 2e-8)])
def test_the_refusal_after_the_solve_states_the_accuracy_it_asked_for(target, floor):
    """limit_analysis's Raises: the solve is refused when the bound on β exceeds
    max(truncation_target, 1e-8), and the message states that accuracy as "(> ...)". A
    target below 1e-8 (1e-10, the default; the door lets targets down to 1e-14 through)
    is floored at 1e-8, a larger one is used as given. Center 2 within 1e-7 of absorbing
    center 1's overflow: the walk's bound on β is about 4e-8, above both."""
    args = ((1.5, 0.75 + 1e-7), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5))
    with pytest.raises(dc.UncertifiedSolutionError, match="could not be solved") as info:
        dc.limit_analysis(*args, truncation_target=target)
    message = str(info.value)
    stated = float(re.search(r"\(> ([0-9.e+-]+)\)", message).group(1))
    bound = float(re.search(r"up to ([0-9.e+-]+) on beta", message).group(1))
    assert stated == floor
    assert bound > stated
