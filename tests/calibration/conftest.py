"""A minimal table painter for the calibration tests: green cloth, white lines, nothing else.

Every pixel is back-projected to the cloth and painted by its distance to the nearest line
paint (``Pitch.paint_distance_mm``), anti-aliased over the pixel's footprint on the cloth. It
knows nothing of calibration, so what calibration finds in its pictures is a real measurement.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from rules.pitch import Pitch

CLOTH_BGR = np.array([45.0, 125.0, 50.0])
PAINT_BGR = np.array([225.0, 230.0, 228.0])
TABLE_BGR = np.array([40.0, 60.0, 85.0])


def paint_view(
    camera: CameraModel,
    pitch: Pitch,
    *,
    light_gradient: float = 0.0,
    noise: float = 2.0,
    blur_px: float = 0.6,
    seed: int = 0,
) -> np.ndarray:
    """A BGR uint8 picture of ``pitch`` seen by ``camera``.

    ``light_gradient`` dims the picture linearly from its left edge (1.0) to its right edge
    (1 - light_gradient); ``noise`` is the sensor noise in grey levels.
    """
    w, h = camera.size_px
    ys, xs = np.mgrid[0:h, 0:w]
    px = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
    xy = camera.back_project(px)
    size_mm = camera.mm_per_px(xy)
    paint = np.clip(0.5 - pitch.paint_distance_mm(xy) / size_mm, 0.0, 1.0)
    hx, hy = pitch.cloth_half_extent_mm
    cloth = (np.abs(xy[:, 0]) <= hx) & (np.abs(xy[:, 1]) <= hy)
    colour = np.where(cloth[:, None], CLOTH_BGR, TABLE_BGR)
    colour = colour + paint[:, None] * (PAINT_BGR - CLOTH_BGR) * cloth[:, None]
    img = colour.reshape(h, w, 3)
    if blur_px > 0:
        img = cv2.GaussianBlur(img, ksize=(0, 0), sigmaX=blur_px)
    img = img * (1.0 - light_gradient * xs[..., None] / w)
    img = img + np.random.default_rng(seed).normal(0.0, noise, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


@pytest.fixture(scope="session")
def fistf() -> Pitch:
    return load_pitch("fistf")


@pytest.fixture(scope="session")
def classic() -> Pitch:
    return load_pitch("subbuteo-classic")
