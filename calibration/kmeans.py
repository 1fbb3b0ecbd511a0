"""k-means that gives the same clusters every call: ``kmeans(points, k)``.

OpenCV's own k-means++ seeding draws on the process-wide random generator, which moves on
with every call: the same points split differently each time, depending on what the process
did before (a second clip analysed in one process, a live match recalibrated). So the seeds
are drawn here, k-means++ from a generator of our own on every ``step``-th point, and OpenCV
only refines them (one attempt from those labels draws nothing).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray


def kmeans(
    points: NDArray, k: int, *, step: int = 1, iterations: int = 30, eps: float = 0.5
) -> tuple[NDArray[np.float32], NDArray[np.int32]]:
    """Centres ``(k, d)`` and labels ``(n,)`` of ``points (n, d)``; seeds from every
    ``step``-th point; at most ``iterations`` refinements, until the centres move less
    than ``eps``."""
    rng = np.random.default_rng(0)
    some = points[::step].astype(np.float64)
    centres = [some[rng.integers(len(some))]]
    d2 = np.sum(np.square(some - centres[0]), axis=1)
    for _ in range(k - 1):
        centres.append(some[rng.choice(len(some), p=d2 / d2.sum())] if d2.sum() > 0 else some[0])
        d2 = np.minimum(d2, np.sum(np.square(some - centres[-1]), axis=1))
    seeds = np.asarray(centres, np.float32)
    labels = np.argmin(np.sum(np.square(points[:, None, :] - seeds[None]), axis=2), axis=1)
    _, labels, centres_out = cv2.kmeans(
        data=np.ascontiguousarray(points, np.float32),
        K=k,
        bestLabels=labels.astype(np.int32).reshape(-1, 1),
        criteria=(cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, iterations, eps),
        attempts=1,
        flags=cv2.KMEANS_USE_INITIAL_LABELS,
    )
    return centres_out, labels.ravel()
