"""How the first frame finds a match: picked up in play (DESIGN.md 4) or from its kick-off.

A clip may start anywhere: the rules start in open play (possession unknown until the first
touch, no restart pending, the ball-moving clock running while the ball rolls) and take a flick
for a kick-off only when they see one set up (FISTF 4.2: the ball at rest on the centre spot,
the figures of each team in their own half). What happened before the first frame is not
guessed: a goal whose shot was not seen, or a ball out whose last touch was not seen, is left to
the referee. Home defends the left goal (x = -600) and attacks the right one (x = +600).

Each case is a sequence of one-line positions (``rules.notation``) fed to a fresh match.
"""

from __future__ import annotations

import pytest

from rules.fistf import MatchConfig, MatchState, referee_decision
from rules.observation import AWAY, HOME

ATTACK = "home 1 gk -590,0; home 7 380,-40; home 8 230,30; away 2 gk 590,0; away 9 450,150"
KO = "home 1 gk -590,0; home 7 -23,0; home 8 -40,100; away 2 gk 590,0; away 9 130,0"


def fresh(run, lines, **config):
    """Feed ``lines`` to a match as its first frame finds it (``MatchConfig.start``)."""
    return run(lines, in_play=False, **config)


def stopping(calls):
    return [c for c in calls if c.kind not in ("close_call", "figure_placement", "distance")]


# ball at rest, flicked, then rolls on until wholly over the right goal line between the posts
GOAL_CASES = [
    # id, ball at the shot, expected (kind, law, team, restart, too close), score
    pytest.param(
        "400,-10", ("goal", "FISTF 7.1", "home", "kick_off", False), (1, 0), id="FISTF 7.1 inside"
    ),
    pytest.param(
        "250,-10",
        ("goal_disallowed", "FISTF 7.2", "away", "goal_kick", False),
        (0, 0),
        id="FISTF 7.2 a shot from outside the shooting zone",
    ),
]


@pytest.mark.parametrize(("shot_xy", "expected", "score"), GOAL_CASES)
def test_open_play_start_judges_a_seen_shot_on_the_shooting_zone(run, shot_xy, expected, score):
    """FISTF 7.1/7.2: the first flick of a clip is a shot like any other, not a kick-off, so a
    goal from inside the zone counts and one from outside does not (no "direct from a set
    piece", no set-piece fault)."""
    fig = "home 7 380,-40" if shot_xy.startswith("4") else "home 7 230,-30"
    figs = ATTACK.replace("home 7 380,-40", fig)
    x = float(shot_xy.split(",")[0])
    state, calls = fresh(
        run,
        [
            f"ball {shot_xy} rest; {figs}",
            f"ball {x + 15},-10 moving; {figs}; flick 7",
            f"ball 560,-10 moving; {figs}",
            f"ball 622,-10 moving; {figs}",
        ],
    )
    (call,) = stopping(calls)
    rec = call.to_record()
    got = (rec["kind"], rec["law"], rec["team"], rec["restart"], call.too_close_to_call)
    assert got == expected
    assert state.score == score


def test_open_play_start_waits_for_nothing_and_runs_the_clock(fistf_pitch, run):
    """DESIGN.md 4 and 6: no restart pending, possession unknown until the first touch, and the
    ball-moving clock counts the roll seen from the first frame."""
    fresh_state = MatchState.new(MatchConfig(fistf_pitch))
    assert fresh_state.restart is None and fresh_state.possession is None
    assert fresh_state.clock.started
    lines = [f"ball {100 + 8 * i},0 moving; {ATTACK}" for i in range(26)]
    state, calls = fresh(run, lines)
    assert state.clock.elapsed_s == pytest.approx(25 / 50)
    assert state.possession is None and stopping(calls) == []


@pytest.mark.parametrize(
    ("touch", "possession"),
    [
        pytest.param("flick 7", HOME, id="FISTF 5.1 the flicking team attacks"),
        pytest.param("hit 9", AWAY, id="FISTF 5.1 b the ball touched a figure at rest"),
        pytest.param("miss 9", HOME, id="FISTF 5.1 a / 6.2 a miss: the other team has the ball"),
    ],
)
def test_possession_is_learnt_from_the_first_touch(run, touch, possession):
    """Possession is unknown at an open-play start; the first touch tells who has the ball,
    whichever side it was on before."""
    lines = [f"ball 300,-40 rest; {ATTACK}", f"ball 310,-40 moving; {ATTACK}; {touch}"]
    state, calls = fresh(run, lines)
    assert state.possession == possession and stopping(calls) == []


