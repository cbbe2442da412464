"""The arena as a PettingZoo parallel env (``workbench.arena.multi``): PettingZoo's API test,
the same records as ``simulate`` when the agents act as a built-in policy, the per-agent
returns against the records, seeds, and the named errors."""

import math

import numpy as np
import pandas as pd
import pytest
from pettingzoo.test import parallel_api_test
from test_arena_env import engine_records

from workbench import arena
from workbench.arena.kernels import R_TASK
from workbench.arena.multi import ArenaParallelEnv
from workbench.arena.studies import mesh_scenario
from workbench.validation import ParameterError


def play(env, choose, seed):
    """An episode with ``choose(agent, obs) -> action``; each agent's return and the steps."""
    obs, _ = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        actions = {a: choose(a, obs[a]) for a in env.agents}
        obs, rewards, terminated, truncated, _ = env.step(actions)
        for a, r in rewards.items():
            returns[a] += r
        assert not any(truncated.values())
        steps += 1
    assert all(terminated.values())
    return returns, steps


def test_parallel_api_test_passes():
    parallel_api_test(ArenaParallelEnv("neutral", tasks=300, slot=0.05), num_cycles=1000)


@pytest.mark.parametrize(
    ("scenario", "policy", "pick"),
    [("neutral", "local", 0), ("neutral", "cloud", -1), ("mesh_small", "cloud", -1)],
)
def test_agents_acting_as_a_policy_give_its_records_bit_for_bit(scenario, policy, pick):
    sc = mesh_scenario(capacity=2, lam=4.0) if scenario == "mesh_small" else scenario
    n, seed = 1_200, 7
    env = ArenaParallelEnv(sc, tasks=n, slot=0.05)
    _, steps = play(env, lambda a, o: pick % o["cand"].shape[1], seed)
    assert steps > 10  # many slots, so their boundaries are in the comparison
    pd.testing.assert_frame_equal(
        env.records(), engine_records(sc, policy, n, seed), check_exact=True
    )


def test_each_return_is_minus_its_own_tasks_time_in_system():
    sc = mesh_scenario(capacity=2, lam=4.0, cloud=False)  # small rooms: tasks are lost
    env = ArenaParallelEnv(sc, tasks=2_000, slot=0.2, loss_penalty=0.5)
    rng = np.random.default_rng(1)
    returns, _ = play(env, lambda a, o: int(rng.choice(np.flatnonzero(o["action_mask"]))), 3)
    rec = env.records()
    lost = (rec["outcome"] == "lost").to_numpy()
    assert 0 < lost.sum() < len(rec)
    t_lost = env.ep.st.t_lost
    leave = np.where(lost, t_lost[: len(rec)], rec["finish"])
    charge = leave - rec["arrival"] + 0.5 * lost
    for agent in env.possible_agents:
        mine = (rec["source"] == agent).to_numpy()
        assert mine.sum() > 0
        assert returns[agent] == pytest.approx(-charge[mine].sum(), rel=1e-9)
    team = ArenaParallelEnv(sc, tasks=2_000, slot=0.2, loss_penalty=0.5, reward="team")
    rng = np.random.default_rng(1)
    shared, _ = play(team, lambda a, o: int(rng.choice(np.flatnonzero(o["action_mask"]))), 3)
    for agent in env.possible_agents:
        assert shared[agent] == pytest.approx(sum(returns.values()), rel=1e-9)


def test_reset_with_a_seed_repeats():
    env = ArenaParallelEnv("neutral", tasks=400)
    first = play(env, lambda a, o: 0, 5)
    again = play(env, lambda a, o: 0, 5)
    assert first == again
    other = play(env, lambda a, o: 0, 6)
    assert other != first


def test_the_observation_is_each_agents_candidates():
    env = ArenaParallelEnv("neutral", tasks=300)
    obs, _ = env.reset(seed=0)
    assert env.possible_agents == ["e1", "e2", "e3", "e4"]
    cand = obs["e1"]["cand"]
    # e1 itself, its ring neighbours e2 and e4 (equal delays: by index), then the cloud
    assert cand[0].tolist() == [0, 1, 3, 4]
    assert math.isinf(cand[2, 3]) and cand[4, 0] == 0.0 and cand[4, 3] == 0.05
    assert all(env.observation_space(a).contains(obs[a]) for a in env.agents)


