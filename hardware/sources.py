"""Frame sources: everything that delivers timestamped BGR frames, behind one Protocol.

- ``VideoFileSource``: a recording folder (timestamps from ``timestamps.csv``) or any plain video
  file, e.g. a phone ``.mp4`` filmed from above (timestamps from the container's presentation
  times).
- ``OpenCVCameraSource``: a USB camera through OpenCV (timestamps from the monotonic clock when
  the frame was grabbed). A camera that stops delivering frames is reopened with exponential
  back-off (``backoff_delays_s``); after ``max_reopen_attempts`` failed attempts in a row it
  raises ``SourceError``. Frame indices and timestamps carry on across a reopen, so the gap
  shows up as time without frames.
- ``PiCameraSource`` (``hardware/picamera_source.py``): the Raspberry Pi camera.

``open_source(spec)`` turns a command-line spec (``file:PATH``, ``opencv:N``, ``pi`` or a bare
path) into one of them. Every source is a context manager that releases its device or file.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import av
import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.frame_source import (
    Frame,
    FrameSource,
    SourceBase,
    SourceError,
    TruncatedVideoError,
)
from hardware.recording import VIDEO_NAME, read_meta, read_timestamps_ns

__all__ = [
    "SPEC_HELP",
    "Frame",
    "FrameSource",
    "OpenCVCameraSource",
    "SourceBase",
    "SourceError",
    "TruncatedVideoError",
    "VideoFileSource",
    "backoff_delays_s",
    "open_source",
]
_log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------- video files
# Codecs that decode to exactly the frames written; lossless only in full colour.
LOSSLESS_CODECS = frozenset({"ffv1", "ffvhuff", "huffyuv", "png", "rawvideo", "utvideo"})


def _probe_stream(path: Path) -> tuple[bool, int | None]:
    """(whether ``path``'s first video stream is a lossless codec in full colour, the frames
    its container's index lists or None when it lists none).

    H.264 can be lossless too, but its stream does not say so: it counts as lossy.
    """
    try:
        with av.open(native_path(path)) as container:
            stream = container.streams.video[0]
            ctx = stream.codec_context
            planes = {(c.width, c.height) for c in ctx.format.components}
            return ctx.name in LOSSLESS_CODECS and len(planes) == 1, int(stream.frames) or None
    except (av.FFmpegError, IndexError, AttributeError, SourceError):
        return False, None


def native_path(path: Path) -> str:
    """``path`` as the text OpenCV and FFmpeg take; a name that is not valid UTF-8 (which
    crashes OpenCV's reader) is refused with a clear message."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "replace").decode("utf-8")
        raise SourceError(
            f"the path {shown!r} is not valid UTF-8: rename the file or its folder"
        ) from None
    return text


def _open_capture(path: Path) -> cv2.VideoCapture:
    text = native_path(path)
    if path.stat().st_size == 0:
        raise SourceError(f"video {path} is empty (0 bytes); record or copy it again")
    cap = cv2.VideoCapture(text)
    if not cap.isOpened():
        cap.release()
        raise SourceError(
            f"cannot read video {path}: not a video OpenCV can decode, or an unfinished file "
            "(a recording cut off before it was closed); check it with `ffprobe`"
        )
    return cap


class VideoFileSource(SourceBase):
    """Frames from a recording folder or a plain video file.

    Args:
        path: a recording folder (``meta.json``, ``video.mp4``, ``timestamps.csv``) or a
            video file. Timestamps come from ``timestamps.csv`` for a recording and from the
            container's presentation times (``CAP_PROP_POS_MSEC``) for a plain file.

    Raises:
        SourceError: the path does not exist, is not a readable video, has no frames, or its
            video does not match its ``meta.json``.

    ``frames()`` reopens the file each time it is called, so a source can be played twice
    (``replayable``); frames come as fast as they decode (not ``paced``). The shutter's readout
    is the one a recording names (``RecordingMeta.readout_s``); a plain file's is not known.
    When a recording's video holds fewer frames than its timestamps (a plain file: than its
    container's index lists), ``frames()`` yields every frame that decodes and then raises
    ``TruncatedVideoError``.
    """

    replayable = True
    paced = False
    end_message = "the video has ended"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        native_path(self.path)
        if not self.path.exists():
            raise SourceError(f"no such file or folder: {self.path}")
        self.timestamps_ns: NDArray[np.int64] | None = None
        if self.path.is_dir():
            self.video_path = self.path / VIDEO_NAME
            self.meta = read_meta(self.path)
            self.timestamps_ns = read_timestamps_ns(self.path)
            if self.meta.complete and self.meta.frames != len(self.timestamps_ns):
                raise SourceError(
                    f"{self.path}: meta.json says {self.meta.frames} frames but timestamps.csv "
                    f"has {len(self.timestamps_ns)}; the recording is damaged, record it again"
                )
            if not self.video_path.is_file():
                raise SourceError(f"{self.path} has no {VIDEO_NAME}: the recording is damaged")
        else:
            self.video_path = self.path
            self.meta = None
        self._cap: cv2.VideoCapture | None = None
        self._probe()

    def _probe(self) -> None:
        cap = _open_capture(self.video_path)
        try:
            ok, image = cap.read()
            if not ok or image is None:
                raise SourceError(f"video {self.video_path} has no frames that decode")
            h, w = image.shape[:2]
            fps = cap.get(cv2.CAP_PROP_FPS)
        finally:
            cap.release()
        self._size_px = (int(w), int(h))
        lossless, self.container_frames = _probe_stream(self.video_path)
        self.lossy = not lossless
        self.readout_s = None if self.meta is None else self.meta.readout_s
        if self.meta is not None:
            if self.meta.size_px != self._size_px:
                raise SourceError(
                    f"{self.video_path} is {w}x{h} px but meta.json says "
                    f"{self.meta.size_px[0]}x{self.meta.size_px[1]}: the recording is damaged"
                )
            fps = self.meta.fps
        if not (math.isfinite(fps) and fps > 0):
            raise SourceError(f"video {self.video_path} reports no frame rate ({fps!r})")
        self._fps = float(fps)

    @property
    def size_px(self) -> tuple[int, int]:
        return self._size_px

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def expected_frames(self) -> int | None:
        """Frames the recording's timestamps promise; None for a plain video file."""
        return None if self.timestamps_ns is None else len(self.timestamps_ns)

    def frames(self) -> Iterator[Frame]:
        self.close()
        self._cap = cap = _open_capture(self.video_path)
        index = 0
        last_t_ns = -1
        try:
            while True:
                ok, image = cap.read()
                if not ok or image is None:
                    break
                t_ns = self._timestamp_ns(cap, index, last_t_ns)
                yield Frame(index, t_ns, image)
                last_t_ns = t_ns
                index += 1
        finally:
            self.close()
        self._check_complete(index)

    def _timestamp_ns(self, cap: cv2.VideoCapture, index: int, last_t_ns: int) -> int:
        if self.timestamps_ns is not None:
            if index >= len(self.timestamps_ns):
                raise SourceError(
                    f"{self.video_path} has more frames than timestamps.csv "
                    f"({len(self.timestamps_ns)} rows): the recording is damaged"
                )
            return int(self.timestamps_ns[index])
        t_ns = round(cap.get(cv2.CAP_PROP_POS_MSEC) * 1e6)
        if t_ns <= last_t_ns:
            # A container without usable presentation times (some streams report 0 for every
            # frame): fall back to the nominal rate rather than repeat a timestamp.
            t_ns = last_t_ns + round(1e9 / self._fps)
        return t_ns

    def _check_complete(self, decoded: int) -> None:
        expected = self.expected_frames
        if expected is None and self.container_frames is not None:
            # A plain file: its container's index lists every frame (an MP4's sample table);
            # one short is a decoder's rounding, more is a file cut off after its index.
            expected = self.container_frames if decoded < self.container_frames - 1 else None
        if expected is not None and decoded < expected:
            raise TruncatedVideoError(
                f"{self.video_path} ended after {decoded} of {expected} frames: the video is "
                "truncated (the recording was cut off or the file was damaged); the frames "
                "before the cut are fine",
                decoded=decoded,
                expected=expected,
            )

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# ----------------------------------------------------------------------------------- cameras
def backoff_delays_s(attempts: int, first_s: float = 0.5, max_s: float = 8.0) -> list[float]:
    """Waits before each reopen attempt: ``first_s`` doubling up to ``max_s``, seconds."""
    return [min(first_s * 2.0**k, max_s) for k in range(attempts)]


class OpenCVCameraSource(SourceBase):
    """A USB camera (V4L2) through OpenCV; its frames count as lossy (USB cameras send
    MJPEG or YUV 4:2:2).

    Args:
        device: camera index (0 is ``/dev/video0``) or a device path.
        size_px: requested (width, height); the camera may choose another, see ``size_px``.
        fps: requested frame rate.
        max_reopen_attempts: reopen attempts in a row before giving up.
        first_backoff_s: wait before the first reopen attempt; doubles per attempt up to 8 s.
        sleep: the wait function (``time.sleep``).

    Raises:
        SourceError: the camera cannot be opened or delivers no frame.
    """

    def __init__(
        self,
        device: int | str = 0,
        *,
        size_px: tuple[int, int] | None = None,
        fps: float | None = None,
        max_reopen_attempts: int = 5,
        first_backoff_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.device = device
        self._request = (size_px, fps)
        self._delays_s = backoff_delays_s(max_reopen_attempts, first_backoff_s)
        self._sleep = sleep
        self.reopens = 0
        self._cap = self._open()
        self._pending = self._grab()
        if self._pending is None:
            self.close()
            raise SourceError(f"camera {device!r} opened but delivers no frames; replug it")
        h, w = self._pending[1].shape[:2]
        self._size_px = (int(w), int(h))
        fps_now = self._cap.get(cv2.CAP_PROP_FPS)
        self._fps = float(fps_now) if math.isfinite(fps_now) and fps_now > 0 else 30.0

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise SourceError(
                f"cannot open camera {self.device!r}: is it plugged in and not used by another "
                "program? List cameras with `v4l2-ctl --list-devices`"
            )
        size_px, fps = self._request
        if size_px is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size_px[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size_px[1])
        if fps is not None:
            cap.set(cv2.CAP_PROP_FPS, fps)
        return cap

    def _grab(self) -> tuple[int, NDArray[np.uint8]] | None:
        # Stamp at grab(): the moment the frame left the driver, before decoding costs time.
        if self._cap is None or not self._cap.grab():
            return None
        t_ns = time.monotonic_ns()
        ok, image = self._cap.retrieve()
        return (t_ns, image) if ok and image is not None else None

    @property
    def size_px(self) -> tuple[int, int]:
        return self._size_px

    @property
    def fps(self) -> float:
        return self._fps

    def frames(self) -> Iterator[Frame]:
        index = 0
        try:
            while True:
                grabbed = self._pending or self._grab()
                self._pending = None
                if grabbed is None:
                    self._reopen()
                    continue
                yield Frame(index, *grabbed)
                index += 1
        finally:
            self.close()

    def _reopen(self) -> None:
        """Reopen a camera that stopped delivering, waiting longer after each failure."""
        self.close()
        for attempt, delay_s in enumerate(self._delays_s, start=1):
            _log.warning(
                "camera %r dropped out; reopen %d in %.1f s", self.device, attempt, delay_s
            )
            self._sleep(delay_s)
            try:
                self._cap = self._open()
            except SourceError:
                continue
            self._pending = self._grab()
            if self._pending is not None:
                self.reopens += 1
                return
            self.close()
        raise SourceError(
            f"camera {self.device!r} stopped delivering frames and could not be reopened after "
            f"{len(self._delays_s)} attempts; check its cable and power, then start again"
        )

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# ------------------------------------------------------------------------------------- specs
SPEC_HELP = "file:PATH, opencv:N (USB camera N), pi (Raspberry Pi camera) or a path"


def open_source(spec: str) -> FrameSource:
    """Open the frame source named by a command-line spec.

    Args:
        spec: ``file:PATH`` or a bare path (a recording folder or video file), ``opencv:N``
            or ``opencv:/dev/videoN`` (USB camera), ``pi`` (Raspberry Pi camera).

    Raises:
        SourceError: an unknown spec, or a source that cannot be opened.
    """
    if spec == "pi":
        from hardware.picamera_source import PiCameraSource  # needs picamera2, on a Pi only

        return PiCameraSource()
    scheme, sep, rest = spec.partition(":")
    if sep and scheme == "file":
        return VideoFileSource(rest)
    if sep and scheme == "opencv":
        if not rest:
            raise SourceError(f"source {spec!r}: give a camera number, e.g. opencv:0")
        return OpenCVCameraSource(int(rest) if rest.isdigit() else rest)
    if sep and len(scheme) > 1 and scheme.isalnum() and not Path(spec).exists():
        raise SourceError(f"unknown source {spec!r}; expected {SPEC_HELP}")
    return VideoFileSource(spec)
