"""Offside geometry (FISTF 13.1, DESIGN.md section 3), the one place it is measured.

At the moment an attacking figure plays the ball forward, each figure of its team is compared
with the defenders' goal line: its base centre inside the shooting zone, its base nearer the
goal line than the ball, fewer than two defending figures (the goalkeeper counts) nearer than
its base, and the ball wholly inside the zone. ``offside_geometry`` measures every comparison
for every figure; the match reducer (``rules.fistf_play``) judges the play with it, and the
review page asks it about any frame (``web.geometry``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.geometry import goal_line_distance_mm, shooting_margin_mm
from rules.observation import Figures
from rules.pitch import Pitch

__all__ = ["OffsideGeometry", "offside_geometry"]


@dataclass(frozen=True, slots=True)
class OffsideGeometry:
    """The offside comparisons of n figures toward one goal, mm.

    Attributes:
        ball_zone_margin_mm: the ball's footprint past the shooting line (> 0: wholly inside).
        ball_to_goal_line_mm: from the ball's footprint to the goal line.
        zone_margin_mm: (n,) each base centre past the shooting line (> 0: inside the zone).
        to_goal_line_mm: (n,) from each base's rim (a keeper's footprint) to the goal line.
        defenders_nearer: (n,) defending figures nearer the goal line than the base.
        margin_mm: (n,) the tightest of the four comparisons (> 0: in an offside position).
    """

    ball_zone_margin_mm: float
    ball_to_goal_line_mm: float
    zone_margin_mm: NDArray[np.float64]
    to_goal_line_mm: NDArray[np.float64]
    defenders_nearer: NDArray[np.int64]
    margin_mm: NDArray[np.float64]


def offside_geometry(
    pitch: Pitch,
    end: str,
    figures: Figures,
    attacking: int,
    ball_xy_mm: tuple[float, float],
    ball_radius_mm: float,
) -> OffsideGeometry:
    """Measure FISTF 13.1 for every figure with the ball at ``ball_xy_mm``, ``attacking``
    (a team of ``figures.team``) toward the goal at ``end``."""
    ball_in = float(shooting_margin_mm(pitch, end, ball_xy_mm, ball_radius_mm)[0])
    d_ball = float(goal_line_distance_mm(pitch, end, ball_xy_mm, ball_radius_mm)[0])
    if len(figures) == 0:
        empty = np.zeros(0)
        return OffsideGeometry(ball_in, d_ball, empty, empty, np.zeros(0, np.int64), empty)
    d_fig = goal_line_distance_mm(pitch, end, figures.xy_mm, figures.radius_mm)
    zone = shooting_margin_mm(pitch, end, figures.xy_mm, 0.0)
    defenders = figures.team != attacking
    d_def = np.sort(d_fig[defenders])
    second = d_def[1] if len(d_def) >= 2 else np.inf
    margins = np.minimum.reduce(
        [zone, d_ball - d_fig, second - d_fig, np.full(len(figures), ball_in)]
    )
    nearer = (d_fig[defenders][None, :] < d_fig[:, None]).sum(axis=1)
    return OffsideGeometry(ball_in, d_ball, zone, d_fig, nearer, margins)
