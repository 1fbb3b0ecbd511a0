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


@pytest.mark.parametrize("camera", CAMERAS)
def test_several_planes_at_once_as_one_by_one(camera):
    fast = FastCamera(camera)
    px = np.random.default_rng(2).uniform([0, 0], camera.size_px, (40, 2))
    planes = fast.back_project_planes(px, (0.0, 6.0, 10.5))
    assert planes.shape == (3, 40, 2)
    for got, z_mm in zip(planes, (0.0, 6.0, 10.5), strict=True):
        assert np.allclose(got, camera.back_project(px, z_mm), rtol=0, atol=1e-9)


@pytest.mark.parametrize("dist", [(-0.12, 0.05, 0.0, 0.0, 0.0), (-0.25, 0.1, 0.002, -0.002, 0.01)])
def test_undistortion_from_the_table_is_the_camera_models(dist):
    """Pixels over the whole image, its corners and beyond its edges (the table's margin and
    past it)."""
    camera = CameraModel.overhead((1280, 960), 1150.0, 1500.0, dist=dist, tilt_x_deg=3.0)
    px = np.random.default_rng(3).uniform([-150, -150], [1430, 1110], (2000, 2))
    px = np.concatenate([px, [[0, 0], [1279, 959], [0, 959], [1279, 0]]])
    got = FastCamera(camera).back_project(px, 10.5)
    assert np.allclose(got, camera.back_project(px, 10.5), rtol=0, atol=1e-9)


def test_points_behind_the_camera_are_an_error():
    with pytest.raises(ValueError, match="behind the camera"):
        FastCamera(CAMERAS[0]).project([[0.0, 0.0, 5000.0]])
