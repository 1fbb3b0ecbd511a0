"""What of the goals stands in front of a ball: the crossbar and the posts above a ball's top.

A ball rolling under a crossbar shows only its part beside the bar's image, and the edge of
what shows there is the bar's, not the ball's: a circle fitted through both places the ball
short of where it is, by up to a radius (a ball half under the bar read 13 mm behind). The
ball's outline is fitted without the edges on these pixels (``vision/refine.py``): what is
left of it, with the ball's known size, places it, less surely the less of it is left.

The bar stands ``goal_height_mm`` over the goal line's centre, but real goals stand taller or
lower than the profile says: its image is placed at the apparent height calibration measures
(``calibration.goals.measure_goals``), or, where the bar is not found, swept over the heights
a goal may have. The net between bars hides nothing: a ball in the goal is seen through it.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.goals import measure_goals
from rules.pitch import Pitch

# Apparent heights (multiples of the profile's) swept for a goal whose crossbar is not found.
UNMEASURED_SCALES = (0.8, 1.0, 1.25, 1.5)
_MARGIN_MM = 1.0  # the bars' images are drawn this much wider all round (edges blur)


def hiders_mask(image_bgr: NDArray[np.uint8], camera: CameraModel, pitch: Pitch) -> NDArray:
    """``(h, w)`` bool: pixels where a goal's crossbar or a post's upper part may hide a ball."""
    p = pitch.profile
    measured = {g.end: g.scale for g in measure_goals(image_bgr, pitch, camera)}
    w, h = camera.size_px
    mask = np.zeros((h, w), np.uint8)
    m, pw, height = _MARGIN_MM, p.goal_post_width_mm, p.goal_height_mm
    for goal in pitch.goals:
        axis_x = pitch.posts_x_mm(goal)
        xs = (axis_x - 0.5 * pw - m, axis_x + 0.5 * pw + m)
        posts = (
            (goal.y_min_mm - pw - m, goal.y_min_mm + m),
            (goal.y_max_mm - m, goal.y_max_mm + pw + m),
        )
        scales = (measured[goal.end],) if goal.end in measured else UNMEASURED_SCALES
        for s in scales:
            top = s * (height + pw) + m
            # The bar, and each post above a ball's top (lower down a ball hides the post).
            boxes = [((goal.y_min_mm - pw - m, goal.y_max_mm + pw + m), (s * height - m, top))]
            boxes += [(ys, (2.0 * p.ball_radius_mm, top)) for ys in posts]
            for ys, zs in boxes:
                fill_box(mask, camera, xs, ys, zs)
    # An edge two pixels from a bar may be the bar's: its blur, and where the edge is placed in it.
    return cv2.dilate(mask, np.ones((5, 5), np.uint8)).astype(bool)


def fill_box(mask: NDArray[np.uint8], camera: CameraModel, xs, ys, zs) -> None:
    """Set ``mask``'s pixels showing the box spanning ``xs``, ``ys``, ``zs`` (pairs, mm)."""
    corners = np.array([[x, y, z] for x in xs for y in ys for z in zs])
    px = camera.project(corners).astype(np.float32)
    if np.isfinite(px).all():  # a corner behind the camera has no image
        hull = cv2.convexHull(px).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.rint(hull).astype(np.int32), 1)


def on_mask(mask: NDArray[np.bool_], points_px: NDArray) -> NDArray[np.bool_]:
    """Which points ``(..., 2)`` px fall on ``mask`` (those outside the image: none)."""
    h, w = mask.shape
    x = np.rint(points_px[..., 0])
    y = np.rint(points_px[..., 1])
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    out = np.zeros(x.shape, bool)
    out[inside] = mask[y[inside].astype(np.intp), x[inside].astype(np.intp)]
    return out
