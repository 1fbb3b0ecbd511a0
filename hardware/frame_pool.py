"""Frame buffers used again once nothing refers to them.

A camera's frame is copied out of its buffer before the buffer goes back to the camera. Into
a fresh array every frame, that copy writes untouched memory, and each page faults in: in the
live loop here a 2304x1296 frame's copy took 4-5.5 ms that way, against 1.5 ms into a buffer
used before. The evidence and replay rings keep some frames for seconds, so a buffer is
handed out again only when nothing else refers to it (CPython's reference count: a ring, a
queue or a view of the frame all hold one). The pool grows to the frames held at once, which
the bounded rings and queue bound; past ``limit`` buffers a frame gets an array of its own.

Grown a frame at a time, the pool pays those page faults on every frame a ring keeps until
the rings are full (seconds of 15 ms copies at 2304x1296 here, every sixth frame): a user of
the frames that knows how many it holds at once says so (``reserve``), and the first frame
makes them all, written through, before the frames that count.
"""

from __future__ import annotations

import sys

import numpy as np
from numpy.typing import NDArray

# The pool's own reference to a free buffer and ``sys.getrefcount``'s argument.
_FREE_REFS = 2


class FramePool:
    """Buffers handed out again once free (one camera's: one shape); see the module
    docstring.

    Args:
        limit: most buffers kept: more than the rings and the queue hold at once (the replay
            ring keeps at most 256 MB, 28 frames of 2304x1296).
    """

    def __init__(self, limit: int = 128) -> None:
        if limit < 1:
            raise ValueError(f"FramePool: limit must be >= 1, got {limit}")
        self.limit = limit
        self._buffers: list[NDArray] = []
        self._next = 0  # where the search for a free buffer starts (the oldest handed out)
        self.reserved = 0

    def reserve(self, count: int) -> None:
        """Make ``count`` buffers (at most ``limit``) at once, with their pages in memory,
        when the pool first has to make one: for the frames its users hold at once."""
        if count < 0:
            raise ValueError(f"FramePool: cannot reserve {count} buffers")
        self.reserved = min(count, self.limit)

    def __len__(self) -> int:
        return len(self._buffers)

    def take(self, shape: tuple[int, ...], dtype=np.uint8) -> NDArray:
        """A buffer of ``shape`` and ``dtype`` that nothing else refers to (its contents are
        the last frame's, or uninitialised)."""
        shape, dtype = tuple(shape), np.dtype(dtype)
        n = len(self._buffers)
        for k in range(n):
            i = (self._next + k) % n
            if sys.getrefcount(self._buffers[i]) == _FREE_REFS:
                if self._buffers[i].shape == shape and self._buffers[i].dtype == dtype:
                    self._next = (i + 1) % n
                    return self._buffers[i]
        buffer = np.empty(shape, dtype)
        if n < self.limit:
            self._buffers.append(buffer)
            for _ in range(self.reserved - n - 1):
                spare = np.empty(shape, dtype)
                spare.fill(0)  # the page faults now, not in a frame's copy
                self._buffers.append(spare)
        return buffer

    def copy_of(self, array: NDArray) -> NDArray:
        """A copy of ``array`` (C-contiguous, whatever its strides) in a pooled buffer."""
        out = self.take(array.shape, array.dtype)
        np.copyto(out, array)
        return out
