"""Team colours learnt from the first frame's figures (``vision.model._teams``), and the ball's
colour hypotheses beside them (``vision.model._ball_colours``)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from vision.colour import USUAL_BALLS_BGR
from vision.config import VisionConfig
from vision.model import _ball_colours, _Blobs, _teams

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


@pytest.mark.parametrize("swap", [False, True])
def test_in_a_tie_of_halves_home_is_the_kit_standing_farther_toward_its_goal(swap):
    """A clip picked up in play: each kit has one of three outfield figures in the left
    (home) half. The kit whose figures stand farther toward the home goal on average is home
    (DESIGN.md 3), whichever colour it wears and whichever cluster comes first."""
    home_xy = [(-400.0, 100.0), (100.0, -150.0), (200.0, 200.0)]  # mean x -33
    away_xy = [(-100.0, -200.0), (300.0, 120.0), (400.0, -60.0)]  # mean x 200
    kits = (NAVY, BLACK) if not swap else (BLACK, NAVY)
    b = blobs(home_xy + away_xy, [kits[0]] * 3 + [kits[1]] * 3)
    team = _teams(b, np.ones(6, bool), CAMERA, PITCH, VisionConfig())
    assert np.abs(team - np.array(kits)).max() < 1.0


def test_a_ball_whose_every_usual_colour_is_a_kits_is_still_searched_for():
    """No ball-like blob, and every usual ball colour near a kit's (orange and a yellowish
    white): all the usual colours stay hypotheses, for motion to settle, instead of none."""
    team = np.array([ORANGE, (180, 225, 235)], np.float32)
    b = blobs([], np.zeros((0, 3)))
    colours, first = _ball_colours(
        np.zeros((4, 4, 3), np.uint8), b, np.zeros(0, int), team, VisionConfig()
    )
    assert first is None
    assert sorted(map(tuple, colours.tolist())) == sorted(USUAL_BALLS_BGR.values())
