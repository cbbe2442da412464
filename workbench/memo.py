"""Results the notebooks compute at their defaults, kept between runs of the same code.

A notebook's figures and claims table at its defaults are the same numbers every time the
same code runs them (every stochastic function is seeded). :func:`cached_call` keeps such a
result in ``$WORKBENCH_CACHE/results`` (``joblib.Memory``), keyed by the function, its
arguments, the notebook's seed and :func:`workbench.digest.source_digest` (every source file
and claims table), so a second run of the notebook (JupyterLab after the headless run,
Voila, the course site) reuses it, and any change to the code computes it afresh.
``WORKBENCH_RESULTS_CACHE=0`` turns it off. A result missing from the cache is computed under a
file lock of its own (:mod:`workbench.locks`): a second process asking for it meanwhile
waits, then reads it. The atlas keeps its evaluations the same way
(:func:`workbench.claims.atlas`).
"""

from __future__ import annotations

import importlib
import os

from workbench.digest import cache_dir, source_digest
from workbench.locks import locked
from workbench.seeding import notebook_seed

__all__: list[str] = []  # used by FigureSpec.make and the claims table, not called by users


def enabled() -> bool:
    return os.environ.get("WORKBENCH_RESULTS_CACHE", "1") != "0"


def _run(key: tuple, module: str, qualname: str, args: tuple, kwargs: dict):
    """Import ``module.qualname`` and call it (the cached unit: ``key`` is the code's digest
    and the notebook's seed, which figures read through ``figure_seed``)."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj(*args, **kwargs)


def cached_call(func, *args, **kwargs):
    """``func(*args, **kwargs)``, from the results cache when this code computed it before.

    ``func`` must be a module-level function (found again by its module and name) whose
    result depends only on its arguments and the package's code; anything else is called
    directly."""
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    if not enabled() or not module or "<" in qualname:
        return func(*args, **kwargs)
    from joblib import Memory
    from joblib import hash as joblib_hash

    memory = Memory(cache_dir("results"), verbose=0)
    call = ((source_digest(), notebook_seed()), module, qualname, args, kwargs)
    cached = memory.cache(_run)
    if cached.check_call_in_cache(*call):
        return cached(*call)
    # one computation of a result at a time: a second process asking for it meanwhile (a
    # test beside the notebook that computes it) waits, then reads it
    with locked(cache_dir("results") / "locks" / joblib_hash(call)):
        return cached(*call)
