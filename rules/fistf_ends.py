"""Which end each team defends: a belief with its evidence, not an assumption.

Vision tells the two kits apart and numbers them (``Figures.team`` of an observation: the kit,
0 or 1); which of them defends which goal it cannot see. At a kick-off each team stands in its
own half, but in a clip picked up in play the figures stand anywhere, so the kit whose bases
stand mostly in one half is no better than a coin toss. The names in calls follow the ends
(DESIGN.md 3): ``home`` is the team defending the configured home end (``MatchConfig.home_end``,
the left goal unless configured; the other one after the change of ends), whichever kit it
wears. The rules work in those names: each observation's kits are named by the current belief
(``named``), a rod goalkeeper by the goal it stands in (it keeps that goal whatever its kit).

The belief (``Ends``) is settled, and then kept, by

1. the configured home kit (``MatchConfig.home_kit``), or a kick-off line-up (FISTF 4.2.1: each
   team wholly in its own half), seen in a clip picked up in play or at the referee's start
   (``MatchConfig.start="kick_off"``: the first frame showing both kits' figures finds them in
   their own halves, the referee starts the match from that kick-off);
2. the ball entering a goal after a flick: goals are scored by attackers (FISTF 7.1, 10), so the
   team of the last flick attacks that goal. An own goal played from outside the shooter's own
   shooting zone across the pitch, or a defender flicking into its own goal from inside its own
   zone, is rarer than a kit named wrongly; a settled belief still gives an own goal as one.

Until then it is weighed from

3. a flick from inside a shooting zone toward that zone's goal (within ``TOWARD_GOAL_DEG`` of
   the line from the ball to the goal's centre: a shot, or a pass on into the area in front of
   it), an attacker's play on that goal (FISTF 13.1: the play offside is judged on). Each such
   play counts for the ends it makes sense with; a play that only makes sense with the other
   assignment flips the belief once such plays against it outnumber those for it, *before*
   the play is judged, so the offside (13.1) and the goal (7.1, 10) are judged with the right
   ends. A set piece or a goalkeeper's touch says nothing (a keeper's team is its goal's);
4. a weak prior before any of that: the kit whose outfield figures stand on average nearer the
   home end is home. It never settles the ends.

Calls keep the names of the belief at the time they are made (past calls are not rewritten).
The score follows the ends: each goal is the attacker's of the goal it entered.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from rules.fistf_state import Ends, MatchState, PendingPlay, Touch
from rules.geometry import other_end, shooting_margin_mm
from rules.observation import Figures, Observation, other_team
from rules.pitch import END_SIGN

TOWARD_GOAL_DEG = 45.0  # a play within this angle of the goal's centre heads at the goal

__all__ = [
    "TOWARD_GOAL_DEG",
    "Ends",
    "attacker_on_goal",
    "line_up_home_kit",
    "named",
    "prior",
    "see_goal",
    "see_play",
    "settle",
]


def named(state: MatchState, obs: Observation) -> Observation:
    """The observation with each figure's kit replaced by its team's name (``HOME``/``AWAY``).

    Outfield figures are named by the belief; a goalkeeper by the goal it keeps (the end on
    its side of the halfway line): its own kit says nothing of its team.
    """
    figs = obs.figures
    if len(figs) == 0:
        return obs
    home_kit = state.ends.home_kit
    by_kit = np.where(figs.team == home_kit, 0, 1)
    keeper_end = np.where(figs.xy_mm[:, 0] * END_SIGN[state.home_end] > 0, 0, 1)
    team = np.where(figs.goalkeeper, keeper_end, by_kit).astype(np.int8)
    return replace(obs, figures=replace(figs, team=team))


def prior(state: MatchState, obs: Observation) -> MatchState:
    """The weak prior (see the module docstring, 4): only while nothing else is known."""
    if state.ends.basis != "none":
        return state
    figs = obs.figures
    outfield = ~figs.goalkeeper
    means = []
    for kit in (0, 1):
        mine = outfield & (figs.team == kit)
        if not mine.any():
            return state
        means.append(float(figs.xy_mm[mine, 0].mean()) * END_SIGN[state.home_end])
    home_kit = 1 if means[1] > means[0] else 0  # x * sign grows toward the home end
    restart = state.restart
    # The referee started the match from its kick-off: the teams stand in their own halves.
    referee = state.config.start == "kick_off" and restart is not None
    referee = referee and restart.kind == "kick_off" and state.clock.period == 1
    return replace(state, ends=Ends(home_kit, "referee" if referee else "figures"))


def line_up_home_kit(state: MatchState, obs: Observation) -> int | None:
    """The kit lined up in the home end's half at a kick-off (FISTF 4.2.1), or None.

    Each kit shows at least one outfield figure and none stands wholly in the other half (for
    the figures' position uncertainty; one reaching over the halfway line is a fault of a
    kick-off set up, not another line-up). Goalkeepers stand in their goals and do not count.
    """
    figs, pitch = obs.figures, state.pitch
    outfield = ~figs.goalkeeper
    halfway = pitch.line("halfway_line")
    for home_kit in (state.ends.home_kit, other_team(state.ends.home_kit)):
        halves = ((home_kit, state.home_end), (other_team(home_kit), other_end(state.home_end)))
        lined_up = True
        for kit, own in halves:
            mine = outfield & (figs.team == kit)
            if not mine.any():
                return None
            xy, r = figs.xy_mm[mine], figs.radius_mm[mine]
            across = halfway.beyond_edge_mm(xy, -END_SIGN[own]) - r  # wholly in the other half
            lined_up = lined_up and not (across > obs.figure_uncertainty_mm).any()
        if lined_up:
            return home_kit
    return None


def settle(state: MatchState, home_kit: int, basis: str) -> MatchState:
    """Settle the ends on ``home_kit`` (a kick-off line-up, a goal, the referee's start)."""
    if home_kit != state.ends.home_kit:
        state = _flip(state)
    return replace(state, ends=Ends(home_kit, basis))


def attacker_on_goal(state: MatchState, play: PendingPlay, d_mm: np.ndarray) -> str | None:
    """The goal ``play`` attacks, when it is a flick from inside a shooting zone toward that
    zone's goal (module docstring, 3); None when it says nothing of the ends."""
    if play.set_piece is not None:
        return None
    row = play.figures.index_of(play.figure_id)
    if row is None or bool(play.figures.goalkeeper[row]):
        return None
    pitch, r = state.pitch, play.ball_radius_mm
    for end, sx in END_SIGN.items():
        if float(shooting_margin_mm(pitch, end, play.ball_xy_mm, r)[0]) <= 0:
            continue
        goal = pitch.goal(end)
        to_goal = np.subtract(
            (goal.x_line_mm, 0.5 * (goal.y_min_mm + goal.y_max_mm)), play.ball_xy_mm
        )
        cos = float(np.dot(d_mm, to_goal)) / (np.hypot(*d_mm) * np.hypot(*to_goal) + 1e-9)
        if cos >= math.cos(math.radians(TOWARD_GOAL_DEG)) and float(d_mm[0]) * sx > 0:
            return end
    return None


def see_play(state: MatchState, d_mm: np.ndarray) -> MatchState:
    """Weigh the pending play, whose ball has moved by ``d_mm``, as evidence (3); flip the
    belief first when plays against it now outnumber plays for it."""
    play, ends = state.pending_play, state.ends
    if play is None or play.team is None or ends.settled:
        return state
    end = attacker_on_goal(state, play, d_mm)
    if end is None:
        return state
    if state.attacked_end(play.team) == end:
        return replace(state, ends=replace(ends, basis="play", support=ends.support + 1))
    if ends.support > 0:
        return replace(state, ends=replace(ends, support=ends.support - 1))
    state = _flip(state)
    return replace(state, ends=Ends(state.ends.home_kit, "play", 1))


def see_goal(state: MatchState, end: str) -> MatchState:
    """The ball entered the goal of ``end`` after a flick (2): its team attacks that goal."""
    flick = state.last_flick
    if state.ends.settled or flick is None:
        return state
    if state.attacked_end(flick.team) != end:
        state = _flip(state)
    return replace(state, ends=Ends(state.ends.home_kit, "goal"))


def _flip(state: MatchState) -> MatchState:
    """The other kit is home: rename what the rules remember of the teams.

    A name taken from a kit (an outfield figure, its touch, the possession it won, a set piece
    it took) changes; one taken from an end does not (a goalkeeper's, the score, a restart
    awarded at a goal).
    """
    last = state.last_touch
    keeper_touch = last is not None and last.goalkeeper
    possession = state.possession
    if possession is not None and not (
        keeper_touch and last is not None and last.team == possession
    ):
        possession = other_team(possession)
    live = state.live_set_piece
    if live is not None and not keeper_touch:
        live = (live[0], other_team(live[1]))
    first = state.first_kick_off
    return replace(
        state,
        ends=replace(state.ends, home_kit=other_team(state.ends.home_kit)),
        possession=possession,
        last_touch=_touch(last),
        last_flick=_touch(state.last_flick),
        live_set_piece=live,
        pending_play=_pending(state.pending_play),
        first_kick_off=None if first is None else other_team(first),
    )


def _touch(t: Touch | None) -> Touch | None:
    if t is None or t.goalkeeper:
        return t
    return replace(t, team=other_team(t.team))


def _pending(play: PendingPlay | None) -> PendingPlay | None:
    if play is None:
        return None
    if play.team is None:  # an unseen play: only its figures' kits are renamed
        return replace(play, figures=_swap_outfield(play.figures))
    figs = _swap_outfield(play.figures)
    row = figs.index_of(play.figure_id)
    keeper = row is not None and bool(figs.goalkeeper[row])
    return replace(play, figures=figs, team=play.team if keeper else other_team(play.team))


def _swap_outfield(figs: Figures) -> Figures:
    team = np.where(figs.goalkeeper, figs.team, 1 - figs.team).astype(np.int8)
    return replace(figs, team=team)
