"""Regenerate a paper's figures headless: one tidy CSV and one PNG per figure.

Each paper's ``figures.FIGURES`` maps a figure name to a
:class:`workbench.plots.FigureSpec`: ``frame(quick)`` computes the tidy DataFrame (one row
per plotted point, one column per variable), ``plot(frame)`` draws it.
"""

from __future__ import annotations

import time
from pathlib import Path

import matplotlib

from workbench.registry import PAPERS, paper
from workbench.validation import check_choice


def reproduce(
    paper_id: str,
    out: str | Path = "figures",
    quick: bool = False,
    only: list[str] | None = None,
    log=print,
) -> list[Path]:
    """Write ``<out>/<paper>/<figure>.csv`` and ``.png`` for every figure of ``paper_id``."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = (
        list(PAPERS)
        if paper_id == "all"
        else [check_choice(paper_id, "paper", "reproduce", [*PAPERS, "all"])]
    )
    written: list[Path] = []
    for pid in ids:
        folder = Path(out) / pid
        folder.mkdir(parents=True, exist_ok=True)
        for name, spec in paper(pid).figures.items():
            if only and name not in only:
                continue
            t0 = time.perf_counter()
            frame, fig = spec.make(quick=quick)
            csv, png = folder / f"{name}.csv", folder / f"{name}.png"
            frame.to_csv(csv, index=False)
            fig.savefig(png, dpi=120, bbox_inches="tight")
            plt.close(fig)
            written += [csv, png]
            log(f"{pid}/{name}: {len(frame)} rows, {time.perf_counter() - t0:.1f} s -> {png}")
    return written
