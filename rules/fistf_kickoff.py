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

Which kit stands in which half is not known before (``rules.fistf_ends``): a line-up with either
kit in the home half counts, and settles the ends. Only a ball nobody has touched yet is looked
at for a new kick-off: once play is seen, every kick-off follows a goal or a half-time the rules
decided themselves (a line-up seen then still settles ends not settled yet).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rules.fistf_ends import line_up_home_kit, settle
from rules.fistf_state import MatchState, Restart
from rules.observation import Observation

__all__ = ["is_kick_off_set_up", "see_kick_off"]


def is_kick_off_set_up(state: MatchState, obs: Observation) -> bool:
    """Whether this frame shows a kick-off set up (see the module docstring, FISTF 4.2).

    ``obs`` names its figures by kit (``rules.fistf_ends``): the line-up may show either kit in
    the home half, unless the ends are already settled.
    """
    return _line_up(state, obs) is not None


def _line_up(state: MatchState, obs: Observation) -> int | None:
    """The kit lined up in the home half with the ball on the centre spot, or None."""
    if obs.ball_xy_mm is None or obs.ball_moving:
        return None
    spot = state.pitch.line("centre_spot").a_mm
    off_spot = float(np.hypot(obs.ball_xy_mm[0] - spot[0], obs.ball_xy_mm[1] - spot[1]))
    if off_spot > obs.ball_radius_mm + obs.ball_uncertainty_mm:
        return None
    kit = line_up_home_kit(state, obs)
    if kit is None or (state.ends.settled and kit != state.ends.home_kit):
        return None
    return kit


def see_kick_off(state: MatchState, obs: Observation) -> MatchState:
    """A kick-off set up, seen on ``obs`` (figures named by kit), settles the ends (each team
    in its own half, 4.2.1); in a match picked up in play with nothing touched yet it also
    makes the ball dead until its taking flick (FISTF 4.2). Otherwise the state is returned
    unchanged."""
    fresh = state.unseen_play and state.last_touch is None and state.restart is None
    waiting = state.restart is not None and state.restart.kind == "kick_off"
    if not (fresh or (waiting and not state.ends.settled)):
        return state
    kit = _line_up(state, obs)
    if kit is None:
        return state
    state = settle(state, kit, "kick_off")
    if not fresh:
        return state
    restart = Restart("kick_off", None, (0.0, 0.0), "FISTF 4.2")
    return replace(state.ball_dead(), restart=restart, possession=None)
