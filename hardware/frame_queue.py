"""A bounded hand-over between a camera and the work on its frames: the newest few frames wait,
the oldest are dropped and counted.

A camera delivers at its own rate whether or not the worker keeps up. ``QueuedSource`` reads
a camera's ``frames()`` in a capture thread of its own and hands them to the worker through a
queue of at most ``max_frames``: when the worker falls behind, the oldest waiting frame is
dropped (``dropped`` counts them), so memory stays bounded and the worker always goes on with
the present instead of falling ever further behind. Frames keep their capture timestamps, so a
drop shows to tracking and rules as a gap in time.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator

from hardware.frame_source import Frame, FrameSource, SourceBase


class QueuedSource(SourceBase):
    """``source`` read in a capture thread, handed over through a bounded drop-oldest queue.

    Args:
        source: an open camera (paced: it delivers at its own rate).
        max_frames: frames that may wait for the worker (>= 1).

    Raises:
        ValueError: ``max_frames`` < 1.
    """

    def __init__(self, source: FrameSource, max_frames: int = 2) -> None:
        if max_frames < 1:
            raise ValueError(f"QueuedSource: max_frames must be >= 1, got {max_frames}")
        self.source = source
        self.lossy, self.replayable = source.lossy, source.replayable
        self.readout_s = source.readout_s
        self.paced, self.end_message = True, source.end_message
        self._queue: deque[Frame] = deque()
        self._max = max_frames
        self._cond = threading.Condition()
        self._closed = False
        self._ended = False
        self._error: BaseException | None = None
        self.dropped = 0  # frames dropped because the worker fell behind
        self._thread: threading.Thread | None = None

    @property
    def size_px(self) -> tuple[int, int]:
        return self.source.size_px

    @property
    def fps(self) -> float:
        return self.source.fps

    def reserve_frames(self, count: int) -> None:
        self.source.reserve_frames(count)

    def frames(self) -> Iterator[Frame]:
        """The camera's frames in capture order, less those dropped; re-raises the camera's
        error once the frames before it are handed over."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._capture, name="tablevar-capture")
            self._thread.daemon = True
            self._thread.start()
        while True:
            with self._cond:
                while not self._queue and not self._ended:
                    self._cond.wait()
                if not self._queue:
                    if self._error is not None:
                        raise self._error
                    return
                frame = self._queue.popleft()
            yield frame

    def _capture(self) -> None:
        try:
            for frame in self.source.frames():
                with self._cond:
                    if self._closed:
                        return
                    if len(self._queue) >= self._max:
                        self._queue.popleft()
                        self.dropped += 1
                    self._queue.append(frame)
                    self._cond.notify()
        except BaseException as exc:  # handed to the worker, which reports and reopens
            self._error = exc
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def stop(self) -> None:
        """Stop taking frames (the capture thread ends with the camera's next frame or its
        end); the camera stays open: its owner closes it."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()

    def close(self) -> None:
        """Stop taking frames and close the camera (its ``frames()`` ends with it)."""
        self.stop()
        self.source.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
