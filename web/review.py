"""The review page: a recording's calls, frames, overlays and questions to the rules."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    send_file,
    url_for,
)

from calibration.calibration_file import CalibrationFileError
from rules.profile import ProfileError
from web.auth import json_body
from web.decisions import goal_end, offside_shapes, shot_frame, shot_shapes
from web.extensions import RECORDINGS, hub_of
from web.games import game_of, page_words
from web.geometry import (
    QuestionError,
    ask,
    circle_mm,
    line_margin,
    lines_px,
    pitch_for,
    pitch_json,
    project_mm,
)
from web.guard import send_evidence
from web.playback import PlaybackError
from web.recordings import Analysis, AnalysisError, FrameOutOfRange, UnknownRecording

bp = Blueprint("review", __name__)


def geometry_of(analysis: Analysis):
    """(pitch with measured edges, camera or None) of a recording, rebuilt when its
    calibration.json changes."""

    def build():
        calibration = analysis.calibration()
        camera = calibration.camera if calibration is not None else None
        return pitch_for(analysis.table(), calibration), camera

    return read_or_422(analysis.cached, "geometry", "calibration.json", build)


def analysis_named(name: str) -> Analysis:
    try:
        return current_app.extensions[RECORDINGS].get(name)
    except UnknownRecording as exc:
        abort(404, description=str(exc))


def read_or_422(fn, *args):
    """Run a reader; a broken analysis file is the server's data, reported as 422 with its name."""
    try:
        return fn(*args)
    except (AnalysisError, ProfileError, CalibrationFileError, PlaybackError) as exc:
        abort(422, description=str(exc))


@bp.get("/review")
def index():
    """Past matches, recorded and live, newest first; ``?q=`` keeps those whose name, table or
    score contains it (case-insensitive)."""
    query = (request.args.get("q") or "").strip()[:100]
    recorded = [r for r in _listing() if _matches(query, r["name"], r["summary"].get("score"))]
    live = [m for m in _live_matches() if _matches(query, m["name"], m["score"], m["table"])]
    return render_template(
        "review_index.html", recordings=recorded[::-1], live=live[::-1], query=query
    )


def _matches(query: str, *fields: Any) -> bool:
    if not query:
        return True
    text = " ".join(_field_text(f) for f in fields).lower()
    return all(word in text for word in query.lower().split())


def _field_text(value: Any) -> str:
    if isinstance(value, dict) and "home" in value:
        return f"{value.get('home')}-{value.get('away')} {value.get('home')}:{value.get('away')}"
    return "" if value is None else str(value)


def _live_matches() -> list[dict[str, Any]]:
    """The matches of the live match log, with their score and calls."""
    log = hub_of(current_app).log
    out = []
    for info in log.matches():
        snapshot = log.snapshot(info.id)
        score = (snapshot.state.get("score") if snapshot else None) or [0, 0]
        started = datetime.fromtimestamp(info.started_at, tz=UTC)
        out.append(
            {
                "id": info.id,
                "name": f"Live match {info.id}",
                "table": info.table,
                "started": started.strftime("%Y-%m-%d %H:%M UTC"),
                "score": {"home": score[0], "away": score[1]},
                "calls": len(log.events(info.id, kind="call")),
            }
        )
    return out


@bp.get("/review/<name>")
def page(name: str):
    analysis = analysis_named(name)
    return render_template(
        "review.html", name=analysis.name, **page_words(analysis.table(), analysis.game())
    )


@bp.get("/api/recordings")
def recordings():
    return jsonify({"recordings": _listing()})


def _listing() -> list[dict[str, Any]]:
    recs = current_app.extensions[RECORDINGS]
    out = []
    for name in recs.names():
        analysis = recs.get(name)
        try:
            summary = analysis.summary() or {}
        except AnalysisError as exc:
            summary = {"error": str(exc)}
        out.append({"name": name, "summary": summary})
    return out


