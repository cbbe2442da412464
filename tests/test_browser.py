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

import time

import browser_support as bs
import nbformat
import pytest
from test_notebooks import static_figure_cells

pytestmark = pytest.mark.browser

# the paper notebooks (each has slider views); the course index has none
NOTEBOOKS = [p.name for p in bs.notebook_paths() if p.name != "00_index.ipynb"]
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


def headless_run_first(notebook: str) -> None:
    """The notebook's headless run (test_notebooks.py's, the site's): done already, waited
    for while the other xdist worker makes it (one lock per notebook), or made here.

    Its kernel fills the results and atlas caches that JupyterLab's and Voila's kernels then
    reuse. Without it a browser test could start while the other worker was still executing
    the same notebook and compute everything a second time: P2's quick atlas alone is about
    five CPU-minutes, which under load ran past the 300 s a view is given."""
    from workbench.site.execute import execute_cached

    execute_cached(bs.notebooks_dir() / notebook, quick=True, seed=0, log=lambda *_: None)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=IDS)
def test_jupyterlab_slider_redraws_figure_and_save_stays_clean(
    notebook, browser, lab, served_root, record_property
):
    """Run all, move a slider, let JupyterLab autosave, save: the file on disk is byte for byte
    the committed one (no outputs, no widget state, no rewritten kernel metadata: JupyterLab
    runs with the workbench's pre-save hook, as ``run.sh lab`` starts it), and every static
    figure of the notebook rendered as an image."""
    committed = bs.notebooks_dir() / notebook
    before = nbformat.read(committed, as_version=4)
    headless_run_first(notebook)
    timings = bs.check_in_lab(browser, lab, notebook, served_root / notebook)
    record_property("timings_s", timings)
    bs.save_timings("jupyterlab", notebook, timings)
    saved = nbformat.read(served_root / notebook, as_version=4)
    dirty = [i for i, c in enumerate(saved.cells) if c.cell_type == "code" and c.outputs]
    assert not dirty, f"saved {notebook} carries outputs in cells {dirty}"
    assert "widgets" not in saved.metadata, "saved widget state would show dead widgets"
    assert [c.source for c in saved.cells] == [c.source for c in before.cells]
    assert (served_root / notebook).read_bytes() == committed.read_bytes(), (
        f"{notebook} changed on disk after open, run and save: git status would be dirty"
    )
    assert timings["bare_figures"] == 0, f"{notebook}: a figure shows as <Figure size ...> text"
    assert timings["views_with_figure"] == timings["views"] > 0, (
        f"{notebook}: {timings['views_with_figure']:.0f} of {timings['views']:.0f} views show "
        "a figure after Run All"
    )
    assert timings["rows_too_wide"] == 0, (
        f"{notebook}: control rows wider than the {timings['column_px']:.0f} px output column "
        "at 1280 × 800 with the file browser open (in the timings file)"
    )
    expected = len(static_figure_cells(before))
    assert timings["static_images"] >= expected, (
        f"{notebook}: {timings['static_images']:.0f} figure images rendered, "
        f"{expected} static-figure cells"
    )
    print(f"lab {notebook}: {timings}")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=IDS)
def test_voila_slider_redraws_figure(notebook, browser, voila, record_property):
    headless_run_first(notebook)
    timings = bs.check_in_voila(browser, voila, notebook)
    record_property("timings_s", timings)
    bs.save_timings("voila", notebook, timings)
    print(f"voila {notebook}: {timings}")


def test_voila_shuts_down_the_kernel_of_a_closed_tab(browser, served_root, tmp_path_factory):
    """`run.sh app` culls idle kernels; here with a 3 s idle limit instead of 15 min."""
    fast_cull = (
        "--MappingKernelManager.cull_idle_timeout=3",
        "--MappingKernelManager.cull_interval=1",
    )
    with bs.voila_server(served_root, tmp_path_factory.mktemp("cull"), fast_cull) as server:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{server.url}/voila/render/00_index.ipynb", wait_until="load", timeout=120_000)
        page.wait_for_selector("a[href$='.ipynb']", timeout=60_000)
        assert len(server.kernels()) == 1, "the page should run one kernel"
        links = page.locator("a[href$='.ipynb']").count()
        assert links == len(NOTEBOOKS), f"the course index links {links} notebooks"
        context.close()
        deadline = time.monotonic() + 60
        while server.kernels() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not server.kernels(), "the closed tab's kernel is still running after 60 s"


P4 = "p4_redundancy.ipynb"


@pytest.mark.skipif(P4 not in NOTEBOOKS, reason="the P4 notebook is not in this checkout")
def test_voila_family_switch_and_dependent_range_in_the_model_view(browser, voila):
    """The P4 model view in a real browser: switching the service family shows that family's
    own controls and redraws without refusing a value; lowering N pulls the range of m down
    with it (m ≤ N), so the plot never gets a value the slider does not show."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(bs.RECORD_LOAD_TIME)
    check = bs.Check(page, voila, "voila-p4-controls")
    try:
        page.goto(f"{voila.url}/voila/render/{P4}", wait_until="commit")
        bs.wait_for_view(check, "body", bs.VOILA_VIEW_TIMEOUT, bs.VOILA_GIVE_UP_JS)
        page.wait_for_load_state("load", timeout=bs.VOILA_VIEW_TIMEOUT)
        view = page.locator(bs.VIEW).first
        img = view.locator(".wb-figure img").first

        def control(label_text):
            # one control row: its label (symbol, meaning, unit) and the control itself
            return view.locator(".wb-control", has_text=label_text).first

        src = img.get_attribute("src")
        control("service-time family").locator("select").select_option("Pareto")
        page.wait_for_function(
            "([el, old]) => el.src !== old", arg=[img.element_handle(), src], timeout=60_000
        )
        assert control("Pareto tail index").is_visible()
        assert not control("S-Exp rate").is_visible()
        text = view.inner_text()
        assert "refused" not in text and "out of date" not in text, text[:500]

        src = img.get_attribute("src")
        n_handle = control("edge workers").locator(".noUi-handle").first
        n_handle.focus()
        page.keyboard.press("Home")  # N to its minimum
        page.wait_for_function(
            "([el, old]) => el.src !== old", arg=[img.element_handle(), src], timeout=60_000
        )
        n_now = n_handle.get_attribute("aria-valuenow")
        m_handle = control("replication factor").locator(".noUi-handle").first
        assert float(m_handle.get_attribute("aria-valuemax")) == float(n_now)
        assert float(m_handle.get_attribute("aria-valuenow")) <= float(n_now)
        check.screenshot()
    finally:
        context.close()
