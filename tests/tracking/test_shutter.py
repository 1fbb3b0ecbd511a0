"""A rolling shutter's rows in time (``tracking/shutter.py``) and the ball track through it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tracking.ball import BallTracker, BallTrackerConfig
from tracking.shutter import RollingShutter
from vision.detections import Detections

ROWS, FPS = 720, 60.0


def test_a_row_is_seen_its_share_of_the_readout_after_the_middle_row():
    shutter = RollingShutter.of(0.015, FPS, ROWS)
    assert shutter.delay_s(0.0) == pytest.approx((-0.0075, 0.00075))
    assert shutter.delay_s((ROWS - 1) / 2) == (0.0, 0.0)
    assert shutter.delay_s(ROWS - 1) == pytest.approx((0.0075, 0.00075))
    assert RollingShutter.of(0.0, FPS, ROWS).delay_s(0.0) == (-0.0, 0.0)  # a global shutter


def test_an_unknown_readout_is_anything_up_to_the_frame_period():
    shutter = RollingShutter.of(None, FPS, ROWS)
    period = 1.0 / FPS
    assert shutter.readout_s == pytest.approx(period / 2)
    assert shutter.readout_sigma_s == pytest.approx(period / math.sqrt(12))


@pytest.mark.parametrize("readout_s", [-0.001, 0.02])
def test_a_readout_that_cannot_be_is_refused_saying_why(readout_s):
    with pytest.raises(ValueError, match="0 for a global shutter"):
        RollingShutter.of(readout_s, FPS, ROWS)


def _rolled_through_a_shutter(config: BallTrackerConfig, readout_s: float, row: float):
    """A ball rolling at 800 mm/s seen on ``row`` of frames read out over ``readout_s``: per
    frame after the first 15, the track's error at the frame's time and its sigma."""
    v = np.array([800.0, 0.0])
    delay = (row / (ROWS - 1) - 0.5) * readout_s
    tracker = BallTracker(config)
    rng = np.random.default_rng(4)
    err, sigma = [], []
    for i in range(40):
        t = i / FPS
        at = np.array([-300.0, 50.0]) + v * max(t - 0.1, 0.0)  # struck at 0.1 s
        seen = at + v * (delay if t > 0.1 else 0.0) + rng.normal(0, 0.1, 2)
        det = Detections.build(ball_xy_mm=[seen], ball_xy_px=[[640.0, row]])
        track = tracker.update(det, t)
        if i >= 15:
            assert track.moving
            err.append(float(np.hypot(*(track.xy_mm - at))))
            sigma.append(track.sigma_mm)
    return np.array(err), np.array(sigma)


def test_a_rolling_ball_is_placed_where_it_was_at_the_frames_time():
    """Near the top of frames read out over 15 ms a ball is seen 5.4 ms early: 4.3 mm back
    along an 800 mm/s roll. Told the shutter, the track places it at the frame's time; not
    told, it is 4 mm off; with the readout not known, the doubt covers the error."""
    readout_s, row = 0.015, 100.0
    rows = dict(rows=ROWS)
    known = BallTrackerConfig(shutter=RollingShutter(readout_s, 0.0, **rows))
    err, _ = _rolled_through_a_shutter(known, readout_s, row)
    assert err.max() < 0.5
    err, _ = _rolled_through_a_shutter(BallTrackerConfig(), readout_s, row)
    assert err.min() > 3.5
    unknown = BallTrackerConfig(shutter=RollingShutter.of(None, FPS, ROWS))
    err, sigma = _rolled_through_a_shutter(unknown, readout_s, row)
    assert np.all(err <= 2.0 * sigma)


@pytest.mark.parametrize("readout_s", [0.0, 1.0 / FPS])
@pytest.mark.parametrize("row", [0.0, ROWS - 1.0])
def test_an_unknown_readout_at_either_end_of_its_range_stays_within_the_doubt(readout_s, row):
    """A global shutter, or one read out over the whole frame period, taken as unknown: every
    frame of the roll is moved alike by the same wrong guess, so the filter's averaging does
    not shrink that doubt, and the stated sigma still covers the error frame after frame."""
    unknown = BallTrackerConfig(shutter=RollingShutter.of(None, FPS, ROWS))
    err, sigma = _rolled_through_a_shutter(unknown, readout_s, row)
    assert err.max() > 1.5  # the guess is off
    assert np.all(err <= 2.0 * sigma)


def test_a_ball_found_rolling_hands_over_its_sightings_at_their_frames_times():
    """A clip opening on a rolling ball: the sightings before it was taken up are handed over
    (``BallTrack.rolled_mm``) carried back along the roll like every later measurement."""
    readout_s, row, v = 0.015, 100.0, np.array([800.0, 0.0])
    tracker = BallTracker(BallTrackerConfig(shutter=RollingShutter(readout_s, 0.0, ROWS)))
    delay = (row / (ROWS - 1) - 0.5) * readout_s
    truth = [np.array([-300.0, 50.0]) + v * i / FPS for i in range(5)]
    tracks = [
        tracker.update(
            Detections.build(ball_xy_mm=[p + v * delay], ball_xy_px=[[640, row]]), i / FPS
        )
        for i, p in enumerate(truth)
    ]
    rolled = next(t.rolled_mm for t in tracks if t.rolled_mm is not None)
    frames = rolled[:, 0].astype(int)
    assert frames[0] == 0 and np.abs(rolled[:, 1:3] - np.array(truth)[frames]).max() < 0.2
