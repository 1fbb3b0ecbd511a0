"""The camera's height from the goals: things of known height that every table has.

Looking (nearly) straight down, the pitch lines fix where every cloth point images but not how
far away the camera is: the focal length and the height trade off (``fit``). The goals stand
above the cloth. A point z above the cloth, d from the nadir, images where a cloth point
d * h / (h - z) from the nadir would: displaced away from the nadir by d * z / (h - z), about
20 px for a 50 mm goal 600 mm from the nadir at 1280x960. Seen through a camera that fits the
lines but sits at the wrong height h0 (its focal length scaled by h0 / h), the goal appears
``lambda = h0 / h`` times its real height: measuring ``lambda`` measures the focal length,
``f = f0 / lambda``.

What is measured is the crossbar between the posts: a bar of the posts' width whose underside
is ``goal_height_mm`` above the goal line. Its outline in the picture runs from its lower edge
on the pitch side (z = H) to its upper edge on the far side (z = H + w): both edges are where
the bar meets what lies behind it, whatever the bar's colour and shading. For each goal a 1-D
search over ``lambda`` projects both edges along the mouth and scores the colour gradient
across the bar there (the norm over the three channels, so either polarity and any colour);
the robust mean over the mouth ignores a rod or a figure in front of part of the bar. A goal
counts when its peak stands clear of the rest of the search and both edges are real edges.

The profile's goal height is nominal: real goals stand taller or lower, and a goal 40 % taller
than assumed reads a camera 20 % too low. So ``calibrate`` does not take f from ``lambda``
itself but from the balance of the two goals' ``lambda`` (alike whatever their height), which
a tilted view ties to f.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.fit import bilinear
from calibration.lines import parabola_peak
from rules.pitch import GoalMouth, Pitch

# Apparent heights searched, as a multiple of the profile's: the lines alone leave the focal
# length of a camera looking straight down within about +-25 % (a guess from the pitch's size),
# and real goals stand up to about half as tall again as the profile says, or lower.
LAMBDA_RANGE = (0.5, 2.0)
_STEP_PX = 0.1  # the search moves the bar's image by about this much per step
_SAMPLE_PX = 2.0  # spacing of the samples along the bar
_BLUR_PX = 0.8
_MIN_PROMINENCE = 1.8  # peak score over the median score of the search
_MIN_EDGE = 1.5  # each edge's gradient over the window's median gradient
_REFINE_PX = 1.5  # the far edge is looked for this near the bar's best fit
# The far edge's refinement (``_refine``): profiles this long either side of the edge,
# sampled this finely; the gradient's peak is sought this near the search's edge.
_PEAK_REACH_PX = 2.5
_PEAK_STEP_PX = 0.25
_PEAK_SEEK_PX = 1.0
# Less blur than the search: a net string or a shadow beside the edge pulls its peak less.
_REFINE_BLUR_PX = 0.6


@dataclass(frozen=True, slots=True)
class GoalHeight:
    """The apparent height of one goal's crossbar under a camera.

    Attributes:
        end: ``left`` or ``right``.
        scale: apparent height / real height (``lambda``); 1 when the camera's height is right.
        lever_px: how far the bar's image moves per unit of ``scale`` (its parallax), pixels:
            the precision of ``scale`` is the precision of the bar's position over this.
        prominence: peak score over the search's median score.
    """

    end: str
    scale: float
    lever_px: float
    prominence: float


def measure_goals(
    image_bgr: NDArray[np.uint8], pitch: Pitch, camera: CameraModel
) -> tuple[GoalHeight, ...]:
    """The goals whose crossbar was found, each with its apparent height under ``camera``.

    Args:
        image_bgr: (h, w, 3) uint8, the picture ``camera`` was fitted to.
        pitch: the table; its profile gives the goal's height and post width.
        camera: a camera that maps the cloth right (fitted to the lines).
    """
    found = []
    for goal in pitch.goals:
        bar = _crossbar(pitch, goal, camera)
        if bar is None:
            continue
        result = _search(image_bgr, camera, bar)
        if result is not None:
            found.append(GoalHeight(goal.end, *result))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class _Bar:
    """The crossbar's two outline edges over the mouth, as 3-D points at the real height.

    ``inner_mm`` (n, 3): the lower edge on the pitch side; ``outer_mm`` (n, 3): the upper edge
    on the far side.
    """

    inner_mm: NDArray[np.float64]
    outer_mm: NDArray[np.float64]


def _crossbar(pitch: Pitch, goal: GoalMouth, camera: CameraModel) -> _Bar | None:
    p = pitch.profile
    sx = goal.outward
    pw, height = p.goal_post_width_mm, p.goal_height_mm
    axis_x = pitch.posts_x_mm(goal)
    # Seen from beyond the goal line the outline would be other edges: not measured.
    if sx * camera.centre_mm[0] >= axis_x * sx:
        return None
    length = goal.y_max_mm - goal.y_min_mm
    mm_px = float(camera.mm_per_px(np.array([[axis_x, 0.0]]))[0])
    n = max(8, int(length / (_SAMPLE_PX * mm_px)))
    # Keep clear of the posts' tops at the ends of the mouth.
    y = np.linspace(goal.y_min_mm + 2 * pw, goal.y_max_mm - 2 * pw, n)
    inner = np.stack([np.full(n, axis_x - sx * 0.5 * pw), y, np.full(n, height)], axis=1)
    outer = np.stack([np.full(n, axis_x + sx * 0.5 * pw), y, np.full(n, height + pw)], axis=1)
    return _Bar(inner, outer)


def _search(image_bgr, camera: CameraModel, bar: _Bar) -> tuple[float, float, float] | None:
    """(scale, lever_px, prominence) of the best bar position, or None when none stands out."""
    lever = _lever_px(camera, bar)
    step = _STEP_PX / max(lever, 1.0)
    scales = np.arange(LAMBDA_RANGE[0], LAMBDA_RANGE[1] + 1e-9, step)
    n, m = len(bar.inner_mm), len(scales)
    pts_in = _at_scales(bar.inner_mm, scales)
    pts_out = _at_scales(bar.outer_mm, scales)
    try:
        px = camera.project(np.concatenate([pts_in, pts_out]))
        across = camera.project(bar.inner_mm + _outward(bar)) - camera.project(bar.inner_mm)
    except ValueError:
        return None
    w, h = camera.size_px
    lo = np.floor(px.min(axis=0)).astype(int) - 6
    hi = np.ceil(px.max(axis=0)).astype(int) + 6
    if (lo < 0).any() or hi[0] >= w or hi[1] >= h:
        return None
    normal = across / np.maximum(np.hypot(*across.T), 1e-9)[:, None]
    g = _gradient_across(image_bgr, lo, hi, px - lo, np.tile(normal, (2 * m, 1)))
    g_in, g_out = g[: n * m].reshape(m, n), g[n * m :].reshape(m, n)
    curve = _mid_mean(g_in + g_out)
    i = int(np.argmax(curve))
    prominence = float(curve[i] / max(np.median(curve), 1e-9))
    if not 0 < i < m - 1 or prominence < _MIN_PROMINENCE:
        return None
    level = float(np.median(np.concatenate([g_in, g_out])))
    if min(_mid_mean(g_in[i : i + 1])[0], _mid_mean(g_out[i : i + 1])[0]) < _MIN_EDGE * level:
        return None
    # Both edges find the bar; its far edge measures it. That edge is the bar's top against
    # what lies far below it; the pitch-side edge runs along the bar's shaded front face and
    # merges with the face's own upper edge, pulling it outward.
    near = np.abs(scales - scales[i]) <= _REFINE_PX / lever
    j = int(np.argmax(np.where(near, _mid_mean(g_out), -np.inf)))
    scale = _refine(image_bgr, camera, bar.outer_mm, float(scales[j]))
    return scale, lever, prominence


def _refine(image_bgr, camera: CameraModel, edge_mm: NDArray, scale: float) -> float:
    """The scale that puts the bar's far edge on the peak of the image gradient across it.

    The search reads the gradient image bilinearly, and a bilinear interpolant peaks only on
    whole pixels: where the bar lies along the pixel rows or columns (every sample at the same
    fraction of a pixel) the search locks to them, off by up to half a pixel, a few percent of
    the scale. Here profiles across the edge are read from the blurred picture by bicubic
    interpolation (smooth between pixels) every quarter pixel, and the peak of their gradient
    is found nearest the search's edge; the robust mean of the peaks' offsets, over how far
    the edge moves across itself per unit of scale, corrects the scale.
    """
    pts = edge_mm.copy()
    pts[:, 2] *= scale
    moved = edge_mm.copy()
    moved[:, 2] *= scale + 0.01
    try:
        px = camera.project(pts)
        velocity = (camera.project(moved) - px) / 0.01
    except ValueError:
        return scale
    tangent = np.gradient(px, axis=0)
    normal = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    normal /= np.maximum(np.hypot(*normal.T), 1e-9)[:, None]
    normal *= np.sign(np.sum(normal * velocity, axis=1))[:, None]
    rate = np.sum(normal * velocity, axis=1)  # px across the edge per unit of scale
    s = np.arange(-_PEAK_REACH_PX, _PEAK_REACH_PX + 1e-9, _PEAK_STEP_PX)
    xy = px[:, None, :] + s[None, :, None] * normal[:, None, :]
    lo = np.floor(xy.reshape(-1, 2).min(axis=0)).astype(int) - 6
    hi = np.ceil(xy.reshape(-1, 2).max(axis=0)).astype(int) + 6
    h, w = image_bgr.shape[:2]
    if (lo < 0).any() or hi[0] >= w or hi[1] >= h:
        return scale
    window = image_bgr[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    window = cv2.GaussianBlur(window, ksize=(0, 0), sigmaX=_REFINE_BLUR_PX)
    rel = (xy - lo).astype(np.float32)
    values = cv2.remap(
        window, map1=rel[..., 0], map2=rel[..., 1], interpolation=cv2.INTER_CUBIC
    ).astype(np.float64)
    grad = np.sqrt(np.sum(np.square(np.gradient(values, _PEAK_STEP_PX, axis=1)), axis=2))
    seek = np.abs(s) <= _PEAK_SEEK_PX
    i = np.argmax(np.where(seek[None], grad, -np.inf), axis=1)
    inner = (i > 0) & (i < len(s) - 1) & (rate > 1.0)
    offset = s[i] + _PEAK_STEP_PX * parabola_peak(grad, i)
    if inner.sum() < max(4, len(px) // 4):
        return scale
    return scale + float(_mid_mean((offset[inner] / rate[inner])[None])[0])


def _at_scales(points_mm: NDArray, scales: NDArray) -> NDArray:
    """The points (n, 3) at each height scale (m,): (m * n, 3), scale-major."""
    out = np.repeat(points_mm[None], len(scales), axis=0)
    out[..., 2] *= scales[:, None]
    return out.reshape(-1, 3)


def _outward(bar: _Bar) -> NDArray:
    """Unit step (n, 3) across the bar toward the far side, on the cloth."""
    d = np.zeros_like(bar.inner_mm)
    d[:, 0] = np.sign(bar.outer_mm[:, 0] - bar.inner_mm[:, 0])
    return d


def _lever_px(camera: CameraModel, bar: _Bar) -> float:
    """Median image distance between the bar's lower edge and its foot on the cloth."""
    foot = bar.inner_mm.copy()
    foot[:, 2] = 0.0
    d = camera.project(bar.inner_mm) - camera.project(foot)
    return float(np.median(np.hypot(*d.T)))


