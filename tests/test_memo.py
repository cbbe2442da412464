"""workbench.memo: a notebook result is reused by a second run of the same code, recomputed
when the code changes, and never cached when turned off."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from plugin_dist import fake_install

from workbench import digest, memo


def counted(log: str, x: int) -> int:
    """A module-level function that records each real call in ``log``."""
    with open(log, "a") as f:
        f.write("call\n")
    return 2 * x


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_result_is_reused_then_recomputed_after_a_code_change(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    log = tmp_path / "calls.txt"
    assert memo.cached_call(counted, str(log), 21) == 42
    assert memo.cached_call(counted, str(log), 21) == 42
    assert _calls(log) == 1, "the second call should come from the cache"
    assert memo.cached_call(counted, str(log), 5) == 10  # other arguments: computed
    assert _calls(log) == 2
    monkeypatch.setattr(digest, "_FULL", ["another version of the code"])
    assert memo.cached_call(counted, str(log), 21) == 42
    assert _calls(log) == 3, "a changed code digest must recompute"


def test_turned_off_it_always_computes(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "0")
    log = tmp_path / "calls.txt"
    memo.cached_call(counted, str(log), 1)
    memo.cached_call(counted, str(log), 1)
    assert _calls(log) == 2
    assert not (tmp_path / "cache" / "results").exists()


def seeded_counted(log: str, x: int, seed: int = 0) -> int:
    """:func:`counted` for a seeded figure: its notebook seed is an argument."""
    return counted(log, x) + seed


def test_the_notebook_seed_is_part_of_the_key(tmp_path, monkeypatch):
    """Figures take the notebook's SEED as an argument: a result kept at one SEED is not
    served at another, and the same SEED reads it back."""
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    log = tmp_path / "calls.txt"
    assert memo.cached_call(seeded_counted, str(log), 3, seed=0) == 6
    assert memo.cached_call(seeded_counted, str(log), 3, seed=7) == 13
    assert _calls(log) == 2, "another notebook seed must recompute"
    assert memo.cached_call(seeded_counted, str(log), 3, seed=7) == 13
    assert _calls(log) == 2


def slow_counted(log: str, x: int) -> int:
    """:func:`counted`, taking a second: long enough for a second process to ask meanwhile."""
    import time

    time.sleep(1.0)
    return counted(log, x)


def _ask(barrier, log: str, out) -> None:
    barrier.wait()  # both processes ask at the same moment
    out.put(memo.cached_call(slow_counted, log, 7))


def test_two_processes_asking_for_the_same_result_compute_it_once(tmp_path, monkeypatch):
    """A test beside the notebook that computes the same quick table: the second asker waits
    for the first (a lock per result) and reads what it kept, instead of computing it too."""
    import multiprocessing

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    log = tmp_path / "calls.txt"
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_ask, args=(barrier, str(log), out)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert results == [14, 14]
    assert _calls(log) == 1, "the second process computed the result again"


# ------------------------------------------------------------- keys: what a result reads


def total_rate(name: str) -> float:
    """What a figure reads from a shipped scenario file: its total arrival rate."""
    from workbench.arena.scenario import load_scenario

    return float(sum(w.rate for w in load_scenario(name).workload))


def _data_copy(tmp_path, monkeypatch) -> Path:
    """A copy of ``data/`` that the package reads (scenarios) and the key hashes instead of
    the shipped folder, which is never edited."""
    import shutil

    from workbench.arena import scenario

    data = tmp_path / "data"
    shutil.copytree(digest.DATA, data)
    monkeypatch.setattr(digest, "DATA", data)
    monkeypatch.setattr(scenario, "SCENARIOS_DIR", data / "scenarios")
    monkeypatch.setattr(digest, "_FULL", [])
    return data


def test_an_edited_scenario_file_gives_a_new_result(tmp_path, monkeypatch):
    """Issue 40's reproducer in small: a scenario's arrival rate changes and the cached
    result must follow it (the key used to cover ``data/**/*.csv`` only)."""
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    data = _data_copy(tmp_path, monkeypatch)
    before = memo.cached_call(total_rate, "neutral")
    assert before == 36.0 + 24.0 + 28.0 + 24.0
    yaml = data / "scenarios" / "neutral.yaml"
    yaml.write_text(yaml.read_text().replace("rate: 36.0", "rate: 72.0", 1))
    monkeypatch.setattr(digest, "_FULL", [])  # a new process: the digest is computed again
    assert memo.cached_call(total_rate, "neutral") == before + 36.0


def test_the_key_covers_every_data_file_the_library_versions_and_an_outside_paper(
    tmp_path, monkeypatch
):
    data = _data_copy(tmp_path, monkeypatch)
    base = digest.code_digest()
    trace = data / "measured" / "one.csv"  # a new kind of data file, under a new folder
    trace.parent.mkdir()
    trace.write_text("t\n0.5\n")
    with_trace = digest.code_digest()
    assert with_trace != base
    from importlib import metadata

    real = metadata.version
    with monkeypatch.context() as m:  # another scipy: every kept number may move
        m.setattr(metadata, "version", lambda name: "0.0" if name == "scipy" else real(name))
        assert digest.code_digest() != with_trace
    assert digest.code_digest() == with_trace
    # a paper package outside the repository, registered through its entry point
    site = tmp_path / "site"
    line = {"id": "px", "topic": "mypaper", "title": "T", "citation": "C"}
    folder = fake_install(site, "mypaper", line | {"notebook": "nb.ipynb", "claims_csv": "c.csv"})
    (folder / "model.py").write_text("X = 1\n")
    (site / "c.csv").write_text("id\n")
    from workbench import registry

    monkeypatch.syspath_prepend(str(site))
    (px,) = registry.installed()  # what the registry registers when it is imported
    monkeypatch.setitem(registry.PAPERS, "px", px)
    keys = [digest.code_digest()]
    for path, text in [
        (folder / "model.py", "X = 2\n"),
        (folder / "paper.json", json.dumps(line | {"notebook": "other.ipynb"})),
        (site / "c.csv", "id\nx\n"),
    ]:
        path.write_text(text)
        keys.append(digest.code_digest())
        assert keys[-1] != keys[-2], f"an outside paper's {path.name} is not in the key"


def test_a_paper_installed_through_an_entry_point_is_in_a_new_process_key(tmp_path):
    """The registry registers the entry-point paper when a process imports it, and that
    process's digest reads the paper's files: an edit gives a new key."""
    line = {"id": "px", "topic": "mypaper", "title": "T", "citation": "C", "notebook": "n"}
    folder = fake_install(tmp_path, "mypaper", line)
    (folder / "model.py").write_text("X = 1\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    code = "from workbench import digest, registry; print(registry.PAPERS['px'].package, "
    code += "digest.code_digest())"

    def key() -> str:
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
        )
        assert run.returncode == 0, run.stderr
        return run.stdout.split()

    package, first = key()
    (folder / "model.py").write_text("X = 2\n")
    again, second = key()
    assert package == again == "mypaper" and second != first


# ------------------------------------------------------------- entries: data, not code


def _entries(tmp_path) -> list[Path]:
    return sorted((tmp_path / "cache" / "results" / "data").rglob("*.json"))


def _cache_on(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")


def erlang_b_twin(servers: int, load: float) -> float:
    """Erlang's B by its recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1."""
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b


