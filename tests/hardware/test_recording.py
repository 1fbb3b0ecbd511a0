"""Recording folders: what RecordingWriter writes is what the readers give back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from hardware.recording import (
    VIDEO_NAME,
    RecordingError,
    RecordingWriter,
    read_meta,
    read_timestamps_ns,
    read_truth,
    read_truth_calls,
)
from hardware.sources import TruncatedVideoError, VideoFileSource


def test_round_trip_meta_timestamps_truth(clip, make_recording):
    folder = make_recording(6)
    meta = read_meta(folder)
    assert (meta.fps, meta.size_px, meta.frames, meta.complete) == (clip.fps, clip.size_px, 6, True)
    assert (meta.table, meta.source, meta.camera) == ("fistf", "sim", None)
    assert meta.duration_s == pytest.approx(6 / clip.fps)
    np.testing.assert_array_equal(
        read_timestamps_ns(folder), clip.t0_ns + clip.dt_ns * np.arange(6)
    )
    assert read_truth(folder) == [{"frame": i} for i in range(6)]
    assert read_truth_calls(folder) == [{"t_s": 0.12, "kind": "ball_out", "law": "FISTF 9"}]
    cap = cv2.VideoCapture(str(folder / "video.mp4"))
    decoded = [cap.read()[1] for _ in range(6)]
    assert cap.read()[0] is False
    for i, img in enumerate(decoded):
        assert img.shape == (clip.size_px[1], clip.size_px[0], 3)
        # Lossy MPEG-4: close on average, not exact at colour edges.
        assert np.abs(img.astype(int) - clip.frame(i)).mean() < 4.0


def test_camera_and_numpy_truth_round_trip(clip, tmp_path):
    camera = CameraModel.overhead(clip.size_px, height_mm=1300, view_width_mm=1500, tilt_x_deg=2)
    with RecordingWriter(
        tmp_path / "r",
        fps=30,
        size_px=clip.size_px,
        table="subbuteo-classic",
        source="pi",
        camera=camera,
        readout_s=0.0125,
    ) as w:
        w.write(clip.frame(0), 7, truth={"ball_xy_mm": np.array([1.5, -2.0]), "n": np.int8(3)})
    meta = read_meta(tmp_path / "r")
    assert meta.camera == camera and meta.readout_s == 0.0125
    assert VideoFileSource(tmp_path / "r").readout_s == 0.0125  # the shutter it was shot with
    assert read_truth(tmp_path / "r") == [{"ball_xy_mm": [1.5, -2.0], "n": 3}]


def test_meta_says_incomplete_while_open_and_after_a_crash(clip, tmp_path):
    folder = tmp_path / "r"
    with (
        pytest.raises(KeyError),
        RecordingWriter(
            folder, fps=clip.fps, size_px=clip.size_px, table="fistf", source="sim"
        ) as w,
    ):
        assert read_meta(folder).complete is False
        for i in range(3):
            w.write(clip.frame(i), i + 1)
        raise KeyError("crash")
    meta = read_meta(folder)
    assert (meta.frames, meta.complete) == (3, False)
    assert len(read_timestamps_ns(folder)) == 3


def test_timestamps_reach_disk_before_close(clip, tmp_path):
    w = RecordingWriter(
        tmp_path / "r", fps=clip.fps, size_px=clip.size_px, table="fistf", source="sim"
    )
    w.write(clip.frame(0), 10, truth={"a": 1})
    w.write(clip.frame(1), 20, truth={"a": 2})
    np.testing.assert_array_equal(read_timestamps_ns(tmp_path / "r"), [10, 20])
    assert read_truth(tmp_path / "r") == [{"a": 1}, {"a": 2}]
    w.close()


@pytest.mark.parametrize(
    ("image", "t_ns", "truth", "message"),
    [
        (np.zeros((120, 161, 3), np.uint8), 100, None, r"expected a \(120, 160, 3\) uint8"),
        (np.zeros((120, 160), np.uint8), 100, None, r"got shape \(120, 160\)"),
        (np.zeros((120, 160, 3), np.float32), 100, None, "dtype float32"),
        (np.zeros((120, 160, 3), np.uint8), 50, None, "does not increase"),
        (np.zeros((120, 160, 3), np.uint8), 100, {"a": 1}, "every frame or for none"),
    ],
)
def test_write_rejects_bad_frames(clip, tmp_path, image, t_ns, truth, message):
    with RecordingWriter(
        tmp_path / "r", fps=clip.fps, size_px=clip.size_px, table="t", source="s"
    ) as w:
        w.write(clip.frame(0), 50)
        with pytest.raises(RecordingError, match=message):
            w.write(image, t_ns, truth)
        assert w.frames == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fps": 0}, "fps must be a positive"),
        ({"fps": float("nan")}, "fps must be a positive"),
        ({"size_px": (0, 10)}, "size_px must be"),
    ],
)
def test_writer_rejects_bad_arguments(clip, tmp_path, kwargs, message):
    args = {"fps": clip.fps, "size_px": clip.size_px, "table": "fistf", "source": "sim"} | kwargs
    with pytest.raises(RecordingError, match=message):
        RecordingWriter(tmp_path / "r", **args)


def test_existing_recording_is_refused_unless_overwrite(clip, make_recording):
    folder = make_recording(3)
    with pytest.raises(RecordingError, match="already holds a recording"):
        RecordingWriter(folder, fps=clip.fps, size_px=clip.size_px, table="fistf", source="sim")
    with RecordingWriter(
        folder, fps=clip.fps, size_px=clip.size_px, table="fistf", source="opencv:0", overwrite=True
    ) as w:
        w.write(clip.frame(0), 1)
    assert read_meta(folder).frames == 1
    assert not (folder / "truth.jsonl").exists()  # no stale truth from the old recording


def test_write_after_close_is_an_error(clip, tmp_path):
    w = RecordingWriter(
        tmp_path / "r", fps=clip.fps, size_px=clip.size_px, table="fistf", source="sim"
    )
    w.close()
    w.close()  # idempotent
    with pytest.raises(RecordingError, match="is closed"):
        w.write(clip.frame(0), 1)


def _meta_with(folder: Path, change) -> None:
    data = json.loads((folder / "meta.json").read_text())
    change(data)
    (folder / "meta.json").write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(schema_version=2), "unknown schema_version 2"),
        (lambda d: d.pop("fps"), r"missing keys \['fps'\]"),
        (lambda d: d.update(colour="red"), r"unknown keys \['colour'\]"),
        (lambda d: d.update(size_px=[1]), "malformed value"),
        (lambda d: d.update(fps=-1), "must be positive"),
        (lambda d: d.update(camera={"size_px": [1, 1]}), "malformed camera model"),
        (lambda d: d.update(readout_s=-0.01), "readout_s must be a duration >= 0"),
        (lambda d: d.update(readout_s="fast"), "malformed value"),
    ],
)
def test_read_meta_rejects_bad_meta_naming_the_file(make_recording, change, message):
    folder = make_recording(2)
    _meta_with(folder, change)
    with pytest.raises(RecordingError, match=message) as info:
        read_meta(folder)
    assert "meta.json" in str(info.value)


@pytest.mark.parametrize(
    ("name", "content", "reader", "message"),
    [
        ("meta.json", None, read_meta, "meta.json not found: is this a recording folder"),
        ("meta.json", "{not json", read_meta, "meta.json is not valid JSON"),
        ("timestamps.csv", "t,frame\n", read_timestamps_ns, "expected the header"),
        ("timestamps.csv", "frame,t_ns\n0,5\n2,6\n", read_timestamps_ns, "without gaps"),
        ("timestamps.csv", "frame,t_ns\n0,5\n1,5\n", read_timestamps_ns, "must increase"),
        ("timestamps.csv", "frame,t_ns\n0,x\n", read_timestamps_ns, "malformed row"),
        ("truth.jsonl", None, read_truth, "only simulated recordings carry ground truth"),
        ("truth.jsonl", '{"a": 1}\n[1]\n', read_truth, "line 2: expected a JSON object"),
        ("truth_calls.jsonl", "{", read_truth_calls, "line 1 is not valid JSON"),
    ],
)
def test_readers_name_the_bad_file(make_recording, name, content, reader, message):
    folder = make_recording(2)
    if content is None:
        (folder / name).unlink()
    else:
        (folder / name).write_text(content)
    with pytest.raises(RecordingError, match=message) as info:
        reader(folder)
    assert name in str(info.value)


CRASHING_WRITER = """
import os, sys
import numpy as np
from hardware.recording import RecordingWriter
rng = np.random.default_rng(0)
w = RecordingWriter(sys.argv[1], fps=10, size_px=(160, 120), table="fistf", source="test")
for i in range(50):
    w.write(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8), t_ns=i * 100_000_000)
