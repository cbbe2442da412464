"""The arena as a Gymnasium env: the engine paused at decisions, checked against
``arena.simulate`` (the same loop, the same records bit for bit), the env checker, the
reward's accounting and the named errors."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

from workbench import arena
from workbench.arena.env import ArenaEnv
from workbench.arena.policies import (
    C_DELAY,
    C_QUEUE,
    C_SERVERS,
    C_SPEED,
    C_TRANSMISSION,
    T_SIZE,
)
from workbench.arena.studies import mesh_scenario
from workbench.validation import ParameterError


def engine_records(scenario, policy, n, seed):
    """``arena.simulate``'s per-task records of replication 0: what an env driven with
    ``policy``'s choices must give, bit for bit."""
    ref = arena.simulate(
        scenario=scenario,
        policy=policy,
        requests=n,
        replications=2,
        seed=seed,
        warmup=0.0,
        overload="transient",
        records=True,
    ).records
    return ref[ref["replication"] == 0].drop(columns="replication").reset_index(drop=True)


def jsq_action(obs, info, width):
    """``jsq`` from the observation: the least tasks per unit of capacity among the
    candidates with room, the cloud excluded; none: the cloud (the last candidate)."""
    cand, mask = obs["cand"], info["action_mask"]
    n = int(np.sum(cand[C_SPEED] > 0))  # present candidates have a speed
    best, score = -1, math.inf
    for a in range(n):
        if np.isinf(cand[C_SERVERS, a]) or not mask[a]:
            continue
        s = cand[C_QUEUE, a] / (cand[C_SERVERS, a] * cand[C_SPEED, a])
        if s < score:
            best, score = a, s
    return best if best >= 0 else n - 1


def nearest_wait(task, cand, state, par, u, out):
    """A user policy: the least propagation + transmission + estimated wait."""
    best, score = 0, 1e300
    for j in range(cand.shape[1]):
        ahead = max(cand[C_QUEUE, j] + 1.0 - cand[C_SERVERS, j], 0.0)
        s = cand[C_DELAY, j] + cand[C_TRANSMISSION, j] + ahead * 0.1 / cand[C_SPEED, j]
        if s < score:
            best, score = j, s
    out[0] = best
    return 1


NEAREST = arena.policy(nearest_wait)


def drive(env, choose, seed):
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, done, truncated, info = env.step(choose(obs, info))
        assert not truncated
        total += reward
        steps += 1
    return total, steps


def _python_nearest(obs, info):
    n = int(np.sum(obs["cand"][C_SPEED] > 0))
    out = np.zeros(1, np.int64)
    nearest_wait(obs["task"], obs["cand"][:, :n], None, None, None, out)
    return int(out[0])


@pytest.mark.parametrize(
    ("scenario", "policy", "choose"),
    [
        ("neutral", "jsq", "jsq"),
        ("neutral", "cloud", "cloud"),
        ("mesh_small", "jsq", "jsq"),
        ("neutral", NEAREST, "nearest"),
    ],
)
def test_env_driven_by_a_policy_gives_its_records_bit_for_bit(scenario, policy, choose):
    sc = mesh_scenario(capacity=2, lam=4.0) if scenario == "mesh_small" else scenario
    n, seed = 1_500, 11
    env = ArenaEnv(sc, tasks=n)
    pick = {
        "jsq": lambda o, i: jsq_action(o, i, env.width),
        "cloud": lambda o, i: int(np.sum(o["cand"][C_SPEED] > 0)) - 1,
        "nearest": _python_nearest,
    }[choose]
    _, steps = drive(env, pick, seed)
    assert steps == n
    got = env.records()
    pd.testing.assert_frame_equal(got, engine_records(sc, policy, n, seed), check_exact=True)
    if scenario == "mesh_small":
        assert (got["outcome"] == "lost").sum() > 0  # losses are in the comparison


