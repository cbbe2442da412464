"""Two PDF handouts per paper, printed from its built page by headless Chromium.

Debian's ``/usr/bin/chromium`` (``WB_CHROMIUM`` overrides it) driven by Playwright's
``page.pdf()``, as the browser tests drive it: no LaTeX. ``<page>.pdf`` is the page as a
student reads it before class (the worked solutions folded away, as on the page);
``<page>-solutions.pdf`` has every hint and worked solution shown.

Made to be printed on A4: the site's navigation is left out, code cells too (the handout
shows what the code draws); display equations, tables and figures are scaled to the width
of the page (a table's text wraps first), a figure or an equation is never split across two
pages and a heading stays with what follows it; a table flows on to the next page (the
theme keeps a table whole, which moved a long one to a page of its own and left the page
before nearly empty); sections follow one another (a section starting on a page of its own
left pages nearly empty).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

CHROMIUM = Path(os.environ.get("WB_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]
MARGIN = {"top": "14mm", "bottom": "14mm", "left": "12mm", "right": "12mm"}
#: the printable width of an A4 page with :data:`MARGIN`, in CSS pixels (96 per inch)
PRINT_WIDTH_PX = round((210 - 24) / 25.4 * 96)
PRINT_CSS = """
@media print {
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-article,
  .header-article, .prev-next-area, .bd-header-announcement, #pst-back-to-top,
  .skip-link, .headerlink { display: none !important; }
  .bd-container, .bd-container__inner, .bd-page-width, .bd-main, .bd-main .bd-content,
  .bd-main .bd-content .bd-article-container, .bd-article {
    max-width: 100% !important; width: 100% !important; padding-left: 0 !important;
    padding-right: 0 !important; margin-left: 0 !important; margin-right: 0 !important;
    overflow: visible !important; }
  body { font-size: 11pt; }
  h1, h2, h3, h4 { break-after: avoid; }
  p, li { orphans: 3; widows: 3; }
  .cell_input { display: none !important; }
  img { max-width: 100% !important; max-height: 235mm; width: auto; height: auto;
    object-fit: contain; break-inside: avoid; }
  .wb-static-exercise, figure, .math, mjx-container, tr { break-inside: avoid; }
  .bd-main .bd-content table { break-inside: auto !important; }
  .wb-static-view > p:first-child { break-after: avoid; }
  .cell_output .output, .cell_output .wb-table, .math.notranslate,
  mjx-container[display="true"] { overflow: visible !important; max-width: 100% !important; }
  mjx-container svg { max-width: 100% !important; height: auto !important; }
  table { max-width: 100% !important; font-size: 8.5pt !important; }
  .cell_output table, table.wb-page-table { display: table !important; width: 100% !important;
    table-layout: auto !important; }
  td, th { white-space: normal !important; overflow-wrap: anywhere; padding: 2px 4px !important; }
  pre, code, span.pre { white-space: pre-wrap !important; overflow-wrap: anywhere !important; }
}
"""
OPEN_SOLUTIONS = """() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  return document.querySelectorAll('details.wb-solution').length;
}"""
MATHJAX_DONE = """() => (!window.MathJax || !window.MathJax.startup) ? true
  : window.MathJax.startup.promise.then(() => true)"""


def handout_names(name: str) -> dict[str, str]:
    """The two handouts of a page: ``{"plain": "<page>.pdf", "solutions": ...}``."""
    return {"plain": f"{name}.pdf", "solutions": f"{name}-solutions.pdf"}


FIT_TABLES = """() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const room = article.clientWidth;
  let scaled = 0;
  for (const table of article.querySelectorAll('table')) {
    table.style.zoom = '';
    const width = table.getBoundingClientRect().width;
    if (width > room + 0.5) {
      table.style.zoom = String(Math.floor(1000 * room / width) / 1000);
      scaled += 1;
    }
  }
  return scaled;
}"""


def prepare_for_print(page) -> int:
    """The loaded page laid out as it prints on A4 (print CSS, MathJax done); a table still
    wider than the page once its text wraps is scaled to the page's width. Returns the
    number of tables scaled."""
    page.add_style_tag(content=PRINT_CSS)
    page.wait_for_function(MATHJAX_DONE, timeout=60_000)
    page.emulate_media(media="print")
    return page.evaluate(FIT_TABLES)


def print_handouts(site: Path, pages: list[str], log=print) -> dict[str, Path]:
    """``<site>/handouts/<page>.pdf`` and ``<page>-solutions.pdf`` for every page name;
    returns handout file name -> PDF path."""
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
            page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1100})
            for name in pages:
                for kind, file in handout_names(name).items():
                    page.goto(f"{base}/{name}.html", wait_until="load")
                    if kind == "solutions":
                        page.evaluate(OPEN_SOLUTIONS)
                    prepare_for_print(page)
                    target = folder / file
                    page.pdf(path=str(target), format="A4", print_background=True, margin=MARGIN)
                    written[file] = target
        finally:
            browser.close()
    log(f"site: {len(written)} handouts printed in {time.perf_counter() - t0:.0f} s")
    return written
