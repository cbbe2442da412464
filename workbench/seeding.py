"""Where every random stream of the workbench comes from: one module, four uses.

- **Replications** (:func:`replication_seeds`): replication ``i`` of a run with seed ``s``
  draws from the ``i``-th child of ``numpy.random.SeedSequence(s)``; a longer run extends a
  shorter one with fresh, independent streams (:func:`workbench.output_analysis.replicate`).
- **Grid points**: a point of a study, of the claim atlas or of a view gets the sweep's seed
  for its named values, :func:`workbench.sweep.point_seed` (not re-exported here: importing
  a paper package must not load the sweep).
- **The notebook's seed** (:func:`figure_seed`): a notebook passes its ``SEED`` by hand to
  every seeded figure (``FIGURES[name].make(seed=SEED)``), view and run, as QuantEcon passes
  ``random_state``; there is no module-wide seed. A figure draws from its own base seed
  shifted by it: ``SEED = 0`` keeps every published number.
"""

from __future__ import annotations

import numpy as np

from workbench.validation import check_int, check_seed

__all__ = [
    "replication_seeds",
    "figure_seed",
]


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


def figure_seed(base: int, seed: int) -> int:
    """The seed a figure or view uses: its own ``base`` shifted by the notebook's ``seed``.

    Figures and views take ``seed`` from the caller (the notebook's ``SEED``, passed by
    hand).

    Parameters
    ----------
    base : int
        The figure's own seed (its published numbers at ``seed=0``).
    seed : int
        The caller's seed (the notebook's ``SEED``).

    Returns
    -------
    int
        ``base + seed``.
    """
    base = check_int(base, "base", "figure_seed", 0, 2**62)
    return base + check_seed(seed, "figure_seed")
