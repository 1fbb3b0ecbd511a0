"""FISTF line decisions: goals (7), ball out (14, 15, 16), the hidden ball and close calls.

A crossing is decided as soon as the margin exceeds its uncertainty (fully crossed, general
guideline). A ball that comes to rest, or turns back, within the close-call band of a boundary
line without a confident crossing gives a ``close_call`` notice instead (too close to call when
|margin| is within the uncertainty); it does not stop play. So does a ball lost from view while
it rolls in that band: too close to call, never a silent *in*.
"""

from __future__ import annotations

import math
from dataclasses import replace

from rules.calls import Call, is_too_close, margin_note
from rules.fistf_ends import see_goal
from rules.fistf_state import LineWatch, MatchState, Restart, point
from rules.geometry import boundary_margins_mm, is_between_posts, quarter_index, shooting_margin_mm
from rules.observation import Observation, other_team
from rules.pitch import END_SIGN

NO_DIRECT_GOAL = {  # set pieces from which a goal cannot be scored directly, and why
    "throw_in": "FISTF 14.1",
    "free_kick": "FISTF 11.1",
    "goal_kick": "FISTF 15.1",
    "kick_off": "FISTF 7.1",
}


def check_lines(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """Goal, ball out, or the close-call watch, for the ball of this frame (ball in play)."""
    if obs.ball_xy_mm is None:
        return _hidden(state, obs)
    pitch, xy, r = state.pitch, obs.ball_xy_mm, obs.ball_radius_mm
    unc = state.line_uncertainty(obs)
    margins = boundary_margins_mm(pitch, xy, r)
    for end in END_SIGN:
        m = margins[f"goal_line_{end}"]
        in_mouth = bool(is_between_posts(pitch, end, xy)[0])
        inside_net = abs(xy[0]) <= abs(pitch.goal(end).x_back_mm)
        if in_mouth and inside_net and m > unc:
            return decide_goal(state, obs.frame, obs.t_s, end, xy, m, unc, "")
    line = max(margins, key=margins.__getitem__)
    if margins[line] > unc:
        return decide_out(state, obs.frame, obs.t_s, line, xy, margins[line], unc)
    return _watch(state, obs, line, margins[line], unc)


def in_doubt(obs: Observation) -> bool:
    """Whether the ball is placed well but may be another object (``ball_doubt_mm``): which
    ball-like object is the ball, motion has not settled yet."""
    well_placed = obs.ball_placed_mm <= obs.ball_radius_mm
    return obs.ball_xy_mm is not None and obs.ball_doubt_mm > 0.0 and well_placed


def watch_in_doubt(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """The close-call watch, and nothing more, for a ball that may be another object
    (``in_doubt``): decided, a crossing would be a call on what may not be the ball, and
    unwatched, a ball at rest over a line would pass for one in play (silence is no call of
    *in*). Only where its place lies in the close-call band of a line, by its own
    uncertainty; the notice is too close to call by the doubt, and says why."""
    assert obs.ball_xy_mm is not None
    if state.watch is None and not obs.ball_moving:
        # Only its own roll starts a watch: the rules' track is of the last ball seen for
        # certain, and may have been rolling when the doubt began.
        return state, []
    margins = boundary_margins_mm(state.pitch, obs.ball_xy_mm, obs.ball_radius_mm)
    line = max(margins, key=margins.__getitem__)
    placed = math.hypot(obs.ball_placed_mm, state.config.line_uncertainty_mm)  # the band's
    return _watch(state, obs, line, margins[line], state.line_uncertainty(obs), placed)


def _shot_margin(state: MatchState, end: str, attacker: int, r: float) -> float | None:
    flick = state.last_flick
    if flick is None or flick.team != attacker or flick.ball_xy_mm is None:
        return None
    return float(shooting_margin_mm(state.pitch, end, flick.ball_xy_mm, r)[0])


def _shot_uncertainty(state: MatchState) -> float:
    """The bound on the shot's margin: the struck ball's position bound and the line's."""
    flick = state.last_flick
    unc = flick.ball_uncertainty_mm if flick is not None else state.ball.uncertainty_mm
    return math.hypot(unc, state.config.line_uncertainty_mm)


def decide_goal(
    state: MatchState,
    frame: int,
    t_s: float,
    end: str,
    xy: tuple[float, float],
    margin: float,
    unc: float,
    note: str,
) -> tuple[MatchState, list[Call]]:
    """The ball is wholly over the goal line of ``end`` between the posts: goal or not?

    A flick seen before it settles the ends first (``rules.fistf_ends``: its team attacks this
    goal), so an "own goal" that only a wrongly named kit made one is judged as the attacker's
    shot it was.
    """
    state = see_goal(state, end)
    defender = state.defender_of(end)
    attacker = other_team(defender)
    last, direct = state.last_touch, state.live_set_piece
    r = state.ball.radius_mm
    shot = _shot_margin(state, end, attacker, r)
    shot_unc = _shot_uncertainty(state)
    goal_kick = _restart_call(state, frame, t_s, "goal_kick", defender, end, xy)
    if state.unseen_play and state.last_flick is None:
        return _shot_unknown(state, frame, t_s, end, xy, margin, unc, note, "was not seen")
    if last is None:
        return _disallow(state, goal_kick, "FISTF 7.2", None, None, "no play seen", end)
    if last.team == attacker:
        if direct is not None and direct[0] in NO_DIRECT_GOAL:
            law = NO_DIRECT_GOAL[direct[0]]
            return _disallow(state, goal_kick, law, None, None, f"direct from a {direct[0]}", end)
        if direct is not None and direct[0] == "corner":  # 16.1.2: straight from the corner
            return _score(state, frame, t_s, end, xy, margin, unc, "FISTF 16.1", "from a corner")
        flick = state.last_flick
        if shot is None and flick is not None and flick.team == attacker:
            # The attacker's flick was seen, but not where the ball lay (hidden, or its
            # identity in doubt): inside or outside the zone is not known.
            why = "was seen, but not where the ball lay"
            return _shot_unknown(state, frame, t_s, end, xy, margin, unc, note, why)
        if shot is None or shot <= 0:
            return _disallow(state, goal_kick, "FISTF 7.2", shot, shot_unc, "shot outside", end)
        if is_too_close(shot, shot_unc):
            return _too_close_goal(state, frame, t_s, end, xy, shot, shot_unc)
        return _score(state, frame, t_s, end, xy, margin, unc, "FISTF 7.1", note)
    if direct is not None and direct[1] == defender:  # 7.3.1: no direct own goal
        corner = _restart_call(state, frame, t_s, "corner", attacker, end, xy)
        return _disallow(state, corner, "FISTF 7.3", None, None, "direct own goal", end)
    if last.goalkeeper and shot is not None:  # the keeper parried the attacker's shot in
        if shot <= 0:  # 7.2.2: deflecting an invalid shot costs no goal
            return _disallow(state, goal_kick, "FISTF 7.2", shot, shot_unc, "deflected", end)
        if is_too_close(shot, shot_unc):
            return _too_close_goal(state, frame, t_s, end, xy, shot, shot_unc)
        return _score(state, frame, t_s, end, xy, margin, unc, "FISTF 7.1", note)
    return _score(state, frame, t_s, end, xy, margin, unc, "FISTF 7.3", note or "own goal")


def _score(state, frame, t_s, end, xy, margin, unc, law, note) -> tuple[MatchState, list[Call]]:
    defender = state.defender_of(end)
    attacker = other_team(defender)
    score = list(state.score)
    score[attacker] += 1
    call = Call(
        frame,
        t_s,
        "goal",
        law,
        line="goal_line",
        fully_crossed=True,
        margin_mm=margin,
        uncertainty_mm=unc,
        team=attacker,
        restart="kick_off",
        position=xy,
        note=note,
    )
    restart = Restart("kick_off", defender, (0.0, 0.0), "FISTF 4.1")
    new = replace(
        state.ball_dead(),
        score=(score[0], score[1]),
        restart=restart,
        possession=defender,
        ball_went_out=True,
    )
    return new, [call]


def _disallow(state, restart_call, law, margin, unc, note, end) -> tuple[MatchState, list[Call]]:
    call = replace(
        restart_call,
        kind="goal_disallowed",
        law=law,
        line="shooting_line" if margin is not None else "goal_line",
        fully_crossed=None if margin is None else margin > 0,
        margin_mm=margin,
        uncertainty_mm=unc,
        note=note,
    )
    return _dead(state, call, end), [call]


def _too_close_goal(state, frame, t_s, end, xy, shot, unc) -> tuple[MatchState, list[Call]]:
    """The shot was taken too close to the shooting line to say: the referee decides."""
    call = Call(
        frame,
        t_s,
        "goal" if shot > 0 else "goal_disallowed",
        "FISTF 7.1",
        line="shooting_line",
        fully_crossed=shot > 0,
        margin_mm=shot,
        uncertainty_mm=unc,
        too_close_to_call=True,
        team=other_team(state.defender_of(end)),
        position=xy,
        note="shot " + margin_note(shot, unc, beyond="IN", short="OUT"),
    )
    restart = Restart("referee", None, xy, "FISTF 7.1", end)
    return replace(state.ball_dead(), restart=restart, ball_went_out=True), [call]


def _shot_unknown(
    state, frame, t_s, end, xy, margin, unc, note, why
) -> tuple[MatchState, list[Call]]:
    """A goal whose shot ``why`` (taken before the first frame of a match picked up in play,
    or seen without the ball's place): whether it came from inside the shooting zone
    (FISTF 7.1) is not known, so the referee decides.

    DESIGN.md 4 marks a call the referee decides by a margin within its uncertainty: the
    shot's margin reads 0 with an uncertainty of the pitch's length (it may have come from
    anywhere). The note keeps the goal line's measured margin.
    """
    over = f"over the goal line by {margin:.1f} mm (+/- {unc:.1f})"
    call = Call(
        frame,
        t_s,
        "goal",
        "FISTF 7.1",
        line="shooting_line",
        margin_mm=0.0,
        uncertainty_mm=state.pitch.profile.length_mm,
        too_close_to_call=True,
        team=other_team(state.defender_of(end)),
        position=xy,
        note=f"{note + '; ' if note else ''}{over}; the shot {why}: the referee decides",
    )
    restart = Restart("referee", None, xy, "FISTF 7.1", end)
    return replace(state.ball_dead(), restart=restart, ball_went_out=True), [call]


def _restart_call(state, frame, t_s, kind, team, end, xy) -> Call:
    p = state.pitch.profile
    sx = END_SIGN[end]
    if kind == "goal_kick":
        position = (sx * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm), 0.0)
        law = "FISTF 15.1"
    else:
        side_y = 0.5 * p.width_mm * (1.0 if xy[1] >= 0 else -1.0)
        position = (sx * 0.5 * p.length_mm, side_y)
        law = "FISTF 16.1"
    return Call(
        frame, t_s, "ball_out", law, line="goal_line", team=team, restart=kind, position=position
    )


def _dead(state: MatchState, call: Call, end: str | None) -> MatchState:
    assert call.restart is not None and call.position is not None
    restart = Restart(call.restart, call.team, call.position, call.law, end)
    return replace(state.ball_dead(), restart=restart, possession=call.team, ball_went_out=True)


def decide_out(
    state: MatchState,
    frame: int,
    t_s: float,
    line: str,
    xy: tuple[float, float],
    margin: float,
    unc: float,
) -> tuple[MatchState, list[Call]]:
    """The ball wholly crossed a touchline, or a goal line outside the goal."""
    measured = {"fully_crossed": True, "margin_mm": margin, "uncertainty_mm": unc}
    if line.startswith("touchline"):
        last = state.last_touch
        if state.unseen_play and last is not None and last.goalkeeper and state.last_flick is None:
            # 7.2.2: a keeper deflecting an invalid shot costs no throw-in; the shot was unseen.
            return _unknown_out(state, frame, t_s, "touchline", xy, "FISTF 7.2", margin, unc)
        call = _throw_in(state, frame, t_s, line, xy)
        call = replace(call, **measured)
        return _dead(
            state, call, state.defended_end(call.team) if call.restart == "goal_kick" else None
        ), [call]
    end = line.removeprefix("goal_line_")
    defender = state.defender_of(end)
    attacker = other_team(defender)
    last, flick = state.last_touch, state.last_flick
    if state.unseen_play and flick is None and (last is None or last.team == defender):
        # Who played it last (15.1, 16.1), or whether the shot the defender deflected came from
        # inside the zone, was not seen: goal kick or corner, the referee decides.
        return _unknown_out(state, frame, t_s, "goal_line", xy, "FISTF 15.1/16.1", margin, unc)
    if last is None or last.team == attacker:
        call, law = _restart_call(state, frame, t_s, "goal_kick", defender, end, xy), "FISTF 15.1"
    elif last.goalkeeper or flick is None or flick.team == attacker:
        # Deflected by the defender: a corner if the shot came from inside the shooting zone.
        shot = _shot_margin(state, end, attacker, state.ball.radius_mm)
        if shot is not None and shot > 0:
            call, law = _restart_call(state, frame, t_s, "corner", attacker, end, xy), "FISTF 16.1"
        else:
            call, law = (
                _restart_call(state, frame, t_s, "goal_kick", defender, end, xy),
                "FISTF 15.1",
            )
    else:  # the defender played it over its own goal line
        call, law = _restart_call(state, frame, t_s, "corner", attacker, end, xy), "FISTF 16.1"
    call = replace(call, law=law, **measured)
    return _dead(state, call, end), [call]


def _unknown_out(state, frame, t_s, line, xy, law, margin, unc) -> tuple[MatchState, list[Call]]:
    """The ball is out, but the touch that decides the restart was not seen (a match picked up
    in play): the call names no team and no restart, and the referee awards it; the next flick
    resumes play."""
    call = Call(
        frame,
        t_s,
        "ball_out",
        law,
        line=line,
        fully_crossed=True,
        margin_mm=margin,
        uncertainty_mm=unc,
        position=point(xy),
        note="the last touch was not seen: the referee awards the restart",
    )
    restart = Restart("referee", None, point(xy), law)
    return replace(state.ball_dead(), restart=restart, ball_went_out=True), [call]


def _throw_in(state: MatchState, frame: int, t_s: float, line: str, xy) -> Call:
    """FISTF 14.1: to the team that did not touch last, unless the throw-in was not forced.

    With no touch seen (a match picked up in play) the team is not known: the call names none
    and the referee awards it.
    """
    band = state.pitch.line(line)
    spot = (float(xy[0]), band.a_mm[1])
    last, flick = state.last_touch, state.last_flick
    law = "FISTF 14.1"
    if last is None:
        team = other_team(state.possession) if state.possession is not None else None
    else:
        team = other_team(last.team)
        if flick is not None and flick.team != last.team:
            end = state.defended_end(last.team)
            shot = _shot_margin(state, end, flick.team, state.ball.radius_mm)
            if last.goalkeeper and shot is not None and shot <= 0:
                # 7.2.2: a keeper deflecting an invalid shot costs no throw-in: goal kick.
                goal_kick = _restart_call(state, frame, t_s, "goal_kick", last.team, end, xy)
                return replace(goal_kick, law="FISTF 7.2", line="touchline")
            quarters = quarter_index(state.pitch, [spot, last.figure_xy_mm, flick.figure_xy_mm])
            if len(set(quarters.tolist())) > 1:  # 14.1.2: not forced within one quarter
                team, law = last.team, "FISTF 14.1.2"
    note = "" if team is not None else "the last touch was not seen: the referee awards it"
    return Call(
        frame,
        t_s,
        "ball_out",
        law,
        line="touchline",
        team=team,
        restart="throw_in",
        position=spot,
        note=note,
    )


def _hidden(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """DESIGN.md 3 goals seen from above: decide a ball hidden in a goal from its last frames."""
    b = state.ball
    cfg = state.config
    if b.xy_mm is None:
        return state, []
    if b.hidden_frames + 1 != cfg.hidden_decide_frames:
        return _lost_in_band(state, obs.t_s)
    pitch = state.pitch
    for end, sx in END_SIGN.items():
        last_margin = float(boundary_margins_mm(pitch, b.xy_mm, b.radius_mm)[f"goal_line_{end}"])
        # Under the crossbar from about a diameter before full crossing (the bar's height).
        near = last_margin > -2.0 * b.radius_mm - 10.0
        if not (near and bool(is_between_posts(pitch, end, b.xy_mm)[0])):
            continue
        v_in = sx * b.v_mm_s[0]
        if v_in <= 0 and last_margin <= 0:
            continue  # it stopped or turned: hidden by something else, not by the goal
        travel = max(v_in, 0.0) ** 2 / (2.0 * cfg.ball_decel_mm_s2)
        deepest = pitch.profile.goal_depth_mm - 2.0 * b.radius_mm
        predicted = max(last_margin, min(last_margin + travel, deepest))
        unc = state.line_uncertainty(b) + 0.25 * (predicted - last_margin)
        note = f"hidden by the goal; last seen {margin_note(last_margin, unc)}, {v_in:.0f} mm/s"
        if predicted > unc:
            return decide_goal(state, b.frame, b.t_s, end, b.xy_mm, predicted, unc, note)
        call = Call(
            b.frame,
            b.t_s,
            "goal" if predicted >= -unc else "close_call",
            "FISTF 7.1",
            line="goal_line",
            fully_crossed=predicted > 0,
            margin_mm=predicted,
            uncertainty_mm=unc,
            too_close_to_call=is_too_close(predicted, unc),
            team=other_team(state.defender_of(end)),
            position=b.xy_mm,
            note=note,
        )
        if call.too_close_to_call:
            restart = Restart("referee", None, b.xy_mm, "FISTF 7.1", end)
            return replace(state.ball_dead(), restart=restart, ball_went_out=True), [call]
        return state, [call]
    return _lost_in_band(state, obs.t_s)


def _lost_in_band(state: MatchState, t_s: float | None) -> tuple[MatchState, list[Call]]:
    """The notice of a ball lost from view while it rolled in the close-call band (a figure
    over it, the camera losing it) for ``close_call_settle_s`` at ``t_s``, or rolling there
    when the recording ends (``t_s`` None): seeing no more of it is no call of *in*. A hand
    over it for a moment gives nothing: the watch goes on when it shows again. The margin is
    where its last speed would have carried it (``ball_decel_mm_s2``); the uncertainty spans
    its last reading, that stop and the band (lost, it may have stopped anywhere in it), so
    the notice is too close to call."""
    w, b, cfg = state.watch, state.ball, state.config
    if w is None or w.rest_s is not None or b.xy_mm is None:
        return state, []
    if t_s is not None and t_s - b.t_s < cfg.close_call_settle_s:
        return state, []
    pitch, (vx, vy) = state.pitch, b.v_mm_s
    reach_s = math.hypot(vx, vy) / (2.0 * cfg.ball_decel_mm_s2)  # the stop: v |v| / 2a on
    stop = (b.xy_mm[0] + vx * reach_s, b.xy_mm[1] + vy * reach_s)
    last = boundary_margins_mm(pitch, b.xy_mm, b.radius_mm)[w.line]
    margin = boundary_margins_mm(pitch, stop, b.radius_mm)[w.line]
    unc = state.line_uncertainty(b) + abs(margin - last) + cfg.close_call_mm
    lost = LineWatch(w.line, margin, unc, b.frame, b.t_s, point(b.xy_mm))
    note = f"lost from view rolling near the line; last seen {margin_note(last, unc)}"
    return replace(state, watch=None), [_close_call(state, lost, note)]


def _watch(
    state: MatchState,
    obs: Observation,
    line: str,
    margin: float,
    unc: float,
    placed: float | None = None,
) -> tuple[MatchState, list[Call]]:
    """Follow a rolling ball inside the close-call band; report once when it rests or turns back.

    The watch starts only while the ball rolls (a ball lying still near a line is no news, and a
    resting ball must not repeat its notice every frame), or on the frame a ball last seen
    rolling is seen at rest (its last metres unseen: lost by the camera, or under a hand), or
    on the ball's first sighting in a play picked up before the first frame (a clip of the
    disputed moment may begin with the ball's roll unseen, or with it already at rest). It
    keeps the deepest reading. When the ball comes to rest in the band the notice waits
    ``close_call_settle_s`` (or until the ball moves again), dated at the stop, with the latest
    rest reading (the ball's final place, the one the referee looks at, as it firms up). A
    reading counts as within the band when it may be, for its uncertainty (``placed``: of its
    place alone, where ``unc`` also holds a doubt of which object it is); a ball leaving the
    band without turning back (a rolling reading's uncertainty shrank) is no news either.
    """
    assert obs.ball_xy_mm is not None
    cfg = state.config
    w = state.watch
    inside = margin > -(cfg.close_call_mm + (unc if placed is None else placed))
    xy = point(obs.ball_xy_mm)
    here = LineWatch(line, margin, unc, obs.frame, obs.t_s, xy, doubt_mm=obs.ball_doubt_mm)
    if w is not None and w.rest_s is not None:  # at rest in the band since ``w.rest_s``
        if obs.ball_moving or w.line != line:
            return replace(state, watch=None), [_close_call(state, w)]
        w = replace(w, margin_mm=margin, uncertainty_mm=unc, xy_mm=xy, doubt_mm=here.doubt_mm)
        if obs.t_s - w.rest_s < cfg.close_call_settle_s:
            return replace(state, watch=w), []
        return replace(state, watch=None), [_close_call(state, w)]
    if w is None:
        first_sighting = state.unseen_play and state.ball.xy_mm is None
        if not (inside and (obs.ball_moving or state.ball.moving or first_sighting)):
            return state, []
        w = here
    elif inside and (w.line != line or margin > w.margin_mm or not obs.ball_moving):
        w = here
    if inside and w.line == line and obs.ball_moving:
        return replace(state, watch=w), []
    if inside and w.line == line:  # come to rest: its reading firms up before the notice
        w = replace(here, rest_s=obs.t_s)
        if cfg.close_call_settle_s > 0.0:
            return replace(state, watch=w), []
    elif not inside and obs.ball_moving and w.line == line and margin >= w.margin_mm:
        return replace(state, watch=None), []  # out of the band only as its doubt shrank
    return replace(state, watch=None), [_close_call(state, w)]


def close_watch(state: MatchState) -> tuple[MatchState, list[Call]]:
    """The end of what is seen (a recording's last frame): the notice of a ball that came to
    rest in the close-call band, still waiting for its rest reading to firm up, is given
    with the reading it has; of a ball still rolling in it, as of one lost from view."""
    w = state.watch
    if w is None:
        return state, []
    if w.rest_s is None:
        return _lost_in_band(state, None)
    return replace(state, watch=None), [_close_call(state, w)]


def _close_call(state: MatchState, w: LineWatch, note: str | None = None) -> Call:
    if w.line.startswith("touchline"):
        law = "FISTF 14.1"
    else:
        end = w.line.removeprefix("goal_line_")
        law = "FISTF 7.1" if is_between_posts(state.pitch, end, w.xy_mm)[0] else "FISTF 15.1"
    return Call(
        w.frame,
        w.t_s,
        "close_call",
        law,
        line=w.line.rsplit("_", 1)[0],
        fully_crossed=w.margin_mm > 0,
        margin_mm=w.margin_mm,
        uncertainty_mm=w.uncertainty_mm,
        too_close_to_call=is_too_close(w.margin_mm, w.uncertainty_mm),
        position=w.xy_mm,
        note=note or _doubt_note(w),
    )


def _doubt_note(w: LineWatch) -> str:
    text = margin_note(w.margin_mm, w.uncertainty_mm)
    if w.doubt_mm > 0.0:
        text += (
            f"; not yet seen struck, it may be another ball-like object up to "
            f"{w.doubt_mm:.0f} mm away"
        )
    return text
