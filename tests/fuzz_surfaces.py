"""Fuzz what a walk of ``__all__`` does not reach: files, callbacks, caches, the scaffold and
registry, the command line (issue 43).

:mod:`fuzz_api` calls every public name with generic bad values. A careless or hostile user
reaches the library through other doors too, and each has its own case list here:

- ``files``: scenario files of the arena (YAML, JSON) and of P1 (JSON, GraphML) that are
  malformed, hostile (an alias bomb, duplicate keys, bytes that are not UTF-8, a folder,
  deep nesting), huge (30,000 nodes, 10^7 requests of 64 copies) or physically absurd
  (powers of 1e308, rates of 1e-12, a Weibull shape of 0.005, a node that cannot reach its
  target), loaded and, when they load, simulated; and :func:`hostile_files`, 32 more
  scenario and trace files (bombs, deep nesting, sparse giants, bad encodings, bad cells)
  that ``tests/test_arena_files.py`` also loads in its own process;
- ``callbacks``: user policies of the arena that crash, loop, read past their arrays,
  return out-of-range choices, or are plain Python functions;
- ``caches``: the results cache and the sweep cache with a value or a pickle planted in
  them, entries truncated or emptied, cache folders that cannot be written;
- ``scaffold``: ``new_paper`` with names that are keywords or shadow a module, titles with
  quotes and newlines, wrong types (and whether a failure leaves files behind);
- ``registry``: an installed paper (an entry point) with a malformed ``paper.json`` or a
  wrong-typed ``order``, an entry point naming no package, a taken id, the retired
  ``WORKBENCH_PAPERS`` still set, ``check_paper`` and ``Target`` with wrong types;
- ``cli``: ``python -m workbench`` with unknown names, ``--out`` onto a file or a foreign
  folder, and a few valid commands.

Each case runs in a forked child (a fresh temporary working folder, a memory limit on its
address space, a time limit) and is counted as one of

- ``clean``: refused with the library's own error (a :class:`workbench.ParameterError`; for
  a command, a non-zero exit with a message and no traceback);
- ``ok``: a result that passes the case's own check (the right value, nothing left behind,
  generated code that compiles and imports);
- ``raw``: any other exception (a command: a traceback), a MemoryError included;
- ``garbage``: a result the case's check refuses (a planted value returned, a pickle's code
  run, a duplicate key accepted, an unreachable node served, a command that exits 0 having
  done nothing);
- ``hang``: no answer within the time limit (the child's own time: wall time less the time
  it waited for a core, :func:`wait_answer`); ``crash``: the child died (a signal: SIGSEGV);

and, across those, ``slow``: a call that used more than :data:`SLOW_CPU` seconds of CPU
(CPU, not wall time: the machine may be shared). ``tests/test_fuzz_api.py`` runs the
:func:`sample` (cheap cases, one or two per category); ``benchmarks/fuzz_api.py --surfaces``
runs them all and prints the counts per category.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from plugin_dist import fake_install

CATEGORIES = ("files", "callbacks", "caches", "scaffold", "registry", "cli")
OUTCOMES = ("clean", "ok", "raw", "garbage", "hang", "crash")
SLOW_CPU = 20.0  # s of CPU: a call over it counts as slow
MEMORY = 3 * 2**30  # bytes of address space a case may add to what the child starts with


def _repo() -> str:
    """The checkout whose ``workbench`` this process imported (commands run the same)."""
    import workbench

    return str(Path(workbench.__file__).resolve().parents[1])


class Refused(Exception):
    """A command refused its input cleanly (non-zero exit, a message, no traceback)."""


class Hung(Exception):
    """A command did not finish within its time limit."""


class Raw(Exception):
    """A command ended in a traceback."""


@dataclass
class SurfaceCase:
    category: str
    name: str
    run: Callable[..., str]  # returns "" (ok) or why the result is garbage; may raise
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    timeout: float = 60.0  # s of the child's own time (wall less its wait for a core)
    cheap: bool = False  # in the suite's sample

    @property
    def label(self) -> str:
        return f"[{self.category}] {self.name}"


# ------------------------------------------------------------------------------- helpers


def _write(name: str, data) -> Path:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


NEUTRAL_NODES = [
    {"id": "e1", "role": "edge", "servers": 2, "speed": 1.0, "capacity": 20},
    {"id": "e2", "role": "edge", "servers": 2, "speed": 1.0, "capacity": 20},
    {"id": "cloud", "role": "cloud", "servers": float("inf"), "speed": 4.0},
]
NEUTRAL_LINKS = [
    {"a": "e1", "b": "e2", "delay": 0.002},
    {"a": "e1", "b": "cloud", "delay": 0.05},
    {"a": "e2", "b": "cloud", "delay": 0.05},
]


def _scenario(**change) -> dict:
    """A small valid arena scenario (two edge nodes and a cloud), with ``change`` applied."""
    size = {"dist": "deterministic", "value": 0.1}
    base = {
        "name": "fuzz",
        "nodes": [dict(n) for n in NEUTRAL_NODES],
        "links": [dict(link) for link in NEUTRAL_LINKS],
        "workload": [
            {"source": "e1", "rate": 8.0, "size": dict(size)},
            {"source": "e2", "rate": 6.0, "size": dict(size)},
        ],
    }
    base.update(change)
    return base


def _arena_yaml(d: dict) -> str:
    import yaml

    return yaml.safe_dump(d, sort_keys=False)


def _simulate(scenario, policy="local", requests=2000, **kw):
    from workbench import arena

    return arena.simulate(
        scenario=scenario,
        policy=policy,
        requests=requests,
        replications=2,
        seed=0,
        overload="transient",
        **kw,
    )


def _finite_result(res, min_delay: float = 0.0) -> str:
    """Why an arena result is garbage ("" when it is not)."""
    import math

    for q in ("mean_delay", "loss_share", "energy_per_task"):
        try:
            v = float(res[q])
        except (KeyError, AttributeError, TypeError):
            continue
        if math.isnan(v) or math.isinf(v):
            return f"{q} = {v}"
    delay = float(res.estimate)
    if delay < min_delay - 1e-12:
        return f"mean delay {delay:.4g} below the least possible {min_delay:g}"
    return ""


# --------------------------------------------------------------------------------- files


def arena_file(
    name: str,
    content,
    *,
    simulate: bool = False,
    policy: str = "local",
    accept: bool = True,
    min_delay: float = 0.0,
    folder: bool = False,
    **sim,
) -> str:
    """Write ``content`` to ``name`` and load it as an arena scenario (then simulate it);
    ``content`` None: load ``name`` as given (a shipped scenario, ``''``); ``folder``: make
    ``name`` a folder and load that.

    ``accept``: whether a loader that keeps the file is right (False: the file must be
    refused, a load that returns is garbage)."""
    from workbench.arena import load_scenario

    if folder:
        Path(name).mkdir()
    path = str(_write(name, content)) if content is not None else name
    sc = load_scenario(path)
    if not accept:
        return f"accepted: {sc.name!r} loaded without an error"
    if simulate:
        return _finite_result(_simulate(sc, policy, **sim), min_delay)
    return ""


def fog_file(name: str, content, accept: bool = True) -> str:
    from workbench.fog.scenario import load_scenario

    g = load_scenario(str(_write(name, content)))
    return "" if accept else f"accepted: a graph of {g.number_of_nodes()} nodes"


BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    + ["nodes: *i"]
)


def _duplicate_yaml() -> str:
    text = _arena_yaml(_scenario())
    extra = _arena_yaml(
        {
            "workload": [
                {"source": "e2", "rate": 1.0, "size": {"dist": "deterministic", "value": 0.1}}
            ]
        }
    )
    return text + extra  # "workload" twice: the second would silently replace the first


def _duplicate_json() -> str:
    body = json.dumps(_scenario())[:-1]
    return body + ', "name": "again"}'


def _unreachable() -> dict:
    nodes = [*NEUTRAL_NODES, {"id": "lonely", "role": "edge", "servers": 0}]
    workload = [{"source": "lonely", "rate": 5.0, "size": {"dist": "deterministic", "value": 0.1}}]
    return _scenario(nodes=nodes, workload=workload)


def _many_nodes(n: int) -> dict:
    nodes = [{"id": f"n{i}", "role": "edge", "servers": 1, "capacity": 4} for i in range(n)]
    nodes.append({"id": "cloud", "role": "cloud", "servers": float("inf")})
    links = [{"a": f"n{i}", "b": "cloud", "delay": 0.05} for i in range(n)]
    size = {"dist": "exponential", "mean": 0.1}
    # a size law of its own per entry: a shared dict would be dumped as 30,000 aliases
    workload = [{"source": f"n{i}", "rate": 1.0, "size": dict(size)} for i in range(n)]
    return {"name": "huge", "nodes": nodes, "links": links, "workload": workload}


def _file_cases() -> list[SurfaceCase]:
    F = "files"
    w = _scenario()["workload"]
    power = [dict(n, power_busy=1e308) for n in NEUTRAL_NODES]
    delay = [dict(link, delay=1e308) for link in NEUTRAL_LINKS]
    tiny = [dict(x, rate=1e-12) for x in w]
    tinier = [dict(x, rate=1e-15) for x in w]
    weib = [dict(x, size={"dist": "weibull", "shape": 0.005, "scale": 1.0}) for x in w]
    expo = [dict(x, size={"dist": "exponential", "mean": 1e155}) for x in w]
    huge_rates = [dict(x, rate=1e308) for x in w]
    cases = [
        SurfaceCase(
            F,
            "arena: the shipped neutral scenario, simulated",
            arena_file,
            ("neutral", None),
            {"simulate": True},
            cheap=True,
        ),
        SurfaceCase(
            F,
            "arena yaml: nested aliases (billion laughs)",
            arena_file,
            ("bomb.yaml", BILLION_LAUGHS),
            {"accept": False},
            timeout=30.0,
        ),
        SurfaceCase(
            F,
            "arena yaml: a key written twice",
            arena_file,
            ("dup.yaml", _duplicate_yaml()),
            {"accept": False},
            cheap=True,
        ),
        SurfaceCase(
            F,
            "arena json: a key written twice",
            arena_file,
            ("dup.json", _duplicate_json()),
            {"accept": False},
        ),
        SurfaceCase(
            F,
            "arena yaml: bytes that are not UTF-8",
            arena_file,
            ("latin.yaml", b"name: caf\xe9\xff\xfe\n"),
            {"accept": False},
        ),
        SurfaceCase(
            F,
            "arena: a folder as the file",
            arena_file,
            ("folder.yaml", None),
            {"accept": False, "folder": True},
        ),
        SurfaceCase(F, "arena: an empty path", arena_file, ("", None), {"accept": False}),
        SurfaceCase(
            F,
            "arena yaml: malformed",
            arena_file,
            ("bad.yaml", "nodes: [\n  - {id: ,"),
            {"accept": False},
        ),
        SurfaceCase(F, "arena yaml: empty file", arena_file, ("empty.yaml", ""), {"accept": False}),
        SurfaceCase(
            F,
            "arena yaml: 10,000 nested lists",
            arena_file,
            ("deep.yaml", "nodes: " + "[" * 10_000 + "]" * 10_000),
            {"accept": False},
        ),
        SurfaceCase(
            F,
            "arena yaml: power 1e308, simulated",
            arena_file,
            ("power.yaml", _arena_yaml(_scenario(nodes=power))),
            {"simulate": True},
        ),
        SurfaceCase(
            F,
            "arena yaml: link delay 1e308, simulated",
            arena_file,
            ("delay.yaml", _arena_yaml(_scenario(links=delay))),
            {"simulate": True, "policy": "cloud"},
        ),
        SurfaceCase(
            F,
            "arena yaml: rates 1e-12, simulated (sizes 0.1 s)",
            arena_file,
            ("tiny.yaml", _arena_yaml(_scenario(workload=tiny))),
            {"simulate": True, "min_delay": 0.1},
        ),
        SurfaceCase(
            F,
            "arena yaml: rates 1e-15, simulated (sizes 0.1 s)",
            arena_file,
            ("tinier.yaml", _arena_yaml(_scenario(workload=tinier))),
            {"simulate": True, "min_delay": 0.1},
        ),
        SurfaceCase(
            F,
            "arena yaml: Weibull shape 0.005, simulated",
            arena_file,
            ("weibull.yaml", _arena_yaml(_scenario(workload=weib))),
            {"simulate": True},
        ),
        SurfaceCase(
            F,
            "arena yaml: exponential mean 1e155, simulated",
            arena_file,
            ("expo.yaml", _arena_yaml(_scenario(workload=expo))),
            {"simulate": True},
        ),
        SurfaceCase(
            F,
            "arena yaml: two rates of 1e308, simulated",
            arena_file,
            ("rates.yaml", _arena_yaml(_scenario(workload=huge_rates))),
            {"simulate": True},
        ),
        SurfaceCase(
            F,
            "arena yaml: a node with no path to the cloud, simulated",
            arena_file,
            ("lonely.yaml", _arena_yaml(_unreachable())),
            {"accept": False, "policy": "cloud"},
        ),
        SurfaceCase(
            F,
            "arena yaml: 30,000 nodes, simulated",
            arena_file,
            ("huge.yaml", _arena_yaml(_many_nodes(30_000))),
            {"simulate": True},
            timeout=120.0,
        ),
        SurfaceCase(
            F,
            "arena: replicate m=64 with 10^7 requests",
            arena_file,
            ("neutral", None),
            {"simulate": True, "policy": "replicate", "m": 64, "requests": 10**7},
            timeout=120.0,
        ),
        SurfaceCase(
            F,
            "fog json: malformed",
            fog_file,
            ("bad.json", '{"nodes": [}'),
            {"accept": False},
            cheap=True,
        ),
        SurfaceCase(
            F,
            "fog json: bytes that are not UTF-8",
            fog_file,
            ("latin.json", b"\xff\xfe{}"),
            {"accept": False},
        ),
        SurfaceCase(
            F,
            "fog graphml: entity expansion",
            fog_file,
            ("bomb.graphml", _xml_bomb()),
            {"accept": False},
        ),
    ]
    return cases + hostile_file_cases()


# ---------------------------------------------------- hostile scenario and trace files


#: a valid arena scenario of two edge centres and a cloud (the hostile files are made from it)
TWO_CENTERS = {
    "name": "two-centers",
    "nodes": [
        {"id": "A", "role": "edge", "servers": 2, "capacity": 10, "power_idle": 5.0},
        {"id": "B", "role": "edge", "servers": 2, "capacity": 10},
        {"id": "cloud", "role": "cloud", "servers": ".inf"},
    ],
    "links": [
        {"a": "A", "b": "B", "delay": 0.002, "bandwidth": 1.0e8},
        {"a": "A", "b": "cloud", "delay": 0.05},
    ],
    "workload": [
        {"source": "A", "rate": 1.5, "size": {"dist": "exponential", "mean": 1.0}},
        {"source": "B", "rate": 0.8, "size": {"dist": "deterministic", "value": 1.0}},
    ],
}
LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
    + ["nodes: *i"]
)
TRACE_ROWS = "time,source,size\n0.0,A,0.5\n0.5,B,0.25\n"
#: the hostile-file labels that are valid files (every other one must be refused)
ACCEPTED_FILES = ("valid", "trace: valid", "trace: 200k rows")


def hostile_files() -> list[tuple[str, str, bytes | int]]:
    """Hostile, malformed and huge files: ``(label, file name, content)``; the content is
    bytes, or an int for a sparse file of that many bytes (huge, written in no time). A
    label ``trace: ...`` is a trace, the file ``tasks.csv`` next to a valid scenario that
    replays it; any other is a scenario file loaded with ``load_scenario``."""
    good = json.dumps(TWO_CENTERS)
    s = [
        ("laughs", "laughs.yaml", LAUGHS.encode()),
        ("deep json", "deep.json", b"[" * 100_000 + b"]" * 100_000),
        ("deep yaml", "deep.yaml", b"[" * 5_000 + b"]" * 5_000),
        ("deep flow mapping", "deepm.yaml", b"{a: " * 20_000 + b"1" + b"}" * 20_000),
        ("huge sparse yaml", "huge.yaml", 25 * 2**20),
        ("not utf-8", "bad.yaml", b"name: \xff\xfe\n"),
        ("utf-16", "u16.json", good.encode("utf-16")),
        ("nul bytes", "nul.yaml", b"\x00" * 100),
        ("empty", "empty.yaml", b""),
        ("a list", "list.yaml", b"[1, 2, 3]\n"),
        ("a scalar", "scalar.json", b"42"),
        ("python tag", "tag.yaml", b"!!python/object/apply:os.system ['echo hi']\n"),
        ("duplicate key", "dup.json", (good[:-1] + ', "name": "x"}').encode()),
        ("nan numbers", "nan.json", good.replace("0.002", "NaN").encode()),
        ("infinity rate", "inf.json", good.replace('"rate": 1.5', '"rate": Infinity').encode()),
        ("huge int", "int.json", good.replace('"servers": 2', '"servers": ' + "9" * 5000).encode()),
        ("long id", "id.json", good.replace('"A"', '"' + "A" * 100_000 + '"').encode()),
        (
            "many nodes",
            "many.json",
            json.dumps(
                {
                    **TWO_CENTERS,
                    "nodes": TWO_CENTERS["nodes"]
                    + [{"id": f"x{i}", "role": "edge"} for i in range(120_000)],
                }
            ).encode(),
        ),
        ("bool servers", "bool.yaml", good.replace('"servers": 2', '"servers": true').encode()),
        ("broken yaml", "broken.yaml", b"nodes: [ {id: A\n"),
        ("date id", "date.yaml", b"nodes: [{id: 2024-01-01, role: edge}]\nworkload: []\n"),
        ("valid", "valid.json", good.encode()),
    ]
    t = [
        ("trace: laughs-sized header", "tasks.csv", b"time," * 100_000 + b"\n"),
        ("trace: huge sparse", "tasks.csv", 700 * 2**20),
        ("trace: not utf-8", "tasks.csv", b"time,source,size\n0,\xff,1\n"),
        ("trace: unbalanced quote", "tasks.csv", b'time,source,size\n0,"A,1\n'),
        ("trace: 1e308 time", "tasks.csv", b"time,source,size\n1e308,A,1\n"),
        ("trace: negative time", "tasks.csv", b"time,source,size\n-1,A,1\n"),
        ("trace: huge type", "tasks.csv", b"time,source,size,type\n0,A,1,1e30\n"),
        ("trace: nul", "tasks.csv", b"time,source,size\n0,A\x00,1\n"),
        ("trace: 200k rows", "tasks.csv", b"time,source,size\n" + b"0.5,A,0.1\n" * 200_000),
        ("trace: valid", "tasks.csv", TRACE_ROWS.encode()),
    ]
    return s + t


def load_file(label: str, name: str, content, accept: bool = True) -> str:
    """Write one of :func:`hostile_files` in the working folder and load it: ``""`` when it
    loads and ``accept``, why it is garbage when it loads and must not; raises the loader's
    error (a ``ScenarioError``) when refused."""
    from workbench.arena import load_scenario

    target = Path(name)
    if isinstance(content, int):
        with open(target, "wb") as f:
            f.truncate(content)
    else:
        target.write_bytes(content)
    path = target
    if label.startswith("trace:"):
        path = Path("sc.json")
        path.write_text(json.dumps({**TWO_CENTERS, "workload": [{"trace": name, "loop": True}]}))
    sc = load_scenario(str(path))
    if not accept:
        return f"accepted: {len(sc.nodes)} nodes, {len(sc.workload)} workload entries"
    return ""


def hostile_file_cases() -> list[SurfaceCase]:
    """:func:`hostile_files` as cases of the ``files`` category (a refusal must come fast:
    a minute of wall time; the suite checks each takes under 2 s in its own process)."""
    return [
        SurfaceCase(
            "files",
            f"arena file: {label}",
            load_file,
            (label, name, content),
            {"accept": label in ACCEPTED_FILES},
            timeout=60.0,
        )
        for label, name, content in hostile_files()
    ]


def _xml_bomb() -> str:
    ents = ['<!ENTITY a "lollollollollollollollollollol">']
    ents += [
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">'
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    return (
        '<?xml version="1.0"?><!DOCTYPE g [' + "".join(ents) + "]>"
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'
        '<node id="&i;"/></graph></graphml>'
    )


# ----------------------------------------------------------------------------- callbacks


def cb_first(queue, servers, speed, delay, u):
    return 0


def cb_out_of_range(queue, servers, speed, delay, u):
    return 99


def cb_reads_past(queue, servers, speed, delay, u):
    return int(queue[10_000_000] + servers[-10_000_000])


def cb_raises(queue, servers, speed, delay, u):
    raise ValueError("a policy that fails")


def cb_loops(queue, servers, speed, delay, u):
    x = 0.0
    while x >= 0.0:
        x += u + 1.0
    return 0


def cb_wrong_arity(queue):
    return 0


def user_policy(kind: str, build: str = "policy", policy_name: str = "first") -> str:
    """Simulate the neutral scenario under a user policy made from ``cb_<kind>``."""
    from workbench import arena

    func = globals()[f"cb_{kind}"]
    if build == "policy":
        pol = arena.policy(func)
    elif build == "plain":  # a UserPolicy around a plain Python function
        pol = arena.UserPolicy(policy_name, func)
    else:
        pol = build
    # a policy that never returns is stopped by the documented timeout (or Ctrl-C)
    res = _simulate("neutral", pol, requests=2000, timeout=30.0 if kind == "loops" else None)
    if kind == "out_of_range" and float(res["loss_share"]) < 1.0 - 1e-12:
        return f"a choice out of range did not lose the task: loss {float(res['loss_share'])}"
    return _finite_result(res)


def _callback_cases() -> list[SurfaceCase]:
    C = "callbacks"
    return [
        SurfaceCase(
            C,
            "a policy that does not compile (wrong arity)",
            user_policy,
            ("wrong_arity",),
            cheap=True,
        ),
        SurfaceCase(
            C,
            "UserPolicy around a plain Python function",
            user_policy,
            ("first", "plain"),
            timeout=120.0,
        ),
        SurfaceCase(
            C,
            "a policy that is not a policy (a string)",
            user_policy,
            ("first", "not-a-policy-object"),
            cheap=True,
        ),
        SurfaceCase(C, "a policy returning 0", user_policy, ("first",), timeout=120.0),
        SurfaceCase(
            C,
            "a policy returning an index out of range",
            user_policy,
            ("out_of_range",),
            timeout=120.0,
        ),
        SurfaceCase(
            C, "a policy reading past its arrays", user_policy, ("reads_past",), timeout=120.0
        ),
        SurfaceCase(C, "a policy that raises", user_policy, ("raises",), timeout=120.0),
        SurfaceCase(C, "a policy that never returns", user_policy, ("loops",), timeout=120.0),
    ]


# -------------------------------------------------------------------------------- caches


def _results_on(root: str) -> None:
    os.environ["WORKBENCH_CACHE"] = root
    os.environ["WORKBENCH_RESULTS_CACHE"] = "1"


def _cache_files(folder: Path) -> list[Path]:
    """The entries of a cache folder (not its locks, keys or probes)."""
    skip = (".lock", ".signing-key")
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith(skip)]


class _Marker:
    """A pickle that, loaded, creates the file ``ran``."""

    def __reduce__(self):
        return (open, (str(Path.cwd() / "ran"), "w"))


def _plant(files: list[Path], how: str, right: float) -> None:
    for p in files:
        raw = p.read_bytes()
        if how == "value":  # the answer replaced by 0.5, in whatever format the entry has
            if p.suffix == ".pkl":
                p.write_bytes(pickle.dumps(0.5))
            else:
                p.write_bytes(raw.replace(repr(right).encode(), b"0.5"))
        elif how == "pickle":
            p.write_bytes(pickle.dumps(_Marker()))
        elif how == "truncated":
            p.write_bytes(raw[: len(raw) // 2])
        elif how == "empty":
            p.write_bytes(b"")


def planted_result(how: str) -> str:
    """``erlang_b(24, 10)`` through the results cache, its entry planted, asked again."""
    from workbench.erlang import erlang_b
    from workbench.memo import cached_call

    _results_on(str(Path.cwd() / "cache"))
    right = cached_call(erlang_b, 24, 10)
    files = _cache_files(Path.cwd() / "cache" / "results")
    if not files:
        return "nothing was cached"
    _plant(files, how, right)
    again = cached_call(erlang_b, 24, 10)
    if Path("ran").exists():
        return "a pickle planted in the cache ran its code"
    if again != right:
        return f"the cache returned {again!r} for erlang_b(24, 10) = {right!r}"
    return ""


def _product(x: float) -> dict:
    return {"y": 3.0 * x}


def planted_sweep(how: str) -> str:
    from workbench.sweep import sweep

    kw = {"n_workers": 1, "progress": False, "cache_dir": str(Path.cwd() / "sweep")}
    right = list(sweep(_product, {"x": [7.0]}, **kw)["y"])
    _plant(_cache_files(Path.cwd() / "sweep"), how, right[0])
    again = sweep(_product, {"x": [7.0]}, **kw)
    if Path("ran").exists():
        return "a pickle planted in the sweep cache ran its code"
    if "y" not in again or list(again["y"]) != right:
        return f"the sweep cache returned {again.drop(columns='seed').to_dict('list')}"
    return ""


def _blocked_root() -> str:
    Path("a-file").write_text("")
    return str(Path.cwd() / "a-file" / "cache")


def unwritable_import(variable: str) -> str:
    """``import workbench`` and a cached call in a fresh process whose cache (or numba's)
    cannot be created."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "WORKBENCH_NUMBA_BASE")
    }
    env[variable] = _blocked_root()
    env["WORKBENCH_RESULTS_CACHE"] = "1"
    env["PYTHONPATH"] = _repo()
    code = (
        "import workbench; from workbench.memo import cached_call; "
        "from workbench.erlang import erlang_b; print(cached_call(erlang_b, 24, 10))"
    )
    out = _command([sys.executable, "-c", code], env=env, timeout=120)
    return "" if out.strip() else "printed nothing"


