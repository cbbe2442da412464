"""P1 figures, claims and views: ids match the CSV, frames are tidy, views build fast enough."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from workbench.fog.claims import CLAIMS, claims_table
from workbench.fog.figures import FIGURES


def test_claim_ids_match_the_csv_and_disagreements_say_why():
    table = claims_table()
    assert set(table["id"]) == set(CLAIMS)
    dis = table[table["expect"] == "disagree"]
    assert dis["workbench_value"].notna().all() and (dis["note"].str.len() > 20).all()
    own = table[table["expect"] == "agree"]
    assert own["note"].str.contains("paper gives no number|workbench").all()


def test_fifo_claim_reproduces_its_workbench_value_quickly():
    row = claims_table().set_index("id").loc["fifo_count_vs_chain"]
    got = CLAIMS["fifo_count_vs_chain"](quick=True)
    assert abs(got - row["workbench_value"]) <= row["tolerance"]
    assert abs(got - row["value"]) > row["tolerance"]


def test_erlang_figure_shows_the_instability():
    frame, fig = FIGURES["erlang_sum_stability"].make(quick=True)
    stable = frame[frame["route"].str.startswith("uniform")]["value"].to_numpy()
    paper = frame[frame["route"].str.startswith("partial")]["value"].to_numpy()
    assert np.all((stable >= 0) & (stable <= 1))
    assert np.abs(paper - stable)[0] > 1e-2 and np.abs(paper - stable)[-1] < 1e-10
    assert fig.axes


def test_package_import_does_not_import_ipywidgets():
    # workbench.fog.figures is not checked: workbench.plots imports seaborn, which imports
    # ipywidgets by itself
    code = "import sys, workbench.fog, workbench.fog.claims; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_views_build_and_update():
    from workbench.fog.views import VIEWS

    view = VIEWS["node"]()
    view.controls["q"].value = 0.8
    assert "updated" in view.status.value
    view.controls["lam_light"].value = 190.0  # ρ ≥ 1: refused, and said so
    assert "unstable" in view.status.value
