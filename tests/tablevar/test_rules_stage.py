"""The rules stage's uncertainty: the parallax term of a camera whose height is loose."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.tables import load_pitch
from hardware.scene_margins import build_margin_scene
from hardware.truth import frame_truth
from tablevar.rules_stage import FistfRules, ball_uncertainty_mm
from tablevar.tracked import TrackedBall
from tests.tablevar.conftest import judge, tracked

FPS = 24.0


def _parallax(per_mm: float):
    """A camera whose parallax error grows with the seen point's height and its distance
    from the nadir under the pitch's centre, like a loose camera height does."""

    def sigma(xy_mm, z_mm):
        return per_mm * z_mm * np.hypot(*np.asarray(xy_mm, float).T) / 1000.0

    return sigma


def _line_calls(rules: FistfRules, scene, sigma_mm: float) -> list[dict]:
    calls: list[dict] = []
    for rec in frame_truth(scene, FPS):
        calls += judge(rules, rec, sigma_mm)
    return [c for c in calls if c["line"] in ("touchline", "goal_line")]


@pytest.mark.parametrize(
    ("per_mm", "too_close"),
    [(0.0, False), (0.02, False), (0.3, True)],
)
def test_the_parallax_term_enters_a_line_calls_uncertainty(per_mm, too_close):
    """FISTF 14.1, "fully crossed": a ball resting 1.5 mm over the touchline is called out
    only while the camera's parallax error at its place leaves the margin beyond doubt."""
    scene = build_margin_scene("line", 28, line="touchline", margin_mm=1.5)
    rules = FistfRules(scene.pitch, line_sigma_mm=0.05, parallax=_parallax(per_mm))
    said = _line_calls(rules, scene, 0.05)
    assert said, "the ball rests over the touchline: a call is due"
    first = said[0]
    xy = np.array([[first["position"]["x_mm"], first["position"]["y_mm"]]])
    r_mm = scene.pitch.profile.ball_radius_mm
    camera = float(_parallax(per_mm)(xy, r_mm)[0])
    # The call's own ball position may differ from the restart's place by a few mm.
    assert first["uncertainty_mm"] == pytest.approx(
        ball_uncertainty_mm(0.05, 0.05, camera), rel=0.05, abs=0.02
    )
    assert (abs(first["margin_mm"]) <= first["uncertainty_mm"]) == too_close


def test_the_ball_uncertainty_adds_the_parallax_in_quadrature():
    rules = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1, parallax=_parallax(0.1))
    ball = TrackedBall(300.0, 400.0, False)
    camera = 0.1 * 10.5 * 500.0 / 1000.0
    assert rules.ball_uncertainty(ball, 0.2) == pytest.approx(
        2.0 * np.sqrt(0.2**2 + 0.1**2 + camera**2)
    )
    assert rules.ball_uncertainty(ball, None) is None
    plain = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1)
    assert plain.ball_uncertainty(ball, 0.2) == pytest.approx(ball_uncertainty_mm(0.2, 0.1))


def test_the_figures_uncertainty_carries_the_parallax_of_their_rims():
    """FISTF 13.1 compares bases with the ball and the shooting line: a base's rim stands
    above the cloth, so a loose camera height widens their uncertainty too."""
    pitch = load_pitch("fistf")
    figures = [{"id": 1, "team": "home", "x_mm": 500.0, "y_mm": 0.0}]
    record = {"frame": 0, "t_s": 0.0, "ball": None, "figures": figures}
    rules = FistfRules(pitch, parallax=_parallax(0.5))
    frame = tracked(rules, record)
    rim = 0.5 * pitch.profile.base_height_mm * 500.0 / 1000.0
    assert rules.observation(frame).figure_uncertainty_mm == pytest.approx(np.hypot(1.0, 2.0 * rim))
    plain = FistfRules(pitch)
    assert plain.observation(tracked(plain, record)).figure_uncertainty_mm == 1.0  # the default
