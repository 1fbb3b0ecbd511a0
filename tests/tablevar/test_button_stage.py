"""The button-football rules stage: pieces named, shot calls fed in, the calls of the text."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calibration.tables import load_pitch
from rules.observation import AWAY, HOME, Contact, Figures
from tablevar.button_stage import ButtonRules, ShotCallsError, read_shot_calls
from tablevar.tracked import TrackedBall, TrackedFrame

# Vision's kit 1 stands in the left half: it is home; the blocks in the goal areas are keepers.
KITS = [1, 1, 0, 0, 0, 1]
XY = [(-590.0, 0.0), (-200.0, 0.0), (-100.0, 50.0), (590.0, 3.0), (300.0, 0.0), (150.0, -80.0)]


def frame(i: int, ball, moving: bool, contacts=()) -> TrackedFrame:
    figures = Figures.build(range(1, 7), KITS, [False] * 6, XY, 16.0)
    b = None if ball is None else TrackedBall(ball[0], ball[1], moving)
    return TrackedFrame(i, i / 50, b, figures, contacts)


@pytest.fixture
def pitch():
    return load_pitch("button-football")


def test_pieces_are_named_by_half_and_goal(pitch):
    rules = ButtonRules(pitch)
    named, _ = rules.judge(frame(0, (0.0, 0.0), False))
    assert named.figures.goalkeeper.tolist() == [True, False, False, True, False, False]
    # kit 1 is home (left half); the blocks belong to the goal they keep, whatever their kit
    assert named.figures.team.tolist() == [HOME, HOME, AWAY, AWAY, AWAY, HOME]


def test_a_called_shot_from_the_file_scores(pitch, tmp_path):
    (tmp_path / "shot_calls.jsonl").write_text('{"team": "home", "t_s": 0.05}\n')
    rules = ButtonRules(pitch, shot_calls=read_shot_calls(tmp_path))
    calls = []
    for i, x in enumerate((400.0, 400.0, 400.0, 450, 500, 550, 600, 625, 640)):
        contacts = (Contact(6, "flick", i - 1),) if i == 3 else ()
        calls += rules.judge(frame(i, (x, 40.0), i >= 3, contacts))[1]
    assert [(c.kind, c.team) for c in calls] == [("shot_called", HOME), ("goal", HOME)]
    assert rules.score == (1, 0)


def test_a_bad_shot_calls_file_names_the_line(tmp_path):
    (tmp_path / "shot_calls.jsonl").write_text('{"team": "home", "t_s": 1}\n{"team": "red"}\n')
    with pytest.raises(ShotCallsError, match=r"shot_calls\.jsonl:2: not a shot call"):
        read_shot_calls(tmp_path)
    assert read_shot_calls(tmp_path / "none") == ()


@pytest.mark.parametrize(
    ("target", "kind", "restart", "law"),
    [
        (5, "foul", "free_kick", "BF Fouls"),  # an away button in midfield
        (4, "foul", "goal_kick", "BF Fouls"),  # the away keeper block: its kick (BF Torwartball)
        (2, None, None, None),  # a team-mate: no foul
    ],
)
def test_a_button_hit_before_the_ball_is_a_foul_at_the_fouled_piece(
    pitch, target, kind, restart, law
):
    """BF Fouls: "Wer einen gegnerischen Knopf oder Torwart vor dem Ball trifft, begeht ein
    Foul" and "Das gefoulte Team bekommt an der Stelle des Fouls einen Freistoß"; BF
    Torwartball: "Auch ein Foul am Torwart führt zu seinem Abschlag", from the foul's place."""
    rules = ButtonRules(pitch)
    calls = []
    for i in range(4):  # home button 2 hits the target while the ball lies at rest
        hit = (Contact(2, "flick", i, target_id=target),) if i == 2 else ()
        calls += rules.judge(frame(i, (0.0, 200.0), False, hit))[1]
    fouls = [c for c in calls if c.kind == "foul"]
    if kind is None:
        assert fouls == []
        return
    (c,) = fouls
    assert (c.team, c.restart, c.law) == (AWAY, restart, law)
    assert tuple(c.position) == XY[target - 1]
    assert c.figure.id == 2


def test_a_hit_on_a_piece_not_seen_this_frame_is_not_given_to_the_rules(pitch):
    rules = ButtonRules(pitch)
    obs = rules.observation(frame(0, (0.0, 0.0), False, (Contact(2, "flick", 0, target_id=9),)))
    assert obs.contacts == ()


def test_the_identity_doubt_widens_the_ball_uncertainty_the_rules_are_told(pitch):
    """While another ball-like candidate may be the ball, the ball's uncertainty covers the
    distance to it (a line call on it is then left to the referee)."""
    rules = ButtonRules(pitch, line_sigma_mm=0.1)
    sure = replace(frame(0, (100.0, 50.0), False), ball_sigma_mm=0.2)
    doubt = replace(sure, ball_doubt_mm=180.0)
    u = rules.observation(sure).ball_uncertainty_mm
    assert rules.observation(doubt).ball_uncertainty_mm == pytest.approx(u + 180.0)
    assert rules.ball_uncertainty(doubt) == rules.observation(doubt).ball_uncertainty_mm
