"""What calibration shows a person: a printed report and an overlay picture.

The overlay draws, on the calibrated picture, the fitted model lines at their measured edges
(yellow), the sub-pixel edge samples the fit used (green) and those it rejected (red: figures,
the ball, shadows), and each line's residual in mm next to it. Lines the fit could not use are
drawn dashed in magenta at their nominal place.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calibration_file import Calibration
from rules.pitch import LineBand, Pitch

_USED_BGR = (0, 230, 255)
_UNUSED_BGR = (255, 0, 255)
_INLIER_BGR = (0, 200, 0)
_OUTLIER_BGR = (0, 0, 255)
_TEXT_BGR = (255, 255, 255)
_SHIFT = 4  # sub-pixel drawing: coordinates in 1/16 pixel


def format_report(calibration: Calibration, pitch: Pitch) -> str:
    """A few lines for the terminal: the camera, the fit's residuals, each line's edges."""
    cam = calibration.camera
    w, h = calibration.image_size_px
    k1, k2 = cam.dist[:2]
    height = cam.centre_mm[2]
    rows = [
        f"table {calibration.table}, picture {w}x{h}, home defends the goal at the "
        f"{calibration.home} of the image",
        f"camera: f {cam.fx_px:.1f} px, principal point ({cam.cx_px:.1f}, {cam.cy_px:.1f}), "
        f"k1 {k1:+.4f}, k2 {k2:+.4f}, {height:.0f} mm above the cloth",
        f"edge residuals: RMS {calibration.rms_px:.3f} px = {calibration.rms_mm:.3f} mm over "
        f"{len(calibration.lines_used)} lines",
        f"{'line':<32}{'residual mm':>12}{'px':>8}{'inner mm':>10}{'outer mm':>10}",
    ]
    for name in calibration.lines_used:
        inner, outer = calibration.line_edges_mm[name]
        rows.append(
            f"{name:<32}{calibration.per_line_mm[name]:>12.3f}"
            f"{calibration.per_line_px[name]:>8.3f}{inner:>10.2f}{outer:>10.2f}"
        )
    if calibration.focal is not None:
        rows.insert(2, _focal_row(calibration))
    unused = [b.name for b in pitch.lines if b.name not in calibration.line_edges_mm]
    if unused:
        rows.append(f"not found (nominal edges kept): {', '.join(unused)}")
    return "\n".join(rows)


def _focal_row(calibration: Calibration) -> str:
    """What fixed the focal length; a warning when nothing did."""
    focal = calibration.focal
    sigma = f"+-{focal.sigma_pct:.2f} %"
    if focal.source == "lens":
        return "focal length: from the lens file"
    if focal.source == "lines":
        return f"focal length: from the pitch lines' perspective, {sigma}"
    if focal.source == "goals":
        return f"focal length: from the parallax of the two goals, {sigma}"
    return (
        f"focal length: UNCONSTRAINED ({sigma}): the camera looks nearly straight down, so "
        "neither the lines' perspective nor the goals (whose real height is not known) tell "
        "its height, which is a guess; the pitch mapping is exact but the ball's and the "
        "bases' parallax correction is not: calibrate the lens (tablevar calibrate-lens, then "
        "--lens) or tilt the camera a few degrees, then calibrate again"
    )


def draw_overlay(image_bgr: NDArray[np.uint8], calibration: Calibration, pitch: Pitch):
    """The picture (h, w, 3) uint8 with the fitted lines, edge samples and residuals drawn."""
    out = image_bgr.copy()
    measured = calibration.measured_pitch(pitch)
    cam = calibration.camera
    for band in measured.lines:
        used = band.name in calibration.line_edges_mm
        offsets = (band.inner_mm, band.outer_mm) if used else (0.0,)
        for off in offsets:
            pts = _project_visible(cam, _polyline_mm(band, off))
            colour = _USED_BGR if used else _UNUSED_BGR
            # Unused lines dashed: every other 5 mm piece.
            pieces = pts if used else [p[i : i + 2] for p in pts for i in range(0, len(p) - 1, 2)]
            for part in pieces:
                cv2.polylines(
                    out,
                    [np.round(part * (1 << _SHIFT)).astype(np.int32)],
                    isClosed=False,
                    color=colour,
                    thickness=1,
                    lineType=cv2.LINE_AA,
                    shift=_SHIFT,
                )
    s = calibration.samples
    for xy in (s.inner_px, s.outer_px):
        for (x, y), good in zip(np.round(xy).astype(int).tolist(), s.inlier, strict=True):
            cv2.circle(
                out,
                center=(x, y),
                radius=1,
                color=_INLIER_BGR if good else _OUTLIER_BGR,
                thickness=-1,
            )
    scale = max(0.4, out.shape[1] / 2600)
    for name in calibration.lines_used:
        band = pitch.line(name)
        where = _label_point(band)
        at = cam.project(np.array([where]))[0]
        _text(out, f"{calibration.per_line_mm[name]:.2f}", at + np.array([4.0, -4.0]), scale)
    head = (
        f"{calibration.table}: RMS {calibration.rms_px:.2f} px / {calibration.rms_mm:.2f} mm, "
        f"{len(calibration.lines_used)} lines"
    )
    _text(out, head, np.array([10.0, 30.0 * scale + 10]), 1.5 * scale)
    return out


def _polyline_mm(band: LineBand, offset_mm: float, step_mm: float = 5.0) -> NDArray:
    """Points (n, 2) along a line's edge at ``offset_mm`` from its centre (a circle for spots)."""
    if band.shape == "segment":
        a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
        d = (b - a) / band.length_mm
        normal = np.array([-d[1], d[0]])
        t = np.linspace(0.0, 1.0, max(2, int(band.length_mm / step_mm) + 1))[:, None]
        return a + t * (b - a) + offset_mm * normal
    radius = band.radius_mm + offset_mm if band.radius_mm > 0 else abs(offset_mm)
    sweep = band.sweep_rad if band.radius_mm > 0 else 2 * math.pi
    n = max(8, int(radius * sweep / step_mm) + 1)
    angles = band.start_rad + np.linspace(0.0, sweep, n)
    return np.asarray(band.a_mm) + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _project_visible(cam, pts_mm: NDArray) -> list[NDArray]:
    """Projected pieces of a polyline, split where it leaves the picture (or goes behind)."""
    try:
        px = cam.project(pts_mm)
    except ValueError:
        return []
    w, h = cam.size_px
    ok = (px[:, 0] > -w) & (px[:, 0] < 2 * w) & (px[:, 1] > -h) & (px[:, 1] < 2 * h)
    breaks = np.flatnonzero(np.diff(ok.astype(np.int8))) + 1
    return [p for p, k in zip(np.split(px, breaks), np.split(ok, breaks), strict=True) if k.all()]


def _label_point(band: LineBand) -> tuple[float, float]:
    pts = _polyline_mm(band, band.outer_mm)
    return tuple(pts[len(pts) // 3])


def _text(img: NDArray, text: str, at: NDArray, scale: float) -> None:
    org = (int(at[0]), int(at[1]))
    for colour, thick in (((0, 0, 0), 3), (_TEXT_BGR, 1)):
        cv2.putText(
            img,
            text,
            org,
            fontFace=cv2.FONT_HERSHEY_SIMPLEX,
            fontScale=scale,
            color=colour,
            thickness=thick,
            lineType=cv2.LINE_AA,
        )
