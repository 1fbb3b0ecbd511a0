"""FISTF play through step(): possession, fouls, the three-touch limit and offside.

Home defends the left goal and attacks the right one (x = +600), defended by away.
"""

from __future__ import annotations

import pytest

from rules.fistf_state import Restart
from rules.observation import AWAY, HOME


def lines(figs: str, *steps: str) -> list[str]:
    """``"ball-clause[ | clause...]"`` per frame, each with the same figures."""
    return [f"{s.replace(' | ', '; ')}; {figs}" for s in steps]


F = "home 7 250,0; home 8 350,100; away 9 500,-150; away 2 gk 590,0"


@pytest.mark.parametrize(
    ("steps", "possession"),
    [
        pytest.param(
            ("ball 273,0 rest | miss 8",), AWAY, id="FISTF 5.1 a: the attacker misses the ball"
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7", "ball 478,-150 moving | hit 9"),
            AWAY,
            id="FISTF 5.1 b: the ball touches a defender's figure at rest",
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7", "ball 565,-5 moving | hit 2"),
            AWAY,
            id="FISTF 5.1 b: the ball touches the defender's keeper",
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7", "ball 327,100 moving | hit 8"),
            HOME,
            id="FISTF 5.1: touching an own figure keeps the ball",
        ),
        pytest.param(("ball 273,0 rest | miss 9",), HOME, id="FISTF 6.1: a defender's miss"),
    ],
)
def test_possession(run, steps, possession):
    state, calls = run(lines(F, *steps))
    assert state.possession == possession
    assert [c for c in calls if c.kind == "foul"] == []


def _flicks(n: int, figure: int = 7, gk: bool = False) -> list[str]:
    return [f"ball {273 + 30 * i},0 moving | flick {figure}@{2 * i}" for i in range(n)]


@pytest.mark.parametrize(
    ("steps", "law", "team", "restart"),
    [
        pytest.param(
            _flicks(4), "FISTF 5.2", "away", "free_kick", id="FISTF 5.2 a fourth play in a row"
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7>9",),
            "FISTF 5.3",
            "away",
            "free_kick",
            id="FISTF 5.3 the attacker touches a figure at rest before the ball",
        ),
        pytest.param(
            ("ball 260,0 moving", "ball 273,0 moving | flick 9"),
            "FISTF 6.2",
            "home",
            "free_kick",
            id="FISTF 6.2.2 a defensive move touches the rolling ball",
        ),
    ],
)
def test_fouls(run, steps, law, team, restart):
    state, calls = run(lines(F, *steps))
    fouls = [c.to_record() for c in calls if c.kind == "foul"]
    assert len(fouls) == 1, calls
    assert (fouls[0]["law"], fouls[0]["team"], fouls[0]["restart"]) == (law, team, restart)
    assert state.restart.kind == restart and state.possession == (HOME if team == "home" else AWAY)


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(_flicks(3), id="FISTF 5.2 three plays in a row are allowed"),
        pytest.param(
            (*_flicks(3), "ball 400,100 moving | hit 8", "ball 420,0 moving | flick 7@9"),
            id="FISTF 5.2 another figure's touch resets the count",
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7>9 moving",),
            id="FISTF 5.3 touching a moving figure is no foul",
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7@0", "ball 300,0 moving | flick 7>9@0"),
            id="FISTF 5.3 touching a figure after the ball is no foul",
        ),
        pytest.param(
            ("ball 273,0 rest | flick 7 | flick 7>9",),
            id="FISTF 5.3 ball and figure in one frame: benefit of the doubt",
        ),
    ],
)
def test_no_foul(run, steps):
    state, calls = run(lines(F, *steps))
    assert [c for c in calls if c.kind == "foul"] == [] and state.restart is None


def test_keeper_three_touch_limit(run):
    """FISTF 8.1.3: the keeper may not play the ball more than three times in a row."""
    figs = "home 1 gk -585,0; away 9 0,0"
    steps = [f"ball -560,{10 * i} moving | hit 1@{i}" for i in range(4)]
    _state, calls = run(lines(figs, *steps))
    (foul,) = [c for c in calls if c.kind == "foul"]
    assert (foul.law, foul.team, foul.frame) == ("FISTF 8.1.3", AWAY, 3)


