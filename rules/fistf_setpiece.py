"""FISTF restarts: taking a set piece, checking how it was set up, and figure placement.

A restart is taken by the first flick (or keeper touch) on the dead ball on the pitch (not in
the net, nor off the cloth). At that frame the set-up is checked on the positions seen: the ball
on its spot, figures where the law allows them. Faults are ``set_piece_fault`` notices (the
referee orders a retake), distances are ``distance`` notices (the attacker may ask for them,
general guidelines); neither stops play.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rules import clock as clk
from rules.calls import Call, FigureRef, is_too_close
from rules.fistf_play import penalty_spot
from rules.fistf_state import MatchState, PendingPlay, Restart, Touch, point
from rules.geometry import (
    boundary_margins_mm,
    cloth_overrun_mm,
    crossed_margin_mm,
    edge_gap_mm,
    zone_overlap_margin_mm,
)
from rules.observation import Contact, Observation
from rules.pitch import END_SIGN

SET_PIECE_DISTANCE_MM = {"free_kick": 40.0, "throw_in": 40.0, "corner": 90.0}
GUIDELINE = "FISTF general guidelines"


def take_restart(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """While the ball is dead: wait for the taking flick, then check the set-up."""
    restart = state.restart
    assert restart is not None
    taking = _taking_contact(obs)
    if taking is None:
        return state, []
    ball_xy = state.ball.xy_mm if state.ball.xy_mm is not None else obs.ball_xy_mm
    if ball_xy is not None and _beyond_the_lines(state, obs, ball_xy):
        return state, []
    row = obs.figures.index_of(taking.figure_id)
    assert row is not None
    team = int(obs.figures.team[row])
    keeper = bool(obs.figures.goalkeeper[row])
    calls: list[Call] = []
    if restart.kind != "referee" and ball_xy is not None:
        if restart.team is not None and team != restart.team:
            calls.append(_fault(obs, restart, GUIDELINE, "taken by the other team", row))
        calls += _check(state, obs, restart, row, ball_xy)
    touch = Touch(
        taking.figure_id,
        team,
        keeper,
        taking.kind,
        obs.frame,
        taking.onset_frame,
        point(obs.figures.xy_mm[row]),
        ball_xy,
    )
    kind = restart.kind
    clock = state.clock
    first = state.first_kick_off
    if kind == "kick_off":
        clock = clk.start(clock)
        # The match's first kick-off is known only when the referee started the match with
        # it; one seen set up in a match picked up in play may follow a goal.
        if first is None and clock.period == 1 and state.config.start == "kick_off":
            first = team
    pending = None
    if ball_xy is not None:
        pending = PendingPlay(
            obs.frame,
            obs.t_s,
            team,
            taking.figure_id,
            ball_xy,
            obs.ball_radius_mm,
            obs.ball_uncertainty_mm,
            obs.figure_uncertainty_mm,
            obs.figures,
            kind,
        )
    state = replace(
        state,
        restart=None,
        possession=team,
        last_touch=touch,
        last_flick=None if keeper else touch,
        repeat=(taking.figure_id, 1, 1 if kind != "referee" else 3, GUIDELINE),
        live_set_piece=(kind, team) if kind != "referee" else None,
        goal_kick_end=restart.end if kind == "goal_kick" else None,
        pending_play=pending,
        clock=clock,
        first_kick_off=first,
        noticed=frozenset(),
    )
    return state, calls


def _beyond_the_lines(state: MatchState, obs: Observation, ball_xy) -> bool:
    """The dead ball lies wholly over a boundary line, for its uncertainty: in the net, or off
    the cloth. No restart is taken from there (each is taken on the pitch: 4.2.3, 11.2, 12.2,
    14.2, 15.2, 16.2); a touch on it is the keeper's in the net, or the ball being fetched."""
    margins = boundary_margins_mm(state.pitch, ball_xy, obs.ball_radius_mm)
    return max(margins.values()) > state.line_uncertainty(obs)


