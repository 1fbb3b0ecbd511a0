"""The Raspberry Pi camera through picamera2, which exists on a Pi only.

``picamera2`` is imported inside ``PiCameraSource`` so that the rest of tablevar imports and
runs anywhere. Install it on the Pi with ``sudo apt install python3-picamera2`` and create
the virtual environment with ``--system-site-packages`` so it can see it.

One verb per step, as picamera2 itself does: ``configure`` on construction, ``start`` when
``frames()`` begins, ``stop`` when it ends, ``close`` releases the camera. Each frame's time is
the request metadata's ``SensorTimestamp`` (ns, the start of the exposure on the kernel's
monotonic clock), and each request's buffers go back to the camera through
``captured_request()``, a context manager, as soon as the image has been copied out (into
a buffer used again once no ring holds its frame: ``hardware.frame_pool``).

The camera is locked for the match. Detection learns the colours of the cloth, the ball and the
bases from the first frames, so nothing automatic may change them afterwards: the automatic
exposure, white balance and (Camera Module 3) focus run for ``settle_s`` only, frames that are
not handed out; then exposure, gain, colour gains and lens position are fixed from what they
settled on (``hardware.camera_presets.lock_exposure``: the exposure a whole number of mains
half-periods under flickering light) and the first frame handed out is one taken with them.
``controls`` are the locked settings, saved with the calibration; a camera given them (a saved
calibration, the camera opened again after a drop-out) starts locked. The frame duration is
fixed too, for a steady rate.

The camera's tone curve is made straight (``linear_tuning``): detection takes a pixel's level
as proportional to the light it got (a shaded ball's side, a shadow on the cloth, the blend of
a ball's outline with the cloth), as a sensor gives it. The image signal processor's default
curve (a gamma with a contrast boost) bends that: it lifts the dark levels, draws colours
together (an orange ball toward a yellow kit) and moves a shaded ball's edges.
"""

from __future__ import annotations

import importlib
import logging
import math
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calibration_file import MAINS_HZ, CameraControls
from hardware.camera_presets import (
    CameraPreset,
    SensorMode,
    frame_duration_us,
    half_period_us,
    lock_exposure,
    preset,
    preset_for_model,
)
from hardware.frame_pool import FramePool
from hardware.frame_source import Frame, SourceBase, SourceError

_log = logging.getLogger(__name__)
# Camera Module 3 (IMX708) full-view binned mode: the whole sensor at up to 56 fps.
DEFAULT_SIZE_PX = (2304, 1296)
DEFAULT_FPS = 56.0
FORMATS = ("YUV420", "RGB888")
# libcamera's enum values (controls.AfModeEnum, controls.AeFlickerModeEnum), as plain ints so
# that nothing here imports libcamera.
AF_MODE_MANUAL, AF_MODE_CONTINUOUS = 0, 2
AE_FLICKER_MANUAL = 1
# Frames to wait for locked controls to show in the metadata (libcamera applies them a few
# frames late); the camera's own figures may differ from the asked ones by a line's time.
APPLY_FRAMES = 12
# The identity tone curve, as (input, output) pairs on libcamera's 16-bit scale.
LINEAR_GAMMA_CURVE = (0, 0, 65535, 65535)
EXPOSURE_TOLERANCE = 0.02
GAIN_TOLERANCE = 0.05


def import_picamera2() -> ModuleType:
    """The picamera2 module, or a ``SourceError`` saying how to get it."""
    try:
        return importlib.import_module("picamera2")
    except ImportError as exc:
        raise SourceError(
            "picamera2 is only available on a Raspberry Pi: install python3-picamera2 "
            "(sudo apt install python3-picamera2) and create the venv with "
            "--system-site-packages; elsewhere use a video file or opencv:N"
        ) from exc