def test_check_env_passes_for_both_layouts():
    for layout in ("dict", "flat"):
        env = ArenaEnv("neutral", tasks=200, observation=layout)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
        # the checker's one remark: the unbounded rows (an infinite-server cloud, the clock)
        others = [str(w.message) for w in seen if "maximum value is infinity" not in str(w.message)]
        assert not others


def test_the_return_is_minus_the_total_time_in_system():
    # small rooms: some tasks are lost, each charged its time until lost plus the penalty
    sc = mesh_scenario(capacity=2, lam=4.0, cloud=False)
    env = ArenaEnv(sc, tasks=3_000, loss_penalty=0.5)
    rng = np.random.default_rng(3)
    total, _ = drive(env, lambda o, i: int(rng.choice(np.flatnonzero(i["action_mask"]))), 4)
    rec = env.records()
    lost = rec["outcome"] == "lost"
    assert 0 < lost.sum() < len(rec)
    lost_at = env.ep.st.t_lost
    time_lost = float(np.sum(lost_at[lost.to_numpy()] - rec["arrival"][lost]))
    expected = rec["delay"][~lost].sum() + time_lost + 0.5 * lost.sum()
    assert total == pytest.approx(-expected, rel=1e-9)


def test_littles_law_on_the_rewards():
    # the time-averaged number present (minus the return over the span) is λ·W
    env = ArenaEnv("neutral", tasks=20_000)
    total, _ = drive(env, lambda o, i: jsq_action(o, i, env.width), 2)
    rec = env.records()
    span = rec["finish"].max() - rec["arrival"].min()
    lam = len(rec) / span
    assert -total / span == pytest.approx(lam * rec["delay"].mean(), rel=1e-9)


def test_energy_term_adds_up_to_simulate_energy():
    env = ArenaEnv("neutral", tasks=2_000, energy_weight=1.0)
    energy, time_ = 0.0, 0.0
    obs, info = env.reset(seed=5)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(jsq_action(obs, info, env.width))
        energy += info["energy"]
        time_ += info["time_in_system"]
        assert reward == pytest.approx(-(info["time_in_system"] + info["energy"]), rel=1e-12)
    rec = env.records()
    sc = env.scenario
    span = rec["finish"].max() - rec["arrival"].min()
    net = env.net
    area = env.ep.st.area + env.ep.st.busy * (span + rec["arrival"].min() - env.ep.st.last)
    finite = net.servers < 2**40
    idle = np.where(finite, net.servers * span - area, 0.0)
    nodes = float(np.sum(net.power_busy * area + net.power_idle * idle))
    assert energy == pytest.approx(nodes + rec["energy"].sum(), rel=1e-9)
    assert len(sc.nodes) == len(area)


def test_reset_with_a_seed_repeats_and_moves_on_without():
    env = ArenaEnv("p1_fog", tasks=300)
    first = drive(env, lambda o, i: int(np.flatnonzero(i["action_mask"])[0]), 9)
    again = drive(env, lambda o, i: int(np.flatnonzero(i["action_mask"])[0]), 9)
    assert first == again
    env.reset(seed=9)
    a = env.reset()[0]["task"].copy()  # episode 1 of seed 9
    b = env.reset(seed=9)[0]["task"].copy()  # episode 0 again
    assert not np.array_equal(a, b)


def test_horizon_episodes_hold_the_tasks_before_it():
    env = ArenaEnv("neutral", horizon=5.0)
    _, steps = drive(env, lambda o, i: 0, 1)
    rec = env.records()
    assert rec["arrival"].max() < 5.0 and steps == len(rec)
    longer = ArenaEnv("neutral", horizon=10.0)
    drive(longer, lambda o, i: 0, 1)
    assert np.array_equal(longer.records()["arrival"].to_numpy()[:steps], rec["arrival"])


