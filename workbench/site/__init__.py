"""The course site: the notebooks as static HTML, a slide deck and a PDF handout per paper.

``python -m workbench site [--quick] [--out DIR]`` (``bash run.sh site``):

1. executes every notebook in ``notebooks/`` at its defaults through its papermill
   parameters (``QUICK``, ``SEED``), with ``WORKBENCH_STATIC=1`` so that every slider view
   is drawn at its defaults as a picture with its controls listed
   (:mod:`workbench.static_views`); executions are cached by a digest of the code
   (:mod:`workbench.site.execute`);
2. regenerates every figure as CSV + PNG (``python -m workbench reproduce all``), cached too;
3. builds the site with Sphinx + myst-nb + sphinx-book-theme (:mod:`workbench.site.pages`):
   the course index in teaching order, a page per notebook, the claims, the glossary, the
   figures page, full-text search;
4. writes a reveal.js deck per notebook under ``slides/`` (:mod:`workbench.site.slides`);
5. prints two PDF handouts per notebook under ``handouts/`` with headless Chromium, one
   with the worked solutions shown (:mod:`workbench.site.handouts`).

Everything is built under ``$WORKBENCH_CACHE/site`` (default ``~/.cache/workbench/site``)
and copied to ``--out`` (default ``site/``, ignored by git). A second build with nothing
changed starts no kernel, rebuilds nothing in Sphinx, and prints no PDF again (the decks,
a second each, are rewritten).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path

from workbench.locks import locked
from workbench.site import execute, pages

__all__ = ["build"]


def build(out: str | Path = "site", quick: bool = False, seed: int = 0, log=print) -> dict:
    """Build the course site into ``out``; returns what was built (pages, decks, handouts)."""
    t0 = time.perf_counter()
    repo = execute.REPO
    notebooks = pages.notebook_order(repo / "notebooks")
    # the figures job (`reproduce all`) runs after the notebooks, on their two slots: it
    # then reads the figures' frames from the results cache their kernels filled
    executed, figures = execute.execute_all(
        notebooks, quick=quick, seed=seed, log=log, then=lambda: execute.cached_figures(quick, log)
    )
    work = execute.cache_root() / "sphinx" / ("quick" if quick else "full")
    with locked(work):  # a second build at the same time waits, then reuses it
        src, html = work / "src", work / "html"
        pages.write_sources(src, executed, notebooks, figures, repo)
        pages.sphinx_build(src, html, log=log)
        from workbench.site import handouts, slides

        decks = {}
        for nb in notebooks:
            deck = html / "slides" / f"{nb.stem}.slides.html"  # a second each: always rewritten
            slides.write_deck(executed[nb.stem], deck, nb.stem)
            decks[nb.stem] = deck
        # a handout is printed again when its page changed or the printing code did
        stamp = html / "handouts" / ".printer"
        printer = hashlib.sha256(Path(handouts.__file__).read_bytes()).hexdigest()
        fresh = stamp.exists() and stamp.read_text() == printer
        stale = [
            nb.stem
            for nb in notebooks
            if not fresh
            or any(
                not (html / "handouts" / f).exists()
                or (html / "handouts" / f).stat().st_mtime
                < (html / f"{nb.stem}.html").stat().st_mtime
                for f in handouts.handout_names(nb.stem).values()
            )
        ]
        if stale:
            handouts.print_handouts(html, stale, log=log)
            stamp.write_text(printer)
        out = Path(out)
        shutil.copytree(html, out, dirs_exist_ok=True)
    log(f"site: built {out} in {time.perf_counter() - t0:.0f} s")
    return {
        "out": out,
        "pages": [nb.stem for nb in notebooks],
        "decks": {k: out / "slides" / v.name for k, v in decks.items()},
        "handouts": {nb.stem: out / "handouts" / f"{nb.stem}.pdf" for nb in notebooks},
        "solutions": {nb.stem: out / "handouts" / f"{nb.stem}-solutions.pdf" for nb in notebooks},
        "seconds": time.perf_counter() - t0,
    }
