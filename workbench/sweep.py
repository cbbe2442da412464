"""Evaluate a function over a parameter grid: seeds from grid points, tidy results, resume.

What is ours: the grid expansion, a seed derived from each grid point, the tidy frame and
the point-naming errors. What is not: caching is ``joblib.Memory``, local processes are
joblib's loky pool, clusters are Dask (``client.submit(..., retries=)``).

Every paper model runs its parameter studies through :func:`sweep`::

    df = sweep(simulate, {"rho": np.linspace(0.1, 0.9, 9), "servers": [1, 2, 4]},
               fixed={"horizon": 1e5}, replications=10, cache_dir=".sweep_cache")

Guarantees
----------
- **Reproducible.** Each evaluation gets a seed derived only from ``base_seed``, the point's
  parameter values and the replication index, so the result never depends on the number of
  workers, on chunking, or on the order in which points finish.
- **Resumable.** With ``cache_dir`` every finished evaluation is stored (``joblib.Memory``) as
  soon as it finishes; a re-run after an error, a crash or ``KeyboardInterrupt`` computes only
  what is missing. Workers never outlive the sweep: they are ended on an error or an
  interrupt, and exit by themselves when the sweeping process is killed.
- **Tidy.** The result is one DataFrame: grid columns, ``replication``, ``seed``, then the
  function's outputs, in grid order.
"""

from __future__ import annotations

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
import sys
import threading
import time
import traceback
import uuid
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Memory, Parallel, delayed

from workbench import validation
from workbench.validation import ParameterError, check_budget, check_int, check_seed

__all__ = ["sweep", "point_seed", "SweepError", "SweepPointError"]

_FUNC = "sweep"
_RESERVED = ("replication", "seed")
_CACHE_FORMAT = "workbench-sweep-cache-v1"
# Dask and process pools cost 0.2-1 ms per task: aim at a few chunks per worker for load
# balance, but cap the chunk so progress stays smooth and an interrupt loses little work.
_CHUNKS_PER_WORKER = 4
_MAX_AUTO_CHUNK = 100
# what one evaluation costs the sweeping process before it runs (its point, seed, key and
# result row): the grid is counted and refused against the memory budget before expansion
_BYTES_PER_EVALUATION = 1_000


class SweepError(RuntimeError):
    """The sweep could not finish (a worker died, a task could not be run)."""


class SweepPointError(SweepError):
    """``func`` raised at one point; the original exception is chained as ``__cause__``.

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
        self.point = point
        self.replication = replication
        self.seed = seed

    def __reduce__(self):
        return (type(self), (self.args[0], self.point, self.replication, self.seed))


class _RemoteTraceback(Exception):
    """Carries a worker's formatted traceback (tracebacks themselves do not pickle)."""

    def __init__(self, tb: str):
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


# ----------------------------------------------------------------------------- canonical form


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _canon(value, where: str):
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
        if math.isfinite(f) and f.is_integer():
            return ["i", str(int(f))]
        return ["f", repr(f)]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, bytes):
        return ["y", value.hex()]
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
        return ["a", value.dtype.str, list(value.shape), digest.hexdigest()]
    if isinstance(value, (tuple, list)):
        return ["l", [_canon(v, where) for v in value]]
    if isinstance(value, Mapping):
        items = [[_canon(k, where), _canon(v, where)] for k, v in value.items()]
        return ["d", sorted(items, key=lambda kv: json.dumps(kv[0]))]
    if isinstance(value, (frozenset, set)):
        return ["S", sorted((_canon(v, where) for v in value), key=json.dumps)]
    if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
        return ["c", f"{value.__module__}.{value.__qualname__}"]
    text = repr(value)
    if _ADDRESS.search(text):
        # a repr with a memory address changes every run: seeds and cache keys would too
        raise ParameterError(
            f"The '{where}' parameter of {_FUNC} must be values with a stable repr "
            f"(numbers, strings, tuples, arrays, functions, ...). Got {text} instead."
        )
    return ["r", f"{type(value).__module__}.{type(value).__qualname__}", text]


def _digest(obj, size: int = 32) -> bytes:
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=size).digest()


def _point_canon(point: Mapping, where: str = "grid") -> list:
    # sorted by name: the column order of the grid does not change seeds or cache keys
    return [[name, _canon(point[name], where)] for name in sorted(point)]


