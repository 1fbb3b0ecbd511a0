"""Calibration of a live table: from its first frames, again when the page asks, and the
ball's colour picked on the calibration page.

``LiveCalibration`` gathers frames over ``calibration_s`` (at most ``calibration_frames``),
calibrates from their per-pixel median (``clean_view``) and writes ``calibration.json``, its
overlay and the view it came from into the output folder. The calibration page's requests
(``request``) are answered from the worker thread once the next calibration is done or failed.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calibrate import calibrate, clean_view
from calibration.calibration_file import Calibration, CameraControls, write_calibration
from calibration.report import draw_overlay
from rules.pitch import Pitch
from tablevar.live_options import LiveOptions
from vision.colour import parse_colours
from web.recordings import VIEW_NAME

OVERLAY_NAME = "calibration_overlay.png"


class Recalibration:
    """One request from the calibration page, answered by the worker."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: dict[str, Any] | None = None
        self.error: str | None = None

    def answer(self, result: dict[str, Any] | None = None, error: str | None = None) -> None:
        self.result, self.error = result, error
        self.done.set()


class LiveCalibration:
    """The calibration the live runner referees with, and how it changes. Thread-safe where
    the page calls (``request``, ``withdraw``, ``pick_ball_colour``); the rest is the worker's.

    Args:
        output_dir: ``calibration.json``, its overlay and view go here.
        pitch: the table's nominal pitch.
        options: ``calibration_s`` and ``calibration_frames``.
        calibration: a fixed calibration to start with (None: from the first frames).
    """

    def __init__(
        self,
        output_dir: Path,
        pitch: Pitch,
        options: LiveOptions,
        calibration: Calibration | None = None,
    ) -> None:
        self.output_dir, self.pitch, self.options = output_dir, pitch, options
        self.calibration = calibration
        # The camera's settings locked for the match (a Pi camera's), saved with each calibration.
        self.camera_controls: CameraControls | None = None
        self._frames: list[np.ndarray] = []
        self._t0: float | None = None
        self._requests: list[Recalibration] = []
        self._ball_colour: str | None = None  # picked on the page, for the worker to take
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the page's side
    def request(self) -> Recalibration:
        """Ask for a calibration from the next frames."""
        request = Recalibration()
        with self._lock:
            self._requests.append(request)
        return request

    def withdraw(self, request: Recalibration) -> None:
        """A request that timed out: the worker need not answer it."""
        with self._lock:
            if request in self._requests:
                self._requests.remove(request)

    def pick_ball_colour(self, colour: str) -> None:
        """Look for a ball of ``colour`` from the next frame on.

        Raises:
            ValueError: the colour is not a name or ``#rrggbb``.
        """
        parse_colours(colour)  # a bad colour fails here, not in the worker
        with self._lock:
            self._ball_colour = colour

    # ------------------------------------------------------------------ the worker's side
    def take_ball_colour(self) -> Calibration | None:
        """The calibration with a newly picked ball colour, saved (None: none picked)."""
        if self._ball_colour is None:  # rare: taken under the lock only when one is set
            return None
        with self._lock:
            colour, self._ball_colour = self._ball_colour, None
        if colour is None or self.calibration is None:
            return None
        return self.save(replace(self.calibration, ball_colour=colour), None)

    @property
    def wants_frames(self) -> bool:
        """Frames are needed: no calibration yet, or the page asked for a new one."""
        return self.calibration is None or bool(self._requests)

    def collect(self, image: np.ndarray, t_s: float) -> Calibration | str | None:
        """Gather frames over ``calibration_s``; then calibrate from their median.

        Returns:
            the new calibration (saved), a message saying why calibrating failed, or None
            while frames are still gathered.
        """
        opts = self.options
        if self._t0 is None:
            self._t0, self._frames = t_s, []
        if len(self._frames) < opts.calibration_frames:
            due = self._t0 + len(self._frames) * opts.calibration_s / opts.calibration_frames
            if t_s >= due:
                self._frames.append(image)
        if t_s - self._t0 < opts.calibration_s:
            return None
        frames, self._frames, self._t0 = self._frames, [], None
        with self._lock:
            requests, self._requests = self._requests, []
        try:
            view = clean_view(frames)
            cal = calibrate(view, self.pitch)
        except ValueError as exc:
            message = f"calibration failed: {' '.join(str(exc).split())}"
            for request in requests:
                request.answer(error=message)
            return message
        cal = self.save(cal, view)
        for request in requests:
            request.answer(cal.to_dict())
        return cal

    def save(self, cal: Calibration, view: np.ndarray | None) -> Calibration:
        """Referee with ``cal`` from now on and write it; ``view``: the picture it came from
        (None: the same picture, only the ball's colour is new). Returns the calibration
        used: ``cal`` keeping a ball colour picked before."""
        if cal.ball_colour is None and self.calibration is not None:
            cal = replace(cal, ball_colour=self.calibration.ball_colour)  # a picked ball stays
        if self.camera_controls is not None and cal.camera_controls != self.camera_controls:
            cal = replace(cal, camera_controls=self.camera_controls)
        write_calibration(self.output_dir / "calibration.json", cal)
        if view is not None:
            overlay = draw_overlay(view, cal, cal.measured_pitch(self.pitch))
            cv2.imwrite(str(self.output_dir / OVERLAY_NAME), overlay)
            cv2.imwrite(str(self.output_dir / VIEW_NAME), view)
        self.calibration = cal
        return cal

    def close(self, message: str) -> None:
        """Answer every open request with ``message`` (the worker has stopped)."""
        with self._lock:
            requests, self._requests = self._requests, []
        for request in requests:
            request.answer(error=message)
