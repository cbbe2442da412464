"""The learning notebook's agent and comparison: ``arena.agents.DelayAgent`` (its choice
kernel against a slow twin, what it learns against closed forms, its export as a compiled
policy) and ``arena.baselines.versus`` / ``agent_table`` / ``kept_point``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from naive_arena import delay_agent_choice

from workbench import arena
from workbench.arena.agents import KINDS, DelayAgent, QAgent, _least
from workbench.arena.baselines import VERDICTS, agent_table, first_available, kept_point, versus
from workbench.arena.env import ArenaEnv
from workbench.arena.policies import C_SPEED
from workbench.arena.studies import map_scenario
from workbench.validation import ParameterError


def _to_cloud(obs, mask):  # the cloud is the last present candidate
    return int(np.sum(obs["cand"][C_SPEED] > 0)) - 1


def test_least_matches_its_slow_twin_on_random_states():
    rng = np.random.default_rng(7)
    bins = np.array([0.25, 0.5, 1.0, 2.0])
    for _ in range(400):
        n = int(rng.integers(1, 6))
        cand = np.zeros((6, n + 1))
        cand[0, :n] = rng.integers(0, 4, n)  # node index (some equal to the deciding node)
        cand[1, :n] = rng.integers(0, 12, n)  # tasks held
        cand[2, :n] = rng.integers(1, 5, n)
        cand[3, :n] = rng.choice([0.5, 1.0, 2.0], n)
        cloud = 9.0
        if rng.random() < 0.6:  # a cloud, last, with unbounded or finite servers
            cand[0, n - 1] = cloud
            cand[2, n - 1] = np.inf if rng.random() < 0.5 else 8.0
        table = rng.integers(0, 6, len(KINDS) * (bins.size + 1)).astype(float)  # many equals
        mask = (rng.random(n + 1) < 0.7).astype(np.int8)
        node = float(rng.integers(0, 4))
        want = delay_agent_choice(table, cand, n, node, cloud, bins, mask)
        assert _least(table, cand, n, node, cloud, bins, mask, True) == want
        assert _least(table, cand, n, node, cloud, bins, mask, False) == delay_agent_choice(
            table, cand, n, node, cloud, bins
        )


def test_it_learns_the_delays_of_the_closed_forms_and_chooses_the_cloud():
    """Neutral scenario: the cloud (infinite servers, speed 4, 50 ms, 10^5 bits at 1 Gbit/s)
    takes 0.05 + 1e-4 + 0.1/4 = 0.0751 s on average whatever its load; an idle edge server
    (backlog bin 0) takes the task's size, 0.1 s on average (exponential). The agent's cells
    must find both, and its greedy choice is then always the cloud."""
    env = ArenaEnv("neutral", tasks=1_000)
    agent = DelayAgent(env, epsilon=0.6, seed=3)
    agent.train(4, seed=11, progress=False)
    width = agent.bins.size + 1
    cloud, own_idle = agent.table[2 * width], agent.table[0]
    n_cloud, n_own = agent.counts[2 * width], agent.counts[0]
    assert n_cloud > 500 and n_own > 100
    assert abs(cloud - 0.0751) < 4 * 0.025 / np.sqrt(n_cloud)  # sd of size/4: 0.025
    assert abs(own_idle - 0.1) < 4 * 0.1 / np.sqrt(n_own)  # sd of an exponential size: 0.1
    assert agent.decisions == 4_000 and len(agent.curve) == 4
    obs, info = env.reset(seed=5)
    chosen, done = [], False
    while not done:
        a = agent(obs, info["action_mask"])
        chosen.append(a == _to_cloud(obs, info["action_mask"]))
        obs, _, done, _, info = env.step(a)
    assert all(chosen)


def test_training_is_reproducible_from_its_seeds():
    def trained(seed):
        agent = DelayAgent(ArenaEnv("neutral", tasks=300), seed=seed)
        agent.train(2, seed=1, progress=False)
        return agent.table.copy(), list(agent.curve)

    a, b, c = trained(4), trained(4), trained(5)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]
    assert not np.array_equal(a[0], c[0])


def test_the_exported_policy_makes_the_agents_choices_in_the_engine():
    """The compiled policy's decision on an observed state equals the agent's, and on the
    same tasks simulate gives the agent's delays through the env, replication by
    replication (no node fills up on this scenario)."""
    sc = map_scenario(0.7, 0.01, 1.0, cloud_rtt=0.1)
    agent = DelayAgent(ArenaEnv(sc, tasks=500), seed=0)
    agent.train(3, seed=1, progress=False)
    pol = agent.policy()
    env = ArenaEnv(sc, tasks=300)
    obs, info = env.reset(seed=2)
    done, state, par, u, out = False, np.zeros(1), np.zeros(0), np.zeros(2), np.zeros(4, np.int64)
    while not done:
        n = int(np.sum(obs["cand"][C_SPEED] > 0))
        assert pol.decide(obs["task"], obs["cand"][:, :n].copy(), state, par, u, out) == 1
        a = agent(obs, np.ones(n, np.int8))
        assert out[0] == a
        obs, _, done, _, info = env.step(agent(obs, info["action_mask"]))
    frame = arena.evaluate(agent, sc, tasks=400, replications=3, seed=6, policies=["cloud"])
    r = arena.simulate(
        scenario=sc, policy=pol, requests=400, replications=3, seed=6, overload="transient"
    )
    through_env = frame.filter(like="mean_delay@").iloc[0].to_numpy()
    assert np.array_equal(r.frame["mean_delay"].to_numpy(), through_env)


def _frame(gains):
    """An evaluate-shaped frame: the agent, then one policy per (low, high) interval."""
    names = ["red", "jsq", "threshold", "cloud", "replicate"][: len(gains)]
    rows = [("agent", 0.0, 0.0, 0.0)] + [
        (p, (lo + hi) / 2, lo, hi) for p, (lo, hi) in zip(names, gains, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["policy", "vs_agent", "vs_agent_low", "vs_agent_high"])
    return frame.assign(
        scenario="s",
        mean_delay=0.1 + frame["vs_agent"],
        loss_share=0.0,
        contender=True,
        winner="",
        tied_with="agent, cloud",
    )


def test_versus_names_a_faster_side_only_outside_the_interval():
    frame = _frame([(0.01, 0.02), (-0.02, -0.01), (0.0, 0.03), (-0.01, 0.01), (-0.03, 0.0)])
    out = versus(frame).set_index("policy")
    assert out.loc["red", "verdict"] == "agent faster"
    assert out.loc["jsq", "verdict"] == "policy faster"
    for tied in ("threshold", "cloud", "replicate"):  # an end at 0 does not exclude 0
        assert out.loc[tied, "verdict"] == "tied"
    assert set(out["verdict"]) <= set(VERDICTS)
    assert (out["point"] == "tied: agent, cloud").all()
    assert (out["agent_delay"] == 0.1).all()
    # the published mechanisms first, by paper, then the classic baselines
    assert list(versus(frame)["policy"]) == ["threshold", "replicate", "red", "jsq", "cloud"]
    with pytest.raises(ParameterError, match="'label' parameter of versus"):
        versus(frame, "nobody")
    with pytest.raises(ParameterError, match="'frame' parameter of versus"):
        versus(frame.drop(columns="vs_agent_low"))


def test_agent_table_pairs_each_scenario_on_common_random_numbers():
    """The agent that sends every task to the cloud sees the tasks of policy ``cloud``: the
    paired gain is exactly 0 (tied); ``local`` on the same tasks is slower."""
    runs = {"one": (_to_cloud, "neutral"), "two": (first_available, "neutral")}
    table = agent_table(runs, tasks=1_000, replications=5, seed=4, policies=["local", "cloud"])
    one = table[table["scenario"] == "one"].set_index("policy")
    assert one.loc["cloud", "gain"] == 0.0 and one.loc["cloud", "verdict"] == "tied"
    assert one.loc["local", "verdict"] == "agent faster"
    two = table[table["scenario"] == "two"].set_index("policy")  # first_available: local's
    assert two.loc["local", "gain"] == 0.0 and two.loc["cloud", "verdict"] == "policy faster"
    assert set(table.attrs["frames"]) == {"one", "two"}
    for name in runs:  # each scenario at the seed given: simulate's replications
        cloud = arena.simulate(
            scenario="neutral", policy="cloud", requests=1_000, replications=5, seed=4, warmup=0.1
        )
        frame = table.attrs["frames"][name].set_index("policy")
        assert frame.loc["cloud", "mean_delay"] == pytest.approx(cloud.mean_delay, rel=1e-12)
    with pytest.raises(ParameterError, match="'runs' parameter of agent_table"):
        agent_table({"x": _to_cloud})


def test_kept_point_reads_the_kept_map():
    at = kept_point(0.85, 0.01, 1.0, 0.1)
    assert len(at) == 8 and at["mean_delay"].is_monotonic_increasing
    assert at.loc[0, "policy"] == "threshold" and (at["winner"] == "threshold").all()
    assert dict(zip(at["policy"], at["paper"], strict=True))["red"] == "p5"
    with pytest.raises(ParameterError, match="not a point of the kept map"):
        kept_point(0.8, 0.01, 1.0, 0.1)


def test_bad_input_is_named():
    env = ArenaEnv("neutral", tasks=50)
    with pytest.raises(ParameterError, match="'env' parameter of DelayAgent"):
        DelayAgent("neutral")
    with pytest.raises(ParameterError, match="'bins' parameter of DelayAgent"):
        DelayAgent(env, bins=(1.0, 0.5))
    for agent in (DelayAgent, QAgent):  # ragged bins (found by the API fuzz)
        with pytest.raises(ParameterError, match=f"'bins' parameter of {agent.__name__}"):
            agent(env, bins=[[1, 2], [3]])
    with pytest.raises(ParameterError, match="epsilon"):
        DelayAgent(env, epsilon=1.5)
    with pytest.raises(ParameterError, match="episodes"):
        DelayAgent(env).train(0)
