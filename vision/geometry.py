"""The calibrated camera's pixel <-> millimetre mapping, for the hot loop.

``CameraModel`` (``calibration/camera.py``) is the one crossing from pixels to millimetres;
``FastCamera`` does the same arithmetic with the rotation and the camera centre worked out
once instead of on every call (the hot loop maps a few dozen points many times a frame).

Undoing the lens distortion is Newton's method in both. The camera model starts it at the
distorted point and takes a dozen steps; ``FastCamera`` starts it from a table of the camera
model's own answers every ``_GRID_PX`` pixels (bilinear between them: within ~1e-5 of the
answer), from where Newton's quadratic convergence reaches the same answer, to rounding, in
``_NEWTON_STEPS`` steps.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraModel, undistort_newton

_GRID_PX = 16  # spacing of the undistortion table
_GRID_MARGIN_PX = 64  # the table reaches this far beyond the image (rays leave it a little)
_NEWTON_STEPS = 2


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
        if self._distorted:
            w, h = camera.size_px
            m = _GRID_MARGIN_PX
            gx = np.arange(-m, w + m + _GRID_PX, _GRID_PX, dtype=np.float64)
            gy = np.arange(-m, h + m + _GRID_PX, _GRID_PX, dtype=np.float64)
            px = np.stack(np.meshgrid(gx, gy), axis=2).reshape(-1, 2)
            exact = camera.undistort((px - self._c) / self._f)
            self._table = exact.reshape(len(gy), len(gx), 2)
            self._flat = exact
            self._row_step = np.array([1, len(gx)], np.intp)

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
        px = np.asarray(xy_px, np.float64).reshape(-1, 2)
        xn = (px - self._c) / self._f
        if self._distorted:
            xn = self._undistort(xn, px)
        return xn @ self.rotation[:2] + self.rotation[2]

    def _undistort(self, xd: NDArray[np.float64], px: NDArray[np.float64]) -> NDArray:
        """The camera model's ``undistort`` of normalized points ``xd (n, 2)`` at pixels
        ``px (n, 2)``, started from the table (see the module docstring)."""
        u = (px + _GRID_MARGIN_PX) / _GRID_PX
        gh, gw = self._table.shape[:2]
        i0 = np.floor(u).astype(np.intp)
        inside = ((i0 >= 0) & (i0 < (gw - 1, gh - 1))).all(axis=1)
        if not inside.all():  # far off the image: the camera model's own way
            out = np.empty_like(xd)
            out[~inside] = self.camera.undistort(xd[~inside])
            if inside.any():
                out[inside] = self._undistort(xd[inside], px[inside])
            return out
        # Bilinear between the four table entries round each point, found in the table's
        # rows laid end to end (one index, not two, per entry).
        t = u - i0
        tx, ty = t[:, 0:1], t[:, 1:2]
        i = i0 @ self._row_step
        tab, gw = self._flat, self._table.shape[1]
        top = tab[i] + (tab[i + 1] - tab[i]) * tx
        bottom = tab[i + gw] + (tab[i + gw + 1] - tab[i + gw]) * tx
        start = top + (bottom - top) * ty
        return undistort_newton(self.camera.dist, xd, start, _NEWTON_STEPS)
