"""Find an exercise's answer shown before the exercise (support for the exercise tests).

An answer "leaks" when one of its spellings (:func:`spellings`: 2-4 significant digits, a
decimal point or comma, the workbench's own formatter) is shown anywhere a student reads
before the exercise's ``show(paper, n)`` cell: a markdown cell, a cell's printed or HTML
output, a widget's text (table, view title, status; read from the widget state nbclient
stores with an executed notebook), or a text a view's figure draws (titles, labels,
annotations, legends). A one-digit number (2, 0.4) or a whole number below 100 (12, 85) is
no evidence and is not searched for.
"""

from __future__ import annotations

import html
import re

from matplotlib.text import Text

from workbench.exercises import answer, exercises
from workbench.numfmt import format_number

TAG = re.compile(r"<[^>]+>")
VIEW_CELL = re.compile(r'VIEWS\["(\w+)"\]\(\)')


def spellings(value: float) -> set[str]:
    """How a number could be printed: 0.75, 0,75, 31.25, 0.388, 1.33, 1,33.

    An answer known to three digits or more is searched for with three or four (0.224,
    0.2244: its two-digit rounding 0.22 is any number near it, no evidence)."""
    own = len(format_number(value, 6).lstrip("−-0.").replace(".", ""))  # 0.45 → 2, 0.2244 → 4
    out = set()
    for digits in (2, 3, 4):
        if digits < min(3, own):
            continue  # 0.22 is not 0.2244's answer: a 2-digit rounding of a finer answer
        for text in (f"{value:.{digits}g}", format_number(value, digits)):
            if len(text.strip("-−0.,")) < 2 or "e" in text or "×" in text:
                continue  # a one-digit number (2, 0.4) is no evidence
            if "." not in text and len(text.lstrip("-−")) < 3:
                continue  # nor is a small whole number (12, 85): every page has some
            out |= {text, text.replace(".", ",")}
    return out


def numeric_answers(paper: str) -> dict[int, float]:
    """Exercise number -> its computed numeric answer (choice exercises left out)."""
    return {
        n: float(answer(paper, n))
        for n, q in enumerate(exercises(paper), start=1)
        if q.choices is None
    }


def exercise_cells(cells, paper: str) -> dict[int, int]:
    """Exercise number -> index of the cell that poses it."""
    out = {}
    for i, cell in enumerate(cells):
        m = re.search(rf'show\("{paper}", (\d+)\)', "".join(cell["source"]))
        if m and cell["cell_type"] == "code":
            out[int(m.group(1))] = i
    return out


def found(value: float, texts) -> list[tuple[str, str]]:
    """(spelling, context) for every spelling of ``value`` in ``texts`` ((where, text) pairs)."""
    hits = []
    for text in spellings(value):
        pattern = re.compile(rf"(?<![\d.,\w]){re.escape(text)}(?![\d]|[.,]\d)")
        for where, shown in texts:
            m = pattern.search(shown)
            if m:
                context = shown[max(0, m.start() - 40) : m.end() + 20].replace("\n", " ")
                hits.append((text, f"{where}: …{context}…"))
    return hits


def _widget_texts(state: dict, model_id: str, seen: set) -> list[str]:
    if model_id in seen or model_id not in state:
        return []
    seen.add(model_id)
    model = state[model_id].get("state", {})
    out = []
    for key in ("value", "description", "placeholder", "tooltip"):
        value = model.get(key)
        if isinstance(value, str) and model.get("_model_name") != "ImageModel":
            out.append(value)
    for title in model.get("titles", []) or []:
        if isinstance(title, str):
            out.append(title)
    for child in model.get("children", []) or []:
        if isinstance(child, str) and child.startswith("IPY_MODEL_"):
            out += _widget_texts(state, child[len("IPY_MODEL_") :], seen)
    return out


def _plain(text: str) -> str:
    return html.unescape(TAG.sub(" ", text))


def shown_texts(nb) -> list[list[tuple[str, str]]]:
    """Per cell of an executed notebook: the texts a student reads in it."""
    state = (
        nb.get("metadata", {})
        .get("widgets", {})
        .get("application/vnd.jupyter.widget-state+json", {})
        .get("state", {})
    )
    per_cell = []
    for i, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        texts = []
        if cell["cell_type"] == "markdown":
            texts.append((f"cell {i} (markdown)", source))
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                texts.append((f"cell {i} output", "".join(out.get("text", ""))))
            data = out.get("data", {})
            for mime in ("text/plain", "text/html", "text/markdown"):
                if mime in data and "application/vnd.jupyter.widget-view+json" not in data:
                    texts.append((f"cell {i} output", _plain("".join(data[mime]))))
            view = data.get("application/vnd.jupyter.widget-view+json")
            if view:
                shown = _widget_texts(state, view.get("model_id", ""), set())
                texts += [(f"cell {i} widget", _plain(t)) for t in shown]
        per_cell.append(texts)
    return per_cell


def leaks_in(nb, paper: str, per_cell) -> list[str]:
    """Every answer of ``paper`` found in ``per_cell`` before its exercise's cell."""
    where = exercise_cells(nb["cells"], paper)
    problems = []
    for number, value in numeric_answers(paper).items():
        before = [t for texts in per_cell[: where.get(number, 0)] for t in texts]
        for text, context in found(value, before):
            problems.append(f"{paper} exercise {number}'s answer {text} in {context}")
    return problems


def figure_texts(fig) -> list[str]:
    """Every text a figure draws (titles, labels, ticks, annotations, legends)."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def view_texts(view) -> list[str]:
    """The texts of a built view: its HTML children (title, status) and its figure's texts."""
    out = [_plain(c.value) for c in view.children if isinstance(getattr(c, "value", None), str)]
    if getattr(view, "figure", None) is not None:
        out += figure_texts(view.figure)
    return out


def view_cells(cells) -> list[tuple[int, str]]:
    """(cell index, view name) of the cells that build a paper's view."""
    out = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            out += [(i, m) for m in VIEW_CELL.findall("".join(cell["source"]))]
    return out
