"""The referee's word as an input of the reducer (``rules.referee``): holds, overrules,
decisions on too-close calls, added time, periods. Each case names the law it applies."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.calls import Call
from rules.fistf import MatchConfig, MatchState
from rules.fistf_state import Restart
from rules.observation import AWAY, HOME
from rules.referee import RefereeAction, RefereeError, apply, awaiting_decision
from tests.rules.conftest import NotationFeed

FIGS = (
    "home 1 gk -605,0; home 7 -23,0; home 8 350,0; away 2 gk 605,0; away 9 60,-100; away 10 150,0"
)
SHOT_X = 373.0  # wholly inside the right shooting zone (line centre 300 mm, ball r 10.5 mm)


class Match(NotationFeed):
    """A state fed notation lines at 50 fps, with the referee's actions in between."""

    figs = FIGS

    def act(self, kind: str, **kw) -> list[Call]:
        self.state, calls = apply(self.state, RefereeAction(kind, **kw))
        self.calls += calls
        return calls

    def roll(self, seconds: float) -> None:
        self(*[f"ball {((i * 4) % 300) - 150},0 moving" for i in range(int(seconds * 50))])

    def goal(self, shot_x: float = SHOT_X) -> Call:
        calls = self(f"ball {shot_x},0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving")
        (goal,) = [c for c in calls if c.kind == "goal"]
        return goal


def in_play(pitch, **config) -> Match:
    state = MatchState.new(MatchConfig(pitch, home_kit=0, **config))
    clock = replace(state.clock, started=True)
    return Match(replace(state, restart=None, possession=HOME, unseen_play=False, clock=clock))


def test_calls_are_numbered_and_the_restart_names_its_call(fistf_pitch):
    match = in_play(fistf_pitch)
    goal = match.goal()
    assert [c.id for c in match.calls] == list(range(1, len(match.calls) + 1))
    assert match.state.calls_made == len(match.calls)
    assert match.state.restart_call == goal.id


def test_an_overruled_goal_comes_off_and_the_defenders_take_a_goal_kick(fistf_pitch):
    """FISTF 7.2.1: a goal not scored as 7.1 says is a goal kick, not a kick-off."""
    match = in_play(fistf_pitch)
    goal = match.goal()
    assert match.state.score == (1, 0) and match.state.restart.kind == "kick_off"
    match.act("overrule", call=goal)
    state = match.state
    assert state.score == (0, 0) and goal.id in state.overruled
    assert (state.restart.kind, state.restart.team, state.restart.law) == (
        "goal_kick",
        AWAY,
        "FISTF 7.2",
    )
    assert state.restart.end == "right" and state.restart.position[0] > 500
    assert state.possession == AWAY
    # Reinstated while its goal kick is still pending: the goal and its kick-off are back (4.1).
    match.act("reinstate", call=goal)
    state = match.state
    assert state.score == (1, 0) and state.overruled == frozenset()
    assert (state.restart.kind, state.restart.team) == ("kick_off", AWAY)


def test_an_overruled_disallowed_goal_counts_and_the_conceding_team_kicks_off(fistf_pitch):
    """FISTF 7.1 / 4.1: the referee gives a goal the rules disallowed (shot from outside)."""
    match = in_play(fistf_pitch)
    calls = match("ball 250,0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving")
    (no_goal,) = [c for c in calls if c.kind == "goal_disallowed"]
    assert match.state.restart.kind == "goal_kick" and match.state.score == (0, 0)
    match.act("overrule", call=no_goal)
    assert match.state.score == (1, 0)
    assert (match.state.restart.kind, match.state.restart.team) == ("kick_off", AWAY)


def test_an_overruled_ball_out_lets_play_go_on(fistf_pitch):
    """FISTF 14.1: the referee says the ball was not out: no throw-in, play goes on."""
    match = in_play(fistf_pitch)
    calls = match("ball -100,300 rest; flick 7", "ball -100,390 moving", "ball -100,420 moving")
    (out,) = [c for c in calls if c.kind == "ball_out"]
    assert match.state.restart.kind == "throw_in"
    match.act("overrule", call=out)
    assert match.state.restart is None and match.state.restart_call is None
    assert match.state.score == (0, 0)


def test_an_old_goal_overruled_after_play_went_on_changes_only_the_score(fistf_pitch):
    """FISTF 7.2: the goal comes off; the restart of the play since then stands."""
    match = in_play(fistf_pitch)
    goal = match.goal()
    match("ball 0,0 rest", "ball 0,0 rest; flick 9", "ball -10,0 moving")  # away's kick-off
    assert match.state.restart is None
    match.act("overrule", call=goal)
    assert match.state.score == (0, 0) and match.state.restart is None


