"""The FISTF Subuteo rule set as a pure reducer: ``step(state, observation) -> (state, calls)``.

Usage::

    state = MatchState.new(MatchConfig(pitch))  # picked up in play; start="kick_off" for a
                                                # match the referee starts from its kick-off
    for obs in observations:
        state, calls = step(state, obs)

The observations name figures by kit (vision's team index); the rules name the teams by the
ends they defend, a belief kept with its evidence (``rules.fistf_ends``): ``home`` defends
``MatchConfig.home_end``. Each step applies the rules in this order (when several can fire on
one frame):

0. **Ends**: the weak prior of where the kits stand, a kick-off line-up (4.2.1), then the
   frame's figures named after the belief. A play judged below may flip an unsettled belief
   before it is judged (offside, 13.1; a goal, 7.1/10).

1. **Clock** (FISTF 3, DESIGN.md 6): advance by this frame's timestamp (corrected once the
   frame is judged: play resumed or stopped between the last frame and this one, or an offside
   stopped it at the pass; see ``rules.clock``).
2. **Ball track**: remember where the ball was last seen and how fast it went (a ball placed
   only to within more than its radius, a prediction through an occlusion, is not seen).
   A match picked up in play (``MatchConfig.start``, DESIGN.md 4) that has seen no touch yet
   first looks for a kick-off set up (4.2, ``rules.fistf_kickoff``): then the ball is dead.
   Its ball is not seen until it is seen in play: one first seen wholly over a line left
   play before the first frame, or is not the ball.
3. **Dead ball**: while a restart is pending, wait for its taking flick and check the set-up
   (4.2, 11.2, 12.2, 14.2, 15.2, 16.2, distances of the general guidelines).
4. **Play** (ball in play): this frame's contacts: possession (5.1, 6.1), the attacker's foul
   (5.3), defensive moves (6.2), the three-touch limit (5.2, 8.1.3); then the direction of the
   last play: kick-off forward (4.2.3), offside (13.1).
5. **Lines** (ball still in play): goal (7), ball out (14.1, 15.1, 16.1), the hidden ball in a
   goal, the close-call watch; the goal kick leaving its area (15.2.4).
6. **Placement** (ball at rest): figures off the cloth or in a goal area (2.1).
7. **Period end**: half-time, full time, extra time (3.1, 3.3) once the clock allows it.

Frames after full time produce no calls.
"""

from __future__ import annotations

from dataclasses import replace

from rules import clock as clk
from rules import fistf_ends as ends
from rules.calls import Call
from rules.fistf_kickoff import see_kick_off
from rules.fistf_lines import check_lines, close_watch, in_doubt, watch_in_doubt
from rules.fistf_play import apply_contacts, note_unseen_play, resolve_pending_play
from rules.fistf_setpiece import placement_notices, take_restart, watch_goal_kick
from rules.fistf_state import BallTrack, MatchConfig, MatchState, PendingPlay, Restart
from rules.geometry import boundary_margins_mm, other_end
from rules.observation import Observation, other_team

MAX_BACK_FRAMES = 4  # a crossing is dated at most this many frame intervals back
NOTICES = ("close_call", "figure_placement", "distance")  # calls that set no restart

__all__ = [
    "MatchConfig",
    "MatchState",
    "add_time",
    "close",
    "number_calls",
    "referee_decision",
    "step",
]


