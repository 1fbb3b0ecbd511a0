"""The live runner's tunables and its one error (``tablevar.live``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablevar.replay import ReplayConfig


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
        queue_frames: a camera's frames that may wait for the worker; when it falls
            further behind, the oldest is dropped and counted (``hardware.frame_queue``).
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
    queue_frames: int = 2
    replay: ReplayConfig = field(default_factory=ReplayConfig)
