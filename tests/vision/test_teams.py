"""Team colours learnt from the first frame's figures (``vision.model._teams``)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from vision.config import VisionConfig
from vision.model import _Blobs, _teams

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((1024, 768), 1300.0, 1450.0)
NAVY, BLACK = (70, 30, 20), (35, 35, 35)  # BGR
WHITE, ORANGE, GREEN = (235, 235, 235), (20, 120, 240), (40, 120, 40)


def blobs(xy_mm, ring_bgr) -> _Blobs:
    n = len(xy_mm)
    px = CAMERA.project(np.c_[np.asarray(xy_mm, float), np.full(n, 6.0)])
    one = np.ones(n)
    return _Blobs(one * 500.0, px, np.asarray(ring_bgr, float), one, one, np.zeros((2, 2), int))


# Home (navy) in the left half, away (black) in the right.
FIELD_XY = [(-300.0, -150.0), (-300.0, 150.0), (-150.0, 0.0), (-100.0, 250.0)]
FIELD_XY += [(300.0, -150.0), (300.0, 150.0), (150.0, 0.0), (100.0, -250.0)]
FIELD_BGR = [NAVY] * 4 + [BLACK] * 4


@pytest.mark.parametrize(
    "keepers_bgr",
    [(WHITE, ORANGE), (ORANGE, WHITE), (GREEN, WHITE), (NAVY, BLACK)],
    ids=["white-orange", "orange-white", "green-white", "in-team-colours"],
)
def test_two_near_team_colours_are_learnt_whatever_the_rod_keepers_wear(keepers_bgr):
    """Rod keepers (in their goal areas) wear any colour: the clusters are the teams'."""
    xy = [*FIELD_XY, (-575.0, 5.0), (578.0, -10.0)]
    b = blobs(xy, [*FIELD_BGR, *keepers_bgr])
    team = _teams(b, np.ones(len(xy), bool), CAMERA, PITCH, VisionConfig())
    assert np.abs(team - np.array([NAVY, BLACK])).max() < 1.0
