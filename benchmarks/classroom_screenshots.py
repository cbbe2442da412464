"""Before/after pictures of the classroom problems of issue 17, from any checkout of the repo.

    .venv/bin/python benchmarks/classroom_screenshots.py --repo /path/to/checkout --out DIR
    .venv/bin/python benchmarks/classroom_screenshots.py --repo ... --out DIR --only p3_ring
    .venv/bin/python benchmarks/classroom_screenshots.py --repo ... --out DIR --layout

The notebooks and the ``workbench`` package of ``--repo`` are used (the kernels run with
``PYTHONPATH=<repo>``; numba caches in ``/tmp``), so the same script photographs the code
before and after the fixes. The machinery (JupyterLab on a temporary copy of the notebooks,
headless Chromium) is this script's own repo's ``tests/browser_support.py``.

For each notebook that an item needs: open it in JupyterLab, run the cells the items need
(the first code cell, the ``parameters`` cell, cells that only set constants, every
``VIEWS[...]`` cell and the items' own cells, in notebook order; ``--run-all`` runs them all;
an item whose view or cell is not found triggers a Run All and a second try), then drive
each item (find a view by its title, a control by its label text, a cell by its source), and
save one element screenshot per item in ``DIR`` plus ``DIR/items.json`` (item -> file,
notebook, what was done, timings, what failed). A failing item is recorded and the run goes
on. One server and one browser at a time; all stopped at the end (also on error or SIGTERM).
``--list`` shows the items.

``--layout`` (instead of the screenshots): the layout check (this repo's
``workbench/layout.py``, copied to a temporary folder, so the same checker judges both
checkouts) on every figure of ``--repo`` at its quick frame and every slider view at its
defaults and the ends of every control (background views: defaults only), as
``tests/test_layout.py`` runs it; writes ``DIR/layout.json`` and prints the counts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # this script's repo (browser machinery, checker)
NUMBA_CACHE = Path(tempfile.gettempdir()) / "wb-classroom-numba"
VIEWPORT = {"width": 1280, "height": 800}  # a projector; Lab keeps its file browser open
RUN_ALL_TIMEOUT_MS = 420_000
REDRAW_TIMEOUT_MS = 90_000
MAX_PNG_BYTES = 220_000  # larger screenshots are stored with a 256-colour palette


@dataclass
class Item:
    """One picture: ``kind`` is cell | view | controls | readout | move."""

    key: str
    notebook: str  # file name prefix, e.g. "p1_"
    what: str  # the issue-17 bullet it shows
    kind: str
    view: str = ""  # regex on the view's title (then on its whole text)
    cell: str = ""  # regex on a code cell's source (multiline)
    control: str = ""  # regex on a control's label text
    value: str = ""  # what to type into the control ("" for none)
    option: str = ""  # regex on a dropdown option
    fallback_key: str = ""  # Home / End if typing the value does not set it
    moves: int = 3  # move items: how many ArrowRight presses, each timed
    setup: tuple[str, str] = ()  # a dropdown to set first: (label regex, option regex)
    keys: str = ""  # keys pressed on the control's slider instead of typing (e.g. "End")
    tall: int = 0  # viewport height for this picture (a long cell), 0: the usual 800 px
    cell_type: str = "code"  # cell items: code | markdown
    span: int = 0  # cell items: also show this many following cells


ITEMS = [
    Item(
        "p1_static_figure",
        "p1_",
        "p1 static figure: `<Figure size…>` text instead of an image",
        "cell",
        cell=r"FIGURES\[\"network_utilisation\"\]|network_utilisation",
    ),
    Item("p3_ring", "p3_", "p3 ring view: title and legend cropped", "view", view=r"\bring\b"),
    Item(
        "p3_regimes", "p3_", "p3 regimes view: legend cut at the right edge", "view", view=r"regime"
    ),
    Item(
        "p2_clusters", "p2_", "p2 'Clusters and one slot': cropped legend", "view", view=r"clusters"
    ),
    Item(
        "p5_topology_ba2",
        "p5_",
        "p5 topology view at ba-2: cropped title, label overlap",
        "view",
        view=r"hierarchy|topolog",
        control=r"topolog",
        option=r"ba-2",
    ),
    Item(
        "p5_five_models_lam10",
        "p5_",
        "p5 'Five models' at λ = 10: y label under tick labels",
        "view",
        view=r"five models",
        control=r"tasks per period|^\s*λ",
        value="10",
        fallback_key="End",
    ),
    Item(
        "p4_tradeoff_N2",
        "p4_",
        "p4 trade-off at N = 2: right-axis label over the right panel",
        "view",
        view=r"trade-?off",
        control=r"edge workers|\bN\b",
        value="2",
        fallback_key="Home",
    ),
    Item(
        "p1_control_labels",
        "p1_",
        "p1 node view: control labels cut with '…' (unit hidden)",
        "controls",
        view=r"one fog node|chain",
    ),
    Item(
        "p1_readout_1comma5",
        "p1_",
        "typing '1,5' into a readout (load multiplier)",
        "readout",
        view=r"simulat",
        control=r"\bload\b|ϱ",
        value="1,5",
    ),
    Item(
        "p1_exercise",
        "p1_",
        "p1 exercise cell: answer literal in the cell vs show('p1', 1)",
        "cell",
        cell=r"^\s*(exercise|show)\(",
    ),
    Item(
        "p1_fog_delay_load1.6",
        "p1_",
        "p1 fog-delay view at load 1.6: vanishing curve",
        "view",
        view=r"fog.{1,3}fog|link delay",
        control=r"\bload\b|ϱ",
        value="1.6",
        fallback_key="End",
    ),
    Item(
        "p4_simulation_move",
        "p4_",
        "p4 simulation view after moves (each timed)",
        "move",
        view=r"simulation",
    ),
    Item(
        "p4_tradeoff_delta0",
        "p4_",
        "p4 trade-off at Δ = 0: legend over the curves",
        "view",
        view=r"trade-?off",
        control=r"shift|Δ",
        value="0",
        fallback_key="Home",
    ),
    Item(
        "p5_ba2_speed_400",
        "p5_",
        "p5 ba-2 with F_c = 400: drawn speeds differ from the slider",
        "view",
        view=r"hierarchy|topolog",
        control=r"centre speed|F_c",
        value="400",
        fallback_key="End",
        setup=(r"topolog", r"ba-2"),
    ),
    Item(
        "p5_red_controls",
        "p5_",
        "p5 RED view: doubled names ('gentle gentle RED')",
        "controls",
        view=r"\bRED\b",
    ),
    Item(
        "p1_network_controls",
        "p1_",
        "p1 analytic view: raw notation in labels (p^I)",
        "controls",
        view=r"baselines|analytic model on",
    ),
    Item(
        "p1_glossary",
        "p1_",
        "p1 glossary: raw table, help cut off, ε default 0.0",
        "cell",
        cell=r"PARAMS\.frame|glossary\(",
    ),
    Item(
        "p5_exercise_no",
        "p5_",
        'p5 exercise cell: the answer "no" in the cell',
        "cell",
        cell=r"\"no\",|show\(\s*[\"']p5[\"']\s*,\s*2\s*\)",
    ),
    Item(
        "p2_schemes_move",
        "p2_",
        "p2 schemes view: time of a move (745 ms median before)",
        "move",
        view=r"four schemes|schemes",
    ),
    Item(
        "p1_delay_vs_theta",
        "p1_",
        "p1 delay_vs_theta figure: footer over the x label",
        "cell",
        cell=r"delay_vs_theta",
    ),
    Item(
        "p3_loss_landscape",
        "p3_",
        "p3 loss landscape: legend over title or data",
        "cell",
        cell=r"loss_landscape",
    ),
    Item("p4_fig3", "p4_", "p4 Fig. 3: legend over the data", "cell", cell=r"FIGURES\[\"fig3\"\]"),
]

# Issue 30 ("Classroom, round three"): keys start with the item number; every item is
# taken after Run All (item 2 is about views after Run All), at 1280 x 800 with the file
# browser open as the lecturer had it.
ITEMS_ROUND3 = [
    Item(
        "1-p1-node-view",
        "p1_",
        "1: p1 node view, controls in the notebook column",
        "view",
        view=r"one fog node|chain",
    ),
    Item(
        "4-p1-glossary",
        "p1_",
        "4: p1 glossary defaults as a program prints them (μ_heavy)",
        "cell",
        cell=r"^glossary\(",
        tall=2200,
    ),
    Item(
        "8-p1-lambda-max",
        "p1_",
        "8: p1 node view with λ at its slider's maximum",
        "view",
        view=r"one fog node|chain",
        control=r"arrival rate|^\s*λ",
        keys="End",
    ),
    Item(
        "8-p1-refusal-note",
        "p1_",
        "8: a refused typed value, then another control moved",
        "refusal",
        view=r"one fog node|chain",
        control=r"arrival rate|^\s*λ",
        value="5000",
    ),
    Item(
        "8-p1-exercise-box",
        "p1_",
        "8: exercise box placeholder (p1 Ex 1)",
        "cell",
        cell=r"show\(\s*\"p1\",\s*1\s*\)",
    ),
    Item(
        "6-p1-atlas",
        "p1_",
        "6: p1 atlas: table, heatmap and prose",
        "cell",
        cell=r"atlas_view\(\s*\"p1\"",
        tall=2200,
    ),
    Item(
        "4-p1-delay-vs-p_iot",
        "p1_",
        "4: p1 figure 'delay vs p^I': labels with _ and ^",
        "cell",
        cell=r"FIGURES\[\"delay_vs_p_iot\"\]",
    ),
    Item(
        "4-p1-last-cell",
        "p1_",
        "4: p1's last cell: a list printed in full",
        "cell",
        cell=r"e_max=e\)",
    ),
    Item(
        "2-p2-schemes",
        "p2_",
        "2: p2 'The four schemes, simulated' after Run All",
        "view",
        view=r"four schemes",
    ),
    Item(
        "4-p2-margin-readout",
        "p2_",
        "4: p2 margin view: the L̄ readout at its default",
        "controls",
        view=r"margin",
    ),
    Item(
        "8-p2-schemes-refining",
        "p2_",
        "8: p2 schemes view just after a move (refining)",
        "refining",
        view=r"four schemes",
    ),
    Item(
        "6-p2-claims",
        "p2_",
        "6: p2 claims table",
        "cell",
        cell=r"claims_table\(\s*\"p2\"",
        tall=1600,
    ),
    Item(
        "2-p3-ring", "p3_", "2: p3 'Ring of J = 6 centers' after Run All", "view", view=r"\bring\b"
    ),
    Item("5-p3-glossary", "p3_", "5: p3 glossary", "cell", cell=r"^glossary\(", tall=2600),
    Item(
        "8-p3-precision-bar",
        "p3_",
        "8: p3 precision loop's progress bar",
        "cell",
        cell=r"simulate_to_precision\(",
    ),
    Item(
        "8-p3-exercise-dropdown",
        "p3_",
        "8: p3 Ex 3, the dropdown's label",
        "cell",
        cell=r"show\(\s*\"p3\",\s*3\s*\)",
    ),
    Item(
        "4-p4-fig3",
        "p4_",
        "4: p4 Fig. 3: labels P_b, T_cl",
        "cell",
        cell=r"FIGURES\[\"fig3\"\]",
        tall=1000,
    ),
    Item(
        "2-p4-simulation",
        "p4_",
        "2: p4 'Simulation vs theory' after Run All",
        "view",
        view=r"simulation",
    ),
    Item(
        "7-p4-section2-lambda",
        "p4_",
        "7: p4 §2 text on the λ where m = 2 wins",
        "cell",
        cell=r"minimises \$P_b\$ only for",
        cell_type="markdown",
    ),
    Item(
        "7-p4-table1",
        "p4_",
        "7: p4 Table I figure",
        "cell",
        cell=r"FIGURES\[\"table1\"\]",
        tall=1400,
    ),
    Item(
        "7-p4-weibull",
        "p4_",
        "7: p4 Weibull text and its figure",
        "cell",
        cell=r"Weibull service",
        cell_type="markdown",
        span=1,
        tall=1400,
    ),
    Item(
        "6-p4-claims",
        "p4_",
        "6: p4 claims table (verdict column)",
        "cell",
        cell=r"claims_table\(\s*\"p4\"",
        tall=1600,
    ),
    Item(
        "4-p5-Fc-readout",
        "p5_",
        "4: p5 hierarchy view, F_c at its slider's maximum",
        "view",
        view=r"hierarchy|topolog",
        control=r"centre speed|F_c",
        keys="End",
    ),
    Item(
        "8-p5-precision-bar",
        "p5_",
        "8: p5 precision loop's progress bar",
        "cell",
        cell=r"simulate_to_precision\(\s*$",
    ),
    Item(
        "6-p5-atlas",
        "p5_",
        "6: p5 atlas: table, heatmap and prose",
        "cell",
        cell=r"atlas_view\(\s*\"p5\"",
        tall=2400,
    ),
]

ROUNDS = {"17": ITEMS, "3": ITEMS_ROUND3}


@dataclass
class Result:
    key: str
    what: str
    notebook: str = ""
    file: str = ""
    ok: bool = False
    done: list[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    move_s: float | None = None
    details: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------ page JS

FIND_VIEW_JS = """([re, mark]) => {
    const rx = new RegExp(re, 'i');
    const views = [...document.querySelectorAll('.wb-interactive')];
    const title = (v) => {
        for (const c of v.children) { const t = (c.innerText || '').trim(); if (t) return t; }
        return '';
    };
    let hit = views.find((v) => rx.test(title(v))) || views.find((v) => rx.test(v.innerText));
    if (!hit) return {found: false, titles: views.map(title)};
    hit.setAttribute('data-wb-shot', mark);
    return {found: true, title: title(hit)};
}"""

FIND_CONTROL_JS = """([view, re, mark, slider]) => {
    const rx = new RegExp(re, 'i');
    const rowSel = view.querySelector('.wb-control') ? '.wb-control'
        : '.widget-inline-hbox, .jupyter-widget-inline-hbox';
    let rows = [...view.querySelectorAll(rowSel)].filter((r) =>
        rx.test(r.innerText || '') &&
        r.querySelector('input, select, .noUi-handle, .widget-readout'));
    const sliders = rows.filter((r) => r.querySelector('.noUi-handle'));
    if (slider && sliders.length) rows = sliders;
    if (!rows.length) return {found: false,
        labels: [...view.querySelectorAll(rowSel)].map((r) => (r.innerText || '').trim())};
    rows.sort((a, b) => a.querySelectorAll('*').length - b.querySelectorAll('*').length);
    const row = rows[0];
    const box = row.classList.contains('wb-control') && row.parentElement ? row.parentElement : row;
    box.setAttribute('data-wb-row', mark);
    return {found: true, label: (row.innerText || '').trim()};
}"""

VIEW_STATE_JS = """(view) => {
    const img = view.querySelector('.wb-figure img') || view.querySelector('.widget-output img');
    const h = view.querySelector('.noUi-handle');
    return {
        src: (img && img.complete && img.naturalWidth > 0) ? img.src : null,
        stale: !!view.querySelector('.wb-stale'),
        text: (view.innerText || '').slice(0, 4000),
    };
}"""

FIND_CELL_JS = """([re, mark, type, span]) => {
    const rx = new RegExp(re, 'm');
    const nb = window.jupyterapp.shell.currentWidget.content;
    for (let i = 0; i < nb.widgets.length; i++) {
        const c = nb.widgets[i];
        if (c.model.type === type && rx.test(c.model.sharedModel.getSource())) {
            c.node.setAttribute('data-wb-cell', mark);
            const last = nb.widgets[Math.min(i + span, nb.widgets.length - 1)];
            last.node.setAttribute('data-wb-cell-last', mark);
            return {found: true, index: i, source: c.model.sharedModel.getSource().slice(0, 400)};
        }
    }
    return {found: false};
}"""


# ------------------------------------------------------------------------------ helpers


def _save_png(locator_or_page, path: Path, **kw) -> None:
    locator_or_page.screenshot(path=str(path), **kw)
    if path.stat().st_size > MAX_PNG_BYTES:
        from PIL import Image

        with Image.open(path) as im:
            small = im.convert("RGB").quantize(colors=256)
        small.save(path, optimize=True)


CONTENT_BOX_JS = """(el) => {
    // the element's box, narrowed (or widened) to what is drawn in it: text and controls
    el.scrollIntoView({block: 'start'});
    const box = el.getBoundingClientRect();
    let right = box.left + 100;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    while (walker.nextNode()) {
        if (!walker.currentNode.textContent.trim()) continue;
        range.selectNodeContents(walker.currentNode);
        for (const q of range.getClientRects()) if (q.width > 0) right = Math.max(right, q.right);
    }
    const drawn = 'img, input, select, button, canvas, svg, .noUi-target, .widget-readout';
    for (const e of el.querySelectorAll(drawn)) {
        const q = e.getBoundingClientRect();
        if (q.width > 0 && q.height > 0) right = Math.max(right, q.right);
    }
    right = Math.min(right + 12, window.innerWidth);
    const bottom = Math.min(box.bottom, window.innerHeight);
    return {x: box.left, y: box.top, width: right - box.left, height: bottom - box.top};
}"""


def _shoot(page, locator, path: Path, last=None) -> None:
    """Screenshot of ``locator`` cropped to its drawn content (no empty right margin); with
    ``last``, down to the bottom of that element too."""
    clip = locator.evaluate(CONTENT_BOX_JS)
    if last is not None:
        end = last.evaluate(CONTENT_BOX_JS.replace("el.scrollIntoView({block: 'start'});", ""))
        clip["width"] = max(clip["width"], end["x"] + end["width"] - clip["x"])
        clip["height"] = max(clip["height"], end["y"] + end["height"] - clip["y"])
    page.wait_for_timeout(200)
    _save_png(page, path, clip=clip)


def _view(page, item: Item, mark: str):
    found = page.evaluate(FIND_VIEW_JS, [item.view, mark])
    if not found["found"]:
        raise LookupError(f"no view matching /{item.view}/; views: {found['titles']}")
    view = page.locator(f'[data-wb-shot="{mark}"]').first
    view.scroll_into_view_if_needed()
    return view, found["title"]


def _state(view) -> dict:
    state = view.evaluate(VIEW_STATE_JS)
    state["status"] = view.evaluate(STATUS_JS)
    return state


STATUS_JS = """(view) => {
    const els = [...view.querySelectorAll('.widget-html, .jupyter-widget-html')];
    const hit = els.map((e) => e.innerText || '').find((t) => /updated in/.test(t));
    return hit === undefined ? null : hit;
}"""


POLL_JS = """(view) => {
    const img = view.querySelector('.wb-figure img') || view.querySelector('.widget-output img');
    const els = [...view.querySelectorAll('.widget-html, .jupyter-widget-html')];
    const rx = /updated in|drawn in|computing/;
    const hit = els.map((e) => e.innerText || '').find((t) => rx.test(t));
    const sel = '.widget-progress, .jupyter-widget-progress, .progress, [role=progressbar]';
    const bars = [...view.querySelectorAll(sel)];
    const shown = bars.filter((b) => b.offsetParent !== null);
    const bar = shown.length ? shown.map((b) => (b.parentElement.innerText || '').trim() || 'bar')
        .join(' | ') : null;
    return {src: (img && img.complete && img.naturalWidth > 0) ? img.src : null,
            stale: !!view.querySelector('.wb-stale'), status: hit === undefined ? null : hit,
            bar: bar};
}"""


def _wait_idle(page, view, timeout_s: float = 90.0) -> float:
    """Seconds until the view shows no progress bar and is not greyed (``timeout_s`` at most)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        now = view.evaluate(POLL_JS)
        if not now["bar"] and not now["stale"]:
            break
        page.wait_for_timeout(250)
    return round(time.monotonic() - t0, 1)


