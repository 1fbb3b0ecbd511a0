"""Lens calibration from a ChArUco board rendered by cv2 and seen through a known camera."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.calibration_file import CalibrationError
from calibration.camera import CameraModel
from calibration.lens import BoardSpec, calibrate_lens

SIZE = (960, 720)
SPEC = BoardSpec(squares=(7, 5), square_mm=30.0, marker_mm=22.0, dictionary="DICT_5X5_100")
PX_PER_MM = 8.0
MARGIN_PX = 40


def _board_image() -> np.ndarray:
    w_mm, h_mm = SPEC.squares[0] * SPEC.square_mm, SPEC.squares[1] * SPEC.square_mm
    size = (int(w_mm * PX_PER_MM) + 2 * MARGIN_PX, int(h_mm * PX_PER_MM) + 2 * MARGIN_PX)
    return SPEC.image(size, MARGIN_PX)


def _view(board: np.ndarray, camera: CameraModel) -> np.ndarray:
    """What ``camera`` sees of the board lying flat at the pitch origin (white around it)."""
    w, h = camera.size_px
    ys, xs = np.mgrid[0:h, 0:w]
    xy = camera.back_project(np.stack([xs.ravel(), ys.ravel()], axis=1).astype(float))
    w_mm, h_mm = SPEC.squares[0] * SPEC.square_mm, SPEC.squares[1] * SPEC.square_mm
    # Board x right and y down; pitch y points up in the image, so flip it (no mirror image).
    bx = (xy[:, 0] + w_mm / 2) * PX_PER_MM + MARGIN_PX
    by = (h_mm / 2 - xy[:, 1]) * PX_PER_MM + MARGIN_PX
    grey = cv2.remap(
        board,
        map1=bx.reshape(h, w).astype(np.float32),
        map2=by.reshape(h, w).astype(np.float32),
        interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    noisy = grey + np.random.default_rng(0).normal(0, 2.0, grey.shape)
    return cv2.cvtColor(np.clip(noisy, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


LENS = {"dist": (-0.25, 0.06, 0.0, 0.0, 0.0)}
VIEWS = [(25, 0, 0), (-25, 5, 20), (0, 28, -15), (5, -30, 40), (20, 20, 90), (-20, -18, -60)]


@pytest.fixture(scope="module")
def views() -> list[tuple[CameraModel, np.ndarray]]:
    board = _board_image()
    f_px = CameraModel.overhead(SIZE, 420.0, 330.0).fx_px
    out = []
    for tilt_x, tilt_y, yaw in VIEWS:
        # overhead() keeps the view's width on the cloth: give every view the same lens.
        posed = CameraModel.overhead(
            SIZE, 420.0, 330.0, tilt_x_deg=tilt_x, tilt_y_deg=tilt_y, yaw_deg=yaw, **LENS
        )
        cam = replace(posed, fx_px=f_px, fy_px=f_px)
        out.append((cam, _view(board, cam)))
    return out


def test_recovers_focal_length_and_distortion(views):
    lens = calibrate_lens((img for _, img in views), SPEC)
    true = views[0][0]
    k = np.asarray(lens.camera_matrix)
    assert lens.views == len(VIEWS)
    assert k[0, 0] == pytest.approx(true.fx_px, rel=0.01)
    assert k[1, 1] == pytest.approx(true.fy_px, rel=0.01)
    assert abs(k[0, 2] - true.cx_px) < 5 and abs(k[1, 2] - true.cy_px) < 5
    assert lens.dist[0] == pytest.approx(LENS["dist"][0], abs=0.03)
    assert lens.rms_px < 0.5


def test_too_few_board_views_is_a_clear_error(views):
    blank = np.full((SIZE[1], SIZE[0], 3), 255, np.uint8)
    with pytest.raises(CalibrationError, match="found in 2 of 4 pictures"):
        calibrate_lens([views[0][1], blank, views[1][1], blank], SPEC)


def test_pictures_of_different_sizes_are_refused(views):
    small = cv2.resize(views[1][1], (640, 480))
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate_lens([views[0][1], small], SPEC)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"squares": (2, 5)}, "at least 3x3"),
        ({"marker_mm": 31.0}, "smaller than squares"),
        ({"dictionary": "DICT_NOPE"}, "unknown ArUco dictionary"),
    ],
)
def test_board_spec_rejects_impossible_boards(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BoardSpec(**kwargs)
