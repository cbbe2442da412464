"""The sweep on a real Dask cluster: a scheduler and two workers as separate processes.

One worker is killed (SIGKILL) in the middle of a sweep; every (point, replication) must
still come back exactly once, with the numbers of a local run. An address nobody listens on
must fail with a clear error after the connect timeout, not hang.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from _sweep_targets import require_distributed, slow_draws
from pandas.testing import assert_frame_equal

from workbench.sweep import SweepError, sweep

ROOT = Path(__file__).resolve().parent.parent
POINTS = list(range(10))
REPLICATIONS = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture
def cluster(tmp_path):
    """``(address, [worker Popen, worker Popen])``: ``dask scheduler`` and two ``dask worker``
    processes on loopback, one thread each, no nanny (a killed worker stays dead)."""
    distributed = require_distributed()
    address = f"tcp://127.0.0.1:{free_port()}"
    paths = [str(ROOT), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    dask = [sys.executable, "-m", "dask"]
    procs = []

    def start(args, log):
        out = open(tmp_path / log, "w")  # the process keeps it; closed when the test ends
        procs.append(subprocess.Popen(dask + args, env=env, stdout=out, stderr=out))
        return procs[-1]

    try:
        port = address.rsplit(":", 1)[1]
        start(["scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], "s.log")
        worker = ["worker", address, "--nthreads", "1", "--nworkers", "1", "--no-nanny"]
        worker += ["--host", "127.0.0.1", "--no-dashboard"]
        workers = [start(worker + ["--name", f"w{i}"], f"w{i}.log") for i in range(2)]
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=30)
        yield address, workers
    finally:
        for proc in procs:
            stop(proc)


def plain(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out.attrs = {}
    return out


def test_worker_killed_mid_sweep_every_point_once_same_numbers(cluster, tmp_path):
    address, workers = cluster
    log_dir = tmp_path / "starts"
    log_dir.mkdir()
    grid = {"x": POINTS}
    options = {"replications": REPLICATIONS, "progress": False}

    def on_cluster():
        return sweep(slow_draws, grid, fixed={"log_dir": str(log_dir)}, client=address, **options)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(on_cluster)
        pids = {w.pid for w in workers}
        # wait until both workers are busy and a few evaluations have started, then kill the
        # worker that started an evaluation last: it is in the middle of it
        deadline = time.time() + 30
        while time.time() < deadline:
            starts = sorted(log_dir.iterdir(), key=lambda p: p.stat().st_mtime_ns)
            busy = {int(p.name.split("-")[2]) for p in starts}
            if len(starts) >= 4 and busy >= pids:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the cluster never ran the sweep on both workers")
        victim_pid = int(starts[-1].name.split("-")[2])
        victim = next(w for w in workers if w.pid == victim_pid)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(10)
        killed_after = len(starts)
        df = running.result(timeout=60)
    elapsed = time.perf_counter() - t0

    # every (point, replication) exactly once
    keys = list(df[["x", "replication"]].itertuples(index=False, name=None))
    expected = [(x, r) for x in POINTS for r in range(REPLICATIONS)]
    assert keys == expected and not df.duplicated(["x", "replication"]).any()
    assert df.attrs["sweep"]["backend"] == "dask" and df.attrs["sweep"]["computed"] == 20
    # the same numbers as a local run in this process (no sleep: it changes no number)
    local = sweep(slow_draws, grid, fixed={"delay": 0.0}, n_workers=1, **options)
    assert_frame_equal(plain(df), plain(local), check_exact=True)
    # the killed worker's evaluation ran again elsewhere, and was counted once
    starts = len(list(log_dir.iterdir()))
    assert starts > len(expected) and victim.returncode == -signal.SIGKILL
    print(
        f"\nkilled worker pid {victim_pid} (SIGKILL) after {killed_after} evaluations had "
        f"started; {len(df)} rows for {len(expected)} (point, replication) pairs, no duplicate; "
        f"{starts} evaluations started in all ({starts - len(expected)} re-run); identical "
        f"to the local run; {elapsed:.1f} s"
    )


def test_unreachable_scheduler_fails_clearly_without_hanging(monkeypatch):
    require_distributed()
    import workbench.sweep

    # the library waits 10 s for a scheduler; the mechanism is the same at 2 s
    monkeypatch.setattr(workbench.sweep, "_CONNECT_TIMEOUT", 2)
    address = f"tcp://127.0.0.1:{free_port()}"  # nobody listens there
    t0 = time.perf_counter()
    with pytest.raises(SweepError, match="could not reach the Dask scheduler at .* within 2 s"):
        sweep(slow_draws, {"x": [1]}, client=address, progress=False)
    assert time.perf_counter() - t0 < 15
