"""Rendered tables for the calibration tests (the simulator's renderer, exact ground truth).

Seeds here stay below 100; the accuracy benchmark uses its own from 1000 on.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from rules.pitch import Pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from simulator.scene_camera import fits


@pytest.fixture(scope="session")
def fistf() -> Pitch:
    return load_pitch("fistf")


@pytest.fixture(scope="session")
def classic() -> Pitch:
    return load_pitch("subbuteo-classic")


def fitting_camera(
    pitch: Pitch,
    size_px: tuple[int, int],
    *,
    height_mm: float = 1300.0,
    k1: float = 0.0,
    tilt: tuple[float, float] = (0.0, 0.0),
    yaw_deg: float = 0.0,
    decentring: tuple[float, float] = (0.0, 0.0),
    principal: tuple[float, float] = (0.0, 0.0),
    aim_mm: tuple[float, float] = (0.0, 0.0),
) -> CameraModel:
    """The closest view in which every line of ``pitch`` and a strip of cloth beyond it show.

    ``principal`` is the principal point's offset from the image centre, pixels; ``aim_mm``
    where on the cloth the optical axis points (off the pitch's centre: the pitch sits off
    the picture's centre and the cloth beyond its lines is cut off on one side).
    """
    hl = 0.5 * pitch.profile.length_mm + 40.0
    hw = 0.5 * pitch.profile.width_mm + 40.0
    s = np.linspace(-1.0, 1.0, 15)
    top, bottom = np.stack([s * hl, np.full(15, hw)], 1), np.stack([s * hl, np.full(15, -hw)], 1)
    right, left = np.stack([np.full(15, hl), s * hw], 1), np.stack([np.full(15, -hl), s * hw], 1)
    ring = np.concatenate([top, bottom, right, left])
    view = 1.4 * hl
    while True:
        cam = CameraModel.overhead(
            size_px,
            height_mm,
            view,
            dist=(k1, 0.0, *decentring, 0.0),
            tilt_x_deg=tilt[0],
            tilt_y_deg=tilt[1],
            yaw_deg=yaw_deg,
            centre_mm=aim_mm,
            principal_offset_px=principal,
        )
        px = cam.project(ring)
        if (
            (px >= 0).all()
            and (px[:, 0] <= size_px[0] - 1).all()
            and (px[:, 1] <= size_px[1] - 1).all()
        ):
            return cam
        view *= 1.03


def figures_on_lines(pitch: Pitch, seed: int) -> SceneFrame:
    """Twelve figures, half of them standing on lines, goalkeepers in goal, the ball on a
    touchline."""
    rng = np.random.default_rng(seed)
    hl, hw = 0.5 * pitch.profile.length_mm - 40, 0.5 * pitch.profile.width_mm - 40
    xy = rng.uniform([-hl, -hw], [hl, hw], (12, 2))
    straight = [b for b in pitch.lines if b.shape == "segment"]
    for i in range(1, 12, 2):
        band = straight[rng.integers(len(straight))]
        xy[i] = np.asarray(band.a_mm) + rng.uniform(0.2, 0.8) * np.subtract(band.b_mm, band.a_mm)
    # Goalkeepers in their goal areas (their rods reach back over the goal line).
    xy[0] = (-0.5 * pitch.profile.length_mm + 30.0, 10.0)
    xy[6] = (0.5 * pitch.profile.length_mm - 30.0, -15.0)
    touch = pitch.line("touchline_bottom")
    ball = np.asarray(touch.a_mm) + 0.4 * np.subtract(touch.b_mm, touch.a_mm)
    figures = Figures(
        np.arange(12),
        np.repeat(np.array([0, 1], np.int8), 6),
        np.isin(np.arange(12), [0, 6]),
        xy,
        np.zeros((12, 2)),
    )
    return SceneFrame(0.0, ball, np.zeros(2), figures)


@pytest.fixture(scope="session")
def render():
    """``render(key) -> (true camera, picture)``, see ``rendered``."""
    return rendered


@pytest.fixture(scope="session")
def mapping_error():
    """``mapping_error(found, true, pitch) -> (n,) mm``, see ``mapping_error_mm``."""
    return mapping_error_mm


def goal_camera(pitch: Pitch, size_px: tuple[int, int], **kwargs) -> CameraModel:
    """The closest ``CameraModel.overhead(size_px, **kwargs)`` view (``height_mm`` given) that
    shows the whole cloth and the goals up to their height."""
    view = 1.4 * 0.5 * pitch.profile.length_mm
    while not fits(cam := CameraModel.overhead(size_px, view_width_mm=view, **kwargs), pitch):
        view *= 1.02
    return cam


@functools.cache
def goal_view(
    table: str,
    height_mm: float,
    seed: int,
    yaw_deg: float = 4.0,
    size_px: tuple[int, int] = (1280, 960),
) -> tuple[CameraModel, np.ndarray]:
    """A straight-down view with the goals in it, random look and figures (cached).

    Turned ``yaw_deg``: at 0 (or 90) the crossbars lie along the pixel columns (rows), every
    point of a bar at the same fraction of a pixel, so an edge finder that locks to whole
    pixels is off by the same amount all along it.
    """
    pitch = load_pitch(table)
    camera = goal_camera(
        pitch, size_px, height_mm=height_mm, dist=(-0.1, 0, 0, 0, 0), yaw_deg=yaw_deg
    )
    look = Look.random(np.random.default_rng(seed))
    return camera, Renderer(camera, pitch, look, seed=seed).render(figures_on_lines(pitch, seed))


@functools.cache
def rendered(key: tuple) -> tuple[CameraModel, np.ndarray]:
    """A rendered view, cached for the session: ``key`` = (table, size, camera kwargs as a
    tuple of pairs, look seed or None for the default look, figures seed or None, edges[,
    goal height over the profile's])."""
    table, size, cam_kwargs, look_seed, figure_seed, edges, *rest = key
    pitch = load_pitch(table)
    camera = fitting_camera(pitch, size, **dict(cam_kwargs))
    look = Look() if look_seed is None else Look.random(np.random.default_rng(look_seed))
    painted = pitch.with_measured_edges(dict(edges)) if edges else pitch
    if rest:
        # Goals of another height than the profile's (real goals differ).
        tall = rest[0] * pitch.profile.goal_height_mm
        painted = replace(painted, profile=replace(painted.profile, goal_height_mm=tall))
    renderer = Renderer(camera, painted, look, seed=look_seed or 0)
    if figure_seed is None:
        return camera, renderer.background()
    return camera, renderer.render(figures_on_lines(pitch, figure_seed))


def mapping_error_mm(found: CameraModel, true: CameraModel, pitch: Pitch) -> np.ndarray:
    """Error (n,) of pitch points over the playing area mapped true pixel -> found cloth point."""
    hl, hw = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
    gx, gy = np.meshgrid(np.linspace(-hl, hl, 31), np.linspace(-hw, hw, 21))
    xy = np.stack([gx.ravel(), gy.ravel()], axis=1)
    return np.hypot(*(found.back_project(true.project(xy)) - xy).T)


@pytest.fixture(scope="session")
def straight_view():
    """``straight_view(table, height_mm, seed, yaw_deg=4, size_px=(1280, 960)) -> (true
    camera, picture)``, see ``goal_view``."""
    return goal_view
