"""The pitch model in millimetres: every line as a band, the goals and the zones.

Pitch frame (DESIGN.md section 3): origin at the centre spot, +x toward the *right* goal line
(the away team's goal when home plays left), +y across toward the top of the image, z up.
Ends are named ``left`` (x < 0) and ``right`` (x > 0), sides ``top`` (y > 0) and ``bottom``.

Each line is a band around its nominal centre geometry (a straight segment or an arc). Its two
edges are stored as signed offsets from that centre along the line's normal, so calibration can
replace the nominal edges with the ones measured on a real cloth (``Pitch.with_measured_edges``)
while everything else keeps working. All distance functions are vectorised over ``(n, 2)``
arrays of points.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rules.profile import TableProfile

Shape = Literal["segment", "arc"]
END_SIGN = {"left": -1.0, "right": 1.0}
SIDE_SIGN = {"bottom": -1.0, "top": 1.0}


def as_points(xy_mm: ArrayLike) -> NDArray[np.float64]:
    """Return points as a float64 ``(n, 2)`` array; a single point ``(2,)`` becomes ``(1, 2)``."""
    pts = np.asarray(xy_mm, dtype=np.float64)
    if pts.ndim == 1:
        pts = pts[None, :]
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"expected points of shape (n, 2), got {pts.shape}")
    return pts


@dataclass(frozen=True, slots=True)
class LineBand:
    """One painted line: centre geometry, normal and the two edges.

    A segment runs from ``a_mm`` to ``b_mm``; its normal is the direction turned +90 degrees.
    An arc is centred on ``a_mm`` with ``radius_mm``, sweeping ``sweep_rad`` counter-clockwise
    from ``start_rad``; its normal points away from the centre. A spot is an arc of radius 0.
    ``inner_mm`` < ``outer_mm`` are the edges as offsets along the normal (nominally +-width/2).
    """

    name: str
    kind: str
    shape: Shape
    a_mm: tuple[float, float]
    b_mm: tuple[float, float] = (0.0, 0.0)
    radius_mm: float = 0.0
    start_rad: float = 0.0
    sweep_rad: float = 2.0 * math.pi
    inner_mm: float = -1.5
    outer_mm: float = 1.5

    @property
    def width_mm(self) -> float:
        return self.outer_mm - self.inner_mm

    @property
    def length_mm(self) -> float:
        """Length of the centre geometry (segment length or arc length)."""
        if self.shape == "segment":
            return float(math.dist(self.a_mm, self.b_mm))
        return self.radius_mm * self.sweep_rad

    def offset_mm(self, xy_mm: ArrayLike) -> NDArray[np.float64]:
        """Signed distance ``(n,)`` from the centre geometry along the normal (+ on normal side)."""
        p = as_points(xy_mm) - np.asarray(self.a_mm)
        if self.shape == "segment":
            d = self._direction()
            return p[:, 0] * -d[1] + p[:, 1] * d[0]
        return np.hypot(p[:, 0], p[:, 1]) - self.radius_mm

    def along_mm(self, xy_mm: ArrayLike) -> NDArray[np.float64]:
        """Position ``(n,)`` of the foot point along the line, from 0 to ``length_mm``."""
        p = as_points(xy_mm) - np.asarray(self.a_mm)
        if self.shape == "segment":
            d = self._direction()
            return p[:, 0] * d[0] + p[:, 1] * d[1]
        angle = np.mod(np.arctan2(p[:, 1], p[:, 0]) - self.start_rad, 2.0 * math.pi)
        return angle * self.radius_mm

    def within_extent(self, xy_mm: ArrayLike) -> NDArray[np.bool_]:
        """Whether each point's foot point falls on the line (between its ends)."""
        s = self.along_mm(xy_mm)
        if self.shape == "arc" and self.sweep_rad >= 2.0 * math.pi - 1e-12:
            return np.ones(s.shape, dtype=bool)
        return (s >= 0.0) & (s <= self.length_mm)

    def beyond_edge_mm(self, xy_mm: ArrayLike, side: float) -> NDArray[np.float64]:
        """Signed distance ``(n,)`` past the edge on ``side`` (+1 normal side, -1 the other).

        Positive means the point lies beyond that edge, away from the line.
        """
        off = self.offset_mm(xy_mm)
        return off - self.outer_mm if side > 0 else self.inner_mm - off

    def paint_distance_mm(self, xy_mm: ArrayLike) -> NDArray[np.float64]:
        """Distance ``(n,)`` outside the painted band (<= 0 on paint); flat caps at the ends."""
        off = self.offset_mm(xy_mm)
        half = 0.5 * self.width_mm
        across = np.abs(off - 0.5 * (self.inner_mm + self.outer_mm)) - half
        if self.shape == "arc" and self.sweep_rad >= 2.0 * math.pi - 1e-12:
            return across
        s = self.along_mm(xy_mm)
        if self.shape == "arc":
            # Angles just before the start wrap to near 2*pi: measure them as negative.
            full = 2.0 * math.pi * self.radius_mm
            s = np.where(s > 0.5 * (self.length_mm + full), s - full, s)
        beyond_end = np.maximum(-s, s - self.length_mm)
        return np.maximum(across, beyond_end)

    def _direction(self) -> NDArray[np.float64]:
        d = np.subtract(self.b_mm, self.a_mm)
        return d / np.hypot(d[0], d[1])


