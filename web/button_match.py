"""The live match of button football: ``rules.button_football.step`` fed by the frames, the
players' shot calls and the referee's hold, kept in the match log as FISTF's is (``web.match``).

The interface is ``web.match.LiveMatch``'s, so the hub, the pages and the controls serve either
game. What differs:

- the reducer's state has no referee hold: the match waits for the referee's start, and a pause
  holds it, *here*: a held match's frames do not reach the rules (the clock stands, nothing is
  called; the first frame after a hold is a gap the clock does not count, ``rules.clock``);
- a shot call (the page's buttons, the keyboard, the push button at the table) is an input of
  the reducer (``ShotCall``), dated at the newest frame: the rules accept it only where the ball
  lay on it, wholly in the caller's attacking half, and on the caller's turn
  (``BF Angesagte Schüsse``);
- the referee's word on a call (overrule, uphold, added time) is not part of the button
  rules: those actions are refused by name, and the page offers only ``ACTIONS``.

The snapshot is the reducer's state without its config (the pitch is the calibration's), with
the hold, the team names and the newest frame beside it; only the reducer's own plain-data
classes are rebuilt from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from rules.button_football import step
from rules.button_state import (
    LAWS,
    ButtonConfig,
    ButtonState,
    Restart,
    SetPiece,
    ShootOut,
    ShotCall,
    Toucher,
)
from rules.calls import Call
from rules.clock import Clock
from rules.observation import Observation, team_code, team_name
from rules.pitch import Pitch
from rules.snapshot_codec import decode, encode
from web.match import CallEntry, MatchCalls, call_record, clock_view
from web.matchlog import MatchLogError

SCHEMA_VERSION = 1
GAME = "button-football"
ACTIONS = ("start", "pause", "resume", "end", "team_names", "shot_call", "reset")
FIRST_MATCH = {"start": "open_play"}
NEW_MATCH = {"start": "kick_off"}
_CLASSES = {c.__name__: c for c in (Clock, Restart, Toucher, SetPiece, ShootOut)}


def state_to_json(state: ButtonState) -> dict[str, Any]:
    """The reducer's state without its config, JSON-ready (floats survive exactly)."""
    return {
        f.name: encode(getattr(state, f.name), _CLASSES)
        for f in fields(state)
        if f.name != "config"
    }


def state_from_json(data: Mapping[str, Any], config: ButtonConfig) -> ButtonState:
    """The state ``state_to_json`` wrote, under ``config``.

    Raises:
        MatchLogError: data that is not a button-football state.
    """
    try:
        return ButtonState(config=config, **{k: decode(v, _CLASSES) for k, v in data.items()})
    except (TypeError, ValueError) as exc:
        raise MatchLogError(f"not a button-football match snapshot: {exc}") from exc


