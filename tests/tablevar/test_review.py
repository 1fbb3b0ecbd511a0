"""``tablevar review``: analyse a recording once, reuse the analysis, serve its page."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from calibration.calibration_file import Calibration, write_calibration
from calibration.camera import CameraModel
from tablevar import cli
from tablevar.commands.review import OUTPUT_NAMES, review_app, review_folder, stale_reason


def mtimes(folder: Path) -> dict[str, int]:
    return {name: (folder / name).stat().st_mtime_ns for name in OUTPUT_NAMES}


def test_review_analyses_once_then_again_only_when_the_video_is_newer(sim_recording, capsys):
    assert cli.main(["review", str(sim_recording), "--no-serve"]) == 0
    out = capsys.readouterr().out
    assert f"analysing {sim_recording}" in out and "calibration.json is missing" in out
    first = mtimes(sim_recording)
    summary = json.loads((sim_recording / "summary.json").read_text(encoding="utf-8"))
    assert summary["complete"] and summary["frames"] == 140

    assert cli.main(["review", str(sim_recording), "--no-serve"]) == 0
    assert "is up to date" in capsys.readouterr().out
    assert mtimes(sim_recording) == first

    later = time.time() + 5
    os.utime(sim_recording / "video.mp4", (later, later))
    assert cli.main(["review", str(sim_recording), "--no-serve"]) == 0
    assert "calibration.json is older than the video" in capsys.readouterr().out
    assert all(mtimes(sim_recording)[name] > first[name] for name in OUTPUT_NAMES)

    # The page the command serves: the recording with its calls and calibrated lines.
    app = review_app(
        sim_recording, pin="1234", match_log=sim_recording.parent / "log.sqlite", table="fistf"
    )
    client = app.test_client()
    assert client.get(f"/review/{sim_recording.name}").status_code == 200
    data = client.get(f"/api/recordings/{sim_recording.name}").get_json()
    calls = [json.loads(line) for line in (sim_recording / "calls.jsonl").read_text().splitlines()]
    assert data["frames"] == 140 and len(data["calls"]) == len(calls)
    assert data["lines_px"] is not None
    assert client.get("/api/calibration").get_json()["calibration"]["table"] == "fistf"


def write_outputs(folder: Path, *, complete: bool = True, skip: str | None = None) -> None:
    for name in OUTPUT_NAMES:
        if name != skip:
            (folder / name).write_text("{}\n", encoding="utf-8")
    if skip != "summary.json":
        (folder / "summary.json").write_text(json.dumps({"complete": complete}), "utf-8")


def picked_calibration() -> Calibration:
    camera = CameraModel.overhead((320, 200), height_mm=1300.0, view_width_mm=1500.0)
    used = ("goal_line_left", "goal_line_right", "touchline_top", "touchline_bottom")
    return Calibration(
        table="fistf",
        image_size_px=(320, 200),
        camera=camera,
        home="left",
        line_edges_mm={},
        rms_px=0.1,
        rms_mm=0.5,
        per_line_px=dict.fromkeys(used, 0.1),
        per_line_mm=dict.fromkeys(used, 0.5),
        lines_used=used,
        ball_colour="orange",
    )


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ({"skip": "tracks.jsonl"}, "tracks.jsonl is missing"),
        ({"complete": False}, "the last analysis did not finish"),
        ({"video_after": True}, "calibration.json is older than the video"),
        ({"picked_after": True}, "the ball's colour was picked after the last analysis"),
        ({}, None),
    ],
)
def test_stale_reason(tmp_path, setup, reason):
    video = tmp_path / "video.mp4"
    video.write_bytes(b"not decoded here")
    old = time.time() - 100
    os.utime(video, (old, old))
    write_outputs(tmp_path, complete=setup.get("complete", True), skip=setup.get("skip"))
    if setup.get("video_after"):
        os.utime(video, (old + 200, old + 200))
    if setup.get("picked_after"):
        write_calibration(tmp_path / "calibration.json", picked_calibration())
        later = (tmp_path / "tracks.jsonl").stat().st_mtime + 5
        os.utime(tmp_path / "calibration.json", (later, later))
    assert stale_reason(tmp_path, tmp_path) == reason


def test_a_plain_video_gets_a_review_folder_linking_to_it(tmp_path):
    video = tmp_path / "phone" / "match.mp4"
    video.parent.mkdir()
    video.write_bytes(b"video bytes")
    folder = review_folder(video, tmp_path / "out")
    assert folder == tmp_path / "out" / "match"
    assert (folder / "video.mp4").resolve() == video.resolve()
    assert review_folder(video, tmp_path / "out") == folder  # again: the same link


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.mp4", "no such recording folder or video"),
        ("empty-folder", "holds no video.mp4"),
    ],
)
def test_review_refuses_what_is_not_a_recording_in_one_line(tmp_path, capsys, target, message):
    (tmp_path / "empty-folder").mkdir()
    assert cli.main(["review", str(tmp_path / target), "--no-serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and err.count("\n") == 1
