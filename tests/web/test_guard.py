"""The web edge against an attacker on the venue's network and a careless user: PIN guessing,
cross-origin posts, files outside the evidence folder, oversized and deeply nested bodies,
security headers and error messages (DESIGN.md section 8)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from web.app import create_app, hub_of, shutdown

PIN = "2468"
AUTH = {"X-Tablevar-PIN": PIN}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_pin_throttle_waits_double_after_the_free_tries_up_to_the_longest():
    from web.guard import PinThrottle

    clock = Clock()
    throttle = PinThrottle(free_tries=3, delay_s=1.0, max_delay_s=10.0, clock=clock)
    waits = [throttle.failed("10.0.0.9")[1] for _ in range(8)]
    assert waits == [0, 0, 0, 1, 2, 4, 8, 10]
    assert throttle.wait_s("10.0.0.9") == 10 and throttle.wait_s("10.0.0.8") == 0
    clock.now += 10
    assert throttle.wait_s("10.0.0.9") == 0
    throttle.succeeded("10.0.0.9")
    assert throttle.failed("10.0.0.9") == (1, 0)


def test_wrong_pins_are_slowed_down_per_client_and_logged(config, caplog):
    app = create_app({**config, "PIN_FREE_TRIES": 3, "PIN_DELAY_S": 30.0})
    client = app.test_client()
    try:
        with caplog.at_level(logging.WARNING):
            codes = [
                client.post("/api/auth", headers={"X-Tablevar-PIN": f"{i:04d}"}).status_code
                for i in range(6)
            ]
        # Three free tries, the fourth wrong one sets a 30 s wait: the rest are not even checked.
        assert codes == [403, 403, 403, 403, 429, 429]
        refused = client.post("/api/auth", headers=AUTH)  # the right PIN waits too
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 29
        assert "too many wrong PINs" in refused.json["message"]
        assert sum("wrong PIN from 127.0.0.1" in r.getMessage() for r in caplog.records) == 4
        # Another client is not held up by this one.
        other = client.post("/api/auth", headers=AUTH, environ_base={"REMOTE_ADDR": "10.1.1.2"})
        assert other.status_code == 200
    finally:
        shutdown(app)


def test_a_right_pin_after_the_wait_unlocks_and_clears_the_count(config):
    app = create_app({**config, "PIN_FREE_TRIES": 0, "PIN_DELAY_S": 0.05})
    client = app.test_client()
    try:
        assert client.post("/api/auth", headers={"X-Tablevar-PIN": "1"}).status_code == 403
        assert client.post("/api/auth", headers=AUTH).status_code == 429
        import time

        time.sleep(0.06)
        assert client.post("/api/auth", headers=AUTH).status_code == 200
        assert client.post("/api/auth", headers={"X-Tablevar-PIN": "1"}).status_code == 403
    finally:
        shutdown(app)


def test_the_pin_is_not_taken_from_a_form_field(client, app):
    response = client.post("/api/match/added-time", data={"pin": PIN, "seconds": "20"})
    assert response.status_code == 403 and "needs the PIN" in response.json["message"]
    assert hub_of(app).snapshot()["added_time_s"] == 0


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example:8000"},
        {"Origin": "null"},
        {"Referer": "http://192.168.1.66/attack.html"},
    ],
)
def test_state_changing_requests_from_another_origin_are_refused(client, app, headers):
    response = client.post("/api/match/added-time", json={"seconds": 20}, headers=AUTH | headers)
    assert response.status_code == 403 and "must come from this page" in response.json["message"]
    assert hub_of(app).snapshot()["added_time_s"] == 0


@pytest.mark.parametrize(
    "headers", [{"Origin": "http://localhost"}, {"Referer": "http://localhost/review"}, {}]
)
def test_requests_from_the_page_itself_or_no_browser_are_accepted(client, headers):
    response = client.post("/api/match/added-time", json={"seconds": 20}, headers=AUTH | headers)
    assert response.status_code == 200 and response.json["added_time_s"] == 20


@pytest.fixture
def folder_with_traps(recordings_dir: Path, tmp_path: Path, sample) -> Path:
    """The sample recording with things that must never be served next to its evidence."""
    folder = recordings_dir / "match1"
    secret = tmp_path / "secret.txt"
    secret.write_text("the venue's wifi password", "utf-8")
    (folder / "evidence" / "link.jpg").symlink_to(secret)
    (folder / "evidence" / "page.html").write_text("<script>alert(1)</script>", "utf-8")
    (folder / "evidence" / "pic.svg").write_text("<svg onload='alert(1)'/>", "utf-8")
    (folder / "secret.jpg").symlink_to(secret)
    (folder / "shot.jpg").write_bytes((folder / "evidence" / "12.jpg").read_bytes())
    return folder


@pytest.mark.parametrize(
    "path",
    [
        "evidence/link.jpg",  # a link out of the folder
        "evidence/page.html",  # script from the app's origin
        "evidence/pic.svg",
        "secret.jpg",
        "shot.jpg",  # a picture, but not in evidence/
        "tracks.jsonl",
        "calibration.json",
        "video.mp4",
        "evidence/../calibration.json",
        "evidence/%2e%2e/calibration.json",
    ],
)
def test_review_evidence_serves_only_pictures_from_the_evidence_folder(
    client, folder_with_traps, path
):
    response = client.get(f"/api/recordings/match1/evidence/{path}")
    assert response.status_code == 404 and response.is_json
    assert "wifi" not in response.get_data(as_text=True)


def test_review_evidence_pictures_are_still_served(client, folder_with_traps):
    response = client.get("/api/recordings/match1/evidence/evidence/12.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert response.data[:2] == b"\xff\xd8"


@pytest.mark.parametrize("name", ["match.sqlite", "evidence/../match.sqlite", "calibration.json"])
def test_live_output_folder_serves_no_match_log(client, config, name):
    out = Path(config["OUTPUT_DIR"])
    (out / "match.sqlite").write_bytes(b"SQLite format 3\x00")
    (out / "calibration.json").write_text("{}", "utf-8")
    assert client.get(f"/evidence/{name}").status_code == 404


def test_calibration_view_link_out_of_the_folder_is_not_served(client, config, tmp_path):
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0", "utf-8")
    (Path(config["OUTPUT_DIR"]) / "calibration_view.png").symlink_to(secret)
    assert client.get("/api/calibration/view.png").status_code == 404


def test_a_body_over_the_limit_is_refused_with_413(client):
    big = b'{"reason": "' + b"x" * (200 * 1024) + b'"}'
    response = client.post("/api/recordings/match1/ask", data=big, content_type="application/json")
    assert response.status_code == 413 and response.is_json


@pytest.mark.parametrize("depth", [17, 1000, 100_000])
def test_deeply_nested_json_is_a_400_not_a_500(client, depth):
    client.application.config["MAX_CONTENT_LENGTH"] = 1 << 20  # depth, not size, refuses it
    body = '{"frame": 0, "question": ' + "[" * depth + "]" * depth + "}"
    response = client.post("/api/recordings/match1/ask", data=body, content_type="application/json")
    assert response.status_code == 400 and "nests deeper" in response.json["message"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_bodies_with_nan_are_refused(client, constant):
    body = f'{{"seconds": {constant}}}'
    response = client.post(
        "/api/match/added-time", data=body, content_type="application/json", headers=AUTH
    )
    assert response.status_code == 400


def test_json_depth_counts_arrays_and_objects():
    from web.guard import json_depth_over

    assert not json_depth_over({"a": [1, {"b": 2}]}, 3)
    assert json_depth_over({"a": [1, {"b": []}]}, 3)


@pytest.mark.parametrize(
    "path", ["/", "/review", "/api/state", "/no/such/page", "/api/recordings/nope"]
)
def test_every_answer_carries_the_security_headers(client, path):
    headers = client.get(path).headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    "path", ["/api/recordings/nope", "/review/nope", "/api/calibration?recording=nope"]
)
def test_error_messages_name_no_absolute_folder(client, recordings_dir, path):
    text = client.get(path).get_data(as_text=True)
    assert str(recordings_dir.resolve()) not in text and os.sep + "tmp" not in text


def test_broken_files_are_named_without_the_servers_folders(client, recordings_dir):
    (recordings_dir / "match1" / "calls.jsonl").write_text("{not json\n", "utf-8")
    response = client.get("/api/recordings/match1")
    assert response.status_code == 422 and "calls.jsonl" in response.json["message"]
    assert str(recordings_dir.resolve()) not in response.json["message"]
