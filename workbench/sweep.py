"""Evaluate a function over a parameter grid: seeds from grid points, tidy results, resume.

Ours: the grid, a seed derived from each grid point, the tidy frame, errors that name the
failing point, and a watchdog that ends local workers when the sweeping process dies. The
rest is joblib's: ``joblib.Parallel`` (with its automatic batching) on the backend set by
``joblib.parallel_config`` (loky processes, or Dask for a cluster: the optional extra
``workbench[dask]``). The cache keeps data, not pickles (:mod:`workbench._store`). Every
paper model runs its studies through :func:`sweep`::

    df = sweep(simulate, {"rho": np.linspace(0.1, 0.9, 9), "servers": [1, 2, 4]},
               fixed={"horizon": 1e5}, replications=10, cache_dir=".sweep_cache")

- **Reproducible.** A seed depends only on ``base_seed``, the point's values and the
  replication, never on workers, batching, backend or completion order.
- **Once each.** One row set per (point, replication), also when Dask re-runs the tasks of
  a worker that died.
- **Resumable.** With ``cache_dir`` each evaluation is stored as it finishes; a re-run after
  an error, a crash or ``KeyboardInterrupt`` computes only what is missing. Local workers
  are ended on an error or an interrupt, and exit when the sweeping process is killed.
- **Tidy.** One DataFrame: grid columns, ``replication``, ``seed``, then ``func``'s outputs.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import itertools
import json
import math
import multiprocessing
import numbers
import os
import pickle
import re
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, parallel_config
from joblib.externals.loky.process_executor import TerminatedWorkerError

from workbench import validation
from workbench._store import Store, key_of
from workbench.progress import finish_bar, open_bar
from workbench.validation import ParameterError, check_budget, check_int, check_seed

__all__ = ["sweep", "point_seed", "SweepError", "SweepPointError"]

_CONNECT_TIMEOUT = 10  # seconds to reach a Dask scheduler given by address
_DASK_SETTLE_TIMEOUT = 120.0  # seconds a stopped Dask sweep waits for its points on workers
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_FUNC = "sweep"
_RESERVED = ("replication", "seed")
# what one evaluation costs the sweeping process before it runs (its point, seed and result
# row): the grid is counted and refused against the memory budget before expansion
_BYTES_PER_EVALUATION = 1_000
# the most replications and the largest batch one call takes (beyond: a typo, not a study)
MAX_REPLICATIONS = 10**6
MAX_CHUNK = 10**6


class SweepError(RuntimeError):
    """The sweep could not finish (a worker died, a task could not be run)."""


class SweepPointError(SweepError):
    """``func`` raised at one point; the original exception is chained as ``__cause__``.

    Parameters
    ----------
    message : str
        What went wrong, with the point and seed to reproduce it.
    point, replication, seed
        As the attributes below.

    Attributes
    ----------
    point : dict
        The grid point (parameter name -> value) that failed.
    replication : int
        The replication index that failed.
    seed : int
        The seed that was passed to ``func``.
    """

    def __init__(self, message: str, point: dict, replication: int, seed: int):
        super().__init__(message)
        self.point, self.replication, self.seed = point, replication, seed

    def __reduce__(self):
        return (type(self), (self.args[0], self.point, self.replication, self.seed))


class _RemoteTraceback(Exception):
    """Carries a worker's formatted traceback (tracebacks themselves do not pickle)."""


# ----------------------------------------------------------------------------- seeds


def _canon(value):
    """A JSON-able, type-tagged form of ``value`` that is identical in every process and run.

    Numbers that compare equal map to the same form (``1``, ``1.0`` and ``np.int64(1)``), like
    Python's own ``hash``, so a grid given as ints or as floats yields the same seeds.
    """
    if value is None:
        return ["n"]
    if isinstance(value, (bool, np.bool_)):
        return ["b", bool(value)]
    if isinstance(value, numbers.Integral):
        return ["i", str(int(value))]
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return ["i", str(int(f))] if math.isfinite(f) and f.is_integer() else ["f", repr(f)]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, bytes):
        return ["y", value.hex()]
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
        return ["a", value.dtype.str, list(value.shape), digest.hexdigest()]
    if isinstance(value, (tuple, list)):
        return ["l", [_canon(v) for v in value]]
    if isinstance(value, Mapping):
        items = [[_canon(k), _canon(v)] for k, v in value.items()]
        return ["d", sorted(items, key=lambda kv: json.dumps(kv[0]))]
    if isinstance(value, (frozenset, set)):
        return ["S", sorted((_canon(v) for v in value), key=json.dumps)]
    if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
        return ["c", f"{value.__module__}.{value.__qualname__}"]
    text = repr(value)
    if _ADDRESS.search(text):  # a repr with a memory address changes every run: seeds would too
        raise _bad("grid", "values with a stable repr (numbers, strings, arrays, ...)", text)
    return ["r", f"{type(value).__module__}.{type(value).__qualname__}", text]


