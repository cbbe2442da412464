"""P2's quick claim atlas kept in the repository: shown at once, recomputed on demand.

The quick atlas (4 design points × 4 readings: 16 evaluations of 22 simulations each) is
minutes of CPU, the longest piece of the P2 notebook by far. The notebook shows it from
``data/atlas/p2_quick.csv``: the evaluations ``workbench.atlas.atlas("p2", quick=True,
seed=0)`` makes, written by that same call::

    python -m workbench.proactive.quick_atlas      # recompute and rewrite the kept file

The table, the words and the figure are derived from those rows as the live atlas derives
them (:func:`workbench.atlas.summarise_atlas`), and a button recomputes the whole atlas
live, with a progress bar, then says whether it matches the kept rows.
``tests/test_proactive_quick_atlas.py`` recomputes one design point under two readings and
checks them equal to the kept rows, and the design columns equal to the atlas' design.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import ipywidgets as w
import numpy as np
import pandas as pd

from workbench.atlas import atlas, atlas_table, default_cache_dir
from workbench.proactive.claims import ATLAS
from workbench.proactive.params import PARAMS
from workbench.registry import ROOT
from workbench.static_views import is_static
from workbench.tables import atlas_widget
from workbench.widgets import atlas_view

__all__ = ["KEPT", "KEPT_SEED", "atlas_panel", "kept_atlas", "kept_points", "write_kept"]

KEPT = ROOT / "data" / "atlas" / "p2_quick.csv"
"""The quick atlas' evaluations, one row per (reading, design point, claim)."""
KEPT_SEED = 0
"""The design seed of the kept atlas (the notebook's published seed)."""
PAPER = "p2"


def kept_points(path: Path = KEPT) -> pd.DataFrame:
    """The kept evaluations as the atlas holds them (floats exact, empty notes as "").

    Parameters
    ----------
    path : pathlib.Path
        The CSV :func:`write_kept` wrote (default :data:`KEPT`).

    Returns
    -------
    pandas.DataFrame
        One row per (reading, design point, claim), as ``atlas(...).attrs["points"]``.
    """
    nan = {"measured": ["nan", "NaN", ""], "holds": ["nan", "NaN", ""]}
    points = pd.read_csv(path, keep_default_na=False, na_values=nan)
    points["note"] = points["note"].astype(str)
    return points


def kept_atlas(path: Path = KEPT) -> pd.DataFrame:
    """The quick atlas from the kept evaluations.

    Parameters
    ----------
    path : pathlib.Path
        As in :func:`kept_points`.

    Returns
    -------
    pandas.DataFrame
        The frame ``atlas("p2", quick=True, seed=0)`` returns for the code that wrote them.
    """
    table = atlas_table(kept_points(path), PARAMS)
    table.insert(0, "paper", PAPER)
    return table


def _live(seed: int, progress: bool = True) -> pd.DataFrame:

    return atlas(PAPER, quick=True, seed=seed, progress=progress, cache_dir=default_cache_dir())


def differing_rows(a: pd.DataFrame, b: pd.DataFrame) -> int:
    """How many evaluation rows of two atlases' ``points`` differ (values exactly, NaN
    equal to NaN); every row when their keys differ."""
    key = ["reading", "index", "claim"]
    if len(a) != len(b) or not a[key].reset_index(drop=True).equals(b[key].reset_index(drop=True)):
        return max(len(a), len(b))
    bad = np.zeros(len(a), dtype=bool)
    for col in a.columns:
        if col not in b:
            return len(a)
        x, y = a[col].to_numpy(), b[col].to_numpy()
        if x.dtype.kind == "f" or y.dtype.kind == "f":
            x, y = x.astype(float), y.astype(float)
            bad |= ~((x == y) | (np.isnan(x) & np.isnan(y)))
        else:
            bad |= x.astype(str) != y.astype(str)
    return int(bad.sum())


def write_kept(path: Path = KEPT, progress: bool = True) -> pd.DataFrame:
    """Compute the quick atlas (seed :data:`KEPT_SEED`, no cache) and keep its evaluations
    in ``path``; checks that the file read back gives the same frame.

    Parameters
    ----------
    path : pathlib.Path
        Where the CSV goes (default :data:`KEPT`, the repository's).
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        The atlas computed.

    Raises
    ------
    RuntimeError
        If the file does not read back as the atlas written.
    """

    frame = atlas(PAPER, quick=True, seed=KEPT_SEED, progress=progress)
    points = frame.attrs["points"]
    path.parent.mkdir(parents=True, exist_ok=True)
    points.to_csv(path, index=False)
    again = kept_atlas(path)
    if differing_rows(points, again.attrs["points"]) or not again.equals(frame):
        raise RuntimeError(f"write_kept: {path} does not read back as the atlas written")
    return frame


def _describe(frame: pd.DataFrame) -> str:
    points = frame.attrs["points"]
    evaluations = len(points[["reading", "index"]].drop_duplicates())
    return f"{evaluations} evaluations ({ATLAS.quick_points} points × the readings)"


def atlas_panel(quick: bool = True, seed: int = 0):
    """The P2 atlas in the notebook: the kept quick atlas with a button that recomputes it
    live (progress bar), or, for another seed or the full atlas, the live atlas
    (:func:`workbench.widgets.atlas_view`, computed now).

    Parameters
    ----------
    quick : bool
        The quick atlas (4 points) or the full one (64 points, computed now).
    seed : int
        The atlas' design seed; :data:`KEPT_SEED` shows the kept atlas.

    Returns
    -------
    ipywidgets.VBox
        The table, its summary and the figure (with the recompute button when live).
    """

    if not quick or seed != KEPT_SEED or not KEPT.exists():
        return atlas_view(PAPER, quick=quick, seed=seed)
    frame = kept_atlas()
    shown = w.VBox(list(atlas_widget(frame, PAPER).children))
    source = w.HTML(
        f"<p>Shown from <code>data/atlas/{KEPT.name}</code>, the {_describe(frame)} this code "
        "computes (<code>python -m workbench.proactive.quick_atlas</code> rewrites it). "
        "<b>Recompute live</b> runs them here on worker processes (about 90 CPU-seconds in "
        "all).</p>"
    )
    if is_static():
        return w.VBox([source, shown])
    button = w.Button(description="Recompute live", icon="refresh", button_style="info")
    log = w.Output()

    def recompute(_):
        button.disabled = True
        log.clear_output()
        try:
            with log:
                live = _live(seed)
            shown.children = atlas_widget(live, PAPER).children
            bad = differing_rows(frame.attrs["points"], live.attrs["points"])
            verdict = (
                "identical to the kept result"
                if not bad
                else f"differs from the kept result in {bad} of {len(live.attrs['points'])} rows"
            )
            source.value = f"<p>Recomputed live ({_describe(live)}): {verdict}.</p>"
        finally:
            button.disabled = False

    button.on_click(recompute)
    return w.VBox([source, w.HBox([button]), log, shown])


def main() -> int:
    frame = write_kept()
    shares = frame.loc[frame["reading"] == "all", "holds_share"]
    determined = int(sum(not math.isnan(s) for s in shares))
    print(f"wrote {KEPT}: {_describe(frame)}, {len(frame.attrs['points'])} rows")
    print(f"{determined} of {len(shares)} claims determined somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
