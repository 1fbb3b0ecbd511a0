"""Frames brought to the background's light level: ``LightLevel``.

Fluorescent and LED lamps flicker at twice the mains frequency. A camera whose exposure is not a
whole number of those half-periods (a phone's recording, a short shutter against motion blur)
catches each frame at another phase: at 30 fps under 50 Hz mains every third frame came out
a seventh darker than the others, the whole cloth then differed from the background by more than
the foreground threshold, and the whole-cloth pass read it as one blob of the darker kit's
colour. The figures of that kit were never found in it, and tracks that a base search must see
to be confirmed were lost every third frame (a whole team untracked for seconds).

The lamp scales the light on everything at once, so a frame's level is read against the
background on a fixed lattice of the cloth, per channel (lamps of two tints may flicker apart),
as the median ratio (the objects on the cloth cover far less than half of it). While the level
of the last ``FLICKER_FRAMES`` frames swings by more than ``LEVEL_SHARE`` of the foreground
threshold, a frame off the background's by as much is scaled back to it before anything reads
it. A light that changes for good (a lamp switched on) swings once: after a few frames the
frames are left as they are and the background takes the new light in
(``vision/renewal.py``), and under a steady light nothing is scaled (no cost: a Raspberry Pi
camera's exposure is a whole number of the flicker's periods, ``docs/raspberry-pi.md``).
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np
from numpy.typing import NDArray

LATTICE_SAMPLES = 512  # cloth pixels the level is read from (to a few parts in a thousand)
LEVEL_SHARE = 0.25  # a level off by less than this share of the threshold is left as it is
DARKEST = 8.0  # background levels below this say nothing of a ratio
FLICKER_FRAMES = 8  # frames over which a flicker's swing is seen (a few of its beats)


class LightLevel:
    """Reads each frame's light level against the background on the cloth ``roi (h, w)``."""

    def __init__(self, roi: NDArray[np.bool_], background: NDArray[np.uint8]) -> None:
        ys, xs = np.nonzero(roi)
        take = max(1, len(ys) // LATTICE_SAMPLES)
        self._all_ys, self._all_xs = ys[::take], xs[::take]
        self._levels = np.arange(256, dtype=np.float32)
        self._recent: deque[NDArray[np.float32]] = deque(maxlen=FLICKER_FRAMES)
        self.renew(background)

    def renew(self, background: NDArray[np.uint8]) -> None:
        """The background changed (it took in what changed on the table)."""
        bg = background[self._all_ys, self._all_xs]
        lit = (bg >= DARKEST).all(axis=1)
        self._ys, self._xs = self._all_ys[lit], self._all_xs[lit]
        self._bg = bg[lit].astype(np.float32)
        self._bg_level = np.median(self._bg, axis=0) if lit.any() else np.zeros(3, np.float32)

    def gains(self, image: NDArray[np.uint8]) -> NDArray[np.float32]:
        """The frame's level against the background's, per channel ``(3,)`` (1: the same)."""
        if len(self._ys) == 0:
            return np.ones(3, np.float32)
        gains = np.median(image[self._ys, self._xs] / self._bg, axis=0).astype(np.float32)
        return np.where(gains > 0, gains, np.float32(1.0))

    def level(self, image: NDArray[np.uint8], threshold_ch: float) -> NDArray[np.uint8]:
        """``image`` at the background's light level while the light flickers: scaled back
        where its level is off by more than ``LEVEL_SHARE`` of ``threshold_ch`` (grey levels,
        per channel) on the cloth and the last frames' levels swing by as much; else
        ``image`` itself."""
        gains = self.gains(image)
        self._recent.append(gains)
        bar = LEVEL_SHARE * threshold_ch
        recent = np.array(self._recent)
        swing = (recent.max(axis=0) - recent.min(axis=0)) * self._bg_level
        if not (np.any(swing > bar) and np.any(np.abs(gains - 1.0) * self._bg_level > bar)):
            return image
        lut = np.clip(np.rint(self._levels[:, None] / gains[None, :]), 0, 255).astype(np.uint8)
        return cv2.LUT(image, lut.reshape(1, 256, 3))
