"""Camera presets: fields of view, mounting heights, pixel footprints and blur, and the lock."""

from __future__ import annotations

import math

import pytest

from calibration.tables import load_pitch
from hardware.camera_presets import (
    PRESETS,
    blur_speed_mm_s,
    lock_exposure,
    mm_per_px,
    mounting_height_mm,
    preset,
)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("table", ["fistf", "subbuteo-classic"])
def test_the_whole_cloth_is_in_view_at_the_mounting_height_and_no_lower(name, table):
    camera = preset(name)
    mode = camera.mode()
    half_l, half_w = load_pitch(table).cloth_half_extent_mm
    view = (2 * half_l, 2 * half_w)
    h = mounting_height_mm(camera, mode, view)
    footprint = [2 * h * math.tan(math.radians(a) / 2) for a in camera.fov_deg(mode)]
    assert footprint[0] >= view[0] - 1e-6 and footprint[1] >= view[1] - 1e-6
    assert min(f - v for f, v in zip(footprint, view, strict=True)) == pytest.approx(0, abs=1e-6)
    assert mm_per_px(camera, mode, h) * mode.size_px[0] == pytest.approx(footprint[0])


def test_a_cropped_mode_sees_less_and_needs_more_height():
    cm3 = preset("cm3")
    full, crop = cm3.mode((2304, 1296)), cm3.mode((1536, 864))
    assert cm3.fov_deg(full)[0] == pytest.approx(68.5, abs=0.2)  # 6.45 mm across, f 4.74 mm
    view = (1400.0, 950.0)
    # The 1536x864 mode bins the middle 3072x1728 pixels: 2/3 of the view, 3/2 the height.
    assert mounting_height_mm(cm3, crop, view) == pytest.approx(
        1.5 * mounting_height_mm(cm3, full, view)
    )


@pytest.mark.parametrize(
    ("exposure_us", "mm_px", "speed_mm_s"), [(10000, 0.7, 70.0), (1000, 0.7, 700.0)]
)
def test_blur_speed(exposure_us, mm_px, speed_mm_s):
    assert blur_speed_mm_s(exposure_us, mm_px) == pytest.approx(speed_mm_s)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 2.0, 50, 17858), "must be > 0"),
        ((8000, 2.0, 50, 9000), "shorter than the 10000 us flicker period of 50 Hz"),
        ((8000, 2.0, 55, 17858), "mains frequency must be 50 or 60 Hz"),
    ],
)
def test_lock_refuses_what_cannot_be_locked(args, message):
    metered_us, gain, mains_hz, frame_us = args
    with pytest.raises(ValueError, match=message):
        lock_exposure(metered_us, gain, mains_hz=mains_hz, frame_us=frame_us, max_gain=16.0)


def test_a_rolling_shutter_reads_a_mode_out_in_its_fastest_frame_period():
    """The Global Shutter camera exposes every row at once; the others row by row, a frame in
    about the period of their mode's highest rate (``tracking/shutter.py``)."""
    gs, cm3 = preset("gs"), preset("cm3")
    assert gs.readout_s(gs.mode()) == 0.0
    for mode in cm3.modes:
        assert cm3.readout_s(mode) == pytest.approx(1.0 / mode.max_fps)