def unwritable_atlas_dir() -> str:
    from workbench.atlas import default_cache_dir

    os.environ["WORKBENCH_CACHE"] = _blocked_root()
    folder = default_cache_dir()
    return "" if folder is None or Path(folder).is_dir() else f"returned {folder!r}"


def _cache_cases() -> list[SurfaceCase]:
    C = "caches"
    out = [
        SurfaceCase(
            C,
            f"results cache: entry {how}",
            planted_result,
            (how,),
            cheap=how in ("value", "pickle"),
        )
        for how in ("value", "pickle", "truncated", "empty")
    ]
    out += [
        SurfaceCase(C, f"sweep cache: entry {how}", planted_sweep, (how,))
        for how in ("value", "pickle", "truncated")
    ]
    out += [
        SurfaceCase(
            C,
            "import workbench, WORKBENCH_CACHE unwritable",
            unwritable_import,
            ("WORKBENCH_CACHE",),
            timeout=120.0,
        ),
        SurfaceCase(
            C,
            "import workbench, NUMBA_CACHE_DIR unwritable",
            unwritable_import,
            ("NUMBA_CACHE_DIR",),
            timeout=120.0,
        ),
        SurfaceCase(C, "atlas.default_cache_dir, WORKBENCH_CACHE unwritable", unwritable_atlas_dir),
    ]
    return out


