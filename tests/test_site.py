"""The course site: built at quick settings, opened page by page in real Chromium.

The site is built once per session (``python -m workbench site --quick``) into a temporary
folder; executions are cached under ``$WORKBENCH_CACHE/site``, so only the first session on a
machine executes the notebooks. The browser checks use Debian's Chromium, as the other
browser tests do, on ``file://`` URLs (no server).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from workbench.registry import course, is_companion
from workbench.site.handouts import MATHJAX_DONE
from workbench.site.serve import serve

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("WB_CHROMIUM", "/usr/bin/chromium"))
BUILD_TIMEOUT = 1800  # s: a cold build executes every notebook (15 min seen on a loaded machine)
RAW_WIDGET = re.compile(
    r"\b(VBox|HBox|GridBox|Box|Output|IntSlider|FloatSlider|Dropdown|Accordion|Image)\(|"
    r"Figure size \d+x\d+"
)
# the course pages: companion notebooks (the arena's learning notebook) are not on the site
NOTEBOOKS = sorted(
    p for p in (REPO / "notebooks").glob("*.ipynb") if p.stem != "00_index" and not is_companion(p)
)


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
  const figures = [...s.querySelectorAll('img')].map((i) => ({
      src: i.getAttribute('src'), shown: i.getBoundingClientRect().width * scale,
      natural: i.naturalWidth}));
  const math = s.querySelectorAll('mjx-container[display="true"]').length;
  const items = [...s.querySelectorAll('li')].map((li) => li.innerText);
  const title = (s.querySelector('h2') || {innerText: ''}).innerText;
  return {over: over.slice(0, 3), small: small.slice(0, 3), scale, figures, math, items, title};
}"""
MIN_FIGURE_TEXT_PX = 12
PAGE_PICTURE = re.compile(r"<img\b[^>]*\bsrc=(?:\"_images/[^\"]+\.png\"|'data:image/png)")
SLIDE_PICTURE = re.compile(r"<img class='wb-slide-figure' alt='([^']*)'")


def test_every_deck_shows_every_picture_of_its_page(site):
    """No figure of a page is left off its deck or replaced by words: the figure code makes
    its text readable on a slide (checked by the slide test below). The claim atlas may be
    cut into several slides; it counts once."""
    missing = []
    for nb in NOTEBOOKS:
        on_page = len(PAGE_PICTURE.findall((site / f"{nb.stem}.html").read_text()))
        alts = SLIDE_PICTURE.findall((site / "slides" / f"{nb.stem}.slides.html").read_text())
        on_slides = sum(alt != "claim atlas" for alt in alts) + ("claim atlas" in alts)
        if on_slides != on_page:
            missing.append(f"{nb.stem}: {on_page} pictures on the page, {on_slides} in the deck")
    assert not missing, "\n".join(missing)


VERDICTS = re.compile(r"\b(agrees|disagrees|reproduced|refuted|depends|undetermined)\b")


@pytest.mark.browser
def test_every_slide_fits_1280x720_with_text_of_18pt_and_figures_of_12px_or_more(site, browser):
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


def _figure_text_px(figure: dict) -> float | None:
    """The smallest text of a slide's picture as the slide shows it, in CSS pixels: the
    size its PNG records (workbench.rendering.min_text_px) times the scale it is drawn at."""
    import base64

    from workbench.rendering import min_text_px

    src = figure["src"] or ""
    if not src.startswith("data:image/png;base64,") or not figure["natural"]:
        return None
    px = min_text_px(base64.b64decode(src.split(",", 1)[1]))
    return None if px is None else px * figure["shown"] / figure["natural"]


