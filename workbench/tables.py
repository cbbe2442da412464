"""Tables for people: DataFrames, the glossary, the claims and the claim atlas, in words.

Every number goes through :func:`~workbench.numfmt.format_number` and every symbol through
:func:`~workbench.notation.notation`; claims read as their sentences (never their ids), with a
"why" column; an atlas flip reads as a threshold with its symbol and unit ("τ_d ≤ 1.4 ms"),
and the prose under an atlas table is generated from that table.
"""

from __future__ import annotations

import html
import re

import ipywidgets as w
import pandas as pd

from workbench import claims
from workbench.notation import latex_html, mathtext, notation, prose_html
from workbench.numfmt import format_number, format_value
from workbench.params import Param, Params
from workbench.rendering import render_png

__all__ = [
    "table_html",
    "glossary",
    "glossary_frame",
    "claims_table",
    "claims_frame",
    "atlas_view",
    "atlas_frame",
    "atlas_prose",
    "atlas_figure",
    "threshold_text",
]

TABLE_CSS = (
    "<style>.wb-table{max-width:100%;overflow-x:auto;}"
    ".wb-table table{border-collapse:collapse;font-size:14px;font-family:"
    "var(--jp-content-font-family, sans-serif),'Noto Sans CJK SC','Noto Sans CJK JP';}"
    ".wb-table th,.wb-table td{padding:3px 6px;vertical-align:top;text-align:left;"
    "white-space:normal;overflow-wrap:break-word;}"
    ".wb-table td.wb-prose,.wb-table td.wb-prose-short{overflow-wrap:anywhere;}"
    ".wb-table td.wb-prose{min-width:14em;width:40%;}.wb-table td.wb-prose-short{min-width:8em;}"
    ".wb-table tr:nth-child(even){background:#f4f4f4;}</style>"
)
#: columns whose cells are already HTML (rendered notation and LaTeX, the rest escaped)
HTML_COLUMNS = ("symbol", "claim", "why", "where it flips")
#: columns of sentences: never squeezed to a few words a line beside the number columns
#: (a claim column 80 px wide was 15 to 25 lines a row in JupyterLab)
PROSE_COLUMNS = {
    "claim": "wb-prose",
    "quote": "wb-prose",
    "meaning": "wb-prose-short",
    "why": "wb-prose-short",
    "where it flips": "wb-prose-short",
}


