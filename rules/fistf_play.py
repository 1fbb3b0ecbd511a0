"""FISTF play in progress: contacts, possession, fouls and offside.

Contacts of one frame are applied in this order: touches of the ball first, then touches of
figures, then misses. A flicked figure reported touching the ball and a figure in the same frame
is taken to have reached the ball first (FISTF 5.3 needs the figure touched *before* the ball;
one frame cannot show that, and the engine never guesses against a player).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from rules.calls import Call, FigureRef, is_too_close, margin_note
from rules.fistf_ends import see_play
from rules.fistf_state import SET_PIECES_NO_OFFSIDE, MatchState, PendingPlay, Restart, Touch, point
from rules.geometry import crossed_margin_mm, is_goal_over, zone_overlap_margin_mm
from rules.observation import AWAY, HOME, Contact, Figures, Observation, other_team
from rules.offside import offside_geometry
from rules.pitch import END_SIGN

# A figure whose base stood within this of touching the ball when it began to roll unseen may
# be the one that played it (a base tracked a frame late, a flick that pushed through).
UNSEEN_STRIKER_MM = 10.0
# No flick sends the ball faster: a ball first seen moving farther from where it rested than
# this speed allows was carried there (placed by hand) or is another object, no play.
FLICK_MAX_MM_S = 4000.0


def apply_contacts(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """Apply this frame's contacts while the ball is in play (stops at the first whistle)."""
    calls: list[Call] = []
    order = {True: 0, False: 1}
    for contact in sorted(obs.contacts, key=lambda c: (order[c.on_ball], c.kind == "miss")):
        if state.restart is not None:
            break
        state, new = _apply_contact(state, obs, contact)
        calls += new
    return state, calls


def _apply_contact(
    state: MatchState, obs: Observation, c: Contact
) -> tuple[MatchState, list[Call]]:
    row = obs.figures.index_of(c.figure_id)
    assert row is not None  # Observation checks contacts name seen figures
    team = int(obs.figures.team[row])
    if c.kind == "miss":
        # FISTF 5.1 a / 6.1 a: the attacker missed, the defender has the ball. With the
        # attacker not known yet the same holds: a defensive move (6.2) touches nothing too,
        # and then the attacker, again the other team, keeps the ball.
        if state.possession is None or team == state.possession:
            return replace(state, possession=other_team(team), repeat=None), []
        return state, []
    if c.target_id is not None:
        return _figure_contact(state, obs, c, row)
    if c.kind == "flick" or bool(obs.figures.goalkeeper[row]):  # 8.1.2: a keeper always plays
        return _play(state, obs, c, row)
    return _collision(state, obs, c, row)


def _figure_contact(
    state: MatchState, obs: Observation, c: Contact, row: int
) -> tuple[MatchState, list[Call]]:
    """A flicked figure touched another figure."""
    if c.kind != "flick":
        return state, []
    team = int(obs.figures.team[row])
    fig = FigureRef.of(obs.figures, row)
    reached_ball = (
        state.last_flick is not None
        and state.last_flick.figure_id == c.figure_id
        and state.last_flick.onset_frame == c.onset_frame
    )
    if team == state.possession:
        if c.target_moving or reached_ball:
            return state, []
        # FISTF 5.3: the attacker touched a figure at rest before the ball.
        return award_foul(state, obs, row, "FISTF 5.3", penal=True)
    if state.possession is None:
        return state, []
    # FISTF 6.2.2: a defensive move touched another figure. At rest: "back" (the referee
    # restores the positions, play goes on); a moving attacker: a free kick.
    if not c.target_moving:
        note = "back: the referee restores the positions"
        call = Call(
            obs.frame, obs.t_s, "foul", "FISTF 6.2", team=state.possession, figure=fig, note=note
        )
        return state, [call]
    return award_foul(state, obs, row, "FISTF 6.2", penal=False)


def strike_ball(state: MatchState, obs: Observation) -> tuple[tuple[float, float] | None, float]:
    """The ball where it lay at a strike, and its position bound in mm.

    A contact is reported on the first frame on which the struck ball has moved, so the last
    ball seen before this frame is where it was played from (the shot position of FISTF 7.1,
    the play of 13.1); this frame's ball only when none was seen before.
    """
    if state.ball.xy_mm is not None:
        return state.ball.xy_mm, state.ball.uncertainty_mm
    return obs.ball_xy_mm, obs.ball_uncertainty_mm


