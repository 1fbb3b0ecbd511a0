"""The match hub: where the pipeline's frames meet the referee's controls and the live pages.

The hub holds the live match (``web.match.LiveMatch``): the pipeline hands it each frame's
observation and the referee's controls (start, pause, resume, overrule, reinstate, uphold,
reject, added time, half-time, end, team names, reset, undo) arrive from the web layer; both go
through the rules' reducer under one lock, are logged, and then fan out to server-sent-event
subscribers. The pipeline also pushes frame records (``tracks.jsonl`` schema) for the radar and
the evidence picture of each call once it is drawn.

A subscriber never slows the pipeline, and the pipeline does no work per subscriber: every
event stream reads one shared ``Feed``. Calls and full states are kept in order and each stream
sends every one of them exactly once; frames and the scoreboard are *coalesced* (published at
most ``max_rate_hz`` times a second, each time the newest, with one wake-up of all streams).
A stream that falls further behind than the ordered log reaches ends, and the browser's
EventSource reconnects and starts again from a full state, so no call is ever lost from a page,
only delayed.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from calibration.tables import load_pitch
from rules.button_state import ButtonState
from rules.calls import Call
from rules.fistf import MatchState
from rules.observation import Observation
from rules.pitch import Pitch
from web.button_match import ButtonLiveMatch
from web.games import game_of
from web.match import CallEntry, LiveMatch, call_record
from web.matchlog import MatchLog
from web.recordings import evidence_relpath

ControlListener = Callable[[str, Mapping[str, Any]], None]
MAX_CALLS_IN_STATE = 200


def sse_message(kind: str, data: Any) -> bytes:
    """One server-sent event: ``event: kind`` and a one-line JSON ``data``."""
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Feed:
    """What every event stream reads: one ordered log and the newest coalesced state.

    All streams wait on one condition and read the same encoded messages, so a message is
    encoded once whatever the number of pages, and the pipeline's push costs no work per page.

    - Ordered messages (calls, full states) go into a log of the last ``max_pending``, each with
      a sequence number; a stream keeps its own cursor and sends every message after it, in
      order, exactly once. A stream that falls further behind than the log reaches is lost: it
      ends, and the page reconnects to a full state (which lists the calls).
    - Coalesced kinds (frames, the scoreboard) are only stored when pushed; at most every
      ``min_interval_s`` the newest of each is encoded and published with one wake-up of all
      streams. A radar needs ~10-15 updates a second, and every wake-up of a server thread
      takes the interpreter from the pipeline. Whichever thread finds the interval over
      publishes: the pipeline's next push, or a stream whose wait ends then (so the last state
      before the pipeline goes quiet still gets out). ``urgent`` publishes at once (the clock
      stopping, a goal, the camera dropping out).
    - A full state supersedes the coalesced messages published or stored before it.

    Args:
        max_pending: ordered messages a stream may fall behind before it is lost.
        min_interval_s: least time between two publications of coalesced kinds, s.
    """

    def __init__(self, max_pending: int = 256, min_interval_s: float = 0.0):
        self._cond = threading.Condition(threading.Lock())
        self._log: deque[tuple[int, str, bytes]] = deque(maxlen=max_pending)
        self._seq = 0  # sequence number of the newest ordered message
        self._pending: dict[str, Any] = {}  # coalesced data stored, not yet published
        self._latest: dict[str, tuple[int, int, bytes]] = {}  # kind -> (version, seq, message)
        self._version = 0  # of the newest publication
        self._min_interval_s = min_interval_s
        self._next_s = -math.inf  # monotonic time the next publication may happen
        self._subs: set[Subscription] = set()
        self.closed = False

    def append(self, kind: str, message: bytes) -> None:
        """An ordered message: every stream sends it, in order, once."""
        with self._cond:
            self._seq += 1
            self._log.append((self._seq, kind, message))
            if kind == "state":
                self._pending.clear()  # older than the state, which holds them
            self._cond.notify_all()

    def store(self, kind: str, data: Any, *, urgent: bool = False) -> None:
        """The newest ``data`` of a coalesced kind; published when the interval is over."""
        with self._cond:
            self._pending[kind] = data
            now = time.monotonic()
            if self._subs and (urgent or now >= self._next_s):
                self._publish(now)

    def subscribe(self, first: bytes) -> Subscription:
        """A reader starting after what is here now, whose first message is ``first``."""
        with self._cond:
            sub = Subscription(self, first, self._seq, self._version)
            self._subs.add(sub)
            return sub

    @property
    def reader_count(self) -> int:
        """Streams still reading (neither ended nor lost)."""
        with self._cond:
            return sum(not self._is_lost(sub) for sub in self._subs)

    def close(self) -> None:
        """End every stream."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def _publish(self, now: float) -> None:
        for kind, data in self._pending.items():
            self._version += 1
            self._latest[kind] = (self._version, self._seq, sse_message(kind, data))
        self._pending.clear()
        self._next_s = now + self._min_interval_s
        self._cond.notify_all()

    def _is_lost(self, sub: Subscription) -> bool:
        return self._seq - sub.seq > len(self._log)

    def _read(self, sub: Subscription, timeout_s: float) -> list[bytes] | None:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while not (sub.closed or self.closed or self._is_lost(sub)):
                if sub.first is not None or sub.seq < self._seq or sub.version < self._version:
                    return self._collect(sub)
                now = time.monotonic()
                if now >= self._next_s and self._pending:
                    self._publish(now)
                    continue
                # While publications may follow, wake when the next one is due: the pipeline
                # may have gone quiet with its newest state stored but not yet published.
                until = min(deadline, self._next_s) if now < self._next_s else deadline
                if now >= deadline:
                    return []
                self._cond.wait(until - now)
            sub._lost = sub._lost or self._is_lost(sub)
            sub.closed = True
            self._subs.discard(sub)
            return None

    def _collect(self, sub: Subscription) -> list[bytes]:
        items = [sub.first] if sub.first is not None else []
        sub.first = None
        state_seq = sub.seq
        news = self._seq - sub.seq
        for seq, kind, message in itertools.islice(self._log, len(self._log) - news, None):
            items.append(message)
            state_seq = seq if kind == "state" else state_seq
        for version, seq, message in self._latest.values():
            if version > sub.version and seq >= state_seq:
                items.append(message)
        sub.seq, sub.version = self._seq, self._version
        return items


