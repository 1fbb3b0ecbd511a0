"""The FISTF match state as JSON-ready data and back, exactly: a snapshot a match log keeps.

``state_to_json(state)`` holds everything the reducer remembers except its ``MatchConfig``
(the pitch comes from the calibration of the day; the shell keeps the match's settings);
``state_from_json(data, config)`` gives the identical state back under ``config``. Floats
survive JSON exactly (``repr`` round-trips), tuples stay tuples, sets sets, arrays keep their
dtype and shape. Only the reducer's own plain-data classes are rebuilt, never an arbitrary
type named in the data.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

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
from rules.snapshot_codec import SnapshotError, decode, encode

SCHEMA_VERSION = 1
_CLASSES = {
    cls.__name__: cls
    for cls in (Clock, Ends, Restart, Touch, PendingPlay, LineWatch, BallTrack, Figures)
}

__all__ = ["SCHEMA_VERSION", "SnapshotError", "StateEncoder", "state_from_json", "state_to_json"]


def state_to_json(state: MatchState) -> dict[str, Any]:
    """The state without its config, as JSON-ready data (``schema_version`` first)."""
    body = {
        f.name: encode(getattr(state, f.name), _CLASSES)
        for f in fields(state)
        if f.name != "config"
    }
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
                last = self._last[f.name] = (value, encode(value, _CLASSES))
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
        body = {name: decode(value, _CLASSES) for name, value in data["state"].items()}
        return MatchState(config=config, **body)
    except (KeyError, TypeError, ValueError) as exc:
        raise SnapshotError(f"not a match state snapshot: {exc}") from exc
