"""The FISTF match state as JSON-ready data and back, exactly: a snapshot a match log keeps.

``state_to_json(state)`` holds everything the reducer remembers except its ``MatchConfig``
(the pitch comes from the calibration of the day; the shell keeps the match's settings);
``state_from_json(data, config)`` gives the identical state back under ``config``. Floats
survive JSON exactly (``repr`` round-trips), tuples stay tuples, sets sets, arrays keep their
dtype and shape. Only the reducer's own plain-data classes are rebuilt, never an arbitrary
type named in the data.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from rules.clock import Clock
from rules.fistf_state import (
    BallTrack,
    Ends,
    LineWatch,
    MatchConfig,
    MatchState,
    PendingPlay,
    Restart,
    Touch,
)
from rules.observation import Figures

SCHEMA_VERSION = 1
_CLASSES = {
    cls.__name__: cls
    for cls in (Clock, Ends, Restart, Touch, PendingPlay, LineWatch, BallTrack, Figures)
}

__all__ = ["SCHEMA_VERSION", "SnapshotError", "StateEncoder", "state_from_json", "state_to_json"]


class SnapshotError(ValueError):
    """A snapshot that is not one of this version's match states."""


def state_to_json(state: MatchState) -> dict[str, Any]:
    """The state without its config, as JSON-ready data (``schema_version`` first)."""
    body = {f.name: _enc(getattr(state, f.name)) for f in fields(state) if f.name != "config"}
    return {"schema_version": SCHEMA_VERSION, "state": body}


class StateEncoder:
    """``state_to_json`` for a state that changes a little every frame: each field that is the
    same object as in the last state encoded (the reducer changes state with ``replace``, so
    what did not change is shared) reuses its encoding."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[Any, Any]] = {}

    def __call__(self, state: MatchState) -> dict[str, Any]:
        body = {}
        for f in fields(state):
            if f.name == "config":
                continue
            value = getattr(state, f.name)
            last = self._last.get(f.name)
            if last is None or last[0] is not value:
                last = self._last[f.name] = (value, _enc(value))
            body[f.name] = last[1]
        return {"schema_version": SCHEMA_VERSION, "state": body}


def state_from_json(data: dict[str, Any], config: MatchConfig) -> MatchState:
    """The state ``state_to_json`` wrote, under ``config``.

    Raises:
        SnapshotError: another schema version, an unknown class or a field that does not fit.
    """
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        version = data.get("schema_version") if isinstance(data, dict) else None
        raise SnapshotError(
            f"match state snapshot version {version!r}; this tablevar reads {SCHEMA_VERSION}"
        )
    try:
        body = {name: _dec(value) for name, value in data["state"].items()}
        return MatchState(config=config, **body)
    except (KeyError, TypeError, ValueError) as exc:
        raise SnapshotError(f"not a match state snapshot: {exc}") from exc


def _enc(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return {"_t": [_enc(v) for v in value]}
    if isinstance(value, frozenset):
        return {"_fs": [_enc(v) for v in sorted(value, key=repr)]}
    if isinstance(value, np.ndarray):
        return {"_nd": value.dtype.str, "shape": list(value.shape), "v": value.ravel().tolist()}
    if isinstance(value, np.generic):
        return value.item()
    if is_dataclass(value) and type(value).__name__ in _CLASSES:
        out = {"_": type(value).__name__}
        out.update((f.name, _enc(getattr(value, f.name))) for f in fields(value))
        return out
    raise SnapshotError(f"cannot keep a {type(value).__name__} in a match state snapshot")


def _dec(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "_t" in value:
        return tuple(_dec(v) for v in value["_t"])
    if "_fs" in value:
        return frozenset(_dec(v) for v in value["_fs"])
    if "_nd" in value:
        return np.asarray(value["v"], dtype=np.dtype(value["_nd"])).reshape(value["shape"])
    cls = _CLASSES.get(value.get("_"))
    if cls is None:
        raise SnapshotError(f"unknown class {value.get('_')!r} in a match state snapshot")
    return cls(**{k: _dec(v) for k, v in value.items() if k != "_"})
