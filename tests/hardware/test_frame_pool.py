"""Frame buffers used again once nothing refers to them (``hardware/frame_pool.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.frame_pool import FramePool


def test_a_buffer_comes_back_only_once_nothing_holds_it():
    pool = FramePool()
    a = pool.copy_of(np.full((4, 6, 3), 1, np.uint8))
    b = pool.copy_of(np.full((4, 6, 3), 2, np.uint8))
    assert not np.shares_memory(a, b) and a[0, 0, 0] == 1 and b[0, 0, 0] == 2
    address = b.ctypes.data
    del b
    c = pool.copy_of(np.full((4, 6, 3), 3, np.uint8))
    assert c.ctypes.data == address and a[0, 0, 0] == 1  # b's buffer, a untouched
    assert len(pool) == 2


def test_a_view_of_a_frame_holds_its_buffer():
    """A crop kept by a ring is a view: the frame's buffer stays taken while it lives."""
    pool = FramePool()
    crop = pool.copy_of(np.zeros((4, 6, 3), np.uint8))[1:3, 2:4]
    other = pool.copy_of(np.ones((4, 6, 3), np.uint8))
    assert not np.shares_memory(crop, other)
    assert (crop == 0).all()


def test_copies_are_contiguous_and_the_pool_is_bounded():
    pool = FramePool(limit=2)
    padded = np.arange(4 * 8 * 3, dtype=np.uint8).reshape(4, 8, 3)[:, :6]  # a stride's padding
    held = [pool.copy_of(padded) for _ in range(3)]
    assert all(h.flags.c_contiguous and np.array_equal(h, padded) for h in held)
    assert len(pool) == 2  # the third is a frame's own array, not kept
    with pytest.raises(ValueError, match="limit"):
        FramePool(limit=0)


def test_a_reserve_is_made_with_the_first_frame_and_serves_the_frames_held_after_it():
    pool = FramePool(limit=5)
    pool.reserve(4)
    held = [pool.copy_of(np.full((4, 6, 3), i, np.uint8)) for i in range(4)]
    assert len(pool) == 4  # all made with the first frame, none since
    addresses = {h.ctypes.data for h in held}
    assert len(addresses) == 4 and [int(h[0, 0, 0]) for h in held] == [0, 1, 2, 3]
    del held
    again = [pool.copy_of(np.zeros((4, 6, 3), np.uint8)) for _ in range(4)]
    assert {h.ctypes.data for h in again} == addresses  # the same buffers serve again
    pool.reserve(50)
    assert pool.reserved == 5  # never past the limit
    with pytest.raises(ValueError, match="reserve"):
        pool.reserve(-1)