def _taking_contact(obs: Observation) -> Contact | None:
    for c in obs.contacts:
        if not c.on_ball:
            continue
        row = obs.figures.index_of(c.figure_id)
        if c.kind == "flick" or (row is not None and obs.figures.goalkeeper[row]):
            return c
    return None


def _fault(obs: Observation, restart: Restart, law: str, note: str, row: int | None, **kw) -> Call:
    fig = None if row is None else FigureRef.of(obs.figures, row)
    return Call(
        obs.frame,
        obs.t_s,
        "set_piece_fault",
        law,
        team=restart.team,
        restart=restart.kind,
        position=restart.position,
        figure=fig,
        note=note,
        **kw,
    )


def _check(
    state: MatchState, obs: Observation, restart: Restart, taker: int, ball_xy
) -> list[Call]:
    kind = restart.kind
    calls = _check_spot(state, obs, restart, ball_xy)
    if kind == "kick_off":
        calls += _check_kick_off(state, obs, restart, taker)
    elif kind == "goal_kick":
        calls += _check_goal_kick(state, obs, restart, taker, ball_xy)
    elif kind == "penalty":
        calls += _check_penalty(state, obs, restart, taker)
    if kind in SET_PIECE_DISTANCE_MM:
        calls += _check_distance(state, obs, restart, taker, ball_xy)
    return calls


def _check_spot(state: MatchState, obs: Observation, restart: Restart, ball_xy) -> list[Call]:
    """The ball placed where the law puts it."""
    pitch, tol = state.pitch, state.config.spot_tolerance_mm
    kind, r = restart.kind, obs.ball_radius_mm
    if kind == "throw_in":  # 14.2.4: centrally on the touchline, where it went out (14.2.1)
        line = "touchline_top" if restart.position[1] > 0 else "touchline_bottom"
        off = abs(float(pitch.line(line).offset_mm(ball_xy)[0]))
        miss = max(off - pitch.line(line).width_mm / 2, abs(ball_xy[0] - restart.position[0]) - tol)
        law, what, line_kind = "FISTF 14.2", "the ball must lie on the touchline", "touchline"
    elif kind == "corner":  # 16.2.1: inside the corner arc or on it
        arc = pitch.profile.corner_arc_radius_mm + pitch.profile.line_width_mm / 2
        miss = float(np.hypot(*np.subtract(ball_xy, restart.position))) - arc - r
        law, what, line_kind = "FISTF 16.2", "the ball must lie in the corner arc", "corner_arc"
    elif kind == "goal_kick":
        return []  # checked with the area (15.2.2)
    else:
        spot = penalty_spot(state, restart.end) if kind == "penalty" else restart.position
        miss = float(np.hypot(*np.subtract(ball_xy, spot))) - (
            pitch.profile.spot_diameter_mm if kind != "free_kick" else tol
        )
        laws = {"kick_off": "FISTF 4.2", "penalty": "FISTF 12.2", "free_kick": "FISTF 11.2"}
        law, what, line_kind = laws.get(kind, GUIDELINE), "the ball is off its spot", None
    if miss <= 0:
        return []
    return [_fault(obs, restart, law, what, None, line=line_kind, margin_mm=miss)]


def _figure_faults(
    obs: Observation, restart: Restart, margins: np.ndarray, mask: np.ndarray, law: str, note: str
) -> list[Call]:
    """One fault per figure in ``mask`` whose margin (> 0: breaking the law) exceeds -unc."""
    unc = obs.figure_uncertainty_mm
    out = []
    for row in np.flatnonzero(mask & (margins > -unc)):
        m = float(margins[row])
        out.append(
            replace(
                _fault(obs, restart, law, note, int(row)),
                margin_mm=m,
                uncertainty_mm=unc,
                too_close_to_call=is_too_close(m, unc),
            )
        )
    return out


