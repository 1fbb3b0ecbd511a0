"""The bounded hand-over between a camera and the worker (``hardware.frame_queue``)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from hardware.frame_queue import QueuedSource
from hardware.frame_source import Frame, SourceBase, SourceError


class Camera(SourceBase):
    """Delivers ``n`` frames as fast as asked (a camera never waits), then maybe fails."""

    size_px, fps = (4, 2), 60.0

    def __init__(self, n: int, fail: bool = False) -> None:
        self.n, self.fail = n, fail
        self.closed = False

    def frames(self):
        for i in range(self.n):
            yield Frame(i, i * 16_666_667, np.zeros((2, 4, 3), np.uint8))
        if self.fail:
            raise SourceError("cable pulled")

    def close(self) -> None:
        self.closed = True


def test_a_worker_that_falls_behind_gets_the_newest_frames_and_the_drops_are_counted():
    queued = QueuedSource(Camera(50), max_frames=2)
    got = []
    for frame in queued.frames():
        got.append(frame.index)
        time.sleep(0.01)  # slower than the camera
    assert got == sorted(got)  # in capture order
    assert got[-1] == 49  # the present is never dropped
    assert queued.dropped == 50 - len(got) > 0


def test_a_queue_as_long_as_the_lag_loses_nothing():
    queued = QueuedSource(Camera(20), max_frames=20)
    got = []
    for frame in queued.frames():
        got.append(frame.index)
        time.sleep(0.002)
    assert got == list(range(20))
    assert queued.dropped == 0


def test_the_cameras_error_reaches_the_worker_after_its_frames():
    queued = QueuedSource(Camera(3, fail=True), max_frames=8)
    got = []
    with pytest.raises(SourceError, match="cable pulled"):
        for frame in queued.frames():
            got.append(frame.index)
    assert got == [0, 1, 2]


def test_close_closes_the_camera_and_a_queue_must_hold_a_frame():
    camera = Camera(1)
    with QueuedSource(camera):
        pass
    assert camera.closed
    with pytest.raises(ValueError, match="max_frames must be >= 1"):
        QueuedSource(camera, max_frames=0)