def _point_canon(point: Mapping) -> list:
    # sorted by name: the column order of the grid does not change seeds
    return [[name, _canon(point[name])] for name in sorted(point)]


def _seed_from_canon(base_seed: int, canon_point: list, replication: int) -> int:
    text = json.dumps(["seed", base_seed, canon_point], separators=(",", ":"), ensure_ascii=True)
    entropy = int.from_bytes(
        hashlib.blake2b(text.encode("ascii"), digest_size=32).digest(), "little"
    )
    ss = np.random.SeedSequence(entropy, spawn_key=(replication,))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def point_seed(point: Mapping, replication: int = 0, base_seed: int = 0) -> int:
    """The seed :func:`sweep` passes to ``func`` for one point and replication.

    Parameters
    ----------
    point : mapping
        Parameter name -> value (the grid point, without ``fixed`` values).
    replication : int, default 0
        Replication index, ``0 <= replication``.
    base_seed : int, default 0
        The sweep's ``base_seed``.

    Returns
    -------
    int
        A seed in ``[0, 2**63)``: blake2b of a canonical, type-tagged form of
        ``(base_seed, point)`` seeds a ``numpy.random.SeedSequence`` whose ``spawn_key`` is the
        replication index; its first 64-bit word, shifted right by one bit, is the seed.
    """
    if not isinstance(point, Mapping):
        raise _bad("point", "a mapping of parameter name -> value", repr(point), "point_seed")
    replication = check_int(replication, "replication", "point_seed", 0)
    base_seed = check_seed(base_seed, "point_seed", "base_seed")
    return _seed_from_canon(base_seed, _point_canon(dict(point)), replication)


# ----------------------------------------------------------------------------- validation


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
    with contextlib.suppress(ValueError):
        float(flag)
        flag = ""  # a number
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


def _check_grid(func, grid, fixed, replications):
    """The checks of what :func:`sweep` evaluates (``func`` at the grid's points, with
    ``fixed``), first of all its checks.

    Returns ``(names, points, fixed, pass_seed)``."""
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
    return names, points, fixed, pass_seed


def _check_run(func, client, n_workers, cache_dir, code_version, progress, chunk_size, desc):
    """The checks of how :func:`sweep` runs (where, cached how, shown how), after
    :func:`_check_grid`, before anything runs.

    Returns the ``distributed`` module, or None."""
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
    return distributed


# ----------------------------------------------------------------------------- evaluation


def _normalize(result):
    """One result as a dict (one row) or a DataFrame (several rows)."""
    if isinstance(result, pd.DataFrame):
        return result.reset_index(drop=True)
    if isinstance(result, pd.Series):
        return result.to_dict()
    if hasattr(result, "as_dict") and hasattr(result, "stationarity"):
        return result.as_dict()  # a SimulationResult: estimates, interval, stationarity flag
    if isinstance(result, Mapping):
        return dict(result)
    if isinstance(result, np.ndarray) and result.ndim == 0:
        return {"value": result.item()}
    if isinstance(result, (list, tuple, set, np.ndarray)):
        raise TypeError(
            "func must return a dict of scalars, a scalar or a DataFrame; "
            f"got a {type(result).__name__}"
        )
    return {"value": result}


_WATCHDOG = {"parent": None}


