"""The Raspberry Pi cameras tablevar knows, their sensor modes, and the locked exposure.

A preset names a camera (Camera Module 3, HQ camera, Global Shutter camera), its sensor as
libcamera reports it (``camera_properties["Model"]``), its pixel pitch and the lens it is sold
or usually fitted with, and the sensor modes picamera2 lists (``Picamera2.sensor_modes``: the
output size, the highest frame rate and the crop of the full pixel array it covers). From them:

- the field of view of a mode, and so the height above the cloth at which the whole table is in
  view (``mounting_height_mm``) and how many mm one pixel spans there (``mm_per_px``);
- the exposure locked after the automatic exposure has settled (``lock_exposure``): the same
  brightness (exposure x gain), with the exposure a whole number of mains half-periods under
  flickering light (lamps on the mains flicker at twice its frequency, so an exposure of whole
  half-periods takes in the same light whatever the phase) and otherwise short;
- the ball speed an exposure smears by one pixel (``blur_speed_mm_s``);
- the rolling shutter's readout of a mode (``readout_s``): a rolling sensor reads a frame out in
  about its fastest frame period; a global shutter reads every row at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.calibration_file import MAINS_HZ

# Without flickering light the exposure can be short: 2 ms smears a ball at 0.37 m/s over one
# pixel of the Camera Module 3's full view from its mounting height (1.24 m over a FISTF cloth),
# at the gain of a lit room (10 ms, one half-period of 50 Hz light: 73 mm/s).
SHORT_EXPOSURE_US = 2000


@dataclass(frozen=True, slots=True)
class SensorMode:
    """One sensor mode: what it streams and what part of the pixel array it sees.

    Attributes:
        size_px: (width, height) output of the sensor mode.
        max_fps: its highest frame rate.
        crop_px: (x, y, width, height) of the full pixel array the mode covers.
    """

    size_px: tuple[int, int]
    max_fps: float
    crop_px: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class CameraPreset:
    """A Raspberry Pi camera and the lens it is used with.

    Attributes:
        name: the name on the command line and in the config file.
        model: the sensor as libcamera names it.
        title: what the product is called.
        pixel_um: pixel pitch, micrometres.
        focal_mm: focal length of the lens, mm.
        modes: the sensor modes, smallest first.
        mode_px: the mode used by default (the widest view at the highest rate).
        max_gain: the sensor's highest analogue gain.
        autofocus: the lens focuses itself (and so must be locked).
        global_shutter: every row is exposed at once (else row by row: a rolling shutter).
    """

    name: str
    model: str
    title: str
    pixel_um: float
    focal_mm: float
    modes: tuple[SensorMode, ...]
    mode_px: tuple[int, int]
    max_gain: float
    autofocus: bool
    global_shutter: bool = False

    def mode(self, size_px: tuple[int, int] | None = None) -> SensorMode:
        """The sensor mode of ``size_px`` (None: the default).

        Raises:
            ValueError: the camera has no such mode.
        """
        size = tuple(size_px or self.mode_px)
        for mode in self.modes:
            if mode.size_px == size:
                return mode
        known = ", ".join(f"{m.size_px[0]}x{m.size_px[1]}" for m in self.modes)
        raise ValueError(f"the {self.title} has no {size[0]}x{size[1]} mode; it has {known}")

    def readout_s(self, mode: SensorMode) -> float:
        """From the first row's exposure to the last's in ``mode``, s (see the module
        docstring; ``tracking/shutter.py`` allows it a tenth either way)."""
        return 0.0 if self.global_shutter else 1.0 / mode.max_fps

    def fov_deg(self, mode: SensorMode) -> tuple[float, float]:
        """Horizontal and vertical field of view of ``mode``, degrees (a distortion-free lens)."""
        _, _, w, h = mode.crop_px
        return tuple(  # type: ignore[return-value]
            math.degrees(2.0 * math.atan(0.5 * n * self.pixel_um * 1e-3 / self.focal_mm))
            for n in (w, h)
        )


# Sensor modes as picamera2 lists them; the lenses: the Camera Module 3's own (4.74 mm), the
# 6 mm CS-mount lens sold for the HQ and Global Shutter cameras.
PRESETS: dict[str, CameraPreset] = {
    p.name: p
    for p in (
        CameraPreset(
            name="cm3",
            model="imx708",
            title="Camera Module 3",
            pixel_um=1.4,
            focal_mm=4.74,
            modes=(
                SensorMode((1536, 864), 120.13, (768, 432, 3072, 1728)),
                SensorMode((2304, 1296), 56.03, (0, 0, 4608, 2592)),
                SensorMode((4608, 2592), 14.35, (0, 0, 4608, 2592)),
            ),
            mode_px=(2304, 1296),
            max_gain=16.0,
            autofocus=True,
        ),
        CameraPreset(
            name="hq",
            model="imx477",
            title="HQ camera",
            pixel_um=1.55,
            focal_mm=6.0,
            modes=(
                SensorMode((1332, 990), 120.05, (696, 528, 2664, 1980)),
                SensorMode((2028, 1080), 50.03, (0, 440, 4056, 2160)),
                SensorMode((2028, 1520), 40.01, (0, 0, 4056, 3040)),
                SensorMode((4056, 3040), 10.0, (0, 0, 4056, 3040)),
            ),
            mode_px=(2028, 1520),
            max_gain=22.26,
            autofocus=False,
        ),
        CameraPreset(
            name="gs",
            model="imx296",
            title="Global Shutter camera",
            pixel_um=3.45,
            focal_mm=6.0,
            modes=(SensorMode((1456, 1088), 60.38, (0, 0, 1456, 1088)),),
            mode_px=(1456, 1088),
            max_gain=16.0,
            autofocus=False,
            global_shutter=True,
        ),
    )
}


def preset(name: str) -> CameraPreset:
    """The preset called ``name``.

    Raises:
        ValueError: no such preset.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown camera {name!r}; expected one of {sorted(PRESETS)}") from None


