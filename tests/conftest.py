"""Suite-wide ordering and grouping, serial or on both cores (``run.sh test``: ``-n 2``).

- The real-browser tests run last. By then the notebooks have executed headless once, so
  every numba kernel is compiled and cached (NUMBA_CACHE_DIR) and the JupyterLab/Voila
  kernels only load it.
- Under pytest-xdist (``--dist loadgroup``) a test module is one unit of work, so its
  module-scoped fixtures (a tuning run, a quick claims table, the site build) are computed
  once, on one worker. The notebook executions are the longest tests and independent of
  each other: each is its own unit, queued first, so the two workers share them and the
  long tail of small modules fills the gaps (longest work first). The browser tests are
  split too, so that they end on both workers together.
- The course site (test_site.py) is queued after every other module but the browser tests:
  its build reuses the notebook executions of test_notebooks.py (one cache, one lock per
  notebook: :mod:`workbench.site.execute`).
- The units are queued in this order only with ``--no-loadscope-reorder`` (run.sh passes
  it): xdist otherwise sorts them by their number of tests.
"""

from __future__ import annotations

import os

# the library's tests compute every result (a monkeypatch is invisible to the code digest
# that keys workbench.memo's results cache); the notebook kernels they start turn it on, and
# so do the tests that check a notebook's own quick frames and claims tables
# (shared_results.py: computed once a run, by whichever comes first)
os.environ.setdefault("WORKBENCH_RESULTS_CACHE", "0")

# modules whose tests are split between the workers: the notebook executions (no
# module-scoped state) and the browser tests (each worker starts its own Chromium and
# servers once; as one unit they would be five minutes on one worker at the very end)
SPLIT_MODULES = {"test_notebooks.py", "test_browser.py"}
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


def _loadgroup(config) -> bool:
    """Whether this process collects for ``--dist loadgroup``. Only the workers collect,
    and xdist hands them ``dist`` = "no" (they do not distribute again) with the flag
    ``loadgroup`` set instead."""
    if getattr(config, "workerinput", None) is None:
        return False
    return bool(getattr(config.option, "loadgroup", False))


def _group_suffix(item, group: str) -> None:
    """Give ``item`` the ``@group`` suffix by which ``--dist loadgroup`` groups tests.

    xdist's worker hook writes it to ``item._nodeid``, which pytest 9.2 no longer reads (the
    node id is ``item._id``, a structured NodeId: pytest-xdist#1386), and it runs before
    this conftest's hook anyway. Set here, in whichever form this pytest keeps."""
    if item.nodeid.endswith("@" + group):
        return
    named = f"{item.nodeid}@{group}"
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # pytest < 9.2: the string attribute is the node id
        item._nodeid = named
        return
    item._id = coerce_node_id(named)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: collection order within each rank
    if not _loadgroup(config):
        return
    # without a suffix every test is its own unit, and a module's fixtures are built on
    # both workers (the site build twice)
    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        if not names and _module(item) not in SPLIT_MODULES:
            names = {_module(item)}
        if names:
            _group_suffix(item, "_".join(sorted(names)))
