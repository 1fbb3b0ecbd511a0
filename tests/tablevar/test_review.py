"""``tablevar review``: analyse a recording once, reuse the analysis, serve its page."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibration_file import Calibration, write_calibration
from calibration.camera import CameraModel
from tablevar import cli
from tablevar.commands.review import (
    OUTPUT_NAMES,
    prepare_playback,
    review_app,
    review_folder,
    stale_reason,
)
from web.playback import PROXY_NAME, probe


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


def _old_video(folder: Path) -> None:
    video = folder / "video.mp4"
    video.write_bytes(b"not a video: analysing it again would fail")
    old = time.time() - 100
    os.utime(video, (old, old))


def test_an_analysis_stopped_by_its_video_is_served_not_redone(tmp_path, capsys):
    """The video is cut short: analysing again stops at the same frame, on every run."""
    _old_video(tmp_path)
    write_outputs(tmp_path)
    summary = {"complete": False, "frames": 99, "error": "video.mp4 ended after 99 of 120 frames"}
    (tmp_path / "summary.json").write_text(json.dumps(summary), "utf-8")
    assert stale_reason(tmp_path, tmp_path) is None
    assert cli.main(["review", str(tmp_path), "--no-serve"]) == 0
    out = capsys.readouterr().out
    assert "up to date" in out and "stops at frame 99" in out


def test_a_failing_reanalysis_still_reviews_what_there_is(tmp_path, capsys):
    """An interrupted analysis is redone; when that fails (here the video cannot be read, on
    a DVD the folder cannot be written) the page shows the analysis there is."""
    _old_video(tmp_path)
    write_outputs(tmp_path, complete=False)
    assert cli.main(["review", str(tmp_path), "--no-serve"]) == 0
    captured = capsys.readouterr()
    assert "tablevar: warning: " in captured.out and "reviewing the analysis there is" in (
        captured.out
    )
    assert "Traceback" not in captured.err


def test_no_analysis_and_no_video_is_still_an_error(tmp_path, capsys):
    _old_video(tmp_path)
    assert cli.main(["review", str(tmp_path), "--no-serve"]) == 2
    assert capsys.readouterr().err.startswith("tablevar: error: ")


UNSHARE = shutil.which("unshare")


@pytest.mark.skipif(UNSHARE is None, reason="needs unshare (util-linux) for a read-only mount")
def test_read_only_recordings_are_served_with_a_match_log_elsewhere(tmp_path):
    """A DVD or a read-only share: the match log goes to a temporary folder."""
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    code = (
        "import pathlib, sys; from tablevar.commands.serve import match_log_path; "
        "from web.matchlog import MatchLog; p = match_log_path(pathlib.Path(sys.argv[1])); "
        "MatchLog(p, table='fistf', clock_mode='ball-moving').close(); print(p)"
    )
    script = f'mount --bind -o ro "{src}" "{ro}" && exec "{sys.executable}" -c "$0" "{ro}"'
    done = subprocess.run(
        [UNSHARE, "-rm", "sh", "-c", script, code], capture_output=True, text=True, timeout=60
    )
    if "mount" in done.stderr and done.returncode != 0:
        pytest.skip(f"no read-only mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    log = Path(done.stdout.strip())
    assert not log.is_relative_to(ro) and "read-only" in done.stderr


def test_a_video_browsers_cannot_play_gets_its_playable_copy_before_the_page_opens(tmp_path):
    writer = cv2.VideoWriter(
        str(tmp_path / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, (64, 48)
    )
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    out = io.StringIO()
    prepare_playback(tmp_path, out)
    assert f"plays in the page as {tmp_path / PROXY_NAME}" in out.getvalue()
    assert probe(tmp_path / PROXY_NAME).playable
