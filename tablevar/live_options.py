"""The live runner's tunables, its one error, and the config file of a Pi (``tablevar.live``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.gpio import DEFAULT_BOUNCE_S, SignalPins
from tablevar.replay import ReplayConfig


class LiveError(ValueError):
    """The live runner cannot do what was asked (e.g. recalibrate without frames)."""


@dataclass(frozen=True, slots=True)
class LiveOptions:
    """Tunables of the live runner.

    Attributes:
        table: table profile name or path.
        game: the game played on it (``rules.games``; None: the one the profile names).
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
    game: str | None = None
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


@dataclass(frozen=True, slots=True)
class PiCameraOptions:
    """The Raspberry Pi camera (``--source pi``); see ``hardware.picamera_source``.

    Attributes:
        camera: preset name (``cm3``, ``hq``, ``gs``), or None for the camera found.
        size_px: sensor mode (width, height), or None for the preset's default.
        fps: frame rate, or None for the mode's highest (at most 56).
        fmt: ``RGB888`` or ``YUV420``.
        mains_hz: 50 or 60, the mains the lights flicker with; 0: lights that do not flicker.
        settle_s: how long the automatic exposure, white balance and focus run before the lock.
    """

    camera: str | None = None
    size_px: tuple[int, int] | None = None
    fps: float | None = None
    fmt: str = "RGB888"
    mains_hz: int = 50
    settle_s: float = 1.0


@dataclass(frozen=True, slots=True)
class LiveConfig:
    """What ``tablevar live --config FILE`` sets: the Pi camera and the signals at the table.

    Attributes:
        camera: the Pi camera's settings.
        signals: where the signals are wired (None: no ``[signals]`` section, none used).
    """

    camera: PiCameraOptions = field(default_factory=PiCameraOptions)
    signals: SignalPins | None = None


_CAMERA_KEYS = {"camera", "size", "fps", "format", "mains_hz", "settle_s"}
_SIGNAL_KEYS = {"clock_led", "buzzer", "pause_button", "shot_button", "bounce_s"}


def read_live_config(path: str | Path) -> LiveConfig:
    """Read a TOML config file with ``[camera]`` and ``[signals]`` sections (both optional)::

        [camera]
        camera = "cm3"        # cm3, hq or gs (default: the camera found)
        size = [2304, 1296]   # sensor mode (default: the camera's full view)
        fps = 50
        format = "RGB888"     # or "YUV420"
        mains_hz = 50         # 50 or 60: the lights flicker at twice this; 0: they do not
        settle_s = 1.0

        [signals]             # BCM pin numbers; leave out what is not wired
        clock_led = 17
        buzzer = 22
        pause_button = 27
        shot_button = 23
        bounce_s = 0.05

    Raises:
        LiveError: unreadable, not TOML, unknown sections or keys, or values of the wrong kind.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LiveError(f"cannot read {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LiveError(f"{path} is not a TOML file: {exc}") from exc
    _only(data, {"camera", "signals"}, str(path))
    try:
        camera = _section(data, "camera", _CAMERA_KEYS, path)
        size = camera.get("size")
        options = PiCameraOptions(
            camera=None if camera.get("camera") is None else str(camera["camera"]),
            size_px=None if size is None else (_int(size[0]), _int(size[1])),
            fps=None if camera.get("fps") is None else float(camera["fps"]),
            fmt=str(camera.get("format", "RGB888")),
            mains_hz=_int(camera.get("mains_hz", 50)),
            settle_s=float(camera.get("settle_s", 1.0)),
        )
        signals = None
        if "signals" in data:
            wired = _section(data, "signals", _SIGNAL_KEYS, path)
            pins = {k: _int(wired[k]) if k in wired else None for k in _SIGNAL_KEYS - {"bounce_s"}}
            signals = SignalPins(**pins, bounce_s=float(wired.get("bounce_s", DEFAULT_BOUNCE_S)))
    except (TypeError, ValueError, IndexError) as exc:
        raise LiveError(f"{path}: {' '.join(str(exc).split())}") from exc
    return LiveConfig(options, signals)


def _section(data: dict[str, Any], name: str, keys: set[str], path: Path) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise LiveError(f"{path}: [{name}] must be a section")
    _only(section, keys, f"{path}: [{name}]")
    return section


def _only(data: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(data) - keys)
    if unknown:
        raise LiveError(f"{where} has unknown keys {unknown}; expected only {sorted(keys)}")


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value
