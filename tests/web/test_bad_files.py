"""A broken file in one recording folder: a clear 422 naming it for that recording, never a
500, and never for the others (DESIGN.md section 8, bad input)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest


def _strict(text: str):
    """Parse as a browser would: ``NaN`` is not JSON."""

    def refuse(name):
        raise ValueError(f"{name} in the answer")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def two_recordings(recordings_dir: Path) -> Path:
    shutil.copytree(recordings_dir / "match1", recordings_dir / "match2")
    return recordings_dir


def test_a_non_utf8_summary_spoils_only_its_own_recording(client, two_recordings):
    (two_recordings / "match1" / "summary.json").write_bytes(b'{"frames": "\xff\xfe"}')
    listing = client.get("/api/recordings")
    assert listing.status_code == 200
    rows = {r["name"]: r["summary"] for r in listing.json["recordings"]}
    assert "not UTF-8" in rows["match1"]["error"] and "summary.json" in rows["match1"]["error"]
    assert rows["match2"]["frames"] == 24
    assert client.get("/review").status_code == 200
    one = client.get("/api/recordings/match1")
    assert one.status_code == 422 and "summary.json" in one.json["message"]
    assert client.get("/api/recordings/match2").status_code == 200


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ("42", "must be a JSON object"),
        ('"text"', "must be a JSON object"),
        ('{"kind": "goal"}', "'frame' must be a frame number"),
        ('{"frame": "12"}', "'frame' must be a frame number"),
        ('{"frame": 3, "line": 7}', "'line' must be a line's name"),
        ('{"frame": 3, "evidence": ["x"]}', "'evidence' must be a path"),
        ('{"frame": 3}', "'kind' must be a call's kind"),
        ('{"frame": NaN}', "not JSON"),
        (b'{"frame": 1, "kind": "\xff"}', "not UTF-8"),
    ],
)
def test_bad_call_lines_are_a_422_naming_the_file(client, recordings_dir, line, message):
    path = recordings_dir / "match1" / "calls.jsonl"
    data = line if isinstance(line, bytes) else line.encode()
    path.write_bytes(path.read_bytes() + data + b"\n")
    for url in ("/api/recordings/match1", "/api/recordings/match1/tracks/3"):
        response = client.get(url)
        assert response.status_code == 422, url
        assert "calls.jsonl" in response.json["message"] and message in response.json["message"]


@pytest.mark.parametrize(
    "record",
    [
        '{"frame": 3, "ball": {"y_mm": 1}}',
        '{"frame": 3, "ball": {"x_mm": "left", "y_mm": 1}}',
        '{"frame": 3, "ball": 5}',
        '{"frame": 3, "ball": null, "figures": [{"id": 1}]}',
        '{"frame": 3, "ball": null, "figures": {"x_mm": 1}}',
        '{"frame": 3, "ball": {"x_mm": Infinity, "y_mm": 0}}',
        '[{"frame": 3}]',
        '{"frame": [], "t_s": 0.12, "ball": null}',
    ],
)
def test_bad_tracks_records_are_a_422_naming_the_file(client, recordings_dir, record):
    path = recordings_dir / "match1" / "tracks.jsonl"
    lines = path.read_text("utf-8").splitlines()
    lines[3] = record
    path.write_text("\n".join(lines) + "\n", "utf-8")
    response = client.get("/api/recordings/match1/tracks/3")
    assert response.status_code in (404, 422)
    if response.status_code == 422:
        assert "tracks.jsonl" in response.json["message"]
    ask = client.post("/api/recordings/match1/ask", json={"frame": 3, "question": "fully_over"})
    assert ask.status_code in (400, 404, 422)
    assert client.get("/api/recordings/match1/tracks/4").status_code == 200


@pytest.mark.parametrize("where", [("residuals", "rms_mm"), ("camera", "tvec_mm")])
def test_nan_in_a_calibration_file_never_reaches_an_answer(client, recordings_dir, where):
    path = recordings_dir / "match1" / "calibration.json"
    data = json.loads(path.read_text("utf-8"))
    if where[1] == "tvec_mm":
        data[where[0]][where[1]][2] = float("nan")
    else:
        data[where[0]][where[1]] = float("nan")
    path.write_text(json.dumps(data), "utf-8")
    for url in (
        "/api/calibration?recording=match1",
        "/api/recordings/match1",
        "/api/recordings/match1/tracks/3",
    ):
        response = client.get(url)
        assert response.status_code in (200, 422), url
        body = _strict(response.get_data(as_text=True))  # valid JSON, no NaN
        if response.status_code == 422:
            assert "calibration.json" in body["message"]


def test_nan_in_an_answer_goes_out_as_null(app):
    with app.app_context():
        text = app.json.dumps({"rms_mm": float("nan"), "xs": [1.0, float("inf")]})
    assert _strict(text) == {"rms_mm": None, "xs": [1.0, None]}
