"""Which balls the patch fit sees through a goal's net (``vision/refine._in_goal``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from calibration.tables import load_pitch
from vision.refine import _in_goal


def test_a_ball_in_either_goal_and_on_its_line_is_under_the_net_and_one_on_the_pitch_is_not():
    pitch = load_pitch("fistf")
    model = SimpleNamespace(pitch=pitch)
    r = pitch.profile.ball_radius_mm
    inside, on_line, front, beside = [], [], [], []
    for g in pitch.goals:
        mid_y = 0.5 * (g.y_min_mm + g.y_max_mm)
        inside.append((0.5 * (g.x_line_mm + g.x_back_mm), mid_y))
        # The ball's footprint touching the goal line from the pitch: the net above reaches it.
        on_line.append((g.x_line_mm - g.outward * 0.5 * r, mid_y))
        front.append((g.x_line_mm - g.outward * 3.0 * r, mid_y))  # in front of the goal
        beside.append((0.5 * (g.x_line_mm + g.x_back_mm), g.y_max_mm + 3.0 * r))  # by a post
    assert _in_goal(model, np.array(inside)).all()
    assert _in_goal(model, np.array(on_line)).all()
    assert not _in_goal(model, np.array(front)).any()
    assert not _in_goal(model, np.array(beside)).any()
    assert not _in_goal(model, np.array([[0.0, 0.0]])).any()
