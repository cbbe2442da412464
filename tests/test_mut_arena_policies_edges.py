"""The arena's policies at the edges of a scenario's ranges: mutants of
``workbench/arena/policies.py`` that the engine's tests and the twin tests on ordinary nodes
let survive (``benchmarks/mutation.py arena_policies``).

- the room rule of the learning environments' action mask (:func:`room_mask`), against its
  rule in words (tests/naive_arena.py ``room_mask``), on every state of a small scenario;
- neighbours with unbounded servers (``servers: .inf``) or service that takes no time
  (``speed: .inf``), and tasks of size zero: the estimated wait is then zero, a rule the
  twin (tests/naive_arena.py) states in one line and the engine in three branches;
- the table's declared copies and uniforms, read from its rules in words.
"""

import itertools

import numpy as np
import pytest
from naive_arena import Twin, room_mask_twin

from workbench import arena
from workbench.arena import kernels as K
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import Policy, engine
from workbench.arena.policies import TABLE, room_mask
from workbench.arena.simulation import POLICIES, _policy, checked_net

CLOUD = {"id": "cloud", "role": "cloud", "servers": ".inf", "speed": 1.5}


def _scenario(nodes, links, work, size=None):
    size = size or {"dist": "exponential", "mean": 0.1}
    work = [{"source": x, "rate": r, "size": size} for x, r in work]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _rooms():
    """A device, two small edges (one of them fills up), an edge with unbounded servers and
    the cloud: every kind of candidate the room rule meets."""
    nodes = [
        {"id": "dev", "role": "device", "servers": 0},
        {"id": "a", "role": "edge", "servers": 1, "capacity": 2},
        {"id": "b", "role": "edge", "servers": 2, "capacity": 3},
        {"id": "u", "role": "edge", "servers": ".inf"},
        CLOUD,
    ]
    links = [{"a": "dev", "b": x, "delay": 0.001} for x in "abu"]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abu"]
    return _scenario(nodes, links, [("dev", 5.0)])


def test_room_mask_marks_the_candidates_with_room_or_all_when_none_has_room():
    net = checked_net(_rooms(), "test")
    st = K.new_state(len(net.servers), 4, 2, 4, 1)
    nodes = np.array([0, 1, 2, 4, 3, 1], dtype=np.int64)  # the device, a, b, the cloud, u, a
    seen = set()
    for held in itertools.product(range(3), range(4), (0, 10**6)):
        st.n_in[1], st.n_in[2], st.n_in[3] = held
        for n in range(nodes.size + 1):
            for width in (n, nodes.size + 2):
                mask = np.full(width, 7, dtype=np.int8)
                room_mask(net, st, nodes, n, mask)
                want = room_mask_twin(net, st.n_in, nodes, n, width)
                assert mask.tolist() == want, (held, n, width)
                seen.add(sum(want[:n]) == n)
    assert seen == {True, False}  # masks with some candidates and with all of them


def _unbounded():
    """A device homed at a one-server edge ``a``; its other neighbours are an edge with
    unbounded servers ``u`` (far), an edge whose service takes no time ``z`` (farther) and
    a slow edge ``s`` (near): the estimated wait at ``u`` and ``z`` is zero however much they
    hold, at ``s`` it grows with its queue."""
    nodes = [
        {"id": "dev", "role": "device", "servers": 0},
        {"id": "a", "role": "edge", "servers": 1, "capacity": 4},
        {"id": "u", "role": "edge", "servers": ".inf", "speed": 0.5},
        {"id": "z", "role": "edge", "servers": 1, "speed": ".inf", "capacity": 3},
        {"id": "s", "role": "edge", "servers": 1, "speed": 0.25, "capacity": 6},
        CLOUD,
    ]
    links = [
        {"a": "dev", "b": "a", "delay": 0.001},
        {"a": "dev", "b": "u", "delay": 0.03},
        {"a": "dev", "b": "z", "delay": 0.04},
        {"a": "dev", "b": "s", "delay": 0.002},
        {"a": "a", "b": "u", "delay": 0.03},
        {"a": "a", "b": "z", "delay": 0.04},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "auzs"]
    return _scenario(nodes, links, [("dev", 30.0), ("a", 5.0)])


