"""P4 edge loss system: the numba event kernel against an equivalent SimPy model.

Paper P4 (Peng & Soljanin, redundancy management in edge computing): ``N`` edge workers
form ``c = N // m`` groups of ``m`` replicas; a job takes a free group and finishes with
the first of its ``m`` replicas, so its time on the group is the minimum of ``m`` iid
service samples.  With no free group the job goes to the cloud (M/G/c/c loss system);
the finite-waiting-room variant (M/G/c/K) lets up to ``k`` jobs wait FCFS first.

Both simulators get the SAME input arrays (interarrival times and job times), so besides
the blocking fractions they must agree job by job on which jobs were blocked, on the
number in system each arrival saw and on the waits.  The SimPy model applies the kernel's
tie rule (a departure at the arrival instant frees its server first) by scheduling
arrivals at a lower priority than every other event at the same time.

Usage::

    python benchmarks/bench_p4_simpy.py           # kernel 10^7 jobs, SimPy 2*10^5 jobs
    python benchmarks/bench_p4_simpy.py --quick   # kernel 10^6 jobs, SimPy 2*10^4 jobs

Rates are jobs per second of CPU time (best of a few runs, the kernel warmed up first);
on a shared machine both rates, and somewhat their ratio, move with the load.  Exits
with status 1 if the two simulators disagree on any job.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))

import numpy as np  # noqa: E402
import simpy  # noqa: E402
from simpy.core import NORMAL  # noqa: E402

from workbench.kernels.events import multiserver_fcfs  # noqa: E402

N_WORKERS = 24
M_REPLICAS = 2
GROUPS = N_WORKERS // M_REPLICAS  # c = 12
OFFERED_LOAD = 10.0  # a = lambda E[T_job]; Erlang-B(12, 10) ~ 12% blocking
REPLICATIONS = 10
SEED = 20240604

# Per-replica service time laws.  Pareto(scale, tail): the minimum of m replicas is
# Pareto(scale, m * tail).  S-Exp(shift, rate): the minimum is shift + Exp(m * rate).
PARETO_SCALE, PARETO_TAIL = 1.5, 1.2
SEXP_SHIFT, SEXP_RATE = 3.0, 0.2

# SimPy processes events at equal times by (priority, insertion order); URGENT = 0 and
# NORMAL = 1, so an arrival at priority 2 runs after every departure, release and grant
# at the same instant: the kernel's tie rule.
ARRIVAL_PRIORITY = NORMAL + 1


def job_time_sampler(law: str):
    """Return ``(draw(rng, n) -> min of M_REPLICAS replica times, E[job time])``."""
    m = M_REPLICAS
    if law == "pareto":
        tail = m * PARETO_TAIL

        def draw(rng, n):
            replicas = PARETO_SCALE * (1.0 + rng.pareto(PARETO_TAIL, size=(n, m)))
            return replicas.min(axis=1)

        return draw, PARETO_SCALE * tail / (tail - 1.0)
    if law == "sexp":

        def draw(rng, n):
            replicas = SEXP_SHIFT + rng.exponential(1.0 / SEXP_RATE, size=(n, m))
            return replicas.min(axis=1)

        return draw, SEXP_SHIFT + 1.0 / (m * SEXP_RATE)
    raise ValueError(law)


def erlang_b(servers: int, load: float) -> float:
    """Erlang-B blocking by the stable recursion B_k = a B_{k-1} / (k + a B_{k-1})."""
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b


class _ArrivalTimeout(simpy.events.Event):
    """A timeout with a chosen scheduling priority (``simpy.Timeout`` always uses NORMAL)."""

    def __init__(self, env: simpy.Environment, delay: float, priority: int):
        super().__init__(env)
        # Same two fields simpy.Timeout sets; only the priority differs.
        self._ok = True
        self._value = None
        env.schedule(self, priority, delay)


def simpy_run(
    interarrivals: np.ndarray,
    job_times: np.ndarray,
    servers: int,
    waiting_room: int,
    arrival_priority: int = ARRIVAL_PRIORITY,
):
    """The same FCFS system as :func:`multiserver_fcfs`, in SimPy.

    A ``simpy.Resource`` of capacity ``servers`` models the groups; an arriving job that
    finds ``servers + waiting_room`` jobs present (in service plus queued) goes to the
    cloud and never requests the resource.  Returns ``(waits, blocked, n_seen)`` like the
    kernel.  ``arrival_priority=NORMAL`` gives SimPy's default order at ties (whichever
    event was scheduled first), which differs from the kernel's tie rule.
    """
    env = simpy.Environment()
    groups = simpy.Resource(env, capacity=servers)
    n = len(interarrivals)
    gaps = interarrivals.tolist()  # Python floats: the fair, fast way to feed SimPy
    times = job_times.tolist()
    waits = [math.nan] * n
    blocked = [False] * n
    n_seen = [0] * n
    places = servers + waiting_room

    def job(i: int, arrival: float, request, service: float):
        yield request
        waits[i] = env.now - arrival
        yield env.timeout(service)
        groups.release(request)

    def source():
        for i in range(n):
            yield _ArrivalTimeout(env, gaps[i], arrival_priority)
            present = len(groups.users) + len(groups.queue)
            n_seen[i] = present
            if present >= places:
                blocked[i] = True  # to the cloud
            else:
                env.process(job(i, env.now, groups.request(), times[i]))

    env.process(source())
    env.run()
    return np.array(waits), np.array(blocked), np.array(n_seen, dtype=np.int64)


def compare(kernel_out, simpy_out) -> dict:
    """Count the jobs on which the two simulators disagree."""
    w_k, b_k, ns_k = kernel_out
    w_s, b_s, ns_s = simpy_out
    # Both compute every time with the same float operations, so waits agree exactly.
    same_wait = (w_s == w_k) | (np.isnan(w_s) & np.isnan(w_k))
    return {
        "blocked": int(np.count_nonzero(b_s != b_k)),
        "n_seen": int(np.count_nonzero(ns_s != ns_k)),
        "waits": int(np.count_nonzero(~same_wait)),
    }


def tie_check(n: int) -> tuple[int, dict, dict]:
    """Integer-valued times, so arrivals often coincide with departures.

    Returns ``(ties, mismatches with the tie rule, mismatches with SimPy's default
    order)``; only the first must be empty.
    """
    rng = np.random.default_rng([SEED, 7])
    gaps = rng.integers(0, 3, n).astype(float)  # mean 1
    times = rng.integers(0, 21, n).astype(float)  # mean 10: offered load 10 on c = 12
    rule = {"blocked": 0, "n_seen": 0, "waits": 0}
    default = dict(rule)
    ties = 0
    for k in (0, 4):
        out = multiserver_fcfs(gaps, times, GROUPS, k)
        arrival = np.cumsum(gaps)
        served = ~out[1]
        depart = (arrival + out[0] + times)[served]
        ties += int(np.count_nonzero(np.isin(arrival, depart)))
        for key, v in compare(out, simpy_run(gaps, times, GROUPS, k)).items():
            rule[key] += v
        for key, v in compare(out, simpy_run(gaps, times, GROUPS, k, NORMAL)).items():
            default[key] += v
    return ties, rule, default


def best_time(fn, repeat: int) -> float:
    """Smallest CPU time of ``repeat`` calls of ``fn``.

    CPU time of this process (both simulators are single-threaded) rather than wall
    time, so that other jobs on a shared machine distort the ratio less.
    """
    best = math.inf
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def run_case(
    case_id: int, law: str, waiting_room: int, n_kernel: int, n_simpy: int, repeat: int
) -> dict:
    """Draw REPLICATIONS input streams, check job-by-job agreement, time both simulators.

    SimPy runs on the first ``n_simpy / REPLICATIONS`` jobs of each stream, the kernel on
    those same jobs (agreement check) and on the whole streams (rate and blocking).
    """
    draw, mean_job = job_time_sampler(law)
    lam = OFFERED_LOAD / mean_job
    per_rep_k = n_kernel // REPLICATIONS
    per_rep_s = n_simpy // REPLICATIONS
    streams = []
    for r in range(REPLICATIONS):
        rng = np.random.default_rng([SEED, case_id, r])
        streams.append((rng.exponential(1.0 / lam, per_rep_k), draw(rng, per_rep_k)))

    mismatches = {"blocked": 0, "n_seen": 0, "waits": 0}
    blocked_s = blocked_k = 0
    for gaps, times in streams:
        out_s = simpy_run(gaps[:per_rep_s], times[:per_rep_s], GROUPS, waiting_room)
        out_k = multiserver_fcfs(gaps[:per_rep_s], times[:per_rep_s], GROUPS, waiting_room)
        for key, v in compare(out_k, out_s).items():
            mismatches[key] += v
        blocked_s += int(out_s[1].sum())
    for gaps, times in streams:
        blocked_k += int(multiserver_fcfs(gaps, times, GROUPS, waiting_room)[1].sum())

    def kernel_all():
        for gaps, times in streams:
            multiserver_fcfs(gaps, times, GROUPS, waiting_room)

    def simpy_all():
        for gaps, times in streams:
            simpy_run(gaps[:per_rep_s], times[:per_rep_s], GROUPS, waiting_room)

    t_kernel = best_time(kernel_all, repeat)
    t_simpy = best_time(simpy_all, repeat)
    return {
        "case": f"{law:6s} k={waiting_room}",
        "lambda": lam,
        "block_kernel": blocked_k / (per_rep_k * REPLICATIONS),
        "block_simpy": blocked_s / (per_rep_s * REPLICATIONS),
        "erlang_b": erlang_b(GROUPS, OFFERED_LOAD) if waiting_room == 0 else math.nan,
        "rate_kernel": per_rep_k * REPLICATIONS / t_kernel,
        "rate_simpy": per_rep_s * REPLICATIONS / t_simpy,
        "mismatches": mismatches,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer jobs")
    args = parser.parse_args(argv)
    n_kernel, n_simpy, repeat = (10**6, 2 * 10**4, 2) if args.quick else (10**7, 2 * 10**5, 3)

    # Warm up (compile or load from cache) outside the timed region.
    multiserver_fcfs(np.ones(8), np.ones(8), 2, 0)
    multiserver_fcfs(np.ones(8), np.ones(8), 2, 1)

    print(
        f"P4 edge system: N={N_WORKERS}, m={M_REPLICAS}, c={GROUPS} groups, offered load "
        f"a={OFFERED_LOAD}, {REPLICATIONS} replications; kernel {n_kernel:.0e} jobs, "
        f"SimPy {n_simpy:.0e} jobs (best CPU time of {repeat}); simpy {simpy.__version__}"
    )
    cases = [("pareto", 0), ("sexp", 0), ("sexp", 4)]
    rows = [run_case(i, law, k, n_kernel, n_simpy, repeat) for i, (law, k) in enumerate(cases)]

    header = (
        f"{'case':12s} {'lambda':>7s} {'B kernel':>9s} {'B simpy':>8s} {'Erlang-B':>9s} "
        f"{'kernel jobs/s':>14s} {'simpy jobs/s':>13s} {'ratio':>7s}  mismatches"
    )
    print(header)
    print("-" * len(header))
    failed = False
    for r in rows:
        bad = sum(r["mismatches"].values())
        failed |= bad > 0
        print(
            f"{r['case']:12s} {r['lambda']:7.3f} {r['block_kernel']:9.4f} {r['block_simpy']:8.4f} "
            f"{r['erlang_b']:9.4f} {r['rate_kernel']:14.3e} {r['rate_simpy']:13.3e} "
            f"{r['rate_kernel'] / r['rate_simpy']:6.0f}x  "
            + ("none" if bad == 0 else str(r["mismatches"]))
        )
    ties, rule, default = tie_check(n_simpy // 4)
    print(
        f"ties: integer-valued times, {n_simpy // 4} jobs x k in (0, 4): {ties} arrivals at "
        f"exactly a departure instant; mismatches with the tie rule: {rule}; with SimPy's "
        f"default same-time order (not a failure): {default}"
    )
    failed |= sum(rule.values()) > 0
    if failed:
        print("FAIL: kernel and SimPy disagree on some jobs", file=sys.stderr)
        return 1
    print("kernel and SimPy agree job by job (blocked, number seen, waits) in every case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