def test_a_planted_value_is_recomputed_not_returned(tmp_path, monkeypatch):
    """Issue 43: erlang_b(24, 10) planted as 0.5 was returned as the answer."""
    from workbench.erlang import erlang_b

    _cache_on(tmp_path, monkeypatch)
    right = memo.cached_call(erlang_b, 24, 10)
    (entry,) = _entries(tmp_path)
    head, _, body = entry.read_bytes().partition(b"\n")
    planted = body.replace(str(right).encode(), b"0.5")
    assert planted != body
    for forged in (planted, head + b"\n" + planted, b"workbench-cache 1 " + b"0" * 64 + b"\n"):
        entry.write_bytes(forged)
        assert memo.cached_call(erlang_b, 24, 10) == right
    # a sound entry of another key, copied over this one: signed for its own key only
    memo.cached_call(erlang_b, 30, 10)
    other = next(p for p in _entries(tmp_path) if p != entry)
    entry.write_bytes(other.read_bytes())
    assert memo.cached_call(erlang_b, 24, 10) == right
    assert math.isclose(right, erlang_b_twin(24, 10.0), rel_tol=1e-12)


def test_a_planted_pickle_runs_nothing(tmp_path, monkeypatch):
    import pickle

    _cache_on(tmp_path, monkeypatch)
    log = tmp_path / "calls.txt"
    assert memo.cached_call(counted, str(log), 4) == 8
    (entry,) = _entries(tmp_path)
    ran = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    entry.write_bytes(pickle.dumps(Payload()))
    assert memo.cached_call(counted, str(log), 4) == 8
    assert not ran.exists(), "loading a cache entry ran code"
    assert _calls(log) == 2


