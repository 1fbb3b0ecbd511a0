"""Frames brought to the background's light level (``vision/light_level.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.light_level import FLICKER_FRAMES, LightLevel

CLOTH = np.array((48, 128, 38), np.float64)


def scene(gain=(1.0, 1.0, 1.0), seed=0):
    """A background of cloth, its roi, and a frame of it under ``gain`` (per channel) with a
    red base on it and sensor noise."""
    rng = np.random.default_rng(seed)
    background = np.clip(CLOTH + rng.normal(0, 3.0, (120, 160, 3)), 0, 255).astype(np.uint8)
    roi = np.zeros((120, 160), bool)
    roi[10:110, 10:150] = True
    frame = background.astype(np.float64)
    frame[40:60, 40:60] = (40, 40, 200)
    frame = frame * np.asarray(gain) + rng.normal(0, 2.0, frame.shape)
    return background, roi, np.clip(np.rint(frame), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("gain", [(0.86, 0.86, 0.86), (1.12, 1.12, 1.12), (0.8, 0.9, 0.95)])
def test_a_flickered_frame_is_brought_back_to_the_backgrounds_level(gain):
    """A lamp flickering at twice the mains frequency, a frame caught darker or brighter than
    the ones before (or two lamps of different tints apart): the cloth comes back to within a
    grey level of the background, and the base on it is scaled with it."""
    background, roi, steady = scene()
    level = LightLevel(roi, background)
    assert level.level(steady, threshold_ch=10.0) is steady
    _, _, frame = scene(gain, seed=1)
    levelled = level.level(frame, threshold_ch=10.0)
    cloth = roi.copy()
    cloth[40:60, 40:60] = False
    off = levelled[cloth].astype(np.float64).mean(0) - background[cloth].mean(0)
    assert np.all(np.abs(off) < 1.0)
    base = levelled[45:55, 45:55].reshape(-1, 3).mean(0)
    assert np.allclose(base, (40, 40, 200), atol=4.0)
    before = frame[cloth].astype(np.float64).mean(0) - background[cloth].mean(0)
    assert np.abs(before).max() > 5.0  # it was off by more than the threshold's quarter


def test_frames_at_the_backgrounds_level_are_left_as_they_are():
    """Noise and a base on a steady light: nothing to scale, and nothing copied."""
    background, roi, _ = scene()
    level = LightLevel(roi, background)
    for seed in range(10):
        _, _, frame = scene(seed=seed)
        assert level.level(frame, threshold_ch=10.0) is frame


def test_a_light_changed_for_good_is_left_to_the_background():
    """A lamp switched on: the frames after are levelled while the change is fresh, then left
    as they are for the background to take the new light in; once it has, they are its level
    again."""
    background, roi, _ = scene()
    level = LightLevel(roi, background)
    for seed in range(3):
        _, _, frame = scene(seed=seed)
        level.level(frame, threshold_ch=10.0)
    scaled = []
    for seed in range(3, 20):
        _, _, frame = scene((1.1, 1.1, 1.1), seed=seed)
        scaled.append(level.level(frame, threshold_ch=10.0) is not frame)
    assert scaled[0] and not any(scaled[FLICKER_FRAMES:])
    level.renew(np.clip(np.rint(background * 1.1), 0, 255).astype(np.uint8))
    for seed in range(20, 25):
        _, _, frame = scene((1.1, 1.1, 1.1), seed=seed)
        assert level.level(frame, threshold_ch=10.0) is frame
