"""The Pi camera off the Pi: timestamps, colour conversion, and the controls that lock it,
set on a picamera2 stand-in that records them."""

from __future__ import annotations

import sys

import cv2
import numpy as np
import pytest

from calibration.calibration_file import CameraControls
from hardware.frame_pool import FramePool
from hardware.picamera_source import (
    AE_FLICKER_MANUAL,
    AF_MODE_CONTINUOUS,
    AF_MODE_MANUAL,
    PiCameraSource,
    picamera2_controls,
    sensor_timestamp_ns,
    to_bgr,
)
from hardware.sources import SourceError
from tests.hardware import picamera2_standin


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
    out = to_bgr(buffer, "YUV420", (w, h), FramePool())
    assert out.shape == (h, w, 3)
    assert np.abs(out.astype(int) - bgr).max() <= 4


def test_rgb888_is_already_bgr_and_copied_and_bad_formats_are_refused():
    img = _colour_card(12, 6)
    out = to_bgr(img, "RGB888", (12, 6), FramePool())
    assert np.array_equal(out, img) and not np.shares_memory(out, img)
    with pytest.raises(SourceError, match="unsupported main stream format 'XRGB8888'"):
        to_bgr(img, "XRGB8888", (12, 6), FramePool())
    with pytest.raises(SourceError, match="does not fit"):
        to_bgr(np.zeros((10, 12), np.uint8), "YUV420", (12, 6), FramePool())


# ---------------------------------------------------------------- the camera locked for a match
def _open(monkeypatch, frames: int = 0, **kwargs):
    """A Pi source on the stand-in; returns (source, the stand-in camera, frames handed out)."""
    attrs = {k: kwargs.pop(k) for k in ("model", "metered", "latency") if k in kwargs}
    monkeypatch.setitem(sys.modules, "picamera2", picamera2_standin.module(**attrs))
    source = PiCameraSource(**kwargs)
    camera = source._camera
    it = source.frames()
    out = [next(it) for _ in range(frames)]
    return source, camera, out


def test_the_automatics_settle_then_the_camera_is_locked_before_a_frame_is_handed_out(monkeypatch):
    source, camera, frames = _open(monkeypatch, frames=3, mains_hz=50)
    auto = camera.configs[0]["controls"]
    assert camera.configs[0]["main"] == {"size": (2304, 1296), "format": "RGB888"}
    assert camera.configs[0]["sensor"] == {"output_size": (2304, 1296)}
    assert auto["AeEnable"] and auto["AwbEnable"] and auto["AfMode"] == AF_MODE_CONTINUOUS
    assert (auto["AeFlickerMode"], auto["AeFlickerPeriod"]) == (AE_FLICKER_MANUAL, 10000)
    assert auto["FrameDurationLimits"] == (17858, 17858)  # 56 fps, steady
    # Metered 8 ms x 2.0 -> one 10 ms half-period of 50 Hz mains x 1.6: the same brightness.
    assert camera.set == [
        {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": 10000,
            "AnalogueGain": pytest.approx(1.6),
            "ColourGains": (1.8, 1.5),
            "FrameDurationLimits": (17858, 17858),
            "AfMode": AF_MODE_MANUAL,
            "LensPosition": 1.25,
        }
    ]
    assert all(f.image_bgr.flat[0] == 255 for f in frames)  # every one taken locked
    # 1 s of settling, the lock's latency, and the frame that showed it was taken locked.
    assert camera.frame - 3 == 56 + camera.latency + 1
    assert source.controls == CameraControls(
        "imx708", (2304, 1296), 10000, 1.6, (1.8, 1.5), 1.25, 17858, 50
    )
    assert source.fps == pytest.approx(1e6 / 17858)


def test_frames_are_copied_out_into_buffers_used_again_once_let_go(monkeypatch):
    """Each frame is copied out before its buffer goes back to the camera (which fills it
    again); the copies' buffers come back once nothing holds the frame, so a match does not
    write a fresh 9 MB a frame, and a frame still held (a replay ring's) keeps its own."""
    saved = CameraControls("imx708", (1536, 864), 10000, 3.0, (2.0, 1.4), 0.8, 10000, 50)
    source, _, _ = _open(monkeypatch, controls=saved)
    it = source.frames()
    held = next(it)
    kept = held.image_bgr.ctypes.data
    seen = set()
    for _ in range(10):
        frame = next(it)
        assert frame.image_bgr.flat[0] == 255  # its own copy, not the refilled buffer
        seen.add(frame.image_bgr.ctypes.data)
        del frame
    assert kept not in seen
    assert len(seen) <= 2  # the frame let go, and the one the source hands out meanwhile
    assert held.image_bgr.flat[0] == 255