# ------------------------------------------------------------------------------ scaffold


def scaffold(name, title="A study of offloading", paper_id=None, out="out") -> str:
    """``new_paper`` into ``out``; the files it writes must compile, its package import as
    itself; a refusal must leave nothing behind."""
    import importlib.util

    from workbench.scaffold import new_paper

    if out == "out":
        Path(out).mkdir(exist_ok=True)
    else:  # a file where the folder should be
        _write(out, "not a folder\n")
    try:
        new_paper(name, out=out, paper_id=paper_id, title=title)
    except BaseException:
        left = [p for p in Path(out).rglob("*") if p.is_file()] if Path(out).is_dir() else []
        if left:
            raise RuntimeError(f"refused, but left {len(left)} files behind") from None
        raise
    for path in Path(out).rglob("*.py"):
        compile(path.read_text(), str(path), "exec")  # SyntaxError: raw
    for path in Path(out).rglob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                compile("".join(cell["source"]).replace("%", "#"), str(path), "exec")
    spec = importlib.util.find_spec(name) if name.isidentifier() else None
    if spec is not None and spec.origin and not spec.origin.startswith(str(Path.cwd())):
        return f"the package {name!r} is shadowed by {spec.origin}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(out).resolve()), _repo()]))
    code = f"import importlib; m = importlib.import_module({name!r}); print(m.__file__)"
    where = _command([sys.executable, "-c", code], env=env, timeout=120).strip()
    if not where.startswith(str(Path(out).resolve())):
        return f"import {name} gives {where or 'nothing'}, not the package written"
    return ""