@dataclass(frozen=True, slots=True)
class Zone:
    """A region bounded by lines: inside each bound's edge on the given side.

    ``bounds`` holds ``(line name, side)``: the zone lies beyond that line's edge on ``side``.
    The lines themselves belong to no zone (DESIGN.md section 3).
    """

    name: str
    bounds: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class GoalMouth:
    """The goal behind a goal line: the space between the posts' inner faces, in mm."""

    end: str
    x_line_mm: float  # outer edge of the goal line, where the goal begins
    x_back_mm: float  # back of the net
    y_min_mm: float
    y_max_mm: float

    @property
    def outward(self) -> float:
        """+1 for the goal beyond +x, -1 for the one beyond -x."""
        return 1.0 if self.x_back_mm > self.x_line_mm else -1.0


@dataclass(frozen=True, slots=True)
class Pitch:
    """All lines, zones and goals of one table, built from its profile."""

    profile: TableProfile
    lines: tuple[LineBand, ...]
    zones: tuple[Zone, ...]
    goals: tuple[GoalMouth, ...]

    @classmethod
    def from_profile(cls, profile: TableProfile) -> Pitch:
        lines = tuple(_build_lines(profile))
        return cls(profile, lines, tuple(_build_zones()), tuple(_build_goals(profile)))

    def line(self, name: str) -> LineBand:
        for band in self.lines:
            if band.name == name:
                return band
        raise KeyError(f"no line {name!r}; lines are {[b.name for b in self.lines]}")

    def zone(self, name: str) -> Zone:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise KeyError(f"no zone {name!r}; zones are {[z.name for z in self.zones]}")

    def goal(self, end: str) -> GoalMouth:
        return next(g for g in self.goals if g.end == end)

    def posts_x_mm(self, goal: GoalMouth) -> float:
        """x of the axis the posts and crossbar stand on: the goal line's centre."""
        return goal.x_line_mm - goal.outward * 0.5 * self.profile.line_width_mm

    def lines_of_kind(self, kind: str) -> tuple[LineBand, ...]:
        return tuple(b for b in self.lines if b.kind == kind)

    def with_measured_edges(self, edges_mm: Mapping[str, tuple[float, float]]) -> Pitch:
        """Replace the nominal edges of the named lines by measured ``(inner, outer)`` offsets."""
        unknown = set(edges_mm) - {b.name for b in self.lines}
        if unknown:
            raise KeyError(f"measured edges for unknown lines {sorted(unknown)}")
        lines = tuple(
            replace(b, inner_mm=float(edges_mm[b.name][0]), outer_mm=float(edges_mm[b.name][1]))
            if b.name in edges_mm
            else b
            for b in self.lines
        )
        return replace(self, lines=lines)

    def zone_margin_mm(self, zone: str | Zone, xy_mm: ArrayLike) -> NDArray[np.float64]:
        """Distance ``(n,)`` of each point inside the zone (min over its bounding edges).

        A footprint of radius r lies wholly inside when the margin exceeds r.
        """
        z = self.zone(zone) if isinstance(zone, str) else zone
        margins = [self.line(name).beyond_edge_mm(xy_mm, side) for name, side in z.bounds]
        return np.minimum.reduce(margins)

    def is_inside(self, zone: str, xy_mm: ArrayLike, radius_mm: float = 0.0) -> NDArray[np.bool_]:
        """Whether each footprint of ``radius_mm`` lies wholly inside the zone."""
        return self.zone_margin_mm(zone, xy_mm) > radius_mm

    def paint_distance_mm(self, xy_mm: ArrayLike) -> NDArray[np.float64]:
        """Distance ``(n,)`` from each point to the nearest paint (<= 0 on a line)."""
        return np.minimum.reduce([b.paint_distance_mm(xy_mm) for b in self.lines])

    @property
    def cloth_half_extent_mm(self) -> tuple[float, float]:
        """Half length and half width of the green cloth including its margin beyond the lines."""
        p = self.profile
        return 0.5 * p.length_mm + p.cloth_margin_mm, 0.5 * p.width_mm + p.cloth_margin_mm

    def key_points_mm(self) -> NDArray[np.float64]:
        """Points on line centres ``(n, 2)``: corners and crossings of the main lines."""
        return np.array([_point_on(b, f) for b in self.lines for f in (0.0, 0.5, 1.0)])


