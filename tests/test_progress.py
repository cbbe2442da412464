"""workbench.progress: a finished notebook bar is hidden, never closed (Voila renders a
cell's output after the cell has run and would find no widget model), and a loop stopped
because it is done ends full."""

from __future__ import annotations

import io

import pytest

from workbench import progress


@pytest.fixture
def notebook_tqdm(monkeypatch):
    """Make tqdm.auto the notebook class, as inside a Jupyter kernel."""
    import tqdm.auto
    import tqdm.notebook

    class Auto(tqdm.notebook.tqdm):
        pass

    monkeypatch.setattr(tqdm.auto, "tqdm", Auto)
    return Auto


def test_a_finished_notebook_bar_is_hidden_and_its_model_kept(notebook_tqdm):
    bar = progress.open_bar(200, "to ±5 %")
    assert isinstance(bar, notebook_tqdm)
    bar.update(16)  # a precision loop done after 16 of at most 200 replications
    progress.finish_bar(bar)
    container = bar.container
    assert container.comm is not None, "the widget was closed: Voila would print 'model not found'"
    assert container.layout.display == "none"
    assert bar.n == bar.total == 16
    assert container.children[1].bar_style == "success"


def test_a_failed_notebook_bar_stays_red_and_visible(notebook_tqdm):
    bar = progress.open_bar(10, "work")
    with pytest.raises(RuntimeError):
        try:
            bar.update(3)
            raise RuntimeError("boom")
        finally:
            progress.finish_bar(bar)
    assert bar.container.comm is not None
    assert bar.container.layout.display != "none"
    assert bar.container.children[1].bar_style == "danger"
    assert bar.n == 3 and bar.total == 10


def test_a_kept_bar_stays_on_screen(notebook_tqdm):
    bar = progress.open_bar(6, "sweep", keep=True, unit="eval")
    bar.update(6)
    progress.finish_bar(bar, keep=True)
    assert bar.container.layout.display != "none"
    assert bar.container.comm is not None


def test_text_bar_is_erased_and_disabled_is_none():
    assert progress.open_bar(5, "x", enabled=False) is None
    progress.finish_bar(None)  # ignored
    out = io.StringIO()
    bar = progress.open_bar(5, "x", file=out)
    bar.update(2)
    progress.finish_bar(bar)
    assert bar.n == bar.total == 2
    assert not bar.leave  # a terminal bar leaves no line behind


def test_the_replication_engine_leaves_no_closed_widget(notebook_tqdm, monkeypatch):
    """The replication engine's bar, as a notebook shows it, ends hidden and open."""
    import workbench.output_analysis as oa

    seen = []

    def spy(*args, **kwargs):
        seen.append(progress.open_bar(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(oa, "open_bar", spy)
    out = oa.replicate(lambda seq, i: i, replications=4, seed=1, progress=True)
    assert out == [0, 1, 2, 3] and len(seen) == 1
    assert seen[0].container.comm is not None and seen[0].container.layout.display == "none"