def _wait_redraw(page, view, old: dict, timeout_ms: int = REDRAW_TIMEOUT_MS) -> float:
    """Seconds until the view shows a new figure (a new image, or a new "updated in … ms"
    status when the new PNG happens to be identical) and is not greyed; raises on timeout."""
    t0 = time.monotonic()
    page.wait_for_function(
        """([view, old]) => {
            const img = view.querySelector('.wb-figure img') ||
                        view.querySelector('.widget-output img');
            const src = (img && img.complete && img.naturalWidth > 0) ? img.src : null;
            const els = [...view.querySelectorAll('.widget-html, .jupyter-widget-html')];
            const hit = els.map((e) => e.innerText || '').find((t) => /updated in/.test(t));
            const status = hit === undefined ? null : hit;
            const fresh = (src !== null && src !== old.src) ||
                          (status !== null && status !== old.status);
            return fresh && !view.querySelector('.wb-stale');
        }""",
        arg=[view.element_handle(), old],
        timeout=timeout_ms,
    )
    return time.monotonic() - t0


def _control(page, view, pattern: str, mark: str, slider: bool = False):
    """The row of the control whose label matches ``pattern`` (the smallest such row; with
    ``slider``, a slider's row if there is one)."""
    found = page.evaluate(FIND_CONTROL_JS, [view.element_handle(), pattern, mark, slider])
    if not found["found"]:
        raise LookupError(f"no control labelled /{pattern}/; labels: {found['labels']}")
    return page.locator(f'[data-wb-row="{mark}"]').first, found["label"]


