"""The camera model: projection, back-projection onto a plane at height z, round trips."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import (
    CameraModel,
    CameraModelError,
    matrix_from_rodrigues,
    rodrigues_from_matrix,
)

CAMERAS = {
    "straight": CameraModel.overhead((1280, 960), 1300.0, 1500.0),
    "barrel_tilted": CameraModel.overhead(
        (1280, 960),
        1150.0,
        1550.0,
        dist=(-0.3, 0.08, 0.0, 0.0, -0.01),
        tilt_x_deg=8.0,
        tilt_y_deg=-6.0,
        yaw_deg=3.0,
    ),
    "wide_decentred": CameraModel.overhead(
        (2304, 1296),
        1600.0,
        1700.0,
        dist=(-0.12, 0.02, 0.001, -0.0015, 0.0),
        tilt_y_deg=10.0,
        centre_mm=(20.0, -15.0),
        principal_offset_px=(14.0, -9.0),
    ),
}


def _pitch_points(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform([-700, -475, 0], [700, 475, 40], size=(n, 3))


@pytest.mark.parametrize("name", CAMERAS)
def test_project_matches_opencv(name):
    cam = CAMERAS[name]
    pts = _pitch_points(500)
    ours = cam.project(pts)
    theirs, _ = cv2.projectPoints(
        pts, np.array(cam.rvec_rad), np.array(cam.tvec_mm), cam.camera_matrix, np.array(cam.dist)
    )
    np.testing.assert_allclose(ours, theirs.reshape(-1, 2), atol=1e-6)


@pytest.mark.parametrize("name", CAMERAS)
def test_round_trip_pitch_pixels_pitch(name):
    cam = CAMERAS[name]
    pts = _pitch_points(2000, seed=1)
    back = cam.back_project(cam.project(pts), pts[:, 2])
    np.testing.assert_allclose(back, pts[:, :2], atol=1e-6)


@pytest.mark.parametrize("name", CAMERAS)
def test_round_trip_pixels_pitch_pixels(name):
    """Every pixel of the image maps to the cloth and back to itself within 1e-6 px."""
    cam = CAMERAS[name]
    w, h = cam.size_px
    xs, ys = np.meshgrid(np.linspace(0, w - 1, 41), np.linspace(0, h - 1, 31))
    px = np.stack([xs.ravel(), ys.ravel()], axis=1)
    for z in (0.0, 10.5):
        xy = cam.back_project(px, z)
        again = cam.project(np.concatenate([xy, np.full((len(xy), 1), z)], axis=1))
        np.testing.assert_allclose(again, px, atol=1e-6)


def test_overhead_conventions():
    """Pitch +x to the image right, +y to the image top; aimed at the centre spot."""
    cam = CAMERAS["straight"]
    centre, right, top = cam.project([[0, 0, 0], [100, 0, 0], [0, 100, 0]])
    np.testing.assert_allclose(centre, [639.5, 479.5], atol=1e-9)
    assert right[0] > centre[0] and abs(right[1] - centre[1]) < 1e-9
    assert top[1] < centre[1] and abs(top[0] - centre[0]) < 1e-9
    np.testing.assert_allclose(cam.centre_mm, [0, 0, 1300.0], atol=1e-9)
    assert cam.mm_per_px([[0, 0]])[0] == pytest.approx(1500.0 / 1280.0)


def test_tilted_camera_keeps_its_height_and_aim():
    cam = CAMERAS["barrel_tilted"]
    assert cam.centre_mm[2] == pytest.approx(1150.0)
    np.testing.assert_allclose(cam.project([[0, 0, 0]])[0], [639.5, 479.5], atol=1e-9)


@pytest.mark.parametrize("height_mm", [0.0, 10.5, 30.0])
def test_parallax_pushes_raised_points_outward(height_mm):
    """A point above the cloth images further from the nadir than its ground point."""
    cam = CAMERAS["straight"]
    ground = np.array([[500.0, 300.0, 0.0]])
    raised = ground + np.array([0.0, 0.0, height_mm])
    seen_on_cloth = cam.back_project(cam.project(raised), 0.0)[0]
    expected = ground[0, :2] * 1300.0 / (1300.0 - height_mm)  # similar triangles from the nadir
    np.testing.assert_allclose(seen_on_cloth, expected, atol=1e-9)


def test_rodrigues_round_trip_including_half_turns():
    rng = np.random.default_rng(3)
    vecs = [rng.normal(size=3) for _ in range(20)] + [np.array([np.pi, 0, 0])]
    for v in vecs:
        r = matrix_from_rodrigues(v)
        np.testing.assert_allclose(matrix_from_rodrigues(rodrigues_from_matrix(r)), r, atol=1e-9)


def test_dict_round_trip_and_errors():
    cam = CAMERAS["wide_decentred"]
    assert CameraModel.from_dict(cam.to_dict()) == cam
    with pytest.raises(CameraModelError, match="malformed camera model"):
        CameraModel.from_dict({"size_px": [10, 10]})
    with pytest.raises(CameraModelError, match="focal lengths"):
        CameraModel((640, 480), 0.0, 1.0, 320, 240, (0,) * 5, (0,) * 3, (0,) * 3)
    with pytest.raises(ValueError, match="behind the camera"):
        cam.project([[0.0, 0.0, 5000.0]])
