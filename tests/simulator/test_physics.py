"""Analytic slides: exact stops, constant deceleration, paths of pieces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.physics import (
    BALL_DECEL_MM_S2,
    FIGURE_DECEL_MM_S2,
    Lift,
    Path,
    PhysicsError,
    Slide,
    launch_speed_mm_s,
)


@pytest.mark.parametrize(
    ("start", "target", "decel"),
    [
        ((0.0, 0.0), (300.0, 40.0), BALL_DECEL_MM_S2),
        ((-412.3, 17.9), (610.1, 230.0), BALL_DECEL_MM_S2),
        ((5.0, -5.0), (5.0, -4.2), BALL_DECEL_MM_S2),
        ((100.0, 100.0), (40.0, 180.0), FIGURE_DECEL_MM_S2),
    ],
)
def test_slide_stops_exactly_on_target(start, target, decel):
    s = Slide.to_target(2.0, start, target, decel)
    t = np.array([s.t_end_s, s.t_end_s + 0.5, 100.0])
    assert np.array_equal(s.xy_at(t), np.tile(target, (3, 1)))
    assert np.allclose(s.xy_at([s.t_end_s - 1e-9]), target, atol=1e-5)
    d = math.dist(start, target)
    assert s.v0_mm_s == pytest.approx(math.sqrt(2 * decel * d))
    assert s.duration_s == pytest.approx(s.v0_mm_s / decel)


def test_deceleration_is_constant_and_speed_zero_outside_motion():
    s = Slide.to_target(1.0, (0.0, 0.0), (400.0, 0.0), BALL_DECEL_MM_S2)
    t = np.linspace(1.01, s.t_end_s - 0.01, 50)
    speed = s.speed_at(t)
    assert np.allclose(np.diff(speed) / np.diff(t), -BALL_DECEL_MM_S2)
    assert s.speed_at([0.5, 1.0, s.t_end_s, s.t_end_s + 1])[...].tolist() == [0.0] * 4
    # Positions agree with integrating the speed (central differences).
    h = 1e-5
    num = (s.distance_at(t + h) - s.distance_at(t - h)) / (2 * h)
    assert np.allclose(num, speed, rtol=1e-6)


def test_cut_short_slide_stops_at_the_given_distance_with_speed_left():
    s = Slide.launched(0.0, (0.0, 0.0), (1.0, 0.0), 600.0, BALL_DECEL_MM_S2, stop_mm=100.0)
    assert s.end_mm == (100.0, 0.0)
    assert s.distance_at([s.duration_s])[0] == pytest.approx(100.0)
    assert s.duration_s < 600.0 / BALL_DECEL_MM_S2
    assert s.speed_at([s.duration_s * 0.999])[0] > 400.0


@pytest.mark.parametrize(("d", "a"), [(-1.0, 500.0), (10.0, 0.0)])
def test_bad_launch_raises(d, a):
    with pytest.raises(PhysicsError):
        launch_speed_mm_s(d, a)


def test_path_chains_pieces_and_rejects_overlap():
    p = Path((0.0, 0.0)).then(Slide.to_target(0.0, (0.0, 0.0), (100.0, 0.0), BALL_DECEL_MM_S2))
    lift = Lift(2.0, 3.0, (50.0, 50.0))
    p = p.then(lift)
    xy, v, on = p.state_at(np.array([0.0, 1.9, 2.5, 3.0, 4.0]))
    assert xy[1].tolist() == [100.0, 0.0]
    assert on.tolist() == [True, True, False, True, True]
    assert xy[3].tolist() == [50.0, 50.0] and not v[3].any()
    with pytest.raises(PhysicsError, match="before the previous one ends"):
        p.then(Slide.to_target(2.5, (50.0, 50.0), (0.0, 0.0), BALL_DECEL_MM_S2))
