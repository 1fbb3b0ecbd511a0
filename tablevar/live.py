"""The live runner: camera frames -> calibration -> pipeline -> the web hub, in a worker thread.

``LiveRunner`` opens a frame source, calibrates from the first ``calibration_s`` of frames when
no calibration was given (the per-pixel median of a few of them, ``clean_view``), learns the
table from the next frame and then runs the ``Pipeline`` frame by frame. Each final record goes
to the hub (the radar) and, as the rules' observation, into the live match the hub keeps
(``MatchHub.observe``: the rules' one state, which the referee's controls change too); each call
then reaches the page with the evidence picture a recorded match gets, and later its replay
clip (``tablevar.live_media``).

The frames come through the one loop and driver of every command (``tablevar.driver``). The
parts around them live beside this module: the tunables (``tablevar.live_options``), the
calibration from the first frames and on request (``tablevar.live_calibration``), the frame
numbers that outlive a reopened source or a restart (``tablevar.live_numbering``), the
source's state on the page and the stall watchdog (``tablevar.live_source_watch``), the rules
into the hub's match (``tablevar.live_referee``), evidence and replays (``tablevar.live_media``)
and the recording (``tablevar.live_record``).

Failures: the worker loop holds the one catch-all of the codebase. Whatever goes wrong (a camera
that stops, a file that vanishes, a frame the pipeline chokes on) is logged, the page is told
(``hub.set_source``), the last good state stays on the page, and the source is reopened after a
wait that doubles from ``reopen_first_s`` up to ``reopen_max_s``. A camera that only stalls (an
OpenCV camera reopening itself inside ``frames()``) is noticed by a watchdog after ``stall_s``.
Replayable sources (a video file, the simulator: ``FrameSource.replayable``) resume after the
last frame they delivered; when one simply ends, the page says so and the worker stops. A
failure of the refereeing itself (not the source's) is retried the same way, but
``max_failures`` of them in a row with no frame refereed between stop the worker with the error
on the page: retrying cannot mend a bug.

Recording (``record_dir``, ``tablevar.live_record``) never stops the refereeing, nor do the
signals at the table (``signals``, ``tablevar.live_signals``), which follow each refereed batch.
A camera that locks its settings for the match (the Pi's, ``controls``) has them saved with the
calibration.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from calibration.calibration_file import Calibration
from calibration.tables import load_pitch
from hardware.frame_queue import QueuedSource
from hardware.frame_source import Frame, FrameSource
from tablevar.driver import Driver, Judged, play
from tablevar.live_calibration import OVERLAY_NAME, LiveCalibration
from tablevar.live_media import CallMedia
from tablevar.live_numbering import RESUME_GAP_S, LiveNumbering
from tablevar.live_options import LiveError, LiveOptions
from tablevar.live_record import LiveRecorder
from tablevar.live_referee import LiveReferee
from tablevar.live_signals import LiveSignals
from tablevar.live_source_watch import SourceWatch
from tablevar.pipeline import Pipeline, PipelineConfig
from tablevar.tracked import TracksEncoder
from vision.model import learn_model
from web.hub import MatchHub

__all__ = ["OVERLAY_NAME", "RESUME_GAP_S", "LiveError", "LiveOptions", "LiveRunner"]
_log = logging.getLogger(__name__)
EVIDENCE_DIR = "evidence"


class _ProcessingError(RuntimeError):
    """A frame arrived but refereeing it failed: ours, not the source's."""