def _point_on(band: LineBand, fraction: float) -> tuple[float, float]:
    if band.shape == "segment":
        a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
        return tuple(a + fraction * (b - a))
    angle = band.start_rad + fraction * band.sweep_rad
    return (
        band.a_mm[0] + band.radius_mm * math.cos(angle),
        band.a_mm[1] + band.radius_mm * math.sin(angle),
    )


def _segment(name: str, kind: str, a, b, normal, half_w: float) -> LineBand:
    """A segment whose +90-degree normal agrees with ``normal`` (endpoints swapped if needed)."""
    d = np.subtract(b, a)
    if -d[1] * normal[0] + d[0] * normal[1] < 0:
        a, b = b, a
    return LineBand(name, kind, "segment", _pt(a), _pt(b), inner_mm=-half_w, outer_mm=half_w)


def _arc(name: str, kind: str, centre, radius, start, sweep, half_w: float) -> LineBand:
    return LineBand(
        name,
        kind,
        "arc",
        _pt(centre),
        radius_mm=float(radius),
        start_rad=float(start),
        sweep_rad=float(sweep),
        inner_mm=-half_w,
        outer_mm=half_w,
    )


def _pt(p: Iterable[float]) -> tuple[float, float]:
    x, y = p
    return float(x), float(y)


