"""Frame sources: recordings, plain video files, cameras, and every way they can be bad."""

from __future__ import annotations

import itertools
import json
import shutil

import cv2
import numpy as np
import pytest

from hardware.picamera_source import PiCameraSource
from hardware.recording import RecordingWriter
from hardware.sources import (
    Frame,
    OpenCVCameraSource,
    SourceError,
    TruncatedVideoError,
    VideoFileSource,
    backoff_delays_s,
    open_source,
)


def _plain_video(path, clip, n: int, fps: float) -> None:
    """A video file without our meta, as a phone or another program would write it."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, clip.size_px)
    for i in range(n):
        writer.write(clip.frame(i))
    writer.release()


def test_recording_round_trip(clip, make_recording):
    folder = make_recording(8)
    with VideoFileSource(folder) as source:
        assert (source.size_px, source.fps, source.expected_frames) == (clip.size_px, 25.0, 8)
        frames = list(source.frames())
        again = list(source.frames())  # a file source can be played twice
    assert [f.index for f in frames] == list(range(8))
    assert [f.t_ns for f in frames] == [clip.t_ns(i) for i in range(8)]
    assert frames[1].t_s == pytest.approx(clip.t_ns(1) * 1e-9)
    assert len(again) == 8
    for f in frames:
        assert f.image_bgr.shape == (clip.size_px[1], clip.size_px[0], 3)
        assert np.abs(f.image_bgr.astype(int) - clip.frame(f.index)).mean() < 4.0
    # Each frame is its own picture, not a repeat: the moving ball tells them apart.
    assert np.abs(frames[0].image_bgr.astype(int) - clip.frame(7)).mean() > 4.0


def test_plain_video_uses_container_timestamps(clip, tmp_path):
    _plain_video(tmp_path / "phone.mp4", clip, 6, fps=20.0)
    with VideoFileSource(tmp_path / "phone.mp4") as source:
        assert (source.size_px, source.fps, source.expected_frames) == (clip.size_px, 20.0, None)
        frames = list(source.frames())
    assert len(frames) == 6
    np.testing.assert_allclose([f.t_ns for f in frames], np.arange(6) * 50_000_000, atol=1e6)


@pytest.mark.parametrize("prefix", ["", "file:"])
def test_open_source_opens_files_and_folders(make_recording, prefix):
    folder = make_recording(3)
    with open_source(f"{prefix}{folder}") as source:
        assert isinstance(source, VideoFileSource)
        assert len(list(source.frames())) == 3
    with open_source(f"{prefix}{folder / 'video.mp4'}") as source:
        assert source.expected_frames is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("opencv:", "give a camera number, e.g. opencv:0"),
        ("opencv:97", "cannot open camera 97: is it plugged in"),
        ("opencv:/dev/no-such-video", "cannot open camera '/dev/no-such-video'"),
        ("pi", "picamera2 is only available on a Raspberry Pi: install python3-picamera2"),
        ("rtsp://cam/1", "unknown source 'rtsp://cam/1'; expected file:PATH, opencv:N"),
        ("no/such/clip.mp4", "no such file or folder: no/such/clip.mp4"),
        ("file:no/such/folder", "no such file or folder: no/such/folder"),
    ],
)
def test_open_source_errors(spec, message):
    with pytest.raises(SourceError) as info:
        open_source(spec)
    assert message in str(info.value)


def _damage(folder, what: str, clip) -> None:
    if what == "no video":
        (folder / "video.mp4").unlink()
    elif what == "zero bytes":
        (folder / "video.mp4").write_bytes(b"")
    elif what == "cut bytes":
        data = (folder / "video.mp4").read_bytes()
        (folder / "video.mp4").write_bytes(data[: len(data) // 2])
    elif what == "not a video":
        (folder / "video.mp4").write_text("hello")
    elif what == "meta frames":
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(json.dumps(meta | {"frames": 99}))
    elif what == "meta size":
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(json.dumps(meta | {"size_px": [320, 240]}))


@pytest.mark.parametrize(
    ("what", "message"),
    [
        ("no video", "has no video.mp4: the recording is damaged"),
        ("zero bytes", "is empty (0 bytes)"),
        ("cut bytes", "has no frames that decode"),
        ("not a video", "cannot read video"),
        ("meta frames", "meta.json says 99 frames but timestamps.csv has 4"),
        ("meta size", "is 160x120 px but meta.json says 320x240"),
    ],
)
def test_damaged_recordings_are_refused(clip, make_recording, what, message):
    folder = make_recording(4)
    _damage(folder, what, clip)
    with pytest.raises(SourceError) as info:
        VideoFileSource(folder)
    assert message in str(info.value)


def test_recording_without_frames_is_refused(clip, tmp_path):
    RecordingWriter(tmp_path / "r", fps=25, size_px=clip.size_px, table="t", source="s").close()
    with pytest.raises(SourceError, match="has no frames that decode"):
        VideoFileSource(tmp_path / "r")


def test_truncated_video_yields_what_decodes_then_raises(clip, make_recording):
    folder = make_recording(8)
    short = make_recording(5, name="short")
    shutil.copy(short / "video.mp4", folder / "video.mp4")
    source = VideoFileSource(folder)
    got = []
    with pytest.raises(TruncatedVideoError, match="ended after 5 of 8 frames") as info:
        for frame in source.frames():
            got.append(frame.t_ns)
    assert got == [clip.t_ns(i) for i in range(5)]
    assert (info.value.decoded, info.value.expected) == (5, 8)


def test_video_with_more_frames_than_timestamps_is_refused(clip, make_recording):
    folder = make_recording(3)
    shutil.copy(make_recording(5, name="long") / "video.mp4", folder / "video.mp4")
    with pytest.raises(SourceError, match=r"more frames than timestamps\.csv"):
        list(VideoFileSource(folder).frames())


def test_camera_that_drops_out_is_reopened(clip, tmp_path):
    # A video file stands in for the device: it "drops out" at its end and reopens from the top.
    device = tmp_path / "cam.mp4"
    _plain_video(device, clip, 4, fps=25)
    waits: list[float] = []
    with OpenCVCameraSource(str(device), sleep=waits.append) as camera:
        assert camera.size_px == clip.size_px
        frames = list(itertools.islice(camera.frames(), 10))
        assert camera.reopens == 2
    assert [f.index for f in frames] == list(range(10))
    assert np.all(np.diff([f.t_ns for f in frames]) > 0)
    assert waits == [0.5, 0.5]  # each reopen worked at the first attempt


def test_camera_gone_for_good_gives_up_after_bounded_back_off(clip, tmp_path):
    device = tmp_path / "cam.mp4"
    _plain_video(device, clip, 2, fps=25)
    waits: list[float] = []
    camera = OpenCVCameraSource(str(device), max_reopen_attempts=4, sleep=waits.append)
    device.unlink()  # unplugged
    got = []
    with pytest.raises(SourceError, match="could not be reopened after 4 attempts"):
        for frame in camera.frames():
            got.append(frame.index)
    assert got == [0, 1]
    assert waits == [0.5, 1.0, 2.0, 4.0]


@pytest.mark.parametrize(
    ("attempts", "first_s", "max_s", "expected"),
    [
        (0, 0.5, 8.0, []),
        (3, 0.5, 8.0, [0.5, 1.0, 2.0]),
        (7, 0.5, 8.0, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]),
        (3, 2.0, 3.0, [2.0, 3.0, 3.0]),
    ],
)
def test_backoff_delays(attempts, first_s, max_s, expected):
    assert backoff_delays_s(attempts, first_s, max_s) == expected


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.zeros((4, 4), np.uint8), r"expected \(h, w, 3\) uint8, got \(4, 4\)"),
        (np.zeros((4, 4, 4), np.uint8), r"got \(4, 4, 4\)"),
        (np.zeros((4, 4, 3), np.float64), "float64"),
    ],
)
def test_frame_rejects_bad_images(image, message):
    with pytest.raises(ValueError, match=message):
        Frame(0, 0, image)


def test_pi_camera_source_off_the_pi_says_how_to_get_it():
    with pytest.raises(SourceError, match="sudo apt install python3-picamera2"):
        PiCameraSource()
