"""The Pi camera's helpers, which can be checked off the Pi: timestamps and colour conversion."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.picamera_source import sensor_timestamp_ns, to_bgr
from hardware.sources import SourceError


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"SensorTimestamp": 1_234_567_890_123, "ExposureTime": 10000}, 1_234_567_890_123),
        ({"SensorTimestamp": np.int64(42)}, 42),
        ({"SensorTimestamp": 0}, 0),
    ],
)
def test_sensor_timestamp_ns(metadata, expected):
    t_ns = sensor_timestamp_ns(metadata)
    assert t_ns == expected
    assert type(t_ns) is int


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"SensorTimestamp": None},
        {"SensorTimestamp": 1.5},
        {"SensorTimestamp": -1},
        {"SensorTimestamp": True},
    ],
)
def test_sensor_timestamp_missing_or_bad(metadata):
    with pytest.raises(SourceError, match="no SensorTimestamp"):
        sensor_timestamp_ns(metadata)


def _colour_card(w: int, h: int) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 3] = (200, 40, 30)  # blue
    img[:, w // 3 : 2 * w // 3] = (40, 160, 40)  # green
    img[:, 2 * w // 3 :] = (30, 30, 220)  # red
    return img


@pytest.mark.parametrize("stride", [48, 64])
def test_yuv420_with_stride_padding_converts_to_bgr(stride):
    w, h = 48, 16
    bgr = _colour_card(w, h)
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)  # (h * 3 / 2, w): Y, then U, then V
    y, u, v = i420[:h], i420[h : h + h // 4].reshape(h // 2, w // 2), i420[h + h // 4 :]
    v = v.reshape(h // 2, w // 2)
    # Lay the planes out as libcamera does: every row padded to the stride.
    padded_y = np.zeros((h, stride), np.uint8)
    padded_y[:, :w] = y
    padded_uv = np.zeros((2, h // 2, stride // 2), np.uint8)
    padded_uv[0, :, : w // 2], padded_uv[1, :, : w // 2] = u, v
    buffer = np.concatenate([padded_y.ravel(), padded_uv.ravel()]).reshape(h * 3 // 2, stride)
    out = to_bgr(buffer, "YUV420", (w, h))
    assert out.shape == (h, w, 3)
    assert np.abs(out.astype(int) - bgr).max() <= 4


def test_rgb888_is_already_bgr_and_bad_formats_are_refused():
    img = _colour_card(12, 6)
    assert to_bgr(img, "RGB888", (12, 6)) is img
    with pytest.raises(SourceError, match="unsupported main stream format 'XRGB8888'"):
        to_bgr(img, "XRGB8888", (12, 6))
    with pytest.raises(SourceError, match="does not fit"):
        to_bgr(np.zeros((10, 12), np.uint8), "YUV420", (12, 6))
