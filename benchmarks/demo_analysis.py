"""A small rendered analysis folder for the web pages: video, tracks, calls, calibration.

Draws an overhead view of the table through the real camera model (cloth, every line band of
the profile, both goals, 22 bases and the ball), so the pages can be shown and measured on
something that looks like a match. Used by ``screenshots.py`` and ``load_sse.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np

from calibration.calibration_file import Calibration, write_calibration
from calibration.camera import CameraModel
from calibration.tables import load_pitch
from rules.pitch import Pitch
from web.geometry import band_edges_mm, line_margin

SIZE_PX = (960, 624)
FPS = 30.0
FRAMES = 90
HOME_BGR, AWAY_BGR = (46, 87, 228), (222, 134, 46)
HOME_XY = [
    (-585, 0),
    (-480, 120),
    (-480, -120),
    (-380, 250),
    (-380, -250),
    (-300, 40),
    (-210, 170),
    (-210, -160),
    (-120, 0),
    (-60, 260),
    (-60, -250),
]
AWAY_XY = [
    (585, 0),
    (520, 95),
    (470, -120),
    (400, 230),
    (380, -260),
    (330, 20),
    (240, 160),
    (220, -140),
    (130, -30),
    (60, 240),
    (80, -230),
]


def camera() -> CameraModel:
    return CameraModel.overhead(
        SIZE_PX, height_mm=1300.0, view_width_mm=1480.0, dist=(-0.05, 0.01, 0, 0, 0), tilt_x_deg=2.0
    )


def ball_xy_mm(i: int) -> tuple[float, float]:
    """A shot from midfield that rolls into the right goal."""
    s = min(1.0, i / 70.0)
    ease = 1 - (1 - s) ** 2
    return -40.0 + 690.0 * ease, -150.0 + 190.0 * ease


def _poly_px(cam: CameraModel, xy_mm: np.ndarray) -> np.ndarray:
    xyz = np.column_stack([xy_mm, np.zeros(len(xy_mm))])
    return np.round(cam.project(xyz) * 16).astype(np.int32)  # 4 fractional bits


def background(cam: CameraModel, pitch: Pitch) -> np.ndarray:
    w, h = SIZE_PX
    img = np.full((h, w, 3), (22, 30, 34), np.uint8)
    hx, hy = pitch.cloth_half_extent_mm
    cloth = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    cv2.fillPoly(img, [_poly_px(cam, cloth)], color=(58, 125, 46), lineType=cv2.LINE_AA, shift=4)
    for i in range(0, 12, 2):  # mowing stripes
        x0 = -pitch.profile.length_mm / 2 + i * pitch.profile.length_mm / 12
        stripe = np.array([[x0, -375], [x0 + 100, -375], [x0 + 100, 375], [x0, 375]])
        cv2.fillPoly(
            img, [_poly_px(cam, stripe)], color=(64, 136, 52), lineType=cv2.LINE_AA, shift=4
        )
    for band in pitch.lines:
        if band.shape == "arc" and band.radius_mm == 0.0:
            poly = np.asarray(band.a_mm) + band.outer_mm * np.stack(
                [np.cos(np.linspace(0, 2 * math.pi, 24)), np.sin(np.linspace(0, 2 * math.pi, 24))],
                1,
            )
        else:
            inner, outer = band_edges_mm(band)
            poly = np.vstack([inner, outer[::-1]])
        cv2.fillPoly(
            img, [_poly_px(cam, poly)], color=(238, 242, 240), lineType=cv2.LINE_AA, shift=4
        )
    for goal in pitch.goals:
        box = np.array(
            [
                [goal.x_line_mm, goal.y_min_mm],
                [goal.x_back_mm, goal.y_min_mm],
                [goal.x_back_mm, goal.y_max_mm],
                [goal.x_line_mm, goal.y_max_mm],
            ]
        )
        cv2.polylines(img, [_poly_px(cam, box)], True, (225, 225, 225), 2, cv2.LINE_AA, shift=4)
    return img


def _disc(img, cam, xy, radius_mm, height_mm, colour, rim=(30, 30, 30)) -> None:
    angles = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    ring = np.column_stack(
        [
            xy[0] + radius_mm * np.cos(angles),
            xy[1] + radius_mm * np.sin(angles),
            np.full(len(angles), height_mm),
        ]
    )
    pts = np.round(cam.project(ring) * 16).astype(np.int32)
    cv2.fillPoly(img, [pts], color=colour, lineType=cv2.LINE_AA, shift=4)
    cv2.polylines(img, [pts], True, rim, 1, cv2.LINE_AA, shift=4)


def render(cam: CameraModel, pitch: Pitch, base: np.ndarray, i: int) -> np.ndarray:
    img = base.copy()
    p = pitch.profile
    for team, colour in ((HOME_XY, HOME_BGR), (AWAY_XY, AWAY_BGR)):
        for xy in team:
            _disc(img, cam, xy, p.base_radius_mm, p.base_height_mm, colour, (240, 240, 240))
    _disc(img, cam, ball_xy_mm(i), p.ball_radius_mm, p.ball_diameter_mm, (95, 205, 250))
    return img


def tracks_record(i: int) -> dict:
    x, y = ball_xy_mm(i)
    figures = [
        {"id": k + 1, "team": "home", "x_mm": a, "y_mm": b} for k, (a, b) in enumerate(HOME_XY)
    ]
    figures += [
        {"id": k + 12, "team": "away", "x_mm": a, "y_mm": b} for k, (a, b) in enumerate(AWAY_XY)
    ]
    moving = i < 72
    return {
        "frame": i,
        "t_s": round(i / FPS, 4),
        "ball": {"x_mm": round(x, 2), "y_mm": round(y, 2), "moving": moving},
        "figures": figures,
    }


def demo_calls() -> list[dict]:
    """A close call on the shooting line and the goal, measured on the rendered ball path."""
    pitch = load_pitch("fistf")

    def margin(i: int, line: str) -> float:
        return line_margin(pitch, line, ball_xy_mm(i))["margin_mm"]

    close = min(range(FRAMES), key=lambda i: abs(margin(i, "shooting_line_right")))
    goal = next(i for i in range(FRAMES) if margin(i, "goal_line_right") > 0)

    def call(frame, kind, law, line, unc, restart, crossed):
        x, y = ball_xy_mm(frame)
        return {
            "frame": frame,
            "t_s": round(frame / FPS, 4),
            "kind": kind,
            "law": law,
            "line": line.rsplit("_", 1)[0],
            "fully_crossed": crossed,
            "margin_mm": round(margin(frame, line), 2),
            "uncertainty_mm": unc,
            "team": "home",
            "restart": restart,
            "position": {"x_mm": round(x, 1), "y_mm": round(y, 1)},
            "figure": None,
            "evidence": f"evidence/{frame:06d}.jpg",
        }

    return [
        call(close, "close_call", "FISTF 12", "shooting_line_right", 0.5, None, False),
        call(goal, "goal", "FISTF 10", "goal_line_right", 0.5, "kick_off", True),
    ]


def write_demo(folder: Path, frames: int = FRAMES) -> Path:
    """Write the rendered analysis folder and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    cam, pitch = camera(), load_pitch("fistf")
    base = background(cam, pitch)
    calls = {c["frame"]: c for c in demo_calls()}
    writer = cv2.VideoWriter(
        str(folder / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), FPS, SIZE_PX
    )
    (folder / "evidence").mkdir(exist_ok=True)
    with (folder / "tracks.jsonl").open("w", encoding="utf-8") as tracks:
        for i in range(frames):
            img = render(cam, pitch, base, i)
            writer.write(img)
            tracks.write(json.dumps(tracks_record(i)) + "\n")
            if i in calls:
                cv2.imwrite(str(folder / calls[i]["evidence"]), _evidence(cam, img, i))
    writer.release()
    (folder / "calls.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in calls.values()), "utf-8"
    )
    summary = {
        "frames": frames,
        "fps": FPS,
        "clock_s": round(72 / FPS, 2),
        "score": {"home": 1, "away": 0},
        "calls": len(calls),
        "ms_per_frame": 2.4,
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    write_calibration(folder / "calibration.json", calibration(cam, pitch))
    overlay = base.copy()
    for band in pitch.lines:
        if band.shape == "segment" or band.radius_mm > 0:
            for edge in band_edges_mm(band):
                cv2.polylines(
                    overlay, [_poly_px(cam, edge)], False, (245, 217, 56), 1, cv2.LINE_AA, shift=4
                )
    cv2.imwrite(str(folder / "calibration_overlay.png"), overlay)
    return folder


def _evidence(cam: CameraModel, img: np.ndarray, i: int) -> np.ndarray:
    """A crop around the ball, enlarged: what a referee wants to see of the decisive frame."""
    ((u, v),) = cam.project(np.array([[*ball_xy_mm(i), 0.0]]))
    x0 = int(np.clip(u - 80, 0, SIZE_PX[0] - 160))
    y0 = int(np.clip(v - 60, 0, SIZE_PX[1] - 120))
    return cv2.resize(img[y0 : y0 + 120, x0 : x0 + 160], (320, 240), interpolation=cv2.INTER_CUBIC)


def calibration(cam: CameraModel, pitch: Pitch) -> Calibration:
    """A plausible calibration result: every main line used, edges within 0.1 mm of nominal."""
    rng = np.random.default_rng(7)
    kinds = ("touchline", "goal_line", "halfway_line", "shooting_line", "centre_circle")
    used = tuple(b.name for b in pitch.lines if b.kind in kinds)
    return Calibration(
        table="fistf",
        image_size_px=SIZE_PX,
        camera=cam,
        home="left",
        line_edges_mm={n: (-1.5 + rng.normal(0, 0.08), 1.5 + rng.normal(0, 0.08)) for n in used},
        rms_px=0.14,
        rms_mm=0.21,
        per_line_px={n: abs(rng.normal(0.13, 0.04)) for n in used},
        per_line_mm={n: abs(rng.normal(0.2, 0.05)) for n in used},
        lines_used=used,
    )
