"""A cache that holds data, not code: kept results as signed JSON.

The results cache (:mod:`workbench.memo`) and the sweep engine's ``cache_dir`` (the atlas's
evaluations) keep what they computed as files of a folder. A pickle there would run any
code planted in it at the next cached call, and a value edited in it would be returned as
the answer. Here an entry is one file ``<key>.json``:

- its first line ``workbench-cache 1 <HMAC-SHA256>``, a signature of the key and of the
  rest of the file under a key of this cache folder (``.signing-key``: 32 random bytes,
  created with the folder, readable by its owner only);
- the rest, the result as JSON: numbers, strings, lists, tuples and dicts as themselves,
  numpy arrays (bytes in base64, never ``object`` arrays) and scalars, pandas frames,
  series and indexes (columns, dtypes, categoricals, nullable dtypes, ``attrs``). Loading
  it builds those objects from their values; nothing in it is ever called or imported.

An entry that is truncated, edited, planted without the key, renamed to another key, or
that does not parse is a miss: the caller computes afresh and the entry is written again.
A result of another type (a figure, an object of the caller's) is not kept
(:class:`Unkeepable`): computed each time, never wrong.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import secrets
from pathlib import Path

import numpy as np
import pandas as pd

__all__: list[str] = []  # used by workbench.memo and workbench.sweep

MAGIC = "workbench-cache 1"
KEY_FILE = ".signing-key"
#: pandas' nullable dtypes, kept as their name and values (pd.NA as None)
_NULLABLE = {f"{k}{n}" for k in ("Int", "UInt") for n in (8, 16, 32, 64)}
_NULLABLE |= {"Float32", "Float64", "boolean"}
_NATIVE_FLOAT_TAGS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
#: pandas' missing-value singletons, kept as their tag
_SINGLETONS = {"NA": pd.NA, "NaT": pd.NaT}
#: pandas' time scalars, kept as their integer nanoseconds
_TIMES = {"timestamp": pd.Timestamp, "timedelta": pd.Timedelta}


class Unkeepable(TypeError):
    """A result holds a value the store does not keep as data (it is computed each time)."""


# ---------------------------------------------------------------------------- encoding


def encode(obj):
    """``obj`` as a JSON-ready tree (see the module docstring); :class:`Unkeepable` when it
    holds a value of another type."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.generic):  # its dtype refused as an array's would be
        return {"$": "npscalar", "array": _array(np.asarray(obj))}
    # exact types: a subclass of int or float (an IntEnum, say) is not kept
    if type(obj) is int:
        return obj
    if type(obj) is float:
        return obj if math.isfinite(obj) else {"$": "float", "v": repr(obj)}
    if type(obj) is complex:
        return {"$": "complex", "re": encode(obj.real), "im": encode(obj.imag)}
    if type(obj) in (list, tuple):
        return {"$": type(obj).__name__, "v": [encode(x) for x in obj]}
    if type(obj) is dict:
        return {"$": "dict", "v": [[encode(k), encode(v)] for k, v in obj.items()]}
    if type(obj) is np.ndarray:
        if obj.dtype.kind == "O":
            return {
                "$": "objarray",
                "shape": list(obj.shape),
                "v": [encode(x) for x in obj.ravel()],
            }
        return _array(obj)
    if type(obj) is pd.DataFrame:
        if not obj.columns.is_unique:
            raise Unkeepable("a DataFrame with duplicate column names")
        return {
            "$": "frame",
            "columns": _index(obj.columns),
            "data": [_values(obj.iloc[:, i]) for i in range(obj.shape[1])],
            "index": _index(obj.index),
            "attrs": encode(dict(obj.attrs)),
            "flags": bool(obj.flags.allows_duplicate_labels),
        }
    if type(obj) is pd.Series:
        return {
            "$": "series",
            "values": _values(obj),
            "index": _index(obj.index),
            "name": encode(obj.name),
            "attrs": encode(dict(obj.attrs)),
        }
    if isinstance(obj, pd.Index):
        return _index(obj)
    for tag, singleton in _SINGLETONS.items():
        if obj is singleton:
            return {"$": tag}
    if isinstance(obj, pd.Timestamp) and obj.tz is None:
        return {"$": "timestamp", "v": obj.value}
    if isinstance(obj, pd.Timedelta):
        return {"$": "timedelta", "v": obj.value}
    raise Unkeepable(f"a value of type {type(obj).__module__}.{type(obj).__qualname__}")