def linear_tuning(picamera2: ModuleType, camera_num: int) -> dict[str, Any] | None:
    """The tuning of camera ``camera_num`` (its sensor's own file, as libcamera would load it)
    with its tone curve straight: ``rpi.contrast``'s adaptive contrast off and its gamma curve
    the identity, as picamera2's own example for processing raw levels does. None (the default
    tuning, with a warning) when the sensor's file is not found.

    Raises:
        IndexError: there is no camera ``camera_num``.
    """
    model = str(picamera2.Picamera2.global_camera_info()[camera_num]["Model"])
    try:
        tuning = picamera2.Picamera2.load_tuning_file(f"{model}.json")
    except RuntimeError:
        _log.warning(
            "no tuning file %s.json for the %s sensor: the camera keeps its default tone "
            "curve, which bends levels detection takes as linear (calls less exact)",
            model,
            model,
        )
        return None
    try:
        contrast = picamera2.Picamera2.find_tuning_algo(tuning, "rpi.contrast")
    except (KeyError, StopIteration):
        return tuning  # no tone curve to straighten
    contrast["ce_enable"] = 0
    contrast["gamma_curve"] = list(LINEAR_GAMMA_CURVE)
    return tuning


def sensor_timestamp_ns(metadata: Mapping[str, Any]) -> int:
    """The frame time from a request's metadata: ``SensorTimestamp``, ns.

    Raises:
        SourceError: the metadata has no usable ``SensorTimestamp``.
    """
    value = metadata.get("SensorTimestamp")
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise SourceError(
            f"camera request metadata has no SensorTimestamp (got {value!r}); "
            "update libcamera and picamera2"
        )
    return int(value)


def to_bgr(
    array: NDArray[np.uint8], fmt: str, size_px: tuple[int, int], pool: FramePool
) -> NDArray[np.uint8]:
    """A (h, w, 3) uint8 BGR copy of a picamera2 main-stream buffer, in a buffer of ``pool``
    (the camera's buffer goes back once this returns).

    Args:
        array: the buffer as ``MappedArray(request, "main").array`` shows it: (h * 3 / 2,
            stride) for YUV420 (I420 planes, rows padded to the stride), (h, w, 3) for
            RGB888 (which picamera2 stores in B, G, R byte order, OpenCV's order).
        fmt: ``YUV420`` or ``RGB888``.
        size_px: (w, h) of the stream.
        pool: where the copy goes (``hardware.frame_pool``).
    """
    w, h = size_px
    if fmt == "RGB888":
        return pool.copy_of(array)
    if fmt == "YUV420":
        if array.shape[0] != h * 3 // 2:
            raise SourceError(f"YUV420 buffer of shape {array.shape} does not fit {w}x{h}")
        # Convert at the padded stride, then crop the padding off the right-hand side.
        out = pool.take((h, array.shape[1], 3))
        return cv2.cvtColor(array, cv2.COLOR_YUV2BGR_I420, dst=out)[:, :w]
    raise SourceError(f"unsupported main stream format {fmt!r}; use one of {FORMATS}")


def picamera2_controls(controls: CameraControls, autofocus: bool) -> dict[str, Any]:
    """The picamera2 controls that lock the camera at ``controls`` (automatics off)."""
    out: dict[str, Any] = {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": int(controls.exposure_us),
        "AnalogueGain": float(controls.analogue_gain),
        "ColourGains": (float(controls.colour_gains[0]), float(controls.colour_gains[1])),
        "FrameDurationLimits": (controls.frame_duration_us, controls.frame_duration_us),
    }
    if autofocus and controls.lens_position is not None:
        out["AfMode"] = AF_MODE_MANUAL
        out["LensPosition"] = float(controls.lens_position)
    return out