def _exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone.

    A killed sweep (``kill -9``, a closed notebook) must not leave workers computing: pool
    workers only notice a dead parent when they ask for the next task, which a long
    evaluation delays indefinitely.
    """
    if _WATCHDOG["parent"] is not None or multiprocessing.parent_process() is None:
        return
    parent = _WATCHDOG["parent"] = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="sweep-parent-watchdog", daemon=True).start()


def _evaluate(call, point: dict, fixed: dict, seed: int | None, index: int, remote: str | None):
    """One evaluation -> ``(index, result, error)``; an error travels back as a value, with
    the worker's traceback as text, so the parent can name the point that failed."""
    if remote == "processes":
        _exit_with_parent()
    try:
        kwargs = {**point, **fixed} if seed is None else {**point, **fixed, "seed": seed}
        return index, _normalize(call(**kwargs)), None
    except Exception as exc:
        if not remote:
            return index, None, (exc, None)  # in this process: the original, traceback intact
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        return index, None, (exc, tb)


class _Kept:
    """``func`` behind the sweep's cache: each evaluation, once computed (in whichever
    process), is stored as data (:mod:`workbench._store`, signed JSON: loading an entry
    runs no code, and an edited or planted one is computed afresh). Picklable for workers
    when ``func`` is."""

    def __init__(self, func, store, version: str):
        self.func, self.store, self.version = func, store, version
        self.__name__ = getattr(func, "__name__", type(func).__name__)
        self.__module__ = getattr(func, "__module__", None)

    def key(self, kwargs: dict) -> str:
        return key_of(_func_id(self.func), self.version, sorted(kwargs.items()))

    def lookup(self, kwargs: dict):
        """``[result]`` from the cache, or None (absent, unreadable or not sound)."""
        try:
            hit, value = self.store.get(self.key(kwargs))
        except OSError:
            return None
        return [value] if hit else None

    def __call__(self, **kwargs):
        result = _normalize(self.func(**kwargs))
        try:
            self.store.put(self.key(kwargs), result)
        except OSError as exc:  # the folder went away or filled up: the result still counts
            warnings.warn(
                f"sweep: an evaluation was not cached ({exc})", RuntimeWarning, stacklevel=2
            )
        return result


def _memorized(func, fixed: dict, cache_dir: Path, code_version: str | None):
    """``(func behind the cache, fixed)``; a partial is cached as its function, with its
    bound arguments moved into ``fixed``. Without ``code_version`` the version is a digest of
    ``func``'s own source."""
    if isinstance(func, functools.partial):
        bound = inspect.signature(func.func).bind_partial(*func.args, **func.keywords)
        fixed = {**bound.arguments, **fixed}
        func = func.func
    if code_version is None:
        try:
            source = inspect.getsource(func)
        except (OSError, TypeError):
            source = repr(getattr(getattr(func, "__code__", None), "co_code", _func_id(func)))
        version = "source:" + hashlib.blake2b(source.encode(), digest_size=16).hexdigest()
    else:
        version = "version:" + str(code_version)
    return _Kept(func, Store(cache_dir / "workbench-store"), version), fixed


def _assemble(names, tasks, results) -> pd.DataFrame:
    """The tidy frame: grid columns, replication, seed, then result columns, in task order."""
    head = [*names, *_RESERVED]
    for res in results:
        bad = set(head).intersection(res.columns if isinstance(res, pd.DataFrame) else res)
        if bad:
            raise SweepError(
                f"func returned the column(s) {sorted(bad)} which clash with the grid columns "
                f"or the reserved names {_RESERVED}; rename them"
            )
    if all(isinstance(r, dict) for r in results):
        extra = dict.fromkeys(k for r in results for k in r)
        records = [
            {**p, "replication": rep, "seed": seed, **r}
            for (p, rep, seed), r in zip(tasks, results, strict=True)
        ]
        return pd.DataFrame.from_records(records, columns=head + list(extra))
    frames = []
    for (point, rep, seed), res in zip(tasks, results, strict=True):
        frame = res if isinstance(res, pd.DataFrame) else pd.DataFrame([res])
        n = len(frame)
        lead = {**{k: [point[k]] * n for k in names}, "replication": [rep] * n, "seed": [seed] * n}
        frames.append(pd.concat([pd.DataFrame(lead), frame.reset_index(drop=True)], axis=1))
    # an empty frame has object columns and would upcast the others: leave it out
    return pd.concat([f for f in frames if len(f)] or frames, ignore_index=True, sort=False)


# ----------------------------------------------------------------------------- public API


