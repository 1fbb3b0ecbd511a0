"""``tablevar live --source pi``: the Pi camera opened again starts with the settings it locked."""

from __future__ import annotations

import sys

from calibration.calibration_file import CameraControls
from tablevar.commands.live import PiOpener, opener
from tablevar.live_options import PiCameraOptions
from tests.hardware import picamera2_standin


def test_a_camera_opened_again_starts_locked_as_the_first_one_locked(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", picamera2_standin.module())
    reopen = opener("pi", pi=PiCameraOptions(mains_hz=60, settle_s=0.1))
    assert isinstance(reopen, PiOpener)
    first = reopen()
    next(first.frames())  # settles, then locks
    locked = first.controls
    assert locked is not None and locked.exposure_us == 8333 and first._camera.set
    first.close()  # the camera dropped out
    again = reopen()
    next(again.frames())
    assert again.controls == locked and again._camera.set == []  # nothing re-metered
    assert again._camera.configs[0]["controls"]["ExposureTime"] == 8333


def test_saved_settings_from_the_calibration_are_used_from_the_first_open(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", picamera2_standin.module())
    saved = CameraControls("imx708", (2304, 1296), 10000, 2.0, (1.7, 1.5), 0.9, 20000, 50)
    source = opener("pi", controls=saved)()
    frame = next(source.frames())
    assert frame.index == 0 and source._camera.set == [] and source.controls == saved
    assert source.fps == 50.0
