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
        # The intrinsics as (2,) arrays: the same arithmetic as the camera model's, in one
        # array operation per step instead of one per coordinate.
        self._f = np.array([camera.fx_px, camera.fy_px], np.float64)
        self._c = np.array([camera.cx_px, camera.cy_px], np.float64)

    def project(self, xyz_mm: ArrayLike) -> NDArray[np.float64]:
        """Pixels ``(n, 2)`` of pitch points ``(n, 3)`` mm; ValueError behind the camera."""
        pts = np.asarray(xyz_mm, np.float64).reshape(-1, 3)
        cam = pts @ self.rotation.T + self.tvec_mm
        if np.any(cam[:, 2] <= 0):
            raise ValueError("some points lie behind the camera")
        xn = cam[:, :2] / cam[:, 2:3]
        if self._distorted:
            xn = self.camera.distort(xn)
        return xn * self._f + self._c

    def back_project(self, xy_px: ArrayLike, z_mm: ArrayLike = 0.0) -> NDArray[np.float64]:
        """Pitch points ``(n, 2)`` mm where the rays through pixels ``(n, 2)`` meet z_mm."""
        rays = self._rays(xy_px)
        s = (np.asarray(z_mm, np.float64) - self.centre_mm[2]) / rays[:, 2]
        return self.centre_mm[:2] + s[:, None] * rays[:, :2]

    def back_project_planes(self, xy_px: ArrayLike, z_mm: tuple[float, ...]) -> NDArray:
        """``back_project`` onto several planes ``(p,)``: points ``(p, n, 2)`` mm; the rays
        (and the lens's undistortion) are worked out once."""
        rays = self._rays(xy_px)
        z = np.asarray(z_mm, np.float64)[:, None]
        s = (z - self.centre_mm[2]) / rays[None, :, 2]  # (p, n)
        return self.centre_mm[:2] + s[..., None] * rays[None, :, :2]

    def _rays(self, xy_px: ArrayLike) -> NDArray[np.float64]:
        """Directions ``(n, 3)`` in pitch axes of the rays through pixels ``(n, 2)``."""
        xn = (np.asarray(xy_px, np.float64).reshape(-1, 2) - self._c) / self._f
        if self._distorted:
            xn = self.camera.undistort(xn)
        return xn @ self.rotation[:2] + self.rotation[2]
