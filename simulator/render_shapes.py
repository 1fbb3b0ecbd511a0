"""Ray casting of the simple solids the simulator draws: spheres, upright cylinders, capsules,
upright boxes.

Every shape answers two vectorised questions for rays from one origin: how far along each unit
ray it is hit (``hit``: inf where missed), and its outward normal at given surface points
(``normal``). Lengths are millimetres in the pitch frame (z up); ray directions are unit vectors,
so every ``t`` is a true distance from the camera and shapes can be depth-tested against each
other directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel

Vec = NDArray[np.float64]  # (3,)
Rays = NDArray[np.float64]  # (n, 3) unit directions


@dataclass(frozen=True, slots=True)
class Pattern:
    """Marks painted on a ball: a second colour over part of its surface.

    ``kind`` is ``two_tone`` (one hemisphere), ``band`` (a stripe round its equator) or
    ``spots`` (six round patches, like the panels of a football). ``rotation`` (3 x 3, row
    major) turns pitch-frame directions into the ball's own frame, in which the marks are fixed.
    """

    kind: str
    colour: tuple[float, float, float]
    rotation: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)

    def marked(self, unit: Rays) -> NDArray[np.bool_]:
        """Which of the surface directions ``unit`` (n, 3), pitch frame, carry the mark."""
        local = unit @ np.asarray(self.rotation).reshape(3, 3).T
        if self.kind == "two_tone":
            return local[:, 2] < 0.0
        if self.kind == "band":
            return np.abs(local[:, 2]) < 0.3
        if self.kind == "spots":  # patches round the six axes, 20 degrees in radius
            return np.abs(local).max(axis=1) > math.cos(math.radians(20.0))
        raise ValueError(f"unknown ball pattern {self.kind!r}; use two_tone, band or spots")


@dataclass(frozen=True, slots=True)
class Sphere:
    """A sphere of ``radius_mm`` around ``centre_mm`` (x, y, z).

    ``specular`` (None: the light's) and ``gloss`` (the highlight's exponent: small is broad
    and dull, large is a small sharp spot) describe the surface of a shiny sphere; ``pattern``
    paints marks on it.
    """

    centre_mm: tuple[float, float, float]
    radius_mm: float
    colour: tuple[float, float, float]
    shiny: bool = True
    pattern: Pattern | None = None
    specular: float | None = None
    gloss: float = 40.0

    def hit(self, origin: Vec | Rays, dirs: Rays) -> NDArray[np.float64]:
        return _sphere_t(origin - np.asarray(self.centre_mm), dirs, self.radius_mm**2)

    def normal(self, points: Rays) -> Rays:
        return (points - np.asarray(self.centre_mm)) / self.radius_mm

    def albedo(self, points: Rays) -> NDArray[np.float32]:
        """Surface colour (n, 3) at ``points`` on the sphere."""
        colour = np.tile(np.asarray(self.colour, np.float32), (len(points), 1))
        if self.pattern is not None:
            colour[self.pattern.marked(self.normal(points))] = self.pattern.colour
        return colour

    def bounds_mm(self) -> tuple[Vec, Vec]:
        c, r = np.asarray(self.centre_mm), self.radius_mm
        return c - r, c + r


@dataclass(frozen=True, slots=True)
class Cylinder:
    """An upright elliptic cylinder from ``z0_mm`` to ``z1_mm`` with a flat top cap.

    The ellipse has semi-axis ``a_mm`` along the direction ``yaw_rad`` (from pitch +x) and
    ``b_mm`` across it. The bottom cap stands on something and is never seen from above.
    """

    centre_xy_mm: tuple[float, float]
    a_mm: float
    b_mm: float
    yaw_rad: float
    z0_mm: float
    z1_mm: float
    colour: tuple[float, float, float]
    shiny: bool = False

    def _local(self, v: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        return (v[..., 0] * c + v[..., 1] * s) / self.a_mm, (
            -v[..., 0] * s + v[..., 1] * c
        ) / self.b_mm

    def hit(self, origin: Vec | Rays, dirs: Rays) -> NDArray[np.float64]:
        o = origin - np.array([self.centre_xy_mm[0], self.centre_xy_mm[1], 0.0])
        oz = o[..., 2]
        ox, oy = self._local(o)
        dx, dy = self._local(dirs)
        a = dx * dx + dy * dy
        b = ox * dx + oy * dy
        disc = b * b - a * (ox * ox + oy * oy - 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            t_side = (-b - np.sqrt(disc)) / a
            z_side = oz + t_side * dirs[:, 2]
            t_side = np.where(
                (disc >= 0) & (t_side > 0) & (z_side >= self.z0_mm) & (z_side <= self.z1_mm),
                t_side,
                np.inf,
            )
            t_top = (self.z1_mm - oz) / dirs[:, 2]
        tx, ty = ox + t_top * dx, oy + t_top * dy
        t_top = np.where((t_top > 0) & (tx * tx + ty * ty <= 1.0), t_top, np.inf)
        return np.minimum(t_side, t_top)

    def normal(self, points: Rays) -> Rays:
        p = points - np.array([self.centre_xy_mm[0], self.centre_xy_mm[1], 0.0])
        lx, ly = self._local(p)
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        gx, gy = lx / self.a_mm, ly / self.b_mm  # gradient of the ellipse in the local frame
        n = np.stack([gx * c - gy * s, gx * s + gy * c, np.zeros_like(gx)], axis=1)
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
        on_top = p[:, 2] >= self.z1_mm - 1e-6
        n[on_top] = (0.0, 0.0, 1.0)
        return n

    def bounds_mm(self) -> tuple[Vec, Vec]:
        r = max(self.a_mm, self.b_mm)
        x, y = self.centre_xy_mm
        return np.array([x - r, y - r, self.z0_mm]), np.array([x + r, y + r, self.z1_mm])


@dataclass(frozen=True, slots=True)
class Capsule:
    """A capsule: all points within ``radius_mm`` of the segment ``p0_mm`` - ``p1_mm``."""

    p0_mm: tuple[float, float, float]
    p1_mm: tuple[float, float, float]
    radius_mm: float
    colour: tuple[float, float, float]
    shiny: bool = False

    def hit(self, origin: Vec | Rays, dirs: Rays) -> NDArray[np.float64]:
        pa, pb = np.asarray(self.p0_mm), np.asarray(self.p1_mm)
        ba, oa = pb - pa, origin - pa
        baba, baoa, oaoa = ba @ ba, oa @ ba, _dot(oa, oa)
        bard, rdoa = dirs @ ba, _dot(dirs, oa)
        r2 = self.radius_mm**2
        a = baba - bard * bard
        b = baba * rdoa - baoa * bard
        c = baba * oaoa - baoa * baoa - r2 * baba
        h = b * b - a * c
        with np.errstate(invalid="ignore", divide="ignore"):
            t_body = (-b - np.sqrt(h)) / a
            y = baoa + t_body * bard
            t_body = np.where((h >= 0) & (y > 0) & (y < baba) & (t_body > 0), t_body, np.inf)
            # Otherwise the ray may hit one of the end caps (spheres).
            t_caps = np.minimum(_sphere_t(oa, dirs, r2), _sphere_t(origin - pb, dirs, r2))
        return np.minimum(t_body, t_caps)

    def normal(self, points: Rays) -> Rays:
        pa, pb = np.asarray(self.p0_mm), np.asarray(self.p1_mm)
        ba = pb - pa
        s = np.clip((points - pa) @ ba / (ba @ ba), 0.0, 1.0)
        return (points - (pa + s[:, None] * ba)) / self.radius_mm

    def bounds_mm(self) -> tuple[Vec, Vec]:
        pa, pb = np.asarray(self.p0_mm), np.asarray(self.p1_mm)
        return np.minimum(pa, pb) - self.radius_mm, np.maximum(pa, pb) + self.radius_mm


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box from ``lo_mm`` to ``hi_mm`` (x, y, z): a button-football keeper block."""

    lo_mm: tuple[float, float, float]
    hi_mm: tuple[float, float, float]
    colour: tuple[float, float, float]
    shiny: bool = False

    def hit(self, origin: Vec | Rays, dirs: Rays) -> NDArray[np.float64]:
        """The slab test: the ray is inside all three slabs between ``t_near`` and ``t_far``."""
        lo, hi = np.asarray(self.lo_mm), np.asarray(self.hi_mm)
        with np.errstate(invalid="ignore", divide="ignore"):
            inv = 1.0 / dirs
            t1, t2 = (lo - origin) * inv, (hi - origin) * inv
        t1, t2 = np.nan_to_num(t1, nan=-np.inf), np.nan_to_num(t2, nan=np.inf)
        near = np.minimum(t1, t2).max(axis=1)
        far = np.maximum(t1, t2).min(axis=1)
        return np.where((near <= far) & (near > 0), near, np.inf)

    def normal(self, points: Rays) -> Rays:
        """The outward normal of the face each point lies on (the nearest face)."""
        lo, hi = np.asarray(self.lo_mm), np.asarray(self.hi_mm)
        centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        rel = (points - centre) / half
        axis = np.argmax(np.abs(rel), axis=1)
        n = np.zeros_like(points)
        n[np.arange(len(points)), axis] = np.sign(rel[np.arange(len(points)), axis])
        return n

    def bounds_mm(self) -> tuple[Vec, Vec]:
        return np.asarray(self.lo_mm, np.float64), np.asarray(self.hi_mm, np.float64)


