"""Keeping the learnt background true to the table: ``BackgroundRenewal``.

The background is learnt from one frame (``vision/model.py``), and the table's picture changes
after it: a recording's first frame at a low bitrate is coarse blocks that the next frames
sharpen (a block's edge against the sharpened cloth was taken for a ball at the cloth's edge,
and the call it led to was confidently wrong), a lamp goes on, a soft shadow leaves with its
figure. Every few frames a pixel is taken into the background where the frame differs from it,
has stood still since the last look (what moves is no background), and:

- within 40 mm of the lines or in a goal, is what the cloth and its lines explain, as when
  learning (``cloth_residual``): a ball, a figure or a hand is not, however long it rests, and
  is never taken in; a net's mesh and a line's edge a fraction of a pixel off are opened away;
- beyond, on the cloth's edge and corners, is taken as it is, as when learning (no cloth to
  explain there: the table's frame may cover some), and with it a ball at rest out of play.

Only groups of such pixels at least ``RENEW_MIN_BALLS`` ball areas large are taken (a codec's
flicker, strewn pixels, is none), and none of a group up to ``OBJECT_MAX_BALLS`` large that
shows an object anywhere (a resting ball's rim and shadow, which the cloth explains, are the
background its outline is read against). Pixels found to be objects stay so while they stand
still.
The looks are on the detector's whole-cloth grid, so a table where nothing changed costs two
comparisons of a sixteenth (at every 4th pixel) to a quarter of a frame.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.fit import bilinear
from vision.changes import unchanged
from vision.model import (
    SceneModel,
    cloth_median,
    cloth_median_size,
    cloth_residual,
    every_step,
    goals_mask,
    pitch_area,
)

RENEW_MIN_BALLS = 0.25  # least area taken in at one look, in ball areas
OBJECT_MAX_BALLS = 4.0  # a group of change up to this large that shows an object is one


class BackgroundRenewal:
    """Renews one model's background from frames shown to it now and then, looking at every
    ``step``-th pixel in x and y (the detector's whole-cloth grid: two or more samples per
    ball radius) and taking in the full-resolution pixels of the samples taken."""

    def __init__(self, model: SceneModel, step: int) -> None:
        self._s = s = step
        play = pitch_area(model.camera, model.pitch) | goals_mask(model.camera, model.pitch)
        self._play = every_step((play & model.roi).astype(np.uint8) * 255, s)  # objects told
        self._roi = every_step(model.roi.astype(np.uint8) * 255, s)
        self._r_px = model.pitch.profile.ball_radius_mm * float(np.median(model.scale_grid))
        # Learning's opening (0.8 radii) and growing (7 px) of objects, on the grid.
        k = max(3, int(0.8 * self._r_px / s) | 1)
        self._open = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        self._grow = np.ones((max(3, -(-7 // s) | 1),) * 2, np.uint8)
        # ``cloth_median``'s half width, full pixels
        self._median_reach_px = 4 * (cloth_median_size(self._r_px) // 2 + 1)
        self._least = RENEW_MIN_BALLS * np.pi * self._r_px**2 / s**2  # samples
        self._before: NDArray[np.uint8] | None = None
        self._objects: NDArray[np.uint8] | None = None  # objects standing still (255), grown
        self._bg: tuple[NDArray[np.uint8], NDArray[np.uint8]] | None = None  # (of, its grid)

    def renew(self, image: NDArray[np.uint8], model: SceneModel) -> NDArray[np.bool_] | None:
        """The pixels ``(h, w)`` of ``image`` to take into the background of ``model``, where
        the table changed (see the module docstring), or None when there are none."""
        small = every_step(image, self._s)
        before, self._before = self._before, small
        if self._bg is None or self._bg[0] is not model.background:
            self._bg = model.background, every_step(model.background, self._s)
        if before is None:
            return None
        # A channel off by the whole colour distance of the foreground threshold: the noise of
        # a sharper frame than the one learnt from, under that, is no change of the table.
        t = float(model.threshold)
        still, same = unchanged(small, before, t), unchanged(small, self._bg[1], t)
        stale = cv2.bitwise_and(cv2.bitwise_and(still, cv2.bitwise_not(same)), self._roi)
        # Objects found at earlier looks are objects still while they stand still.
        known = None if self._objects is None else cv2.bitwise_and(self._objects, still)
        fresh = stale if known is None else cv2.bitwise_and(stale, cv2.bitwise_not(known))
        groups = self._groups(fresh)
        if groups is None:
            self._objects = known
            return None
        fresh = groups[0]
        objects = self._whole(groups, self._objects_near(image, fresh, model))
        self._objects = objects if known is None else cv2.bitwise_or(objects, known)
        take = cv2.bitwise_and(fresh, cv2.bitwise_not(self._objects))
        if not cv2.countNonZero(take):
            return None
        return self._pixels(image, take, model)

    def _groups(self, fresh: NDArray[np.uint8]):
        """The samples of ``fresh`` (255) in groups of at least ``_least``, their labels and
        the groups' areas (samples), or None: a codec's flicker, strewn samples, is no group."""
        _, labels, stats, _ = cv2.connectedComponentsWithStats(fresh, connectivity=8)
        area = stats[:, cv2.CC_STAT_AREA]
        keep = area >= self._least
        keep[0] = False
        if not keep.any():
            return None
        return keep[labels].astype(np.uint8) * 255, labels, np.where(keep, area, 0)

    def _whole(self, groups, objects: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """``objects`` with every group (``_groups``) no larger than ``OBJECT_MAX_BALLS`` ball
        areas that touches one: a ball at rest whose dim side, or a band of it, the cloth
        explains is one object, and taken in piece by piece it would shrink look by look
        until it was no ball. (A larger group, a lamp's light, is taken but for its objects.)"""
        _, labels, area = groups
        small = (area > 0) & (area <= OBJECT_MAX_BALLS / RENEW_MIN_BALLS * self._least)
        touched = np.zeros(len(area), bool)
        touched[np.unique(labels[objects > 0])] = True
        whole = small & touched
        if not whole.any():
            return objects
        return cv2.bitwise_or(objects, whole[labels].astype(np.uint8) * 255)

    def _objects_near(self, image, fresh, model: SceneModel) -> NDArray[np.uint8]:
        """Mask (255) on the grid of the objects in ``image`` within an opening's reach of
        the ``fresh`` samples, as learning finds them (``cloth_residual``) and grows them."""
        s = self._s
        objects = np.zeros(fresh.shape, np.uint8)
        near = cv2.findNonZero(cv2.bitwise_and(cv2.dilate(fresh, kernel=self._open), self._play))
        if near is not None:
            gx, gy = near.reshape(-1, 2).T
            xs, ys = gx * s, gy * s
            # The cloth's median over their box and the filter's reach around it, every 4th
            # pixel from a multiple of 4 as ``smooth_cloth`` takes it.
            h, w = image.shape[:2]
            m = self._median_reach_px
            x0, y0 = max(0, int(xs.min()) - m) // 4 * 4, max(0, int(ys.min()) - m) // 4 * 4
            x1, y1 = min(w, int(xs.max()) + m + 1), min(h, int(ys.max()) + m + 1)
            small = cloth_median(image[y0:y1, x0:x1], self._r_px)
            cloth = _cloth_at(small, (xs - x0 + 0.5) / 4.0 - 0.5, (ys - y0 + 0.5) / 4.0 - 0.5)
            pix = image[ys, xs].astype(np.float32)
            differs = np.sqrt(((pix - cloth) ** 2).sum(axis=1)) > model.threshold
            _, _, resid, _ = cloth_residual(
                image,
                cloth[differs],
                ys[differs],
                xs[differs],
                model.camera,
                model.pitch,
                model.line_bgr,
            )
            objects[gy[differs], gx[differs]] = resid > model.threshold
            objects = cv2.morphologyEx(objects, op=cv2.MORPH_OPEN, kernel=self._open)
        return cv2.dilate(objects, kernel=self._grow) * 255

    def _pixels(self, image, take, model: SceneModel) -> NDArray[np.bool_]:
        """The full-resolution pixels of the ``take`` samples' cells (``step`` square from
        each) that differ from the background as the samples do."""
        s, (h, w) = self._s, image.shape[:2]
        gh, gw = take.shape
        cells = cv2.resize(take, dsize=(gw * s, gh * s), interpolation=cv2.INTER_NEAREST)[:h, :w]
        x, y, bw, bh = cv2.boundingRect(cells)
        box = np.s_[y : y + bh, x : x + bw]
        same = unchanged(image[box], model.background[box], float(model.threshold))
        out = np.zeros((h, w), bool)
        out[box] = (cells[box] > 0) & (same == 0)
        return out


def _cloth_at(small: NDArray[np.uint8], x: NDArray, y: NDArray) -> NDArray[np.float32]:
    """``small (h, w, 3)`` bilinear at points ``x, y (n,)`` (as ``cv2.resize`` samples it),
    the edge replicated."""
    h, w = small.shape[:2]
    xy = np.stack([np.clip(x, 0.0, w - 1.0), np.clip(y, 0.0, h - 1.0)], 1)
    return np.stack([bilinear(small[..., c], xy, 0.0) for c in range(3)], 1).astype(np.float32)
