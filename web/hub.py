"""The match hub: where the pipeline's records meet the referee's controls and the live pages.

The pipeline pushes frame records (``tracks.jsonl`` schema), calls (``calls.jsonl`` schema) and
clock and score snapshots; the referee's controls (start, pause, reset, overrule, added time,
undo) arrive from the web layer. The hub writes the match log as things happen and fans events
out to server-sent-event subscribers.

A subscriber never slows the pipeline: each has its own small buffer, fed without waiting.
Frames and the scoreboard are *coalesced* (a subscriber that falls behind gets only the newest
one); calls and full states are queued in order. A subscriber whose queue overflows is closed,
and the browser's EventSource reconnects and starts again from a full state, so no call is ever
lost from a page, only delayed.
"""

from __future__ import annotations

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


class Subscription:
    """One event-stream client's buffer: ordered messages plus the newest of each coalesced kind.

    Args:
        max_pending: ordered messages it may hold before it is closed as lost.
        min_interval_s: least time between two deliveries that hold only coalesced kinds
            (frames, scoreboard): a radar needs no more than ~30 updates a second, and every
            wake-up of a server thread costs the pipeline time. Calls are never held back.
    """

    def __init__(self, max_pending: int = 256, min_interval_s: float = 0.0):
        self._cond = threading.Condition()
        self._queue: deque[bytes] = deque()
        self._latest: dict[str, bytes] = {}
        self._max = max_pending
        self._min_interval_s = min_interval_s
        self._last_s = -math.inf  # monotonic time of the last delivery
        self.closed = False
        self.lost = False  # closed because it fell too far behind

    def offer(self, kind: str, message: bytes, *, coalesce: bool, supersedes: tuple = ()) -> None:
        """Hand over a message without waiting; drop coalesced kinds this one supersedes."""
        with self._cond:
            if self.closed:
                return
            for old in supersedes:
                self._latest.pop(old, None)
            # A reader already waiting out the interval for a coalesced message needs no wake-up.
            wake = not coalesce or not self._latest
            if coalesce:
                self._latest[kind] = message
            elif len(self._queue) >= self._max:
                self.closed = self.lost = True
            else:
                self._queue.append(message)
            if wake or self.closed:
                self._cond.notify()

    def take(self, timeout_s: float) -> list[bytes] | None:
        """Wait up to ``timeout_s`` and return what is pending ([] on time-out, None if closed)."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while not self.closed and not self._queue:
                now = time.monotonic()
                due = self._last_s + self._min_interval_s
                if self._latest and now >= due:
                    break
                until = min(deadline, due) if self._latest else deadline
                if now >= until:
                    break
                self._cond.wait(until - now)
            if self.closed:
                return None
            items = [*self._queue, *self._latest.values()]
            self._queue.clear()
            self._latest.clear()
            if items:
                self._last_s = time.monotonic()
            return items

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify()


class MatchHub:
    """The live match: state, match log writes and event fan-out. Thread-safe.

    Args:
        log: the match log; the hub resumes its newest match.
        output_dir: folder the pipeline writes evidence pictures into (None: no evidence).
        max_pending: ordered messages a subscriber may fall behind before it is dropped.
        max_rate_hz: most deliveries of frames and scoreboard per subscriber and second.
        clock_log_interval_s: how much match time may pass between clock rows in the log
            (a status or half change is always logged at once).
    """

    def __init__(
        self,
        log: MatchLog,
        *,
        output_dir: str | Path | None = None,
        max_pending: int = 256,
        max_rate_hz: float = 30.0,
        clock_log_interval_s: float = 5.0,
    ):
        self.log = log
        self.output_dir = Path(output_dir) if output_dir is not None else None
        self._max_pending = max_pending
        self._min_interval_s = 1.0 / max_rate_hz
        self._clock_interval_s = clock_log_interval_s
        self._lock = threading.RLock()
        self._state: MatchState = log.resume()
        self._logged_clock = self._state.clock
        self._frame: Mapping[str, Any] | None = None
        self._source = {"ok": True, "message": ""}
        self._subs: set[Subscription] = set()
        self._listeners: list[ControlListener] = []

    # ------------------------------------------------------------------ pipeline side
    def push_frame(self, record: Mapping[str, Any]) -> None:
        """The newest ``tracks.jsonl`` record: shown on the radar, not logged."""
        message = sse_message("frame", record)
        with self._lock:
            self._frame = record
            self._fan_out("frame", message, coalesce=True)

    def push_call(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """A new ``calls.jsonl`` record: logged, then sent to every page. Returns its JSON."""
        with self._lock:
            call_id = self.log.add_call(self._state.match_id, record)
            calls = (*self._state.calls, CallEntry(call_id, dict(record)))
            self._state = replace(self._state, calls=calls)
            data = self._call_json(calls[-1])
            self._fan_out("call", sse_message("call", data), coalesce=False)
        return data

    def push_clock(self, clock_s: float, half: int, status: str) -> None:
        """The rules' match clock. While the referee holds the match, its status stays put."""
        with self._lock:
            if self._state.clock.status in REFEREE_HELD:
                status = self._state.clock.status
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
            self._send_scoreboard()

    def push_score(self, home: int, away: int) -> None:
        """The rules' count of goals (the referee's overrules are applied on top)."""
        with self._lock:
            if (home, away) == self._state.machine_score:
                return
            self.log.set_score(self._state.match_id, home, away)
            self._state = replace(self._state, machine_score=(int(home), int(away)))
            self._send_scoreboard()

    def set_source(self, ok: bool, message: str = "") -> None:
        """Whether frames are arriving (the camera may have dropped out and be reopening)."""
        with self._lock:
            self._source = {"ok": bool(ok), "message": message}
            self._send_scoreboard()

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
            self._fan_out("state", sse_message("state", snapshot), supersedes=("scoreboard",))
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
        sub = Subscription(self._max_pending, self._min_interval_s)
        with self._lock:
            sub.offer("state", sse_message("state", self.snapshot()), coalesce=False)
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        sub.close()
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    def close(self) -> None:
        """End every event stream (on shutdown)."""
        with self._lock:
            subs, self._subs = self._subs, set()
        for sub in subs:
            sub.close()

    # ------------------------------------------------------------------ internals
    def _fan_out(self, kind: str, message: bytes, *, coalesce: bool = False, supersedes=()):
        for sub in tuple(self._subs):
            sub.offer(kind, message, coalesce=coalesce, supersedes=supersedes)
            if sub.closed:
                self._subs.discard(sub)

    def _scoreboard(self) -> dict[str, Any]:
        state = self._state
        return {
            "clock": state.clock.to_json(),
            "added_time_s": state.added_time_s,
            "score": _score(state.score),
            "source": dict(self._source),
        }

    def _send_scoreboard(self) -> None:
        self._fan_out("scoreboard", sse_message("scoreboard", self._scoreboard()), coalesce=True)

    def _call_json(self, entry: CallEntry) -> dict[str, Any]:
        data = entry.to_json()
        data["evidence_rel"] = evidence_relpath(entry.record.get("evidence"), self.output_dir)
        return data


def _score(pair: tuple[int, int]) -> dict[str, int]:
    return {"home": int(pair[0]), "away": int(pair[1])}
