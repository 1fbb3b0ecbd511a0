"""Recordings on disk: a folder holding the video, its timestamps, and what is known about it.

A recording folder holds:

- ``video.mp4``: the frames, H.264 in a fragmented MP4 (``hardware/video_writer.py``): one
  fragment a second, so a crash loses at most the last second.
- ``meta.json``: ``{"schema_version": 1, "fps", "size_px": [w, h], "table", "source",
  "camera": <CameraModel.to_dict()> | null, "frames", "complete"}``, and ``"game"`` (the game
  refereed on the table, ``rules.games``) when the recording says which: a table may be played
  by more than one game, and a later analysis must referee the one that was played, and
  ``"readout_s"`` (the camera's rolling-shutter readout, 0 for a global shutter) when known. It
  is written first with
  ``complete: false`` and rewritten on ``close()`` with the frame count and ``complete: true``,
  so a folder whose meta still says ``false`` was not closed cleanly.
- ``timestamps.csv``: header ``frame,t_ns``, one row per frame, the capture time in ns
  (monotonic, from any epoch: only differences matter).
- simulated recordings only: ``truth.jsonl`` (one JSON object per frame, the exact scene) and
  ``truth_calls.jsonl`` (one JSON object per scripted call, the calls a referee should make).

Timestamps and truth are flushed line by line, so a crash loses at most the frames the video
encoder still held (about a second).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from hardware.video_writer import VideoWriteError, VideoWriter

SCHEMA_VERSION = 1
VIDEO_NAME = "video.mp4"
META_NAME = "meta.json"
TIMESTAMPS_NAME = "timestamps.csv"
TRUTH_NAME = "truth.jsonl"
TRUTH_CALLS_NAME = "truth_calls.jsonl"
TIMESTAMPS_HEADER = "frame,t_ns"
_META_KEYS = ("schema_version", "fps", "size_px", "table", "source", "camera", "frames", "complete")
_OPTIONAL_META_KEYS = ("game", "readout_s")


class RecordingError(ValueError):
    """A recording folder is missing, malformed, or was asked to hold something it cannot."""


@dataclass(frozen=True, slots=True)
class RecordingMeta:
    """What ``meta.json`` says about a recording.

    Attributes:
        schema_version: format version of the folder, ``SCHEMA_VERSION``.
        fps: nominal frame rate, frames per second (the timestamps are the truth).
        size_px: frame (width, height) in pixels.
        table: table profile name (``fistf``) or path.
        source: where the frames came from (``sim``, ``pi``, ``opencv:0``, a file name).
        camera: the camera model when known (simulated or calibrated), else None.
        frames: number of frames written; 0 while the recording is still open.
        complete: True once the writer was closed cleanly.
        game: the game refereed (``rules.games`` name), None when the recording does not say
            (the game its table profile names).
        readout_s: the camera's rolling-shutter readout (``FrameSource.readout_s``: 0 a
            global shutter), None when the recording does not say.
    """

    schema_version: int
    fps: float
    size_px: tuple[int, int]
    table: str
    source: str
    camera: CameraModel | None
    frames: int
    complete: bool
    game: str | None = None
    readout_s: float | None = None

    @property
    def duration_s(self) -> float:
        """Nominal duration, ``frames / fps``, seconds."""
        return self.frames / self.fps

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "fps": self.fps,
            "size_px": list(self.size_px),
            "table": self.table,
            "source": self.source,
            "camera": None if self.camera is None else self.camera.to_dict(),
            "frames": self.frames,
            "complete": self.complete,
        } | {k: v for k, v in (("game", self.game), ("readout_s", self.readout_s)) if v is not None}


def _json_default(value: Any) -> Any:
    # Truth comes from numpy-heavy code; accept its scalars and arrays without a manual .item().
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a recording's JSON: {value!r}")


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class RecordingWriter:
    """Writes one recording folder; use as a context manager.

    Args:
        folder: the recording folder; created if missing. A folder that already holds a
            recording is refused unless ``overwrite`` is True.
        fps: nominal frames per second (> 0).
        size_px: frame (width, height) in pixels; every frame must have exactly this size.
        table: table profile name or path.
        source: where the frames come from (``sim``, ``pi``, ``opencv:0``, ...).
        camera: the camera model, when known.
        game: the game refereed on the table, when known (``RecordingMeta.game``).
        readout_s: the camera's rolling-shutter readout, when known (``RecordingMeta``).
        overwrite: replace an existing recording in ``folder``.
        repeatable: the same frames always give the same video (``VideoWriter``).
        lossless: write the video losslessly in full colour (``VideoWriter``), not H.264.
        codec, bitrate_kbps: the lossy codec and its bitrate (``VideoWriter``).

    Raises:
        RecordingError: bad arguments, an existing recording, or a video file that cannot
            be opened for writing.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        fps: float,
        size_px: tuple[int, int],
        table: str,
        source: str,
        camera: CameraModel | None = None,
        game: str | None = None,
        readout_s: float | None = None,
        overwrite: bool = False,
        repeatable: bool = False,
        lossless: bool = False,
        codec: str = "h264",
        bitrate_kbps: float | None = None,
    ) -> None:
        self.folder = Path(folder)
        if not (math.isfinite(fps) and fps > 0):
            raise RecordingError(f"fps must be a positive number, got {fps!r}")
        if len(size_px) != 2 or min(size_px) <= 0:
            raise RecordingError(f"size_px must be (width, height) > 0, got {size_px!r}")
        self.size_px = (int(size_px[0]), int(size_px[1]))
        self._meta = RecordingMeta(
            SCHEMA_VERSION,
            float(fps),
            self.size_px,
            str(table),
            str(source),
            camera,
            0,
            False,
            game,
            readout_s,
        )
        self._prepare_folder(overwrite)
        try:
            self._video = VideoWriter(
                self.folder / VIDEO_NAME,
                float(fps),
                self.size_px,
                repeatable=repeatable,
                lossless=lossless,
                codec=codec,
                bitrate_kbps=bitrate_kbps,
            )
        except VideoWriteError as exc:
            raise RecordingError(str(exc)) from exc
        _write_json_atomic(self.folder / META_NAME, self._meta.to_dict())
        self._timestamps = self._open_text(TIMESTAMPS_NAME)
        self._timestamps.write(TIMESTAMPS_HEADER + "\n")
        self._truth: IO[str] | None = None
        self._has_truth: bool | None = None  # decided by the first frame
        self._last_t_ns: int | None = None
        self.frames = 0
        self._closed = False

    def _prepare_folder(self, overwrite: bool) -> None:
        if (self.folder / META_NAME).exists():
            if not overwrite:
                raise RecordingError(
                    f"{self.folder} already holds a recording: remove it, choose another "
                    "folder, or pass overwrite=True"
                )
            for name in (VIDEO_NAME, META_NAME, TIMESTAMPS_NAME, TRUTH_NAME, TRUTH_CALLS_NAME):
                (self.folder / name).unlink(missing_ok=True)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecordingError(f"cannot create recording folder {self.folder}: {exc}") from exc

    def _open_text(self, name: str) -> IO[str]:
        # Line-buffered: every row reaches the OS as soon as it is written.
        return open(self.folder / name, "w", encoding="utf-8", buffering=1)

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # On an exception the frames so far are kept, but meta.json says it did not end cleanly.
        self._finish(complete=exc_type is None)

    def write(self, image_bgr: NDArray[np.uint8], t_ns: int, truth: dict | None = None) -> None:
        """Append one frame.

        Args:
            image_bgr: (h, w, 3) uint8, BGR, of exactly ``size_px``.
            t_ns: capture time in ns, strictly greater than the previous frame's.
            truth: the exact scene of this frame (simulated recordings). Either every frame
                has truth or none does.

        Raises:
            RecordingError: wrong size, shape or dtype, a timestamp that does not increase,
                truth on some frames only, or a closed writer.
        """
        if self._closed:
            raise RecordingError(f"recording {self.folder} is closed; open a new RecordingWriter")
        w, h = self.size_px
        shape = getattr(image_bgr, "shape", None)
        if shape != (h, w, 3) or image_bgr.dtype != np.uint8:
            raise RecordingError(
                f"frame {self.frames}: expected a ({h}, {w}, 3) uint8 BGR image for size_px "
                f"{self.size_px}, got shape {shape} dtype {getattr(image_bgr, 'dtype', None)}"
            )
        t_ns = int(t_ns)
        if self._last_t_ns is not None and t_ns <= self._last_t_ns:
            raise RecordingError(
                f"frame {self.frames}: t_ns {t_ns} does not increase (previous {self._last_t_ns})"
            )
        self._write_truth(truth)
        self._video.write(image_bgr)
        self._timestamps.write(f"{self.frames},{t_ns}\n")
        self._last_t_ns = t_ns
        self.frames += 1

    def _write_truth(self, truth: dict | None) -> None:
        if self._has_truth is None:
            self._has_truth = truth is not None
            if self._has_truth:
                self._truth = self._open_text(TRUTH_NAME)
        if (truth is not None) != self._has_truth:
            raise RecordingError(
                f"frame {self.frames}: truth must be given for every frame or for none "
                f"(frame 0 {'had' if self._has_truth else 'had no'} truth)"
            )
        if self._truth is not None:
            self._truth.write(json.dumps(truth, default=_json_default) + "\n")

    def write_truth_calls(self, calls: list[dict]) -> None:
        """Write the scripted calls of a simulated recording to ``truth_calls.jsonl``."""
        with open(self.folder / TRUTH_CALLS_NAME, "w", encoding="utf-8") as f:
            for call in calls:
                f.write(json.dumps(call, default=_json_default) + "\n")

    def close(self) -> None:
        """Finish the video and write ``meta.json`` with the frame count and complete=True."""
        self._finish(complete=True)

    def abort(self) -> None:
        """Give up after a write error (a full disk, a stick pulled out): close what still
        closes and leave ``meta.json`` saying ``complete: false`` if it can still be written.
        Never raises: the frames written so far stay readable up to the last whole fragment.
        """
        if self._closed:
            return
        self._closed = True
        for step in (
            self._video.close,
            self._timestamps.close,
            *((self._truth.close,) if self._truth is not None else ()),
            lambda: _write_json_atomic(
                self.folder / META_NAME, self._meta.to_dict() | {"frames": self.frames}
            ),
        ):
            try:
                step()
            except (OSError, ValueError):  # the disk that failed the frame fails these too
                pass

    def _finish(self, *, complete: bool) -> None:
        if self._closed:
            return
        self._closed = True
        self._video.close()
        self._timestamps.close()
        if self._truth is not None:
            self._truth.close()
        meta = self._meta.to_dict() | {"frames": self.frames, "complete": complete}
        _write_json_atomic(self.folder / META_NAME, meta)


