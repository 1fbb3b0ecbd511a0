"""Evidence pictures and replay clips of the live match's calls.

``CallMedia`` keeps the recent frames (one ``FrameRing`` for evidence pictures, the replay
writer's ring for clips), draws each call's evidence picture the way a recorded match gets it
(``tablevar.evidence``) and asks for its replay clip (``tablevar.replay``), which the pages get
once written. The calls themselves come from the rules' reducer in the hub; this module only
draws what they decided.

Names: the live match log outlives a process (a restart resumes it), and a new match keeps the
same output folder, so a picture is named by the match id and the call's frame number (which
continues after the log's newest frame on a restart): ``evidence/m3-000412-goal.jpg``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from rules.calls import Call
from rules.pitch import Pitch
from tablevar.evidence import EvidenceWriter, FrameRing
from tablevar.replay import (
    ReplayConfig,
    ReplayWriter,
    replay_name,
    ring_stride,
    wants_replay,
)
from tablevar.tracked import TrackedFrame
from web.hub import MatchHub
from web.match import call_record

_log = logging.getLogger(__name__)


class CallMedia:
    """Evidence and replays of live calls, published through ``hub``; see the module docstring.

    Args:
        output_dir: pictures and clips go under this folder (their names relative to it).
        hub: the hub the calls are published through.
        evidence_frames: recent frames kept for evidence pictures at least.
        replay: the replay clips (their length, size and memory).
    """

    def __init__(self, output_dir, hub: MatchHub, evidence_frames: int, replay: ReplayConfig):
        self.output_dir, self.hub = output_dir, hub
        self._min_frames = evidence_frames
        self._ring = FrameRing(evidence_frames)
        self._writer: EvidenceWriter | None = None  # per calibration
        self._replay = replay
        self._replays = ReplayWriter(output_dir, self._ready, replay)

    def use_camera(self, camera: CameraModel, pitch: Pitch) -> None:
        """Draw on a new calibration's camera and pitch (the kept frames stay)."""
        self._writer = EvidenceWriter(self.output_dir, camera, pitch, frames=self._ring)

    def frames_held(self, fps: float, size_px: tuple[int, int]) -> int:
        """How many frames of ``size_px`` (BGR) at ``fps`` the two rings hold at most at once:
        the replay ring's frames (every ``stride``-th) among the evidence ring's recent ones
        count once, and at least ``evidence // stride`` of them are."""
        stride, capacity = ring_stride(fps, size_px[0] * size_px[1] * 3, self._replay)
        evidence = self._evidence_frames(stride, capacity)
        return evidence + capacity - min(capacity, evidence // stride)

    def _evidence_frames(self, stride: int, capacity: int) -> int:
        """The evidence ring's length beside a replay ring keeping every ``stride``-th frame,
        ``capacity`` of them: where that is every frame, evidence reaches as far."""
        return max(self._min_frames, capacity) if stride == 1 else self._min_frames

    def keep_frame(self, index: int, t_s: float, image: np.ndarray, fps: float) -> None:
        """Keep the frame for replays and evidence pictures (the same arrays for both)."""
        self._replays.add_frame(index, t_s, image, fps)
        self._ring.capacity = self._evidence_frames(self._replays.stride, self._replays.capacity)
        self._ring.add(index, image)

    def add_frames(self, frames: Iterable[TrackedFrame]) -> None:
        """The released tracked frames (where the ball was, for pictures and clips)."""
        if self._writer is not None:
            self._writer.add_frames(frames)

    def publish(self, calls: list[Call]) -> None:
        """Draw each call's picture, publish the calls with it and ask for their clips."""
        match_id, writer = self.hub.match_id, self._writer
        out, clips = [], []
        for call in calls:
            record = call_record(call)
            evidence = self._picture(record, match_id)
            replay = None
            if evidence is not None and wants_replay(record, self._replay):
                replay = replay_name(evidence)
                clips.append((record, replay, (match_id, call.id, call.kind)))
            out.append((call, evidence, replay))
        self.hub.publish_calls(out)
        for record, replay, key in clips:
            assert writer is not None  # a picture was drawn
            self._replays.request(record, replay, key, writer.camera, _focus_mm(record, writer))

    def close(self) -> None:
        self._replays.close()

    def _picture(self, record: dict[str, Any], match_id: int) -> str | None:
        if self._writer is None:
            return None
        try:
            return self._writer.write(record, match_id=match_id)
        except OSError as exc:  # a full disk costs the picture, not the call
            _log.error("evidence picture not written: %s", exc)
            return None

    def _ready(self, name: str, key: tuple[int, int, str]) -> None:
        match_id, call_id, kind = key
        self.hub.push_replay(call_id, name, kind, match_id=match_id)


def _focus_mm(call: dict[str, Any], writer: EvidenceWriter) -> tuple[float, float]:
    """Where the replay looks: the figure concerned, else the ball, else the call's place."""
    place = call.get("figure") or call.get("position")
    ball = writer.ball_at(int(call["frame"]))
    if call.get("figure") is None and ball is not None:
        return ball
    return (place["x_mm"], place["y_mm"]) if place else (0.0, 0.0)
