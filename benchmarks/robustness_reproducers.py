"""Re-run every reproducer of the robustness issue 43 (round three) and print what each gives.

    .venv/bin/python benchmarks/robustness_reproducers.py [--only WORD ...] [--timeout S]

Each reproducer runs in a fresh Python process in an empty temporary folder (the issue's
reproducers were run that way): a user policy that reads past its arrays or never returns,
hostile and absurd scenario files, planted cache entries, the scaffold, the registry, the
command line and the "elsewhere" list. The table gives, for each, what the issue saw and
what it gives now: ``refused`` (the library's own error, a ``ParameterError``, or for a
command a non-zero exit with a message and no traceback) with the first line of the
message, or ``right`` with the value checked, or ``WRONG`` / ``RAW`` / ``HANG`` / ``CRASH``.
The last column says whether that is what the issue asks for. Exit status 1 when any is not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Every snippet ends by calling right(...) or wrong(...); a ParameterError escaping it is a
# refusal by name, any other exception a raw error.
PRELUDE = '''
import json, math, os, subprocess, sys, time
from pathlib import Path

def right(what):
    print("OUTCOME right " + str(what).replace("\\n", " "))

def wrong(what):
    print("OUTCOME WRONG " + str(what).replace("\\n", " "))

def cli(*args, env=None):
    """python -m workbench ARGS: (exit code, stdout, stderr)."""
    run = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True,
                         text=True, env=dict(os.environ, **(env or {})))
    return run.returncode, run.stdout, run.stderr

def refused_cli(code, err, out=""):
    """A command's refusal: non-zero exit, a message, no traceback."""
    if "Traceback (most recent call last)" in err:
        raise SystemExit("OUTCOME RAW " + err.strip().splitlines()[-1])
    if code == 0:
        return False
    last = (err.strip() or out.strip() or "no message").splitlines()[-1]
    print("OUTCOME refused exit " + str(code) + ": " + last)
    return True

NEUTRAL = {
    "name": "r",
    "nodes": [{"id": "e1", "role": "edge", "servers": 2, "capacity": 20},
              {"id": "e2", "role": "edge", "servers": 2, "capacity": 20},
              {"id": "cloud", "role": "cloud", "servers": float("inf"), "speed": 4.0}],
    "links": [{"a": "e1", "b": "e2", "delay": 0.002}, {"a": "e1", "b": "cloud", "delay": 0.05},
              {"a": "e2", "b": "cloud", "delay": 0.05}],
    "workload": [{"source": "e1", "rate": 8.0, "size": {"dist": "deterministic", "value": 0.1}},
                 {"source": "e2", "rate": 6.0, "size": {"dist": "deterministic", "value": 0.1}}],
}

def with_(**change):
    d = json.loads(json.dumps(NEUTRAL))
    d.update(change)
    return d

def sim(scenario, policy="local", requests=2000, **kw):
    from workbench import arena
    return arena.simulate(scenario=scenario, policy=policy, requests=requests,
                          replications=2, seed=0, overload="transient", **kw)

try:
    exec(compile(SNIPPET, "reproducer", "exec"))
except BaseException as err:
    from workbench.validation import ParameterError
    if isinstance(err, ParameterError):
        print("OUTCOME refused " + type(err).__name__ + ": " + str(err).replace("\\n", " "))
    elif isinstance(err, SystemExit) and str(err).startswith("OUTCOME"):
        print(err)
    else:
        print("OUTCOME RAW " + type(err).__name__ + ": " + str(err).replace("\\n", " "))
