"""Whole-match sequences through step(): kick-offs, halves, ends, extra time, the referee.

A match the referee starts (``MatchConfig(start="kick_off")``, FISTF 4.1) waits for its first
kick-off; one picked up in play starts in open play (DESIGN.md 4, ``test_fistf_start``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.fistf import MatchConfig, MatchState, add_time, referee_decision
from rules.observation import AWAY, HOME
from tests.rules.conftest import NotationFeed

FIGS = (
    "home 1 gk -605,0; home 7 -23,0; home 8 -60,100; away 2 gk 605,0; away 9 60,-100; away 10 150,0"
)


class Feed(NotationFeed):
    """Feeds lines at 50 fps and keeps every call."""

    figs = FIGS

    def kick_off(self, taker: int, direction: float) -> list:
        return self(
            "ball 0,0 rest",
            f"ball 0,0 rest; flick {taker}",
            f"ball {5 * direction},0 moving",
        )

    def roll(self, seconds: float, y: float = 0.0) -> list:
        n = int(seconds * 50)
        return self(*[f"ball {((i * 4) % 300) - 150},{y} moving" for i in range(n)])


def _kinds(calls) -> list[str]:
    return [c.kind for c in calls if c.kind not in ("close_call", "figure_placement")]


def test_half_ends_when_the_ball_next_goes_out(fistf_pitch):
    """Ball-moving clock: after time is up the half ends at the next ball out of play."""
    feed = Feed(MatchState.new(MatchConfig(fistf_pitch, half_length_s=1.0, start="kick_off")))
    assert _kinds(feed.kick_off(7, +1)) == []
    assert feed.state.first_kick_off == HOME and feed.state.clock.started
    assert _kinds(feed.roll(2.0)) == []  # time is up after 1 s, but the ball stays in
    assert feed.state.clock.time_up
    calls = feed("ball 0,300 moving", "ball 0,390 moving")
    assert _kinds(calls) == ["ball_out", "half_time"]
    half = calls[-1]
    assert (half.law, half.team, half.restart) == ("FISTF 3.1", AWAY, "kick_off")
    s = feed.state
    assert (s.clock.period, s.clock.elapsed_s, s.home_end) == (2, 0.0, "right")  # 4.1 ends swap
    assert s.restart.kind == "kick_off" and s.restart.team == AWAY


def test_second_half_ends_swapped_and_full_time(fistf_pitch):
    """FISTF 4.1: in the second half home attacks the left goal; then full time."""
    state = MatchState.new(MatchConfig(fistf_pitch, half_length_s=0.5, start="kick_off"))
    feed = Feed(state)
    feed.kick_off(7, +1)
    feed.roll(1.0)
    feed("ball 0,390 moving")
    feed.kick_off(10, +1)  # away kicks off the second half, toward the right goal it attacks
    assert feed.state.possession == AWAY
    # Home wins the ball and scores into the left goal from inside the shooting zone.
    calls = feed(
        "ball -400,0 rest; miss 10",
        "ball -400,0 rest; flick 8",
        "ball -500,0 moving",
        "ball -621,0 moving",
    )
    goal = next(c for c in calls if c.kind == "goal")
    assert (goal.team, feed.state.score) == (HOME, (1, 0))
    feed.kick_off(10, +1)
    feed.roll(1.0)
    calls = feed("ball 0,390 moving", "ball 0,0 rest")
    assert _kinds(calls) == ["ball_out", "full_time"]
    assert feed.state.finished and calls[-1].note == "1:0"
    assert feed("ball 0,0 moving; flick 7", "ball 0,500 moving") == []  # nothing after the end


def test_extra_time_sudden_death(fistf_pitch):
    """FISTF 3.3: a draw goes to extra time; the first goal ends the match."""
    cfg = MatchConfig(
        fistf_pitch, half_length_s=0.2, extra_time=True, swap_ends=False, start="kick_off"
    )
    feed = Feed(MatchState.new(cfg))
    for _ in range(2):
        feed.kick_off(7, +1)
        feed.roll(0.5)
        feed("ball 0,390 moving")
    full = [c for c in feed.calls if c.kind == "full_time"]
    assert len(full) == 1 and full[0].restart == "kick_off" and full[0].law == "FISTF 3.3"
    assert feed.state.clock.period == 3 and not feed.state.finished
    feed.kick_off(10, -1)
    calls = feed(
        "ball 400,0 rest", "ball 400,0 rest; flick 7", "ball 500,0 moving", "ball 621,0 moving"
    )
    assert _kinds(calls) == ["goal", "full_time"]
    assert feed.state.finished and feed.state.score == (1, 0)


def test_referee_settles_a_too_close_goal(fistf_pitch):
    """DESIGN 3: a too-close call waits for the referee's word; the score follows it."""
    state = MatchState.new(MatchConfig(fistf_pitch))
    state = replace(state, restart=None, possession=HOME)
    feed = Feed(state)
    x = 300 + 1.5 + 10.5 + 0.2  # shot 0.2 mm inside the zone, uncertainty 0.5 mm
    calls = feed(f"ball {x},0 rest; flick 7", "ball 500,0 moving", "ball 621,0 moving")
    (goal,) = [c for c in calls if c.kind == "goal"]
    assert goal.too_close_to_call and goal.line == "shooting_line"
    assert feed.state.score == (0, 0) and feed.state.restart.kind == "referee"
    given, (confirm,) = referee_decision(feed.state, goal, upheld=True)
    assert given.score == (1, 0) and given.restart.kind == "kick_off" and confirm.kind == "goal"
    denied, (confirm,) = referee_decision(feed.state, goal, upheld=False)
    assert denied.score == (0, 0) and denied.restart.kind == "goal_kick"
    assert confirm.kind == "goal_disallowed" and confirm.team == AWAY
    with pytest.raises(ValueError, match="no call waits for the referee"):
        referee_decision(given, goal, upheld=True)


def test_added_time_from_the_referee(fistf_pitch):
    state = MatchState.new(MatchConfig(fistf_pitch, clock_mode="running"))
    assert add_time(add_time(state, 30), 15).clock.added_s == 45


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"home_end": "north"}, "home_end 'north'"),
        ({"half_length_s": 0}, "half_length_s"),
        ({"start": "centre"}, "start 'centre'"),
    ],
)
def test_bad_config(fistf_pitch, kwargs, message):
    with pytest.raises(ValueError, match=message):
        MatchConfig(fistf_pitch, **kwargs)
