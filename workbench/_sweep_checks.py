"""The checks of :func:`workbench.sweep.sweep`'s arguments: the grid, ``fixed``, ``func``'s
signature, the cache folder, the Dask client, the replications and batching, all before any
evaluation runs (split from :mod:`workbench.sweep` to keep both modules readable)."""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import os
import pickle
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from workbench import validation
from workbench.validation import ParameterError, check_budget, check_int

_FUNC = "sweep"
_RESERVED = ("replication", "seed")
# what one evaluation costs the sweeping process before it runs (its point, seed and result
# row): the grid is counted and refused against the memory budget before expansion
_BYTES_PER_EVALUATION = 1_000
# the most replications and the largest batch one call takes (beyond: a typo, not a study)
MAX_REPLICATIONS = 10**6
MAX_CHUNK = 10**6


def _bad(name: str, must: str, got: str, func: str = _FUNC) -> ParameterError:
    return ParameterError(f"The '{name}' parameter of {func} must be {must}. Got {got} instead.")


def _func_id(func) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_func_id(func.func)})"
    target = func if inspect.isfunction(func) or inspect.isclass(func) else type(func)
    target = getattr(func, "py_func", target)  # numba dispatchers keep the Python function
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"


def _signature(func) -> tuple[set[str] | None, set[str], bool]:
    """``(keyword names or None if **kwargs/opaque, required names, accepts seed)``."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        if getattr(func, "py_func", None) is None:
            return None, set(), False
        sig = inspect.signature(func.py_func)
    params = sig.parameters.values()
    named = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    required = {p.name for p in params if p.name in named and p.default is p.empty}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    return (None if var_kw else named), required, var_kw or "seed" in named


def _check_names(names, where: str) -> None:
    for name in names:
        if name in _RESERVED:
            rule = f"names other than {_RESERVED}"
        elif not isinstance(name, str) or not name.isidentifier():
            rule = "valid Python identifiers"
        else:
            continue
        raise _bad(where, f"keyed by {rule}", repr(name))


def _is_axis(values) -> bool:
    if isinstance(values, np.ndarray):
        return values.ndim == 1
    return isinstance(values, (Sequence, pd.Series, pd.Index, range)) and not isinstance(
        values, (str, bytes)
    )


def _grid_size(grid) -> int:
    """How many points ``grid`` expands to, counted without expanding it (0 if malformed)."""
    if isinstance(grid, Mapping):
        axes = list(grid.values())
        return math.prod(len(v) for v in axes) if axes and all(map(_is_axis, axes)) else 0
    if isinstance(grid, pd.DataFrame) or _is_axis(grid):
        return len(grid)
    return 0


def _plain(value):
    """numpy scalars -> Python scalars, so dict grids and explicit points give identical frames."""
    return value.item() if isinstance(value, (np.number, np.bool_, np.str_)) else value


def _expand_grid(grid) -> tuple[list[str], list[dict]]:
    """``(names, points)`` from a dict of axes (cartesian product) or explicit points."""
    if isinstance(grid, pd.DataFrame):
        names = list(grid.columns)
        _check_names(names, "grid")
        if len(set(names)) != len(names):
            raise _bad("grid", "a DataFrame with unique column names", repr(names))
        if grid.empty:
            raise _bad("grid", "a non-empty DataFrame", f"a DataFrame of shape {grid.shape}")
        return names, [{k: _plain(v) for k, v in r.items()} for r in grid.to_dict("records")]
    if isinstance(grid, Mapping):
        if not grid:
            raise _bad("grid", "a non-empty dict of name -> sequence", repr(grid))
        _check_names(list(grid), "grid")
        for name, values in grid.items():
            if not _is_axis(values) or len(values) == 0:
                must = "a dict of name -> non-empty 1-d sequence (list, tuple, range, array)"
                raise _bad("grid", must, f"{{{name!r}: {values!r}}}")
        axes = [[_plain(v) for v in values] for values in grid.values()]
        return list(grid), [
            dict(zip(grid, combo, strict=True)) for combo in itertools.product(*axes)
        ]
    if _is_axis(grid) and len(grid) and all(isinstance(p, Mapping) and p for p in grid):
        names = list(grid[0])
        _check_names(names, "grid")
        for p in grid:
            if set(p) != set(names):
                must = f"a list of dicts with the same keys {names!r}"
                raise _bad("grid", must, f"a point with keys {list(p)!r}")
        return names, [{k: _plain(p[k]) for k in names} for p in grid]
    must = "a dict of name -> sequence, a DataFrame or a non-empty list of non-empty dicts"
    raise _bad("grid", must + " (one per point)", repr(grid))


def _a_sweep_cache(path: Path) -> bool:
    """A folder a sweep keeps its cache in (``workbench-store``; ``joblib``: an older one)."""
    return (path / "workbench-store").is_dir() or (path / "joblib").is_dir()


def _check_cache_dir(cache_dir) -> Path:
    if not isinstance(cache_dir, (str, os.PathLike)):
        raise _bad("cache_dir", "a path (str or os.PathLike) or None", repr(cache_dir))
    flag = os.fspath(cache_dir).strip().lower()
    try:
        float(flag)
        flag = ""  # a number
    except ValueError:
        pass
    if flag in ("", "true", "false", "yes", "no", "on", "off", "none"):
        must = "a folder path such as '.sweep_cache' (a cache is a folder, not a flag)"
        raise _bad("cache_dir", must, repr(cache_dir))
    path = Path(os.fspath(cache_dir)).expanduser()
    if path.exists() and not path.is_dir():
        why = f"a folder; {str(path)!r} is a file"
    elif path.is_dir() and any(path.iterdir()) and not _a_sweep_cache(path):
        why = (
            f"a new folder or an existing sweep cache; {str(path)!r} holds other files, which "
            "the cache would be mixed into"
        )
    elif not path.parent.exists():
        why = f"inside an existing folder; {str(path.parent)!r} does not exist"
    else:
        return path
    raise _bad("cache_dir", why, repr(cache_dir))


def _distributed(client):
    """The ``distributed`` module, or a clear error when Dask (an optional extra) is missing."""
    try:
        import distributed  # optional extra: only client= needs it, importing sweep must not
    except ImportError as exc:
        if isinstance(client, str):
            raise ImportError(
                f"{_FUNC}(client={client!r}) runs on Dask, an optional extra that is not "
                "installed: pip install 'workbench[dask]' (or dask[distributed])"
            ) from exc
        return None
    return distributed


def _validate(
    func,
    grid,
    fixed,
    replications,
    client,
    n_workers,
    cache_dir,
    code_version,
    progress,
    chunk_size,
    desc,
):
    """Every check of :func:`sweep`'s arguments, before anything runs.

    Returns ``(names, points, fixed, pass_seed, distributed module or None)``."""
    if not callable(func):
        raise _bad("func", "a callable", repr(func))
    replications = check_int(replications, "replications", _FUNC, 1, MAX_REPLICATIONS)
    if isinstance(grid, Mapping):
        _check_names(list(grid), "grid")  # the keys first: a bad name fails before any work
    n_points = _grid_size(grid)
    evaluations = n_points * replications
    too_big_alone = n_points * _BYTES_PER_EVALUATION > validation.MEMORY_BUDGET
    check_budget(  # blame the grid when it alone is too big, else the replications
        _FUNC,
        "grid" if too_big_alone else "replications",
        f"a grid of {n_points:,} points" if too_big_alone else replications,
        evaluations * _BYTES_PER_EVALUATION,
        what=f"{evaluations:,} evaluations (grid points × replications) held in memory",
    )
    names, points = _expand_grid(grid)
    if not isinstance(fixed, (Mapping, type(None))):
        raise _bad("fixed", "a dict of name -> value or None", repr(fixed))
    fixed = dict(fixed or {})
    _check_names(fixed, "fixed")
    if overlap := [k for k in fixed if k in names]:
        raise _bad("fixed", "disjoint from the grid's names", repr(overlap))
    accepted, required, pass_seed = _signature(func)
    name = repr(getattr(func, "__name__", func))
    for where, keys in (("grid", names), ("fixed", list(fixed))):
        if accepted is not None and (unknown := [k for k in keys if k not in accepted]):
            must = f"keyed by parameters of {name} {sorted(accepted)}"
            raise _bad(where, must, repr(unknown))
    if missing := sorted(required - set(names) - set(fixed) - {"seed"}):
        must = f"keyed by (or 'fixed' must give) every required parameter of {name}"
        raise _bad("grid", must, f"{missing!r} missing")
    if n_workers is not None:
        check_int(n_workers, "n_workers", _FUNC, 1)
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", _FUNC, 1, MAX_CHUNK)
    for key, value, kinds, what in (
        ("progress", progress, (bool, np.bool_), "a bool"),
        ("desc", desc, (str, type(None)), "a str or None"),
        ("code_version", code_version, (str, type(None)), "a str or None"),
    ):
        if not isinstance(value, kinds):
            raise _bad(key, what, repr(value))
    if cache_dir is not None:
        _check_cache_dir(cache_dir)
        if not (isinstance(func, functools.partial) or inspect.isfunction(func)):
            if not hasattr(func, "py_func"):  # the cache keys functions by name and source
                must = "a function (or a functools.partial of one) when cache_dir is set"
                raise _bad("func", must, repr(func))
    if isinstance(client, str) and not client.strip():  # distributed would start a cluster
        raise _bad("client", "a scheduler address such as 'tcp://127.0.0.1:8786'", repr(client))
    distributed = None if client is None else _distributed(client)
    if client is not None and not isinstance(client, str):
        if distributed is None or not isinstance(client, distributed.Client):
            must = "a distributed.Client, a scheduler address string or None"
            raise _bad(
                "client", must + ("" if distributed else " (Dask is not installed)"), repr(client)
            )
    if client is None and n_workers != 1:
        main = sys.modules.get("__main__")
        interactive = main is None or not hasattr(main, "__file__")
        try:
            pickle.dumps(func)
            # a notebook's functions pickle by name but spawned workers cannot import them
            if interactive and _func_id(func).startswith("__main__."):
                raise pickle.PicklingError("defined interactively")
        except Exception:
            must = (
                "a picklable callable defined in an importable module when it runs in worker "
                "processes (else use n_workers=1 or a Dask client)"
            )
            raise _bad("func", must, repr(func)) from None
    return names, points, fixed, pass_seed, distributed
