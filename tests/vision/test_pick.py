"""Reading the ball's colour where a person clicked it (``vision.pick``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pick import PickError, ball_colour_at, hex_colour

CLOTH_BGR = (40, 130, 45)
R_PX = 9.0


def table(ball_bgr, centre=(100, 80), seed=0):
    """A noisy cloth with one shaded ball: its lit half at ``ball_bgr``, the other half darker
    toward its limb (down to half)."""
    rng = np.random.default_rng(seed)
    image = np.clip(rng.normal(CLOTH_BGR, 3.0, (160, 200, 3)), 0, 255).astype(np.uint8)
    yy, xx = np.mgrid[0:160, 0:200]
    d = np.hypot(xx - centre[0], yy - centre[1])
    shade = np.clip(1.0 - 0.5 * (xx - centre[0]) / R_PX, 0.5, 1.0)
    ball = d < R_PX
    image[ball] = (np.array(ball_bgr, np.float64) * shade[ball][:, None]).astype(np.uint8)
    return cv2.GaussianBlur(image, ksize=(3, 3), sigmaX=0.8)


@pytest.mark.parametrize(
    ("ball_bgr", "click"),
    [
        ((20, 110, 240), (100, 80)),  # orange, clicked at its centre
        ((20, 110, 240), (106, 75)),  # ... and off it by most of a radius
        ((235, 235, 235), (95, 84)),  # white
        ((35, 210, 235), (100, 88)),  # yellow
    ],
)
def test_the_lit_colour_of_the_ball_clicked(ball_bgr, click):
    colour = ball_colour_at(table(ball_bgr), click, R_PX)
    assert np.abs(colour - np.array(ball_bgr)).max() < 20


@pytest.mark.parametrize(
    ("click", "message"),
    [((30, 30), "nothing but the cloth"), ((250, 80), "off the 200x160 picture")],
)
def test_a_click_beside_the_ball_is_refused(click, message):
    with pytest.raises(PickError, match=message):
        ball_colour_at(table((20, 110, 240)), click, R_PX)


def test_hex_colour_is_rgb_order():
    assert hex_colour(np.array([20.2, 110.0, 240.0])) == "#f06e14"
