"""The two goals as a see-through layer: posts, crossbar, frame and nets, ray cast in 3D.

A goal stands behind its goal line: two posts of ``goal_post_width_mm`` on the line at the
mouth edges, a crossbar whose underside is at ``goal_height_mm``, a roof net at that height
over the whole goal, side and back nets, and a frame along the back. Nets are strings on a
square mesh, drawn with analytic coverage, so what lies under the roof net (a ball in the goal)
shows through between the strings. The layer is stored premultiplied with its alpha and the
distance to its nearest surface along each pixel's ray, so objects can be depth-tested
against it: the net hides a ball inside the goal but never a figure in front of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.pitch import GoalMouth, Pitch
from simulator.look import Look
from simulator.render_shapes import Light, pixel_box
from simulator.render_static import PixelMap

_BAR_MM = 3.0  # thickness of the frame tubes along the back
_STRING_MM = 0.6


@dataclass(frozen=True, slots=True)
class GoalLayer:
    """Premultiplied BGR ``(h, w, 3)``, alpha ``(h, w)`` and nearest distance ``(h, w)`` (mm)."""

    premul: NDArray[np.float32]
    alpha: NDArray[np.float32]
    depth_mm: NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class _Box:
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class _Net:
    axis: int  # the plane is {p[axis] = value}
    value: float
    lo: NDArray[np.float64]  # (3,) bounds of the net's extent
    hi: NDArray[np.float64]


def goal_layer(
    camera: CameraModel, pitch: Pitch, look: Look, pix: PixelMap, samples: int = 3
) -> GoalLayer:
    """Ray cast both goals with ``samples`` x ``samples`` rays per pixel."""
    w, h = camera.size_px
    premul = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    depth = np.full((h, w), np.inf, np.float32)
    light = Light.overhead(look.ambient, look.shading, 0.0)
    for goal in pitch.goals:
        boxes, nets = _goal_parts(pitch, goal)
        lo = np.min([b.lo for b in boxes], axis=0)
        hi = np.max([b.hi for b in boxes], axis=0)
        win = pixel_box(camera, lo, hi)
        if win is None:
            continue
        x0, y0, x1, y1 = win
        dirs = pix.sample_rays(x0, y0, x1 - x0, y1 - y0, samples).reshape(-1, 3)
        c, a, t = _cast_goal(pix.origin_mm, dirs, boxes, nets, look, light, camera.fx_px * samples)
        shape = (y1 - y0, samples, x1 - x0, samples)
        sl = np.s_[y0:y1, x0:x1]
        premul[sl] = c.reshape(*shape, 3).mean(axis=(1, 3)) * pix.gain[sl][..., None]
        alpha[sl] = a.reshape(shape).mean(axis=(1, 3))
        depth[sl] = t.reshape(shape).min(axis=(1, 3))
    return GoalLayer(premul, alpha, depth)


def _goal_parts(pitch: Pitch, goal: GoalMouth) -> tuple[list[_Box], list[_Net]]:
    p = pitch.profile
    sx = goal.outward
    pw, top = p.goal_post_width_mm, p.goal_height_mm
    line_x = pitch.posts_x_mm(goal)
    px = sorted((line_x - 0.5 * pw, line_x + 0.5 * pw))
    back = goal.x_back_mm
    bx = sorted((back - sx * _BAR_MM, back))
    y_lo, y_hi = goal.y_min_mm - pw, goal.y_max_mm + pw
    box = _box_of
    boxes = [
        box((px[0], goal.y_max_mm, 0.0), (px[1], y_hi, top + pw)),  # posts
        box((px[0], y_lo, 0.0), (px[1], goal.y_min_mm, top + pw)),
        box((px[0], y_lo, top), (px[1], y_hi, top + pw)),  # crossbar
        box((bx[0], y_lo, top - _BAR_MM), (bx[1], y_hi, top)),  # back top bar
        box((bx[0], y_lo, 0.0), (bx[1], y_hi, _BAR_MM)),  # back bottom bar
    ]
    inner_x = sorted((px[1] if sx > 0 else px[0], back))
    for y_side in ((goal.y_max_mm, y_hi), (y_lo, goal.y_min_mm)):  # side top bars
        boxes.append(box((inner_x[0], y_side[0], top - _BAR_MM), (inner_x[1], y_side[1], top)))
    nets = [
        _Net(2, top, np.array([inner_x[0], y_lo, top]), np.array([inner_x[1], y_hi, top])),
        _Net(0, back, np.array([back, y_lo, 0.0]), np.array([back, y_hi, top])),
        _Net(1, y_hi - 0.5 * pw, np.array([inner_x[0], 0, 0.0]), np.array([inner_x[1], 0, top])),
        _Net(1, y_lo + 0.5 * pw, np.array([inner_x[0], 0, 0.0]), np.array([inner_x[1], 0, top])),
    ]
    return boxes, nets


def _box_of(lo: tuple[float, ...], hi: tuple[float, ...]) -> _Box:
    return _Box(np.asarray(lo, np.float64), np.asarray(hi, np.float64))


def _cast_goal(origin, dirs, boxes, nets, look: Look, light: Light, px_per_rad: float):
    """Front-to-back composite of every goal surface: premul (n, 3), alpha (n,), depth (n,)."""
    ts, alphas, colours = [], [], []
    frame = np.asarray(look.goal_frame_bgr, np.float32)
    for b in boxes:
        t, normal_axis = _hit_box(origin, dirs, b)
        lam = np.abs(light.direction[normal_axis])  # |n . l| for an axis-aligned face
        diffuse = (1.0 - light.ambient) / light.direction[2]
        factor = 1.0 + light.shading * (light.ambient + diffuse * lam - 1.0)
        ts.append(t)
        alphas.append(np.isfinite(t).astype(np.float32))
        colours.append(frame * factor[:, None].astype(np.float32))
    net_colour = np.asarray(look.net_bgr, np.float32)
    for net in nets:
        t, a = _hit_net(origin, dirs, net, look, px_per_rad)
        ts.append(t)
        alphas.append(a)
        colours.append(np.broadcast_to(net_colour, (len(dirs), 3)))
    ts, alphas, colours = np.stack(ts), np.stack(alphas), np.stack(colours)
    order = np.argsort(ts, axis=0)
    premul = np.zeros((len(dirs), 3), np.float32)
    cover = np.zeros(len(dirs), np.float32)
    n = np.arange(len(dirs))
    for k in range(len(ts)):
        i = order[k]
        a = alphas[i, n] * (1.0 - cover)
        premul += a[:, None] * colours[i, n]
        cover += a
    visible = np.where(alphas > 0, ts, np.inf).min(axis=0)
    return premul, cover, visible.astype(np.float32)


def _hit_box(origin, dirs, box: _Box):
    """Slab test: distance (n,) to an axis-aligned box (inf if missed) and the face axis (n,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (box.lo - origin) / dirs
        t2 = (box.hi - origin) / dirs
    near = np.nan_to_num(np.minimum(t1, t2), nan=-np.inf)
    far = np.nan_to_num(np.maximum(t1, t2), nan=np.inf)
    t_in, t_out = near.max(axis=1), far.min(axis=1)
    hit = (t_out >= t_in) & (t_in > 0)
    return np.where(hit, t_in, np.inf), near.argmax(axis=1)


def _hit_net(origin, dirs, net: _Net, look: Look, px_per_rad: float):
    """Distance (n,) to a net plane within its extent, and the strings' coverage (n,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (net.value - origin[net.axis]) / dirs[:, net.axis]
    p = origin + np.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0)[:, None] * dirs
    inside = np.isfinite(t) & (t > 0)
    coverage = np.ones(len(dirs), np.float64)
    mesh = look.net_mesh_mm
    for axis in range(3):
        if axis == net.axis:
            continue
        inside &= (p[:, axis] >= net.lo[axis]) & (p[:, axis] <= net.hi[axis])
        # Footprint of one sample on the plane; strings finer than it average out.
        foot = t / px_per_rad / np.maximum(np.abs(dirs[:, net.axis]), 0.05)
        dist = np.abs(p[:, axis] - mesh * np.round(p[:, axis] / mesh))
        sharp = np.clip((0.5 * _STRING_MM - dist) / np.maximum(foot, 1e-6) + 0.5, 0.0, 1.0)
        blend = np.clip(np.nan_to_num(foot, nan=1e9) / (0.5 * mesh), 0.0, 1.0)
        coverage *= 1.0 - ((1.0 - blend) * sharp + blend * _STRING_MM / mesh)
    alpha = np.where(inside, look.net_opacity * (1.0 - coverage), 0.0).astype(np.float32)
    return np.where(inside, t, np.inf), alpha
