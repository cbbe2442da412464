"""The Sphinx sources of the course site, and the Sphinx build.

Sphinx with myst-nb (``nb_execution_mode = "off"``: the notebooks come executed) and
sphinx-book-theme. Sources are written only when their text changes, into a folder kept in
the cache, so a rebuild with nothing changed is incremental. MathJax is served from the site
itself (MathJax 3 from the sphinx-mathjax-offline package, SVG output: no web fonts), so
pages render offline.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import nbformat
import pandas as pd

from workbench.registry import PAPERS, course, is_companion

CONF = """\
project = "The offloading workbench"
author = "the workbench authors"
copyright = "the workbench authors"
extensions = ["myst_nb"]
html_theme = "sphinx_book_theme"
html_title = "The offloading workbench: a course"
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
exclude_patterns = ["_build", "_extra", "**.ipynb_checkpoints"]
html_extra_path = ["_extra"]
html_static_path = ["_static"]
html_css_files = ["workbench.css"]
html_theme_options = {"show_toc_level": 2, "use_download_button": False}
html_show_sourcelink = False
html_copy_source = False
html_context = {"default_mode": "light"}
html_favicon = "_static/favicon.svg"
mathjax_path = "mathjax/tex-svg-full.js"
mathjax3_config = {
    "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"},
    "svg": {"fontCache": "global"},
}
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]
"""

CSS = """\
.wb-static-view img, img.wb-static-figure, .cell_output img { max-width: 100%; height: auto; }
.wb-controls caption { caption-side: top; font-weight: bold; text-align: left; }
.wb-controls td, .wb-controls th { padding: 2px 8px; }
.wb-live { font-style: italic; }
details.wb-solution, details.wb-hint { border-left: 3px solid #8ab; padding-left: .6em;
  margin: .4em 0; }
details > summary { cursor: pointer; font-weight: bold; }
.cell_output .output, .cell_output .wb-table { max-width: 100%; overflow-x: auto; }
.cell_output table { font-size: 0.9em; }
.cell_output table.dataframe { font-size: 0.8em; }
.cell_output table.dataframe td, .cell_output table.dataframe th { white-space: normal;
  padding: 2px 5px; }