@pytest.mark.parametrize(
    ("contacts", "expected"),
    [
        pytest.param(("flick 7", "flick 7"), [], id="FISTF 5.2 one figure twice is allowed"),
        pytest.param(
            ("flick 7", "flick 7", "flick 7", "flick 7"),
            [("foul", "FISTF 5.2", "away")],
            id="FISTF 5.2 a fourth play in a row",
        ),
    ],
)
def test_the_first_flick_is_no_set_piece_for_the_repeat_limit(run, contacts, expected):
    """FISTF 5.2: in open play a figure may play the ball three times in a row; the first flick
    of a clip is not a set piece whose taker may not play twice (general guidelines)."""
    lines = [f"ball 300,-40 rest; {ATTACK}"]
    x = 300.0
    for c in contacts:
        lines += [f"ball {x},-40 rest; {ATTACK}", f"ball {x + 6},-40 moving; {ATTACK}; {c}"]
        lines += [f"ball {x + 20},-40 moving; {ATTACK}", f"ball {x + 24},-40 rest; {ATTACK}"]
        x += 24
    _, calls = fresh(run, lines)
    got = [(c.kind, c.law, c.to_record()["team"]) for c in stopping(calls)]
    assert got == expected


def test_a_goal_whose_shot_was_not_seen_is_left_to_the_referee(run):
    """FISTF 7.1: a goal needs a shot from inside the shooting zone. A clip that starts with the
    ball already rolling into the goal has not seen the shot: the call says so (its margin
    within its uncertainty, DESIGN.md 4) and the referee's word settles it."""
    state, calls = fresh(
        run,
        [
            f"ball 520,0 moving; {ATTACK}",
            f"ball 570,0 moving; {ATTACK}",
            f"ball 622,0 moving; {ATTACK}",
        ],
    )
    (call,) = stopping(calls)
    rec = call.to_record()
    assert (rec["kind"], rec["law"], rec["line"], rec["team"]) == (
        "goal",
        "FISTF 7.1",
        "shooting_line",
        "home",
    )
    assert call.too_close_to_call and abs(rec["margin_mm"]) <= rec["uncertainty_mm"]
    assert state.score == (0, 0) and state.restart.kind == "referee"
    given, _ = referee_decision(state, call, upheld=True)
    assert given.score == (1, 0) and given.restart.kind == "kick_off"
    denied, (confirm,) = referee_decision(state, call, upheld=False)
    assert denied.score == (0, 0) and (confirm.kind, confirm.restart) == (
        "goal_disallowed",
        "goal_kick",
    )


OUT_CASES = [
    # id, lines, expected (kind, law, line, team, restart)
    pytest.param(
        ["ball 0,340 moving", "ball 0,370 moving", "ball 0,396 moving"],
        ("ball_out", "FISTF 14.1", "touchline", None, "throw_in"),
        id="FISTF 14.1 touchline, last touch unseen: throw-in, team unknown",
    ),
    pytest.param(
        ["ball 560,200 moving", "ball 590,210 moving", "ball 621,220 moving"],
        ("ball_out", "FISTF 15.1/16.1", "goal_line", None, None),
        id="FISTF 15.1/16.1 goal line, last touch unseen: goal kick or corner unknown",
    ),
    pytest.param(
        ["ball 560,200 moving", "ball 580,205 moving; hit 9", "ball 621,220 moving"],
        ("ball_out", "FISTF 15.1/16.1", "goal_line", None, None),
        id="FISTF 16.1 a defender deflected an unseen shot: corner or goal kick unknown",
    ),
    pytest.param(
        ["ball 560,200 moving", "ball 580,205 moving; hit 7", "ball 621,220 moving"],
        ("ball_out", "FISTF 15.1", "goal_line", "away", "goal_kick"),
        id="FISTF 15.1 last touched by an attacker: goal kick",
    ),
    pytest.param(
        ["ball 440,300 rest", "ball 450,330 moving; flick 9", "ball 460,396 moving"],
        ("ball_out", "FISTF 14.1", "touchline", "home", "throw_in"),
        id="FISTF 14.1 a touch seen in the clip: throw-in to the other team",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), OUT_CASES)
