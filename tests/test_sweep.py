"""The sweep engine: equal results on every backend, stable seeds, resumable disk cache."""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sweep_targets as st
from _sweep_targets import require_distributed
from hypothesis import given, settings
from hypothesis import strategies as hs
from pandas.testing import assert_frame_equal

from workbench import _store
from workbench.sweep import SweepError, SweepPointError, point_seed, sweep
from workbench.validation import ParameterError

GRID = {"x": [0, 1, 2, 3], "y": np.linspace(0.0, 1.0, 3)}


def plain(df: pd.DataFrame) -> pd.DataFrame:
    """A copy without attrs (timings differ between runs)."""
    out = df.copy()
    out.attrs = {}
    return out


def assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert_frame_equal(plain(a), plain(b), check_exact=True)


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return sweep(st.noisy, GRID, replications=3, n_workers=1, progress=False)


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = require_distributed()  # a skip, or under CI a failure, without the extra
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        host="127.0.0.1",
    )
    client = distributed.Client(cluster, set_as_default=False)
    yield cluster, client
    client.close()
    cluster.close()


# --------------------------------------------------------------------------- shape and order


def test_frame_layout_and_grid_order(reference):
    df = reference
    assert list(df.columns) == ["x", "y", "replication", "seed", "mean", "u"]
    assert len(df) == 4 * 3 * 3
    # cartesian product, first name slowest, then replications
    expected = [(x, y, r) for x in GRID["x"] for y in GRID["y"] for r in range(3)]
    assert list(df[["x", "y", "replication"]].itertuples(index=False, name=None)) == expected
    assert df["x"].dtype == np.int64 and df["y"].dtype == np.float64
    assert df["seed"].dtype == np.int64
    assert df.attrs["sweep"]["computed"] == 36 and df.attrs["sweep"]["from_cache"] == 0
    assert df.attrs["sweep"]["seconds"] >= 0
    # each row is exactly func at that point with that seed
    for row in df.sample(5, random_state=1).itertuples():
        out = st.noisy(row.x, row.y, seed=row.seed)
        assert (row.mean, row.u) == (out["mean"], out["u"])


def test_dataframe_result_gets_point_columns_prepended():
    df = sweep(
        st.draws,
        {"n": [2, 0, 3]},
        fixed={"scale": 2.0},
        replications=2,
        n_workers=1,
        progress=False,
    )
    assert list(df.columns) == ["n", "replication", "seed", "k", "draw"]
    assert len(df) == (2 + 0 + 3) * 2
    assert df["k"].dtype == np.int64  # the empty result must not upcast to object
    first = df[(df.n == 3) & (df.replication == 1)]
    expected = st.draws(3, scale=2.0, seed=int(first["seed"].iloc[0]))
    assert_frame_equal(first[["k", "draw"]].reset_index(drop=True), expected)


def test_scalar_result_without_seed_parameter():
    df = sweep(st.product, {"x": [1, 2], "y": [10, 20, 30]}, n_workers=1, progress=False)
    assert list(df.columns) == ["x", "y", "replication", "seed", "value"]
    assert df["value"].tolist() == [10, 20, 30, 20, 40, 60]


def test_dict_grid_equals_explicit_points(reference):
    points = [{"x": x, "y": float(y)} for x in GRID["x"] for y in GRID["y"]]
    from_list = sweep(st.noisy, points, replications=3, n_workers=1, progress=False)
    from_frame = sweep(st.noisy, pd.DataFrame(points), replications=3, n_workers=1, progress=False)
    assert_same(from_list, reference)
    assert_same(from_frame, reference)


def test_progress_bar_shows_description(capsys):
    sweep(st.product, {"x": [1, 2], "y": [3]}, n_workers=1, progress=True, desc="demo-bar")
    assert "demo-bar" in capsys.readouterr().err
    sweep(st.product, {"x": [1, 2], "y": [3]}, n_workers=1, progress=False, desc="quiet-bar")
    assert "quiet-bar" not in capsys.readouterr().err


# --------------------------------------------------------------------------- backends


