"""The arena's engine on the held-out mutants of ``workbench/arena/kernels.py`` that the
engine's tests let survive (``benchmarks/mutation.py arena_kernels``, session 11): an empty
queue at a node that has never queued, more copies in service at once than tasks plus
copies, and a user policy that returns a count without writing its answer. Each oracle is
a run worked out by hand, the recording twin (tests/naive_arena.py) or the documented
initial state.
"""

import numpy as np
import pytest
from naive_arena import RecordingTwin, device_to_unbounded_edge

from workbench import arena
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import Policy, engine
from workbench.arena.simulation import _policy, checked_net


def _local_run(nodes, links, t, node, size):
    """``local`` tasks at times ``t`` at nodes ``node`` (indices into ``nodes``) of work
    ``size`` (speed 1, no input bits: a move takes its links' delay): the engine's output."""
    work = [
        {"source": x["id"], "rate": 1.0, "size": {"dist": "exponential", "mean": 1.0}}
        for x in nodes
    ]
    sc = arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})
    net = checked_net(sc, "test")
    n = len(t)
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(0))
    node = np.array(node, np.int64)
    tk = tk._replace(t=np.array(t, float), node=node, source=node.copy())
    tk = tk._replace(size=np.array(size, float)[:, None], bits=np.zeros(n))
    ch = _policy("local", {}, "test")
    return net, tk, engine()(net, tk, Policy(ch.code, ch.par), 0, ch.user)


def test_a_server_freed_at_a_node_that_never_queued_takes_no_copy_from_another_node():
    """A device ``d`` (no servers) sends its tasks to its home ``a`` over a link of 1 s;
    ``b`` is another one-server edge. Task 0 (copy 0, work 2) leaves ``d`` at 0 and reaches
    ``a`` at 1, where task 1 (work 10, at ``a`` since 0.5) holds the server: copy 0 waits
    there until 10.5 and ends at 12.5. Task 2 (work 1) is served at ``b`` in [2, 3]: ``b``'s
    queue has always been empty, so its freed server takes nothing (copy 0 waits at ``a``,
    not at ``b``)."""
    nodes = [
        {"id": "d", "role": "device", "servers": 0},
        {"id": "a", "role": "edge", "servers": 1},
        {"id": "b", "role": "edge", "servers": 1},
    ]
    links = [{"a": "d", "b": "a", "delay": 1.0}, {"a": "a", "b": "b", "delay": 5.0}]
    net, tk, out = _local_run(nodes, links, [0.0, 0.5, 2.0], [0, 1, 2], [2.0, 10.0, 1.0])
    finish, where, start = out[0], out[1], out[8]
    assert list(where) == [1, 1, 2]
    np.testing.assert_allclose(start, [10.5, 0.5, 2.0], rtol=1e-12)
    np.testing.assert_allclose(finish, [12.5, 10.5, 3.0], rtol=1e-12)


def test_more_copies_in_service_than_tasks_plus_copies():
    """replicate (m = 2, cancelled on finish) from a device to its home ``a``, an edge of
    unbounded servers (one copy per idle server: both copies go there): 20 tasks arrive
    within a fraction of a second and each copy is served for about 10 s, so nearly all
    40 copies are in service at once, each with its departure pending: more events than
    ``n + m + 2`` = 24 are pending, fewer than ``n * m + 2`` = 42, the most there can be
    (each copy has at most one). Every output equals the twin's, and each task ends when
    its shorter copy does, 0.01 s (the link) plus its smaller work after its arrival."""
    sc = arena.scenario_from_dict(device_to_unbounded_edge("a", 0.01, 100.0, 10.0))
    net = checked_net(sc, "test")
    ch = _policy("replicate", {"m": 2}, "test")
    n = 20
    tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(1))
    tk = tk._replace(bits=np.zeros(n))
    out = engine()(net, tk, Policy(ch.code, ch.par), 0, ch.user)
    twin = RecordingTwin(net, tk, "replicate", m=2).run()
    for name, a, b in zip(("finish", "where", "copies"), out[:3], twin[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=name)
    assert (out[1] == 1).all() and (out[2] == 2).all()
    ends = tk.t + 0.01 + tk.size.min(axis=1)
    np.testing.assert_allclose(out[0], ends, rtol=1e-12)
    x = tk.t[-1] + 0.01  # every copy has reached ``a``: both copies of a task in service
    assert 2 * (ends > x).sum() > n + 2 + 2


def test_a_user_policy_that_leaves_its_answer_unwritten_is_refused():
    """``out`` holds -1 at each call (policies' docstring): a decision function that returns
    1 without writing ``out[0]`` answers candidate -1, outside the candidates, at its first
    decision, and at a later one too: one that writes a valid answer for the first 4 tasks
    and then stops writing does not reuse the 4th answer left in the buffer. The run stops
    (``pol.err``: kind 2, the value -1, the task, the count of candidates), as the twin's
    run of the same choice would have nothing to place."""
    nodes = [{"id": "a", "role": "edge", "servers": 1}, {"id": "b", "role": "edge"}]
    links = [{"a": "a", "b": "b", "delay": 0.1}]
    size = {"dist": "exponential", "mean": 0.5}
    work = [{"source": x, "rate": 1.0, "size": size} for x in ("a", "b")]
    sc = arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})
    net = checked_net(sc, "test")

    def silent(task, cand, state, par, u, out):
        return 1

    def four_then_silent(task, cand, state, par, u, out):
        state[0] += 1.0
        if state[0] <= 4.0:
            out[0] = 0
        return 1

    n = 30
    for decide, stop in ((silent, 0), (four_then_silent, 4)):
        ch = _policy(arena.policy(state=1)(decide), {}, "test")
        tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(2))
        pol = Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))
        engine()(net, tk, pol, 0, ch.user)
        # node b has the default one server: each node's candidates are itself and the other
        assert pol.err.tolist() == [2, stop, -1, 2], decide.__name__


def test_an_unwritten_answer_is_named_in_the_users_error():
    """Through ``simulate``: the error names the policy, the task and candidate -1."""

    def silent(task, cand, state, par, u, out):
        return 1

    nodes = [{"id": "a", "role": "edge", "servers": 1}]
    sc = arena.scenario_from_dict(
        {
            "nodes": nodes,
            "workload": [
                {"source": "a", "rate": 1.0, "size": {"dist": "exponential", "mean": 0.5}}
            ],
        }
    )
    with pytest.raises(arena.PolicyError, match=r"'silent' chose candidate -1 for task 0 "):
        arena.simulate(scenario=sc, policy=arena.policy(silent), requests=100, seed=1)
