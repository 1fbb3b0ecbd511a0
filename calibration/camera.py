"""The camera model: the one crossing between pitch millimetres and image pixels.

A pinhole camera with OpenCV's lens distortion (k1, k2, p1, p2, k3) and a pose in the pitch
frame (DESIGN.md section 3). The pose is world-to-camera: ``X_cam = R @ X_pitch + t`` with
``R`` from the Rodrigues vector ``rvec_rad``. Image x runs right and image y down; a camera that
looks straight down at the pitch with +x to the right has +y of the pitch toward the image top.

Objects stand above the cloth: a ball's centre is at z = r, a base's top rim at its height. So
``back_project`` takes the height of the plane to intersect, which is how vision corrects
parallax (STYLE.md habit 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

_NEWTON_STEPS = 12


class CameraModelError(ValueError):
    """A camera model was given impossible parameters."""


@dataclass(frozen=True, slots=True)
class CameraModel:
    """Intrinsics, distortion and pose of one camera.

    Attributes:
        size_px: image (width, height) in pixels.
        fx_px, fy_px: focal lengths in pixels.
        cx_px, cy_px: principal point in pixels.
        dist: distortion coefficients (k1, k2, p1, p2, k3), OpenCV's order.
        rvec_rad: Rodrigues rotation pitch -> camera, radians, shape (3,).
        tvec_mm: translation pitch -> camera, mm, shape (3,).
    """

    size_px: tuple[int, int]
    fx_px: float
    fy_px: float
    cx_px: float
    cy_px: float
    dist: tuple[float, float, float, float, float]
    rvec_rad: tuple[float, float, float]
    tvec_mm: tuple[float, float, float]

    def __post_init__(self) -> None:
        if len(self.size_px) != 2 or min(self.size_px) <= 0:
            raise CameraModelError(f"size_px must be (width, height) > 0, got {self.size_px}")
        if not (self.fx_px > 0 and self.fy_px > 0):
            raise CameraModelError(f"focal lengths must be > 0, got {self.fx_px}, {self.fy_px}")
        if len(self.dist) != 5:
            raise CameraModelError(f"dist must hold (k1, k2, p1, p2, k3), got {self.dist}")
        if len(self.rvec_rad) != 3 or len(self.tvec_mm) != 3:
            raise CameraModelError("rvec_rad and tvec_mm must each hold three numbers")

    # ----------------------------------------------------------------- construction
    @classmethod
    def overhead(
        cls,
        size_px: tuple[int, int],
        height_mm: float,
        view_width_mm: float,
        *,
        dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0),
        tilt_x_deg: float = 0.0,
        tilt_y_deg: float = 0.0,
        yaw_deg: float = 0.0,
        centre_mm: tuple[float, float] = (0.0, 0.0),
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> CameraModel:
        """A camera ``height_mm`` above the cloth, aimed at ``centre_mm`` on the cloth.

        Looking straight down, the image is ``view_width_mm`` wide on the cloth and pitch +x
        points to the image right. Tilts about the pitch x and y axes and a turn about the
        vertical then move the camera so that its optical axis still meets ``centre_mm``.
        """
        w, h = size_px
        down = np.diag([1.0, -1.0, -1.0])  # camera x = pitch x, camera y = -pitch y, looks -z
        turn = _rotation_z(math.radians(yaw_deg))
        tilt = _rotation_x(math.radians(tilt_x_deg)) @ _rotation_y(math.radians(tilt_y_deg))
        r_cam = down @ (turn @ tilt).T
        axis = r_cam.T @ np.array([0.0, 0.0, 1.0])  # optical axis in the pitch frame
        distance = height_mm / -axis[2]
        centre = np.array([centre_mm[0], centre_mm[1], 0.0]) - distance * axis
        f = w * distance / view_width_mm
        t = -r_cam @ centre
        return cls(
            size_px=(int(w), int(h)),
            fx_px=float(f),
            fy_px=float(f),
            cx_px=(w - 1) / 2.0 + principal_offset_px[0],
            cy_px=(h - 1) / 2.0 + principal_offset_px[1],
            dist=tuple(float(d) for d in dist),
            rvec_rad=tuple(float(v) for v in rodrigues_from_matrix(r_cam)),
            tvec_mm=tuple(float(v) for v in t),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "size_px": list(self.size_px),
            "camera_matrix": self.camera_matrix.tolist(),
            "dist": list(self.dist),
            "rvec_rad": list(self.rvec_rad),
            "tvec_mm": list(self.tvec_mm),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CameraModel:
        try:
            k = np.asarray(data["camera_matrix"], dtype=float)
            return cls(
                size_px=(int(data["size_px"][0]), int(data["size_px"][1])),
                fx_px=float(k[0, 0]),
                fy_px=float(k[1, 1]),
                cx_px=float(k[0, 2]),
                cy_px=float(k[1, 2]),
                dist=tuple(float(v) for v in data["dist"]),
                rvec_rad=tuple(float(v) for v in data["rvec_rad"]),
                tvec_mm=tuple(float(v) for v in data["tvec_mm"]),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise CameraModelError(f"malformed camera model {data!r}: {exc}") from exc

    # ----------------------------------------------------------------- properties
    @property
    def camera_matrix(self) -> NDArray[np.float64]:
        return np.array(
            [[self.fx_px, 0.0, self.cx_px], [0.0, self.fy_px, self.cy_px], [0.0, 0.0, 1.0]]
        )

    @property
    def rotation(self) -> NDArray[np.float64]:
        """Rotation matrix pitch -> camera, (3, 3)."""
        return matrix_from_rodrigues(np.asarray(self.rvec_rad))

    @property
    def centre_mm(self) -> NDArray[np.float64]:
        """Camera centre in the pitch frame, (3,) mm."""
        return -self.rotation.T @ np.asarray(self.tvec_mm)

    # ----------------------------------------------------------------- mapping
    def project(self, xyz_mm: ArrayLike) -> NDArray[np.float64]:
        """Project pitch points ``(n, 3)`` mm (or ``(n, 2)`` on the cloth) to pixels ``(n, 2)``."""
        pts = np.asarray(xyz_mm, dtype=np.float64)
        if pts.ndim == 1:
            pts = pts[None, :]
        if pts.shape[-1] == 2:
            pts = np.concatenate([pts, np.zeros((len(pts), 1))], axis=1)
        if pts.ndim != 2 or pts.shape[1] != 3:
            raise ValueError(f"expected points of shape (n, 3) or (n, 2), got {pts.shape}")
        cam = pts @ self.rotation.T + np.asarray(self.tvec_mm)
        if np.any(cam[:, 2] <= 0):
            raise ValueError("some points lie behind the camera")
        xn = cam[:, :2] / cam[:, 2:3]
        return self.normalized_to_pixels(self.distort(xn))

    def back_project(self, xy_px: ArrayLike, z_mm: ArrayLike = 0.0) -> NDArray[np.float64]:
        """Pitch points ``(n, 2)`` mm where the rays through pixels ``(n, 2)`` meet z = ``z_mm``.

        ``z_mm`` is a scalar or ``(n,)``: the height of the seen point above the cloth.
        """
        origin, rays = self.rays(xy_px)
        s = (np.asarray(z_mm, dtype=np.float64) - origin[2]) / rays[:, 2]
        return origin[:2] + s[:, None] * rays[:, :2]

    def rays(self, xy_px: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Camera centre ``(3,)`` and ray directions ``(n, 3)``, pitch frame (camera z = 1)."""
        xn = self.undistort(self.pixels_to_normalized(xy_px))
        cam = np.concatenate([xn, np.ones((len(xn), 1))], axis=1)
        return self.centre_mm, cam @ self.rotation

    def pixels_to_normalized(self, xy_px: ArrayLike) -> NDArray[np.float64]:
        px = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        return np.stack(
            [(px[:, 0] - self.cx_px) / self.fx_px, (px[:, 1] - self.cy_px) / self.fy_px], axis=1
        )

    def normalized_to_pixels(self, xn: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.stack(
            [xn[:, 0] * self.fx_px + self.cx_px, xn[:, 1] * self.fy_px + self.cy_px], axis=1
        )

    def distort(self, xn: NDArray[np.float64]) -> NDArray[np.float64]:
        """Apply lens distortion to normalized image points ``(n, 2)``."""
        k1, k2, p1, p2, k3 = self.dist
        x, y = xn[:, 0], xn[:, 1]
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        return np.stack([xd, yd], axis=1)

    def undistort(self, xd: NDArray[np.float64]) -> NDArray[np.float64]:
        """Invert ``distort`` by Newton's method; exact to ~1e-12 inside the image."""
        if not any(self.dist):
            return xd.copy()
        return undistort_newton(self.dist, xd, xd, _NEWTON_STEPS)

    def mm_per_px(self, xy_mm: ArrayLike, z_mm: float = 0.0) -> NDArray[np.float64]:
        """Local scale ``(n,)``: millimetres on the plane z = ``z_mm`` covered by one pixel."""
        pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        step = 1.0
        base = np.concatenate([pts, np.full((len(pts), 1), z_mm)], axis=1)
        px0 = self.project(base)
        px1 = self.project(base + np.array([step, 0.0, 0.0]))
        px2 = self.project(base + np.array([0.0, step, 0.0]))
        du, dv = px1 - px0, px2 - px0
        area_px = np.abs(du[:, 0] * dv[:, 1] - du[:, 1] * dv[:, 0])
        return step / np.sqrt(area_px)


def _rotation_x(a: float) -> NDArray[np.float64]:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rotation_y(a: float) -> NDArray[np.float64]:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rotation_z(a: float) -> NDArray[np.float64]:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def matrix_from_rodrigues(rvec: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotation matrix (3, 3) from a Rodrigues vector (3,) in radians."""
    theta = float(np.linalg.norm(rvec))
    if theta < 1e-15:
        return np.eye(3)
    k = np.asarray(rvec, dtype=np.float64) / theta
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(theta) * kx + (1.0 - math.cos(theta)) * (kx @ kx)


def rodrigues_from_matrix(r: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rodrigues vector (3,) from a rotation matrix (3, 3), valid for all angles."""
    cos_t = np.clip((np.trace(r) - 1.0) / 2.0, -1.0, 1.0)
    theta = math.acos(cos_t)
    if theta < 1e-12:
        return np.zeros(3)
    if math.pi - theta < 1e-6:
        # Near 180 degrees the antisymmetric part vanishes: read the axis off R + I.
        m = (r + np.eye(3)) / 2.0
        axis = m[:, int(np.argmax(np.diag(m)))]
        axis = axis / np.linalg.norm(axis)
        return axis * theta
    w = np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    return w * theta / (2.0 * math.sin(theta))


def undistort_newton(dist, xd: NDArray, start: NDArray, steps: int) -> NDArray[np.float64]:
    """``steps`` Newton steps from ``start (n, 2)`` toward the normalized points whose
    distortion (k1, k2, p1, p2, k3 as OpenCV) is ``xd (n, 2)``."""
    k1, k2, p1, p2, k3 = dist
    x, y = start[:, 0].copy(), start[:, 1].copy()
    for _ in range(steps):
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dradial = k1 + r2 * (2.0 * k2 + 3.0 * k3 * r2)  # d radial / d r2
        fx = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x) - xd[:, 0]
        fy = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y - xd[:, 1]
        # The Jacobian is symmetric: d fx / d y == d fy / d x.
        a = radial + 2.0 * x * x * dradial + 2.0 * p1 * y + 6.0 * p2 * x
        b = 2.0 * x * y * dradial + 2.0 * p1 * x + 2.0 * p2 * y
        d = radial + 2.0 * y * y * dradial + 6.0 * p1 * y + 2.0 * p2 * x
        det = a * d - b * b
        x, y = x - (d * fx - b * fy) / det, y - (a * fy - b * fx) / det
    return np.stack([x, y], axis=1)
