"""Evidence pictures: one JPEG per call, like a goal-line technology graphic.

For each call the decisive frame is cropped around the ball (or around the figure an offside or
foul concerns), upscaled, and drawn over with what decided it, all projected from pitch mm
through the calibrated ``CameraModel``:

- both *measured* edges of the decided line (``Pitch.with_measured_edges``),
- the ball's ground footprint (a circle of the ball radius round its ground point, on the cloth),
- the base of the figure concerned and, for an offside, the offside line it was compared with,
- a banner with the margin (``"OUT by 0.3 mm"``, ``"IN by 0.4 mm"``, ``"too close to call:
  0.1 +- 0.5 mm"``), the call, the law, frame and time. The same caption is stored as the JPEG's
  comment, so tools can read what the picture says.

The driver releases tracked frames (and calls) a few frames after their frame was seen, so
the writer keeps a bounded ring of recent frames by index, and the ball's ground point per
released frame. Use it the same way in ``tablevar analyze`` and in a live runner::

    evidence = EvidenceWriter(out_dir, camera, pitch)
    for frame in source.frames():
        evidence.add_frame(frame.index, frame.image_bgr)
        judged = driver.step(frame.image_bgr, frame.t_s)
        evidence.add_frames(judged.frames)
        evidence.attach(records)  # calls.jsonl records: writes the JPEGs, sets "evidence"

The ``evidence`` field of a call is the JPEG's path relative to the output folder, e.g.
``evidence/000123-goal.jpg``.
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.games import game
from rules.geometry import shooting_margin_mm
from rules.pitch import LineBand, Pitch
from tablevar.tracked import TrackedFrame

EVIDENCE_DIR = "evidence"
EDGE_BGR = (255, 0, 255)  # magenta: the measured line edges
FOOTPRINT_BGR = (0, 255, 255)  # yellow: the ball's ground footprint
FIGURE_BGR = (255, 255, 0)  # cyan: the base of the figure concerned
OFFSIDE_BGR = (0, 0, 255)  # red: the offside line the figure was compared with
SPOT_BGR = (255, 255, 255)  # white: where the restart is taken (a game whose ball is placed)
TEXT_BGR = (255, 255, 255)
BANNER_BGR = (32, 32, 32)
TITLES = {
    "ball_out": "BALL OUT",
    "goal": "GOAL",
    "goal_disallowed": "NO GOAL",
    "offside": "OFFSIDE",
    "foul": "FOUL",
    "close_call": "CLOSE CALL",
    "half_time": "HALF TIME",
    "full_time": "FULL TIME",
    "set_piece_fault": "RETAKE",
    "distance": "DISTANCE",
    "figure_placement": "FIGURE PLACEMENT",
    "turnover": "TURN OVER",
    "shot_called": "SHOT CALLED",
}
_SHIFT = 4  # sub-pixel bits for OpenCV drawing
_BOUNDARY = ("touchline", "goal_line")


@dataclass(frozen=True, slots=True)
class EvidenceConfig:
    """How evidence pictures look and how many frames are kept for them.

    Attributes:
        crop_mm: side of the cloth square shown round the ball for line calls.
        figure_crop_mm: side of the square shown round a figure (offside, fouls).
        size_px: side of the (square) upscaled crop in the picture.
        banner_px: height of the text banner under the crop.
        keep_frames: frames kept in the ring (the pipeline's hold plus the rules' delay).
        ball_frames: ball ground points remembered (to find where a shot was taken).
        shot_tolerance_mm: a remembered ball point is the shot's when its shooting margin is
            within this of the call's (or of the call's uncertainty, when larger).
        quality: JPEG quality, 0-100.
    """

    crop_mm: float = 90.0
    figure_crop_mm: float = 220.0
    size_px: int = 480
    banner_px: int = 84
    keep_frames: int = 32
    ball_frames: int = 600
    shot_tolerance_mm: float = 2.0
    quality: int = 90

    def __post_init__(self) -> None:
        if self.keep_frames < 1 or self.size_px < 64 or not self.crop_mm > 0:
            raise ValueError(
                "EvidenceConfig: keep_frames >= 1, size_px >= 64 and crop_mm > 0 are needed, "
                f"got {self.keep_frames}, {self.size_px}, {self.crop_mm}"
            )


class FrameRing:
    """The last ``capacity`` frames by index (kept by reference: sources hand out new arrays)."""

    def __init__(self, capacity: int) -> None:
        self._frames: OrderedDict[int, NDArray[np.uint8]] = OrderedDict()
        self.capacity = capacity

    def add(self, index: int, image: NDArray[np.uint8]) -> None:
        self._frames[index] = image
        while len(self._frames) > self.capacity:
            self._frames.popitem(last=False)

    def nearest(self, index: int) -> tuple[int, NDArray[np.uint8]] | None:
        """The frame ``index`` or, when it has left the ring, the kept frame nearest to it."""
        if index in self._frames:
            return index, self._frames[index]
        if not self._frames:
            return None
        best = min(self._frames, key=lambda k: abs(k - index))
        return best, self._frames[best]

    def __len__(self) -> int:
        return len(self._frames)


# ---------------------------------------------------------------------- words
def headline(call: dict[str, Any]) -> str:
    """The margin in words: ``"OUT by 0.3 mm"``, ``"too close to call: 0.1 +- 0.5 mm"``, ..."""
    m, u = call.get("margin_mm"), call.get("uncertainty_mm")
    if m is None:
        return TITLES.get(call["kind"], call["kind"].upper())
    if u is not None and abs(m) <= u:
        return f"too close to call: {m:.1f} +- {u:.1f} mm"
    beyond, short = _words(call)
    return f"{beyond if m > 0 else short} by {abs(m):.1f} mm"


def _words(call: dict[str, Any]) -> tuple[str, str]:
    """What a positive and a negative margin mean for this call's line (DESIGN.md section 3)."""
    kind, line = call["kind"], call.get("line")
    if kind == "offside":
        return "OFFSIDE", "ONSIDE"
    if kind == "shot_called":  # > 0: the ball wholly in the caller's attacking half
        return "IN THEIR HALF", "NOT IN THEIR HALF"
    if line == "shooting_line":
        return "IN", "OUT"  # > 0: wholly inside the shooting zone
    if kind == "goal" or (kind == "close_call" and call.get("law") == "FISTF 7.1"):
        return "OVER", "NOT OVER"
    if line in _BOUNDARY:
        return "OUT", "IN"
    if line in ("penalty_area", "goal_area"):
        return "INSIDE", "OUTSIDE"
    return "OVER", "SHORT"


