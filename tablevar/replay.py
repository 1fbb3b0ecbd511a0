"""Replay clips: the seconds around a call, cut from a ring of recent frames, as a small MP4.

The live runner hands every frame to a ``ReplayWriter``. A call that deserves a replay (a goal,
a ball out, an offside, anything too close to call) asks for one: the clip runs from
``before_s`` before the call's decisive frame to ``after_s`` after it, zoomed on where it
happened. Frames before the call come from the ring; the writer keeps collecting until the
clip is complete, then a background thread crops and encodes it (H.264, which every browser
plays), so the live loop never waits for the encoder. A clip appears under its final name only
once whole (written to ``.part`` and renamed); ``on_ready(name, key)`` then tells the page.

Memory: the ring keeps the frames themselves (by reference: sources hand out new arrays), at
most ``max_ring_mb``. When ``before_s`` (plus the time a call takes to be released) at the
source's rate does not fit, only every k-th frame is kept, so a large camera frame gives a
clip at a lower rate rather than a shorter one.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from hardware.video_writer import VideoWriter
from tablevar.evidence import View, make_view

_log = logging.getLogger(__name__)
REPLAY_KINDS = ("goal", "goal_disallowed", "ball_out", "offside", "close_call")


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """What a replay clip holds and what it may cost.

    Attributes:
        before_s: seconds of play shown before the decisive frame.
        after_s: seconds shown after it (the clip is written once they have passed).
        release_s: how late a call may reach the writer after its decisive frame (the
            pipeline's hold and the rules' delay): the ring keeps this much more.
        crop_mm: side of the cloth square shown round where the call happened.
        size_px: side of the (square) clip in pixels; even.
        max_ring_mb: memory the ring of recent frames may hold, MB.
        kinds: call kinds that get a replay (and any call too close to call).
    """

    before_s: float = 2.0
    after_s: float = 1.0
    release_s: float = 1.0
    crop_mm: float = 360.0
    size_px: int = 480
    max_ring_mb: float = 256.0
    kinds: tuple[str, ...] = REPLAY_KINDS

    def __post_init__(self) -> None:
        if not (self.before_s >= 0 and self.after_s >= 0 and self.crop_mm > 0):
            raise ValueError(
                "ReplayConfig: before_s, after_s >= 0 and crop_mm > 0 are needed, got "
                f"{self.before_s}, {self.after_s}, {self.crop_mm}"
            )
        if self.size_px < 64 or self.size_px % 2:
            raise ValueError(f"ReplayConfig: size_px must be even and >= 64, got {self.size_px}")


def wants_replay(call: dict[str, Any], config: ReplayConfig) -> bool:
    """Whether ``call`` gets a replay clip."""
    return call["kind"] in config.kinds or bool(call.get("too_close_to_call"))


def replay_name(evidence: str) -> str:
    """The clip's path next to the evidence picture: ``evidence/000123-goal-replay.mp4``."""
    return evidence.removesuffix(".jpg") + "-replay.mp4"


def ring_stride(fps: float, frame_bytes: int, config: ReplayConfig) -> tuple[int, int]:
    """``(stride, capacity)``: keep every ``stride``-th frame, at most ``capacity`` of them."""
    wanted = max(1, math.ceil((config.before_s + config.release_s) * fps))
    fit = max(1, int(config.max_ring_mb * 1e6 // max(frame_bytes, 1)))
    stride = max(1, math.ceil(wanted / fit))
    return stride, max(1, math.ceil(wanted / stride))


@dataclass(slots=True)
class _Clip:
    name: str
    key: Any
    view: View
    end_t_s: float
    frames: list[NDArray[np.uint8]] = field(default_factory=list)


class ReplayWriter:
    """Cuts replay clips from recent frames; see the module docstring.

    Args:
        out_dir: clips are written under this folder (names relative to it).
        on_ready: called as ``on_ready(name, key)`` from the writer thread once a clip is on
            disk.
        config: what a clip holds; defaults when None.
    """

    def __init__(
        self,
        out_dir: str | Path,
        on_ready: Callable[[str, Any], None],
        config: ReplayConfig | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.config = config or ReplayConfig()
        self._on_ready = on_ready
        self._ring: deque[tuple[int, float, NDArray[np.uint8]]] = deque(maxlen=1)
        self._stride = 0  # 0: not sized yet (sized by the first frame)
        self._fps = 30.0
        self._open: list[_Clip] = []
        self._jobs: queue.Queue[tuple[_Clip, float] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="tablevar-replay", daemon=True)
        self._thread.start()
        self.written = 0
        self.failed = 0

    def add_frame(self, index: int, t_s: float, image_bgr: NDArray[np.uint8], fps: float):
        """Remember a frame (every frame, as it arrives) and feed the clips being collected."""
        if self._stride == 0:
            self._fps = fps
            self._stride, capacity = ring_stride(fps, image_bgr.nbytes, self.config)
            self._ring = deque(maxlen=capacity)
        if index % self._stride:
            return
        self._ring.append((index, t_s, image_bgr))
        for clip in [c for c in self._open if t_s > c.end_t_s]:
            self._submit(clip)
        for clip in self._open:
            clip.frames.append(image_bgr)

    @property
    def stride(self) -> int:
        """Every ``stride``-th frame is kept (0 before the first frame)."""
        return self._stride

    @property
    def capacity(self) -> int:
        """How many frames the ring keeps."""
        return self._ring.maxlen or 0

    def request(
        self,
        call: dict[str, Any],
        name: str,
        key: Any,
        camera: CameraModel,
        focus_mm: tuple[float, float],
    ) -> None:
        """Cut a clip round ``call``'s decisive time, zoomed on ``focus_mm``, into ``name``."""
        cfg = self.config
        view = make_view(camera, focus_mm, cfg.crop_mm, cfg.size_px)
        t_s = float(call["t_s"])
        clip = _Clip(name, key, view, t_s + cfg.after_s)
        clip.frames = [img for _, t, img in self._ring if t_s - cfg.before_s <= t <= clip.end_t_s]
        self._open.append(clip)
        if self._ring and self._ring[-1][1] > clip.end_t_s:  # released after its end already
            self._submit(clip)

    def close(self, timeout_s: float = 10.0) -> None:
        """Write the clips being collected with the frames they have; wait for the writer."""
        for clip in list(self._open):
            self._submit(clip)
        self._jobs.put(None)
        self._thread.join(timeout_s)

    def _submit(self, clip: _Clip) -> None:
        self._open.remove(clip)
        if clip.frames:
            self._jobs.put((clip, self._fps / self._stride))

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            clip, fps = job
            try:
                self._write(clip, fps)
            except (OSError, ValueError) as exc:  # a full disk costs the replay, not the match
                self.failed += 1
                _log.warning("replay %s not written: %s", clip.name, " ".join(str(exc).split()))
                continue
            self.written += 1
            self._on_ready(clip.name, clip.key)

    def _write(self, clip: _Clip, fps: float) -> None:
        size = self.config.size_px
        path = self.out_dir / clip.name
        part = path.with_name(path.name + ".part")
        path.parent.mkdir(parents=True, exist_ok=True)
        matrix = clip.view.matrix()
        try:
            writer = VideoWriter(part, fps, (size, size))
            try:
                for image in clip.frames:
                    crop = cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_LINEAR)
                    writer.write(crop)
            finally:
                writer.close()
            os.replace(part, path)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
