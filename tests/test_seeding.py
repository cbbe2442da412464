"""One seeding scheme: replications, grid points, the notebook's SEED reaching P5's views."""

import numpy as np
import pandas as pd
import pytest

from workbench import seeding
from workbench.hierarchy.diagrams import comparison_seeds
from workbench.hierarchy.figures import BASE_SEED, study
from workbench.hierarchy.params import PAPER_MODELS
from workbench.hierarchy.simulation import run_models
from workbench.output_analysis import Replication, replicate
from workbench.sweep import point_seed
from workbench.validation import ParameterError


def test_replications_extend_with_fresh_streams():
    def one(seed_sequence, index):
        return Replication({"x": float(np.random.default_rng(seed_sequence).random())}, [1.0])

    long = [r.row["x"] for r in replicate(one, replications=6, seed=11)]
    head = [r.row["x"] for r in replicate(one, replications=3, seed=11)]
    tail = [r.row["x"] for r in replicate(one, replications=3, seed=11, start=3)]
    assert long == head + tail and len(set(long)) == 6


def test_a_grid_seed_depends_on_the_point_not_on_its_types_or_order():
    a = point_seed({"lam": 4, "mu": 3}, 1, 2019)
    assert a == point_seed({"mu": 3.0, "lam": 4.0}, 1, 2019)
    assert a != point_seed({"lam": 3, "mu": 4}, 1, 2019)
    assert a != point_seed({"lam": 4, "mu": 3}, 2, 2019)


def test_the_comparison_view_measures_what_fig5_shows_at_a_grid_point():
    """Same seeds and run length as the quick Fig. 5 study at (λ, μ) = (8, 7): the view's
    per-model means are the study's (it used seeds 1..R before, and could not match)."""
    frame = study(models=PAPER_MODELS, lams=(8,), task_sizes=(7,), quick=True)
    frame = frame.set_index("model")
    reps = [
        run_models(
            lam=8, task_size=7, models=PAPER_MODELS, seed=s, periods=300, overload="transient"
        )
        for s in comparison_seeds(8, 7, 3)
    ]
    for m in PAPER_MODELS:
        mean = np.mean([r[f"{m}/mean_time"] for r in reps])
        assert mean == pytest.approx(frame.loc[m, "mean_time"], rel=1e-12)


def test_the_notebook_seed_reaches_the_figures_seed():
    """The caller's seed shifts a figure's own: 0 is the published sample. There is no
    module-wide seed to fall back on: a seed must be given."""
    assert seeding.figure_seed(BASE_SEED, 0) == BASE_SEED
    assert seeding.figure_seed(BASE_SEED, 5) == BASE_SEED + 5
    assert not hasattr(seeding, "set_notebook_seed")
    with pytest.raises(TypeError):
        seeding.figure_seed(BASE_SEED)
    with pytest.raises(ParameterError, match="'seed' parameter of figure_seed"):
        seeding.figure_seed(BASE_SEED, -3)
    before = comparison_seeds(8, 7, 2)
    assert comparison_seeds(8, 7, 2, seed=5) != before
    assert comparison_seeds(8, 7, 2, seed=0) == before
    with pytest.raises(ParameterError, match="'seed' parameter of comparison_seeds"):
        comparison_seeds(8, 7, 2, seed=None)


class _Seen(Exception):
    """Raised by a spy once it has recorded the seed a view asked for."""


def _seed_asked(module, name, call, position=None):
    """The seed ``call()`` passes to ``module.name`` (by keyword, or at ``position``)."""
    original, seen = getattr(module, name), {}

    def spy(*args, **kwargs):
        seen["seed"] = kwargs["seed"] if position is None else args[position]
        raise _Seen

    setattr(module, name, spy)
    try:
        call()
    except _Seen:
        pass
    finally:
        setattr(module, name, original)
    return seen["seed"]


def test_p4_views_and_frames_take_the_seed_by_hand():
    """P4's seeded views and frames take ``seed`` from the caller (the notebook's SEED):
    0 draws the published picture, another seed another sample, and the same seed the same."""
    from workbench.redundancy import views
    from workbench.redundancy.figures import FIGURES

    def asked(seed):
        return _seed_asked(
            views, "_view_point", lambda: views.plot_simulation(jobs=2_000, seed=seed), 9
        )

    assert asked(0) == views.VIEW_SEED and asked(3) == views.VIEW_SEED + 3
    frame = FIGURES["ext_heavy_tail"].frame
    published = frame(quick=True)
    other = frame(quick=True, seed=1)
    assert not published["running_mean"].equals(other["running_mean"])
    pd.testing.assert_frame_equal(frame(quick=True, seed=1), other)
    pd.testing.assert_frame_equal(frame(quick=True, seed=0), published)
    assert FIGURES["ext_heavy_tail"].seeded and not FIGURES["fig3"].seeded


def test_the_arena_view_takes_its_seed_from_the_caller(monkeypatch):
    """The arena's slider view runs every contender on the seed it is given (the notebook's
    SEED, 0 by default: the published view)."""
    from types import SimpleNamespace

    import matplotlib.pyplot as plt

    from workbench.arena import views

    seen = []

    def fake(**kw):
        seen.append(kw["seed"])
        return SimpleNamespace(
            mean_delay=1.0,
            ci_low=0.9,
            ci_high=1.1,
            forwarded_share=0.0,
            cloud_share=0.0,
            loss_share=0.0,
            stationary=True,
        )

    monkeypatch.setattr(views, "simulate", fake)
    for kwargs, want in (({}, 0), ({"seed": 5}, 5)):
        seen.clear()
        plt.close(views.plot_point(**kwargs))
        assert seen and set(seen) == {want}, (kwargs, seen)
    with pytest.raises(ParameterError, match="'seed' parameter of plot_point"):
        views.plot_point(seed=-1)