def preset_for_model(model: str) -> CameraPreset | None:
    """The preset of a sensor as libcamera names it (``imx708_wide`` has no preset: None)."""
    return next((p for p in PRESETS.values() if p.model == model), None)


def mounting_height_mm(
    camera: CameraPreset, mode: SensorMode, view_mm: tuple[float, float]
) -> float:
    """The lowest height of the lens above the cloth, looking straight down with the long side
    of the image along the table, at which a ``view_mm`` (length, width) area is all in view."""
    h_fov, v_fov = (math.radians(a) for a in camera.fov_deg(mode))
    return max(
        0.5 * view_mm[0] / math.tan(0.5 * h_fov),
        0.5 * view_mm[1] / math.tan(0.5 * v_fov),
    )


def mm_per_px(camera: CameraPreset, mode: SensorMode, height_mm: float) -> float:
    """What one pixel of ``mode`` spans on the cloth below a camera ``height_mm`` up, mm."""
    h_fov = math.radians(camera.fov_deg(mode)[0])
    return 2.0 * height_mm * math.tan(0.5 * h_fov) / mode.size_px[0]


def blur_speed_mm_s(exposure_us: float, mm_per_pixel: float) -> float:
    """The ball speed, mm/s, that an exposure of ``exposure_us`` smears over one pixel."""
    return mm_per_pixel / (exposure_us * 1e-6)


def half_period_us(mains_hz: int) -> float:
    """One flicker period of lamps on ``mains_hz`` mains (they flicker twice per cycle), us."""
    if mains_hz not in MAINS_HZ or mains_hz == 0:
        raise ValueError(f"mains frequency must be 50 or 60 Hz, got {mains_hz}")
    return 1e6 / (2.0 * mains_hz)


def frame_duration_us(fps: float, mode: SensorMode) -> int:
    """The steady frame duration for ``fps``, us: no faster than the mode can go.

    Raises:
        ValueError: the rate is not positive.
    """
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"frame rate must be a positive number, got {fps}")
    return math.ceil(1e6 / min(fps, mode.max_fps))


def lock_exposure(
    metered_us: float,
    metered_gain: float,
    *,
    mains_hz: int,
    frame_us: int,
    max_gain: float,
    short_us: int = SHORT_EXPOSURE_US,
) -> tuple[int, float]:
    """The exposure and gain to lock, keeping the brightness (exposure x gain) the automatic
    exposure settled on.

    Under flickering light (``mains_hz`` 50 or 60) the exposure is the fewest whole half-periods
    that reach the brightness at ``max_gain`` (one, 10 ms or 8.3 ms, unless the room is dark),
    and never longer than a frame; without flicker (``mains_hz`` 0) it is ``short_us``,
    lengthened only as far as the gain cannot make up. The gain makes up the rest, >= 1.

    Returns:
        (exposure_us, analogue_gain).

    Raises:
        ValueError: a metered value that is not positive, or a frame too short for one
            half-period of flicker.
    """
    if not (metered_us > 0 and metered_gain > 0):
        raise ValueError(f"metered exposure {metered_us} us x gain {metered_gain} must be > 0")
    product = metered_us * metered_gain
    if mains_hz:
        half = half_period_us(mains_hz)
        fit = int(frame_us // half)
        if fit < 1:
            raise ValueError(
                f"a frame of {frame_us} us is shorter than the {half:.0f} us flicker period of "
                f"{mains_hz} Hz lighting: lower the frame rate"
            )
        n = min(fit, max(1, math.ceil(product / (max_gain * half))))
        exposure = round(n * half)
    else:
        exposure = min(frame_us, max(short_us, math.ceil(product / max_gain)))
    return exposure, min(max_gain, max(1.0, product / exposure))
