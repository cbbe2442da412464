"""Results the notebooks compute at their defaults, kept between runs of the same code.

A notebook's figures and claims table at its defaults are the same numbers every time the
same code runs them (every stochastic function is seeded). :func:`cached_call` keeps such a
result in ``$WORKBENCH_CACHE/results``, keyed by the function, its arguments (the
notebook's seed among them: it is passed by hand) and
:func:`workbench.digest.source_digest` (the code, every data file, a registered paper
outside the repository, the library versions), so a second run of the notebook
(JupyterLab after the headless run, Voila, the course site) reuses it, and any change to
what it reads computes it afresh. ``WORKBENCH_RESULTS_CACHE=0`` turns it off.

Entries are data, not code (:mod:`workbench._store`: signed JSON, never a pickle): a
truncated, edited or planted entry is computed afresh, never returned, and loading one runs
nothing. A cache folder that cannot be written means computing without it (one warning).
A result missing from the cache is computed under a file lock of its own
(:mod:`workbench.locks`): a second process asking for it meanwhile waits, then reads it.
The atlas keeps its evaluations the same way (:func:`workbench.atlas.atlas`).
"""

from __future__ import annotations

import importlib
import os

from workbench.digest import source_digest, usable_cache_dir
from workbench.locks import locked

__all__: list[str] = []  # used by FigureSpec.make and the claims table, not called by users


def _resolve(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def cached_call(func, *args, **kwargs):
    """``func(*args, **kwargs)``, from the results cache when this code computed it before.

    ``func`` must be a module-level function (found again by its module and name) whose
    result depends only on its arguments and what :func:`source_digest` covers; anything
    else is called directly, and so is a call whose result is not data the cache keeps
    (numbers, arrays, frames, lists and dicts of them)."""
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    off = os.environ.get("WORKBENCH_RESULTS_CACHE", "1") == "0"
    if off or not module or "<" in qualname:
        return func(*args, **kwargs)
    try:
        if _resolve(module, qualname) is not func:
            return func(*args, **kwargs)  # not found again by its name: not keyable
    except (ImportError, AttributeError):
        return func(*args, **kwargs)
    folder = usable_cache_dir("results")
    if folder is None:  # not writable: computed without it (warned once)
        return func(*args, **kwargs)
    from workbench._store import Store, key_of

    store = Store(folder / "data")
    key = key_of(source_digest(), module, qualname, args, kwargs)
    hit, value = store.get(key)
    if hit:
        return value
    # one computation of a result at a time: a second process asking for it meanwhile (a
    # test beside the notebook that computes it) waits, then reads it
    with locked(folder / "locks" / key):
        hit, value = store.get(key)
        if hit:
            return value
        value = func(*args, **kwargs)
        store.put(key, value)
        return value