@pytest.mark.parametrize(
    "options",
    [{"n_workers": 2}, {"n_workers": 2, "chunk_size": 1}, {"chunk_size": 7}],
    ids=["processes-auto-chunks", "processes-chunk-1", "default-workers-chunk-7"],
)
def test_process_pool_matches_in_process(reference, options):
    df = sweep(st.noisy, GRID, replications=3, progress=False, **options)
    assert df.attrs["sweep"]["backend"] == "processes"
    assert_same(df, reference)


@pytest.mark.parametrize("chunk_size", [None, 1, 5])
def test_dask_client_matches_in_process(reference, dask_cluster, chunk_size):
    _, client = dask_cluster
    df = sweep(st.noisy, GRID, replications=3, client=client, chunk_size=chunk_size, progress=False)
    assert df.attrs["sweep"]["backend"] == "dask"
    assert_same(df, reference)


def test_dask_scheduler_address_and_cache(reference, dask_cluster, tmp_path):
    cluster, client = dask_cluster
    address = cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    df = sweep(st.noisy, GRID, replications=3, client=address, cache_dir=tmp_path, progress=False)
    assert_same(df, reference)
    assert df.attrs["sweep"]["computed"] == 36
    # the client wrote the cache: an in-process re-run computes nothing
    again = sweep(st.noisy, GRID, replications=3, n_workers=1, cache_dir=tmp_path, progress=False)
    assert again.attrs["sweep"]["from_cache"] == 36 and again.attrs["sweep"]["computed"] == 0
    assert_same(again, reference)
    # the address path must not leave the user's own client unusable
    assert client.submit(sum, [1, 2]).result() == 3


def test_dask_point_error_names_point_and_resumes(dask_cluster, tmp_path):
    _, client = dask_cluster
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    (counters / "fail").write_text("2")
    (counters / "slow").write_text("0.4")
    with pytest.raises(SweepPointError, match=r"x=2") as info:
        run_counting(counters, cache, client=client, chunk_size=1)
    assert isinstance(info.value.__cause__, ValueError)
    cached = len(list(cache.rglob("*.json")))
    assert cached <= 5
    # nothing of the stopped sweep goes on running on the cluster: the cache and the call
    # count stay as they were when the error reached us
    ran = st.calls(counters)
    time.sleep(1.5)
    assert len(list(cache.rglob("*.json"))) == cached and st.calls(counters) == ran
    (counters / "fail").unlink()
    (counters / "slow").unlink()
    df = run_counting(counters, cache, client=client, chunk_size=1)
    assert df.attrs["sweep"]["from_cache"] == cached
    assert df.attrs["sweep"]["computed"] == 6 - cached
    assert_same(df, run_counting(tmp_path, None))


