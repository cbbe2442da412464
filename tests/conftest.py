"""Suite-wide ordering and grouping, serial or on both cores (``run.sh test``: ``-n 2``).

- The real-browser tests run last. By then the notebooks have executed headless once, so
  every numba kernel is compiled and cached (NUMBA_CACHE_DIR) and the JupyterLab/Voila
  kernels only load it.
- Under pytest-xdist (``--dist loadgroup``) a test module is one unit of work, so its
  module-scoped fixtures (a tuning run, a quick claims table, a browser with its servers)
  are computed once, on one worker. The notebook executions are the longest tests and
  independent of each other: each is its own unit, queued first, so the two workers share
  them and the long tail of small modules fills the gaps (longest work first).
- The course site (test_site.py) is queued after every other module but the browser tests:
  its build reuses the notebook executions of test_notebooks.py (one cache, one lock per
  notebook: :mod:`workbench.site.execute`).
- The units are queued in this order only with ``--no-loadscope-reorder`` (run.sh passes
  it): xdist otherwise sorts them by their number of tests.
"""

from __future__ import annotations

import os

import pytest

# the library's tests compute every result (a monkeypatch is invisible to the code digest
# that keys workbench.memo's results cache); the notebook kernels they start turn it on
os.environ.setdefault("WORKBENCH_RESULTS_CACHE", "0")

# modules whose tests are split between the workers (no module-scoped state)
SPLIT_MODULES = {"test_notebooks.py"}
# modules queued first, longest first (each is minutes of notebook kernels or simulation)
FIRST = ("test_notebooks.py",)
# queued after every other module but the browser tests: the site build then finds every
# notebook executed (and cached) by test_notebooks.py instead of running it a second time
LAST = ("test_site.py",)


def _module(item) -> str:
    return item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1]


def _rank(item) -> tuple[int, int]:
    module = _module(item)
    if module in LAST:  # its browser checks too: the module stays one unit of work
        return (1, 1 + LAST.index(module))
    if item.get_closest_marker("browser") is not None:
        return (2, 0)
    if module in FIRST:
        return (0, FIRST.index(module))
    return (1, 0)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: collection order within each rank
    if not config.pluginmanager.hasplugin("xdist") or config.getoption("dist", "no") == "no":
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        module = _module(item)
        group = item.nodeid if module in SPLIT_MODULES else module
        item.add_marker(pytest.mark.xdist_group(group))