def _scaffold_cases() -> list[SurfaceCase]:
    S = "scaffold"
    hostile = 'Say "hi" \'\'\' """ {x} \\ \n# end'
    out = [
        SurfaceCase(S, "a valid name and title", scaffold, ("queueing_demo",), timeout=120.0),
        SurfaceCase(
            S,
            "a title with quotes, braces, a backslash and a newline",
            scaffold,
            ("quoted_demo", hostile),
            cheap=True,
            timeout=120.0,
        ),
        SurfaceCase(S, "a title that is not a string", scaffold, ("typed_demo", 5), cheap=True),
    ]
    for name in ("class", "json", "numpy", "workbench", "", "1abc", "Name", "a-b"):
        out.append(SurfaceCase(S, f"name {name!r}", scaffold, (name,), timeout=120.0))
    out.append(SurfaceCase(S, "a taken paper id", scaffold, ("taken_demo",), {"paper_id": "p1"}))
    out.append(SurfaceCase(S, "out is a file", scaffold, ("file_demo",), {"out": "a-file.txt"}))
    return out


# ------------------------------------------------------------------------------ registry


def registry_entry_point(content, command: str = "papers", entry=None, environ=None) -> str:
    """An installed paper: a package ``fuzzpaper`` with ``content`` as its paper.json (None:
    none) declared by ``entry`` in the entry-point group, then a command (or ``course()``)
    with ``environ`` added to the environment."""
    fake_install(Path("site"), "fuzzpaper", content, entry=entry)
    path = os.pathsep.join([str(Path("site").resolve()), _repo()])
    env = dict(os.environ, PYTHONPATH=path, **(environ or {}))
    if command == "course":  # the library's own error is a refusal, its traceback is not
        code = (
            "import sys\nfrom workbench.validation import ParameterError\ntry:\n"
            "    from workbench.registry import course\n    print(course())\n"
            "except ParameterError as err:\n    sys.exit(f'refused: {err}')\n"
        )
        argv = [sys.executable, "-c", code]
    else:
        argv = [sys.executable, "-m", "workbench", command]
    _command(argv, env=env, timeout=120)
    return f"`{command}` exited 0: it accepted the registry as it is"


