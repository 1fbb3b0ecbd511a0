"""Geometry predicates shared by the rule sets, vectorised over ``(n, 2)`` points in mm.

Sign conventions (DESIGN.md section 3):

- *fully crossed margin*: the distance from a footprint's nearest point to a line's far edge,
  ``> 0`` when green cloth shows between footprint and line (the footprint is wholly beyond).
- boundary lines (touchlines, goal lines) have their normal pointing out of the pitch, so
  "beyond" means out; a shooting line's normal points toward its goal, so "beyond" means inside
  the shooting zone.
- *distance to a goal line* is measured from the part of an object nearest that line (offside
  geometry), to the line's field-side edge.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rules.pitch import END_SIGN, LineBand, Pitch, as_points

BOUNDARY_LINES = ("touchline_top", "touchline_bottom", "goal_line_left", "goal_line_right")


def other_end(end: str) -> str:
    return "right" if end == "left" else "left"


def crossed_margin_mm(
    band: LineBand, xy_mm: ArrayLike, radius_mm: float | ArrayLike, side: float = 1.0
) -> NDArray[np.float64]:
    """Fully-crossed margin ``(n,)`` of footprints of ``radius_mm`` past ``band`` on ``side``.

    ``side`` is +1 for the line's normal side (out of the pitch for boundary lines), -1 for the
    other. > 0: wholly beyond the far edge; the footprint touches the paint when it lies in
    ``(-(width + 2 r), 0]``.
    """
    return band.beyond_edge_mm(xy_mm, side) - np.asarray(radius_mm, dtype=np.float64)


def is_fully_crossed(
    band: LineBand, xy_mm: ArrayLike, radius_mm: float | ArrayLike, side: float = 1.0
) -> NDArray[np.bool_]:
    """Whether green cloth shows between each footprint and the line (general guideline)."""
    return crossed_margin_mm(band, xy_mm, radius_mm, side) > 0.0


def boundary_margins_mm(pitch: Pitch, xy_mm: ArrayLike, radius_mm: float) -> dict[str, float]:
    """Out margin of one footprint over each boundary line, by line name."""
    pts = as_points(xy_mm)[:1]
    return {
        name: float(crossed_margin_mm(pitch.line(name), pts, radius_mm)[0])
        for name in BOUNDARY_LINES
    }


def is_between_posts(pitch: Pitch, end: str, xy_mm: ArrayLike) -> NDArray[np.bool_]:
    """Whether each point lies across the goal mouth of ``end`` (between the posts' inner faces).

    Only ``y`` is tested; combine with the goal-line margin for "in the goal".
    """
    goal = pitch.goal(end)
    y = as_points(xy_mm)[:, 1]
    return (y > goal.y_min_mm) & (y < goal.y_max_mm)


def goal_margin_mm(pitch: Pitch, end: str, xy_mm: ArrayLike, radius_mm: float):
    """Fully-crossed margin ``(n,)`` of footprints over the goal line of ``end``."""
    return crossed_margin_mm(pitch.line(f"goal_line_{end}"), xy_mm, radius_mm)


def is_goal_over(pitch: Pitch, end: str, xy_mm: ArrayLike, radius_mm: float) -> NDArray[np.bool_]:
    """Whether each ball is wholly over the goal line of ``end`` between the posts (FISTF 7.1)."""
    return is_between_posts(pitch, end, xy_mm) & (goal_margin_mm(pitch, end, xy_mm, radius_mm) > 0)


def shooting_margin_mm(
    pitch: Pitch, end: str, xy_mm: ArrayLike, radius_mm: float
) -> NDArray[np.float64]:
    """Margin ``(n,)`` of footprints wholly inside the shooting zone at ``end`` (> 0: inside).

    The deciding bound is almost always the shooting line, but the touchlines and the goal line
    bound the zone too.
    """
    return pitch.zone_margin_mm(f"shooting_zone_{end}", xy_mm) - radius_mm


def goal_line_distance_mm(
    pitch: Pitch, end: str, xy_mm: ArrayLike, radius_mm: float | ArrayLike
) -> NDArray[np.float64]:
    """Distance ``(n,)`` from each footprint's nearest part to the field-side edge of the goal
    line of ``end`` (offside geometry; negative once it reaches onto the line)."""
    band = pitch.line(f"goal_line_{end}")
    return band.beyond_edge_mm(xy_mm, -1.0) - np.asarray(radius_mm, dtype=np.float64)


def quarter_index(pitch: Pitch, xy_mm: ArrayLike) -> NDArray[np.int64]:
    """Quarter of the field ``(n,)``, 0..3 from the left goal line (FISTF 14.1.2).

    The quarters are split at the halfway line and at L/4 from each goal line (where the
    shooting lines lie on the shipped tables).
    """
    half_l = 0.5 * pitch.profile.length_mm
    x = as_points(xy_mm)[:, 0]
    return np.clip(np.floor((x + half_l) / (0.5 * half_l)), 0, 3).astype(np.int64)


def edge_gap_mm(
    a_xy_mm: ArrayLike, a_radius_mm: float | ArrayLike, b_xy_mm: ArrayLike, b_radius_mm: float
) -> NDArray[np.float64]:
    """Gap ``(n,)`` between footprints (nearest points), negative when they overlap."""
    d = np.hypot(*(as_points(a_xy_mm) - as_points(b_xy_mm)).T)
    return d - np.asarray(a_radius_mm, dtype=np.float64) - b_radius_mm


def zone_overlap_margin_mm(
    pitch: Pitch, zone: str, xy_mm: ArrayLike, radius_mm: float | ArrayLike
) -> NDArray[np.float64]:
    """How far ``(n,)`` footprints reach into a zone *or onto its lines* (> 0: they do).

    FISTF 15.2 and 12.2 keep figures out of the area and off its line: a footprint is clear
    when it lies wholly beyond the outer edges of the bounding lines. Measured along the
    bounding lines' normals, which is exact for the rectangular areas except near their
    outer corners, where it errs toward "touching".
    """
    z = pitch.zone(zone)
    width = max(pitch.line(name).width_mm for name, _ in z.bounds)
    return pitch.zone_margin_mm(z, xy_mm) + width + np.asarray(radius_mm, dtype=np.float64)


def attack_sign(end: str) -> float:
    """+1 when attacking the right goal (``end`` is the goal attacked), -1 for the left."""
    return END_SIGN[end]


def cloth_overrun_mm(pitch: Pitch, xy_mm: ArrayLike) -> NDArray[np.float64]:
    """How far ``(n,)`` points lie beyond the edge of the green cloth (> 0: off the cloth)."""
    hx, hy = pitch.cloth_half_extent_mm
    pts = as_points(xy_mm)
    return np.maximum(np.abs(pts[:, 0]) - hx, np.abs(pts[:, 1]) - hy)
