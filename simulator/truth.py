"""Ground truth of a compiled scene: the exact state of every frame and the calls it should get.

Per frame (``frame_truth``), in the schema of ``tracks.jsonl`` (DESIGN.md section 4) plus extras:
``{"frame", "t_s", "ball": {"x_mm", "y_mm", "moving"} | null, "figures": [{"id", "team",
"x_mm", "y_mm", "goalkeeper"}], "contacts": [{"figure", "team", "kind", "onset_frame"}]}``.
``moving`` is true when the ball's ground point differs from the previous frame's, which is what
a camera can see. A contact is listed on the first frame on which the struck ball has moved;
``onset_frame`` is the frame before it, the last one with the ball at rest before the strike.
A base struck into another base (``CompiledScene.hits``) is a contact too, with ``"target"``
the hit one's id, listed on the first frame on which the hit base has moved.

Calls (``truth_calls``), one ``rules.calls.Call`` record per scripted call, come from the script's
declared intent (each strike's ``expect``) checked against the exact trajectory: a declared goal
whose ball never crosses, or a ball that goes out with no call declared, raises ``TruthError``.
How each call is decided:

- ``ball_out`` / ``goal``: the decisive frame is the first at which the footprint lies wholly
  beyond the line's far edge (``beyond_edge_mm - r > 0``); the margin is the one on that frame
  (what the evidence picture of that frame shows, as the rules report it: docs/rules.md
  "Margins"). Throw-in to the team that did not touch last (FISTF 14.1), taken where the ball
  crossed (the point on its path where it became wholly over, centred on the touchline); over a
  goal line outside the posts a goal kick when the attackers touched last (15.1), a corner when
  the defenders did (16.1); between the posts a goal (7.1) when the ball lay wholly inside the
  scorer's attacking shooting zone at the shot.
- ``goal_disallowed`` (7.2): the same decisive frame, but the call is decided on the shooting
  line: ``line`` is ``shooting_line``, the margin the shot's (the ball's footprint at the strike
  against the shooting line, > 0 wholly inside the zone, so <= 0 here), ``fully_crossed`` false.
- ``close_call``: the frame the ball comes to rest, its (negative) margin at rest: it stopped
  within ``CLOSE_MM`` of a boundary line without fully crossing it.
- ``offside`` (13.1, DESIGN.md section 3 geometry): at the strike, the ball wholly inside the
  defenders' shooting zone and played forward; an attacker (not the striker) whose base centre is
  in that zone, whose rim is nearer the goal line than the ball's footprint, with fewer than two
  defenders (keeper included) nearer. The decisive frame is the contact frame; the margin is the
  tightest of these four conditions (as in ``rules.fistf_play.offside_margins_mm``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules.calls import Call, FigureRef
from rules.geometry import shooting_margin_mm
from simulator.scene import AWAY, HOME, TEAM_NAMES
from simulator.scenes import BaseHit, CompiledScene, SceneError, Strike

BOUNDARY = ("touchline_top", "touchline_bottom", "goal_line_left", "goal_line_right")
CLOSE_MM = 3.0
DECIMALS = 3  # 1 um: far below anything a camera resolves, keeps truth.jsonl small
ATTACKS = {HOME: "right", AWAY: "left"}  # the goal each team attacks (home defends x < 0)


class TruthError(SceneError):
    """The script's declared calls disagree with what its trajectory does."""


@dataclass(frozen=True, slots=True)
class _Frames:
    t_s: NDArray[np.float64]
    ball_xy: NDArray[np.float64]
    ball_on: NDArray[np.bool_]
    moving: NDArray[np.bool_]
    figures_xy: NDArray[np.float64]


def _sample(c: CompiledScene, fps: float) -> _Frames:
    t = np.arange(c.frame_count(fps)) / fps
    bxy, _, on = c.ball_state(t)
    fxy, _ = c.figure_state(t)
    moved = np.zeros(len(t), dtype=bool)
    moved[1:] = on[1:] & on[:-1] & np.any(bxy[1:] != bxy[:-1], axis=1)
    return _Frames(t, bxy, on, moved, fxy)


def contact_frame(strike: Strike | BaseHit, fps: float) -> int:
    """First frame after the strike instant (the first on which the ball, or the hit base,
    has moved)."""
    return math.floor(strike.t_s * fps + 1e-9) + 1