def _zero_size():
    """Tasks of size zero at an edge ``a`` (its estimated wait counts no work ahead)."""
    nodes = [
        {"id": "a", "role": "edge", "servers": 1, "capacity": 3},
        {"id": "b", "role": "edge", "servers": 2, "capacity": 4},
        CLOUD,
    ]
    links = [{"a": "a", "b": "b", "delay": 0.002}]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "ab"]
    size = {"dist": "deterministic", "value": 0.0}
    return _scenario(nodes, links, [("a", 40.0)], size=size)


SCENARIOS = {"unbounded": _unbounded, "zero_size": _zero_size}
CASES = [
    ("unbounded", "threshold", {"theta": 0.05, "e_max": 2}),
    ("unbounded", "threshold", {"theta": 0.0, "e_max": 1}),
    ("unbounded", "hedge_cache", {"cache_size": 0, "deadline": 0.02}),
    ("unbounded", "jsq", {}),
    ("unbounded", "power_of_d", {"d": 3}),
    ("unbounded", "replicate", {"m": 3}),
    ("zero_size", "threshold", {"theta": 0.0, "e_max": 1}),
    ("zero_size", "hedge_cache", {"cache_size": 0, "deadline": 0.0}),
]


def _engine_and_twin(sc, name, params, seed):
    """Run 1,500 tasks of ``sc`` through the engine and the slow twin under policy ``name``,
    check that both place and finish every task alike, and return the engine's run."""
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 1500, ch.copies, ch.uniforms, np.random.default_rng(seed))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where_ = engine()(net, tk, pol, 0, ch.user)[:2]
    if name == "replicate":
        twin = Twin(net, tk, name, m=params["m"])
    else:
        full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
        twin = Twin(net, tk, name, **full)
    t_finish, t_where = twin.run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    return net, tk, finish, where_


@pytest.mark.parametrize(("where", "name", "params"), CASES)
def test_policies_where_a_wait_is_zero_equal_their_slow_twin(where, name, params):
    sc = SCENARIOS[where]()
    net, tk, finish, where_ = _engine_and_twin(sc, name, params, 3)
    home = net.home[tk.node]
    if where == "zero_size":  # no work ahead, ever: every task stays at its home
        assert np.array_equal(where_, home)
    else:  # the comparison has something to compare: tasks leave for another edge
        assert ((where_ >= 0) & (where_ != home) & (where_ != net.cloud)).mean() > 0.05


def test_the_table_declares_what_each_rule_draws_and_copies():
    """Read from the rules in words: power of d draws d uniforms, overflow two (the coin and
    the neighbour), random one, and the rest at most two; replicate makes m copies, the
    hedge two, every other policy one."""
    spec = {s.name: s for s in TABLE}
    assert spec["power_of_d"].uniforms == "d" and spec["replicate"].copies == "m"
    assert spec["hedge_cache"].copies == 2
    assert {s.name for s in TABLE if s.copies == 1} == set(spec) - {"replicate", "hedge_cache"}
    assert spec["overflow"].uniforms == 2 and spec["random"].uniforms >= 1
    # a policy with one copy and its uniforms: the task's row of uniforms is that wide
    ch = _policy("overflow", {"p": 0.5}, "test")
    assert (ch.copies, ch.uniforms) == (1, 2)


# --- what a user policy sees, and what the engine records of a wrong answer -----------------

WATCH = 5  # the decision whose view is kept (0-based)