def _check_kick_off(state: MatchState, obs: Observation, restart: Restart, taker: int) -> list:
    """FISTF 4.2.1: everyone wholly in their own half, the defenders out of the centre circle."""
    figs, pitch = obs.figures, state.pitch
    if len(figs) == 0:
        return []
    own = np.array([state.defended_end(int(t)) for t in figs.team])
    inside = np.array(
        [pitch.zone_margin_mm(f"half_{e}", xy)[0] for e, xy in zip(own, figs.xy_mm, strict=True)]
    )
    others = (np.arange(len(figs)) != taker) & ~figs.goalkeeper  # keepers stand in their goal
    calls = _figure_faults(
        obs, restart, figs.radius_mm - inside, others, "FISTF 4.2", "not wholly in its own half"
    )
    circle = crossed_margin_mm(pitch.line("centre_circle"), figs.xy_mm, figs.radius_mm)
    defenders = figs.team != obs.figures.team[taker]
    return calls + _figure_faults(
        obs, restart, -circle, defenders, "FISTF 4.2", "a defender in or on the centre circle"
    )


def _check_goal_kick(
    state: MatchState, obs: Observation, restart: Restart, taker: int, ball_xy
) -> list[Call]:
    """FISTF 15.2: only the taker and the keepers in the area; ball in the goal area; 20 mm."""
    figs, pitch, end = obs.figures, state.pitch, restart.end
    calls = []
    ball_in = float(pitch.zone_margin_mm(f"goal_area_{end}", ball_xy)[0]) - obs.ball_radius_mm
    if ball_in <= 0:
        calls.append(
            _fault(
                obs,
                restart,
                "FISTF 15.2",
                "the ball must lie in the goal area",
                None,
                line="goal_area",
                margin_mm=ball_in,
            )
        )
    if len(figs) == 0:
        return calls
    reach = zone_overlap_margin_mm(pitch, f"penalty_area_{end}", figs.xy_mm, figs.radius_mm)
    others = (np.arange(len(figs)) != taker) & ~figs.goalkeeper
    calls += _figure_faults(obs, restart, reach, others, "FISTF 15.2", "in the penalty area")
    home, away = (
        np.flatnonzero(others & (figs.team == 0)),
        np.flatnonzero(others & (figs.team == 1)),
    )
    if len(home) and len(away):
        gaps = edge_gap_mm(
            np.repeat(figs.xy_mm[home], len(away), axis=0),
            np.repeat(figs.radius_mm[home], len(away)),
            np.tile(figs.xy_mm[away], (len(home), 1)),
            np.tile(figs.radius_mm[away], len(home)),
        ).reshape(len(home), len(away))
        short = 20.0 - gaps.min(axis=1)
        mask = np.zeros(len(figs), bool)
        mask[home] = True
        margins = np.zeros(len(figs))
        margins[home] = short
        calls += _figure_faults(obs, restart, margins, mask, "FISTF 15.2", "within 20 mm")
    return calls


def _check_penalty(state: MatchState, obs: Observation, restart: Restart, taker: int) -> list:
    """FISTF 12.2: all but the taker and the keeper outside the area and its arc."""
    figs, pitch, end = obs.figures, state.pitch, restart.end
    if len(figs) == 0 or end is None:
        return []
    reach = zone_overlap_margin_mm(pitch, f"penalty_area_{end}", figs.xy_mm, figs.radius_mm)
    arc = pitch.profile.penalty_arc_radius_mm + pitch.profile.line_width_mm / 2
    in_arc = arc - edge_gap_mm(figs.xy_mm, figs.radius_mm, penalty_spot(state, end), 0.0)
    others = (np.arange(len(figs)) != taker) & ~figs.goalkeeper
    calls = _figure_faults(
        obs, restart, np.maximum(reach, in_arc), others, "FISTF 12.2", "in the area or its arc"
    )
    # 12.2.3: the keeper may not stand out beyond the goal line.
    line = pitch.line(f"goal_line_{end}")
    ahead = line.beyond_edge_mm(figs.xy_mm, -1.0) + figs.radius_mm
    keeper = figs.goalkeeper & (figs.team == state.defender_of(end))
    return calls + _figure_faults(
        obs, restart, ahead, keeper, "FISTF 12.2", "the keeper stands out beyond the goal line"
    )