def test_trace_deadlines_reach_the_observation_and_user_policies(tmp_path):
    trace = tmp_path / "tasks.csv"
    trace.write_text("time,source,size,deadline\n0.1,e1,0.05,0.4\n0.2,e1,0.05,\n0.3,e1,0.05,2.5\n")
    nodes = [{"id": "e1", "role": "edge", "servers": 1}, {"id": "e2", "role": "edge", "servers": 1}]
    sc = {
        "nodes": nodes,
        "links": [{"a": "e1", "b": "e2", "delay": 0.01}],
        "workload": [{"trace": str(trace)}],
    }
    env = ArenaEnv(sc, tasks=3)
    obs, info = env.reset(seed=0)
    seen = [obs["task"][4]]
    for _ in range(2):
        obs, *_ = env.step(0)
        seen.append(obs["task"][4])
    assert seen[0] == 0.4 and math.isinf(seen[1]) and seen[2] == 2.5

    @arena.policy(state=3)
    def keep_deadlines(task, cand, state, par, u, out):
        state[int(task[0] * 10 + 0.5) - 1] = task[4]
        out[0] = 0
        return 1

    # the policy's state is its own; read it back through a run of one replication
    from workbench.arena.compile import compile_scenario, draw_tasks
    from workbench.arena.kernels import Policy, engine
    from workbench.arena.simulation import _policy

    s = arena.scenario_from_dict(sc)
    ch = _policy(keep_deadlines, {}, "test")
    tk = draw_tasks(s, 3, 1, 2, 0)
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(3), np.zeros(4, np.int64))
    engine()(compile_scenario(s), tk, pol, 0, ch.user)
    assert pol.ustate[0] == 0.4 and math.isinf(pol.ustate[1]) and pol.ustate[2] == 2.5


def test_bad_actions_are_named_errors_and_the_task_waits():
    env = ArenaEnv("neutral", tasks=50)
    obs, info = env.reset(seed=0)
    task = info["task"]
    bad_actions = [(7, "out of range"), (-1, "out of range"), (4, "out of range"), (1.5, "int")]
    for bad, what in [*bad_actions, ("0", "int"), (True, "int")]:
        with pytest.raises(arena.PolicyError, match=f"ArenaEnv.step.*{what}"):
            env.step(bad)
    obs2, _, _, _, info2 = env.step(np.int64(0))  # the same task, still undecided, now placed
    assert info2["task"] == task + 1
    _, steps = drive(env, lambda o, i: 0, 0)
    assert steps == 50 and (env.records()["outcome"] != "lost").all()


def test_a_source_declared_size_known_shows_each_task_its_size():
    """``size_known: true`` on a source shows each task's size to the env (and a user
    policy); by default it is hidden (-1 in the observation)."""
    sc = mesh_scenario().model_dump()
    for known in (False, True):
        for w in sc["workload"]:
            w["size_known"] = known
        env = ArenaEnv(sc, tasks=20)
        obs, info = env.reset(seed=0)
        for _ in range(5):
            size = env.ep.tk.size[info["task"], 0]
            assert obs["task"][T_SIZE] == (size if known else -1.0) and size > 0
            obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_full_candidate_is_masked():
    sc = mesh_scenario(capacity=2, lam=4.0)
    env = ArenaEnv(sc, tasks=400)
    obs, info = env.reset(seed=1)
    masked, done = 0, False
    while not done:
        cand, mask = obs["cand"], info["action_mask"]
        n = int(np.sum(cand[C_SPEED] > 0))
        full = [a for a in range(n) if np.isfinite(cand[C_SERVERS, a]) and cand[C_QUEUE, a] >= 2]
        assert all(mask[a] == 0 for a in full) and mask[:n].any() and not mask[n:].any()
        masked += len(full)
        if full:
            with pytest.raises(arena.PolicyError, match="masked"):
                env.step(full[0])
        obs, _, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert masked > 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"observation": "image"}, "'observation' parameter of ArenaEnv"),
        ({"tasks": 0}, "'tasks' parameter of ArenaEnv"),
        ({"tasks": 10, "horizon": 1.0}, "not both"),
        ({"horizon": -1.0}, "'horizon' parameter of ArenaEnv"),
        ({"energy_weight": math.nan}, "'energy_weight' parameter of ArenaEnv"),
        ({"loss_penalty": -1.0}, "'loss_penalty' parameter of ArenaEnv"),
    ],
)
def test_bad_env_options_are_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        ArenaEnv("neutral", **kwargs)


