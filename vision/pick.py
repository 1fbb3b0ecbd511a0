"""The ball's colour where a person points at it (the calibration page's "pick the ball").

``ball_colour_at(image_bgr, xy_px, r_px)`` reads the colour of the ball whose image is centred
near ``xy_px`` with radius about ``r_px``: the median of its lit top (the brightest 30 % of
the pixels inside 0.7 radii), the same reference for shading that learning takes from a blob.
A click lands within a radius or so of the centre, so the disc is searched around the click
for the spot that differs most from the cloth around it; when nothing there differs from the
surround, the click was on the cloth and the person is told so rather than given the cloth's
colour as a ball.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class PickError(ValueError):
    """The pointed spot shows no ball (off the picture, or the bare cloth)."""


def ball_colour_at(
    image_bgr: NDArray[np.uint8], xy_px: tuple[float, float], r_px: float
) -> NDArray[np.float32]:
    """BGR ``(3,)`` of the ball pointed at in ``image_bgr (h, w, 3)`` at ``xy_px``.

    Args:
        image_bgr: the picture the person pointed at.
        xy_px: the pointed pixel (x, y); within about a ball radius of the ball's centre.
        r_px: the ball's radius in pixels there (from the camera model).

    Raises:
        PickError: the spot lies off the picture or shows nothing but the cloth.
    """
    h, w = image_bgr.shape[:2]
    x, y = float(xy_px[0]), float(xy_px[1])
    if not (np.isfinite(x) and np.isfinite(y) and 0 <= x < w and 0 <= y < h):
        raise PickError(f"the point ({x:g}, {y:g}) lies off the {w}x{h} picture")
    r = max(float(r_px), 2.0)
    # A patch around the click that holds the ball and a ring of cloth around it.
    half = int(np.ceil(4.0 * r))
    x0, y0 = max(int(x) - half, 0), max(int(y) - half, 0)
    patch = image_bgr[y0 : min(int(y) + half + 1, h), x0 : min(int(x) + half + 1, w)]
    pix = patch.astype(np.float32)
    yy, xx = np.mgrid[0 : patch.shape[0], 0 : patch.shape[1]]
    d_click = np.hypot(xx + x0 - x, yy + y0 - y)
    surround = pix[(d_click > 2.5 * r) & (d_click < 4.0 * r)]
    if len(surround) < 8:
        raise PickError("the point lies too near the picture's edge to tell a ball from the cloth")
    cloth = np.median(surround, axis=0)
    differs = np.linalg.norm(pix - cloth, axis=2)
    # The ball's centre: where the most differing pixels gather within a radius of the click.
    weight = np.where(d_click < 1.5 * r, differs, 0.0)
    if weight.sum() <= 0.0:
        raise PickError("nothing but the cloth shows there: point at the ball itself")
    cx = float((weight * (xx + x0)).sum() / weight.sum())
    cy = float((weight * (yy + y0)).sum() / weight.sum())
    inside = np.hypot(xx + x0 - cx, yy + y0 - cy) < 0.7 * r
    ball = pix[inside]
    # The cloth's own texture and noise: what its ring differs from its median.
    spread = float(np.percentile(np.linalg.norm(surround - cloth, axis=1), 90))
    if len(ball) < 3 or np.median(np.linalg.norm(ball - cloth, axis=1)) < max(3.0 * spread, 20.0):
        raise PickError("nothing but the cloth shows there: point at the ball itself")
    lum = ball.sum(axis=1)
    return np.median(ball[lum >= np.percentile(lum, 70)], axis=0).astype(np.float32)


def hex_colour(bgr: NDArray) -> str:
    """``#rrggbb`` of a BGR colour (what ``--ball-colour`` and calibration.json take)."""
    b, g, r = (int(np.clip(round(float(c)), 0, 255)) for c in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"