def frame_truth(c: CompiledScene, fps: float) -> list[dict[str, Any]]:
    """One truth record per frame at ``t = i / fps``."""
    s = _sample(c, fps)
    contacts: dict[int, list[dict[str, Any]]] = {}
    # A base struck into another (a hit) is listed when the hit one has moved, naming it.
    for event in (*c.strikes, *c.hits):
        k = contact_frame(event, fps)
        if k < len(s.t_s):
            record = {
                "figure": event.figure,
                "team": TEAM_NAMES[event.team],
                "kind": "flick",
                "onset_frame": k - 1,
            }
            if isinstance(event, BaseHit):
                record["target"] = event.target
            contacts.setdefault(k, []).append(record)
    specs = c.figure_specs
    out = []
    for i, t in enumerate(s.t_s):
        ball = None
        if s.ball_on[i]:
            x, y = s.ball_xy[i]
            ball = {"x_mm": _r(x), "y_mm": _r(y), "moving": bool(s.moving[i])}
        figures = [
            {
                "id": sp.id,
                "team": TEAM_NAMES[sp.team],
                "x_mm": _r(s.figures_xy[i, j, 0]),
                "y_mm": _r(s.figures_xy[i, j, 1]),
                "goalkeeper": sp.goalkeeper,
            }
            for j, sp in enumerate(specs)
        ]
        out.append(
            {
                "frame": i,
                "t_s": round(float(t), 6),
                "ball": ball,
                "figures": figures,
                "contacts": contacts.get(i, []),
            }
        )
    return out


def truth_calls(c: CompiledScene, fps: float) -> list[dict[str, Any]]:
    """The calls a referee should make, as ``calls.jsonl`` records, in frame order."""
    return [call.to_record() for call in decide(c, fps)]


def decide(c: CompiledScene, fps: float) -> list[Call]:
    """The scripted calls as ``Call`` objects; raises ``TruthError`` on a script mismatch."""
    s = _sample(c, fps)
    calls: list[Call] = []
    restart_team: int | None = None  # who takes the restart awarded by the last call
    for strike in c.strikes:
        # 13.1.3 a): no offside straight from a throw-in, corner or goal kick.
        offside = _offside(c, strike, fps, exempt=strike.team == restart_team)
        if (offside is not None) != (strike.expect == "offside"):
            raise TruthError(_mismatch(strike, "offside" if offside else "no offside"))
        if offside is not None:
            calls.append(offside)
            continue
        call = _line_call(c, s, strike, fps)
        found = None if call is None else call.kind
        if found != strike.expect:
            raise TruthError(_mismatch(strike, found or "no call"))
        if call is not None:
            calls.append(call)
        restart_team = None
        if call is not None and call.restart in ("throw_in", "corner", "goal_kick"):
            restart_team = call.team
    return sorted(calls, key=lambda k: k.frame)


def _mismatch(strike: Strike, found: str) -> str:
    return (
        f"strike of figure {strike.figure} at {strike.t_s:.3f} s declares "
        f"expect={strike.expect!r} but its ball gives {found}"
    )


def _line_call(c: CompiledScene, s: _Frames, strike: Strike, fps: float) -> Call | None:
    pitch, r = c.pitch, c.pitch.profile.ball_radius_mm
    rest = np.asarray(strike.ball_rest_mm)
    margins = {n: float(pitch.line(n).beyond_edge_mm(rest, 1.0)[0] - r) for n in BOUNDARY}
    name = max(margins, key=margins.get)
    margin = margins[name]
    line = pitch.line(name)
    if margin <= 0:
        if margin <= -CLOSE_MM:
            return None
        frame = math.ceil(strike.t_rest_s * fps - 1e-9)
        return Call(
            frame=frame,
            t_s=frame / fps,
            kind="close_call",
            law=_close_law(c, name, rest),
            line=line.kind,
            fully_crossed=False,
            margin_mm=margin,
            uncertainty_mm=0.0,
            position=_pt(rest),
        )
    k0 = contact_frame(strike, fps)
    over = line.beyond_edge_mm(s.ball_xy[k0:], 1.0) - r > 0
    over &= s.ball_on[k0:]
    if not over.any():
        raise TruthError(f"the ball of the strike at {strike.t_s:.3f} s crosses after the clip")
    frame = k0 + int(np.argmax(over))
    over_xy = s.ball_xy[frame]
    margin = float(line.beyond_edge_mm(over_xy, 1.0)[0] - r)
    at = (frame, frame / fps, line.kind, margin)
    if line.kind == "touchline":
        return _throw_in(strike, at, crossing_point(line, strike, r), line)
    end = "right" if rest[0] > 0 else "left"
    goal = pitch.goal(end)
    if goal.y_min_mm <= rest[1] <= goal.y_max_mm:
        return _goal(c, strike, at, end, s.ball_xy[frame])
    return _goal_line_out(c, strike, at, end, rest)


