"""workbench.memo: a notebook result is reused by a second run of the same code, recomputed
when the code changes, and never cached when turned off."""

from __future__ import annotations

from pathlib import Path

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


def test_the_notebook_seed_is_part_of_the_key(tmp_path, monkeypatch):
    """Figures read the notebook's SEED through figure_seed, not through their arguments: a
    result kept at one SEED must not be served at another."""
    from workbench import seeding

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WORKBENCH_RESULTS_CACHE", "1")
    log = tmp_path / "calls.txt"
    try:
        memo.cached_call(counted, str(log), 3)
        seeding.set_notebook_seed(7)
        memo.cached_call(counted, str(log), 3)
        assert _calls(log) == 2, "another notebook seed must recompute"
        memo.cached_call(counted, str(log), 3)
        assert _calls(log) == 2
    finally:
        seeding.set_notebook_seed(0)


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
