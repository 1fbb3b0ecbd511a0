"""The live match's frame rings (``tablevar/live_media.py``): what they hold at once, which
a camera makes ready before the match (``hardware.frame_pool``)."""

from __future__ import annotations

import gc
import time
import weakref

import numpy as np
import pytest

from simulator.sim_source import SimSource
from tablevar.live import LiveOptions, LiveRunner
from tablevar.live_media import CallMedia
from tablevar.replay import ReplayConfig, ring_stride
from web.hub import MatchHub
from web.matchlog import MatchLog

SIZE = (64, 48)
FPS = 30.0


@pytest.mark.parametrize(
    ("evidence_frames", "ring_mb"),
    [
        (32, 0.1),  # replays keep every 9th of 90 frames: 10, four of them evidence's too
        (8, 0.1),  # fewer evidence frames than the stride: one replay frame among them
        (32, 100.0),  # replays keep every frame: one ring of 90 serves both
        (120, 100.0),  # ... or the evidence ring is the longer
    ],
)
def test_the_frames_held_at_once_are_what_the_rings_hold(tmp_path, evidence_frames, ring_mb):
    replay = ReplayConfig(before_s=2.0, release_s=1.0, max_ring_mb=ring_mb)
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), output_dir=tmp_path)
    media = CallMedia(tmp_path, hub, evidence_frames, replay)
    try:
        alive: list[weakref.ref] = []
        most = 0
        for i in range(400):
            image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
            alive.append(weakref.ref(image))
            media.keep_frame(i, i / FPS, image, FPS)
            del image
            gc.collect(0)
            most = max(most, sum(r() is not None for r in alive))
        assert media.frames_held(FPS, SIZE) == most
        stride, _ = ring_stride(FPS, SIZE[0] * SIZE[1] * 3, replay)
        assert (stride > 1) == (ring_mb == 0.1)  # both kinds of ring are tried
    finally:
        media.close()


class ReservingSource(SimSource):
    """The simulator as a camera that copies its frames into buffers of its own (the Pi's):
    what the live runner asks it to make ready before the frames flow."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reserved: list[int] = []

    def reserve_frames(self, count: int) -> None:
        self.reserved.append(count)


def test_the_camera_makes_ready_the_frames_the_rings_the_queue_and_the_worker_hold(tmp_path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), output_dir=tmp_path / "out")
    source = ReservingSource("kickoff_pass", size_px=(160, 120), fps=30.0, end_s=0.3)
    options = LiveOptions(calibration_s=100.0, evidence_frames=20, queue_frames=3)
    runner = LiveRunner(lambda: source, hub, tmp_path / "out", options=options)
    runner.start()
    try:
        deadline = time.monotonic() + 30
        while not runner.ended:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        runner.stop()
        hub.close()
    media = CallMedia(tmp_path / "rings", hub, options.evidence_frames, options.replay)
    try:
        rings = media.frames_held(source.fps, source.size_px)
    finally:
        media.close()
    # Once, before the first frame: the rings' frames, those waiting in the queue, the one
    # being refereed and the one being copied.
    assert source.reserved == [rings + options.queue_frames + 2]
