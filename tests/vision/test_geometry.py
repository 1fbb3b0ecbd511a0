"""``FastCamera`` maps exactly as the camera model it stands for."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from vision.geometry import FastCamera

CAMERAS = [
    CameraModel.overhead((1280, 960), 1300.0, 1450.0),
    CameraModel.overhead(
        (2304, 1296),
        1200.0,
        1500.0,
        dist=(-0.1, 0.03, 0.001, -0.002, 0.0),
        tilt_x_deg=2.5,
        tilt_y_deg=-1.5,
        yaw_deg=1.0,
    ),
]


@pytest.mark.parametrize("camera", CAMERAS)
@pytest.mark.parametrize("z_mm", [0.0, 6.0, 10.5])
def test_same_mapping_as_the_camera_model(camera, z_mm):
    fast = FastCamera(camera)
    xy = np.random.default_rng(1).uniform([-650, -420], [650, 420], (50, 2))
    xyz = np.concatenate([xy, np.full((50, 1), z_mm)], 1)
    px = camera.project(xyz)
    assert np.allclose(fast.project(xyz), px, rtol=0, atol=1e-9)
    assert np.allclose(fast.back_project(px, z_mm), camera.back_project(px, z_mm), atol=1e-9)
    assert np.allclose(fast.centre_mm, camera.centre_mm)


def test_points_behind_the_camera_are_an_error():
    with pytest.raises(ValueError, match="behind the camera"):
        FastCamera(CAMERAS[0]).project([[0.0, 0.0, 5000.0]])