def check_paper_call(**kw) -> str:
    from workbench.paper import check_paper

    check_paper("workbench.redundancy", **kw)
    return "accepted"


def target_call(*args) -> str:
    from workbench.paper.target import Target

    Target(*args)
    return "accepted"


def papers_from(content) -> str:
    from workbench.registry import papers_from_json

    papers_from_json(str(_write("p.json", content)) if content is not None else ".")
    return "accepted"


def _registry_cases() -> list[SurfaceCase]:
    R = "registry"
    line = {"id": "px", "topic": "x", "title": "T", "citation": "C", "notebook": "x.ipynb"}
    retired = {"WORKBENCH_PAPERS": "papers.json"}
    return [
        SurfaceCase(
            R,
            "entry point: malformed paper.json, `papers`",
            registry_entry_point,
            ("[{nope",),
            timeout=120.0,
        ),
        SurfaceCase(
            R,
            "entry point: order 'first', course()",
            registry_entry_point,
            (json.dumps(line | {"order": "first"}), "course"),
            timeout=120.0,
        ),
        SurfaceCase(
            R,
            "entry point naming no package, `papers`",
            registry_entry_point,
            (json.dumps(line), "papers", "ghost = nosuchpackage"),
            timeout=120.0,
        ),
        SurfaceCase(
            R,
            "entry point: a taken id (p1), `papers`",
            registry_entry_point,
            (json.dumps(line | {"id": "p1"}),),
            timeout=120.0,
        ),
        SurfaceCase(
            R,
            "WORKBENCH_PAPERS still set, `papers`",
            registry_entry_point,
            (json.dumps(line), "papers", None, retired),
            timeout=120.0,
        ),
        SurfaceCase(R, "check_paper(rules=5)", check_paper_call, (), {"rules": 5}, cheap=True),
        SurfaceCase(R, "Target(5, ...)", target_call, (5, "p9", None, None, False)),
        SurfaceCase(R, "papers_from_json: not a list", papers_from, ('{"id": 1}',)),
        SurfaceCase(R, "papers_from_json: a folder", papers_from, (None,)),
        SurfaceCase(R, "papers_from_json: not UTF-8", papers_from, (b"\xff\xfe[]",)),
    ]


