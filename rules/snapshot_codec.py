"""The reducers' plain data as JSON-ready values and back, exactly: what a match log keeps.

Floats survive JSON exactly (``repr`` round-trips), tuples stay tuples, frozensets frozensets,
numpy arrays keep their dtype and shape, and a frozen dataclass is rebuilt only when its class
is one of the reducer's own (``classes``, by name), never an arbitrary type named in the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np


class SnapshotError(ValueError):
    """A snapshot that is not one of this version's match states."""


def encode(value: Any, classes: Mapping[str, type]) -> Any:
    """``value`` as JSON-ready data; a dataclass must be one of ``classes``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return {"_t": [encode(v, classes) for v in value]}
    if isinstance(value, frozenset):
        return {"_fs": [encode(v, classes) for v in sorted(value, key=repr)]}
    if isinstance(value, np.ndarray):
        return {"_nd": value.dtype.str, "shape": list(value.shape), "v": value.ravel().tolist()}
    if isinstance(value, np.generic):
        return value.item()
    if is_dataclass(value) and type(value).__name__ in classes:
        out = {"_": type(value).__name__}
        out.update((f.name, encode(getattr(value, f.name), classes)) for f in fields(value))
        return out
    raise SnapshotError(f"cannot keep a {type(value).__name__} in a match state snapshot")


def decode(value: Any, classes: Mapping[str, type]) -> Any:
    """What ``encode`` was given, from its data.

    Raises:
        SnapshotError: a class that is not one of ``classes``.
    """
    if not isinstance(value, dict):
        return value
    if "_t" in value:
        return tuple(decode(v, classes) for v in value["_t"])
    if "_fs" in value:
        return frozenset(decode(v, classes) for v in value["_fs"])
    if "_nd" in value:
        return np.asarray(value["v"], dtype=np.dtype(value["_nd"])).reshape(value["shape"])
    cls = classes.get(value.get("_"))
    if cls is None:
        raise SnapshotError(f"unknown class {value.get('_')!r} in a match state snapshot")
    return cls(**{k: decode(v, classes) for k, v in value.items() if k != "_"})