@arena.policy(state=64, copies=2)
def _watcher(task, cand, state, par, u, out):
    """Keeps the view of decision WATCH: the task's fields, the number of candidates and
    their rows; places every task at its first candidate (one copy of the two it may
    make: each copy has its own size, and the view shows the first's)."""
    if state[0] == WATCH:
        for f in range(7):
            state[1 + f] = task[f]
        state[8] = cand.shape[1]
        for r in range(6):
            for a in range(cand.shape[1]):
                state[9 + 6 * a + r] = cand[r, a]
    state[0] += 1
    out[0] = 0
    return 1


def _viewed(cloud="last"):
    """A device sending 2 kbit tasks with a deadline and typed, to an edge of 100 servers,
    an edge of unbounded servers and the cloud (listed last, first or absent), over links of
    finite bandwidth."""
    nodes = [
        {"id": "dev", "role": "device", "servers": 0},
        {"id": "a", "role": "edge", "servers": 100, "speed": 2.0, "capacity": 300},
        {"id": "u", "role": "edge", "servers": ".inf", "speed": 0.5},
    ]
    links = [
        {"a": "dev", "b": "a", "delay": 0.001, "bandwidth": 1e6},
        {"a": "dev", "b": "u", "delay": 0.003, "bandwidth": 4e5},
    ]
    if cloud != "none":
        nodes = [*nodes, CLOUD] if cloud == "last" else [CLOUD, *nodes]
        links += [
            {"a": "a", "b": "cloud", "delay": 0.05, "bandwidth": 1e7},
            {"a": "u", "b": "cloud", "delay": 0.05},
        ]
    work = [
        {
            "source": "dev",
            "rate": 20.0,
            "size": {"dist": "exponential", "mean": 0.1},
            "input_bits": 2000.0,
            "deadline": 0.25,
            "types": {"count": 5, "zipf": 1.0},
        }
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _run_user(sc, user, n=40, known=None):
    ch = _policy(user, {}, "test")
    net = checked_net(sc, "test")
    if known is not None:
        net = net._replace(size_known=np.full(net.size_known.shape, known, np.int64))
    tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(2))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(64), np.zeros(4, np.int64))
    where = engine()(net, tk, pol, 0, ch.user)[1]
    return net, tk, pol, where


@pytest.mark.parametrize(("known", "cloud"), [(1, "last"), (0, "first"), (1, "none")])
def test_a_user_policy_sees_the_task_and_its_candidates_as_documented(known, cloud):
    sc = _viewed(cloud)
    net, tk, pol, _ = _run_user(sc, _watcher, known=known)
    s, i = pol.ustate, WATCH
    k = int(tk.node[i])
    assert s[1:8].tolist()[:5] == [tk.t[i], tk.t[i], tk.source[i], tk.kind[i], 0.25]
    assert (s[6] == tk.size[i, 0]) if known else np.isnan(s[6])
    assert s[7] == k == sc.index("dev") and tk.bits[i] == 2000.0 and 0 <= tk.kind[i] < 5
    cands = [sc.index("a"), sc.index("u")]  # the serving neighbours, then the cloud
    cands += [net.cloud] if cloud != "none" else []
    assert (net.cloud == -1) == (cloud == "none")
    assert s[8] == len(cands)
    rows = s[9 : 9 + 6 * len(cands)].reshape(len(cands), 6)
    for a, b in enumerate(cands):
        servers = {sc.index("a"): 100.0}.get(b, np.inf)
        want = [b, rows[a, 1], servers, net.speed[b], net.delay[k, b], 2000.0 * net.invbw[k, b]]
        assert rows[a].tolist() == pytest.approx(want, rel=1e-12), b
    assert rows[0, 5] == pytest.approx(2000.0 / 1e6) and rows[1, 5] == pytest.approx(2000.0 / 4e5)


@arena.policy(state=1)
def _fifth_says_none(task, cand, state, par, u, out):
    state[0] += 1
    out[0] = 0
    return 0 if state[0] == 5 else 1


@arena.policy(state=1)
def _seventh_says_two(task, cand, state, par, u, out):
    state[0] += 1
    out[0] = 0
    out[1 if out.shape[0] > 1 else 0] = 0
    return 2 if state[0] == 7 else 1