Shape = Sphere | Cylinder | Capsule | Box


def _sphere_t(oc: Vec | Rays, dirs: Rays, r2: float) -> NDArray[np.float64]:
    """Distance along unit rays to a sphere, from ray origins at ``oc`` relative to its centre."""
    b = _dot(dirs, oc)
    disc = b * b - (_dot(oc, oc) - r2)
    with np.errstate(invalid="ignore"):
        t = -b - np.sqrt(disc)
    return np.where((disc >= 0.0) & (t > 0.0), t, np.inf)


def _dot(a: NDArray, b: NDArray) -> NDArray[np.float64]:
    """Row-wise dot product of (n, 3) or (3,) arrays."""
    if a.ndim == 2 and b.ndim == 2:
        return np.einsum("ij,ij->i", a, b)
    return a @ b


@dataclass(frozen=True, slots=True)
class Light:
    """Distant lights plus ambient light; a flat cloth facing up is lit to exactly 1.

    Attributes:
        directions: (k, 3) unit vectors toward each light.
        weights: (k,) share of each light in the directed light (they sum to 1).
        ambient: share of light that reaches every surface regardless of its normal.
        shading: strength of the shading (0 = flat colours).
        specular: strength of the highlights on shiny surfaces.
    """

    directions: NDArray[np.float64]
    weights: NDArray[np.float64]
    ambient: float
    shading: float
    specular: float

    @property
    def direction(self) -> Vec:
        """The strongest light's direction (3,)."""
        return self.directions[int(np.argmax(self.weights))]

    @classmethod
    def overhead(cls, ambient: float, shading: float, specular: float) -> Light:
        d = np.array([[-0.25, 0.3, 1.0]])
        return cls(d / np.linalg.norm(d), np.ones(1), ambient, shading, specular)

    @classmethod
    def of(
        cls,
        lamps: tuple[tuple[float, float, float], ...] | None,
        ambient: float,
        shading: float,
        specular: float,
    ) -> Light:
        """Lights from (azimuth_deg, elevation_deg, strength) triples; None: one overhead."""
        if lamps is None:
            return cls.overhead(ambient, shading, specular)
        az = np.radians([a for a, _, _ in lamps])
        el = np.radians([e for _, e, _ in lamps])
        d = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], axis=1)
        w = np.array([s for _, _, s in lamps], np.float64)
        return cls(d, w / w.sum(), ambient, shading, specular)


