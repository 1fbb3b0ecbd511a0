"""What decided a call, as shapes in pitch mm for the review page to draw on the frame.

- an offside call: the offside line through the second-last defender (parallel to the goal
  line, at that defender's distance from it, FISTF 13.1) and the figures compared: the
  attacker the call names and the two defenders nearest the goal line;
- a goal or a disallowed goal decided on the shooting line (FISTF 7.1): the shooting line of
  the goal attacked and the ball's footprint where the shot was taken, inside or outside.

Everything is measured with ``rules`` on the frame's tracks record, the same way the rules
measure it; the page projects the mm shapes to pixels through the calibrated camera.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules.geometry import goal_line_distance_mm, shooting_margin_mm
from rules.keepers import rod_goalkeepers
from rules.observation import Figures, team_code
from rules.pitch import Pitch

_OTHER_END = {"left": "right", "right": "left"}


def attacked_end(team: str, home_end: str) -> str:
    """The goal ``team`` attacks when home defends ``home_end`` (``left`` or ``right``)."""
    return _OTHER_END[home_end] if team == "home" else home_end


def _across_mm(pitch: Pitch, x_mm: float) -> NDArray[np.float64]:
    """A segment at ``x_mm`` across the pitch, touchline to touchline, (2, 2)."""
    half_w = pitch.profile.width_mm / 2
    return np.array([[x_mm, -half_w], [x_mm, half_w]])


def _x_at_goal_distance(pitch: Pitch, end: str, distance_mm: float) -> float:
    """The x of the points ``distance_mm`` from the goal line at ``end`` (it is straight,
    across the pitch): measured from the centre spot, whose distance the rules give."""
    sx = 1.0 if end == "right" else -1.0
    d0 = float(goal_line_distance_mm(pitch, end, np.zeros((1, 2)), 0.0)[0])
    return sx * (d0 - distance_mm)


def offside_shapes(
    pitch: Pitch, record: Mapping[str, Any], figure: Mapping[str, Any], home_end: str
) -> dict[str, Any] | None:
    """The offside line and the figures compared for the attacker ``figure`` of a call.

    Returns ``{"end", "line_mm": (2, 2), "compared": [{"id", "team", "role", "x_mm", "y_mm",
    "to_goal_line_mm"}]}``, or None when the frame has no such figure or too few defenders.
    """
    figures = list(record.get("figures") or [])
    team = figure.get("team")
    if team not in ("home", "away") or not figures:
        return None
    end = attacked_end(team, home_end)
    radius = pitch.profile.base_radius_mm
    figs = Figures.build(
        [f.get("id", i) for i, f in enumerate(figures)],
        [f["team"] for f in figures],
        [False] * len(figures),
        [(f["x_mm"], f["y_mm"]) for f in figures],
        radius,
    )
    figs = replace(figs, goalkeeper=rod_goalkeepers(pitch, figs.xy_mm))
    d_fig = goal_line_distance_mm(pitch, end, figs.xy_mm, figs.radius_mm)
    defenders = np.flatnonzero(figs.team != team_code(team))
    if len(defenders) < 2:
        return None
    nearest = defenders[np.argsort(d_fig[defenders])[:2]]
    attacker = _figure_index(figures, figure)
    if attacker is None:
        return None
    line_x = _x_at_goal_distance(pitch, end, float(d_fig[nearest[1]]))
    chosen = [(attacker, "attacker"), *[(int(i), "defender") for i in nearest]]
    return {
        "end": end,
        "line_mm": _across_mm(pitch, line_x),
        "compared": [
            {
                "id": figures[i].get("id"),
                "team": figures[i]["team"],
                "role": role,
                "x_mm": float(figures[i]["x_mm"]),
                "y_mm": float(figures[i]["y_mm"]),
                "to_goal_line_mm": round(float(d_fig[i]), 2),
            }
            for i, role in chosen
        ],
    }


def _figure_index(figures: list[Mapping[str, Any]], figure: Mapping[str, Any]) -> int | None:
    """The record's figure the call names: same id and team, else the nearest of that team
    to the call's position (tracks may renumber a figure between the call and this frame)."""
    for i, f in enumerate(figures):
        if f.get("id") == figure.get("id") and f.get("team") == figure.get("team"):
            return i
    if "x_mm" not in figure or "y_mm" not in figure:
        return None
    same = [i for i, f in enumerate(figures) if f.get("team") == figure.get("team")]
    if not same:
        return None
    xy = np.array([[figures[i]["x_mm"], figures[i]["y_mm"]] for i in same], dtype=np.float64)
    d = np.hypot(xy[:, 0] - figure["x_mm"], xy[:, 1] - figure["y_mm"])
    return same[int(np.argmin(d))]


def goal_end(call: Mapping[str, Any]) -> str | None:
    """The goal a goal call's ball went into: the end on the side of its position."""
    position = call.get("position") or {}
    x = position.get("x_mm") if isinstance(position, Mapping) else None
    if not isinstance(x, (int, float)) or x == 0:
        return None
    return "right" if x > 0 else "left"


def shot_frame(records: Iterable[Mapping[str, Any] | None]) -> Mapping[str, Any] | None:
    """The record the shot was taken from: walking back from a goal, the first with the ball
    at rest (a flick starts from a resting ball), or None."""
    for record in records:
        ball = (record or {}).get("ball")
        if ball and ball.get("moving") is False:
            return record
    return None


def shot_shapes(pitch: Pitch, end: str, shot_xy_mm: tuple[float, float]) -> dict[str, Any]:
    """The shooting line of the goal at ``end`` and the shot's ball footprint against it.

    ``inside`` and ``margin_mm`` are the rules' measure: the whole footprint on the goal side
    of the shooting line (FISTF 7.1).
    """
    radius = pitch.profile.ball_radius_mm
    margin = float(shooting_margin_mm(pitch, end, shot_xy_mm, radius)[0])
    band = pitch.line(f"shooting_line_{end}")
    return {
        "end": end,
        "line": band.name,
        "line_mm": np.array([band.a_mm, band.b_mm], dtype=np.float64),
        "ball_mm": (float(shot_xy_mm[0]), float(shot_xy_mm[1])),
        "inside": margin > 0,
        "margin_mm": round(margin, 2),
    }