@pytest.mark.parametrize(
    ("mains_hz", "fps", "metered", "exposure_us", "gain"),
    [
        (60, 56, (8000, 2.0), 8333, 16000 / 8333),  # one 8.3 ms half-period of 60 Hz
        (50, 30, (30000, 8.0), 20000, 12.0),  # a dark room: two half-periods, within a frame
        (50, 56, (30000, 8.0), 10000, 16.0),  # ... only one fits a 56 fps frame: darker
        (0, 56, (8000, 2.0), 2000, 8.0),  # no flicker: short, the gain makes up
        (0, 56, (60000, 4.0), 15000, 16.0),  # too dark for 2 ms at the highest gain
    ],
)
def test_locked_exposure_keeps_the_brightness(
    monkeypatch, mains_hz, fps, metered, exposure_us, gain
):
    kwargs = {"mains_hz": mains_hz, "metered": metered, "fps": fps}
    _, camera, _ = _open(monkeypatch, frames=1, **kwargs)
    locked = camera.set[-1]
    assert locked["ExposureTime"] == exposure_us
    assert locked["AnalogueGain"] == pytest.approx(gain, rel=1e-6)
    assert "AeFlickerMode" not in camera.configs[0]["controls"] or mains_hz
    if mains_hz:
        assert exposure_us % round(1e6 / (2 * mains_hz)) <= 1  # whole half-periods


def test_saved_controls_start_the_camera_locked_with_no_frame_lost(monkeypatch):
    saved = CameraControls("imx708", (1536, 864), 10000, 3.0, (2.0, 1.4), 0.8, 10000, 50)
    source, camera, frames = _open(monkeypatch, frames=1, controls=saved, fmt="YUV420")
    assert camera.set == []  # nothing to settle or set: locked from the first frame
    assert camera.configs[0]["controls"] == picamera2_controls(saved, autofocus=True)
    assert camera.configs[0]["main"] == {"size": (1536, 864), "format": "YUV420"}
    assert (
        frames[0].index == 0 and camera.frame == 1 and frames[0].image_bgr.shape == (864, 1536, 3)
    )
    assert source.size_px == (1536, 864) and source.fps == 100.0 and source.lossy


def test_a_fixed_focus_camera_has_no_lens_to_lock(monkeypatch):
    source, camera, _ = _open(monkeypatch, frames=1, model="imx477", camera="hq", fps=30)
    assert "AfMode" not in camera.configs[0]["controls"]
    assert "AfMode" not in camera.set[-1] and "LensPosition" not in camera.set[-1]
    assert source.controls.lens_position is None and source.size_px == (2028, 1520)
    assert source.controls.frame_duration_us == 33334


def test_a_camera_without_a_preset_uses_its_own_sensor_modes(monkeypatch):
    source, _, _ = _open(monkeypatch, model="imx219", size_px=(1640, 1232))
    assert source.preset is None and source.fps == pytest.approx(41.85, abs=0.01)
    with pytest.raises(SourceError, match="imx219 camera has no 2304x1296 sensor mode"):
        _open(monkeypatch, model="imx219")


def test_the_camera_opens_with_its_own_tuning_and_a_straight_tone_curve(monkeypatch):
    _, camera, _ = _open(monkeypatch)
    find = picamera2_standin.Picamera2.find_tuning_algo
    contrast = find(camera.tuning, "rpi.contrast")
    assert contrast == {"ce_enable": 0, "gamma_curve": [0, 0, 65535, 65535]}
    # Nothing else of the sensor's tuning changes, nor the file it came from.
    own = picamera2_standin.TUNINGS["imx708"]
    assert find(own, "rpi.contrast")["gamma_curve"] != contrast["gamma_curve"]
    assert [a for a in camera.tuning["algorithms"] if "rpi.contrast" not in a] == [
        a for a in own["algorithms"] if "rpi.contrast" not in a
    ]


def test_a_tuning_without_a_tone_curve_is_used_as_it_is(monkeypatch):
    _, camera, _ = _open(monkeypatch, model="imx477", camera="hq", fps=30)
    assert camera.tuning == picamera2_standin.TUNINGS["imx477"]


def test_a_sensor_without_a_tuning_file_keeps_the_default_and_says_so(monkeypatch, caplog):
    _, camera, _ = _open(monkeypatch, model="imx219", size_px=(1640, 1232))
    assert camera.tuning is None
    assert "no tuning file imx219.json" in caplog.text and "default tone curve" in caplog.text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"camera": "hq"}, "the config names the HQ camera, but a Camera Module 3 is fitted"),
        ({"camera": "webcam"}, "unknown camera 'webcam'"),
        ({"size_px": (1920, 1080)}, "Camera Module 3 has no 1920x1080 mode"),
        ({"mains_hz": 55}, "mains frequency must be one of"),
        (
            {"controls": CameraControls("imx477", (2028, 1520), 1, 1.0, (1, 1), None, 25000, 0)},
            "saved camera settings are for imx477, this camera is imx708: calibrate again",
        ),
    ],
)
def test_what_the_camera_cannot_do_is_a_one_line_error(monkeypatch, kwargs, message):
    monkeypatch.setitem(sys.modules, "picamera2", picamera2_standin.module())
    with pytest.raises(SourceError, match=message):
        PiCameraSource(**kwargs)


def test_the_lock_survives_a_camera_that_never_reports_it(monkeypatch, caplog):
    _, camera, frames = _open(monkeypatch, frames=1, latency=100)
    assert len(camera.set) == 1 and frames  # frames still come: refereeing goes on
    assert "does not report the locked exposure" in caplog.text