def _type_into(page, row, text: str) -> str:
    """Type ``text`` into the row's readout (a text box, or ipywidgets' editable readout)."""
    for selector in (".wb-readout input", ".widget-readout", "input[type=text]", "input"):
        boxes = [b for b in row.locator(selector).all() if b.is_visible()]
        if boxes:
            box = boxes[0]
            break
    else:
        raise LookupError("no visible readout to type into")
    box.click(timeout=5_000)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    return box.evaluate("(el) => el.value !== undefined ? el.value : el.innerText")


def _handle_now(row) -> float | None:
    h = row.locator(".noUi-handle")
    if not h.count():
        return None
    with contextlib.suppress(TypeError, ValueError):
        return float(h.first.get_attribute("aria-valuenow"))
    return None


def _choose(row, option: str, label: str, res: Result) -> bool:
    """Select the option matching ``option``; False when it was selected already."""
    select = row.locator("select").first
    options = select.evaluate("(s) => [...s.options].map((o) => [o.value, o.text])")
    value = next((v for v, t in options if re.search(option, f"{v} {t}", re.I)), None)
    if value is None:
        raise LookupError(f"no option /{option}/ in {options}")
    if select.input_value() == value:
        res.done.append(f"'{label}' already showed {value!r}")
        return False
    select.select_option(value)
    res.done.append(f"chose {value!r} in '{label}'")
    return True


