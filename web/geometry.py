"""Pitch geometry for the pages: lines to draw, overlays in pixels, and questions to the rules.

The pages draw everything client-side from JSON made here: the pitch lines in mm for the radar,
the same lines and the ball's footprint projected to pixels (through the calibrated camera) for
the review overlays, and the answers to "ask the rules about this frame", measured with the
``rules.pitch`` predicates on the frame's ``tracks.jsonl`` record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.calibration_file import Calibration
from calibration.camera import CameraModel
from calibration.tables import load_pitch
from rules.geometry import crossed_margin_mm
from rules.keepers import rod_goalkeepers
from rules.observation import Figures, team_code
from rules.offside import offside_geometry
from rules.pitch import LineBand, Pitch

ARC_STEP_RAD = math.radians(4.0)
# Lines whose normal points out of play or into the zone they bound: "over" means the + side.
_PLUS_SIDE_KINDS = ("touchline", "goal_line", "shooting_line", "goal_area", "penalty_area")
LAW_LINE = {"touchline": "FISTF 9", "goal_line": "FISTF 9", "shooting_line": "FISTF 12"}
LAW_OFFSIDE = "FISTF 13.1"


class QuestionError(ValueError):
    """A question to the rules names an unknown line, team or frame content."""


def pitch_for(table: str, calibration: Calibration | None = None) -> Pitch:
    """The pitch of ``table`` with the line edges that calibration measured, where it did."""
    pitch = load_pitch(table)
    return calibration.measured_pitch(pitch) if calibration is not None else pitch


def _names(pitch: Pitch) -> set[str]:
    return {b.name for b in pitch.lines}


def band_edges_mm(band: LineBand) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The two edges of a line as polylines ``(n, 2)`` in mm: (inner, outer)."""
    if band.shape == "segment":
        a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
        d = (b - a) / np.hypot(*(b - a))
        normal = np.array([-d[1], d[0]])
        ends = np.stack([a, b])
        return ends + band.inner_mm * normal, ends + band.outer_mm * normal
    steps = max(2, math.ceil(band.sweep_rad / ARC_STEP_RAD) + 1)
    angles = band.start_rad + np.linspace(0.0, band.sweep_rad, steps)
    unit = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    centre = np.asarray(band.a_mm)
    radius = band.radius_mm
    return centre + (radius + band.inner_mm) * unit, centre + (radius + band.outer_mm) * unit


def circle_mm(xy_mm: tuple[float, float], radius_mm: float, n: int = 32) -> NDArray[np.float64]:
    angles = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    return np.stack(
        [xy_mm[0] + radius_mm * np.cos(angles), xy_mm[1] + radius_mm * np.sin(angles)], 1
    )


def pitch_json(pitch: Pitch) -> dict[str, Any]:
    """Everything the radar draws, in mm: cloth, lines (spots as discs), goals, object sizes."""
    p = pitch.profile
    lines = []
    for band in pitch.lines:
        if band.shape == "arc" and band.radius_mm == 0.0:
            lines.append(
                {"name": band.name, "kind": band.kind, "disc": [*band.a_mm, band.outer_mm]}
            )
            continue
        inner, outer = band_edges_mm(band)
        lines.append({"name": band.name, "kind": band.kind, "inner": _r(inner), "outer": _r(outer)})
    half_x, half_y = pitch.cloth_half_extent_mm
    return {
        "table": p.name,
        "length_mm": p.length_mm,
        "width_mm": p.width_mm,
        "cloth_half_mm": [half_x, half_y],
        "ball_radius_mm": p.ball_radius_mm,
        "base_radius_mm": p.base_radius_mm,
        "lines": lines,
        "goals": [
            {"end": g.end, "x0": g.x_line_mm, "x1": g.x_back_mm, "y0": g.y_min_mm, "y1": g.y_max_mm}
            for g in pitch.goals
        ],
    }


def _r(points: NDArray[np.float64], digits: int = 2) -> list[list[float]]:
    return np.round(points, digits).tolist()