def _array(a: np.ndarray) -> dict:
    if a.dtype.kind not in "biufcmMSU" or a.dtype.fields is not None:
        raise Unkeepable(f"a numpy array of dtype {a.dtype}")
    data = np.ascontiguousarray(a).tobytes()
    b64 = base64.b64encode(data).decode("ascii")
    return {"$": "array", "dtype": a.dtype.str, "shape": list(a.shape), "b64": b64}


def _values(s: pd.Series) -> dict:
    """A column's values with its dtype: a numpy dtype as an array, a categorical as its
    categories and codes, another pandas dtype as its name and values."""
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return {
            "$": "categorical",
            "categories": _index(dtype.categories),
            "ordered": bool(dtype.ordered),
            "codes": _array(np.asarray(s.cat.codes)),
        }
    if isinstance(dtype, np.dtype):
        return encode(s.to_numpy(copy=False))
    name = str(dtype)
    if isinstance(dtype, pd.StringDtype) or name in _NULLABLE:
        # a missing cell as None
        values = [encode(None if x is pd.NA else x) for x in s.tolist()]
        return {"$": "extension", "dtype": name, "v": values}
    raise Unkeepable(f"a column of dtype {name}")


def _index(idx: pd.Index) -> dict:
    if type(idx) is pd.RangeIndex:
        return {
            "$": "range",
            "start": idx.start,
            "stop": idx.stop,
            "step": idx.step,
            "name": encode(idx.name),
        }
    if isinstance(idx, pd.MultiIndex):
        return {
            "$": "multiindex",
            "levels": [_index(level) for level in idx.levels],
            "codes": [_array(np.asarray(c)) for c in idx.codes],
            "names": [encode(n) for n in idx.names],
        }
    naive = type(idx) is pd.DatetimeIndex and idx.tz is None
    if type(idx) in (pd.Index, pd.CategoricalIndex) or naive:
        return {"$": "index", "values": _values(pd.Series(idx)), "name": encode(idx.name)}
    raise Unkeepable(f"an index of type {type(idx).__name__}")


def decode(tree):
    """The value :func:`encode` wrote (a ValueError/KeyError/TypeError when the tree is not
    one it writes)."""
    if tree is None or isinstance(tree, (bool, int, float, str)):
        return tree
    if not isinstance(tree, dict):
        raise ValueError(f"not a cache tree: {type(tree).__name__}")
    tag = tree["$"]
    if tag == "float":
        return _NATIVE_FLOAT_TAGS[tree["v"]]
    if tag == "complex":
        return complex(decode(tree["re"]), decode(tree["im"]))
    if tag == "list":
        return [decode(x) for x in tree["v"]]
    if tag == "tuple":
        return tuple(decode(x) for x in tree["v"])
    if tag == "dict":
        return {decode(k): decode(v) for k, v in tree["v"]}  # a list key: TypeError
    if tag == "array":
        return _unarray(tree)
    if tag == "npscalar":
        return _unarray(tree["array"])[()]
    if tag == "objarray":
        out = np.empty(len(tree["v"]), dtype=object)
        out[:] = [decode(x) for x in tree["v"]] if tree["v"] else []
        return out.reshape(tuple(tree["shape"]))
    if tag == "frame":
        columns = _unindex(tree["columns"])
        index = _unindex(tree["index"])
        data = {i: _unvalues(v, index) for i, v in enumerate(tree["data"])}
        frame = pd.DataFrame(data, index=index)
        frame.columns = columns
        frame.attrs = decode(tree["attrs"])
        frame.flags.allows_duplicate_labels = bool(tree["flags"])
        return frame
    if tag == "series":
        index = _unindex(tree["index"])
        s = _unvalues(tree["values"], index)
        s.name = decode(tree["name"])
        s.attrs = decode(tree["attrs"])
        return s
    if tag in ("range", "multiindex", "index"):
        return _unindex(tree)
    if tag in _SINGLETONS:
        return _SINGLETONS[tag]
    if tag in _TIMES:
        return _TIMES[tag](int(tree["v"]))
    raise ValueError(f"unknown cache tag {tag!r}")