def test_bad_actions_are_named_and_no_task_moves():
    sc = mesh_scenario(capacity=2, lam=4.0)
    env = ArenaParallelEnv(sc, tasks=600, slot=0.3)
    obs, _ = env.reset(seed=2)
    first = {a: 0 for a in env.agents}
    pending = int(env.ep.st.reg[R_TASK])
    cases = [
        ({a: 0 for a in env.agents[1:]}, "no action for the agents \\['e0'\\]"),
        ({**first, "x": 0}, "unknown agent 'x'"),
        ({**first, "e1": 9}, "action 9 of agent 'e1' is out of range"),
        ({**first, "e1": 0.5}, "agent 'e1' must be an int"),
        ([0, 0, 0], "must be a dict"),
    ]
    for actions, match in cases:
        with pytest.raises(arena.PolicyError, match=match):
            env.step(actions)
        assert int(env.ep.st.reg[R_TASK]) == pending  # nothing ran
    masked = 0
    while env.agents:
        valid = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        for a in env.agents:
            full = np.flatnonzero(obs[a]["action_mask"] == 0)
            if len(full):
                masked += 1
                pending = int(env.ep.st.reg[R_TASK])
                with pytest.raises(arena.PolicyError, match=f"agent '{a}' is masked"):
                    env.step({**valid, a: int(full[0])})
                assert int(env.ep.st.reg[R_TASK]) == pending
        obs, *_ = env.step(valid)
    assert masked > 0
    assert len(env.records()) == 600  # every task placed: served or lost by the model
    with pytest.raises(ParameterError, match="call reset"):
        env.step(first)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"slot": 0.0}, "'slot' parameter of ArenaParallelEnv"),
        ({"reward": "mine"}, "'reward' parameter of ArenaParallelEnv"),
        ({"tasks": 0}, "'tasks' parameter of ArenaEnv"),
    ],
)
def test_bad_options_are_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        ArenaParallelEnv("neutral", **kwargs)


def room_rule(net, n_in, cand):
    """Slow twin of ``policies.room_mask``: the candidates with servers and room, or every
    one when none has room."""
    room = (n_in[cand] < net.capacity[cand]) & (net.servers[cand] > 0)
    return (room if room.any() else np.ones(len(cand), bool)).astype(np.int8)


def test_each_slots_masks_follow_the_room_rule():
    env = ArenaParallelEnv(mesh_scenario(capacity=2, lam=4.0), tasks=600, slot=0.3)
    obs, _ = env.reset(seed=2)
    partial = 0
    while env.agents:
        for j, a in enumerate(env.agents):
            want = room_rule(env.net, env.ep.st.n_in, env._cands[j])
            np.testing.assert_array_equal(obs[a]["action_mask"], want)
            partial += 0 < want.sum() < len(want)
        obs, *_ = env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
    assert partial > 0


SERVERLESS_CLOUD = {
    "name": "serverless_cloud",
    "nodes": [
        {"id": "A", "role": "edge", "servers": 1, "capacity": 1},
        {"id": "c", "role": "cloud", "servers": 0},
    ],
    "links": [{"a": "A", "b": "c", "delay": 0.01}],
    "workload": [{"source": "A", "rate": 5.0, "size": {"dist": "exponential", "mean": 1.0}}],
}


def test_both_envs_mask_a_cloud_without_servers_by_one_rule():
    # the cloud never has room (the engine loses a task placed there); with A full too, no
    # candidate has room, and both are open
    single = arena.ArenaEnv(SERVERLESS_CLOUD, tasks=40)
    multi = ArenaParallelEnv(SERVERLESS_CLOUD, tasks=40, slot=0.05)
    _, info = single.reset(seed=0)
    seen = set()
    while True:
        want = room_rule(single.net, single.ep.st.n_in, np.array([0, 1]))
        assert info["action_mask"].tolist() == want.tolist()
        seen.add(tuple(want))
        _, _, done, _, info = single.step(0)
        if done:
            break
    obs, _ = multi.reset(seed=0)
    while multi.agents:
        want = room_rule(multi.net, multi.ep.st.n_in, np.array([0, 1]))
        assert obs["A"]["action_mask"].tolist() == want.tolist()
        seen.add(tuple(want))
        obs, *_ = multi.step({"A": 0})
    assert seen == {(1, 0), (1, 1)}