def _close_law(c: CompiledScene, name: str, rest: NDArray) -> str:
    if name.startswith("touchline"):
        return "FISTF 14.1"
    goal = c.pitch.goal("right" if rest[0] > 0 else "left")
    return "FISTF 7.1" if goal.y_min_mm <= rest[1] <= goal.y_max_mm else "FISTF 15.1"


def crossing_point(line, strike: Strike, r: float) -> NDArray:
    """Where the straight path of ``strike`` puts the ball wholly over ``line`` (margin 0).

    Args:
        line: a straight ``LineBand`` the ball crosses.
        strike: the strike whose ball rolls from ``ball_from_mm`` to ``ball_rest_mm``.
        r: ball radius in mm.

    Returns:
        (2,) ground point in mm.
    """
    a, b = np.asarray(strike.ball_from_mm, float), np.asarray(strike.ball_rest_mm, float)
    ma = float(line.beyond_edge_mm(a, 1.0)[0] - r)
    mb = float(line.beyond_edge_mm(b, 1.0)[0] - r)
    f = 1.0 if mb == ma else min(max(-ma / (mb - ma), 0.0), 1.0)
    return a + f * (b - a)


def _throw_in(strike: Strike, at, crossed: NDArray, line) -> Call:
    frame, t, kind, margin = at
    # FISTF 14.2: taken where the ball crossed, centred on the touchline.
    y_line = line.a_mm[1]
    return Call(
        frame,
        t,
        "ball_out",
        "FISTF 14.1",
        kind,
        True,
        margin,
        0.0,
        team=_other(strike.team),
        restart="throw_in",
        position=(float(crossed[0]), float(y_line)),
    )


def _goal(c: CompiledScene, strike: Strike, at, end: str, over_xy: NDArray) -> Call:
    frame, t, kind, margin = at
    if ATTACKS[strike.team] != end:
        raise TruthError(f"the strike at {strike.t_s:.3f} s is an own goal; not scripted")
    zone = f"shooting_zone_{end}"
    r = c.pitch.profile.ball_radius_mm
    valid = bool(c.pitch.is_inside(zone, strike.ball_from_mm, r)[0])
    if valid:
        return Call(
            frame, t, "goal", "FISTF 7.1", kind, True, margin, 0.0,
            team=strike.team, restart="kick_off", position=_pt(over_xy),
        )  # fmt: skip
    # 7.2: decided on the shooting line; the margin is the shot's (<= 0: not wholly inside).
    shot = float(shooting_margin_mm(c.pitch, end, strike.ball_from_mm, r)[0])
    defender = _other(strike.team)
    return Call(
        frame, t, "goal_disallowed", "FISTF 7.2", "shooting_line", False, shot, 0.0,
        team=defender, restart="goal_kick", position=_goal_area_centre(c, end),
    )  # fmt: skip


def _goal_line_out(c: CompiledScene, strike: Strike, at, end: str, rest: NDArray) -> Call:
    frame, t, kind, margin = at
    defender = HOME if end == "left" else AWAY
    if strike.team != defender:
        return Call(
            frame, t, "ball_out", "FISTF 15.1", kind, True, margin, 0.0,
            team=defender, restart="goal_kick", position=_goal_area_centre(c, end),
        )  # fmt: skip
    p = c.pitch.profile
    sx, sy = (1.0 if end == "right" else -1.0), (1.0 if rest[1] > 0 else -1.0)
    # The corner is taken from the corner arc on the side where the ball went out.
    k = p.corner_arc_radius_mm / math.sqrt(2.0)
    corner = (sx * (0.5 * p.length_mm - k), sy * (0.5 * p.width_mm - k))
    return Call(
        frame, t, "ball_out", "FISTF 16.1", kind, True, margin, 0.0,
        team=_other(defender), restart="corner", position=corner,
    )  # fmt: skip