def _set_control(page, view, item: Item, res: Result) -> None:
    row, label = _control(page, view, item.control, item.key, slider=not item.option)
    res.details["control"] = label
    if item.option:
        _choose(row, item.option, label, res)
        return
    if item.keys:
        res.details["value_before"] = _handle_now(row)
        row.locator(".noUi-handle").first.focus()
        for key in item.keys.split():
            page.keyboard.press(key)
        res.done.append(f"pressed {item.keys} on the slider of '{label}'")
        page.wait_for_timeout(500)
        res.details["value_after"] = _handle_now(row)
        res.details["slider_max"] = row.locator(".noUi-handle").first.get_attribute("aria-valuemax")
        return
    target = float(item.value)
    res.details["value_before"] = _handle_now(row)
    with contextlib.suppress(Exception):
        _type_into(page, row, item.value)
        res.done.append(f"typed {item.value!r} + Enter into the readout of '{label}'")
        page.wait_for_timeout(1500)
    now = _handle_now(row)
    if now is not None and abs(now - target) > 1e-9 and item.fallback_key:
        handle = row.locator(".noUi-handle").first
        handle.focus()
        page.keyboard.press(item.fallback_key)
        res.done.append(f"pressed {item.fallback_key} on the slider (typing left it at {now})")
        page.wait_for_timeout(500)
        now = _handle_now(row)
    res.details["value_after"] = now


