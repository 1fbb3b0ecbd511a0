"""The rolling ball's filter: constant velocity in x, y, with rolling friction in the prediction."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
from numpy.typing import NDArray

V_SIGMA_MM_S = 500.0  # a new roll's velocity, known from a sighting or two
# A measurement whose normalised squared innovation exceeds this (chi-squared, 2 degrees of
# freedom, 1 in 1000) is not within the filter's covariance: see ``Kalman.update``.
OUTLIER_NIS = 13.8
# The last ``SCATTER_FITS`` fits of a roll (outliers aside) say how far its fits stray: their
# residuals about a smooth roll through them (a quadratic in time per axis: friction bends it)
# against their stated noise. Past what chance allows (chi-squared with 2 (n - 3) degrees of
# freedom, 1 in 20), their noise is taken as large as they scatter (``Kalman.scatter_scale``).
SCATTER_FITS = 8
SCATTER_CHI2 = 18.31


class Kalman:
    """State ``x`` = (x, y, vx, vy) in mm and mm/s, covariance ``p``.

    Args:
        xy, v: (2,) start position (mm) and velocity (mm/s).
        measurement_sigma_mm: noise of one measured position.
        accel_sigma_mm_s2: process noise (bounces, spin, a flick).
        friction_mm_s2: rolling deceleration used in the prediction.
    """

    def __init__(
        self,
        xy: NDArray,
        v: NDArray,
        measurement_sigma_mm: float,
        accel_sigma_mm_s2: float,
        friction_mm_s2: float,
    ) -> None:
        self.x = np.array([xy[0], xy[1], v[0], v[1]], dtype=np.float64)
        s = measurement_sigma_mm
        self.p = np.diag([s * s, s * s, V_SIGMA_MM_S**2, V_SIGMA_MM_S**2])
        self._r = s * s
        self._q = accel_sigma_mm_s2**2
        self._friction = friction_mm_s2
        # The velocity's standard uncertainty as of the last measurement (not grown by the
        # predictions since): how far off the prediction the ball may be per second unseen.
        self.v_sigma_mm_s = V_SIGMA_MM_S
        self._t_s = 0.0  # since the start, by the predictions' steps
        self._fits: deque[tuple[float, float, float, float]] = deque(maxlen=SCATTER_FITS)
        self._scale = 1.0

    def predict(self, dt: float) -> None:
        if dt <= 0:
            return
        self._t_s += dt
        f = np.eye(4)
        f[0, 2] = f[1, 3] = dt
        self.x = f @ self.x
        speed = math.hypot(self.x[2], self.x[3])
        if speed > 0:  # rolling friction slows the ball, never reverses it
            self.x[2:] *= max(0.0, speed - self._friction * dt) / speed
        g = np.array([[0.5 * dt * dt, 0], [0, 0.5 * dt * dt], [dt, 0], [0, dt]])
        self.p = f @ self.p @ f.T + self._q * (g @ g.T)

    def update(self, z: NDArray, sigma_mm: float = 0.0) -> None:
        """Take the measured position ``z (2,)``; ``sigma_mm``, when larger than the
        configured noise, is that measurement's own (a doubtful fit weighs less).

        Each fit's stated noise is right on average where the fits are what the detector
        takes them for; a small, marked, compressed ball's fits may stray about the roll
        several times more than they claim. Then the noise is taken as large as they scatter
        (``scatter_scale``): the filter weighs the fits as they are, and says so in its
        covariance."""
        r = max(self._r, sigma_mm * sigma_mm)
        s_inv = np.linalg.inv(self.p[:2, :2] + r * self._scale * np.eye(2))
        k = self.p[:, :2] @ s_inv
        innovation = z - self.x[:2]
        step = k @ innovation
        self.x = self.x + step
        self.p = (np.eye(4) - k[:, :2] @ np.eye(2, 4)) @ self.p
        if innovation @ s_inv @ innovation <= OUTLIER_NIS:
            self._fits.append((self._t_s, float(z[0]), float(z[1]), r))
            self._scale = self._scatter()
        else:
            # The fit and the roll disagree beyond both their doubts: either the fit stood
            # off the ball (a mark or a shadow taken for its outline) or the ball was
            # deflected. Which is not known, so the state may be off by the whole step it
            # just took, in place and in speed; the covariance says so until measurements
            # on one course settle it again.
            self.p = self.p + np.outer(step, step)
        self.v_sigma_mm_s = math.sqrt(largest_eigenvalue(self.p[2:, 2:]))

    @property
    def scatter_scale(self) -> float:
        """How many times their stated noise (in variance) the last fits stray about the
        roll, once that is more than chance allows; else 1."""
        return self._scale

    def _scatter(self) -> float:
        n = len(self._fits)
        if n < SCATTER_FITS:
            return 1.0
        f = np.array(self._fits)
        t = f[:, 0] - f[:, 0].mean()
        a = np.stack([np.ones(n), t, t * t], axis=1)
        coef, *_ = np.linalg.lstsq(a, f[:, 1:3], rcond=None)
        squares = float(((f[:, 1:3] - a @ coef) ** 2).sum())
        stated = float(f[:, 3].mean())
        if squares / stated <= SCATTER_CHI2:
            return 1.0
        return squares / (2.0 * (n - 3)) / stated


def largest_eigenvalue(m: NDArray) -> float:
    """Largest eigenvalue of a symmetric 2 x 2 matrix."""
    half_trace = 0.5 * (m[0, 0] + m[1, 1])
    return float(half_trace + math.hypot(0.5 * (m[0, 0] - m[1, 1]), m[0, 1]))
