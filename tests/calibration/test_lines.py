"""Line finding on small synthetic pictures: cloth, ridges, sub-pixel edges on profiles."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from scipy.special import erf

from calibration import lines
from calibration.calibration_file import CalibrationError

CLOTH, PAINT = 40.0, 220.0


def _band_image(lo: float, hi: float, width: int = 80, height: int = 40) -> np.ndarray:
    """A vertical paint band covering x in [lo, hi] (pixel edges), area anti-aliased."""
    x = np.arange(width)
    cover = np.clip(np.minimum(x + 0.5, hi) - np.maximum(x - 0.5, lo), 0.0, 1.0)
    row = CLOTH + (PAINT - CLOTH) * cover
    return np.tile(row, (height, 1)).astype(np.float32)


@pytest.mark.parametrize(("lo", "hi"), [(30.2, 32.9), (30.5, 33.5), (31.0, 35.4), (29.75, 32.25)])
def test_edges_found_to_a_fraction_of_a_pixel(lo, hi):
    white = _band_image(lo, hi)
    centre = np.array([[35.0, 20.0], [33.0, 10.0]])
    normal = np.array([[1.0, 0.0], [1.0, 0.0]])
    prof = lines.measure_profiles(white, centre, normal, 6.0, np.full(2, hi - lo))
    assert prof.valid.all()
    # The centre is exact; the edges of lines under ~3 px wide come out up to ~0.15 px wide
    # (their derivative peaks repel; 0.143 px with OpenCV 5, 0.151 px with 4.6 at 2.7 px),
    # which is why the camera is fitted to centres.
    np.testing.assert_allclose(centre[:, 0] + prof.centre_px, 0.5 * (lo + hi), atol=0.03)
    np.testing.assert_allclose(centre[:, 0] + prof.lo_px, lo, atol=0.2)
    np.testing.assert_allclose(centre[:, 0] + prof.hi_px, hi, atol=0.2)
    np.testing.assert_allclose(prof.contrast, PAINT - CLOTH, rtol=0.35)


@pytest.mark.parametrize(
    ("what", "lo", "hi"),
    [("a figure's white base, far wider than a line", 25.0, 50.0), ("nothing", 0.0, 0.0)],
)
def test_profiles_without_a_thin_line_are_invalid(what, lo, hi):
    white = _band_image(lo, hi) if hi > lo else np.full((40, 80), CLOTH, np.float32)
    white += np.random.default_rng(0).normal(0, 1.0, white.shape).astype(np.float32)
    prof = lines.measure_profiles(
        white, np.array([[37.0, 20.0]]), np.array([[1.0, 0.0]]), 6.0, np.array([3.0])
    )
    assert not prof.valid[0], what


def test_no_profiles_to_read_reads_none():
    """A first camera far off puts every model line outside the picture: there is nothing to
    measure (calibration then says how few pieces of line it found), not an OpenCV error."""
    white = np.full((40, 80), CLOTH, np.float32)
    prof = lines.measure_profiles(white, np.zeros((0, 2)), np.zeros((0, 2)), 6.0, np.zeros(0))
    assert prof.lo_px.shape == prof.valid.shape == (0,)


def _picture(floor_bgr, cloth_bgr=(45, 125, 50)) -> np.ndarray:
    img = np.zeros((240, 320, 3), np.uint8)
    img[:] = floor_bgr
    img[60:180, 80:240] = cloth_bgr
    img[60:180, 158:161] = (230, 230, 230)  # a line
    return img


def test_cloth_is_the_green_in_the_middle_not_a_bigger_greenish_floor():
    cloth = lines.find_cloth(_picture(floor_bgr=(70, 110, 80)))
    assert cloth.mask[120, 160] and cloth.mask[100, 100]
    assert not cloth.mask[20, 20]
    np.testing.assert_allclose(cloth.colour_bgr, (45, 125, 50), atol=3)
    assert cloth.paint_weights[1] < cloth.paint_weights[0]  # green says little about paint


# Cloths are dyed in many shades, and light and white balance shift them further: none is
# assumed. (Each was "no green cloth" when the cloth had to have a green hue.)
DYES = [
    ("olive", (33, 115, 105)),
    ("yellow-olive", (40, 130, 135)),
    ("teal", (110, 130, 30)),
    ("blue", (150, 90, 30)),
    ("grey-green", (95, 115, 95)),
    ("grey-teal under warm light", (96, 113, 93)),
    ("grey-blue", (155, 148, 125)),
]


@pytest.mark.parametrize(("what", "cloth_bgr"), DYES)
def test_cloth_of_any_dye_is_found(what, cloth_bgr):
    cloth = lines.find_cloth(_picture(floor_bgr=(80, 86, 92), cloth_bgr=cloth_bgr))
    assert cloth.mask[70:170, 90:150].all() and cloth.mask[70:170, 170:230].all(), what
    assert not cloth.mask[20, 20] and not cloth.mask[220, 300], what
    np.testing.assert_allclose(cloth.colour_bgr, cloth_bgr, atol=3)


def test_the_cloth_is_the_colour_at_the_centre_not_the_most_common():
    """A blue cloth on a green carpet covering most of the picture: the camera looks at the
    table, so the cloth is what fills the centre."""
    img = np.zeros((240, 320, 3), np.uint8)
    img[:] = (40, 120, 50)
    img[60:180, 70:250] = (150, 90, 30)
    img[60:180, 158:161] = (230, 230, 230)
    cloth = lines.find_cloth(img)
    assert cloth.mask[70:170, 80:240].all() and not cloth.mask[20, 20]
    np.testing.assert_allclose(cloth.colour_bgr, (150, 90, 30), atol=3)


def test_cloth_in_uneven_light_is_one_cloth():
    """Light falling off across the table makes the far half of the cloth darker, and in Lab
    a darker green is also less saturated: a chroma cluster of its own, of the same hue. It is
    still cloth (a greenish floor of another hue is not)."""
    rng = np.random.default_rng(4)
    img = _picture(floor_bgr=(94, 97, 67)).astype(np.float64)
    img[120:180, 80:240] *= 0.55  # the far half of the cloth in half the light
    img += rng.normal(0.0, 2.0, img.shape)
    cloth = lines.find_cloth(np.clip(img, 0, 255).astype(np.uint8))
    assert cloth.mask[70:170, 90:150].all() and cloth.mask[70:170, 170:230].all()
    assert not cloth.mask[20, 20] and not cloth.mask[220, 300]


@pytest.mark.parametrize(("side_px", "found"), [(90, True), (50, False)])
def test_a_table_far_below_the_camera_is_still_the_cloth(side_px, found):
    """A camera mounted high shows the table in a tenth of the picture (here a turned square
    of 90 px in 320 x 240): still the cloth. One of 50 px (3 %) is no table in view."""
    img = np.full((240, 320, 3), (90, 92, 95), np.uint8)
    corners = cv2.boxPoints(((160.0, 120.0), (side_px, side_px), 30.0))
    cv2.fillConvexPoly(img, np.rint(corners).astype(np.int32), (45, 125, 50))
    if found:
        cloth = lines.find_cloth(img)
        assert cloth.mask[120, 160] and not cloth.mask[10, 10]
        assert cloth.mask.mean() == pytest.approx(side_px**2 / img[..., 0].size, rel=0.15)
    else:
        with pytest.raises(CalibrationError, match="the cloth covers only"):
            lines.find_cloth(img)


@pytest.mark.parametrize(
    ("picture", "message"),
    [
        (np.full((240, 320, 3), 12, np.uint8), "too dark"),
        (np.full((240, 320, 3), (120, 120, 120), np.uint8), "no coloured cloth"),
        (np.full((240, 320, 3), (4, 4, 4), np.uint8), "too dark"),
    ],
)
def test_no_cloth_is_a_clear_error(picture, message):
    with pytest.raises(CalibrationError, match=message):
        lines.find_cloth(picture)


def test_ridges_keep_thin_lines_and_drop_wide_blobs():
    white = np.full((200, 300), CLOTH, np.float32)
    white[:, 100:103] = PAINT  # a line
    white[50:90, 200:240] = PAINT  # a white figure
    mask = np.ones(white.shape, bool)
    ridges = lines.ridge_mask(white, mask, kernel_px=9)
    assert ridges[100, 101]
    assert not ridges[70, 220]


def test_faint_lines_on_a_grainy_cloth_are_found_and_the_grain_is_not():
    # A pale cloth's grain, speckle by speckle as bright as a faint line's paint: the lines
    # stand out only averaged along themselves (the per-pixel threshold found a quarter of them).
    rng = np.random.default_rng(3)
    grain = cv2.GaussianBlur(rng.normal(0.0, 1.0, (240, 320)).astype(np.float32), (0, 0), 1.0)
    rows, cols = np.mgrid[0:240, 0:320]
    sloping = 40 + 0.4 * cols
    across = np.cos(np.arctan(0.4))
    paint = np.clip(1.5 - np.abs(cols - 150.3), 0, 1)  # a vertical line about 2 px wide
    paint = np.maximum(paint, np.clip(1.5 - np.abs(rows - sloping) * across, 0, 1))
    white = (160.0 + 6.0 * grain / grain.std() + 18.0 * paint).astype(np.float32)
    ridges = lines.ridge_mask(white, np.ones(white.shape, bool), kernel_px=9)
    on_vertical = ridges[20:220, 148:153].any(axis=1).mean()
    on_sloping = np.mean(
        [ridges[int(sloping[0, c]) - 2 : int(sloping[0, c]) + 3, c].any() for c in range(20, 300)]
    )
    assert on_vertical > 0.75 and on_sloping > 0.75
    off_lines = (np.abs(cols - 150) > 4) & (np.abs(rows - sloping) > 4)
    assert ridges[off_lines].mean() < 0.001


def _blurred_band(lo: float, hi: float, sigma: float, rows: int = 24) -> np.ndarray:
    """Vertical paint band [lo, hi] blurred by a Gaussian of ``sigma`` px, on a gentle ramp."""
    x = np.arange(80.0)
    k = 1.0 / (np.sqrt(2.0) * sigma)
    row = CLOTH + 0.2 * (x - 40) + (PAINT - CLOTH) * 0.5 * (erf((x - lo) * k) - erf((x - hi) * k))
    noise = np.random.default_rng(1).normal(0.0, 1.5, (rows, len(x)))
    return (np.tile(row, (rows, 1)) + noise).astype(np.float32)


@pytest.mark.parametrize(
    ("width", "sigma"), [(2.0, 0.6), (2.4, 0.8), (2.8, 0.7), (3.0, 0.5), (5.0, 0.9)]
)
def test_the_blurred_bar_fit_measures_narrow_lines_true_to_width(width, sigma):
    # The derivative's extremes repel on a line narrower than about four blur sigmas: a
    # 2.4 px line under a 0.8 px blur read 0.25 px too wide; the bar fit reads it true.
    lo = 36.3
    white = _blurred_band(lo, lo + width, sigma)
    centre = np.stack([np.full(10, 37.0), np.arange(10) * 2.0 + 2.0], axis=1)
    normal = np.tile([1.0, 0.0], (10, 1))
    prof = lines.measure_profiles(white, centre, normal, 6.0, np.full(10, width), fit_bar=True)
    assert prof.valid.all()
    assert np.mean(prof.hi_px - prof.lo_px) == pytest.approx(width, abs=0.1)
    np.testing.assert_allclose(37.0 + prof.lo_px, lo, atol=0.1)
    np.testing.assert_allclose(37.0 + prof.hi_px, lo + width, atol=0.1)