# ----------------------------------------------------------------------------------- cli


def _command(argv, env=None, timeout: float = 60.0, cwd=None) -> str:
    """Run a command; its stdout when it exits 0. :class:`Raw` on a traceback, :class:`Hung`
    past ``timeout``, :class:`Refused` on a non-zero exit with a message."""
    try:
        run = subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise Hung(f"no exit within {timeout:g} s") from None
    if "Traceback (most recent call last)" in run.stderr:
        raise Raw(run.stderr.strip().splitlines()[-1][:300])
    if run.returncode < 0:
        raise Raw(f"killed by signal {-run.returncode}")
    if run.returncode != 0:
        raise Refused((run.stderr.strip() or run.stdout.strip() or "no message")[-300:])
    return run.stdout


def cli(*args: str, must_fail: bool = False, wants: str = "") -> str:
    """``python -m workbench ARGS`` in the case's folder; ``must_fail``: exit 0 is garbage;
    ``wants``: a path that a successful run must have written."""
    env = dict(os.environ, PYTHONPATH=_repo())
    _write("a-file.txt", "not a folder\n")
    _write("foreign/notes.txt", "someone else's folder\n")
    _command([sys.executable, "-m", "workbench", *args], env=env, timeout=240)
    if must_fail:
        return f"exit 0 for {' '.join(args)!r}"
    if wants and not Path(wants).exists():
        return f"exit 0 but {wants} was not written"
    return ""


