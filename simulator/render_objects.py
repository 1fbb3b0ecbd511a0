"""The solids of the moving things on a table: ball, figures (base and body), rod goalkeepers
(no base), fingers; for button football, buttons (flat discs) and keeper blocks.

Each object becomes a few shapes from ``render_shapes`` plus a soft contact shadow on the
cloth. Sizes of the ball and bases come from the table profile; the figure bodies are
proportioned like classic Subuteo figures (about 25 mm tall, shoulders about 13 mm wide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.pitch import Pitch
from simulator.look import Look
from simulator.render_shapes import Box, Capsule, Cylinder, Pattern, Shape, Sphere
from simulator.scene import HOME, Finger

# Figure body above the base top, mm.
_TORSO_HALF_DEPTH_MM = 3.8
_TORSO_HALF_WIDTH_MM = 6.8
_KEEPER_HALF_WIDTH_MM = 9.0  # arms out: the keeper is wider across
_TORSO_HEIGHT_MM = 15.0
_HEAD_RADIUS_MM = 3.2
_HEAD_ABOVE_BASE_MM = 18.0
_HAIR_SHADES = (1.0, 0.6, 2.6, 1.4, 0.8, 3.2)  # dark, black, blond, brown ... by figure id
_ROD_RADIUS_MM = 1.2
# A rod goalkeeper (no base): at most 39 mm high and 6 mm thick (FISTF circular 14-2014).
_KEEPER_HEIGHT_MM = 39.0
_KEEPER_THICKNESS_MM = 6.0
_KEEPER_LEGS_MM = 12.0  # dark shorts and socks below the shirt
_KEEPER_ROD_MM = 8.0  # height of the rod's axis


@dataclass(frozen=True, slots=True)
class Shadow:
    """Soft contact shadow on the cloth: full ``strength`` within ``r0_mm``, fading over
    ``fade_mm`` beyond it; drawn out ``stretch`` times along the direction ``axis_rad`` (a
    low light's long shadow)."""

    xy_mm: tuple[float, float]
    r0_mm: float
    fade_mm: float
    strength: float = 1.0
    stretch: float = 1.0
    axis_rad: float = 0.0

    def darkness(self, x_mm: NDArray, y_mm: NDArray) -> NDArray[np.float32]:
        dx, dy = x_mm - self.xy_mm[0], y_mm - self.xy_mm[1]
        if self.stretch != 1.0:
            c, s = math.cos(self.axis_rad), math.sin(self.axis_rad)
            dx, dy = (dx * c + dy * s) / self.stretch, -dx * s + dy * c
        d = np.hypot(dx, dy) - self.r0_mm
        dark = self.strength * np.exp(-((np.maximum(d, 0.0) / self.fade_mm) ** 2))
        return dark.astype(np.float32)

    @property
    def reach_mm(self) -> float:
        """Distance from ``xy_mm`` beyond which the shadow has faded to nothing."""
        return self.stretch * (self.r0_mm + 2.5 * self.fade_mm)


@dataclass(frozen=True, slots=True)
class Solid:
    """One object at one instant: its shapes and its contact shadow."""

    shapes: tuple[Shape, ...]
    shadow: Shadow

    def bounds_mm(self, shadow: bool = True) -> tuple[NDArray, NDArray]:
        """3D box holding the shapes (and the shadow), (3,) lo and hi in mm."""
        los, his = zip(*(s.bounds_mm() for s in self.shapes), strict=True)
        lo, hi = np.min(los, axis=0), np.max(his, axis=0)
        if not shadow:
            return lo, hi
        reach = self.shadow.reach_mm
        sx, sy = self.shadow.xy_mm
        lo[:2] = np.minimum(lo[:2], (sx - reach, sy - reach))
        hi[:2] = np.maximum(hi[:2], (sx + reach, sy + reach))
        lo[2] = min(lo[2], 0.0)
        return lo, hi


def ball_solid(xy_mm: NDArray, pitch: Pitch, look: Look) -> Solid:
    r = pitch.profile.ball_radius_mm
    x, y = float(xy_mm[0]), float(xy_mm[1])
    pattern = None
    if look.ball_pattern != "plain":
        pattern = Pattern(look.ball_pattern, _f(look.ball_mark_bgr), rolled(x, y, r))
    sphere = Sphere(
        (x, y, r),
        r,
        _f(look.ball_bgr),
        shiny=True,
        pattern=pattern,
        specular=look.ball_specular,
        gloss=look.ball_gloss,
    )
    return Solid((sphere,), cast_shadow(look, (x, y), r, 0.35 * r, 0.45 * r))


def rolled(x_mm: float, y_mm: float, r_mm: float) -> tuple[float, ...]:
    """The turn (pitch -> ball frame, 3 x 3 row major) of a ball rolled from the centre spot.

    Rolling along +x turns the ball about +y by x / r, along +y about -x by y / r; applied in
    that order, which is exact along either axis and close enough for marks elsewhere.
    """
    a, b = x_mm / r_mm, -y_mm / r_mm
    ry = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    rx = np.array([[1, 0, 0], [0, math.cos(b), -math.sin(b)], [0, math.sin(b), math.cos(b)]])
    return tuple((ry @ rx).T.ravel().tolist())


def cast_shadow(
    look: Look, xy_mm: tuple[float, float], height_mm: float, r0_mm: float, fade_mm: float
) -> Shadow:
    """The contact shadow of an object whose bulk stands ``height_mm`` above the cloth.

    Under the default overhead light it lies right under the object; under ``look.lights``
    it falls away from the strongest light, drawn out the lower that light stands.
    """
    fade = fade_mm * look.shadow_softness
    if look.lights is None:
        return Shadow(xy_mm, r0_mm, fade)
    az, el, _ = max(look.lights, key=lambda lamp: lamp[2])
    el_rad = math.radians(el)
    run = min(height_mm / math.tan(el_rad), 3.0 * height_mm)  # away from the light
    az_rad = math.radians(az)
    centre = (xy_mm[0] - run * math.cos(az_rad), xy_mm[1] - run * math.sin(az_rad))
    stretch = min(1.0 / math.sin(el_rad), 3.0)
    return Shadow(centre, r0_mm, fade, stretch=stretch, axis_rad=az_rad)


def figure_solid(
    xy_mm: NDArray, team: int, goalkeeper: bool, fig_id: int, pitch: Pitch, look: Look
) -> Solid:
    """A figure on its base, facing the goal it attacks (a little turned, by its id); a
    goalkeeper is a rod keeper (``_rod_keeper``). On a button-football table a figure is a
    button, a goalkeeper a keeper block (``button_solid``)."""
    if pitch.profile.game == "button-football":
        return button_solid(xy_mm, team, goalkeeper, pitch, look)
    if goalkeeper:
        return _rod_keeper(float(xy_mm[0]), float(xy_mm[1]), team, pitch, look)
    p = pitch.profile
    x, y = float(xy_mm[0]), float(xy_mm[1])
    rb, hb = p.base_radius_mm, p.base_height_mm
    base = Cylinder((x, y), rb, rb, 0.0, 0.0, hb, _f(look.base_bgr(team)))
    shadow = cast_shadow(look, (x, y), hb, rb, 2.0)
    if not look.figure_bodies:
        return Solid((base,), shadow)
    facing = 0.0 if team == HOME else math.pi
    yaw = facing + math.radians(((fig_id * 37) % 41) - 20)  # a fixed, varied stance per figure
    shirt = _f(look.shirt_bgr(team, False))
    torso = Cylinder(
        (x, y), _TORSO_HALF_DEPTH_MM, _TORSO_HALF_WIDTH_MM, yaw, hb, hb + _TORSO_HEIGHT_MM, shirt
    )
    shade = _HAIR_SHADES[fig_id % len(_HAIR_SHADES)]
    hair = tuple(min(255.0, c * shade) for c in _f(look.hair_bgr))
    head = Sphere((x, y, hb + _HEAD_ABOVE_BASE_MM), _HEAD_RADIUS_MM, hair, True)
    return Solid((base, torso, head), shadow)


def _rod_keeper(x: float, y: float, team: int, pitch: Pitch, look: Look) -> Solid:
    """A rod goalkeeper: no base, a flat figure standing on the cloth, facing the pitch, held
    by a rod from behind its goal (FISTF 8.1; its size: FISTF circular 14-2014 rule 5)."""
    p = pitch.profile
    a, b = 0.5 * _KEEPER_THICKNESS_MM, _KEEPER_HALF_WIDTH_MM
    legs = Cylinder((x, y), a, b, 0.0, 0.0, _KEEPER_LEGS_MM, _f(look.hair_bgr))
    shirt = _f(look.shirt_bgr(team, True))
    top = _KEEPER_HEIGHT_MM - 2.0 * _HEAD_RADIUS_MM
    body = Cylinder((x, y), a, b, 0.0, _KEEPER_LEGS_MM, top, shirt)
    head = Sphere((x, y, top + _HEAD_RADIUS_MM), _HEAD_RADIUS_MM, _f(look.hair_bgr), True)
    # The rod runs from the keeper's back out over its own goal line to behind the goal.
    home_end = -1.0 if team == HOME else 1.0
    behind = home_end * (0.5 * p.length_mm + p.goal_depth_mm + 0.5 * p.cloth_margin_mm)
    z = _KEEPER_ROD_MM
    rod = Capsule((x, y, z), (behind, y, z), _ROD_RADIUS_MM, _f(look.rod_bgr), True)
    shadow = cast_shadow(look, (x, y), 0.5 * _KEEPER_HEIGHT_MM, a, 2.0)  # a thin plate's
    return Solid((legs, body, head, rod), shadow)


def button_solid(xy_mm: NDArray, team: int, keeper: bool, pitch: Pitch, look: Look) -> Solid:
    """A button: a flat disc of the profile's size in the team's base colour with its shirt
    colour printed on the middle of its top; a keeper: a block in the keeper's shirt colour,
    its width across the goal mouth (sizes from the profile's ``[keeper]``)."""
    p = pitch.profile
    x, y = float(xy_mm[0]), float(xy_mm[1])
    if keeper:
        hw, hd = 0.5 * p.size_mm("keeper.width_mm"), 0.5 * p.size_mm("keeper.depth_mm")
        h = p.size_mm("keeper.height_mm")
        block = Box((x - hd, y - hw, 0.0), (x + hd, y + hw, h), _f(look.shirt_bgr(team, True)))
        return Solid((block,), cast_shadow(look, (x, y), 0.5 * h, hd, 2.0))
    r, h = p.base_radius_mm, p.base_height_mm
    disc = Cylinder((x, y), r, r, 0.0, 0.0, h, _f(look.base_bgr(team)))
    label = Cylinder((x, y), 0.55 * r, 0.55 * r, 0.0, h, h + 0.2, _f(look.shirt_bgr(team, False)))
    return Solid((disc, label), cast_shadow(look, (x, y), h, r, 2.0))


def finger_solid(finger: Finger, look: Look) -> Solid:
    capsule = Capsule(finger.tip_mm, finger.root_mm, finger.radius_mm, _f(look.skin_bgr))
    tip = finger.tip_mm
    # A finger casts a faint shadow only when it nearly touches the cloth.
    gap = max(tip[2] - finger.radius_mm, 0.0)
    strength = max(0.0, 1.0 - gap / 30.0)
    shadow = Shadow((tip[0], tip[1]), 0.5 * finger.radius_mm, 2.0 + 0.5 * gap, strength)
    return Solid((capsule,), shadow)


def _f(bgr: tuple[int, int, int]) -> tuple[float, float, float]:
    return (float(bgr[0]), float(bgr[1]), float(bgr[2]))
