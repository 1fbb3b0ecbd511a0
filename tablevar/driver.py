"""The one driver of ``analyze``, ``review`` and ``live``: a frame source -> pipeline -> rules.

``play(source, receive)`` is the one loop over a frame source: it hands each frame to
``receive`` in order, skips the frames a replayable source already delivered before it was
opened again (``FrameSource.replayable``), paces a source that does not pace itself when asked
(``FrameSource.paced``), and stops when told.

``Driver`` is the work on one frame, the same for every command: the pipeline
(detection, tracking) releases final ``TrackedFrame``s, a ``Referee`` judges each in order
(``TrackedFrame`` -> ``rules.observation.Observation`` -> ``rules.calls.Call``: frozen data all
the way) and the frames come back named by the rules, with their calls, as one ``Judged``. What
is done with them (files, the page) is the caller's: JSON is made only there.

Wall-clock time is read here, and only to pace a source and report ``ms_per_frame`` (the
pipeline and the rules together).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hardware.frame_source import Frame, FrameSource
from rules.calls import Call
from tablevar.pipeline import Pipeline
from tablevar.tracked import TrackedFrame


class Referee(Protocol):
    """The rules as the driver sees them (``FistfRules``, or the live match's hub)."""

    def judge(self, frame: TrackedFrame) -> tuple[TrackedFrame, list[Call]]:
        """One final frame through the rules: the frame as they name it, and their calls."""
        ...


@dataclass(frozen=True, slots=True)
class Judged:
    """What one step of the driver made final: tracked frames in order and their calls."""

    frames: tuple[TrackedFrame, ...] = ()
    calls: tuple[Call, ...] = ()


class Driver:
    """Pipeline and rules for one calibration, frame by frame.

    Args:
        pipeline: detection and tracking.
        referee: the rules.
        frame0: added to the pipeline's frame numbers (a live runner's numbering outlives a
            pipeline: recalibration starts a new one).
        t0_s: added to the pipeline's times, s.
    """

    def __init__(
        self, pipeline: Pipeline, referee: Referee, *, frame0: int = 0, t0_s: float = 0.0
    ) -> None:
        self.pipeline, self.referee = pipeline, referee
        self.frame0, self.t0_s = frame0, t0_s
        self.busy_s = 0.0

    def step(self, image: np.ndarray, t_s: float) -> Judged:
        """One frame (``t_s`` on the pipeline's own time line) through pipeline and rules."""
        start = time.perf_counter()
        judged = self._judge(self.pipeline.process(image, t_s))
        self.busy_s += time.perf_counter() - start
        return judged

    def finish(self) -> Judged:
        """Judge every frame the pipeline still holds (end of the source, or recalibrated)."""
        return self._judge(self.pipeline.finish())

    def _judge(self, released: list[TrackedFrame]) -> Judged:
        if not released:
            return Judged()
        frames, calls = [], []
        for frame in released:
            named, new = self.referee.judge(frame.shifted(self.frame0, self.t0_s))
            frames.append(named)
            calls += new
        return Judged(tuple(frames), tuple(calls))

    @property
    def frames(self) -> int:
        """Frames the pipeline has seen."""
        return self.pipeline.frames

    @property
    def ms_per_frame(self) -> float:
        """Pipeline and rules, ms per frame seen."""
        return 1000.0 * self.busy_s / max(self.pipeline.frames, 1)


def play(
    source: FrameSource,
    receive: Callable[[Frame], None],
    *,
    resume_at: int = 0,
    pace: bool = False,
    stop: threading.Event | None = None,
    waiting: Callable[[bool], None] | None = None,
) -> None:
    """Hand every frame of ``source`` to ``receive``, in order, until it ends or ``stop``.

    Args:
        source: the frame source (open).
        receive: called with each frame.
        resume_at: a replayable source (``FrameSource.replayable``) opened again resumes at
            this frame index: the frames before it were delivered already.
        pace: play a source that does not pace itself (``FrameSource.paced``: a video file) at
            the speed it was captured, as a camera would deliver it.
        stop: set to end after the frame in hand.
        waiting: told True before the source is asked for a frame and False once it answered
            (a watchdog notices a source that stalls).
    """
    skip_to = resume_at if source.replayable else 0
    pace = pace and not source.paced
    wait = stop.wait if stop is not None else time.sleep
    wall0 = t_first = None
    frames = source.frames()
    while stop is None or not stop.is_set():
        if waiting is not None:
            waiting(True)
        frame = next(frames, None)
        if waiting is not None:
            waiting(False)
        if frame is None:
            return
        if frame.index < skip_to:
            continue
        if pace:
            wall0 = time.monotonic() if wall0 is None else wall0
            t_first = frame.t_s if t_first is None else t_first
            wait(max(0.0, wall0 + frame.t_s - t_first - time.monotonic()))
        receive(frame)