def _goal_area_centre(c: CompiledScene, end: str) -> tuple[float, float]:
    p = c.pitch.profile
    sx = 1.0 if end == "right" else -1.0
    return (sx * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm), 0.0)


def _offside(c: CompiledScene, strike: Strike, fps: float, exempt: bool) -> Call | None:
    """The offside call for this strike, or None when no attacker is offside (13.1)."""
    if exempt:
        return None
    pitch, p = c.pitch, c.pitch.profile
    r_ball, r_base = p.ball_radius_mm, p.base_radius_mm
    end = ATTACKS[strike.team]
    sx = 1.0 if end == "right" else -1.0
    ball = np.asarray(strike.ball_from_mm)
    forward = sx * (strike.ball_rest_mm[0] - ball[0]) > 0
    if not forward or not pitch.is_inside(f"shooting_zone_{end}", ball, r_ball)[0]:
        return None
    fxy, _ = c.figure_state(np.array([strike.t_s]))
    fxy = fxy[0]
    teams = np.array([sp.team for sp in c.figure_specs])
    ids = np.array([sp.id for sp in c.figure_specs])
    # Nearness to the goal line, from the part of each object nearest it.
    reach = sx * fxy[:, 0] + r_base
    ball_reach = sx * ball[0] + r_ball
    defenders = np.sort(reach[teams != strike.team])[::-1]
    second = defenders[1] if len(defenders) > 1 else -np.inf
    # The margin is the tightest of the four conditions (as the rules report it): base centre in
    # the zone, nearer than the ball, nearer than the second-last defender, ball wholly inside.
    zone = pitch.zone_margin_mm(f"shooting_zone_{end}", fxy)
    ball_in = float(pitch.zone_margin_mm(f"shooting_zone_{end}", ball)[0]) - r_ball
    cand = (teams == strike.team) & (ids != strike.figure) & ~goalkeepers(c)
    margin = np.minimum.reduce(
        [zone, reach - ball_reach, reach - second, np.full(len(ids), ball_in)]
    )
    cand &= margin > 0
    if not cand.any():
        return None
    j = int(np.flatnonzero(cand)[np.argmax(margin[cand])])
    frame = contact_frame(strike, fps)
    x, y = fxy[j]
    return Call(
        frame=frame,
        t_s=frame / fps,
        kind="offside",
        law="FISTF 13.1",
        margin_mm=float(margin[j]),
        uncertainty_mm=0.0,
        team=_other(strike.team),
        restart="free_kick",
        position=(float(x), float(y)),
        figure=FigureRef(int(ids[j]), int(teams[j]), float(x), float(y)),
    )


def goalkeepers(c: CompiledScene) -> NDArray[np.bool_]:
    """(n,) which figures of the scene are rod goalkeepers."""
    return np.array([sp.goalkeeper for sp in c.figure_specs], dtype=bool)


def _other(team: int) -> int:
    return AWAY if team == HOME else HOME


def _pt(xy) -> tuple[float, float]:
    return float(xy[0]), float(xy[1])


def _r(v: float) -> float:
    return round(float(v), DECIMALS)


def clip_truth(
    c: CompiledScene, fps: float, first: int, n: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Truth of a clip that starts at the scene's frame ``first`` and holds ``n`` frames.

    Frames, times and contacts' onsets count from the clip's first frame; a contact whose
    strike came before it, and calls decided outside the clip, are left out. The ball's
    ``moving`` flag on the first frame still says whether it rolls there.
    """
    if not 0 <= first < c.frame_count(fps) or n < 0:
        raise ValueError(
            f"a clip of {c.frame_count(fps)} frames cannot start at frame {first} (n={n})"
        )
    frames = []
    for rec in frame_truth(c, fps)[first : first + n]:
        i = rec["frame"] - first
        contacts = [
            {**k, "onset_frame": k["onset_frame"] - first}
            for k in rec["contacts"]
            if k["onset_frame"] >= first
        ]
        frames.append({**rec, "frame": i, "t_s": round(i / fps, 6), "contacts": contacts})
    calls = [
        {**call, "frame": call["frame"] - first, "t_s": (call["frame"] - first) / fps}
        for call in truth_calls(c, fps)
        if first <= call["frame"] < first + n
    ]
    return frames, calls