def _unarray(tree) -> np.ndarray:
    dtype = np.dtype(tree["dtype"])
    if dtype.kind not in "biufcmMSU" or dtype.fields is not None:
        raise ValueError(f"refused dtype {dtype}")
    shape = tuple(int(n) for n in tree["shape"])
    data = base64.b64decode(tree["b64"], validate=True)
    if len(data) != dtype.itemsize * math.prod(shape):
        raise ValueError("array bytes do not match its shape")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _unvalues(tree, index) -> pd.Series:
    tag = tree["$"] if isinstance(tree, dict) else None
    if tag == "categorical":
        cats = _unindex(tree["categories"])
        codes = _unarray(tree["codes"])
        values = pd.Categorical.from_codes(codes, categories=cats, ordered=tree["ordered"])
        return pd.Series(values, index=index)
    if tag == "extension":
        return pd.Series(pd.array([decode(x) for x in tree["v"]], dtype=tree["dtype"]), index=index)
    values = decode(tree)
    if not isinstance(values, np.ndarray):
        raise ValueError("a column that is not an array")
    return pd.Series(values, index=index, dtype=values.dtype)


def _unindex(tree) -> pd.Index:
    tag = tree["$"]
    if tag == "range":
        return pd.RangeIndex(tree["start"], tree["stop"], tree["step"], name=decode(tree["name"]))
    if tag == "multiindex":
        return pd.MultiIndex(
            levels=[_unindex(level) for level in tree["levels"]],
            codes=[_unarray(c) for c in tree["codes"]],
            names=[decode(n) for n in tree["names"]],
        )
    if tag == "index":
        values = _unvalues(tree["values"], None)
        return pd.Index(values, name=decode(tree["name"]), dtype=values.dtype)
    raise ValueError(f"not an index: {tag!r}")


# ---------------------------------------------------------------------------- the store


class Store:
    """Signed JSON entries in ``folder`` (see the module docstring). Picklable: a worker
    process opens the same folder and the same signing key."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self._key: bytes | None = None

    def __reduce__(self):  # the folder only: the key is read from it again
        return (Store, (self.folder,))

    def path(self, key: str) -> Path:
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"a store key is lower-case hex, got {key!r}")
        return self.folder / key[:2] / f"{key}.json"

    def signing_key(self) -> bytes:
        """This folder's key (created, once, by whichever process comes first)."""
        if self._key is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / KEY_FILE
            if not path.exists():
                tmp = self.folder / f"{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(secrets.token_bytes(32))
                try:
                    os.link(tmp, path)  # fails if another process made it first: use theirs
                except FileExistsError:
                    pass
                finally:
                    tmp.unlink()
            key = path.read_bytes()
            if len(key) != 32:
                raise OSError(f"the cache's signing key {path} is damaged ({len(key)} bytes)")
            self._key = key
        return self._key

    def _sign(self, key: str, body: bytes) -> str:
        return hmac.new(self.signing_key(), key.encode() + b"\0" + body, hashlib.sha256).hexdigest()

    def get(self, key: str) -> tuple[bool, object]:
        """``(True, value)`` for a sound entry; ``(False, None)`` when it is absent, or
        damaged, edited or planted (then it is removed)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except OSError:  # absent, or unreadable
            return False, None
        try:
            head, _, body = raw.partition(b"\n")
            magic, _, tag = head.decode("ascii").rpartition(" ")
            if magic != MAGIC or not hmac.compare_digest(tag, self._sign(key, body)):
                raise ValueError("bad signature")
            return True, decode(json.loads(body.decode("utf-8")))
        except (ValueError, KeyError, TypeError, IndexError, UnicodeError, RecursionError):
            path.unlink(missing_ok=True)
            return False, None

    def put(self, key: str, value) -> bool:
        """Keep ``value`` under ``key``; False (nothing written) when it is not data the
        store keeps (:class:`Unkeepable`). Written whole or not at all."""
        try:
            body = json.dumps(encode(value), separators=(",", ":"), allow_nan=False).encode()
        except (Unkeepable, ValueError, RecursionError):
            return False
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            tmp.write_bytes(f"{MAGIC} {self._sign(key, body)}\n".encode() + body)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return True


def key_of(*parts) -> str:
    """A hex key for ``parts`` (any values joblib can hash: arguments, arrays, frames)."""
    from joblib import hash as joblib_hash

    return hashlib.blake2b(joblib_hash(parts).encode(), digest_size=20).hexdigest()
