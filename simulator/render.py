"""Render overhead camera frames of a simulated table with exact geometry.

The static layers (cloth, lines, table frame, light, goals; ``render_static``, ``render_goals``)
are rendered once by inverse mapping of every pixel's ray. Figures at rest are ray cast into a
cached copy of that background and re-drawn only when one of them moves. Per frame, every
moving thing (the ball, moving figures, fingers) is ray cast in a small window around it,
supersampled for anti-aliasing, depth-tested against the other objects and the goals in that
window, and motion-blurred by averaging renders over the exposure; then sensor noise is added,
and last the camera's tone curve (``Look.tone_gamma``) maps the levels.
Ground truth is the ``SceneFrame`` itself: pixels are drawn from it and nothing else.

Rolling shutter (``readout_s`` > 0): the rows of a frame are exposed one after another, top to
bottom, over ``readout_s``; the frame's time is the moment its middle row is exposed, so row v
shows the scene at ``t_s + (v - (h - 1) / 2) * readout_s / h``. Only moving things look
different: each is drawn where it is when its own rows are exposed, sheared by its motion
across those rows (its velocity is taken as constant over the readout, as over the exposure).
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.pitch import Pitch
from simulator.look import Look
from simulator.render_goals import goal_layer
from simulator.render_objects import Solid, ball_solid, figure_solid, finger_solid
from simulator.render_shapes import Light, pixel_box
from simulator.render_static import PixelMap, cloth_layer
from simulator.render_window import Layers, Moving, Window, compose
from simulator.scene import SceneFrame

_MAX_TIME_SAMPLES = 32
_FIGURE_SAMPLES = 4
_BALL_SAMPLES = 4
_BLURRED_SAMPLES = 2
EXPOSURE_S = 1 / 120  # a camera's shutter time when nothing else is said
DEFAULT_LOOK = Look()  # frozen, so one shared default is safe


def default_exposure_s(fps: float) -> float:
    """The shutter time when nothing else is said: ``EXPOSURE_S``, or a whole frame period at
    a rate above 120 fps."""
    return min(EXPOSURE_S, 1.0 / fps)


class Renderer:
    """Draws ``SceneFrame``s as a camera over the table would see them.

    Args:
        camera: the camera model; frames have its ``size_px``.
        pitch: the table's pitch model (lines, goals, ball and base sizes).
        look: colours, light, noise.
        seed: fixes the cloth texture and the sensor noise; the same seed and scene frame
            always give the same picture.
        exposure_s: shutter time; moving objects are blurred over it.
        readout_s: rolling shutter: time from the exposure of the first row to that of the
            last (0: a global shutter, every row at once).
    """

    def __init__(
        self,
        camera: CameraModel,
        pitch: Pitch,
        look: Look = DEFAULT_LOOK,
        *,
        seed: int = 0,
        exposure_s: float = EXPOSURE_S,
        readout_s: float = 0.0,
    ) -> None:
        if exposure_s < 0 or readout_s < 0:
            raise ValueError(
                f"exposure_s and readout_s must be >= 0, got {exposure_s}, {readout_s}"
            )
        self.camera, self.pitch, self.look = camera, pitch, look
        self.seed, self.exposure_s, self.readout_s = seed, exposure_s, readout_s
        pix = PixelMap.build(camera, pitch, look)
        tint = np.asarray(look.light_tint, np.float32)
        goals = goal_layer(camera, pitch, look, pix)
        self._layers = Layers(
            pix=pix,
            cloth=cloth_layer(pix, pitch, look, seed) * tint,
            goals=replace(goals, premul=goals.premul * tint),
            light=Light.of(look.lights, look.ambient, look.shading, look.specular),
            look=look,
            tint=tint,
            line_s=readout_s / camera.size_px[1],
        )
        self._tone = _tone_curve(look.tone_gamma)
        self._static = self._linear_background()
        self._resting: dict[tuple, tuple[Solid, Window]] = {}
        w, h = camera.size_px
        self._n_values = w * h * 3
        self._noise = _noise_bank(self._n_values, look.noise_sigma, seed)
        self._optics = look.defocus_px > 0 or look.flicker > 0
        self._flicker_phase = float(np.random.default_rng([seed, 2]).uniform(0.0, 2.0 * math.pi))

    # ------------------------------------------------------------------ public
    def render(self, scene: SceneFrame) -> NDArray[np.uint8]:
        """The camera frame of ``scene``: ``(h, w, 3)`` uint8 BGR, h, w from ``camera.size_px``."""
        resting, moving = self._split(scene)
        self._update_resting(resting)
        frame, up, down = self._static.copy(), None, None
        if self._noise is not None:
            rng = np.random.default_rng([self.seed, _time_key(scene.t_s)])
            off = int(rng.integers(0, len(self._noise[0]) - self._n_values + 1))
            up, down = (
                n[off : off + self._n_values].reshape(self._static.shape) for n in self._noise
            )
        # Without blur or flicker the noise goes on the background first and on each window
        # as it is drawn (two saturating uint8 passes: the fastest path in OpenCV); with them
        # it comes after the lens and the light, on the whole picture.
        early = up is not None and not self._optics
        if early:
            cv2.add(frame, up, dst=frame)
            cv2.subtract(frame, down, dst=frame)
        for window, members in _clusters(moving):
            x0, y0, x1, y1 = window
            statics = [s for s, win in self._resting.values() if _overlap(win, window)]
            colour = compose(self._layers, window, statics, members, _FIGURE_SAMPLES)
            if early:
                colour += up[y0:y1, x0:x1]
                colour -= down[y0:y1, x0:x1]
            frame[y0:y1, x0:x1] = _to_u8(colour)
        if self._optics:
            frame = self._lens_and_light(frame, scene.t_s)
            if up is not None:
                cv2.add(frame, up, dst=frame)
                cv2.subtract(frame, down, dst=frame)
        return frame if self._tone is None else cv2.LUT(frame, self._tone)

    def _lens_and_light(self, frame: NDArray[np.uint8], t_s: float) -> NDArray[np.uint8]:
        """The lens' blur and the lights' flicker (``Look.defocus_px``, ``Look.flicker``)."""
        look = self.look
        if look.defocus_px > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), look.defocus_px)
        if look.flicker > 0:
            # Brightness 1 + a sin(2 pi 2 f t + phase), averaged over each row's exposure
            # (that scales a by sinc(2 f T)); row v is exposed at t + (v - (h - 1) / 2) line_s.
            h = frame.shape[0]
            f2 = 2.0 * look.mains_hz
            rows_s = t_s + (np.arange(h) - 0.5 * (h - 1)) * self._layers.line_s
            swing = look.flicker * np.sinc(f2 * self.exposure_s)
            gain = 1.0 + swing * np.sin(2.0 * math.pi * f2 * rows_s + self._flicker_phase)
            frame = _to_u8(frame * gain.astype(np.float32)[:, None, None])
        return frame

    def background(self) -> NDArray[np.uint8]:
        """The empty table (no figures, no ball, no noise): ``(h, w, 3)`` uint8 BGR."""
        bg = self._linear_background()
        return bg if self._tone is None else cv2.LUT(bg, self._tone)

    def _linear_background(self) -> NDArray[np.uint8]:
        goals = self._layers.goals
        return _to_u8(goals.premul + (1.0 - goals.alpha[..., None]) * self._layers.cloth)

    # ------------------------------------------------------------------ scene -> solids
    def _split(self, scene: SceneFrame) -> tuple[dict[tuple, Solid], list[Moving]]:
        """Figures at rest (keyed by everything that shapes them) and the per-frame objects."""
        resting: dict[tuple, Solid] = {}
        moving: list[Moving] = []
        figs = scene.figures
        for i in range(len(figs)):
            team, keeper, fid = int(figs.team[i]), bool(figs.goalkeeper[i]), int(figs.id[i])
            xy, v = figs.xy_mm[i], figs.v_mm_s[i]

            def make(p, team=team, keeper=keeper, fid=fid):
                return figure_solid(p, team, keeper, fid, self.pitch, self.look)

            if np.any(v != 0.0):
                moving.append(self._moving(make, xy, v, _FIGURE_SAMPLES))
            else:
                resting[(fid, team, keeper, float(xy[0]), float(xy[1]))] = make(xy)
        if scene.ball_xy_mm is not None:
            xy = np.asarray(scene.ball_xy_mm, np.float64)

            def make_ball(p):
                return ball_solid(p, self.pitch, self.look)

            moving.append(self._moving(make_ball, xy, scene.ball_v_mm_s, _BALL_SAMPLES))
        for finger in scene.fingers:
            solid = finger_solid(finger, self.look)
            moving.append(self._per_frame(solid, np.zeros((1, 2)), solid, solid, _BLURRED_SAMPLES))
        return resting, [m for m in moving if m is not None]

    def _moving(self, make, xy: NDArray, v: NDArray, samples: int) -> Moving | None:
        """The object over the exposure, about one time sample per pixel of travel."""
        v = np.asarray(v, np.float64)
        t_ref, spread = 0.0, (0.0, 0.0)
        if self._layers.line_s > 0 and np.any(v != 0.0):
            t_ref, spread = self._row_times(make, xy, v)
            xy = xy + v * t_ref  # where it is when its rows are exposed
        speed = float(np.hypot(*v))
        k, rolling = 1, None
        if speed > 0:
            scale = float(self.camera.mm_per_px(xy)[0])
            k = int(np.clip(math.ceil(speed * self.exposure_s / scale), 1, _MAX_TIME_SAMPLES))
            if self._layers.line_s > 0:  # the shear across the object's rows, in pixels
                rolling = (v, t_ref, math.ceil((spread[1] - spread[0]) * speed / scale) + 1)
        solid = make(xy)
        if k == 1:
            return self._per_frame(solid, np.zeros((1, 2)), solid, solid, samples, rolling)
        dts = ((np.arange(k) + 0.5) / k - 0.5) * self.exposure_s
        shifts = dts[:, None] * v[None, :]
        # The first and last windows hold the rows exposed first and last (rolling shutter).
        first, last = make(xy + shifts[0] + spread[0] * v), make(xy + shifts[-1] + spread[1] * v)
        # Time samples already smooth a streak: fewer rays per pixel do.
        samples = _BLURRED_SAMPLES if k > 2 else samples
        return self._per_frame(solid, shifts, first, last, samples, rolling)

    def _row_times(self, make, xy: NDArray, v: NDArray) -> tuple[float, tuple[float, float]]:
        """When a moving object's rows are exposed, relative to the frame time, s.

        Returns the time its centre row is exposed and the span (earliest, latest) of its
        other rows around that time: the object moves while the shutter sweeps over it.
        """
        line_s, mid = self._layers.line_s, 0.5 * (self.camera.size_px[1] - 1)
        lo, hi = make(xy).bounds_mm(shadow=False)
        z = 0.5 * (lo[2] + hi[2])
        t = 0.0
        for _ in range(3):  # the object's row moves little over the readout: converges fast
            p = xy + v * t
            row = float(self.camera.project(np.array([[p[0], p[1], z]]))[0, 1])
            t = (row - mid) * line_s
        box = self._window(make(xy + v * t), shadow=False)
        if box is None:
            return t, (0.0, 0.0)
        return t, ((box[1] - 1 - row) * line_s, (box[3] + 1 - row) * line_s)

    def _per_frame(self, solid, shifts, first: Solid, last: Solid, samples: int, rolling=None):
        """A ``Moving`` whose window holds the shadow too, and whose ray boxes do not."""
        ends = [self._window(s) for s in (first, last)]
        rays = [self._window(s, shadow=False) for s in (first, last)]
        if any(w is None for w in ends + rays):
            return None  # off the image, or partly behind the camera
        window = _union(*ends)
        if rolling is None:
            return Moving(solid, shifts, window, rays[0], rays[1], samples)
        v, t_ref, pad = rolling
        return Moving(solid, shifts, window, rays[0], rays[1], samples, v, t_ref, pad)

    def _window(self, solid: Solid, shadow: bool = True) -> Window | None:
        lo, hi = solid.bounds_mm(shadow)
        try:
            return pixel_box(self.camera, lo, hi)
        except ValueError:  # part of it lies behind the camera: nothing sensible to draw
            return None

    # ------------------------------------------------------------------ caching
    def _update_resting(self, resting: dict[tuple, Solid]) -> None:
        """Redraw the cached windows of figures that came to rest, moved or left."""
        gone = [k for k in self._resting if k not in resting]
        new = [k for k in resting if k not in self._resting]
        if not gone and not new:
            return
        dirty = [self._resting.pop(k)[1] for k in gone]
        for k in new:
            window = self._window(resting[k])
            if window is not None:
                self._resting[k] = (resting[k], window)
                dirty.append(window)
        for window in dirty:
            x0, y0, x1, y1 = window
            statics = [s for s, win in self._resting.values() if _overlap(win, window)]
            colour = compose(self._layers, window, statics, [], _FIGURE_SAMPLES)
            self._static[y0:y1, x0:x1] = _to_u8(colour)


def _clusters(moving: list[Moving]) -> list[tuple[Window, list[Moving]]]:
    """Group objects whose windows overlap, so they are drawn together and depth-tested."""
    groups: list[tuple[Window, list[Moving]]] = [(m.window, [m]) for m in moving]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if _overlap(groups[i][0], groups[j][0]):
                    window = _union(groups[i][0], groups[j][0])
                    groups[i] = (window, groups[i][1] + groups[j][1])
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return groups


def _overlap(a: Window, b: Window) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _union(a: Window | None, b: Window | None) -> Window | None:
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _tone_curve(gamma: float) -> NDArray[np.uint8] | None:
    """The lookup table ``(256,)`` of a camera's tone curve ``255 (v / 255) ** (1 / gamma)``,
    or None for the identity."""
    if gamma == 1.0:
        return None
    levels = 255.0 * (np.arange(256) / 255.0) ** (1.0 / gamma)
    return np.clip(np.rint(levels), 0, 255).astype(np.uint8)


def _to_u8(img: NDArray[np.float32]) -> NDArray[np.uint8]:
    return np.clip(img + 0.5, 0.0, 255.0).astype(np.uint8)


def _time_key(t_s: float) -> int:
    return abs(round(t_s * 1e6)) % (2**62)


def _noise_bank(
    n_values: int, sigma: float, seed: int
) -> tuple[NDArray[np.uint8], NDArray[np.uint8]] | None:
    """Sensor noise for any frame: a bank 1.5 frames long, read from a random offset.

    Held as its positive and negative parts, each uint8, so it can be applied with two
    saturating adds.
    """
    if sigma <= 0:
        return None
    rng = np.random.default_rng([seed, 1])
    size = n_values + n_values // 2
    noise = np.clip(np.round(rng.standard_normal(size, dtype=np.float32) * sigma), -255, 255)
    return np.maximum(noise, 0).astype(np.uint8), np.maximum(-noise, 0).astype(np.uint8)