div.math.notranslate { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
span.math.notranslate { overflow: visible; }
code.literal, code.literal span.pre { white-space: normal; overflow-wrap: anywhere; }
table.wb-page-table { width: 100%; table-layout: auto; font-size: 0.85em; }
table.wb-page-table td, table.wb-page-table th { white-space: normal;
  overflow-wrap: break-word; vertical-align: top; padding: 3px 6px; }
table.wb-page-table td:first-child { overflow-wrap: anywhere; min-width: 6em; }
table.wb-page-table td.wb-quote { min-width: 9em; overflow-wrap: anywhere; }
table.wb-page-table td.wb-short { white-space: nowrap; }
"""


FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#134"/>'
    '<path d="M3 12h10M3 12V4M6 12V8M9 12V6M12 12V9" stroke="#fff" stroke-width="1.6"/></svg>'
)


def write(path: Path, text: str | bytes) -> None:
    """Write only when the content differs (keeps Sphinx's incremental build incremental)."""
    data = text.encode() if isinstance(text, str) else text
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def notebook_order(folder: Path) -> list[Path]:
    """Paper notebooks in teaching order (the registry's), then any other notebook (the
    arena, ...) by name; the landing notebook ``00_index`` becomes the site's index page.
    Companion notebooks (``registry.COMPANION_NOTEBOOKS``) are not course pages."""
    by_path = {(folder.parent / p.notebook).resolve(): p for p in PAPERS.values()}
    registered = sorted(
        (p for p in folder.glob("*.ipynb") if p.resolve() in by_path),
        key=lambda p: (by_path[p.resolve()].order, by_path[p.resolve()].id),
    )
    others = sorted(
        p
        for p in folder.glob("*.ipynb")
        if p.resolve() not in by_path and p.stem != "00_index" and not is_companion(p)
    )
    return registered + others


def title_of(nb_path: Path) -> str:
    """The notebook's first level-1 heading (its file name when it has none)."""
    cells = nbformat.read(nb_path, as_version=4).cells
    lines = (line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines())
    return next((line[2:].strip() for line in lines if line.startswith("# ")), nb_path.stem)


def prepare_notebook(executed: Path) -> str:
    """The executed notebook as the site shows it: papermill's injected cell removed."""
    nb = nbformat.read(executed, as_version=4)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    nb.metadata.pop("papermill", None)
    nb.metadata.pop("widgets", None)  # no live widget is left: load no widget manager
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.metadata["tags"].append("remove-cell")
        if cell.cell_type == "code":
            cell.outputs = [out for out in cell.get("outputs", []) if _shows_something(out)]
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if isinstance(data.get("text/html"), str):
                data["text/html"] = breakable_headings(data["text/html"])
    return nbformat.writes(nb)


def _shows_something(out: dict) -> bool:
    """False for an output with nothing to read: blank text, an HTML output that is only a
    stylesheet for the live controls or a finished progress bar (drawn as nothing)."""
    if out.get("output_type") == "stream":
        return bool(str(out.get("text", "")).strip())
    data = out.get("data", {})
    if out.get("output_type") not in ("display_data", "execute_result") or "text/html" not in data:
        return True
    if any(k.startswith("image/") for k in data):
        return True
    text = re.sub(r"<style\b.*?</style>", "", str(data["text/html"]), flags=re.S | re.I)
    return bool(text.strip())


_HEADING = re.compile(r"(<th\b[^>]*>)([^<]*)(</th>)")


def breakable_headings(fragment: str) -> str:
    """A table's column headings may break after an underscore (``executed_<wbr>share``):
    a table of code-named columns then wraps to the page instead of running past it."""
    return _HEADING.sub(lambda m: m[1] + m[2].replace("_", "_<wbr>") + m[3], fragment)


def index_page(landing: Path, pages: list[Path], links: bool = True) -> str:
    """The course index: the landing notebook's words, the course table, the material."""
    text, table = [], _course_table(pages)
    if landing.exists():
        for cell in nbformat.read(landing, as_version=4).cells:
            if cell.cell_type == "markdown":
                text.append(cell.source)
            elif "course_table(" in cell.source:  # the landing notebook's table, as links
                text.append(table)
    if table not in text:
        text.insert(1 if text else 0, f"## Notebooks in teaching order\n\n{table}")
    if not text[0].startswith("# "):
        text.insert(0, "# The offloading workbench — course index")
    text.append(
        "## On this site\n\n"
        "- [Claims of every paper](claims.md), [glossary of symbols](glossary.md), "
        "[every figure as CSV and PNG](figures.md).\n"
        "- The slider views are drawn at their defaults; to move them, run "
        "`bash run.sh lab` in a checkout of the workbench.\n"
        "- Full-text search: the search box at the top left."
    )
    if links:
        rows = "".join(
            f"<li>{html.escape(title_of(p))}: <a href='slides/{p.stem}.slides.html'>slides</a>"
            f" · <a href='handouts/{p.stem}.pdf'>handout (PDF)</a>"
            f" · <a href='handouts/{p.stem}-solutions.pdf'>with worked solutions (PDF)</a></li>"
            for p in pages
        )
        text.append(f"## Slides and handouts\n\n<ul class='wb-material'>{rows}</ul>")
    toc = "\n".join(p.stem for p in pages) + "\nclaims\nglossary\nfigures"
    text.append(f"```{{toctree}}\n:maxdepth: 1\n:caption: Course\n\n{toc}\n```")
    return "\n\n".join(text) + "\n"


def _course_table(pages: list[Path]) -> str:
    by_stem = {Path(p.notebook).stem: p for p in PAPERS.values()}
    rows = ["| # | page | paper | what it teaches |", "|---|---|---|---|"]
    for step, nb in enumerate(pages, start=1):
        p = by_stem.get(nb.stem)
        paper = f"{p.title} ({p.citation})" if p else ""
        teaches = p.teaches if p else ""
        rows.append(f"| {step} | [{title_of(nb)}]({nb.stem}.ipynb) | {paper} | {teaches} |")
    return "\n".join(rows)


def _page_table(rows: list[dict], wide: tuple[str, ...] = ()) -> str:
    """Rows of HTML cells as a table that wraps to the page's width (``wide``: the columns
    of sentences, kept at a readable width)."""
    if not rows:
        return ""
    cols = list(rows[0])
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='wb-quote'>{r[c]}</td>"
            if c in wide
            else f"<td class='wb-short'>{r[c]}</td>"
            if len(re.sub(r"<[^>]+>", "", r[c])) <= 8
            else f"<td>{r[c]}</td>"
            for c in cols
        )
        + "</tr>"
        for r in rows
    )
    return (
        f"<table class='wb-page-table'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _cell(value) -> str:
    """A CSV cell as the page shows it: empty for a missing value, escaped."""
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def glossary_page() -> str:
    from workbench.notation import notation

    parts = [
        "# Glossary of symbols\n\nEvery parameter of every paper: symbol, meaning, unit, "
        "valid range, default and where the default comes from."
    ]
    text_cols = ("meaning", "unit", "valid", "default", "source")
    for p in course():
        frame = p.params.frame()[["symbol", *text_cols]].astype(object)
        rows = [
            {"symbol": notation(_cell(r["symbol"]))}
            | {k: html.escape(_cell(r[k])) for k in text_cols}
            for _, r in frame.iterrows()
        ]
        parts.append(f"## {p.id.upper()}: {p.title}\n\n{_page_table(rows, ('meaning',))}")
    return "\n\n".join(parts) + "\n"


def claims_page(repo: Path) -> str:
    """Every paper's claims table: the quantity and the notes with their symbols rendered,
    the paper's words with their LaTeX rendered (:func:`~workbench.notation.latex_html`)."""
    from workbench.notation import latex_html, prose_html

    parts = [
        "# Claims of every paper\n\nEach paper's claims as its table in `data/claims/` "
        "states them: the quantity, the paper's number, whether the workbench agrees, and "
        "the paper's words. Each paper's page measures them anew (its claims section) and "
        "draws the claim atlas: where each claim holds across the values a careful reader "
        "would accept for what the paper leaves unstated."
    ]
    for p in course():
        frame = pd.read_csv(repo / "data" / "claims" / f"{p.id}.csv", comment="#")
        cols = [c for c in ("id", "quantity", "value", "expect", "note", "quote") if c in frame]
        rows = []
        for _, r in frame[cols].astype(object).iterrows():
            row = {c: html.escape(_cell(r[c])) for c in cols}
            for c in ("quantity", "note"):
                if c in row:
                    row[c] = prose_html(_cell(r[c]), p.params)
            if "quote" in row:
                row["quote"] = latex_html(_cell(r["quote"]))
            row["id"] = row["id"].replace("_", "_<wbr>")
            rows.append(row)
        link = f"[{p.id.upper()}: {p.title}]({Path(p.notebook).stem}.ipynb)"
        parts.append(f"## {p.id.upper()}\n\n{link}\n\n{_page_table(rows, ('quote', 'note'))}")
    return "\n\n".join(parts) + "\n"


def figures_page(figures: Path) -> str:
    parts = [
        "# Every figure as CSV and PNG\n\nWritten by "
        "`python -m workbench reproduce all --quick`: one tidy CSV (one row per plotted "
        "point) and one PNG per figure."
    ]
    for p in course():
        folder = figures / p.id
        names = sorted(f.stem for f in folder.glob("*.png")) if folder.exists() else []
        rows = "".join(
            f"<tr><td>{html.escape(n)}</td>"
            f"<td><a href='figures/{p.id}/{n}.csv'>{n}.csv</a></td>"
            f"<td><a href='figures/{p.id}/{n}.png'><img class='wb-thumb' width='240' "
            f"alt='{p.id} {n}' src='figures/{p.id}/{n}.png'></a></td></tr>"
            for n in names
        )
        parts.append(
            f"## {p.id.upper()}: {p.title}\n\n<table class='wb-figures'><tr><th>figure</th>"
            f"<th>data</th><th>picture</th></tr>{rows}</table>"
        )
    return "\n\n".join(parts) + "\n"


def write_sources(
    src: Path, executed: dict[str, Path], notebooks: list[Path], figures: Path, repo: Path
) -> None:
    """Every source file of the site under ``src``."""
    write(src / "conf.py", CONF)
    write(src / "_static" / "workbench.css", CSS)
    write(src / "_static" / "favicon.svg", FAVICON)
    for nb in notebooks:
        write(src / f"{nb.stem}.ipynb", prepare_notebook(executed[nb.stem]))
    for old in src.glob("*.ipynb"):  # a notebook deleted from the course leaves the site
        if old.stem not in executed:
            old.unlink()
    write(src / "index.md", index_page(repo / "notebooks" / "00_index.ipynb", notebooks))
    write(src / "glossary.md", glossary_page())
    write(src / "claims.md", claims_page(repo))
    write(src / "figures.md", figures_page(figures))
    extra = src / "_extra"
    _sync(_mathjax_source(), src / "_static" / "mathjax", _copy_mathjax)  # Sphinx looks there
    _sync(figures, extra / "figures", _copy_figures)


MATHJAX_PARTS = ("tex-svg-full.js", "input", "ui", "a11y")


def _mathjax_source() -> Path:
    """MathJax 3 (TeX in, SVG out, every TeX package in one file) from the package
    ``sphinx-mathjax-offline`` (a folder with a hyphen: found by its distribution)."""
    from importlib.metadata import distribution

    dist = distribution("sphinx-mathjax-offline")
    init = next(f for f in dist.files if f.name == "__init__.py")
    return Path(dist.locate_file(init)).parent / "static" / "mathjax"


def _copy_mathjax(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    for part in MATHJAX_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part)
        else:
            shutil.copy2(source / part, target / part)


def _copy_figures(source: Path, target: Path) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".complete"))


def _sync(source: Path, target: Path, copy) -> None:
    """``copy(source, target)`` afresh, unless ``target`` already holds a copy of ``source``
    (its stamp names the source)."""
    stamp = target / ".source"
    if stamp.exists() and stamp.read_text() == f"{source}\n":
        return
    shutil.rmtree(target, ignore_errors=True)
    copy(source, target)
    stamp.write_text(f"{source}\n")


def sphinx_build(src: Path, out: Path, log=print) -> None:
    """``sphinx-build -b html`` (incremental: the doctrees stay beside the sources)."""
    from sphinx.cmd.build import build_main

    args = ["-b", "html", "-q", "-d", str(src.parent / "doctrees"), "-j", "1", str(src), str(out)]
    rc = build_main(args)
    if rc != 0:
        raise RuntimeError(f"sphinx-build failed with exit code {rc}")
    log(f"site: html written to {out}")
