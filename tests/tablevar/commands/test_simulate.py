"""`tablevar simulate`: scripted scenes rendered into recordings, and its bad-input errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hardware.recording import RecordingWriter, read_meta, read_truth
from hardware.sources import VideoFileSource
from tablevar import cli

SMALL = ["--size", "320x240", "--frames", "3", "--fps", "30"]


def test_writes_a_readable_recording_with_truth(tmp_path):
    out = tmp_path / "clip"
    assert cli.main(["simulate", "kickoff_pass", "--out", str(out), *SMALL]) == 0
    frames = list(VideoFileSource(out).frames())
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[0].image_bgr.shape == (240, 320, 3)
    assert [t["frame"] for t in read_truth(out)] == [0, 1, 2]
    assert read_meta(out).source == "sim:kickoff_pass"


def test_footage_as_other_devices_record_it_says_how_it_was_made(tmp_path):
    out = tmp_path / "clip"
    options = ["--vary", "lights", "--codec", "mpeg4", "--bitrate", "800", "--readout", "10"]
    options += ["--exposure", "20"]
    argv = ["simulate", "touchline_out", "--out", str(out), "--start", "1.0", *options, *SMALL]
    assert cli.main(argv) == 0
    sim = json.loads((out / "sim.json").read_text(encoding="utf-8"))
    assert (sim["codec"], sim["bitrate_kbps"], sim["readout_s"]) == ("mpeg4", 800.0, 0.01)
    assert sim["exposure_s"] == 0.02
    assert sim["start_frame"] == 30 and sim["look"]["lights"]
    assert [f.index for f in VideoFileSource(out).frames()] == [0, 1, 2]
    assert read_truth(out)[0]["t_s"] == 0.0


def test_a_simulated_recording_is_rendered_again_in_place(tmp_path):
    out = tmp_path / "clip"
    assert cli.main(["simulate", "kickoff_pass", "--out", str(out), *SMALL]) == 0
    assert cli.main(["simulate", "touchline_out", "--out", str(out), *SMALL]) == 0
    assert read_meta(out).source == "sim:touchline_out"


def test_a_camera_recording_is_never_overwritten(tmp_path, capsys):
    out = tmp_path / "match"
    with RecordingWriter(out, fps=30, size_px=(320, 240), table="fistf", source="pi") as w:
        w.write(np.zeros((240, 320, 3), np.uint8), t_ns=0)
    assert cli.main(["simulate", "kickoff_pass", "--out", str(out), *SMALL]) == 2
    assert "already holds a recording" in capsys.readouterr().err
    assert read_meta(out).source == "pi"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["snooker"], "kickoff_pass"),  # unknown scenes list the known ones
        (["demo", "--size", "12x"], "size"),
        (["demo", "--table", "pool"], "fistf, subbuteo-classic"),
        (["demo", "--readout", "-1"], "readout"),
        (["demo", "--readout", "40"], "within a frame"),  # 40 ms is longer than a 60 fps frame
        (["demo", "--exposure", "0"], "exposure"),
        (["demo", "--exposure", "20"], "an exposure lasts 0-16.7 ms at 60 fps"),
        (["demo", "--vary", "resolution", "--size", "320x240"], "leave out --size"),
        (["demo", "--start", "9999"], "outside the scene"),
        (["snooker"], "bf_called_goal"),  # ... and the button-football ones
        (["bf_throw_in", "--table", "fistf"], "plays on the button-football table"),
        (["bf_throw_in", "--frames", "3"], "--frames cannot be used with the button-football"),
        (["bf_throw_in", "--fps", "-5"], "bad --fps"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, argv, message):
    assert cli.main(["simulate", *argv, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tablevar: error:") and "\n" not in err and message in err


def test_a_button_scene_is_rendered_with_its_shot_calls_and_truth(tmp_path, capsys):
    """A button-football scene on its own table: the frames, the players' shot calls (read
    back by analyze) and the calls the reducer makes on the exact frames."""
    out = tmp_path / "bf"
    argv = ["simulate", "bf_called_goal", "--out", str(out), "--size", "160x120", "--fps", "10"]
    assert cli.main(argv) == 0
    assert "1 shot calls" in capsys.readouterr().out
    meta = read_meta(out)
    assert (meta.table, meta.size_px, meta.fps) == ("button-football", (160, 120), 10.0)
    calls = [json.loads(x) for x in (out / "truth_calls.jsonl").read_text().splitlines()]
    assert [c["kind"] for c in calls] == ["shot_called", "goal"]
    shot = json.loads((out / "shot_calls.jsonl").read_text())
    assert shot["team"] == "home" and shot["t_s"] <= calls[1]["t_s"]
    with VideoFileSource(out / "video.mp4") as source:
        assert sum(1 for _ in source.frames()) == meta.frames
