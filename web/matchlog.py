"""The match log: what changed each match, and the rules' state after it, in SQLite (WAL).

One file holds every match played on a table; the newest match is the current one. The log is
event-sourced: the ``events`` of a match are the inputs that changed it, in order, as they
happened (each call as the rules emitted it, each referee action with its payload), and
``snapshots`` hold the rules' state (``rules.fistf_codec``) after them. Each event is written
in one transaction with the snapshot of the state it led to (so no event is ever newer than the
newest snapshot), and the newest snapshot is brought up to date after every frame: a process
killed at any moment comes back with the state of its last frame (clock, half, possession,
pending restart, play counts) and every call and action (DESIGN.md section 8). The events are
the match's record: what the export gives, and what a state is checked against.

The file is in WAL mode and written through one connection guarded by a lock, so the pipeline
thread and the web server's threads may all write and read it. ``synchronous=NORMAL`` survives
a crash of the process; only a power cut can drop the last transactions (about a second).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.referee import ACTIONS

# Referee actions that ``undo`` can take back (start/pause/reset are undone by their opposite).
UNDOABLE = ("overrule", "reinstate", "added_time")
# the rules' actions, the log's own, and a player's shot call (button football)
ACTION_KINDS = (*ACTIONS, "reset", "undo", "shot_call")
EVENT_KINDS = ("call", *ACTION_KINDS)
CSV_COLUMNS = (
    "event",
    "kind",
    "call_id",
    "frame",
    "t_s",
    "call",
    "law",
    "line",
    "margin_mm",
    "uncertainty_mm",
    "team",
    "restart",
    "detail",
    "logged_at",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, started_at REAL NOT NULL, table_name TEXT NOT NULL,
    clock_mode TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}', game TEXT);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    kind TEXT NOT NULL, call_id INTEGER, frame INTEGER, t_s REAL, payload TEXT NOT NULL,
    logged_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS events_match ON events (match_id, id);
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    event_id INTEGER NOT NULL, frame INTEGER, t_s REAL, state TEXT NOT NULL,
    logged_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_match ON snapshots (match_id, id);
"""


class MatchLogError(ValueError):
    """The match log cannot be opened, or was asked for something that does not exist."""


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """A match as the log knows it: id, table profile, clock mode, the rules' settings, and
    the game played (None: the one the table profile names)."""

    id: int
    table: str
    clock_mode: str
    settings: Mapping[str, Any]
    started_at: float
    game: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One input of a match: a call (``kind="call"``, ``payload`` its record) or an action."""

    id: int
    kind: str
    call_id: int | None
    frame: int | None
    t_s: float | None
    payload: Mapping[str, Any]
    logged_at: float


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The rules' state (``rules.fistf_codec`` data) after event ``event_id`` and frame."""

    event_id: int
    frame: int | None
    t_s: float | None
    state: Mapping[str, Any]


