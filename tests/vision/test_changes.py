"""``ChangeGate``: a stored result comes back only while its region shows nothing new."""

from __future__ import annotations

import numpy as np
import pytest

from vision.changes import ChangeGate

T = 10.0  # foreground threshold per channel, grey levels


def region(seed=0, noise=2.0):
    rng = np.random.default_rng(seed)
    return np.clip(100 + rng.normal(0, noise, (40, 40, 3)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    ("change", "frame", "key", "same"),
    [
        (None, 1, "a", True),  # new sensor noise only
        (None, 4, "a", False),  # too old: do the work again
        (None, 1, "b", False),  # another region
        ((slice(10, 12), slice(10, 12), 60), 1, "a", False),  # 4 pixels changed a lot
        ((slice(10, 11), slice(10, 12), 60), 1, "a", True),  # 2 pixels: noise, not an object
        ((slice(0, 40), slice(0, 40), 8), 1, "a", True),  # a slight change of light
    ],
)
def test_result_reused_only_while_nothing_changed(change, frame, key, same):
    gate = ChangeGate(T, max_age=4)
    gate.store("a", region(0), "result", frame=0)
    now = region(1).astype(int)
    if change is not None:
        ys, xs, delta = change
        now[ys, xs] += delta
    got = gate.lookup(key, np.clip(now, 0, 255).astype(np.uint8), frame)
    assert (got == "result") == same
    assert (gate.stale(key, np.clip(now, 0, 255).astype(np.uint8)) == "result") == (
        same or (frame >= 4 and key == "a")
    )


@pytest.mark.parametrize(("moved", "same"), [(False, True), (True, False)])
def test_a_flickering_lamp_is_no_change_but_what_moved_under_it_is(moved, same):
    """A region caught at a phase of a flickering lamp a seventh darker (a white line on the
    cloth then differs by three times the threshold) shows nothing new; an object that moved
    in it does."""
    before = region(0).astype(float) * 1.8  # a lit cloth at 180
    before[:, 15:25] = 240  # and a white line
    now = before * 6.0 / 7.0 + np.random.default_rng(1).normal(0.0, 2.0, before.shape)
    if moved:
        now[10:12, 30:32] += 60
    gate = ChangeGate(T, max_age=4)
    gate.store("a", np.clip(before, 0, 255).astype(np.uint8), "result", frame=0)
    got = gate.lookup("a", np.clip(now, 0, 255).astype(np.uint8), 1)
    assert (got == "result") == same


def test_cleared_gate_gives_nothing():
    gate = ChangeGate(T, max_age=4)
    gate.store("a", region(0), "result", frame=0)
    gate.clear()
    assert gate.lookup("a", region(0), 1) is None


@pytest.mark.parametrize(
    ("threshold", "delta", "same"),
    [
        (10.0, 20, True),  # exactly at twice the threshold: still quiet
        (10.0, 21, False),
        (10.25, 20, True),  # 20.5 rounds to 20, as cv2.inRange rounds its bound
        (10.25, 21, False),
        (10.3, 21, True),  # 20.6 rounds to 21
    ],
)
def test_change_counted_at_the_threshold_on_a_window_view(threshold, delta, same):
    frame = np.full((60, 60, 3), 100, np.uint8)
    gate = ChangeGate(threshold, max_age=4)
    gate.store("w", frame[10:50, 5:45], "result", frame=0)
    now = frame.copy()
    now[20:23, 20, 1] += delta  # three pixels, one channel
    assert (gate.lookup("w", now[10:50, 5:45], 1) == "result") == same
