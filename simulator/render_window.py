"""Drawing objects into one window of a frame: supersampled rays, motion blur, depth tests.

A window is a small pixel rectangle around some objects. Its rays are cast at s x s samples
per pixel against every object in it; the nearest hit wins (a figure's body can hide the
ball), and the result is laid over the cloth (with the objects' contact shadows) and under or
over the goals' layer depending on which is nearer along the ray.

Moving objects are blurred over the exposure: an object only translates during it, so each
time sample is the same solid seen from a camera moved the other way, and all time samples of
an object are one batch of rays with shifted origins. Each time sample casts only the rays
near where the object is at that instant. A rolling shutter shifts each ray's origin further,
by how far the object moves between its own time and the time that ray's row is exposed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from simulator.look import Look
from simulator.render_goals import GoalLayer
from simulator.render_objects import Solid
from simulator.render_shapes import Light, cast
from simulator.render_static import PixelMap

Window = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive) in pixels


@dataclass(frozen=True, slots=True)
class Moving:
    """One per-frame object: its solid at mid-exposure and where it is at each time sample.

    Attributes:
        solid: the object at the frame's time.
        shifts_mm: (k, 2) offsets from that position at each of k time samples.
        window: pixels the object can touch during the exposure.
        first, last: pixels it touches at the first and the last time sample.
        samples: rays per pixel side (supersampling for anti-aliasing).
        v_mm_s: (2,) its velocity, for a rolling shutter's shear.
        t_ref_s: when (relative to the frame's time) ``solid`` is where it is drawn: the
            moment a rolling shutter exposes its rows.
        pad_px: how far its rows' shear can reach beyond the boxes ``first`` and ``last``.
    """

    solid: Solid
    shifts_mm: NDArray[np.float64]
    window: Window
    first: Window
    last: Window
    samples: int
    v_mm_s: NDArray[np.float64] = field(default_factory=lambda: np.zeros(2))
    t_ref_s: float = 0.0
    pad_px: int = 0


@dataclass(frozen=True, slots=True)
class Layers:
    """The static layers a window is composed over."""

    pix: PixelMap
    cloth: NDArray[np.float32]  # (h, w, 3) lit cloth, lines, frame and floor
    goals: GoalLayer
    light: Light
    look: Look
    tint: NDArray[np.float32] = field(default_factory=lambda: np.ones(3, np.float32))
    line_s: float = 0.0  # rolling shutter: time between the exposures of adjacent rows

    def row_dt_s(self, rows: NDArray, m: Moving) -> NDArray[np.float64] | None:
        """Time from ``m``'s own instant to the exposure of each of ``rows`` (px), or None
        without a rolling shutter or motion."""
        if self.line_s == 0.0 or not np.any(m.v_mm_s != 0.0):
            return None
        mid = 0.5 * (self.cloth.shape[0] - 1)
        return (rows - mid) * self.line_s - m.t_ref_s


def compose(
    layers: Layers, window: Window, statics: list[Solid], moving: list[Moving], samples: int
) -> NDArray[np.float32]:
    """Colour ``(h, w, 3)`` of a window: cloth, shadows, objects and goals, depth-tested."""
    x0, y0, x1, y1 = window
    w, h = x1 - x0, y1 - y0
    s = max([m.samples for m in moving], default=samples)
    dirs = layers.pix.sample_rays(x0, y0, w, h, s).reshape(-1, 3)
    origin = layers.pix.origin_mm
    shapes = [shape for solid in statics for shape in solid.shapes]
    t_static, c_static = cast(shapes, origin, dirs, layers.light)
    xs, ys = layers.pix.x_mm[y0:y1, x0:x1], layers.pix.y_mm[y0:y1, x0:x1]
    keep = np.ones((h, w), np.float32)  # light left on the cloth after contact shadows
    for solid in statics:
        keep *= 1.0 - layers.look.shadow * solid.shadow.darkness(xs, ys)
    if not moving:
        hits = np.isfinite(t_static).astype(np.float32)
        return _blend(layers, window, s, c_static, hits, t_static, keep)
    k = max(len(m.shifts_mm) for m in moving)
    flat, t_dyn, c_dyn = _cast_moving(layers, window, s, dirs, moving, k)
    lit = np.zeros((h, w), np.float32)
    for i in range(k):
        lit_i = np.ones((h, w), np.float32)
        for m in moving:
            sx, sy = m.shifts_mm[i * len(m.shifts_mm) // k]
            dt = layers.row_dt_s(np.arange(y0, y1, dtype=np.float64)[:, None], m)
            if dt is not None:  # a rolling shutter shears the shadow too
                sx, sy = sx + m.v_mm_s[0] * dt, sy + m.v_mm_s[1] * dt
            lit_i *= 1.0 - layers.look.shadow * m.solid.shadow.darkness(xs - sx, ys - sy)
        lit += lit_i
    # Per time sample and ray the nearer of the moving and the static objects is seen.
    ray = flat % len(dirs)
    nearer = t_dyn < t_static[ray]
    ray, t_dyn, c_dyn = ray[nearer], t_dyn[nearer], c_dyn[nearer]
    n_near = np.bincount(ray, minlength=len(dirs)).astype(np.float32)
    colour = c_static * (k - n_near)[:, None]
    for ch in range(3):
        colour[:, ch] += np.bincount(ray, weights=c_dyn[:, ch], minlength=len(dirs))
    hits = n_near + (k - n_near) * np.isfinite(t_static)
    depth = t_static.copy()
    np.minimum.at(depth, ray, t_dyn)
    return _blend(layers, window, s, colour / k, hits / k, depth, keep * lit / k)


def _cast_moving(
    layers: Layers, window: Window, s: int, dirs: NDArray, moving: list[Moving], k: int
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float32]]:
    """Nearest moving object per (time sample, ray): flat index k * n + ray, distance, colour.

    Only pairs that hit something are returned.
    """
    x0, y0, x1, y1 = window
    index = np.arange(len(dirs)).reshape((y1 - y0) * s, (x1 - x0) * s)
    flats, ts, cs = [], [], []
    for m in moving:
        sels, steps = [], []
        for i in range(k):
            j = i * len(m.shifts_mm) // k
            f = (j + 0.5) / len(m.shifts_mm)
            # Where the object is at this instant: between its first and last windows.
            box = [round(a + f * (b - a)) for a, b in zip(m.first, m.last, strict=True)]
            pad = 1 + m.pad_px
            bx0, by0 = max(box[0] - pad, x0) - x0, max(box[1] - pad, y0) - y0
            bx1, by1 = min(box[2] + pad, x1) - x0, min(box[3] + pad, y1) - y0
            sel = index[by0 * s : by1 * s, bx0 * s : bx1 * s].ravel()
            sels.append(sel)
            steps.append(np.full(len(sel), j))
        sel, step = np.concatenate(sels), np.concatenate(steps)
        shift = np.column_stack([m.shifts_mm[step], np.zeros(len(step))])
        dt = layers.row_dt_s(y0 + (sel // ((x1 - x0) * s) + 0.5) / s - 0.5, m)
        if dt is not None:
            shift[:, :2] += dt[:, None] * m.v_mm_s[None, :]
        t, c = cast(list(m.solid.shapes), layers.pix.origin_mm - shift, dirs[sel], layers.light)
        hit = np.isfinite(t)
        time_index = np.repeat(np.arange(k), [len(x) for x in sels])
        flats.append(time_index[hit] * len(dirs) + sel[hit])
        ts.append(t[hit])
        cs.append(c[hit])
    flat, t, c = np.concatenate(flats), np.concatenate(ts), np.concatenate(cs)
    if len(moving) > 1:  # objects overlap in the window: keep the nearest per pair
        order = np.lexsort((t, flat))
        flat, t, c = flat[order], t[order], c[order]
        first = np.r_[True, flat[1:] != flat[:-1]]
        flat, t, c = flat[first], t[first], c[first]
    return flat, t, c


def _blend(layers: Layers, window: Window, s: int, colour, hits, depth, keep):
    """Average the samples per pixel and lay them over cloth and under or over the goals."""
    x0, y0, x1, y1 = window
    w, h = x1 - x0, y1 - y0
    cover = hits.reshape(h, s, w, s).mean(axis=(1, 3))[..., None]
    obj = colour.reshape(h, s, w, s, 3).mean(axis=(1, 3))  # premultiplied by coverage
    obj *= layers.pix.gain[y0:y1, x0:x1, None] * layers.tint
    obj_depth = depth.reshape(h, s, w, s).min(axis=(1, 3))
    cloth = layers.cloth[y0:y1, x0:x1] * keep[..., None]
    goals = layers.goals
    g_alpha = goals.alpha[y0:y1, x0:x1, None]
    g_premul = goals.premul[y0:y1, x0:x1]
    goal_in_front = (goals.depth_mm[y0:y1, x0:x1] < obj_depth)[..., None]
    under_goal = g_premul + (1.0 - g_alpha) * (obj + (1.0 - cover) * cloth)
    over_goal = obj + (1.0 - cover) * (g_premul + (1.0 - g_alpha) * cloth)
    return np.where(goal_in_front, under_goal, over_goal)
