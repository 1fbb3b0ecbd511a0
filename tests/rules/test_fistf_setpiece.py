"""FISTF restarts through step(): set-up checks at the taking flick, and figure placement."""

from __future__ import annotations

import pytest

from rules.fistf_state import Restart
from rules.observation import AWAY, HOME

KICK_OFF = Restart("kick_off", HOME, (0.0, 0.0), "FISTF 4.1")
GOAL_KICK = Restart("goal_kick", AWAY, (567.5, 0.0), "FISTF 15.1", "right")
PENALTY = Restart("penalty", HOME, (475.0, 0.0), "FISTF 5.3", "right")
THROW_IN = Restart("throw_in", HOME, (200.0, 373.5), "FISTF 14.1")
CORNER = Restart("corner", HOME, (600.0, 375.0), "FISTF 16.1", "right")
FREE_KICK = Restart("free_kick", HOME, (100.0, 0.0), "FISTF 5.3")


def take(run, restart, ball, figs, taker, after=None):
    """The ball placed at ``ball``, then ``taker`` flicks it (and it rolls to ``after``)."""
    steps = [f"ball {ball} rest; {figs}", f"ball {ball} rest; {figs}; flick {taker}"]
    if after:
        steps.append(f"ball {after} moving; {figs}")
    return run(steps, restart=restart)


KO_OK = "home 1 gk -590,0; home 7 -23,0; home 8 -40,100; away 2 gk 590,0; away 9 130,0"

SETUP_CASES = [
    # restart, ball, figures, taker, rolls to, expected (kind, law, figure id or None)
    pytest.param(KICK_OFF, "0,0", KO_OK, 7, "20,0", [], id="FISTF 4.2 a correct kick-off"),
    pytest.param(
        KICK_OFF,
        "0,0",
        KO_OK.replace("home 8 -40,100", "home 8 5,100"),
        7,
        "20,0",
        [("set_piece_fault", "FISTF 4.2", 8)],
        id="FISTF 4.2.1 a figure not wholly in its own half",
    ),
    pytest.param(
        KICK_OFF,
        "0,0",
        KO_OK.replace("away 9 130,0", "away 9 100,50"),
        7,
        "20,0",
        [("set_piece_fault", "FISTF 4.2", 9)],
        id="FISTF 4.2.1 a defender on the centre circle",
    ),
    pytest.param(
        KICK_OFF,
        "0,0",
        KO_OK,
        7,
        "-20,0",
        [("set_piece_fault", "FISTF 4.2", None)],
        id="FISTF 4.2.3 the kick-off must go forward",
    ),
    pytest.param(
        KICK_OFF,
        "30,0",
        KO_OK.replace("home 7 -23,0", "home 7 7,0"),
        7,
        "50,0",
        [("set_piece_fault", "FISTF 4.2", None)],
        id="FISTF 4.2.3 the ball not on the centre spot",
    ),
    pytest.param(
        GOAL_KICK,
        "560,0",
        "away 2 gk 590,0; away 9 583,20; home 7 300,0",
        9,
        "400,0",
        [],
        id="FISTF 15.2 a correct goal kick",
    ),
    pytest.param(
        GOAL_KICK,
        "560,0",
        "away 2 gk 590,0; away 9 583,20; home 7 450,0",
        9,
        "400,0",
        [("set_piece_fault", "FISTF 15.2", 7)],
        id="FISTF 15.2.1 a figure inside the penalty area",
    ),
    pytest.param(
        GOAL_KICK,
        "500,0",
        "away 2 gk 590,0; away 9 523,20; home 7 300,0",
        9,
        "400,0",
        [("set_piece_fault", "FISTF 15.2", None)],
        id="FISTF 15.2.2 the ball outside the goal area",
    ),
    pytest.param(
        GOAL_KICK,
        "560,0",
        "away 2 gk 590,0; away 9 583,20; home 7 300,0; away 10 300,30",
        9,
        "400,0",
        [("set_piece_fault", "FISTF 15.2", 7)],
        id="FISTF 15.2.1 attacker and defender within 20 mm",
    ),
    pytest.param(
        PENALTY,
        "475,0",
        "home 7 452,0; home 8 300,0; away 2 gk 612,0",
        7,
        "520,0",
        [],
        id="FISTF 12.2 a correct penalty",
    ),
    pytest.param(
        PENALTY,
        "475,0",
        "home 7 452,0; home 8 380,60; away 2 gk 612,0",
        7,
        "520,0",
        [("set_piece_fault", "FISTF 12.2", 8)],
        id="FISTF 12.2.2 a figure in the penalty arc",
    ),
    pytest.param(
        PENALTY,
        "475,0",
        "home 7 452,0; away 2 gk 580,0",
        7,
        "520,0",
        [("set_piece_fault", "FISTF 12.2", 2)],
        id="FISTF 12.2.3 the keeper stands out beyond the goal line",
    ),
    pytest.param(
        THROW_IN,
        "200,373.5",
        "home 8 200,397; away 9 200,300",
        8,
        "200,300",
        [],
        id="FISTF 14.2 a correct throw-in, defender 4 cm away",
    ),
    pytest.param(
        THROW_IN,
        "200,373.5",
        "home 8 200,397; away 9 200,335",
        8,
        "200,300",
        [("distance", "FISTF general guidelines", 9)],
        id="guideline: a defender nearer than 4 cm at a throw-in",
    ),
    pytest.param(
        THROW_IN,
        "200,350",
        "home 8 200,373; away 9 100,250",
        8,
        "200,300",
        [("set_piece_fault", "FISTF 14.2", None)],
        id="FISTF 14.2.4 the ball not on the touchline",
    ),
    pytest.param(
        CORNER,
        "590,365",
        "home 8 605,380; away 9 540,330",
        8,
        "570,300",
        [("distance", "FISTF general guidelines", 9)],
        id="guideline: a defender nearer than 9 cm at a corner",
    ),
    pytest.param(
        CORNER,
        "560,330",
        "home 8 575,345; away 9 400,200",
        8,
        "540,300",
        [("set_piece_fault", "FISTF 16.2", None)],
        id="FISTF 16.2.1 the ball outside the corner arc",
    ),
    pytest.param(
        FREE_KICK,
        "100,0",
        "home 7 77,0; away 9 100,45",
        9,
        "120,0",
        [
            ("set_piece_fault", "FISTF general guidelines", 9),
            ("distance", "FISTF general guidelines", 7),
        ],
        id="guideline: the free kick taken by the other team",
    ),
]


