"""Every paper notebook, in a real headless Chromium, in JupyterLab and in Voila.

For each notebook: the first ``.wb-interactive`` view shows a slider and a figure, moving
the slider with the keyboard redraws the figure (its ``<img src>`` changes), and no Python
traceback appears. Screenshots (``<app>-<notebook>[-before|-FAILED].png``) and
``timings.json`` go to ``tests/_artifacts/`` (``WB_ARTIFACTS_DIR`` overrides).

Run: ``NUMBA_CACHE_DIR=$PWD/.numba_cache .venv/bin/python -m pytest -m browser -v``.
One browser and one server of each kind serve all the tests of this module. They are
module-scoped, not session-scoped, on purpose: Playwright's sync API leaves its asyncio loop
marked as running in the main thread while it is started, which would break asyncio.run()
(and nbclient) in any test module that pytest runs after this one.
"""

from __future__ import annotations

import browser_support as bs
import pytest

pytestmark = pytest.mark.browser

NOTEBOOKS = [p.name for p in bs.notebook_paths()]  # an empty folder fails test_notebooks
IDS = [name.removesuffix(".ipynb") for name in NOTEBOOKS]


@pytest.fixture(scope="module")
def served_root(tmp_path_factory):
    """A temporary copy of the notebooks folder: JupyterLab autosaves and checkpoints."""
    bs.require_browser()
    return bs.copy_notebooks(bs.notebooks_dir(), tmp_path_factory.mktemp("served") / "nb")


@pytest.fixture(scope="module")
def browser():
    bs.require_browser()
    with bs.chromium() as b:
        yield b


@pytest.fixture(scope="module")
def lab(served_root, tmp_path_factory):
    with bs.lab_server(served_root, tmp_path_factory.mktemp("lab")) as server:
        yield server


@pytest.fixture(scope="module")
def voila(served_root, tmp_path_factory):
    with bs.voila_server(served_root, tmp_path_factory.mktemp("voila")) as server:
        yield server


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=IDS)
def test_jupyterlab_slider_redraws_figure(notebook, browser, lab, record_property):
    timings = bs.check_in_lab(browser, lab, notebook)
    record_property("timings_s", timings)
    bs.save_timings("jupyterlab", notebook, timings)
    print(f"lab {notebook}: {timings}")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=IDS)
def test_voila_slider_redraws_figure(notebook, browser, voila, record_property):
    timings = bs.check_in_voila(browser, voila, notebook)
    record_property("timings_s", timings)
    bs.save_timings("voila", notebook, timings)
    print(f"voila {notebook}: {timings}")