def _play(
    state: MatchState, obs: Observation, c: Contact, row: int
) -> tuple[MatchState, list[Call]]:
    """A figure played the ball (a flick, or any touch of a goalkeeper)."""
    figs = obs.figures
    team, keeper = int(figs.team[row]), bool(figs.goalkeeper[row])
    if state.possession is not None and team != state.possession and not keeper:
        if state.ball.moving:  # FISTF 6.2.2: a defensive move touched the rolling ball
            return award_foul(state, obs, row, "FISTF 6.2", penal=False)
        # At rest the turn has passed (a miss the tracker did not report): play on.
    calls: list[Call] = []
    state, fault = _goal_kick_touched(state, obs)
    calls += fault
    count, limit, law = 1, 3, "FISTF 8.1.3" if keeper else "FISTF 5.2"
    if state.repeat is not None and state.repeat[0] == c.figure_id:
        count, limit, law = state.repeat[1] + 1, state.repeat[2], state.repeat[3]
        if count > limit:  # FISTF 5.2 / 8.1.3 / general guideline: played once too often
            state, foul = award_foul(state, obs, row, law, penal=False)
            return state, calls + foul
    # Where the ball lay when struck: on the contact frame it has already rolled one frame on.
    ball_xy, ball_unc = strike_ball(state, obs)
    touch = Touch(
        c.figure_id,
        team,
        keeper,
        c.kind,
        obs.frame,
        c.onset_frame,
        point(figs.xy_mm[row]),
        ball_xy,
        ball_unc,
    )
    state = replace(
        state,
        possession=team,
        last_touch=touch,
        last_flick=state.last_flick if keeper else touch,
        repeat=(c.figure_id, count, limit, law),
        live_set_piece=None,  # played by another figure (the taker cannot play again)
        unseen_play=state.unseen_play and keeper,  # a flick seen: the shot is known now
    )
    if ball_xy is None:
        return state, calls
    calls += shot_close_call(state, obs, team, ball_xy, ball_unc)
    pending = PendingPlay(
        obs.frame,
        obs.t_s,
        team,
        c.figure_id,
        ball_xy,
        obs.ball_radius_mm,
        ball_unc,
        obs.figure_uncertainty_mm,
        obs.figures,
        None,
    )
    return replace(state, pending_play=pending), calls


def _collision(
    state: MatchState, obs: Observation, c: Contact, row: int
) -> tuple[MatchState, list[Call]]:
    """The ball ran into a figure that was not flicked."""
    team = int(obs.figures.team[row])
    state, calls = _goal_kick_touched(state, obs)
    ball_xy = obs.ball_xy_mm if obs.ball_xy_mm is not None else state.ball.xy_mm
    touch = Touch(
        c.figure_id,
        team,
        False,
        c.kind,
        obs.frame,
        c.onset_frame,
        point(obs.figures.xy_mm[row]),
        ball_xy,
    )
    same = state.repeat is not None and state.repeat[0] == c.figure_id
    state = replace(
        state,
        # FISTF 5.1 b: a defender's figure at rest touched by the ball wins the ball, and an
        # attacker's keeps it (5.1): either way its team has the ball, also when the attacker
        # was not known.
        possession=team,
        last_touch=touch,
        repeat=state.repeat if same else None,
        live_set_piece=None,
    )
    return state, calls


def _goal_kick_touched(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """FISTF 15.2.4: the ball was touched before it wholly left the penalty area."""
    if state.goal_kick_end is None:
        return state, []
    end = state.goal_kick_end
    team = state.defender_of(end)
    call = Call(
        obs.frame,
        obs.t_s,
        "set_piece_fault",
        "FISTF 15.2",
        line="penalty_area",
        team=team,
        restart="goal_kick",
        position=_goal_kick_spot(state, end),
        note="the goal kick did not leave the penalty area: retake",
    )
    return replace(state, goal_kick_end=None), [call]


def _goal_kick_spot(state: MatchState, end: str) -> tuple[float, float]:
    p = state.pitch.profile
    return END_SIGN[end] * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm), 0.0


