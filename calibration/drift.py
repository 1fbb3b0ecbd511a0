"""Has the table or the camera moved since calibration? A check cheap enough for match play.

Every ``interval_s`` seconds ``DriftMonitor.update`` reads a few dozen short profiles across the
long straight lines (touchlines, goal lines, halfway and shooting lines) where the calibration
says they are, finds each line's centre to a fraction of a pixel, turns the offsets into
millimetres on the cloth and fits one small rigid motion of the pitch (shift and turn) to them,
robustly: figures standing on a line or a hand over the table drop out.

The check must not miss a movement of ``threshold_mm``, so it reports one when the movement
it measured comes within its own uncertainty of the threshold: within three standard errors
of the fitted motion (from the spread of the line samples about it) plus ``SYSTEMATIC_MM``,
what the calibration and this check disagree by on a table that did not move (below 0.07 mm
on rendered tables from 800x600 up, with noise and the light changed). A movement of 0.5 mm
is then reported every time (the margin stays near 0.2 mm), one of 0.2 mm or less never.

A camera that tilts shows as a shift too (to first order); either way calls need a new
calibration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration import lines
from calibration.calibration_file import Calibration
from calibration.fit import sample_lines
from rules.pitch import Pitch

_KINDS = ("touchline", "goal_line", "halfway_line", "shooting_line")
_MIN_SAMPLES = 12
SYSTEMATIC_MM = 0.1


@dataclass(frozen=True, slots=True)
class DriftReport:
    """One drift check.

    Attributes:
        t_s: time of the checked frame, seconds.
        shift_mm: (dx, dy) how far the pitch lines moved on the cloth plane, mm (pitch frame).
        turn_deg: how far they turned about the centre spot, degrees.
        max_shift_mm: the largest movement of a playing-area corner, mm.
        moved: the table may have moved by the monitor's threshold or more:
            ``max_shift_mm + margin_mm >= threshold_mm``.
        samples: line samples that agreed with the fitted motion (0: the lines were not seen,
            and nothing is known: ``moved`` is False and the figures NaN).
        margin_mm: how much more the movement may be than measured: ``SYSTEMATIC_MM`` plus
            three standard errors of the corner's movement, mm.
    """

    t_s: float
    shift_mm: tuple[float, float]
    turn_deg: float
    max_shift_mm: float
    moved: bool
    samples: int
    margin_mm: float = SYSTEMATIC_MM


class DriftMonitor:
    """Watches a calibrated table for movement.

    Args:
        calibration: the calibration to hold the picture against.
        pitch: the table's nominal pitch (the calibration's measured edges are applied).
        interval_s: seconds between checks in ``update``.
        threshold_mm: movement that counts as moved.
        window_px: how far across each line to look, pixels (the largest movement found).
    """

    def __init__(
        self,
        calibration: Calibration,
        pitch: Pitch,
        *,
        interval_s: float = 5.0,
        threshold_mm: float = 0.5,
        window_px: float = 8.0,
    ) -> None:
        self.interval_s, self.threshold_mm, self.window_px = interval_s, threshold_mm, window_px
        self._last_t_s: float | None = None
        cam = calibration.camera
        measured = calibration.measured_pitch(pitch)
        # Samples every ~40 mm on the long straight lines, clear of every other line.
        model = sample_lines(measured, spacing_mm=40.0, clearance_mm=15.0)
        model = model.take(
            np.isin(model.line, [i for i, b in enumerate(measured.lines) if b.kind in _KINDS])
        )
        n = len(model)
        px = cam.project(np.concatenate([model.foot_mm, model.foot_mm + model.normal_mm]))
        step = px[n:] - px[:n]
        self._px_per_mm = np.hypot(step[:, 0], step[:, 1])
        self._normal_px = step / self._px_per_mm[:, None]
        self._origin_px = px[:n]
        centre_mm = np.array([0.5 * (b.inner_mm + b.outer_mm) for b in measured.lines])
        self._expected_px = centre_mm[model.line] * self._px_per_mm
        widths_mm = np.array([b.width_mm for b in measured.lines])
        self._width_px = widths_mm[model.line] * self._px_per_mm
        self._foot_mm = model.foot_mm
        self._normal_mm = model.normal_mm
        hl, hw = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
        self._corners_mm = np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])
        self._cloth_px = cam.project(self._foot_mm + 25.0 * self._normal_mm)
        self._weights: NDArray | None = None

    def update(self, image_bgr: NDArray[np.uint8], t_s: float) -> DriftReport | None:
        """Check ``image_bgr`` if ``interval_s`` has passed since the last check, else None."""
        if self._last_t_s is not None and t_s - self._last_t_s < self.interval_s:
            return None
        self._last_t_s = t_s
        return self.check(image_bgr, t_s)

    def check(self, image_bgr: NDArray[np.uint8], t_s: float = 0.0) -> DriftReport:
        """Measure the movement of the lines in ``image_bgr`` now."""
        prof = lines.measure_profiles(
            image_bgr,
            self._origin_px,
            self._normal_px,
            self.window_px,
            self._width_px,
            weights=self._paint_weights(image_bgr),
        )
        d_mm = (prof.centre_px - self._expected_px) / self._px_per_mm
        ok = prof.valid.copy()
        if ok.any():
            ok &= prof.contrast > 0.3 * np.median(prof.contrast[ok])
        unseen = DriftReport(t_s, (np.nan, np.nan), np.nan, np.nan, False, 0, np.nan)
        if ok.sum() < _MIN_SAMPLES:
            return unseen
        motion, cov, ok = self._rigid_motion(d_mm, ok)
        if not np.isfinite(cov).all():
            return unseen
        tx, ty, turn = motion
        corners = self._corners_mm
        moved_mm = np.hypot(tx - turn * corners[:, 1], ty + turn * corners[:, 0])
        worst = int(np.argmax(moved_mm))
        # The worst corner's movement (tx - w y, ty + w x) is linear in the motion.
        x, y = corners[worst]
        jac = np.array([[1.0, 0.0, -y], [0.0, 1.0, x]])
        sigma = float(np.sqrt(np.max(np.linalg.eigvalsh(jac @ cov @ jac.T))))
        margin = SYSTEMATIC_MM + 3.0 * sigma
        return DriftReport(
            t_s,
            (float(tx), float(ty)),
            float(np.degrees(turn)),
            float(moved_mm[worst]),
            bool(moved_mm[worst] + margin >= self.threshold_mm),
            int(ok.sum()),
            margin,
        )

    def _rigid_motion(self, d_mm: NDArray, ok: NDArray):
        """Shift (tx, ty) and small turn w with d = n . (t + w x p), refit without outliers.

        Returns the motion (3,), its covariance (3, 3) and the samples kept (n,).
        """
        n, p = self._normal_mm, self._foot_mm
        a = np.stack([n[:, 0], n[:, 1], n[:, 1] * p[:, 0] - n[:, 0] * p[:, 1]], axis=1)
        keep = ok.copy()
        motion, sigma = np.zeros(3), 0.0
        for _ in range(3):
            motion = np.linalg.lstsq(a[keep], d_mm[keep], rcond=None)[0]
            r = d_mm - a @ motion
            sigma = 1.4826 * float(np.median(np.abs(r[keep])))
            keep = ok & (np.abs(r) <= max(3.0 * sigma, 0.1))
        normal = a[keep].T @ a[keep]
        if keep.sum() < _MIN_SAMPLES or np.linalg.cond(normal) > 1e12:
            return motion, np.full((3, 3), np.inf), keep
        cov = max(sigma, 0.01) ** 2 * np.linalg.inv(normal)
        return motion, cov, keep

    def _paint_weights(self, image_bgr: NDArray[np.uint8]) -> NDArray[np.float64]:
        if self._weights is None:
            # The cloth's colour, read once beside the lines, weights the paint signal.
            h, w = image_bgr.shape[:2]
            xy = np.round(self._cloth_px).astype(int)
            inside = (xy[:, 0] >= 0) & (xy[:, 1] >= 0) & (xy[:, 0] < w) & (xy[:, 1] < h)
            colour = np.median(image_bgr[xy[inside, 1], xy[inside, 0]], axis=0).astype(float)
            self._weights = lines.paint_weights(colour)
        return self._weights