def step(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    """Apply one observation; return the new state and the calls it produced (in order).

    While the referee holds the match (``MatchState.hold``: not started, or paused) the clock
    stands and nothing is judged; the ball is still followed, so that play resumes from where
    it lies. Each call gets its number in the match (``Call.id``); ``restart_call`` names the
    call a new pending restart follows from.
    """
    if state.hold is not None:
        clock = clk.tick(state.clock, obs.t_s, False)
        ball = _track(state.ball, _sighting(state, obs))
        return replace(state, clock=clock, ball=ball, ball_went_out=False), []
    before = state.restart
    state, calls = _judge(state, obs)
    return number_calls(state, calls, before)


def close(state: MatchState) -> tuple[MatchState, list[Call]]:
    """The end of what is seen (a recording's last frame): the notices still pending, given
    now (a ball come to rest in the close-call band: ``rules.fistf_lines.close_watch``)."""
    before = state.restart
    state, calls = close_watch(state)
    return number_calls(state, calls, before)


def number_calls(
    state: MatchState, calls: list[Call], restart_before: Restart | None
) -> tuple[MatchState, list[Call]]:
    """Give ``calls`` their numbers in the match and note the call a new restart follows from
    (the last call that is not a notice)."""
    if state.restart is not None and state.open_offsides:
        state = replace(state, open_offsides=frozenset())  # the ball is dead: play moved on
    if not calls:
        if state.restart is None and state.restart_call is not None:
            state = replace(state, restart_call=None)
        return state, calls
    first = state.calls_made + 1
    calls = [replace(c, id=first + i) for i, c in enumerate(calls)]
    restart_call = state.restart_call
    if state.restart is None:
        restart_call = None
    elif state.restart is not restart_before:
        deciding = [c for c in calls if c.kind not in NOTICES or c.too_close_to_call]
        restart_call = deciding[-1].id if deciding else restart_call
    open_offsides = state.open_offsides
    if state.restart is None:  # play goes on: the referee may still flag it (13.1)
        close = {c.id for c in calls if c.kind == "offside" and c.too_close_to_call}
        open_offsides = open_offsides | close if close else open_offsides
    return replace(
        state,
        calls_made=first + len(calls) - 1,
        restart_call=restart_call,
        open_offsides=open_offsides,
    ), calls


def _judge(state: MatchState, obs: Observation) -> tuple[MatchState, list[Call]]:
    if state.finished:
        return state, []
    # A ball that may be another object is watched near the lines, and else unseen.
    doubtful = obs if in_doubt(obs) else None
    kits = _sighting(state, obs)
    state = ends.prior(state, kits)
    state = see_kick_off(state, kits)
    obs = ends.named(state, kits)
    home_kit = state.ends.home_kit
    in_play = state.restart is None
    before, play = state.clock, state.pending_play
    state = replace(
        state,
        clock=clk.tick(before, obs.t_s, in_play and obs.ball_moving, obs.ball_switch_before_s),
        ball_went_out=False,
    )
    calls: list[Call] = []
    if state.restart is not None:
        state, new = take_restart(state, obs)
        calls += new
        if state.restart is None:  # play resumed between the last frame and this one
            clock = replace(before, started=state.clock.started)
            switch = obs.ball_switch_before_s
            state = replace(state, clock=clk.tick(clock, obs.t_s, obs.ball_moving, switch))
    else:
        state, new = apply_contacts(state, obs)
        calls += new
        if state.restart is None:
            if doubtful is None:
                state = note_unseen_play(state, obs)
            state, new = resolve_pending_play(state, obs)
            calls += new
        if state.restart is None:
            if doubtful is None:
                state, new = check_lines(state, obs)
            else:
                state, new = watch_in_doubt(state, doubtful)
            calls += new
        if state.restart is None:
            state, new = watch_goal_kick(state, obs)
            calls += new
        if state.restart is not None:
            state = replace(state, clock=_stopped(state, before, obs, play, calls))
    if state.ends.home_kit != home_kit:  # a play judged above flipped the ends
        obs = ends.named(state, kits)
    state = _date_pending_play(state, obs)
    state = replace(state, ball=_track(state.ball, obs))
    state, new = placement_notices(state, obs)
    calls += new
    state, new = _period_end(state, obs, calls)
    return state, calls + new


def _sighting(state: MatchState, obs: Observation) -> Observation:
    """The observation as the rules may use it: a ball placed only to within more than its
    radius (a prediction through an occlusion, such as a ball rolling under a goal's net) is
    no sighting, so the rules treat it as hidden (DESIGN.md 3: decide from what is seen).

    Nor is a first sighting, in a match picked up in play (DESIGN.md 4), of a ball wholly
    over a boundary line: such a ball left play before the first frame, its crossing and
    the touch before it unseen (a goal, 7.1, and the ball out, 14.1, 15.1 and 16.1, are
    decided from both), or it is not the ball
    (a ball-like object by a goal, taken for it before anything rolled). Play is open; the
    ball counts once it is seen in play."""
    if obs.ball_xy_mm is None:
        return obs
    if obs.ball_uncertainty_mm > obs.ball_radius_mm or _out_before(state, obs):
        return replace(obs, ball_xy_mm=None)
    return obs


def _out_before(state: MatchState, obs: Observation) -> bool:
    """The ball, never seen yet in a match picked up in play, lies wholly over a boundary
    line (a goal line, between the posts too), for its uncertainty."""
    if not (state.unseen_play and state.ball.xy_mm is None):
        return False
    assert obs.ball_xy_mm is not None
    margins = boundary_margins_mm(state.pitch, obs.ball_xy_mm, obs.ball_radius_mm)
    return max(margins.values()) > state.line_uncertainty(obs)


def _stopped(
    state: MatchState,
    before: clk.Clock,
    obs: Observation,
    play: PendingPlay | None,
    calls: list[Call],
) -> clk.Clock:
    """The clock stopped at the moment play stopped, which may lie before this frame.

    An offside (13.1) stops play at the pass: the clock goes back to its reading on the pass's
    frame. A ball wholly over a line stopped play when it crossed: the margins on this frame
    and the one before date the crossing (linearly, back to a margin of 0, which may lie a few
    frames back when the margin first had to exceed its uncertainty; a ball hidden under a
    crossbar from its last sighting's margin and speed), and the time after it is taken back.
    Anything else stops the clock at this frame.
    """
    clock = state.clock
    if play is not None and play.elapsed_s is not None:
        if any(c.kind == "offside" and not c.too_close_to_call for c in calls):
            return clk.stop(clock, play.elapsed_s)
    if not (state.ball_went_out and before.last_running and before.last_t_s is not None):
        return clk.stop(clock)
    dt = obs.t_s - before.last_t_s
    crossed_s = _crossing_s(state, obs, dt) if dt > 0 else None
    if crossed_s is None:  # decided on something else than a crossing
        return clk.stop(clock)
    # Within this interval, or a few frames earlier when the margin had to grow past its
    # uncertainty first (or the ball was hidden).
    hidden_s = max(obs.t_s - dt - state.ball.t_s, 0.0)
    back_s = min(obs.t_s - crossed_s, MAX_BACK_FRAMES * dt + hidden_s)
    return clk.stop(clock, clock.elapsed_s - max(back_s, 0.0))


def _crossing_s(state: MatchState, obs: Observation, dt: float) -> float | None:
    """When the ball crossed the line it went out over: back along its last step to where the
    margin was 0, or, hidden now (under a crossbar), on from its last sighting at its speed."""
    prev = state.ball
    if prev.xy_mm is None:
        return None
    before = boundary_margins_mm(state.pitch, prev.xy_mm, prev.radius_mm)
    if obs.ball_xy_mm is not None:
        if prev.frame != obs.frame - 1:
            return None
        now = boundary_margins_mm(state.pitch, obs.ball_xy_mm, obs.ball_radius_mm)
        line = max(now, key=now.__getitem__)
        m1, rate = now[line], (now[line] - before[line]) / dt
        if not (m1 > 0 and rate > 0):
            return None
        return obs.t_s - m1 / rate
    if not prev.moving:
        return None
    line = max(before, key=before.__getitem__)
    step_s = 0.01
    ahead = (prev.xy_mm[0] + prev.v_mm_s[0] * step_s, prev.xy_mm[1] + prev.v_mm_s[1] * step_s)
    rate = (boundary_margins_mm(state.pitch, ahead, prev.radius_mm)[line] - before[line]) / step_s
    return prev.t_s - before[line] / rate if rate > 0 else None


def _date_pending_play(state: MatchState, obs: Observation) -> MatchState:
    """Note the clock's reading on the frame of a new play (an offside stops the clock there)."""
    play = state.pending_play
    if play is None or play.frame != obs.frame or play.elapsed_s is not None:
        return state
    return replace(state, pending_play=replace(play, elapsed_s=state.clock.elapsed_s))


def _track(ball: BallTrack, obs: Observation) -> BallTrack:
    if obs.ball_xy_mm is None:
        return replace(ball, hidden_frames=ball.hidden_frames + 1)
    v = (0.0, 0.0)
    if ball.xy_mm is not None and obs.t_s > ball.t_s:
        dt = obs.t_s - ball.t_s
        v = ((obs.ball_xy_mm[0] - ball.xy_mm[0]) / dt, (obs.ball_xy_mm[1] - ball.xy_mm[1]) / dt)
    return BallTrack(
        obs.ball_xy_mm,
        v,
        obs.frame,
        obs.t_s,
        obs.ball_radius_mm,
        obs.ball_uncertainty_mm,
        obs.ball_moving,
        0,
    )


def _period_end(
    state: MatchState, obs: Observation, calls: list[Call]
) -> tuple[MatchState, list[Call]]:
    """Half-time, full time or extra time (FISTF 3.1, 3.3) when the clock allows."""
    clock, cfg = state.clock, state.config
    sudden_death = clock.period == 3 and any(c.kind == "goal" for c in calls)
    restart = state.restart
    penalty = restart is not None and restart.kind == "penalty"
    penalty = penalty or (state.live_set_piece is not None and state.live_set_piece[0] == "penalty")
    if not (sudden_death or clk.period_ends_now(clock, state.ball_went_out, penalty)):
        return state, []
    home, away = state.score
    if clock.period == 1:
        kicker = other_team(state.first_kick_off) if state.first_kick_off is not None else None
        added = cfg.added_time_s if cfg.clock_mode == "running" else 0.0
        home_end = other_end(state.home_end) if cfg.swap_ends else state.home_end
        call = Call(
            obs.frame,
            obs.t_s,
            "half_time",
            "FISTF 3.1",
            team=kicker,
            restart="kick_off",
            position=(0.0, 0.0),
        )
        new = replace(
            state.ball_dead(),
            clock=clk.next_period(clock, cfg.half_length_s, added),
            home_end=home_end,
            restart=Restart("kick_off", kicker, (0.0, 0.0), "FISTF 4.1"),
            possession=kicker,
        )
        return new, [call]
    if clock.period == 2 and home == away and cfg.extra_time:
        call = Call(
            obs.frame,
            obs.t_s,
            "full_time",
            "FISTF 3.3",
            restart="kick_off",
            position=(0.0, 0.0),
            note="draw: extra time, sudden death",
        )
        new = replace(
            state.ball_dead(),
            clock=clk.next_period(clock, cfg.extra_time_length_s),
            restart=Restart("kick_off", None, (0.0, 0.0), "FISTF 4.1"),
            possession=None,
        )
        return new, [call]
    note = f"{home}:{away}"
    if clock.period == 3 and home == away:
        note += ", free-kick shoot-out (FISTF 17) follows"
    call = Call(obs.frame, obs.t_s, "full_time", "FISTF 3.1", note=note)
    return replace(state.ball_dead(), finished=True, restart=None), [call]


def add_time(state: MatchState, seconds: float) -> MatchState:
    """The referee adds lost time to the current period (FISTF 3.2, ``running`` mode)."""
    return replace(state, clock=clk.add_time(state.clock, seconds))


def referee_decision(state: MatchState, call: Call, upheld: bool) -> tuple[MatchState, list[Call]]:
    """Settle a too-close-to-call goal with the referee's word.

    Args:
        state: a state waiting for the referee (its restart is ``"referee"``).
        call: the too-close ``goal`` / ``goal_disallowed`` call being settled.
        upheld: True when the referee gives the goal.

    Returns:
        The state with the score and the restart set, and the confirming call.

    Raises:
        ValueError: the state is not waiting for a referee decision.
    """
    restart = state.restart
    if restart is None or restart.kind != "referee" or restart.end is None:
        raise ValueError("no call waits for the referee; settle a too-close goal call only")
    end = restart.end
    defender = state.defender_of(end)
    scorer = other_team(defender)
    if upheld:
        score = list(state.score)
        score[scorer] += 1
        new_restart = Restart("kick_off", defender, (0.0, 0.0), "FISTF 4.1")
        confirm = replace(
            call,
            kind="goal",
            team=scorer,
            restart="kick_off",
            too_close_to_call=False,
            note="given by the referee",
        )
        return replace(
            state, score=(score[0], score[1]), restart=new_restart, possession=defender
        ), [confirm]
    if call.line != "shooting_line":
        # A hidden ball the referee says was not over: play goes on from where it lies.
        confirm = replace(
            call,
            kind="close_call",
            too_close_to_call=False,
            restart=None,
            note="not over, by the referee",
        )
        return replace(state, restart=replace(restart, end=None)), [confirm]
    p = state.pitch.profile
    sx = -1.0 if end == "left" else 1.0
    spot = (sx * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm), 0.0)
    new_restart = Restart("goal_kick", defender, spot, "FISTF 7.2", end)
    confirm = replace(
        call,
        kind="goal_disallowed",
        team=defender,
        restart="goal_kick",
        position=spot,
        too_close_to_call=False,
        note="not given by the referee",
    )
    return replace(state, restart=new_restart, possession=defender), [confirm]