def award_foul(
    state: MatchState, obs: Observation, row: int, law: str, *, penal: bool
) -> tuple[MatchState, list[Call]]:
    """A free kick (or penalty) against the team of figure ``row``, from where it stood.

    ``penal``: the offence is one of FISTF 12.1's list, so inside the offender's own penalty
    area (the line not part of it) it is a penalty. FISTF 11.1: a free kick for an offence on or
    behind the goal line beside the area is taken from the penalty spot.
    """
    figs = obs.figures
    offender = int(figs.team[row])
    awarded = other_team(offender)
    fig = FigureRef.of(figs, row)
    xy, r = figs.xy_mm[row], float(figs.radius_mm[row])
    own = state.defended_end(offender)
    pitch = state.pitch
    margin = float(pitch.zone_margin_mm(f"penalty_area_{own}", xy)[0]) - r
    unc = obs.figure_uncertainty_mm
    spot = penalty_spot(state, own)
    goal_line = float(pitch.line(f"goal_line_{own}").beyond_edge_mm(xy, -1.0)[0])
    beside_area = abs(float(xy[1])) < pitch.line(f"penalty_area_side_{own}_top").a_mm[1]
    if penal and margin > 0:
        kind, position, line = "penalty", spot, "penalty_area"
    elif goal_line <= 0 and beside_area:
        kind, position, line = "free_kick", spot, "goal_line"
    else:
        kind, position, line = "free_kick", point(xy), "penalty_area" if penal else None
    call = Call(
        obs.frame,
        obs.t_s,
        "foul",
        law,
        line=line,
        margin_mm=margin if line == "penalty_area" else None,
        uncertainty_mm=unc if line == "penalty_area" else None,
        too_close_to_call=line == "penalty_area" and is_too_close(margin, unc),
        team=awarded,
        restart=kind,
        position=position,
        figure=fig,
    )
    restart = Restart(kind, awarded, position, law, own if kind == "penalty" else None)
    return replace(state.ball_dead(), restart=restart, possession=awarded), [call]


def penalty_spot(state: MatchState, end: str) -> tuple[float, float]:
    p = state.pitch.profile
    return END_SIGN[end] * (0.5 * p.length_mm - p.penalty_spot_from_goal_line_mm), 0.0


def shot_close_call(
    state: MatchState,
    obs: Observation,
    team: int,
    ball_xy: tuple[float, float],
    ball_unc: float,
) -> list[Call]:
    """DESIGN.md 4: a play from within the close-call band of the shooting line.

    ``ball_xy`` / ``ball_unc``: the struck ball and vision's bound on its position (mm).
    """
    end = state.attacked_end(team)
    band = state.pitch.line(f"shooting_line_{end}")
    margin = float(crossed_margin_mm(band, ball_xy, obs.ball_radius_mm)[0])
    unc = float(np.hypot(ball_unc, state.config.line_uncertainty_mm))
    if abs(margin) > state.config.close_call_mm + unc:  # not even for its uncertainty
        return []
    return [
        Call(
            obs.frame,
            obs.t_s,
            "close_call",
            "FISTF 7.1",
            line="shooting_line",
            fully_crossed=margin > 0,
            margin_mm=margin,
            uncertainty_mm=unc,
            too_close_to_call=is_too_close(margin, unc),
            team=team,
            position=ball_xy,
            note=margin_note(margin, unc, beyond="IN", short="OUT"),
        )
    ]


def note_unseen_play(state: MatchState, obs: Observation) -> MatchState:
    """A ball seen at rest up to the frame before starts to roll in open play, near where it
    rested, and no touch of it is seen (the striker hidden by a hand, or never found): it was
    played all the same (13.1 judges the moment it is played). The positions of this frame
    are kept as an unseen play (``PendingPlay`` without a team), judged once the roll shows
    its direction."""
    if state.pending_play is not None or state.restart is not None or state.ball.moving:
        return state
    if not obs.ball_moving or state.ball.xy_mm is None or obs.ball_xy_mm is None:
        return state
    if state.ball.hidden_frames or any(c.on_ball for c in obs.contacts):
        return state  # not seen at rest up to now (lifted by a hand, say), or a touch seen
    reach = obs.ball_radius_mm + FLICK_MAX_MM_S * (obs.t_s - state.ball.t_s)
    if math.dist(obs.ball_xy_mm, state.ball.xy_mm) > reach:
        return state
    play = PendingPlay(
        obs.frame,
        obs.t_s,
        None,
        None,
        state.ball.xy_mm,
        obs.ball_radius_mm,
        state.ball.uncertainty_mm,
        obs.figure_uncertainty_mm,
        obs.figures,
        None,
    )
    return replace(state, pending_play=play)


