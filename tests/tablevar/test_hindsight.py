"""The ball of frames written before motion settled which candidate it is, placed again."""

from __future__ import annotations

from tablevar.hindsight import BallInHindsight
from tracking.hypotheses import BallRun

STOOD = BallRun(0.1, 0.5, 200.0, -50.0, False, 20)
ROLLED = BallRun(0.52, 0.52, 215.0, -50.0, True)


def record(t_s, ball):
    xy = None if ball is None else {"x_mm": ball[0], "y_mm": ball[1], "moving": False}
    return {"frame": round(t_s * 50), "t_s": t_s, "ball": xy, "figures": []}


def test_a_frame_that_showed_another_object_or_none_gets_the_trail_s_ball():
    fix = BallInHindsight([(STOOD, ROLLED)])
    keeper = fix(record(0.3, (-520.0, 10.0)))
    assert keeper["ball"] == {"x_mm": 200.0, "y_mm": -50.0, "moving": False}
    assert fix(record(0.4, None))["ball"]["x_mm"] == 200.0  # hidden where it stood
    assert fix(record(0.52, None))["ball"] == {"x_mm": 215.0, "y_mm": -50.0, "moving": True}
    assert keeper["figures"] == [] and keeper["frame"] == 15


def test_the_ball_s_own_track_and_frames_the_trail_did_not_see_are_kept():
    fix = BallInHindsight([(STOOD, ROLLED)])
    own = record(0.3, (201.5, -49.0))  # the ball's own track, within reach of the trail
    assert fix(own) is own
    for t in (0.0, 0.51, 0.6):  # before its first sighting, between runs, after the trail
        rec = record(t, (-520.0, 10.0))
        assert fix(rec) is rec


def test_no_trail_changes_nothing():
    fix = BallInHindsight([])
    rec = record(0.3, (-520.0, 10.0))
    assert not fix and fix(rec) is rec
