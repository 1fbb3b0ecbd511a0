"""Replay clips: the seconds round a call, cut from the ring, written off the live loop."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from tablevar.evidence import make_view
from tablevar.replay import ReplayConfig, ReplayWriter, replay_name, ring_stride, wants_replay

SIZE = (320, 240)
FPS = 20.0


@pytest.fixture(scope="module")
def camera() -> CameraModel:
    return CameraModel.overhead(SIZE, 300.0, 1500.0)


BITS_X_PX = 142 + 6 * np.arange(6) + 3  # centres of six 6 px bands round the image centre


def frame(index: int) -> np.ndarray:
    """A frame whose index is written in six black or white bands (survives H.264)."""
    image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    for bit, x in enumerate(BITS_X_PX):
        if index >> bit & 1:
            image[:, x - 3 : x + 3] = 255
    return image


def decoded_indices(path, camera: CameraModel, config: ReplayConfig) -> list[int]:
    view = make_view(camera, (0.0, 0.0), config.crop_mm, config.size_px)
    centre = 0.5 * (config.size_px - 1)
    cols = np.round(view.scale * (BITS_X_PX - view.focus_px[0]) + centre).astype(int)
    cap = cv2.VideoCapture(str(path))
    indices = []
    while True:
        ok, image = cap.read()
        if not ok:
            break
        bits = image[config.size_px // 2, cols, 1] > 128
        indices.append(int(sum(int(b) << k for k, b in enumerate(bits))))
    cap.release()
    return indices


def test_a_clip_holds_the_seconds_round_the_call_and_is_announced_once_written(tmp_path, camera):
    ready = []
    done = threading.Event()
    config = ReplayConfig(before_s=1.0, after_s=0.5, crop_mm=200.0, size_px=96)
    writer = ReplayWriter(
        tmp_path, lambda name, key: (ready.append((name, key)), done.set()), config
    )
    call = {"kind": "goal", "frame": 40, "t_s": 40 / FPS}
    for i in range(46):  # the call is released 6 frames after its decisive frame
        writer.add_frame(i, i / FPS, frame(i), FPS)
    writer.request(call, "evidence/000040-goal-replay.mp4", 7, camera, (0.0, 0.0))
    assert not ready  # 0.5 s after the call have not passed yet
    for i in range(46, 60):
        writer.add_frame(i, i / FPS, frame(i), FPS)
    assert done.wait(30)
    writer.close()
    assert ready == [("evidence/000040-goal-replay.mp4", 7)]
    # Frames 20 (1 s before) to 50 (0.5 s after), in order, nothing before or after.
    assert decoded_indices(tmp_path / ready[0][0], camera, config) == list(range(20, 51))
    assert not list(tmp_path.rglob("*.part"))


def test_a_clip_that_cannot_be_written_costs_the_replay_only(tmp_path, camera):
    (tmp_path / "evidence").write_text("a file where the folder should be")
    writer = ReplayWriter(tmp_path, lambda name, key: None, ReplayConfig(size_px=96))
    for i in range(10):
        writer.add_frame(i, i / FPS, frame(i), FPS)
    writer.request({"kind": "goal", "t_s": 0.2}, "evidence/x-replay.mp4", 1, camera, (0.0, 0.0))
    writer.close()
    assert (writer.written, writer.failed) == (0, 1)


@pytest.mark.parametrize(
    ("fps", "size", "stride", "capacity"),
    [
        (30.0, (800, 600), 1, 90),  # 3 s of 1.4 MB frames fit in 256 MB
        (56.0, (2304, 1296), 6, 28),  # 168 frames of 9 MB do not: 28 frames, every 6th
        (56.0, (4608, 2592), 24, 7),
    ],
)
def test_the_ring_fits_its_memory_by_keeping_every_kth_frame(fps, size, stride, capacity):
    config = ReplayConfig(before_s=2.0, release_s=1.0, max_ring_mb=256.0)
    nbytes = size[0] * size[1] * 3
    assert ring_stride(fps, nbytes, config) == (stride, capacity)
    assert capacity * nbytes <= 256e6 or stride == 1


def test_which_calls_get_a_replay():
    config = ReplayConfig()
    assert wants_replay({"kind": "goal"}, config) and wants_replay({"kind": "offside"}, config)
    assert not wants_replay({"kind": "half_time"}, config)
    assert wants_replay({"kind": "foul", "too_close_to_call": True}, config)
    assert replay_name("evidence/000123-goal.jpg") == "evidence/000123-goal-replay.mp4"
