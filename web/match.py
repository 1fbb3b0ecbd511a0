"""The live match: the rules' reducer state, fed by frames and by the referee, kept in the log.

``LiveMatch`` is the one place the match changes. Each observation goes through
``rules.fistf.step`` and each referee action through ``rules.referee.apply``, to the same
state; the calls they emit and the actions are logged as events, and the state after them as a
snapshot (``web.matchlog``), before anything reaches a page. The page's scoreboard is read from
that state (``view``): the web keeps no clock, score or match state of its own.

A new log starts a match the way a camera opened on a table finds it, in open play, waiting for
the referee's start; a new match (``reset``) waits for the start and then for its kick-off
(FISTF 4.1). Not thread-safe: the hub holds its lock around every call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.calls import Call
from rules.clock import Clock
from rules.fistf import MatchConfig, MatchState, step
from rules.fistf_codec import StateEncoder, state_from_json
from rules.observation import Observation, team_name
from rules.pitch import Pitch
from rules.referee import (
    ACTIONS,
    CALL_ACTIONS,
    RefereeAction,
    RefereeError,
    apply,
    awaiting_decision,
)
from web.matchlog import UNDOABLE, Event, MatchLog, MatchLogError

FIRST_MATCH = {"start": "open_play", "referee_start": True}
NEW_MATCH = {"start": "kick_off", "referee_start": True}
INVERSE = {"overrule": "reinstate", "reinstate": "overrule", "added_time": "added_time"}


@dataclass(frozen=True, slots=True)
class CallEntry:
    """One call as logged: its id (its number in the match), its record and the referee's word.

    ``status`` is ``standing``, ``overruled``, ``upheld`` or ``rejected`` (a too-close call the
    referee settled); ``reason`` is the referee's note on an overrule.
    """

    id: int
    record: Mapping[str, Any]
    status: str = "standing"
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {**self.record, "id": self.id, "status": self.status, "reason": self.reason}


def clock_view(clock: Clock, finished: bool, hold: str | None, source_ok: bool) -> dict[str, Any]:
    """The page's clock (JSON-ready): its time, half and status; ``hold`` names a referee's
    hold (it shows as the status), ``source_ok`` False: no frames come, so the clock stands."""
    if finished:
        status = "ended"
    elif hold is not None:
        status = hold
    elif not source_ok:
        status = "stopped"  # no frames: the rules' clock cannot run
    elif clock.period > 1 and not clock.started:
        status = "half_time"
    else:
        status = "running" if clock.last_running else "stopped"
    return {"clock_s": clock.elapsed_s, "half": clock.period, "status": status}


def call_record(call: Call) -> dict[str, Any]:
    """A call as the log keeps it: its ``calls.jsonl`` record, its id, and what
    ``Call.from_record`` needs besides (too close to call, the note)."""
    return {
        **call.to_record(),
        "id": call.id,
        "too_close_to_call": call.too_close_to_call,
        "note": call.note,
    }


class MatchCalls:
    """What both games' live matches do alike: open the log's newest match (or its first), and
    keep, name and read its calls. The game's own class loads a match (``_load``: ``info``, the
    log's match, and ``calls``, ``CallEntry`` in order), and may add the referee's word on a
    call (``_with_status``) and the calls waiting for it."""

    first_match: dict[str, Any]  # the settings of a new log's first match
    info: Any
    calls: list[CallEntry]

    def __init__(self, log: MatchLog, pitch: Pitch):
        self.log = log
        self._pitch = pitch
        match_id = log.current_match()
        if match_id is None:
            match_id = log.new_match(settings=self.first_match)
        self._load(match_id)

    def _load(self, match_id: int) -> None:
        raise NotImplementedError

    @property
    def match_id(self) -> int:
        return self.info.id

    @property
    def awaiting_calls(self) -> frozenset[int]:
        """The calls the referee may uphold or reject now: none unless the game's rules say."""
        return frozenset()

    def set_media(self, call_id: int, evidence: str | None, replay: str | None) -> None:
        """Name a call's evidence picture and replay clip (drawn after the call was logged)."""
        for i, entry in enumerate(self.calls):
            if entry.id == call_id:
                media = {"evidence": evidence, **({"replay": replay} if replay else {})}
                self.calls[i] = CallEntry(entry.id, {**entry.record, **media})

    def call(self, call_id: int) -> CallEntry:
        for entry in self.calls:
            if entry.id == call_id:
                return self._with_status(entry)
        raise MatchLogError(f"no call {call_id} in match {self.match_id}")

    def call_entries(self) -> list[CallEntry]:
        """Every call of the match, in order, with the referee's word on it."""
        return [self._with_status(entry) for entry in self.calls]

    def _with_status(self, entry: CallEntry) -> CallEntry:
        return entry