def test_an_upheld_too_close_goal_counts_and_the_other_team_kicks_off(fistf_pitch):
    """FISTF 7.1 / 4.1: a shot 0.2 mm inside the zone with a 0.5 mm bound waits for the
    referee; upheld, it counts and the team that conceded kicks off."""
    match = in_play(fistf_pitch)
    x = 300 + 1.5 + 10.5 + 0.2
    match(f"ball {x},0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving")
    (close,) = [c for c in match.calls if c.too_close_to_call and c.kind == "goal"]
    assert match.state.restart.kind == "referee" and match.state.restart_call == close.id
    with pytest.raises(RefereeError, match="uphold or reject"):
        match.act("overrule", call=close)
    (confirm,) = match.act("uphold", call=close)
    state = match.state
    assert state.score == (1, 0) and confirm.kind == "goal" and confirm.id == close.id + 1
    assert (state.restart.kind, state.restart.team, state.possession) == ("kick_off", AWAY, AWAY)
    with pytest.raises(RefereeError, match="does not wait"):
        match.act("reject", call=close)


def test_a_rejected_too_close_goal_is_a_goal_kick(fistf_pitch):
    """FISTF 7.2.1: the referee says the shot was taken from outside the zone."""
    match = in_play(fistf_pitch)
    x = 300 + 1.5 + 10.5 + 0.2
    match(f"ball {x},0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving")
    (close,) = [c for c in match.calls if c.too_close_to_call and c.kind == "goal"]
    (confirm,) = match.act("reject", call=close)
    assert match.state.score == (0, 0) and confirm.kind == "goal_disallowed"
    assert (match.state.restart.kind, match.state.restart.team) == ("goal_kick", AWAY)


@pytest.mark.parametrize("mode", ["ball-moving", "running"])
def test_the_clock_stands_while_paused_in_both_modes(fistf_pitch, mode):
    """FISTF 3.2: an interruption stops the clock, whatever the ball does meanwhile."""
    match = in_play(fistf_pitch, clock_mode=mode)
    match.roll(1.0)
    before = match.state.clock.elapsed_s
    assert before == pytest.approx(0.98)
    match.act("pause")
    match.roll(3.0)
    calls = match("ball -100,300 rest; flick 7", "ball -100,390 moving", "ball -100,420 moving")
    assert match.state.clock.elapsed_s == before and calls == []  # nothing judged either
    match.act("resume")
    match.roll(1.0)
    # The first interval after the resume counts half (one end of it was held).
    assert match.state.clock.elapsed_s == pytest.approx(before + 0.99, abs=1e-9)


@pytest.mark.parametrize("mode", ["ball-moving", "running"])
@pytest.mark.parametrize("start", ["open_play", "kick_off"])
def test_the_clock_stands_before_the_referee_starts_the_match(fistf_pitch, mode, start):
    """FISTF 3.1 / 4.1: the playing time begins with the match; before the referee's start
    the ball may roll (players warm up) and no second counts, nothing is called."""
    match = Match(
        MatchState.new(MatchConfig(fistf_pitch, clock_mode=mode, start=start, referee_start=True))
    )
    assert match.state.hold == "not_started"
    match("ball 0,0 rest", "ball 0,0 rest; flick 7", "ball 5,0 moving")
    match.roll(2.0)
    assert match.state.clock.elapsed_s == 0.0 and match.calls == []
    match.act("start")
    if start == "kick_off":
        match.roll(1.0)
        assert match.state.clock.elapsed_s == 0.0  # waits for the kick-off's flick (4.2)
        match("ball 0,0 rest", "ball 0,0 rest; flick 7", "ball 5,0 moving")
    match.roll(1.0)
    assert match.state.clock.elapsed_s > 0.9


def test_added_time_adds_and_corrects_down_to_none(fistf_pitch):
    """FISTF 3.2: the referee adds lost time to the period; a slip is taken back."""
    match = in_play(fistf_pitch, clock_mode="running")
    match.act("added_time", seconds=30)
    match.act("added_time", seconds=-10)
    assert match.state.clock.added_s == 20
    with pytest.raises(RefereeError, match="below 0 s"):
        match.act("added_time", seconds=-25)


def test_half_time_and_end_by_the_referee(fistf_pitch):
    """FISTF 3.1 / 4.1: the referee ends the first half; the second begins with a kick-off,
    ends swapped; full time ends the match."""
    match = in_play(fistf_pitch)
    match.roll(1.0)
    (half,) = match.act("half_time")
    state = match.state
    assert half.kind == "half_time" and state.clock.period == 2 and state.home_end == "right"
    assert state.restart.kind == "kick_off" and state.clock.elapsed_s == 0.0
    with pytest.raises(RefereeError, match="past it"):
        match.act("second_half")
    (end,) = match.act("end")
    assert end.kind == "full_time" and match.state.finished
    with pytest.raises(RefereeError, match="ended"):
        match.act("pause")


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda: RefereeAction("dance"), "unknown referee action"),
        (lambda: RefereeAction("overrule"), "needs the call"),
        (lambda: RefereeAction("team_names", names=("Reds", "")), "two texts"),
    ],
)
def test_bad_actions_are_clear_errors(action, message):
    with pytest.raises(RefereeError, match=message):
        action()


