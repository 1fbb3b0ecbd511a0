"""What every frame source delivers and promises: ``Frame``, the ``FrameSource`` Protocol,
the ``SourceBase`` its implementations share and the errors they raise.

The sources themselves live beside it (``hardware.sources``: video files and OpenCV cameras,
``hardware.picamera_source``, ``simulator.sim_source``); this module imports none of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self

import numpy as np
from numpy.typing import NDArray


class SourceError(ValueError):
    """A frame source cannot be opened or read; the message says what to do."""


class TruncatedVideoError(SourceError):
    """A video ended before its timestamps did; the frames that decoded were delivered.

    Attributes:
        decoded: frames that decoded.
        expected: frames the recording's timestamps say there are.
    """

    def __init__(self, message: str, *, decoded: int, expected: int) -> None:
        super().__init__(message)
        self.decoded = decoded
        self.expected = expected


@dataclass(frozen=True, slots=True)
class Frame:
    """One captured frame.

    Attributes:
        index: 0, 1, 2, ... in capture order.
        t_ns: capture time, ns, monotonic from a source-specific epoch.
        image_bgr: (h, w, 3) uint8, BGR.
    """

    index: int
    t_ns: int
    image_bgr: NDArray[np.uint8]

    def __post_init__(self) -> None:
        shape = self.image_bgr.shape
        if len(shape) != 3 or shape[2] != 3 or self.image_bgr.dtype != np.uint8:
            raise ValueError(
                f"Frame.image_bgr: expected (h, w, 3) uint8, got {shape} {self.image_bgr.dtype}"
            )

    @property
    def t_s(self) -> float:
        """Capture time in seconds."""
        return self.t_ns * 1e-9


class FrameSource(Protocol):
    """Anything that yields frames: files, cameras, the simulator."""

    @property
    def size_px(self) -> tuple[int, int]:
        """Frame (width, height) in pixels."""
        ...

    @property
    def fps(self) -> float:
        """Nominal frames per second; the frames' own timestamps are the truth."""
        ...

    @property
    def lossy(self) -> bool:
        """Whether the frames lost detail on their way from the sensor: a lossy video codec
        or colour at lower resolution than the picture (YUV 4:2:0, 4:2:2). A fit of a still
        ball is then less exact (``vision.config.VisionConfig.lossy_frames``)."""
        ...

    @property
    def readout_s(self) -> float | None:
        """The rolling shutter's readout, from the first row's exposure to the last's: 0 for
        a global shutter, None when not known (``tracking/shutter.py``)."""
        ...

    @property
    def replayable(self) -> bool:
        """Whether ``frames()`` can deliver the same frames again from the first (a video file,
        the simulator): opened again after a failure, it resumes by frame index instead of
        showing new frames (a camera)."""
        ...

    @property
    def paced(self) -> bool:
        """Whether frames arrive at the pace they were captured by themselves (a camera, the
        simulator); False: as fast as they are read (a video file)."""
        ...

    @property
    def end_message(self) -> str:
        """What the page says once ``frames()`` has ended."""
        ...

    def frames(self) -> Iterator[Frame]:
        """Yield frames in capture order until the source ends."""
        ...

    def reserve_frames(self, count: int) -> None:
        """The user of the frames holds up to ``count`` of them at once (its rings): a source
        that copies frames into buffers of its own makes that many ready before they flow."""
        ...

    def close(self) -> None:
        """Release the device or file."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class SourceBase:
    """Shared context manager: ``with source:`` calls the source's ``close()`` on the way out.

    Frames count as lossy (``FrameSource.lossy``), of a shutter not known
    (``FrameSource.readout_s``), and the source as a camera (not ``replayable``, ``paced``)
    unless a source knows better.
    """

    lossy = True
    readout_s: float | None = None
    replayable = False
    paced = True
    end_message = "the camera stopped"

    def reserve_frames(self, count: int) -> None:
        """Nothing to make ready: each frame is an array of its own."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
