"""Colour names and shading-tolerant distances (``vision/colour.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.colour import (
    USUAL_BALLS_BGR,
    ColourNameError,
    parse_colour,
    parse_colours,
    shaded_distance,
)


@pytest.mark.parametrize(
    ("text", "bgr"),
    [
        ("orange", USUAL_BALLS_BGR["orange"]),
        (" White ", USUAL_BALLS_BGR["white"]),
        ("#f08c1e", (0x1E, 0x8C, 0xF0)),  # written as RGB, held as BGR
        ("#FFFFFF", (255, 255, 255)),
    ],
)
def test_parse_colour(text, bgr):
    assert parse_colour(text) == bgr


@pytest.mark.parametrize("text", ["pink", "#fff", "#gg0000", "", "f08c1e"])
def test_a_colour_that_is_neither_name_nor_hex_is_a_clear_error(text):
    with pytest.raises(ColourNameError, match="#rrggbb"):
        parse_colour(text)


def test_a_two_tone_balls_colours_are_joined_by_plus():
    assert parse_colours("white+#1030c0") == (USUAL_BALLS_BGR["white"], (0xC0, 0x30, 0x10))
    assert parse_colours("orange") == (USUAL_BALLS_BGR["orange"],)
    with pytest.raises(ColourNameError, match="joined by"):
        parse_colours("white+")


def test_a_shaded_ball_is_near_its_colour_and_far_from_a_red_kit():
    """The shaded side of an orange ball is still orange; a red kit is not, at any shading:
    farther than the ball-colour test of ``ColourBlobs`` allows (12 % of the pixel's size plus
    12 grey levels)."""
    orange = np.array(USUAL_BALLS_BGR["orange"], np.float32)
    red = np.array([40, 40, 200], np.float32)
    pixels = np.stack([0.5 * orange, orange])
    d = shaded_distance(pixels, np.stack([orange, red]), (0.3, 1.4))
    assert d[:, 0].max() < 1.0
    assert np.all(d[:, 1] > 0.12 * np.linalg.norm(pixels, axis=1) + 12.0)
