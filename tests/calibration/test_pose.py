"""Straight-down cameras: the fit must keep the camera above the cloth.

The pitch is symmetric, so its lines fit the mirror pose (camera under the cloth, pitch +y
toward the image bottom) as well as the real one; a view exactly square to the pitch once
landed there. Ground points would then be corrected for parallax the wrong way.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.camera import CameraModel
from calibration.fit import initial_camera, is_above_cloth
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from tests.calibration.conftest import goal_camera

# (table, height mm, yaw degrees, goals in the picture). Yaw 0 is the view that went wrong.
CASES = [
    ("fistf", 1250.0, 0.0, True),
    ("fistf", 1450.0, 0.0, True),
    ("fistf", 1350.0, 4.0, True),
    ("fistf", 1300.0, 0.0, False),
    ("fistf", 1450.0, 0.0, False),
    ("fistf", 1350.0, -3.0, False),
    ("subbuteo-classic", 1300.0, 0.0, True),
    ("subbuteo-classic", 1350.0, 4.0, True),
    ("subbuteo-classic", 1250.0, 0.0, False),
    ("subbuteo-classic", 1450.0, -3.0, False),
]


@functools.cache
def straight_down(table: str, height_mm: float, yaw_deg: float, goals: bool):
    """A view straight down, goals drawn or left out (then the crossbars cannot fix f)."""
    pitch = load_pitch(table)
    camera = goal_camera(pitch, (960, 720), height_mm=height_mm, yaw_deg=yaw_deg)
    shown = pitch if goals else dataclasses.replace(pitch, goals=())
    look = Look.random(np.random.default_rng(25))
    return camera, Renderer(camera, shown, look, seed=25).background()


@pytest.mark.parametrize(("table", "height_mm", "yaw_deg", "goals"), CASES)
def test_straight_down_camera_stays_above_the_cloth(table, height_mm, yaw_deg, goals):
    _, picture = straight_down(table, height_mm, yaw_deg, goals)
    cal = calibrate(picture, load_pitch(table), home="left")
    camera = cal.camera
    assert camera.centre_mm[2] > 0.0
    assert is_above_cloth(camera)
    origin, up = camera.project(np.array([[0.0, 0.0, 0.0], [0.0, 100.0, 0.0]]))
    assert up[1] < origin[1] - 20.0  # pitch +y toward the image top with home on the left
    right = camera.project(np.array([[100.0, 0.0, 0.0]]))[0]
    assert right[0] > origin[0] + 20.0
    # Straight down nothing tells f (the goals' real height is not known): it is a guess.
    assert cal.focal.source == "none"


@pytest.mark.parametrize("yaw_deg", [0.0, 90.0, 180.0, 7.0])
@pytest.mark.parametrize("k1", [0.0, -0.2])
def test_initial_camera_from_square_corners_is_above_the_cloth(fistf, yaw_deg, k1):
    """Corners of a view exactly straight down (where OpenCV's IPPE answers with the mirror
    pose) give the true pose back."""
    true = CameraModel.overhead((640, 480), 1300.0, 1450.0, dist=(k1, 0, 0, 0, 0), yaw_deg=yaw_deg)
    hl, hw = 0.5 * fistf.profile.length_mm, 0.5 * fistf.profile.width_mm
    corners_mm = np.array([[-hl, hw], [hl, hw], [hl, -hw], [-hl, -hw]])
    corners_px = true.project(corners_mm)
    found = initial_camera(corners_px, corners_mm, dataclasses.replace(true, rvec_rad=(0, 0, 0)))
    assert is_above_cloth(found)
    np.testing.assert_allclose(found.project(corners_mm), corners_px, atol=0.05)
    np.testing.assert_allclose(found.centre_mm, true.centre_mm, atol=0.5)
