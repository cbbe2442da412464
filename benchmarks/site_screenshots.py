"""Pictures of a built course site: every page, one slide per deck, a handout page per paper.

    .venv/bin/python -m workbench site --quick --out /tmp/site
    .venv/bin/python benchmarks/site_screenshots.py /tmp/site docs/site
    .venv/bin/python benchmarks/site_screenshots.py /tmp/site docs/site \\
        --slide "p1_fog:The network" --slide "p4_redundancy:The system"

The site (any version's ``python -m workbench site --quick`` output, so the same script
photographs the code before and after a change) is served by a local web server
(:func:`workbench.site.serve.serve`) and opened in the headless Chromium the browser tests
use. Written to ``OUT``:

- ``page-<name>.png``: every page at 1280 × 900 (P1 and P2 at their "The model" section,
  the others at their first table), after MathJax has typeset it;
- ``slide-<deck>.png``: one slide per deck at its 1280 × 720 frame: the first slide showing
  the claim atlas, else the first slide with a picture;
- ``slide-<deck>-<title>.png`` for each ``--slide DECK:TITLE``: the first slide with a picture
  whose title contains TITLE (case-insensitive), else the first slide of that title;
- ``handout-<name>.png``: page 2 of each paper's handout (``pdftoppm``).

Pictures are reduced (720 px wide, handouts 560 px) to a 64-colour palette, so a whole set
stays near 1 MB; the total is printed.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path

from PIL import Image

from workbench.site.handouts import MATHJAX_DONE
from workbench.site.serve import serve

CHROMIUM = "/usr/bin/chromium"
WIDTH, HANDOUT_WIDTH, COLOURS = 720, 560, 64
MODEL_PAGES = ("p1_fog", "p2_proactive")  # pictured at "The model" (issue 44, item 2)

PICK_SLIDE = """(wanted) => {
  const n = Reveal.getTotalSlides();
  const title = (i) => { Reveal.slide(i); const s = Reveal.getCurrentSlide();
    return [(s.querySelector('h2') || {innerText: ''}).innerText.toLowerCase(), s]; };
  const want = (wanted || '').toLowerCase();
  const tests = wanted ? [([t, s]) => t.includes(want) && s.querySelector('img'),
                          ([t]) => t.includes(want)]
    : [([t, s]) => t.includes('atlas') && s.querySelector('img'),
       ([, s]) => s.querySelector('img')];
  for (const test of tests)
    for (let i = 0; i < n; i++) if (test(title(i))) { Reveal.slide(i); return i; }
  Reveal.slide(0); return -1;
}"""


def small(png: bytes, path: Path, width: int = WIDTH) -> None:
    """``png`` reduced to ``width`` pixels and a 64-colour palette, written to ``path``."""
    im = Image.open(io.BytesIO(png)).convert("RGB")
    im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
    im.quantize(colors=COLOURS).save(path, optimize=True)


def shoot(site: Path, out: Path, slides: list[str]) -> list[str]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    notes = []
    with serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for html in sorted(site.glob("*.html")):
            if html.stem in ("search", "genindex"):
                continue
            page.goto(f"{base}/{html.name}", wait_until="load")
            page.wait_for_function(MATHJAX_DONE, timeout=120_000)
            target = "#the-model" if html.stem in MODEL_PAGES else ".cell_output table, table"
            element = page.query_selector(target)
            if element:
                element.scroll_into_view_if_needed()
                page.evaluate("() => window.scrollBy(0, -60)")
            small(page.screenshot(), out / f"page-{html.stem}.png")
        deck = browser.new_page(viewport={"width": 1280, "height": 720})
        wanted = [("", None)] + [tuple(s.split(":", 1)) for s in slides]
        for d in sorted((site / "slides").glob("*.slides.html")):
            name = d.name.split(".")[0]
            deck.goto(f"{base}/slides/{d.name}", wait_until="load")
            deck.wait_for_function("() => window.Reveal && Reveal.isReady()")
            deck.wait_for_function(MATHJAX_DONE, timeout=120_000)
            for which, title in wanted:
                if which and which != name:
                    continue
                i = deck.evaluate(PICK_SLIDE, title)
                if i < 0:
                    notes.append(f"{name}: no slide titled {title!r}" if title else name)
                    continue
                deck.wait_for_timeout(300)
                slug = re.sub(r"[^a-z0-9]+", "-", (title or "").lower()).strip("-")
                file = f"slide-{name}.png" if title is None else f"slide-{name}-{slug}.png"
                small(deck.screenshot(), out / file)
        browser.close()
    for pdf in sorted((site / "handouts").glob("*.pdf")):
        if pdf.stem.endswith("-solutions"):
            continue
        png = subprocess.run(
            ["pdftoppm", "-f", "2", "-l", "2", "-png", "-scale-to", "900", str(pdf)],
            capture_output=True,
            check=True,
        ).stdout
        small(png, out / f"handout-{pdf.stem}.png", width=HANDOUT_WIDTH)
    return notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", type=Path, help="a built site (python -m workbench site --quick)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--slide", action="append", default=[], metavar="DECK:TITLE")
    args = ap.parse_args(argv)
    notes = shoot(args.site, args.out, args.slide)
    files = sorted(args.out.glob("*.png"))
    total = sum(f.stat().st_size for f in files)
    print(f"{len(files)} pictures in {args.out}, {total / 1e6:.2f} MB")
    for note in notes:
        print(f"not found: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