def test_overrules_of_unknown_twice_or_period_calls_are_refused(fistf_pitch):
    match = in_play(fistf_pitch)
    goal = match.goal()
    with pytest.raises(RefereeError, match="no call 9"):
        match.act("overrule", call=replace(goal, id=9))
    match.act("overrule", call=goal)
    with pytest.raises(RefereeError, match="already overruled"):
        match.act("overrule", call=goal)
    (half,) = match.act("half_time")
    with pytest.raises(RefereeError, match="not overruled"):
        match.act("overrule", call=half)


def test_team_names_are_kept(fistf_pitch):
    match = in_play(fistf_pitch)
    match.act("team_names", names=(" Reds ", "Blues"))
    assert match.state.team_names == ("Reds", "Blues")


def test_a_call_survives_its_record(fistf_pitch):
    """The match log keeps calls as records; the referee's action rebuilds the call."""
    match = in_play(fistf_pitch)
    goal = match.goal()
    record = {**goal.to_record(), "id": goal.id, "too_close_to_call": False, "note": goal.note}
    assert Call.from_record(record) == replace(goal, margin_mm=round(goal.margin_mm, 3))


class OffsideMatch(Match):
    """Home 8 stands level with the ball (0.4 mm nearer the goal line: too close to call) when
    home 7 plays it forward inside the right shooting zone; away defends the right goal."""

    figs = f"home 7 397,0; home 8 {597 - 166.1 - 12},100; away 2 gk 590,0; away 9 -200,0"

    def close_offside(self) -> Call:
        calls = self("ball 420,0 rest; flick 7", "ball 430,0 moving")
        (offside,) = [c for c in calls if c.kind == "offside"]
        assert offside.too_close_to_call and self.state.restart is None  # play went on
        return offside


def _offside_match(pitch) -> OffsideMatch:
    state = in_play(pitch).state
    return OffsideMatch(state)


@pytest.mark.parametrize(
    ("action", "restart"),
    [
        pytest.param(
            "uphold",
            Restart("free_kick", AWAY, (597 - 166.1 - 12, 100.0), "FISTF 13.1"),
            id="FISTF 13.1 upheld: a free kick where the offside figure stood",
        ),
        pytest.param("reject", None, id="FISTF 13.1 rejected: play goes on"),
    ],
)
def test_a_too_close_offside_is_settled_by_the_referee(fistf_pitch, action, restart):
    match = _offside_match(fistf_pitch)
    offside = match.close_offside()
    assert awaiting_decision(match.state) == {offside.id}
    with pytest.raises(RefereeError, match="uphold or reject"):
        match.act("overrule", call=offside)
    calls = match.act(action, call=offside)
    assert match.state.restart == restart
    assert awaiting_decision(match.state) == frozenset()
    if restart is None:
        assert calls == []
        match("ball 440,0 moving")
        assert match.state.clock.last_running  # the clock runs on
    else:
        (given,) = calls
        assert (given.kind, given.law, given.team, given.too_close_to_call) == (
            "offside",
            "FISTF 13.1",
            AWAY,
            False,
        )
        assert match.state.restart_call == given.id and match.state.possession == AWAY
        match("ball 440,0 rest")
        assert not match.state.clock.last_running  # the ball is dead until the free kick
    with pytest.raises(RefereeError, match="does not wait"):
        match.act(action, call=offside)  # settled once


def test_a_too_close_offside_cannot_be_flagged_once_the_ball_was_dead(fistf_pitch):
    """FISTF 13.1: the referee flags the offside in the play it happened in; once the ball went
    out (14.1) the restart is decided and the open offside is closed."""
    match = _offside_match(fistf_pitch)
    offside = match.close_offside()
    match("ball 500,200 moving", "ball 500,370 moving", "ball 500,400 moving")
    assert match.state.restart is not None and match.state.restart.kind == "throw_in"
    assert awaiting_decision(match.state) == frozenset()
    with pytest.raises(RefereeError, match="does not wait"):
        match.act("uphold", call=offside)


def test_a_clear_offside_waits_for_no_decision(fistf_pitch):
    """FISTF 13.1: a clear offside stops play by itself; the referee overrules it if need be."""
    match = _offside_match(fistf_pitch)
    match.figs = "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 -200,0"
    calls = match("ball 420,0 rest; flick 7", "ball 430,0 moving")
    (offside,) = [c for c in calls if c.kind == "offside"]
    assert not offside.too_close_to_call and awaiting_decision(match.state) == frozenset()
    with pytest.raises(RefereeError, match="does not wait"):
        match.act("uphold", call=offside)
