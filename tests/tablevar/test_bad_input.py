"""Bad input on the command line: one line naming the file, exit status 2, never a traceback
or a crash (DESIGN.md section 8); a video cut short is never reported complete."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from hardware.recording import RecordingWriter
from hardware.sources import TruncatedVideoError, VideoFileSource
from tablevar.cli import main

SIZE_PX = (64, 48)


def _tiny_recording(folder: Path, frames: int = 4) -> Path:
    with RecordingWriter(folder, fps=20.0, size_px=SIZE_PX, table="fistf", source="test") as w:
        for i in range(frames):
            w.write(np.full((SIZE_PX[1], SIZE_PX[0], 3), 20 * i, np.uint8), i * 50_000_000)
    return folder


def _faststart_mp4(path: Path, frames: int) -> Path:
    """An MP4 with its index first (as phones and web tools write it): cut anywhere after the
    index, it still opens, and only the index knows how many frames there were."""
    plain = path.with_suffix(".plain.mp4")
    writer = cv2.VideoWriter(str(plain), cv2.VideoWriter_fourcc(*"mp4v"), 20.0, SIZE_PX)
    rng = np.random.default_rng(1)
    for _ in range(frames):
        writer.write(rng.integers(0, 255, (SIZE_PX[1], SIZE_PX[0], 3), np.uint8))
    writer.release()
    with (
        av.open(str(plain)) as src,
        av.open(str(path), "w", options={"movflags": "faststart"}) as dst,
    ):
        stream = src.streams.video[0]
        # PyAV 10 (Debian 12) has no add_stream_from_template, only add_stream(template=).
        add = getattr(dst, "add_stream_from_template", None)
        out = add(stream) if add is not None else dst.add_stream(template=stream)
        for packet in src.demux(stream):
            if packet.dts is not None:
                packet.stream = out
                dst.mux(packet)
    plain.unlink()
    return path


def _cut(path: Path, share: float) -> Path:
    data = path.read_bytes()
    cut = path.with_name(f"cut{round(share * 100)}.mp4")
    cut.write_bytes(data[: int(len(data) * share)])
    return cut


@pytest.mark.parametrize("share", [0.25, 0.9])
def test_a_plain_mp4_cut_short_is_truncated_not_complete(tmp_path, share):
    cut = _cut(_faststart_mp4(tmp_path / "phone.mp4", 60), share)
    with VideoFileSource(cut) as video:
        assert video.container_frames == 60
        frames = 0
        with pytest.raises(TruncatedVideoError, match=r"ended after \d+ of 60 frames"):
            for _ in video.frames():
                frames += 1
    assert 0 < frames < 60


def test_a_whole_plain_mp4_is_complete(tmp_path):
    with VideoFileSource(_faststart_mp4(tmp_path / "phone.mp4", 30)) as video:
        assert len(list(video.frames())) == 30


def test_a_path_that_is_not_utf8_is_an_error_not_a_crash(tmp_path):
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/bad\xff"))
    folder.mkdir()
    video = folder / "v.mp4"
    _faststart_mp4(tmp_path / "v.mp4", 5).rename(video)
    # A child process: before the fix this crashed the interpreter (SIGSEGV in the reader).
    code = "import sys; from tablevar.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "analyze", os.fsencode(video), "--out", tmp_path / "o"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tablevar: error: ") and "not valid UTF-8" in done.stderr
    assert "Traceback" not in done.stderr


def _break_meta(folder: Path) -> str:
    (folder / "meta.json").write_bytes((folder / "meta.json").read_bytes() + b"\xff\xfe")
    return "meta.json"


def _break_timestamps_bytes(folder: Path) -> str:
    path = folder / "timestamps.csv"
    path.write_bytes(path.read_bytes() + b"\xff\n")
    return "timestamps.csv"


def _huge_timestamp(folder: Path) -> str:
    path = folder / "timestamps.csv"
    lines = path.read_text("utf-8").splitlines()
    lines[2] = "1," + "1" + "0" * 30
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return "timestamps.csv"


@pytest.mark.parametrize("damage", [_break_meta, _break_timestamps_bytes, _huge_timestamp])
def test_a_damaged_recording_is_one_line_naming_the_file(tmp_path, capsys, damage):
    folder = _tiny_recording(tmp_path / "rec")
    name = damage(folder)
    assert main(["analyze", str(folder), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and err.count("\n") == 1 and name in err


def _calibration(tmp_path: Path, text: bytes) -> Path:
    path = tmp_path / "calibration.json"
    path.write_bytes(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"schema_version": 1, "table": "fistf", "rms": NaN}', "holds NaN"),
        (b'{"schema_version": 1, "rms": Infinity}', "holds Infinity"),
        (b'{"schema_version": 1, "table": "\xff"}', "is not UTF-8"),
    ],
)
def test_a_bad_calibration_file_is_one_line_naming_it(tmp_path, capsys, text, message):
    folder = _tiny_recording(tmp_path / "rec")
    cal = _calibration(tmp_path, text)
    argv = ["analyze", str(folder), "--out", str(tmp_path / "out"), "--calibration", str(cal)]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and "calibration.json" in err


def test_a_table_profile_that_is_not_utf8_is_named(tmp_path, capsys):
    folder = _tiny_recording(tmp_path / "rec")
    table = tmp_path / "club.toml"
    table.write_bytes(b'name = "club\xff"\n')
    argv = ["analyze", str(folder), "--out", str(tmp_path / "o"), "--table", str(table)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and "club.toml" in err and "UTF-8" in err


@pytest.mark.parametrize("value", ["1e308", "inf", "nan", "0", "-2"])
@pytest.mark.parametrize("command", ["analyze", "calibrate"])
def test_seconds_out_of_range_is_a_usage_error(tmp_path, capsys, command, value):
    folder = _tiny_recording(tmp_path / "rec")
    argv = [command, str(folder), "--seconds", value]
    argv += ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "argument --seconds" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["-1", "nan", "2000", "fast"])
def test_a_readout_that_is_no_duration_is_a_usage_error(tmp_path, capsys, value):
    folder = _tiny_recording(tmp_path / "rec")
    argv = ["analyze", str(folder), "--readout-ms", value, "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "argument --readout-ms" in err and "Traceback" not in err


def test_a_readout_longer_than_a_frame_is_refused_before_any_work(tmp_path, capsys):
    """20 fps: a frame every 50 ms, so a sensor cannot take 60 ms to read one out."""
    folder = _tiny_recording(tmp_path / "rec")
    argv = ["analyze", str(folder), "--readout-ms", "60", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: --readout-ms 60 is longer than the video's frame")
    assert not (tmp_path / "o").exists()


def test_an_overlay_of_unknown_type_is_refused_before_any_work(tmp_path, capsys):
    folder = _tiny_recording(tmp_path / "rec")
    argv = ["calibrate", str(folder), "--overlay", str(tmp_path / "x.xyz")]
    assert main([*argv, "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: --overlay") and ".png" in err
    assert not (tmp_path / "c.json").exists()


def test_recording_meta_with_infinite_rate_is_named(tmp_path, capsys):
    folder = _tiny_recording(tmp_path / "rec")
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    text = json.dumps(meta).replace('"fps": 20.0', '"fps": 1e999')
    (folder / "meta.json").write_text(text, "utf-8")
    assert main(["analyze", str(folder), "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    assert "meta.json" in capsys.readouterr().err


def _analyze(source: Path, out: Path) -> int:
    return main(["analyze", str(source), "--out", str(out), "--no-progress"])


def test_a_failed_analyze_never_replaces_a_complete_one(tmp_path, sim_recording, capsys):
    out = tmp_path / "out"
    assert _analyze(sim_recording, out) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert json.loads(before["summary.json"])["complete"] is True
    # The same recording, damaged: its timestamps promise frames the video does not hold.
    damaged = tmp_path / "damaged"
    shutil.copytree(sim_recording, damaged)
    meta = json.loads((damaged / "meta.json").read_text("utf-8"))
    (damaged / "meta.json").write_text(json.dumps(meta | {"complete": False}), "utf-8")
    with (damaged / "timestamps.csv").open("a", encoding="utf-8") as f:
        n = meta["frames"]
        f.writelines(f"{n + i},{(n + i) * 50_000_000}\n" for i in range(20))
    assert _analyze(damaged, out) == 2
    assert "ended after" in capsys.readouterr().err
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".analyze-")] == []
    # Where there was no analysis, the partial one lands, saying why it stopped.
    fresh = tmp_path / "fresh"
    assert _analyze(damaged, fresh) == 2
    summary = json.loads((fresh / "summary.json").read_text("utf-8"))
    assert summary["complete"] is False and "ended after" in summary["error"]
    assert summary["frames"] == meta["frames"]
    assert len((fresh / "tracks.jsonl").read_text("utf-8").splitlines()) == meta["frames"]


def test_the_simulated_live_match_of_a_button_table_is_refused_in_one_line(capsys):
    assert main(["live", "--table", "button-football", "--source", "sim"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: the simulated live match plays FISTF scenes")
    assert "--source recordings/demo-button-football" in err and err.count("\n") == 1