_TEAMS = {"home": "Home", "away": "Away"}
_RESTARTS = {"goal_kick": "goal kick", "free_kick": "free kick"}


def call_words(call: dict[str, Any]) -> str:
    """The call in a player's words (as the live page says it): ``"Goal for Home · kick-off
    Away"``, ``"Offside: Home #8 · free kick Away"``, ``"Too close to call · the referee
    decides"``. The restart goes to ``team``, except after a goal, whose ``team`` scored."""
    if call.get("too_close_to_call") or headline(call).startswith("too close"):
        return "Too close to call · the referee decides"
    kind, team, figure = call["kind"], call.get("team"), call.get("figure")
    if kind == "goal":
        head = f"Goal for {_TEAMS.get(team, team)}"
        team = {"home": "away", "away": "home"}.get(team)  # the other team kicks off
    elif kind == "goal_disallowed":
        head = "No goal"
    elif kind == "ball_out":
        head = "Out"
    elif kind == "shot_called":
        refused = str(call.get("note") or "").startswith("refused")
        head = f"Shot called by {_TEAMS.get(team, team)}{' · refused' if refused else ''}"
    elif kind in ("offside", "foul") and figure is not None:
        head = f"{kind.capitalize()}: {_TEAMS.get(figure['team'], figure['team'])} #{figure['id']}"
    else:
        head = TITLES.get(kind, kind).capitalize()
    restart = call.get("restart")
    if not restart:
        return head
    words = _RESTARTS.get(restart, restart.replace("_", "-"))
    return f"{head} · {words} {_TEAMS.get(team, team or '')}".rstrip()


