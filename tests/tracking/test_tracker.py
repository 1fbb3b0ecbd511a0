"""The combined tracker: ball candidates standing on a figure's base are that figure."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.tables import load_pitch
from tracking.tracker import Tracker
from vision.detections import Detections

PITCH = load_pitch("fistf")
FPS = 60.0
BASES = np.array([[-579.0, 0.0], [200.0, 100.0]])


@pytest.mark.parametrize(
    ("ball_xy", "found"),
    [
        ((-579.0, 0.5), False),  # a goalkeeper of the ball's colour: not the ball
        ((200.0 + 22.5, 100.0), True),  # the ball touching a base
        ((0.0, 0.0), True),
    ],
)
def test_ball_candidates_on_bases_are_not_the_ball(ball_xy, found):
    tracker = Tracker(pitch=PITCH)
    for i in range(10):
        det = Detections.build(
            ball_xy_mm=[ball_xy], ball_score=[1.0], base_xy_mm=BASES, base_team=[0, 1]
        )
        tracks = tracker.update(det, i / FPS)
    assert len(tracks.figures) == 2
    assert (tracks.ball.xy_mm is not None) == found