def _gradient_across(image_bgr, lo, hi, xy_px: NDArray, normal: NDArray) -> NDArray:
    """Colour gradient (k,) along ``normal`` (k, 2) at window points ``xy_px`` (k, 2): the norm
    over the channels of each channel's derivative, so any colour and either polarity."""
    window = image_bgr[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    window = cv2.GaussianBlur(window, ksize=(0, 0), sigmaX=_BLUR_PX)
    total = np.zeros(len(xy_px))
    for c in range(3):
        gx = cv2.Sobel(window[..., c], ddepth=cv2.CV_32F, dx=1, dy=0, ksize=3, scale=0.125)
        gy = cv2.Sobel(window[..., c], ddepth=cv2.CV_32F, dx=0, dy=1, ksize=3, scale=0.125)
        along = normal[:, 0] * bilinear(gx, xy_px, 0.0) + normal[:, 1] * bilinear(gy, xy_px, 0.0)
        total += along * along
    return np.sqrt(total)


def _mid_mean(values: NDArray) -> NDArray:
    """Per row (m, n) -> (m,), the mean of the middle half of the values: robust and smooth."""
    q = np.sort(values, axis=1)
    n = q.shape[1]
    return q[:, n // 4 : max(n // 4 + 1, n - n // 4)].mean(axis=1)