def caption(call: dict[str, Any]) -> list[str]:
    """The banner's lines: the margin, the call in words with its law, where in the video."""
    line = f"  {call['line'].replace('_', ' ')}" if call.get("line") else ""
    return [
        headline(call),
        f"{call_words(call)}  {call['law']}",
        f"frame {call['frame']}  t {call['t_s']:.2f} s{line}",
    ]


# ---------------------------------------------------------------------- drawing
@dataclass(frozen=True, slots=True)
class View:
    """The crop: pitch mm -> picture px through the camera, then ``scale`` round ``focus_px``."""

    camera: CameraModel
    focus_px: NDArray[np.float64]
    scale: float
    size_px: int

    def to_picture(self, xyz_mm: NDArray[np.float64]) -> NDArray[np.float64]:
        """Picture pixels ``(n, 2)`` of pitch points ``(n, 3)`` (or ``(n, 2)`` on the cloth)."""
        c = 0.5 * (self.size_px - 1)
        return self.scale * (self.camera.project(xyz_mm) - self.focus_px) + c

    def matrix(self) -> NDArray[np.float64]:
        c = 0.5 * (self.size_px - 1)
        s = self.scale
        return np.array([[s, 0.0, c - s * self.focus_px[0]], [0.0, s, c - s * self.focus_px[1]]])


def make_view(camera: CameraModel, focus_mm: tuple[float, float], side_mm: float, size_px: int):
    """The view that fits a ``side_mm`` cloth square round ``focus_mm`` into ``size_px``."""
    fx, fy = focus_mm
    h = 0.5 * side_mm
    corners = np.array([[fx - h, fy - h], [fx + h, fy - h], [fx + h, fy + h], [fx - h, fy + h]])
    focus_px = camera.project(np.array([[fx, fy]]))[0]
    half_px = float(np.abs(camera.project(corners) - focus_px).max())
    return View(camera, focus_px, 0.5 * size_px / max(half_px, 1.0), size_px)


def line_edges_mm(band: LineBand, step_mm: float = 1.0) -> list[NDArray[np.float64]]:
    """Both edges (inner, outer) of a line as polylines ``(n, 2)`` in pitch mm."""
    out = []
    if band.shape == "segment":
        a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
        d = (b - a) / band.length_mm
        normal = np.array([-d[1], d[0]])
        s = np.linspace(0.0, band.length_mm, max(2, math.ceil(band.length_mm / step_mm) + 1))
        for off in (band.inner_mm, band.outer_mm):
            out.append(a + s[:, None] * d + off * normal)
        return out
    for off in (band.inner_mm, band.outer_mm):
        radius = band.radius_mm + off
        if radius <= 0:
            continue
        n = max(8, math.ceil(radius * band.sweep_rad / step_mm) + 1)
        angle = band.start_rad + np.linspace(0.0, band.sweep_rad, n)
        out.append(np.asarray(band.a_mm) + radius * np.stack([np.cos(angle), np.sin(angle)], 1))
    return out


def circle_mm(centre_mm: tuple[float, float], radius_mm: float, n: int = 96) -> NDArray:
    """A circle on the cloth as a closed polyline ``(n, 2)`` in pitch mm."""
    a = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    return np.asarray(centre_mm) + radius_mm * np.stack([np.cos(a), np.sin(a)], 1)


def decided_line(pitch: Pitch, kind: str | None, near_mm: tuple[float, float]) -> LineBand | None:
    """The line of ``kind`` nearest ``near_mm`` (a call names the kind, e.g. ``touchline``)."""
    bands = pitch.lines_of_kind(kind) if kind else ()
    if not bands:
        return None
    return min(bands, key=lambda b: abs(float(b.paint_distance_mm(near_mm)[0])))


