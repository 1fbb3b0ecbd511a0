"""Which figures are the rod goalkeepers, from where they stand.

A goalkeeper wears its own kit, not its team's base colour, and stands on a rod in its goal
area, where field figures may not stand (FISTF 2.1). So the keeper of an end is the figure in
its goal area (or on its goal line in front of the net) nearest the middle of its goal mouth,
whichever kit vision read for it; the rules take its team from the goal it keeps
(``rules.fistf_ends.named``) and its footprint stands in for it in offside (13.1).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rules.geometry import is_goal_over
from rules.pitch import Pitch

KEEPER_REACH_MM = 15.0  # a goalkeeper may stand on its goal line, in front of the net

__all__ = ["KEEPER_REACH_MM", "in_a_goal", "rod_goalkeepers"]


def in_a_goal(pitch: Pitch, xy_mm: ArrayLike) -> NDArray[np.bool_]:
    """Which figures standing at ``xy_mm (n, 2)`` are centred in a goal, between its posts
    and farther behind its line than a keeper reaches: under its roof net, where no figure
    stands ``(n,)``."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    inside = np.zeros(len(xy), bool)
    for goal in pitch.goals:
        inside |= is_goal_over(pitch, goal.end, xy, KEEPER_REACH_MM)
    return inside


def rod_goalkeepers(pitch: Pitch, xy_mm: ArrayLike) -> NDArray[np.bool_]:
    """The rod goalkeeper at each end among figures standing at ``xy_mm`` (n, 2): (n,) bool,
    at most one per end and one end per figure."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    keeper = np.zeros(len(xy), bool)
    if len(xy) == 0:
        return keeper
    for end in ("left", "right"):
        inside = pitch.zone_margin_mm(f"goal_area_{end}", xy)
        inside = (inside > -KEEPER_REACH_MM) & ~keeper  # one figure keeps one goal
        if not inside.any():
            continue
        goal = pitch.goal(end)
        mouth = (goal.x_line_mm, 0.5 * (goal.y_min_mm + goal.y_max_mm))
        dist = np.hypot(xy[:, 0] - mouth[0], xy[:, 1] - mouth[1])
        keeper[int(np.argmin(np.where(inside, dist, np.inf)))] = True
    return keeper
