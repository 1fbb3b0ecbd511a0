"""FISTF line decisions through step(): ball out, goals, the hidden ball, close calls.

Home defends the left goal (x = -600) and attacks the right one, defended by away. Each case is
a short sequence of one-line positions; the first line carries the play that starts it.
"""

from __future__ import annotations

import pytest

from rules.fistf import close
from rules.fistf_state import Restart
from rules.notation import parse_sequence
from rules.observation import AWAY, HOME

F = "home 1 gk -590,0; home 7 250,0; home 8 350,100; away 2 gk 590,0; away 9 500,-150"
# Frames of a ball lying still past ``MatchConfig.close_call_settle_s`` (at 50 fps): a close
# call on a ball come to rest waits for its rest reading to firm up.
SETTLE = 16


def settled(*steps: str) -> tuple[str, ...]:
    """``steps``, the last one (the ball at rest) held ``SETTLE`` frames more."""
    return (*steps, *(steps[-1],) * SETTLE)


def seq(*steps: str, figs: str = F) -> list[str]:
    """One line per step ``"x,y [rest|moving] [unc=U] [clause[ | clause]]"`` or ``"hidden"``.

    The first step lies at rest, the others roll unless they say ``rest``.
    """
    lines = []
    for i, s in enumerate(steps):
        ball, *rest = s.split(" ")
        opts = [t for t in rest if t in ("rest", "moving") or "=" in t]
        extra = " ".join(t for t in rest if t not in opts).replace(" | ", "; ")
        state = "rest" if i == 0 or "rest" in opts else "moving"
        opts = [t for t in opts if t not in ("rest", "moving")]
        ball_clause = "ball hidden" if ball == "hidden" else " ".join(["ball", ball, state, *opts])
        lines.append("; ".join(part for part in (ball_clause, figs, extra) if part))
    return lines


THROW_IN = Restart("throw_in", HOME, (450.0, 373.5), "FISTF 14.1")
FREE_KICK_AWAY = Restart("free_kick", AWAY, (520.0, 0.0), "FISTF 5.3")
CORNER_HOME = Restart("corner", HOME, (600.0, 375.0), "FISTF 16.1", "right")