def _shoot_controls(page, view, path: Path) -> None:
    """The view from its top down to its figure: title, controls, status line."""
    clip = view.evaluate(CONTENT_BOX_JS)
    page.wait_for_timeout(300)
    fig = view.locator(".wb-figure, .widget-output").first
    fb = fig.bounding_box() if fig.count() else None
    top = clip["y"]
    clip["height"] = (fb["y"] - top) if fb and fb["y"] > top + 20 else min(clip["height"], 400)
    _save_png(page, path, clip=clip)


# ------------------------------------------------------------------------------ drivers


def drive(page, item: Item, out: Path) -> Result:
    res = Result(item.key, item.what)
    path = out / f"{item.key}.png"
    t0 = time.monotonic()
    if item.tall:
        page.set_viewport_size({"width": VIEWPORT["width"], "height": item.tall})
        page.wait_for_timeout(800)
    try:
        if item.kind == "cell":
            found = page.evaluate(FIND_CELL_JS, [item.cell, item.key, item.cell_type, item.span])
            if not found["found"]:
                raise LookupError(f"no {item.cell_type} cell matching /{item.cell}/")
            res.details["cell"] = found["index"]
            res.details["source"] = found["source"]
            cell = page.locator(f'[data-wb-cell="{item.key}"]').first
            cell.scroll_into_view_if_needed()
            if item.cell_type == "code":
                outputs = cell.locator(".jp-OutputArea").first
                res.details["output_text"] = outputs.inner_text()[:300]
                res.details["images"] = cell.locator(".jp-OutputArea img").count()
            last = page.locator(f'[data-wb-cell-last="{item.key}"]').first if item.span else None
            _shoot(page, cell, path, last)
            res.done.append(
                f"screenshot of {item.cell_type} cell {found['index']}"
                + (f" and the {item.span} cell(s) after it" if item.span else "")
                + (f" (viewport 1280 x {item.tall})" if item.tall else "")
            )
        else:
            view, title = _view(page, item, item.key)
            res.details["view"] = title
            if item.kind == "controls":
                if item.control:
                    old = _state(view)
                    _set_control(page, view, item, res)
                    with contextlib.suppress(Exception):
                        res.details["redraw_s"] = round(
                            _wait_redraw(page, view, old, timeout_ms=30_000), 2
                        )
                _shoot_controls(page, view, path)
                res.done.append("screenshot of the view's title and controls")
            elif item.kind == "refining":  # the first figure after a move, while refining
                res.details["idle_before_s"] = _wait_idle(page, view)
                handle = view.locator(".noUi-handle").first
                old = _state(view)
                handle.focus()
                t_move = time.monotonic()
                page.keyboard.press("ArrowRight")
                seen, shot = [], False
                while time.monotonic() - t_move < 60:
                    now = view.evaluate(POLL_JS)
                    t = round(time.monotonic() - t_move, 2)
                    state = [now["status"], now["bar"], now["stale"]]
                    if not seen or seen[-1][1:] != state:
                        seen.append([t, *state])
                    fresh = now["src"] is not None and now["src"] != old["src"]
                    if fresh and not shot:
                        _shoot(page, view, path)  # the first new figure, as the student sees it
                        res.details["first_figure_s"] = t
                        shot = True
                    if shot and not now["bar"] and t - res.details["first_figure_s"] > 3:
                        break  # refined (or nothing to refine): the bar is gone
                    page.wait_for_timeout(100)
                res.details["seen"] = seen
                if not shot:
                    raise TimeoutError("no new figure within 60 s of the move")
                res.done.append(
                    "waited for the view to be idle, pressed ArrowRight on its first slider, "
                    "shot the first new figure, then logged status and progress bar until done"
                )
            elif item.kind == "refusal":  # a typed value refused, then another control moved
                row, label = _control(page, view, item.control, item.key, slider=True)
                shown = _type_into(page, row, item.value)
                page.wait_for_timeout(1500)
                res.done.append(f"typed {item.value!r} + Enter into the readout of '{label}'")
                res.details["row_after_typing"] = row.inner_text()[:300]
                res.details["refused_visibly"] = bool(row.locator(".wb-refused").count())
                handles = [
                    h
                    for h in view.locator(".noUi-handle").all()
                    if not h.evaluate("(h, row) => row.contains(h)", row.element_handle())
                ]
                if not handles:
                    raise LookupError("no second slider in the view")
                other = handles[-1]
                other_label = other.evaluate(
                    "(h) => { const r = h.closest('.wb-control') ||"
                    " h.closest('.widget-inline-hbox'); return r ? r.innerText.trim() : ''; }"
                )
                old = _state(view)
                other.focus()
                page.keyboard.press("ArrowRight")
                with contextlib.suppress(Exception):
                    res.details["redraw_s"] = round(_wait_redraw(page, view, old), 2)
                page.wait_for_timeout(800)
                res.done.append(f"pressed ArrowRight on the slider of '{other_label}'")
                res.details["row_after_move"] = row.inner_text()[:300]
                res.details["refused_after_move"] = bool(row.locator(".wb-refused").count())
                res.details["readout_typed"] = shown
                _shoot_controls(page, view, path)
            elif item.kind == "readout":
                row, label = _control(page, view, item.control, item.key, slider=True)
                res.details["control"] = label
                before = _handle_now(row)
                shown = _type_into(page, row, item.value)
                page.wait_for_timeout(3000)
                res.details.update(
                    value_before=before,
                    value_after=_handle_now(row),
                    readout_after=shown,
                    row_text_after=row.inner_text()[:300],
                    refused_visibly=bool(row.locator(".wb-refused").count()),
                )
                res.done.append(f"typed {item.value!r} + Enter into the readout of '{label}'")
                _shoot_controls(page, view, path)
            elif item.kind == "move":
                handle = view.locator(".noUi-handle").first
                label = handle.evaluate(
                    "(h) => { const r = h.closest('.wb-control') ||"
                    " h.closest('.widget-inline-hbox'); return r ? r.innerText.trim() : ''; }"
                )
                res.details["moves_s"] = []
                for _ in range(item.moves):
                    old = _state(view)
                    now, top = (
                        handle.get_attribute("aria-valuenow"),
                        handle.get_attribute("aria-valuemax"),
                    )
                    key = "ArrowLeft" if now is not None and now == top else "ArrowRight"
                    handle.focus()
                    t_move = time.monotonic()
                    page.keyboard.press(key)
                    page.wait_for_timeout(200)
                    if handle.get_attribute("aria-valuenow") == now:
                        res.details["stopped"] = f"{key} left the slider at {now}"
                        break
                    try:
                        _wait_redraw(page, view, old)
                    except Exception as err:
                        res.error = f"no redraw within {REDRAW_TIMEOUT_MS // 1000} s: {err}"
                        res.error = res.error[:300]
                    # from the key press to the new figure on screen, as a student waits
                    res.details["moves_s"].append(round(time.monotonic() - t_move, 2))
                    res.details.setdefault("kernel_status", []).append(_state(view)["status"])
                    if res.error:
                        break
                res.move_s = (res.details["moves_s"] or [None])[0]
                res.details["status_after"] = _state(view)["text"][-300:]
                res.done.append(
                    f"{len(res.details['moves_s'])} arrow-key moves of the first slider "
                    f"('{label}'), each timed until the new figure showed"
                )
                _shoot(page, view, path)
            else:  # view, optionally after setting one control
                if item.setup:  # a dropdown set first: (label regex, option regex)
                    old = _state(view)
                    row, label = _control(page, view, item.setup[0], f"{item.key}-setup")
                    if _choose(row, item.setup[1], label, res):
                        with contextlib.suppress(Exception):
                            _wait_redraw(page, view, old, timeout_ms=30_000)
                if item.control:
                    old = _state(view)
                    _set_control(page, view, item, res)
                    unchanged = item.value and res.details.get("value_before") == res.details.get(
                        "value_after"
                    )
                    if unchanged:  # already at that value: no redraw to wait for
                        res.details["redraw"] = "the control already had that value"
                    else:
                        try:
                            wait_ms = 30_000 if item.keys else REDRAW_TIMEOUT_MS
                            res.details["redraw_s"] = round(
                                _wait_redraw(page, view, old, timeout_ms=wait_ms), 2
                            )
                        except Exception as err:
                            res.details["redraw"] = f"no new figure: {type(err).__name__}"
                page.wait_for_timeout(500)
                res.details["status"] = _state(view)["status"]
                res.details["has_figure"] = bool(_state(view)["src"])
                _shoot(page, view, path)
                res.done.append("screenshot of the view")
                if (item.value or item.keys) and res.details.get("value_before") is not None:
                    with contextlib.suppress(Exception):  # the next item starts from defaults
                        row = page.locator(f'[data-wb-row="{item.key}"]').first
                        _type_into(page, row, f"{res.details['value_before']:g}")
                        page.wait_for_timeout(1500)
                        res.done.append(f"typed {res.details['value_before']:g} back")
        res.file = path.name
        res.ok = not res.error
    except Exception as err:
        res.error = f"{type(err).__name__}: {err}"[:600]
        with contextlib.suppress(Exception):
            if not path.exists():
                fail = out / f"{item.key}-FAILED.png"
                page.screenshot(path=str(fail))
                res.file = fail.name
    if item.tall:
        page.set_viewport_size(VIEWPORT)
        page.wait_for_timeout(300)
    res.seconds = round(time.monotonic() - t0, 1)
    return res


