"""Render overhead camera frames of a simulated table with exact geometry.

The static layers (cloth, lines, table frame, light, goals; ``render_static``, ``render_goals``)
are rendered once by inverse mapping of every pixel's ray. Figures at rest are ray cast into a
cached copy of that background and re-drawn only when one of them moves. Per frame, every
moving thing (the ball, moving figures, fingers) is ray cast in a small window around it,
supersampled for anti-aliasing, depth-tested against the other objects and the goals in that
window, and motion-blurred by averaging renders over the exposure; then sensor noise is added.
Ground truth is the ``SceneFrame`` itself: pixels are drawn from it and nothing else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from hardware.look import Look
from hardware.render_goals import GoalLayer, goal_layer
from hardware.render_objects import Solid, ball_solid, figure_solid, finger_solid
from hardware.render_shapes import Light, cast, pixel_box, sample_rays
from hardware.render_static import PixelMap, cloth_layer
from hardware.scene import SceneFrame
from rules.pitch import Pitch

Window = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive) in pixels
_MAX_TIME_SAMPLES = 32
_FIGURE_SAMPLES = 3
_BALL_SAMPLES = 4
DEFAULT_LOOK = Look()  # frozen, so one shared default is safe


@dataclass(frozen=True, slots=True)
class _Moving:
    """One moving (or per-frame) object: its solid at each time sample of the exposure."""

    solids: tuple[Solid, ...]
    window: Window
    samples: int  # supersampling per pixel side


class Renderer:
    """Draws ``SceneFrame``s as a camera over the table would see them.

    Args:
        camera: the camera model; frames have its ``size_px``.
        pitch: the table's pitch model (lines, goals, ball and base sizes).
        look: colours, light, noise.
        seed: fixes the cloth texture and the sensor noise; the same seed and scene frame
            always give the same picture.
        exposure_s: shutter time; moving objects are blurred over it.
    """

    def __init__(
        self,
        camera: CameraModel,
        pitch: Pitch,
        look: Look = DEFAULT_LOOK,
        *,
        seed: int = 0,
        exposure_s: float = 1 / 120,
    ) -> None:
        if exposure_s < 0:
            raise ValueError(f"exposure_s must be >= 0, got {exposure_s}")
        self.camera, self.pitch, self.look = camera, pitch, look
        self.seed, self.exposure_s = seed, exposure_s
        self._light = Light.overhead(look.ambient, look.shading, look.specular)
        self._pix = PixelMap.build(camera, pitch, look)
        self._cloth = cloth_layer(self._pix, pitch, look, seed)
        self._goals: GoalLayer = goal_layer(camera, pitch, look, self._pix.gain)
        empty = self._goals.premul + (1.0 - self._goals.alpha[..., None]) * self._cloth
        self._static = _to_u8(empty)
        self._resting: dict[tuple, tuple[Solid, Window]] = {}
        w, h = camera.size_px
        self._n_values = w * h * 3
        self._noise = _noise_bank(self._n_values, look.noise_sigma, seed)

    # ------------------------------------------------------------------ public
    def render(self, scene: SceneFrame) -> NDArray[np.uint8]:
        """The camera frame of ``scene``: ``(h, w, 3)`` uint8 BGR, h, w from ``camera.size_px``."""
        resting, moving = self._split(scene)
        self._update_resting(resting)
        frame = self._static.copy()
        for window, members in _clusters(moving):
            x0, y0, x1, y1 = window
            statics = [s for s, win in self._resting.values() if _overlap(win, window)]
            frame[y0:y1, x0:x1] = _to_u8(self._compose(window, statics, members))
        if self._noise is not None:
            rng = np.random.default_rng([self.seed, _time_key(scene.t_s)])
            off = int(rng.integers(0, len(self._noise) - self._n_values + 1))
            noise = self._noise[off : off + self._n_values].reshape(frame.shape)
            cv2.add(frame, noise, dst=frame, dtype=cv2.CV_8U)
        return frame

    def background(self) -> NDArray[np.uint8]:
        """The empty table (no figures, no ball, no noise): ``(h, w, 3)`` uint8 BGR."""
        return _to_u8(self._goals.premul + (1.0 - self._goals.alpha[..., None]) * self._cloth)

    # ------------------------------------------------------------------ scene -> solids
    def _split(self, scene: SceneFrame) -> tuple[dict[tuple, Solid], list[_Moving]]:
        """Figures at rest (keyed by everything that shapes them) and the per-frame objects."""
        resting: dict[tuple, Solid] = {}
        moving: list[_Moving] = []
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
            window = self._window(solid)
            if window is not None:
                moving.append(_Moving((solid,), window, 2))
        return resting, [m for m in moving if m.window is not None]

    def _moving(self, make, xy: NDArray, v: NDArray, samples: int) -> _Moving:
        """Solids over the exposure, about one time sample per pixel of travel."""
        v = np.asarray(v, np.float64)
        travel_mm = float(np.hypot(*v)) * self.exposure_s
        k = 1
        if travel_mm > 0:
            scale = float(self.camera.mm_per_px(xy)[0])
            k = int(np.clip(math.ceil(1.5 * travel_mm / scale), 1, _MAX_TIME_SAMPLES))
        dts = ((np.arange(k) + 0.5) / k - 0.5) * self.exposure_s
        solids = tuple(make(xy + dt * v) for dt in dts)
        if k > 1:
            ends = (make(xy - 0.5 * self.exposure_s * v), make(xy + 0.5 * self.exposure_s * v))
            window = _union(self._window(ends[0]), self._window(ends[1]))
            samples = 2 if k > 4 else 3
        else:
            window = self._window(solids[0])
        return _Moving(solids, window, samples)

    def _window(self, solid: Solid) -> Window | None:
        lo, hi = solid.bounds_mm()
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
            self._static[y0:y1, x0:x1] = _to_u8(self._compose(window, statics, []))

    # ------------------------------------------------------------------ drawing
    def _compose(
        self, window: Window, statics: list[Solid], moving: list[_Moving]
    ) -> NDArray[np.float32]:
        """Colour ``(h, w, 3)`` of a window: cloth, shadows, objects and goals, depth-tested."""
        x0, y0, x1, y1 = window
        w, h = x1 - x0, y1 - y0
        s = max([m.samples for m in moving], default=_FIGURE_SAMPLES)
        origin, dirs = sample_rays(self.camera, x0, y0, w, h, s)
        static_shapes = [shape for solid in statics for shape in solid.shapes]
        t_static, c_static = cast(static_shapes, origin, dirs, self._light)
        xs, ys = self._pix.x_mm[y0:y1, x0:x1], self._pix.y_mm[y0:y1, x0:x1]
        keep = np.ones((h, w), np.float32)  # light left on the cloth after contact shadows
        for solid in statics:
            keep *= 1.0 - self.look.shadow * solid.shadow.darkness(xs, ys)
        k = max([len(m.solids) for m in moving], default=0)
        if k == 0:
            colour, hits, depth = c_static, np.isfinite(t_static).astype(np.float32), t_static
        else:
            colour = np.zeros_like(c_static)
            hits = np.zeros(len(dirs), np.float32)
            depth = t_static.copy()
            keep_moving = np.zeros((h, w), np.float32)
            for i in range(k):
                solids = [m.solids[i * len(m.solids) // k] for m in moving]
                shapes = [shape for solid in solids for shape in solid.shapes]
                t_dyn, c_dyn = cast(shapes, origin, dirs, self._light)
                nearer = t_dyn < t_static
                colour += np.where(nearer[:, None], c_dyn, c_static)
                hits += np.isfinite(np.minimum(t_dyn, t_static))
                np.minimum(depth, t_dyn, out=depth)
                lit = np.ones((h, w), np.float32)
                for solid in solids:
                    lit *= 1.0 - self.look.shadow * solid.shadow.darkness(xs, ys)
                keep_moving += lit
            colour /= k
            hits /= k
            keep *= keep_moving / k
        return self._blend(window, s, colour, hits, depth, keep)

    def _blend(self, window: Window, s: int, colour, hits, depth, keep) -> NDArray[np.float32]:
        """Average the samples per pixel and lay them over cloth and under or over the goals."""
        x0, y0, x1, y1 = window
        w, h = x1 - x0, y1 - y0
        cover = hits.reshape(h, s, w, s).mean(axis=(1, 3))[..., None]
        obj = colour.reshape(h, s, w, s, 3).mean(axis=(1, 3))  # premultiplied by coverage
        obj *= self._pix.gain[y0:y1, x0:x1, None]
        obj_depth = depth.reshape(h, s, w, s).min(axis=(1, 3))
        cloth = self._cloth[y0:y1, x0:x1] * keep[..., None]
        g_alpha = self._goals.alpha[y0:y1, x0:x1, None]
        g_premul = self._goals.premul[y0:y1, x0:x1]
        goal_in_front = (self._goals.depth_mm[y0:y1, x0:x1] < obj_depth)[..., None]
        under_goal = g_premul + (1.0 - g_alpha) * (obj + (1.0 - cover) * cloth)
        over_goal = obj + (1.0 - cover) * (g_premul + (1.0 - g_alpha) * cloth)
        return np.where(goal_in_front, under_goal, over_goal)


def _clusters(moving: list[_Moving]) -> list[tuple[Window, list[_Moving]]]:
    """Group objects whose windows overlap, so they are drawn together and depth-tested."""
    groups: list[tuple[Window, list[_Moving]]] = [(m.window, [m]) for m in moving]
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


def _to_u8(img: NDArray[np.float32]) -> NDArray[np.uint8]:
    return np.clip(img + 0.5, 0.0, 255.0).astype(np.uint8)


def _time_key(t_s: float) -> int:
    return abs(round(t_s * 1e6)) % (2**62)


def _noise_bank(n_values: int, sigma: float, seed: int) -> NDArray[np.int8] | None:
    """Sensor noise for any frame: a bank 1.5 frames long, read from a random offset."""
    if sigma <= 0:
        return None
    rng = np.random.default_rng([seed, 1])
    size = n_values + n_values // 2
    noise = rng.standard_normal(size, dtype=np.float32) * sigma
    return np.clip(np.round(noise), -127, 127).astype(np.int8)
