"""A match report from an analysis folder: what happened, measured from its tracks and calls.

``match_report`` reads ``tracks.jsonl`` once (line by line: a 30-minute match is 100 000
records) and the calls, and returns plain data in pitch mm and seconds that the report page
plots server-side as SVG: the timeline of calls against the match clock, the score by half,
the goals' shots on a pitch map, where the ball was (a heat map), which team's figure was
nearest the ball (the share of time: a measure of territory the tracks give, not the rules'
possession), the figures' positions at each goal, and the match clock against wall time.

The clock is the ball-moving clock (DESIGN.md section 6) as the tracks show it: time runs
between two frames while the ball moves in the first of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules.pitch import Pitch
from web.decisions import goal_end, shot_frame

HEAT_BINS = (24, 15)  # cells along x and y: 50 mm squares on a 1200 x 750 pitch
CLOCK_POINTS = 400  # the clock-vs-wall plot keeps at most this many points
SHOT_LOOKBACK_S = 10.0
GOAL_KINDS = ("goal", "goal_disallowed")


@dataclass(frozen=True, slots=True)
class Goal:
    """A goal call with what the report draws of it."""

    call: Mapping[str, Any]
    clock_s: float
    half: int
    shot_xy_mm: tuple[float, float] | None
    figures: tuple[Mapping[str, Any], ...]  # positions at the goal's frame
    ball_xy_mm: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class MatchReport:
    """Everything the report shows, in mm and seconds.

    Attributes:
        duration_s: wall time from the first to the last frame.
        clock_s: match clock at the end.
        calls: the calls, each with ``clock_s`` and ``half`` added.
        score_by_half: ``[{"half": 1, "home": n, "away": n}, ...]``.
        goals: the goal calls (allowed and disallowed) with their shots and figures.
        heat: (HEAT_BINS[1], HEAT_BINS[0]) share of ball sightings in each cell (y rows, x
            columns, row 0 at -y), summing to 1 (zeros without sightings).
        nearest_share: ``{"home": s, "away": s}``, the share of frames with the ball seen in
            which that team's figure stood nearest it.
        clock_curve: (k, 2) of (wall s, clock s).
    """

    duration_s: float
    clock_s: float
    calls: tuple[Mapping[str, Any], ...]
    score_by_half: tuple[Mapping[str, int], ...]
    goals: tuple[Goal, ...]
    heat: NDArray[np.float64]
    nearest_share: Mapping[str, float]
    clock_curve: NDArray[np.float64]


def match_report(
    pitch: Pitch,
    records: Iterable[Mapping[str, Any]],
    calls: list[Mapping[str, Any]],
    get_record,
    fps: float,
) -> MatchReport:
    """Measure a match from its tracks ``records`` (frame order) and ``calls`` (frame order).

    ``get_record(frame)`` gives one record (or None), for the frames around goals.
    """
    half_x, half_y = pitch.profile.length_mm / 2, pitch.profile.width_mm / 2
    heat = np.zeros((HEAT_BINS[1], HEAT_BINS[0]))
    nearest = {"home": 0, "away": 0}
    seen = 0
    curve: list[tuple[float, float]] = []
    clock_at: dict[int, float] = {}
    wanted = {int(c["frame"]) for c in calls}
    clock = 0.0
    prev_t = None
    prev_moving = False
    first_t = None
    for record in records:
        t = _number(record.get("t_s"))
        if t is None:
            continue  # a record without a time has no place on the clock
        first_t = t if first_t is None else first_t
        if prev_t is not None and prev_moving:
            clock += max(0.0, t - prev_t)
        ball = record.get("ball")
        prev_t, prev_moving = t, bool(ball and ball.get("moving"))
        curve.append((t - first_t, clock))
        if record.get("frame") in wanted:
            clock_at[int(record["frame"])] = clock
        if not ball:
            continue
        seen += 1
        ix = int(
            np.clip((ball["x_mm"] + half_x) / (2 * half_x) * HEAT_BINS[0], 0, HEAT_BINS[0] - 1)
        )
        iy = int(
            np.clip((ball["y_mm"] + half_y) / (2 * half_y) * HEAT_BINS[1], 0, HEAT_BINS[1] - 1)
        )
        heat[iy, ix] += 1
        team = _nearest_team(record.get("figures") or [], ball)
        if team in nearest:
            nearest[team] += 1
    duration = curve[-1][0] if curve else 0.0
    if heat.sum() > 0:
        heat /= heat.sum()
    counted = sum(nearest.values())
    share = {k: (v / counted if counted else 0.0) for k, v in nearest.items()}
    out_calls, score_by_half = _calls_by_half(calls, clock_at)
    goal_list = tuple(
        _goal(pitch, c, get_record, fps) for c in out_calls if c["kind"] in GOAL_KINDS
    )
    return MatchReport(
        duration_s=duration,
        clock_s=clock,
        calls=tuple(out_calls),
        score_by_half=tuple(score_by_half),
        goals=goal_list,
        heat=heat,
        nearest_share=share,
        clock_curve=_thin(np.array(curve or [(0.0, 0.0)])),
    )


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (analysis files are read, not trusted)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if np.isfinite(value) else None


def _nearest_team(figures: list[Mapping[str, Any]], ball: Mapping[str, Any]) -> str | None:
    if not figures:
        return None
    xy = np.array([[f["x_mm"], f["y_mm"]] for f in figures], dtype=np.float64)
    d = np.hypot(xy[:, 0] - ball["x_mm"], xy[:, 1] - ball["y_mm"])
    return figures[int(np.argmin(d))].get("team")


def _calls_by_half(calls, clock_at):
    half = 1
    score = {"home": 0, "away": 0}
    by_half = [{"half": 1, "home": 0, "away": 0}]
    out = []
    for call in calls:
        out.append(
            {
                **call,
                "t_s": _number(call.get("t_s")),
                "clock_s": clock_at.get(int(call["frame"])),
                "half": half,
            }
        )
        if call.get("kind") == "goal" and call.get("team") in score:
            score[call["team"]] += 1
            by_half[-1][call["team"]] += 1
        if call.get("kind") == "half_time":
            half += 1
            by_half.append({"half": half, "home": 0, "away": 0})
    return out, by_half


def _goal(pitch: Pitch, call, get_record, fps: float) -> Goal:
    frame = int(call["frame"])
    record = get_record(frame) or {}
    shot = None
    if goal_end(call) is not None:
        back = range(frame, max(-1, frame - int(SHOT_LOOKBACK_S * fps)), -1)
        found = shot_frame(get_record(i) for i in back)
        if found is not None:
            shot = (float(found["ball"]["x_mm"]), float(found["ball"]["y_mm"]))
    ball = record.get("ball")
    return Goal(
        call=call,
        clock_s=call.get("clock_s") or 0.0,
        half=call["half"],
        shot_xy_mm=shot,
        figures=tuple(record.get("figures") or ()),
        ball_xy_mm=(float(ball["x_mm"]), float(ball["y_mm"])) if ball else None,
    )


def _thin(curve: NDArray[np.float64]) -> NDArray[np.float64]:
    """At most ``CLOCK_POINTS`` points of a monotone curve, the last one kept."""
    if len(curve) <= CLOCK_POINTS:
        return curve
    keep = np.unique(np.linspace(0, len(curve) - 1, CLOCK_POINTS).round().astype(int))
    return curve[keep]
