"""The button-football shoot-out (BF Elfmeterschießen).

After a draw at full time: five penalties a team, alternately (the first half's kick-off team
first), each a called shot from the spot; every button of a team shoots once before any shoots
a second time. It ends as soon as one team can no longer catch up; level after five each, it goes
on in sudden death, round by round. A kick is decided when the ball goes in (a goal), or goes
out or comes to rest (no goal).
"""

from __future__ import annotations

from dataclasses import replace

from rules.button_state import LAWS, ButtonState, Restart, ShootOut, Spots
from rules.calls import Call, FigureRef
from rules.geometry import boundary_margins_mm, goal_margin_mm, is_between_posts
from rules.observation import Observation, other_team, team_name


def start_shoot_out(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """Full time on a draw: the shoot-out begins."""
    first = state.first_kick_off if state.first_kick_off is not None else 0
    shoot_out = ShootOut(first)
    home, away = state.score
    call = Call(
        obs.frame,
        obs.t_s,
        "full_time",
        LAWS["shoot_out"],
        team=first,
        restart="penalty",
        note=f"{home}:{away}, shoot-out",
    )
    state = state.dead(_penalty(state, first), ())
    return replace(state, shoot_out=shoot_out), [replace(call, position=state.restart.xy_mm)]


def _penalty(state: ButtonState, team: int) -> Restart:
    end = state.attacked_end(team)
    return Restart("penalty", team, Spots(state.pitch).penalty(end), LAWS["shoot_out"], end)


def shoot_out_step(state: ButtonState, obs: Observation) -> tuple[ButtonState, list[Call]]:
    """One frame of the shoot-out."""
    so = state.shoot_out
    assert so is not None
    if state.restart is not None:
        return _take(state, obs, so)
    if obs.ball_xy_mm is None or so.taker is None:
        return state, []
    end = state.attacked_end(so.next_team)
    xy, r = obs.ball_xy_mm, obs.ball_radius_mm
    unc = state.line_uncertainty(obs.ball_uncertainty_mm)
    margin = float(goal_margin_mm(state.pitch, end, xy, r)[0])
    scored = margin > unc and bool(is_between_posts(state.pitch, end, xy)[0])
    out = max(boundary_margins_mm(state.pitch, xy, r).values()) > unc
    if not (scored or out or (state.ball_moving and not obs.ball_moving)):
        return state, []
    return _decided(state, obs, so, scored, margin, unc)


def _take(state: ButtonState, obs: Observation, so: ShootOut) -> tuple[ButtonState, list[Call]]:
    flick = next((c for c in obs.contacts if c.kind == "flick" and c.on_ball), None)
    if flick is None:
        return state, []
    team = so.next_team
    row = obs.figures.index_of(flick.figure_id)
    buttons = {
        int(i)
        for i, t, k in zip(obs.figures.id, obs.figures.team, obs.figures.goalkeeper, strict=True)
        if t == team and not k
    }
    mine = [fid for t, fid, _ in so.kicks if t == team]
    n = max(len(buttons | set(mine)), 1)
    this_round = set(mine[len(mine) - len(mine) % n :])
    if flick.figure_id in this_round:
        note = f"button {flick.figure_id} already shot; every {team_name(team)} button first"
        call = Call(
            obs.frame,
            obs.t_s,
            "set_piece_fault",
            LAWS["shoot_out"],
            team=team,
            restart="penalty",
            position=state.restart.xy_mm,
            figure=FigureRef.of(obs.figures, row),
            note=note,
        )
        return state, [call]
    return replace(state, restart=None, shoot_out=replace(so, taker=flick.figure_id)), []


def _decided(state, obs, so: ShootOut, scored: bool, margin: float, unc: float):
    team = so.next_team
    so = replace(so, kicks=(*so.kicks, (team, so.taker, scored)), taker=None)
    h, a = so.goals(0), so.goals(1)
    kind = "goal" if scored else "goal_disallowed"
    call = Call(
        obs.frame,
        obs.t_s,
        kind,
        LAWS["shoot_out"],
        line="goal_line",
        fully_crossed=margin > 0,
        margin_mm=margin,
        uncertainty_mm=unc,
        team=team,
        note=f"shoot-out {h}:{a}",
    )
    winner = _winner(so, state.config.shots_per_team)
    if winner is not None:
        end = Call(
            obs.frame,
            obs.t_s,
            "full_time",
            LAWS["shoot_out"],
            team=winner,
            note=f"{state.score[0]}:{state.score[1]}, shoot-out {h}:{a}, {team_name(winner)} wins",
        )
        return replace(state, shoot_out=so, finished=True, restart=None), [call, end]
    restart = _penalty(state, so.next_team)
    call = replace(call, restart="penalty", position=restart.xy_mm)
    return replace(state.dead(restart, ()), shoot_out=so), [call]


def _winner(so: ShootOut, shots: int) -> int | None:
    """The team that won, once the other can no longer catch up; None while open."""
    goals = [so.goals(0), so.goals(1)]
    taken = [so.taken(0), so.taken(1)]
    if max(taken) <= shots:
        for t in (0, 1):
            o = other_team(t)
            if goals[o] + (shots - taken[o]) < goals[t]:
                return t
        return None
    if taken[0] == taken[1] and goals[0] != goals[1]:
        return 0 if goals[0] > goals[1] else 1
    return None
