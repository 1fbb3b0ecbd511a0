"""Video files that survive a crash: fragmented MP4 written through PyAV.

OpenCV's pip wheels write only MPEG-4 part 2 at a bitrate that cannot be set, about four
times the size of H.264 at the same quality, and an MP4 whose writer was never closed has no
index and does not open. Here every keyframe (one per second) starts a new MP4 fragment, so a
crash loses at most the last second, and the files play in any browser and decode in OpenCV.

Recordings are H.264 (libx264, 4:2:0 colour), at constant quality or at a chosen bitrate. A
lossless recording (FFV1, full colour) keeps every pixel as the camera gave it, at some thirty
times the size: for clips whose calls must be measured without the codec's losses; browsers do
not play it. PyAV before 11 (Debian 12's 10.0, what Raspberry Pi OS installs) refuses FFV1 in
MP4: there the lossless file is FFV1 in Matroska, under the same name (readers go by the
content, not the name), written cluster by cluster. MPEG-4 part 2 (``mpeg4``, what OpenCV's
wheels and many older cameras and phones write) is there for the simulator, to test that
footage from such devices is read as well.
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
CODECS = ("h264", "mpeg4")  # lossy codecs a recording can be written in
# MPEG-4 part 2 has no constant-quality mode in every build: without a bitrate it gets this
# many bits per pixel and frame (about 5.5 Mbit/s at 1280x960, 30 fps: a phone's rate).
MPEG4_BITS_PER_PIXEL = 0.15


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
        codec: the lossy codec, ``h264`` or ``mpeg4`` (MPEG-4 part 2); ignored when lossless.
        bitrate_kbps: target bitrate in kbit/s; None: H.264 at constant quality (CRF 18),
            MPEG-4 part 2 at ``MPEG4_BITS_PER_PIXEL``.
    """

    def __init__(
        self,
        path: str | Path,
        fps: float,
        size_px: tuple[int, int],
        *,
        repeatable: bool = False,
        lossless: bool = False,
        codec: str = "h264",
        bitrate_kbps: float | None = None,
    ) -> None:
        w, h = size_px
        if w % 2 or h % 2:
            raise VideoWriteError(f"H.264 needs an even frame size, got {w}x{h}")
        if codec not in CODECS:
            raise VideoWriteError(f"unknown codec {codec!r}; use one of {', '.join(CODECS)}")
        if bitrate_kbps is not None and not bitrate_kbps > 0:
            raise VideoWriteError(f"bitrate must be > 0 kbit/s, got {bitrate_kbps}")
        rate = Fraction(fps).limit_denominator(1001)
        self._file = _open(path, "mp4")
        if lossless:  # intra only: every frame is a keyframe
            try:
                self._stream = self._file.add_stream(LOSSLESS_CODEC, rate=rate)
            except ValueError:  # an older PyAV: not in MP4
                self._file.close()
                self._file = _open(path, "matroska")
                self._stream = self._file.add_stream(LOSSLESS_CODEC, rate=rate)
            self._stream.pix_fmt = "bgr0"
        elif codec == "mpeg4":
            self._stream = self._file.add_stream(
                "mpeg4",
                rate=rate,
                options={"g": str(max(1, round(fps))), "threads": "1" if repeatable else "0"},
            )
            self._stream.pix_fmt = "yuv420p"
            bits = MPEG4_BITS_PER_PIXEL * w * h * fps
            self._stream.bit_rate = round(bits if bitrate_kbps is None else 1000 * bitrate_kbps)
        else:
            options = {
                "preset": PRESET,
                "g": str(max(1, round(fps))),
                "threads": "1" if repeatable else "0",
            }
            if bitrate_kbps is None:
                options["crf"] = str(CRF)
            self._stream = self._file.add_stream("libx264", rate=rate, options=options)
            if bitrate_kbps is not None:
                self._stream.bit_rate = round(1000 * bitrate_kbps)
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


def _open(path: str | Path, container: str) -> av.container.OutputContainer:
    """``path`` opened for writing as ``container`` (``mp4``: fragmented), each packet flushed."""
    options = {"flush_packets": "1"}
    if container == "mp4":
        options["movflags"] = "+frag_keyframe+empty_moov+default_base_moof"
    try:
        return av.open(str(path), "w", format=container, options=options)
    except (OSError, av.FFmpegError) as exc:
        raise VideoWriteError(f"cannot write video file {path}: {exc}") from exc