def resolve_pending_play(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """Judge a play once the ball shows its direction: kick-off (4.2.3) and offside (13.1)."""
    play = state.pending_play
    if play is None or obs.ball_xy_mm is None or obs.frame == play.frame:
        return state, []
    d = np.subtract(obs.ball_xy_mm, play.ball_xy_mm)
    if np.hypot(*d) < state.config.forward_min_mm:
        if play.team is None and not obs.ball_moving:  # a nudge, not a play
            return replace(state, pending_play=None), []
        return state, []
    if play.team is None:
        return _judge_unseen_play(replace(state, pending_play=None), play, d)
    state = see_play(state, d)  # a flick toward a goal from its zone may flip the ends first
    play = state.pending_play
    assert play is not None and play.team is not None
    state = replace(state, pending_play=None)
    end = state.attacked_end(play.team)
    forward = float(d[0]) * END_SIGN[end] > 0
    if play.set_piece == "kick_off" and not forward:
        call = Call(
            play.frame,
            play.t_s,
            "set_piece_fault",
            "FISTF 4.2",
            line="halfway_line",
            team=play.team,
            restart="kick_off",
            position=(0.0, 0.0),
            note="the kick-off must go forward: retake",
        )
        return state, [call]
    if not forward or play.set_piece in SET_PIECES_NO_OFFSIDE:
        return state, []
    return _judge_offside(state, play, end)


def _judge_unseen_play(
    state: MatchState, play: PendingPlay, d: np.ndarray
) -> tuple[MatchState, list[Call]]:
    """Offside (13.1) of an unseen play toward the end it rolled to: the figures of the team
    attacking that end (of either team while the ends are not known) standing offside, but
    for those that may have played it (their bases within reach of the ball), are left to the
    referee, who saw who played it and when."""
    if d[0] == 0.0:  # straight across: forward for neither
        return state, []
    end = next(e for e, sign in END_SIGN.items() if sign * float(d[0]) > 0)
    teams = (HOME, AWAY) if not state.ends.settled else (other_team(state.defender_of(end)),)
    reach = play.ball_radius_mm + state.pitch.profile.base_radius_mm + UNSEEN_STRIKER_MM
    gap = np.hypot(*(play.figures.xy_mm - np.asarray(play.ball_xy_mm)).T)
    calls: list[Call] = []
    for team in teams:
        strikers = play.figures.id[(play.figures.team == team) & (gap <= reach)]
        calls += _judge_offside(state, replace(play, team=team), end, strikers)[1]
    return state, calls


def offside_margins_mm(
    state: MatchState, play: PendingPlay, end: str
) -> tuple[np.ndarray, np.ndarray]:
    """Offside margin ``(n,)`` of each figure at the moment of ``play`` (> 0: offside;
    ``rules.offside``). Returns the margins and a mask of the figures judged (the playing
    side's other figures)."""
    figs = play.figures
    judged = (figs.team == play.team) & (figs.id != play.figure_id) & ~figs.goalkeeper
    geometry = offside_geometry(
        state.pitch, end, figs, play.team, play.ball_xy_mm, play.ball_radius_mm
    )
    return geometry.margin_mm, judged


def _misplaced(state: MatchState, figs: Figures, end: str) -> np.ndarray:
    """Field figures ``(n,)`` the referee puts back once the ball rests (FISTF 2.1.2): on or
    in the goal area at ``end``, or in its goal."""
    pitch = state.pitch
    area = zone_overlap_margin_mm(pitch, f"goal_area_{end}", figs.xy_mm, figs.radius_mm) > 0
    return (area | is_goal_over(pitch, end, figs.xy_mm, 0.0)) & ~figs.goalkeeper


def _judge_offside(
    state: MatchState, play: PendingPlay, end: str, strikers: np.ndarray | None = None
) -> tuple[MatchState, list[Call]]:
    """Offside calls of ``play`` toward ``end``; an unseen play names the ids of the figures
    that may have played it (``strikers``), and leaves every call to the referee."""
    margins, judged = offside_margins_mm(state, play, end)
    f_unc = play.figure_uncertainty_mm
    unc = float(np.hypot(f_unc, max(f_unc, play.ball_uncertainty_mm)))
    # An attacker standing where the referee would have put it back before the pass (2.1.2)
    # is judged where it is not meant to stand, and often is not: vision took the keeper of
    # that goal twice. Its call is left to the referee, as is every call of an unseen play.
    uncs = np.where(_misplaced(state, play.figures, end), np.hypot(unc, margins), unc)
    listed = judged & (margins > -uncs)
    note = ""
    if strikers is not None:
        listed &= ~np.isin(play.figures.id, strikers)
        uncs = np.hypot(uncs, margins)
        note = "the play was not seen: who played the ball is for the referee"
    assert play.team is not None
    defender = other_team(play.team)
    calls: list[Call] = []
    for row in np.flatnonzero(listed):
        m, u = float(margins[row]), float(uncs[row])
        fig = FigureRef.of(play.figures, int(row))
        calls.append(
            Call(
                play.frame,
                play.t_s,
                "offside",
                "FISTF 13.1",
                margin_mm=m,
                uncertainty_mm=u,
                too_close_to_call=is_too_close(m, u),
                team=defender,
                restart="free_kick",
                position=(fig.x_mm, fig.y_mm),
                figure=fig,
                note=note,
            )
        )
    sure = [c for c in calls if not c.too_close_to_call]
    if not sure:
        return state, calls
    worst = max(sure, key=lambda c: c.margin_mm or 0.0)
    assert worst.position is not None
    restart = Restart("free_kick", defender, worst.position, "FISTF 13.1")
    return replace(state.ball_dead(), restart=restart, possession=defender), calls