def table_html(frame: pd.DataFrame, caption: str = "", digits: int = 3) -> w.HTML:
    """A DataFrame as a readable HTML table widget: no truncated cells, every number through
    :func:`format_number` (``digits`` significant digits), symbols rendered."""
    body = ["<table><thead><tr>"]
    body += [f"<th>{html.escape(str(c))}</th>" for c in frame.columns]
    body.append("</tr></thead><tbody>")
    opening = {c: f"<td class='{PROSE_COLUMNS[str(c)]}'>" for c in frame if str(c) in PROSE_COLUMNS}
    for row in frame.itertuples(index=False):
        cells = []
        for col, value in zip(frame.columns, row, strict=True):
            text = format_value(value, digits)
            text = text if col in HTML_COLUMNS else html.escape(text)
            cells.append(f"{opening.get(col, '<td>')}{text}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    body.append("</tbody></table>")
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    out = w.HTML(TABLE_CSS + cap + "".join(body))
    out.add_class("wb-table")
    return out


# ------------------------------------------------------------------------------ glossary

# settings of a run or of a solver, not symbols of the model: the glossary leaves them out
# (each is explained by its control's tooltip where a notebook offers it)
RUN_SETTINGS = {
    "replications",
    "confidence",
    "seed",
    "warmup",
    "events",
    "jobs",
    "requests",
    "slots",
    "periods",
    "tol",
    "tail",
    "shifts",
    "restart",
    "max_restarts",
    "truncation_target",
    "max_phases",
    "overload",
    "half_width",
    "trace_jobs",
    "protocol_jobs",
    "points",
    "grid",
    "map_points",
    "sizes",
    "limit",
    "vary",
    "p_other",
    "lam_max",
}
_STUDY_PREFIXES = ("example_", "table1_", "fig3_", "fig4_")


def is_model_symbol(p: Param) -> bool:
    """True for a symbol of the model (in the glossary), False for a run or solver setting."""
    return p.name not in RUN_SETTINGS and not p.name.startswith(_STUDY_PREFIXES)


def glossary_frame(params: Params) -> pd.DataFrame:
    """The glossary rows: symbol (HTML), meaning, unit, default, from (paper or workbench)."""
    rows = [
        {
            "symbol": notation(p.symbol),
            "meaning": p.meaning,
            "unit": p.unit or "–",
            "default": "–" if p.default is None else format_value(p.default, 4),
            "from": "the paper" if p.source == "paper" else "workbench's choice",
        }
        for p in params.rows
        if is_model_symbol(p)
    ]
    return pd.DataFrame(rows, columns=["symbol", "meaning", "unit", "default", "from"])


def glossary(params: Params) -> w.HTML:
    """The notebook's glossary of the model's symbols (run and solver settings left out:
    their controls' tooltips explain them), from the paper's parameter table."""
    return table_html(glossary_frame(params), caption="Symbols of the model")


# ------------------------------------------------------------------------------ claims


def claim_sentence(row) -> str:
    """What a claim says, as HTML: the paper's words where quoted (their LaTeX rendered),
    with what the workbench measures under them (two claims can rest on one sentence); else
    the quantity, its notation rendered."""
    quote = row.get("quote", "")
    quantity = str(row.get("quantity", row.get("id", "")))
    if isinstance(quote, str) and quote.strip() and row.get("source") == "paper":
        return f"“{latex_html(quote.strip())}”<br><small>measured: {prose_html(quantity)}</small>"
    return prose_html(quantity)


def _claim_number(x, yes_no: bool) -> str:
    if yes_no:
        return "yes" if float(x) == 1 else "no"
    return format_number(x, 3)


def claims_frame(checked: pd.DataFrame, paper: str = "") -> pd.DataFrame:
    """Checked claims (:func:`workbench.claims.check_claims`) for people: each claim's
    sentence, the paper's and the workbench's numbers, the verdict and why (``paper``: its
    parameter names in the notes read as their symbols)."""
    params = _params_of(paper) if paper else None
    rows = []
    for _, r in checked.iterrows():
        yes_no = r["tolerance"] == 0 and r["value"] in (0, 1) and float(r["measured"]) in (0, 1)
        if not r.get("stationary", True):
            verdict = "undetermined (not stationary)"
        else:
            verdict = "agrees" if r["agrees"] else "disagrees"
        if not r["as_expected"]:
            verdict += " — UNEXPECTED"
        why = r.get("note", "")
        why = why if isinstance(why, str) else ""
        measure_note = r.get("measure_note", "")
        if isinstance(measure_note, str) and measure_note and not r.get("stationary", True):
            why = f"{why} {measure_note}".strip()
        tolerance = "exact" if r["tolerance"] == 0 else f"±{format_number(r['tolerance'])}"
        rows.append(
            {
                "claim": claim_sentence(r),
                "paper": _claim_number(r["value"], yes_no)
                + ("" if r["source"] == "paper" else " (workbench's own)"),
                "workbench": _claim_number(r["measured"], yes_no),
                "tolerance": tolerance,
                "verdict": verdict,
                "why": prose_html(why, params) if why else "–",
            }
        )
    return pd.DataFrame(rows)


def claims_table(paper: str, quick: bool = True) -> w.HTML:
    """A paper's claims, measured now, as the notebook shows them (one way everywhere)."""
    from workbench.memo import cached_call

    mode = "quick runs" if quick else "full runs"
    return table_html(
        claims_frame(cached_call(claims.check_claims, paper, quick=quick), paper),
        caption=f"{paper} claims ({mode})",
    )


# ------------------------------------------------------------------------------ atlas

_FLIP = re.compile(
    r"^(?P<name>\w+) ≤ (?P<thr>[-+0-9.eE]+): holds at (?P<k1>\d+)/(?P<n1>\d+); "
    r"above: (?P<k2>\d+)/(?P<n2>\d+)$"
)
_READING = re.compile(
    r"^reading (?P<name>.+): holds at (?P<k2>\d+)/(?P<n2>\d+) under it, "
    r"(?P<k1>\d+)/(?P<n1>\d+) without it$"
)


def threshold_text(name: str, value: float, params: Params | None) -> str:
    """``τ<sub>d</sub> ≤ 1.4 ms`` (HTML): a threshold with its symbol (rendered), two digits
    and its unit (seconds below 1 read in ms)."""
    p = params.get(name) if params is not None else None
    symbol = notation(p.symbol) if p is not None else html.escape(name)
    unit = p.unit if p is not None else ""
    if unit == "s" and 0 < abs(value) < 1:
        value, unit = 1e3 * value, "ms"
    return f"{symbol} ≤ {format_number(value, 2, unit)}"


def flip_text(flip: str, params: Params | None) -> str:
    """An atlas flip (``"decision_time ≤ 0.001429: holds at 10/12; above: 0/4"``) in words,
    as HTML (symbols and reading names rendered)."""
    if not flip:
        return ""
    if m := _FLIP.match(flip):
        where = threshold_text(m["name"], float(m["thr"]), params)
        return (
            f"where {where}: holds at {m['k1']} of {m['n1']} points; above: {m['k2']} of {m['n2']}"
        )
    if m := _READING.match(flip):
        return (
            f"under the reading “{prose_html(m['name'], params)}”: holds at {m['k2']} of "
            f"{m['n2']} points; "
            f"under the others: {m['k1']} of {m['n1']}"
        )
    return html.escape(flip)


def _params_of(paper: str) -> Params | None:
    from workbench.registry import paper as get_paper

    try:
        return get_paper(paper).params
    except Exception:  # noqa: BLE001 - an unregistered paper: names stay as they are
        return None


def _sentences(paper: str) -> dict:
    try:
        frame = claims.load_claims(paper)
    except Exception:  # noqa: BLE001 - no claims table: ids stay as they are
        return {}
    return {r["id"]: claim_sentence(r) for _, r in frame.iterrows()}


def atlas_frame(frame: pd.DataFrame, paper: str = "") -> pd.DataFrame:
    """The overall atlas rows in words: claim sentence, where it holds, verdict, where it flips."""
    from workbench import atlas  # the sweep engine and scikit-learn, loaded when drawn

    paper = paper or (frame["paper"].iloc[0] if "paper" in frame else "")
    params, sentences = _params_of(paper), _sentences(paper)
    rows = []
    for _, r in atlas.atlas_summary(frame).iterrows():
        share = r["holds_share"]
        held = (
            "–"
            if share != share
            else f"{round(share * r['points'])} of {r['points']} points ({share:.0%})"
        )
        rows.append(
            {
                "#": len(rows) + 1,
                "claim": sentences.get(r["claim"], r["claim"]),
                "holds at": held,
                "verdict": r["verdict"],
                "where it flips": flip_text(r["flip"], params) or "–",
            }
        )
    return pd.DataFrame(rows)


def atlas_figure(frame: pd.DataFrame, paper: str = ""):
    """Claims (numbered as in :func:`atlas_frame`'s table) × readings, coloured by the share
    of the plausible space where each claim holds.

    Made for a projector: no grid lines under the cell labels, reading names wrapped
    horizontally (never rotated over the colour bar), a vertical colour bar on the right,
    every label at least 10 pt (the layout check finds no overlap).
    """

    from workbench import atlas  # the sweep engine and scikit-learn, loaded when drawn
    from workbench.plots import figure

    readings, ids, share = atlas.atlas_grid(frame)
    width = min(12.0, 2.2 + 1.25 * len(readings))
    fig, ax = figure(width=width, height=1.6 + 0.5 * len(ids))
    ax.grid(False)
    im = ax.imshow(share, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    params = _params_of(paper) if paper else None
    names = [_reading_label(r, params) for r in readings]
    ax.set_xticks(range(len(readings)), names, fontsize=10)
    ax.set_yticks(range(len(ids)), [f"claim {i}" for i in range(1, len(ids) + 1)], fontsize=10)
    ax.tick_params(length=0)
    ax.set_xlabel("reading of the paper")
    atlas.label_cells(ax, frame, lambda s: f" {format_number(s, 2)}", fontsize=10)
    bar = fig.colorbar(im, ax=ax, shrink=0.9)
    bar.set_label("share where the claim holds", fontsize=10)
    title = f"{paper} claim atlas" if paper else "claim atlas"
    ax.set_title(f"{title}: ✔ reproduced, ✘ refuted, ~ depends", fontsize=11)
    return fig


def _reading_label(reading: str, params) -> str:
    """A reading (``arrivals=spread``, ``eq11_unit=ms``) as a heatmap label: the parameter's
    symbol (mathtext) over its value, never a word broken in two."""
    import textwrap

    if "=" not in reading:
        return textwrap.fill(reading.replace("_", " "), 12, break_long_words=False)
    name, value = reading.split("=", 1)
    p = params.get(name) if params is not None else None
    if p is not None and p.symbol and p.symbol != name:
        left = mathtext(p.symbol)
    else:
        left = name.replace("_", " ")
    return f"{left} =\n{value.replace('_', ' ')}"


def atlas_prose(table: pd.DataFrame) -> str:
    """A paragraph generated from an :func:`atlas_frame` table (so it never contradicts it),
    as HTML (the table's flips carry rendered symbols)."""
    parts = []
    for _, r in table.iterrows():
        claim = f"Claim {r['#']}" if "#" in r else r["claim"]
        if r["verdict"] == "depends" and r["where it flips"] != "–":
            parts.append(f"{claim} depends on the reading: {r['where it flips']}.")
        else:
            parts.append(f"{claim} is {r['verdict']} ({r['holds at']}).")
    return " ".join(parts)


def atlas_view(paper: str, quick: bool = True, n_points: int | None = None, seed: int = 0):
    """A paper's claim atlas in words: its table, a paragraph generated from it, its figure.

    Computed by :func:`workbench.atlas.atlas` (in this process, or on worker processes
    when it is planned to take more than half a minute, as P2's does) and kept in
    :func:`workbench.atlas.default_cache_dir` until the code or a claims table changes.
    """
    from workbench import atlas  # the sweep engine and scikit-learn, loaded when drawn

    frame = atlas.atlas(
        paper,
        quick=quick,
        n_points=n_points,
        seed=seed,
        cache_dir=atlas.default_cache_dir(),
    )
    return atlas_widget(frame, paper)


def atlas_widget(frame: pd.DataFrame, paper: str) -> w.VBox:
    """:func:`atlas_view`'s table, paragraph and figure for an atlas already computed (an
    inner step: it trusts its inputs; P2's kept atlas calls it too).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`workbench.atlas.atlas`'s table.
    paper : str
        The paper's id, for the caption.

    Returns
    -------
    ipywidgets.VBox
        The table, the paragraph generated from it and the figure.
    """
    table = atlas_frame(frame, paper)
    # the figure as an image widget, not displayed into a w.Output: Voila executes a notebook
    # through nbclient, whose Output-widget handling sends messages back to the kernel, and
    # that cell was the only one where Voila's rendering stalled (kernel idle, page at
    # "Executing 29 of 44"), about once in four suite runs
    picture = w.Image(value=render_png(atlas_figure(frame, paper)), format="png")
    picture.layout.max_width = "100%"
    prose = w.HTML(f"<p>{atlas_prose(table)}</p>")  # its cells are HTML already
    return w.VBox(
        [table_html(table, caption=f"{paper} claim atlas (over every reading)"), prose, picture]
    )