def test_ball_out_with_the_last_touch_unseen_names_no_team(run, steps, expected):
    """A restart goes to the team that did not touch the ball last (14.1, 15.1, 16.1): with that
    touch before the first frame, the call names no team rather than guess one."""
    figs = ATTACK.replace("home 7 380,-40", "home 7 580,170").replace(
        "away 9 450,150", "away 9 580,240"
    )
    state, calls = fresh(run, [f"{s}; {figs}" for s in steps])
    (call,) = stopping(calls)
    rec = call.to_record()
    assert (rec["kind"], rec["law"], rec["line"], rec["team"], rec["restart"]) == expected
    assert rec["margin_mm"] > rec["uncertainty_mm"]  # the ball is out: that much is sure
    if expected[3] is None:
        assert call.note.startswith("the last touch was not seen")
    # The next flick resumes play, whoever takes it.
    resume = [
        "t 1.0; frame 50; ball 600,360 rest; home 7 580,340",
        "t 1.02; frame 51; ball 590,350 moving; home 7 580,340; flick 7",
    ]
    state, _ = run(resume, state=state)
    assert state.restart is None


@pytest.mark.parametrize(
    "first",
    [
        pytest.param("ball 663,-83 rest", id="FISTF 15.1/16.1 beside a goal, at rest"),
        pytest.param("ball 0,430 moving", id="FISTF 14.1 over a touchline, rolling"),
        pytest.param("ball 630,0 rest", id="FISTF 7.1 in the net"),
    ],
)
def test_a_ball_first_seen_out_of_play_makes_no_call(run, first):
    """A ball out (14.1, 15.1, 16.1) or a goal (7.1) is decided from its crossing and the
    touches before it. A clip that starts with the ball wholly over a line saw neither: it
    left play before the first frame, or it is not the ball (an object by a goal taken for
    it before anything rolled). No call; play is open, and the ball seen in play counts from
    then on: its crossing is called as ever."""
    state, calls = fresh(run, [f"{first}; {ATTACK}", f"{first}; {ATTACK}"])
    assert stopping(calls) == [] and state.restart is None and state.score == (0, 0)
    steps = ["ball 0,340 moving", "ball 0,370 moving", "ball 0,396 moving"]
    state, calls = run(
        [f"t {0.1 + 0.02 * k}; {s}; {ATTACK}" for k, s in enumerate(steps)], state=state
    )
    (call,) = stopping(calls)
    assert (call.kind, call.law, call.line) == ("ball_out", "FISTF 14.1", "touchline")


KICK_OFF_SETUPS = [
    # id, ball, figures, seen as a kick-off set up
    pytest.param("0,0 rest", KO, True, id="FISTF 4.2 the ball on the spot, each team in its half"),
    pytest.param(
        "4,-3 rest",
        KO.replace("home 8 -40,100", "home 8 5,100"),
        True,
        id="FISTF 4.2.1 a figure over the halfway line is a fault of a kick-off set up",
    ),
    pytest.param(
        "0,0 rest",
        KO.replace("home 8 -40,100", "home 8 60,100"),
        False,
        id="FISTF 4.2.1 a figure wholly in the other half: not lined up",
    ),
    pytest.param("0,0 moving", KO, False, id="FISTF 4.2.3 a rolling ball is not placed"),
    pytest.param("40,0 rest", KO, False, id="FISTF 4.2.3 the ball off the centre spot"),
    pytest.param(
        "0,0 rest", "home 7 -23,0; home 8 -40,100", False, id="one team seen: no line-up to judge"
    ),
]


@pytest.mark.parametrize(("ball", "figs", "seen"), KICK_OFF_SETUPS)
def test_a_kick_off_set_up_is_recognised(run, ball, figs, seen):
    state, calls = fresh(run, [f"ball {ball}; {figs}"])
    restart = state.restart
    assert (restart is not None and restart.kind == "kick_off") == seen
    assert stopping(calls) == []
    if seen:
        assert restart.team is None and state.possession is None  # 4.2.2: not seen who attacks