def test_set_piece_taker_may_not_play_twice(run):
    """General guideline: the taker plays again before another figure touched the ball."""
    free_kick = Restart("free_kick", HOME, (273.0, 0.0), "FISTF 5.3")
    steps = ("ball 273,0 rest", "ball 273,0 rest | flick 7@1", "ball 320,0 moving | flick 7@2")
    _state, calls = run(lines(F, *steps), restart=free_kick)
    (foul,) = [c for c in calls if c.kind == "foul"]
    assert (foul.law, foul.team, foul.restart) == ("FISTF general guidelines", AWAY, "free_kick")


@pytest.mark.parametrize(
    ("fig_xy", "restart", "position", "too_close"),
    [
        pytest.param(
            (-500, 0), "penalty", (-475, 0), False, id="FISTF 12.1 foul inside the own area"
        ),
        pytest.param(
            (-300, 0), "free_kick", (-300, 0), False, id="FISTF 12.1 foul outside the area"
        ),
        pytest.param(
            (-600 + 180 - 1.5 - 12 - 0.3, 0),
            "penalty",
            (-475, 0),
            True,
            id="FISTF 12.1 the line is not part of the area: too close to call",
        ),
        pytest.param(
            (-605, 300), "free_kick", (-605, 300), False, id="FISTF 11.1 behind the goal line, wide"
        ),
        pytest.param(
            (-605, 100), "free_kick", (-475, 0), False, id="FISTF 11.1 behind the line: the spot"
        ),
    ],
)
def test_attackers_foul_penalty_or_free_kick(run, fig_xy, restart, position, too_close):
    """FISTF 5.3 + 12.1: the foul is penalised by a penalty inside the offender's own area."""
    x, y = fig_xy
    figs = f"home 7 {x},{y}; away 9 {x + 20},{y + 20}"
    _, calls = run([f"ball {x + 40},{y - 40} rest; flick 7>9; {figs}"])
    (foul,) = [c for c in calls if c.kind == "foul"]
    assert (foul.restart, foul.team, foul.too_close_to_call) == (restart, AWAY, too_close)
    assert foul.position == pytest.approx(position)


# Offside: home attacks the right goal; home 8 is the figure judged, home 7 plays the ball.
OFFSIDE_CASES = [
    pytest.param(
        "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150",
        ("ball 420,0 rest | flick 7", "ball 430,0 moving"),
        True,
        id="FISTF 13.1 nearer the goal line than the ball, only the keeper nearer",
    ),
    pytest.param(
        "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 560,-150",
        ("ball 420,0 rest | flick 7", "ball 430,0 moving"),
        False,
        id="FISTF 13.1 two defenders nearer the goal line",
    ),
    pytest.param(
        "home 7 287,0; home 8 520,100; away 2 gk 590,0",
        ("ball 310,0 rest | flick 7", "ball 320,0 moving"),
        False,
        id="FISTF 13.1 the ball is not wholly in the shooting zone",
    ),
    pytest.param(
        "home 7 443,0; home 8 520,100; away 2 gk 590,0",
        ("ball 420,0 rest | flick 7", "ball 410,0 moving"),
        False,
        id="FISTF 13.1.2 the ball is not played forward",
    ),
    pytest.param(
        "home 7 397,0; home 8 400,100; away 2 gk 590,0",
        ("ball 420,0 rest | flick 7", "ball 430,0 moving"),
        False,
        id="FISTF 13.1 the figure is not nearer the goal line than the ball",
    ),
    pytest.param(
        "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150",
        ("ball 420,0 rest | flick 8", "ball 430,0 moving"),
        False,
        id="FISTF 13.1.4 the figure in an offside position may play the ball itself",
    ),
]