def _seed_from_canon(base_seed: int, canon_point: list, replication: int) -> int:
    entropy = int.from_bytes(_digest(["seed", base_seed, canon_point]), "little")
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
        raise ParameterError(
            "The 'point' parameter of point_seed must be a mapping of parameter name -> value. "
            f"Got {point!r} instead."
        )
    replication = check_int(replication, "replication", "point_seed", 0)
    base_seed = check_seed(base_seed, "point_seed", "base_seed")
    return _seed_from_canon(base_seed, _point_canon(dict(point)), replication)


# ----------------------------------------------------------------------------- function identity


def _func_identity(func) -> tuple[str, str]:
    """``(module.qualname, source)`` of ``func``; partials include their bound arguments."""
    if isinstance(func, functools.partial):
        inner_id, inner_src = _func_identity(func.func)
        bound = json.dumps(
            [_canon(list(func.args), "func"), _canon(func.keywords, "func")], separators=(",", ":")
        )
        return f"functools.partial({inner_id}, {bound})", inner_src
    target = getattr(func, "py_func", func)  # numba dispatchers keep the Python function here
    if not (inspect.isfunction(target) or inspect.ismethod(target) or inspect.isclass(target)):
        target = type(target)  # a callable instance: its class holds the code
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None) or repr(target)
    ident = f"{module}.{qualname}"
    try:
        source = inspect.getsource(target)
    except (OSError, TypeError):
        source = ident
    return ident, source


def _default_code_version(source: str) -> str:
    from workbench import __version__

    text = f"{__version__}\n{source}"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _accepts_seed(func) -> bool:
    """True if calling ``func(..., seed=s)`` binds ``seed`` (a named parameter or ``**kwargs``)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        py_func = getattr(func, "py_func", None)
        if py_func is None:
            return False
        sig = inspect.signature(py_func)
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return True
        if p.name == "seed" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            return True
    return False


def _keyword_names(func) -> set[str] | None:
    """Names ``func`` accepts as keywords, or None if it takes ``**kwargs`` or is opaque."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    names = set()
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.add(p.name)
    return names


