"""A PDF handout per paper, printed from its built page by headless Chromium.

Debian's ``/usr/bin/chromium`` (``WB_CHROMIUM`` overrides it) driven by Playwright's
``page.pdf()``, as the browser tests drive it: no LaTeX. Each section of the notebook (each
``##`` heading) starts on a new page; the site's navigation is left out; the worked solutions
stay folded, as on the page.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

CHROMIUM = Path(os.environ.get("WB_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking"]  # fmt: skip
PRINT_CSS = """
@media print {
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-article,
  .header-article, .prev-next-area, .bd-header-announcement, #pst-back-to-top,
  .skip-link { display: none !important; }
  .bd-main .bd-content .bd-article-container { max-width: 100% !important; }
  main section section { break-before: page; }
  img { max-width: 100% !important; break-inside: avoid; }
  .cell_input { display: none !important; }
}
"""
MATHJAX_DONE = """() => (!window.MathJax || !window.MathJax.startup) ? true
  : window.MathJax.startup.promise.then(() => true)"""


def print_handouts(site: Path, pages: list[str], log=print) -> dict[str, Path]:
    """``<site>/handouts/<page>.pdf`` for every page name; returns page -> PDF path."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        raise FileNotFoundError(
            f"no Chromium at {CHROMIUM}: the handouts are printed by it "
            "(apt-get install chromium, or bash run.sh setup)"
        )
    folder = site / "handouts"
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    t0 = time.perf_counter()
    from workbench.site.serve import serve

    with serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            for name in pages:
                page.goto(f"{base}/{name}.html", wait_until="load")
                page.add_style_tag(content=PRINT_CSS)
                page.wait_for_function(MATHJAX_DONE, timeout=60_000)
                target = folder / f"{name}.pdf"
                page.pdf(path=str(target), format="A4", print_background=True,
                         margin={"top": "14mm", "bottom": "14mm", "left": "12mm",
                                 "right": "12mm"})  # fmt: skip
                written[name] = target
        finally:
            browser.close()
    log(f"site: {len(written)} handouts printed in {time.perf_counter() - t0:.0f} s")
    return written