def _cli_cases() -> list[SurfaceCase]:
    C = "cli"
    return [
        SurfaceCase(C, "papers", cli, ("papers",), {"wants": ""}, timeout=240.0),
        SurfaceCase(
            C,
            "reproduce p4 --only no_such_figure",
            cli,
            ("reproduce", "p4", "--quick", "--only", "no_such_figure", "--out", "figs"),
            {"must_fail": True},
            cheap=True,
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "reproduce p4 --only fig5 (valid)",
            cli,
            ("reproduce", "p4", "--quick", "--only", "fig5", "--out", "figs"),
            {"wants": "figs"},
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "reproduce --out onto a file",
            cli,
            ("reproduce", "p4", "--quick", "--only", "fig5", "--out", "a-file.txt"),
            {"must_fail": True},
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "claims no_such_paper",
            cli,
            ("claims", "no_such_paper"),
            {"must_fail": True},
            timeout=240.0,
        ),
        SurfaceCase(
            C, "an unknown command", cli, ("frobnicate",), {"must_fail": True}, timeout=240.0
        ),
        SurfaceCase(
            C,
            "check-paper no_such_package",
            cli,
            ("check-paper", "no_such_package"),
            {"must_fail": True},
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "new-paper class --out here",
            cli,
            ("new-paper", "class", "--out", "np"),
            {"must_fail": True},
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "site --out onto a file",
            cli,
            ("site", "--quick", "--out", "a-file.txt"),
            {"must_fail": True},
            timeout=240.0,
        ),
        SurfaceCase(
            C,
            "site --out a foreign folder",
            cli,
            ("site", "--quick", "--out", "foreign"),
            {"must_fail": True},
            timeout=240.0,
        ),
    ]


# ------------------------------------------------------------------------------- running