CASES = [
    # id, figures, steps, possession, restart, expected (kind, law, team, restart, line)
    (
        "FISTF 14.1 throw-in to the team that did not touch last",
        F,
        ("273,0 flick 7", "280,100", "290,390"),
        HOME,
        None,
        ("ball_out", "FISTF 14.1", "away", "throw_in", "touchline"),
    ),
    (
        "FISTF 14.1.2 throw-in forced within one quarter",
        "home 8 350,-60; away 9 420,-150",
        ("373,-60 flick 8", "420,-128 hit 9", "430,-390"),
        HOME,
        None,
        ("ball_out", "FISTF 14.1", "home", "throw_in", "touchline"),
    ),
    (
        "FISTF 14.1.2 not forced: the deflection was in another quarter",
        "home 7 250,-60; away 9 420,-150",
        ("273,-60 flick 7", "420,-128 hit 9", "430,-390"),
        HOME,
        None,
        ("ball_out", "FISTF 14.1.2", "away", "throw_in", "touchline"),
    ),
    (
        "FISTF 15.1 goal kick: the attacker plays over the goal line",
        F,
        ("273,0 flick 7", "400,150", "620,200"),
        HOME,
        None,
        ("ball_out", "FISTF 15.1", "away", "goal_kick", "goal_line"),
    ),
    (
        "FISTF 16.1.1 corner: shot from inside the zone deflected by a defender",
        "home 8 350,100; away 9 500,150",
        ("373,100 flick 8", "478,150 hit 9", "615,180"),
        HOME,
        None,
        ("ball_out", "FISTF 16.1", "home", "corner", "goal_line"),
    ),
    (
        "FISTF 15.1.3 goal kick: shot from outside the zone deflected by a defender",
        "home 7 250,100; away 9 500,150",
        ("273,100 flick 7", "478,150 hit 9", "615,180"),
        HOME,
        None,
        ("ball_out", "FISTF 15.1", "away", "goal_kick", "goal_line"),
    ),
    (
        "FISTF 16.1.2 corner: the defender plays over its own goal line",
        F,
        ("523,-150 flick 9", "560,-180", "615,-200"),
        AWAY,
        None,
        ("ball_out", "FISTF 16.1", "home", "corner", "goal_line"),
    ),
    (
        "FISTF 7.1 goal: shot from wholly inside the shooting zone",
        "home 8 350,0; away 2 gk 590,100",
        ("373,0 flick 8", "500,0", "620,0"),
        HOME,
        None,
        ("goal", "FISTF 7.1", "home", "kick_off", "goal_line"),
    ),
    (
        "FISTF 7.2 goal disallowed: shot from outside the shooting zone",
        "home 7 250,0; away 2 gk 590,100",
        ("273,0 flick 7", "500,0", "620,0"),
        HOME,
        None,
        ("goal_disallowed", "FISTF 7.2", "away", "goal_kick", "shooting_line"),
    ),
    (
        "FISTF 7.3 own goal counts from anywhere",
        "away 9 500,0; away 2 gk 590,100",
        ("523,0 flick 9", "560,0", "620,0"),
        AWAY,
        None,
        ("goal", "FISTF 7.3", "home", "kick_off", "goal_line"),
    ),
    (
        "FISTF 7.3 no direct own goal from a free kick: corner",
        "away 9 497,0; away 2 gk 590,100",
        ("520,0", "520,0 flick 9", "560,0", "620,0"),
        AWAY,
        FREE_KICK_AWAY,
        ("goal_disallowed", "FISTF 7.3", "home", "corner", "goal_line"),
    ),
    (
        "FISTF 14.1.3 no goal direct from a throw-in",
        "home 8 450,396; away 2 gk 590,100",
        ("450,373.5", "450,373.5 flick 8", "530,150", "620,0"),
        HOME,
        THROW_IN,
        ("goal_disallowed", "FISTF 14.1", "away", "goal_kick", "goal_line"),
    ),
    (
        "FISTF 16.1.2 a goal direct from a corner counts",
        "home 8 610,390; away 2 gk 590,100",
        ("595,370", "595,370 flick 8", "610,30", "620,0"),
        HOME,
        CORNER_HOME,
        ("goal", "FISTF 16.1", "home", "kick_off", "goal_line"),
    ),
    (
        "FISTF 7.2.2 the keeper deflects an invalid shot in: goal kick",
        "home 7 250,0; away 2 gk 575,-30",
        ("273,0 flick 7", "560,-10 hit 2", "620,0"),
        HOME,
        None,
        ("goal_disallowed", "FISTF 7.2", "away", "goal_kick", "shooting_line"),
    ),
    (
        "FISTF 7.1 the keeper parries a valid shot in: goal",
        "home 8 350,0; away 2 gk 575,-30",
        ("373,0 flick 8", "560,-10 hit 2", "620,0"),
        HOME,
        None,
        ("goal", "FISTF 7.1", "home", "kick_off", "goal_line"),
    ),
    (
        "FISTF 7.2.2 the keeper deflects an invalid shot over the touchline: goal kick",
        "home 7 250,100; away 2 gk 575,80",
        ("273,100 flick 7", "560,90 hit 2", "570,390"),
        HOME,
        None,
        ("ball_out", "FISTF 7.2", "away", "goal_kick", "touchline"),
    ),
]


