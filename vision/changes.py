"""Skip work on parts of a frame that show nothing new.

Most of the table stands still most of the time: a ball at rest, figures waiting for their
turn. ``ChangeGate`` remembers a region of the last frame that was analysed and the result,
and hands that result back while the same region of a later frame differs from it by no more
than sensor noise; after ``max_age`` frames the work is done again anyway, so a result is
never older than that. A pixel has changed when one of its channels differs by more than
twice the foreground threshold (sensor noise between two frames reaches that about once in
a million channel values); the region has changed when ``min_pixels`` pixels have.

A flickering lamp is no change: fluorescent and LED lamps flicker at twice the mains
frequency, and a camera whose exposure is not a whole number of those half-periods (a phone's
recording, a short shutter) catches each frame at another phase (at 30 fps under 50 Hz mains
every third frame a seventh darker). The lamp scales the light on everything at once, so two
pictures of the same place are compared in the same light: ``light_gains`` reads how much
brighter one is than the other per channel (lamps of two tints may flicker apart) as the
median ratio of their pixels (what moved covers far less than half of them), and where that
shifts the levels by more than ``LEVEL_SHARE`` of the limit, one is brought to the other's
light (``in_light``) before they are compared. Under a steady light the gains shift nothing
that counts and nothing is scaled.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

LEVEL_SAMPLES = 512  # pixels the light is read from (to a few parts in a thousand)
LEVEL_SHARE = 0.25  # a light level off by less than this share of the limit is left as it is
DARKEST = 8.0  # levels below this say nothing of a ratio


class ChangeGate:
    """One remembered region and its result; see the module docstring."""

    def __init__(self, threshold: float, *, max_age: int, min_pixels: int = 3) -> None:
        self._t = 2.0 * float(threshold)
        self._max_age = max_age
        self._min_pixels = min_pixels
        self._key: Hashable | None = None
        self._region: NDArray[np.uint8] | None = None
        self._result: Any = None
        self._frame = 0

    def lookup(self, key: Hashable, region: NDArray[np.uint8], frame: int) -> Any:
        """The stored result if ``key`` matches and ``region`` shows nothing new, else None."""
        if frame - self._frame >= self._max_age:
            return None
        return self.stale(key, region)

    def stale(self, key: Hashable, region: NDArray[np.uint8]) -> Any:
        """Like ``lookup`` but of any age: what the unchanged region showed when stored."""
        if self._region is None or key != self._key or region.shape != self._region.shape:
            return None
        if shows_nothing_new(region, self._region, self._t, self._min_pixels):
            return self._result
        return None

    @property
    def key(self) -> Hashable | None:
        """The key of the stored result (None when none is stored)."""
        return self._key

    def result(self) -> Any:
        """The stored result, whatever a region shows now (None when none is stored)."""
        return self._result

    def store(self, key: Hashable, region: NDArray[np.uint8], result: Any, frame: int) -> None:
        """Remember ``region`` (copied) and the result computed from it at ``frame``."""
        self._key, self._region, self._result, self._frame = key, region.copy(), result, frame

    def clear(self) -> None:
        self._key, self._region, self._result = None, None, None


def shows_nothing_new(
    region: NDArray[np.uint8], before: NDArray[np.uint8], limit: float, min_pixels: int = 3
) -> bool:
    """Whether ``region`` differs from ``before`` (the same shape, uint8) in fewer than
    ``min_pixels`` pixels by more than ``limit`` levels in a channel (twice the foreground
    threshold: see the module docstring)."""
    # Nearly always nothing changed at all: the largest channel difference says so in one
    # pass, without the per-pixel count below. (``cv2.inRange`` rounds a bound to the nearest
    # level, half to even, like ``np.rint``.)
    if cv2.norm(region, before, normType=cv2.NORM_INF) <= int(np.rint(limit)):
        return True
    gains = light_gains(region, before)
    quiet = unchanged(region, in_light(before, gains, limit), limit)
    return quiet.size - cv2.countNonZero(quiet) < min_pixels


def unchanged(a: NDArray[np.uint8], b: NDArray[np.uint8], limit: float) -> NDArray[np.uint8]:
    """255 where no channel of ``a`` and ``b`` (the same shape, uint8) differs by more than
    ``limit`` levels, else 0."""
    return cv2.inRange(cv2.absdiff(a, b), lowerb=(0, 0, 0), upperb=(limit,) * 3)


def light_gains(now: NDArray[np.uint8], then: NDArray[np.uint8]) -> NDArray[np.float64]:
    """How much brighter picture ``now (h, w, 3)`` is than ``then`` (the same place) per
    channel ``(3,)``: the median ratio over up to ``LEVEL_SAMPLES`` of their pixels on an even
    lattice, those dark ``then`` left out (1 where none is left)."""
    h, w = now.shape[:2]
    k = max(1, math.ceil(math.sqrt(h * w / LEVEL_SAMPLES)))
    a = now[::k, ::k].reshape(-1, 3).astype(np.float64)
    b = then[::k, ::k].reshape(-1, 3).astype(np.float64)
    lit = b >= DARKEST
    gains = np.ones(3)
    for ch in range(3):
        if lit[:, ch].any():
            gains[ch] = float(np.median(a[lit[:, ch], ch] / b[lit[:, ch], ch]))
    return np.where(gains > 0.0, gains, 1.0)  # a black frame (a camera's dropout) is no light


def in_light(
    image: NDArray[np.uint8], gains: NDArray[np.float64], limit: float
) -> NDArray[np.uint8]:
    """``image`` brought to a light ``gains (3,)`` times as bright per channel, when that
    shifts its brightest levels by more than ``LEVEL_SHARE`` of ``limit``; else ``image``."""
    top = np.asarray(cv2.minMaxLoc(image.reshape(-1, 1))[1], np.float64)
    if not np.any(np.abs(gains - 1.0) * top > LEVEL_SHARE * limit):
        return image
    levels = np.arange(256, dtype=np.float64)[:, None] * gains[None, :]
    lut = np.clip(np.rint(levels), 0, 255).astype(np.uint8).reshape(1, 256, 3)
    return cv2.LUT(np.ascontiguousarray(image), lut)
