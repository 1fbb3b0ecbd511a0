"""Button football set pieces: the buttons moved while the ball is dead, against the allowance.

While a restart waits, every button displaced more than ``ButtonConfig.moved_mm`` from where
it stood when the ball went dead counts as moved (once, from the first frame it is seen moved).
When the restart is taken the moves are checked (each a ``set_piece_fault`` notice; the text
names no sanction, the referee acts on it):

- kick-off: the kicking team at most two buttons, each wholly in its own half (BF Anstoß);
- corner: three each, the attackers first (BF Ecken); the taker behind the line is free;
- goal kick: four for the team that put the ball out, none for the other (BF Abstöße);
- free kick: none for the fouling team (BF Fouls); the taker at the ball is free;
- penalty: every button but the taker out of the penalty area (BF Elfmeter).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rules.button_state import ButtonState, Toucher
from rules.calls import Call, FigureRef
from rules.observation import Observation, team_name


def note_moves(state: ButtonState, obs: Observation) -> ButtonState:
    """Note the buttons seen moved from their places since the ball went dead."""
    if not state.placed or not len(obs.figures):
        return state
    seen = {int(i): row for row, i in enumerate(obs.figures.id)}
    done = {i for i, _ in state.moved}
    new = []
    for fid, _, x, y in state.placed:
        row = seen.get(fid)
        if row is None or fid in done:
            continue
        dx, dy = obs.figures.xy_mm[row] - (x, y)
        if np.hypot(dx, dy) > state.config.moved_mm:
            new.append((fid, obs.frame))
    return replace(state, moved=state.moved + tuple(new)) if new else state


def check_set_up(state: ButtonState, obs: Observation, taker: Toucher | None) -> list[Call]:
    """The moves before the restart, checked at its taking (see the module docstring)."""
    r = state.restart
    assert r is not None
    team_of = {fid: team for fid, team, _, _ in state.placed}
    free = taker.figure_id if taker is not None and r.taker_free else None
    moved = [(fid, f) for fid, f in state.moved if fid != free and fid in team_of]
    calls: list[Call] = []
    for team, allowance in enumerate(r.allowance):
        mine = [fid for fid, _ in moved if team_of[fid] == team]
        if allowance is not None and len(mine) > allowance:
            calls.append(
                _fault(
                    obs,
                    r.law,
                    mine[allowance],
                    f"{team_name(team)} moved {len(mine)} buttons, {allowance} allowed",
                )
            )
    if r.kind == "kick_off" and r.team is not None:
        own = f"half_{state.defended_end(r.team)}"
        radius = state.pitch.profile.base_radius_mm
        for fid, _ in moved:
            row = obs.figures.index_of(fid)
            if row is None or team_of[fid] != r.team:
                continue
            if float(state.pitch.zone_margin_mm(own, obs.figures.xy_mm[row])[0]) < radius:
                calls.append(_fault(obs, r.law, fid, "a button moved out of its own half"))
    if r.attackers_first and r.team is not None:
        theirs = [f for fid, f in moved if team_of[fid] != r.team]
        ours = [f for fid, f in moved if team_of[fid] == r.team]
        if theirs and ours and min(theirs) < max(ours):
            first = next(fid for fid, f in moved if team_of[fid] != r.team and f == min(theirs))
            calls.append(_fault(obs, r.law, first, "the defenders moved before the attackers"))
    if r.kind == "penalty" and r.end is not None:
        area = f"penalty_area_{r.end}"
        for fid, _, _, _ in state.placed:
            row = obs.figures.index_of(fid)
            if row is None or fid == (taker.figure_id if taker else None):
                continue
            if float(state.pitch.zone_margin_mm(area, obs.figures.xy_mm[row])[0]) > 0:
                calls.append(_fault(obs, r.law, fid, "a button stayed in the penalty area"))
    return calls


def _fault(obs: Observation, law: str, figure_id: int, note: str) -> Call:
    """A notice naming the button (where it stands now, when seen)."""
    row = obs.figures.index_of(figure_id)
    figure = None if row is None else FigureRef.of(obs.figures, row)
    return Call(obs.frame, obs.t_s, "set_piece_fault", law, figure=figure, note=note)
