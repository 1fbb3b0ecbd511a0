"""Keeping the foreground threshold true to the frames: ``NoiseWatch``.

Learning measures the noise on one frame (``vision/model.py``), and a recording's noise is not
the same all through it: an encoder starting a clip at a low bitrate sends smooth frames for a
moment and the cloth's weave and the sensor's grain a few tenths of a second later (the
threshold learnt from the smooth ones let half the cloth through as foreground, and a ball
rolling across it became one blob with the grain around it, too large for a ball); a camera
raises its gain when a lamp goes off.

At every look the watch measures how the frame differs from the background on a fixed lattice
of the cloth, robustly (the objects on it cover far less than half of it), and asks for the
threshold that spread calls for: ``foreground_sigmas`` of it, the spread taken as of two frames'
noise, the background's and the frame's, as learning's is of one (``SPREAD_OF_ONE``). The
learnt threshold is the floor. A new threshold is asked for only when each of the last
``HOLD_LOOKS`` looks calls for one ``RETUNE_RATIO`` above the one in use, or each one that far
below it: a moment's change (a hand over the cloth, a lamp's change before the background takes
it in) moves nothing.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

SPREAD_OF_ONE = 1.0 / np.sqrt(2.0)  # one frame's noise in the spread of two frames' difference
HOLD_LOOKS = 2  # looks in a row that must call for a new threshold
RETUNE_RATIO = 1.25  # how far the threshold called for must be from the one in use
LATTICE_SAMPLES = 4000  # cloth pixels measured at a look (a third of a millisecond)


class NoiseWatch:
    """Follows the spread of frame against background on the cloth ``roi (h, w)``; see the
    module docstring."""

    def __init__(
        self, roi: NDArray[np.bool_], learnt_threshold: float, foreground_sigmas: float
    ) -> None:
        ys, xs = np.nonzero(roi)
        take = max(1, len(ys) // LATTICE_SAMPLES)
        self._ys, self._xs = ys[::take], xs[::take]
        self._floor = float(learnt_threshold)
        self._sigmas = float(foreground_sigmas)
        self._spreads: deque[float] = deque(maxlen=HOLD_LOOKS)

    def look(
        self, image: NDArray[np.uint8], background: NDArray[np.uint8], threshold: float
    ) -> float | None:
        """The threshold the spread of ``image`` against ``background`` calls for, when it
        should replace ``threshold`` (the one in use), else None."""
        if len(self._ys) == 0:
            return None
        diff = image[self._ys, self._xs].astype(np.float32) - background[self._ys, self._xs]
        self._spreads.append(robust_sigma(diff))
        if len(self._spreads) < HOLD_LOOKS:
            return None
        # Every look of late must call for more (or for less) than the one in use.
        more, less = (
            max(self._floor, self._sigmas * SPREAD_OF_ONE * f(self._spreads)) for f in (min, max)
        )
        if more > RETUNE_RATIO * threshold:
            return more
        if less * RETUNE_RATIO < threshold and threshold > self._floor:
            return less
        return None


def robust_sigma(values: NDArray[np.float32]) -> float:
    """The spread of ``values (n, c)`` about each column's median, as a normal's sigma (from
    the median absolute deviation: the few values that are objects do not count)."""
    med = np.median(values, axis=0)
    return float(1.4826 * np.median(np.abs(values - med)))
