"""The Raspberry Pi camera through picamera2, which exists on a Pi only.

``picamera2`` is imported inside ``PiCameraSource`` so that the rest of tablevar imports and
runs anywhere. Install it on the Pi with ``sudo apt install python3-picamera2`` and create
the virtual environment with ``--system-site-packages`` so it can see it.

One verb per step, as picamera2 itself does: ``configure`` on construction, ``start`` when
``frames()`` begins, ``stop`` when it ends, ``close`` releases the camera. Each frame's time is
the request metadata's ``SensorTimestamp`` (ns, the start of the exposure on the kernel's
monotonic clock), and each request's buffers go back to the camera through
``captured_request()``, a context manager, as soon as the image has been copied out.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.frame_source import Frame, SourceBase, SourceError

# Camera Module 3 (IMX708) full-view binned mode: the whole sensor at up to 56 fps.
DEFAULT_SIZE_PX = (2304, 1296)
DEFAULT_FPS = 56.0
FORMATS = ("YUV420", "RGB888")


def import_picamera2() -> ModuleType:
    """The picamera2 module, or a ``SourceError`` saying how to get it."""
    try:
        return importlib.import_module("picamera2")
    except ImportError as exc:
        raise SourceError(
            "picamera2 is only available on a Raspberry Pi: install python3-picamera2 "
            "(sudo apt install python3-picamera2) and create the venv with "
            "--system-site-packages; elsewhere use a video file or opencv:N"
        ) from exc


def sensor_timestamp_ns(metadata: Mapping[str, Any]) -> int:
    """The frame time from a request's metadata: ``SensorTimestamp``, ns.

    Raises:
        SourceError: the metadata has no usable ``SensorTimestamp``.
    """
    value = metadata.get("SensorTimestamp")
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise SourceError(
            f"camera request metadata has no SensorTimestamp (got {value!r}); "
            "update libcamera and picamera2"
        )
    return int(value)


def to_bgr(array: NDArray[np.uint8], fmt: str, size_px: tuple[int, int]) -> NDArray[np.uint8]:
    """A picamera2 main-stream array as a (h, w, 3) uint8 BGR image.

    Args:
        array: ``request.make_array("main")``: (h * 3 / 2, stride) for YUV420 (I420 planes,
            rows padded to the stride), (h, w, 3) for RGB888 (which picamera2 stores in
            B, G, R byte order, OpenCV's order).
        fmt: ``YUV420`` or ``RGB888``.
        size_px: (w, h) of the stream.
    """
    w, h = size_px
    if fmt == "RGB888":
        return array
    if fmt == "YUV420":
        if array.shape[0] != h * 3 // 2:
            raise SourceError(f"YUV420 buffer of shape {array.shape} does not fit {w}x{h}")
        # Convert at the padded stride, then crop the padding off the right-hand side.
        return cv2.cvtColor(array, cv2.COLOR_YUV2BGR_I420)[:, :w]
    raise SourceError(f"unsupported main stream format {fmt!r}; use one of {FORMATS}")


class PiCameraSource(SourceBase):
    """The Raspberry Pi camera's main stream.

    Args:
        size_px: main stream (width, height); default the Camera Module 3 full-view mode.
        fps: requested frame rate.
        fmt: ``RGB888`` (full colour) or ``YUV420`` (half the memory traffic, converted
            here; its colour at half resolution moves a resting ball's fitted edge by up to
            0.3 px, so its frames count as lossy and calls near a line are less often sure).
        camera_num: which camera on a Pi with two.

    Raises:
        SourceError: picamera2 is missing, or the format is not supported.
    """

    def __init__(
        self,
        *,
        size_px: tuple[int, int] = DEFAULT_SIZE_PX,
        fps: float = DEFAULT_FPS,
        fmt: str = "RGB888",
        camera_num: int = 0,
    ) -> None:
        if fmt not in FORMATS:
            raise SourceError(f"unsupported main stream format {fmt!r}; use one of {FORMATS}")
        picamera2 = import_picamera2()
        self._fmt = fmt
        self.lossy = fmt == "YUV420"
        self._size_px = (int(size_px[0]), int(size_px[1]))
        self._fps = float(fps)
        try:
            self._camera = picamera2.Picamera2(camera_num)
        except (RuntimeError, IndexError) as exc:
            raise SourceError(
                f"cannot open Pi camera {camera_num}: {exc}; check the ribbon cable and that "
                "`rpicam-hello --list-cameras` lists it"
            ) from exc
        try:
            config = self._camera.create_video_configuration(
                main={"size": self._size_px, "format": fmt},
                controls={"FrameRate": self._fps},
            )
            self._camera.configure(config)
        except (RuntimeError, ValueError) as exc:
            self.close()
            raise SourceError(
                f"Pi camera cannot stream {fmt} at {self._size_px[0]}x{self._size_px[1]} and "
                f"{self._fps:g} fps: {exc}"
            ) from exc

    @property
    def size_px(self) -> tuple[int, int]:
        return self._size_px

    @property
    def fps(self) -> float:
        return self._fps

    def frames(self) -> Iterator[Frame]:
        self._camera.start()
        try:
            index = 0
            while True:
                with self._camera.captured_request() as request:
                    t_ns = sensor_timestamp_ns(request.get_metadata())
                    array = request.make_array("main")  # a copy: the buffer goes back now
                yield Frame(index, t_ns, to_bgr(array, self._fmt, self._size_px))
                index += 1
        finally:
            self._camera.stop()

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None