def project_mm(camera: CameraModel, xy_mm: NDArray[np.float64]) -> list[list[float]]:
    """Points on the cloth (z = 0) ``(n, 2)`` mm -> image pixels as nested lists."""
    xyz = np.column_stack([xy_mm, np.zeros(len(xy_mm))])
    return _r(camera.project(xyz), 1)


def lines_px(pitch: Pitch, camera: CameraModel) -> list[dict[str, Any]]:
    """Each line's measured edges projected into the image."""
    out = []
    for band in pitch.lines:
        if band.shape == "arc" and band.radius_mm == 0.0:
            continue
        inner, outer = band_edges_mm(band)
        out.append(
            {
                "name": band.name,
                "inner": project_mm(camera, inner),
                "outer": project_mm(camera, outer),
            }
        )
    return out


def far_side(band: LineBand, xy_mm: NDArray[np.float64]) -> float:
    """Which edge counts as "over": the + side for boundary lines, else the side the ball is on."""
    if band.kind in _PLUS_SIDE_KINDS:
        return 1.0
    centre = 0.5 * (band.inner_mm + band.outer_mm)
    return 1.0 if float(band.offset_mm(xy_mm)[0]) >= centre else -1.0


def nearest_band(pitch: Pitch, name_or_kind: str, xy_mm: NDArray[np.float64]) -> LineBand:
    """The line of that name, or the line of that kind nearest to the point."""
    if name_or_kind in _names(pitch):
        return pitch.line(name_or_kind)
    bands = pitch.lines_of_kind(name_or_kind)
    if not bands:
        kinds = sorted({b.kind for b in pitch.lines})
        raise QuestionError(f"no line {name_or_kind!r}: give a line name or one of {kinds}")
    return min(bands, key=lambda b: float(np.maximum(b.paint_distance_mm(xy_mm), 0.0)[0]))


def line_margin(pitch: Pitch, line: str, xy_mm: tuple[float, float]) -> dict[str, Any]:
    """The ball footprint's signed margin past a line's far edge (> 0: fully over), with points.

    Returns the line's name, the side, ``margin_mm``, and ``from_mm`` (the footprint's point
    nearest the line) and ``to_mm`` (the foot of that point on the far edge), for drawing.
    """
    xy = np.asarray([xy_mm], dtype=np.float64)
    band = nearest_band(pitch, line, xy)
    side = far_side(band, xy)
    radius = pitch.profile.ball_radius_mm
    margin = float(crossed_margin_mm(band, xy, radius, side)[0])
    normal = _normal_at(band, xy)
    near = xy[0] - side * radius * normal
    edge = (band.outer_mm if side > 0 else band.inner_mm) - float(band.offset_mm(xy)[0])
    foot = xy[0] + edge * normal
    return {
        "line": band.name,
        "kind": band.kind,
        "side": side,
        "margin_mm": round(margin, 3),
        "fully_over": margin > 0.0,
        "within_line_extent": bool(band.within_extent(xy)[0]),
        "from_mm": _r(near[None])[0],
        "to_mm": _r(foot[None])[0],
    }


def _normal_at(band: LineBand, xy: NDArray[np.float64]) -> NDArray[np.float64]:
    if band.shape == "segment":
        d = np.subtract(band.b_mm, band.a_mm)
        d = d / np.hypot(*d)
        return np.array([-d[1], d[0]])
    radial = xy[0] - np.asarray(band.a_mm)
    length = float(np.hypot(*radial))
    return radial / length if length > 0 else np.array([1.0, 0.0])