class MatchLog:
    """The SQLite match log at ``path`` (created if missing). Thread-safe."""

    def __init__(
        self,
        path: str | Path,
        *,
        table: str = "fistf",
        clock_mode: str = "ball-moving",
        game: str | None = None,
    ):
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(matches)")}
            if "game" not in columns:  # a log written before matches named their game
                self._db.execute("ALTER TABLE matches ADD COLUMN game TEXT")
        except sqlite3.Error as exc:
            raise MatchLogError(f"cannot open match log {self.path}: {exc}") from exc
        self._lock = threading.Lock()
        self._defaults = (table, clock_mode)
        self._default_game = game
        self._newest: dict[int, int] = {}  # match id -> id of its newest snapshot row

    @property
    def default_table(self) -> str:
        """The table profile a new match is played on unless told otherwise."""
        return self._defaults[0]

    @property
    def default_game(self) -> str | None:
        """The game a new match plays unless told otherwise (None: the table profile's)."""
        return self._default_game

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # ------------------------------------------------------------------ matches
    def new_match(
        self,
        table: str | None = None,
        clock_mode: str | None = None,
        settings: Mapping[str, Any] | None = None,
        game: str | None = None,
    ) -> int:
        """Start a new match (the earlier ones stay in the file) and return its id.

        ``table``, ``clock_mode`` and ``game`` default to the log's; a ``game`` of None on a
        log without one is the game the table profile names."""
        with self._lock:
            return int(
                self._db.execute(
                    "INSERT INTO matches (started_at, table_name, clock_mode, settings, game) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        time.time(),
                        table or self._defaults[0],
                        clock_mode or self._defaults[1],
                        json.dumps(dict(settings or {})),
                        game or self._default_game,
                    ),
                ).lastrowid
            )

    def current_match(self) -> int | None:
        """The newest match's id, or None in an empty log."""
        row = self._rows("SELECT id FROM matches ORDER BY id DESC LIMIT 1", ())
        return int(row[0][0]) if row else None

    def match(self, match_id: int) -> MatchInfo:
        found = self._rows(
            "SELECT table_name, clock_mode, settings, started_at, game FROM matches WHERE id = ?",
            (match_id,),
        )
        if not found:
            raise MatchLogError(f"no match {match_id} in {self.path}")
        table, clock_mode, settings, started_at, game = found[0]
        return MatchInfo(match_id, table, clock_mode, json.loads(settings), started_at, game)

    def matches(self) -> list[MatchInfo]:
        return [self.match(int(r[0])) for r in self._rows("SELECT id FROM matches ORDER BY id", ())]

    # ------------------------------------------------------------------ writing
    def record(
        self,
        match_id: int,
        state: Mapping[str, Any],
        frame: int | None,
        t_s: float | None,
        events: Iterable[tuple[str, int | None, Mapping[str, Any]]] = (),
    ) -> list[int]:
        """Log ``events`` (``(kind, call id, payload)``, in order) and the state after them, in
        one transaction; with no events, bring the newest snapshot up to this frame.

        Returns:
            the ids of the events written.
        """
        now = time.time()
        text = json.dumps(state, separators=(",", ":"))
        events = list(events)
        with self._lock:
            newest = self._newest.get(match_id)
            if not events and newest is not None:  # the common case: one statement, atomic
                self._db.execute(
                    "UPDATE snapshots SET frame = ?, t_s = ?, state = ?, logged_at = ? "
                    "WHERE id = ?",
                    (frame, t_s, text, now, newest),
                )
                return []
            cur = self._db.cursor()
            cur.execute("BEGIN")
            try:
                ids = []
                for kind, call_id, payload in events:
                    if kind not in EVENT_KINDS:
                        raise MatchLogError(
                            f"unknown event {kind!r}; expected one of {EVENT_KINDS}"
                        )
                    cur.execute(
                        "INSERT INTO events (match_id, kind, call_id, frame, t_s, payload, "
                        "logged_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (match_id, kind, call_id, frame, t_s, json.dumps(dict(payload)), now),
                    )
                    ids.append(int(cur.lastrowid))
                if ids or newest is None:
                    event_id = ids[-1] if ids else self._last_event(cur, match_id)
                    cur.execute(
                        "INSERT INTO snapshots (match_id, event_id, frame, t_s, state, logged_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (match_id, event_id, frame, t_s, text, now),
                    )
                    self._newest[match_id] = int(cur.lastrowid)
                else:
                    cur.execute(
                        "UPDATE snapshots SET frame = ?, t_s = ?, state = ?, logged_at = ? "
                        "WHERE id = ?",
                        (frame, t_s, text, now, newest),
                    )
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return ids

    @staticmethod
    def _last_event(cur: sqlite3.Cursor, match_id: int) -> int:
        row = cur.execute("SELECT MAX(id) FROM events WHERE match_id = ?", (match_id,)).fetchone()
        return int(row[0] or 0)

    def set_evidence(
        self, match_id: int, call_id: int, evidence: str | None, replay: str | None = None
    ) -> None:
        """Note the evidence picture of a logged call, and the name of its replay clip (both
        written after the call)."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, payload FROM events WHERE match_id = ? AND kind = 'call' "
                "AND call_id = ?",
                (match_id, call_id),
            ).fetchone()
            if row is None:
                raise MatchLogError(f"no call {call_id} in match {match_id}")
            payload = {**json.loads(row[1]), "evidence": evidence}
            if replay is not None:
                payload["replay"] = replay
            self._db.execute(
                "UPDATE events SET payload = ? WHERE id = ?", (json.dumps(payload), row[0])
            )

    # ------------------------------------------------------------------ reading
    def snapshot(self, match_id: int) -> Snapshot | None:
        """The newest state of a match, or None before its first frame or action."""
        row = self._rows(
            "SELECT id, event_id, frame, t_s, state FROM snapshots WHERE match_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (match_id,),
        )
        if not row:
            return None
        snap_id, event_id, frame, t_s, state = row[0]
        with self._lock:
            self._newest.setdefault(match_id, int(snap_id))
        return Snapshot(int(event_id), frame, t_s, json.loads(state))

    def events(self, match_id: int, after: int = 0, kind: str | None = None) -> list[Event]:
        """The events of a match after event id ``after``, in order (only ``kind`` if given)."""
        sql = (
            "SELECT id, kind, call_id, frame, t_s, payload, logged_at FROM events "
            "WHERE match_id = ? AND id > ?"
        )
        params: tuple[Any, ...] = (match_id, after)
        if kind is not None:
            sql, params = sql + " AND kind = ?", (*params, kind)
        return [
            Event(int(i), k, c, f, t, json.loads(p), at)
            for i, k, c, f, t, p, at in self._rows(sql + " ORDER BY id", params)
        ]

    def last_frame(self) -> tuple[int, float] | None:
        """The newest frame number and time any match of this log has seen (numbering goes on
        from there after a restart, so frame numbers and evidence names stay unique)."""
        row = self._rows(
            "SELECT frame, t_s FROM snapshots WHERE frame IS NOT NULL ORDER BY frame DESC LIMIT 1",
            (),
        )
        return (int(row[0][0]), float(row[0][1])) if row else None

    # ------------------------------------------------------------------ export
    def export_json(self, match_id: int) -> dict[str, Any]:
        """The match and its events, JSON-ready: what ``tablevar export`` and the page give."""
        info = self.match(match_id)
        return {
            "match": {
                "id": info.id,
                "table": info.table,
                "clock_mode": info.clock_mode,
                "settings": dict(info.settings),
                "started_at": info.started_at,
            },
            "events": [
                {
                    "event": e.id,
                    "kind": e.kind,
                    "call_id": e.call_id,
                    "frame": e.frame,
                    "t_s": e.t_s,
                    "payload": dict(e.payload),
                    "logged_at": e.logged_at,
                }
                for e in self.events(match_id)
            ],
        }

    def export_csv(self, match_id: int) -> str:
        """The events of a match as CSV (``CSV_COLUMNS``), one row each."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        self.match(match_id)  # an unknown match is an error, not an empty table
        for e in self.events(match_id):
            p = e.payload
            call = e.kind == "call"
            detail = "" if call else json.dumps(dict(p), separators=(",", ":"))
            writer.writerow(
                [
                    e.id,
                    e.kind,
                    "" if e.call_id is None else e.call_id,
                    "" if e.frame is None else e.frame,
                    "" if e.t_s is None else e.t_s,
                    p.get("kind", "") if call else "",
                    p.get("law", "") if call else "",
                    p.get("line") or "" if call else "",
                    _blank(p.get("margin_mm")) if call else "",
                    _blank(p.get("uncertainty_mm")) if call else "",
                    p.get("team") or "" if call else "",
                    p.get("restart") or "" if call else "",
                    detail,
                    e.logged_at,
                ]
            )
        return out.getvalue()


def _blank(value: Any) -> Any:
    return "" if value is None else value
