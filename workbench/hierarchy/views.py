"""The notebook's slider views (the only module of the package importing ipywidgets)."""

from __future__ import annotations

import functools

from workbench.hierarchy.diagrams import (
    ba_speed_note,
    draw_hierarchy,
    plot_model_comparison,
    plot_overhead_rule,
    plot_red_curve,
)
from workbench.hierarchy.params import PARAMS
from workbench.hierarchy.topology import BUILT_FROM, P5Params
from workbench.params import Param
from workbench.validation import check_seed
from workbench.widgets import interactive_figure

__all__ = ["VIEWS"]

MEAN_EXEC = Param(
    "mean_exec_time",
    "t̄_exe",
    "mean execution time queued",
    "s",
    low=0.01,
    high=10.0,
    default=0.07,
    slider=(0.05, 5.0),
    step=0.05,
    help="Mean execution time of the queued tasks: scales RED's thresholds (eq. 11).",
)


def _sliders(*names) -> dict:
    """A slider per row of ``PARAMS``, in the order given."""
    return {name: PARAMS[name] for name in names}


def hierarchy_view():
    def plot(**values):
        p = P5Params.of("hierarchy_view", values)
        return draw_hierarchy(p.hierarchy(), note=ba_speed_note(p))

    return interactive_figure(
        plot,
        "The hierarchy",
        **_sliders("topology", *BUILT_FROM),
    )


def red_view():
    return interactive_figure(
        plot_red_curve,
        "RED at the entrance (eq. 11)",
        **_sliders("min_th", "max_th", "max_p"),
        mean_exec_time=MEAN_EXEC,
        gentle=PARAMS["gentle"],
        limits={"max_th": lambda v: (max(v["min_th"] + 1.0, 5.0), 80.0)},
    )


def overhead_view():
    return interactive_figure(
        plot_overhead_rule,
        "The overhead rule at a bottom server (eqs. 5, 8, 10)",
        **_sliders(
            "task_size", "data_per_work", "bandwidth", "compute_bottom", "compute_middle", "power"
        ),
    )


def comparison_view(seed: int = 0):
    """The five models at one load; ``seed``: the notebook's ``SEED`` (0: Fig. 5's numbers at
    its grid points)."""
    return interactive_figure(
        functools.partial(plot_model_comparison, seed=check_seed(seed, "comparison_view")),
        "Five models at one load (simulated)",
        **_sliders("lam", "task_size", "decision_time", "arrivals", "eq11_unit"),
        background=True,
    )


VIEWS = {
    "hierarchy": hierarchy_view,
    "red": red_view,
    "overhead": overhead_view,
    "comparison": comparison_view,
}