def cases() -> list[SurfaceCase]:
    """Every surface case, category by category."""
    out = []
    for build in (
        _file_cases,
        _callback_cases,
        _cache_cases,
        _scaffold_cases,
        _registry_cases,
        _cli_cases,
    ):
        out += build()
    return out


def sample(all_cases: list[SurfaceCase]) -> list[SurfaceCase]:
    """The suite's share: the cases marked cheap (one to three per category)."""
    return [c for c in all_cases if c.cheap]


def _limit_memory(extra: int) -> None:
    """Cap the address space at what this process maps now plus ``extra`` bytes."""
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * resource.getpagesize()
    limit = mapped + extra
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _classify(case: SurfaceCase) -> tuple[str, str]:
    os.environ["MPLBACKEND"] = "Agg"  # no window from a case that draws
    from workbench.validation import ParameterError

    try:
        why = case.run(*case.args, **case.kwargs)
    except (ParameterError, Refused) as err:
        return "clean", f"{type(err).__name__}: {str(err)[:300]}"
    except Hung as err:
        return "hang", str(err)
    except BaseException as err:  # noqa: BLE001 - counting exactly these
        tb = traceback.format_exc(limit=-3)
        return "raw", f"{type(err).__name__}: {str(err)[:300]}\n{tb}"
    return ("garbage", why) if why else ("ok", "")


def _child(case: SurfaceCase, conn, workdir: str, memory: int) -> None:
    os.chdir(workdir)
    start = _cpu()
    try:
        _limit_memory(memory)
        outcome, detail = _classify(case)
    except BaseException as err:  # noqa: BLE001
        outcome, detail = "raw", f"{type(err).__name__}: {err}"
    conn.send((outcome, detail, _cpu() - start))
    conn.close()


def _run_delay(pid: int) -> float:
    """Seconds the threads of ``pid`` and of its descendants spent runnable but waiting for
    a core (``/proc/<pid>/task/*/schedstat``), the most of any one: the time the machine,
    not the call, took."""
    most = 0.0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tasks:
        try:
            most = max(most, int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1]))
            kids = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
        except (OSError, IndexError, ValueError):
            continue
        for k in kids:
            most = max(most, _run_delay(int(k)) * 1e9)
    return most / 1e9


def wait_answer(conn, pid: int, limit: float, starved: float = 10.0) -> bool:
    """Wait for the answer of child ``pid`` on ``conn``: True when it came. The child has
    ``limit`` seconds of its own time: wall time less the time it spent waiting for a core
    on a shared machine (a starved call is not a hang), up to ``starved`` times ``limit`` of
    wall time in all."""
    t0 = time.monotonic()
    while True:
        if conn.poll(0.25):
            return True
        wall = time.monotonic() - t0
        if wall >= limit and (wall - _run_delay(pid) >= limit or wall >= starved * limit):
            return conn.poll(0)


def run_case(case: SurfaceCase, memory: int = MEMORY) -> dict:
    """One case in a forked child in a fresh folder: its outcome, detail, wall and CPU s."""
    workdir = tempfile.mkdtemp(prefix="wb-fuzz-")
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(case, child, workdir, memory), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    cpu = 0.0
    if wait_answer(parent, proc.pid, case.timeout):
        try:
            outcome, detail, cpu = parent.recv()
        except EOFError:
            proc.join(5)
            outcome, detail = "crash", f"the child died (exit {proc.exitcode})"
    else:
        outcome, detail = "hang", f"no answer within {case.timeout:g} s of its own time"
    wall = time.perf_counter() - t0
    if proc.is_alive():
        _kill_tree(proc.pid)
    proc.join(5)
    parent.close()
    shutil.rmtree(workdir, ignore_errors=True)
    return {
        "category": case.category,
        "case": case.name,
        "outcome": outcome,
        "slow": cpu > SLOW_CPU,
        "seconds": wall,
        "cpu": cpu,
        "detail": detail,
    }


def _kill_tree(pid: int) -> None:
    """End a hung child and the commands it started (by their process ids)."""
    import signal

    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        kids = []
    for k in kids:
        _kill_tree(int(k))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(selected: list[SurfaceCase], progress: bool = False) -> pd.DataFrame:
    rows = []
    for case in selected:
        row = run_case(case)
        rows.append(row)
        if progress:
            first = (row["detail"].splitlines() or [""])[0][:150]
            print(f"  {row['outcome']:8s} {row['cpu']:6.1f} s  {case.label}: {first}", flush=True)
    return pd.DataFrame(
        rows, columns=["category", "case", "outcome", "slow", "seconds", "cpu", "detail"]
    )


def totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts per category: calls, then each outcome, then slow (across the outcomes)."""
    table = pd.crosstab(frame["category"], frame["outcome"]).reindex(
        index=[c for c in CATEGORIES if c in set(frame["category"])], columns=OUTCOMES, fill_value=0
    )
    table = table.fillna(0).astype(int)
    table.insert(0, "calls", frame.groupby("category").size().reindex(table.index))
    table["slow"] = frame.groupby("category")["slow"].sum().reindex(table.index).astype(int)
    table.loc["total"] = table.sum()
    return table


def failures(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows that break the contract: raw, garbage, hang, crash."""
    return frame[frame["outcome"].isin(["raw", "garbage", "hang", "crash"])]
