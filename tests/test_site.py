"""The course site: built at quick settings, opened page by page in real Chromium.

The site is built once per session (``python -m workbench site --quick``) into a temporary
folder; executions are cached under ``$WORKBENCH_CACHE/site``, so only the first session on a
machine executes the notebooks. The browser checks use Debian's Chromium, as the other
browser tests do, on ``file://`` URLs (no server).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from workbench.registry import course
from workbench.site.handouts import MATHJAX_DONE
from workbench.site.serve import serve

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("WB_CHROMIUM", "/usr/bin/chromium"))
BUILD_TIMEOUT = 1800  # s: a cold build executes every notebook (15 min seen on a loaded machine)
RAW_WIDGET = re.compile(
    r"\b(VBox|HBox|GridBox|Box|Output|IntSlider|FloatSlider|Dropdown|Accordion|Image)\(|"
    r"Figure size \d+x\d+"
)
NOTEBOOKS = sorted(p for p in (REPO / "notebooks").glob("*.ipynb") if p.stem != "00_index")


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    if os.environ.get("WB_SITE_DIR"):  # check a site built already (no build here)
        return Path(os.environ["WB_SITE_DIR"])
    if not CHROMIUM.exists():  # the handouts are printed by it
        pytest.skip(f"no Chromium at {CHROMIUM} (bash run.sh setup installs it)")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "site", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    print(f"site built in {time.perf_counter() - t0:.0f} s")
    return out


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        try:
            yield b
        finally:
            b.close()


def _sections(notebook: Path) -> int:
    nb = nbformat.read(notebook, as_version=4)
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("## ")
    )


def test_site_has_a_page_a_deck_and_a_handout_per_notebook_in_teaching_order(site):
    for nb in NOTEBOOKS:
        assert (site / f"{nb.stem}.html").is_file(), nb.stem
        assert (site / "slides" / f"{nb.stem}.slides.html").is_file(), nb.stem
        assert (site / "handouts" / f"{nb.stem}.pdf").is_file(), nb.stem
    for extra in ("index", "claims", "glossary", "figures", "search"):
        assert (site / f"{extra}.html").is_file(), extra
    index = (site / "index.html").read_text()
    positions = [index.find(f'href="{Path(p.notebook).stem}.html"') for p in course()]
    assert all(i > 0 for i in positions), positions
    assert positions == sorted(positions), "the course table is not in teaching order"
    assert (site / "searchindex.js").stat().st_size > 1000


def test_figures_page_links_every_figure_csv_and_png(site):
    from workbench.registry import PAPERS

    page = (site / "figures.html").read_text()
    for pid, paper in PAPERS.items():
        for name in paper.figures:
            for ext in ("csv", "png"):
                assert f"figures/{pid}/{name}.{ext}" in page, (pid, name, ext)
                assert (site / "figures" / pid / f"{name}.{ext}").stat().st_size > 0


PAGE_JS = """() => {
  const imgs = [...document.querySelectorAll('img')].map((i) => ({
      src: i.currentSrc.slice(0, 120),
      ok: i.complete && i.naturalWidth > 0 && i.naturalHeight > 0}));
  const links = [...document.querySelectorAll('a[href]')].map((a) => a.href);
  return {imgs, links, text: document.body.innerText};
}"""


def _internal_target(href: str, base: str, site: Path) -> Path | None:
    """The file an internal link points to (None for a link off the site)."""
    if not href.startswith(base):
        return None
    path = site / unquote(urlparse(href).path).lstrip("/")
    return path / "index.html" if path.is_dir() else path


@pytest.mark.browser
def test_every_page_opens_clean_in_chromium(site, browser):
    pages = sorted(site.glob("*.html"))
    counts = {"pages": 0, "images": 0, "links": 0, "exercises": 0}
    problems = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url[:120]}"))
    with serve(site) as base:
        for html_file in pages:
            errors.clear()
            page.goto(f"{base}/{html_file.name}", wait_until="load")
            page.wait_for_function(MATHJAX_DONE, timeout=60_000)
            found = page.evaluate(PAGE_JS)
            counts["pages"] += 1
            counts["images"] += len(found["imgs"])
            problems += [
                f"{html_file.name}: image does not decode: {img['src']}"
                for img in found["imgs"]
                if not img["ok"]
            ]
            for href in found["links"]:
                target = _internal_target(href, base, site)
                if target is not None:
                    counts["links"] += 1
                    problems += _link_problems(html_file.name, href, target)
            raw = RAW_WIDGET.search(found["text"])
            if raw:
                problems.append(f"{html_file.name}: raw widget text {raw.group(0)!r}")
            problems += [f"{html_file.name}: console: {e}" for e in errors]
            counts["exercises"] += _check_exercises(page, html_file.name, problems)
    context.close()
    print(f"checked {counts}")
    assert not problems, "\n".join(problems[:40])
    assert counts["pages"] >= len(NOTEBOOKS) + 4
    assert counts["exercises"] >= len(NOTEBOOKS) - 1  # every paper poses exercises


def _link_problems(name: str, href: str, target: Path) -> list[str]:
    if not target.exists():
        return [f"{name}: broken link {href}"]
    fragment = urlparse(href).fragment
    if fragment and target.suffix == ".html":
        ids = target.read_text(errors="replace")
        if f'id="{unquote(fragment)}"' not in ids:
            return [f"{name}: link to a missing anchor {href}"]
    return []


def _check_exercises(page, name: str, problems: list[str]) -> int:
    exercises = page.locator(".wb-static-exercise")
    n = exercises.count()
    for i in range(n):
        ex = exercises.nth(i)
        answer = ex.locator(".wb-answer")
        text = answer.text_content().strip()
        visible_text = ex.inner_text()
        listed = ex.get_attribute("data-kind") == "choice"  # the options are on show
        if answer.is_visible() or (not listed and len(text) > 2 and text in visible_text):
            problems.append(f"{name}: exercise {i + 1} shows its answer {text!r} before opening")
        ex.locator("details.wb-solution > summary").click()
        if not answer.is_visible():
            problems.append(f"{name}: exercise {i + 1}: opening the solution shows no answer")
    return n


SLIDE_JS = """() => {
  const s = Reveal.getCurrentSlide();
  const box = s.getBoundingClientRect();
  const scale = Reveal.getScale();
  let over = [];
  if (s.scrollHeight > s.clientHeight + 1 || s.scrollWidth > s.clientWidth + 1)
    over.push(`content ${s.scrollWidth}x${s.scrollHeight} in ${s.clientWidth}x${s.clientHeight}`);
  for (const el of s.querySelectorAll('*')) {
    if (el.closest('mjx-assistive-mml')) continue;  // MathML for screen readers, clipped
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.bottom > box.bottom + 1 || r.right > box.right + 1)
      over.push(`${el.tagName} ends at ${Math.round(r.right)},${Math.round(r.bottom)}`);
  }
  let small = [];
  const walker = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    if (!t.textContent.trim()) continue;
    const el = t.parentElement;
    if (el.closest('script, style, mjx-assistive-mml')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const px = parseFloat(getComputedStyle(el).fontSize) * scale;
    if (px < 24 - 0.05) small.push(`${px.toFixed(1)}px "${t.textContent.trim().slice(0, 30)}"`);
  }
  for (const svg of s.querySelectorAll('mjx-container svg')) {  // a formula fitted by CSS
    const r = svg.getBoundingClientRect();
    svg.style.maxWidth = 'none';
    const natural = svg.getBoundingClientRect().width;
    svg.style.maxWidth = '';
    if (!natural || !r.width) continue;
    const px = parseFloat(getComputedStyle(svg.parentElement).fontSize) * scale
      * r.width / natural;
    if (px < 24 - 0.05) small.push(`formula at ${px.toFixed(1)}px`);
  }
  return {over: over.slice(0, 3), small: small.slice(0, 3), scale};
}"""


@pytest.mark.browser
def test_every_slide_fits_1280x720_with_text_of_18pt_or_more(site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    problems, total = [], 0
    with serve(site) as base:
        for nb in NOTEBOOKS:
            errors.clear()
            page.goto(f"{base}/slides/{nb.stem}.slides.html", wait_until="load")
            page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
            page.wait_for_function(MATHJAX_DONE, timeout=60_000)
            total += _check_deck(page, nb.stem, problems)
            problems += [f"{nb.stem} deck: console: {e}" for e in errors]
    context.close()
    print(f"checked {total} slides")
    assert total >= 3 * len(NOTEBOOKS)
    assert not problems, "\n".join(problems[:40])


def _check_deck(page, name: str, problems: list[str]) -> int:
    n = page.evaluate("() => Reveal.getTotalSlides()")
    for i in range(n):
        page.evaluate(f"() => Reveal.slide({i})")
        found = page.evaluate(SLIDE_JS)
        if found["scale"] < 0.999:
            problems.append(f"{name} slide {i + 1}: drawn at scale {found['scale']}, not 1")
        if found["over"]:
            problems.append(f"{name} slide {i + 1}: overflows: {found['over']}")
        if found["small"]:
            problems.append(f"{name} slide {i + 1}: text below 18 pt: {found['small']}")
    return n


def test_every_handout_has_a_page_per_section(site):
    from pypdf import PdfReader

    for nb in NOTEBOOKS:
        reader = PdfReader(site / "handouts" / f"{nb.stem}.pdf")
        sections = _sections(nb)
        assert len(reader.pages) >= max(1, sections), (nb.stem, len(reader.pages), sections)
        assert reader.pages[0].extract_text().strip(), f"{nb.stem}: empty first page"


def test_static_view_is_a_picture_with_its_controls_and_the_way_to_open_it_live():
    """No kernel needed: a slider view and an exercise as the static site shows them."""
    import matplotlib.pyplot as plt

    from workbench.redundancy import PARAMS
    from workbench.static_views import LIVE_LINE, to_html
    from workbench.widgets import Exercise, interactive_figure

    def plot(lam, N):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, N], [0, lam])
        return fig

    html = to_html(interactive_figure(plot, "A view", lam=PARAMS["lam"], N=PARAMS["N"]))
    assert html.count("<img") == 1 and "data:image/png;base64,iVBOR" in html
    assert "A view" in html and LIVE_LINE in html
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td>", html)
    assert [r[1] for r in rows] == [PARAMS["lam"].meaning, PARAMS["N"].meaning]
    assert rows[0][2] == PARAMS["lam"].unit and rows[0][3] == f"{PARAMS['lam'].default:.4g}"
    ex = to_html(Exercise("<p>How much?</p>", 0.1234, 0.01, hint="look", solution="<p>so</p>"))
    before, folded = ex.split("<details class='wb-solution'>")
    assert "0.1234" not in before and "0.1234" in folded and "look" in before
    assert "<details class='wb-hint'>" in before
