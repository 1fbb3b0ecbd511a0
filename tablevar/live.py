"""The live runner: camera frames -> calibration -> pipeline -> the web hub, in a worker thread.

``LiveRunner`` opens a frame source, calibrates from the first ``calibration_s`` of frames when
no calibration was given (the per-pixel median of a few of them, ``clean_view``), learns the
table from the next frame and then runs the ``Pipeline`` with the FISTF rules frame by frame.
Each final record goes to the hub (the radar), each call with its evidence picture (the call's
frame, kept in a short ring of recent frames), and after each frame the clock and the score.

Numbering: ``frame`` counts every frame the runner received since it started (calibration
frames too, so it equals the frame index of ``--record``'s recording), and ``t_s`` runs from
the first of them. A source that is reopened continues both, the outage showing as a gap in
time, which the rules' clock does not count (DESIGN.md section 8).

Failures: the worker loop holds the one catch-all of the codebase. Whatever goes wrong (a camera
that stops, a file that vanishes, a frame the pipeline chokes on) is logged, the page is told
(``hub.set_source``), the last good state stays on the page, and the source is reopened after a
wait that doubles from ``reopen_first_s`` up to ``reopen_max_s``. A camera that only stalls (an
OpenCV camera reopening itself inside ``frames()``) is noticed by a watchdog after ``stall_s``.
Recorded sources (a video file, the simulator) resume after the last frame they delivered; when
one simply ends, the page says so and the worker stops. A failure of the refereeing itself (not
the source's) is retried the same way, but ``max_failures`` of them in a row with no frame
refereed between stop the worker with the error on the page: retrying cannot mend a bug.

Recording (``record_dir``) never stops the refereeing: a write error (a full disk, a stick
pulled out) ends the recording, keeping what was written, and the page and the log say so.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calibrate import calibrate, clean_view
from calibration.calibration_file import Calibration, write_calibration
from calibration.report import draw_overlay
from calibration.tables import load_pitch
from hardware.recording import RecordingError, RecordingWriter
from hardware.sim_source import SimSource
from hardware.sources import Frame, FrameSource, VideoFileSource
from tablevar.clock_view import ClockView
from tablevar.evidence import EvidenceWriter, FrameRing
from tablevar.pipeline import Pipeline, PipelineConfig
from tablevar.replay import ReplayConfig, ReplayWriter, replay_name, wants_replay
from tablevar.rules_stage import FistfRules
from vision.colour import parse_colour
from vision.model import learn_model
from web.hub import MatchHub
from web.recordings import VIEW_NAME

_log = logging.getLogger(__name__)
EVIDENCE_DIR = "evidence"
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
        self._record_dir = Path(record_dir) if record_dir is not None else None
        self._recorder: RecordingWriter | None = None
        self.recording_error: str | None = None  # why --record stopped (refereeing goes on)
        self.pitch = load_pitch(opts.table)
        self.calibration = calibration
        self._cal_frames: list[np.ndarray] = []
        self._cal_t0: float | None = None
        self._requests: list[_Recalibration] = []
        self._ball_colour: str | None = None  # picked on the page, for the worker to take
        self._pipeline: Pipeline | None = None
        self._offset = (0, 0.0)  # (frame, t_s) of the current pipeline's first frame
        self._calls_done = 0
        self._rules: FistfRules | None = None
        self._clock = ClockView()
        self._reset = threading.Event()
        self._ring = FrameRing(opts.evidence_frames)  # recent frames, for evidence pictures
        self._evidence_writer: EvidenceWriter | None = None  # per calibration
        self._replays = ReplayWriter(self.output_dir, self._replay_ready, opts.replay)
        self._retry_at = 0.0
        self.frames = 0  # frames received
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
        hub.on_control(self._on_control)

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

    def _on_control(self, action: str, payload: Mapping[str, Any]) -> None:
        if action == "reset":
            self._reset.set()  # the worker starts new rules at its next frame

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
        skip_to = self.frames if recorded else 0  # a recorded source resumes where it was
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
            self._t_offset = self._t_s + gap_s - frame.t_s
            t_s = frame.t_s + self._t_offset
        else:
            t_s = max(frame.t_s + self._t_offset, self._t_s + 1e-6)
        index = self.frames
        self.frames += 1
        self._t_s, self._wall_last, self._fps, self._lossy = t_s, now, source.fps, source.lossy
        if self._source_ok is not True:
            self._source_state(True)
        self._record(frame, t_s, source)
        self._keep_frame(index, t_s, frame.image_bgr)
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
        if self._reset.is_set():
            self._reset.clear()
            self._new_rules(start="kick_off")  # the referee's new match begins at its kick-off
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
        if self._rules is None:
            self._new_rules()
        self._offset = (index, t_s)
        self._pipeline = Pipeline(
            model,
            fps=self._fps,
            config=config,
            rules=self._rules_stage,
        )
        self._calls_done = 0
        self._evidence_writer = EvidenceWriter(
            self.output_dir, self.calibration.camera, pitch, frames=self._ring
        )
        self._source_state(True)

    def _new_rules(self, start: str = "open_play") -> None:
        """Fresh rules: a camera opened on a table finds the match in play (unless it sees a
        kick-off set up); a new match the referee starts waits for its kick-off."""
        cal = self.calibration
        pitch = cal.measured_pitch(self.pitch) if cal else self.pitch
        sigma = cal.line_sigma_mm if cal else 0.0
        self._rules = FistfRules(pitch, line_sigma_mm=sigma, start=start)
        self._clock = ClockView()

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
        return self._rules(shifted, contacts, ball_sigma_mm, ball_switch_before_s)

    def _publish(self, pipeline: Pipeline, records: list, frame0: int, t0: float) -> None:
        shifted = [
            {**record, "frame": record["frame"] + frame0, "t_s": round(record["t_s"] + t0, 6)}
            for record in records
        ]
        for record in shifted:
            self.hub.push_frame(record)
        if self._evidence_writer is not None:
            self._evidence_writer.add_records(shifted)
        new = pipeline.calls[self._calls_done :]
        self._calls_done = len(pipeline.calls)
        for call in new:
            self._push_call(call)
        rules = self._rules
        if records or new:
            self.hub.push_score(*rules.score)
            self.hub.push_clock(*self._clock.update(rules.clock_s, new))

    # ------------------------------------------------------------------ evidence and replays
    def _keep_frame(self, index: int, t_s: float, image: np.ndarray) -> None:
        """Keep the frame for replays and evidence pictures (the same arrays for both)."""
        self._replays.add_frame(index, t_s, image, self._fps)
        if self._replays.stride == 1:  # every frame is kept for replays: evidence reaches as far
            self._ring.capacity = max(self.options.evidence_frames, self._replays.capacity)
        self._ring.add(index, image)

    def _push_call(self, call: dict[str, Any]) -> None:
        """Push a call with the evidence picture a recorded match gets (zoomed, the line
        edges, the footprint, the margin) and ask for its replay clip, which the pages get
        (``replay`` event) once written."""
        record = {**call, "evidence": self._evidence_picture(call)}
        writer = self._evidence_writer
        replay = record["evidence"] is not None and wants_replay(record, self.options.replay)
        if replay:
            record["replay"] = replay_name(record["evidence"])
        data = self.hub.push_call(record)
        if replay and writer is not None:
            focus = self._focus_mm(record, writer)
            key = (data["id"], record["kind"])
            self._replays.request(record, record["replay"], key, writer.camera, focus)

    def _evidence_picture(self, call: dict[str, Any]) -> str | None:
        writer = self._evidence_writer
        if writer is None:
            return None
        try:
            return writer.write(call)
        except OSError as exc:  # a full disk costs the picture, not the call
            _log.error("evidence picture not written: %s", exc)
            return None

    @staticmethod
    def _focus_mm(call: dict[str, Any], writer: EvidenceWriter) -> tuple[float, float]:
        """Where the replay looks: the figure concerned, else the ball, else the call's place."""
        place = call.get("figure") or call.get("position")
        ball = writer.ball_at(int(call["frame"]))
        if call.get("figure") is None and ball is not None:
            return ball
        return (place["x_mm"], place["y_mm"]) if place else (0.0, 0.0)

    def _replay_ready(self, name: str, key: tuple[int, str]) -> None:
        call_id, kind = key
        self.hub.push_replay(call_id, name, kind)

    # ------------------------------------------------------------------ around the frames
    def _record(self, frame: Frame, t_s: float, source: FrameSource) -> None:
        """Write the frame into ``--record``'s folder; a write error stops the recording only."""
        if self._record_dir is None or self.recording_error is not None:
            return
        try:
            if self._recorder is None:
                self._recorder = RecordingWriter(
                    self._record_dir,
                    fps=source.fps,
                    size_px=source.size_px,
                    table=self.options.table,
                    source=type(source).__name__,
                )
                self.hub.set_recording(True, f"recording into {self._record_dir}")
            self._recorder.write(frame.image_bgr, round(t_s * 1e9))
        except (OSError, RecordingError) as exc:  # a full disk, a stick pulled out, ...
            self._stop_recording(exc)

    def _stop_recording(self, exc: Exception) -> None:
        """Give the recording up for this run, say why on the page and in the log."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        frames = self._recorder.frames if self._recorder is not None else 0
        self.recording_error = " ".join(reason.split()) or type(exc).__name__
        message = (
            f"recording stopped after {frames} frames: {self.recording_error} "
            f"({self._record_dir}); refereeing goes on"
        )
        _log.error("%s", message)
        if self._recorder is not None:
            self._recorder.abort()
            self._recorder = None
        self.hub.set_recording(False, message)

    def _source_state(self, ok: bool, message: str = "", *, unless_stalled: bool = False):
        with self._state_lock:
            # The watchdog's word only while the worker still waits for the same frame.
            if unless_stalled and not (self._source_ok and self._waiting_since is not None):
                return
            self._source_ok = ok
            self.hub.set_source(ok, message)
            if not ok and self._rules is not None:
                # Without frames the clock stands: say so on the scoreboard too.
                clock = self.hub.state.clock
                self.hub.push_clock(clock.clock_s, clock.half, "stopped")

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
            self._recorder = None
        self._replays.close()
        with self._lock:
            requests, self._requests = self._requests, []
        for request in requests:
            request.error = "the live source has stopped"
            request.done.set()
