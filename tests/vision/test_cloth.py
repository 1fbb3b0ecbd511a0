"""The whole-cloth blob table kept up to date where the frame changed (``vision/cloth.py``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.blobs import BALL, ColourBlobs
from vision.cloth import ClothBlobs

CLOTH = (40, 130, 130)
T_CH = 30.0  # the foreground's per-channel threshold


def table_of(ball_bgr):
    """A cloth, its blob search for a ball of ``ball_bgr`` and the blob table over it."""
    background = np.full((240, 320, 3), CLOTH, np.uint8)
    colours = ColourBlobs(
        np.array(ball_bgr),
        np.array([(200, 40, 40), (40, 40, 200)]),
        T_CH * np.sqrt(3.0),
        (0.3, 1.4),
    )

    def search(image, bg, roi, origin, step):
        return colours.find(image, bg, roi, lambda xy: np.ones(len(xy)), origin, step)

    roi = np.full(background.shape[:2], 255, np.uint8)
    cloth = ClothBlobs(
        search, background, roi, step=2, blob_radius_px=20.0, threshold=T_CH, max_age=60
    )
    return background, cloth


def with_ball(background, xy, bgr, seed):
    image = background.copy()
    cv2.circle(image, center=xy, radius=8, color=bgr, thickness=-1)
    noise = np.random.default_rng(seed).normal(0.0, 3.0, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def balls_at(table):
    return table.centre_px[table.cls == BALL]


@pytest.mark.parametrize(
    ("contrast", "why"),
    [(45, "foreground, less than twice the threshold"), (90, "more than twice the threshold")],
)
def test_a_ball_that_moves_is_found_where_it_went_whatever_its_contrast(contrast, why):
    """A ball that differs from the cloth by more than the foreground threshold is a blob;
    moved, the table shows it where it went and no longer where it was, however little more
    than the threshold it differs (a dark ball on a cloth whose texture set a high one)."""
    bgr = tuple(max(c - contrast, 0) for c in CLOTH)
    background, cloth = table_of(bgr)
    table, _ = cloth.update(with_ball(background, (100, 120), bgr, 0), 0)
    assert np.hypot(*(balls_at(table) - (100, 120)).T).min() < 2.0
    table, changed = cloth.update(with_ball(background, (140, 130), bgr, 1), 1)
    assert changed, why
    d_new = np.hypot(*(balls_at(table) - (140, 130)).T)
    d_old = np.hypot(*(balls_at(table) - (100, 120)).T)
    assert d_new.min() < 2.0 and d_old.min() > 10.0


def test_noise_alone_renews_nothing():
    """Sensor noise between two frames of a still scene (a tenth of the threshold) changes
    no blob: the table is handed back as it was."""
    bgr = tuple(c - 45 for c in CLOTH)
    background, cloth = table_of(bgr)
    cloth.update(with_ball(background, (100, 120), bgr, 0), 0)
    for k in range(1, 6):
        _, changed = cloth.update(with_ball(background, (100, 120), bgr, k), k)
        assert not changed


def test_a_flickering_lamp_renews_nothing_and_a_ball_moved_under_it_is_found():
    """A frame caught at a darker phase of a flickering lamp (three tenths darker: more than
    the foreground threshold off the background all over the cloth) shows nothing new on the
    table: no blob is searched again. A ball that moves in such a frame is found where it
    went."""
    bgr = tuple(c - 45 for c in CLOTH)
    background, cloth = table_of(bgr)
    cloth.update(with_ball(background, (100, 120), bgr, 0), 0)
    passes = cloth.full_passes
    dark = (with_ball(background, (100, 120), bgr, 1) * 0.7).astype(np.uint8)
    _, changed = cloth.update(dark, 1)
    assert not changed
    assert cloth.full_passes == passes
    moved = (with_ball(background, (150, 100), bgr, 2) * 0.7).astype(np.uint8)
    table, changed = cloth.update(moved, 2)
    assert changed
    assert np.hypot(*(balls_at(table) - (150, 100)).T).min() < 2.0


@pytest.mark.parametrize("gains", [(0.7, 0.7, 0.7), (0.8, 0.7, 0.75), (1.25, 1.3, 1.2)])
def test_a_whole_pass_at_a_phase_of_a_flickering_lamp_finds_what_the_cloth_holds(gains):
    """The whole cloth three tenths darker (or a quarter brighter, lamps of two tints apart)
    differs from the background by more than the foreground threshold everywhere: searched as
    it is, it read as a hundred and more ball-coloured specks of a dark ball's colour. In the
    background's light the pass finds the ball alone."""
    bgr = tuple(c - 45 for c in CLOTH)
    background, cloth = table_of(bgr)
    frame = with_ball(background, (100, 120), bgr, 1) * np.array(gains)
    table, _ = cloth.update(np.clip(frame, 0, 255).astype(np.uint8), 0)
    assert len(table.cls) == 1
    assert np.hypot(*(balls_at(table) - (100, 120)).T).min() < 2.0