sys.stdout.flush()
os._exit(0)  # a policy's thread that never returns must not keep this process
'''


@dataclass
class Reproducer:
    group: str
    what: str
    before: str  # what the issue saw
    expect: tuple  # outcomes the issue asks for: "refused", "right"
    code: str
    timeout: float = 180.0


def _policy_run(body: str, extra: str = "") -> str:
    return (
        "from workbench import arena\n"
        f"{body}\n"
        f"res = sim('neutral', POLICY{extra})\n"
        "d = float(res.mean_delay)\n"
        "(right if math.isfinite(d) and d > 0 else wrong)(f'mean delay {d:.4g}')\n"
    )


READS_PAST = """
def reads_past(queue, servers, speed, delay, u):
    return int(queue[10_000_000] + servers[-10_000_000])
POLICY = arena.policy(reads_past)
"""
LOOPS = """
def loops(queue, servers, speed, delay, u):
    x = 0.0
    while x >= 0.0:
        x += u + 1.0
    return 0
"""
CTRL_C = """
import signal, threading
# Ctrl-C raises KeyboardInterrupt, as in a terminal or Jupyter (a process started in the
# background by a shell inherits SIGINT ignored, and Python keeps it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
from workbench import arena
def loops(queue, servers, speed, delay, u):
    x = 0.0
    while x >= 0.0:
        x += u + 1.0
    return 0
pol = arena.policy(loops)
def interrupt():  # a user pressing Ctrl-C every 5 s (the first call compiles the engine)
    while True:
        time.sleep(5.0)
        os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
t0 = time.monotonic()
try:
    sim("neutral", pol, requests=100)
    wrong("returned")
except KeyboardInterrupt:
    right(f"Ctrl-C (SIGINT every 5 s) stopped the run after {time.monotonic() - t0:.0f} s")
"""
PLAIN = """
def first(queue, servers, speed, delay, u):
    return 0
POLICY = arena.UserPolicy("first", first)
"""
LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
    + ["nodes: *i"]
)


def _load(text: str, name: str = "s.yaml") -> str:
    return (
        f"Path({name!r}).write_text({text!r})\n"
        "t0 = time.perf_counter()\n"
        "from workbench import arena\n"
        f"sc = arena.load_scenario({name!r})\n"
        "wrong(f'loaded {sc.name!r} in {time.perf_counter() - t0:.1f} s')\n"
    )


def _refuse_dict(expr: str, simulate: bool = True, policy: str = "local") -> str:
    """Build the scenario dict ``expr`` and simulate it: a result is wrong."""
    return (
        f"d = {expr}\n"
        f"r = sim(d, {policy!r})\n"
        * simulate
        + "wrong(f'mean delay {float(r.mean_delay):.4g}, loss {float(r.loss_share):.4g}, "
        "energy {float(r.energy_per_task):.4g}')\n"
    )


def _value(expr: str, check: str) -> str:
    """Evaluate ``expr`` (imports first): ``check`` on ``v`` true is right."""
    return f"v = {expr}\n(right if ({check}) else wrong)(f'= {{v!r}}')\n"


PLANT = """
os.environ["WORKBENCH_CACHE"] = str(Path("cache").resolve())
os.environ["WORKBENCH_RESULTS_CACHE"] = "1"
import pickle
from workbench.erlang import erlang_b
from workbench.memo import cached_call
first = cached_call(erlang_b, 24, 10)
files = [p for p in Path("cache").rglob("*") if p.is_file()
         and not p.name.endswith((".lock", ".signing-key"))]
class Marker:
    def __reduce__(self):
        return (open, (str(Path("ran").resolve()), "w"))
for p in files:
    if HOW == "value":
        p.write_bytes(p.read_bytes().replace(repr(first).encode(), b"0.5"))
    else:
        p.write_bytes(pickle.dumps(Marker()))
again = cached_call(erlang_b, 24, 10)
if Path("ran").exists():
    wrong("the planted pickle ran its code")
elif again != first:
    wrong(f"erlang_b(24, 10) = {again!r} from the cache, not {first!r}")
else:
    right(f"{len(files)} entries planted; recomputed erlang_b(24, 10) = {again:.6g}")
"""
SITE_OVER = """
Path("foreign").mkdir()
Path("foreign/index.html").write_text("mine")
code, out, err = cli("site", "--quick", "--out", "foreign")
kept = Path("foreign/index.html").read_text() == "mine"
if not refused_cli(code, err, out):
    wrong(f"exit 0; index.html {'kept' if kept else 'overwritten'}")
elif not kept:
    print("OUTCOME WRONG refused, but index.html was overwritten")
"""
SCAFFOLD = """
from workbench.scaffold import new_paper
Path("out").mkdir()
new_paper(NAME, out="out")
wrong(f"wrote {sorted(p.name for p in Path('out').iterdir())}")
"""
TITLE = """
import importlib.util
from workbench.scaffold import new_paper
Path("out").mkdir()
title = 'Say "hi" \\'\\'\\' \"\"\" {x} \\\\ \\n# end'
new_paper("quoted_demo", out="out", title=title)
for p in Path("out").rglob("*.py"):
    compile(p.read_text(), str(p), "exec")
for p in Path("out").rglob("*.ipynb"):
    for cell in json.loads(p.read_text())["cells"]:
        if cell["cell_type"] == "code":
            compile("".join(cell["source"]).replace("%", "#"), str(p), "exec")
sys.path.insert(0, str(Path("out").resolve()))
import quoted_demo
right("the generated code compiles and the package imports as " + quoted_demo.__name__)
"""
TYPED_TITLE = """
from workbench.scaffold import new_paper
from workbench.validation import ParameterError
Path("out").mkdir()
try:
    new_paper("typed_demo", out="out", title=5)
    wrong("a title of 5 was accepted")
except ParameterError as err:
    left = [p for p in Path("out").rglob("*") if p.is_file()]
    if left:
        wrong(f"refused ({err}), but left {len(left)} files behind")
    else:
        new_paper("typed_demo", out="out", title="A retry")
        first = str(err).splitlines()[0][:90]
        right("refused by name (" + first + "), nothing left; the retry works")
"""
# an installed paper as pip records it (the package and its dist-info in ./site), with
# CONTENT as its paper.json and ENTRY as its entry point; then a command, with EXTRA set
INSTALLED = """
site = Path("site").resolve()
(site / "fuzzpaper").mkdir(parents=True)
(site / "fuzzpaper" / "__init__.py").write_text("")
(site / "fuzzpaper" / "paper.json").write_text(CONTENT)
(site / "fuzzpaper-0.1.dist-info").mkdir()
(site / "fuzzpaper-0.1.dist-info" / "METADATA").write_text(
    "Metadata-Version: 2.1\\nName: fuzzpaper\\nVersion: 0.1\\n")
(site / "fuzzpaper-0.1.dist-info" / "entry_points.txt").write_text(
    "[workbench.papers]\\n" + ENTRY + "\\n")
"""
ENTRY_POINT_CLI = (
    INSTALLED
    + """
path = str(site) + os.pathsep + os.environ.get("PYTHONPATH", "")
code, out, err = cli(*ARGS, env=dict(EXTRA, PYTHONPATH=path))
if not refused_cli(code, err, out):
    wrong("exit 0")
"""
)
ORDER_FIRST = (
    INSTALLED
    + """
sys.path.insert(0, str(site))
from workbench.registry import course
wrong(f"course() = {[p.id for p in course()]}")
"""
)
COMMAND = """
code, out, err = cli(*ARGS)
if not refused_cli(code, err, out):
    wrong("exit 0: " + (out.strip().splitlines() or [""])[-1][:100])
"""
OUT_ON_FILE = """
Path("a-file.txt").write_text("not a folder")
t0 = time.perf_counter()
code, out, err = cli(*ARGS)
if not refused_cli(code, err, out):
    wrong("exit 0")
print(f"OUTCOME-NOTE after {time.perf_counter() - t0:.0f} s")
"""
UNWRITABLE = """
Path("a-file").write_text("")
env = dict(os.environ, WORKBENCH_CACHE=str(Path("a-file/cache").resolve()),
           WORKBENCH_RESULTS_CACHE="1")
env.pop("NUMBA_CACHE_DIR", None)
env.pop("WORKBENCH_NUMBA_BASE", None)
code = ("import workbench; from workbench.memo import cached_call; "
        "from workbench.erlang import erlang_b; print(cached_call(erlang_b, 24, 10))")
run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
if run.returncode or "Traceback" in run.stderr:
    wrong((run.stderr.strip().splitlines() or ["exit " + str(run.returncode)])[-1])
else:
    warns = run.stderr.count("Warning")
    right(f"printed {run.stdout.strip()}, {warns} warning(s)")
"""
HEDGE = """
d = {"nodes": [{"id": "d", "role": "device", "servers": 0},
               {"id": "c", "role": "cloud", "servers": ".inf", "speed": 2.0}],
     "links": [{"a": "d", "b": "c", "delay": 0.01}],
     "workload": [{"source": "d", "rate": 1.0, "size": {"dist": "exponential", "mean": 1}}]}
r = sim(d, "hedge_cache")
# every task goes to the cloud (infinite servers, speed 2): delay 0.01 + 1/2
ok = r.cloud_share == 1.0 and abs(float(r.mean_delay) - 0.51) < 0.05
d = float(r.mean_delay)
(right if ok else wrong)(f"cloud share {r.cloud_share}, mean delay {d:.4g} (M/M/inf: 0.51)")
"""
TOPOLOGY = """
from workbench import hierarchy
t = hierarchy.symmetric_tree()
object.__setattr__(t, "parent", (0, 99, 0, 1, 1, 2, 2))
hierarchy.simulate(topology=t, periods=20, seed=0)
wrong("simulated a topology with a parent 99")
"""
DETECT = """
import numpy as np
from workbench import output_analysis
v = output_analysis.detect(np.linspace(1.0, 1.7, 2000) * 1e300)
(right if not v.stationary else wrong)(f"stationary={v.stationary} for a linear climb near 1e300")
"""
FINISH = """
import numpy as np
from workbench import output_analysis
reps = []
for i in range(3):
    y = np.random.default_rng(i).exponential(1.0, 400)
    reps.append(output_analysis.Replication({"x": float(y[40:].mean())}, y, 40))
res = output_analysis.finish(reps, func="f", metric=METRIC, quantities=["x"], confidence=0.95,
                             run_length=400, run_unit="draws")
if DIGITS is not None:
    res.table(digits=DIGITS)
wrong("accepted")
"""
ATLAS = """
import pandas as pd
from workbench.atlas import plot_atlas
row = {"paper": "p4", "claim": "c1", "reading": "all", "holds_share": 0.5, "verdict": "weird",
       "flip": ""}
plot_atlas(pd.DataFrame([row]))
wrong("drew an unknown verdict")
"""
PARAM_NAN = """
from workbench.params import Param
p = Param("x", "x", "a number", low=float("nan"), high=10.0)
p.check(-5.0, "f")
wrong("a bound of NaN accepted, and -5 with it")
"""
GRAPHML = """
from workbench.fog.scenario import load_scenario
ents = ['<!ENTITY a "lollollollollollollollollollol">']
ents += [f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi")]
Path("bomb.graphml").write_text('<?xml version="1.0"?><!DOCTYPE g [' + "".join(ents) + "]>"
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'
    '<node id="&i;"/></graph></graphml>')
g = load_scenario("bomb.graphml")
wrong(f"loaded {g.number_of_nodes()} nodes")
"""


def _set(name: str, value) -> str:
    return f"{name} = {value!r}\n"


def reproducers() -> list[Reproducer]:
    R, B = "refused", "right"
    line = {"id": "px", "topic": "x", "title": "T", "citation": "C", "notebook": "x.ipynb"}
    either = (R, B)
    out = [
        # -- crashes, hangs and bombs
        Reproducer(
            "crash/hang",
            "user policy reading past its arrays",
            "SIGSEGV",
            (R,),
            _policy_run(READS_PAST),
        ),
        Reproducer(
            "crash/hang",
            "user policy that never returns, timeout=5",
            "could not be stopped",
            (R,),
            _policy_run(LOOPS + "POLICY = arena.policy(loops)", extra=", timeout=5"),
        ),
        Reproducer(
            "crash/hang",
            "user policy that never returns, Ctrl-C",
            "Ctrl-C ignored",
            (B,),
            CTRL_C,
            timeout=600.0,  # a SIGINT during compilation waits for LLVM's pass to end
        ),
        Reproducer(
            "crash/hang",
            "UserPolicy around a plain Python function",
            "numba 'No matching definition'",
            either,
            _policy_run(PLAIN),
        ),
        Reproducer(
            "crash/hang", "633-byte YAML alias bomb", "81 s, MemoryError", (R,), _load(LAUGHS)
        ),
        Reproducer(
            "crash/hang",
            "30,000 nodes, simulated",
            "asks for 6.7 GiB",
            (R,),
            _refuse_dict(
                "{'nodes': [{'id': f'n{i}', 'role': 'edge'} for i in range(30000)], "
                "'workload': [{'source': 'n0', 'rate': 1.0, "
                "'size': {'dist': 'exponential', 'mean': 0.5}}]}"
            ),
        ),
        Reproducer(
            "crash/hang",
            "replicate m=64, requests=10**7",
            "asks for 4.8 GiB",
            (R,),
            "r = sim('neutral', 'replicate', requests=10**7, m=64)\nwrong('ran')\n",
        ),
        # -- silently wrong or lost
        Reproducer(
            "wrong/lost",
            "a node with no path to its target",
            "mean 1.0, loss 0, energy NaN",
            (R,),
            _refuse_dict(
                "with_(nodes=NEUTRAL['nodes'] + [{'id': 'lonely', 'role': 'edge', "
                "'servers': 0}], workload=[{'source': 'lonely', 'rate': 5.0, "
                "'size': {'dist': 'deterministic', 'value': 0.1}}])",
                policy="cloud",
            ),
        ),
        *[
            Reproducer(
                "wrong/lost",
                f"arrival rates {rate:g}, tasks of size 0.1",
                before,
                (R, B),
                "d = with_(workload=[dict(w, rate=RATE) for w in NEUTRAL['workload']])\n"
                "r = sim(d)\nv = float(r.mean_delay)\n"
                "(right if abs(v - 0.1) < 1e-6 else wrong)(f'mean delay {v:.4g}')\n".replace(
                    "RATE", repr(rate)
                ),
            )
            for rate, before in ((1e-12, "mean delay 0.118"), (1e-15, "mean delay 0.0"))
        ],
        Reproducer(
            "wrong/lost",
            "node powers of 1e308",
            "NaN",
            (R,),
            _refuse_dict("with_(nodes=[dict(n, power_busy=1e308) for n in NEUTRAL['nodes']])"),
        ),
        Reproducer(
            "wrong/lost",
            "link delays of 1e308",
            "NaN",
            (R,),
            _refuse_dict(
                "with_(links=[dict(x, delay=1e308) for x in NEUTRAL['links']])", policy="cloud"
            ),
        ),
        Reproducer(
            "wrong/lost",
            "a key written twice (YAML)",
            "last block kept",
            (R,),
            "import yaml\n"
            "text = yaml.safe_dump(NEUTRAL, sort_keys=False) + "
            "yaml.safe_dump({'workload': NEUTRAL['workload'][:1]})\n"
            + _load("PLACEHOLDER").replace("'PLACEHOLDER'", "text"),
        ),
        Reproducer(
            "wrong/lost",
            "a key written twice (JSON)",
            "last block kept",
            (R,),
            'text = json.dumps(NEUTRAL)[:-1] + \', "name": "again"}\'\n'
            + _load("PLACEHOLDER", "s.json").replace("'PLACEHOLDER'", "text"),
        ),
        Reproducer(
            "wrong/lost",
            "results cache: a planted value",
            "erlang_b(24, 10) = 0.5",
            (B,),
            _set("HOW", "value") + PLANT,
        ),
        Reproducer(
            "wrong/lost",
            "results cache: a planted pickle",
            "its code ran",
            (B,),
            _set("HOW", "pickle") + PLANT,
        ),
        Reproducer(
            "wrong/lost",
            "site --out into a folder with an index.html",
            "overwritten",
            (R,),
            SITE_OVER,
            timeout=600.0,
        ),
        Reproducer(
            "wrong/lost",
            "reproduce p4 --only no_such_figure",
            "exit 0, nothing done",
            (R,),
            _set("ARGS", ("reproduce", "p4", "--quick", "--only", "no_such_figure", "--out", "f"))
            + COMMAND,
            timeout=300.0,
        ),
        # -- raw errors: arena
        Reproducer(
            "raw: arena", "hedge_cache, serverless home node", "ZeroDivisionError", (B,), HEDGE
        ),
        Reproducer(
            "raw: arena",
            "Weibull shape 0.005",
            "OverflowError",
            (R,),
            _refuse_dict(
                "with_(workload=[dict(w, size={'dist': 'weibull', 'shape': 0.005, "
                "'scale': 1.0}) for w in NEUTRAL['workload']])"
            ),
        ),
        Reproducer(
            "raw: arena",
            "exponential mean 1e155",
            "OverflowError",
            (R,),
            _refuse_dict(
                "with_(workload=[dict(w, size={'dist': 'exponential', 'mean': 1e155}) "
                "for w in NEUTRAL['workload']])"
            ),
        ),
        Reproducer(
            "raw: arena",
            "two rates of 1e308",
            "numpy: probabilities do not sum to 1",
            (R,),
            _refuse_dict("with_(workload=[dict(w, rate=1e308) for w in NEUTRAL['workload']])"),
        ),
        Reproducer(
            "raw: arena",
            "a scenario file that is not UTF-8",
            "UnicodeDecodeError",
            (R,),
            "Path('latin.yaml').write_bytes(b'name: caf\\xe9\\n')\n"
            "from workbench import arena\narena.load_scenario('latin.yaml')\nwrong('loaded')\n",
        ),
        Reproducer(
            "raw: arena",
            "a folder as the scenario file",
            "IsADirectoryError",
            (R,),
            "Path('f.yaml').mkdir()\n"
            "from workbench import arena\narena.load_scenario('f.yaml')\nwrong('loaded')\n",
        ),
        Reproducer(
            "raw: arena",
            "load_scenario('')",
            "IsADirectoryError",
            (R,),
            "from workbench import arena\narena.load_scenario('')\nwrong('loaded')\n",
        ),
        Reproducer(
            "raw: arena",
            "power_of_d_delay(1e-310, 64)",
            "OverflowError",
            either,
            "from workbench.arena import power_of_d_delay\n"
            + _value("power_of_d_delay(1e-310, 64)", "abs(v - 1.0) < 1e-9"),
        ),
        Reproducer(
            "raw: arena",
            "threshold_delay(0.5, 1e-308, 2.0, 1.0)",
            "OverflowError",
            either,
            "from workbench.arena import threshold_delay\n"
            + _value("threshold_delay(0.5, 1e-308, 2.0, 1.0)", "math.isfinite(v) and v >= 0"),
        ),
        Reproducer(
            "raw: arena",
            "threshold_delay(5e-324, 1.0, 2.0, 1.0)",
            "math domain error",
            either,
            "from workbench.arena import threshold_delay\n"
            + _value("threshold_delay(5e-324, 1.0, 2.0, 1.0)", "abs(v - 1.0) < 1e-9"),
        ),
        Reproducer(
            "raw: arena",
            "energy_per_task(1e-308, 1.0, 5.0, 10.0)",
            "inf",
            either,
            "from workbench.arena import energy_per_task\n"
            + _value("energy_per_task(1e-308, 1.0, 5.0, 10.0)", "math.isfinite(v) and v > 0"),
        ),
        # -- raw errors: scaffold
        *[
            Reproducer(
                "raw: scaffold",
                f"new_paper({name!r})",
                "not importable or shadows",
                (R,),
                _set("NAME", name) + SCAFFOLD,
            )
            for name in ("class", "json", "numpy", "workbench")
        ],
        Reproducer(
            "raw: scaffold",
            "title with quotes, braces, backslash, newline",
            "pasted unescaped",
            (B,),
            TITLE,
        ),
        Reproducer(
            "raw: scaffold",
            "a wrong-typed title, then a retry",
            "half-written folder blocks the retry",
            (B,),
            TYPED_TITLE,
        ),
        # -- raw errors: registry and paper
        *[
            Reproducer(
                "raw: registry",
                what,
                before,
                (R,),
                _set("CONTENT", content)
                + _set("ENTRY", entry)
                + _set("EXTRA", extra)
                + _set("ARGS", ("papers",))
                + ENTRY_POINT_CLI,
            )
            for what, before, content, entry, extra in [
                (
                    "installed paper: malformed paper.json, `papers`",
                    "traceback in every command (then a WORKBENCH_PAPERS file)",
                    "[{nope",
                    "fuzzpaper = fuzzpaper",
                    {},
                ),
                (
                    "entry point naming no package, `papers`",
                    "(new with entry points)",
                    json.dumps(line),
                    "ghost = nosuchpackage",
                    {},
                ),
                (
                    "installed paper with a taken id (p1), `papers`",
                    "(new with entry points)",
                    json.dumps(line | {"id": "p1"}),
                    "fuzzpaper = fuzzpaper",
                    {},
                ),
                (
                    "WORKBENCH_PAPERS still set (retired), `papers`",
                    "(new: the variable is retired)",
                    json.dumps(line),
                    "fuzzpaper = fuzzpaper",
                    {"WORKBENCH_PAPERS": "papers.json"},
                ),
            ]
        ],
        Reproducer(
            "raw: registry",
            "`order: first`, then course()",
            "TypeError",
            (R,),
            _set("CONTENT", json.dumps(line | {"order": "first"}))
            + _set("ENTRY", "fuzzpaper = fuzzpaper")
            + ORDER_FIRST,
        ),
        Reproducer(
            "raw: registry",
            "check_paper(rules=5)",
            "TypeError",
            (R,),
            "from workbench.paper import check_paper\n"
            "check_paper('workbench.redundancy', rules=5)\nwrong('accepted')\n",
        ),
        Reproducer(
            "raw: registry",
            "Target(5, 'p9', None, None, False)",
            "AttributeError",
            (R,),
            "from workbench.paper.target import Target\n"
            "Target(5, 'p9', None, None, False)\nwrong('accepted')\n",
        ),
        # -- raw errors: elsewhere
        Reproducer(
            "raw: elsewhere",
            "SimulationResult.table(digits=-1)",
            "raw",
            (R,),
            _set("METRIC", "x") + _set("DIGITS", -1) + FINISH,
        ),
        Reproducer(
            "raw: elsewhere",
            "finish with a missing metric",
            "pandas KeyError",
            (R,),
            _set("METRIC", "nope") + _set("DIGITS", None) + FINISH,
        ),
        Reproducer(
            "raw: elsewhere",
            "fog.ring_scenario(3, 2, fog_mu=[[1, 2], [3]])",
            "numpy ValueError",
            (R,),
            "from workbench import fog\nfog.ring_scenario(3, 2, fog_mu=[[1, 2], [3]])\n"
            "wrong('accepted')\n",
        ),
        Reproducer(
            "raw: elsewhere",
            "format_number(10**400)",
            "OverflowError",
            (B,),
            "from workbench.numfmt import format_number\n"
            + _value("format_number(10**400)", "v == '1 × 10⁴⁰⁰'"),
        ),
        Reproducer("raw: elsewhere", "plot_atlas with an unknown verdict", "KeyError", (R,), ATLAS),
        Reproducer(
            "raw: elsewhere", "Param with a NaN bound, then -5", "accepted -5", (R,), PARAM_NAN
        ),
        Reproducer(
            "raw: elsewhere", "detect on a trend near 1e300", "called stationary", (B,), DETECT
        ),
        Reproducer(
            "raw: elsewhere",
            "Topology altered through object.__setattr__",
            "IndexError",
            (R,),
            TOPOLOGY,
        ),
        Reproducer(
            "raw: elsewhere",
            "import workbench, WORKBENCH_CACHE unwritable",
            "import fails",
            (B,),
            UNWRITABLE,
        ),
        Reproducer(
            "raw: elsewhere",
            "site --out onto a file",
            "traceback after the whole build",
            (R,),
            _set("ARGS", ("site", "--quick", "--out", "a-file.txt")) + OUT_ON_FILE,
            timeout=600.0,
        ),
        Reproducer(
            "raw: elsewhere",
            "reproduce p4 --out onto a file",
            "traceback",
            (R,),
            _set("ARGS", ("reproduce", "p4", "--quick", "--only", "fig5", "--out", "a-file.txt"))
            + OUT_ON_FILE,
            timeout=300.0,
        ),
        Reproducer("raw: elsewhere", "P1 GraphML entity bomb", "expansion", (R,), GRAPHML),
    ]
    return out


def run(rep: Reproducer, timeout: float | None = None) -> tuple[str, str, float]:
    """``(outcome, detail, seconds)`` of one reproducer in a fresh process and folder."""
    env = dict(os.environ, PYTHONPATH=str(REPO), MPLBACKEND="Agg")
    source = f"SNIPPET = {rep.code!r}\n" + PRELUDE
    with tempfile.TemporaryDirectory(prefix="wb-repro-") as folder:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", source],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout or rep.timeout,
            )
        except subprocess.TimeoutExpired:
            return (
                "HANG",
                f"no answer within {timeout or rep.timeout:g} s",
                time.perf_counter() - t0,
            )
        seconds = time.perf_counter() - t0
    lines = [x for x in proc.stdout.splitlines() if x.startswith("OUTCOME")]
    if proc.returncode < 0:
        return "CRASH", f"killed by signal {-proc.returncode}", seconds
    outcome = next((x for x in lines if x.startswith("OUTCOME ")), "")
    if not outcome:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return "RAW", last, seconds
    word, _, detail = outcome.removeprefix("OUTCOME ").partition(" ")
    notes = [x.removeprefix("OUTCOME-NOTE ") for x in lines if x.startswith("OUTCOME-NOTE")]
    return word, (detail + (f" ({notes[0]})" if notes else "")), seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="reproducers whose text holds one of these words")
    ap.add_argument("--timeout", type=float, help="seconds per reproducer (default: its own)")
    ap.add_argument("--width", type=int, default=110, help="characters of each answer shown")
    args = ap.parse_args()
    chosen = [
        r
        for r in reproducers()
        if not args.only or any(w.lower() in f"{r.group} {r.what}".lower() for w in args.only)
    ]
    print("| # | group | reproducer | issue saw | now | as asked | s |")
    print("|---|---|---|---|---|---|---|")
    missed = 0
    for i, rep in enumerate(chosen, 1):
        outcome, detail, seconds = run(rep, args.timeout)
        fine = outcome in rep.expect
        missed += not fine
        shown = f"{outcome}: {detail}"[: args.width].replace("|", "/")
        print(
            f"| {i} | {rep.group} | {rep.what} | {rep.before} | {shown} | "
            f"{'yes' if fine else 'NO'} | {seconds:.0f} |",
            flush=True,
        )
    print(f"\n{len(chosen) - missed} of {len(chosen)} as the issue asks")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