def test_sweep_imports_and_runs_without_dask_and_says_how_to_get_it():
    """Dask is an optional extra: without it a sweep runs locally, and client= says what
    to install."""
    import subprocess

    script = (
        "import sys\n"
        "sys.modules['dask'] = sys.modules['distributed'] = None  # as if not installed\n"
        "from workbench.sweep import sweep\n"
        "assert 'distributed' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
        "df = sweep(lambda x: x + 1, {'x': [1, 2]}, n_workers=1, progress=False)\n"
        "assert df['value'].tolist() == [2, 3]\n"
        "try:\n"
        "    sweep(lambda x: x, {'x': [1]}, client='tcp://127.0.0.1:1', progress=False)\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert "pip install 'workbench[dask]'" in out.stdout


# --------------------------------------------------------------------------- seeds


def test_seeds_distinct_and_match_point_seed(reference):
    assert reference["seed"].is_unique
    assert ((reference["seed"] >= 0) & (reference["seed"] < 2**63)).all()
    for row in reference.head(6).itertuples():
        assert row.seed == point_seed({"x": row.x, "y": row.y}, row.replication)


def test_seeds_depend_on_base_seed_but_not_on_column_order():
    a = sweep(st.noisy, {"x": [1, 2], "y": [0.5]}, n_workers=1, progress=False)
    b = sweep(st.noisy, {"y": [0.5], "x": [1, 2]}, n_workers=1, progress=False)
    c = sweep(st.noisy, {"x": [1, 2], "y": [0.5]}, base_seed=1, n_workers=1, progress=False)
    assert a["seed"].tolist() == b["seed"].tolist()
    assert set(a["seed"]).isdisjoint(c["seed"])
    # equal numbers give equal seeds whatever their type (1 == 1.0 == np.int64(1))
    assert point_seed({"x": 1}) == point_seed({"x": 1.0}) == point_seed({"x": np.int64(1)})
    assert point_seed({"x": 1}) != point_seed({"x": 1.5})
    assert point_seed({"x": 1}) != point_seed({"x": "1"})


def test_same_call_twice_gives_identical_frames(reference):
    again = sweep(st.noisy, GRID, replications=3, n_workers=1, progress=False)
    assert_same(again, reference)


@settings(max_examples=25, deadline=None)
@given(xs=hs.lists(hs.integers(-50, 50), min_size=1, max_size=6, unique=True))
def test_seed_of_a_point_ignores_the_rest_of_the_grid(xs):
    whole = sweep(st.noisy, {"x": xs}, replications=2, n_workers=1, progress=False)
    for x in xs:
        alone = sweep(st.noisy, {"x": [x]}, replications=2, n_workers=1, progress=False)
        part = whole[whole.x == x].reset_index(drop=True)
        assert_same(part, alone)


# --------------------------------------------------------------------------- cache and resume


def run_counting(tmp_path, cache_dir, **kw):
    options = {"n_workers": 1, "progress": False, **kw}
    return sweep(
        st.counting,
        {"x": list(range(6))},
        fixed={"counter_dir": str(tmp_path)},
        cache_dir=cache_dir,
        **options,
    )


def test_resume_after_exception_recomputes_only_missing(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    (counters / "fail").write_text("3")
    with pytest.raises(SweepPointError, match=r"x=3") as info:
        run_counting(counters, cache)
    assert isinstance(info.value.__cause__, ValueError)
    assert "boom at 3" in str(info.value)
    assert info.value.point == {"x": 3} and info.value.replication == 0
    assert [st.calls(counters, x) for x in range(6)] == [1, 1, 1, 1, 0, 0]

    (counters / "fail").unlink()
    df = run_counting(counters, cache)
    assert df.attrs["sweep"]["from_cache"] == 3 and df.attrs["sweep"]["computed"] == 3
    assert [st.calls(counters, x) for x in range(6)] == [1, 1, 1, 2, 1, 1]
    assert_same(df, run_counting(tmp_path, None))


def test_resume_after_keyboard_interrupt(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    (counters / "interrupt").write_text("4")
    with pytest.raises(KeyboardInterrupt):
        run_counting(counters, cache, replications=2)
    (counters / "interrupt").unlink()
    df = run_counting(counters, cache, replications=2)
    # 4 points x 2 replications finished before the interrupt; x=4 and x=5 remain
    assert df.attrs["sweep"]["from_cache"] == 8 and df.attrs["sweep"]["computed"] == 4
    assert_same(df, run_counting(tmp_path, None, replications=2))


def test_resume_after_exception_in_worker_process(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    (counters / "fail").write_text("3")
    with pytest.raises(SweepPointError, match=r"x=3") as info:
        run_counting(counters, cache, n_workers=2, chunk_size=1)
    original = info.value.__cause__
    assert isinstance(original, ValueError)
    assert "boom at 3" in str(original.__cause__)  # the worker's traceback travels along
    # workers are stopped at once: which other points finished is a race, but each
    # finished point is cached, and the re-run computes exactly the others
    cached = len(list(cache.rglob("*.json")))
    first = [st.calls(counters, x) for x in range(6)]
    assert first[3] == 1 and cached <= 5

    (counters / "fail").unlink()
    df = run_counting(counters, cache, n_workers=2, chunk_size=1)
    second = [st.calls(counters, x) - n for x, n in enumerate(first)]
    assert second[3] == 1 and set(second) <= {0, 1}
    assert df.attrs["sweep"]["computed"] == sum(second) == 6 - cached
    assert df.attrs["sweep"]["from_cache"] == cached
    assert_same(df, run_counting(tmp_path, None))


def test_resume_after_worker_crash(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    (counters / "crash").write_text("4")
    with pytest.raises(SweepError, match="died"):
        run_counting(counters, cache, n_workers=2, chunk_size=1)
    cached = len(list(cache.rglob("*.json")))
    before = [st.calls(counters, x) for x in range(6)]

    (counters / "crash").unlink()
    df = run_counting(counters, cache, n_workers=2, chunk_size=1)
    new = [st.calls(counters, x) - n for x, n in enumerate(before)]
    assert df.attrs["sweep"]["from_cache"] == cached
    assert df.attrs["sweep"]["computed"] == 6 - cached == sum(new)
    assert set(new) <= {0, 1} and new[4] == 1
    assert_same(df, run_counting(tmp_path, None))


def test_interrupt_in_parent_stops_workers_and_resumes(tmp_path, monkeypatch):
    import tqdm.auto

    class InterruptingBar(tqdm.auto.tqdm):
        done = 0  # self.n stays 0 while the bar is disabled

        def update(self, n=1):
            super().update(n)
            InterruptingBar.done += n
            if InterruptingBar.done >= 2:
                raise KeyboardInterrupt

    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    children = {p.pid for p in multiprocessing.active_children()}
    monkeypatch.setattr(tqdm.auto, "tqdm", InterruptingBar)
    with pytest.raises(KeyboardInterrupt):
        run_counting(counters, cache, n_workers=2, chunk_size=1)
    monkeypatch.undo()
    # no orphaned worker keeps computing after control returned
    assert {p.pid for p in multiprocessing.active_children()} <= children
    cached = len(list(cache.rglob("*.json")))
    assert cached >= 2
    before = st.calls(counters)
    df = run_counting(counters, cache)
    assert df.attrs["sweep"]["from_cache"] == cached
    assert st.calls(counters) - before == 6 - cached
    assert_same(df, run_counting(tmp_path, None))


def test_cache_hit_and_code_version_invalidation(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    a = run_counting(counters, cache, code_version="v1")
    b = run_counting(counters, cache, code_version="v1")
    assert (a.attrs["sweep"]["computed"], b.attrs["sweep"]["computed"]) == (6, 0)
    assert b.attrs["sweep"]["from_cache"] == 6 and st.calls(counters) == 6
    assert_same(a, b)
    c = run_counting(counters, cache, code_version="v2")
    assert c.attrs["sweep"]["computed"] == 6 and st.calls(counters) == 12
    # the default version (hash of the source) is stable between calls
    run_counting(counters, cache)
    d = run_counting(counters, cache)
    assert d.attrs["sweep"]["from_cache"] == 6 and st.calls(counters) == 18
    assert d.attrs["sweep"]["code_version"] not in ("v1", "v2")


def test_cache_key_covers_fixed_seed_and_function(tmp_path):
    kw = {"n_workers": 1, "progress": False, "cache_dir": tmp_path}
    sweep(st.draws, {"n": [1, 2]}, fixed={"scale": 1.0}, **kw)
    assert (
        sweep(st.draws, {"n": [1, 2]}, fixed={"scale": 1.0}, **kw).attrs["sweep"]["from_cache"] == 2
    )
    assert (
        sweep(st.draws, {"n": [1, 2]}, fixed={"scale": 2.0}, **kw).attrs["sweep"]["computed"] == 2
    )
    assert (
        sweep(st.draws, {"n": [1, 2]}, fixed={"scale": 1.0}, base_seed=5, **kw).attrs["sweep"][
            "computed"
        ]
        == 2
    )
    assert (
        sweep(st.draws, {"n": [1, 2]}, fixed={"scale": 1.0}, replications=2, **kw).attrs["sweep"][
            "computed"
        ]
        == 2
    )  # replication 0 reused, replication 1 new
    renamed = sweep(st.product, {"x": [1, 2], "y": [1]}, **kw)
    assert renamed.attrs["sweep"]["computed"] == 2


def test_cache_dir_removed_between_runs_is_recreated(tmp_path):
    import shutil

    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    run_counting(counters, cache)
    shutil.rmtree(cache)
    df = run_counting(counters, cache)
    assert df.attrs["sweep"]["computed"] == 6 and len(list(cache.rglob("*.json"))) == 6


def test_no_cache_without_cache_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    counters = tmp_path / "calls"
    counters.mkdir()
    a = run_counting(counters, None)
    b = run_counting(counters, None)
    assert b.attrs["sweep"]["from_cache"] == 0 and b.attrs["sweep"]["computed"] == 6
    assert st.calls(counters) == 12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calls"]
    assert_same(a, b)


def test_corrupt_cache_entry_is_recomputed(tmp_path):
    counters, cache = tmp_path / "calls", tmp_path / "cache"
    counters.mkdir()
    ref = run_counting(counters, cache)
    victim = sorted(cache.rglob("*.json"))[0]
    victim.write_bytes(b"not an entry")
    df = run_counting(counters, cache)
    assert df.attrs["sweep"]["computed"] == 1 and df.attrs["sweep"]["from_cache"] == 5
    assert_same(df, ref)
    head, _, body = victim.read_bytes().partition(b"\n")  # rewritten whole, signed
    assert head.startswith(b"workbench-cache 1 ")
    assert set(_store.decode(json.loads(body))) == {"value", "x2"}


# --------------------------------------------------------------------------- errors


def test_unpicklable_exception_from_worker_still_names_point():
    with pytest.raises(SweepPointError, match=r"x=2.*Unpicklable") as info:
        sweep(st.raises_unpicklable, {"x": [1, 2, 3]}, n_workers=2, progress=False)
    assert "cannot travel" in str(info.value.__cause__)


def test_func_returning_a_list_is_a_point_error():
    with pytest.raises(SweepPointError, match=r"x=1") as info:
        sweep(lambda x: [x, x], {"x": [1]}, n_workers=1, progress=False)
    assert isinstance(info.value.__cause__, TypeError)


def test_result_column_clashing_with_grid_is_rejected():
    with pytest.raises(SweepError, match="clash"):
        sweep(lambda x: {"x": 2 * x}, {"x": [1]}, n_workers=1, progress=False)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"replications": 0}, "replications"),
        ({"replications": 1.5}, "replications"),
        ({"n_workers": 0}, "n_workers"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"base_seed": -1}, "base_seed"),
        ({"grid": {}}, "grid"),
        ({"grid": []}, "grid"),
        ({"grid": pd.DataFrame({"x": []})}, "grid"),
        ({"grid": {"x": 5}}, "grid"),
        ({"grid": {"x": "abc"}}, "grid"),
        ({"grid": {"x": []}}, "grid"),
        ({"grid": {"x": {1, 2}}}, "grid"),
        ({"grid": [{"x": 1}, {"y": 2}]}, "grid"),
        ({"grid": {"seed": [1]}}, "grid"),
        ({"grid": {"z": [1]}}, "grid"),
        ({"grid": {"y": [1]}}, "grid"),  # required x missing
        ({"grid": {"x": [object()]}}, "grid"),
        ({"fixed": {"x": 1}}, "fixed"),
        ({"fixed": [1]}, "fixed"),
        ({"func": 5}, "func"),
        ({"func": lambda x, y, seed: x}, "func"),
        ({"client": 5}, "client"),
        ({"client": " "}, "client"),  # an empty address would start a local cluster
        ({"client": "nonsense"}, "client"),  # no port: refused before connecting
        ({"client": cf.ThreadPoolExecutor(1)}, "client"),  # has .submit, is not Dask
        ({"cache_dir": 5}, "cache_dir"),
        ({"code_version": 3}, "code_version"),
        ({"progress": "yes"}, "progress"),
    ],
)
def test_bad_arguments_raise_parameter_error(kwargs, name, tmp_path):
    call = {
        "func": st.noisy,
        "grid": {"x": [1, 2], "y": [0.5]},
        "n_workers": 2,
        "progress": False,
        **kwargs,
    }
    with pytest.raises(ParameterError, match=rf"The '{name}' parameter of sweep must be"):
        sweep(call.pop("func"), call.pop("grid"), **call)


def test_interactive_function_refused_for_processes(monkeypatch):
    def f(x, seed):
        return x

    f.__module__, f.__qualname__ = "__main__", "f"
    fake_main = types.ModuleType("__main__")  # like a notebook: no __file__
    fake_main.f = f
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    with pytest.raises(ParameterError, match="The 'func' parameter of sweep must be"):
        sweep(f, {"x": [1]}, n_workers=2, progress=False)
    assert sweep(f, {"x": [1]}, n_workers=1, progress=False)["value"].tolist() == [1]


def test_parameter_error_message_form():
    with pytest.raises(ParameterError) as info:
        sweep(st.noisy, {"x": [1]}, n_workers=0)
    assert str(info.value) == (
        "The 'n_workers' parameter of sweep must be an int in the range [1, inf). Got 0 instead."
    )


def test_point_seed_refuses_a_non_mapping():
    with pytest.raises(ParameterError, match="The 'point' parameter of point_seed must be"):
        point_seed(5)


def test_workers_exit_when_the_sweeping_process_is_killed(tmp_path):
    """kill -9 of the parent: its workers, busy in a 10-minute evaluation, must exit."""
    import os
    import signal
    import subprocess
    import time

    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import sweep_targets as st\n"
        "from workbench.sweep import sweep\n"
        "if __name__ == '__main__':\n"
        f"    sweep(st.sleeper, {{'x': [1, 2]}}, fixed={{'pid_dir': {str(pid_dir)!r}}},"
        " n_workers=2, chunk_size=1, progress=False)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.time() + 120
    while len(list(pid_dir.iterdir())) < 2 and time.time() < deadline:
        time.sleep(0.2)
    workers = [int(p.name) for p in pid_dir.iterdir()]
    assert len(workers) == 2, "the workers never started"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()

    def alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{pid}/stat") as fh:  # a zombie has exited already
            return fh.read().split(")")[-1].split()[0] != "Z"

    deadline = time.time() + 15
    while any(alive(p) for p in workers) and time.time() < deadline:
        time.sleep(0.2)
    survivors = [p for p in workers if alive(p)]
    for p in survivors:
        os.kill(p, signal.SIGKILL)
    assert not survivors, f"workers {survivors} outlived their killed parent"


def test_an_oversized_sweep_is_refused_before_the_grid_is_expanded():
    import time as _time

    t0 = _time.perf_counter()
    with pytest.raises(ParameterError, match="'replications' parameter of sweep would need"):
        grid = {"x": range(10**4), "y": [1]}
        sweep(st.product, grid, replications=10**6, n_workers=1, progress=False)
    with pytest.raises(ParameterError, match=r"'replications' parameter of sweep must be an int"):
        sweep(st.product, {"x": [1, 2], "y": [1]}, replications=10**12, n_workers=1, progress=False)
    grid = {"x": range(10**4), "y": range(10**3), "z": range(10**3)}  # 10^10 points
    with pytest.raises(ParameterError, match="'grid' parameter of sweep would need"):
        sweep(st.product, grid, n_workers=1, progress=False)
    with pytest.raises(ParameterError, match="keyed by valid Python identifiers"):
        sweep(st.product, {"bad key": range(10**7)}, n_workers=1, progress=False)
    assert _time.perf_counter() - t0 < 2.0


def test_a_cache_dir_that_looks_like_a_flag_or_holds_other_files_is_refused(tmp_path):
    for flag in ("1", "True", "", "0.5"):
        with pytest.raises(ParameterError, match="'cache_dir' parameter of sweep must be a folder"):
            sweep(st.product, {"x": [1], "y": [2]}, n_workers=1, progress=False, cache_dir=flag)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ParameterError, match="holds other files"):
        sweep(st.product, {"x": [1], "y": [2]}, n_workers=1, progress=False, cache_dir=tmp_path)
    with pytest.raises(ParameterError, match="inside an existing folder"):
        sweep(
            st.product,
            {"x": [1], "y": [2]},
            n_workers=1,
            progress=False,
            cache_dir=tmp_path / "a" / "b",
        )
    ok = sweep(
        st.product, {"x": [1], "y": [2]}, n_workers=1, progress=False, cache_dir=tmp_path / "cache"
    )
    assert list(ok["x"]) == [1]
    again = sweep(
        st.product, {"x": [1], "y": [2]}, n_workers=1, progress=False, cache_dir=tmp_path / "cache"
    )
    assert again.equals(ok)


def test_a_simulation_result_becomes_one_row_with_its_stationarity_flag():
    out = sweep(st.mm1_result, {"lam": [0.5, 1.2]}, n_workers=1, progress=False)
    assert list(out["stationary"]) == [True, False]
    assert (out["ci_low"] <= out["mean"]).all() and (out["mean"] <= out["ci_high"]).all()
