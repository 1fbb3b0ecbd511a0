"""What decided a call, measured for drawing: the offside line through the second-last
defender (FISTF 13.1) and the shot against the shooting line (FISTF 7.1)."""

from __future__ import annotations

import json

import pytest

from calibration.tables import load_pitch
from web.decisions import attacked_end, offside_shapes, shot_frame, shot_shapes

PITCH = load_pitch("fistf")  # goal lines' outer edges at x = +-600, shooting lines at +-300


def fig(id_: int, team: str, x: float, y: float = 0.0) -> dict:
    return {"id": id_, "team": team, "x_mm": x, "y_mm": y}


@pytest.mark.parametrize(
    ("team", "home_end", "end"),
    [("home", "left", "right"), ("away", "left", "left"), ("home", "right", "left")],
)
def test_the_attacked_goal_follows_which_end_home_defends(team, home_end, end):
    assert attacked_end(team, home_end) == end


def test_the_offside_line_runs_through_the_second_last_defender_fistf_13_1():
    record = {
        "figures": [
            fig(2, "away", 590.0),  # the keeper, nearest the goal line
            fig(9, "away", 450.0, 100.0),  # the second-last defender
            fig(10, "away", 100.0),
            fig(8, "home", 500.0, -50.0),  # the attacker the call names
        ]
    }
    shapes = offside_shapes(PITCH, record, fig(8, "home", 500.0, -50.0), "left")
    assert shapes["end"] == "right"
    roles = [(f["id"], f["role"]) for f in shapes["compared"]]
    assert roles == [(8, "attacker"), (2, "defender"), (9, "defender")]
    # Through the rim of defender 9 nearest the goal line (base radius 12 mm), across the pitch.
    line = shapes["line_mm"]
    assert line[0][0] == pytest.approx(450.0 + 12.0, abs=0.01) == line[1][0]
    assert line[0][1] == pytest.approx(-375.0) and line[1][1] == pytest.approx(375.0)


def test_no_offside_line_without_two_defenders_or_the_attacker():
    record = {"figures": [fig(2, "away", 590.0), fig(8, "home", 500.0)]}
    assert offside_shapes(PITCH, record, fig(8, "home", 500.0), "left") is None


def test_the_shot_is_the_last_resting_ball_before_the_goal_and_is_judged_by_fistf_7_1():
    back = [
        {"frame": 9, "ball": {"x_mm": 610.0, "y_mm": 0.0, "moving": True}},
        {"frame": 8, "ball": None},
        {"frame": 7, "ball": {"x_mm": 280.0, "y_mm": 0.0, "moving": False}},
        {"frame": 6, "ball": {"x_mm": 280.0, "y_mm": 0.0, "moving": False}},
    ]
    assert shot_frame(back)["frame"] == 7
    assert shot_frame(back[:2]) is None
    outside = shot_shapes(PITCH, "right", (280.0, 0.0))
    assert not outside["inside"] and outside["margin_mm"] < 0
    inside = shot_shapes(PITCH, "right", (330.0, 0.0))  # 330 - 10.5 > 301.5: wholly inside
    assert inside["inside"] and inside["margin_mm"] > 0


def test_the_tracks_of_a_calls_frame_carry_its_decisive_shapes_in_pixels(
    client, recordings_dir, sample
):
    folder = recordings_dir / "match1"
    records = [sample.tracks_record(i) for i in range(sample.FRAMES)]
    for i in (14, 15):  # the ball rests before the goal's shot, outside the shooting zone
        records[i]["ball"] = {"x_mm": 250.0, "y_mm": 40.0, "moving": False}
    (folder / "tracks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    offside = sample.call_record(
        6,
        "offside",
        line=None,
        law="FISTF 13.1",
        restart="free_kick",
        evidence=None,
        figure={"id": 1, "team": "home", "x_mm": 520.0, "y_mm": 30.0},
    )
    goal = sample.call_record(
        sample.GOAL_FRAME,
        "goal_disallowed",
        line="shooting_line",
        margin_mm=-62.0,
        evidence=None,
    )
    calls = [offside, goal]
    (folder / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls), "utf-8")

    data = client.get("/api/recordings/match1/tracks/6").get_json()
    (drawn,) = data["offside"]
    assert [(f["id"], f["role"]) for f in drawn["compared"]] == [
        (1, "attacker"),
        (12, "defender"),
        (13, "defender"),
    ]
    assert len(drawn["line_px"]) == 2 and data["ball_margin_px"]

    data = client.get(f"/api/recordings/match1/tracks/{sample.GOAL_FRAME}").get_json()
    (shot,) = data["shots"]
    assert (shot["frame"], shot["inside"], shot["end"]) == (15, False, "right")
    # The margin is measured from where the shot was taken, not from the ball in the goal.
    (margin,) = data["margins"]
    assert margin["margin_mm"] == pytest.approx(shot["margin_mm"], abs=0.01)
    assert shot["margin_mm"] == pytest.approx(250.0 - 10.5 - 301.5, abs=0.01)  # whole footprint
