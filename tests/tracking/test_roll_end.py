"""A roll's last placings checked against its rest point (``tracking.roll_end``)."""

from __future__ import annotations

import numpy as np

from calibration.tables import load_pitch
from tracking.roll_end import FREE_DECELERATION_MM_S2, roll_end_sigmas

PITCH = load_pitch("fistf")
FPS = 50.0
COVERAGE = 2.0
REST = np.array([200.0, 300.0])  # open cloth: no goal within reach
STOP_S = 1.0


def _roll(decel_mm_s2: float, frames: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Times and places of a ball slowing evenly along +x to ``REST`` at ``STOP_S``."""
    t = STOP_S - np.arange(frames, 0, -1) / FPS
    back = 0.5 * decel_mm_s2 * (STOP_S - t) ** 2
    return t, REST - np.stack([back, np.zeros_like(back)], 1)


NO_BASES = np.zeros((0, 2))


def _sigmas(t, xy, sigma=0.4, bases=NO_BASES):
    return roll_end_sigmas(
        t, xy, np.full(len(t), sigma), REST, 0.3, STOP_S, 1 / FPS, COVERAGE, PITCH, bases
    )


def test_placings_of_a_ball_slowing_to_its_rest_keep_their_uncertainty():
    """A ball that slows as hard as a ball on cloth may, or gently, reaches its rest point
    along placings that the rest point does not rule out."""
    for decel in (200.0, FREE_DECELERATION_MM_S2):
        t, xy = _roll(decel)
        assert np.array_equal(_sigmas(t, xy), np.full(len(t), 0.4))


def test_a_placing_past_where_the_ball_stopped_is_in_doubt_by_the_way_back():
    """A fit read 8 mm past the point the ball rested at two frames later (a half-lit ball
    beside a codec's block) states its 0.4 mm no more: its bound covers the way to the rest
    point, so a call on it is left to the referee; the placings before it stand."""
    t, xy = _roll(500.0)
    xy[-2] = REST + np.array([8.0, 0.0])
    sigma = _sigmas(t, xy)
    assert COVERAGE * sigma[-2] >= 8.0
    assert np.array_equal(np.delete(sigma, len(t) - 2), np.full(len(t) - 1, 0.4))


def test_a_ball_stopped_short_by_a_base_or_a_goal_is_not_doubted():
    """A ball that runs into a figure's base, or into the net, stops at once: placings far
    from its rest point a frame before are what it did, not a misread."""
    t, xy = _roll(500.0)
    xy[-1] = REST - np.array([12.0, 0.0])  # fast up to the last frame
    assert _sigmas(t, xy)[-1] > 0.4  # on open cloth that is ruled out
    base = REST + np.array([PITCH.profile.ball_radius_mm + PITCH.profile.base_radius_mm, 0])
    assert _sigmas(t, xy, bases=base[None])[-1] == 0.4
    goal = PITCH.goal("right")
    rest_in_net = np.array([goal.x_back_mm - PITCH.profile.ball_radius_mm, 0.0])
    into_net = roll_end_sigmas(
        t[-1:],
        rest_in_net[None] - [12.0, 0.0],
        np.array([0.4]),
        rest_in_net,
        0.3,
        STOP_S,
        1 / FPS,
        COVERAGE,
        PITCH,
        NO_BASES,
    )
    assert into_net[0] == 0.4
