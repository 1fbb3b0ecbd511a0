"""The match log: every call, referee action, score and clock change, in SQLite as it happens.

One file holds every match played on a table. The newest match is the current one, so opening
an existing log resumes the match where it was (DESIGN.md section 8). The file is in WAL mode
and written through one connection guarded by a lock, so the pipeline thread and the web
server's threads may all write and read it.

What the rules counted and what the referee decided are kept apart: ``score`` rows hold the
machine's count as pushed by the pipeline, ``actions`` hold the referee's overrules and added
time. ``MatchState`` combines them: the score shown is the machine's count corrected by the
standing overrules.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

CLOCK_STATUSES = ("not_started", "running", "stopped", "paused", "half_time", "ended")
# Referee actions that ``undo`` can take back (start/pause/reset are undone by their opposite).
UNDOABLE = ("overrule", "reinstate", "added_time")
ACTION_KINDS = ("start", "pause", "reset", "undo", *UNDOABLE)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, started_at REAL NOT NULL, table_name TEXT NOT NULL,
    clock_mode TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    frame INTEGER, t_s REAL, kind TEXT NOT NULL, record TEXT NOT NULL, logged_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    kind TEXT NOT NULL, call_id INTEGER, payload TEXT NOT NULL, undone INTEGER NOT NULL DEFAULT 0,
    logged_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS score (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    home INTEGER NOT NULL, away INTEGER NOT NULL, logged_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS clock (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    clock_s REAL NOT NULL, half INTEGER NOT NULL, status TEXT NOT NULL, logged_at REAL NOT NULL);
"""


class MatchLogError(ValueError):
    """The match log cannot be opened, or was asked for something that does not exist."""


@dataclass(frozen=True, slots=True)
class Clock:
    """The match clock: seconds played in this half, which half, and why it stands or runs."""

    clock_s: float = 0.0
    half: int = 1
    status: str = "not_started"

    def __post_init__(self) -> None:
        if self.status not in CLOCK_STATUSES:
            raise MatchLogError(f"clock status {self.status!r} is not one of {CLOCK_STATUSES}")

    def to_json(self) -> dict[str, Any]:
        return {"clock_s": self.clock_s, "half": self.half, "status": self.status}