# ------------------------------------------------------------------------------ JupyterLab


def open_notebook(page, server, notebook: str, workspace: str) -> None:
    """Open ``notebook`` in JupyterLab in a fresh workspace and wait until its panel is the
    current widget (accepting Lab's kernel dialog if it asks)."""
    page.goto(
        f"{server.url}/lab/workspaces/{workspace}/tree/{notebook}?reset",
        wait_until="domcontentloaded",
    )
    page.wait_for_function(
        """(nb) => { const app = window.jupyterapp;
            const w = app && app.shell && app.shell.currentWidget;
            return !!(w && w.context && w.context.path.endsWith(nb) && w.content); }""",
        arg=notebook,
        timeout=120_000,
    )
    with contextlib.suppress(Exception):  # notebooks without a kernelspec make Lab ask
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=2_000)


def open_and_run(
    page, server, notebook: str, pattern: str | None, file_browser: bool = False
) -> dict:
    """Open ``notebook`` in a fresh workspace, wait for the kernel, run its cells (see
    :func:`run_cells`); side panels collapsed, or with ``file_browser`` the file browser
    open on the left as Lab starts."""
    t0 = time.monotonic()
    open_notebook(page, server, notebook, f"wb-shots-{Path(notebook).stem}")
    if file_browser:
        page.evaluate(
            """() => window.jupyterapp.commands.execute('filebrowser:activate').catch(() => {})"""
        )
    page.evaluate(
        """async (keepLeft) => { const s = window.jupyterapp.shell;
            if (!keepLeft) s.collapseLeft(); s.collapseRight();
            await s.currentWidget.context.ready; await s.currentWidget.sessionContext.ready; }""",
        file_browser,
    )
    page.wait_for_function(
        """() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;
            const k = s.session && s.session.kernel; return !!k && k.status === 'idle'; }""",
        timeout=120_000,
    )
    t_kernel = time.monotonic() - t0
    return {"kernel_s": round(t_kernel, 1), **run_cells(page, pattern)}


