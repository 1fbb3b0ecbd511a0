"""The drift check: a table moved by more than half a millimetre is noticed and measured."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.camera import matrix_from_rodrigues, rodrigues_from_matrix
from calibration.drift import DriftMonitor
from simulator.look import Look
from simulator.render import Renderer

SIZE = (1280, 960)
VIEW = ("fistf", SIZE, (("k1", -0.15), ("tilt", (4.0, -3.0))), None, None, ())


def _moved_table(camera, shift_mm, turn_deg):
    """The camera as it sees a table moved by ``shift_mm`` and turned by ``turn_deg``."""
    a = math.radians(turn_deg)
    turn = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    r = matrix_from_rodrigues(np.asarray(camera.rvec_rad))
    t = np.asarray(camera.tvec_mm) + r @ np.array([shift_mm[0], shift_mm[1], 0.0])
    return replace(
        camera,
        rvec_rad=tuple(rodrigues_from_matrix(r @ turn)),
        tvec_mm=tuple(t),
    )


@pytest.fixture(scope="module")
def calibrated(render, fistf):
    true, image = render(VIEW)
    return true, calibrate(image, fistf)


# Another light on the same table: a stronger gradient from another side, more sensor noise.
RELIT = replace(Look(), light_gradient=0.4, light_angle_deg=120.0, noise_sigma=4.0)


@pytest.mark.parametrize(
    ("shift_mm", "turn_deg", "look", "moved"),
    [
        ((0.0, 0.0), 0.0, Look(), False),
        ((0.0, 0.0), 0.0, RELIT, False),
        ((0.15, -0.1), 0.0, RELIT, False),
        # Half a millimetre, the movement the check must not miss, in every direction.
        ((0.5, 0.0), 0.0, Look(), True),
        ((0.0, -0.5), 0.0, RELIT, True),
        ((-0.36, 0.36), 0.0, Look(), True),
        ((0.0, 0.0), 0.04, Look(), True),  # 0.04 degrees turn 0.49 mm at the corners
        ((0.9, 0.0), 0.0, RELIT, True),
    ],
)
def test_notices_a_moved_table_and_measures_the_shift(
    calibrated, fistf, shift_mm, turn_deg, look, moved
):
    true, cal = calibrated
    camera = _moved_table(true, shift_mm, turn_deg)
    image = Renderer(camera, fistf, look, seed=5).background()
    report = DriftMonitor(cal, fistf).check(image, t_s=12.0)
    assert report.moved is moved
    assert report.samples >= 30
    assert 0.1 <= report.margin_mm <= 0.3
    np.testing.assert_allclose(report.shift_mm, shift_mm, atol=0.06)
    assert report.turn_deg == pytest.approx(turn_deg, abs=0.004)


def test_checks_only_every_interval(render, calibrated, fistf):
    _, image = render(VIEW)
    monitor = DriftMonitor(calibrated[1], fistf, interval_s=5.0)
    assert monitor.update(image, 0.0) is not None
    assert monitor.update(image, 4.9) is None
    assert monitor.update(image, 5.0) is not None


def test_a_covered_table_is_not_reported_as_moved(calibrated, fistf):
    report = DriftMonitor(calibrated[1], fistf).check(np.zeros((960, 1280, 3), np.uint8))
    assert report.samples == 0 and not report.moved
