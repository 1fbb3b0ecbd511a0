"""``tablevar demo``: plays a recording, reports it, and fails with one clear line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tablevar import cli
from tablevar.commands.demo import format_call


def test_demo_plays_a_recording_and_lists_its_ground_truth(make_recording, capsys):
    folder = make_recording(8)
    assert cli.main(["demo", "--recording", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "8 of 8 decoded, 160x120 px" in out
    assert "duration   0.32 s at 25 fps" in out
    assert "median 40.00 ms, largest 40.00 ms" in out
    assert "ms per frame" in out
    assert "Ground truth of the recording, scripted events: 1" in out
    assert out.rstrip().splitlines()[-1] == format_call(
        {"t_s": 0.12, "kind": "ball_out", "law": "FISTF 9"}
    )


def test_demo_without_truth_says_so(make_recording, capsys):
    assert cli.main(["demo", "--recording", str(make_recording(3, truth=False))]) == 0
    assert "No ground truth" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("missing", "not found: generate it with `make demo-recording` or pass --recording"),
        ("truncated", "ended after 2 of 4 frames"),
        ("no meta", "not found: generate it with `make demo-recording`"),
    ],
)
def test_demo_errors_are_one_line_with_status_2(make_recording, capsys, damage, message):
    folder = make_recording(4)
    if damage == "missing":
        shutil.rmtree(folder)
    elif damage == "truncated":
        shutil.copy(make_recording(2, name="short") / "video.mp4", folder / "video.mp4")
    else:
        (folder / "meta.json").unlink()
    assert cli.main(["demo", "--recording", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            {
                "t_s": 3.2,
                "kind": "ball_out",
                "law": "FISTF 9.1",
                "line": "touchline",
                "margin_mm": 2.125,
                "team": "away",
                "restart": "throw_in",
            },
            "   3.20 s  ball_out        FISTF 9.1    touchline         +2.12 mm  away  throw_in",
        ),
        (
            {"t_s": 61.0, "kind": "goal", "margin_mm": -0.4, "team": "home"},
            "  61.00 s  goal            -            -                 -0.40 mm  home  -",
        ),
        ({}, "        -  -               -            -                        -  -     -"),
    ],
)
def test_format_call(call, expected):
    assert format_call(call) == expected


def test_a_broken_video_is_one_line_even_with_ffmpeg_underneath(make_recording):
    # FFmpeg logs its own complaint ("moov atom not found") straight to the process's stderr;
    # only a real process shows whether the user sees it.
    folder = make_recording(4)
    data = (folder / "video.mp4").read_bytes()
    (folder / "video.mp4").write_bytes(data[: len(data) // 2])
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    result = subprocess.run(
        [sys.executable, "-m", "tablevar", "demo", "--recording", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("tablevar: error: cannot read video")
    assert result.stderr.count("\n") == 1
