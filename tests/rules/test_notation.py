"""The one-line position notation: reading, writing, and errors that name the token."""

from __future__ import annotations

import pytest

from rules.notation import NotationError, format_observation, parse_observation, parse_sequence
from rules.observation import AWAY, HOME

LINE = (
    "t 12.5; frame 625; ball 312.0,-40.5 moving unc=0.3; home 1 gk -580,0; home 7 250,30; "
    "away 3 400,-10 r=11; flick 7@620; hit 3; flick 7>3 moving; miss 1@600"
)


def test_parse_everything():
    obs = parse_observation(LINE)
    assert (obs.t_s, obs.frame, obs.ball_xy_mm, obs.ball_moving) == (
        12.5,
        625,
        (312.0, -40.5),
        True,
    )
    assert obs.ball_uncertainty_mm == 0.3 and obs.ball_radius_mm == 10.5
    f = obs.figures
    assert f.id.tolist() == [1, 7, 3] and f.team.tolist() == [HOME, HOME, AWAY]
    assert f.goalkeeper.tolist() == [True, False, False] and f.radius_mm.tolist() == [12, 12, 11]
    c = obs.contacts
    assert [(x.figure_id, x.kind, x.onset_frame, x.target_id, x.target_moving) for x in c] == [
        (7, "flick", 620, None, False),
        (3, "collision", 625, None, False),
        (7, "flick", 625, 3, True),
        (1, "miss", 600, None, False),
    ]


@pytest.mark.parametrize(
    "line",
    [
        LINE,
        "ball hidden",
        "",
        "ball 0,0 rest; figures unc=2.5",
        "t 0.1; ball -1e-3,7 moving r=11 unc=0.25; away 12 gk 600.25,-3",
        "ball 5,6 moving unc=400.5 doubt=400",
    ],
)
def test_round_trip(line):
    text = format_observation(parse_observation(line))
    assert format_observation(parse_observation(text)) == text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param("ball 1,2; 2", "unknown clause '2'", id="stray clause"),
        pytest.param("ball 1,x", "bad y 'x'", id="bad number"),
        pytest.param("ball 1,2,3", "bad position '1,2,3'", id="three coordinates"),
        pytest.param("ball 1,2 rolling", "unexpected token 'rolling'", id="unknown ball word"),
        pytest.param("home seven 1,2", "bad figure id 'seven'", id="bad id"),
        pytest.param("home 7 gk", "missing position", id="missing position"),
        pytest.param("visitor 7 1,2", "unknown clause 'visitor'", id="unknown team"),
        pytest.param("home 7 1,2; flick 8", "figure 8, not seen", id="contact names unseen"),
        pytest.param("home 7 1,2; flick 7@x", "bad onset frame 'x'", id="bad onset"),
        pytest.param("home 7 1,2; home 7 3,4", "unique", id="duplicate id"),
        pytest.param("t soon", "bad time 'soon'", id="bad time"),
        pytest.param("home 7 1,2; miss 7>1", "miss touches nothing", id="miss with a target"),
        pytest.param("ball 1,2 unc=1 doubt=5", "part of ball_uncertainty_mm", id="doubt > unc"),
        pytest.param("ball hidden doubt=5", "unexpected token 'doubt=5'", id="doubt, no ball"),
    ],
)
def test_errors_name_the_token(line, message):
    with pytest.raises(NotationError, match=message.replace("(", r"\(")):
        parse_observation(line)


def test_a_ball_s_doubt_is_read_as_part_of_its_uncertainty():
    obs = parse_observation("ball 5,6 moving unc=400.5 doubt=400")
    assert (obs.ball_uncertainty_mm, obs.ball_doubt_mm) == (400.5, 400.0)
    assert parse_observation("ball 5,6").ball_doubt_mm == 0.0


def test_sequence_numbers_frames():
    obs = parse_sequence(["ball 0,0", "", "ball 1,0 moving", "t 9; ball 2,0"], fps=10)
    assert [(o.frame, o.t_s) for o in obs] == [(0, 0.0), (1, 0.1), (2, 9.0)]
