"""Colour classes that tolerate shading: an object's colour seen darker or brighter."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def shaded_distance(
    pixels: NDArray, colours: NDArray, shading_range: tuple[float, float]
) -> NDArray[np.float32]:
    """Distance ``(n, k)`` of each pixel ``(n, 3)`` to each colour ``(k, 3)`` under shading.

    The colour may appear scaled by a factor in ``shading_range`` (the shaded side of the
    ball, a highlight); the distance is to the best-scaled colour, so a grey pixel on the dark
    side of a white ball is near white, not near a dark team colour.
    """
    p = np.asarray(pixels, np.float32).reshape(-1, 3)
    c = np.asarray(colours, np.float32).reshape(-1, 3)
    cc = np.maximum((c * c).sum(axis=1), 1.0)  # (k,)
    pc = p @ c.T  # (n, k)
    lo, hi = shading_range
    a = np.minimum(np.maximum(pc / cc, lo), hi)  # np.clip, at a fraction of its call cost
    d2 = (p * p).sum(axis=1)[:, None] - 2.0 * a * pc + a * a * cc
    return np.sqrt(np.maximum(d2, 0.0))