class Subscription:
    """One event stream's cursor into the ``Feed`` (from ``MatchHub.subscribe``)."""

    def __init__(self, feed: Feed, first: bytes | None, seq: int, version: int):
        self._feed = feed
        self.first = first  # the full state it starts from, until sent
        self.seq, self.version = seq, version  # what it has sent
        self.closed = False
        self._lost = False

    @property
    def lost(self) -> bool:
        """Whether it fell further behind than the ordered log reaches (ends at its next take)."""
        with self._feed._cond:
            return self._lost or self._feed._is_lost(self)

    def take(self, timeout_s: float) -> list[bytes] | None:
        """Wait up to ``timeout_s`` and return what is new ([] on time-out, None once ended)."""
        return self._feed._read(self, timeout_s)

    def close(self) -> None:
        with self._feed._cond:
            self.closed = True
            self._feed._subs.discard(self)
            self._feed._cond.notify_all()


class MatchHub:
    """The live match, its log and the event fan-out. Thread-safe.

    Args:
        log: the match log; the hub resumes its newest match from its newest snapshot.
        output_dir: folder the pipeline writes evidence pictures into (None: no evidence).
        pitch: the pitch the rules judge on until the pipeline brings a calibrated one
            (default: the nominal pitch of the match's table profile).
        max_pending: ordered messages a subscriber may fall behind before it is dropped.
        max_rate_hz: most publications of frames and the scoreboard a second (each page gets
            at most that many; the radar draws in between).
    """

    def __init__(
        self,
        log: MatchLog,
        *,
        output_dir: str | Path | None = None,
        pitch: Pitch | None = None,
        max_pending: int = 256,
        max_rate_hz: float = 15.0,
    ):
        self.log = log
        self.output_dir = Path(output_dir) if output_dir is not None else None
        self._feed = Feed(max_pending, 1.0 / max_rate_hz)
        self._lock = threading.RLock()
        current = log.current_match()
        info = log.match(current) if current is not None else None
        table, chosen = (info.table, info.game) if info else (log.default_table, None)
        playing = game_of(log.default_table, log.default_game).name
        if info is not None and game_of(table, chosen).name != playing:
            # The log's match is of another game than this table's: its reducer cannot go on
            # with it. A new match starts (the old one stays in the log, to review and export).
            table, chosen = log.default_table, log.default_game
            log.new_match(table)
        pitch = pitch if pitch is not None else load_pitch(table, chosen or log.default_game)
        # Each game keeps its match its own way (its reducer, its actions): same interface.
        live = ButtonLiveMatch if pitch.profile.game == ButtonLiveMatch.game else LiveMatch
        self._match: LiveMatch | ButtonLiveMatch = live(log, pitch)
        self._frame: Mapping[str, Any] | None = None
        self._source = {"ok": True, "message": ""}
        self._recording: dict[str, Any] | None = None  # None: not recording
        self._dropped = 0  # camera frames dropped because refereeing fell behind
        self._listeners: list[ControlListener] = []
        # Shot calls made by the controls: the live runner draws their evidence pictures.
        self._action_calls: deque[Call] = deque(maxlen=64)
        self._board = self._scoreboard()

    # ------------------------------------------------------------------ pipeline side
    def push_frame(self, record: Mapping[str, Any]) -> None:
        """The newest ``tracks.jsonl`` record: shown on the radar, not logged."""
        with self._lock:
            self._frame = record
            self._feed.store("frame", record)

    def observe(self, obs: Observation, *, publish: bool = True) -> list[Call]:
        """One frame through the rules. The calls and the state are logged before this
        returns; the calls reach the pages now, or with ``publish=False`` once their evidence
        is drawn (``publish_calls``)."""
        with self._lock:
            calls = self._match.observe(obs)
            if publish:
                self.publish_calls([(c, None, None) for c in calls])
            self._send_scoreboard()
        return calls

    def publish_calls(
        self, calls: list[tuple[Call, str | None, str | None]]
    ) -> list[dict[str, Any]]:
        """Send calls to every page with their evidence pictures and the names of their
        replay clips, once written (``(call, evidence, replay)``; logged with the call)."""
        out = []
        with self._lock:
            match = self._match
            for call, evidence, replay in calls:
                if evidence is not None or replay is not None:
                    self.log.set_evidence(match.match_id, call.id, evidence, replay)
                    match.set_media(call.id, evidence, replay)
                data = self._call_json(match.call(call.id))
                self._feed.append("call", sse_message("call", data))
                out.append(data)
        return out

    def use_pitch(self, pitch: Pitch) -> None:
        """Judge on ``pitch`` from now on (the calibration's measured line edges)."""
        with self._lock:
            self._match.use_pitch(pitch)

    @property
    def resume_point(self) -> tuple[int, float] | None:
        """The newest frame number and time the log has seen (None: a new log)."""
        return self.log.last_frame()

    def set_source(self, ok: bool, message: str = "") -> None:
        """Whether frames are arriving (the camera may have dropped out and be reopening)."""
        with self._lock:
            self._source = {"ok": bool(ok), "message": message}
            self._send_scoreboard()

    def set_dropped(self, frames: int) -> None:
        """How many camera frames were dropped so far because refereeing fell behind (the
        page shows the count; it rides with the next scoreboard, never urgently)."""
        with self._lock:
            if int(frames) != self._dropped:
                self._dropped = int(frames)
                self._send_scoreboard()

    def set_recording(self, ok: bool, message: str = "") -> None:
        """Whether ``--record`` is writing (False: it stopped, e.g. the disk is full)."""
        with self._lock:
            self._recording = {"ok": bool(ok), "message": message}
            self._send_scoreboard()

    def push_replay(self, call_id: int, replay: str, kind: str, match_id: int) -> None:
        """The replay clip of call ``call_id`` (of ``kind``) of match ``match_id`` is written
        (``replay``: its path in the output folder): every page may play it now. Not logged:
        the call's record names the clip. A clip of a match the referee has since replaced
        is not sent (its call id would name another match's call)."""
        with self._lock:
            if match_id != self._match.match_id:
                return
            data = {"id": int(call_id), "kind": kind, "replay_rel": replay}
            self._feed.append("replay", sse_message("replay", data))

    # ------------------------------------------------------------------ referee side
    def on_control(self, listener: ControlListener) -> None:
        """Call ``listener(action, payload)`` after each referee action (the pipeline's hook)."""
        self._listeners.append(listener)

    def control(self, action: str, **payload: Any) -> dict[str, Any]:
        """Apply a referee action through the rules and return the new snapshot.

        Actions: those of ``rules.referee.ACTIONS`` (``added_time`` takes ``seconds``;
        ``overrule`` ``call_id`` and ``reason``; ``reinstate``, ``uphold`` and ``reject``
        ``call_id``; ``team_names`` ``names``), ``reset`` (a new match) and ``undo`` (the
        newest overrule, reinstate or added time).

        Raises:
            ValueError: an unknown action or call, or one the match does not allow now.
        """
        with self._lock:
            calls = self._match.act(action, payload)
            if action == "shot_call":  # judged where the ball lay: its picture shows where
                self._action_calls.extend(calls)
            snapshot = self.snapshot()
            self._feed.append("state", sse_message("state", snapshot))
        for listener in self._listeners:
            listener(action, payload)
        return snapshot

    def take_action_calls(self) -> list[Call]:
        """The shot calls the controls made since the last take (the pipeline draws their
        evidence pictures and publishes them again with it, ``publish_calls``)."""
        with self._lock:
            calls = list(self._action_calls)
            self._action_calls.clear()
            return calls

    # ------------------------------------------------------------------ readers
    def snapshot(self) -> dict[str, Any]:
        """The whole live state as JSON-ready data, calls newest first."""
        with self._lock:
            match = self._match
            entries = match.call_entries()
            calls = [self._call_json(c) for c in reversed(entries[-MAX_CALLS_IN_STATE:])]
            return {
                **self._scoreboard(),
                "match_id": match.match_id,
                "table": match.info.table,
                "clock_mode": match.info.clock_mode,
                "game": match.game,
                "calls": calls,
                "calls_total": len(entries),
                "frame": self._frame,
            }

    @property
    def match(self) -> MatchState | ButtonState:
        """The rules' state of the live match (its game's state)."""
        with self._lock:
            return self._match.state

    @property
    def hold(self) -> str | None:
        """The referee's hold on the match (``not_started``, ``paused``) or None."""
        with self._lock:
            return self._match.hold

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions the live match's game takes (``control``)."""
        return tuple(self._match.actions)

    @property
    def game(self) -> str:
        """The game of the live match (``rules.games``)."""
        return self._match.game

    @property
    def match_id(self) -> int:
        with self._lock:
            return self._match.match_id

    @property
    def calls(self) -> list[CallEntry]:
        """The calls of the live match, in order, with the referee's word on them."""
        with self._lock:
            return self._match.call_entries()

    def subscribe(self) -> Subscription:
        """A new event-stream subscriber whose first message is the full state."""
        with self._lock:  # no call between the snapshot and the subscriber's first cursor
            return self._feed.subscribe(sse_message("state", self.snapshot()))

    def unsubscribe(self, sub: Subscription) -> None:
        sub.close()

    @property
    def subscriber_count(self) -> int:
        """Event streams still reading."""
        return self._feed.reader_count

    def close(self) -> None:
        """End every event stream (on shutdown)."""
        self._feed.close()

    # ------------------------------------------------------------------ internals
    def _scoreboard(self) -> dict[str, Any]:
        return {
            **self._match.view(self._source["ok"]),
            "source": dict(self._source),
            "recording": None if self._recording is None else dict(self._recording),
            "dropped_frames": self._dropped,
        }

    def _send_scoreboard(self) -> None:
        """Store the scoreboard; published at once when more than the running seconds
        changed (the clock stopping, a goal, the camera dropping out)."""
        board = self._scoreboard()
        old = self._board
        same = {"clock": None, "dropped_frames": None}  # these ride with the next publication
        urgent = {**board, **same} != {**old, **same} or (
            board["clock"]["status"],
            board["clock"]["half"],
        ) != (old["clock"]["status"], old["clock"]["half"])
        self._board = board
        self._feed.store("scoreboard", board, urgent=urgent)

    def _call_json(self, entry: CallEntry) -> dict[str, Any]:
        data = entry.to_json()
        data["evidence_rel"] = evidence_relpath(entry.record.get("evidence"), self.output_dir)
        data["replay_rel"] = evidence_relpath(entry.record.get("replay"), self.output_dir)
        data["awaiting_referee"] = entry.id in self._match.awaiting_calls
        return data


__all__ = ["Feed", "MatchHub", "Subscription", "call_record", "sse_message"]
