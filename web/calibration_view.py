"""The calibration page: the report of ``calibration.json``, its overlay, recalibration, and
picking the ball.

When tablevar cannot tell the ball from what else is round on the cloth (a kit of the ball's
colour, a ball of an unusual colour), a person clicks the ball on the plain picture of the
table kept with the calibration (``calibration_view.png``); its colour is read there
(``vision.pick``) and saved in ``calibration.json`` as ``ball_colour``, which the live pipeline
takes at once and ``tablevar analyze --calibration`` uses next time.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import cv2
import numpy as np
from flask import Blueprint, abort, current_app, jsonify, render_template, request, send_file

from calibration.calibration_file import CalibrationFileError, read_calibration, write_calibration
from calibration.tables import load_profile
from vision.pick import PickError, ball_colour_at, hex_colour
from web.auth import json_body, require_pin
from web.extensions import BALL_COLOUR, HUB, RECALIBRATE, RECORDINGS, hub_of
from web.guard import send_inside
from web.recordings import CALIBRATION_NAME, TRACKS_NAME, VIEW_NAME, UnknownRecording

bp = Blueprint("calibration", __name__)
OVERLAY_NAMES = ("calibration_overlay.png", "calibration-overlay.png", "overlay.png")


def _folder() -> Path | None:
    """The live output folder, or a recording's folder with ``?recording=NAME``."""
    name = request.args.get("recording")
    if name:
        try:
            return current_app.extensions[RECORDINGS].get(name).folder
        except UnknownRecording as exc:
            abort(404, description=str(exc))
    output_dir = current_app.config["OUTPUT_DIR"]
    return Path(output_dir) if output_dir else None


def _overlay(folder: Path) -> Path | None:
    for name in OVERLAY_NAMES:
        path = (folder / name).resolve()
        if path.is_file() and path.suffix == ".png" and path.is_relative_to(folder.resolve()):
            return path
    return None


@bp.get("/calibration")
def page():
    return render_template("calibration.html", recording=request.args.get("recording"))


@bp.get("/api/calibration")
def report():
    """``{"calibration": <calibration.json> | null, "overlay": bool, "view": bool,
    "recalibrate": bool, "ball_seen": float | null}``; ``view``: a plain picture to pick the
    ball on is kept; ``ball_seen``: the share of a recording's frames with the ball found (of
    the newest live frame: 0 or 1), null before any."""
    folder = _folder()
    path = folder / CALIBRATION_NAME if folder else None
    try:
        calibration = read_calibration(path) if path and path.is_file() else None
    except CalibrationFileError as exc:
        abort(422, description=str(exc))
    return jsonify(
        {
            "calibration": calibration.to_dict() if calibration is not None else None,
            "overlay": bool(folder and _overlay(folder)),
            "view": bool(folder and (folder / VIEW_NAME).is_file()),
            "recalibrate": RECALIBRATE in current_app.extensions,
            "ball_seen": _ball_seen(folder),
        }
    )


def _ball_seen(folder: Path | None) -> float | None:
    """Share of frames with the ball found: a recording's ``tracks.jsonl``, or the live frame."""
    if request.args.get("recording") is None and HUB in current_app.extensions:
        frame = hub_of(current_app).snapshot().get("frame")
        return None if not frame else float(frame.get("ball") is not None)
    path = folder / TRACKS_NAME if folder else None
    if path is None or not path.is_file():
        return None
    seen = rows = 0
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash says nothing
            if isinstance(record, dict):
                rows += 1
                seen += record.get("ball") is not None
    return seen / rows if rows else None


@bp.get("/api/calibration/overlay.png")
def overlay():
    folder = _folder()
    path = _overlay(folder) if folder else None
    if path is None:
        abort(404, description="no calibration overlay picture")
    return send_file(path, mimetype="image/png", max_age=0)


@bp.post("/api/calibration/recalibrate")
@require_pin
def recalibrate():
    """Run the live pipeline's recalibration; 409 when no pipeline registered one."""
    callback = current_app.extensions.get(RECALIBRATE)
    if callback is None:
        abort(409, description="no live camera pipeline is running here: nothing to recalibrate")
    try:
        result = callback()
    except ValueError as exc:
        abort(422, description=str(exc))
    return jsonify({"ok": True, "calibration": result})


@bp.get("/api/calibration/view.png")
def view():
    folder = _folder()
    if folder is None or not (folder / VIEW_NAME).is_file():
        abort(404, description="no picture of the table was kept with this calibration")
    return send_inside(folder, VIEW_NAME, "image/png", max_age=0)


@bp.post("/api/calibration/ball")
@require_pin
def pick_ball():
    """Read the ball's colour where ``{"x_px", "y_px"}`` points on the kept picture and save it.

    Returns ``{"ball_colour": "#rrggbb"}``; 400 for a malformed point, 409 when there is no
    calibration or picture to pick on (or its folder cannot be written), 422 when the point
    shows no ball.
    """
    body = json_body()
    try:
        x, y = (_number(body, key) for key in ("x_px", "y_px"))
    except ValueError as exc:
        abort(400, description=str(exc))
    folder = _folder()
    cal_path = folder / CALIBRATION_NAME if folder else None
    if cal_path is None or not cal_path.is_file():
        abort(409, description="no calibration yet: calibrate before picking the ball")
    picture = cv2.imread(str(folder / VIEW_NAME), cv2.IMREAD_COLOR)
    if picture is None:
        abort(409, description="no picture of the table was kept with this calibration")
    try:
        cal = read_calibration(cal_path)
        r_mm = load_profile(cal.table).ball_radius_mm
        ground = cal.camera.back_project(np.array([[x, y]]), r_mm)
        r_px = r_mm / float(cal.camera.mm_per_px(ground, r_mm)[0])
        colour = hex_colour(ball_colour_at(picture, (x, y), r_px))
    except PickError as exc:
        abort(422, description=str(exc))
    except (CalibrationFileError, ValueError) as exc:
        abort(409, description=f"cannot read the calibration: {exc}")
    live = current_app.extensions.get(BALL_COLOUR)
    if live is not None and request.args.get("recording") is None:
        live(colour)  # the pipeline saves it with its calibration and looks for that ball
    else:
        try:
            write_calibration(cal_path, dataclasses.replace(cal, ball_colour=colour))
        except OSError as exc:
            abort(
                409,
                description=f"cannot save the ball's colour in {CALIBRATION_NAME} "
                f"({exc.strerror}); analyze again with --ball-colour {colour}",
            )
    return jsonify({"ball_colour": colour})


def _number(body: dict, key: str) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{key} must be a finite number of pixels, got {value!r}")
    return float(value)
