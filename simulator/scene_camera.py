"""Cameras and looks for simulated clips: the whole cloth in view, optionally tilted and warped.

``clip_camera`` places an overhead camera 1.1-1.6 m above the cloth with a random tilt (up to
``MAX_TILT_DEG``), turn (up to ``MAX_YAW_DEG``) and barrel distortion (k1 in [-0.3, 0]), then
widens its view until every point of the cloth and the goals lies inside the image. With
``straight=True`` it is the plain camera of the demo: 1.3 m up, looking straight down.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.camera import CameraModel
from rules.pitch import Pitch
from simulator.look import Look

MAX_TILT_DEG = 8.0
MAX_YAW_DEG = 3.0
HEIGHT_RANGE_MM = (1100.0, 1600.0)
K1_RANGE = (-0.3, 0.0)
STRAIGHT_HEIGHT_MM = 1300.0
# The demo's look: the default one with a plain cloth and little sensor noise, because both
# cost the MPEG-4 encoder far more bytes than they add to the picture.
DEMO_LOOK = replace(Look(), noise_sigma=0.5, cloth_texture=0.0)
BORDER_FRACTION = 0.015  # keep the cloth this far inside the image edges


def cloth_outline_mm(pitch: Pitch, per_side: int = 24) -> np.ndarray:
    """Points (n, 2) mm along the edge of the green cloth (goals stand inside it)."""
    hx, hy = pitch.cloth_half_extent_mm
    s = np.linspace(-1.0, 1.0, per_side)
    return np.concatenate(
        [
            np.stack([s * hx, np.full_like(s, hy)], 1),
            np.stack([s * hx, np.full_like(s, -hy)], 1),
            np.stack([np.full_like(s, hx), s * hy], 1),
            np.stack([np.full_like(s, -hx), s * hy], 1),
        ]
    )


def fits(camera: CameraModel, pitch: Pitch) -> bool:
    """Whether the whole cloth, up to the goals' height, projects inside the image."""
    w, h = camera.size_px
    pts = cloth_outline_mm(pitch)
    top = np.concatenate([pts, np.full((len(pts), 1), pitch.profile.goal_height_mm)], 1)
    px = np.concatenate([camera.project(pts), camera.project(top)])
    bx, by = BORDER_FRACTION * w, BORDER_FRACTION * h
    return bool(
        (px[:, 0] >= bx).all()
        and (px[:, 0] <= w - 1 - bx).all()
        and (px[:, 1] >= by).all()
        and (px[:, 1] <= h - 1 - by).all()
    )


def clip_camera(
    rng: np.random.Generator, pitch: Pitch, size_px: tuple[int, int], *, straight: bool = False
) -> CameraModel:
    """A camera over the table that sees the whole cloth; random pose and lens unless straight."""
    if straight:
        height, tilt_x, tilt_y, yaw, dist = STRAIGHT_HEIGHT_MM, 0.0, 0.0, 0.0, 0.0
    else:
        height = float(rng.uniform(*HEIGHT_RANGE_MM))
        # A random tilt direction with a magnitude of at most MAX_TILT_DEG.
        tilt = float(rng.uniform(0.0, MAX_TILT_DEG))
        angle = float(rng.uniform(0.0, 2.0 * np.pi))
        tilt_x, tilt_y = tilt * np.cos(angle), tilt * np.sin(angle)
        yaw = float(rng.uniform(-MAX_YAW_DEG, MAX_YAW_DEG))
        dist = float(rng.uniform(*K1_RANGE))
    hx, hy = pitch.cloth_half_extent_mm
    w, h = size_px
    view = 2.0 * max(hx, hy * w / h)
    for _ in range(60):
        cam = CameraModel.overhead(
            size_px,
            height,
            view,
            dist=(dist, 0.0, 0.0, 0.0, 0.0),
            tilt_x_deg=tilt_x,
            tilt_y_deg=tilt_y,
            yaw_deg=yaw,
        )
        if fits(cam, pitch):
            return cam
        view *= 1.02
    raise ValueError(f"no camera view of {size_px} px holds the whole cloth")


def mild_camera(rng: np.random.Generator, pitch: Pitch, size_px: tuple[int, int]) -> CameraModel:
    """A camera with a little of everything: 1.15-1.45 m up, tilted and turned up to 3 and 2
    degrees, a mild lens (k1 -0.12 to 0.02), the cloth with a random margin in view."""
    hx, hy = pitch.cloth_half_extent_mm
    w, h = size_px
    view = max(2 * hx + 60, (2 * hy + 60) * w / h) * float(rng.uniform(1.0, 1.08))
    return CameraModel.overhead(
        size_px,
        float(rng.uniform(1150.0, 1450.0)),
        view,
        dist=(float(rng.uniform(-0.12, 0.02)), float(rng.uniform(-0.02, 0.05)), 0.0, 0.0, 0.0),
        tilt_x_deg=float(rng.uniform(-3, 3)),
        tilt_y_deg=float(rng.uniform(-3, 3)),
        yaw_deg=float(rng.uniform(-2, 2)),
    )


def clip_look(rng: np.random.Generator, *, default: bool = False) -> Look:
    """The look of a clip: the demo's plain look, or one drawn from ``rng``."""
    return DEMO_LOOK if default else Look.random(rng)
