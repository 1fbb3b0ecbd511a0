"""The calibrated camera's pixel <-> millimetre mapping, for the hot loop.

``CameraModel`` (``calibration/camera.py``) is the one crossing from pixels to millimetres;
``FastCamera`` does the same arithmetic with the rotation and the camera centre worked out
once instead of on every call (the hot loop maps a few dozen points many times a frame).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraModel


class FastCamera:
    """``project`` and ``back_project`` of one ``CameraModel``, identical results."""

    def __init__(self, camera: CameraModel) -> None:
        self.camera = camera
        self.rotation = camera.rotation
        self.tvec_mm = np.asarray(camera.tvec_mm, np.float64)
        self.centre_mm = -self.rotation.T @ self.tvec_mm
        self._distorted = any(camera.dist)

    def project(self, xyz_mm: ArrayLike) -> NDArray[np.float64]:
        """Pixels ``(n, 2)`` of pitch points ``(n, 3)`` mm; ValueError behind the camera."""
        pts = np.asarray(xyz_mm, np.float64).reshape(-1, 3)
        cam = pts @ self.rotation.T + self.tvec_mm
        if np.any(cam[:, 2] <= 0):
            raise ValueError("some points lie behind the camera")
        xn = cam[:, :2] / cam[:, 2:3]
        if self._distorted:
            xn = self.camera.distort(xn)
        return self.camera.normalized_to_pixels(xn)

    def back_project(self, xy_px: ArrayLike, z_mm: ArrayLike = 0.0) -> NDArray[np.float64]:
        """Pitch points ``(n, 2)`` mm where the rays through pixels ``(n, 2)`` meet z_mm."""
        xn = self.camera.pixels_to_normalized(xy_px)
        if self._distorted:
            xn = self.camera.undistort(xn)
        rays = xn @ self.rotation[:2] + self.rotation[2]
        s = (np.asarray(z_mm, np.float64) - self.centre_mm[2]) / rays[:, 2]
        return self.centre_mm[:2] + s[:, None] * rays[:, :2]
