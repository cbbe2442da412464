"""Policies a researcher can write: what they see, what they may answer, what they may not,
and the one table the built-in and user policies are declared in."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from workbench import arena
from workbench.arena import policies as P
from workbench.arena.params import PARAMS, ArenaParams
from workbench.arena.simulation import _policy
from workbench.validation import ParameterError


def _star(n_nodes, lam, mean=1.0, servers=1, **work):
    nodes = [{"id": "dev", "role": "device", "servers": 0}]
    nodes += [{"id": f"n{k}", "role": "edge", "servers": servers} for k in range(n_nodes)]
    links = [{"a": "dev", "b": f"n{k}", "delay": 0.0} for k in range(n_nodes)]
    w = [{"source": "dev", "rate": lam, "size": {"dist": "exponential", "mean": mean}, **work}]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": w})


@arena.policy(state=1)
def round_robin(task, cand, state, par, u, out):
    """Stateful: the candidates in turn."""
    out[0] = int(state[0]) % cand.shape[1]
    state[0] += 1
    return 1


def test_one_table_declares_every_policy_and_its_parameter_slots():
    names = [s.name for s in P.TABLE]
    assert names[-1] == "user" and set(arena.POLICIES) == set(names[:-1])
    assert [P.CODE[n] for n in names] == list(range(len(names)))
    assert (P.LOCAL, P.JSQ, P.REPLICATE, P.USER) == (0, 3, 7, len(names) - 1)
    slots = [p for s in P.TABLE for p in s.params]
    assert sorted(P.SLOTS.values()) == list(range(P.N_PAR)) and set(P.SLOTS) == set(slots)
    for s in P.TABLE:
        for p in s.params:
            assert p in PARAMS  # every parameter a declared row, with its range


def test_a_stateful_policy_keeps_its_state_between_decisions():
    r = arena.simulate(
        scenario=_star(3, 1.0),
        policy=round_robin,
        requests=3_000,
        replications=2,
        records=True,
        warmup=0.0,
    )
    for _, rec in r.records.groupby("replication"):
        expected = [f"n{k % 3}" for k in rec["task"]]
        assert rec["node"].tolist() == expected  # state starts at 0 in every replication


def test_the_policy_sees_the_task_and_the_clock():
    @arena.policy(state=4)
    def spy(task, cand, state, par, u, out):
        # a task is decided when it arrives, at its source, before any other event
        ok = task[P.T_NOW] == task[P.T_ARRIVAL] and task[P.T_NODE] == 0
        ok = ok and task[P.T_SOURCE] == 0 and 0 <= task[P.T_TYPE] < 5
        ok = ok and task[P.T_DEADLINE] == np.inf and np.isnan(task[P.T_SIZE])
        ok = ok and cand[P.C_NODE, 0] == 1 and cand[P.C_SERVERS, 0] == 1
        if not ok:
            state[1] = 1.0
        out[0] = 99 if state[1] else 0  # a failed check fails loudly: an invalid answer
        return 1

    sc = _star(1, 0.5, types={"count": 5, "zipf": 1.0})
    r = arena.simulate(scenario=sc, policy=spy, requests=2_000, replications=2)
    assert r.loss_share == 0.0


def test_a_parameterised_policy_takes_declared_checked_parameters():
    @arena.policy(params={"limit": (0.0, 50.0, 2.0)})
    def keep_below(task, cand, state, par, u, out):
        """Home while it holds fewer than `limit` tasks per server, else the least loaded."""
        if cand[P.C_QUEUE, 0] < par[0] * cand[P.C_SERVERS, 0]:
            out[0] = 0
            return 1
        best = 0
        for j in range(cand.shape[1]):
            if (
                cand[P.C_QUEUE, j] / cand[P.C_SERVERS, j]
                < cand[P.C_QUEUE, best] / cand[P.C_SERVERS, best]
            ):
                best = j
        out[0] = best
        return 1

    sc = arena.load_scenario("neutral")
    run = dict(requests=5_000, replications=2, seed=4, overload="transient")
    kw = dict(scenario=sc, policy=keep_below, **run)
    local = arena.simulate(scenario=sc, policy="local", **run)
    tight, loose = arena.simulate(limit=0.0, **kw), arena.simulate(limit=50.0, **kw)
    assert tight.forwarded_share > 0.05 and loose.forwarded_share == 0.0
    assert loose.mean_delay == pytest.approx(local.mean_delay, rel=1e-12)
    with pytest.raises(ParameterError, match="limit"):
        arena.simulate(limit=-1.0, **kw)
    with pytest.raises(ParameterError, match="unknown"):
        arena.simulate(theta=1.0, **kw)


def test_a_user_policy_replicates_like_the_mm1_of_rate_2mu():
    @arena.policy(copies=2)
    def both(task, cand, state, par, u, out):
        out[0], out[1] = 0, 1
        return 2

    lam = 1.2
    r = arena.simulate(scenario=_star(2, lam), policy=both, requests=60_000, replications=6, seed=3)
    lo, hi = r.interval()
    assert lo <= 1 / (2 - lam) <= hi and r.copies_per_task == 2.0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("out[0] = 7\n    return 1", "chose candidate 7 for task 0 .* 2 candidates"),
        ("out[0] = -1\n    return 1", "chose candidate -1 for task 0"),
        ("out[0] = 0\n    return 0", "returned 0 for task 0 .* 1 to 1 candidate"),
        ("out[0] = 0\n    return 2", "returned 2 for task 0"),
        ("out[0] = int(cand[0, 9])\n    return 1", "raised IndexError .* task 0"),
        ("state[3] = 1.0\n    out[0] = 0\n    return 1", "raised IndexError"),
    ],
)
def test_an_invalid_answer_is_a_named_error_not_a_lost_task(body, message):
    ns = {}
    exec(f"def wrong(task, cand, state, par, u, out):\n    {body}\n", ns)  # noqa: S102
    pol = arena.policy(ns["wrong"])
    with pytest.raises(arena.PolicyError, match="policy 'wrong' " + message):
        arena.simulate(scenario=_star(2, 0.5), policy=pol, requests=500, replications=2)


def test_user_policy_from_a_plain_function_compiles_or_is_refused_by_name():
    def first(task, cand, state, par, u, out):
        out[0] = 0
        return 1

    pol = arena.UserPolicy("first", first)  # a plain function: compiled here
    r = arena.simulate(scenario=_star(1, 0.5), policy=pol, requests=1_000, replications=2)
    assert r.loss_share == 0.0
    with pytest.raises(ParameterError, match="'decide' parameter of UserPolicy 'x'"):
        arena.UserPolicy("x", 42)
    with pytest.raises(
        ParameterError, match="policy 'two': <lambda> must take .* it takes 2 arguments"
    ):
        arena.UserPolicy("two", lambda a, b: 0)
    with pytest.raises(ParameterError, match="does not compile"):
        arena.policy(lambda task, cand, state, par, u, out: "no")
    with pytest.raises(ParameterError, match="identifier"):
        arena.UserPolicy("not a name", first)


def test_a_policy_that_never_returns_is_stopped_by_its_timeout():
    """In a child process (the compiled call cannot be ended; the child exits with it)."""
    code = textwrap.dedent("""
        import os, sys
        from workbench import arena
        sc = arena.scenario_from_dict({"nodes": [{"id": "x", "role": "edge", "servers": 1}],
            "workload": [{"source": "x", "rate": 1.0, "size": {"dist": "exponential", "mean": 1}}]})
        @arena.policy(state=1)
        def spin(task, cand, state, par, u, out):
            while u[0] >= 0.0:
                state[0] += 1.0
            return 1
        try:
            arena.simulate(scenario=sc, policy=spin, requests=200, replications=2, timeout=0.5)
        except arena.PolicyError as exc:
            print(exc)
            sys.stdout.flush()
            os._exit(0)
        os._exit(3)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "policy 'spin' did not finish a replication within timeout=0.5 s" in out.stdout


