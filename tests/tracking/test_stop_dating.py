"""Dating the stop of a roll from its last measurements (``tracking/stop_dating.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.stop_dating import date_stop


def roll_end(t_stop_s: float, decel_mm_s2: float, fps: float, n: int):
    """Frames, times and distances still to go of a ball decelerating to a stop at ``t_stop_s``."""
    frames = np.arange(n)
    t = frames / fps
    d = 0.5 * decel_mm_s2 * np.clip(t_stop_s - t, 0.0, None) ** 2
    return frames, t, d


@pytest.mark.parametrize("phase", [0.1, 0.5, 0.9])
def test_a_constant_deceleration_stop_is_dated_between_frames(phase):
    fps = 30.0
    t_stop = (20 + phase) / fps
    frames, t, d = roll_end(t_stop, 400.0, fps, 30)
    since, since_s = date_stop(frames, t, d, 0.15)
    assert since == 21  # the first frame at or after the stop
    assert since_s == pytest.approx(t_stop, abs=1e-9)


def test_a_ball_still_creeping_is_not_at_rest_yet():
    frames, t, d = roll_end(0.5, 400.0, 30.0, 14)  # the last frame is at 0.433 s
    d = d - d[-1]  # measured from the last point, which is not the stop
    assert date_stop(frames, t, d, 0.15) is None


def test_a_ball_stopped_dead_is_at_rest_from_its_first_frame_there():
    """Stopped by a base: no deceleration to fit, the first frame at the final point."""
    frames = np.arange(8)
    d = np.array([40.0, 30.0, 20.0, 10.0, 0.05, 0.0, 0.0, 0.0])
    assert date_stop(frames, frames / 30.0, d, 0.15) == (4, None)


def test_a_stop_hidden_from_view_is_dated_by_the_fit_not_by_the_next_frame_seen():
    """A figure beside the ball hides it for frames 21-25 as it stops at frame 20.5: those
    frames were at rest; the first frame at rest is 21, not 26, the first seen again."""
    fps = 60.0
    t_stop = 20.5 / fps
    frames, t, d = roll_end(t_stop, 1000.0, fps, 30)
    seen = (frames < 21) | (frames > 25)
    since, since_s = date_stop(frames[seen], t[seen], d[seen], 0.15, frames, t)
    assert since == 21
    assert since_s == pytest.approx(t_stop, abs=1e-9)
    # Without the frames between, only the measured ones can hold the stop.
    assert date_stop(frames[seen], t[seen], d[seen], 0.15)[0] == 26
