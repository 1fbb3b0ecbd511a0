"""Analysis folders on disk, as the review page reads them.

A recordings directory holds one folder per recording: ``video.mp4`` and the outputs of
``tablevar analyze`` (DESIGN.md section 4): ``calls.jsonl``, ``tracks.jsonl``, ``summary.json``,
``calibration.json`` and the evidence pictures the calls name. Every file but the video is
optional here: the page shows what there is.

Frames are decoded with OpenCV on request, seeking by frame index, and a few encoded JPEGs are
cached per video, since scrubbing asks for the same neighbours again and again.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calibration_file import Calibration, read_calibration
from hardware.recording import META_NAME, VIDEO_NAME
from web.playback import VideoInfo, browser_video, probe

CALIBRATION_NAME = "calibration.json"
TRACKS_NAME = "tracks.jsonl"
VIEW_NAME = "calibration_view.png"  # the plain picture of the table a ball is picked on
_FRAME_KEY = re.compile(rb'"frame"\s*:\s*(-?\d+)')


class AnalysisError(ValueError):
    """An analysis file is unreadable or breaks the output contract; the message says which."""


class UnknownRecording(LookupError):
    """No recording folder of that name (or a name that tries to leave the directory)."""


class FrameOutOfRange(LookupError):
    """The video has no frame of that index."""


def evidence_relpath(evidence: str | None, root: Path | None) -> str | None:
    """The evidence path of a call, relative to the folder it is served from, or None.

    ``calls.jsonl`` may name the picture relative to its folder, relative to where the analysis
    ran (``out/evidence/12.jpg``), or absolutely; a path that leads outside ``root`` gives None.
    """
    if not evidence or root is None:
        return None
    path = Path(evidence)
    if not path.is_absolute() and (root / path).is_file():
        return path.as_posix() if ".." not in path.parts else None
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        # Relative to a folder we do not know: fall back to the picture's own name.
        return f"evidence/{path.name}" if (root / "evidence" / path.name).is_file() else None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` without ``NaN``/``Infinity`` (a browser cannot parse them back)."""
    return json.loads(text, parse_constant=_refuse_constant)


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object file, or None when it does not exist."""
    data = _read_bytes(path)
    return None if data is None else _record(data, str(path))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """All records of a JSON-lines file ([] when it does not exist); each must be an object."""
    data = _read_bytes(path)
    if data is None:
        return []
    return [
        _record(line, f"{path} line {number}")
        for number, line in enumerate(data.splitlines(), start=1)
        if line.strip()
    ]


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AnalysisError(f"{path} is not readable: {exc.strerror}") from exc


def _record(data: bytes, where: str) -> dict[str, Any]:
    """One JSON object: a whole file's or a line's (``where`` names it in errors)."""
    try:
        record = loads_strict(data)
    except UnicodeDecodeError as exc:
        raise AnalysisError(f"{where} is not UTF-8 text (byte {exc.start})") from exc
    except (RecursionError, ValueError) as exc:
        raise AnalysisError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise AnalysisError(f"{where} must be a JSON object, got {type(record).__name__}")
    return record


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _has_xy(item: Any) -> bool:
    return isinstance(item, dict) and _finite(item.get("x_mm")) and _finite(item.get("y_mm"))


def _check_frame(record: dict[str, Any], where: str) -> None:
    frame = record.get("frame")
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise AnalysisError(f"{where}: 'frame' must be a frame number, got {frame!r}")


def check_tracks_record(record: dict[str, Any], where: str) -> dict[str, Any]:
    """``record`` when it follows the output contract's tracks record; else ``AnalysisError``.

    ``frame`` is a frame number; ``ball`` is null or ``{"x_mm", "y_mm", ...}``; ``figures`` a
    list of such objects.
    """
    _check_frame(record, where)
    ball = record.get("ball")
    figures = record.get("figures") or []
    if ball is not None and not _has_xy(ball):
        raise AnalysisError(f"{where}: 'ball' must be null or hold finite x_mm and y_mm")
    if not isinstance(figures, list) or not all(_has_xy(f) for f in figures):
        raise AnalysisError(f"{where}: 'figures' must be a list of objects with x_mm and y_mm")
    return record


def check_call_record(call: dict[str, Any], where: str) -> dict[str, Any]:
    """``call`` when its kind is a name, its frame a frame number and its line (if any) a name."""
    _check_frame(call, where)
    if call.get("line") is not None and not isinstance(call["line"], str):
        raise AnalysisError(f"{where}: 'line' must be a line's name, got {call['line']!r}")
    evidence = call.get("evidence")
    if evidence is not None and not isinstance(evidence, str):
        raise AnalysisError(f"{where}: 'evidence' must be a path, got {evidence!r}")
    if not isinstance(call.get("kind"), str):
        raise AnalysisError(f"{where}: 'kind' must be a call's kind, got {call.get('kind')!r}")
    return call


class TracksIndex:
    """Random access to ``tracks.jsonl`` by frame number, without loading the whole file.

    The first use scans the file once for each line's byte offset (a 30-minute match has
    100 000 lines; holding them all parsed would take hundreds of MB).
    """

    def __init__(self, path: Path):
        self.path = path
        self._offsets: dict[int, int] | None = None
        self._lock = threading.Lock()

    def _index(self) -> dict[int, int]:
        with self._lock:
            if self._offsets is None:
                offsets: dict[int, int] = {}
                pos = 0
                with self.path.open("rb") as f:
                    for line in f:
                        found = _FRAME_KEY.search(line)
                        if found:
                            offsets[int(found.group(1))] = pos
                        pos += len(line)
                self._offsets = offsets
            return self._offsets

    def __len__(self) -> int:
        return len(self._index()) if self.path.is_file() else 0

    def records(self) -> Iterator[dict[str, Any]]:
        """Every record in file order, read line by line (none when there is no file)."""
        if not self.path.is_file():
            return
        with self.path.open("rb") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    where = f"{self.path} line {number}"
                    yield check_tracks_record(_record(line, where), where)

    def get(self, frame: int) -> dict[str, Any] | None:
        """The record of ``frame``, or None when the tracks hold no such frame."""
        if not self.path.is_file():
            return None
        offset = self._index().get(frame)
        if offset is None:
            return None
        with self.path.open("rb") as f:
            f.seek(offset)
            line = f.readline()
        where = f"{self.path}: the record of frame {frame}"
        return check_tracks_record(_record(line, where), where)


class FrameReader:
    """JPEG frames of one video by index, with a small cache of encoded frames."""

    def __init__(self, path: Path, *, cache_size: int = 24, jpeg_quality: int = 85):
        self.path = path
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            raise AnalysisError(f"cannot open video {path}: not a video OpenCV can read")
        self.frame_count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self.fps = float(self._cap.get(cv2.CAP_PROP_FPS)) or 0.0
        self.size_px = (
            int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        self._next = 0  # index the capture will decode next without a seek
        self._cache: OrderedDict[int, bytes] = OrderedDict()
        self._cache_size = cache_size
        self._quality = jpeg_quality
        self._lock = threading.Lock()

    def jpeg(self, index: int) -> bytes:
        """Frame ``index`` (0-based) as JPEG bytes.

        Raises:
            FrameOutOfRange: the video has no such frame.
        """
        with self._lock:
            if index in self._cache:
                self._cache.move_to_end(index)
                return self._cache[index]
            image = self._decode(index)
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self._quality])
            if not ok:
                raise AnalysisError(f"cannot encode frame {index} of {self.path} as JPEG")
            data = buf.tobytes()
            self._cache[index] = data
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return data

    def _decode(self, index: int) -> np.ndarray:
        if index < 0 or (self.frame_count and index >= self.frame_count):
            raise FrameOutOfRange(f"frame {index} is outside 0..{self.frame_count - 1}")
        # Stepping forward one frame is a plain read; anything else seeks (slower, exact).
        if index != self._next:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, image = self._cap.read()
        if not ok:
            self._next = -1
            raise FrameOutOfRange(f"frame {index} cannot be decoded from {self.path}")
        self._next = index + 1
        return image

    def close(self) -> None:
        with self._lock:
            self._cap.release()


class Analysis:
    """One recording folder: its video and analysis outputs."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.name = folder.name
        self.tracks = TracksIndex(folder / TRACKS_NAME)
        self._frames: FrameReader | None = None
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[int | None, Any]] = {}

    def cached(self, key: str, filename: str, build: Callable[[], Any]) -> Any:
        """``build()``, kept until the file ``filename`` of this folder changes.

        Playback asks for the same calls and geometry with every frame; re-reading and
        re-building them 30 times a second would be wasted work.
        """
        path = self.folder / filename
        stamp = path.stat().st_mtime_ns if path.exists() else None
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        value = build()
        with self._lock:
            self._cache[key] = (stamp, value)
        return value

    @property
    def video_path(self) -> Path:
        return self.folder / VIDEO_NAME

    def video_info(self) -> VideoInfo:
        """The video's codec and each frame's presentation time (kept until the video changes)."""
        return self.cached("video_info", VIDEO_NAME, lambda: probe(self.video_path))

    def browser_video(self) -> Path:
        """The file a browser plays: the video itself, or its proxy (made on first use)."""
        return browser_video(self.video_path)

    def frames(self) -> FrameReader:
        with self._lock:
            if self._frames is None:
                self._frames = FrameReader(self.video_path)
            return self._frames

    def calls(self) -> list[dict[str, Any]]:
        """The calls in frame order, each with ``index`` and ``evidence_rel`` added (read-only)."""
        return self.cached("calls", "calls.jsonl", self._read_calls)

    def _read_calls(self) -> list[dict[str, Any]]:
        path = self.folder / "calls.jsonl"
        calls = [
            check_call_record(call, f"{path} call {n}")
            for n, call in enumerate(read_jsonl(path), start=1)
        ]
        calls.sort(key=lambda c: c["frame"])
        for index, call in enumerate(calls):
            call["index"] = index
            call["evidence_rel"] = evidence_relpath(call.get("evidence"), self.folder)
        return calls

    def summary(self) -> dict[str, Any] | None:
        return read_json(self.folder / "summary.json")

    def calibration(self) -> Calibration | None:
        """The folder's ``calibration.json``, or None when there is none.

        Raises:
            CalibrationFileError: the file is malformed (the message says how).
        """
        path = self.folder / CALIBRATION_NAME
        return read_calibration(path) if path.is_file() else None

    def game(self) -> str | None:
        """The game the analysis refereed (its summary's, else the recording's; None: the one
        its table names). A file that cannot be read says nothing of it here: the page still
        renders, and that file's own reader reports what is wrong."""
        for name in ("summary.json", META_NAME):
            try:
                data = read_json(self.folder / name) or {}
            except AnalysisError:
                continue
            if isinstance(data.get("game"), str):
                return data["game"]
        return None

    def table(self) -> str:
        """The table profile the analysis used: calibration's, else the recording's, else fistf."""
        calibration = self.calibration()
        if calibration is not None:
            return calibration.table
        meta = read_json(self.folder / META_NAME) or {}
        return meta["table"] if isinstance(meta.get("table"), str) else "fistf"

    def close(self) -> None:
        with self._lock:
            if self._frames is not None:
                self._frames.close()
                self._frames = None


class Recordings:
    """The recordings directory; keeps the few most recently opened analyses open."""

    def __init__(self, root: str | Path | None, *, keep_open: int = 4):
        self.root = Path(root) if root is not None else None
        self._open: OrderedDict[str, Analysis] = OrderedDict()
        self._keep = keep_open
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Folders that hold a video, newest name last."""
        if self.root is None or not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / VIDEO_NAME).is_file())

    def get(self, name: str) -> Analysis:
        """The analysis folder ``name``.

        Raises:
            UnknownRecording: no such folder with a video, or the name is not a plain name.
        """
        if self.root is None or name in ("", ".", "..") or "/" in name or "\\" in name:
            raise UnknownRecording(f"no recording {name!r}")
        folder = self.root / name
        if not (folder / VIDEO_NAME).is_file():
            raise UnknownRecording(f"no recording {name!r}")
        with self._lock:
            if name not in self._open:
                self._open[name] = Analysis(folder)
                if len(self._open) > self._keep:
                    self._open.popitem(last=False)[1].close()
            self._open.move_to_end(name)
            return self._open[name]

    def close(self) -> None:
        with self._lock:
            for analysis in self._open.values():
                analysis.close()
            self._open.clear()
