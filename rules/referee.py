"""The referee's word as an input of the FISTF reducer: ``apply(state, action) -> (state, calls)``.

Beside each frame the camera sees (``rules.fistf.step``) the match changes by what the referee
does; both go through the one reducer, so the score, the clock and the restarts are the rules'
alone and a match log of the two replays to the same state. An action takes effect between the
last observation and the next one. The kinds (``ACTIONS``):

- ``start`` / ``resume``: release the hold (``MatchState.hold``: the match not yet started, or
  paused); from the next frame the clock may run and the rules judge again.
- ``pause``: hold the match, an interruption (FISTF 3.2): the clock stands in both clock modes
  and nothing is judged until it resumes; the ball is still followed.
- ``added_time`` (``seconds``): lost time added to this period (FISTF 3.2); a negative amount
  corrects an earlier addition.
- ``overrule`` (``call``): the call does not stand. A goal is taken off, and while its
  kick-off is still pending the defenders take a goal kick instead (FISTF 7.2.1: a goal not
  scored as 7.1 says gives a goal kick); a disallowed goal counts (7.1) and the team that
  conceded kicks off (4.1); any other call's pending restart is withdrawn and play goes on from
  where the ball lies.
- ``reinstate`` (``call``): an overruled call stands again, with its score and, while the
  restart the overrule gave is still pending, its own restart.
- ``uphold`` / ``reject`` (``call``): settle a too-close-to-call goal the rules left to the
  referee (``rules.fistf.referee_decision``): a goal upheld counts and the other team kicks off
  (FISTF 7.1, 4.1); rejected, a goal kick (7.2.1) or, for a hidden ball not over, play on.
  Or settle a too-close offside (13.1), on which play went on (``MatchState.open_offsides``,
  until the ball is next dead): upheld, play stops and the defending team takes a free kick
  from where the offside figure stood (13.1: "Freistoß von dort, wo die Spielfigur gegen die
  Abseitsregel verstoßen hat"); rejected, play goes on.
- ``half_time`` / ``second_half``: the referee ends the first half now (FISTF 3.1); the second
  half then begins with the kick-off of the team that did not kick off first (4.1).
- ``end``: full time now (FISTF 3.1).
- ``team_names`` (``names``): what the page calls home and away.

A new match (``reset``) is no action on a match: the shell starts a new state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules import clock as clk
from rules.calls import Call
from rules.fistf import number_calls, referee_decision
from rules.fistf_state import MatchState, Restart
from rules.geometry import other_end
from rules.observation import other_team

ACTIONS = (
    "start",
    "resume",
    "pause",
    "added_time",
    "overrule",
    "reinstate",
    "uphold",
    "reject",
    "half_time",
    "second_half",
    "end",
    "team_names",
)
CALL_ACTIONS = ("overrule", "reinstate", "uphold", "reject")
PERIOD_CALLS = ("half_time", "full_time")
MAX_NAME_CHARS = 40

__all__ = [
    "ACTIONS",
    "CALL_ACTIONS",
    "RefereeAction",
    "RefereeError",
    "apply",
    "awaiting_decision",
]


class RefereeError(ValueError):
    """A referee action that cannot apply to the match as it stands (the message says why)."""


@dataclass(frozen=True, slots=True)
class RefereeAction:
    """One thing the referee does.

    Attributes:
        kind: one of ``ACTIONS``.
        call: the call it concerns (``CALL_ACTIONS``), as the reducer emitted it.
        seconds: added time (``added_time``), s.
        names: ``(home, away)`` (``team_names``).
    """

    kind: str
    call: Call | None = None
    seconds: float = 0.0
    names: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ACTIONS:
            raise RefereeError(f"unknown referee action {self.kind!r}; expected one of {ACTIONS}")
        if self.kind in CALL_ACTIONS and self.call is None:
            raise RefereeError(f"{self.kind} needs the call it concerns")
        if self.kind == "team_names":
            names = self.names or ()
            if len(names) != 2 or not all(
                isinstance(n, str) and 0 < len(n.strip()) <= MAX_NAME_CHARS for n in names
            ):
                raise RefereeError(
                    f"team names must be two texts of 1-{MAX_NAME_CHARS} characters, got {names!r}"
                )


def apply(state: MatchState, action: RefereeAction) -> tuple[MatchState, list[Call]]:
    """Apply the referee's ``action``; return the new state and the calls it made (numbered).

    Raises:
        RefereeError: the action does not fit the match (a call overruled twice, a decision on
            a call that waits for none, a pause after full time, ...).
    """
    kind = action.kind
    if kind in ("start", "resume"):
        return _hold(state, None), []
    if kind == "pause":
        if state.finished:
            raise RefereeError("the match has ended: there is nothing to pause")
        return _hold(state, "paused"), []
    if kind == "added_time":
        try:
            return replace(state, clock=clk.add_time(state.clock, action.seconds)), []
        except ValueError as exc:
            raise RefereeError(str(exc)) from exc
    if kind == "team_names":
        assert action.names is not None
        home, away = (n.strip() for n in action.names)
        return replace(state, team_names=(home, away)), []
    if kind in ("half_time", "second_half"):
        return _half_time(state)
    if kind == "end":
        return _end(state)
    call = action.call
    assert call is not None
    if not 0 < call.id <= state.calls_made:
        raise RefereeError(f"no call {call.id} in this match")
    if kind == "overrule":
        return _overrule(state, call), []
    if kind == "reinstate":
        return _reinstate(state, call), []
    return _decide(state, call, kind == "uphold")


def _hold(state: MatchState, hold: str | None) -> MatchState:
    return replace(state, hold=hold, clock=clk.hold(state.clock, hold is not None))


def awaiting_decision(state: MatchState) -> frozenset[int]:
    """The ids of the calls the referee may uphold or reject now: a too-close goal the match
    waits for, and the too-close offsides play went on from."""
    restart = state.restart
    waiting = restart is not None and restart.kind == "referee" and restart.end is not None
    if waiting and state.restart_call is not None:
        return state.open_offsides | {state.restart_call}
    return state.open_offsides


def _decide(state: MatchState, call: Call, upheld: bool) -> tuple[MatchState, list[Call]]:
    if call.kind == "offside":
        return _decide_offside(state, call, upheld)
    restart = state.restart
    waiting = restart is not None and restart.kind == "referee" and restart.end is not None
    if not (waiting and state.restart_call == call.id and call.too_close_to_call):
        raise RefereeError(f"call {call.id} does not wait for the referee's decision")
    before = state.restart
    state, calls = referee_decision(state, call, upheld)
    return number_calls(state, calls, before)


def _decide_offside(state: MatchState, call: Call, upheld: bool) -> tuple[MatchState, list[Call]]:
    """FISTF 13.1 settled by the referee: upheld, a free kick to the defending team (the
    call's team) from where the offside figure stood; rejected, play goes on."""
    if call.id not in state.open_offsides or not call.too_close_to_call:
        raise RefereeError(f"call {call.id} does not wait for the referee's decision")
    if not upheld:
        return replace(state, open_offsides=state.open_offsides - {call.id}), []
    assert call.team is not None and call.position is not None  # as _judge_offside makes it
    restart = Restart("free_kick", call.team, call.position, "FISTF 13.1")
    given = replace(call, too_close_to_call=False, note="given by the referee")
    before = state.restart
    new = replace(
        state.ball_dead(), restart=restart, possession=call.team, open_offsides=frozenset()
    )
    return number_calls(new, [given], before)


def _overrule(state: MatchState, call: Call) -> MatchState:
    if call.id in state.overruled:
        raise RefereeError(f"call {call.id} is already overruled")
    if call.kind in PERIOD_CALLS:
        raise RefereeError(f"a {call.kind} call is not overruled: the referee ends periods")
    if call.too_close_to_call:  # settled by the referee's decision, which may be overruled
        raise RefereeError(f"call {call.id} is too close to call: uphold or reject it")
    restart = state.restart
    pending = restart is not None and state.restart_call == call.id
    state = replace(state, overruled=state.overruled | {call.id})
    scorer = _scorer(call)
    if scorer is not None:
        state = _add_goal(state, scorer, -1 if call.kind == "goal" else 1)
        if not pending:
            return state
        if call.kind == "goal":  # FISTF 7.2.1: a goal not given is a goal kick
            defender = other_team(scorer)
            end = _end_of(call) or state.defended_end(defender)
            return replace(state, restart=_goal_kick(state, end, defender), possession=defender)
        defender = other_team(scorer)
        kick_off = Restart("kick_off", defender, (0.0, 0.0), "FISTF 4.1")
        return replace(state, restart=kick_off, possession=defender)
    if pending:  # the referee says play goes on: the ball is in play where it lies
        return replace(state.ball_dead(), restart=None, restart_call=None)
    return state


def _reinstate(state: MatchState, call: Call) -> MatchState:
    if call.id not in state.overruled:
        raise RefereeError(f"call {call.id} is not overruled")
    state = replace(state, overruled=state.overruled - {call.id})
    scorer = _scorer(call)
    if scorer is not None:
        state = _add_goal(state, scorer, 1 if call.kind == "goal" else -1)
    # The overrule's restart still pending (or, for a withdrawn one, no play since): the
    # call's own restart comes back.
    same_play = state.restart_call == call.id or (
        state.restart is None and state.last_touch is None and state.calls_made == call.id
    )
    if not same_play or call.restart is None:
        return state
    if call.kind == "goal" and scorer is not None:  # the team that conceded kicks off (4.1)
        restart = Restart("kick_off", other_team(scorer), (0.0, 0.0), "FISTF 4.1")
    else:
        end = _end_of(call)
        restart = Restart(call.restart, call.team, call.position or (0.0, 0.0), call.law, end)
    return replace(
        state.ball_dead(), restart=restart, restart_call=call.id, possession=restart.team
    )


def _half_time(state: MatchState) -> tuple[MatchState, list[Call]]:
    clock, cfg = state.clock, state.config
    if clock.period != 1 or state.finished:
        raise RefereeError("half-time ends the first half: the match is past it")
    kicker = other_team(state.first_kick_off) if state.first_kick_off is not None else None
    frame, t_s = state.ball.frame, clock.last_t_s or 0.0
    call = Call(
        frame, t_s, "half_time", "FISTF 3.1", team=kicker, restart="kick_off", position=(0.0, 0.0)
    )
    added = cfg.added_time_s if cfg.clock_mode == "running" else 0.0
    new = replace(
        state.ball_dead(),
        clock=clk.next_period(clock, cfg.half_length_s, added),
        home_end=other_end(state.home_end) if cfg.swap_ends else state.home_end,
        restart=Restart("kick_off", kicker, (0.0, 0.0), "FISTF 4.1"),
        possession=kicker,
    )
    return number_calls(new, [call], state.restart)


def _end(state: MatchState) -> tuple[MatchState, list[Call]]:
    if state.finished:
        raise RefereeError("the match has already ended")
    home, away = state.score
    frame, t_s = state.ball.frame, state.clock.last_t_s or 0.0
    call = Call(frame, t_s, "full_time", "FISTF 3.1", note=f"{home}:{away}, by the referee")
    new = replace(state.ball_dead(), finished=True, restart=None)
    return number_calls(new, [call], state.restart)


def _add_goal(state: MatchState, team: int, delta: int) -> MatchState:
    score = list(state.score)
    score[team] = max(score[team] + delta, 0)
    return replace(state, score=(score[0], score[1]))


def _scorer(call: Call) -> int | None:
    """The team a goal call gives the goal to, or would have: the scorer of a goal; for a
    disallowed goal the other team than the one awarded the goal kick, but the team awarded the
    corner for a direct own goal (FISTF 7.3.1). None for other calls."""
    if call.team is None or call.kind not in ("goal", "goal_disallowed"):
        return None
    if call.kind == "goal" or call.restart == "corner":
        return call.team
    return other_team(call.team)


def _end_of(call: Call) -> str | None:
    """The goal a call at a goal concerns, from the side of the pitch it happened on."""
    if call.position is None or call.position[0] == 0:
        return None
    return "right" if call.position[0] > 0 else "left"


def _goal_kick(state: MatchState, end: str, team: int) -> Restart:
    p = state.pitch.profile
    sx = -1.0 if end == "left" else 1.0
    spot = (sx * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm), 0.0)
    return Restart("goal_kick", team, spot, "FISTF 7.2", end)
