"""The calibration page: the report of ``calibration.json``, its overlay, and recalibration."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, abort, current_app, jsonify, render_template, request, send_file

from calibration.calibration_file import CalibrationFileError, read_calibration
from web.app import RECALIBRATE, RECORDINGS
from web.auth import require_pin
from web.recordings import CALIBRATION_NAME, UnknownRecording

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
    """``{"calibration": <calibration.json> | null, "overlay": bool, "recalibrate": bool}``."""
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
            "recalibrate": RECALIBRATE in current_app.extensions,
        }
    )


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