@dataclass(frozen=True, slots=True)
class CallEntry:
    """One call as logged: its id, the ``calls.jsonl`` record, and the referee's verdict.

    ``status`` is ``standing`` or ``overruled``; ``reason`` is the referee's note.
    """

    id: int
    record: Mapping[str, Any]
    status: str = "standing"
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "reason": self.reason, **self.record}


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything the live page shows about one match, as read from the log."""

    match_id: int
    table: str
    clock_mode: str
    clock: Clock = field(default_factory=Clock)
    machine_score: tuple[int, int] = (0, 0)
    corrections: tuple[int, int] = (0, 0)
    added_time_s: float = 0.0
    calls: tuple[CallEntry, ...] = ()

    @property
    def score(self) -> tuple[int, int]:
        """(home, away): the machine's count corrected by the referee's standing overrules."""
        return tuple(m + c for m, c in zip(self.machine_score, self.corrections, strict=True))

    def call(self, call_id: int) -> CallEntry:
        for entry in self.calls:
            if entry.id == call_id:
                return entry
        raise MatchLogError(f"no call {call_id} in match {self.match_id}")


def score_correction(record: Mapping[str, Any]) -> tuple[int, int]:
    """How overruling a call changes (home, away): a goal no longer counts, a disallowed goal does.

    ``team`` of a goal is the scorer; of a disallowed goal, the team awarded the free kick, so
    the goal it gives back belongs to the other team.
    """
    kind, team = record.get("kind"), record.get("team")
    if team not in ("home", "away") or kind not in ("goal", "goal_disallowed"):
        return (0, 0)
    if kind == "goal_disallowed":
        team = "away" if team == "home" else "home"
    delta = -1 if kind == "goal" else 1
    return (delta, 0) if team == "home" else (0, delta)


class MatchLog:
    """The SQLite match log at ``path`` (created if missing). Thread-safe."""

    def __init__(self, path: str | Path, *, table: str = "fistf", clock_mode: str = "ball-moving"):
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a crash of the process; only power loss can drop the
            # last transactions, which is the "about a second" DESIGN.md allows.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise MatchLogError(f"cannot open match log {self.path}: {exc}") from exc
        self._lock = threading.Lock()
        self._defaults = (table, clock_mode)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> int:
        with self._lock:
            return int(self._db.execute(sql, params).lastrowid)

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # ------------------------------------------------------------------ writing
    def new_match(self, table: str | None = None, clock_mode: str | None = None) -> int:
        """Start a new match (the earlier ones stay in the file) and return its id."""
        table = table or self._defaults[0]
        clock_mode = clock_mode or self._defaults[1]
        return self._write(
            "INSERT INTO matches (started_at, table_name, clock_mode) VALUES (?, ?, ?)",
            (time.time(), table, clock_mode),
        )

    def add_call(self, match_id: int, record: Mapping[str, Any]) -> int:
        """Log a ``calls.jsonl`` record and return its call id."""
        return self._write(
            "INSERT INTO calls (match_id, frame, t_s, kind, record, logged_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                match_id,
                record.get("frame"),
                record.get("t_s"),
                str(record.get("kind")),
                json.dumps(dict(record)),
                time.time(),
            ),
        )

    def add_action(
        self, match_id: int, kind: str, call_id: int | None = None, **payload: Any
    ) -> int:
        """Log a referee action (one of ``ACTION_KINDS``) and return its id."""
        if kind not in ACTION_KINDS:
            raise MatchLogError(f"unknown action {kind!r}; expected one of {ACTION_KINDS}")
        return self._write(
            "INSERT INTO actions (match_id, kind, call_id, payload, logged_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (match_id, kind, call_id, json.dumps(payload), time.time()),
        )

    def undo_last(self, match_id: int) -> dict[str, Any] | None:
        """Take back the newest referee action that can be undone; return it, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, kind, call_id, payload FROM actions WHERE match_id = ? AND undone = 0 "
                f"AND kind IN ({','.join('?' * len(UNDOABLE))}) ORDER BY id DESC LIMIT 1",
                (match_id, *UNDOABLE),
            ).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE actions SET undone = 1 WHERE id = ?", (row[0],))
        action = {"id": row[0], "kind": row[1], "call_id": row[2], **json.loads(row[3])}
        self.add_action(match_id, "undo", row[2], undid=row[0])
        return action

    def set_score(self, match_id: int, home: int, away: int) -> None:
        """Log the machine's score."""
        self._write(
            "INSERT INTO score (match_id, home, away, logged_at) VALUES (?, ?, ?, ?)",
            (match_id, int(home), int(away), time.time()),
        )

    def set_clock(self, match_id: int, clock: Clock) -> None:
        self._write(
            "INSERT INTO clock (match_id, clock_s, half, status, logged_at) VALUES (?, ?, ?, ?, ?)",
            (match_id, clock.clock_s, clock.half, clock.status, time.time()),
        )

    # ------------------------------------------------------------------ reading
    def resume(self) -> MatchState:
        """The newest match as it stood (a new one when the log is empty).

        A clock that was running when the process stopped comes back ``paused``: nothing is
        watching the table yet, so it must not look as if time were passing.
        """
        row = self._rows("SELECT id FROM matches ORDER BY id DESC LIMIT 1", ())
        match_id = row[0][0] if row else self.new_match()
        state = self.load(match_id)
        if state.clock.status in ("running", "stopped"):
            state = replace(state, clock=replace(state.clock, status="paused"))
        return state

    def load(self, match_id: int) -> MatchState:
        """Rebuild match ``match_id`` from its rows."""
        found = self._rows("SELECT table_name, clock_mode FROM matches WHERE id = ?", (match_id,))
        if not found:
            raise MatchLogError(f"no match {match_id} in {self.path}")
        table, clock_mode = found[0]
        calls = {
            cid: CallEntry(cid, json.loads(rec))
            for cid, rec in self._rows(
                "SELECT id, record FROM calls WHERE match_id = ? ORDER BY id", (match_id,)
            )
        }
        added_s = 0.0
        for kind, call_id, payload in self._rows(
            "SELECT kind, call_id, payload FROM actions WHERE match_id = ? AND undone = 0 "
            "ORDER BY id",
            (match_id,),
        ):
            data = json.loads(payload)
            if kind == "added_time":
                added_s += float(data["seconds"])
            elif kind in ("overrule", "reinstate") and call_id in calls:
                status = "overruled" if kind == "overrule" else "standing"
                calls[call_id] = CallEntry(
                    call_id, calls[call_id].record, status, data.get("reason")
                )
        corrections = [0, 0]
        for entry in calls.values():
            if entry.status == "overruled":
                dh, da = score_correction(entry.record)
                corrections[0] += dh
                corrections[1] += da
        score = self._rows(
            "SELECT home, away FROM score WHERE match_id = ? ORDER BY id DESC LIMIT 1", (match_id,)
        )
        clock = self._rows(
            "SELECT clock_s, half, status FROM clock WHERE match_id = ? ORDER BY id DESC LIMIT 1",
            (match_id,),
        )
        return MatchState(
            match_id=match_id,
            table=table,
            clock_mode=clock_mode,
            clock=Clock(*clock[0]) if clock else Clock(),
            machine_score=tuple(score[0]) if score else (0, 0),
            corrections=(corrections[0], corrections[1]),
            added_time_s=added_s,
            calls=tuple(calls.values()),
        )