@pytest.mark.parametrize(("restart", "ball", "figs", "taker", "after", "expected"), SETUP_CASES)
def test_set_piece_setup(run, restart, ball, figs, taker, after, expected):
    state, calls = take(run, restart, ball, figs, taker, after)
    got = [(c.kind, c.law, None if c.figure is None else c.figure.id) for c in calls]
    got = [g for g in got if g[0] != "figure_placement"]
    assert sorted(got, key=str) == sorted(expected, key=str)
    assert state.restart is None  # notices never stop play
    assert state.live_set_piece is None or state.live_set_piece[0] == restart.kind


def test_no_restart_is_taken_in_the_net(run):
    """FISTF 4.2.3 / 7.1: after a goal the kick-off waits on the centre spot. The ball still
    lies in the net, where the keeper's touch (or the hand fetching it) takes nothing: the
    kick-off stays to be taken, with no fault called."""
    figs = "home 1 gk -590,0; home 7 -23,0; away 2 gk 590,0; away 9 130,0"
    steps = [f"ball -625,36 rest; {figs}", f"ball -625,36 rest; {figs}; flick 1"]
    steps.append(f"ball -622,36 moving; {figs}")
    state, calls = run(steps, restart=KICK_OFF)
    assert [c for c in calls if c.kind != "figure_placement"] == []
    assert state.restart == KICK_OFF


def test_goal_kick_must_leave_the_area(run):
    """FISTF 15.2.4: the ball stops inside the penalty area: retake."""
    figs = "away 2 gk 590,0; away 9 583,20; home 7 300,0"
    steps = [
        f"ball 560,0 rest; {figs}",
        f"ball 560,0 rest; {figs}; flick 9",
        f"ball 500,0 moving; {figs}",
        f"ball 470,0 rest; {figs}",
    ]
    _, calls = run(steps, restart=GOAL_KICK)
    (fault,) = [c for c in calls if c.kind == "set_piece_fault"]
    assert (fault.law, fault.restart, fault.frame) == ("FISTF 15.2", "goal_kick", 3)


def test_goal_kick_leaving_the_area_is_fine(run):
    figs = "away 2 gk 590,0; away 9 583,20; home 7 300,0"
    steps = [
        f"ball 560,0 rest; {figs}",
        f"ball 560,0 rest; {figs}; flick 9",
        f"ball 450,0 moving; {figs}",
        f"ball 400,0 rest; {figs}",
    ]
    state, calls = run(steps, restart=GOAL_KICK)
    assert [c for c in calls if c.kind == "set_piece_fault"] == []
    assert state.goal_kick_end is None


@pytest.mark.parametrize(
    ("figs", "moving", "expected"),
    [
        pytest.param("home 7 0,480", False, [(7, (0.0, 463.0))], id="FISTF 2.1.1 off the cloth"),
        pytest.param(
            "away 9 560,20", False, [(9, (520.5, 20.0))], id="FISTF 2.1.2 in the goal area"
        ),
        pytest.param("away 2 gk 590,0", False, [], id="FISTF 2.1.2 the keeper belongs there"),
        pytest.param("away 9 560,20", True, [], id="FISTF 2.1 only with the ball at rest"),
    ],
)
def test_figure_placement(run, figs, moving, expected):
    state_word = "moving" if moving else "rest"
    steps = [f"ball 0,0 {state_word}; {figs}"] * 3  # noticed once, not on every frame
    _, calls = run(steps)
    got = [(c.figure.id, c.position) for c in calls if c.kind == "figure_placement"]
    assert got == [(fid, pytest.approx(pos)) for fid, pos in expected]
    assert all(c.law == "FISTF 2.1" for c in calls)
