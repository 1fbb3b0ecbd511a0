"""The camera's height from the goals' crossbars, on rendered straight-down views."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.calibrate import GOAL_EDGE_PX, calibrate
from calibration.camera import CameraModel
from calibration.goals import measure_goals
from calibration.report import format_report
from calibration.tables import load_pitch


@pytest.fixture(scope="module")
def view(straight_view):
    """``straight_view`` for this module, whose tests share views (six read fistf seed 31):
    with a module fixture they run on one worker, which renders each view once."""
    return straight_view


def _at_height(camera: CameraModel, factor: float) -> CameraModel:
    """The straight-down camera ``factor`` times as high with f scaled alike: the same mapping
    of the cloth (the distortion rescaled to the new normalised radius), the goals seen
    ``factor`` times as high as they are."""
    k1, k2, p1, p2, k3 = camera.dist
    return replace(
        camera,
        fx_px=camera.fx_px * factor,
        fy_px=camera.fy_px * factor,
        dist=(k1 * factor**2, k2 * factor**4, p1, p2, k3 * factor**6),
        tvec_mm=(camera.tvec_mm[0], camera.tvec_mm[1], camera.tvec_mm[2] * factor),
    )


def _without_goals(image: np.ndarray, camera: CameraModel, pitch) -> np.ndarray:
    """The picture with each goal painted over in the cloth's colour (a table without goals)."""
    out = image.copy()
    cloth = np.median(image[image.shape[0] // 2 - 20 : image.shape[0] // 2 + 20], axis=(0, 1))
    p = pitch.profile
    for goal in pitch.goals:
        xs = (goal.x_line_mm - np.sign(goal.x_line_mm) * 4.0, goal.x_back_mm)
        ys = (goal.y_min_mm - 2 * p.goal_post_width_mm, goal.y_max_mm + 2 * p.goal_post_width_mm)
        corners = np.array([[x, y, z] for x in xs for y in ys for z in (0.0, p.goal_height_mm + 6)])
        hull = cv2.convexHull(np.round(camera.project(corners)).astype(np.int32))
        cv2.fillConvexPoly(out, hull, color=tuple(float(c) for c in cloth))
    return out


@pytest.mark.parametrize(
    ("table", "seed", "factor"),
    [("fistf", 31, 1.0), ("fistf", 31, 0.88), ("subbuteo-classic", 32, 1.12)],
)
def test_goals_appear_as_high_as_the_camera_is_off(view, table, seed, factor):
    true, image = view(table, 1350.0, seed)
    goals = measure_goals(image, load_pitch(table), _at_height(true, factor))
    assert {g.end for g in goals} == {"left", "right"}
    for g in goals:
        # Seen from a camera factor times too high, the bar appears factor times as high.
        assert g.scale == pytest.approx(factor, rel=0.01)
        assert 10.0 < g.lever_px < 40.0


def test_no_goals_no_measurement(view, fistf):
    true, image = view("fistf", 1350.0, 31)
    assert measure_goals(_without_goals(image, true, fistf), fistf, true) == ()


@pytest.mark.parametrize(("table", "seed"), [("fistf", 31), ("subbuteo-classic", 32)])
def test_straight_down_the_goals_do_not_claim_the_focal_length(view, mapping_error, table, seed):
    # Looking straight down a vertical thing shows only its height over the camera's: goals
    # of unknown real height cannot fix f, so the report says f is a guess.
    true, image = view(table, 1350.0, seed)
    pitch = load_pitch(table)
    cal = calibrate(image, pitch)
    assert cal.focal.source == "none" and cal.focal.goals == 2
    assert np.median(mapping_error(cal.camera, true, pitch)) <= 0.3
    assert "focal length: UNCONSTRAINED" in format_report(cal, pitch)


@pytest.mark.parametrize(
    ("table", "seed", "height_mm", "yaw_deg", "size_px"),
    [
        ("fistf", 41, 1250.0, 0.0, (1280, 960)),
        ("subbuteo-classic", 42, 1450.0, 0.0, (1640, 1232)),
        ("fistf", 42, 1450.0, 90.0, (1280, 960)),
    ],
)
def test_square_to_the_pixels_the_goals_are_measured_true(
    view, table, seed, height_mm, yaw_deg, size_px
):
    # Crossbars along the pixel columns (rows): every point of a bar at the same fraction of a
    # pixel, which an edge finder locking to whole pixels gets wrong by up to 2.6 %.
    true, image = view(table, height_mm, seed, yaw_deg, size_px)
    pitch = load_pitch(table)
    goals = measure_goals(image, pitch, true)
    assert len(goals) == 2
    for g in goals:
        assert g.scale == pytest.approx(1.0, abs=0.01)


def test_without_goals_the_focal_length_is_reported_unconstrained(view, mapping_error, fistf):
    true, image = view("fistf", 1350.0, 31)
    cal = calibrate(_without_goals(image, true, fistf), fistf)
    assert cal.focal.source == "none" and not cal.focal.constrained and cal.focal.goals == 0
    assert cal.focal.sigma_pct > 1.0
    # The cloth is still mapped exactly; only the height is a guess.
    assert np.median(mapping_error(cal.camera, true, fistf)) <= 0.3
    assert "focal length: UNCONSTRAINED" in format_report(cal, fistf)
    assert cal.to_dict()["focal"]["source"] == "none"


def test_a_crossbar_is_placed_as_well_as_the_focal_balance_assumes(view):
    """Through the true camera each bar should read its real height: its error, in pixels
    (over the bar's lever), is what the goals' balance of f takes a bar to be placed to
    (``calibrate.GOAL_EDGE_PX``); a bar found worse would make the stated f too sure."""
    views = [
        ("fistf", 1350.0, 31, 4.0, (1280, 960)),
        ("fistf", 1100.0, 43, 7.0, (960, 720)),
        ("subbuteo-classic", 1450.0, 42, 0.0, (1640, 1232)),
        ("fistf", 1700.0, 44, -5.0, (1920, 1080)),
    ]
    errors_px = []
    for table, height_mm, seed, yaw_deg, size_px in views:
        true, image = view(table, height_mm, seed, yaw_deg, size_px)
        goals = measure_goals(image, load_pitch(table), true)
        assert len(goals) == 2
        errors_px += [(g.scale - 1.0) * g.lever_px for g in goals]
    errors_px = np.array(errors_px)
    assert np.abs(errors_px).max() <= 3.0 * GOAL_EDGE_PX, errors_px
    assert np.sqrt(np.mean(errors_px**2)) <= 1.5 * GOAL_EDGE_PX, errors_px