def _check_deck(page, name: str, problems: list[str]) -> int:
    n = page.evaluate("() => Reveal.getTotalSlides()")
    seen = {"model": False, "atlas figure": False, "claims in words": False, "figures": 0}
    for i in range(n):
        page.evaluate(f"() => Reveal.slide({i})")
        found = page.evaluate(SLIDE_JS)
        if found["scale"] < 0.999:
            problems.append(f"{name} slide {i + 1}: drawn at scale {found['scale']}, not 1")
        if found["over"]:
            problems.append(f"{name} slide {i + 1}: overflows: {found['over']}")
        if found["small"]:
            problems.append(f"{name} slide {i + 1}: text below 18 pt: {found['small']}")
        title = found["title"].lower()
        for figure in found["figures"]:
            px = _figure_text_px(figure)
            if px is None:
                problems.append(f"{name} slide {i + 1}: a picture that records no text size")
            elif px < MIN_FIGURE_TEXT_PX - 0.05:
                problems.append(f"{name} slide {i + 1}: figure text at {px:.1f} px")
            seen["figures"] += 1
            seen["atlas figure"] |= "atlas" in title
        seen["model"] |= "model" in title and found["math"] > 0
        seen["claims in words"] |= sum(bool(VERDICTS.search(t)) for t in found["items"]) >= 2
    wanted = ["atlas figure", "claims in words"] + ["model"] * name.startswith("p")
    problems += [f"{name} deck: no slide with the {what}" for what in wanted if not seen[what]]
    if seen["figures"] < 3:
        problems.append(f"{name} deck: {seen['figures']} figures")
    return n


RAW_TEX = re.compile(r"\$|\\[A-Za-z]{2,}|\\[{}]")
A4 = (595.3, 841.9)  # pt
NEAR_EMPTY_CHARS = 250


def _has_picture(resources, depth: int = 0) -> bool:
    """Whether a PDF page's resources hold an image (Chromium nests them in forms); read
    from the resource dictionaries, without decoding any image."""
    objects = resources.get_object().get("/XObject") if resources is not None else None
    if objects is None or depth > 4:
        return False
    objects = objects.get_object()
    for name in objects:
        obj = objects[name].get_object()
        if obj.get("/Subtype") == "/Image":
            return True
        if obj.get("/Subtype") == "/Form" and _has_picture(obj.get("/Resources"), depth + 1):
            return True
    return False


