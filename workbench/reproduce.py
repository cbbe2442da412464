"""Regenerate a paper's figures headless: one tidy CSV and one PNG per figure.

Each paper's ``figures.FIGURES`` maps a figure name to a
:class:`workbench.plots.FigureSpec`: ``frame(quick)`` computes the tidy DataFrame (one row
per plotted point, one column per variable), ``plot(frame)`` draws it.

``reproduce("atlas")`` writes every paper's claim atlas instead (:func:`write_atlas`);
``reproduce("arena")`` the arena's winner map and fronts (``workbench.registry.ARENA``).
"""

from __future__ import annotations

import time
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt

from workbench.atlas import atlas, plot_atlas
from workbench.registry import ARENA, PAPERS, paper
from workbench.validation import ParameterError, check_choice, check_seed, refusal


def _figures(pid: str) -> dict:
    return ARENA.figures if pid == "arena" else paper(pid).figures


def check_only(paper_id: str, only) -> list[str] | None:
    """``only`` checked against the figures of ``paper_id`` (``"all"``: of every paper): the
    names, or None for every figure. An unknown name is refused with the valid ones."""
    if only is None:
        return None
    if isinstance(only, str) or not all(isinstance(n, str) for n in only):
        raise refusal("reproduce", "only", "a list of figure names", only)
    only = list(only)
    if paper_id == "atlas":
        raise ParameterError(
            "The 'only' parameter of reproduce names figures; 'atlas' writes every paper's "
            "claim atlas and has none to choose."
        )
    ids = list(PAPERS) if paper_id == "all" else [paper_id]
    valid = sorted({name for pid in ids for name in _figures(pid)})
    unknown = [n for n in only if n not in valid]
    if unknown or not only:
        raise ParameterError(
            f"The 'only' parameter of reproduce must name figures of {paper_id}: "
            f"{', '.join(valid)}. Got {unknown or only} instead."
        )
    return only


def reproduce(
    paper_id: str,
    out: str | Path = "figures",
    quick: bool = False,
    only: list[str] | None = None,
    log=print,
    client=None,
    seed: int = 0,
) -> list[Path]:
    """Write ``<out>/<paper>/<figure>.csv`` and ``.png`` for every figure of ``paper_id``;
    ``"atlas"``: every paper's claim atlas (:func:`write_atlas`, on the Dask ``client`` if
    given).

    ``seed`` plays the notebook's ``SEED``: 0 gives the published figures, another value
    shifts every figure's seed by it (:func:`workbench.seeding.figure_seed`); the atlas's
    design and simulation seed.
    """
    matplotlib.use("Agg")
    check_choice(paper_id, "paper", "reproduce", [*PAPERS, "all", "atlas", "arena"])
    seed = check_seed(seed, "reproduce")
    only = check_only(paper_id, only)  # before any work: an unknown name does nothing
    if paper_id == "atlas":
        return [
            p
            for pid in PAPERS
            for p in write_atlas(pid, out, quick=quick, client=client, seed=seed, log=log)
        ]
    return _write_figures(paper_id, out, quick, only, log, seed)


def _write_figures(paper_id: str, out, quick: bool, only, log, seed: int = 0) -> list[Path]:
    ids = list(PAPERS) if paper_id == "all" else [paper_id]  # "all": the papers, not the arena
    written: list[Path] = []
    for pid in ids:
        folder = Path(out) / pid
        for name, spec in _figures(pid).items():
            if only and name not in only:
                continue
            t0 = time.perf_counter()
            folder.mkdir(parents=True, exist_ok=True)
            frame, fig = spec.make(quick=quick, seed=seed)
            csv, png = folder / f"{name}.csv", folder / f"{name}.png"
            frame.to_csv(csv, index=False)
            fig.savefig(png, dpi=120, bbox_inches="tight")
            plt.close(fig)
            written += [csv, png]
            log(f"{pid}/{name}: {len(frame)} rows, {time.perf_counter() - t0:.1f} s -> {png}")
    return written


def write_atlas(
    paper_id: str,
    out: str | Path = "figures",
    *,
    quick: bool = False,
    client=None,
    n_points: int | None = None,
    seed: int = 0,
    log=print,
):
    """Write ``<out>/atlas/<paper>_atlas.csv`` (one row per claim and reading),
    ``<paper>_atlas_points.csv`` (every evaluation) and ``<paper>_atlas.png``.

    ``client``: a Dask scheduler address (``"tcp://host:8786"``) or client to run the
    evaluations on; local joblib processes otherwise. Returns the written paths.
    """
    t0 = time.perf_counter()
    frame = atlas(paper_id, quick=quick, n_points=n_points, client=client, seed=seed)
    folder = Path(out) / "atlas"
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"{paper_id}_atlas.csv"
    points = folder / f"{paper_id}_atlas_points.csv"
    png = folder / f"{paper_id}_atlas.png"
    frame.to_csv(csv, index=False)
    frame.attrs["points"].to_csv(points, index=False)
    fig = plot_atlas(frame)
    fig.savefig(png, dpi=120, bbox_inches="tight")
    plt.close(fig)
    n = len(frame.attrs["points"])
    log(f"{paper_id}/atlas: {n} claim evaluations, {time.perf_counter() - t0:.1f} s -> {png}")
    return [csv, points, png]
