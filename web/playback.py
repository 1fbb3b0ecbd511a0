"""The recording as the browser's ``<video>`` element plays it, and each frame's time in it.

Browsers play H.264, VP9 and AV1 in 4:2:0 colour; they do not play MPEG-4 part 2 (what many
phones and OpenCV write) or the lossless FFV1 recordings. Such a video gets a browser-playable
proxy, H.264 in an MP4 whose index sits at the front (so playback starts before the whole file
has arrived), made once and kept beside the recording as ``video.browser.mp4``. The proxy keeps
every frame and its presentation time, so frame ``i`` is at the same time in both files.

Exact frame stepping needs each frame's presentation time: the page seeks to it and reads it
back from ``requestVideoFrameCallback``. The times come from the playable video's own packets
(demuxing reads no pixels: 0.1 s for a 4 500-frame clip), relative to its first frame, which is
where a browser's timeline starts.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

PROXY_NAME = "video.browser.mp4"
PLAYABLE_CODECS = frozenset({"h264", "vp9", "av1"})
PLAYABLE_PIX_FMTS = frozenset({"yuv420p", "yuvj420p"})
PROXY_CRF = 20  # the proxy is for watching; the measurements were made on the original
PROXY_PRESET = "veryfast"

# How the <video> element plays, read in the page from its own frame callbacks over a window of
# ``ms`` of display time after 15 frames of start-up: its playback rate; media time over display
# time (the speed: never above 1 at 1x, below it while a loaded machine's decoder falls behind and
# the player waits); frames decoded for display per second of media time (the recording's frame
# rate at any load, unless the video played is a resampled copy); frames painted per second of
# display time and frames reported dropped (both bend with the CPU the compositor gets). The
# benchmark and tests use it.
PLAYBACK_RATE_JS = """(ms) => new Promise((done) => {
    const v = document.getElementById('video');
    let first = null, n = 0;
    const sample = (meta) => ({meta, quality: v.getVideoPlaybackQuality()});
    const onFrame = (now, meta) => {
        n += 1;
        if (n === 15) first = sample(meta);
        if (first && meta.expectedDisplayTime - first.meta.expectedDisplayTime >= ms) {
            const last = sample(meta);
            const shown_s = (meta.expectedDisplayTime - first.meta.expectedDisplayTime) / 1000;
            const media_s = meta.mediaTime - first.meta.mediaTime;
            done({rate: v.playbackRate,
                  speed: media_s / shown_s,
                  decoded_per_media_s: (last.quality.totalVideoFrames
                                        - first.quality.totalVideoFrames) / media_s,
                  shown_fps: (meta.presentedFrames - first.meta.presentedFrames) / shown_s,
                  dropped: last.quality.droppedVideoFrames - first.quality.droppedVideoFrames});
        } else v.requestVideoFrameCallback(onFrame);
    };
    v.requestVideoFrameCallback(onFrame);
    document.getElementById('play').click();
})"""

_proxy_locks: dict[Path, threading.Lock] = {}
_proxy_locks_guard = threading.Lock()


class PlaybackError(ValueError):
    """The video cannot be read or converted for the browser; the message says why."""


@dataclass(frozen=True, slots=True)
class VideoInfo:
    """What the browser needs to know of a playable video.

    Attributes:
        codec: the video stream's codec name (``h264``, ``mpeg4``, ...).
        pix_fmt: its pixel format (``yuv420p``, ...).
        frame_times_s: presentation time of each frame in decoding-independent display order,
            seconds from the first frame; shape (n,).
    """

    codec: str
    pix_fmt: str
    frame_times_s: tuple[float, ...]

    @property
    def playable(self) -> bool:
        return self.codec in PLAYABLE_CODECS and self.pix_fmt in PLAYABLE_PIX_FMTS


def probe(path: Path) -> VideoInfo:
    """The codec, pixel format and frame times of the video at ``path`` (demuxed, not decoded).

    Raises:
        PlaybackError: the file does not open or holds no video stream.
    """
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise PlaybackError(f"{path} holds no video stream")
            stream = container.streams.video[0]
            ctx = stream.codec_context
            pts = sorted(p.pts for p in container.demux(stream) if p.pts is not None)
            base = stream.time_base
    except (av.error.FFmpegError, OSError) as exc:
        raise PlaybackError(f"cannot read video {path}: {exc}") from exc
    if not pts or base is None:
        raise PlaybackError(f"{path} holds no timed video frames")
    first = pts[0]
    times = tuple(float((p - first) * base) for p in pts)
    return VideoInfo(
        codec=ctx.name, pix_fmt=ctx.format.name if ctx.format else "", frame_times_s=times
    )


def browser_video(video: Path) -> Path:
    """``video`` when browsers play it, else its proxy beside it (made now if missing or older).

    Raises:
        PlaybackError: the video cannot be read or the proxy cannot be written.
    """
    if probe(video).playable:
        return video
    proxy = video.with_name(PROXY_NAME)
    with _lock_for(proxy):
        if not proxy.is_file() or proxy.stat().st_mtime_ns < video.stat().st_mtime_ns:
            make_proxy(video, proxy)
    return proxy


def _lock_for(path: Path) -> threading.Lock:
    with _proxy_locks_guard:
        return _proxy_locks.setdefault(path.resolve(), threading.Lock())


def make_proxy(video: Path, proxy: Path) -> None:
    """Re-encode ``video`` as H.264 4:2:0 into ``proxy``, every frame at its own time.

    Written to a temporary name and renamed, so a reader never sees half a file.
    """
    partial = proxy.with_name(f".{proxy.name}.partial")
    try:
        with (
            av.open(str(video)) as src,
            av.open(str(partial), "w", format="mp4", options={"movflags": "+faststart"}) as dst,
        ):
            stream = src.streams.video[0]
            stream.thread_type = "AUTO"
            ctx = stream.codec_context
            rate = stream.average_rate or stream.guessed_rate or Fraction(30)
            out = dst.add_stream("libx264", rate=rate)
            # 4:2:0 halves the chroma: the frame must have even sides.
            out.width, out.height = ctx.width - ctx.width % 2, ctx.height - ctx.height % 2
            out.pix_fmt = "yuv420p"
            out.time_base = stream.time_base
            out.options = {"crf": str(PROXY_CRF), "preset": PROXY_PRESET}
            for frame in src.decode(stream):
                image = frame.reformat(width=out.width, height=out.height, format="yuv420p")
                image.pts, image.time_base = frame.pts, frame.time_base
                dst.mux(out.encode(image))
            dst.mux(out.encode(None))
        os.replace(partial, proxy)
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        partial.unlink(missing_ok=True)
        raise PlaybackError(f"cannot make a browser-playable copy of {video}: {exc}") from exc
