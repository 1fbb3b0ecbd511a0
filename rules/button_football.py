"""Button football as a pure reducer: ``step(state, input) -> (state, calls)``.

The text is ``button-football-rules.de.txt``; each call names its section (``LAWS``). An input
is an ``Observation`` (one frame) or a ``ShotCall`` (a team called its shot). Usage::

    state = ButtonState.new(ButtonConfig(pitch, start="kick_off", first_kick_off=HOME))
    for item in inputs:
        state, calls = step(state, item)

Each frame is judged in this order (when several rules can fire on one frame):

1. **Clock** (BF Das Spiel): it runs only while the ball rolls in play.
2. **Dead ball**: buttons moved before the restart are counted; the restart is taken by the
   first flick that reaches the ball (a keeper's kick: when the ball starts to roll), and the
   moves are checked against the allowance (``rules.button_setpiece``).
3. **Contacts**: fouls (an opponent's button or keeper hit before the ball), ball contacts of
   the turn, a flick that misses (the turn passes), the taker touching again, who a throw-in or
   a goal kick reached.
4. **Lines**: goal (only a called shot, or a corner scored directly, counts), ball out.
5. **Ball at rest**: in a goal area (the keeper's ball; a ball whose centre rests within its
   uncertainty of the area's line is called with ``too_close_to_call``, or, just outside, with a
   ``close_call`` notice), a called shot kept in play, a throw-in
   or goal kick that reached no team-mate, the seventh contact used: the other side's turn.
6. **Half end**: once time is up, at the next ball out; a draw at full time goes to the
   shoot-out (``rules.button_shootout``).
"""

from __future__ import annotations

from dataclasses import replace

from rules import clock as clk
from rules.button_lines import close_call, is_over, lies_over, lines, surely_inside
from rules.button_setpiece import check_set_up, note_moves
from rules.button_shootout import shoot_out_step, start_shoot_out
from rules.button_state import (
    LAWS,
    ButtonConfig,
    ButtonState,
    Restart,
    SetPiece,
    ShotCall,
    Spots,
    Toucher,
    buttons_of,
    dead_ball,
    kick_off,
)
from rules.calls import Call, FigureRef, is_too_close
from rules.observation import HOME, Observation, other_team, team_name

NOTICES = ("close_call", "set_piece_fault", "shot_called")  # calls that set no restart

__all__ = ["ButtonConfig", "ButtonState", "ShotCall", "step"]


def step(state: ButtonState, item: Observation | ShotCall) -> tuple[ButtonState, list[Call]]:
    """Apply one input; return the new state and its calls (numbered in the match)."""
    if isinstance(item, ShotCall):
        state, calls = _shot_call(state, item)
    elif state.finished:
        return state, []
    elif state.shoot_out is not None:
        state, calls = shoot_out_step(state, item)
        if item.ball_seen:
            state = replace(state, ball_xy_mm=item.ball_xy_mm, ball_moving=item.ball_moving)
    else:
        state, calls = _judge(state, item)
    first = state.calls_made + 1
    calls = [replace(c, id=first + i) for i, c in enumerate(calls)]
    return replace(state, calls_made=state.calls_made + len(calls)), calls


