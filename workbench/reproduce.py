"""Regenerate a paper's figures headless: one tidy CSV and one PNG per figure.

Each paper module declares ``FIGURES``: a dict ``name -> function(quick: bool) -> (DataFrame,
Figure)``. The DataFrame is tidy (one row per plotted point, one column per variable).
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path

import matplotlib

from workbench.validation import check_choice

PAPERS = {
    "p3": "workbench.datacenters",
    "p4": "workbench.redundancy_figures",
}


def paper_module(paper: str):
    check_choice(paper, "paper", "paper_module", PAPERS)
    return importlib.import_module(PAPERS[paper])


def reproduce(
    paper: str,
    out: str | Path = "figures",
    quick: bool = False,
    only: list[str] | None = None,
    log=print,
) -> list[Path]:
    """Write ``<out>/<paper>/<figure>.csv`` and ``.png`` for every figure of ``paper``."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    papers = (
        list(PAPERS)
        if paper == "all"
        else [check_choice(paper, "paper", "reproduce", [*PAPERS, "all"])]
    )
    written: list[Path] = []
    for p in papers:
        module = paper_module(p)
        folder = Path(out) / p
        folder.mkdir(parents=True, exist_ok=True)
        for name, make in module.FIGURES.items():
            if only and name not in only:
                continue
            t0 = time.perf_counter()
            frame, fig = make(quick=quick)
            csv, png = folder / f"{name}.csv", folder / f"{name}.png"
            frame.to_csv(csv, index=False)
            fig.savefig(png, dpi=120, bbox_inches="tight")
            plt.close(fig)
            written += [csv, png]
            log(f"{p}/{name}: {len(frame)} rows, {time.perf_counter() - t0:.1f} s -> {png}")
    return written