@bp.get("/api/recordings/<name>")
def recording(name: str):
    """Everything the review page needs once: calls, counts, pitch in mm, lines in pixels."""
    analysis = analysis_named(name)
    frames = read_or_422(analysis.frames)
    pitch, camera = geometry_of(analysis)
    summary = read_or_422(analysis.summary) or {}
    video = read_or_422(analysis.video_info)
    placed = game_of(read_or_422(analysis.table), analysis.game()).placed_restarts
    ring_mm = 1.4 * pitch.profile.ball_radius_mm  # as the evidence picture rings it
    return jsonify(
        {
            "name": analysis.name,
            "summary": summary,
            "frames": frames.frame_count,
            "fps": summary.get("fps") or frames.fps,
            "size_px": frames.size_px,
            "video": {
                "url": url_for("review.video", name=analysis.name),
                "codec": video.codec,
                "playable": video.playable,
                "frame_times_s": [round(t, 6) for t in video.frame_times_s],
            },
            "calls": [
                _with_position_px(c, camera, ring_mm if placed else None)
                for c in read_or_422(analysis.calls)
            ],
            "pitch": pitch_json(pitch),
            "lines_px": lines_px(pitch, camera) if camera else None,
        }
    )


def _with_position_px(
    call: dict[str, Any], camera, spot_ring_mm: float | None = None
) -> dict[str, Any]:
    """The call with ``position_px``: where it happened in the picture (the spot to zoom on),
    and ``restart_spot``: in a game whose ball is put on its restart's spot (``spot_ring_mm``
    given: the radius it is ringed with), a restart's ``position`` is that spot
    (``{"x_mm", "y_mm", "px", "ring_px"}``, the pixels None without a camera), else None."""
    position = call.get("position")
    xy = mm = None
    if isinstance(position, dict):
        x, y = position.get("x_mm"), position.get("y_mm")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            mm = (float(x), float(y))
            if camera is not None:
                xy = project_mm(camera, np.array([mm]))[0]
    spot = None
    if spot_ring_mm is not None and call.get("restart") and mm is not None:
        ring = project_mm(camera, circle_mm(mm, spot_ring_mm)) if camera is not None else None
        spot = {"x_mm": mm[0], "y_mm": mm[1], "px": xy, "ring_px": ring}
    return {**call, "position_px": xy, "restart_spot": spot}


@bp.get("/api/recordings/<name>/frames/<int:index>.jpg")
def frame(name: str, index: int):
    reader = read_or_422(analysis_named(name).frames)
    try:
        data = reader.jpeg(index)
    except FrameOutOfRange as exc:
        abort(404, description=str(exc))
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "max-age=3600"})


@bp.get("/api/recordings/<name>/video")
def video(name: str):
    """The video for the page's ``<video>`` element, with range requests (seeking streams only
    what it needs). A video browsers cannot play is served as its proxy, made on first use."""
    path = read_or_422(analysis_named(name).browser_video)
    # Absolute: Flask would read a relative path against the app, not the working folder.
    return send_file(path.absolute(), mimetype="video/mp4", conditional=True, max_age=3600)


@bp.get("/api/recordings/<name>/evidence/<path:path>")
def evidence(name: str, path: str):
    return send_evidence(analysis_named(name).folder, path)


@bp.get("/api/recordings/<name>/tracks/<int:index>")
def tracks(name: str, index: int):
    """The frame's tracks record, with its ball and bases projected to pixels for overlays.

    A call decided on this frame adds ``margins``: the ball's nearest point and its foot on the
    line's far edge, in mm and pixels, with the call's margin.
    """
    analysis = analysis_named(name)
    record = read_or_422(analysis.tracks.get, index)
    if record is None:
        abort(404, description=f"no tracks record for frame {index} of {name}")
    pitch, camera = geometry_of(analysis)
    p = pitch.profile
    out: dict[str, Any] = {"record": record, "ball_px": None, "figures_px": [], "margins": []}
    ball = record.get("ball")
    if camera is not None and ball:
        out["ball_px"] = project_mm(
            camera, circle_mm((ball["x_mm"], ball["y_mm"]), p.ball_radius_mm)
        )
    if camera is not None:
        out["figures_px"] = [
            {
                "id": f.get("id"),
                "team": f.get("team"),
                "outline": project_mm(camera, circle_mm((f["x_mm"], f["y_mm"]), p.base_radius_mm)),
            }
            for f in record.get("figures") or []
        ]
    calls = [c for c in read_or_422(analysis.calls) if c.get("frame") == index]
    shots = {c["index"]: _shot_of(analysis, c) for c in calls}
    for call in calls:
        # A goal decided on the shooting line is measured where the shot was taken, not where
        # the ball lies now (in the net, far past the shooting line).
        shot = shots[call["index"]] if call.get("line") == "shooting_line" else None
        at = shot["ball"] if shot is not None else ball
        if call.get("line") and at:
            geo = read_or_422(line_margin, pitch, call["line"], (at["x_mm"], at["y_mm"]))
            if camera is not None:
                ends = project_mm(camera, np.array([geo["from_mm"], geo["to_mm"]]))
                geo["from_px"], geo["to_px"] = ends
            out["margins"].append(
                {**geo, "call": call["index"], "call_margin_mm": call.get("margin_mm")}
            )
    if camera is not None:
        out.update(_decisions(analysis, pitch, camera, record, calls, shots))
    return jsonify(out)


