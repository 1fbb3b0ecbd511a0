"""The camera's height from the goals' crossbars, on rendered straight-down views."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.camera import CameraModel
from calibration.goals import GoalHeight, combined_scale, measure_goals
from calibration.report import format_report
from calibration.tables import load_pitch


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
def test_goals_appear_as_high_as_the_camera_is_off(straight_view, table, seed, factor):
    true, image = straight_view(table, 1350.0, seed)
    goals = measure_goals(image, load_pitch(table), _at_height(true, factor))
    assert {g.end for g in goals} == {"left", "right"}
    for g in goals:
        # Seen from a camera factor times too high, the bar appears factor times as high.
        assert g.scale == pytest.approx(factor, rel=0.01)
        assert 10.0 < g.lever_px < 40.0


def test_no_goals_no_measurement(straight_view, fistf):
    true, image = straight_view("fistf", 1350.0, 31)
    assert measure_goals(_without_goals(image, true, fistf), fistf, true) == ()


COMBINE_CASES = [
    # (scales, levers, expected scale, expected sigma)
    ((1.0,), (15.0,), 1.0, 0.01),
    ((0.98, 1.02), (20.0, 20.0), 1.0, 0.02),
    # The goal nearer the nadir (shorter lever) counts for less.
    ((0.9, 1.0), (10.0, 30.0), 0.99, 0.05 / 0.99),
]


@pytest.mark.parametrize(("scales", "levers", "scale", "sigma"), COMBINE_CASES)
def test_combined_scale_weighs_by_lever(scales, levers, scale, sigma):
    goals = tuple(GoalHeight("left", s, lev, 3.0) for s, lev in zip(scales, levers, strict=True))
    got_scale, got_sigma = combined_scale(goals)
    assert got_scale == pytest.approx(scale, abs=1e-9)
    assert got_sigma == pytest.approx(sigma, rel=1e-6)
    with pytest.raises(ValueError, match="at least one"):
        combined_scale(())


@pytest.mark.parametrize(("table", "seed"), [("fistf", 31), ("subbuteo-classic", 32)])
def test_straight_down_focal_length_from_the_goals(straight_view, mapping_error, table, seed):
    true, image = straight_view(table, 1350.0, seed)
    pitch = load_pitch(table)
    cal = calibrate(image, pitch)
    assert cal.focal.source == "goals" and cal.focal.goals == 2
    assert cal.camera.fx_px == pytest.approx(true.fx_px, rel=0.01)
    assert cal.camera.centre_mm[2] == pytest.approx(true.centre_mm[2], rel=0.01)
    assert np.median(mapping_error(cal.camera, true, pitch)) <= 0.3
    assert "from the height of 2 goal(s)" in format_report(cal, pitch)


@pytest.mark.parametrize(
    ("table", "seed", "height_mm", "yaw_deg", "size_px", "home"),
    [
        ("fistf", 41, 1250.0, 0.0, (1280, 960), "left"),
        ("subbuteo-classic", 42, 1450.0, 0.0, (1640, 1232), "left"),
        ("fistf", 42, 1450.0, 90.0, (1280, 960), "bottom"),
    ],
)
def test_square_to_the_pixels_the_focal_length_holds(
    straight_view, table, seed, height_mm, yaw_deg, size_px, home
):
    # Crossbars along the pixel columns (rows): every point of a bar at the same fraction of a
    # pixel, which an edge finder locking to whole pixels gets wrong by up to 2.6 %.
    true, image = straight_view(table, height_mm, seed, yaw_deg, size_px)
    pitch = load_pitch(table)
    for g in measure_goals(image, pitch, true):
        assert g.scale == pytest.approx(1.0, abs=0.01)
    cal = calibrate(image, pitch, home=home)
    assert cal.focal.source == "goals"
    assert cal.camera.fx_px == pytest.approx(true.fx_px, rel=0.01)


def test_without_goals_the_focal_length_is_reported_unconstrained(
    straight_view, mapping_error, fistf
):
    true, image = straight_view("fistf", 1350.0, 31)
    cal = calibrate(_without_goals(image, true, fistf), fistf)
    assert cal.focal.source == "none" and not cal.focal.constrained and cal.focal.goals == 0
    assert cal.focal.sigma_pct > 1.0
    # The cloth is still mapped exactly; only the height is a guess.
    assert np.median(mapping_error(cal.camera, true, fistf)) <= 0.3
    assert "focal length: UNCONSTRAINED" in format_report(cal, fistf)
    assert cal.to_dict()["focal"]["source"] == "none"