class PiCameraSource(SourceBase):
    """The Raspberry Pi camera's main stream, locked for the match (see the module docstring).

    Args:
        camera: preset name (``cm3``, ``hq``, ``gs``); None: the camera found.
        size_px: sensor mode and main stream (width, height); None: the preset's default mode.
        fps: frame rate; None: the mode's highest (capped at ``DEFAULT_FPS``).
        fmt: ``RGB888`` (full colour) or ``YUV420`` (half the bytes a frame; colour at half
            resolution, so its frames count as lossy: calls near a line are less often sure).
        mains_hz: mains frequency of the lights (50 or 60; 0: lights that do not flicker).
        controls: locked settings to start with (None: let the automatics settle, then lock).
        settle_s: how long the automatics run before the lock.
        camera_num: which camera on a Pi with two.

    Raises:
        SourceError: picamera2 is missing, or the camera cannot stream what was asked.
    """

    def __init__(
        self,
        *,
        camera: str | None = None,
        size_px: tuple[int, int] | None = None,
        fps: float | None = None,
        fmt: str = "RGB888",
        mains_hz: int = 50,
        controls: CameraControls | None = None,
        settle_s: float = 1.0,
        camera_num: int = 0,
    ) -> None:
        if fmt not in FORMATS:
            raise SourceError(f"unsupported main stream format {fmt!r}; use one of {FORMATS}")
        if mains_hz not in MAINS_HZ:
            raise SourceError(f"mains frequency must be one of {MAINS_HZ} Hz, got {mains_hz}")
        try:
            chosen = None if camera is None else preset(camera)
        except ValueError as exc:
            raise SourceError(str(exc)) from None
        picamera2 = import_picamera2()
        self._mapped_array, self._pool = picamera2.MappedArray, FramePool()
        self._fmt, self.lossy, self._mains_hz = fmt, fmt == "YUV420", mains_hz
        self._settle_s, self.controls = settle_s, controls
        try:
            tuning = linear_tuning(picamera2, camera_num)
            self._camera = picamera2.Picamera2(camera_num, tuning=tuning)
        except (RuntimeError, IndexError) as exc:
            raise SourceError(
                f"cannot open Pi camera {camera_num}: {exc}; check the ribbon cable and that "
                "`rpicam-hello --list-cameras` lists it"
            ) from exc
        try:
            self._setup(chosen, size_px, fps)
        except (RuntimeError, ValueError) as exc:
            self.close()
            raise SourceError(f"Pi camera: {' '.join(str(exc).split())}") from exc

    def _setup(
        self, chosen: CameraPreset | None, size_px: tuple[int, int] | None, fps: float | None
    ) -> None:
        model = str(self._camera.camera_properties.get("Model", "unknown"))
        found = preset_for_model(model)
        if chosen is not None and found is not None and found is not chosen:
            raise ValueError(f"the config names the {chosen.title}, but a {found.title} is fitted")
        self.preset = chosen or found
        limits = self._camera.camera_controls  # name -> (min, max, default)
        self._autofocus = "AfMode" in limits
        self._max_gain = float(limits.get("AnalogueGain", (1.0, 16.0, None))[1])
        locked = self.controls
        if locked is not None:
            if locked.model != model:
                raise ValueError(
                    f"the saved camera settings are for {locked.model}, this camera is {model}: "
                    "calibrate again"
                )
            size_px = size_px or locked.mode_px
        if self.preset is not None:
            mode = self.preset.mode(size_px)
        else:
            size = size_px or DEFAULT_SIZE_PX
            mode = next((m for m in _modes(self._camera) if m.size_px == size), None)
            if mode is None:
                raise ValueError(f"the {model} camera has no {size[0]}x{size[1]} sensor mode")
        self._mode = mode
        self._size_px = mode.size_px
        self.readout_s = None if self.preset is None else self.preset.readout_s(mode)
        frame_us = (
            locked.frame_duration_us
            if locked is not None
            else frame_duration_us(fps or DEFAULT_FPS, mode)
        )
        self._frame_us, self._fps = frame_us, 1e6 / frame_us
        controls = (
            picamera2_controls(locked, self._autofocus)
            if locked is not None
            else self._automatic_controls(limits)
        )
        config = self._camera.create_video_configuration(
            main={"size": self._size_px, "format": self._fmt},
            sensor={"output_size": self._size_px},
            controls=controls,
        )
        self._camera.configure(config)

    def _automatic_controls(self, limits: Mapping[str, Any]) -> dict[str, Any]:
        """The automatics to settle with: exposure (told the flicker period, where libcamera
        knows the control), white balance and continuous focus, at the steady frame rate."""
        out: dict[str, Any] = {
            "AeEnable": True,
            "AwbEnable": True,
            "FrameDurationLimits": (self._frame_us, self._frame_us),
        }
        if self._mains_hz and "AeFlickerMode" in limits:
            out["AeFlickerMode"] = AE_FLICKER_MANUAL
            out["AeFlickerPeriod"] = round(half_period_us(self._mains_hz))
        if self._autofocus:
            out["AfMode"] = AF_MODE_CONTINUOUS
        return out

    @property
    def size_px(self) -> tuple[int, int]:
        return self._size_px

    @property
    def fps(self) -> float:
        return self._fps

    def reserve_frames(self, count: int) -> None:
        self._pool.reserve(count)

    def frames(self) -> Iterator[Frame]:
        self._camera.start()
        try:
            if self.controls is None:
                self._lock()
            index = 0
            while True:
                with self._camera.captured_request() as request:
                    t_ns = sensor_timestamp_ns(request.get_metadata())
                    # Copied out of the camera's buffer (which goes back now) into a buffer
                    # of our own, as make_array does, but used again once no ring holds it.
                    with self._mapped_array(request, "main") as mapped:
                        image = to_bgr(mapped.array, self._fmt, self._size_px, self._pool)
                yield Frame(index, t_ns, image)
                index += 1
        finally:
            self._camera.stop()

    def _metadata(self) -> Mapping[str, Any]:
        with self._camera.captured_request() as request:
            return request.get_metadata()

    def _lock(self) -> None:
        """Let the automatics settle for ``settle_s``, lock what they found, and wait until
        the frames are taken with it."""
        metadata: Mapping[str, Any] = {}
        for _ in range(max(1, math.ceil(self._settle_s * self._fps))):
            metadata = self._metadata()
        self.controls = locked = self._locked_controls(metadata)
        self._camera.set_controls(picamera2_controls(locked, self._autofocus))
        for _ in range(APPLY_FRAMES):
            if _shows(self._metadata(), locked):
                return
        _log.warning(
            "the camera does not report the locked exposure %d us x %.2f after %d frames",
            locked.exposure_us,
            locked.analogue_gain,
            APPLY_FRAMES,
        )

    def _locked_controls(self, metadata: Mapping[str, Any]) -> CameraControls:
        try:
            metered_us = float(metadata["ExposureTime"])
            metered_gain = float(metadata["AnalogueGain"])
            red, blue = (float(g) for g in metadata["ColourGains"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(
                f"the camera's metadata lacks its exposure or white balance ({exc}); "
                "update libcamera and picamera2"
            ) from exc
        exposure_us, gain = lock_exposure(
            metered_us,
            metered_gain,
            mains_hz=self._mains_hz,
            frame_us=self._frame_us,
            max_gain=self._max_gain,
        )
        lens = metadata.get("LensPosition") if self._autofocus else None
        return CameraControls(
            model=str(self._camera.camera_properties.get("Model", "unknown")),
            mode_px=self._size_px,
            exposure_us=exposure_us,
            analogue_gain=gain,
            colour_gains=(red, blue),
            lens_position=None if lens is None else float(lens),
            frame_duration_us=self._frame_us,
            mains_hz=self._mains_hz,
        )

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None


def _shows(metadata: Mapping[str, Any], locked: CameraControls) -> bool:
    """Whether a frame's metadata shows it was taken with the locked exposure and gain."""
    try:
        exposure = float(metadata["ExposureTime"])
        gain = float(metadata["AnalogueGain"])
    except (KeyError, TypeError, ValueError):
        return False
    return (
        abs(exposure - locked.exposure_us) <= EXPOSURE_TOLERANCE * locked.exposure_us
        and abs(gain - locked.analogue_gain) <= GAIN_TOLERANCE * locked.analogue_gain
    )


def _modes(camera: Any) -> list[SensorMode]:
    """The sensor modes of a camera without a preset, as ``SensorMode``s."""
    return [
        SensorMode(tuple(m["size"]), float(m["fps"]), tuple(m["crop_limits"]))
        for m in camera.sensor_modes
    ]


__all__ = [
    "FORMATS",
    "PiCameraSource",
    "linear_tuning",
    "picamera2_controls",
    "sensor_timestamp_ns",
    "to_bgr",
]
