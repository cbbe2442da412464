"""The course index: the notebooks in teaching order, with what each one teaches."""

from __future__ import annotations

import html
from pathlib import Path

from workbench.registry import ARENA, course


def course_table():
    """An HTML table of the notebooks that exist, in teaching order, with links."""
    from IPython.display import HTML

    rows = []
    listed = [*course(), ARENA]  # the papers in teaching order, then the arena
    for step, p in enumerate((p for p in listed if p.notebook_path.exists()), start=1):
        name = Path(p.notebook).name
        rows.append(
            f"<tr><td>{step}</td><td><a href='{name}'>{html.escape(name)}</a></td>"
            f"<td>{html.escape(p.title)}<br><small>{html.escape(p.citation)}</small></td>"
            f"<td>{html.escape(p.teaches)}</td></tr>"
        )
    head = "<tr><th>#</th><th>notebook</th><th>paper</th><th>what it teaches</th></tr>"
    return HTML(f"<table>{head}{''.join(rows)}</table>")