@pytest.mark.parametrize(("figs", "steps", "offside"), OFFSIDE_CASES)
def test_offside(run, figs, steps, offside):
    state, calls = run(lines(figs, *steps))
    calls = [c for c in calls if c.kind == "offside"]
    if not offside:
        assert calls == [] and state.restart is None
        return
    (call,) = calls
    rec = call.to_record()
    assert (rec["law"], rec["team"], rec["restart"], rec["frame"]) == (
        "FISTF 13.1",
        "away",
        "free_kick",
        0,
    )
    assert rec["figure"]["id"] == 8 and rec["position"] == {"x_mm": 520.0, "y_mm": 100.0}
    assert call.margin_mm > call.uncertainty_mm
    assert state.restart == Restart("free_kick", AWAY, (520.0, 100.0), "FISTF 13.1")


def test_offside_level_is_too_close_to_call(run):
    """DESIGN 3: base and ball level within the uncertainty: say so, do not stop play."""
    # Ball nearest part at 597 - 420 - 10.5 = 166.5 from the goal line; base at 166.5 + 0.4.
    x = 597 - 166.1 - 12
    figs = f"home 7 397,0; home 8 {x},100; away 2 gk 590,0"
    state, calls = run(lines(figs, "ball 420,0 rest | flick 7", "ball 430,0 moving"))
    (call,) = [c for c in calls if c.kind == "offside"]
    assert call.too_close_to_call and call.margin_mm == pytest.approx(0.4)
    assert state.restart is None


@pytest.mark.parametrize(
    ("kind", "offside"),
    [
        pytest.param("corner", False, id="FISTF 13.1.3 a no offside directly from a corner"),
        pytest.param("throw_in", False, id="FISTF 13.1.3 a no offside directly from a throw-in"),
        pytest.param("free_kick", True, id="FISTF 13.1.3 a free kicks are not exempt"),
    ],
)
def test_offside_exemptions(run, kind, offside):
    figs = "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150"
    restart = Restart(kind, HOME, (420.0, 0.0), "FISTF 16.1", "right")
    steps = ("ball 420,0 rest", "ball 420,0 rest | flick 7", "ball 430,0 moving")
    _, calls = run(lines(figs, *steps), restart=restart)
    assert any(c.kind == "offside" for c in calls) == offside


def test_offside_not_when_the_opponent_plays(run):
    """FISTF 13.1.3 b: the ball played by the opponent makes no offside."""
    figs = "home 8 520,100; away 2 gk 590,0; away 9 443,0"
    _state, calls = run(
        lines(figs, "ball 420,0 rest | flick 9", "ball 400,0 moving"), possession=AWAY
    )
    assert [c for c in calls if c.kind == "offside"] == []


def test_offside_stops_the_clock_at_the_pass(run):
    """FISTF 13.1 and DESIGN.md 6: play stopped at the pass, not when its direction showed.

    The pass falls between frames 0 and 1 (half of that interval counts, 0.01 s at 50 fps);
    the frame after it shows the ball played forward and the offside is called, but the
    time the ball rolled after the pass does not count.
    """
    figs = "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150"
    state, calls = run(
        lines(figs, "ball 420,0 rest", "ball 421,0 moving | flick 7", "ball 424,0 moving")
    )
    assert [c.kind for c in calls if not c.too_close_to_call] == ["offside"]
    assert state.clock.elapsed_s == pytest.approx(0.5 / 50.0)


def test_offside_of_an_attacker_in_the_goal_area_is_left_to_the_referee(run):
    """FISTF 13.1 with 2.1.2: an attacker standing in the defenders' goal area when the ball
    is played is where the referee puts figures back from once the ball rests, and where
    vision takes the keeper of that goal twice: its offside is said, not given."""
    figs = "home 7 397,0; home 8 570,60; away 2 gk 590,0; away 9 400,-150"
    state, calls = run(lines(figs, "ball 420,0 rest | flick 7", "ball 430,0 moving"))
    (call,) = [c for c in calls if c.kind == "offside"]
    assert call.figure.id == 8 and call.margin_mm > 0
    assert call.too_close_to_call and call.uncertainty_mm >= call.margin_mm
    assert state.restart is None
    # One step out of the goal area, the same attacker is given offside.
    state, calls = run(
        lines(figs.replace("570,60", "520,60"), "ball 420,0 rest | flick 7", "ball 430,0 moving")
    )
    (call,) = [c for c in calls if c.kind == "offside"]
    assert not call.too_close_to_call and state.restart is not None