def test_a_scenario_without_a_decision_is_refused():
    size = {"dist": "exponential", "mean": 0.1}
    one = {
        "nodes": [{"id": "e1", "role": "edge", "servers": 1}],
        "links": [],
        "workload": [{"source": "e1", "rate": 1.0, "size": size}],
    }
    with pytest.raises(ParameterError, match="no decision to make"):
        ArenaEnv(one)
    env = ArenaEnv("neutral", horizon=1e-6)
    with pytest.raises(ParameterError, match="no task arrives"):
        env.reset(seed=0)


def test_evaluate_pairs_the_agent_with_every_policy():
    from workbench.arena.baselines import first_available

    def to_cloud(obs, mask):  # the cloud, the last candidate: the tasks of policy "cloud"
        return int(np.sum(obs["cand"][C_SPEED] > 0)) - 1

    three = ["local", "jsq", "cloud"]
    frame = arena.evaluate(to_cloud, "neutral", tasks=1_000, replications=6, seed=2, policies=three)
    assert list(frame["policy"]) == ["agent", "local", "jsq", "cloud"]
    for col in ("winner", "tied_with", "margin", "margin_low", "margin_high", "vs_agent"):
        assert col in frame.columns
    rows = frame.set_index("policy")
    assert rows.loc["cloud", "mean_delay"] == rows.loc["agent", "mean_delay"]
    assert rows.loc["cloud", "vs_agent"] == 0.0
    # the same tasks, so the pairs separate jsq and local from the agent
    assert rows.loc["jsq", "vs_agent_low"] > 0 and rows.loc["local", "vs_agent_low"] > 0
    assert (frame["winner"] == "").all() and set(frame["tied_with"].iloc[0].split(", ")) == {
        "agent",
        "cloud",
    }
    with pytest.raises(ParameterError, match="'agent' parameter of evaluate"):
        arena.evaluate(42, "neutral", tasks=100, replications=2)
    for bad in (["x"], object(), [["jsq"]]):  # the API fuzz found the last two raw
        with pytest.raises(ParameterError, match="'policies' parameter of evaluate"):
            arena.evaluate(first_available, "neutral", tasks=100, replications=2, policies=bad)
    with pytest.raises(ParameterError, match="'tasks' parameter of evaluate"):
        arena.evaluate(first_available, "neutral", tasks=None, replications=2)


def test_a_batch_row_is_the_env_episode_of_its_replication():
    """Row ``b`` of a BatchEnv steps the tasks of replication ``b`` (then ``b + size``, as
    its next episode starts in place) exactly as an ArenaEnv does, reward for reward."""
    from workbench.arena.env import BatchEnv

    size, n = 3, 120
    batch = BatchEnv("neutral", size=size, tasks=n)
    _, info = batch.reset(seed=4)
    rows = [[] for _ in range(size)]
    for _ in range(2 * n):  # every row finishes its first episode and runs its second
        # the first unmasked candidate of each row: a row's action depends on its state
        _, rewards, done, _, info = batch.step(info["action_mask"].argmax(axis=1))
        for b in range(size):
            rows[b].append(rewards[b])
        assert done.sum() in (0, size)  # episodes of equal length end together
    env = ArenaEnv("neutral", tasks=n)
    for b in range(size):
        want = []
        for e in (b, b + size):
            env.reset(seed=4)
            for _ in range(e):
                env.reset()
            info, done = {"action_mask": env.ep.mask.copy()}, False
            while not done:
                _, r, done, _, info = env.step(int(info["action_mask"].argmax()))
                want.append(r)
        assert rows[b] == want