def offside_line_mm(call: dict[str, Any], pitch: Pitch) -> NDArray[np.float64] | None:
    """The offside line of an offside call: across the pitch, where the figure's base would
    have to reach to be level with what it was compared with (the ball or the second-last
    defender, FISTF 13.1), i.e. ``margin_mm`` behind the point of its base nearest the
    defenders' goal line. ``(n, 2)`` pitch mm, or None for other calls.
    """
    figure, margin = call.get("figure"), call.get("margin_mm")
    if call["kind"] != "offside" or figure is None or margin is None:
        return None
    # An offside figure stands in the defenders' shooting zone: their goal is at its end.
    toward_goal = 1.0 if figure["x_mm"] > 0 else -1.0
    rim_x = figure["x_mm"] + toward_goal * pitch.profile.base_radius_mm
    x = rim_x - toward_goal * margin
    half_w = 0.5 * pitch.profile.width_mm
    y = np.linspace(-half_w, half_w, math.ceil(2.0 * half_w) + 1)  # 1 mm steps: drawn in runs
    return np.stack([np.full_like(y, x), y], axis=1)


def _polyline(img: NDArray[np.uint8], pts_px: NDArray, colour, closed: bool, width: int) -> None:
    size = img.shape[1]
    inside = np.all((pts_px > -size) & (pts_px < 2 * size), axis=1)
    if closed and not inside.all():
        return
    # Draw each run of points near the picture (a long line leaves it on both sides).
    runs = np.split(np.arange(len(pts_px)), np.flatnonzero(np.diff(inside.astype(int))) + 1)
    for run in runs:
        if len(run) < 2 or not inside[run[0]]:
            continue
        pts = np.round(pts_px[run] * (1 << _SHIFT)).astype(np.int32)
        cv2.polylines(img, [pts], closed, colour, width, cv2.LINE_AA, _SHIFT)


