"""Fuzzing the web API: any request body and any analysis file on disk gets an answer below
500, as JSON (no traceback), and never invalid JSON (DESIGN.md section 8, bad input).

Each property runs ``FUZZ_EXAMPLES`` generated cases (``--hypothesis-show-statistics``
prints them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzzing import fuzz_settings, json_values

PIN = "2468"
AUTH = {"X-Tablevar-PIN": PIN}
FUZZ_EXAMPLES = 150
FUZZ = fuzz_settings(FUZZ_EXAMPLES)
# Objects shaped like the API's bodies, with the keys it reads holding anything.
BODY_KEYS = "frame question line attacking home_end seconds reason home away x_px y_px team"
body_keys = st.sampled_from(BODY_KEYS.split())
api_bodies = st.dictionaries(body_keys, json_values, max_size=5)

POSTS = [
    "/api/recordings/match1/ask",
    "/api/match/added-time",
    "/api/match/team-names",
    "/api/match/start",
    "/api/calls/1/overrule",
    "/api/calls/1/uphold",
    "/api/calibration/ball",
    "/api/calibration/ball?recording=match1",
    "/api/calibration/recalibrate",
]


def _answer_ok(response) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    if response.is_json:
        text = response.get_data(as_text=True)
        json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in an answer"))
        assert "Traceback" not in text


@FUZZ
@given(path=st.sampled_from(POSTS), body=st.one_of(api_bodies, json_values))
def test_any_json_body_gets_an_answer_below_500(client, path, body):
    text = json.dumps(body)  # NaN and Infinity included, as a careless client sends them
    _answer_ok(client.post(path, data=text, content_type="application/json", headers=AUTH))


@FUZZ
@given(
    path=st.sampled_from(POSTS),
    data=st.binary(max_size=300),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", ""]
    ),
)
def test_any_bytes_get_an_answer_below_500(client, path, data, content_type):
    _answer_ok(client.post(path, data=data, content_type=content_type, headers=AUTH))


@FUZZ
@given(name=st.text(max_size=20), index=st.integers(min_value=0, max_value=10**6))
def test_any_recording_name_and_frame_get_an_answer_below_500(client, name, index):
    from urllib.parse import quote

    quoted = quote(name, safe="")
    for url in (
        f"/api/recordings/{quoted}",
        f"/api/recordings/{quoted}/tracks/{index}",
        f"/api/recordings/{quoted}/evidence/evidence/{quoted}.jpg",
        f"/evidence/{quoted}",
        f"/api/calibration?recording={quoted}",
    ):
        _answer_ok(client.get(url))


# ----------------------------------------------------------------------------- files on disk
def _mutated_record(base: dict) -> st.SearchStrategy:
    """``base`` with some of its keys holding anything, removed or added."""
    return st.fixed_dictionaries(
        {},
        optional={k: st.one_of(st.just(v), json_values) for k, v in base.items()},
    ).map(lambda d: {**d})


lines_of = st.one_of(
    st.binary(max_size=200),
    st.lists(json_values.map(json.dumps), max_size=4).map(lambda ls: "\n".join(ls).encode()),
)

FILES = ["calls.jsonl", "tracks.jsonl", "summary.json", "calibration.json", "meta.json"]


@pytest.fixture
def fuzz_folder(recordings_dir: Path) -> Path:
    return recordings_dir / "match1"


@FUZZ
@given(data=st.data(), name=st.sampled_from(FILES))
def test_any_analysis_file_gives_answers_below_500(client, fuzz_folder, sample, data, name):
    path = fuzz_folder / name
    if name == "calls.jsonl":
        records = data.draw(st.lists(_mutated_record(sample.call_record(3, "goal")), max_size=3))
        content = "".join(json.dumps(r) + "\n" for r in records).encode()
    elif name == "tracks.jsonl":
        records = data.draw(st.lists(_mutated_record(sample.tracks_record(3)), max_size=3))
        content = "".join(json.dumps(r) + "\n" for r in records).encode()
    elif name == "calibration.json":
        base = json.loads(path.read_text("utf-8"))
        content = json.dumps(data.draw(_mutated_record(base))).encode()
    else:
        content = b""
    content = data.draw(st.one_of(st.just(content), lines_of))
    original = path.read_bytes() if path.exists() else None
    path.write_bytes(content)
    try:
        for url in (
            "/api/recordings",
            "/review",
            "/api/recordings/match1",
            "/api/recordings/match1/tracks/3",
            "/api/recordings/match1/tracks/18",  # a goal's frame: its shot is looked for
            "/review/match1/report",
            "/api/recordings/match1/export.csv",
            "/api/recordings/match1/export.json",
            "/api/calibration?recording=match1",
            "/api/calibration/overlay.png?recording=match1",
        ):
            _answer_ok(client.get(url))
        for question in (
            {"frame": 3, "question": "fully_over"},
            {"frame": 3, "question": "offside"},
        ):
            _answer_ok(client.post("/api/recordings/match1/ask", json=question))
    finally:
        if original is None:
            path.unlink()
        else:
            path.write_bytes(original)