def sweep(
    func,
    grid,
    *,
    fixed=None,
    replications=1,
    base_seed=0,
    client=None,
    n_workers=None,
    cache_dir=None,
    code_version=None,
    progress=True,
    chunk_size=None,
    desc=None,
    retries=1,
) -> pd.DataFrame:
    """Evaluate ``func`` at every point of ``grid``, ``replications`` times each.

    Parameters
    ----------
    func : callable
        Called as ``func(**point, **fixed, seed=seed)``; ``seed`` is passed only if ``func``
        accepts it (a ``seed`` parameter or ``**kwargs``). Returns a dict of scalars (one row),
        a scalar (one row, column ``value``) or a DataFrame (its rows, index dropped). Must be
        a module-level function (picklable) unless ``n_workers=1``.
    grid : dict, DataFrame or list of dict
        A dict ``name -> sequence`` is expanded as a cartesian product (the first name varies
        slowest); a DataFrame or a list of dicts gives the points explicitly.
    fixed : dict, optional
        Keyword arguments passed unchanged to every call (not output as columns). They enter
        the cache key but not the seeds.
    replications : int, default 1
        Independent repetitions of each point, each with its own seed.
    base_seed : int, default 0
        Root of every seed, in ``[0, 2**63)``.
    client : distributed.Client or str, optional
        Run on this Dask cluster (a client, or a scheduler address such as
        ``"tcp://127.0.0.1:8786"``, connected to within 10 s and closed again here), through
        ``joblib.parallel_config(backend="dask")``. Needs the optional extra
        ``workbench[dask]``; the workers need ``workbench`` and ``func``'s module importable.
    n_workers : int, optional
        Without ``client``: ``1`` evaluates in this process (no start-up cost, the notebook
        path); more runs joblib's loky pool of that many processes. Default
        ``os.cpu_count()``.
    cache_dir : str or path-like, optional
        A folder: each finished evaluation is stored there and reused on later calls. No
        caching if None; a folder that cannot be written means computing without it (a
        warning). Entries are signed JSON, never pickles: loading one runs no code, and an
        edited, planted or truncated one is computed afresh. ``func`` must return numbers,
        strings or frames of them to be cached (anything else is computed each time). With
        Dask the workers write it, so they must reach that path.
    code_version : str, optional
        Keeps the cache of each version apart; change it to invalidate cached results.
        Without it, the cache of ``func`` is invalidated when ``func``'s own source changes
        (edits to helpers that ``func`` calls are not detected: pass a version then).
    progress : bool, default True
        Show a ``tqdm.auto`` progress bar over evaluations (points x replications).
    chunk_size : int, optional
        Evaluations per task sent to a worker (joblib's ``batch_size``); joblib's automatic
        batching if None.
    desc : str, optional
        Label of the progress bar.
    retries : int, default 1
        With Dask: how often a task that failed on the cluster is submitted again, in
        [0, 10] (a task whose worker died is re-run by the scheduler in any case).

    Returns
    -------
    pandas.DataFrame
        Columns: the grid's names, ``replication``, ``seed``, then ``func``'s outputs; rows in
        grid order, then replication order, whatever the completion order.
        ``df.attrs["sweep"]`` holds ``computed``, ``from_cache``, ``seconds`` and the run's
        settings (``evaluations``, ``points``, ``replications``, ``backend``, ``n_workers``,
        ``func``, ``code_version``, ``base_seed``).

    Raises
    ------
    ParameterError
        If an argument is invalid (checked before anything runs).
    SweepPointError
        If ``func`` raises; names the point, chains the original exception. Evaluations that
        finished before are already cached, so a re-run resumes.
    SweepError
        If a worker process or Dask task dies, or the scheduler cannot be reached.
    ImportError
        If ``client`` is an address and Dask is not installed.

    Notes
    -----
    The seed of a point is :func:`point_seed` ``(point, replication, base_seed)``: a blake2b
    digest of a canonical form of ``(base_seed, point)`` feeds ``numpy.random.SeedSequence``
    with ``spawn_key=(replication,)``, reduced to 63 bits. It depends on nothing else, so
    results are identical for any ``n_workers``, ``chunk_size`` or backend.

    A cache entry is keyed by ``func``'s module and name, ``code_version`` (or ``func``'s
    source) and a hash of the arguments it receives (the point, ``fixed`` and the seed).

    With process workers (the default) a script should guard its entry point with
    ``if __name__ == "__main__":``.
    """
    t0 = time.perf_counter()
    names, points, fixed, pass_seed = _check_grid(func, grid, fixed, replications)
    distributed = _check_run(
        func, client, n_workers, cache_dir, code_version, progress, chunk_size, desc
    )
    replications = int(replications)
    retries = check_int(retries, "retries", _FUNC, 0, 10)
    base_seed = check_seed(base_seed, _FUNC, "base_seed")
    func_id = _func_id(func)
    tasks, call, fixed, results = _prepare(
        func, points, fixed, replications, base_seed, cache_dir, code_version, pass_seed
    )
    todo = [i for i, r in enumerate(results) if r is None]
    backend, workers = _backend(todo, client, n_workers, chunk_size)
    bar = open_bar(
        len(tasks),
        desc,
        keep=True,
        disable=not progress,
        initial=len(tasks) - len(todo),
        unit="eval",
        dynamic_ncols=True,
    )
    own_client = None
    try:
        if backend == "dask":
            if isinstance(client, str):
                client = own_client = _connect(distributed, client)
            workers = max(1, sum(client.nthreads().values()))
            config = parallel_config(backend="dask", client=client, retries=retries)
        else:
            kind = "loky" if backend == "processes" else "sequential"
            config = parallel_config(backend=kind, n_jobs=workers)
        remote = None if backend == "in-process" else backend
        seeds = [seed if pass_seed else None for _, _, seed in tasks]
        calls = (delayed(_evaluate)(call, tasks[i][0], fixed, seeds[i], i, remote) for i in todo)
        with config:
            _run(
                Parallel(batch_size=chunk_size or "auto", return_as="generator_unordered"),
                calls,
                tasks,
                results,
                bar,
                func_id,
                backend,
            )
    finally:
        finish_bar(bar, keep=True)
        if own_client is not None:
            own_client.close()
    df = _assemble(names, tasks, results)
    df.attrs["sweep"] = {
        "computed": len(todo),
        "from_cache": len(tasks) - len(todo),
        "seconds": time.perf_counter() - t0,
        "evaluations": len(tasks),
        "points": len(points),
        "replications": replications,
        "backend": backend,
        "n_workers": workers,
        "func": func_id,
        "code_version": code_version,
        "base_seed": base_seed,
    }
    return df