def _page_texts(path: Path, reader) -> list[str]:
    """The text of each page of a PDF: poppler's ``pdftotext`` (the same verdicts as pypdf's
    extractor on the course's handouts, at about a twentieth of its CPU time, which was most
    of the handout test's), pypdf's extractor where poppler is not installed."""
    exe = shutil.which("pdftotext")
    if exe is None:
        return [pdf_page.extract_text() or "" for pdf_page in reader.pages]
    out = subprocess.run(
        [exe, "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    return out.split("\f")[:-1]  # a form feed ends every page


def _handout_problems(path: Path) -> tuple[list[str], dict]:
    """What a printed handout gets wrong: a leftover ``$`` or TeX command in its text, a
    page not A4 (portrait or landscape), a page that is nearly empty (not the last one)."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    problems, counts = [], {"pages": len(reader.pages), "raw_tex": 0, "near_empty": 0}
    texts = _page_texts(path, reader)
    if len(texts) != len(reader.pages):
        problems.append(f"{path.name}: text of {len(texts)} pages of {len(reader.pages)}")
    text = ""
    for k, (pdf_page, words) in enumerate(zip(reader.pages, texts, strict=False), start=1):
        text += words
        size = sorted((float(pdf_page.mediabox.width), float(pdf_page.mediabox.height)))
        if abs(size[0] - A4[0]) > 1 or abs(size[1] - A4[1]) > 1:
            problems.append(f"{path.name} page {k}: {size[0]:.0f} x {size[1]:.0f} pt, not A4")
        picture = _has_picture(pdf_page.get("/Resources"))
        if k < len(reader.pages) and len(words.strip()) < NEAR_EMPTY_CHARS and not picture:
            counts["near_empty"] += 1
            problems.append(f"{path.name} page {k}: nearly empty ({len(words.strip())} chars)")
        for m in RAW_TEX.finditer(words):
            counts["raw_tex"] += 1
            problems.append(f"{path.name} page {k}: raw TeX {words[m.start() : m.end() + 30]!r}")
    counts["text"] = text
    return problems, counts


def test_every_handout_prints_on_a4_without_raw_tex_or_near_empty_pages(site):
    """Both handouts of every page: A4 pages, no ``$`` or TeX command left in the text, no
    nearly empty page, a page at least per section; the solutions handout shows every
    exercise's answer, the plain one none."""
    problems, totals = [], {"handouts": 0, "pages": 0, "raw_tex": 0, "near_empty": 0}
    for nb in NOTEBOOKS:
        cells = nbformat.read(nb, as_version=4).cells
        exercises = sum(bool(re.match(r"show\(", c.source)) for c in cells if c.cell_type == "code")
        for kind in ("", "-solutions"):
            found, counts = _handout_problems(site / "handouts" / f"{nb.stem}{kind}.pdf")
            problems += found
            totals["handouts"] += 1
            for k in ("pages", "raw_tex", "near_empty"):
                totals[k] += counts[k]
            answers = counts["text"].count("Answer:")
            if kind and answers < exercises:
                problems.append(f"{nb.stem}{kind}: {answers} answers shown of {exercises}")
            if not kind and answers:
                problems.append(f"{nb.stem}: the plain handout shows {answers} answers")
            if counts["pages"] < max(1, _sections(nb)):
                problems.append(f"{nb.stem}{kind}: {counts['pages']} pages, fewer than sections")
    print(f"handouts: {totals}")
    assert not problems, "\n".join(problems[:40])


EXPORT_JS = r"""(mode) => {
  const article = document.querySelector('article.bd-article') || document.body;
  const skip = 'script, style, code, pre, kbd, textarea, mjx-container, mjx-assistive-mml, '
    + '.highlight, .cell_input';
  const raw = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    const el = t.parentElement;
    if (!t.textContent.trim() || el.closest(skip)) continue;
    const m = t.textContent.match(/\$|\\[A-Za-z]{2,}|\\[{}]/);
    if (m) raw.push(t.textContent.slice(Math.max(0, m.index - 30), m.index + 30));
  }
  const empty = [];
  for (const out of article.querySelectorAll('.cell_output > *')) {
    if (!out.innerText.trim() && !out.matches('img, svg, table, canvas')
        && !out.querySelector('img, svg, table, canvas'))
      empty.push(out.closest('.cell').id || out.className);
  }
  const limit = article.getBoundingClientRect().right + 1;
  const wide = [];
  let scrolling = 0;
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    wide.push(`page ${document.documentElement.scrollWidth} px wide in ${window.innerWidth}`);
  for (const el of article.querySelectorAll('table, img, mjx-container, .cell_output > *')) {
    const r = el.getBoundingClientRect();
    let scrolls = false;  // inside a box that scrolls sideways
    for (let box = el.parentElement; box && box !== article; box = box.parentElement)
      if (getComputedStyle(box).overflowX !== 'visible' && box.scrollWidth > box.clientWidth + 1)
        scrolls = true;
    if (scrolls && mode === 'screen') scrolling += 1;  // a wide table scrolls in its box
    else if (r.right > limit || scrolls)
      wide.push(`${el.tagName.toLowerCase()} ${Math.round(r.width)} px past ${Math.round(limit)}`);
  }
  const missing = [];  // a cell that draws a table (and the atlas its picture) shows it
  for (const cell of article.querySelectorAll('.cell')) {
    const code = (cell.querySelector('.cell_input') || {textContent: ''}).textContent;
    const out = cell.querySelector('.cell_output');
    if (/\b(glossary|table_html|claims_table|atlas_view)\(/.test(code)
        && !(out && out.querySelector('table')))
      missing.push(`no table under ${code.trim().slice(0, 50)}`);
    if (/\batlas_view\(/.test(code) && !(out && out.querySelector('img')))
      missing.push(`no picture under ${code.trim().slice(0, 50)}`);
  }
  return {raw, empty: empty.concat(missing), wide, scrolling,
          outputs: article.querySelectorAll('.cell_output > *').length};
}"""


CHECKS = (
    ("empty", "empty", "empty output"),
    ("raw", "raw_tex", "raw TeX"),
    ("wide", "overwide", "wider than the window"),
)


@pytest.mark.browser
def test_every_page_keeps_its_outputs_renders_its_math_and_fits_on_screen_and_paper(site, browser):
    """Every page of the site at 1280 px and as it prints on A4: no empty output (tables,
    glossaries, atlas pictures all kept), no ``$`` or TeX command left in the text after
    MathJax, nothing wider than the window or the article (a table or formula that has to
    scroll counts), nor wider than the printed page."""
    from workbench.site.handouts import PRINT_WIDTH_PX, prepare_for_print

    counts = dict.fromkeys(("pages", "outputs", "empty", "raw_tex", "overwide"), 0)
    counts["overwide_print"] = counts["scrolling_tables"] = counts["overwide_pages"] = 0
    problems = []
    screen = browser.new_context(viewport={"width": 1280, "height": 900})
    paper = browser.new_context(viewport={"width": PRINT_WIDTH_PX, "height": 1100})
    with serve(site) as base:
        for html_file in sorted(site.glob("*.html")):
            if html_file.stem in ("search", "genindex"):
                continue
            page = screen.new_page()
            page.goto(f"{base}/{html_file.name}", wait_until="load")
            page.wait_for_function(MATHJAX_DONE, timeout=60_000)
            found = page.evaluate(EXPORT_JS, "screen")
            page.close()
            counts["pages"] += 1
            counts["outputs"] += found["outputs"]
            counts["scrolling_tables"] += found["scrolling"]
            counts["overwide_pages"] += any(w.startswith("page ") for w in found["wide"])
            for key, count, what in CHECKS:
                counts[count] += len(found[key])
                problems += [f"{html_file.name}: {what}: {x!r}" for x in found[key][:5]]
            page = paper.new_page()
            page.goto(f"{base}/{html_file.name}", wait_until="load")
            prepare_for_print(page)
            printed = page.evaluate(EXPORT_JS, "print")
            page.close()
            counts["overwide_print"] += len(printed["wide"])
            problems += [f"{html_file.name} printed: {x}" for x in printed["wide"][:5]]
    screen.close()
    paper.close()
    print(f"export: {counts}")
    assert not problems, "\n".join(problems[:60])
    assert counts["outputs"] > 100


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


def test_static_export_keeps_a_table_and_drops_a_bare_stylesheet():
    """A table widget starts with its <style> (every table_html does): the export keeps it,
    scoped by the widget's classes; a widget that is only a stylesheet shows nothing."""
    import ipywidgets as w

    from workbench.redundancy import PARAMS
    from workbench.static_views import to_html
    from workbench.tables import glossary

    html = to_html(glossary(PARAMS))
    assert html.startswith("<div class='") and "wb-table" in html.split(">", 1)[0]
    assert "<table>" in html and html.count("<tr>") > 3 and "<style>" in html
    assert to_html(w.HTML("<style>.x{color:red}</style>")) == ""
    assert to_html(w.HTML("<style>.x{}</style><p>words</p>")).endswith("<p>words</p>")


def test_every_png_records_its_smallest_drawn_text_in_pixels():
    """What the slides check figure text with: the smallest text matplotlib drew, in pixels
    of the PNG (points × dpi / 72); a text that is not drawn does not count."""
    from workbench.plots import _figure_png, figure
    from workbench.rendering import min_text_px, render_png

    fig, ax = figure(fast=True)
    ax.plot([0, 1], [0, 1])
    ax.set_title("seven", fontsize=7)
    ax.text(0.5, 0.5, "hidden", fontsize=3, visible=False)
    ax.set_xlabel("x_b", fontsize=12)
    assert min_text_px(_figure_png(fig)) == pytest.approx(7 * 100 / 72, abs=0.01)
    png = render_png(fig, dpi=144)
    assert min_text_px(png) == pytest.approx(7 * 2, abs=0.01)
    fig.axes[0].title.set_fontsize(20)
    tick = min(t.get_fontsize() for t in ax.get_xticklabels() + ax.get_yticklabels())
    assert min_text_px(render_png(fig, dpi=144)) == pytest.approx(min(tick, 12) * 2, abs=0.01)
