"""Where every random stream of the workbench comes from: one module, four uses.

- **Replications** (:func:`replication_seeds`): replication ``i`` of a run with seed ``s``
  draws from the ``i``-th child of ``numpy.random.SeedSequence(s)``; a longer run extends a
  shorter one with fresh, independent streams (:func:`workbench.output_analysis.replicate`).
- **Grid points**: a point of a study, of the claim atlas or of a view gets the sweep's seed
  for its named values, :func:`workbench.sweep.point_seed` (not re-exported here: importing
  a paper package must not load the sweep).
- **The notebook's seed** (:func:`set_notebook_seed`, :func:`figure_seed`): a notebook's
  parameters cell calls ``set_notebook_seed(SEED)``; figures and views that take their seed
  from :func:`figure_seed` then follow it. ``SEED = 0`` keeps every published number (the
  figures' own base seed); another value shifts every figure's seed by it.
"""

from __future__ import annotations

import numpy as np

from workbench.validation import check_int, check_seed

__all__ = [
    "replication_seeds",
    "set_notebook_seed",
    "notebook_seed",
    "figure_seed",
]

_NOTEBOOK_SEED = 0


def replication_seeds(root, n: int, start: int = 0) -> list[np.random.SeedSequence]:
    """The seed sequences of replications ``start .. start + n - 1`` of a run.

    ``SeedSequence.spawn`` is stateful (a second call gives new children); the ``i``-th child
    is derived from the root's entropy instead, so replication ``i`` has the same stream in
    every call.

    Parameters
    ----------
    root : int or numpy.random.SeedSequence
        The run's seed.
    n : int
        How many replications.
    start : int
        Index of the first.

    Returns
    -------
    list of numpy.random.SeedSequence
        One per replication, in order.
    """
    if not isinstance(root, np.random.SeedSequence):
        root = np.random.SeedSequence(check_int(root, "seed", "replication_seeds", 0, 2**128 - 1))
    n = check_int(n, "n", "replication_seeds", 0, 10**7)
    start = check_int(start, "start", "replication_seeds", 0, 10**7)
    return [
        np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i), pool_size=4)
        for i in range(start, start + n)
    ]


def set_notebook_seed(seed) -> int:
    """Set the notebook's seed (its parameters cell); figures and views follow it."""
    global _NOTEBOOK_SEED
    _NOTEBOOK_SEED = check_seed(seed, "set_notebook_seed")
    return _NOTEBOOK_SEED


def notebook_seed() -> int:
    """The seed the notebook's parameters cell set (0 until it does)."""
    return _NOTEBOOK_SEED


def figure_seed(base: int, seed: int | None = None) -> int:
    """The seed a figure or view uses: its own ``base`` shifted by the notebook's ``seed``.

    Figures and views take ``seed`` from the caller (the notebook's ``SEED``, passed by
    hand); ``seed=None`` reads the module-wide seed of :func:`set_notebook_seed`, kept only
    until every paper passes its seed by hand.

    Parameters
    ----------
    base : int
        The figure's own seed (its published numbers at ``seed=0``).
    seed : int or None
        The caller's seed.

    Returns
    -------
    int
        ``base + seed``.
    """
    base = check_int(base, "base", "figure_seed", 0, 2**62)
    return base + (_NOTEBOOK_SEED if seed is None else check_seed(seed, "figure_seed"))