@pytest.mark.parametrize(
    ("user", "err"), [(_fifth_says_none, [1, 4, 0, 1]), (_seventh_says_two, [1, 6, 2, 1])]
)
def test_a_wrong_count_later_in_the_run_names_that_task(user, err):
    """kind 1 (a count outside 1..copies), the task decided (the n-th decision is task
    n - 1: a user policy places each task once, on arrival), the count and the limit (one
    copy); the run stops there, and that task is not done."""
    _, _, pol, where = _run_user(_viewed(), user)
    assert pol.err.tolist() == err
    assert where[err[1]] == -1


def test_the_cloud_policy_serves_every_task_at_the_cloud_at_once():
    """The cloud has unbounded servers: a task's sojourn is its path's delay and
    transmission, then its size over the cloud's speed (M/G/inf, no wait)."""
    sc = _viewed()
    ch = _policy("cloud", {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 300, ch.copies, ch.uniforms, np.random.default_rng(4))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where = engine()(net, tk, pol, 0, ch.user)[:2]
    k, c = sc.index("dev"), net.cloud
    assert (where == c).all()
    want = tk.t + net.delay[k, c] + tk.bits * net.invbw[k, c] + tk.size[:, 0] / net.speed[c]
    assert np.allclose(finish, want, rtol=1e-12, atol=1e-12)


def _cloud_between():
    """The cloud listed between the edges: a rule that tests ``< cloud`` where it means
    ``!= cloud`` sees edge ``b`` (after the cloud) as the cloud."""
    nodes = [
        {"id": "a", "role": "edge", "servers": 1, "capacity": 2},
        CLOUD,
        {"id": "b", "role": "edge", "servers": 2, "capacity": 3},
        {"id": "c", "role": "edge", "servers": 1, "capacity": 2},
        {"id": "dev", "role": "device", "servers": 0},
    ]
    links = [
        {"a": "a", "b": "b", "delay": 0.002},
        {"a": "a", "b": "c", "delay": 0.003},
        {"a": "dev", "b": "a", "delay": 0.001},
        {"a": "dev", "b": "b", "delay": 0.004},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abc"]
    return _scenario(nodes, links, [("a", 25.0), ("dev", 10.0)])


SCENARIOS["cloud_between"] = _cloud_between
CASES_MORE = [
    ("cloud_between", "overflow", {"p": 0.7}),
    ("cloud_between", "random", {}),
    ("cloud_between", "local", {}),
    ("cloud_between", "hedge_cache", {"cache_size": 0, "deadline": 0.05}),
    ("unbounded", "random", {}),
    ("unbounded", "overflow", {"p": 1.0}),
]


@pytest.mark.parametrize(("where", "name", "params"), CASES_MORE)
def test_more_policies_equal_their_slow_twin(where, name, params):
    sc = SCENARIOS[where]()
    net, tk, finish, where_ = _engine_and_twin(sc, name, params, 6)
    if where == "cloud_between" and name in ("overflow", "random"):
        assert (where_ == sc.index("b")).mean() > 0.02  # edge b, listed after the cloud
    if where == "cloud_between" and name == "overflow":
        assert (where_ == -1).mean() > 0.01  # with p < 1 some overflow is lost


def _instant():
    """A home ``a`` whose service takes no time and a neighbour ``b``: with θ = 0 (or a zero
    deadline) a task is kept when nothing is ahead of it, and at ``a`` nothing ever is."""
    nodes = [
        {"id": "a", "role": "edge", "servers": 1, "speed": ".inf", "capacity": 2},
        {"id": "b", "role": "edge", "servers": 1, "capacity": 4},
        CLOUD,
    ]
    links = [{"a": "a", "b": "b", "delay": 0.002}]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "ab"]
    return _scenario(nodes, links, [("a", 30.0), ("b", 5.0)])


def _odd_home():
    """A home of 3 servers at half speed: θ = 0.3 keeps a task behind floor(0.3 × 3 × 0.5 /
    0.1) = 4 others, a count that depends on servers times speed."""
    nodes = [
        {"id": "a", "role": "edge", "servers": 3, "speed": 0.5, "capacity": 12},
        {"id": "b", "role": "edge", "servers": 2, "capacity": 8},
        CLOUD,
    ]
    links = [{"a": "a", "b": "b", "delay": 0.002}]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "ab"]
    return _scenario(nodes, links, [("a", 16.0)])


