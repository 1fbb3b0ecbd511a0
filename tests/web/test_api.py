"""The JSON API through Flask's test client: controls, PIN, errors, review and calibration."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from web.app import create_app, hub_of, set_recalibrate, shutdown

# The PIN, frames and calls of the sample analysis in conftest.py.
PIN = "2468"
AUTH = {"X-Tablevar-PIN": PIN}
FRAMES, BALL_OUT_FRAME, GOAL_FRAME, GREY_STEP = 24, 12, 18, 10


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/match/start", None),
        ("/api/match/pause", None),
        ("/api/match/reset", None),
        ("/api/match/undo", None),
        ("/api/match/added-time", {"seconds": 30}),
        ("/api/calls/1/overrule", {"reason": "x"}),
        ("/api/calibration/recalibrate", None),
        ("/api/auth", None),
    ],
)
@pytest.mark.parametrize(
    ("headers", "message"), [({}, "needs the PIN"), ({"X-Tablevar-PIN": "0000"}, "wrong PIN")]
)
def test_controls_refuse_a_missing_or_wrong_pin(client, app, path, body, headers, message):
    before = hub_of(app).snapshot()
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 403
    assert response.is_json and message in response.json["message"]
    after = hub_of(app).snapshot()
    assert (after["match_id"], after["clock"], after["added_time_s"]) == (
        before["match_id"],
        before["clock"],
        before["added_time_s"],
    )


def test_start_pause_added_time_and_undo_with_the_pin(client):
    # Started, the clock waits for the ball to roll (the rules' clock, DESIGN.md 6).
    assert client.post("/api/match/start", headers=AUTH).json["clock"]["status"] == "stopped"
    assert client.post("/api/match/pause", headers=AUTH).json["clock"]["status"] == "paused"
    assert client.post("/api/match/resume", headers=AUTH).json["clock"]["status"] == "stopped"
    state = client.post("/api/match/added-time", json={"seconds": 45}, headers=AUTH).json
    assert state["added_time_s"] == 45
    assert client.post("/api/match/undo", headers=AUTH).json["added_time_s"] == 0
    nothing = client.post("/api/match/undo", headers=AUTH)
    assert nothing.status_code == 409 and "nothing to undo" in nothing.json["message"]


def test_overrule_and_reinstate_a_goal_change_the_score(client, app, sample):
    hub = hub_of(app)
    hub.control("start")
    call = {"id": sample.Play(hub).goal().id}
    over = client.post(f"/api/calls/{call['id']}/overrule", json={"reason": "hand"}, headers=AUTH)
    assert over.json["score"] == {"home": 0, "away": 0}
    assert over.json["restart"]["kind"] == "goal_kick"  # FISTF 7.2.1
    assert (
        over.json["calls"][0] | {"status": "overruled", "reason": "hand"} == over.json["calls"][0]
    )
    back = client.post(f"/api/calls/{call['id']}/reinstate", headers=AUTH)
    assert back.json["score"] == {"home": 1, "away": 0}
    assert client.get("/api/state").json["calls"][0]["status"] == "standing"


@pytest.mark.parametrize(
    ("path", "kwargs", "status", "message"),
    [
        ("/api/match/added-time", {"json": {"seconds": "lots"}}, 400, "'seconds' must be a number"),
        ("/api/match/added-time", {"json": {}}, 400, "'seconds' must be a number"),
        ("/api/match/added-time", {"json": {"seconds": 1e9}}, 400, "within"),
        ("/api/match/added-time", {"json": [30]}, 400, "one JSON object"),
        (
            "/api/match/start",
            {"data": "{not json", "content_type": "application/json"},
            400,
            "one JSON object",
        ),
        ("/api/match/start", {"data": "hello", "content_type": "text/plain"}, 400, "as JSON"),
        ("/api/calls/99/overrule", {"json": {}}, 404, "no call 99"),
        ("/api/calls/1/overrule", {"json": {"reason": 5}}, 400, "'reason' must be text"),
        ("/api/calls/1/explode", {"json": {}}, 404, "no call action"),
        ("/api/calls/1/uphold", {"json": {}}, 409, "does not wait for the referee"),
        ("/api/match/dance", {}, 404, "no match action"),
        ("/api/match/second_half", {"json": {}}, 200, ""),
        ("/api/match/team-names", {"json": {"home": "Reds"}}, 400, "both be non-empty"),
        ("/api/calibration/recalibrate", {}, 409, "no live camera pipeline"),
    ],
)
def test_malformed_and_unknown_requests_get_json_errors_that_say_what_was_wrong(
    client, app, sample, path, kwargs, status, message
):
    hub_of(app).control("start")
    sample.Play(hub_of(app)).ball_out()  # call 1 exists
    response = client.post(path, headers=AUTH, **kwargs)
    assert response.status_code == status
    if status != 200:
        assert response.is_json and message in response.json["message"]
        assert response.json["status"] == status


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/no/such/page", 404),
        ("get", "/api/recordings/nope", 404),
        ("get", "/review/nope", 404),
        ("get", "/api/recordings/match1/frames/999.jpg", 404),
        ("get", "/api/recordings/match1/tracks/999", 404),
        ("get", "/api/recordings/not-a-recording", 404),
        ("get", "/api/recordings/match1/evidence/../../etc/passwd", 404),
        ("get", "/evidence/../match.sqlite", 404),
        ("get", "/api/calibration/overlay.png", 404),
        ("get", "/api/match/start", 405),
    ],
)
def test_unknown_resources_are_json_errors(client, method, path, status):
    response = getattr(client, method)(path)
    assert response.status_code == status and response.is_json
    assert response.json["status"] == status


def test_live_evidence_is_served_from_the_output_folder(client, app, config, sample):
    sample.write_jpeg(Path(config["OUTPUT_DIR"]) / "evidence" / "5.jpg")
    hub = hub_of(app)
    hub.control("start")
    out = sample.Play(hub).ball_out()
    (call,) = hub.publish_calls([(out, "evidence/5.jpg", None)])
    response = client.get(f"/evidence/{call['evidence_rel']}")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR).shape == (
        90,
        120,
        3,
    )


def test_the_match_resumes_in_a_new_app_on_the_same_log(config, sample):
    first = create_app(config)
    hub = hub_of(first)
    hub.control("start")
    play = sample.Play(hub)
    play.roll(1.5)
    goal = play.goal()
    hub.control("overrule", call_id=goal.id, reason="offside")
    hub.control("added_time", seconds=30)
    before = hub_of(first).snapshot()
    clock = hub.match.clock
    shutdown(first)

    second = create_app(config)
    try:
        state = second.test_client().get("/api/state").json
        assert state["score"] == {"home": 0, "away": 0} and state["added_time_s"] == 30
        assert [c["kind"] for c in state["calls"]] == ["goal"]
        assert state["calls"][0]["status"] == "overruled"
        assert state["calls"][0]["reason"] == "offside"
        assert state["clock"] == before["clock"] and state["restart"] == before["restart"]
        assert hub_of(second).match.clock == clock  # the rules' clock, to the frame
    finally:
        shutdown(second)


def test_the_log_of_a_match_exports_as_json_and_csv(client, app, sample):
    hub = hub_of(app)
    hub.control("start")
    goal = sample.Play(hub).goal()
    hub.control("overrule", call_id=goal.id, reason="hand")
    match_id = hub.match_id
    data = client.get(f"/api/match/{match_id}/export.json").json
    assert [(e["kind"], e["call_id"]) for e in data["events"]] == [
        ("start", None),
        ("call", goal.id),
        ("overrule", goal.id),
    ]
    response = client.get(f"/api/match/{match_id}/export.csv")
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].endswith(f'match-{match_id}.csv"')
    assert response.data.decode().splitlines()[2].split(",")[:6] == [
        "2",
        "call",
        str(goal.id),
        str(goal.frame),
        str(goal.t_s),
        "goal",
    ]
    assert client.get(f"/api/match/{match_id + 5}/export.csv").status_code == 404
    assert client.get(f"/api/match/{match_id}/export.xml").status_code == 404


def test_event_stream_starts_with_the_state_and_carries_pushed_calls(client, app, sample):
    response = client.get("/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert next(chunks).startswith(b"retry:")
    assert next(chunks).startswith(b"event: state\n")
    hub_of(app).control("start")
    assert next(chunks).startswith(b"event: state\n")
    out = sample.Play(hub_of(app)).ball_out()
    messages = next(chunks).decode()
    while "event: call" not in messages:
        messages += next(chunks).decode()
    call = messages.split("event: call\ndata: ", 1)[1].split("\n", 1)[0]
    assert json.loads(call)["frame"] == out.frame
    rest = next(chunks)
    while rest.startswith(b"event: scoreboard"):  # the newest scoreboard, coalesced
        rest = next(chunks)
    assert rest == b": heartbeat\n\n"  # idle: a comment every SSE_HEARTBEAT_S
    response.close()
    assert hub_of(app).subscriber_count == 0


def test_pages_render(client):
    for path, text in [
        ("/", b"Radar"),
        ("/review", b"match1"),
        ("/review/match1", b"Ask the rules"),
        ("/calibration", b"Recalibrate"),
    ]:
        response = client.get(path)
        assert response.status_code == 200 and text in response.data, path


def test_recording_lists_calls_frames_and_projected_lines(client):
    data = client.get("/api/recordings/match1").json
    assert data["frames"] == FRAMES
    assert [c["frame"] for c in data["calls"]] == [BALL_OUT_FRAME, GOAL_FRAME]
    assert data["calls"][0]["evidence_rel"] == f"evidence/{BALL_OUT_FRAME}.jpg"
    assert {line["name"] for line in data["lines_px"]} >= {"goal_line_right", "touchline_top"}
    listing = client.get("/api/recordings").json["recordings"]
    assert [r["name"] for r in listing] == ["match1"]


@pytest.mark.parametrize("index", [0, 5, 17, 3, FRAMES - 1])
def test_frames_are_the_requested_ones_in_any_order(client, index):
    response = client.get(f"/api/recordings/match1/frames/{index}.jpg")
    assert response.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_GRAYSCALE)
    # Nearer to its own grey level than to a neighbour's: the codec shifts levels a little.
    assert abs(float(image.mean()) - GREY_STEP * index) < GREY_STEP / 2


def test_tracks_overlay_holds_ball_footprint_pixels_and_the_call_margin(client):
    data = client.get(f"/api/recordings/match1/tracks/{BALL_OUT_FRAME}").json
    assert data["record"]["frame"] == BALL_OUT_FRAME
    ball = np.array(data["ball_px"])
    assert ball.shape == (32, 2) and (ball[:, 0] > 160).all()  # right half of the image
    (margin,) = data["margins"]
    assert margin["line"] == "goal_line_right" and margin["call"] == 0
    assert len(margin["from_px"]) == 2 and len(margin["to_px"]) == 2


@pytest.mark.parametrize(
    ("frame", "line", "margin_mm", "over"),
    [
        # Ball centre at x = 560 + 3 i, radius 10.5; measured far edge of goal_line_right at
        # x = 598.5 + 1.4 = 599.9 (calibration.json moved it from the nominal 600).
        (20, "goal_line_right", 560 + 60 - 10.5 - 599.9, True),
        (12, "goal_line", 560 + 36 - 10.5 - 599.9, False),
        # Shooting line right: centre x = 300, far (goal-side) edge 301.5; the ball is beyond it.
        (0, "shooting_line_right", 560 - 10.5 - 301.5, True),
    ],
)
def test_ask_fully_over_measures_the_margin_to_the_far_edge(client, frame, line, margin_mm, over):
    answer = client.post(
        "/api/recordings/match1/ask", json={"frame": frame, "question": "fully_over", "line": line}
    ).json
    assert answer["margin_mm"] == pytest.approx(margin_mm, abs=1e-3)
    assert answer["fully_over"] is over and answer["answer"] is over


def test_ask_offside_reports_positions_in_the_shooting_zone(client):
    answer = client.post(
        "/api/recordings/match1/ask", json={"frame": 0, "question": "offside", "attacking": "home"}
    ).json
    assert answer["zone"] == "shooting_zone_right" and answer["law"] == "FISTF 13.1"
    rows = {row["id"]: row for row in answer["figures"]}
    # Figure 1 (x 520) is in the zone but the ball (x 560) is nearer the goal line: not offside.
    assert rows[1]["in_shooting_zone"] and not rows[1]["offside_position"]
    assert not rows[2]["in_shooting_zone"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"question": "fully_over", "line": "goal_line"}, 400, "'frame' must be"),
        ({"frame": -1, "question": "offside"}, 400, "'frame' must be"),
        ({"frame": 1}, 400, "'question' is missing"),
        ({"frame": 1, "question": "weather"}, 400, "unknown question"),
        ({"frame": 1, "question": "fully_over", "line": "moon_line"}, 400, "no line 'moon_line'"),
        ({"frame": 1, "question": "fully_over"}, 400, "needs 'line'"),
        ({"frame": 1, "question": "offside", "attacking": "both"}, 400, "'attacking'"),
        ({"frame": 500, "question": "offside"}, 404, "no tracks record"),
    ],
)
def test_ask_refuses_bad_questions(client, body, status, message):
    response = client.post("/api/recordings/match1/ask", json=body)
    assert response.status_code == status and message in response.json["message"]


def test_calibration_report_overlay_and_recalibrate_callback(client, app, recordings_dir):
    folder = recordings_dir / "match1"
    assert cv2.imwrite(str(folder / "calibration_overlay.png"), np.zeros((20, 30, 3), np.uint8))
    report = client.get("/api/calibration?recording=match1").json
    assert report["calibration"]["residuals"]["rms_px"] == 0.12
    assert report["overlay"] and not report["recalibrate"]
    png = client.get("/api/calibration/overlay.png?recording=match1")
    assert png.mimetype == "image/png" and png.data[:4] == b"\x89PNG"
    assert client.get("/api/calibration").json["calibration"] is None  # nothing live yet

    runs = []
    set_recalibrate(app, lambda: runs.append(1) or {"residuals": {"rms_px": 0.1}})
    done = client.post("/api/calibration/recalibrate", headers=AUTH)
    assert done.status_code == 200 and runs == [1]

    def fails():
        raise ValueError("lines not found: goal_line_left")

    set_recalibrate(app, fails)
    failed = client.post("/api/calibration/recalibrate", headers=AUTH)
    assert failed.status_code == 422 and "goal_line_left" in failed.json["message"]


def test_a_broken_analysis_file_is_reported_not_a_traceback(client, recordings_dir):
    (recordings_dir / "match1" / "calls.jsonl").write_text('{"frame": 1}\n{oops\n', "utf-8")
    response = client.get("/api/recordings/match1")
    assert response.status_code == 422 and "line 2 is not JSON" in response.json["message"]


def test_a_rewritten_calls_file_is_read_again(client, recordings_dir, sample):
    assert len(client.get("/api/recordings/match1").json["calls"]) == 2
    path = recordings_dir / "match1" / "calls.jsonl"
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(sample.call_record(20, "goal_disallowed")) + "\n")
    calls = client.get("/api/recordings/match1").json["calls"]
    assert [c["kind"] for c in calls] == ["ball_out", "goal", "goal_disallowed"]


@pytest.mark.parametrize("path", ["/api/calibration?recording=match1", "/api/recordings/match1"])
def test_a_calibration_of_another_schema_is_refused_by_name(client, recordings_dir, path):
    calibration = recordings_dir / "match1" / "calibration.json"
    calibration.write_text(json.dumps({"schema_version": 99}), "utf-8")
    response = client.get(path)
    assert response.status_code == 422 and "schema_version 99" in response.json["message"]