@pytest.mark.parametrize(
    "bad",
    [
        {"uniforms": float("nan")},
        {"state": -1},
        {"copies": 0},
        {"params": 5},
        {"params": {"x": (0.0, 1.0)}},
        {"params": {"seed": (0, 1, 0)}},
        {"params": {"initial": (0, 1, 0)}},  # simulate_to_precision's keyword
    ],
)
def test_policy_declarations_are_checked_before_the_function_arrives(bad):
    with pytest.raises(ParameterError, match="policy"):
        arena.policy(**bad)


def test_the_runs_take_the_arena_object_or_its_keywords_checked_at_the_door():
    run = dict(scenario="neutral", requests=2_000, replications=3, seed=4)
    a = arena.simulate(
        ArenaParams(requests=2_000, replications=3, seed=4, m=3),
        scenario="neutral",
        policy="replicate",
    )
    b = arena.simulate(policy="replicate", m=3, **run)
    assert a.frame.equals(b.frame) and a.info["params"] == {}  # the object's m is read
    assert b.info["params"] == {"m": 3}
    assert not a.frame.equals(arena.simulate(policy="replicate", **run).frame)  # m = 2
    with pytest.raises(ParameterError, match=r"'m' parameter of simulate .*\[1, 64\]. Got 0"):
        arena.simulate(policy="replicate", m=0, **run)
    with pytest.raises(ParameterError, match=r"'p' parameter of simulate_to_precision .*Got 2"):
        arena.simulate_to_precision(scenario="p3_datacenters", policy="overflow", p=2)
    with pytest.raises(ParameterError, match=r"simulate: policy 'jsq' .*unknown \['zzz_typo'\]"):
        arena.simulate(policy="jsq", zzz_typo=1, **run)
    with pytest.raises(ParameterError, match="simulate: policy 'jsq' .*unknown \\['m'\\]"):
        arena.simulate(policy="jsq", m=2, **run)  # a row, but not jsq's
    with pytest.raises(ParameterError, match="simulate: requests × replications .* 2e\\+08"):
        arena.simulate(scenario="neutral", policy="jsq", requests=10**7, replications=21)
    # without an object (the engine's tests, the identity benchmark): the table's defaults
    assert _policy("jsq", {}, "t").par.tolist() == [0.0] * P.N_PAR
    assert _policy("replicate", {}, "t").par[P.SLOTS["m"]] == PARAMS["m"].default
    with pytest.raises(ParameterError, match="parameter name 'theta' must be an identifier"):
        arena.policy(params={"theta": (0.0, 1.0, 0.5)})  # the door would check it as a row
