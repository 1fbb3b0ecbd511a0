"""The match hub: where the pipeline's records meet the referee's controls and the live pages.

The pipeline pushes frame records (``tracks.jsonl`` schema), calls (``calls.jsonl`` schema) and
clock and score snapshots; the referee's controls (start, pause, reset, overrule, added time,
undo) arrive from the web layer. The hub writes the match log as things happen and fans events
out to server-sent-event subscribers.

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
from dataclasses import replace
from pathlib import Path
from typing import Any

from web.matchlog import CallEntry, Clock, MatchLog, MatchLogError, MatchState
from web.recordings import evidence_relpath

ControlListener = Callable[[str, Mapping[str, Any]], None]
# Statuses the referee sets and the pipeline may not override (it still moves the clock on).
REFEREE_HELD = ("not_started", "paused")
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
    """The live match: state, match log writes and event fan-out. Thread-safe.

    Args:
        log: the match log; the hub resumes its newest match.
        output_dir: folder the pipeline writes evidence pictures into (None: no evidence).
        max_pending: ordered messages a subscriber may fall behind before it is dropped.
        max_rate_hz: most publications of frames and the scoreboard a second (each page gets
            at most that many; the radar draws in between).
        clock_log_interval_s: how much match time may pass between clock rows in the log
            (a status or half change is always logged at once).
    """

    def __init__(
        self,
        log: MatchLog,
        *,
        output_dir: str | Path | None = None,
        max_pending: int = 256,
        max_rate_hz: float = 15.0,
        clock_log_interval_s: float = 5.0,
    ):
        self.log = log
        self.output_dir = Path(output_dir) if output_dir is not None else None
        self._feed = Feed(max_pending, 1.0 / max_rate_hz)
        self._clock_interval_s = clock_log_interval_s
        self._lock = threading.RLock()
        self._state: MatchState = log.resume()
        self._logged_clock = self._state.clock
        self._frame: Mapping[str, Any] | None = None
        self._source = {"ok": True, "message": ""}
        self._recording: dict[str, Any] | None = None  # None: not recording
        self._listeners: list[ControlListener] = []

    # ------------------------------------------------------------------ pipeline side
    def push_frame(self, record: Mapping[str, Any]) -> None:
        """The newest ``tracks.jsonl`` record: shown on the radar, not logged."""
        with self._lock:
            self._frame = record
            self._feed.store("frame", record)

    def push_call(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """A new ``calls.jsonl`` record: logged, then sent to every page. Returns its JSON."""
        with self._lock:
            call_id = self.log.add_call(self._state.match_id, record)
            calls = (*self._state.calls, CallEntry(call_id, dict(record)))
            self._state = replace(self._state, calls=calls)
            data = self._call_json(calls[-1])
            self._feed.append("call", sse_message("call", data))
        return data

    def push_clock(self, clock_s: float, half: int, status: str) -> None:
        """The rules' match clock. While the referee holds the match, its status stays put.

        The running seconds reach the pages at the rate of the radar; a change of status or
        half at once.
        """
        with self._lock:
            old = self._state.clock
            if old.status in REFEREE_HELD:
                status = old.status
            clock = Clock(float(clock_s), int(half), status)
            self._state = replace(self._state, clock=clock)
            last = self._logged_clock
            if (
                clock.status != last.status
                or clock.half != last.half
                or abs(clock.clock_s - last.clock_s) >= self._clock_interval_s
            ):
                self.log.set_clock(self._state.match_id, clock)
                self._logged_clock = clock
            self._send_scoreboard(urgent=(clock.status, clock.half) != (old.status, old.half))

    def push_score(self, home: int, away: int) -> None:
        """The rules' count of goals (the referee's overrules are applied on top)."""
        with self._lock:
            if (home, away) == self._state.machine_score:
                return
            self.log.set_score(self._state.match_id, home, away)
            self._state = replace(self._state, machine_score=(int(home), int(away)))
            self._send_scoreboard(urgent=True)

    def set_source(self, ok: bool, message: str = "") -> None:
        """Whether frames are arriving (the camera may have dropped out and be reopening)."""
        with self._lock:
            self._source = {"ok": bool(ok), "message": message}
            self._send_scoreboard(urgent=True)

    def set_recording(self, ok: bool, message: str = "") -> None:
        """Whether ``--record`` is writing (False: it stopped, e.g. the disk is full)."""
        with self._lock:
            self._recording = {"ok": bool(ok), "message": message}
            self._send_scoreboard(urgent=True)

    def push_replay(self, call_id: int, replay: str, kind: str) -> None:
        """The replay clip of call ``call_id`` (of ``kind``) is written (``replay``: its path
        in the output folder): every page may play it now. Not logged: the call's record
        names the clip."""
        data = {"id": int(call_id), "kind": kind, "replay_rel": replay}
        self._feed.append("replay", sse_message("replay", data))

    # ------------------------------------------------------------------ referee side
    def on_control(self, listener: ControlListener) -> None:
        """Call ``listener(action, payload)`` after each referee action (the pipeline's hook)."""
        self._listeners.append(listener)

    def control(self, action: str, **payload: Any) -> dict[str, Any]:
        """Apply a referee action and return the new snapshot.

        Actions: ``start``, ``pause``, ``reset``, ``added_time`` (``seconds``), ``overrule``
        (``call_id``, ``reason``), ``reinstate`` (``call_id``), ``undo``.

        Raises:
            MatchLogError: unknown action or call, or nothing to undo.
        """
        with self._lock:
            self._apply(action, payload)
            snapshot = self.snapshot()
            self._feed.append("state", sse_message("state", snapshot))
        for listener in self._listeners:
            listener(action, payload)
        return snapshot

    def _apply(self, action: str, payload: dict[str, Any]) -> None:
        match_id = self._state.match_id
        if action == "reset":
            self.log.add_action(match_id, "reset")
            match_id = self.log.new_match(self._state.table, self._state.clock_mode)
        elif action in ("start", "pause"):
            status = "running" if action == "start" else "paused"
            self.log.add_action(match_id, action)
            self.log.set_clock(match_id, replace(self._state.clock, status=status))
        elif action in ("overrule", "reinstate"):
            call_id = int(payload["call_id"])
            self._state.call(call_id)  # raises for an unknown call
            self.log.add_action(match_id, action, call_id, reason=payload.get("reason"))
        elif action == "added_time":
            self.log.add_action(match_id, action, seconds=float(payload["seconds"]))
        elif action == "undo":
            if self.log.undo_last(match_id) is None:
                raise MatchLogError("nothing to undo: no overrule or added time is standing")
        else:
            raise MatchLogError(f"unknown action {action!r}")
        self._state = self.log.load(match_id)
        self._logged_clock = self._state.clock

    # ------------------------------------------------------------------ readers
    def snapshot(self) -> dict[str, Any]:
        """The whole live state as JSON-ready data, calls newest first."""
        with self._lock:
            state = self._state
            calls = [self._call_json(c) for c in reversed(state.calls[-MAX_CALLS_IN_STATE:])]
            return {
                **self._scoreboard(),
                "match_id": state.match_id,
                "table": state.table,
                "clock_mode": state.clock_mode,
                "machine_score": _score(state.machine_score),
                "calls": calls,
                "calls_total": len(state.calls),
                "frame": self._frame,
            }

    @property
    def state(self) -> MatchState:
        with self._lock:
            return self._state

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
        state = self._state
        return {
            "clock": state.clock.to_json(),
            "added_time_s": state.added_time_s,
            "score": _score(state.score),
            "source": dict(self._source),
            "recording": None if self._recording is None else dict(self._recording),
        }

    def _send_scoreboard(self, *, urgent: bool = False) -> None:
        self._feed.store("scoreboard", self._scoreboard(), urgent=urgent)

    def _call_json(self, entry: CallEntry) -> dict[str, Any]:
        data = entry.to_json()
        data["evidence_rel"] = evidence_relpath(entry.record.get("evidence"), self.output_dir)
        data["replay_rel"] = evidence_relpath(entry.record.get("replay"), self.output_dir)
        return data


def _score(pair: tuple[int, int]) -> dict[str, int]:
    return {"home": int(pair[0]), "away": int(pair[1])}
