"""The live page: scoreboard, call feed and radar, fed by server-sent events from the hub."""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    render_template,
)

from calibration.calibration_file import CalibrationFileError, read_calibration
from web.extensions import HUB, STREAM_SLOTS
from web.geometry import pitch_for, pitch_json
from web.guard import send_evidence
from web.recordings import CALIBRATION_NAME

bp = Blueprint("live", __name__)
BUSY_RETRY_MS = 5000


@bp.get("/")
def page():
    return render_template("live.html", table=current_app.config["TABLE"])


@bp.get("/tv")
def tv():
    """The TV view: the score for the room, and each goal again in slow motion."""
    return render_template("tv.html", table=current_app.config["TABLE"])


@bp.get("/api/state")
def state():
    return jsonify(current_app.extensions[HUB].snapshot())


@bp.get("/api/pitch")
def pitch():
    """The live table's lines in mm (with the measured edges once calibrated)."""
    output_dir = current_app.config["OUTPUT_DIR"]
    path = Path(output_dir) / CALIBRATION_NAME if output_dir else None
    try:
        calibration = read_calibration(path) if path and path.is_file() else None
    except CalibrationFileError:
        calibration = None  # the calibration page reports a broken file; the radar still draws
    return jsonify(pitch_json(pitch_for(current_app.config["TABLE"], calibration)))


@bp.get("/evidence/<path:name>")
def evidence(name: str):
    """An evidence picture or replay clip of the live output folder (only from evidence/)."""
    output_dir = current_app.config["OUTPUT_DIR"]
    if not output_dir:
        abort(404, description="no output folder: this server has no live evidence pictures")
    return send_evidence(Path(output_dir), name)


@bp.get("/events")
def events():
    """Server-sent events: ``state`` first, then ``call``, ``frame``, ``scoreboard``, ``state``.

    Comments (``: heartbeat``) keep idle connections open and let the server notice a client
    that went away.
    """
    hub = current_app.extensions[HUB]
    heartbeat_s = float(current_app.config["SSE_HEARTBEAT_S"])
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    slots = current_app.extensions[STREAM_SLOTS]
    if not slots.acquire():
        # Every stream holds a server thread: past the limit, the page's EventSource is told
        # to come back later, and the API and the controls keep their threads.
        busy = f"retry: {BUSY_RETRY_MS}\n: too many open pages, trying again\n\n".encode()
        return Response(busy, mimetype="text/event-stream", headers=headers)
    sub = hub.subscribe()

    def stream():
        try:
            yield b"retry: 1000\n\n"
            while True:
                items = sub.take(heartbeat_s)
                if items is None:
                    return
                yield b"".join(items) if items else b": heartbeat\n\n"
        finally:
            hub.unsubscribe(sub)

    response = Response(stream(), mimetype="text/event-stream", headers=headers)
    # The server closes every response, also one whose stream never started.
    response.call_on_close(slots.release)
    response.call_on_close(lambda: hub.unsubscribe(sub))
    return response