def run_cells(page, pattern: str | None) -> dict:
    """Run All (``pattern`` None), or run only the first code cell, the ``parameters`` cell,
    cells that only set constants, and the cells whose source matches ``pattern``."""
    t0 = time.monotonic()
    page.evaluate(
        """(re) => { window.__wbRunAll = 'running'; window.__wbRan = [];
            const app = window.jupyterapp;
            const finish = (p) => p.then(
                (ok) => { window.__wbRunAll = ok === false ? 'failed' : 'done'; },
                (e) => { window.__wbRunAll = 'error: ' + e; });
            if (re === null) { finish(app.commands.execute('notebook:run-all-cells')); return; }
            const rx = new RegExp(re, 'm');
            const constants =
                /^(\\s*(#.*)?\\n)*(\\s*[A-Z_][A-Z0-9_]*\\s*=[^=\\n]*(#.*)?\\n?)+\\s*$/;
            finish((async () => {
                const nb = app.shell.currentWidget.content;
                let first = true, ok = true;
                for (let i = 0; i < nb.widgets.length; i++) {
                    const c = nb.widgets[i];
                    if (c.model.type !== 'code') continue;
                    const src = c.model.sharedModel.getSource();
                    const tags = (c.model.getMetadata && c.model.getMetadata('tags')) || [];
                    if (first || tags.includes('parameters') || constants.test(src) ||
                        rx.test(src)) {
                        nb.activeCellIndex = i;
                        nb.deselectAll();
                        ok = (await app.commands.execute('notebook:run-cell')) !== false && ok;
                        window.__wbRan.push(i);
                    }
                    first = false;
                }
                return ok;
            })());
        }""",
        pattern,
    )
    page.wait_for_function("() => window.__wbRunAll !== 'running'", timeout=RUN_ALL_TIMEOUT_MS)
    status = page.evaluate("() => window.__wbRunAll")
    ran = page.evaluate("() => window.__wbRan")
    page.wait_for_timeout(2000)  # widgets render a little after their cell's reply
    return {
        "mode": "run all" if pattern is None else f"cells {ran} (first, parameters, /{pattern}/)",
        "run_s": round(time.monotonic() - t0, 1),
        "status": status,
    }


def shutdown_kernel(page) -> None:
    with contextlib.suppress(Exception):
        page.evaluate(
            """() => Promise.race([
                window.jupyterapp.shell.currentWidget.sessionContext.shutdown(),
                new Promise((resolve) => setTimeout(resolve, 5000))])"""
        )


def _target_env(repo: Path, tmp: Path) -> None:
    """Servers and kernels started from now on use ``repo``'s code."""
    os.environ["PYTHONPATH"] = str(repo)
    os.environ["NUMBA_CACHE_DIR"] = str(NUMBA_CACHE)
    os.environ["WB_ARTIFACTS_DIR"] = str(tmp / "artifacts")
    os.environ.pop("MPLBACKEND", None)
    for path in (HERE / "tests", HERE):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


def _terminate_on_signal() -> None:
    def stop(signum, _frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, stop)


def _stop_failure():
    import pytest

    return pytest.fail.Exception  # browser_support reports server failures this way


def needed_cells(items: list[Item]) -> str:
    """Source regex of the cells the items need: every view cell, and the items' cells."""
    return "|".join([r"VIEWS\[", *(i.cell for i in items if i.cell)])