def draw_evidence(
    image_bgr: NDArray[np.uint8],
    call: dict[str, Any],
    camera: CameraModel,
    pitch: Pitch,
    ball_xy_mm: tuple[float, float] | None,
    config: EvidenceConfig | None = None,
    note: str = "",
    restart_spot: bool = False,
) -> NDArray[np.uint8]:
    """The evidence picture ``(size + banner, size, 3)`` uint8 BGR of one call.

    Args:
        image_bgr: the decisive frame, (h, w, 3) uint8.
        call: the ``calls.jsonl`` record.
        camera: the calibrated camera that took the frame.
        pitch: the pitch with the measured line edges.
        ball_xy_mm: the ball's ground point on that frame, or None when it is not seen.
        config: sizes; defaults when None.
        note: added to the banner's last line (e.g. which frame is shown).
        restart_spot: the call's ``position`` is the spot its restart is taken from (a game
            whose ball is put on its spot, such as button football): drawn as a ringed cross,
            or an arrow at the picture's edge pointing to it when it lies outside.
    """
    cfg = config or EvidenceConfig()
    figure = call.get("figure")
    position = call.get("position")
    if figure is not None:
        focus, side = (figure["x_mm"], figure["y_mm"]), cfg.figure_crop_mm
    elif ball_xy_mm is not None:
        focus, side = ball_xy_mm, cfg.crop_mm
        margin = call.get("margin_mm")
        if call.get("line") and margin is not None:  # wide enough to show the line decided on
            side = max(side, 2.6 * (abs(margin) + pitch.profile.ball_radius_mm))
    elif position is not None:
        focus, side = (position["x_mm"], position["y_mm"]), cfg.crop_mm
    else:  # a whistle with no place (half time): the whole cloth
        focus, side = (0.0, 0.0), 2.0 * max(pitch.cloth_half_extent_mm)
    view = make_view(camera, focus, side, cfg.size_px)
    crop = cv2.warpAffine(
        image_bgr,
        view.matrix(),
        (cfg.size_px, cfg.size_px),
        flags=cv2.INTER_CUBIC,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )
    width = max(2, cfg.size_px // 160)
    band = decided_line(pitch, call.get("line"), ball_xy_mm or focus)
    if band is not None:
        for edge in line_edges_mm(band):
            _polyline(crop, view.to_picture(edge), EDGE_BGR, False, width)
    offside = offside_line_mm(call, pitch)
    if offside is not None:  # under the rings it is compared with
        _polyline(crop, view.to_picture(offside), OFFSIDE_BGR, False, width)
    if figure is not None:
        r = pitch.profile.base_radius_mm
        pts = view.to_picture(circle_mm((figure["x_mm"], figure["y_mm"]), r))
        _polyline(crop, pts, FIGURE_BGR, True, width)
    if ball_xy_mm is not None:
        pts = view.to_picture(circle_mm(ball_xy_mm, pitch.profile.ball_radius_mm))
        _polyline(crop, pts, FOOTPRINT_BGR, True, width)
    if restart_spot and call.get("restart") and position is not None:
        _draw_spot(crop, view, (position["x_mm"], position["y_mm"]), pitch, width)
    lines = caption(call)
    lines[-1] += note
    return np.concatenate([crop, _banner(lines, cfg)], axis=0)


def _draw_spot(
    img: NDArray[np.uint8], view: View, spot_mm: tuple[float, float], pitch: Pitch, width: int
) -> None:
    """The restart spot: a ring of the ball's size with a cross, or, when it lies outside the
    picture, an arrow along the picture's edge pointing to it."""
    size = img.shape[1]
    r_mm = pitch.profile.ball_radius_mm
    centre = view.to_picture(np.array([spot_mm], dtype=np.float64))[0]
    if np.all((centre > 0) & (centre < size)):
        _polyline(img, view.to_picture(circle_mm(spot_mm, 1.4 * r_mm)), SPOT_BGR, True, width)
        for d in ((1.4 * r_mm, 0.0), (0.0, 1.4 * r_mm)):
            a = np.array(spot_mm) - d
            b = np.array(spot_mm) + d
            _polyline(img, view.to_picture(np.stack([a, b])), SPOT_BGR, False, width)
        return
    mid = np.array([0.5 * size, 0.5 * size])
    direction = (centre - mid) / max(float(np.linalg.norm(centre - mid)), 1e-9)
    tip = mid + direction * 0.45 * size
    tail = mid + direction * 0.30 * size
    cv2.arrowedLine(
        img,
        pt1=tuple(int(v) for v in np.round(tail)),
        pt2=tuple(int(v) for v in np.round(tip)),
        color=SPOT_BGR,
        thickness=width,
        line_type=cv2.LINE_AA,
        tipLength=0.3,
    )


def _banner(lines: list[str], cfg: EvidenceConfig) -> NDArray[np.uint8]:
    banner = np.full((cfg.banner_px, cfg.size_px, 3), BANNER_BGR, np.uint8)
    heights = (0.8, 0.5, 0.45)
    y = 4
    for line, scale in zip(lines, heights, strict=False):
        text = line.replace("·", "-")  # OpenCV's Hershey fonts draw ASCII only
        s = scale * cfg.size_px / 480.0
        (_, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, s, 1)
        y += h + 8
        thick = 2 if scale == heights[0] else 1
        cv2.putText(banner, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, s, TEXT_BGR, thick, cv2.LINE_AA)
    return banner


# ---------------------------------------------------------------------- files
def encode_jpeg(picture: NDArray[np.uint8], comment: str, quality: int = 90) -> bytes:
    """JPEG bytes of ``picture`` with ``comment`` stored in a COM segment after SOI."""
    ok, buf = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("could not encode the evidence picture as JPEG")
    data = buf.tobytes()
    text = comment.encode("utf-8")[:65000]
    segment = b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text
    return data[:2] + segment + data[2:]


def jpeg_comment(data: bytes) -> str | None:
    """The COM text of JPEG bytes written by ``encode_jpeg``, or None."""
    if data[:4] != b"\xff\xd8\xff\xfe":
        return None
    n = int.from_bytes(data[4:6], "big")
    return data[6 : 4 + n].decode("utf-8")


def evidence_name(call: dict[str, Any], match_id: int | None = None) -> str:
    """``evidence/000123-goal.jpg`` (with the figure id when the call concerns a figure), in a
    live match ``evidence/m3-000123-goal.jpg`` (the match log numbers matches)."""
    fig = call.get("figure")
    tail = f"-{fig['id']}" if fig else ""
    head = "" if match_id is None else f"m{int(match_id)}-"
    return f"{EVIDENCE_DIR}/{head}{int(call['frame']):06d}-{call['kind']}{tail}.jpg"


class EvidenceWriter:
    """Keeps recent frames and ball points; writes one evidence JPEG per call it is given."""

    def __init__(
        self,
        out_dir: str | Path,
        camera: CameraModel,
        pitch: Pitch,
        config: EvidenceConfig | None = None,
        frames: FrameRing | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.camera, self.pitch = camera, pitch
        self.config = config or EvidenceConfig()
        # A live runner shares its ring: a new calibration brings a new writer, not new frames.
        self.frames = frames if frames is not None else FrameRing(self.config.keep_frames)
        # Ball ground points of released records, a little longer than the frames.
        self._balls: deque[tuple[int, tuple[float, float] | None]] = deque(
            maxlen=max(4 * self.config.keep_frames, self.config.ball_frames)
        )
        self._names: set[str] = set()
        self.written = 0

    def add_frame(self, index: int, image_bgr: NDArray[np.uint8]) -> None:
        """Remember a decoded frame (call it for every frame, before the pipeline sees it)."""
        self.frames.add(index, image_bgr)

    def add_frames(self, frames: Iterable[TrackedFrame]) -> None:
        """Remember the ball of each released tracked frame."""
        for frame in frames:
            ball = frame.ball
            self._balls.append((frame.frame, None if ball is None else (ball.x_mm, ball.y_mm)))

    def ball_at(self, frame: int) -> tuple[float, float] | None:
        """The ball's ground point on ``frame``, or the last seen before it (a hidden ball)."""
        best = None
        for k, xy in self._balls:
            if k > frame:
                break
            if xy is not None:
                best = xy
        return best

    def shot_at(self, call: dict[str, Any]) -> tuple[int, tuple[float, float]] | None:
        """Where the shot of a goal decided at the shooting line (FISTF 7.1, 7.2) was taken:
        ``(frame, ball ground point)``, the last remembered point before the goal whose
        shooting-zone margin is the call's (the ball stood there, or passed, when struck).
        None for other calls, or when no remembered point fits.
        """
        margin = call.get("margin_mm")
        if call["kind"] not in ("goal", "goal_disallowed") or call.get("line") != "shooting_line":
            return None
        frame = int(call["frame"])
        seen = [(k, xy) for k, xy in self._balls if xy is not None and k <= frame]
        if margin is None or not seen:
            return None
        end = "right" if seen[-1][1][0] > 0 else "left"  # the goal the ball went into
        xy = np.array([p for _, p in seen])
        margins = shooting_margin_mm(self.pitch, end, xy, self.pitch.profile.ball_radius_mm)
        tol = max(self.config.shot_tolerance_mm, float(call.get("uncertainty_mm") or 0.0))
        fits = np.flatnonzero(np.abs(margins - margin) <= tol)
        return seen[fits[-1]] if len(fits) else None

    def attach(self, calls: Iterable[dict[str, Any]]) -> None:
        """Write a picture for each call without one; set its ``evidence`` field (in place)."""
        for call in calls:
            if call.get("evidence") is None:
                call["evidence"] = self.write(call)

    def write(self, call: dict[str, Any], match_id: int | None = None) -> str | None:
        """Draw and write the picture of ``call``; returns its relative path (None: no frame).

        A name already taken (by this writer, or on disk by an earlier run into the same
        folder) gets a number: a picture is never overwritten.
        """
        shot = self.shot_at(call)
        found = self.frames.nearest(shot[0]) if shot is not None else None
        if found is not None and found[0] == shot[0]:  # the shot's own frame is still kept
            index, image = found
            ball, note = shot[1], f"  shot at frame {index}"
        else:
            found = self.frames.nearest(int(call["frame"]))
            if found is None:
                return None
            index, image = found
            ball, note = self.ball_at(index), ""
        spot = game(self.pitch.profile.game).placed_restarts
        picture = draw_evidence(
            image, call, self.camera, self.pitch, ball, self.config, note, restart_spot=spot
        )
        name = evidence_name(call, match_id)
        stem, k = name.removesuffix(".jpg"), 1
        while name in self._names or (self.out_dir / name).exists():
            k += 1
            name = f"{stem}-{k}.jpg"
        self._names.add(name)
        path = self.out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = caption(call)
        lines[-1] += note
        text = "\n".join(lines) + (f"\nshown: frame {index}" if index != call["frame"] else "")
        path.write_bytes(encode_jpeg(picture, text, self.config.quality))
        self.written += 1
        return name