def _typed_cloud_home():
    """Typed tasks from a device homed at the cloud (``up``) and from one homed at edge
    ``b``, listed after the cloud: the cache serves popular types at an edge home only."""
    nodes = [
        {"id": "a", "role": "edge", "servers": 2, "capacity": 6},
        CLOUD,
        {"id": "b", "role": "edge", "servers": 1, "capacity": 4},
        {"id": "up", "role": "device", "servers": 0},
        {"id": "dev", "role": "device", "servers": 0},
    ]
    links = [
        {"a": "a", "b": "b", "delay": 0.002},
        {"a": "up", "b": "cloud", "delay": 0.001},
        {"a": "dev", "b": "b", "delay": 0.001},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "ab"]
    size = {"dist": "exponential", "mean": 0.1}
    types = {"count": 20, "zipf": 1.0}
    work = [{"source": x, "rate": 6.0, "size": size, "types": types} for x in ("up", "dev")]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


SCENARIOS |= {"instant": _instant, "odd_home": _odd_home, "typed": _typed_cloud_home}
CASES_EDGE = [
    ("instant", "threshold", {"theta": 0.0, "e_max": 1}),
    ("instant", "hedge_cache", {"cache_size": 0, "deadline": 0.0}),
    ("odd_home", "threshold", {"theta": 0.3, "e_max": 1}),
    ("odd_home", "hedge_cache", {"cache_size": 0, "deadline": 0.3}),
    ("typed", "hedge_cache", {"cache_size": 5, "deadline": 0.05}),
    ("typed", "jsq", {}),
    ("typed", "power_of_d", {"d": 2}),
]


@pytest.mark.parametrize(("where", "name", "params"), CASES_EDGE)
def test_policies_at_an_instant_or_odd_home_or_the_cloud_equal_their_twin(where, name, params):
    sc = SCENARIOS[where]()
    net, tk, finish, where_ = _engine_and_twin(sc, name, params, 8)
    home = net.home[tk.node]
    if where == "instant":  # nothing is ever ahead at a: its tasks stay there
        assert (where_[tk.node == sc.index("a")] == sc.index("a")).all()
    if where == "odd_home":  # the home fills past four tasks ahead: some leave it
        assert 0.02 < (where_ != home).mean() < 0.9
    if where == "typed":
        up = tk.node == sc.index("up")
        assert (home[up] == net.cloud).all() and up.mean() > 0.3
        if name == "hedge_cache":  # popular types from b's cache, none from the cloud's
            hop = net.delay[tk.node, where_.clip(0)] + tk.bits * net.invbw[tk.node, where_.clip(0)]
            cached = np.isclose(finish - tk.t, hop, rtol=0, atol=1e-12)
            assert cached[~up].mean() > 0.2 and not cached[up].any()
        else:  # a device homed at the cloud has no candidate: its tasks go to the cloud
            assert (where_[up] == net.cloud).all()


@arena.policy(copies=2)
def _both(task, cand, state, par, u, out):
    out[0], out[1] = 0, 1
    return 2


def test_two_copies_are_allowed_in_a_run_of_one_task():
    """The answer's room is the copies declared (2), whatever the number of tasks (1)."""
    _, tk, pol, where = _run_user(_viewed(), _both, n=1)
    assert tk.t.size == 1 and pol.err.tolist() == [0, 0, 0, 0] and where[0] >= 0