def _build_lines(p: TableProfile) -> Iterable[LineBand]:
    w = p.line_width_mm
    hw = 0.5 * w
    xl, yl = 0.5 * p.length_mm, 0.5 * p.width_mm  # outer edges of goal lines / touchlines
    gx, ty = xl - hw, yl - hw  # centres of goal lines / touchlines
    post_out = 0.5 * p.goal_mouth_width_mm + p.goal_post_width_mm

    for side, sy in SIDE_SIGN.items():
        yield _segment(f"touchline_{side}", "touchline", (-xl, sy * ty), (xl, sy * ty), (0, sy), hw)
    yield _segment("halfway_line", "halfway_line", (0, -ty), (0, ty), (1, 0), hw)
    yield _arc(
        "centre_circle", "centre_circle", (0, 0), p.centre_circle_radius_mm, 0.0, 2 * math.pi, hw
    )
    spot = 0.5 * p.spot_diameter_mm
    yield _arc("centre_spot", "centre_spot", (0, 0), 0.0, 0.0, 2 * math.pi, spot)

    for end, sx in END_SIGN.items():
        yield _segment(f"goal_line_{end}", "goal_line", (sx * gx, -yl), (sx * gx, yl), (sx, 0), hw)
        shoot_x = sx * (xl - p.shooting_line_from_goal_line_mm)
        yield _segment(
            f"shooting_line_{end}", "shooting_line", (shoot_x, -ty), (shoot_x, ty), (sx, 0), hw
        )
        for box, beyond, depth in (
            ("goal_area", p.goal_area_beyond_post_mm, p.goal_area_depth_mm),
            ("penalty_area", p.penalty_area_beyond_post_mm, p.penalty_area_depth_mm),
        ):
            front_x = sx * (xl - depth)
            side_y = post_out + beyond
            # Normals point into the box, so "inside" is the + side of every bounding line.
            yield _segment(
                f"{box}_front_{end}",
                box,
                (front_x, -side_y - hw),
                (front_x, side_y + hw),
                (sx, 0),
                hw,
            )
            for side, sy in SIDE_SIGN.items():
                yield _segment(
                    f"{box}_side_{end}_{side}",
                    box,
                    (front_x - sx * hw, sy * side_y),
                    (sx * gx, sy * side_y),
                    (0, -sy),
                    hw,
                )
        spot_x = sx * (xl - p.penalty_spot_from_goal_line_mm)
        yield _arc(f"penalty_spot_{end}", "penalty_spot", (spot_x, 0), 0.0, 0.0, 2 * math.pi, spot)
        # The arc is the part of the circle round the spot that lies outside the area.
        area_front_x = xl - p.penalty_area_depth_mm
        gap = (xl - p.penalty_spot_from_goal_line_mm) - area_front_x
        half = math.acos(min(1.0, (gap + hw) / p.penalty_arc_radius_mm))
        facing = math.pi if sx > 0 else 0.0
        yield _arc(
            f"penalty_arc_{end}",
            "penalty_arc",
            (spot_x, 0),
            p.penalty_arc_radius_mm,
            facing - half,
            2 * half,
            hw,
        )
        for side, sy in SIDE_SIGN.items():
            corner = (sx * xl, sy * yl)
            # Quarter circle reaching into the pitch from the outer corner.
            along_x, along_y = math.atan2(0.0, -sx), math.atan2(-sy, 0.0)
            start = along_x if sx * sy > 0 else along_y
            yield _arc(
                f"corner_arc_{end}_{side}",
                "corner_arc",
                corner,
                p.corner_arc_radius_mm,
                start,
                0.5 * math.pi,
                hw,
            )


def _build_zones() -> Iterable[Zone]:
    touch = (("touchline_top", -1.0), ("touchline_bottom", -1.0))
    for end, sx in END_SIGN.items():
        # Shooting zone: goal side of the shooting line, inside the goal line and touchlines.
        yield Zone(
            f"shooting_zone_{end}",
            ((f"shooting_line_{end}", 1.0), (f"goal_line_{end}", -1.0), *touch),
        )
        for box in ("goal_area", "penalty_area"):
            yield Zone(
                f"{box}_{end}",
                (
                    (f"{box}_front_{end}", 1.0),
                    (f"{box}_side_{end}_top", 1.0),
                    (f"{box}_side_{end}_bottom", 1.0),
                    (f"goal_line_{end}", -1.0),
                ),
            )
        yield Zone(f"half_{end}", (("halfway_line", sx), (f"goal_line_{end}", -1.0), *touch))
    yield Zone("playing_area", (("goal_line_left", -1.0), ("goal_line_right", -1.0), *touch))


def _build_goals(p: TableProfile) -> Iterable[GoalMouth]:
    xl = 0.5 * p.length_mm
    half_mouth = 0.5 * p.goal_mouth_width_mm
    for end, sx in END_SIGN.items():
        x0, x1 = sx * xl, sx * (xl + p.goal_depth_mm)
        yield GoalMouth(end, x0, x1, -half_mouth, half_mouth)
