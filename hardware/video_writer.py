"""Video files that survive a crash: fragmented MP4 written through PyAV.

OpenCV's pip wheels write only MPEG-4 part 2 at a bitrate that cannot be set, about four
times the size of H.264 at the same quality, and an MP4 whose writer was never closed has no
index and does not open. Here every keyframe (one per second) starts a new MP4 fragment, so a
crash loses at most the last second, and the files play in any browser and decode in OpenCV.

Recordings are H.264 (libx264, 4:2:0 colour). A lossless recording (FFV1, full colour) keeps
every pixel as the camera gave it, at some thirty times the size: for clips whose calls must be
measured without the codec's losses; browsers do not play it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from numpy.typing import NDArray

# Constant quality: 18 is visually lossless for x264; "veryfast" keeps encoding well under a
# frame time at 1280x960 on one core.
CRF = 18
PRESET = "veryfast"
LOSSLESS_CODEC = "ffv1"


class VideoWriteError(ValueError):
    """The video file cannot be written."""


class VideoWriter:
    """Appends BGR frames to a fragmented MP4 file: H.264, or lossless FFV1.

    Args:
        path: the .mp4 file to write (replaced if it exists).
        fps: nominal frame rate; frame i is stamped i / fps in the file.
        size_px: (width, height); both must be even (H.264 4:2:0).
        repeatable: encode on one thread, so the same frames always give the same video
            (x264's threads split the work differently under load, and the decoded frames
            then differ a little from run to run); slower, for simulated clips. Only the
            first video a process encodes differs, a little and in its first second, from
            those it encodes after it: a clip that must repeat gets a process of its own.
        lossless: write FFV1 in full colour (BGR): every decoded frame equals the frame
            written; always repeatable.
    """

    def __init__(
        self,
        path: str | Path,
        fps: float,
        size_px: tuple[int, int],
        *,
        repeatable: bool = False,
        lossless: bool = False,
    ) -> None:
        w, h = size_px
        if w % 2 or h % 2:
            raise VideoWriteError(f"H.264 needs an even frame size, got {w}x{h}")
        rate = Fraction(fps).limit_denominator(1001)
        try:
            self._file = av.open(
                str(path),
                "w",
                format="mp4",
                options={
                    "movflags": "+frag_keyframe+empty_moov+default_base_moof",
                    "flush_packets": "1",
                },
            )
        except (OSError, av.FFmpegError) as exc:
            raise VideoWriteError(f"cannot write video file {path}: {exc}") from exc
        if lossless:  # intra only: every frame is a keyframe
            self._stream = self._file.add_stream(LOSSLESS_CODEC, rate=rate)
            self._stream.pix_fmt = "bgr0"
        else:
            self._stream = self._file.add_stream(
                "libx264",
                rate=rate,
                options={
                    "crf": str(CRF),
                    "preset": PRESET,
                    "g": str(max(1, round(fps))),
                    "threads": "1" if repeatable else "0",
                },
            )
            self._stream.pix_fmt = "yuv420p"
        self._stream.width, self._stream.height = w, h
        self._file.start_encoding()  # the header now, so even an empty recording has a file
        self._frames = 0

    def write(self, image_bgr: NDArray[np.uint8]) -> None:
        """Encode one (h, w, 3) uint8 BGR frame."""
        frame = av.VideoFrame.from_ndarray(image_bgr, format="bgr24")
        frame.pts = self._frames
        self._frames += 1
        self._file.mux(self._stream.encode(frame))

    def close(self) -> None:
        """Flush the encoder and close the file."""
        self._file.mux(self._stream.encode(None))
        self._file.close()