def check_writable(folder: str | Path) -> None:
    """Make sure a recording can be written into ``folder`` (created if missing).

    Raises:
        RecordingError: the folder already holds a recording, cannot be created, or a file
            cannot be written in it (read-only, full, not a folder); the message says which.
    """
    folder = Path(folder)
    if (folder / META_NAME).exists():
        raise RecordingError(f"{folder} already holds a recording: choose another folder")
    probe = folder / ".tablevar-write-test"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A byte written and synced: a full disk or a read-only mount refuses it here.
        with open(probe, "wb") as f:
            f.write(b"\0")
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise RecordingError(f"cannot record into {folder}: {reason}") from None
    finally:
        with contextlib.suppress(OSError):  # nothing to remove where nothing was written
            probe.unlink(missing_ok=True)


# ------------------------------------------------------------------------------------ reading
def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordingError(f"{path} not found: {what}") from None
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise RecordingError(
            f"{path} is not UTF-8 text (byte {exc.start}): the recording is damaged"
        ) from exc


def read_meta(folder: str | Path) -> RecordingMeta:
    """Read and check ``meta.json`` of a recording folder.

    Raises:
        RecordingError: the file is missing, not JSON, of another schema version, or has a
            missing, unknown or malformed key; the message names the file.
    """
    path = Path(folder) / META_NAME
    text = _read_text(path, "is this a recording folder (made by RecordingWriter)?")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RecordingError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise RecordingError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise RecordingError(
            f"{path}: unknown schema_version {data.get('schema_version')!r} "
            f"(this tablevar reads version {SCHEMA_VERSION}); upgrade tablevar or re-record"
        )
    missing = [k for k in _META_KEYS if k not in data]
    unknown = sorted(set(data) - set(_META_KEYS) - set(_OPTIONAL_META_KEYS))
    if missing or unknown:
        raise RecordingError(f"{path}: missing keys {missing}, unknown keys {unknown}")
    try:
        camera = None if data["camera"] is None else CameraModel.from_dict(data["camera"])
        w, h = data["size_px"]
        meta = RecordingMeta(
            schema_version=SCHEMA_VERSION,
            fps=float(data["fps"]),
            size_px=(int(w), int(h)),
            table=str(data["table"]),
            source=str(data["source"]),
            camera=camera,
            frames=int(data["frames"]),
            complete=bool(data["complete"]),
            game=data.get("game"),
            readout_s=None if data.get("readout_s") is None else float(data["readout_s"]),
        )
        if meta.game is not None and not isinstance(meta.game, str):
            raise TypeError(f"game must be a game's name, got {meta.game!r}")
        if meta.readout_s is not None and not (
            math.isfinite(meta.readout_s) and meta.readout_s >= 0
        ):
            raise ValueError(f"readout_s must be a duration >= 0, got {meta.readout_s!r}")
    except (TypeError, ValueError, OverflowError) as exc:
        raise RecordingError(f"{path}: malformed value: {exc}") from exc
    if not (
        math.isfinite(meta.fps) and meta.fps > 0 and min(meta.size_px) > 0 and meta.frames >= 0
    ):
        raise RecordingError(f"{path}: fps, size_px and frames must be positive, got {data}")
    return meta