@pytest.mark.parametrize(
    ("figs", "steps", "possession", "restart", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_decisions(run, figs, steps, possession, restart, expected):
    state, calls = run(seq(*steps, figs=figs), possession=possession, restart=restart)
    decisive = [c for c in calls if c.kind in ("ball_out", "goal", "goal_disallowed")]
    assert len(decisive) == 1, calls
    rec = decisive[0].to_record()
    assert (rec["kind"], rec["law"], rec["team"], rec["restart"], rec["line"]) == expected
    assert not decisive[0].too_close_to_call
    assert state.restart is not None and state.restart.kind == expected[3]
    goals = 1 if expected[0] == "goal" else 0
    assert sum(state.score) == goals


def test_goal_scores_and_kick_off_goes_to_the_conceding_team(run):
    state, calls = run(seq("373,0 flick 8", "500,0", "620,0", figs="home 8 350,0"))
    assert state.score == (1, 0)
    assert state.restart.kind == "kick_off" and state.restart.team == AWAY
    assert calls[-1].frame == 2 and calls[-1].margin_mm == pytest.approx(9.5)


def test_calls_stop_while_the_ball_is_dead(run):
    """After the ball went out, its further roll is no second call."""
    _, calls = run(seq("273,0 flick 7", "280,100", "290,390", "295,420", "300,500"))
    assert [c.kind for c in calls] == ["ball_out"]


def test_crossing_waits_for_the_margin_to_exceed_the_uncertainty(run):
    """Guideline: 0.3 mm out with 0.5 mm uncertainty is not yet a confident crossing."""
    steps = ("273,0 flick 7", "280,300", "290,385.8 unc=0.5", "290,386.5 unc=0.5")
    _, calls = run(seq(*steps))
    assert [(c.kind, c.frame) for c in calls] == [("ball_out", 3)]


HIDDEN = "home 8 350,0; away 2 gk 590,140"


@pytest.mark.parametrize(
    ("steps", "kind", "too_close"),
    [
        pytest.param(
            ("373,0 flick 8", "560,0", "585,0", "hidden", "hidden"),
            "goal",
            False,
            id="DESIGN 3 / FISTF 7.1 hidden ball clearly over from its speed",
        ),
        pytest.param(
            ("373,0 flick 8", "599.5,0", "601,0", "602.5,0", "hidden", "hidden"),
            "goal",
            True,
            id="DESIGN 3 / FISTF 7.1 hidden slow ball: too close to call",
        ),
        pytest.param(
            ("373,0 flick 8", "560,0", "550,0", "hidden", "hidden"),
            None,
            False,
            id="DESIGN 3 hidden while rolling away: no goal from a vanished ball",
        ),
        pytest.param(
            ("373,0 flick 8", "560,0", "585,0", "604,0 unc=9", "614,0 unc=21", "624,0 unc=35"),
            "goal",
            False,
            id="DESIGN 3 / FISTF 7.1 positions predicted under the net are not seen: hidden ball",
        ),
    ],
)
def test_hidden_ball_in_the_goal(run, steps, kind, too_close):
    lines = [ln.replace("ball hidden moving", "ball hidden") for ln in seq(*steps, figs=HIDDEN)]
    state, calls = run(lines)
    goals = [c for c in calls if c.kind == "goal"]
    if kind is None:
        assert goals == [] and state.restart is None
        return
    assert len(goals) == 1 and goals[0].too_close_to_call == too_close
    seen = [s != "hidden" and float(s.partition("unc=")[2] or 0) <= 10.5 for s in steps]
    last_seen = max(i for i, v in enumerate(seen) if v)
    assert goals[0].frame == last_seen
    assert state.score == ((0, 0) if too_close else (1, 0))
    assert state.restart.kind == ("referee" if too_close else "kick_off")


def test_clock_stops_when_a_hidden_ball_crossed_into_the_goal(run):
    """DESIGN 6 / FISTF 7.1: a goal decided from a ball hidden under the crossbar stops the
    clock where its last sighting's margin and speed put the crossing, not on the later frame
    that decided it."""
    # Tracking predicts the hidden ball on (no sighting: placed to worse than its radius); it
    # still rolls, and the clock runs on until the goal is decided.
    lines = seq("373,0 flick 8", "560,0", "585,0", "610,0 unc=15", "635,0 unc=30", figs=HIDDEN)
    dt = parse_sequence(lines)[1].t_s - parse_sequence(lines)[0].t_s
    state, calls = run(lines)
    assert [c.kind for c in calls] == ["goal"]
    # Half the flick's frame interval, one interval rolling, then 25.5 mm to go at 25 mm a frame.
    assert state.clock.elapsed_s == pytest.approx((0.5 + 1.0 + 25.5 / 25.0) * dt)


@pytest.mark.parametrize(
    ("steps", "line", "margin", "too_close", "note"),
    [
        pytest.param(
            ("273,0 flick 7", "280,300", "285,385.1 unc=0.3", "285,385.1 unc=0.3 rest"),
            "touchline",
            -0.4,
            False,
            "IN by 0.4 mm",
            id="close_call: comes to rest 0.4 mm inside the touchline",
        ),
        pytest.param(
            ("273,0 flick 7", "280,300", "285,384", "290,383.6", "300,370"),
            "touchline",
            -1.5,
            False,
            "IN by 1.5 mm",
            id="close_call: turns back 1.5 mm short of the touchline",
        ),
        pytest.param(
            ("273,0 flick 7", "280,300", "285,385.7 unc=0.5", "285,385.7 unc=0.5 rest"),
            "touchline",
            0.2,
            True,
            "OUT by 0.2 mm (too close to call)",
            id="close_call: out by 0.2 within 0.5 uncertainty, too close to call",
        ),
        pytest.param(
            ("273,0 flick 7", "500,150", "609.9,200", "600,210"),
            "goal_line",
            -0.6,
            False,
            "IN by 0.6 mm",
            id="close_call: turns back off the goal line beside the goal",
        ),
        pytest.param(
            ("273,0 flick 7", "280,300", "285,382.3 unc=0.5", "285,382.3 unc=0.5 rest"),
            "touchline",
            -3.2,
            False,
            "IN by 3.2 mm",
            id="FISTF 14.1 close_call: rests 3.2 mm inside, within 3 mm for its uncertainty",
        ),
    ],
)
def test_close_calls(run, steps, line, margin, too_close, note):
    state, calls = run(seq(*(settled(*steps) if steps[-1].endswith("rest") else steps)))
    close = [c for c in calls if c.kind == "close_call"]
    assert len(close) == 1, calls
    c = close[0]
    assert (c.line, c.too_close_to_call, c.note) == (line, too_close, note)
    assert c.margin_mm == pytest.approx(margin, abs=1e-9)
    assert c.fully_crossed == (margin > 0)
    assert state.restart is None  # a notice never stops play


def test_a_close_call_gives_the_rest_reading_as_it_firms_up_dated_at_the_stop(run):
    """FISTF 14.1 / DESIGN 4 close_call: a stop is declared from a few frames, while the ball
    may still creep its last millimetre, and the rest point firms up over the next ones. The
    notice waits ``close_call_settle_s`` and gives the reading by then (0.7 mm in, placed to
    0.4 mm), not the first one (1.5 mm in, to 1.5 mm), dated at the stop."""
    firm = "285,384.8 unc=0.4 rest"
    steps = ("273,0 flick 7", "280,300", "285,384 unc=1.5", "285,384 unc=1.5 rest")
    _, calls = run(seq(*steps, *(firm,) * SETTLE))
    (c,) = [c for c in calls if c.kind == "close_call"]
    assert c.frame == 3
    assert c.margin_mm == pytest.approx(-0.7, abs=1e-9)
    assert c.uncertainty_mm == pytest.approx(0.4)
    assert not c.too_close_to_call


def test_a_close_call_waiting_on_the_rest_is_given_when_the_ball_moves_again(run):
    """FISTF 14.1: struck again before its rest reading settled, the ball's notice is given
    then, with the reading it had."""
    rest = "285,385.1 unc=0.3 rest"
    _, calls = run(seq("273,0 flick 7", "280,300", "285,385.1 unc=0.3", rest, rest, "200,300"))
    (c,) = [c for c in calls if c.kind == "close_call"]
    assert (c.frame, c.note) == (3, "IN by 0.4 mm")


def test_a_recording_ending_before_the_rest_reading_settled_still_gives_the_close_call(run):
    """FISTF 14.1: a clip of the disputed moment may end a moment after the ball stopped: the
    end of what is seen (``rules.fistf.close``) gives the notice held back, and only once."""
    rest = "285,385.1 unc=0.3 rest"
    state, calls = run(seq("273,0 flick 7", "280,300", "285,385.1 unc=0.3", rest, rest))
    assert not [c for c in calls if c.kind == "close_call"]
    state, end = close(state)
    assert [(c.kind, c.frame, c.note) for c in end] == [("close_call", 3, "IN by 0.4 mm")]
    assert end[0].id == state.calls_made
    assert close(state)[1] == []


@pytest.mark.parametrize(
    "steps",
    [
        ("273,0 flick 7", "280,300", "284,383", *("hidden",) * SETTLE),  # lost on the way
        ("273,0 flick 7", "280,300", "284,383", "hidden", "hidden"),  # then the recording ends
        ("273,0 flick 7", "280,300", "284,380", "285,383.8"),  # the recording ends
    ],
)
def test_a_ball_lost_rolling_in_the_band_is_too_close_to_call_not_in(run, steps):
    """FISTF 14.1 / DESIGN 4 close_call: the ball rolls toward the touchline and is lost from
    view within 3 mm of it (or the recording ends as it rolls there): what was not seen is no
    call of IN. The notice gives where its speed would have carried it and leaves it to the
    referee; play is not stopped."""
    lines = [ln.replace("ball hidden moving", "ball hidden") for ln in seq(*steps)]
    state, calls = run(lines)
    state, end = close(state)
    close_calls = [c for c in [*calls, *end] if c.kind == "close_call"]
    assert len(close_calls) == 1, calls
    c = close_calls[0]
    assert c.line == "touchline" and c.too_close_to_call
    assert c.margin_mm > -1.5  # rolling outward: past where it was last seen
    assert c.note.startswith("lost from view")
    assert state.restart is None


def test_a_ball_hidden_a_moment_in_the_band_gives_one_notice_where_it_rests(run):
    """FISTF 14.1 / DESIGN 4 close_call: a hand over the rolling ball for two frames is no
    loss; it shows again and comes to rest in the band: one notice, its rest reading."""
    rest = "285,385.1 unc=0.3 rest"
    steps = ("273,0 flick 7", "280,300", "284,383", "hidden", "hidden", "285,385.1 unc=0.3", rest)
    lines = [ln.replace("ball hidden moving", "ball hidden") for ln in seq(*settled(*steps))]
    state, calls = run(lines)
    state, end = close(state)
    assert [c.note for c in [*calls, *end] if c.kind == "close_call"] == ["IN by 0.4 mm"]


def test_a_rolling_reading_leaving_the_band_as_its_uncertainty_shrinks_is_no_close_call(run):
    """DESIGN 4 close_call: a rolling reading placed loosely (7.5 mm inside, to 6 mm) may lie
    within 3 mm of the line; the next one, surer, does not, and lies nearer the line: the ball
    did not turn back, and it is no notice. The one notice is where it comes to rest."""
    steps = ("273,0 flick 7", "283,378 unc=6", "284,379 unc=1", "285,385.1 unc=0.3")
    _, calls = run(seq(*settled(*steps, "285,385.1 unc=0.3 rest")))
    close = [c for c in calls if c.kind == "close_call"]
    assert [c.note for c in close] == ["IN by 0.4 mm"]


def test_no_close_call_for_a_ball_resting_beyond_the_band_and_its_uncertainty(run):
    """FISTF 14.1 / DESIGN 4: a ball resting 4 mm inside with a 0.5 mm bound is no notice."""
    _, calls = run(seq("273,0 flick 7", "280,300", "285,381.5 unc=0.5", "285,381.5 unc=0.5 rest"))
    assert not [c for c in calls if c.kind == "close_call"]


def test_shot_from_within_three_mm_of_the_shooting_line(run):
    """DESIGN 4: a shot taken 0.4 mm inside the shooting line gives "IN by 0.4 mm"."""
    x = 300 + 1.5 + 10.5 + 0.4
    _, calls = run(seq(f"{x},0 unc=0.3 flick 8", "400,0", figs="home 8 289,0"))
    (c,) = [c for c in calls if c.kind == "close_call"]
    assert (c.line, c.law, c.note, c.fully_crossed) == (
        "shooting_line",
        "FISTF 7.1",
        "IN by 0.4 mm",
        True,
    )


@pytest.mark.parametrize(
    ("unc", "kind", "too_close"),
    [
        (0.1, "ball_out", False),  # a well-measured rest: 0.3 mm out is a confident call
        (0.5, "close_call", True),  # the same ball with a 0.5 mm bound: the referee decides
    ],
)
def test_ball_resting_0_3_mm_out_is_judged_with_its_own_uncertainty(run, unc, kind, too_close):
    """DESIGN 3: the bound comes with each observation; the engine keeps no fixed figure."""
    out = f"290,385.8 unc={unc}"
    _, calls = run(seq(*settled("273,0 flick 7", "280,300", out, f"{out} rest")))
    said = [c for c in calls if c.line == "touchline"]
    assert [(c.kind, c.too_close_to_call) for c in said] == [(kind, too_close)]
    assert said[0].margin_mm == pytest.approx(0.3, abs=1e-9)
    assert said[0].uncertainty_mm == pytest.approx(unc)


@pytest.mark.parametrize(
    ("lay_x", "kind", "margin"),
    [
        (305.0, "goal_disallowed", 305.0 - 10.5 - 301.5),  # struck outside, seen inside after
        (318.0, "goal", None),
    ],
)
def test_shot_position_is_where_the_ball_lay_when_struck(run, lay_x, kind, margin):
    """FISTF 7.1: the contact frame already shows the ball one frame on (here 30 mm)."""
    figs = "home 8 280,0; away 2 gk 590,140"
    steps = (f"{lay_x},0 unc=0.2", f"{lay_x + 30},0 flick 8@0", "500,0", "620,0")
    state, calls = run(seq(*steps, figs=figs))
    (c,) = [c for c in calls if c.kind in ("goal", "goal_disallowed")]
    assert c.kind == kind and state.score == ((1, 0) if kind == "goal" else (0, 0))
    if margin is not None:
        assert (c.line, c.fully_crossed) == ("shooting_line", False)
        assert c.margin_mm == pytest.approx(margin) and c.uncertainty_mm == pytest.approx(0.2)


def test_a_shot_seen_without_the_balls_place_leaves_the_goal_to_the_referee(run):
    """FISTF 7.1: a goal counts only from a shot inside the shooting zone. The flick was
    seen, but the ball where it lay was placed to no better than 400 mm (its identity in
    doubt): not a confident "shot outside" (FISTF 7.2) but a goal the referee decides."""
    figs = "home 8 280,0; away 2 gk 590,140"
    steps = ("318,0 unc=400", "348,0 unc=400 flick 8@0", "500,0", "620,0")
    state, calls = run(seq(*steps, figs=figs))
    (c,) = [c for c in calls if c.kind in ("goal", "goal_disallowed")]
    assert (c.kind, c.line, c.too_close_to_call) == ("goal", "shooting_line", True)
    assert abs(c.margin_mm) <= c.uncertainty_mm
    assert "not where the ball lay" in c.note
    assert state.score == (0, 0) and state.restart.kind == "referee"


def test_a_ball_found_at_rest_in_the_band_after_its_roll_went_unseen_is_a_close_call(run):
    """DESIGN 4 close_call, FISTF 15.1: the ball rolled towards the goal line beside the goal,
    the camera lost its last metres, and it is found at rest 0.9 mm short of fully crossing,
    placed to 1.2 mm. It came to rest there: a "too close to call" notice, not silence (which
    would read as a confident "in")."""
    steps = ("273,0 flick 7", "450,200", "560,290", "hidden", "hidden", "609.6,300 rest unc=1.2")
    _, calls = run(seq(*settled(*steps)))
    (c,) = [c for c in calls if c.kind == "close_call"]
    assert (c.line, c.law, c.too_close_to_call) == ("goal_line", "FISTF 15.1", True)
    assert c.margin_mm == pytest.approx(-0.9, abs=1e-9)


DOUBT = "unc=600.5 doubt=600"  # placed to 0.5 mm, but another ball-like object 600 mm away


@pytest.mark.parametrize(
    ("rest", "margin"),
    [
        pytest.param("285,385.7", 0.2, id="rests 0.2 mm over the touchline"),
        pytest.param("285,435.2", 49.7, id="rests 50 mm over the touchline"),
        pytest.param("285,382.7", -2.8, id="rests 2.8 mm inside"),
    ],
)
def test_a_ball_in_doubt_rolling_to_rest_at_the_touchline_is_a_notice_never_a_call(
    run, rest, margin
):
    """FISTF 14.1 / DESIGN 4 close_call: motion has not settled which ball-like object is the
    ball (a clip picked up beside a kit of its colour): the one tracked rolls to rest at the
    touchline, another 600 mm away may be the ball. No call is made on what may not be the
    ball, out or in, and silence would read as a confident "in": one notice, too close to
    call by the doubt, that says why. Play is not stopped."""
    steps = ("273,0 flick 7", f"280,300 {DOUBT}", f"{rest} {DOUBT}", f"{rest} rest {DOUBT}")
    state, calls = run(seq(*settled(*steps)))
    assert [c.kind for c in calls if c.kind != "flick"] == ["close_call"], calls
    (c,) = [c for c in calls if c.kind == "close_call"]
    assert (c.line, c.law, c.too_close_to_call) == ("touchline", "FISTF 14.1", True)
    assert c.margin_mm == pytest.approx(margin, abs=1e-9)
    assert "another ball-like object up to 600 mm away" in c.note
    assert state.restart is None


def test_a_ball_in_doubt_rolling_to_rest_away_from_the_lines_is_no_news(run):
    """DESIGN 4 close_call: the band is where the ball's place may lie within 3 mm of a line
    for its own uncertainty; a ball in doubt resting 30 mm inside is no notice, however large
    the doubt of which object it is."""
    steps = ("273,0 flick 7", f"280,300 {DOUBT}", f"285,355 {DOUBT}", f"285,355 rest {DOUBT}")
    _, calls = run(seq(*settled(*steps)))
    assert not [c for c in calls if c.kind == "close_call"]


def test_a_ball_in_doubt_lying_still_at_the_touchline_is_no_news(run):
    """FISTF 14.1 / DESIGN 4: a ball in doubt that never rolled (the tracked object may be a
    figure's part of the ball's colour) gives no notice, however near a line it lies."""
    _, calls = run(seq(*settled("285,385.7 rest unc=0.5", f"285,385.7 rest {DOUBT}")))
    assert not [c for c in calls if c.kind == "close_call"]


@pytest.mark.parametrize(
    ("first_seen", "notices"),
    [
        pytest.param("285,385.9 rest unc=1.2", 1, id="first seen resting 0.4 mm over"),
        pytest.param("hidden", 1, id="first seen there after frames without it"),
        pytest.param("285,355 rest unc=1.2", 0, id="first seen resting 30 mm inside"),
    ],
)
def test_a_clip_picked_up_in_play_whose_ball_is_first_seen_resting_at_a_line(
    run, first_seen, notices
):
    """FISTF 14.1 / DESIGN 4 ("a clip may start anywhere"): a clip of the disputed moment
    begins with the ball's roll unseen and finds it at rest 0.4 mm over the touchline, placed
    to 1.2 mm. Whether it came to rest there is not seen, but silence would read as a
    confident "in": a notice, too close to call. Found well inside, it is no news."""
    rest = "285,385.9 rest unc=1.2"
    steps = (first_seen, rest) if first_seen == "hidden" else (first_seen,)
    _, calls = run(seq(*settled(*steps)), in_play=False)
    close = [c for c in calls if c.kind == "close_call"]
    assert len(close) == notices, calls
    for c in close:
        assert (c.line, c.law, c.too_close_to_call, c.fully_crossed) == (
            "touchline",
            "FISTF 14.1",
            True,
            True,
        )
        assert c.margin_mm == pytest.approx(0.4, abs=1e-9)


def test_a_ball_lying_at_a_line_when_the_kick_off_was_seen_is_no_news(run):
    """FISTF 14.1: once the rules have seen the ball (here in a play they watched begin), a
    ball lying still at a line is no news; only its own roll, or a roll unseen, starts the
    watch."""
    _, calls = run(seq(*settled("285,385.9 rest unc=1.2")))
    assert not [c for c in calls if c.kind == "close_call"]