def ask(pitch: Pitch, record: Mapping[str, Any], question: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a question about one ``tracks.jsonl`` record with the pitch geometry.

    ``{"question": "fully_over", "line": NAME_OR_KIND}``: the ball's margin past the line's far
    edge. ``{"question": "offside", "attacking": "home"|"away", "home_end": "left"}``: the ball
    and each attacking figure against the defenders' shooting zone (FISTF 13.1 positions).

    Raises:
        QuestionError: unknown question or line, or no ball in the frame.
    """
    kind = question.get("question")
    if kind == "fully_over":
        line = question.get("line")
        if not isinstance(line, str) or not line:
            raise QuestionError("fully_over needs 'line': a line name or kind (e.g. goal_line)")
        ball = _ball(record)
        answer = line_margin(pitch, line, ball)
        law = LAW_LINE.get(answer["kind"])
        over = "fully over" if answer["fully_over"] else "not fully over"
        text = f"ball {over} {answer['line']}: margin {answer['margin_mm']:+.2f} mm to the far edge"
        return {
            "question": kind,
            "answer": answer["fully_over"],
            "law": law,
            "text": text,
            **answer,
        }
    if kind == "offside":
        return offside_positions(pitch, record, question)
    raise QuestionError(f"unknown question {kind!r}; ask 'fully_over' or 'offside'")


def _ball(record: Mapping[str, Any]) -> tuple[float, float]:
    ball = record.get("ball")
    if not ball:
        raise QuestionError(f"frame {record.get('frame')} has no ball position to measure")
    return float(ball["x_mm"]), float(ball["y_mm"])


def offside_positions(
    pitch: Pitch, record: Mapping[str, Any], question: Mapping[str, Any]
) -> dict[str, Any]:
    """FISTF 13.1 positions, as the rules measure them (``rules.offside``; the rod goalkeepers
    by ``rules.keepers``): ball wholly in the shooting zone, figures nearer the goal line."""
    attacking = question.get("attacking", "home")
    home_end = question.get("home_end", "left")
    if attacking not in ("home", "away") or home_end not in ("left", "right"):
        raise QuestionError("offside needs 'attacking': home|away and 'home_end': left|right")
    attack_end = {"left": "right", "right": "left"}[home_end] if attacking == "home" else home_end
    zone = f"shooting_zone_{attack_end}"
    ball = _ball(record)
    figures = record.get("figures") or []
    try:
        figs = Figures.build(
            [f.get("id", i) for i, f in enumerate(figures)],
            [f["team"] for f in figures],
            [False] * len(figures),
            [(f["x_mm"], f["y_mm"]) for f in figures],
            pitch.profile.base_radius_mm,
        )
    except (KeyError, ValueError) as exc:
        frame = record.get("frame")
        raise QuestionError(f"frame {frame} has figures the rules cannot read: {exc}") from exc
    figs = replace(figs, goalkeeper=rod_goalkeepers(pitch, figs.xy_mm))
    team = team_code(attacking)
    geo = offside_geometry(pitch, attack_end, figs, team, ball, pitch.profile.ball_radius_mm)
    rows = [
        {
            "id": figures[i].get("id"),
            "x_mm": figures[i]["x_mm"],
            "y_mm": figures[i]["y_mm"],
            "in_shooting_zone": bool(geo.zone_margin_mm[i] > 0),
            "to_goal_line_mm": round(float(geo.to_goal_line_mm[i]), 2),
            "defenders_nearer": int(geo.defenders_nearer[i]),
            "offside_position": bool(geo.margin_mm[i] > 0),
        }
        for i in np.flatnonzero((figs.team == team) & ~figs.goalkeeper).tolist()
    ]
    ball_in_zone = geo.ball_zone_margin_mm
    flagged = [row["id"] for row in rows if row["offside_position"]]
    text = (
        f"ball {'wholly' if ball_in_zone > 0 else 'not wholly'} inside {zone} "
        f"(margin {ball_in_zone:+.2f} mm); figures in an offside position: {flagged or 'none'}"
    )
    return {
        "question": "offside",
        "law": LAW_OFFSIDE,
        "zone": zone,
        "answer": ball_in_zone > 0 and bool(flagged),
        "ball_in_zone": ball_in_zone > 0,
        "ball_zone_margin_mm": round(ball_in_zone, 3),
        "ball_to_goal_line_mm": round(geo.ball_to_goal_line_mm, 2),
        "figures": rows,
        "text": text,
    }
