"""The course site's execution schedule (workbench.site.execute.execute_all), without kernels:
the longest-planned notebook starts first, and the figures job waits for the notebooks."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from workbench.registry import PAPERS
from workbench.site import execute
from workbench.site.pages import notebook_order

NOTEBOOKS = notebook_order(execute.REPO / "notebooks")


def test_p2_is_planned_longest_and_every_plan_is_finite():
    plans = {nb.stem: execute.planned_seconds(nb, quick=True) for nb in NOTEBOOKS}
    assert max(plans, key=plans.get) == Path(PAPERS["p2"].notebook).stem
    assert plans["p2_proactive"] > 100  # 16 evaluations of about 20 s
    assert all(0 <= v < 1e4 for v in plans.values())


def test_longest_starts_first_and_the_figures_job_comes_after_every_notebook(monkeypatch, tmp_path):
    monkeypatch.setattr(execute, "cache_root", lambda: tmp_path)
    log, lock = [], threading.Lock()

    def fake_execute_one(path, target, parameters, log_):
        with lock:
            log.append(("start", path.stem))
        time.sleep(0.05)
        target.write_text("{}")
        with lock:
            log.append(("end", path.stem))
        return target

    def figures():
        with lock:
            log.append(("start", "figures"))
        return "figures-folder"

    monkeypatch.setattr(execute, "execute_one", fake_execute_one)
    # one slot: the queue's order is the order of the starts
    wanted, after = execute.execute_all(NOTEBOOKS, quick=True, jobs=1, then=figures)
    assert after == "figures-folder"
    assert set(wanted) == {nb.stem for nb in NOTEBOOKS}
    starts = [name for what, name in log if what == "start"]
    rest = [nb.stem for nb in NOTEBOOKS if nb.stem != "p2_proactive"]
    assert starts[0] == "p2_proactive" and starts[-1] == "figures", starts
    assert sorted(starts[1:-1]) == sorted(rest)
    plan = {nb.stem: execute.planned_seconds(nb, quick=True) for nb in NOTEBOOKS}
    assert [plan[n] for n in starts[:-1]] == sorted(plan.values(), reverse=True)

    log.clear()  # a second build: every notebook cached, only the figures job runs
    wanted2, after2 = execute.execute_all(NOTEBOOKS, quick=True, jobs=2, then=figures)
    assert wanted2 == wanted and after2 == "figures-folder"
    assert log == [("start", "figures")]

    for f in (tmp_path / "executed").glob("*.ipynb"):  # two slots: P2 in the first pair
        f.unlink()
    log.clear()
    execute.execute_all(NOTEBOOKS, quick=True, jobs=2, then=figures)
    starts = [name for what, name in log if what == "start"]
    assert "p2_proactive" in starts[:2] and sorted(starts) == sorted(
        [*rest, "p2_proactive", "figures"]
    )
