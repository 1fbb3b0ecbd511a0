"""``tablevar demo``: referees a recording, checks it against its truth, fails in one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from hardware.recording import read_truth_calls
from tablevar import cli
from tablevar.commands.demo import HEADER, format_call, match_calls


def test_demo_referees_a_recording_prints_its_calls_and_checks_them_against_truth(
    sim_match_template, tmp_path, capsys
):
    sim_recording = tmp_path / "touchline"
    shutil.copytree(sim_match_template, sim_recording)
    out_dir = tmp_path / "out"
    argv = ["demo", "--recording", str(sim_recording), "--out", str(out_dir), "--no-serve"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    calls = [json.loads(line) for line in (out_dir / "calls.jsonl").read_text().splitlines()]
    assert calls, "the analysis made no call"
    assert f"analysing {sim_recording} into {out_dir}" in out
    assert "330 frames, 800x600 px at 20 fps" in out
    assert f"Calls of the analysis: {len(calls)}" in out
    lines = out.splitlines()
    at = lines.index(HEADER)
    assert lines[at + 1 : at + 1 + len(calls)] == [format_call(c) for c in calls]
    truth = read_truth_calls(sim_recording)
    assert [c["kind"] for c in truth] == ["ball_out"]
    found = sum(c is not None for _, c in match_calls(calls, truth))
    assert f"Ground truth: {found} of 1 scripted calls found" in out
    # The review page reads the output folder: the video is linked there.
    assert (out_dir / "video.mp4").resolve() == (sim_recording / "video.mp4").resolve()

    # Again: the analysis is reused; a recording without truth says so.
    (sim_recording / "truth_calls.jsonl").unlink()
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "is up to date" in out and "No ground truth" in out


def test_the_button_football_demo_plays_its_own_bundled_recording(tmp_path, capsys, monkeypatch):
    """``demo --game button-football``: the bundled button recording, its shot call read with
    it, every scripted call found (BF Angesagte Schüsse: the called shot scores)."""
    monkeypatch.chdir(Path(__file__).resolve().parents[3])  # the repository, as make demo runs
    out_dir = tmp_path / "out"
    argv = ["demo", "--game", "button-football", "--out", str(out_dir), "--no-serve"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "Demo recording recordings/demo-button-football (table button-football" in out
    assert "score 1:0" in out
    assert "Ground truth: 2 of 2 scripted calls found" in out and "MISSED" not in out
    calls = [json.loads(line) for line in (out_dir / "calls.jsonl").read_text().splitlines()]
    assert [c["kind"] for c in calls] == ["shot_called", "goal"]
    assert calls[1]["law"] == "BF Angesagte Schüsse" and calls[1]["restart"] == "kick_off"


def test_demo_of_one_game_refuses_a_recording_of_another(make_recording, capsys):
    folder = make_recording(4)  # a FISTF recording
    argv = ["demo", "--game", "button-football", "--recording", str(folder), "--no-serve"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "is a recording of FISTF Subuteo" in err and "pass --game fistf" in err
    assert err.count("\n") == 1


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
    argv = ["demo", "--recording", str(folder), "--out", str(folder.parent / "out"), "--no-serve"]
    assert cli.main(argv) == 2
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
                "uncertainty_mm": 0.5,
                "team": "away",
                "restart": "throw_in",
            },
            "   3.20 s  ball_out        FISTF 9.1    touchline          +2.12 ±0.50 mm  away  "
            "throw_in",
        ),
        (
            {"t_s": 61.0, "kind": "goal", "margin_mm": -0.4, "team": "home"},
            "  61.00 s  goal            -            -                        -0.40 mm  home  -",
        ),
        ({}, "        -  -               -            -                               -  -     -"),
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
        [sys.executable, "-m", "tablevar", "demo", "--recording", str(folder), "--no-serve"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    # OpenCV opens some cut files and finds no frame in them, refuses others: either way one line.
    assert result.stderr.startswith("tablevar: error: ")
    assert f"{folder / 'video.mp4'}" in result.stderr
    assert result.stderr.count("\n") == 1


def _call(t_s: float, kind: str = "ball_out", team: str | None = "away") -> dict:
    return {"t_s": t_s, "kind": kind, "team": team}


@pytest.mark.parametrize(
    ("calls", "truth", "matched"),
    [
        ([_call(3.0)], [_call(3.3)], [0]),
        ([_call(3.0)], [_call(3.6)], [None]),  # too late
        ([_call(3.0, team="home")], [_call(3.0)], [None]),  # other team
        ([_call(3.0, "goal")], [_call(3.0)], [None]),  # other kind
        ([_call(3.0), _call(3.2)], [_call(3.2), _call(3.1)], [1, 0]),  # nearest, each once
        ([_call(3.0)], [_call(3.0), _call(3.1)], [0, None]),
    ],
)
def test_match_calls(calls, truth, matched):
    pairs = match_calls(calls, truth)
    assert [want for want, _ in pairs] == truth
    assert [None if got is None else calls.index(got) for _, got in pairs] == matched


def test_demo_serves_the_review_page_until_interrupted(sim_match_template, tmp_path):
    """The whole of `make demo`: analyse, print, then serve the review page until Ctrl-C."""
    recording = tmp_path / "touchline"
    shutil.copytree(sim_match_template, recording)
    argv = ["demo", "--recording", str(recording), "--out", str(tmp_path / "out"), "--port", "0"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablevar", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
        # Ctrl-C reaches a command started from a terminal; a test run started in the
        # background (where SIGINT is ignored and the child would inherit that) must not differ.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        url = None
        for line in proc.stdout:  # ends if the command stops instead of serving
            if line.startswith("tablevar: serving on "):
                url = line.removeprefix("tablevar: serving on ").strip()
                break
        assert url is not None, f"no server started: {proc.wait(10)} {proc.stderr.read()}"
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200
            assert "/static/review.js" in page.read().decode()  # the review page
        assert url.endswith("/review/out")  # of the analysis folder
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    assert proc.returncode in (0, 130)