@pytest.mark.parametrize("damage", ["truncated", "empty", "not json", "flipped byte"])
def test_a_damaged_entry_is_recomputed(tmp_path, monkeypatch, damage):
    _cache_on(tmp_path, monkeypatch)
    log = tmp_path / "calls.txt"
    frame = memo.cached_call(a_frame, str(log))
    (entry,) = _entries(tmp_path)
    raw = entry.read_bytes()
    entry.write_bytes(
        {
            "truncated": raw[: len(raw) // 2],
            "empty": b"",
            "not json": raw.split(b"\n")[0] + b"\n{nope",
            "flipped byte": raw[:-5] + bytes([raw[-5] ^ 1]) + raw[-4:],
        }[damage]
    )
    again = memo.cached_call(a_frame, str(log))
    pd.testing.assert_frame_equal(again, frame)
    assert _calls(log) == 2
    pd.testing.assert_frame_equal(memo.cached_call(a_frame, str(log)), frame)  # rewritten
    assert _calls(log) == 2


def a_frame(log: str) -> pd.DataFrame:
    """A result with the column types the notebooks keep (counted like :func:`counted`)."""
    counted(log, 0)
    frame = pd.DataFrame(
        {
            "policy": ["local", "cloud", "local"],
            "servers": np.array([1, 2, 3], dtype=np.int64),
            "delay": [0.1, math.nan, math.inf],
            "ok": [True, False, True],
            "kind": pd.Categorical(["a", "b", "a"]),
            "count": pd.array([1, None, 3], dtype="Int64"),
            "mixed": np.array([1, "x", None], dtype=object),
        },
        index=pd.Index([10, 20, 30], name="row"),
    )
    frame.attrs["sweep"] = {"computed": 3, "ranges": {"lam": (0.1, 2.0)}}
    return frame


def test_results_come_back_as_they_went_in(tmp_path):
    from workbench._store import Store

    store = Store(tmp_path)
    frame = a_frame(str(tmp_path / "log"))
    values = {
        "frame": frame,
        "series": pd.Series([1.5, 2.5], index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)])),
        "nested": {"rows": [1, 2.0, "3", None, (4, 5)], (1, "k"): np.float32(0.5)},
        "array": np.arange(6, dtype=np.int32).reshape(2, 3),
        "big": 10**40,
        "nan": math.nan,
    }
    for i, (name, value) in enumerate(values.items()):
        key = f"{i:02x}" * 4
        assert store.put(key, value), name
        hit, back = store.get(key)
        assert hit, name
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(back, value, check_exact=True)
            assert back.attrs == value.attrs
        elif isinstance(value, pd.Series):
            pd.testing.assert_series_equal(back, value, check_exact=True)
        elif isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        elif name == "nan":
            assert math.isnan(back)
        else:
            assert back == value and type(back) is type(value)
    assert type(store.get("02" * 4)[1][(1, "k")]) is np.float32
    # what is not data is not kept: a function, an object array of objects
    assert not store.put("ff" * 4, {"f": print})
    assert store.get("ff" * 4) == (False, None)


def test_an_unwritable_cache_means_computing_without_it_with_one_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("WORKBENCH_CACHE", str(blocker / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    monkeypatch.setattr(digest, "_WARNED", set())
    log = tmp_path / "calls.txt"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert memo.cached_call(counted, str(log), 2) == 4
        assert memo.cached_call(counted, str(log), 2) == 4
    assert _calls(log) == 2
    assert len(caught) == 1 and "without a cache" in str(caught[0].message)


def test_import_workbench_works_when_the_cache_is_unwritable(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    numba_vars = ("NUMBA_CACHE_DIR", "WORKBENCH_NUMBA_BASE")
    env = {k: v for k, v in os.environ.items() if k not in numba_vars}
    env["WORKBENCH_CACHE"] = str(blocker / "cache")
    code = (
        "import warnings; warnings.simplefilter('always'); import workbench; "
        "from numba.core import config; print(config.CACHE_DIR); "
        "print(workbench.erlang_b(24, 10))"
    )
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    folder, value = run.stdout.split()
    assert not folder.startswith(str(blocker))
    assert math.isclose(float(value), erlang_b_twin(24, 10.0), rel_tol=1e-12)
    assert run.stderr.count("RuntimeWarning") == 1, run.stderr


def square(x: float) -> dict:
    """A sweep's evaluation."""
    return {"y": x * x}


def test_the_sweep_cache_refuses_planted_values_and_pickles(tmp_path):
    """The atlas keeps its evaluations in the sweep's cache: the same rules hold there."""
    import pickle

    from workbench.sweep import sweep

    kw = {"n_workers": 1, "progress": False, "cache_dir": tmp_path / "sweep"}
    first = sweep(square, {"x": [3.0, 4.0]}, **kw)
    entries = sorted((tmp_path / "sweep").rglob("*.json"))
    assert len(entries) == 2
    head, _, body = entries[0].read_bytes().partition(b"\n")
    entries[0].write_bytes(head + b"\n" + body.replace(b"9.0", b"0.5").replace(b"16.0", b"0.5"))
    ran = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    entries[1].write_bytes(pickle.dumps(Payload()))
    again = sweep(square, {"x": [3.0, 4.0]}, **kw)
    assert list(again["y"]) == [9.0, 16.0] == list(first["y"])
    assert again.attrs["sweep"]["computed"] == 2 and not ran.exists()
    assert sweep(square, {"x": [3.0, 4.0]}, **kw).attrs["sweep"]["from_cache"] == 2
