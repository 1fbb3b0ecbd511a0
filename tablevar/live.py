"""The live runner: camera frames -> calibration -> pipeline -> the web hub, in a worker thread.

``LiveRunner`` opens a frame source, calibrates from the first ``calibration_s`` of frames when
no calibration was given (the per-pixel median of a few of them, ``clean_view``), learns the
table from the next frame and then runs the ``Pipeline`` frame by frame. Each final record goes
to the hub (the radar) and, as the rules' observation, into the live match the hub keeps
(``MatchHub.observe``: the rules' one state, which the referee's controls change too); each call
then reaches the page with the evidence picture a recorded match gets, and later its replay
clip (``tablevar.live_media``).

Numbering: ``frame`` counts every frame the runner received (calibration frames too, so on a
new log it equals the frame index of ``--record``'s recording), and ``t_s`` runs from the first
of them. A source that is reopened continues both, the outage showing as a gap in time, which
the rules' clock does not count (DESIGN.md section 8). A runner started again on a match log
(after a power cut or a crash) continues both after the newest frame the log has seen, and the
match from its newest state: frame numbers and evidence names stay unique.

Failures: the worker loop holds the one catch-all of the codebase. Whatever goes wrong (a camera
that stops, a file that vanishes, a frame the pipeline chokes on) is logged, the page is told
(``hub.set_source``), the last good state stays on the page, and the source is reopened after a
wait that doubles from ``reopen_first_s`` up to ``reopen_max_s``. A camera that only stalls (an
OpenCV camera reopening itself inside ``frames()``) is noticed by a watchdog after ``stall_s``.
Recorded sources (a video file, the simulator) resume after the last frame they delivered; when
one simply ends, the page says so and the worker stops. A failure of the refereeing itself (not
the source's) is retried the same way, but ``max_failures`` of them in a row with no frame
refereed between stop the worker with the error on the page: retrying cannot mend a bug.

Recording (``record_dir``, ``tablevar.live_record``) never stops the refereeing.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calibrate import calibrate, clean_view
from calibration.calibration_file import Calibration, write_calibration
from calibration.report import draw_overlay
from calibration.tables import load_pitch
from hardware.sim_source import SimSource
from hardware.sources import Frame, FrameSource, VideoFileSource
from tablevar.live_media import CallMedia
from tablevar.live_record import LiveRecorder
from tablevar.pipeline import Pipeline, PipelineConfig
from tablevar.replay import ReplayConfig
from tablevar.rules_stage import FistfRules
from vision.colour import parse_colour
from vision.model import learn_model
from web.hub import MatchHub
from web.recordings import VIEW_NAME

_log = logging.getLogger(__name__)
EVIDENCE_DIR = "evidence"
RESUME_GAP_S = 1.0  # the first frame after a restart follows the log's last after this (> max gap)
OVERLAY_NAME = "calibration_overlay.png"


class LiveError(ValueError):
    """The live runner cannot do what was asked (e.g. recalibrate without frames)."""


@dataclass(frozen=True, slots=True)
class LiveOptions:
    """Tunables of the live runner.

    Attributes:
        table: table profile name or path.
        calibration_s: frames of this many seconds are median-filtered to calibrate from.
        calibration_frames: at most this many of them are kept.
        evidence_frames: recent frames kept for evidence pictures (bounded memory).
        stall_s: a source that delivers nothing for this long is reported as dropped out.
        reopen_first_s: wait before the first reopen; doubles per failure.
        reopen_max_s: longest wait between reopen attempts.
        retry_s: wait between attempts to calibrate or learn the table that failed.
        pace_files: play a video file at its own speed (as a camera would deliver it).
        recalibrate_timeout_s: how long a recalibration request waits for the worker.
        replay: the replay clips of calls (their length, size and memory).
        max_failures: failures of our own (not the source's) in a row, without a frame
            refereed in between, after which the worker stops instead of retrying for ever.
    """

    table: str = "fistf"
    calibration_s: float = 1.0
    calibration_frames: int = 12
    evidence_frames: int = 32
    stall_s: float = 1.5
    reopen_first_s: float = 0.5
    reopen_max_s: float = 8.0
    retry_s: float = 0.3
    pace_files: bool = True
    recalibrate_timeout_s: float = 30.0
    max_failures: int = 3
    replay: ReplayConfig = field(default_factory=ReplayConfig)


class _ProcessingError(RuntimeError):
    """A frame arrived but refereeing it failed: ours, not the source's."""


class _Recalibration:
    """One request from the calibration page, answered by the worker."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: dict[str, Any] | None = None
        self.error: str | None = None


class LiveRunner:
    """Runs the pipeline on a frame source and feeds the hub; see the module docstring.

    Args:
        open_source: opens the source (again after a failure); raises on failure.
        hub: the web app's match hub.
        output_dir: evidence pictures, ``calibration.json`` and its overlay go here.
        calibration: a fixed calibration (None: calibrate from the first frames).
        options: tunables.
        record_dir: also write every frame into this recording folder.
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
    ) -> None:
        self.options = opts = options or LiveOptions()
        self._open_source, self.hub = open_source, hub
        self.output_dir = Path(output_dir)
        (self.output_dir / EVIDENCE_DIR).mkdir(parents=True, exist_ok=True)
        self._recorder = LiveRecorder(record_dir, hub, opts.table) if record_dir else None
        self.pitch = load_pitch(opts.table)
        self.calibration = calibration
        self._cal_frames: list[np.ndarray] = []
        self._cal_t0: float | None = None
        self._requests: list[_Recalibration] = []
        self._ball_colour: str | None = None  # picked on the page, for the worker to take
        self._pipeline: Pipeline | None = None
        self._offset = (0, 0.0)  # (frame, t_s) of the current pipeline's first frame
        self._rules: FistfRules | None = None
        self._new_calls: list = []  # calls of this frame, waiting for their evidence
        self._media = CallMedia(self.output_dir, hub, opts.evidence_frames, opts.replay)
        self._retry_at = 0.0
        self.frames = 0  # frames received
        self._delivered = 0  # ... from this process's sources (a recorded one resumes there)
        self.refereed = 0  # frames the pipeline went through without an error
        self._t_s: float | None = None  # time of the last frame received
        self._t_offset = 0.0  # source time -> runner time
        self._fps = 30.0  # the source's nominal rate
        self._lossy = True  # ... and whether its frames are (FrameSource.lossy)
        self._wall_last = 0.0
        self._source_ok: bool | None = None
        self._waiting_since: float | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # recalibration requests
        self._state_lock = threading.RLock()  # the source state the page shows
        self._threads: list[threading.Thread] = []
        self.error: str | None = None  # the last failure, for logs and tests
        self.ended = False
        self._continue_log()

    # ------------------------------------------------------------------ thread control
    def start(self) -> None:
        """Start the worker and its watchdog threads."""
        for target, name in ((self.run, "tablevar-live"), (self._watch, "tablevar-watchdog")):
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
        request = _Recalibration()
        with self._lock:
            self._requests.append(request)
        if not request.done.wait(self.options.recalibrate_timeout_s):
            with self._lock:
                if request in self._requests:
                    self._requests.remove(request)
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
        parse_colour(colour)  # a bad colour fails here, not in the worker
        with self._lock:
            self._ball_colour = colour

    def _continue_log(self) -> None:
        """Number frames on from the newest one the match log has seen, after a gap the clock
        does not count (the match itself the hub resumed from the log)."""
        point = self.hub.resume_point
        if point is not None:
            self.frames = point[0] + 1
            self._t_s = point[1]
            self._wall_last = -math.inf  # the first frame comes after an outage

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
                        self._source_state(False, self._end_message(source))
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
                    self._source_state(False, f"{self.error}; retrying in {delay_s:g} s")
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
        self._source_state(False, f"refereeing stopped after {failures} errors: {self.error}")
        self._pipeline = None  # what it still holds would fail the same way
        self.ended = True
        return True

    def _play(self, source: FrameSource) -> None:
        recorded = isinstance(source, VideoFileSource | SimSource)
        skip_to = self._delivered if recorded else 0  # a recorded source resumes where it was
        first = True
        wall0 = t_first = None
        frames = source.frames()
        while not self._stop.is_set():
            self._waiting_since = time.monotonic()
            frame = next(frames, None)
            with self._state_lock:
                self._waiting_since = None
            if frame is None:
                return
            if recorded and frame.index < skip_to:
                continue
            if isinstance(source, VideoFileSource) and self.options.pace_files:
                wall0 = time.monotonic() if wall0 is None else wall0
                t_first = frame.t_s if t_first is None else t_first
                self._stop.wait(max(0.0, wall0 + frame.t_s - t_first - time.monotonic()))
            try:
                self._receive(frame, first, source)
            except Exception as exc:  # not the source's: told apart for the worker loop
                raise _ProcessingError(" ".join(str(exc).split()) or type(exc).__name__) from exc
            first = False

    def _receive(self, frame: Frame, first: bool, source: FrameSource) -> None:
        now = time.monotonic()
        if self._t_s is None:
            t_s = 0.0
            self._t_offset = -frame.t_s
        elif first:  # (re)opened: continue after the outage, however the source counts
            gap_s = max(now - self._wall_last, 1.0 / max(source.fps, 1.0))
            gap_s = RESUME_GAP_S if math.isinf(gap_s) else gap_s  # the first after a restart
            self._t_offset = self._t_s + gap_s - frame.t_s
            t_s = frame.t_s + self._t_offset
        else:
            t_s = max(frame.t_s + self._t_offset, self._t_s + 1e-6)
        index = self.frames
        self.frames += 1
        self._delivered += 1
        self._t_s, self._wall_last, self._fps, self._lossy = t_s, now, source.fps, source.lossy
        if self._source_ok is not True:
            self._source_state(True)
        if self._recorder is not None:
            self._recorder.write(frame, t_s, source)
        self._media.keep_frame(index, t_s, frame.image_bgr, self._fps)
        self._step(frame.image_bgr, index, t_s)
        self.refereed += 1

    # ------------------------------------------------------------------ per frame
    def _step(self, image: np.ndarray, index: int, t_s: float) -> None:
        colour = None
        if self._ball_colour is not None:  # rare: taken under the lock only when one is set
            with self._lock:
                colour, self._ball_colour = self._ball_colour, None
        if colour is not None and self.calibration is not None:
            self._use_calibration(replace(self.calibration, ball_colour=colour), None)
        if self.calibration is None or self._requests:
            self._collect(image, t_s)
            if self.calibration is None:
                return
        if self._pipeline is None:
            if time.monotonic() < self._retry_at:
                return
            self._start_pipeline(image, index, t_s)
            if self._pipeline is None:
                return
        pipeline = self._pipeline
        frame0, t0 = self._offset
        records = pipeline.process(image, t_s - t0)
        self._publish(pipeline, records, frame0, t0)

    def _collect(self, image: np.ndarray, t_s: float) -> None:
        """Gather frames over ``calibration_s``; then calibrate from their median."""
        opts = self.options
        if self._cal_t0 is None:
            self._cal_t0, self._cal_frames = t_s, []
        if len(self._cal_frames) < opts.calibration_frames:
            due = (
                self._cal_t0 + len(self._cal_frames) * opts.calibration_s / opts.calibration_frames
            )
            if t_s >= due:
                self._cal_frames.append(image)
        if t_s - self._cal_t0 < opts.calibration_s:
            return
        frames, self._cal_frames, self._cal_t0 = self._cal_frames, [], None
        with self._lock:
            requests, self._requests = self._requests, []
        try:
            view = clean_view(frames)
            cal = calibrate(view, self.pitch)
        except ValueError as exc:
            message = f"calibration failed: {' '.join(str(exc).split())}"
            for request in requests:
                request.error = message
                request.done.set()
            if self.calibration is None:  # nothing to referee with: say so and try again
                self._source_state(False, f"{message}; trying again")
            return
        cal = self._use_calibration(cal, view)
        for request in requests:
            request.result = cal.to_dict()
            request.done.set()

    def _use_calibration(self, cal: Calibration, view: np.ndarray | None) -> Calibration:
        """Referee with ``cal`` from the next frame on; ``view``: the picture it came from
        (None: the same picture, only the ball's colour is new). Returns the calibration
        used: ``cal`` keeping a ball colour picked before."""
        if cal.ball_colour is None and self.calibration is not None:
            cal = replace(cal, ball_colour=self.calibration.ball_colour)  # a picked ball stays
        write_calibration(self.output_dir / "calibration.json", cal)
        if view is not None:
            overlay = draw_overlay(view, cal, cal.measured_pitch(self.pitch))
            cv2.imwrite(str(self.output_dir / OVERLAY_NAME), overlay)
            cv2.imwrite(str(self.output_dir / VIEW_NAME), view)
        if self._pipeline is not None:  # recalibrated: let the old pipeline hand over its frames
            pipeline, (frame0, t0) = self._pipeline, self._offset
            self._publish(pipeline, pipeline.finish(), frame0, t0)
            self._pipeline = None
        self.calibration = cal
        self._source_state(True)
        return cal

    def _start_pipeline(self, image: np.ndarray, index: int, t_s: float) -> None:
        pitch = self.calibration.measured_pitch(self.pitch)
        config = PipelineConfig.for_frames(self._lossy, self.calibration.ball_colour)
        try:
            model = learn_model([image], self.calibration.camera, pitch, config.vision)
        except ValueError as exc:
            self._retry_at = time.monotonic() + self.options.retry_s
            message = " ".join(str(exc).split())
            self._source_state(False, f"cannot see the table yet: {message}; trying again")
            return
        self._new_rules()
        self._offset = (index, t_s)
        self._pipeline = Pipeline(
            model,
            fps=self._fps,
            config=config,
            rules=self._rules_stage,
        )
        self._media.use_camera(self.calibration.camera, pitch)
        self._source_state(True)

    def _new_rules(self) -> None:
        """Observations for the live match on the calibrated pitch (the match itself, its
        state, lives in the hub and outlives a recalibration)."""
        cal = self.calibration
        pitch = cal.measured_pitch(self.pitch) if cal else self.pitch
        sigma = cal.line_sigma_mm if cal else 0.0
        self._rules = FistfRules(pitch, line_sigma_mm=sigma, parallax=cal and cal.parallax_sigma_mm)
        self.hub.use_pitch(pitch)

    def _rules_stage(
        self,
        record: dict[str, Any],
        contacts: list,
        ball_sigma_mm: float | None = None,
        ball_switch_before_s: float | None = None,
    ) -> list[dict[str, Any]]:
        """The rules see the runner's numbering, which outlives a pipeline (recalibration)."""
        frame0, t0 = self._offset
        shifted = {**record, "frame": record["frame"] + frame0, "t_s": record["t_s"] + t0}
        contacts = [(fid, kind, onset + frame0) for fid, kind, onset in contacts]
        obs = self._rules.observation(shifted, contacts, ball_sigma_mm, ball_switch_before_s)
        calls = self.hub.observe(obs, publish=False)  # logged now, shown with their evidence
        self._new_calls += calls
        return [c.to_record() for c in calls]

    def _publish(self, pipeline: Pipeline, records: list, frame0: int, t0: float) -> None:
        shifted = [
            {**record, "frame": record["frame"] + frame0, "t_s": round(record["t_s"] + t0, 6)}
            for record in records
        ]
        for record in shifted:
            self.hub.push_frame(record)
        self._media.add_records(shifted)
        new, self._new_calls = self._new_calls, []
        self._media.publish(new)

    # ------------------------------------------------------------------ around the frames
    def _source_state(self, ok: bool, message: str = "", *, unless_stalled: bool = False):
        with self._state_lock:
            # The watchdog's word only while the worker still waits for the same frame.
            if unless_stalled and not (self._source_ok and self._waiting_since is not None):
                return
            self._source_ok = ok
            self.hub.set_source(ok, message)  # without frames the scoreboard says stopped

    def _watch(self) -> None:
        """Report a source that stalls inside ``frames()`` (e.g. a camera reopening itself)."""
        while not self._stop.wait(0.1) and not self.ended:
            since = self._waiting_since
            if since is not None and time.monotonic() - since > self.options.stall_s:
                waited = time.monotonic() - since
                message = f"no frames for {waited:.1f} s: reopening the camera"
                self._source_state(False, message, unless_stalled=True)

    def _end_message(self, source: FrameSource) -> str:
        if isinstance(source, SimSource):
            return "the simulated match has ended"
        return (
            "the video has ended" if isinstance(source, VideoFileSource) else "the camera stopped"
        )

    def _finish(self) -> None:
        pipeline = self._pipeline
        if pipeline is not None:
            frame0, t0 = self._offset
            self._publish(pipeline, pipeline.finish(), frame0, t0)
            self._pipeline = None
        if self._recorder is not None:
            self._recorder.close()
        self._media.close()
        with self._lock:
            requests, self._requests = self._requests, []
        for request in requests:
            request.error = "the live source has stopped"
            request.done.set()
