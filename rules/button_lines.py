"""Button football: the ball over a line (BF Ball im Aus, BF Angesagte Schüsse, BF Ecken,
BF Abstöße) and the close-call notice of a ball at rest near one.

A ball is over a line when its footprint is wholly beyond the line's far edge by more than its
uncertainty (DESIGN.md 3); over the goal line between the posts it is a goal, which counts only
for a called shot of the attackers or a corner scored directly. Out otherwise: a throw-in for
the other side, or a corner or goal kick by the last touch; the ball robot puts the ball on the
restart spot (``rules.button_state.Spots``).
"""

from __future__ import annotations

from dataclasses import replace

from rules import clock as clk
from rules.button_state import LAWS, ButtonState, Restart, Spots, dead_ball, kick_off
from rules.calls import Call, is_too_close
from rules.geometry import (
    BOUNDARY_LINES,
    boundary_margins_mm,
    crossed_margin_mm,
    goal_margin_mm,
    is_between_posts,
)
from rules.observation import HOME, Observation, other_team

CLOSE_BAND_MM = 3.0  # DESIGN.md 4: a ball at rest within 3 mm of a boundary line


def lines(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """Goal or ball out, once the ball is wholly over a line by more than its uncertainty."""
    if obs.ball_xy_mm is None:
        return state, []
    xy, r = obs.ball_xy_mm, obs.ball_radius_mm
    unc = state.line_uncertainty(obs.ball_uncertainty_mm)
    for end in ("left", "right"):
        margin = float(goal_margin_mm(state.pitch, end, xy, r)[0])
        if margin > unc and bool(is_between_posts(state.pitch, end, xy)[0]):
            back_s = _since_crossing_s(state, obs, f"goal_line_{end}", margin, goal=True)
            return _stopped(*_goal(state, obs, end, margin, unc), back_s)
    margins = boundary_margins_mm(state.pitch, xy, r)
    line = max(BOUNDARY_LINES, key=margins.__getitem__)
    if margins[line] > unc or (margins[line] > 0 and not obs.ball_moving):
        back_s = _since_crossing_s(state, obs, line, margins[line])
        return _stopped(*_out(state, obs, line, margins[line], unc), back_s)
    return state, []


def surely_inside(state: ButtonState, obs: Observation) -> bool:
    """Whether the ball is inside every boundary line by more than its uncertainty."""
    assert obs.ball_xy_mm is not None
    unc = state.line_uncertainty(obs.ball_uncertainty_mm)
    margins = boundary_margins_mm(state.pitch, obs.ball_xy_mm, obs.ball_radius_mm)
    return max(margins.values()) < -unc


def is_over(state: ButtonState, obs: Observation) -> bool:
    """Whether the ball's footprint, as measured, is wholly over a boundary line."""
    assert obs.ball_xy_mm is not None
    return lies_over(state, obs.ball_xy_mm, obs.ball_radius_mm)


def lies_over(state: ButtonState, xy_mm: tuple[float, float], radius_mm: float) -> bool:
    """Whether a ball of ``radius_mm`` at ``xy_mm`` lies wholly over a boundary line."""
    return max(boundary_margins_mm(state.pitch, xy_mm, radius_mm).values()) > 0.0


def _since_crossing_s(
    state: ButtonState, obs: Observation, line: str, margin_mm: float, goal: bool = False
) -> float:
    """How long ago the ball crossed ``line`` wholly (play stopped then: BF Das Spiel, the
    clock runs only while the ball rolls in play): where the margin was 0 on a straight line
    between two sightings on either side of the crossing.

    Out of play, those are the last sure sighting not yet over and the first one over,
    usually consecutive frames: a straight line from further back (the last sighting surely
    inside) to the frame that decides spread a roll slowing over the line across its slow
    end. Into a goal, the crossbar over the goal line hides part of the ball just as it
    crosses, and sightings there may lag: the crossing is dated from the last sighting surely
    inside to this frame, the first that is surely over. A ball decided late, once its margin
    outgrew an uncertainty swollen under a crossbar, costs the clock nothing: such sightings
    are not sure ones."""
    start = state.ball_inside if goal else state.ball_before
    end = (*obs.ball_xy_mm, obs.t_s) if goal or state.ball_over is None else state.ball_over
    if start is None:
        return 0.0
    (x0, y0, t0), (x1, y1, t1) = start, end
    r = obs.ball_radius_mm
    before = float(crossed_margin_mm(state.pitch.line(line), (x0, y0), r)[0])
    after = float(crossed_margin_mm(state.pitch.line(line), (x1, y1), r)[0])
    if after <= 0:  # first seen over another line: this one's crossing is the decision
        t1, after = obs.t_s, margin_mm
    if t1 <= t0 or before >= 0 or after <= 0:
        return 0.0
    return obs.t_s - (t0 + (t1 - t0) * -before / (after - before))


def _stopped(
    state: ButtonState, calls: list[Call], back_s: float
) -> tuple[ButtonState, list[Call]]:
    """The clock stopped ``back_s`` before this frame, when the ball crossed."""
    clock = clk.stop(state.clock, state.clock.elapsed_s - back_s)
    return replace(state, clock=clock), calls


def _goal(state: ButtonState, obs: Observation, end: str, margin: float, unc: float):
    defender = state.defender_of(end)
    attacker = other_team(defender)
    sp = state.set_piece
    olympic = sp is not None and sp.kind == "corner" and sp.team == attacker
    called = state.shot is not None and state.shot[0] == attacker
    common = dict(line="goal_line", fully_crossed=True, margin_mm=margin, uncertainty_mm=unc)
    state = replace(state, ball_went_out=True)
    if called or olympic:
        score = list(state.score)
        score[attacker] += 1
        restart = kick_off(state, defender)
        law = LAWS["called"] if called else LAWS["corner"]
        note = "called shot" if called else "corner scored directly"
        call = Call(
            obs.frame,
            obs.t_s,
            "goal",
            law,
            team=attacker,
            restart="kick_off",
            position=restart.xy_mm,
            note=note,
            **common,
        )
        state = replace(state, score=(score[0], score[1]))
        return dead_ball(state, obs, restart), [call]
    restart = _goal_kick(state, end, attacker)
    call = Call(
        obs.frame,
        obs.t_s,
        "goal_disallowed",
        LAWS["called"],
        team=defender,
        restart="goal_kick",
        position=restart.xy_mm,
        note="shot not called",
        **common,
    )
    return dead_ball(state, obs, restart), [call]


def _goal_kick(state: ButtonState, end: str, out_by: int) -> Restart:
    """A goal kick: the team that put the ball out moves up to four buttons, the other none."""
    defender = state.defender_of(end)
    allowance = (4, 0) if out_by == HOME else (0, 4)
    spot = Spots(state.pitch).goal_kick(end)
    return Restart("goal_kick", defender, spot, LAWS["goal_kick"], end, allowance, by_keeper=True)


def _out(state: ButtonState, obs: Observation, line: str, margin: float, unc: float):
    """Over a touchline: a throw-in for the other side; over a goal line: a corner or a goal
    kick by the last touch (BF Ball im Aus); without a last touch seen, the referee says."""
    xy = obs.ball_xy_mm
    assert xy is not None
    spots = Spots(state.pitch)
    last = state.last_touch
    side = 1.0 if xy[1] > 0 else -1.0
    if line.startswith("touchline"):
        team = None if last is None else other_team(last.team)
        restart = Restart("throw_in", team, spots.throw_in(xy[0], side), LAWS["out"])
        kind_line = "touchline"
    else:
        end = line.removeprefix("goal_line_")
        kind_line = "goal_line"
        defender = state.defender_of(end)
        if last is None:
            restart = Restart("goal_kick", None, spots.goal_kick(end), LAWS["out"], end)
        elif last.team == defender:
            corner = spots.corner(end, side)
            restart = Restart(
                "corner",
                other_team(defender),
                corner,
                LAWS["corner"],
                end,
                (3, 3),
                attackers_first=True,
                taker_free=True,
            )
        else:
            restart = _goal_kick(state, end, last.team)
    call = Call(
        obs.frame,
        obs.t_s,
        "ball_out",
        restart.law,
        line=kind_line,
        fully_crossed=True,
        margin_mm=margin,
        uncertainty_mm=unc,
        too_close_to_call=is_too_close(margin, unc),
        team=restart.team,
        restart=restart.kind,
        position=restart.xy_mm,
        note="" if last is not None else "last touch not seen: the referee decides",
    )
    state = replace(state, ball_went_out=True)
    return dead_ball(state, obs, restart), [call]


def close_call(state: ButtonState, obs: Observation) -> list[Call]:
    """A ball at rest within 3 mm inside a boundary line: the 'IN by 0.4 mm' notice."""
    assert obs.ball_xy_mm is not None
    margins = boundary_margins_mm(state.pitch, obs.ball_xy_mm, obs.ball_radius_mm)
    line = max(BOUNDARY_LINES, key=margins.__getitem__)
    m = margins[line]
    if not -CLOSE_BAND_MM < m <= 0:
        return []
    unc = state.line_uncertainty(obs.ball_uncertainty_mm)
    return [
        Call(
            obs.frame,
            obs.t_s,
            "close_call",
            LAWS["out"],
            line=line.rsplit("_", 1)[0],
            fully_crossed=False,
            margin_mm=m,
            uncertainty_mm=unc,
            too_close_to_call=is_too_close(m, unc),
            position=obs.ball_xy_mm,
            note=f"IN by {abs(m):.1f} mm",
        )
    ]
