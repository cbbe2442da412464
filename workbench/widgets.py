"""The notebook widgets in one import: views, controls, exercises, tables.

The pieces live in modules by role, each importable on its own:

- :mod:`workbench.notation`: the paper's notation rendered (controls, tables, figure labels);
- :mod:`workbench.numfmt`: one number formatter and the parser of typed numbers;
- :mod:`workbench.rendering`: a view's figure as a PNG legible on a projector;
- :mod:`workbench.controls`: a parameter's control and its labelled row;
- :mod:`workbench.interactive`: :func:`interactive_figure` and the shared :class:`Refinement`;
- :mod:`workbench.exercise_widget`: the exercise widget;
- :mod:`workbench.tables`: tables, the glossary, claims and the atlas in words.

>>> view = interactive_figure(plot_fn, lam=PARAMS["lam"], m=PARAMS["m"],
...                           limits={"m": lambda v: (1, v["N"])})
"""

from __future__ import annotations

from workbench import static_views
from workbench.controls import ControlRow, control, make_control, param_of
from workbench.exercise_widget import Exercise, exercise
from workbench.interactive import InteractiveFigure, Moved, Refinement, interactive_figure
from workbench.notation import control_label, mathtext, notation
from workbench.numfmt import format_number, parse_number
from workbench.rendering import VIEW_DPI, render_png, view_dpi
from workbench.tables import atlas_view, claims_table, glossary, table_html

__all__ = [
    "interactive_figure",
    "InteractiveFigure",
    "Refinement",
    "Moved",
    "ControlRow",
    "make_control",
    "control",
    "param_of",
    "exercise",
    "Exercise",
    "glossary",
    "table_html",
    "view_dpi",
    "VIEW_DPI",
    "render_png",
    "notation",
    "mathtext",
    "control_label",
    "format_number",
    "parse_number",
    "claims_table",
    "atlas_view",
]

if static_views.is_static():  # the course site: widgets as static HTML
    static_views.install()