SHOT_LOOKBACK_S = 10.0  # how far before a goal its shot is looked for


def _shot_of(analysis: Analysis, call: dict[str, Any]) -> dict[str, Any] | None:
    """The tracks record a goal call's shot was taken from (``web.decisions.shot_frame``)."""
    if call.get("kind") not in ("goal", "goal_disallowed") or goal_end(call) is None:
        return None
    fps = float((read_or_422(analysis.summary) or {}).get("fps") or 60.0)
    frames = range(call["frame"], max(-1, call["frame"] - int(SHOT_LOOKBACK_S * fps)), -1)
    return shot_frame(read_or_422(analysis.tracks.get, i) for i in frames)


def _decisions(analysis, pitch, camera, record, calls, shots) -> dict[str, Any]:
    """The decisive shapes of the frame's calls in pixels (``web.decisions``): the ball's
    footprint widened by the call's uncertainty, offside lines and figures, shot positions."""
    p = pitch.profile
    calibration = read_or_422(analysis.calibration)
    home_end = calibration.home if calibration and calibration.home in ("left", "right") else "left"
    ball = record.get("ball")
    out: dict[str, Any] = {"ball_margin_px": None, "offside": [], "shots": []}
    for call in calls:
        unc = call.get("uncertainty_mm")
        if ball and isinstance(unc, (int, float)) and 0 < unc < p.length_mm:
            ring = circle_mm((ball["x_mm"], ball["y_mm"]), p.ball_radius_mm + unc)
            out["ball_margin_px"] = project_mm(camera, ring)
        if call.get("kind") == "offside" and isinstance(call.get("figure"), dict):
            shapes = offside_shapes(pitch, record, call["figure"], home_end)
            if shapes is not None:
                out["offside"].append(_offside_px(camera, p.base_radius_mm, shapes, call))
        shot = shots.get(call["index"])
        if shot is not None:
            shapes = shot_shapes(
                pitch, goal_end(call), (shot["ball"]["x_mm"], shot["ball"]["y_mm"])
            )
            out["shots"].append(
                {
                    **{k: shapes[k] for k in ("end", "line", "inside", "margin_mm")},
                    "call": call["index"],
                    "frame": shot["frame"],
                    "line_px": project_mm(camera, shapes["line_mm"]),
                    "ball_px": project_mm(camera, circle_mm(shapes["ball_mm"], p.ball_radius_mm)),
                }
            )
    return out


def _offside_px(camera, radius_mm: float, shapes: dict[str, Any], call) -> dict[str, Any]:
    compared = []
    for fig in shapes["compared"]:
        xy = (fig["x_mm"], fig["y_mm"])
        compared.append(
            {
                **fig,
                "outline": project_mm(camera, circle_mm(xy, radius_mm + 2.0)),
                "label_px": project_mm(camera, np.array([xy]))[0],
            }
        )
    return {
        "call": call["index"],
        "end": shapes["end"],
        "line_px": project_mm(camera, shapes["line_mm"]),
        "compared": compared,
    }


@bp.post("/api/recordings/<name>/ask")
def ask_rules(name: str):
    """Body ``{"frame": n, "question": "fully_over", "line": ...}`` or ``... "offside" ...``.

    Read-only: it measures, it changes nothing, so it needs no PIN.
    """
    body = json_body()
    index = body.get("frame")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        abort(400, description=f"'frame' must be a frame index >= 0, got {index!r}")
    if "question" not in body:
        abort(400, description="'question' is missing: ask 'fully_over' or 'offside'")
    analysis = analysis_named(name)
    record = read_or_422(analysis.tracks.get, index)
    if record is None:
        abort(404, description=f"no tracks record for frame {index} of {name}")
    pitch, _ = geometry_of(analysis)
    calibration = read_or_422(analysis.calibration)
    if calibration is not None and calibration.home in ("left", "right"):
        body = {"home_end": calibration.home, **body}  # which goal home defends, unless asked
    try:
        answer = ask(pitch, record, body)
    except QuestionError as exc:
        abort(400, description=str(exc))
    return jsonify({"frame": index, **answer})