def _required_names(func) -> set[str]:
    """Keyword parameters of ``func`` without a default (empty if opaque)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return set()
    return {
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    }


# ----------------------------------------------------------------------------- grid handling


def _plain(value):
    """numpy scalars -> Python scalars, so dict grids and explicit points give identical frames."""
    if isinstance(value, (np.number, np.bool_, np.str_)):
        return value.item()
    return value


def _is_axis(values) -> bool:
    if isinstance(values, (str, bytes)):
        return False
    if isinstance(values, np.ndarray):
        return values.ndim == 1
    return isinstance(values, (Sequence, pd.Series, pd.Index, range))


def _check_names(names, where: str) -> None:
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise ParameterError(
                f"The '{where}' parameter of {_FUNC} must be keyed by valid Python "
                f"identifiers. Got {name!r} instead."
            )
        if name in _RESERVED:
            raise ParameterError(
                f"The '{where}' parameter of {_FUNC} must be keyed by names other than "
                f"{_RESERVED}. Got {name!r} instead."
            )


def _grid_size(grid) -> int:
    """How many points ``grid`` expands to, counted without expanding it (0 if malformed)."""
    if isinstance(grid, pd.DataFrame):
        return len(grid)
    if isinstance(grid, Mapping):
        sizes = []
        for values in grid.values():
            if not _is_axis(values):
                return 0
            sizes.append(len(values))
        return math.prod(sizes) if sizes else 0
    if isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)):
        return len(grid)
    return 0


def _check_cache_dir(cache_dir) -> Path:
    if not isinstance(cache_dir, (str, os.PathLike)):
        raise ParameterError(
            f"The 'cache_dir' parameter of {_FUNC} must be a path (str or os.PathLike) or "
            f"None. Got {cache_dir!r} instead."
        )
    text = os.fspath(cache_dir)
    flag = text.strip().lower()
    try:
        float(flag)
        numeric = True
    except ValueError:
        numeric = False
    if not flag or numeric or flag in ("true", "false", "yes", "no", "on", "off", "none"):
        raise ParameterError(
            f"The 'cache_dir' parameter of {_FUNC} must be a folder path such as '.sweep_cache' "
            f"(a cache is a folder, not a flag). Got {cache_dir!r} instead."
        )
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise ParameterError(
            f"The 'cache_dir' parameter of {_FUNC} must be a folder; {str(path)!r} is a file. "
            f"Got {cache_dir!r} instead."
        )
    if path.is_dir() and any(path.iterdir()) and not (path / "joblib").is_dir():
        raise ParameterError(
            f"The 'cache_dir' parameter of {_FUNC} must be a new folder or an existing sweep "
            f"cache; {str(path)!r} holds other files, which the cache would be mixed into. "
            f"Got {cache_dir!r} instead."
        )
    if not path.parent.exists():
        raise ParameterError(
            f"The 'cache_dir' parameter of {_FUNC} must be inside an existing folder; "
            f"{str(path.parent)!r} does not exist. Got {cache_dir!r} instead."
        )
    return path


def _expand_grid(grid) -> tuple[list[str], list[dict]]:
    """``(names, points)`` from a dict of axes (cartesian product) or explicit points."""
    if isinstance(grid, pd.DataFrame):
        names = list(grid.columns)
        _check_names(names, "grid")
        if len(set(names)) != len(names):
            raise ParameterError(
                f"The 'grid' parameter of {_FUNC} must be a DataFrame with unique column "
                f"names. Got {names!r} instead."
            )
        points = [{k: _plain(v) for k, v in row.items()} for row in grid.to_dict("records")]
        if not names or not points:
            raise ParameterError(
                f"The 'grid' parameter of {_FUNC} must be a non-empty DataFrame. "
                f"Got a DataFrame of shape {grid.shape} instead."
            )
        return names, points
    if isinstance(grid, Mapping):
        if not grid:
            raise ParameterError(
                f"The 'grid' parameter of {_FUNC} must be a non-empty dict of name -> sequence. "
                f"Got {grid!r} instead."
            )
        names = list(grid)
        _check_names(names, "grid")
        axes = []
        for name, values in grid.items():
            if not _is_axis(values):
                raise ParameterError(
                    f"The 'grid' parameter of {_FUNC} must be a dict of name -> 1-d sequence "
                    f"(list, tuple, range, array). Got {{{name!r}: {values!r}}} instead."
                )
            values = [_plain(v) for v in values]
            if not values:
                raise ParameterError(
                    f"The 'grid' parameter of {_FUNC} must be a dict of name -> non-empty "
                    f"sequence. Got {{{name!r}: []}} instead."
                )
            axes.append(values)
        points = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]
        return names, points
    if isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)):
        if not grid or not all(isinstance(p, Mapping) for p in grid):
            raise ParameterError(
                f"The 'grid' parameter of {_FUNC} must be a non-empty list of dicts (one per "
                f"point). Got {grid!r} instead."
            )
        names = list(grid[0])
        _check_names(names, "grid")
        if not names:
            raise ParameterError(
                f"The 'grid' parameter of {_FUNC} must be a list of non-empty dicts. "
                f"Got {grid!r} instead."
            )
        points = []
        for p in grid:
            if set(p) != set(names):
                raise ParameterError(
                    f"The 'grid' parameter of {_FUNC} must be a list of dicts with the same "
                    f"keys {names!r}. Got a point with keys {list(p)!r} instead."
                )
            points.append({k: _plain(p[k]) for k in names})
        return names, points
    raise ParameterError(
        f"The 'grid' parameter of {_FUNC} must be a dict of name -> sequence, a DataFrame or a "
        f"list of dicts. Got {grid!r} instead."
    )


# ----------------------------------------------------------------------------- cache (joblib)


def _cache_key(func_id: str, code_version: str, canon_point, canon_fixed, seed: int) -> str:
    return _digest([_CACHE_FORMAT, func_id, code_version, canon_point, canon_fixed, seed]).hex()


def _normalize(result):
    """One result as a dict (one row) or a DataFrame (several rows)."""
    if isinstance(result, pd.DataFrame):
        return result.reset_index(drop=True)
    if isinstance(result, pd.Series):
        return result.to_dict()
    if hasattr(result, "as_dict") and hasattr(result, "stationarity"):
        # a SimulationResult: its estimates, interval and the stationarity flag, one row
        return result.as_dict()
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


def _evaluate_point(key, *, target=None, fixed=None, point=None, pass_seed=False, seed=0):
    """One evaluation. Under ``joblib.Memory`` only ``key`` is hashed: it already digests the
    function's identity, its code version, the point, ``fixed`` and the seed."""
    kwargs = {**point, **fixed}
    if pass_seed:
        kwargs["seed"] = seed
    return _normalize(target(**kwargs))