def _read_jsonl(path: Path, what: str) -> list[dict]:
    rows = []
    for number, line in enumerate(_read_text(path, what).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path} line {number} is not valid JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise RecordingError(f"{path} line {number}: expected a JSON object")
        rows.append(row)
    return rows


def read_truth(folder: str | Path) -> list[dict]:
    """The per-frame ground truth of a simulated recording, one dict per frame."""
    return _read_jsonl(Path(folder) / TRUTH_NAME, "only simulated recordings carry ground truth")


def read_truth_calls(folder: str | Path) -> list[dict]:
    """The scripted calls of a simulated recording, in order."""
    return _read_jsonl(
        Path(folder) / TRUTH_CALLS_NAME, "only simulated recordings carry scripted calls"
    )


def read_timestamps_ns(folder: str | Path) -> NDArray[np.int64]:
    """Capture times of every frame, (n,) int64 ns, from ``timestamps.csv``.

    Raises:
        RecordingError: the file is missing, has another header, a malformed row, frame
            numbers out of order, or timestamps that do not increase.
    """
    path = Path(folder) / TIMESTAMPS_NAME
    lines = _read_text(path, "is this a recording folder?").splitlines()
    if not lines or lines[0].strip() != TIMESTAMPS_HEADER:
        raise RecordingError(f"{path}: expected the header {TIMESTAMPS_HEADER!r}")
    rows = [line for line in lines[1:] if line.strip()]
    try:
        table = np.array([[int(v) for v in row.split(",")] for row in rows], dtype=np.int64)
    except OverflowError:
        raise RecordingError(
            f"{path}: a number is too large for a frame or a time in nanoseconds"
        ) from None
    except ValueError as exc:
        raise RecordingError(f"{path}: malformed row ({exc}); expected 'frame,t_ns'") from exc
    table = table.reshape(-1, 2)
    if not np.array_equal(table[:, 0], np.arange(len(table))):
        raise RecordingError(f"{path}: frame numbers must run 0, 1, 2, ... without gaps")
    if np.any(np.diff(table[:, 1]) <= 0):
        raise RecordingError(f"{path}: timestamps must increase from frame to frame")
    return table[:, 1].copy()