def cast(
    shapes: list[Shape], origin: Vec | Rays, dirs: Rays, light: Light
) -> tuple[NDArray[np.float64], NDArray[np.float32]]:
    """Nearest hit of each ray among ``shapes``: distance ``(n,)`` and shaded BGR ``(n, 3)``.

    ``origin`` is one point (3,) for all rays or one per ray (n, 3). Rays that miss every
    shape get distance inf and colour 0.
    """
    n = len(dirs)
    colour = np.zeros((n, 3), np.float32)
    if not shapes:
        return np.full(n, np.inf), colour
    ts = np.stack([s.hit(origin, dirs) for s in shapes])
    nearest = np.argmin(ts, axis=0)
    t = ts[nearest, np.arange(n)]
    for i, shape in enumerate(shapes):
        sel = np.flatnonzero((nearest == i) & np.isfinite(t))
        if len(sel) == 0:
            continue
        d = dirs[sel]
        o = origin[sel] if origin.ndim == 2 else origin
        points = o + t[sel, None] * d
        normals = shape.normal(points)
        sphere = isinstance(shape, Sphere)
        strength = light.specular if not sphere or shape.specular is None else shape.specular
        gloss = shape.gloss if sphere else 40.0
        factor, spec = _shade(light, normals, d, shape.shiny, strength, gloss)
        albedo = shape.albedo(points) if sphere else np.asarray(shape.colour, np.float32)
        colour[sel] = albedo * factor[:, None] + spec[:, None]
    return t, colour


def _shade(
    light: Light, normals: Rays, dirs: Rays, shiny: bool, specular: float, gloss: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Brightness factor (n,) and additive highlight (n,) in grey levels."""
    lam = np.maximum(normals @ light.directions.T, 0.0) @ light.weights
    # Scaled so that a surface facing straight up (the cloth) is lit to exactly 1.
    diffuse = (1.0 - light.ambient) / float(light.directions[:, 2] @ light.weights)
    factor = 1.0 + light.shading * (light.ambient + diffuse * lam - 1.0)
    spec = np.zeros_like(factor)
    if shiny and specular > 0 and light.shading > 0:
        for direction, weight in zip(light.directions, light.weights, strict=True):
            half = direction - dirs
            half /= np.linalg.norm(half, axis=1, keepdims=True)
            peak = np.maximum(np.einsum("ij,ij->i", normals, half), 0.0) ** gloss
            spec += light.shading * specular * weight * 255.0 * peak
    return factor, spec


def pixel_box(
    camera: CameraModel, lo: NDArray, hi: NDArray, margin: int = 2
) -> tuple[int, int, int, int] | None:
    """Pixel window ``(x0, y0, x1, y1)`` holding the projection of a 3D box, or None if off."""
    grid = np.stack(
        np.meshgrid(*[np.linspace(lo[i], hi[i], 4) for i in range(3)]), axis=-1
    ).reshape(-1, 3)
    px = camera.project(grid)
    w, h = camera.size_px
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - margin
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + margin + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    return None if x0 >= x1 or y0 >= y1 else (int(x0), int(y0), int(x1), int(y1))