def _backend(todo: list, client, n_workers, chunk_size) -> tuple[str, int]:
    """``(backend, local workers)``: Dask with a client, else loky processes unless
    ``n_workers=1`` (or nothing is left to compute), no more workers than batches."""
    if todo and client is not None:
        return "dask", 1
    if todo and n_workers != 1:
        return "processes", min(
            n_workers or os.cpu_count() or 1, math.ceil(len(todo) / (chunk_size or 1))
        )
    return "in-process", 1


def _usable(cache_dir: Path) -> Path | None:
    """``cache_dir``, created if missing, or None with a warning when it cannot be written
    (the sweep then computes every evaluation)."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        probe = cache_dir / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return cache_dir
    except OSError as exc:
        warnings.warn(
            f"sweep: cache_dir {str(cache_dir)!r} cannot be written ({exc}); computing without it",
            RuntimeWarning,
            stacklevel=4,
        )
        return None


def _prepare(func, points, fixed, replications, base_seed, cache_dir, code_version, pass_seed):
    """``(tasks, call, fixed, results)``: the tasks ``(point, replication, seed)`` in output
    order, the function to call (behind the cache, :class:`_Kept`), and the results
    already cached (None where an evaluation is still to run)."""
    tasks = []
    for point in points:
        cp = _point_canon(point)
        tasks += [(point, r, _seed_from_canon(base_seed, cp, r)) for r in range(replications)]
    call, results = func, [None] * len(tasks)
    if cache_dir is not None:
        cache_dir = _usable(Path(cache_dir).expanduser())
    if cache_dir is not None:
        call, fixed = _memorized(func, fixed, cache_dir, code_version)
        for i, (point, _, seed) in enumerate(tasks):
            hit = call.lookup({**point, **fixed, **({"seed": seed} if pass_seed else {})})
            results[i] = None if hit is None else _normalize(hit[0])
    return tasks, call, fixed, results


def _connect(distributed, address: str):
    """A client of the scheduler at ``address``; a ParameterError if it is no address, a
    SweepError if nothing answers there within the timeout."""
    try:
        return distributed.Client(address, set_as_default=False, timeout=_CONNECT_TIMEOUT)
    except ValueError as exc:  # no scheme or port: refused before any connection
        must = "a scheduler address such as 'tcp://127.0.0.1:8786'"
        raise _bad("client", must, f"{address!r} ({exc})") from exc
    except OSError as exc:
        raise SweepError(
            f"could not reach the Dask scheduler at {address!r} within {_CONNECT_TIMEOUT} s: "
            "is it running, and is the address right?"
        ) from exc


def _run(parallel, calls, tasks, results, bar, func_id, backend) -> None:
    """Collect each evaluation's result once, in completion order; name a failing point.

    Stopping early (an error, an interrupt) closes joblib's generator: joblib then cancels
    what is left and ends its loky workers."""
    before = {p.pid for p in multiprocessing.active_children()}
    outputs = parallel(calls)
    finished = interrupted = False
    try:
        for i, res, error in outputs:
            if error is not None:
                exc, tb = error
                if tb is not None:
                    exc.__cause__ = _RemoteTraceback(tb)
                point, rep, seed = tasks[i]
                where = ", ".join(f"{k}={v!r}" for k, v in point.items())
                raise SweepPointError(
                    f"{func_id} raised {type(exc).__name__} at point {where} "
                    f"(replication {rep}, seed {seed}): {exc}",
                    point=point,
                    replication=rep,
                    seed=seed,
                ) from exc
            results[i] = res
            bar.update(1)
        finished = True
    except KeyboardInterrupt:
        interrupted = True
        raise
    except SweepError:
        raise
    except TerminatedWorkerError as exc:
        raise SweepError(
            f"a worker process of the sweep over {func_id} died (crash, os._exit or out of "
            "memory); finished points are cached when cache_dir is set, so a re-run resumes"
        ) from exc
    except Exception as exc:
        if backend == "in-process":
            raise
        raise SweepError(
            f"a task of the sweep over {func_id} failed on the {backend} backend (a worker "
            "died too often, or could not import func's module); finished points are cached "
            "when cache_dir is set"
        ) from exc
    finally:
        with warnings.catch_warnings():  # joblib says it cancelled tasks: that is the aim
            warnings.simplefilter("ignore", UserWarning)
            outputs.close()
        if backend == "dask" and not finished:
            _settle_dask(parallel, wait=not interrupted)
        if interrupted and not finished:
            _reap_new_children(before)


def _settle_dask(parallel, wait: bool, timeout: float = _DASK_SETTLE_TIMEOUT) -> None:
    """After a Dask sweep stopped early: cancel its evaluations still queued and (unless
    interrupted) wait for those already on a worker, so none keeps computing or writing to
    the cache once the error has reached the caller.

    joblib's Dask backend only forgets its futures when a generator is closed: without this,
    the whole rest of the grid went on running in the background, and a re-run raced it."""
    backend = getattr(parallel, "_backend", None)
    client = getattr(backend, "client", None)
    futures = [f for f in getattr(backend, "_results", {}) if not f.done()]
    if client is None or not futures:
        return
    with contextlib.suppress(Exception):  # a cluster going away must not hide the error
        on_workers = {k for keys in client.processing().values() for k in keys}
        running = [f for f in futures if f.key in on_workers]
        client.cancel([f for f in futures if f.key not in on_workers])
        if not wait:
            client.cancel(running)
            return
        deadline = time.monotonic() + timeout  # polled: distributed.wait wants a default client
        while not all(f.done() for f in running) and time.monotonic() < deadline:
            time.sleep(0.02)


def _reap_new_children(before: set, timeout: float = 5.0) -> None:
    """After an interrupt: wait until the worker processes this sweep started have ended
    (joblib was told to end them, but does not wait), killing any that outlive ``timeout``,
    so no worker is left computing when control returns to the caller."""
    deadline = time.monotonic() + timeout
    for proc in multiprocessing.active_children():
        if proc.pid in before:
            continue
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.join(1.0)
