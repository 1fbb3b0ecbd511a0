"""Dating the stop of a roll from its last measurements (``tracking/stop_dating.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.stop_dating import date_stop


def along(d_mm) -> np.ndarray:
    """Points (n, 2) the distances ``d_mm (n,)`` short of a rest point, along one roll."""
    u = np.array([np.cos(0.7), np.sin(0.7)])
    return np.array([120.0, -40.0]) - np.outer(d_mm, u)


def roll_end(t_stop_s: float, decel_mm_s2: float, fps: float, n: int):
    """Frames, times and positions of a ball decelerating to a stop at ``t_stop_s``."""
    frames = np.arange(n)
    t = frames / fps
    d = 0.5 * decel_mm_s2 * np.clip(t_stop_s - t, 0.0, None) ** 2
    return frames, t, along(d)


@pytest.mark.parametrize("phase", [0.1, 0.5, 0.9])
def test_a_constant_deceleration_stop_is_dated_between_frames(phase):
    fps = 30.0
    t_stop = (20 + phase) / fps
    frames, t, d = roll_end(t_stop, 400.0, fps, 30)
    since, since_s = date_stop(frames, t, d, 0.15)
    assert since == 21  # the first frame at or after the stop
    assert since_s == pytest.approx(t_stop, abs=1e-6)


def test_a_ball_still_creeping_is_not_at_rest_yet():
    frames, t, d = roll_end(0.5, 400.0, 30.0, 14)  # the last frame is at 0.433 s
    assert date_stop(frames, t, d, 0.15) is None


def test_a_ball_stopped_dead_is_dated_where_its_roll_meets_its_rest():
    """Stopped by a base at frame 3.5: no deceleration to fit, the roll at a steady speed
    meets the rest point between frames 3 and 4."""
    frames = np.arange(8)
    d = along([35.0, 25.0, 15.0, 5.0, 0.0, 0.0, 0.0, 0.0])
    since, since_s = date_stop(frames, frames / 30.0, d, 0.15)
    assert since == 4
    assert since_s == pytest.approx(3.5 / 30.0, abs=1e-6)


def test_a_stop_dated_through_noisy_fits_is_unbiased():
    """Fits 0.5 mm apart from frame to frame over the roll's slow end: the stop is dated
    within a frame, and on average within a tenth of one (it was dated 1-3 frames late from
    the distance to the last fit alone)."""
    rng = np.random.default_rng(3)
    errors = []
    for _ in range(40):
        fps, decel = rng.choice([30.0, 60.0, 120.0]), rng.uniform(200.0, 1500.0)
        t_stop = (40 + rng.uniform()) / fps
        frames, t, xy = roll_end(t_stop, decel, fps, 40 + int(0.1 * fps))
        noisy = xy + rng.normal(0.0, 0.5, xy.shape)
        dated = date_stop(frames, t, noisy, 0.3)
        assert dated is not None and dated[1] is not None
        errors.append((dated[1] - t_stop) * fps)
    assert abs(np.mean(errors)) < 0.1
    assert np.max(np.abs(errors)) < 1.0


def test_a_stop_hidden_from_view_is_dated_by_the_fit_not_by_the_next_frame_seen():
    """A figure beside the ball hides it for frames 21-25 as it stops at frame 20.5: those
    frames were at rest; the first frame at rest is 21, not 26, the first seen again."""
    fps = 60.0
    t_stop = 20.5 / fps
    frames, t, d = roll_end(t_stop, 1000.0, fps, 30)
    seen = (frames < 21) | (frames > 25)
    since, since_s = date_stop(frames[seen], t[seen], d[seen], 0.15, frames, t)
    assert since == 21
    assert since_s == pytest.approx(t_stop, abs=1e-6)
    # Without the frames between, only the measured ones can hold the stop.
    assert date_stop(frames[seen], t[seen], d[seen], 0.15)[0] == 26