class ButtonLiveMatch(MatchCalls):
    """The current button-football match of ``log``; see the module docstring.

    Args:
        log: the match log; the newest match is resumed from its newest snapshot.
        pitch: the pitch the rules judge on (the nominal one until calibrated).
    """

    game = GAME
    actions = ACTIONS
    first_match = FIRST_MATCH

    def _load(self, match_id: int) -> None:
        self.info = info = self.log.match(match_id)
        start = {**FIRST_MATCH, **info.settings}["start"]
        self._config = ButtonConfig(self._pitch, start=start)
        snap = self.log.snapshot(match_id)
        self.state = ButtonState.new(self._config)
        self.hold: str | None = "not_started"
        self.names = ("Home", "Away")
        self._frame: int | None = None
        if snap is not None:
            data = snap.state
            if not isinstance(data, Mapping) or data.get("schema_version") != SCHEMA_VERSION:
                raise MatchLogError(f"match {match_id}: not a button-football snapshot")
            self.state = state_from_json(data["state"], self._config)
            self.hold, self.names = data["hold"], tuple(data["names"])
            self._frame = data["frame"]
        self.calls = [
            CallEntry(int(e.call_id), dict(e.payload))
            for e in self.log.events(match_id)
            if e.kind == "call"
        ]
        if snap is None:
            self._log(None, None, [])

    def use_pitch(self, pitch: Pitch) -> None:
        """Judge on ``pitch`` from now on (a new calibration's measured line edges)."""
        self._pitch = pitch
        self._config = replace(self._config, pitch=pitch)
        self.state = replace(self.state, config=self._config)

    # ------------------------------------------------------------------ inputs
    def observe(self, obs: Observation) -> list[Call]:
        """One frame through the rules (not while the referee holds the match)."""
        self._frame = obs.frame
        if self.hold is not None:
            return []
        self.state, calls = step(self.state, obs)
        self._log(obs.frame, obs.t_s, [("call", c.id, call_record(c)) for c in calls])
        self.calls += [CallEntry(c.id, call_record(c)) for c in calls]
        return calls

    def act(self, kind: str, payload: Mapping[str, Any]) -> list[Call]:
        """A referee or player action (``ACTIONS``); returns the calls it made.

        Raises:
            ValueError: an action the button-football rules do not know, or one that does not
                fit the match now (the message says why); nothing is logged then.
        """
        if kind not in ACTIONS:
            raise MatchLogError(
                f"{kind!r} is not an action of button football; its actions: {', '.join(ACTIONS)}"
            )
        if kind == "reset":
            self._log(self._frame, self.state.clock.last_t_s, [("reset", None, {})])
            self._load(
                self.log.new_match(
                    self.info.table, self.info.clock_mode, NEW_MATCH, game=self.info.game
                )
            )
            return []
        calls: list[Call] = []
        if kind == "shot_call":
            calls = self._shot_call(payload.get("team"))
        elif kind == "team_names":
            names = payload.get("names") or ()
            if len(names) != 2 or not all(isinstance(n, str) and n.strip() for n in names):
                raise MatchLogError("team names: give two non-empty names")
            self.names = (names[0].strip(), names[1].strip())
        else:
            calls = self._hold(kind)
        clean = {k: v for k, v in payload.items() if k != "call_id"}
        events = [(kind, None, clean), *(("call", c.id, call_record(c)) for c in calls)]
        self._log(self._frame, self.state.clock.last_t_s, events)
        self.calls += [CallEntry(c.id, call_record(c)) for c in calls]
        return calls

    def _hold(self, kind: str) -> list[Call]:
        if self.state.finished:
            raise MatchLogError(f"the match is over: cannot {kind} it; reset for a new match")
        wanted = {"start": "not_started", "pause": None, "resume": "paused", "end": self.hold}
        if self.hold != wanted[kind]:
            now = {None: "running", "paused": "paused", "not_started": "not started"}[self.hold]
            raise MatchLogError(f"cannot {kind}: the match is {now}")
        if kind == "pause":
            self.hold = "paused"
            return []
        self.hold = None
        if kind != "end":
            return []
        self.state = replace(self.state, finished=True, restart=None, shoot_out=None)
        home, away = self.state.score
        n = self.state.calls_made + 1
        call = Call(
            self._frame if self._frame is not None else -1,
            self.state.clock.last_t_s or 0.0,
            "full_time",
            LAWS["game"],
            note=f"{home}:{away} · ended by the referee",
            id=n,
        )
        self.state = replace(self.state, calls_made=n)
        return [call]

    def _shot_call(self, team: Any) -> list[Call]:
        """A shot call of ``team`` (None: the team on turn, as the one push button calls)."""
        s = self.state
        if team is None:
            team = s.turn if s.restart is None else s.restart.team
            if team is None:
                raise MatchLogError("whose shot? the turn is not known yet: call it from the page")
        elif team in ("home", "away"):
            team = team_code(team)
        else:
            raise MatchLogError(f"shot call: team {team!r}; expected 'home' or 'away'")
        if self.hold is not None:
            raise MatchLogError("the match is held: start or resume it before calling a shot")
        frame = self._frame if self._frame is not None else -1
        self.state, calls = step(s, ShotCall(int(team), frame, s.clock.last_t_s or 0.0))
        return calls

    def _log(self, frame: int | None, t_s: float | None, events: list) -> list[int]:
        frame = frame if frame is not None and frame >= 0 else None
        snap = {
            "schema_version": SCHEMA_VERSION,
            "game": GAME,
            "state": state_to_json(self.state),
            "hold": self.hold,
            "names": list(self.names),
            "frame": self._frame,
        }
        return self.log.record(self.match_id, snap, frame, t_s, events)

    # ------------------------------------------------------------------ readers
    def view(self, source_ok: bool = True) -> dict[str, Any]:
        """The scoreboard (JSON-ready), with the turn, the shot called and the restart: its
        spot, and the buttons moved for it against each team's allowance."""
        s = self.state
        turn = s.turn if s.restart is None else s.restart.team
        return {
            "clock": clock_view(s.clock, s.finished, self.hold, source_ok),
            "added_time_s": 0.0,
            "score": {"home": s.score[0], "away": s.score[1]},
            "teams": {"home": self.names[0], "away": self.names[1]},
            "possession": None if turn is None else team_name(turn),
            "restart": None if s.restart is None else _restart_view(s),
            "awaiting_referee": None,
            "game": GAME,
            "actions": list(ACTIONS),
            "turn": {
                "team": None if turn is None else team_name(turn),
                "contacts": s.contacts if s.restart is None else 0,
                "per_turn": s.config.contacts_per_turn,
            },
            "shot_called": None if s.called is None else team_name(s.called),
            "shot_under_way": None if s.shot is None else team_name(s.shot[0]),
        }


def _restart_view(s: ButtonState) -> dict[str, Any]:
    """A restart as the page shows it: kind, team, law, spot, moves against the allowance."""
    r = s.restart
    assert r is not None
    team_of = {fid: team for fid, team, _, _ in s.placed}
    moved = [0, 0]
    for fid, _ in s.moved:
        if fid in team_of:
            moved[team_of[fid]] += 1
    return {
        "kind": r.kind,
        "team": None if r.team is None else team_name(r.team),
        "law": r.law,
        "call_id": None,
        "spot": {"x_mm": r.xy_mm[0], "y_mm": r.xy_mm[1]},
        "moves": {team_name(t): {"moved": moved[t], "allowed": r.allowance[t]} for t in (0, 1)},
    }


__all__ = ["ACTIONS", "ButtonLiveMatch", "state_from_json", "state_to_json"]
