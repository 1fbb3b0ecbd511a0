"""Seeing a kick-off set up (FISTF 4.2) in a match picked up in play.

A clip may start anywhere (DESIGN.md 4), so the rules start in open play
(``MatchConfig.start``) and take a flick for a kick-off only when they *see* one set up. FISTF
4.2 says what that looks like:

- 4.2.3 "Der Ball wird auf den Mittelpunkt gelegt": the ball lies on the centre spot. Read for
  a camera: the ball is seen at rest and its footprint covers the spot's centre (within the
  ball's position uncertainty).
- 4.2.1 "Die Spielfiguren der beiden Spieler müssen vollständig in ihrer eigenen Spielhälfte
  stehen": each player's figures stand in its own half. Read for recognition: each team shows
  at least one outfield figure, and no outfield figure stands wholly in the other half (for the
  figures' position uncertainty). A figure that only reaches over the halfway line, or a
  defender in the centre circle, still counts as set up, so those faults of 4.2.1 are called
  at the taking flick (``fistf_setpiece``); a figure wholly across means the teams are not
  lined up for a kick-off.

Goalkeepers stand in their goals and are not counted. Which team kicks off is not seen (the
attacker, 4.2.2, is whoever flicks first): the restart names no team.

Only a ball nobody has touched yet is looked at: once play is seen, every kick-off follows a
goal or a half-time the rules decided themselves.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rules.fistf_state import MatchState, Restart
from rules.observation import AWAY, HOME, Observation
from rules.pitch import END_SIGN

__all__ = ["is_kick_off_set_up", "see_kick_off"]


def is_kick_off_set_up(state: MatchState, obs: Observation) -> bool:
    """Whether this frame shows a kick-off set up (see the module docstring, FISTF 4.2)."""
    if obs.ball_xy_mm is None or obs.ball_moving:
        return False
    pitch = state.pitch
    spot = pitch.line("centre_spot").a_mm
    off_spot = float(np.hypot(obs.ball_xy_mm[0] - spot[0], obs.ball_xy_mm[1] - spot[1]))
    if off_spot > obs.ball_radius_mm + obs.ball_uncertainty_mm:
        return False
    figs = obs.figures
    outfield = ~figs.goalkeeper
    halfway = pitch.line("halfway_line")
    for team in (HOME, AWAY):
        mine = outfield & (figs.team == team)
        if not mine.any():
            return False
        other_side = -END_SIGN[state.defended_end(team)]
        across = halfway.beyond_edge_mm(figs.xy_mm[mine], other_side) - figs.radius_mm[mine]
        if (across > obs.figure_uncertainty_mm).any():
            return False
    return True


def see_kick_off(state: MatchState, obs: Observation) -> MatchState:
    """In a match picked up in play with nothing touched yet, a kick-off set up makes the ball
    dead until its taking flick (FISTF 4.2); otherwise the state is returned unchanged."""
    if not (state.unseen_play and state.last_touch is None and state.restart is None):
        return state
    if not is_kick_off_set_up(state, obs):
        return state
    restart = Restart("kick_off", None, (0.0, 0.0), "FISTF 4.2")
    return replace(state.ball_dead(), restart=restart, possession=None)