def _judge(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    in_play = state.restart is None
    before = state.clock
    rolling = obs.ball_seen and obs.ball_moving
    clock = clk.tick(before, obs.t_s, in_play and rolling, obs.ball_switch_before_s)
    state = replace(state, clock=clock, ball_went_out=False)
    calls: list[Call] = []
    if state.restart is not None:
        if not state.placed:  # a match waiting for its first kick-off: places as first seen
            state = replace(state, placed=buttons_of(obs))
        state = note_moves(state, obs)
        state, new = _take_restart(state, obs)
        calls += new
        if state.restart is None:  # taken between the last frame and this one
            start = clk.start(before)
            state = replace(
                state, clock=clk.tick(start, obs.t_s, rolling, obs.ball_switch_before_s)
            )
    if state.restart is None:
        for stage in (_contacts, lines, _at_rest):
            state, new = stage(state, obs)
            calls += new
            if state.restart is not None:
                break
        if state.restart is not None:
            state = replace(state, clock=clk.stop(state.clock))
    if obs.ball_seen:
        state = replace(state, ball_moving=obs.ball_moving)
    if obs.ball_seen and obs.ball_uncertainty_mm <= obs.ball_radius_mm:
        state = replace(
            state, ball_xy_mm=obs.ball_xy_mm, ball_t_s=obs.t_s, ball_unc_mm=obs.ball_uncertainty_mm
        )
        seen = (*obs.ball_xy_mm, obs.t_s)
        if surely_inside(state, obs):
            state = replace(state, ball_inside=seen)
        if not is_over(state, obs):
            state = replace(state, ball_before=seen, ball_over=None)
        elif state.ball_over is None:
            state = replace(state, ball_over=seen)
    state, new = _half_end(state, obs)
    return state, calls + new


def _toucher(obs: Observation, figure_id: int) -> Toucher:
    row = obs.figures.index_of(figure_id)
    assert row is not None  # Observation checks that contacts name seen figures
    return Toucher(figure_id, int(obs.figures.team[row]), bool(obs.figures.goalkeeper[row]))


def _ball(state: ButtonState, obs: Observation) -> tuple[float, float]:
    xy = obs.ball_xy_mm if obs.ball_xy_mm is not None else state.ball_xy_mm
    return xy if xy is not None else (0.0, 0.0)


def _take_restart(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """The restart is taken by the first flick reaching the ball (a keeper's kick: the ball
    rolls); then the set-up is checked and the set piece is followed."""
    r = state.restart
    assert r is not None
    taker: Toucher | None = None
    flick = None
    if r.by_keeper:  # the kick sets a ball at rest rolling (not one still rolling on) ...
        rest = state.ball_xy_mm  # ... on the pitch: one beyond a line is being fetched
        fetched = rest is not None and lies_over(state, rest, obs.ball_radius_mm)
        if fetched or not (obs.ball_seen and obs.ball_moving and not state.ball_moving):
            return state, []
    else:
        flick = next((c for c in obs.contacts if c.kind == "flick" and c.on_ball), None)
        if flick is None:
            return state, []
        taker = _toucher(obs, flick.figure_id)
    calls = check_set_up(state, obs, taker)
    team = taker.team if taker is not None else r.team
    team = team if team is not None else HOME
    state = replace(state, restart=None, turn=team, contacts=0, flicks=frozenset(), placed=())
    if flick is not None:  # the taking flick is the turn's first contact
        state = replace(state, contacts=1, flicks=frozenset({(flick.figure_id, flick.onset_frame)}))
        if state.called == team:
            state = replace(state, called=None, shot=(team, flick.figure_id))
    if r.kind == "kick_off" and state.first_kick_off is None and state.clock.period == 1:
        state = replace(state, first_kick_off=team)
    taker_id = taker.figure_id if taker is not None else None
    if r.kind in ("corner", "free_kick", "throw_in", "penalty", "goal_kick"):
        state = replace(state, set_piece=SetPiece(r.kind, team, taker_id))
    if taker is not None and r.kind in ("corner", "free_kick", "throw_in"):
        state = replace(state, taker=(taker.figure_id, team, "mate"))
    if taker is not None and r.kind == "penalty":  # a called shot from the spot
        state = replace(state, taker=(taker.figure_id, team, "keeper"))
        state = replace(state, shot=(team, taker.figure_id))
    return state, calls


def _contacts(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    for c in obs.contacts:
        who = _toucher(obs, c.figure_id)
        key = (c.figure_id, c.onset_frame)
        if c.kind == "miss":
            if state.turn in (None, who.team):
                state = replace(state, called=None, shot=None)
                return _turnover(state, obs, other_team(who.team), "the flick missed the ball")
            continue
        if c.target_id is not None:
            target = _toucher(obs, c.target_id)
            if c.kind == "flick" and key not in state.flicks and target.team != who.team:
                return _foul(state, obs, who, target)
            continue
        if c.kind == "flick" and key not in state.flicks:
            state, calls = _ball_contact(state, obs, who, key)
            if calls:
                return state, calls
        state, calls = _reached(state, obs, who)
        if calls:
            return state, calls
    return state, []


def _ball_contact(state: ButtonState, obs: Observation, who: Toucher, key: tuple[int, int]):
    """A flick reached the ball: one contact of the turn; the taker may not play it again
    before a team-mate (after a penalty: the keeper) has touched it (BF Der Schütze)."""
    if state.taker is not None and state.taker[0] == who.figure_id:
        xy = _ball(state, obs)
        team = other_team(who.team)
        restart = Restart("free_kick", team, xy, LAWS["taker"], taker_free=True)
        restart = replace(restart, allowance=(None, 0) if team == HOME else (0, None))
        call = _restart_call(obs, "foul", restart, note="the taker touched the ball again")
        row = obs.figures.index_of(who.figure_id)
        call = replace(call, figure=FigureRef.of(obs.figures, row))
        return dead_ball(state, obs, restart), [call]
    if state.turn != who.team:  # the turn begins (or was not seen to pass)
        state = replace(state, turn=who.team, contacts=0, flicks=frozenset())
    # A new flick ends a called shot under way (a team-mate's deflection is no flick).
    state = replace(state, contacts=state.contacts + 1, flicks=state.flicks | {key}, shot=None)
    if state.called == who.team:
        state = replace(state, called=None, shot=(who.team, who.figure_id))
    return state, []


def _reached(state: ButtonState, obs: Observation, who: Toucher) -> tuple[ButtonState, list[Call]]:
    """Whom the ball reached: the taker's restriction ends, a throw-in or goal kick reaching
    the other side changes the turn, and the last touch is noted."""
    state = replace(state, last_touch=who)
    t = state.taker
    if t is not None and who.figure_id != t[0]:
        mate = t[2] == "mate" and who.team == t[1]
        keeper = t[2] == "keeper" and who.keeper and who.team != t[1]
        if mate or keeper:
            state = replace(state, taker=None)
    sp = state.set_piece
    if sp is None or who.figure_id == sp.taker_id:
        return state, []
    state = replace(state, set_piece=None if sp.kind != "corner" or not who.keeper else sp)
    if sp.kind == "throw_in" and who.team != sp.team:
        return _turnover(state, obs, who.team, "the throw-in reached no team-mate")
    if sp.kind == "goal_kick" and sp.taker_id is None:
        team = sp.team if who.team == sp.team else other_team(sp.team)
        if team != state.turn:
            return _turnover(state, obs, team, "the goal kick hit the other side")
    return state, []


def _foul(
    state: ButtonState, obs: Observation, who: Toucher, target: Toucher
) -> tuple[ButtonState, list[Call]]:
    """An opponent's button or keeper hit before the ball (BF Fouls): a free kick at the foul,
    a penalty when it happened in the fouling team's penalty area, the keeper's kick from the
    foul's place when the keeper was fouled (BF Torwartball)."""
    row = obs.figures.index_of(target.figure_id)
    spot = (float(obs.figures.xy_mm[row, 0]), float(obs.figures.xy_mm[row, 1]))
    fouled = target.team
    own_area = f"penalty_area_{state.defended_end(who.team)}"
    if target.keeper:
        restart = Restart("goal_kick", fouled, spot, LAWS["keeper_ball"], by_keeper=True)
    elif float(state.pitch.zone_margin_mm(own_area, spot)[0]) > 0:
        end = state.defended_end(who.team)
        restart = Restart(
            "penalty", fouled, Spots(state.pitch).penalty(end), LAWS["penalty"], end=end
        )
        restart = replace(restart, taker_free=True)
    else:
        allowance = (None, 0) if fouled == HOME else (0, None)
        restart = Restart("free_kick", fouled, spot, LAWS["foul"], allowance=allowance)
        restart = replace(restart, taker_free=True)
    call = _restart_call(obs, "foul", restart, note=f"{team_name(who.team)} hit an opponent first")
    call = replace(
        call,
        law=LAWS["foul"],
        figure=FigureRef.of(obs.figures, obs.figures.index_of(who.figure_id)),
    )
    return dead_ball(state, obs, restart), [call]


def _at_rest(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """The ball came to rest in play: whose turn it is now."""
    if not (obs.ball_seen and state.ball_moving and not obs.ball_moving):
        return state, []
    xy = obs.ball_xy_mm
    assert xy is not None
    calls = close_call(state, obs)
    unc = state.line_uncertainty(obs.ball_uncertainty_mm)
    for end in ("left", "right"):
        # Measured like a line call: the ball's centre beyond the goal area line's edge.
        margin = float(state.pitch.zone_margin_mm(f"goal_area_{end}", xy)[0])
        measured = dict(
            line="goal_area",
            margin_mm=margin,
            uncertainty_mm=unc,
            too_close_to_call=is_too_close(margin, unc),
        )
        if margin > 0:
            keeper = state.defender_of(end)
            restart = Restart("goal_kick", keeper, xy, LAWS["keeper_ball"], end, by_keeper=True)
            call = _restart_call(obs, "turnover", restart, note="the ball rests in a goal area")
            call = replace(call, **measured)
            return dead_ball(state, obs, restart), [*calls, call]
        if is_too_close(margin, unc):  # resting on the line: the referee's word
            note = f"on the goal area line: OUT by {-margin:.1f} mm (too close to call)"
            calls.append(
                Call(
                    obs.frame,
                    obs.t_s,
                    "close_call",
                    LAWS["keeper_ball"],
                    fully_crossed=False,
                    position=xy,
                    note=note,
                    **measured,
                )
            )
    shot, sp, turn = state.shot, state.set_piece, state.turn
    state = replace(state, shot=None, set_piece=None)
    if shot is not None:
        last = state.last_touch
        mate = last is not None and last.team == shot[0] and last.figure_id != shot[1]
        if not mate:
            return _turnover(
                state, obs, other_team(shot[0]), "the called shot stayed in play", calls
            )
    if sp is not None and sp.kind == "throw_in":
        return _turnover(
            state, obs, other_team(sp.team), "the throw-in reached no team-mate", calls
        )
    if sp is not None and sp.kind == "goal_kick" and sp.taker_id is None:
        return _turnover(state, obs, other_team(sp.team), "the goal kick hit no team-mate", calls)
    if turn is not None and state.contacts >= state.config.contacts_per_turn:
        n = state.contacts
        return _turnover(state, obs, other_team(turn), f"{n} ball contacts used", calls)
    return state, calls


def _turnover(state, obs, team: int, why: str, calls: list[Call] | None = None):
    """The turn passes to ``team`` with the ball where it lies (BF Dein Zug)."""
    call = Call(
        obs.frame,
        obs.t_s,
        "turnover",
        LAWS["turn"],
        team=team,
        position=_ball(state, obs),
        note=why,
    )
    state = replace(state, turn=team, contacts=0, flicks=frozenset(), called=None, shot=None)
    return state, (calls or []) + [call]


def _restart_call(obs: Observation, kind: str, restart: Restart, note: str = "") -> Call:
    return Call(
        obs.frame,
        obs.t_s,
        kind,
        restart.law,
        team=restart.team,
        restart=restart.kind,
        position=restart.xy_mm,
        note=note,
    )


def _shot_call(state: ButtonState, call: ShotCall) -> tuple[ButtonState, list[Call]]:
    """A team calls its shot: accepted while the ball lies wholly in the opponents' half (the
    halfway line's far edge, measured like "fully crossed") and it is the team's turn."""
    law = LAWS["called"]
    base = Call(call.frame, call.t_s, "shot_called", law, team=call.team, line="halfway_line")
    r = state.restart
    if r is not None and r.kind == "penalty":
        return state, [replace(base, fully_crossed=True, note="a penalty is a called shot")]
    if state.finished or state.shoot_out is not None or state.ball_xy_mm is None:
        return state, [replace(base, note="refused: no ball in play to call a shot on")]
    mine = state.turn if r is None else r.team
    if mine is not None and mine != call.team:
        return state, [replace(base, note=f"refused: it is {team_name(mine)}'s turn")]
    half = f"half_{state.attacked_end(call.team)}"
    r_mm = state.pitch.profile.ball_radius_mm
    margin = float(state.pitch.zone_margin_mm(half, state.ball_xy_mm)[0]) - r_mm
    unc = state.line_uncertainty(state.ball_unc_mm)
    base = replace(
        base,
        margin_mm=margin,
        uncertainty_mm=unc,
        position=state.ball_xy_mm,
        fully_crossed=margin > 0,
        too_close_to_call=is_too_close(margin, unc),
    )
    if margin <= 0:
        return state, [replace(base, note="refused: the ball is not in the opponents' half")]
    return replace(state, called=call.team), [replace(base, note="called")]


def _half_end(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """Once time is up the half ends at the next ball out (BF Das Spiel); the other side kicks
    off the second half (BF Anstoß); a draw at full time goes to the shoot-out."""
    if not clk.period_ends_now(state.clock, state.ball_went_out, False):
        return state, []
    home, away = state.score
    if state.clock.period == 1:
        kicker = None if state.first_kick_off is None else other_team(state.first_kick_off)
        end = state.home_end
        if state.config.swap_ends:
            end = "right" if end == "left" else "left"
        state = replace(
            state, clock=clk.next_period(state.clock, state.config.half_length_s), home_end=end
        )
        restart = kick_off(state, kicker)
        call = _restart_call(
            obs, "half_time", replace(restart, law=LAWS["game"]), note=f"{home}:{away}"
        )
        return dead_ball(state, obs, restart), [call]
    if home == away:
        return start_shoot_out(state, obs)
    call = Call(obs.frame, obs.t_s, "full_time", LAWS["game"], note=f"{home}:{away}")
    return replace(state, finished=True, restart=None), [call]
