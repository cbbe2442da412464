"""Tests of the P3 figures, claims and notebook views."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.datacenters.claims import CLAIMS
from workbench.datacenters.figures import FIGURES
from workbench.plots import FigureSpec

FIGURE_NAMES = [
    "cooperation",
    "exact_limit_simulation",
    "convergence",
    "regime_map",
    "ring",
    "loss_landscape",
]


def test_figure_names_and_claim_ids_are_those_of_the_cli_and_the_table():
    assert list(FIGURES) == FIGURE_NAMES
    table = pd.read_csv("data/claims/p3.csv", comment="#")
    assert set(CLAIMS) == set(table["id"])


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_every_figure_frame_is_tidy_and_draws(name, tmp_path):
    spec = FIGURES[name]
    assert isinstance(spec, FigureSpec)
    frame, fig = spec.make(quick=True)
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    path = tmp_path / f"{name}.png"
    fig.savefig(path)
    assert path.stat().st_size > 0
    if name == "convergence":
        assert {"N", "beta1", "beta2", "limit_beta1", "limit_beta2"} <= set(frame.columns)


def test_interactive_view_redraws_on_slider_moves():
    # latency is measured in benchmarks/bench_slider_latency.py, not here
    from workbench.datacenters.views import VIEWS

    view = VIEWS["explore"]()
    assert "wb-interactive" in view._dom_classes
    for value in (0.5, 0.4, 0.6):
        view.controls["p2"].value = value
        assert not view.status.value.startswith("<span"), view.status.value
    assert len(view.latencies_ms) == 4


def _imported_modules(path) -> list[str]:
    import ast

    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
    return names


def test_only_views_import_the_widget_stack():
    from pathlib import Path

    import workbench.datacenters as dc

    for path in Path(dc.__file__).parent.glob("*.py"):
        widgety = [
            n
            for n in _imported_modules(path)
            if n.startswith(("ipywidgets", "IPython", "workbench.widgets"))
        ]
        assert (path.name == "views.py") == bool(widgety), (path.name, widgety)


def test_cooperation_frame_validates_its_flags_and_leaves_out_uncertified_limits():
    from workbench.datacenters import cooperation_frame
    from workbench.validation import ParameterError

    with pytest.raises(ParameterError, match="'limit' parameter of cooperation_frame"):
        cooperation_frame((30.0, 16.0), (20, 20), (1.0, 1.0), limit="yes")
    with pytest.raises(ParameterError, match="'vary' parameter of cooperation_frame"):
        cooperation_frame((30.0, 16.0), (20, 20), (1.0, 1.0), vary="p3")
    # lambda/N = (1.001, 1.002): the limit is uncertifiable at p = (q, 0.5) with q < 1, and
    # exact at q = 1 only when p = (1, 1); no guessed limit value may appear
    frame = cooperation_frame((1001.0, 1002.0), (1000, 1000), (1.0, 1.0), p_other=0.5, points=3)
    limit_rows = frame[frame["model"].str.startswith("limit")]
    assert frame[frame["model"].str.startswith("exact")].shape[0] == 3
    assert limit_rows.empty
    for col in ("beta1", "beta2", "loss_fraction"):
        assert frame[col].between(0, 1).all()