os._exit(3)  # dies without closing anything
"""


def test_a_crash_loses_at_most_about_a_second(tmp_path):
    """The video is written in one-second fragments: a killed writer leaves a readable file."""
    folder = tmp_path / "crashed"
    done = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(folder)], check=False)
    assert done.returncode == 3
    assert json.loads((folder / "meta.json").read_text())["complete"] is False
    decoded = []
    with pytest.raises(TruncatedVideoError, match="of 50 frames"):
        decoded.extend(frame.index for frame in VideoFileSource(folder).frames())
    assert 50 - len(decoded) <= 15  # 10 fps: one fragment plus the encoder's look-ahead


def test_repeatable_recordings_of_the_same_frames_are_the_same_bytes(tmp_path):
    """Simulated clips are encoded on one thread: the same frames give the same video, also
    while other encodes share the machine (threaded x264 splits its work by load)."""
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 256, (96, 128, 3), np.uint8) for _ in range(12)]

    def record(name: str) -> bytes:
        with RecordingWriter(
            tmp_path / name,
            fps=30.0,
            size_px=(128, 96),
            table="fistf",
            source="sim",
            repeatable=True,
        ) as writer:
            for i, image in enumerate(frames):
                writer.write(image, int(i * 1e9 / 30))
        return (tmp_path / name / VIDEO_NAME).read_bytes()

    assert record("a") == record("b")


def test_a_lossless_recording_gives_back_every_pixel_and_says_so(tmp_path):
    """``lossless=True`` writes FFV1 in full colour: each decoded frame equals the frame
    written, and the reader counts the frames exact (``lossy`` False); H.264 counts lossy."""
    rng = np.random.default_rng(4)
    frames = [rng.integers(0, 256, (96, 128, 3), np.uint8) for _ in range(5)]
    sources = {}
    for lossless in (True, False):
        folder = tmp_path / f"lossless-{lossless}"
        with RecordingWriter(
            folder, fps=30.0, size_px=(128, 96), table="fistf", source="sim", lossless=lossless
        ) as writer:
            for i, image in enumerate(frames):
                writer.write(image, int(i * 1e9 / 30))
        sources[lossless] = VideoFileSource(folder)
    decoded = [f.image_bgr for f in sources[True].frames()]
    assert len(decoded) == len(frames)
    for got, want in zip(decoded, frames, strict=True):
        np.testing.assert_array_equal(got, want)
    assert sources[True].lossy is False
    assert sources[False].lossy is True
    worst = max(
        int(np.abs(f.image_bgr.astype(int) - w).max())
        for f, w in zip(sources[False].frames(), frames, strict=True)
    )
    assert worst > 10  # noise does not survive H.264 4:2:0: the flag is not a formality