_IGNORED = ["target", "fixed", "point", "pass_seed", "seed"]


def _memorized(cache_dir):
    """``_evaluate_point`` behind a ``joblib.Memory`` store in ``cache_dir`` (None: no cache)."""
    if cache_dir is None:
        return None
    return Memory(location=str(cache_dir), verbose=0).cache(_evaluate_point, ignore=_IGNORED)


_MISSING = object()


def _cache_read(memorized, key: str):
    """The cached result of ``key``, or ``_MISSING`` (absent, or unreadable: recompute it)."""
    try:
        if not memorized.check_call_in_cache(key):
            return _MISSING
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return memorized.call_and_shelve(key).get()
    except Exception:
        return _MISSING


# ----------------------------------------------------------------------------- evaluation


def _picklable_exception(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


_WATCHDOG = {"parent": None}


def _exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone.

    A killed sweep (``kill -9``, a closed notebook) must not leave workers computing: pool
    workers only notice a dead parent when they ask for the next task, which a long
    evaluation delays indefinitely.
    """
    if _WATCHDOG["parent"] is not None or multiprocessing.parent_process() is None:
        return
    parent = os.getppid()
    _WATCHDOG["parent"] = parent

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="sweep-parent-watchdog", daemon=True).start()


def _run_chunk(func, fixed: dict, pass_seed: bool, tasks: list, cache_dir) -> dict:
    """Evaluate tasks ``(index, point, seed, cache_key)``; stop at the first error.

    With ``cache_dir`` each result is stored (``joblib.Memory``) as soon as it is computed, so
    work finished inside a chunk survives an interrupted or crashed sweep.
    """
    _exit_with_parent()
    memorized = _memorized(cache_dir)
    call = _evaluate_point if memorized is None else memorized
    done = []
    for index, point, seed, key in tasks:
        try:
            result = call(
                key, target=func, fixed=fixed, point=point, pass_seed=pass_seed, seed=seed
            )
        except Exception as exc:
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            error = (index, _picklable_exception(exc), tb)
            return {"first": tasks[0][0], "done": done, "error": error}
        done.append((index, result))
    return {"first": tasks[0][0], "done": done, "error": None}


def _point_text(point: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


def _assemble(names, tasks, results) -> pd.DataFrame:
    """The tidy frame: grid columns, replication, seed, then result columns, in task order."""
    head = [*names, *_RESERVED]
    clash = set(head)
    if all(isinstance(r, dict) for r in results):
        records = []
        extra: dict[str, None] = {}
        for (_, point, rep, seed), res in zip(tasks, results, strict=True):
            bad = clash.intersection(res)
            if bad:
                raise SweepError(
                    f"func returned the column(s) {sorted(bad)} which clash with the grid "
                    f"columns or the reserved names {_RESERVED}; rename them"
                )
            extra.update(dict.fromkeys(res))
            records.append({**point, "replication": rep, "seed": seed, **res})
        return pd.DataFrame.from_records(records, columns=head + list(extra))

    frames = []
    for (_, point, rep, seed), res in zip(tasks, results, strict=True):
        frame = res if isinstance(res, pd.DataFrame) else pd.DataFrame([res])
        bad = clash.intersection(frame.columns)
        if bad:
            raise SweepError(
                f"func returned the column(s) {sorted(bad)} which clash with the grid columns "
                f"or the reserved names {_RESERVED}; rename them"
            )
        n = len(frame)
        lead = pd.DataFrame(
            {**{k: [point[k]] * n for k in names}, "replication": [rep] * n, "seed": [seed] * n}
        )
        frames.append(pd.concat([lead, frame.reset_index(drop=True)], axis=1))
    # an empty frame has object columns and would upcast the others: leave it out
    non_empty = [f for f in frames if len(f)] or frames
    return pd.concat(non_empty, ignore_index=True, sort=False)


# ----------------------------------------------------------------------------- backends


def _raise_point_error(func_id, task, exc, tb=None):
    _, point, rep, seed = task
    if tb is not None:
        exc.__cause__ = _RemoteTraceback(tb)
    raise SweepPointError(
        f"{func_id} raised {type(exc).__name__} at point {_point_text(point)} "
        f"(replication {rep}, seed {seed}): {exc}",
        point=point,
        replication=rep,
        seed=seed,
    ) from exc


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _auto_chunk(n_tasks: int, n_workers: int) -> int:
    return max(1, min(_MAX_AUTO_CHUNK, math.ceil(n_tasks / (n_workers * _CHUNKS_PER_WORKER))))


def _payload(chunk) -> list:
    return [(t[0], t[1], t[3], t[4]) for t in chunk]


def _collect(out, chunk, results, bar, func_id):
    for i, res in out["done"]:
        results[i] = res
    bar.update(len(out["done"]))
    if out["error"] is not None:
        index, exc, tb = out["error"]
        task = next(t for t in chunk if t[0] == index)
        _raise_point_error(func_id, (index, task[1], task[2], task[3]), exc, tb)


def _kill_loky_workers() -> None:
    """End joblib's (reusable) loky workers now: after an error or an interrupt nothing may
    keep computing. Finished evaluations are already in the cache."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)  # the shared pool, if started
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def _run_joblib(func, fixed, pass_seed, chunks, cache_dir, results, bar, func_id, n_workers):
    """Chunks on joblib's loky process pool (``n_workers`` processes), in completion order."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    parallel = Parallel(n_jobs=n_workers, backend="loky", return_as="generator_unordered")
    calls = (delayed(_run_chunk)(func, fixed, pass_seed, _payload(c), cache_dir) for c in chunks)
    by_first = {c[0][0]: c for c in chunks}
    finished = False
    outputs = parallel(calls)
    try:
        for out in outputs:
            _collect(out, by_first[out["first"]], results, bar, func_id)
        finished = True
    except TerminatedWorkerError as exc:
        raise SweepError(
            f"a worker process of the sweep over {func_id} died (crash, os._exit or out of "
            "memory); finished points are cached when cache_dir is set, so a re-run resumes"
        ) from exc
    finally:
        if not finished:
            with warnings.catch_warnings():  # joblib says it cancelled tasks: that is the aim
                warnings.simplefilter("ignore", UserWarning)
                outputs.close()
            _kill_loky_workers()


def _run_dask(client, func, fixed, pass_seed, chunks, cache_dir, results, bar, func_id, retries):
    """Chunks as Dask tasks (Dask re-runs a chunk whose worker died, ``retries`` times).

    Workers write the cache themselves: ``cache_dir`` must be a path they can reach (always
    so on a ``LocalCluster``; a shared file system on a real cluster).
    """
    from distributed import as_completed

    futures = {}
    try:
        for chunk in chunks:
            fut = client.submit(
                _run_chunk,
                func,
                fixed,
                pass_seed,
                _payload(chunk),
                None if cache_dir is None else str(cache_dir),
                pure=False,  # never reuse a stale result of an equal-looking earlier task
                retries=retries,
                key=f"sweep-{func_id.rsplit('.', 1)[-1]}-{uuid.uuid4().hex}",
            )
            futures[fut] = chunk
        # loop=: the client need not be the default one (set_as_default=False)
        for fut in as_completed(list(futures), loop=client.loop):
            try:
                out = fut.result()
            except Exception as exc:
                raise SweepError(
                    f"a Dask task of the sweep over {func_id} failed (a worker died, or could "
                    "not import func's module); finished points are cached when cache_dir is set"
                ) from exc
            _collect(out, futures[fut], results, bar, func_id)
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)


def _is_dask_client(obj) -> bool:
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is a dependency
        return False
    return isinstance(obj, Client)


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
        ``"tcp://127.0.0.1:8786"``, connected to and closed again here).
    n_workers : int, optional
        Without ``client``: ``1`` evaluates in this process (no start-up cost, the notebook
        path); more runs joblib's loky pool of that many processes. Default
        ``os.cpu_count()``.
    cache_dir : str or path-like, optional
        A ``joblib.Memory`` location: each finished evaluation is stored there and reused on
        later calls. No caching if None. Entries are unpickled: point it only at trusted
        directories. With Dask the workers write it, so they must reach that path.
    code_version : str, optional
        Part of the cache key; change it to invalidate cached results. Defaults to a hash of
        ``func``'s source and ``workbench.__version__`` (edits to helpers that ``func`` calls
        are not detected: pass a version then).
    progress : bool, default True
        Show a ``tqdm.auto`` progress bar over evaluations (points x replications).
    chunk_size : int, optional
        Evaluations per task sent to a worker; automatic if None (about four chunks per
        worker, at most 100 evaluations each).
    desc : str, optional
        Label of the progress bar.
    retries : int, default 1
        With Dask: how often a chunk whose worker died is run again, in [0, 10].

    Returns
    -------
    pandas.DataFrame
        Columns: the grid's names, ``replication``, ``seed``, then ``func``'s outputs; rows in
        grid order, then replication order, whatever the completion order.
        ``df.attrs["sweep"]`` holds ``computed``, ``from_cache``, ``seconds`` and the run's
        settings.

    Raises
    ------
    ParameterError
        If an argument is invalid (checked before anything runs).
    SweepPointError
        If ``func`` raises; names the point, chains the original exception. Evaluations that
        finished before are already cached, so a re-run resumes.
    SweepError
        If a worker process or Dask task dies.

    Notes
    -----
    The seed of a point is :func:`point_seed` ``(point, replication, base_seed)``: a blake2b
    digest of a canonical form of ``(base_seed, point)`` feeds ``numpy.random.SeedSequence``
    with ``spawn_key=(replication,)``, reduced to 63 bits. It depends on nothing else, so
    results are identical for any ``n_workers``, ``chunk_size`` or backend.

    A cache entry is keyed by a blake2b digest of ``func``'s module and qualname,
    ``code_version``, the point, ``fixed`` and the seed (``joblib.Memory`` hashes only that
    digest).

    With process workers (the default) a script should guard its entry point with
    ``if __name__ == "__main__":``.
    """
    t0 = time.perf_counter()
    # ---- validation, all before anything runs
    if not callable(func):
        raise ParameterError(
            f"The 'func' parameter of {_FUNC} must be a callable. Got {func!r} instead."
        )
    replications = check_int(replications, "replications", _FUNC, 1)
    if isinstance(grid, Mapping):
        _check_names(list(grid), "grid")  # the keys first: a bad name fails before any work
    n_points = _grid_size(grid)
    evaluations = n_points * replications
    # blame the grid when it alone is too big, else the replications that multiply it
    too_big_alone = n_points * _BYTES_PER_EVALUATION > validation.MEMORY_BUDGET
    check_budget(
        _FUNC,
        "grid" if too_big_alone else "replications",
        f"a grid of {n_points:,} points" if too_big_alone else replications,
        evaluations * _BYTES_PER_EVALUATION,
        what=f"{evaluations:,} evaluations (grid points × replications) held in memory",
    )
    names, points = _expand_grid(grid)
    if fixed is None:
        fixed = {}
    if not isinstance(fixed, Mapping):
        raise ParameterError(
            f"The 'fixed' parameter of {_FUNC} must be a dict of name -> value or None. "
            f"Got {fixed!r} instead."
        )
    fixed = dict(fixed)
    _check_names(fixed, "fixed")
    overlap = [k for k in fixed if k in names]
    if overlap:
        raise ParameterError(
            f"The 'fixed' parameter of {_FUNC} must be disjoint from the grid's names. "
            f"Got {overlap!r} instead."
        )
    accepted = _keyword_names(func)
    if accepted is not None:
        for where, keys in (("grid", names), ("fixed", list(fixed))):
            unknown = [k for k in keys if k not in accepted]
            if unknown:
                raise ParameterError(
                    f"The '{where}' parameter of {_FUNC} must be keyed by parameters of "
                    f"{getattr(func, '__name__', func)!r} {sorted(accepted)}. Got {unknown!r} "
                    "instead."
                )
    missing = sorted(_required_names(func) - set(names) - set(fixed) - {"seed"})
    if missing:
        raise ParameterError(
            f"The 'grid' parameter of {_FUNC} must be keyed by (or 'fixed' must give) every "
            f"required parameter of {getattr(func, '__name__', func)!r}. Got {missing!r} "
            "missing instead."
        )
    retries = check_int(retries, "retries", _FUNC, 0, 10)
    base_seed = check_seed(base_seed, _FUNC, "base_seed")
    if n_workers is not None:
        n_workers = check_int(n_workers, "n_workers", _FUNC, 1)
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", _FUNC, 1)
    if not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(
            f"The 'progress' parameter of {_FUNC} must be a bool. Got {progress!r} instead."
        )
    if desc is not None and not isinstance(desc, str):
        raise ParameterError(
            f"The 'desc' parameter of {_FUNC} must be a str or None. Got {desc!r} instead."
        )
    if code_version is not None and not isinstance(code_version, str):
        raise ParameterError(
            f"The 'code_version' parameter of {_FUNC} must be a str or None. "
            f"Got {code_version!r} instead."
        )
    if cache_dir is not None:
        cache_dir = _check_cache_dir(cache_dir)
    if client is not None and not isinstance(client, str) and not _is_dask_client(client):
        raise ParameterError(
            f"The 'client' parameter of {_FUNC} must be a distributed.Client, a scheduler "
            f"address string or None. Got {client!r} instead."
        )
    if client is None and n_workers != 1:
        main = sys.modules.get("__main__")
        interactive = main is None or not hasattr(main, "__file__")
        try:
            pickle.dumps(func)
            # a notebook's functions pickle by name but spawned workers cannot import them
            if interactive and _func_identity(func)[0].startswith("__main__."):
                raise pickle.PicklingError("defined interactively")
        except Exception:
            raise ParameterError(
                f"The 'func' parameter of {_FUNC} must be a picklable callable defined in an "
                "importable module when it runs in worker processes (else use n_workers=1 or a "
                f"Dask client). Got {func!r} instead."
            ) from None

    func_id, source = _func_identity(func)
    if code_version is None:
        code_version = _default_code_version(source)
    pass_seed = _accepts_seed(func)
    canon_fixed = [[k, _canon(fixed[k], "fixed")] for k in sorted(fixed)]

    # ---- tasks: (index, point, replication, seed, cache key), in output order
    tasks = []
    for point in points:
        cp = _point_canon(point)
        for rep in range(replications):
            seed = _seed_from_canon(base_seed, cp, rep)
            key = _cache_key(func_id, code_version, cp, canon_fixed, seed)
            tasks.append((len(tasks), point, rep, seed, key))

    results: list = [_MISSING] * len(tasks)
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        memorized = _memorized(cache_dir)
        for t in tasks:
            results[t[0]] = _cache_read(memorized, t[4])
    todo = [t for t in tasks if results[t[0]] is _MISSING]
    from_cache = len(tasks) - len(todo)

    from tqdm.auto import tqdm

    backend = "in-process"
    workers_used = 1
    bar = tqdm(
        total=len(tasks),
        initial=from_cache,
        desc=desc,
        disable=not progress,
        unit="eval",
        dynamic_ncols=True,
    )
    own_client = None
    try:
        if todo and client is not None:
            backend = "dask"
            if isinstance(client, str):
                from distributed import Client

                own_client = client = Client(client, set_as_default=False)
            try:
                workers_used = max(1, sum(client.nthreads().values()))
            except Exception:
                workers_used = 1
            size = chunk_size or _auto_chunk(len(todo), n_workers or workers_used)
            chunks = _chunks(todo, size)
            _run_dask(
                client, func, fixed, pass_seed, chunks, cache_dir, results, bar, func_id, retries
            )
        elif todo and n_workers == 1:
            # in this process, one evaluation a chunk: the original exception and traceback
            # stay intact, and the bar moves with every evaluation
            for t in todo:
                out = _run_chunk(func, fixed, pass_seed, _payload([t]), cache_dir)
                if out["error"] is not None:
                    _raise_point_error(func_id, t[:4], out["error"][1])
                _collect(out, [t], results, bar, func_id)
        elif todo:
            backend = "processes"
            wanted = n_workers or os.cpu_count() or 1
            size = chunk_size or _auto_chunk(len(todo), wanted)
            chunks = _chunks(todo, size)
            workers_used = min(wanted, len(chunks))  # no idle processes to start
            _run_joblib(
                func, fixed, pass_seed, chunks, cache_dir, results, bar, func_id, workers_used
            )
    finally:
        bar.close()
        if own_client is not None:
            own_client.close()

    df = _assemble(names, [t[:4] for t in tasks], results)
    df.attrs["sweep"] = {
        "computed": len(todo),
        "from_cache": from_cache,
        "seconds": time.perf_counter() - t0,
        "evaluations": len(tasks),
        "points": len(points),
        "replications": replications,
        "backend": backend,
        "n_workers": workers_used,
        "func": func_id,
        "code_version": code_version,
        "base_seed": base_seed,
    }
    return df
