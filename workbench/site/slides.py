"""A reveal.js deck per notebook, for the projector.

Each deck is 1280 × 720 with body text at 34 px (25.5 pt; MathJax's first-level scripts,
70.7 % of that, stay at 24 px = 18 pt). A slide holds a heading and either a few paragraphs,
or one figure, or a small table: the text of a notebook's markdown is packed into slides by
an estimate of its height (:data:`LINES_PER_SLIDE` lines of :data:`CHARS_PER_LINE`
characters), a long paragraph is cut at sentences. Code is not shown: the deck shows what the
code draws. Slider views are shown at their defaults; exercises as their questions (the
solutions are on the site, folded). reveal.js (5.2, MIT) ships with the package; MathJax (3, SVG
output) is the site's own copy, so a deck works offline.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

REVEAL = Path(__file__).resolve().parent / "reveal"
CHARS_PER_LINE = 62
LINES_PER_SLIDE = 10
TABLE_MAX_ROWS = 6
TABLE_MAX_COLS = 4
TABLE_MAX_CELL = 40

_md = MarkdownIt("commonmark", {"html": True}).enable("table")

CSS = """
html, body { margin: 0; background: #fff; }
.reveal { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 34px; color: #1a1a1a; }
.reveal .slides { text-align: left; }
.reveal .slides section { box-sizing: border-box; width: 1280px; height: 720px;
  padding: 28px 48px; overflow: hidden; }
.reveal h1 { font-size: 54px; margin: 0 0 18px; line-height: 1.15; }
.reveal h2 { font-size: 42px; margin: 0 0 16px; line-height: 1.15; color: #134; }
.reveal p, .reveal li { line-height: 1.3; margin: 0 0 12px; }
.reveal ul, .reveal ol { margin: 0 0 12px 1.1em; padding: 0; }
.reveal code { font-size: 30px; white-space: pre-wrap; overflow-wrap: anywhere; }
.reveal small, .reveal sub, .reveal sup { font-size: 26px; }
.reveal img.wb-slide-figure { display: block; margin: 0 auto; }
.reveal .slides section.wb-figure-slide { padding: 6px 16px; }
.reveal section.wb-figure-slide h2 { font-size: 26px; margin: 0 0 6px; line-height: 1.15; }
.reveal section.wb-figure-slide .wb-note { margin: 4px 0 0; }
.reveal table { border-collapse: collapse; font-size: 28px; }
.reveal td, .reveal th { border-bottom: 1px solid #bbb; padding: 4px 12px; }
.reveal .wb-note { font-size: 26px; color: #444; }
.reveal mjx-container[display="true"] { margin: 8px 0; }
.reveal mjx-container svg { max-width: 100%; height: auto; }
"""


_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)


def _render(text: str, inline: bool = False) -> str:
    """Markdown to HTML with the math left as written (CommonMark would eat ``\\{``, ``\\,``
    and read ``_`` as emphasis), for MathJax to typeset."""
    maths: list[str] = []

    def keep(m):
        maths.append(m.group(0))
        return f"WBMATH{len(maths) - 1}X"

    body = _MATH.sub(keep, _split_display(text))
    out = _md.renderInline(body) if inline else _md.render(body)
    return re.sub(r"WBMATH(\d+)X", lambda m: html.escape(maths[int(m.group(1))]), out)


def _split_display(text: str) -> str:
    """A display formula cut at its top-level ``\\qquad``/``\\quad`` spaces (an equation and
    its label, two equations side by side) into formulas on lines of their own."""

    def cut(m):
        depth, parts, cur = 0, [], ""
        for token in re.findall(r"\\q?quad\b|.", m.group(0)[2:-2], flags=re.S):
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0 and len(token) > 1 and not re.search(r"\\(begin|left)\b", cur):
                parts.append(cur)
                cur = ""
            else:
                cur += token
        parts = [p.strip().rstrip(",") for p in [*parts, cur] if p.strip().strip(",")]
        return "\n\n".join(f"$${_break_lines(p)}$$" for p in parts)

    return re.sub(r"\$\$.+?\$\$", cut, text, flags=re.S)


FORMULA_SYMBOLS = 48  # visible symbols of a display formula line at 34 px


def _visible(tex: str) -> int:
    return len(re.sub(r"\\[a-zA-Z]+|[{}^_&\s]|\\.", "", tex))


def _break_lines(tex: str) -> str:
    """A long display formula broken before top-level ``=``, ``+`` or ``-`` signs into the
    lines of an ``aligned`` block, each short enough for the slide."""
    if _visible(tex) <= FORMULA_SYMBOLS or "\\begin" in tex:
        return tex
    depth, cuts = 0, []
    for token in re.finditer(r"\\(?:left|right)\b|\\.|.", tex, flags=re.S):
        depth += {"\\left": 1, "\\right": -1, "{": 1, "}": -1}.get(token.group(0), 0)
        if depth == 0 and token.group(0) in ("=", "+", "-") and token.start() > 0:
            cuts.append(token.start())
    lines, start, last = [], 0, 0
    for cut in [*cuts, len(tex)]:  # a line ends at the last sign that keeps it short enough
        if _visible(tex[start:cut]) > FORMULA_SYMBOLS and last > start:
            lines.append(tex[start:last])
            start = last
        last = cut
    lines.append(tex[start:])
    if len(lines) == 1:
        return tex
    return "\\begin{aligned}" + " \\\\ ".join(f"&{x}" for x in lines) + "\\end{aligned}"


def _text_len(fragment: str) -> int:
    return len(re.sub(r"<[^>]+>", "", fragment))


def _lines(block_html: str) -> int:
    """Estimated lines of a rendered block at the slide's font size."""
    if block_html.startswith("<table"):
        rows = re.findall(r"<tr>(.*?)</tr>", block_html, flags=re.S)
        lines = 1
        for row in rows:
            cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.S) or [""]
            width = max(8, CHARS_PER_LINE // len(cells))
            lines += max(-(-_text_len(c) // width) for c in cells)
        return lines
    items = max(1, block_html.count("<li"))
    display = sum(2 + 2 * m.count("\\\\") for m in re.findall(r"\$\$.+?\$\$", block_html, re.S))
    text = re.sub(r"\$\$.+?\$\$", "", block_html, flags=re.S)
    return max(items, -(-_text_len(text) // CHARS_PER_LINE)) + display


_ITEM = re.compile(r"\n(?=\s{0,3}(?:[-*+]|\d+[.)])\s)")
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z*(])")
SLIDE_CHARS = CHARS_PER_LINE * 7


def _pack(pieces: list[str], glue: str) -> list[str]:
    out, cur = [], ""
    for piece in pieces:
        if cur and len(cur) + len(piece) > SLIDE_CHARS:
            out.append(cur)
            cur = piece
        else:
            cur = f"{cur}{glue}{piece}" if cur else piece
    return out + [cur] * bool(cur)


def _sentences(text: str) -> list[str]:
    """Sentences of ``text``, never cutting a ``$…$`` formula in two."""
    out: list[str] = []
    for part in _SENTENCE.split(text):
        if out and out[-1].count("$") % 2:
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _split_long(block: str) -> list[str]:
    """A block too long for a slide: display formulas apart, a list cut between its items,
    a paragraph at sentence ends (a formula is never cut)."""
    if "$$" in block and not block.lstrip().startswith(("|", "<")):
        parts = [p.strip() for p in re.split(r"(\$\$.+?\$\$)", block, flags=re.S)]
        if len([p for p in parts if p]) > 1:
            return [q for p in parts if p for q in _split_long(p)]
    if block.lstrip().startswith(("|", "$$", "<")) or len(block) <= CHARS_PER_LINE * 8:
        return [block]
    items = _ITEM.split(block)
    if len(items) > 1:
        return _pack([p for item in items for p in _pack(_sentences(item), " ")], "\n\n")
    return _pack(_sentences(block), " ")


def _by_lines(blocks: list[tuple[str, int]]) -> list[list[str]]:
    """Blocks ``(html, estimated lines)`` in order, packed into slides of at most
    :data:`LINES_PER_SLIDE` lines (a longer block has a slide of its own)."""
    slides, cur, used = [], [], 0
    for block, n in blocks:
        if cur and used + n > LINES_PER_SLIDE:
            slides.append(cur)
            cur, used = [], 0
        cur.append(block)
        used += n
    if cur:
        slides.append(cur)
    return slides


_LEAD_IN = re.compile(r"^\*\*([^*\n]{3,60})\.\*\*\s")


def _markdown_slides(source: str, heading: str) -> tuple[list[tuple[str, str]], str]:
    """(title, body html) slides of one markdown cell, and the heading in force after it."""
    slides: list[tuple[str, str]] = []
    pending: list[tuple[str, int]] = []  # the blocks under the heading in force

    def flush():
        slides.extend((heading, "".join(body)) for body in _by_lines(pending))
        pending.clear()

    blocks = [b for b in re.split(r"\n\s*\n", source.replace("<br>", " ")) if b.strip()]
    for raw in blocks:
        m = re.match(r"^(#{1,6})\s+(.*)", raw.strip())
        if m:
            flush()
            heading = m.group(2).strip()
            if "\n" not in raw.strip():
                continue
            raw = raw.strip().split("\n", 1)[1]  # a heading followed by text in the same block
        if raw.strip().startswith("<details"):
            continue  # worked methods stay on the site, folded
        lead = _LEAD_IN.match(raw.strip())
        if lead:  # "**The model.** ..." opens a slide of that title
            flush()
            heading = lead.group(1).strip()
        for piece in _split_long(raw):
            rendered = _render(piece)
            n = _lines(rendered)
            if n > LINES_PER_SLIDE and rendered.startswith("<table"):
                rendered, n = "<p>Table: in full on the course page.</p>", 1
            pending.append((rendered, n))
    flush()
    return slides, heading


def _small_table(fragment: str) -> bool:
    rows = fragment.count("<tr")
    cols = max((r.count("<td") + r.count("<th") for r in fragment.split("<tr")), default=0)
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", fragment, flags=re.S)
    longest = max((_text_len(c) for c in cells), default=0)
    return rows <= TABLE_MAX_ROWS + 1 and cols <= TABLE_MAX_COLS and longest <= TABLE_MAX_CELL


FIGURE_WIDTH = 1248  # px: a figure slide's width inside its padding
FIGURE_ROOM = 700  # px: its height inside its padding (8 px to spare)
HEADING_LINE = 36  # px: a line of a figure slide's heading (26 px text) with its margin
HEADING_CHARS = 80  # characters of a figure slide's heading line
NOTE_HEIGHT = 44  # px: a note line under a figure
MAX_UPSCALE = 2.5
MIN_FIGURE_TEXT_PX = 12  # the smallest figure text a projector shows legibly


def _png_size(b64: str) -> tuple[int, int]:
    """Width and height of a base64 PNG (its IHDR chunk)."""
    head = base64.b64decode(b64[:44])
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _figure_fit(b64: str, heading: str, note: str = "") -> tuple[int, int, float, float | None]:
    """``(width, height, scale, text_px)`` of a picture on a figure slide: its PNG size, the
    scale that fills the slide below its heading (and note), and its smallest text in the
    PNG's pixels (recorded by :func:`~workbench.rendering.save_png`; None if not recorded)."""
    from workbench.rendering import min_text_px

    width, height = _png_size(b64)
    lines = 1 + len(re.sub(r"<[^>]+>|\$", "", heading)) // HEADING_CHARS if heading else 0
    room = FIGURE_ROOM - lines * HEADING_LINE - (NOTE_HEIGHT if note else 0)
    scale = min(FIGURE_WIDTH / width, room / height, MAX_UPSCALE)
    return width, height, scale, min_text_px(base64.b64decode(b64))


def _figure(b64: str, alt: str, heading: str, note: str = "") -> str:
    """A picture filling a figure slide below its heading (a figure's text grows with it).

    Every figure is shown: the figure code draws text that reads at
    :data:`MIN_FIGURE_TEXT_PX` at this size, and the course's slide check measures it."""
    b64 = re.sub(r"\s+", "", b64)
    width, height, scale, _ = _figure_fit(b64, heading, note)
    size = f"width:{width * scale:.0f}px;height:{height * scale:.0f}px"
    img = (
        f"<img class='wb-slide-figure' alt='{html.escape(alt)}' style='{size}' "
        f"src='data:image/png;base64,{b64}'>"
    )
    return img + (f"<p class='wb-note'>{note}</p>" if note else "")


_IMG = re.compile(r"<img [^>]*src='data:image/png;base64,([^']+)'[^>]*>")
_CELL = re.compile(r"<t([dh])\b[^>]*>(.*?)</t[dh]>", re.S)


def _rows(table: str) -> tuple[list[str], list[list[str]]]:
    """The header and the body rows of an HTML table, cells as HTML."""
    header, rows = [], []
    for tr in re.findall(r"<tr\b[^>]*>(.*?)</tr>", table, flags=re.S):
        cells = _CELL.findall(tr)
        if cells and all(kind == "h" for kind, _ in cells):
            header = [re.sub(r"<[^>]+>", "", c).strip() for _, c in cells]
        elif cells:
            rows.append([c.strip() for _, c in cells])
    return header, rows


def _short(fragment: str, chars: int = 160) -> str:
    """A claim's sentence for a slide: without the measured quantity under it, cut at a word
    after about ``chars`` characters."""
    fragment = re.split(r"<br\s*/?>", fragment)[0]
    text = re.sub(r"<[^>]+>", "", fragment)
    if len(text) <= chars:
        return fragment
    cut = text[:chars].rsplit(" ", 1)[0]
    return html.escape(html.unescape(cut)) + " …”" * text.startswith("“")


def _claim_items(header: list[str], rows: list[list[str]]) -> list[str] | None:
    """A claims table (claim, paper, workbench, verdict) or an atlas table (claim, holds at,
    verdict, where it flips) as one sentence per claim; None for any other table."""
    col = {name: i for i, name in enumerate(header)}
    if not {"claim", "verdict"} <= set(col):
        return None
    items = []
    for i, row in enumerate(rows, start=1):
        cell = {name: row[k] for name, k in col.items() if k < len(row)}
        verdict = f"<b>{cell['verdict']}</b>"
        if "holds at" in cell:  # the atlas: where the claim holds over the plausible space
            where = cell.get("where it flips", "–")
            flips = f"; {where}" if where not in ("", "–") else ""
            items.append(
                f"<li>Claim {cell.get('#', i)}, {_short(cell['claim'], 90)}: {verdict}, "
                f"holds at {cell['holds at']}{flips}.</li>"
            )
        else:
            numbers = f"paper {cell.get('paper', '–')}, workbench {cell.get('workbench', '–')}"
            items.append(f"<li>{_short(cell['claim'])}: {verdict} ({numbers}).</li>")
    return items


def _item_slides(items: list[str], heading: str) -> list[tuple[str, str]]:
    """List items packed into slides by their estimated lines."""
    packed = _by_lines([(item, _lines(item) + 1) for item in items])
    return [(heading, f"<ul>{''.join(group)}</ul>") for group in packed]


def _table_slides(table: str, heading: str, page: str, caption: str) -> list[tuple[str, str]]:
    header, rows = _rows(table)
    items = _claim_items(header, rows)
    if items:
        return _item_slides(items, heading)
    if _small_table(table):
        return [(heading, table)]
    what = caption or "a table"
    return [
        (
            heading,
            f"<p>Table: {what}.</p><p class='wb-note'>In full on the course "
            f"page <a href='../{page}.html'>{page}</a>.</p>",
        )
    ]


def _html_slides(fragment: str, heading: str, page: str) -> list[tuple[str, str]]:
    """An HTML output (a table with its caption, words, pictures: the claim atlas) as
    slides in its order: claims tables in words, pictures filling a slide, paragraphs."""
    fragment = re.sub(r"<style\b.*?</style>", "", fragment, flags=re.S)
    slides: list[tuple[str, str]] = []
    parts = re.split(r"(<table\b.*?</table>|<img [^>]*>)", fragment, flags=re.S)
    caption, claims = "", 0
    atlas = "claim atlas" in fragment
    for part in parts:
        if not part or not part.strip():
            continue
        if part.startswith("<table"):
            slides += _table_slides(part, heading, page, caption)
            claims = len(_rows(part)[1])
            caption = ""
        elif part.startswith("<img"):
            img = _IMG.match(part)
            if img and atlas:
                slides += _atlas_slides(img.group(1), claims)
            elif img:
                slides.append((heading, _figure(img.group(1), "figure", heading)))
        else:
            cap = re.search(r"<p><b>(.*?)</b></p>\s*(?:</?div[^>]*>\s*)*$", part, flags=re.S)
            caption = cap.group(1) if cap else ""
            text = part[: cap.start()] if cap else part
            paragraphs = re.findall(r"<p\b[^>]*>(.*?)</p>", text, flags=re.S)
            for para in paragraphs:
                for piece in _pack(_sentences(para), " "):
                    slides.append((heading, f"<p>{piece}</p>"))
    return slides


ATLAS_TITLE = "The claim atlas: where each claim holds, reading by reading"


def _atlas_slides(b64: str, claims: int) -> list[tuple[str, str]]:
    """The claim atlas picture on slides of its own: whole when its text reads at 12 px,
    else cut between its rows of claims into pictures that each do (the title and the
    readings' labels repeated on each, the colour bar left out: every cell prints its
    share)."""
    title = ATLAS_TITLE
    b64 = re.sub(r"\s+", "", b64)
    whole = _figure(b64, "claim atlas", title)
    _, _, scale, text_px = _figure_fit(b64, title)
    if text_px is None or text_px * scale >= MIN_FIGURE_TEXT_PX or claims < 2:
        return [(title, whole)]
    parts = _atlas_parts(base64.b64decode(b64), claims, title)
    if not parts:
        return [(title, whole)]
    out = []
    for first, last, png in parts:
        name = f"{title} (claims {first}–{last})"
        out.append((name, _figure(base64.b64encode(png).decode("ascii"), "claim atlas", name)))
    return out


def _atlas_parts(png: bytes, claims: int, title: str) -> list[tuple[int, int, bytes]]:
    """The atlas heat map cut between rows: ``(first claim, last claim, PNG)`` parts, each
    small enough for its text to read at :data:`MIN_FIGURE_TEXT_PX` on a figure slide;
    [] when the heat map is not found in the picture."""
    import io

    import numpy as np
    from PIL import Image

    from workbench.rendering import MIN_TEXT_KEY, min_text_px, png_with_text

    text_px = min_text_px(png)
    pic = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    colour = (pic.max(axis=2) - pic.min(axis=2)) > 60  # the colour map's cells, not greys
    cols = np.flatnonzero(colour.mean(axis=0) > 0.2)
    if text_px is None or cols.size == 0:
        return []
    runs = np.split(cols, np.flatnonzero(np.diff(cols) > 3) + 1)
    x0, x1 = (run := max(runs, key=len))[0], run[-1] + 1  # the heat map, not the colour bar
    rows = np.flatnonzero(colour[:, x0:x1].mean(axis=1) > 0.2)
    y0, y1 = rows[0], rows[-1] + 1
    row = (y1 - y0) / claims
    top, bottom = pic[:y0], pic[y1:]
    lines = 1 + len(title) // HEADING_CHARS
    room = FIGURE_ROOM - (lines + 1) * HEADING_LINE
    scale = MIN_FIGURE_TEXT_PX / text_px
    per = int((room / scale - len(top) - len(bottom)) // row)
    if per < 1:
        return []
    per = -(-claims // -(-claims // per))  # parts of equal size
    parts = []
    for a in range(0, claims, per):
        b = min(claims, a + per)
        band = pic[round(y0 + a * row) : round(y0 + b * row)]
        strip = np.concatenate([top, band, bottom]).copy()
        strip[len(top) :, x1 + 8 :] = 255  # the colour bar's slice would mislead
        buf = io.BytesIO()
        Image.fromarray(strip.astype("uint8")).save(buf, format="PNG")
        parts.append((a + 1, b, png_with_text(buf.getvalue(), MIN_TEXT_KEY, f"{text_px:.2f}")))
    return parts


def _output_slides(out: dict, heading: str, page: str) -> list[tuple[str, str]]:
    data = out.get("data", {})
    if "image/png" in data:
        return [(heading, _figure(data["image/png"], "figure", heading))]
    fragment = data.get("text/html", "")
    if not fragment:
        return []
    if "wb-static-view" in fragment:
        img = _IMG.search(fragment)
        if not img:
            return []
        note = "Slider view at its defaults: <code>bash run.sh lab</code>"
        return [(heading, _figure(img.group(1), "slider view at its defaults", heading, note))]
    if "wb-static-exercise" in fragment:
        question = re.sub(r"<details.*?</details>", "", fragment, flags=re.S)
        return [(heading, question + "<p class='wb-note'>Solution: on the course page.</p>")]
    if "<table" in fragment or "<img" in fragment:
        return _html_slides(fragment, heading, page)
    return []


def deck_slides(nb) -> list[tuple[str, str]]:
    slides: list[tuple[str, str]] = []
    heading = ""
    for cell in nb.cells:
        if "remove-cell" in cell.metadata.get("tags", []):
            continue
        if cell.cell_type == "markdown":
            more, heading = _markdown_slides(cell.source, heading)
            slides += more
        elif cell.cell_type == "code":
            for out in cell.get("outputs", []):
                slides += _output_slides(out, heading, nb.metadata.get("wb_page", ""))
    return slides


def _kind(body: str) -> str:
    """A figure slide (a picture filling it, a smaller heading) is marked by its class."""
    return " class='wb-figure-slide'" if body.startswith("<img class='wb-slide-figure'") else ""


def write_deck(notebook: Path, target: Path, page: str) -> int:
    """Write the deck of ``notebook`` (an executed copy) to ``target``; returns its slides."""
    nb = nbformat.read(notebook, as_version=4)
    nb.metadata["wb_page"] = page
    slides = deck_slides(nb)
    sections = "\n".join(
        f"<section{_kind(body)}>{f'<h2>{_render(title, inline=True)}</h2>' if title else ''}"
        f"{body}</section>"
        for title, body in slides
    )
    title = html.escape(slides[0][0] if slides else page)
    doc = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<link rel="icon" href="../_static/favicon.svg">
<link rel="stylesheet" href="reveal.css"><style>{CSS}</style>
<script>window.MathJax = {{tex: {{inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]],
  processEscapes: true}}, svg: {{fontCache: "global"}}}};</script>
<script defer src="../_static/mathjax/tex-svg-full.js"></script>
</head><body><div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="reveal.js"></script>
<script>Reveal.initialize({{width: 1280, height: 720, margin: 0, minScale: 0.2, maxScale: 2,
  center: false, hash: true, transition: "none", controls: true, progress: true}});</script>
</body></html>
"""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(doc)
    for name in ("reveal.js", "reveal.css", "LICENSE"):
        dest = target.parent / ("reveal.LICENSE" if name == "LICENSE" else name)
        if not dest.exists():
            dest.write_bytes((REVEAL / name).read_bytes())
    return len(slides)