def _check_distance(
    state: MatchState, obs: Observation, restart: Restart, taker: int, ball_xy
) -> list[Call]:
    """General guidelines: defenders at least 4 cm (9 cm at corners) from the ball."""
    figs = obs.figures
    need = SET_PIECE_DISTANCE_MM[restart.kind]
    gap = edge_gap_mm(figs.xy_mm, figs.radius_mm, ball_xy, obs.ball_radius_mm)
    mask = figs.team != figs.team[taker]
    return [
        replace(c, kind="distance", law=GUIDELINE, note=f"nearer than {need:.0f} mm")
        for c in _figure_faults(obs, restart, need - gap, mask, GUIDELINE, "")
    ]


def watch_goal_kick(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """FISTF 15.2.4: the ball must wholly leave the penalty area; fault if it stops inside."""
    end = state.goal_kick_end
    if end is None or obs.ball_xy_mm is None:
        return state, []
    reach = float(
        zone_overlap_margin_mm(
            state.pitch, f"penalty_area_{end}", obs.ball_xy_mm, obs.ball_radius_mm
        )[0]
    )
    if reach < 0:
        return replace(state, goal_kick_end=None), []
    if obs.ball_moving:
        return state, []
    restart = Restart("goal_kick", state.defender_of(end), (0.0, 0.0), "FISTF 15.2", end)
    call = _fault(
        obs,
        restart,
        "FISTF 15.2",
        "the goal kick did not leave the penalty area",
        None,
        line="penalty_area",
        margin_mm=reach,
    )
    return replace(state, goal_kick_end=None), [call]


def placement_notices(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """FISTF 2.1: with the ball at rest, figures off the cloth or in a goal area go back.

    Only a ball seen at rest counts: a ball not seen may be rolling.
    """
    if obs.ball_moving:
        return (replace(state, noticed=frozenset()) if state.noticed else state), []
    if obs.ball_xy_mm is None:
        return state, []
    figs, pitch = obs.figures, state.pitch
    if len(figs) == 0:
        return state, []
    calls, noticed = [], set(state.noticed)
    hx, hy = pitch.cloth_half_extent_mm
    off = cloth_overrun_mm(pitch, figs.xy_mm)
    for row in np.flatnonzero(off > 0):
        x, y = figs.xy_mm[row]
        back = (
            float(np.clip(x, -hx + figs.radius_mm[row], hx - figs.radius_mm[row])),
            float(np.clip(y, -hy + figs.radius_mm[row], hy - figs.radius_mm[row])),
        )
        calls.append(_placement(state, obs, row, back, "off the cloth", float(off[row]), noticed))
    restart = state.restart
    for end, sx in END_SIGN.items():
        if restart is not None and restart.kind == "goal_kick" and restart.end == end:
            continue  # the goal kick is taken from inside the goal area (15.2.2)
        reach = zone_overlap_margin_mm(pitch, f"goal_area_{end}", figs.xy_mm, figs.radius_mm)
        front = pitch.line(f"goal_area_front_{end}")
        out_x = front.a_mm[0] - sx * (front.width_mm / 2 + 1.0)
        for row in np.flatnonzero((reach > 0) & ~figs.goalkeeper):
            spot = (out_x - sx * float(figs.radius_mm[row]), float(figs.xy_mm[row][1]))
            calls.append(
                _placement(state, obs, row, spot, "in the goal area", float(reach[row]), noticed)
            )
    calls = [c for c in calls if c is not None]
    return replace(state, noticed=frozenset(noticed)), calls


def _placement(state, obs, row, spot, what, margin, noticed) -> Call | None:
    key = (int(obs.figures.id[row]), what)
    if key in noticed:
        return None
    noticed.add(key)
    return Call(
        obs.frame,
        obs.t_s,
        "figure_placement",
        "FISTF 2.1",
        margin_mm=margin,
        uncertainty_mm=obs.figure_uncertainty_mm,
        too_close_to_call=is_too_close(margin, obs.figure_uncertainty_mm),
        position=spot,
        figure=FigureRef.of(obs.figures, int(row)),
        note=f"{what}: the referee puts it back",
    )