class LiveRunner:
    """Runs the driver on a frame source and feeds the hub; see the module docstring.

    Args:
        open_source: opens the source (again after a failure); raises on failure.
        hub: the web app's match hub.
        output_dir: evidence pictures, ``calibration.json`` and its overlay go here.
        calibration: a fixed calibration (None: calibrate from the first frames).
        options: tunables.
        record_dir: also write every frame into this recording folder.
        signals: the signals at the table (None: none); closed when the worker ends.
    """

    def __init__(
        self,
        open_source: Callable[[], FrameSource],
        hub: MatchHub,
        output_dir: str | Path,
        *,
        calibration: Calibration | None = None,
        options: LiveOptions | None = None,
        record_dir: str | Path | None = None,
        signals: LiveSignals | None = None,
    ) -> None:
        self.options = opts = options or LiveOptions()
        self._signals = signals
        self._open_source, self.hub = open_source, hub
        self.output_dir = Path(output_dir)
        (self.output_dir / EVIDENCE_DIR).mkdir(parents=True, exist_ok=True)
        self.pitch = load_pitch(opts.table, opts.game)
        self._recorder = (
            LiveRecorder(record_dir, hub, opts.table, self.pitch.profile.game)
            if record_dir
            else None
        )
        self._calibration = LiveCalibration(self.output_dir, self.pitch, opts, calibration)
        self._driver: Driver | None = None
        self._media = CallMedia(self.output_dir, hub, opts.evidence_frames, opts.replay)
        self._encode = TracksEncoder()
        self._retry_at = 0.0
        self._numbering = LiveNumbering(hub.resume_point)
        self._delivered = 0  # frames from this process's sources (a replayable one resumes there)
        self.refereed = 0  # frames the driver went through without an error
        self.dropped = 0  # camera frames dropped because the worker fell behind
        self._fps = 30.0  # the source's nominal rate
        self._lossy = True  # ... and whether its frames are (FrameSource.lossy)
        self._readout_s: float | None = None  # ... and its shutter's (FrameSource.readout_s)
        self._watch = SourceWatch(hub, opts.stall_s)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.error: str | None = None  # the last failure, for logs and tests
        self.ended = False

    @property
    def frames(self) -> int:
        """Frames received (calibration frames too; continued from a resumed match log)."""
        return self._numbering.frames

    @property
    def calibration(self) -> Calibration | None:
        """The calibration refereed with (None: not calibrated yet)."""
        return self._calibration.calibration

    # ------------------------------------------------------------------ thread control
    def start(self) -> None:
        """Start the worker and its watchdog threads."""
        watchdog = lambda: self._watch.watch(self._stop, lambda: self.ended)  # noqa: E731
        for target, name in ((self.run, "tablevar-live"), (watchdog, "tablevar-watchdog")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Ask the threads to stop and wait for them (the worker finishes its frame)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads.clear()

    def recalibrate(self) -> dict[str, Any]:
        """Calibrate again from the next frames (the page's control); blocks until done.

        Returns:
            the new ``calibration.json`` content.

        Raises:
            LiveError: no frames arrive to calibrate from, or the lines were not found.
        """
        request = self._calibration.request()
        if not request.done.wait(self.options.recalibrate_timeout_s):
            self._calibration.withdraw(request)
            raise LiveError("no frames arrive from the camera: cannot recalibrate now")
        if request.error is not None:
            raise LiveError(request.error)
        assert request.result is not None
        return request.result

    def set_ball_colour(self, colour: str) -> None:
        """Look for a ball of ``colour`` (``#rrggbb`` or a name, picked on the calibration
        page) from the next frame on, and save it with the calibration.

        Raises:
            ValueError: the colour is not a name or ``#rrggbb``.
        """
        self._calibration.pick_ball_colour(colour)

    # ------------------------------------------------------------------ the worker loop
    def run(self) -> None:
        """The worker loop: open, play, and on any failure log, tell the page and reopen."""
        delay_s = self.options.reopen_first_s
        failures = 0  # our own failures in a row (not the source's)
        try:
            while not self._stop.is_set():
                seen, refereed = self.frames, self.refereed
                try:
                    with self._open_source() as source:
                        self._play(source)
                    if not self._stop.is_set():
                        self._watch.set(False, source.end_message)
                        self.ended = True
                    return
                except Exception as exc:  # the one catch-all: log, keep serving the last state
                    self.error = " ".join(str(exc).split()) or type(exc).__name__
                    ours = isinstance(exc, _ProcessingError)
                    failures = failures + 1 if ours and self.refereed == refereed else int(ours)
                    if self._give_up(exc, failures):
                        return
                    if self.frames > seen:
                        delay_s = self.options.reopen_first_s  # it worked for a while
                    self._watch.set(False, f"{self.error}; retrying in {delay_s:g} s")
                    if self._stop.wait(delay_s):
                        return
                    delay_s = min(2.0 * delay_s, self.options.reopen_max_s)
        finally:
            self._finish()

    def _give_up(self, exc: Exception, failures: int) -> bool:
        """Log a failure; True when it is ours and keeps coming back (retrying cannot help).

        A source's failure (a cable, a file) is retried for ever: the camera may come back.
        A failure of the refereeing itself is retried too (one bad frame must not end a
        match), but not when ``max_failures`` come in a row with no frame refereed between.
        """
        if not isinstance(exc, _ProcessingError):
            _log.warning("source: %s", self.error)  # expected: cables, files
            return False
        _log.error("live refereeing failed: %s", self.error, exc_info=exc.__cause__)
        if failures < self.options.max_failures:
            return False
        self._watch.set(False, f"refereeing stopped after {failures} errors: {self.error}")
        self._driver = None  # what it still holds would fail the same way
        self.ended = True
        return True

    def _play(self, source: FrameSource) -> None:
        first = [True]
        # The frames held at once: the rings', the queue's, the one refereed and the one
        # being copied (a camera copies into buffers of its own, made before the match).
        held = self._media.frames_held(source.fps, source.size_px)
        source.reserve_frames(held + self.options.queue_frames + 2)
        # A camera delivers at its own rate: its frames wait in a bounded queue that drops
        # the oldest when the worker falls behind. Files and the simulator wait for us.
        queued = None
        if source.paced and not source.replayable:
            queued = QueuedSource(source, self.options.queue_frames)
        dropped_before = self.dropped

        def receive(frame: Frame) -> None:
            try:
                self._receive(frame, first[0], source)
            except Exception as exc:  # not the source's: told apart for the worker loop
                message = " ".join(str(exc).split()) or type(exc).__name__
                raise _ProcessingError(message) from exc
            first[0] = False
            if queued is not None and dropped_before + queued.dropped != self.dropped:
                self.dropped = dropped_before + queued.dropped
                self.hub.set_dropped(self.dropped)

        try:
            play(
                source if queued is None else queued,
                receive,
                resume_at=self._delivered,
                pace=self.options.pace_files,
                stop=self._stop,
                waiting=self._watch.waiting,
            )
        finally:
            if queued is not None:
                queued.stop()

    def _receive(self, frame: Frame, first: bool, source: FrameSource) -> None:
        index, t_s = self._numbering.next(frame.t_s, first, source.fps)
        self._delivered += 1
        self._fps, self._lossy, self._readout_s = source.fps, source.lossy, source.readout_s
        self._calibration.camera_controls = getattr(source, "controls", None)
        if self._watch.ok is not True:
            self._watch.set(True)
        if self._recorder is not None:
            self._recorder.write(frame, t_s, source)
        self._media.keep_frame(index, t_s, frame.image_bgr, self._fps)
        self._step(frame.image_bgr, index, t_s)
        self.refereed += 1

    # ------------------------------------------------------------------ per frame
    def _step(self, image: np.ndarray, index: int, t_s: float) -> None:
        calibration = self._calibration
        picked = calibration.take_ball_colour()
        if picked is not None:
            self._calibrated()
        if calibration.wants_frames:
            outcome = calibration.collect(image, t_s)
            if isinstance(outcome, Calibration):
                self._calibrated()
            elif outcome is not None and calibration.calibration is None:
                self._watch.set(False, f"{outcome}; trying again")  # nothing to referee with
            if calibration.calibration is None:
                return
        if self._driver is None:
            if time.monotonic() < self._retry_at:
                return
            self._start_driver(image, index, t_s)
            if self._driver is None:
                return
        self._publish(self._driver.step(image, t_s - self._driver.t0_s))

    def _calibrated(self) -> None:
        """A new calibration (or ball colour): the old driver hands over its frames, and a
        new one starts with the next frame."""
        if self._driver is not None:
            self._publish(self._driver.finish())
            self._driver = None
        self._watch.set(True)

    def _start_driver(self, image: np.ndarray, index: int, t_s: float) -> None:
        cal = self._calibration.calibration
        assert cal is not None
        pitch = cal.measured_pitch(self.pitch)
        config = PipelineConfig.for_frames(self._lossy, cal.ball_colour, self._readout_s)
        try:
            model = learn_model([image], cal.camera, pitch, config.vision)
        except ValueError as exc:
            self._retry_at = time.monotonic() + self.options.retry_s
            message = " ".join(str(exc).split())
            self._watch.set(False, f"cannot see the table yet: {message}; trying again")
            return
        # The match itself, its state, lives in the hub and outlives a recalibration.
        referee = LiveReferee(self.hub, self.pitch, cal)
        pipeline = Pipeline(model, fps=self._fps, config=config)
        self._driver = Driver(pipeline, referee, frame0=index, t0_s=t_s)
        self._media.use_camera(cal.camera, cal.called_pitch(self.pitch))
        self._watch.set(True)

    def _publish(self, judged: Judged) -> None:
        for frame in judged.frames:
            self.hub.push_frame(self._encode(frame))
        self._media.add_frames(judged.frames)
        # A shot call made on the page is judged at once; its picture is drawn here, in the
        # worker, from the frames kept.
        self._media.publish(list(judged.calls) + self.hub.take_action_calls())
        if self._signals is not None:
            self._signals.judged(judged.calls)

    # ------------------------------------------------------------------ around the frames
    def _finish(self) -> None:
        driver = self._driver
        if driver is not None:
            self._publish(driver.finish())
            self._driver = None
        if self._recorder is not None:
            self._recorder.close()
        self._media.close()
        self._calibration.close("the live source has stopped")
        if self._signals is not None:
            self._signals.close()