KICK_OFF_FAULTS = [
    # id, figures, taker, rolls to, expected (law, figure id or None)
    pytest.param(KO, 7, "20,0", [], id="FISTF 4.2 a correct kick-off"),
    pytest.param(
        KO.replace("home 8 -40,100", "home 8 5,100"),
        7,
        "20,0",
        [("FISTF 4.2", 8)],
        id="FISTF 4.2.1 a figure not wholly in its own half",
    ),
    pytest.param(
        KO.replace("away 9 130,0", "away 9 100,50"),
        7,
        "20,0",
        [("FISTF 4.2", 9)],
        id="FISTF 4.2.1 a defender on the centre circle",
    ),
    pytest.param(KO, 7, "-20,0", [("FISTF 4.2", None)], id="FISTF 4.2.3 it must go forward"),
]


@pytest.mark.parametrize(("figs", "taker", "after", "expected"), KICK_OFF_FAULTS)
def test_a_recognised_kick_off_still_has_its_faults_called(run, figs, taker, after, expected):
    """FISTF 4.2: once seen set up, the kick-off is checked at its taking flick as always."""
    state, calls = fresh(
        run,
        [
            f"ball 0,0 rest; {figs}",
            f"ball 0,0 rest; {figs}; flick {taker}",
            f"ball {after} moving; {figs}",
        ],
    )
    faults = [
        (c.law, c.figure.id if c.figure else None) for c in calls if c.kind == "set_piece_fault"
    ]
    assert faults == expected
    assert state.restart is None and state.possession == HOME


def test_a_recognised_kick_off_taker_may_not_play_twice(run):
    """General guidelines: the figure that took a kick-off may not play again before another
    figure touched the ball."""
    lines = [f"ball 0,0 rest; {KO}", f"ball 0,0 rest; {KO}; flick 7", f"ball 20,0 moving; {KO}"]
    lines += [f"ball 24,0 rest; {KO}", f"ball 30,0 moving; {KO}; flick 7"]
    _, calls = fresh(run, lines)
    assert [(c.kind, c.law, c.team) for c in stopping(calls)] == [
        ("foul", "FISTF general guidelines", AWAY)
    ]


def test_the_referee_starts_a_match_from_its_kick_off(fistf_pitch, run):
    """FISTF 4.1: a match the referee starts (``start="kick_off"``) waits for the kick-off
    of ``first_kick_off``; its clock starts with the kick-off's flick."""
    state = MatchState.new(MatchConfig(fistf_pitch, start="kick_off", first_kick_off=AWAY))
    assert state.restart.kind == "kick_off" and state.restart.team == AWAY
    assert not state.clock.started
    rolling = [f"ball {i},0 moving; {KO}" for i in range(10, 40, 5)]
    state, calls = fresh(run, rolling, start="kick_off")
    assert state.restart.kind == "kick_off" and state.clock.elapsed_s == 0.0
    lines = [f"ball 0,0 rest; {KO}", f"ball 0,0 rest; {KO}; flick 7", f"ball 20,0 moving; {KO}"]
    state, calls = fresh(run, lines, start="kick_off", first_kick_off=AWAY)
    assert [(c.kind, c.note) for c in calls] == [("set_piece_fault", "taken by the other team")]
    assert state.first_kick_off == HOME and state.clock.started


@pytest.mark.parametrize(
    ("ball", "noticed"),
    [
        pytest.param("ball 100,0 rest", [5], id="FISTF 2.1 ball at rest: the figure goes back"),
        pytest.param("ball hidden", [], id="FISTF 2.1 ball not seen: it may be rolling"),
        pytest.param("ball 100,0 moving", [], id="FISTF 2.1 ball rolling"),
    ],
)
def test_placement_needs_the_ball_seen_at_rest(run, ball, noticed):
    """FISTF 2.1: figures in a goal area are put back when the ball is at rest."""
    figs = "home 1 gk -590,0; away 2 gk 590,0; home 5 560,60"
    _, calls = fresh(run, [f"{ball}; {figs}"])
    assert [c.figure.id for c in calls if c.kind == "figure_placement"] == noticed
