"""P1 fog offloading: the numba network kernel against the same network written in SimPy.

Both simulators get the SAME pre-drawn requests (generation times, origins, types, routes,
work draws, cloud-unit and queue-choice uniforms, announcement phases), so besides the mean
delay they must agree request by request on where each request was served and when it
finished. The SimPy model is written the SimPy way: one process per request, one server
process per fog node, one announcer process per fog node, Store-free hand-off by events.

Usage::

    python benchmarks/bench_p1_simpy.py           # SimPy 2*10^5 requests, kernel 10^6 (+ scale)
    python benchmarks/bench_p1_simpy.py --quick   # SimPy 2*10^4 requests, kernel 2*10^5

Network: 25 fog nodes on a random geometric layer, 500 IoT nodes (20 per fog node), one
cloud server with 8 units, distributed announcements every 50 ms, θ = 20 ms, e_M = 2.
Rates are requests per second of wall time (best of 3 for the kernel, compiled first); on a
shared machine both move with the load. Exits with status 1 if the two disagree.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
import simpy  # noqa: E402

from workbench.fog import geometric_scenario  # noqa: E402
from workbench.fog import kernels as K  # noqa: E402
from workbench.fog.model import P1Params  # noqa: E402
from workbench.fog.scenario import compile_scenario  # noqa: E402
from workbench.fog.simulation import draw_requests, kernel_arguments  # noqa: E402

THETA, E_MAX, Q, ALPHA, PERIOD, MODE = 0.02, 2, 0.5, 0.5, 0.05, "distributed"
SEED = 20260601


def network(n_fog=25, iot_per_fog=20, seed=SEED):
    return compile_scenario(geometric_scenario(n_fog, 0.3, iot_per_fog, seed=seed % 1000))


# (fog nodes, radius of the geometric layer, requests); 100 IoT nodes per fog node
SCALE_CASES = ((25, 0.3, 10**6), (100, 0.18, 10**6), (1000, 0.057, 10**6), (1000, 0.057, 10**7))


def scale_case(n_fog, radius, n_requests):
    """Build, draw and run one large network; print where the time goes."""
    t0 = time.perf_counter()
    net = compile_scenario(geometric_scenario(n_fog, radius, 100, seed=1))
    t1 = time.perf_counter()
    req = draw_requests(net, n_requests, np.random.default_rng(SEED + 2), PERIOD)
    t2 = time.perf_counter()
    out = run_kernel(net, req)
    t3 = time.perf_counter()
    print(
        f"  {n_fog:>5} fog / {net.n_iot:>7,} IoT, {n_requests:>10,} requests "
        f"({out.horizon:6.1f} s simulated): network {t1 - t0:5.2f} s, draw {t2 - t1:5.2f} s, "
        f"kernel {t3 - t2:5.2f} s = {1e9 * (t3 - t2) / n_requests:4.0f} ns/request"
    )


def run_kernel(net, req):
    p = P1Params(
        scenario=net,
        theta=THETA,
        e_max=E_MAX,
        q=Q,
        alpha=ALPHA,
        mode=MODE,
        policy="offload",
        announce_period=PERIOD,
    )
    return K.simulate_network(*kernel_arguments(p, req))


def run_simpy(net, req):
    """The same policy as SimPy processes; returns (tier, place, t_done)."""
    env = simpy.Environment()
    n = req.gen_time.size
    nf = net.n_fog
    fog_mean = 1.0 / net.fog_mu
    sizes = net.size_bits
    tier = np.full(n, -1)
    place = np.full(n, -1)
    t_done = np.zeros(n)
    count = np.zeros((nf, 2), dtype=int)
    estimate = fog_mean.copy()
    queues = [([], []) for _ in range(nf)]  # (request, join time, start event)
    busy = [False] * nf
    table = np.zeros(net.nbr_idx.size)
    units = [np.zeros(int(m)) for m in net.cloud_units]
    state = {"left": n}

    def w_of(j):
        return count[j, 0] * estimate[j, 0] + count[j, 1] * estimate[j, 1]

    def finish(r, t, back):
        t_done[r] = t + back
        state["left"] -= 1

    def cloud(r, k):
        c = req.rtype[r]
        m = units[k].size
        u = min(int(req.unit_u[r] * m), m - 1)
        start = max(env.now, units[k][u])
        units[k][u] = start + req.work[r] * net.cloud_mean[k, c]
        i = req.origin[r]
        f = net.iot_fog[i]
        s = sizes[c]
        tier[r], place[r] = 2, k
        back = net.cf_prop[k, f] + s * net.cf_inv[k, f] + net.iot_prop[i] + s * net.iot_inv[i]
        finish(r, units[k][u], back)

    def server(j, r, c):
        busy[j] = True
        while r is not None:
            yield env.timeout(req.work[r] * fog_mean[j, c])
            count[j, c] -= 1
            estimate[j, c] = (1 - ALPHA) * estimate[j, c] + ALPHA * req.work[r] * fog_mean[j, c]
            i = req.origin[r]
            f = net.iot_fog[i]
            s = sizes[c]
            tier[r], place[r] = 1, j
            back = net.ff_prop[j, f] + s * net.ff_inv[j, f] + net.iot_prop[i] + s * net.iot_inv[i]
            finish(r, env.now, back)
            light, heavy = queues[j]
            if not light and not heavy:
                r = None
            else:
                pick = 0 if (not heavy or (light and light[0][1] <= heavy[0][1])) else 1
                r, _ = queues[j][pick].pop(0)
                c = pick
        busy[j] = False

    def request(r):
        yield env.timeout(req.gen_time[r] - env.now)
        i, c = req.origin[r], req.rtype[r]
        s = sizes[c]
        if req.route[r] == K.ROUTE_LOCAL:
            tier[r], place[r] = 0, i
            finish(r, env.now, req.work[r] * net.iot_local_mean[i, c])
            return
        j = net.iot_fog[i]
        yield env.timeout(net.iot_prop[i] + s * net.iot_inv[i])
        if req.route[r] == K.ROUTE_CLOUD:
            yield env.timeout(net.fc_prop[j] + s * net.fc_inv[j])
            cloud(r, net.fog_cloud[j])
            return
        hops = 0
        while True:
            if w_of(j) < THETA:
                count[j, c] += 1
                if busy[j]:
                    queues[j][c].append((r, env.now))
                else:
                    env.process(server(j, r, c))
                return
            a, b = net.nbr_ptr[j], net.nbr_ptr[j + 1]
            if hops < E_MAX and b > a:
                e = a + int(np.argmin(table[a:b] + net.nbr_prop[a:b]))
                hops += 1
                yield env.timeout(net.nbr_prop[e] + s * net.nbr_inv[e])
                j = net.nbr_idx[e]
            else:
                yield env.timeout(net.fc_prop[j] + s * net.fc_inv[j])
                cloud(r, net.fog_cloud[j])
                return

    def deliver(e, w, delay):
        yield env.timeout(delay)
        table[net.nbr_rev[e]] = w

    def announcer(j):
        yield env.timeout(req.announce_phase[j])
        while state["left"] > 0:
            w = w_of(j)
            for e in range(net.nbr_ptr[j], net.nbr_ptr[j + 1]):
                env.process(deliver(e, w, net.nbr_prop[e]))
            yield env.timeout(PERIOD)

    def source():
        # start request processes in batches so the event list stays short
        batch = 2000
        for lo in range(0, n, batch):
            if lo > 0:
                yield env.timeout(max(0.0, req.gen_time[lo] - env.now - 1e-9))
            for r in range(lo, min(n, lo + batch)):
                env.process(request(r))

    for j in range(nf):
        env.process(announcer(j))
    env.process(source())
    env.run()
    return tier, place, t_done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n_simpy = 20_000 if args.quick else 200_000
    n_kernel = 200_000 if args.quick else 1_000_000

    net = network()
    rng = np.random.default_rng(SEED)
    req = draw_requests(net, n_simpy, rng, PERIOD)
    run_kernel(net, draw_requests(net, 1000, np.random.default_rng(1), PERIOD))  # compile

    t0 = time.perf_counter()
    out = run_kernel(net, req)
    t_kernel_small = time.perf_counter() - t0
    t0 = time.perf_counter()
    tier, place, t_done = run_simpy(net, req)
    t_simpy = time.perf_counter() - t0

    same_place = np.array_equal(tier, out.tier) and np.array_equal(place, out.place)
    max_diff = float(np.max(np.abs(t_done - out.t_done)))
    delay_k = float(np.mean(out.t_done - req.gen_time))
    delay_s = float(np.mean(t_done - req.gen_time))
    print(f"network: {net.n_fog} fog, {net.n_iot} IoT, 1 cloud ({int(net.cloud_units[0])} units)")
    print(
        f"agreement on {n_simpy:,} requests: same tier/place {same_place}, "
        f"max |t_done diff| {max_diff:.3g} s; mean delay kernel {delay_k * 1e3:.4f} ms, "
        f"SimPy {delay_s * 1e3:.4f} ms"
    )

    big = draw_requests(net, n_kernel, np.random.default_rng(SEED + 1), PERIOD)
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        run_kernel(net, big)
        best = min(best, time.perf_counter() - t0)
    rate_kernel = n_kernel / best
    rate_simpy = n_simpy / t_simpy
    print(
        f"kernel: {n_kernel:,} requests in {best:.3f} s = {rate_kernel:,.0f} requests/s "
        f"(same {n_simpy:,} as SimPy: {t_kernel_small:.3f} s)"
    )
    print(f"SimPy : {n_simpy:,} requests in {t_simpy:.2f} s = {rate_simpy:,.0f} requests/s")
    print(f"ratio : {rate_kernel / rate_simpy:,.0f}x")
    if not args.quick:
        print("scale (one process, 100 IoT nodes per fog node; build, draw, run):")
        for n_fog, radius, n_req in SCALE_CASES:
            scale_case(n_fog, radius, n_req)
    ok = same_place and max_diff < 1e-9
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