def screenshots(
    repo: Path, out: Path, only: list[str], run_all: bool = False, round_: str = "17"
) -> int:
    table = ROUNDS[round_]
    file_browser = round_ == "3"  # issue 30's lecturer kept Lab's file browser open
    items = [i for i in table if not only or i.key in only]
    unknown = set(only) - {i.key for i in table}
    if unknown:
        raise SystemExit(f"unknown items {sorted(unknown)}; known: {[i.key for i in table]}")
    out.mkdir(parents=True, exist_ok=True)
    notebooks = sorted((repo / "notebooks").glob("p*.ipynb"))
    t_start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="wb-shots-"))
    _target_env(repo, tmp)
    _terminate_on_signal()
    import browser_support as bs

    results: list[Result] = []
    runs: dict[str, dict] = {}
    try:
        served = bs.copy_notebooks(repo / "notebooks", tmp / "nb")
        with bs.lab_server(served, tmp / "home") as server, bs.chromium() as browser:
            for nb_path in notebooks:
                mine = [i for i in items if nb_path.name.startswith(i.notebook)]
                if not mine:
                    continue
                context = browser.new_context(viewport=VIEWPORT)
                page = context.new_page()
                try:
                    pattern = None if run_all else needed_cells(mine)
                    try:
                        runs[nb_path.name] = open_and_run(
                            page, server, nb_path.name, pattern, file_browser
                        )
                    except Exception as err:
                        runs[nb_path.name] = {"error": f"{type(err).__name__}: {err}"[:400]}
                    print(f"{nb_path.name}: {runs[nb_path.name]}", flush=True)
                    todo = mine
                    for attempt in ("first", "after run all"):
                        missing = []
                        for item in todo:
                            res = drive(page, item, out)
                            res.notebook = nb_path.name
                            if attempt == "first" and res.error.startswith("LookupError: no "):
                                if pattern is not None:  # maybe made by a cell not run: retry
                                    missing.append(item)
                                    continue
                            mode = runs[nb_path.name].get("mode", "")
                            res.details["run"] = "run all" if "run all" in mode else "some cells"
                            results.append(res)
                            state = "ok" if res.ok else f"FAILED {res.error}"
                            print(f"  {item.key}: {state} ({res.seconds} s)", flush=True)
                        if not missing:
                            break
                        print(f"  not found {[i.key for i in missing]}: Run All", flush=True)
                        runs[nb_path.name]["retry"] = run_cells(page, None)
                        runs[nb_path.name]["mode"] = "run all (retry)"
                        todo = missing
                finally:
                    shutdown_kernel(page)
                    context.close()
    except (Exception, _stop_failure()) as err:
        runs["error"] = {"error": f"{type(err).__name__}: {err}"[:2000]}
        print(f"run failed: {runs['error']}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for item in items:
        if not any(r.key == item.key for r in results):
            results.append(Result(item.key, item.what, error="not reached"))
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    earlier: dict = {}
    if only and (out / "items.json").exists():  # keep the other items of an earlier run
        earlier = json.loads((out / "items.json").read_text())
        kept = {k: v for k, v in earlier.get("items", {}).items() if k not in only}
        results = [Result(**v) for v in kept.values()] + results
        runs = {**earlier.get("notebooks", {}), **runs}
        order = {i.key: n for n, i in enumerate(table)}
        results.sort(key=lambda r: order.get(r.key, len(order)))
    report = {
        "repo": str(repo),
        "commit": commit,
        "app": "JupyterLab, headless Chromium",
        "run_all": run_all,
        "round": round_,
        "viewport": VIEWPORT,
        "file_browser_open": file_browser,
        "total_s": round(time.monotonic() - t_start, 1),
        "only": only,
        "earlier_runs_s": [*earlier.get("earlier_runs_s", []), earlier.get("total_s")][
            : 10 if earlier else 0
        ],
        "notebooks": runs,
        "items": {r.key: asdict(r) for r in results},
    }
    (out / "items.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    failed = [r.key for r in results if not r.ok]
    print(
        f"{len(results) - len(failed)}/{len(results)} items captured in {report['total_s']} s; "
        f"failed: {failed or 'none'}"
    )
    return 1 if failed else 0


# ------------------------------------------------------------------------------ layout


def layout_worker(out_json: Path) -> None:
    """Run inside ``--repo``'s environment: count the layout problems of figures and views."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    import wb_layout_copy as lc

    from workbench import widgets as W
    from workbench.registry import PAPERS

    view_dpi = getattr(W, "view_dpi", None)
    if not hasattr(W.InteractiveFigure, "figure"):
        # older views keep no handle on their figure: the last one rendered is the view's
        # (views are checked one at a time); newer ones set self.figure themselves
        render = W._render_png

        def recording(fig, *args, **kwargs):
            W._wb_last_figure = fig
            return render(fig, *args, **kwargs)

        def get_figure(self):
            if "_wb_own_figure" in self.__dict__:  # a view that keeps its own
                return self.__dict__["_wb_own_figure"]
            return getattr(W, "_wb_last_figure", None)

        def set_figure(self, fig):
            self.__dict__["_wb_own_figure"] = fig

        W._render_png = recording
        W.InteractiveFigure.figure = property(get_figure, set_figure)
    rows = []
    for pid, paper in PAPERS.items():
        for name, spec in paper.figures.items():
            t0 = time.monotonic()
            try:
                fig = spec.plot(spec.frame(quick=True))
                found = [("figure", p) for p in lc.layout_problems(fig)]
                err = ""
            except Exception as exc:
                found, err = [], f"{type(exc).__name__}: {exc}"
            rows.append(_layout_row(pid, f"figure {name}", found, err, t0))
            plt.close("all")
        for name, make in paper.views.items():
            t0 = time.monotonic()
            found, err, settings = [], "", 0
            try:
                view = make()
                if not isinstance(view, W.InteractiveFigure):
                    continue
                for setting, fig in lc.view_settings(view, ends=not view._background):
                    settings += 1
                    dpi = view_dpi(fig) if view_dpi else 90.0
                    found += [(setting, p) for p in lc.layout_problems(fig, dpi=dpi)]
            except Exception as exc:
                err = f"{type(exc).__name__}: {exc}"
            row = _layout_row(pid, f"view {name}", found, err, t0)
            row["settings"] = settings
            rows.append(row)
            plt.close("all")
            print(f"{pid} view {name}: {len(found)} problems", flush=True)
    out_json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")


def _layout_row(pid, target, found, err, t0) -> dict:
    return {
        "paper": pid,
        "target": target,
        "problems": [{"setting": s, "kind": p.kind, "message": p.message} for s, p in found],
        "error": err,
        "seconds": round(time.monotonic() - t0, 1),
    }


def layout(repo: Path, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="wb-layout-"))
    try:
        shutil.copyfile(HERE / "workbench" / "layout.py", tmp / "wb_layout_copy.py")
        env = dict(os.environ, PYTHONPATH=f"{tmp}{os.pathsep}{repo}", MPLBACKEND="agg")
        env["NUMBA_CACHE_DIR"] = str(NUMBA_CACHE)
        t0 = time.monotonic()
        target = out / "layout.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--layout-worker", str(target)]
        done = subprocess.run(cmd, env=env, cwd=tmp)
        if done.returncode:
            print(f"layout worker exited with {done.returncode}", file=sys.stderr)
            return done.returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = json.loads(target.read_text())
    kinds: dict[str, int] = {}
    for row in rows:
        for p in row["problems"]:
            kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    total = sum(kinds.values())
    with_problems = [r for r in rows if r["problems"]]
    errors = [r for r in rows if r["error"]]
    print(
        f"layout check on {repo}: {total} problems in {len(with_problems)} of {len(rows)} "
        f"figures/views ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
        f"{len(errors)} could not be checked; {time.monotonic() - t0:.0f} s"
    )
    for row in with_problems:
        print(f"  {row['paper']} {row['target']}: {len(row['problems'])}")
    for row in errors:
        print(f"  ERROR {row['paper']} {row['target']}: {row['error'][:200]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", type=Path, help="checkout whose notebooks and code are shown")
    ap.add_argument("--out", type=Path, help="folder for the PNGs and items.json")
    ap.add_argument("--only", nargs="+", default=[], metavar="ITEM", help="these items only")
    ap.add_argument(
        "--run-all",
        action="store_true",
        help="Run All each notebook (default: only the cells the items need, Run All when an "
        "item's view or cell is not found then)",
    )
    ap.add_argument(
        "--round",
        choices=sorted(ROUNDS),
        default="17",
        help="which classroom round's items: 17 (issue 17, the default) or 3 (issue 30; "
        "every notebook Run All, file browser open)",
    )
    ap.add_argument(
        "--needed-cells",
        action="store_true",
        help="with --round 3: run only the cells the items need instead of Run All",
    )
    ap.add_argument("--layout", action="store_true", help="count layout problems instead")
    ap.add_argument("--layout-worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--list", action="store_true", help="list the items and exit")
    args = ap.parse_args(argv)
    if args.list:
        for item in ROUNDS[args.round]:
            print(f"{item.key:24s} {item.notebook:4s} {item.what}")
        return 0
    if args.layout_worker:
        layout_worker(args.layout_worker)
        return 0
    if not args.repo or not args.out:
        ap.error("--repo and --out are required")
    repo = args.repo.resolve()
    if args.layout:
        return layout(repo, args.out.resolve())
    run_all = args.run_all or (args.round == "3" and not args.needed_cells)
    return screenshots(repo, args.out.resolve(), args.only, run_all, args.round)


if __name__ == "__main__":
    sys.exit(main())