class LiveMatch(MatchCalls):
    """The current FISTF match of ``log``; see the module docstring.

    Args:
        log: the match log; the newest match is resumed from its newest snapshot.
        pitch: the pitch the rules judge on (the nominal one until calibrated).
    """

    def _load(self, match_id: int) -> None:
        self.info = info = self.log.match(match_id)
        settings = {**FIRST_MATCH, **info.settings}
        config = MatchConfig(
            self._pitch,
            clock_mode=info.clock_mode,  # type: ignore[arg-type]
            start=settings["start"],
            referee_start=bool(settings["referee_start"]),
        )
        snap = self.log.snapshot(match_id)
        self.state = MatchState.new(config) if snap is None else state_from_json(snap.state, config)
        self._encode = StateEncoder()
        self.calls: list[CallEntry] = []
        self._reasons: dict[int, str | None] = {}
        self._settled: dict[int, str] = {}
        for event in self.log.events(match_id):
            if event.kind == "call":
                self.calls.append(CallEntry(int(event.call_id), dict(event.payload)))
            self._note(event)
        if snap is None:  # the match's first state is in the log before its first frame
            self.log.record(match_id, self._encode(self.state), None, None)

    game = "fistf"
    actions = (*ACTIONS, "reset", "undo")
    first_match = FIRST_MATCH

    @property
    def hold(self) -> str | None:
        """The referee's hold (``not_started``, ``paused``) or None."""
        return self.state.hold

    def use_pitch(self, pitch: Pitch) -> None:
        """Judge on ``pitch`` from now on (a new calibration's measured line edges)."""
        self._pitch = pitch
        self.state = replace(self.state, config=replace(self.state.config, pitch=pitch))

    # ------------------------------------------------------------------ inputs
    def observe(self, obs: Observation) -> list[Call]:
        """One frame through the rules; the calls and the state are logged before returning."""
        self.state, calls = step(self.state, obs)
        self._log(obs.frame, obs.t_s, [("call", c.id, call_record(c)) for c in calls])
        self.calls += [CallEntry(c.id, call_record(c)) for c in calls]
        return calls

    def act(self, kind: str, payload: Mapping[str, Any]) -> list[Call]:
        """A referee action (``rules.referee.ACTIONS``, ``reset`` or ``undo``); returns the
        calls it made.

        Raises:
            ValueError: an unknown action or call, or one that does not fit the match (the
                message says why); nothing is logged then.
        """
        if kind == "reset":
            self._log(self.state.ball.frame, self.state.clock.last_t_s, [("reset", None, {})])
            self._load(
                self.log.new_match(
                    self.info.table, self.info.clock_mode, NEW_MATCH, game=self.info.game
                )
            )
            return []
        if kind == "undo":
            target = self._undoable()
            if target is None:
                raise MatchLogError("nothing to undo: no overrule, reinstate or added time stands")
            inverse = dict(target.payload)
            if target.kind == "added_time":
                inverse["seconds"] = -float(inverse["seconds"])
            calls = self._apply(INVERSE[target.kind], inverse, target.call_id)
            self._add("undo", target.call_id, {"undid": target.id}, calls)
            return calls
        if kind not in ACTIONS:
            raise MatchLogError(f"unknown action {kind!r}; expected one of {ACTIONS}")
        call_id = payload.get("call_id")
        calls = self._apply(kind, payload, None if call_id is None else int(call_id))
        clean = {k: v for k, v in payload.items() if k != "call_id"}
        self._add(kind, None if call_id is None else int(call_id), clean, calls)
        return calls

    def _apply(self, kind: str, payload: Mapping[str, Any], call_id: int | None) -> list[Call]:
        call = None
        if kind in CALL_ACTIONS:
            if call_id is None:
                raise RefereeError(f"{kind} needs a call_id")
            call = Call.from_record(self.call(call_id).record)
        names = payload.get("names")
        action = RefereeAction(
            kind,
            call=call,
            seconds=float(payload.get("seconds", 0.0)),
            names=None if names is None else tuple(names),
        )
        self.state, calls = apply(self.state, action)
        return calls

    def _add(self, kind: str, call_id: int | None, payload: dict, calls: list[Call]) -> None:
        events = [(kind, call_id, payload), *(("call", c.id, call_record(c)) for c in calls)]
        ids = self._log(self.state.ball.frame, self.state.clock.last_t_s, events)
        self.calls += [CallEntry(c.id, call_record(c)) for c in calls]
        self._note(Event(ids[0], kind, call_id, None, None, payload, 0.0))

    def _log(self, frame: int | None, t_s: float | None, events: list) -> list[int]:
        frame = frame if frame is not None and frame >= 0 else None
        return self.log.record(self.match_id, self._encode(self.state), frame, t_s, events)

    def _note(self, event: Event) -> None:
        if event.kind == "overrule":
            self._reasons[int(event.call_id)] = event.payload.get("reason")
        elif event.kind in ("uphold", "reject"):
            self._settled[int(event.call_id)] = "upheld" if event.kind == "uphold" else "rejected"

    def _undoable(self) -> Event | None:
        events = self.log.events(self.match_id)
        undone = {int(e.payload["undid"]) for e in events if e.kind == "undo"}
        for event in reversed(events):
            if event.kind in UNDOABLE and event.id not in undone:
                return event
        return None

    # ------------------------------------------------------------------ readers
    @property
    def awaiting_calls(self) -> frozenset[int]:
        """The calls the referee may uphold or reject now, as the rules say
        (``rules.referee.awaiting_decision``: a too-close goal, 7.1; a too-close offside play
        went on from, 13.1)."""
        return awaiting_decision(self.state)

    def _with_status(self, entry: CallEntry) -> CallEntry:
        if entry.id in self.state.overruled:
            return replace(entry, status="overruled", reason=self._reasons.get(entry.id))
        if entry.id in self._settled:
            return replace(entry, status=self._settled[entry.id])
        return entry

    def view(self, source_ok: bool = True) -> dict[str, Any]:
        """The scoreboard as the rules' state has it (JSON-ready)."""
        s = self.state
        restart = s.restart
        waiting = restart is not None and restart.kind == "referee"
        return {
            "clock": clock_view(s.clock, s.finished, s.hold, source_ok),
            "added_time_s": s.clock.added_s,
            "score": {"home": s.score[0], "away": s.score[1]},
            "teams": {"home": s.team_names[0], "away": s.team_names[1]},
            "possession": None if s.possession is None else team_name(s.possession),
            "restart": None
            if restart is None
            else {
                "kind": restart.kind,
                "team": None if restart.team is None else team_name(restart.team),
                "law": restart.law,
                "call_id": s.restart_call,
            },
            "awaiting_referee": s.restart_call if waiting else None,
        }