@pytest.mark.parametrize(
    ("figs", "steps", "flagged"),
    [
        pytest.param(
            "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150",
            ("ball 420,0 rest", "ball 421,0 moving", "ball 430,0 moving"),
            [8],
            id="FISTF 13.1 an unseen play forward: the attacker offside is left to the referee",
        ),
        pytest.param(
            "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 560,-150",
            ("ball 420,0 rest", "ball 421,0 moving", "ball 430,0 moving"),
            [],
            id="FISTF 13.1 an unseen play forward: two defenders nearer, nothing to say",
        ),
        pytest.param(
            "home 7 443,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150",
            ("ball 420,0 rest", "ball 419,0 moving", "ball 410,0 moving"),
            [],
            id="FISTF 13.1.2 an unseen play backward: no offside",
        ),
        pytest.param(
            "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150",
            ("ball 420,0 rest", "ball 421,0 moving | flick 7", "ball 430,0 moving"),
            [8],
            id="FISTF 13.1 the same play seen: given, not left to the referee",
        ),
    ],
)
def test_an_unseen_play_leaves_offside_to_the_referee(run, figs, steps, flagged):
    """FISTF 13.1: offside is judged at the moment the ball is played. A ball at rest that
    rolls with no touch seen (its striker hidden by a hand) was played all the same: a figure
    then in an offside position is named, but the call is the referee's, who saw who played
    it (a defender's play makes no offside, 13.1.3 b)."""
    state, calls = run(lines(figs, *steps))
    calls = [c for c in calls if c.kind == "offside"]
    assert [c.figure.id for c in calls] == flagged
    seen = any("flick" in s for s in steps)
    for call in calls:
        assert call.margin_mm > 0 and call.too_close_to_call != seen
        assert call.too_close_to_call == (abs(call.margin_mm) <= call.uncertainty_mm)
    assert (state.restart is not None) == (seen and bool(flagged))


def test_an_unseen_play_names_no_figure_that_may_have_played_it(run):
    """FISTF 13.1.4: the figure that played the ball is never offside for it. Unseen, any
    figure whose base touched the ball as it began to roll may be that one: here an attacker
    beside the ball, a little nearer the goal line than it; farther off, it is named."""
    steps = ("ball 420,0 rest", "ball 421,0 moving", "ball 430,0 moving")
    for xy, named in (("425,30", []), ("425,60", [8])):
        _, calls = run(lines(f"home 8 {xy}; away 2 gk 590,0; away 9 400,-150", *steps))
        assert [c.figure.id for c in calls if c.kind == "offside"] == named


def test_a_ball_carried_to_another_place_is_no_unseen_play(run):
    """FISTF 13.1 judges a play. A ball seen next 96 mm from where it rested, one frame on at
    50 fps, went faster than any flick: it was carried there (placed by hand), and no offside
    is named."""
    figs = "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150"
    _, calls = run(lines(figs, "ball 420,0 rest", "ball 516,0 moving", "ball 517,0 moving"))
    assert [c for c in calls if c.kind == "offside"] == []
    _, calls = run(lines(figs, "ball 420,0 rest", "ball 440,0 moving", "ball 460,0 moving"))
    assert [c.figure.id for c in calls if c.kind == "offside"] == [8]


def test_a_ball_lifted_and_put_down_is_no_unseen_play(run):
    """FISTF 13.1 judges a play. A ball unseen for a while (a hand lifted it) and seen again
    moving near a figure in an offside position was put down there, not played."""
    figs = "home 7 397,0; home 8 520,100; away 2 gk 590,0; away 9 400,-150"
    steps = (
        "ball 420,0 rest",
        "ball hidden",
        "ball hidden",
        "ball 421,0 moving",
        "ball 430,0 moving",
    )
    _, calls = run(lines(figs, *steps))
    assert [c for c in calls if c.kind == "offside"] == []
